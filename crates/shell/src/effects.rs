//! The files a command reads or writes and the URLs it fetches, from its
//! argv and the tables in [`crate::tables`].

use crate::risky;
use crate::tables::{self, Access, Operands, Spec};
use crate::words::Arg;

/// One file or URL touched by a command's operand or option.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub access: Access,
    pub arg: Arg,
    pub recursive: bool,
}

/// A command run by another one (`find -exec`, `git bisect run`).
#[derive(Debug, Clone)]
pub(crate) enum Nested {
    /// An argv run directly.
    Argv {
        argv: Vec<Arg>,
        wrapper: Vec<String>,
    },
    /// A shell script (`git submodule foreach 'cmd'`).
    Script {
        text: String,
        literal: bool,
        wrapper: Vec<String>,
    },
}

/// What the tables say about one command.
#[derive(Debug, Default)]
pub(crate) struct Derived {
    pub found: Vec<Found>,
    pub unknowns: Vec<String>,
    pub nested: Vec<Nested>,
    /// A known reading or listing command, as far as its arguments go.
    pub read_only: bool,
    /// `git -C DIR`: the directory its paths are relative to.
    pub cwd: Option<Arg>,
}

impl Derived {
    pub(crate) fn add(&mut self, access: Access, arg: &Arg, recursive: bool) {
        if arg.literal && (arg.text == "-" || arg.text.is_empty()) {
            return;
        }
        // `find DIR -delete` and `find DIR -exec rm {}` remove what find's
        // tests select beneath DIR, not DIR itself: a recursive write, which
        // the policy checks against everything beneath, rather than the
        // removal of DIR (for a root, a hard limit no one could lift).
        let access = if arg.beneath && access == Access::Delete {
            Access::Write
        } else {
            access
        };
        self.found.push(Found {
            access,
            arg: arg.clone(),
            recursive: recursive || arg.beneath,
        });
    }
}

/// Options and operands, split the way GNU tools read them.
#[derive(Debug, Default)]
pub(crate) struct Opts {
    /// `-x` or `--name`, with the value it took, if any.
    pub opts: Vec<(String, Option<Arg>)>,
    pub operands: Vec<Arg>,
    /// Long options given by their full name as the tables know it: never
    /// taken for an abbreviation of a longer one (`--exclude` is not
    /// `--exclude-from`).
    pub exact: Vec<String>,
}

/// Whether the option as given is `wanted`: GNU tools (and git) accept a
/// long option abbreviated to a prefix (`--compress` for
/// `--compress-program`), so a prefix of three letters or more counts. An
/// ambiguous prefix is refused by the tool itself: counting it is safe.
/// Real options that are also prefixes of ones looked for: `git diff --text`
/// is not `--textconv`, `tar --checkpoint` not `--checkpoint-action`.
const WHOLE: &[&str] = &["--text", "--filter", "--checkpoint"];

pub(crate) fn is_option(given: &str, wanted: &str) -> bool {
    given == wanted
        || (given.starts_with("--")
            && given.len() >= 5
            && wanted.starts_with(given)
            && !WHOLE.contains(&given))
}

impl Opts {
    fn is(&self, given: &str, wanted: &str) -> bool {
        given == wanted || (!self.exact.iter().any(|e| e == given) && is_option(given, wanted))
    }

    pub fn has(&self, names: &[&str]) -> bool {
        self.opts
            .iter()
            .any(|(n, _)| names.iter().any(|w| self.is(n, w)))
    }

    pub fn values<'a>(&'a self, names: &'a [&str]) -> impl Iterator<Item = &'a Arg> + 'a {
        self.opts
            .iter()
            .filter(move |(n, _)| names.iter().any(|w| self.is(n, w)))
            .filter_map(|(_, v)| v.as_ref())
    }
}

/// Splits `args` (argv without the command name) into options and operands.
/// An option not known to take a value is a flag, so the word after it is
/// checked as an operand.
pub(crate) fn parse_opts(
    args: &[Arg],
    short_args: &str,
    long_args: &[&str],
    file_opts: &[(&str, Access)],
) -> Opts {
    let takes_short = |c: char| {
        short_args.contains(c)
            || file_opts
                .iter()
                .any(|(n, _)| n.len() == 2 && n.ends_with(c) && !n.starts_with("--"))
    };
    let longs = || {
        long_args
            .iter()
            .copied()
            .chain(file_opts.iter().filter_map(|(o, _)| o.strip_prefix("--")))
    };
    // A long option given by a prefix that only one option taking a value
    // has is that option (and takes the next word).
    let full_long = |n: &str| -> Option<String> {
        if longs().any(|l| l == n) {
            return Some(n.to_string());
        }
        if n.len() < 3 || WHOLE.contains(&format!("--{n}").as_str()) {
            return None;
        }
        let mut candidates: Vec<&str> = longs().filter(|l| l.starts_with(n)).collect();
        candidates.sort_unstable();
        candidates.dedup();
        match candidates[..] {
            [only] => Some(only.to_string()),
            _ => None,
        }
    };
    let mut out = Opts::default();
    let mut iter = args.iter();
    let mut end = false;
    while let Some(arg) = iter.next() {
        let t = arg.text.as_str();
        if end || !t.starts_with('-') || t == "-" {
            out.operands.push(arg.clone());
            continue;
        }
        if t == "--" {
            end = true;
            continue;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(arg.with_text(v))),
                None => (long, None),
            };
            let full = full_long(name);
            if let Some(f) = &full {
                out.exact.push(format!("--{f}"));
            }
            let value = match value {
                Some(v) => Some(v),
                None if full.is_some() => iter.next().cloned(),
                None => None,
            };
            out.opts
                .push((format!("--{}", full.as_deref().unwrap_or(name)), value));
            continue;
        }
        let cluster: Vec<char> = t.chars().skip(1).collect();
        for (i, &c) in cluster.iter().enumerate() {
            if takes_short(c) {
                let rest: String = cluster[i + 1..].iter().collect();
                let value = if rest.is_empty() {
                    iter.next().cloned()
                } else {
                    Some(arg.with_text(rest))
                };
                out.opts.push((format!("-{c}"), value));
                break;
            }
            out.opts.push((format!("-{c}"), None));
        }
    }
    out
}

/// Derives the effects of `name` (the command's base name) run with `args`.
pub(crate) fn derive(name: &str, args: &[Arg]) -> Derived {
    let Some(spec) = tables::known(name).spec else {
        return Derived::default();
    };
    let mut d = Derived {
        read_only: spec.read_only,
        ..Derived::default()
    };
    if spec.operands == Operands::Custom {
        custom(name, spec, args, &mut d);
        finish_read_only(&mut d);
        return d;
    }
    let o = if spec.operands == Operands::AfterMode {
        parse_mode_opts(args)
    } else {
        parse_opts(args, spec.short_args, spec.long_args, spec.file_opts)
    };
    file_opts(spec, &o, &mut d);
    let recursive = spec.always_recursive || o.has(spec.recursive);
    let mut operands: &[Arg] = &o.operands;
    match spec.operands {
        Operands::None | Operands::Custom => {}
        Operands::All(access) => each(&mut d, access, operands, recursive),
        Operands::AfterProgram => {
            if !o.has(spec.program_opts) {
                program_checks(name, operands.first(), &mut d);
                operands = operands.get(1..).unwrap_or_default();
            }
            for v in o.values(&["-e", "--expression", "--source"]) {
                program_checks(name, Some(v), &mut d);
            }
            if (o.has(&["-f", "--file"])
                && matches!(name, "sed" | "gsed" | "awk" | "gawk" | "mawk" | "nawk"))
                || (o.has(&["-E", "--exec"])
                    && matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk"))
            {
                d.unknowns
                    .push(format!("`{name}` program read from a file is not analysed"));
            }
            let in_place = match name {
                "sed" | "gsed" => o.has(&["-i", "--in-place"]),
                _ => o.values(&["-i", "--include"]).any(|v| v.text == "inplace"),
            };
            let access = if in_place {
                Access::Write
            } else {
                Access::Read
            };
            if operands.is_empty() && recursive {
                if let Some(default) = spec.default_operand.or(Some(".")) {
                    d.add(Access::Read, &Arg::lit(default), true);
                }
            }
            each(&mut d, access, operands, recursive);
        }
        Operands::AfterMode => {
            if !o.has(&["--reference"]) {
                operands = operands.get(1..).unwrap_or_default();
            }
            each(&mut d, Access::Write, operands, recursive);
        }
        Operands::InOut => {
            if let Some(input) = operands.first() {
                d.add(Access::Read, input, false);
            }
            if let Some(output) = operands.get(1) {
                d.add(Access::Write, output, false);
            }
        }
        Operands::Copy | Operands::Move | Operands::Link => {
            let target: Option<Arg> = o.values(&["-t", "--target-directory"]).next().cloned();
            let (sources, dest) = match (&target, operands.split_last()) {
                (Some(t), _) => (operands, Some(t.clone())),
                (None, Some((last, rest))) if !rest.is_empty() => (rest, Some(last.clone())),
                (None, Some((only, _))) if spec.operands == Operands::Link => {
                    let base = only
                        .text
                        .rsplit('/')
                        .next()
                        .unwrap_or(&only.text)
                        .to_string();
                    (operands, Some(only.with_text(base)))
                }
                _ => (operands, None),
            };
            let install_dirs = name == "install" && o.has(&["-d", "--directory"]);
            let source_access = match spec.operands {
                Operands::Move => Access::Delete,
                _ if install_dirs => Access::Write,
                _ => Access::Read,
            };
            each(&mut d, source_access, sources, recursive);
            if let Some(dest) = dest {
                if !install_dirs || target.is_some() {
                    d.add(
                        Access::Write,
                        &dest,
                        recursive || spec.operands == Operands::Move,
                    );
                }
            }
        }
    }
    if o.operands.is_empty() && !matches!(spec.operands, Operands::AfterProgram) {
        if let Some(default) = spec.default_operand {
            d.add(Access::Read, &Arg::lit(default), recursive);
        }
    }
    risky::check(name, args, &o, &mut d);
    finish_read_only(&mut d);
    d
}

fn finish_read_only(d: &mut Derived) {
    if d.found.iter().any(|f| {
        matches!(
            f.access,
            Access::Write | Access::Delete | Access::WriteDir | Access::Fetch
        )
    }) || !d.nested.is_empty()
    {
        d.read_only = false;
    }
}

fn each(d: &mut Derived, access: Access, operands: &[Arg], recursive: bool) {
    for a in operands {
        d.add(access, a, recursive);
    }
}

fn file_opts(spec: &Spec, o: &Opts, d: &mut Derived) {
    for (name, value) in &o.opts {
        let Some(value) = value else { continue };
        if let Some((_, access)) = spec.file_opts.iter().find(|(n, _)| o.is(name, n)) {
            let recursive = *access == Access::WriteDir;
            d.add(*access, value, recursive);
        }
    }
}

/// `chmod -x f` is a mode, not an option: only `-c -f -v -R -h -H -L -P`
/// clusters and long options are options.
fn parse_mode_opts(args: &[Arg]) -> Opts {
    let mut out = Opts::default();
    let mut end = false;
    for a in args {
        let t = a.text.as_str();
        if end || !a.literal || t == "-" {
            out.operands.push(a.clone());
        } else if t == "--" {
            end = true;
        } else if let Some(long) = t.strip_prefix("--") {
            let (n, v) = match long.split_once('=') {
                Some((n, v)) => (n, Some(a.with_text(v))),
                None => (long, None),
            };
            out.opts.push((format!("--{n}"), v));
        } else if t.len() > 1
            && t.starts_with('-')
            && t[1..].chars().all(|c| "cfvRhHLP".contains(c))
        {
            for c in t[1..].chars() {
                out.opts.push((format!("-{c}"), None));
            }
        } else {
            out.operands.push(a.clone());
        }
    }
    out
}

/// Programs given to `sed` and `awk` can write files and run commands.
fn program_checks(name: &str, program: Option<&Arg>, d: &mut Derived) {
    let Some(program) = program else { return };
    let is_sed = matches!(name, "sed" | "gsed");
    let is_awk = matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk");
    if !is_sed && !is_awk {
        return;
    }
    if !program.literal {
        d.unknowns.push(format!(
            "`{name}` program is not literal: `{}`",
            program.text
        ));
        return;
    }
    if is_sed {
        sed_program(&program.text, d);
    } else if let Some(why) = awk_program(&program.text) {
        d.unknowns.push(format!("`{name}` program {why}"));
    }
}

/// Walks a sed script command by command: `w`/`W` and the `w` flag write,
/// `r`/`R` read, `e` and the `e` flag run commands.
fn sed_program(script: &str, d: &mut Derived) {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let filename = |i: &mut usize| -> String {
        while *i < chars.len() && chars[*i] == ' ' {
            *i += 1;
        }
        let start = *i;
        while *i < chars.len() && chars[*i] != '\n' {
            *i += 1;
        }
        chars[start..*i]
            .iter()
            .collect::<String>()
            .trim_end()
            .to_string()
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | ';' | '{' | '}' | '!' | ',' | '0'..='9' | '$' | '~' | '+' => i += 1,
            '/' | '\\' => {
                // An address: skip the regex to its closing delimiter.
                let delim = if c == '\\' {
                    i += 1;
                    chars.get(i).copied().unwrap_or('/')
                } else {
                    '/'
                };
                i += 1;
                while i < chars.len() && chars[i] != delim {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                while i < chars.len() && matches!(chars[i], 'I' | 'M') {
                    i += 1;
                }
            }
            's' | 'y' => {
                let Some(&delim) = chars.get(i + 1) else {
                    return;
                };
                i += 2;
                let mut parts = 0;
                while i < chars.len() && parts < 2 {
                    if chars[i] == '\\' {
                        i += 1;
                    } else if chars[i] == delim {
                        parts += 1;
                    }
                    i += 1;
                }
                if c == 's' {
                    while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}') {
                        match chars[i] {
                            'e' => {
                                d.unknowns
                                    .push("sed `s///e` runs the pattern space as a command".into());
                                i += 1;
                            }
                            'w' => {
                                i += 1;
                                let f = filename(&mut i);
                                sed_file(d, Access::Write, f);
                            }
                            _ => i += 1,
                        }
                    }
                }
            }
            'w' | 'W' | 'r' | 'R' => {
                i += 1;
                let f = filename(&mut i);
                let access = if matches!(c, 'w' | 'W') {
                    Access::Write
                } else {
                    Access::Read
                };
                sed_file(d, access, f);
            }
            'e' => {
                d.unknowns.push("sed `e` runs a command".into());
                return;
            }
            'a' | 'i' | 'c' | ':' | 'b' | 't' | 'T' | '#' => {
                // Text or a label to the end of the line.
                while i < chars.len()
                    && chars[i] != '\n'
                    && !(matches!(c, 'b' | 't' | 'T') && chars[i] == ';')
                {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
}

fn sed_file(d: &mut Derived, access: Access, name: String) {
    if name.is_empty() {
        return;
    }
    if matches!(name.as_str(), "/dev/stdout" | "/dev/stderr" | "/dev/stdin") {
        return;
    }
    d.found.push(Found {
        access,
        arg: Arg::lit(name),
        recursive: false,
    });
}

/// Why an awk program may do more than read, if it may.
fn awk_program(program: &str) -> Option<&'static str> {
    let text = strip_awk_strings(program);
    if text.contains("system") {
        return Some("calls `system`");
    }
    if text.contains("@load") || text.contains("@include") {
        return Some("loads code that is not analysed (`@load`, `@include`)");
    }
    // `getline < file` and `getline var < file` read a file the policy
    // cannot see.
    let mut rest = text.as_str();
    while let Some(at) = rest.find("getline") {
        let after = rest[at + 7..].trim_start();
        let after = after
            .strip_prefix(|c: char| c.is_ascii_alphabetic() || c == '_')
            .map(|r| r.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after)
            .trim_start();
        if after.starts_with('<') {
            return Some("reads a file (`getline < file`)");
        }
        rest = &rest[at + 7..];
    }
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'|' || bytes.get(i + 1) == Some(&b'|') || (i > 0 && bytes[i - 1] == b'|') {
            continue;
        }
        let after = text[i + 1..].trim_start();
        if after.starts_with('"') || after.starts_with("getline") || after.starts_with('&') {
            return Some("pipes to or from a command");
        }
    }
    // `print .. > file`: a `>` after print/printf in the same statement.
    let mut rest = text.as_str();
    while let Some(at) = rest.find("print") {
        let after = &rest[at + 5..];
        let end = after.find([';', '}', '\n']).unwrap_or(after.len());
        if after[..end].contains('>') {
            return Some("may write a file (`print > file`)");
        }
        rest = &after[end.min(after.len())..];
    }
    None
}

/// Replaces the contents of awk string literals and regexes with blanks, so
/// that `"a|b"` or `/x>y/` are not taken for pipes or redirects.
fn strip_awk_strings(program: &str) -> String {
    let mut out = String::with_capacity(program.len());
    let mut in_str = false;
    let mut escape = false;
    for c in program.chars() {
        if in_str {
            if escape {
                escape = false;
            } else if c == '\\' {
                escape = true;
            } else if c == '"' {
                in_str = false;
                out.push('"');
            }
            continue;
        }
        if c == '"' {
            in_str = true;
        }
        out.push(c);
    }
    out
}

fn custom(name: &str, spec: &Spec, args: &[Arg], d: &mut Derived) {
    match name {
        "source" | "." => {
            if let Some(file) = args.first() {
                d.add(Access::Read, file, false);
                d.unknowns
                    .push(format!("`{name} {}` runs a file in this shell", file.text));
            }
        }
        "find" => find(args, d),
        "fd" | "fdfind" => fd(args, d),
        "jq" | "gojq" | "jaq" => jq(args, d),
        "yq" => yq(spec, args, d),
        "dd" => {
            for a in args {
                if let Some(v) = a.text.strip_prefix("if=") {
                    d.add(Access::Read, &a.with_text(v), false);
                } else if let Some(v) = a.text.strip_prefix("of=") {
                    d.add(Access::Write, &a.with_text(v), false);
                }
            }
        }
        "patch" => {
            let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
            file_opts(spec, &o, d);
            match o.operands.first() {
                Some(orig) => d.add(Access::Write, orig, false),
                None => {
                    let dir = o
                        .values(&["-d", "--directory"])
                        .next()
                        .cloned()
                        .unwrap_or_else(|| Arg::lit("."));
                    d.add(Access::WriteDir, &dir, true);
                }
            }
            if let Some(p) = o.operands.get(1) {
                d.add(Access::Read, p, false);
            }
        }
        "tar" | "bsdtar" | "gtar" => tar(spec, args, d),
        "unzip" => unzip(args, d),
        "zip" => {
            let o = parse_opts(args, "bnitxTO", &["unzip-command"], &[]);
            if o.has(&["-TT", "--unzip-command"]) || args.iter().any(|a| a.text == "-TT") {
                d.unknowns.push("`zip -TT` runs a command".into());
            }
            let recursive = o.has(&["-r", "--recurse-paths"]);
            if let Some((archive, files)) = o.operands.split_first() {
                d.add(Access::Write, archive, false);
                each(d, Access::Read, files, recursive);
            }
        }
        "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "lzma" | "unlzma"
        | "compress" | "uncompress" | "lz4" | "zstd" | "unzstd" => {
            let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
            file_opts(spec, &o, d);
            let to_stdout = o.has(&[
                "-c",
                "--stdout",
                "--to-stdout",
                "-l",
                "--list",
                "-t",
                "--test",
            ]);
            let keeps = o.has(&["-k", "--keep"]) || (name.contains("zstd") && !o.has(&["--rm"]));
            let access = if to_stdout {
                Access::Read
            } else if keeps {
                Access::Write
            } else {
                Access::Delete
            };
            let recursive = o.has(&["-r", "--recursive"]);
            each(d, access, &o.operands, recursive);
        }
        "curl" => curl(spec, args, d),
        "wget" | "wget2" => wget(spec, args, d),
        "aria2c" => {
            let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
            file_opts(spec, &o, d);
            each(d, Access::Fetch, &o.operands, false);
            if !o.has(&["-d", "--dir", "-o", "--out"]) {
                d.add(Access::WriteDir, &Arg::lit("."), true);
            }
        }
        "http" | "https" | "xh" | "xhs" | "httpie" => httpie(spec, args, d),
        "git" => git(args, d),
        "scp" | "rsync" => remote_copy(name, spec, args, d),
        "ssh" => {
            let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
            file_opts(spec, &o, d);
            ssh_options(name, &o, d);
        }
        _ => {}
    }
}

fn find(args: &[Arg], d: &mut Derived) {
    let mut i = 0;
    // Leading options (-H -L -P -O3 -D opts).
    while let Some(a) = args.get(i) {
        match a.text.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            t if t.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let mut roots = Vec::new();
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if a.literal && (t.starts_with('-') || t == "(" || t == "!" || t == ")") {
            break;
        }
        roots.push(a.clone());
        i += 1;
    }
    if roots.is_empty() {
        roots.push(Arg::lit("."));
    }
    // Finding names reads directories, not the files in them; what `-exec`
    // or `-delete` does to everything beneath is added below.
    for r in &roots {
        d.add(Access::Read, r, false);
    }
    let with_value = [
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-regex",
        "-iregex",
        "-type",
        "-xtype",
        "-size",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-perm",
        "-user",
        "-group",
        "-uid",
        "-gid",
        "-links",
        "-inum",
        "-maxdepth",
        "-mindepth",
        "-newer",
        "-anewer",
        "-cnewer",
        "-samefile",
        "-printf",
        "-fstype",
        "-lname",
        "-ilname",
        "-wholename",
        "-iwholename",
        "-used",
        "-context",
        "-regextype",
        "-files0-from",
    ];
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        i += 1;
        // A word in the place of a test or action that is only known when
        // it runs (`$X`, a glob such as `-del*`) may be `-delete` or `-exec`.
        if !a.literal || a.pattern.is_some() {
            d.unknowns.push(format!(
                "`find` expression word `{}` is only known when it runs, and may be an action",
                a.pattern.as_deref().unwrap_or(t)
            ));
            continue;
        }
        match t {
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let start = i;
                while let Some(a) = args.get(i) {
                    if a.literal
                        && (a.text == ";"
                            || (a.text == "+" && i > start && args[i - 1].text == "{}"))
                    {
                        break;
                    }
                    i += 1;
                }
                let mut argv = Vec::new();
                for a in args.get(start..i).unwrap_or_default() {
                    if a.literal && a.text == "{}" {
                        for r in &roots {
                            argv.push(Arg {
                                beneath: true,
                                ..r.clone()
                            });
                        }
                    } else if a.literal && a.text.contains("{}") {
                        argv.push(Arg::dynamic(a.text.clone()));
                    } else {
                        argv.push(a.clone());
                    }
                }
                i += 1;
                if !argv.is_empty() {
                    d.nested.push(Nested::Argv {
                        argv,
                        wrapper: vec!["find".into(), t.into()],
                    });
                }
            }
            "-delete" => {
                for r in &roots {
                    let beneath = Arg {
                        beneath: true,
                        ..r.clone()
                    };
                    d.add(Access::Delete, &beneath, true);
                }
            }
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                if let Some(f) = args.get(i) {
                    d.add(Access::Write, f, false);
                }
                i += if t == "-fprintf" { 2 } else { 1 };
            }
            _ if t.starts_with("-newer") && t.len() > 6 => i += 1,
            _ if with_value.contains(&t) => {
                if t == "-files0-from" {
                    if let Some(f) = args.get(i) {
                        d.add(Access::Read, f, false);
                    }
                }
                i += 1;
            }
            _ => {}
        }
    }
}

fn fd(args: &[Arg], d: &mut Derived) {
    let exec_at = args.iter().position(|a| {
        a.literal && matches!(a.text.as_str(), "-x" | "-X" | "--exec" | "--exec-batch")
    });
    let (own, exec) = match exec_at {
        Some(p) => (&args[..p], args.get(p + 1..)),
        None => (args, None),
    };
    let o = parse_opts(
        own,
        "edEtcjS",
        &[
            "extension",
            "max-depth",
            "exclude",
            "type",
            "color",
            "threads",
            "size",
            "changed-within",
            "changed-before",
            "owner",
            "base-directory",
            "search-path",
            "format",
            "ignore-file",
        ],
        &[],
    );
    let mut roots: Vec<Arg> = o.operands.get(1..).unwrap_or_default().to_vec();
    roots.extend(o.values(&["--search-path", "--base-directory"]).cloned());
    if roots.is_empty() {
        roots.push(Arg::lit("."));
    }
    for r in &roots {
        d.add(Access::Read, r, false);
    }
    if let Some(exec) = exec {
        let mut argv = Vec::new();
        let mut placed = false;
        for a in exec {
            if a.literal && a.text == ";" {
                break;
            }
            if a.literal && a.text.starts_with('{') && a.text.ends_with('}') {
                placed = true;
                for r in &roots {
                    argv.push(Arg {
                        beneath: true,
                        ..r.clone()
                    });
                }
            } else {
                argv.push(a.clone());
            }
        }
        // With no placeholder, fd appends each path found.
        if !placed && !argv.is_empty() {
            argv.extend(roots.iter().map(|r| Arg {
                beneath: true,
                ..r.clone()
            }));
        }
        if !argv.is_empty() {
            d.nested.push(Nested::Argv {
                argv,
                wrapper: vec!["fd".into(), "--exec".into()],
            });
        }
    }
}

fn jq(args: &[Arg], d: &mut Derived) {
    let mut operands = Vec::new();
    let mut from_file = false;
    let mut i = 0;
    let mut rest_are_args = false;
    while let Some(a) = args.get(i) {
        i += 1;
        let t = a.text.as_str();
        if rest_are_args && !(a.literal && t.starts_with('-')) {
            continue;
        }
        if !a.literal || !t.starts_with('-') || t == "-" {
            operands.push(a.clone());
            continue;
        }
        match t {
            "--arg" | "--argjson" => i += 2,
            "--slurpfile" | "--rawfile" => {
                if let Some(f) = args.get(i + 1) {
                    d.add(Access::Read, f, false);
                }
                i += 2;
            }
            "-f" | "--from-file" => {
                if let Some(f) = args.get(i) {
                    d.add(Access::Read, f, false);
                }
                from_file = true;
                i += 1;
            }
            "-L" | "--indent" => i += 1,
            "--args" | "--jsonargs" => rest_are_args = true,
            _ => {}
        }
    }
    let files = if from_file {
        &operands[..]
    } else {
        if let Some(program) = operands.first() {
            if words_of(&program.text).any(|w| matches!(w, "import" | "include")) {
                d.unknowns.push(format!(
                    "`jq` program loads modules or data files: `{}`",
                    program.text
                ));
            }
        }
        operands.get(1..).unwrap_or_default()
    };
    each(d, Access::Read, files, false);
}

fn yq(spec: &Spec, args: &[Arg], d: &mut Derived) {
    let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
    file_opts(spec, &o, d);
    let mut operands: &[Arg] = &o.operands;
    if operands
        .first()
        .is_some_and(|a| matches!(a.text.as_str(), "e" | "eval" | "ea" | "eval-all"))
    {
        operands = &operands[1..];
    }
    if o.has(&["-s", "--split-exp"]) {
        d.unknowns
            .push("`yq --split-exp` writes files named by an expression".into());
    }
    if !o.has(&["--from-file"]) {
        if let Some(expr) = operands.first() {
            if words_of(&expr.text).any(|w| w.starts_with("load")) {
                d.unknowns.push(format!(
                    "`yq` expression reads files it names: `{}`",
                    expr.text
                ));
            }
        }
        operands = operands.get(1..).unwrap_or_default();
    }
    let access = if o.has(&["-i", "--inplace"]) {
        Access::Write
    } else {
        Access::Read
    };
    each(d, access, operands, false);
}

/// The identifier-like words of a program text.
fn words_of(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

fn tar(spec: &Spec, args: &[Arg], d: &mut Derived) {
    let mut args: Vec<Arg> = args.to_vec();
    // Old style: `tar xzf a.tgz` is `tar -x -z -f a.tgz`.
    if let Some(first) = args.first() {
        if first.literal
            && !first.text.starts_with('-')
            && first.text.chars().all(|c| c.is_ascii_alphabetic())
        {
            let letters: Vec<char> = first.text.chars().collect();
            let mut rebuilt = Vec::new();
            let mut values = args[1..].iter();
            for c in letters {
                rebuilt.push(Arg::lit(format!("-{c}")));
                if "fCTXbIKNgLVH".contains(c) {
                    if let Some(v) = values.next() {
                        rebuilt.push(v.clone());
                    }
                }
            }
            rebuilt.extend(values.cloned());
            args = rebuilt;
        }
    }
    let o = parse_opts(&args, spec.short_args, spec.long_args, &[]);
    if o.has(&[
        "--to-command",
        "--checkpoint-action",
        "--info-script",
        "--new-volume-script",
        "-F",
        "-I",
        "--use-compress-program",
        "--rmt-command",
        "--rsh-command",
    ]) || o.opts.iter().any(|(n, _)| n.starts_with("--use-compress"))
    {
        d.unknowns.push("`tar` option runs a program".into());
    }
    let archive: Option<Arg> = o.values(&["-f", "--file"]).next().cloned();
    // `-f host:file` is an archive on another host, reached by running
    // `rsh` (or `--rsh-command`), unless `--force-local`.
    if let Some(a) = &archive {
        let remote = a
            .text
            .split_once(':')
            .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'));
        if remote && !o.has(&["--force-local"]) {
            d.unknowns.push(format!(
                "`tar -f {}` is an archive on another host, reached by a remote shell",
                a.text
            ));
        }
    }
    for f in o.values(&["--index-file", "--volno-file"]) {
        d.add(Access::Write, f, false);
    }
    let dir: Arg = o
        .values(&["-C", "--directory"])
        .next()
        .cloned()
        .unwrap_or_else(|| Arg::lit("."));
    for f in o.values(&["-T", "--files-from", "-X", "--exclude-from"]) {
        d.add(Access::Read, f, false);
    }
    let extract = o.has(&["-x", "--extract", "--get"]);
    let snapshots: Vec<Arg> = o.values(&["-g", "--listed-incremental"]).cloned().collect();
    let create = o.has(&[
        "-c",
        "--create",
        "-r",
        "--append",
        "-u",
        "--update",
        "-A",
        "--catenate",
        "--concatenate",
        "--delete",
    ]);
    if extract {
        if let Some(a) = &archive {
            d.add(Access::Read, a, false);
        }
        d.add(Access::WriteDir, &dir, true);
    } else if create {
        if let Some(a) = &archive {
            d.add(Access::Write, a, false);
        }
        for f in &o.operands {
            let f = if dir.text != "." && f.literal && !f.text.starts_with('/') {
                f.with_text(format!("{}/{}", dir.text.trim_end_matches('/'), f.text))
            } else {
                f.clone()
            };
            d.add(Access::Read, &f, true);
        }
    } else {
        if let Some(a) = &archive {
            d.add(Access::Read, a, false);
        }
    }
    for f in &snapshots {
        // Creating updates the snapshot file; listing and extracting read it.
        let access = if create { Access::Write } else { Access::Read };
        d.add(access, f, false);
    }
    d.read_only = !extract && !create && o.has(&["-t", "--list"]);
}

fn unzip(args: &[Arg], d: &mut Derived) {
    let mut operands = Vec::new();
    let mut dir = None;
    let mut list_only = false;
    let mut i = 0;
    let mut excluding = false;
    while let Some(a) = args.get(i) {
        i += 1;
        let t = a.text.as_str();
        if a.literal && t.starts_with('-') && t.len() > 1 {
            excluding = false;
            match t {
                "-d" => {
                    dir = args.get(i).cloned();
                    i += 1;
                }
                "-x" => excluding = true,
                "-P" | "-O" | "-I" => i += 1,
                _ => {
                    if t.chars().skip(1).any(|c| "lvtzZpc".contains(c)) {
                        list_only = true;
                    }
                    if let Some(rest) = t.strip_prefix("-d") {
                        dir = Some(a.with_text(rest));
                    }
                }
            }
        } else if !excluding {
            operands.push(a.clone());
        }
    }
    if let Some(archive) = operands.first() {
        d.add(Access::Read, archive, false);
    }
    if !list_only {
        d.add(
            Access::WriteDir,
            &dir.unwrap_or_else(|| Arg::lit(".")),
            true,
        );
    }
    d.read_only = list_only;
}

fn basename_of_url(url: &str) -> String {
    let no_query = url.split(['?', '#']).next().unwrap_or(url);
    let path = no_query
        .split_once("://")
        .map_or(no_query, |(_, rest)| rest);
    match path.split_once('/') {
        Some((_, p)) => p.rsplit('/').next().unwrap_or("").to_string(),
        None => String::new(),
    }
}

fn curl(spec: &Spec, args: &[Arg], d: &mut Derived) {
    let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
    file_opts(spec, &o, d);
    for (n, v) in &o.opts {
        let Some(v) = v else { continue };
        let file = match n.as_str() {
            "-d" | "--data" | "--data-binary" | "--data-ascii" | "--json" | "--data-urlencode" => v
                .text
                .split_once('@')
                .filter(|(before, _)| !before.contains('='))
                .map(|(_, f)| f.to_string()),
            "-F" | "--form" => v
                .text
                .split_once("=@")
                .or_else(|| v.text.split_once("=<"))
                .map(|(_, f)| f.split(';').next().unwrap_or(f).to_string()),
            _ => None,
        };
        if let Some(f) = file {
            d.add(Access::Read, &v.with_text(f), false);
        }
        if matches!(n.as_str(), "-K" | "--config") {
            d.unknowns
                .push("`curl` reads more options from a file".into());
        }
    }
    let remote_name = o.has(&["-O", "--remote-name", "--remote-name-all"]);
    let mut urls: Vec<&Arg> = o.operands.iter().collect();
    urls.extend(o.values(&["--url"]));
    for u in o.operands.iter() {
        d.add(Access::Fetch, u, false);
    }
    if remote_name {
        let dir = o.values(&["--output-dir"]).next().map(|a| a.text.clone());
        for u in urls {
            let base = basename_of_url(&u.text);
            let text = match &dir {
                Some(dir) => format!("{}/{base}", dir.trim_end_matches('/')),
                None => base.clone(),
            };
            let literal = u.literal && !base.is_empty();
            d.add(
                Access::Write,
                &Arg {
                    text,
                    literal,
                    pattern: None,
                    beneath: false,
                },
                false,
            );
        }
    }
}

/// `-o ProxyCommand=..` and the like make ssh (and scp, rsync over ssh)
/// run a local command.
fn ssh_options(name: &str, o: &Opts, d: &mut Derived) {
    for v in o.values(&["-o"]) {
        let key = v
            .text
            .split(['=', ' '])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if matches!(
            key.as_str(),
            "proxycommand" | "localcommand" | "permitlocalcommand" | "knownhostscommand"
        ) || !v.literal
        {
            d.unknowns
                .push(format!("`{name} -o {}` runs a local command", v.text));
        }
    }
}

/// A `[user@]host:path` or `scheme://` operand of scp or rsync, as a URL;
/// `None` for a local path (`./a:b` has a `/` before its `:`).
fn remote_url(text: &str) -> Option<String> {
    if text.contains("://") {
        return Some(text.to_string());
    }
    let (host, path) = text.split_once(':')?;
    if host.is_empty() || host.contains('/') {
        return None;
    }
    let path = path.strip_prefix(':').unwrap_or(path);
    Some(format!("ssh://{host}/{}", path.trim_start_matches('/')))
}

/// `scp` and `rsync`: local sources are read (recursively with `-r`/`-a`),
/// a local destination is written, and a remote one on either side is a
/// fetch, so that copying a denied file out meets its Read deny.
fn remote_copy(name: &str, spec: &Spec, args: &[Arg], d: &mut Derived) {
    let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
    file_opts(spec, &o, d);
    ssh_options(name, &o, d);
    if o.has(&["-S"]) && name == "scp" {
        d.unknowns.push("`scp -S` runs a program".into());
    }
    for v in o.values(&["-e", "--rsh", "--rsync-path"]) {
        if !(v.literal && v.text.split_whitespace().next() == Some("ssh")) {
            d.unknowns
                .push(format!("`{name}` runs `{}` to connect", v.text));
        }
    }
    let recursive = o.has(spec.recursive);
    let removes = o.has(&["--remove-source-files"]);
    // One operand alone is listed (rsync) or copied nowhere (scp): read.
    let (sources, dest) = match o.operands.split_last() {
        None => return,
        Some((only, [])) => (std::slice::from_ref(only), None),
        Some((last, rest)) => (rest, Some(last)),
    };
    let remote = |a: &Arg| remote_url(&a.text).map(|url| a.with_text(url));
    for s in sources {
        match remote(s) {
            Some(url) => d.add(Access::Fetch, &url, false),
            None if removes => d.add(Access::Delete, s, recursive),
            None => d.add(Access::Read, s, recursive),
        }
    }
    if let Some(dest) = dest {
        match remote(dest) {
            Some(url) => d.add(Access::Fetch, &url, false),
            None => d.add(Access::Write, dest, true),
        }
    }
}

fn wget(spec: &Spec, args: &[Arg], d: &mut Derived) {
    let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
    for (n, v) in &o.opts {
        let Some(v) = v else { continue };
        if matches!(n.as_str(), "-O" | "--output-document") && v.text == "-" {
            continue;
        }
        if let Some((_, access)) = spec.file_opts.iter().find(|(f, _)| f == n) {
            d.add(*access, v, *access == Access::WriteDir);
        }
        if matches!(n.as_str(), "-e" | "--execute") {
            d.unknowns.push("`wget -e` runs a wgetrc command".into());
        }
        if matches!(n.as_str(), "-i" | "--input-file") {
            d.unknowns
                .push("`wget -i` fetches URLs listed in a file".into());
        }
    }
    each(d, Access::Fetch, &o.operands, false);
    let prefix = o
        .values(&["-P", "--directory-prefix"])
        .next()
        .map(|a| a.text.clone());
    if o.has(&["-r", "--recursive", "-m", "--mirror"]) {
        let dir = Arg::lit(prefix.unwrap_or_else(|| ".".into()));
        d.add(Access::WriteDir, &dir, true);
    } else if !o.has(&["-O", "--output-document", "--spider"]) {
        for u in &o.operands {
            let base = basename_of_url(&u.text);
            let base = if base.is_empty() {
                "index.html".to_string()
            } else {
                base
            };
            let text = match &prefix {
                Some(p) => format!("{}/{base}", p.trim_end_matches('/')),
                None => base,
            };
            d.add(
                Access::Write,
                &Arg {
                    text,
                    literal: u.literal,
                    pattern: None,
                    beneath: false,
                },
                false,
            );
        }
    }
}

fn httpie(spec: &Spec, args: &[Arg], d: &mut Derived) {
    let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
    file_opts(spec, &o, d);
    let mut operands = o.operands.iter();
    let mut url = operands.next();
    if url.is_some_and(|u| {
        u.literal && !u.text.is_empty() && u.text.chars().all(|c| c.is_ascii_uppercase())
    }) {
        url = operands.next();
    }
    if let Some(u) = url {
        d.add(Access::Fetch, u, false);
    }
    for item in operands {
        let t = item.text.as_str();
        let file = if let Some((_, f)) = t.split_once("=@") {
            Some(f)
        } else if let Some((before, f)) = t.split_once('@') {
            (!before.contains(['=', ':'])).then_some(f)
        } else {
            None
        };
        if let Some(f) = file {
            let f = f.split(';').next().unwrap_or(f);
            d.add(Access::Read, &item.with_text(f), false);
        }
    }
    if o.has(&["-d", "--download"]) && !o.has(&["-o", "--output"]) {
        d.add(Access::WriteDir, &Arg::lit("."), true);
    }
}

/// A remote given as a URL or `user@host:path`, as opposed to a remote name
/// or a local path.
fn is_remote_url(text: &str) -> bool {
    if text.contains("://") {
        return true;
    }
    match text.split_once(':') {
        Some((host, _)) => {
            !host.is_empty() && !host.contains('/') && (host.contains('@') || host.contains('.'))
        }
        None => false,
    }
}

fn git(args: &[Arg], d: &mut Derived) {
    d.read_only = false;
    let mut i = 0;
    let mut sub = None;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if !a.literal {
            d.unknowns
                .push(format!("git subcommand is not literal: `{t}`"));
            return;
        }
        if !t.starts_with('-') {
            sub = Some(t);
            break;
        }
        let (name, glued) = match t.split_once('=') {
            Some((n, _)) if n.starts_with("--") => (n, true),
            _ => (t, false),
        };
        // `-cKEY=VALUE` and `-CDIR` are the glued forms of `-c` and `-C`.
        let (name, glued) = match name {
            _ if t.starts_with("-c") && t.len() > 2 => ("-c", true),
            _ if t.starts_with("-C") && t.len() > 2 => ("-C", true),
            _ => (name, glued),
        };
        let value = if glued {
            t.split_once('=').map_or(&t[2..], |(_, v)| v).to_string()
        } else {
            args.get(i + 1).map(|a| a.text.clone()).unwrap_or_default()
        };
        let takes_value = tables::GIT_GLOBAL_VALUE.contains(&name) && !glued;
        // `--exec-path` alone prints the directory; with a value it sets it.
        if name == "--exec-path" && !glued {
            i += 1;
            continue;
        }
        if let Some(why) = tables::git_global_risk(name) {
            if name == "-C" {
                d.cwd = if glued {
                    Some(a.with_text(value.clone()))
                } else {
                    args.get(i + 1).cloned()
                };
            }
            let shown = if takes_value || glued {
                format!("{name} {value}")
            } else {
                name.to_string()
            };
            d.unknowns.push(format!("`git {shown}` {why}"));
        }
        i += if takes_value { 2 } else { 1 };
    }
    let Some(sub) = sub else {
        // `git --version`, `git --exec-path`: options alone print.
        d.read_only = d.unknowns.is_empty();
        return;
    };
    let rest = args.get(i + 1..).unwrap_or_default();
    let texts: Vec<&str> = rest.iter().map(|a| a.text.as_str()).collect();
    let operands: Vec<&Arg> = rest
        .iter()
        .filter(|a| !(a.literal && a.text.starts_with('-')))
        .collect();
    let script = |d: &mut Derived, a: &Arg, what: &str| {
        d.nested.push(Nested::Script {
            text: a.text.clone(),
            literal: a.literal,
            wrapper: vec!["git".into(), what.into()],
        });
    };
    match sub {
        "clone" => {
            if texts.iter().any(|t| {
                t.starts_with("-u")
                    || t.starts_with("--upload-pack")
                    || *t == "-c"
                    || t.starts_with("--config")
            }) {
                d.unknowns
                    .push("`git clone` option runs a program or sets configuration".into());
            }
            let o = parse_opts(
                rest,
                "bocjuL",
                &[
                    "branch",
                    "origin",
                    "config",
                    "depth",
                    "reference",
                    "reference-if-able",
                    "upload-pack",
                    "separate-git-dir",
                    "jobs",
                    "filter",
                    "template",
                    "shallow-since",
                    "shallow-exclude",
                    "server-option",
                    "bundle-uri",
                    "ref-format",
                ],
                &[],
            );
            if let Some(url) = o.operands.first() {
                if is_remote_url(&url.text) || !url.literal {
                    d.add(Access::Fetch, url, false);
                } else {
                    d.add(Access::Read, url, true);
                }
                let dest = match o.operands.get(1) {
                    Some(dest) => dest.clone(),
                    None => {
                        let trimmed = url.text.trim_end_matches('/');
                        let base = trimmed.rsplit(['/', ':']).next().unwrap_or(trimmed);
                        url.with_text(base.trim_end_matches(".git").to_string())
                    }
                };
                d.add(Access::Write, &dest, true);
            }
        }
        "fetch" | "pull" | "push" | "ls-remote" => {
            if texts.iter().any(|t| {
                t.starts_with("--upload-pack")
                    || t.starts_with("--receive-pack")
                    || t.starts_with("--exec")
            }) {
                d.unknowns
                    .push(format!("`git {sub}` option runs a program"));
            }
            if let Some(remote) = operands.first() {
                if is_remote_url(&remote.text) || !remote.literal {
                    d.add(Access::Fetch, remote, false);
                }
            }
        }
        "grep" => {
            if texts.iter().any(|t| {
                *t == "-O"
                    || t.starts_with("--open-files-in-pager")
                    || (t.starts_with("-O") && t.len() > 2)
            }) {
                d.unknowns.push("`git grep -O` runs a pager".into());
            }
            let o = parse_opts(
                rest,
                "efABCm",
                &[
                    "max-depth",
                    "threads",
                    "after-context",
                    "before-context",
                    "context",
                    "max-count",
                ],
                &[("-f", Access::Read)],
            );
            for f in o.values(&["-f"]) {
                d.add(Access::Read, f, false);
            }
            let paths: &[Arg] = if o.has(&["-e", "-f"]) {
                &o.operands
            } else {
                o.operands.get(1..).unwrap_or_default()
            };
            let paths: Vec<&Arg> = paths
                .iter()
                .filter(|a| !a.text.contains("..") || a.text.contains('/'))
                .collect();
            if paths.is_empty() {
                d.add(Access::Read, &Arg::lit("."), true);
            }
            for p in paths {
                d.add(Access::Read, p, true);
            }
            d.read_only = true;
        }
        "diff" | "log" | "show" | "whatchanged" | "diff-tree" | "diff-files" | "diff-index"
        | "format-patch" | "archive" => {
            let o = parse_opts(rest, "o", &["output", "output-directory"], &[]);
            for f in o.values(&["--output", "-o"]) {
                d.add(Access::Write, f, sub == "format-patch");
            }
            if sub == "diff" && o.has(&["--no-index"]) {
                for f in &o.operands {
                    d.add(Access::Read, f, true);
                }
            }
            d.read_only = !matches!(sub, "format-patch" | "archive");
        }
        "submodule" if texts.first() == Some(&"foreach") => {
            let cmd: Vec<&Arg> = rest[1..]
                .iter()
                .filter(|a| !(a.literal && a.text.starts_with("--")))
                .collect();
            if let Some(first) = cmd.first() {
                let text = cmd
                    .iter()
                    .map(|a| a.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                let literal = cmd.iter().all(|a| a.literal);
                script(
                    d,
                    &Arg {
                        text,
                        literal,
                        pattern: None,
                        beneath: false,
                    },
                    "submodule foreach",
                );
                let _ = first;
            }
        }
        "rebase" => {
            let o = parse_opts(rest, "xs", &["exec", "strategy", "onto"], &[]);
            for c in o.values(&["-x", "--exec"]) {
                script(d, c, "rebase --exec");
            }
        }
        "difftool" | "mergetool" => {
            let o = parse_opts(rest, "xt", &["extcmd", "tool"], &[]);
            for c in o.values(&["-x", "--extcmd"]) {
                script(d, c, "difftool --extcmd");
            }
        }
        "filter-branch" => {
            let o = parse_opts(
                rest,
                "",
                &[
                    "env-filter",
                    "tree-filter",
                    "index-filter",
                    "parent-filter",
                    "msg-filter",
                    "commit-filter",
                    "tag-name-filter",
                    "setup",
                ],
                &[],
            );
            for (n, v) in &o.opts {
                if let Some(v) = v {
                    script(d, v, n.trim_start_matches('-'));
                }
            }
        }
        "bisect" if texts.first() == Some(&"run") => {
            let argv: Vec<Arg> = rest[1..].to_vec();
            if !argv.is_empty() {
                d.nested.push(Nested::Argv {
                    argv,
                    wrapper: vec!["git".into(), "bisect".into(), "run".into()],
                });
            }
        }
        "config" => match git_config_written(rest) {
            Some(file) => d.add(Access::Write, &file, false),
            None => d.read_only = true,
        },
        _ => {
            if tables::git_read_only(sub) {
                d.read_only = true;
            } else if let Some((_, allowed)) = tables::GIT_LISTING.iter().find(|(s, _)| *s == sub) {
                let takes_value = [
                    "--contains",
                    "--no-contains",
                    "--merged",
                    "--no-merged",
                    "--points-at",
                    "--sort",
                    "--format",
                ];
                let mut ok = true;
                let mut prev = "";
                for (k, t) in texts.iter().enumerate() {
                    let name = t.split('=').next().unwrap_or(t);
                    let allowed_here = allowed.contains(&name) || takes_value.contains(&prev);
                    let first_word = k == 0
                        && matches!(
                            sub,
                            "stash" | "reflog" | "remote" | "worktree" | "submodule"
                        );
                    if !(allowed_here
                        || (matches!(sub, "remote") && prev == "show")
                        || (matches!(sub, "remote") && prev == "get-url")
                        || (sub == "reflog" && k > 0 && !t.starts_with('-')))
                    {
                        ok = false;
                    }
                    let _ = first_word;
                    prev = name;
                }
                let needs_word = matches!(sub, "stash" | "worktree" | "submodule");
                d.read_only = ok && (!texts.is_empty() || !needs_word);
            }
        }
    }
    let read_only = d.read_only;
    risky::git(sub, rest, read_only, d);
}

/// The file `git config ARGS` writes, when it sets, unsets, renames or
/// edits something: configuration can make git run programs (`core.pager`,
/// `core.hooksPath`, `alias.x = !cmd`), so the write meets the rules for
/// that file (`.git/config` is protected). `None` when it only reads.
fn git_config_written(args: &[Arg]) -> Option<Arg> {
    let mut file = Arg::lit(".git/config");
    let mut writes = false;
    let mut gets = false;
    let mut operands = Vec::new();
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        let t = a.text.as_str();
        if !a.literal || !t.starts_with('-') {
            operands.push(a);
            continue;
        }
        match t {
            "--global" => file = Arg::lit("~/.gitconfig"),
            "--system" => file = Arg::lit("/etc/gitconfig"),
            "--local" => file = Arg::lit(".git/config"),
            "--worktree" => file = Arg::lit(".git/config.worktree"),
            "-f" | "--file" => {
                if let Some(f) = iter.next() {
                    file = f.clone();
                }
            }
            "--blob" | "--type" | "--default" | "--comment" | "--value" => {
                iter.next();
            }
            "--add" | "--replace-all" | "--unset" | "--unset-all" | "--rename-section"
            | "--remove-section" | "-e" | "--edit" => writes = true,
            "--get" | "--get-all" | "--get-regexp" | "--get-urlmatch" | "-l" | "--list"
            | "--get-color" | "--get-colorbool" => gets = true,
            _ => {
                if let Some(f) = t.strip_prefix("--file=") {
                    file = a.with_text(f);
                }
            }
        }
    }
    let verb = operands.first().map(|a| a.text.as_str());
    writes |= matches!(
        verb,
        Some("set" | "unset" | "rename-section" | "remove-section" | "edit")
    ) || (!gets && !matches!(verb, Some("get" | "list")) && operands.len() >= 2);
    writes.then_some(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lits(s: &str) -> Vec<Arg> {
        s.split_whitespace().map(Arg::lit).collect()
    }

    #[test]
    fn option_values_are_not_operands() {
        let o = parse_opts(
            &lits("-n 5 -c10 f --lines=3 g --bytes 4 h -- -x"),
            "nc",
            &["lines", "bytes"],
            &[],
        );
        let ops: Vec<&str> = o.operands.iter().map(|a| a.text.as_str()).collect();
        assert_eq!(ops, ["f", "g", "h", "-x"]);
    }

    #[test]
    fn sed_scripts() {
        let mut d = Derived::default();
        sed_program("s/a/b/w out.txt", &mut d);
        sed_program("1r in.txt", &mut d);
        sed_program("/x/w log", &mut d);
        let got: Vec<(Access, &str)> = d
            .found
            .iter()
            .map(|f| (f.access, f.arg.text.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (Access::Write, "out.txt"),
                (Access::Read, "in.txt"),
                (Access::Write, "log")
            ]
        );
        let mut d = Derived::default();
        sed_program("s/x/id/e", &mut d);
        assert_eq!(d.unknowns.len(), 1);
        let mut d = Derived::default();
        sed_program("s/a\\/w/b/g; 3,5d; /re/!p", &mut d);
        assert!(d.found.is_empty() && d.unknowns.is_empty(), "{d:?}");
    }

    #[test]
    fn awk_programs() {
        assert_eq!(awk_program("NR>=3 && NR<=4"), None);
        assert_eq!(awk_program("{print $1}"), None);
        assert_eq!(awk_program("$3 > 10 {print}"), None);
        assert_eq!(awk_program("/a|b/ {print}"), None);
        assert!(awk_program("{print > \"out\"}").is_some());
        assert!(awk_program("BEGIN{system(\"id\")}").is_some());
        assert!(awk_program("{print | \"sh\"}").is_some());
        assert!(awk_program("BEGIN{\"id\" | getline x}").is_some());
        assert!(awk_program("BEGIN{getline l < \"/etc/passwd\"; print l}").is_some());
        assert!(awk_program("BEGIN{while ((getline line) > 0) print line}").is_none());
        assert!(awk_program("@load \"filefuncs\"; BEGIN{}").is_some());
    }
}

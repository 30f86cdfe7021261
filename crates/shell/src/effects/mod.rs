//! The files a command reads or writes and the URLs it fetches, from its
//! argv and the tables in [`crate::tables`].

use crate::risky;
use crate::tables::{self, Access, Operands, Spec};
use crate::words::Arg;

mod archives;
mod builders;
mod filter;
mod find;
mod find_expr;
mod git;
mod git_content;
mod git_files;
mod git_tree;
mod jq;
pub(crate) mod net;
mod programs;
mod remote;
mod rg_types;
pub(crate) mod runners;
mod scripts;
mod search;
pub(crate) use builders::toolchain_names_path;
pub(crate) use git::discovered_git_dir;

pub use filter::{Filter, Honour, IgnoreMatch, Ignores, NameTest};
pub use search::ripgrep_filter;

use archives::*;
use builders::*;
use find::*;
use git::*;
use git_content::*;
use git_files::*;
use git_tree::*;
use net::*;
use programs::*;
use remote::*;
use scripts::*;
use search::*;

/// One file or URL touched by a command's operand or option.
#[derive(Debug, Clone)]
pub(crate) struct Found {
    pub access: Access,
    pub arg: Arg,
    pub recursive: bool,
    /// A write that an option or a mode turns on in a command that
    /// otherwise only reads (`sort -o f`, `sed -i`, `find -delete`, `git
    /// log --output=f`): an allow for the command is a permission to read,
    /// so the write is judged as a redirect is, by the rules on writing its
    /// target or else the policy's default ([`crate::Origin::Redirect`]).
    pub by_option: bool,
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
    /// The files the command prints, one name a line, as arguments that
    /// stand for them (`find src -name '*.rs'`: `src`, beneath, with its
    /// filter): what a command given that output (`| xargs`, `$(..)`)
    /// reads.
    pub output: Option<Vec<Arg>>,
    /// Words handed to a program toolgate has no table for (the arguments
    /// of `perl script.pl ..` or `ruby -e CODE ..`, which `<>` and `ARGF`
    /// read): each that names a file is checked as a program's argument
    /// is ([`crate::Origin::Argument`]).
    pub arguments: Vec<Arg>,
}

/// Schemes of URLs that name no network host: what fetches them (if
/// anything does) cannot be judged by host rules. `blob:` and
/// `view-source:` wrap another URL, which a browser would fetch.
const NO_HOST_SCHEMES: &[(&str, bool)] = &[
    ("blob:", true),
    ("view-source:", true),
    ("data:", false),
    ("javascript:", false),
    ("about:", false),
    ("filesystem:", true),
    ("jar:", true),
];

/// The scheme (lowercase, with its `:`) of a URL that names no network
/// host, whatever the case it is written in, and whether it wraps
/// another URL; `None` for any other text. The policy's URL reader asks
/// the same.
pub fn no_host_scheme(url: &str) -> Option<(&'static str, bool)> {
    NO_HOST_SCHEMES
        .iter()
        .find(|(scheme, _)| {
            url.get(..scheme.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(scheme))
        })
        .copied()
}

impl Derived {
    pub(crate) fn add(&mut self, access: Access, arg: &Arg, recursive: bool) {
        self.add_filtered(access, arg, recursive, None);
    }

    /// [`Derived::add`] for a command that reads beneath a directory only
    /// the entries `filter` lets through (`grep -r --include`).
    pub(crate) fn add_filtered(
        &mut self,
        access: Access,
        arg: &Arg,
        recursive: bool,
        filter: Option<Filter>,
    ) {
        if arg.literal && (arg.text == "-" || arg.text.is_empty()) {
            return;
        }
        if access == Access::Fetch && arg.literal {
            let t = arg.text.as_str();
            if let Some((scheme, wraps)) = no_host_scheme(t) {
                self.unknowns
                    .push(format!("`{t}` names no network host to check"));
                if wraps {
                    let inner = arg.with_text(&t[scheme.len()..]);
                    self.add(Access::Fetch, &inner, false);
                }
            }
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
        // What a recursive read reaches: the entries the argument stands
        // for (`find DIR -name '*.c' -exec cat {} +`), narrowed by the
        // command's own filter. A command that itself recurses reads
        // everything beneath a directory the argument's filter selected
        // (`find . -name 'x*' -exec grep -r y {} +`), so only its own
        // filter counts then. A write reaches what the argument stands for
        // when the command acts on each entry alone (`find . -name '*.o'
        // -delete`, `-exec rm {} +`: a directory among them is removed only
        // when empty, or not at all), everything beneath when it recurses
        // (`rm -r`, `mv`).
        let mut arg = arg.clone();
        let provenance = if arg.beneath && !recursive {
            arg.filter.take()
        } else {
            None
        };
        arg.filter = if matches!(
            access,
            Access::Read | Access::List | Access::WorkTree | Access::WorkTreeRemoved
        ) {
            match (provenance, filter) {
                (Some(a), Some(b)) => a.and(b).or_none(),
                (a, b) => a.or(b).and_then(Filter::or_none),
            }
        } else {
            provenance.and_then(Filter::or_none)
        };
        self.found.push(Found {
            access,
            recursive: recursive || arg.beneath,
            arg,
            by_option: false,
        });
    }

    /// Adds a write that an option turns on (`git log --output=f`).
    pub(crate) fn add_by_option(&mut self, access: Access, arg: &Arg, recursive: bool) {
        let before = self.found.len();
        self.add(access, arg, recursive);
        for f in self.found.iter_mut().skip(before) {
            f.by_option = true;
        }
    }

    /// Marks every write of a command whose table calls it a reader as
    /// turned on by an option: whatever made it write (`-o`, `-i`,
    /// `-delete`, an output operand of `uniq`/`xxd`), an allow written for
    /// the reader does not cover it.
    fn writes_by_option(&mut self) {
        for f in &mut self.found {
            if matches!(f.access, Access::Write | Access::Delete | Access::WriteDir) {
                f.by_option = true;
            }
        }
    }
}

/// The file a compressor writes beside each operand: the operand with its
/// suffix (`-S`, or the program's own) added, or, decompressing, taken off
/// (`gunzip toolgate.toml.gz` writes `toolgate.toml`; `.tgz` gives `.tar`).
/// An operand without a suffix the program knows is left alone by it.
fn compressed_outputs(name: &str, o: &Opts, d: &mut Derived) {
    let decompress = name.starts_with("gun")
        || name.starts_with("bun")
        || name.starts_with("un")
        || o.has(&["-d", "--decompress", "--uncompress"]);
    let given = o.values(&["-S", "--suffix"]).last().cloned();
    if let Some(s) = given.as_ref().filter(|s| !s.literal) {
        d.unknowns.push(format!(
            "`{name} -S {}`: the suffix, and so the file written, is not known",
            s.text
        ));
        return;
    }
    let own = match name {
        "gzip" | "gunzip" => ".gz",
        "bzip2" | "bunzip2" => ".bz2",
        "xz" | "unxz" => ".xz",
        "lzma" | "unlzma" => ".lzma",
        "compress" | "uncompress" => ".Z",
        "lz4" => ".lz4",
        "pigz" | "unpigz" => ".gz",
        "pbzip2" | "lbzip2" => ".bz2",
        "lzip" | "plzip" => ".lz",
        "lzop" => ".lzo",
        "brotli" | "unbrotli" => ".br",
        _ => ".zst",
    };
    const KNOWN: &[(&str, &str)] = &[
        (".tgz", ".tar"),
        (".taz", ".tar"),
        (".tbz2", ".tar"),
        (".tbz", ".tar"),
        (".txz", ".tar"),
        (".tlz", ".tar"),
        (".tzst", ".tar"),
        (".gz", ""),
        ("-gz", ""),
        (".z", ""),
        ("-z", ""),
        ("_z", ""),
        (".Z", ""),
        (".bz2", ""),
        (".bz", ""),
        (".xz", ""),
        (".lzma", ""),
        (".lz4", ""),
        (".zst", ""),
        (".lz", ""),
        (".lzo", ""),
        (".br", ""),
    ];
    for a in o.operands.iter().filter(|a| a.literal && a.text != "-") {
        let t = a.text.as_str();
        let out = if decompress {
            let stripped = match &given {
                Some(s) => t.strip_suffix(s.text.as_str()).map(str::to_string),
                None => KNOWN.iter().find_map(|(suffix, becomes)| {
                    t.strip_suffix(suffix)
                        .map(|stem| format!("{stem}{becomes}"))
                }),
            };
            match stripped {
                Some(s) if !s.is_empty() && !s.ends_with('/') => s,
                _ => continue,
            }
        } else {
            format!("{t}{}", given.as_ref().map_or(own, |s| s.text.as_str()))
        };
        d.add(Access::Write, &a.with_text(out), false);
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
/// long option abbreviated to any prefix that names it alone, down to one
/// letter (`--compress` for `--compress-program`, `sort --o=f` for
/// `--output`), so every prefix counts. An ambiguous prefix is refused by
/// the tool itself: counting it is safe. Real options that are also
/// prefixes of ones looked for: `git diff --text` is not `--textconv`, `tar
/// --checkpoint` not `--checkpoint-action`, `grep --binary` not
/// `--binary-files`.
const WHOLE: &[&str] = &["--text", "--filter", "--checkpoint", "--binary"];

pub(crate) fn is_option(given: &str, wanted: &str) -> bool {
    given == wanted
        || (given.starts_with("--")
            && given.len() >= 3
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

/// The long option `given` names as getopt_long reads it: the one it
/// spells whole, or the only one it begins.
pub(crate) fn getopt_long<'a>(given: &str, all: &[&'a str]) -> Option<&'a str> {
    if let Some(exact) = all.iter().find(|l| **l == given) {
        return Some(exact);
    }
    let mut found = all
        .iter()
        .filter(|l| !given.is_empty() && l.starts_with(given));
    match (found.next(), found.next()) {
        (Some(only), None) => Some(only),
        _ => None,
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
    // A letter followed by `?` takes an optional value, attached only
    // (getopt's `i::`: `sed -i.bak`, `date -Iseconds`): the rest of its
    // word is that value, never more options.
    let optional_short = |c: char| {
        let mut chars = short_args.chars().peekable();
        while let Some(l) = chars.next() {
            if l == c && chars.peek() == Some(&'?') {
                return true;
            }
        }
        false
    };
    let takes_short = |c: char| {
        (c != '?' && short_args.contains(c) && !optional_short(c))
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
    let mut taking: Vec<&str> = longs().collect();
    taking.sort_unstable();
    taking.dedup();
    let full_long = |n: &str| -> Option<String> {
        if !taking.contains(&n) && WHOLE.contains(&format!("--{n}").as_str()) {
            return None;
        }
        getopt_long(n, &taking).map(str::to_string)
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
            if c != '?' && optional_short(c) {
                let rest: String = cluster[i + 1..].iter().collect();
                let value = (!rest.is_empty()).then(|| arg.with_text(rest));
                out.opts.push((format!("-{c}"), value));
                break;
            }
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

/// Marks a write of what a copy, move or link puts in a directory its
/// destination names, `DIR/NAME`: the walk keeps it only when `DIR` is a
/// directory when the command is decided (or an earlier part of the same
/// command makes it), since a destination that is not one is the new
/// name itself.
pub(crate) const INTO_DIR: &str = "<into a directory>";

/// The same for a source whose name is not known (`xargs -I{} cp {}
/// dir/`): everything beneath `DIR`, the argument's text.
pub(crate) const INTO_DIR_BENEATH: &str = "<into a directory, any name>";

/// Where `src` lands when copied, moved or linked into the directory
/// `dir`: under its own name, or (`cp --parents`) its whole path; with a
/// name not known, anywhere beneath `dir` (true).
fn into_directory(dir: &Arg, src: &Arg, parents: bool) -> (Arg, bool) {
    if !src.literal {
        let mut beneath = dir.clone();
        beneath.pattern = Some(INTO_DIR_BENEATH.into());
        return (beneath, true);
    }
    let path = src.text.trim_end_matches('/');
    let name = if parents {
        path.trim_start_matches("./").trim_start_matches('/')
    } else {
        path.rsplit('/').next().unwrap_or(path)
    };
    let mut arg = Arg::made(
        format!("{}/{}", dir.text.trim_end_matches('/'), name),
        dir.literal,
    );
    arg.pattern = Some(INTO_DIR.into());
    (arg, false)
}

/// The backups `cp`, `mv`, `ln` and `install` keep of each destination
/// they replace, with `-b`, `--backup[=CONTROL]` or `-S SUFFIX` (which
/// turns backups on): the destination with the suffix (`~` by default,
/// `.~N~` when numbered) added, where the suffix may make any name
/// (`cp -b -S .toml x toolgate` moves `toolgate` onto `toolgate.toml`).
/// Writes an option turns on.
fn backups(name: &str, o: &Opts, written: &[Arg], d: &mut Derived) {
    if !matches!(name, "cp" | "mv" | "ln" | "link" | "install") {
        return;
    }
    let control = o.opts.iter().find_map(|(n, v)| {
        (n.len() >= 3 && "--backup".starts_with(n.as_str())).then_some(v.as_ref())
    });
    let on = control.is_some() || o.has(&["-b", "-S", "--suffix"]);
    if !on {
        return;
    }
    if let Some(Some(c)) = control
        && c.literal
        && matches!(c.text.as_str(), "none" | "off")
    {
        return;
    }
    let suffix = o.values(&["-S", "--suffix"]).last();
    for w in written {
        let mut add = |text: String, literal: bool| {
            d.add_by_option(Access::Write, &Arg::made(text, literal), false);
        };
        match suffix {
            Some(s) => add(format!("{}{}", w.text, s.text), w.literal && s.literal),
            None => add(format!("{}~", w.text), w.literal),
        }
        add(format!("{}.~1~", w.text), w.literal);
    }
}

/// The backups patch keeps of a file it changes: FILE with `-z SUFFIX`
/// added, `-B PREFIX` put before its path, `-Y PREFIX` before its name.
/// patch takes a `/` in each (`-z c/main.rs` on a file `sr` writes
/// `src/main.rs`): for the file given as an operand they are writes the
/// option turns on; for the files the patch names, beneath the directory
/// already written, one that may leave it is unanalysable.
fn patch_backups(o: &Opts, d: &mut Derived) {
    let suffix = o.values(&["-z", "--suffix"]).last();
    let prefix = o.values(&["-B", "--prefix"]).last();
    let base = o.values(&["-Y", "--basename-prefix"]).last();
    match o.operands.first() {
        Some(file) => {
            let (dir, name) = match file.text.rsplit_once('/') {
                Some((dir, name)) => (format!("{dir}/"), name),
                None => (String::new(), file.text.as_str()),
            };
            let mut add = |text: String, literal: bool| {
                let backup = Arg::made(text, literal && file.literal);
                d.add_by_option(Access::Write, &backup, false);
            };
            if let Some(s) = suffix {
                add(format!("{}{}", file.text, s.text), s.literal);
            }
            if let Some(p) = prefix {
                add(format!("{}{}", p.text, file.text), p.literal);
            }
            if let Some(b) = base {
                add(format!("{dir}{}{name}", b.text), b.literal);
            }
        }
        None => {
            if [suffix, prefix, base]
                .into_iter()
                .flatten()
                .any(|v| !v.literal || v.text.contains('/'))
            {
                d.unknowns.push(
                    "`patch` keeps backups where a prefix or suffix with a `/` puts them".into(),
                );
            }
        }
    }
}

/// The backups `sed -i SUFFIX` keeps: each file it edits is first renamed
/// to FILE then SUFFIX, or, when SUFFIX holds a `*`, to SUFFIX with each
/// `*` replaced by FILE as given (`-i'bak/*'` moves `f` to `bak/f`: any
/// directory), relative to where sed runs. A write the option turns on.
fn sed_backups(o: &Opts, files: &[Arg], d: &mut Derived) {
    let Some(suffix) = o
        .opts
        .iter()
        .filter(|(n, _)| o.is(n, "-i") || o.is(n, "--in-place"))
        .filter_map(|(_, v)| v.as_ref())
        .next_back()
    else {
        return;
    };
    if suffix.text.is_empty() {
        return;
    }
    for f in files {
        let literal = suffix.literal && f.literal && f.pattern.is_none();
        let text = if suffix.text.contains('*') {
            suffix.text.replace('*', &f.text)
        } else {
            format!("{}{}", f.text, suffix.text)
        };
        d.add_by_option(Access::Write, &Arg::made(text, literal), false);
    }
}

/// Whether a listing program follows symbolic links beneath what it
/// lists (`find -L`, `find -follow`, `ls -RL`, `tree -l`, `du -L`): then
/// what a link leads to is listed too.
pub(crate) fn listing_follows(name: &str, args: &[Arg]) -> bool {
    let flag = |short: char, long: &[&str]| {
        args.iter().any(|a| {
            !a.literal
                || long.contains(&a.text.as_str())
                || (a.text.starts_with('-')
                    && !a.text.starts_with("--")
                    && a.text[1..].contains(short))
        })
    };
    match name {
        "find" => args
            .iter()
            .any(|a| !a.literal || matches!(a.text.as_str(), "-L" | "-follow")),
        "ls" | "dir" | "vdir" | "du" => flag('L', &["--dereference"]),
        "tree" => flag('l', &[]),
        "fd" => flag('L', &["--follow"]),
        _ => false,
    }
}

/// Options by which a program runs another program or loads code, or
/// reads more options (which may name one) from a file, for programs whose
/// other options are followed: (programs, long options, which accept any
/// unambiguous start, as gnupg's parser does).
const RUNS_BY_OPTION: &[(&[&str], &[&str])] = &[(
    &["gpg", "gpg2", "gpgsm", "gpgv", "gpg-agent"],
    &[
        "--agent-program",
        "--dirmngr-program",
        "--keyboxd-program",
        "--photo-viewer",
        "--exec-path",
        "--options",
        "--homedir",
        "--load-extension",
        "--pinentry-program",
        "--scdaemon-program",
    ],
)];

/// Programs that read more arguments from `@FILE` (GNU binutils, gcc and
/// its kin, javac), which may be options that run a program (`gcc
/// -wrapper`) or name files.
const RESPONSE_FILES: &[&str] = &[
    "strings",
    "objdump",
    "readelf",
    "nm",
    "size",
    "strip",
    "objcopy",
    "ld",
    "ld.bfd",
    "ld.gold",
    "as",
    "c++filt",
    "addr2line",
    "ar",
    "ranlib",
    "gcc",
    "g++",
    "cc",
    "c++",
    "cpp",
    "clang",
    "clang++",
    "gfortran",
    "javac",
    "java",
    "elfedit",
];

/// C and C++ compiler drivers: options that run a program of the caller's
/// choosing or load a plugin (`-wrapper`, `-fplugin=`, `-B DIR` where
/// the driver looks for its programs, `-specs=` which can rewrite the
/// commands it runs, `-fuse-ld=PATH`, a linker plugin through `-Wl,`).
fn compiler_runs(name: &str, t: &str) -> bool {
    matches!(
        name,
        "gcc" | "g++" | "cc" | "c++" | "cpp" | "clang" | "clang++" | "gfortran"
    ) && (t.starts_with("-wrapper")
        || t.starts_with("-fplugin")
        || t.starts_with("-B")
        || t.starts_with("-specs")
        || t.starts_with("--specs")
        || t.starts_with("-iplugindir")
        || t.starts_with("--gcc-toolchain")
        || t.starts_with("-ccc-")
        || (t.starts_with("-fuse-ld=") && t.contains('/'))
        || ((t.starts_with("-Wl,") || t.starts_with("-Xlinker")) && t.contains("plugin"))
        || t == "-Xlinker")
}

/// Why an option of `name` among `args` runs a program, loads code or
/// reads options from a file (see [`RUNS_BY_OPTION`], [`RESPONSE_FILES`]).
fn runs_by_option(name: &str, args: &[Arg]) -> Option<String> {
    let long = RUNS_BY_OPTION
        .iter()
        .find(|(names, _)| names.contains(&name))
        .map(|(_, opts)| *opts)
        .unwrap_or_default();
    let responses = RESPONSE_FILES.contains(&name);
    let compiler = compiler_runs(name, "-B");
    if long.is_empty() && !responses && !compiler {
        return None;
    }
    for a in args {
        let t = a.text.as_str();
        if a.literal && t == "--" {
            break;
        }
        if !a.literal {
            // A word whose value is not known may be such an option.
            if (responses && t.starts_with(['@', '$', '"', '`']))
                || (!long.is_empty() && t.starts_with("--"))
            {
                return Some(format!(
                    "`{name}` is given `{t}`, which may be an option that runs a program or reads more options"
                ));
            }
            continue;
        }
        let opt = t.split_once('=').map_or(t, |(o, _)| o);
        if opt.len() > 4 && opt.starts_with("--") && long.iter().any(|l| l.starts_with(opt)) {
            return Some(format!(
                "`{name} {opt}` runs a program, or reads options that can name one"
            ));
        }
        if responses && t.len() > 1 && t.starts_with('@') {
            return Some(format!(
                "`{name} {t}` reads more arguments from a file, which may be options that run a program or read files"
            ));
        }
        if compiler_runs(name, t) {
            return Some(format!(
                "`{name} {t}` runs a program of its own or loads a plugin"
            ));
        }
    }
    None
}

/// Derives the effects of `name` (the command's base name) run with `args`.
pub(crate) fn derive(name: &str, args: &[Arg]) -> Derived {
    if let Some(why) = runs_by_option(name, args) {
        let mut d = Derived::default();
        d.unknowns.push(why);
        // The response files are read whatever they hold.
        if RESPONSE_FILES.contains(&name) {
            for a in args.iter().filter(|a| a.literal && a.text.len() > 1) {
                if let Some(file) = a.text.strip_prefix('@') {
                    d.add(Access::Read, &a.with_text(file), false);
                }
            }
        }
        return d;
    }
    // rustup's proxies take `+TOOLCHAIN` first, which may name a
    // toolchain's directory: its own `bin/cargo` (or rustc) then runs
    // (`cargo +./tc build`).
    if matches!(
        name,
        "cargo" | "rustc" | "rustdoc" | "rustfmt" | "cargo-fmt" | "cargo-clippy" | "clippy-driver"
    ) && let Some(tc) = args
        .first()
        .and_then(|a| a.text.strip_prefix('+').map(|tc| (a, tc)))
        .filter(|(a, tc)| !a.literal || tc.contains(['/', '\\']) || tc.starts_with(['.', '~']))
        .map(|(_, tc)| tc)
    {
        let mut d = Derived::default();
        d.unknowns.push(format!(
            "`{name} +{tc}` runs the {name} of a toolchain directory, a program of its own"
        ));
        return d;
    }
    // Connection tools have no operand table (their arguments are still
    // looked at as a program's arguments); the host they open is a fetch.
    if matches!(
        name,
        "nc" | "ncat" | "netcat" | "telnet" | "socat" | "ftp" | "tftp"
    ) {
        let mut d = Derived::default();
        connection(name, args, &mut d);
        return d;
    }
    let Some(spec) = tables::known(name).spec else {
        let mut d = Derived::default();
        builders(name, args, &mut d);
        return d;
    };
    let mut d = Derived {
        read_only: spec.read_only,
        ..Derived::default()
    };
    if spec.operands == Operands::Custom {
        custom(name, spec, args, &mut d);
        if spec.read_only {
            d.writes_by_option();
        }
        finish_read_only(&mut d);
        writes_beneath(name, &mut d);
        return d;
    }
    let o = if spec.operands == Operands::AfterMode {
        parse_mode_opts(args)
    } else {
        parse_opts(args, spec.short_args, spec.long_args, spec.file_opts)
    };
    file_opts(spec, &o, &mut d);
    // The file `diff --from-file`/`--to-file` compares every operand with
    // may be a directory, whose files are read as a directory operand's.
    if matches!(name, "diff" | "colordiff") {
        for v in o.values(&["--from-file", "--to-file"]) {
            d.add(Access::Read, v, true);
        }
    }
    let recursive = match name {
        // `du` shows the directories beneath (every entry with `-a`)
        // unless it sums them up.
        "du" | "dust" | "ncdu" => {
            !o.has(&["-s", "--summarize"])
                && !o
                    .values(&["-d", "--max-depth"])
                    .any(|v| v.literal && v.text == "0")
        }
        // `tree -L 1` shows one level.
        "tree" => !o
            .values(&["-L"])
            .any(|v| v.literal && matches!(v.text.as_str(), "0" | "1")),
        // `diff DIR1 DIR2` compares every file directly inside both (and
        // with `-N` prints one only one side has): whatever its flags, a
        // directory operand is read beneath.
        "diff" | "colordiff" => true,
        // `grep -d recurse` (`--directories=rec`: argmatch takes an
        // unambiguous start) is `grep -r`; a value not known until it runs
        // may be it.
        "grep" | "egrep" | "fgrep" | "zgrep" => {
            o.has(spec.recursive)
                || o.values(&["-d", "--directories"]).any(|v| {
                    !v.literal || (v.text.len() >= 3 && "recurse".starts_with(v.text.as_str()))
                })
        }
        _ => spec.always_recursive || o.has(spec.recursive),
    };
    let mut operands: &[Arg] = &o.operands;
    match spec.operands {
        Operands::None | Operands::Custom => {}
        // Without `-a`, `du` shows the directories beneath, not the files.
        Operands::All(Access::List) if recursive && name == "du" && !o.has(&["-a", "--all"]) => {
            let dirs = Filter {
                files: NameTest::Directory,
                dirs: NameTest::Any,
                split: false,
                ignores: None,
            };
            for a in operands {
                d.add_filtered(Access::List, a, true, Some(dirs.clone()));
            }
        }
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
            // What a recursive search leaves out by name (`grep -r
            // --include`, ripgrep's hidden files).
            let filter = if recursive && access == Access::Read {
                search_filter(name, &o)
            } else {
                None
            };
            // `rg --files` prints the names it would search, not what
            // they hold: a listing. Spelled whole: ripgrep takes no
            // abbreviation, and one taken here would only loosen.
            let access = if name == "rg" && o.opts.iter().any(|(n, _)| n == "--files") {
                Access::List
            } else {
                access
            };
            if operands.is_empty() && recursive {
                if let Some(default) = spec.default_operand.or(Some(".")) {
                    d.add_filtered(access, &Arg::lit(default), true, filter.clone());
                }
            }
            for a in operands {
                d.add_filtered(access, a, recursive, filter.clone());
            }
            if in_place && matches!(name, "sed" | "gsed") {
                sed_backups(&o, operands, &mut d);
            }
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
            if name == "split" {
                let prefix = operands.get(1).cloned().unwrap_or_else(|| Arg::lit("x"));
                let extra = o
                    .values(&["--additional-suffix"])
                    .next()
                    .map_or(Some(String::new()), |v| v.literal.then(|| v.text.clone()));
                split_outputs(&prefix, extra.as_deref(), false, &mut d);
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
            if spec.operands == Operands::Link
                && name == "ln"
                && o.has(&["-s", "--symbolic"])
                && !o.has(&["-r", "--relative"])
            {
                // A symbolic link's target is read from the link's
                // directory, not the working directory: `ln -s ../lib
                // a/lib` points at `lib`. DEST may be the link or a
                // directory that gets it; both are checked.
                let dirs: Vec<String> = match (&target, operands.split_last()) {
                    (Some(t), _) => vec![t.text.clone()],
                    (None, Some((last, rest))) if !rest.is_empty() => {
                        let parent = match last.text.trim_end_matches('/').rsplit_once('/') {
                            Some(("", _)) => "/".to_string(),
                            Some((p, _)) => p.to_string(),
                            None => ".".to_string(),
                        };
                        if rest.len() > 1 || last.text.ends_with('/') {
                            vec![last.text.clone()]
                        } else if o.has(&["-T", "--no-target-directory"]) {
                            vec![parent]
                        } else {
                            vec![parent, last.text.clone()]
                        }
                    }
                    _ => vec![".".to_string()],
                };
                for src in sources {
                    if !src.literal || src.text.starts_with(['/', '~']) {
                        d.add(Access::Read, src, recursive);
                        continue;
                    }
                    for dir in &dirs {
                        let from = match dir.as_str() {
                            "." => src.text.clone(),
                            _ => format!("{}/{}", dir.trim_end_matches('/'), src.text),
                        };
                        d.add(Access::Read, &src.with_text(from), recursive);
                    }
                }
            } else if spec.operands == Operands::Move {
                // Moving a directory removes and carries everything beneath
                // it: a recursive write and delete, and a recursive read
                // (what it holds is then readable under the new name).
                each(&mut d, Access::Delete, sources, true);
                each(&mut d, Access::Read, sources, true);
            } else {
                each(&mut d, source_access, sources, recursive);
            }
            // A hard link is another name for the same file: what is
            // written through it later changes the source (`ln
            // toolgate.toml notes.txt`, then an edit of `notes.txt`), so
            // making one writes the source as well as reading it.
            let hard_link = (spec.operands == Operands::Link
                && !(name == "ln" && o.has(&["-s", "--symbolic"])))
                || (name == "cp" && o.has(&["-l", "--link"]));
            if hard_link {
                each(&mut d, Access::Write, sources, recursive);
            }
            if let Some(dest) = dest {
                if !install_dirs || target.is_some() {
                    let beneath = recursive || spec.operands == Operands::Move;
                    // DEST is the new name, or a directory that gets each
                    // source under its own name (`cp README.md src` writes
                    // `src/README.md`; `--parents` the source's whole
                    // path): unless `-T` says it is the name, both.
                    let mut written = vec![dest.clone()];
                    let single_link = target.is_none() && operands.len() == 1;
                    let mut into = Vec::new();
                    if !single_link && !o.has(&["-T", "--no-target-directory"]) {
                        let parents = name == "cp" && o.has(&["--parents"]);
                        for src in sources {
                            into.push(into_directory(&dest, src, parents));
                        }
                    }
                    for w in &written {
                        d.add(Access::Write, w, beneath);
                    }
                    for (w, any_name) in &into {
                        d.add(Access::Write, w, beneath || *any_name);
                    }
                    written.extend(into.into_iter().map(|(w, _)| w));
                    backups(name, &o, &written, &mut d);
                }
            }
            if name == "install" && o.has(&["--strip-program"]) {
                d.unknowns
                    .push("`install --strip-program` runs the program it names".into());
            }
        }
    }
    if o.operands.is_empty() && !matches!(spec.operands, Operands::AfterProgram) {
        // A listing of the working directory (`tree`, `du`, `ls -R`) is a
        // listing; what else has a default operand reads it.
        let (access, default) = match spec.operands {
            Operands::All(Access::List) => (
                Access::List,
                spec.default_operand.or(recursive.then_some(".")),
            ),
            _ => (Access::Read, spec.default_operand),
        };
        if let Some(default) = default {
            d.add(access, &Arg::lit(default), recursive);
        }
    }
    if name == "man" {
        man_local(args, &mut d);
    }
    risky::check(name, args, &o, &mut d);
    if spec.read_only {
        d.writes_by_option();
    }
    finish_read_only(&mut d);
    writes_beneath(name, &mut d);
    d
}

/// Programs that write each path they are given alone, a directory among
/// them only itself or not at all (`rm` without `-r`, `chmod` without
/// `-R`, `touch`, `sed -i`, find's own `-delete`): given what `find`
/// selects, they write no more than that.
const PER_ENTRY_WRITERS: &[&str] = &[
    "find", "rm", "rmdir", "unlink", "chmod", "chown", "chgrp", "touch", "truncate", "shred",
    "sed", "gsed",
];

/// Any other program given what `find` selects may write beneath a
/// directory among it whatever its name (`git checkout -- DIR`, `trash
/// DIR`): everything beneath find's starting points counts.
/// `split` and `csplit` write files named PREFIX, then a suffix they
/// make, then (`split --additional-suffix`) a fixed ending; `extra` is that
/// ending when known, `None` when the suffix may end in anything. Where
/// such a name can be the policy's (`split -n5 -a1
/// --additional-suffix=.toml x docs/toolgat` writes `docs/toolgate.toml`
/// as its fifth file), the write of that name is added, so that the hard
/// limit on policy files meets it; not when the suffix is digits only
/// (`numbers_only`: csplit without `-b`), which no policy file's name
/// ends in. The first names (`PREFIXaa`, `PREFIX00`) are writes too, so
/// that a prefix naming a directory (`src/`) meets the rules beneath it.
fn split_outputs(prefix: &Arg, extra: Option<&str>, numbers_only: bool, d: &mut Derived) {
    const POLICY: &str = "toolgate.toml";
    let (dir, base) = match prefix.text.rsplit_once('/') {
        Some((dir, base)) => (format!("{dir}/"), base),
        None => (String::new(), prefix.text.as_str()),
    };
    let base = base.to_ascii_lowercase();
    let fits = match extra {
        Some(e) => {
            let e = e.to_ascii_lowercase();
            base.len() + e.len() < POLICY.len() && POLICY.starts_with(&base) && POLICY.ends_with(&e)
        }
        None => base.len() < POLICY.len() && POLICY.starts_with(&base),
    };
    if fits && prefix.literal && !numbers_only {
        d.add(
            Access::Write,
            &prefix.with_text(format!("{dir}{POLICY}")),
            false,
        );
    }
    // The names begin with the prefix: a prefix that ends in `/` (or
    // names a directory) writes files inside it (`csplit -f src/ f 1`
    // makes `src/00`), judged as the first of them.
    if prefix.literal {
        for suffix in ["00", "aa"] {
            d.add(
                Access::Write,
                &prefix.with_text(format!("{}{suffix}", prefix.text)),
                false,
            );
        }
    }
}

fn writes_beneath(name: &str, d: &mut Derived) {
    if PER_ENTRY_WRITERS.contains(&name) {
        return;
    }
    for f in &mut d.found {
        if matches!(f.access, Access::Write | Access::Delete | Access::WriteDir) {
            f.arg.filter = None;
        }
    }
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
        "perl" | "ruby" => perl_like(name, args, d),
        // An editor shows the files it opens and can save them.
        "vim" | "vi" | "nvim" | "view" | "vimdiff" | "nano" | "pico" | "emacs" | "micro" | "ed"
        | "ex" => {
            for a in args
                .iter()
                .filter(|a| !(a.literal && a.text.starts_with(['-', '+'])))
            {
                d.add(Access::Read, a, false);
                d.add(Access::Write, a, false);
            }
        }
        "csplit" => {
            let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
            file_opts(spec, &o, d);
            if let Some(file) = o.operands.first() {
                d.add(Access::Read, file, false);
            }
            // The names are the prefix and a number (or, with `-b`, a
            // format of its own, which may end them in anything).
            let prefix = o
                .values(&["-f", "--prefix"])
                .next()
                .cloned()
                .unwrap_or_else(|| Arg::lit("xx"));
            split_outputs(&prefix, None, !o.has(&["-b", "--suffix-format"]), d);
        }
        "openssl" => {
            // `openssl dgst FILE..` and its digest names hash their operands.
            let digest = args.first().is_some_and(|s| {
                matches!(
                    s.text.as_str(),
                    "dgst" | "md5" | "sha1" | "sha224" | "sha256" | "sha384" | "sha512"
                )
            });
            if digest {
                let valued = [
                    "-sign",
                    "-verify",
                    "-prverify",
                    "-signature",
                    "-hmac",
                    "-mac",
                    "-macopt",
                    "-keyform",
                    "-passin",
                    "-out",
                    "-sigopt",
                    "-engine",
                    "-rand",
                ];
                let mut prev = "";
                for a in args.iter().skip(1) {
                    if !a.text.starts_with('-') && !valued.contains(&prev) {
                        d.add(Access::Read, a, false);
                    }
                    prev = a.text.as_str();
                }
            }
            // Single-dash long options: `-in FILE`, `-out FILE`, ...
            let mut it = args.iter();
            while let Some(a) = it.next() {
                let access = match a.text.as_str() {
                    "-in" | "-inkey" | "-key" | "-CAfile" | "-cert" | "-signkey" | "-kfile"
                    | "-certfile" | "-config" | "-extfile" | "-rand" | "-infiles" => Access::Read,
                    "-out" | "-keyout" | "-signature" => Access::Write,
                    // `s_client -connect HOST:PORT` and its proxy.
                    "-connect" | "-proxy" => {
                        if let Some(v) = it.next() {
                            d.add(
                                Access::Fetch,
                                &v.with_text(format!("tcp://{}", v.text)),
                                false,
                            );
                        }
                        continue;
                    }
                    "-passin" | "-passout" | "-pass" => {
                        if let Some(v) = it.next()
                            && let Some(file) = v.text.strip_prefix("file:")
                        {
                            d.add(Access::Read, &v.with_text(file), false);
                        }
                        continue;
                    }
                    _ => continue,
                };
                if let Some(v) = it.next() {
                    d.add(access, v, false);
                }
            }
        }
        "fd" | "fdfind" => fd(args, d),
        "jq" | "gojq" | "jaq" => jq::jq(args, d),
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
            patch_backups(&o, d);
        }
        "tar" | "bsdtar" | "gtar" => tar(spec, args, d),
        "unzip" => unzip(args, d),
        "cpio" | "ar" | "7z" | "7za" | "7zr" | "pax" => other_archivers(name, args, d),
        "zip" => {
            let o = parse_opts(
                args,
                "bnitxO",
                &["unzip-command", "output-file", "temp-path", "suffixes"],
                &[],
            );
            if o.has(&["-TT", "--unzip-command"]) || args.iter().any(|a| a.text == "-TT") {
                d.unknowns.push("`zip -TT` runs a command".into());
            }
            // `-@` (and `--names-stdin`) reads the names of the files to
            // add from standard input.
            if args.iter().any(|a| {
                a.literal
                    && ((a.text.starts_with('-')
                        && !a.text.starts_with("--")
                        && a.text.contains('@'))
                        || is_option(&a.text, "--names-stdin"))
            }) {
                d.unknowns
                    .push("`zip -@` reads the names of the files it adds from its input".into());
            }
            let recursive = o.has(&["-r", "--recurse-paths"]);
            if let Some((archive, files)) = o.operands.split_first() {
                d.add(Access::Write, archive, false);
                each(d, Access::Read, files, recursive);
                // `-m` moves the files into the archive: they are removed.
                if o.has(&["-m", "--move"]) {
                    each(d, Access::Delete, files, recursive);
                }
            }
            // `-O FILE` writes the changed archive there instead.
            for out in o.values(&["-O", "--output-file"]) {
                d.add(Access::Write, out, false);
            }
            // `-i@FILE`, `-x@FILE`: lists of names read from a file.
            for a in args.iter().filter(|a| a.literal) {
                if let Some(list) = ["-i@", "-x@", "--include=@", "--exclude=@"]
                    .iter()
                    .find_map(|p| a.text.strip_prefix(p))
                {
                    d.add(Access::Read, &a.with_text(list), false);
                }
            }
        }
        "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "lzma" | "unlzma"
        | "compress" | "uncompress" | "lz4" | "zstd" | "unzstd" | "pigz" | "unpigz" | "pbzip2"
        | "lbzip2" | "lzip" | "plzip" | "lzop" | "brotli" | "unbrotli" => {
            let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
            file_opts(spec, &o, d);
            // `lzop -pDIR` writes its outputs into DIR, by names not
            // given here.
            if name == "lzop"
                && args.iter().any(|a| {
                    !a.literal
                        || (a.text.starts_with("-p") && a.text.len() > 2)
                        || is_option(a.text.split('=').next().unwrap_or_default(), "--path")
                })
            {
                d.unknowns
                    .push("`lzop -p` writes its outputs into a directory it is given".into());
            }
            let to_stdout = o.has(&[
                "-c",
                "--stdout",
                "--to-stdout",
                "-l",
                "--list",
                "-t",
                "--test",
            ]);
            // zstd, lzop and brotli keep what they read unless told not to.
            let keeps = o.has(&["-k", "--keep"])
                || (name.contains("zstd") && !o.has(&["--rm"]))
                || (name == "lzop" && !o.has(&["-U", "--unlink", "--delete"]))
                || (name.contains("brotli") && !o.has(&["-j", "--rm"]));
            let access = if to_stdout {
                Access::Read
            } else if keeps {
                Access::Write
            } else {
                Access::Delete
            };
            // `gzip -dN` names what it writes after the name stored in the
            // archive, not after the file it is given.
            if matches!(name, "gzip" | "gunzip" | "pigz" | "unpigz")
                && o.has(&["-N", "--name"])
                && !to_stdout
                && (name.starts_with("gun")
                    || name.starts_with("unp")
                    || o.has(&["-d", "--decompress", "--uncompress"]))
            {
                d.unknowns.push(format!(
                    "`{name} -N` writes under the name stored in the archive, which is not known"
                ));
            }
            let recursive = o.has(&["-r", "--recursive"]);
            each(d, access, &o.operands, recursive);
            if !to_stdout && !recursive {
                compressed_outputs(name, &o, d);
            }
        }
        // A menu item holding `/` is a manual's file (`info ./x.info`
        // prints it); `-d DIR` adds a directory its manuals are read from.
        "info" => {
            let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
            file_opts(spec, &o, d);
            for dir in o.values(&["-d", "--directory"]) {
                d.add(Access::Read, dir, true);
            }
            for a in o
                .operands
                .iter()
                .filter(|a| !a.literal || a.text.contains('/'))
            {
                d.add(Access::Read, a, false);
            }
        }
        "curl" => curl(spec, args, d),
        "wget" | "wget2" => wget(spec, args, d),
        "aria2c" => {
            let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
            file_opts(spec, &o, d);
            // Event hooks run a program; `--conf-path` options can set them.
            if let Some((n, _)) = o
                .opts
                .iter()
                .find(|(n, _)| n.starts_with("--on-") || n == "--conf-path")
            {
                d.unknowns
                    .push(format!("`aria2c {n}` runs a program or reads options"));
            }
            for (n, v) in &o.opts {
                if let Some(v) = v.as_ref().filter(|_| n.ends_with("-proxy")) {
                    let url = if v.text.contains("://") {
                        v.text.clone()
                    } else {
                        format!("http://{}", v.text)
                    };
                    d.add(Access::Fetch, &v.with_text(url), false);
                }
            }
            each(d, Access::Fetch, &o.operands, false);
            if !o.has(&["-d", "--dir", "-o", "--out"]) {
                d.add(Access::WriteDir, &Arg::lit("."), true);
            }
        }
        "http" | "https" | "xh" | "xhs" | "httpie" => httpie(spec, args, d),
        "git" => git(args, d),
        "scp" | "rsync" => remote_copy(name, spec, args, d),
        "sftp" => sftp(spec, args, d),
        "ssh" => {
            let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
            file_opts(spec, &o, d);
            ssh_options(name, &o, d);
            connection(name, &o.operands, d);
        }
        _ => {}
    }
}

/// The identifier-like words of a program text.
fn words_of(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// `man -l FILE`, `man -l -` (the page on standard input) and `man
/// ./page.1` (a name with a `/` is a file): man formats a page that is
/// not the system's with groff, whose requests read and run what the page
/// names (`.so FILE` and `.mso` read it into the page, `.cf`/`.trf` copy
/// it out, `.open`/`.opena` write, `.pso` runs a command): what the
/// file holds is not known when the command is decided. Unanalysable.
/// (man-db's options that take a value, `man --help`: `-C -R -L -m -M -P
/// -r -E -p -e -S -s`; `-H` and `-X` take one only attached.)
fn man_local(args: &[Arg], d: &mut Derived) {
    const VALUED: &str = "CRLmMPrEpeSs";
    let mut local = false;
    let mut pages = Vec::new();
    let mut it = args.iter();
    let mut options = true;
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        if !a.literal {
            pages.push(a);
            continue;
        }
        if options && t == "--" {
            options = false;
            continue;
        }
        if options && t.starts_with("--") {
            let (n, inline) = match t.split_once('=') {
                Some((n, _)) => (n, true),
                None => (t, false),
            };
            // getopt_long takes an unambiguous start of a name.
            if n.len() >= 4 && "--local-file".starts_with(n) {
                local = true;
            }
            let valued = [
                "--config-file",
                "--locale",
                "--systems",
                "--manpath",
                "--pager",
                "--prompt",
                "--encoding",
                "--preprocessor",
                "--extension",
                "--sections",
                "--recode",
            ];
            if !inline && n.len() > 3 && valued.iter().any(|v| v.starts_with(n)) {
                it.next();
            }
            continue;
        }
        if options && t.len() > 1 && t.starts_with('-') {
            for (at, c) in t[1..].char_indices() {
                if c == 'l' {
                    local = true;
                }
                if VALUED.contains(c) {
                    if t[1 + at + c.len_utf8()..].is_empty() {
                        it.next();
                    }
                    break;
                }
                if matches!(c, 'H' | 'X') {
                    break;
                }
            }
            continue;
        }
        pages.push(a);
    }
    if let Some(a) = pages
        .iter()
        .find(|a| local || !a.literal || a.text.contains('/') || a.text == "-")
    {
        let what = if a.literal && a.text == "-" {
            "the page on its standard input".to_string()
        } else {
            format!("`{}`", a.text)
        };
        d.unknowns.push(format!(
            "`man` formats {what}, a page that is not the system's, with groff, whose requests (`.so`, `.mso`, `.cf`, `.open`, `.pso`) read, write or run what the page names"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lits(s: &str) -> Vec<Arg> {
        s.split_whitespace().map(Arg::lit).collect()
    }

    #[test]
    fn zip_moves_writes_and_reads_lists() {
        let found = |cmd: &str| -> Vec<(Access, String)> {
            derive("zip", &lits(cmd))
                .found
                .iter()
                .map(|f| (f.access, f.arg.text.clone()))
                .collect()
        };
        let got = found("-m a.zip f");
        assert!(got.contains(&(Access::Delete, "f".into())), "{got:?}");
        let got = found("a.zip f -O out.zip");
        assert!(got.contains(&(Access::Write, "out.zip".into())), "{got:?}");
        let got = found("a.zip f -i@list");
        assert!(got.contains(&(Access::Read, "list".into())), "{got:?}");
        // `-T` tests the archive; it takes no value.
        let got = found("-T a.zip f");
        assert!(got.contains(&(Access::Read, "f".into())), "{got:?}");
    }

    #[test]
    fn an_optional_value_takes_the_rest_of_its_word_only() {
        let o = parse_opts(&lits("-Ei.bak -e p f"), "efli?", &[], &[]);
        assert_eq!(
            o.values(&["-i"])
                .map(|v| v.text.as_str())
                .collect::<Vec<_>>(),
            [".bak"]
        );
        assert_eq!(o.operands.len(), 1);
        // `-ie` is a suffix `e`, not `-i -e`: the script is the first operand.
        let o = parse_opts(&lits("-ie s/x/y/ f"), "efli?", &[], &[]);
        assert!(o.values(&["-e"]).next().is_none());
        assert_eq!(o.operands.len(), 2);
        let o = parse_opts(&lits("-i -n p f"), "efli?", &[], &[]);
        assert!(o.values(&["-i"]).next().is_none() && o.has(&["-n"]));
        // `date -Iseconds` sets nothing.
        assert!(derive("date", &lits("-u -Iseconds")).unknowns.is_empty());
        assert!(!derive("date", &lits("-Is -s 1")).unknowns.is_empty());
        // sed's backups: beside the file, or where a `*` puts it.
        let writes = |cmd: &str| -> Vec<String> {
            derive("sed", &lits(cmd))
                .found
                .iter()
                .filter(|f| f.access == Access::Write && f.by_option)
                .map(|f| f.arg.text.clone())
                .collect()
        };
        assert_eq!(writes("-i.bak s/x/y/ a b"), ["a", "b", "a.bak", "b.bak"]);
        assert_eq!(writes("--in-place=bk/* s/x/y/ a"), ["a", "bk/a"]);
        assert_eq!(writes("-i s/x/y/ a"), ["a"]);
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

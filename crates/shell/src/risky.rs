//! Options that make an otherwise reading command run a program, write a
//! file or change what later commands do.
//!
//! Each command the tables know as a reader or read-only command was gone
//! through with its manual; every option found to execute, write or change
//! state is handled here (the ones that only name a file to write or read
//! are `file_opts` in [`crate::tables::SPECS`]). An option that writes adds
//! a write effect on the file it names, so the write meets the rules for
//! that file; one that runs a program adds an unknown, which makes the call
//! at least ask and the command not read-only. The full list is in
//! `docs/policy.md`, "Shell analysis".

use crate::effects::{Derived, Opts, is_option};
use crate::tables::Access;
use crate::words::Arg;

/// Checks the options of the table command `name` (its base name), given
/// as `args` and split into `o`.
pub(crate) fn check(name: &str, args: &[Arg], o: &Opts, d: &mut Derived) {
    let runs = |d: &mut Derived, what: &str| {
        d.unknowns.push(format!("`{name} {what}` runs a program"));
    };
    // The files a `--files0-from` list names are read; an empty list
    // (`/dev/null`) names none. (`du` shows only their sizes.)
    if matches!(name, "sort" | "wc")
        && o.values(&["--files0-from"])
            .any(|v| !(v.literal && v.text == "/dev/null"))
    {
        d.unknowns.push(format!(
            "`{name} --files0-from` reads the files its list names, which are not known here"
        ));
    }
    match name {
        // `-z` runs the decompression programs found on `PATH`.
        "rg" => {
            for opt in ["--pre", "--hostname-bin", "-z", "--search-zip"] {
                if o.has(&[opt]) {
                    runs(d, opt);
                }
            }
        }
        "ag" if o.has(&["--pager"]) => {
            runs(d, "--pager");
        }
        "bat" | "batcat" if o.has(&["--pager"]) => {
            runs(d, "--pager");
        }
        "split" if o.has(&["--filter"]) => {
            runs(d, "--filter");
        }
        "sort" => {
            if o.has(&["--compress-program"]) {
                runs(d, "--compress-program");
            }
            for dir in o.values(&["-T", "--temporary-directory"]) {
                d.add(Access::WriteDir, dir, false);
            }
        }
        "man" => {
            let runner = args.iter().find(|a| {
                let t = a.text.as_str();
                a.literal
                    && ["-P", "--pager", "-H", "--html", "-C", "--config-file", "-X"]
                        .iter()
                        .any(|p| t.starts_with(p))
                    || t.starts_with("--gxditview")
            });
            if let Some(a) = runner {
                d.unknowns
                    .push(format!("`man` option runs a program: `{}`", a.text));
            }
            manpath_reads(args, d);
            // `man -l FILE` and `man ./page.1` format a file and show it.
            let local = o.has(&["-l", "--local-file"]);
            for a in &o.operands {
                if local || a.text.contains('/') || !a.literal {
                    d.add(Access::Read, a, false);
                }
            }
        }
        "apropos" | "whatis" => manpath_reads(args, d),
        "less" | "zless" | "more" | "zmore" => {
            // `+cmd` runs a less command at start, and `!cmd` in less runs
            // a shell command.
            // Moving (`+10`, `+G`, `+F`) and searching (`+/x`) are harmless.
            let harmless = |cmd: &str| {
                cmd.chars().all(|c| c.is_ascii_digit())
                    || matches!(cmd, "G" | "g" | "F")
                    || cmd.starts_with(['/', '?'])
            };
            if let Some(a) = args.iter().find(|a| {
                a.text.strip_prefix('+').is_some_and(|cmd| {
                    let cmd = cmd.strip_prefix('+').unwrap_or(cmd);
                    !a.literal || !harmless(cmd)
                })
            }) {
                d.unknowns.push(format!(
                    "`{name} {}` runs a command of the pager, which can run a shell",
                    a.text
                ));
            }
            // A lesskey file binds keys and sets variables, `LESSOPEN`
            // (a program run on every file) among them.
            if o.has(&["-k", "--lesskey-file", "--lesskey-src", "--lesskey-content"]) {
                d.unknowns.push(format!(
                    "`{name}` reads key bindings and variables from a file"
                ));
            }
        }
        "file" => {
            // A file of names: the files it lists are read, and which they
            // are is not known when the command is decided.
            if o.has(&["-f", "--files-from"]) {
                d.unknowns
                    .push("`file -f` reads the files a list names".into());
            }
            if o.has(&["-C", "--compile"]) {
                let base = o
                    .values(&["-m", "--magic-file"])
                    .next()
                    .map(|m| m.text.rsplit('/').next().unwrap_or("magic").to_string())
                    .unwrap_or_else(|| "magic".into());
                d.add(Access::Write, &Arg::lit(format!("{base}.mgc")), false);
            }
        }
        "tree" => {
            let roots: Vec<Arg> = if o.operands.is_empty() {
                vec![Arg::lit(".")]
            } else {
                o.operands.clone()
            };
            // `-R` runs tree again in every directory with `-o 00Tree.html`.
            if o.has(&["-R"]) {
                for r in &roots {
                    d.add(Access::WriteDir, r, true);
                }
            }
            // `--fromfile` prints the paths its operands hold: their bytes
            // are read, not listed (`.` is standard input).
            if o.has(&["--fromfile"]) {
                for r in o.operands.iter().filter(|r| !(r.literal && r.text == ".")) {
                    d.add(Access::Read, r, false);
                }
            }
            // `--info` prints the comments of the `.info` files it finds
            // in the directories it lists.
            if o.has(&["--info"]) {
                for r in &roots {
                    d.add(Access::Read, r, true);
                }
            }
        }
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => awk(name, args, o, d),
        "date"
            if o.has(&["-s", "--set"])
                || o.operands
                    .iter()
                    .any(|a| !(a.literal && a.text.starts_with('+'))) =>
        {
            d.unknowns
                .push("`date` with a time to set changes the system clock".into());
        }
        "hostname" if !o.operands.is_empty() || o.has(&["-F", "--file", "-b", "--boot"]) => {
            d.unknowns.push("`hostname` with a name sets it".into());
        }
        "hash" if o.has(&["-p"]) || args.iter().any(|a| !a.literal) => {
            d.unknowns
                .push("`hash -p` sets the program a name runs".into());
        }
        // `-a` and `-w` write the history file, `-r` and `-n` read it into
        // the history (which `history` then prints and `fc` runs).
        "history" if o.has(&["-a", "-w", "-r", "-n"]) => {
            let file = o
                .operands
                .first()
                .cloned()
                .unwrap_or_else(|| Arg::lit("~/.bash_history"));
            let access = if o.has(&["-a", "-w"]) {
                Access::Write
            } else {
                Access::Read
            };
            d.add(access, &file, false);
        }
        "stty" => {
            let reads = ["-a", "--all", "-g", "--save", "size", "speed"];
            if !args
                .iter()
                .all(|a| a.literal && reads.contains(&a.text.as_str()))
            {
                d.read_only = false;
            }
        }
        "shopt"
            if o.has(&["-s", "-u"])
                && !o
                    .operands
                    .iter()
                    .all(|a| a.literal && SHOPT_HARMLESS.contains(&a.text.as_str())) =>
        {
            d.unknowns
                .push("`shopt` changes how later commands are expanded or run".into());
        }
        "set" => set(args, d),
        "dc" => dc(args, d),
        _ => {}
    }
    if d.read_only && matches!(name, "date" | "hostname" | "stty" | "set" | "shopt" | "dc") {
        if let Some(a) = args.iter().find(|a| !a.literal) {
            d.unknowns.push(format!(
                "`{name}` argument is not literal: `{}`, and options of `{name}` change state",
                a.text
            ));
        }
    }
}

/// gawk's options that load code, debug, or write profiles and dumps.
fn awk(name: &str, args: &[Arg], o: &Opts, d: &mut Derived) {
    if o.has(&["-l", "--load"]) {
        d.unknowns
            .push(format!("`{name} --load` loads an extension library"));
    }
    if o.has(&["-D", "--debug"]) {
        d.unknowns
            .push(format!("`{name} --debug` runs the debugger"));
    }
    if o.values(&["-i", "--include"])
        .any(|v| !(v.literal && v.text == "inplace"))
    {
        d.unknowns.push(format!(
            "`{name} --include` adds source code that is not analysed"
        ));
    }
    let plain_w = [
        "version",
        "v",
        "help",
        "usage",
        "posix",
        "traditional",
        "compat",
        "lint",
        "sandbox",
    ];
    if let Some(v) = o
        .values(&["-W"])
        .find(|v| !(v.literal && plain_w.contains(&v.text.as_str())))
    {
        d.unknowns
            .push(format!("`{name} -W {}` is not analysed", v.text));
    }
    // Options with an optional, glued value and a default file name.
    let writers: [(&str, &str, &str); 3] = [
        ("-d", "--dump-variables", "awkvars.out"),
        ("-p", "--profile", "awkprof.out"),
        ("-o", "--pretty-print", "awkprof.out"),
    ];
    let with_value = [
        "-f",
        "-v",
        "-F",
        "-E",
        "-i",
        "-l",
        "-W",
        "--file",
        "--assign",
        "--field-separator",
        "--exec",
        "--include",
        "--load",
        "--source",
    ];
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        let t = a.text.as_str();
        if !a.literal || t == "--" || !t.starts_with('-') {
            break;
        }
        if with_value.contains(&t) {
            iter.next();
            continue;
        }
        for (short, long, default) in writers {
            let file = if t == short || t == long {
                Some(default.to_string())
            } else if let Some(v) = t.strip_prefix(&format!("{long}=")) {
                Some(v.to_string())
            } else {
                t.strip_prefix(short).map(str::to_string).filter(|_| {
                    // A cluster such as `-F:` holds other letters.
                    t.len() > 2 && !t.starts_with("--") && t[1..].starts_with(&short[1..])
                })
            };
            if let Some(f) = file {
                d.add(Access::Write, &a.with_text(f), false);
            }
        }
    }
}

/// `set -k` makes assignments anywhere in a command's arguments part of its
/// environment, and `-o posix` changes which assignments persist.
/// `shopt` options that change neither what a word expands to nor what
/// runs.
const SHOPT_HARMLESS: &[&str] = &[
    "checkwinsize",
    "histappend",
    "cmdhist",
    "lithist",
    "progcomp",
    "promptvars",
    "interactive_comments",
    "xpg_echo",
    "huponexit",
    "checkjobs",
    "inherit_errexit",
];

/// `set -o` names that change neither what a word expands to nor what
/// runs (`keyword`, `posix`, `onecmd`, `histexpand`, `history` do).
const SET_HARMLESS: &[&str] = &[
    "allexport",
    "braceexpand",
    "emacs",
    "errexit",
    "errtrace",
    "functrace",
    "hashall",
    "ignoreeof",
    "interactive-comments",
    "monitor",
    "noclobber",
    "noexec",
    "noglob",
    "nolog",
    "notify",
    "nounset",
    "physical",
    "pipefail",
    "privileged",
    "verbose",
    "vi",
    "xtrace",
];

/// Why the options a shell is started with (`bash -O dotglob -c ..`, the
/// words before its script) make the script mean something other than
/// its text read by itself, if they do: `-O`/`+O` name `shopt` options,
/// `-o` `set` options, `-k` and `-H` are `set -k` and `set -H`,
/// `--debugger` runs the debugger's start-up. A glob under `-O dotglob`
/// matches `.env`; under `-k` an argument `X=1` is an assignment. zsh's
/// options are other ones (`-4` is `GLOB_DOTS`): any it is given but
/// `-c`, `-e`, `-u`, `-x`, `-v`, `-f`, `-l`, `-i` and `-s` is unknown.
pub(crate) fn shell_options(invocation: &[String]) -> Option<String> {
    let name = invocation.first()?;
    let name = name.rsplit('/').next().unwrap_or(name);
    let zsh = name == "zsh";
    let unknown = |what: &str| {
        Some(format!(
            "`{name} {what}` changes how the script it runs is expanded or run"
        ))
    };
    let mut words = invocation.iter().skip(1);
    while let Some(w) = words.next() {
        let t = w.as_str();
        if t == "--" || !(t.starts_with('-') || t.starts_with('+')) || t.len() < 2 {
            continue;
        }
        match t {
            "--rcfile" | "--init-file" => {
                words.next();
            }
            "--debugger" => return unknown(t),
            _ if t.starts_with("--") => {}
            _ => {
                // A letter at a time, as bash reads a cluster: `o` and `O`
                // each take the next word.
                for c in t[1..].chars() {
                    match c {
                        'O' => {
                            let v = words.next().map(String::as_str).unwrap_or("");
                            if zsh || !SHOPT_HARMLESS.contains(&v) {
                                return unknown(&format!("{t} {v}"));
                            }
                        }
                        'o' => {
                            let v = words.next().map(String::as_str).unwrap_or("");
                            let harmless = if zsh {
                                matches!(
                                    v,
                                    "errexit" | "nounset" | "pipefail" | "xtrace" | "verbose"
                                )
                            } else {
                                SET_HARMLESS.contains(&v)
                            };
                            if !harmless {
                                return unknown(&format!("{t} {v}"));
                            }
                        }
                        'k' | 'H' if !zsh => return unknown(t),
                        _ if zsh && !"ceuxvflis".contains(c) => return unknown(t),
                        _ => {}
                    }
                }
            }
        }
    }
    None
}

fn set(args: &[Arg], d: &mut Derived) {
    let mut iter = args.iter();
    while let Some(a) = iter.next() {
        let t = a.text.as_str();
        if !(t.starts_with('-') || t.starts_with('+')) || t == "--" || t == "-" {
            break;
        }
        let opt_name = if t == "-o" || t == "+o" {
            iter.next().map(|v| v.text.as_str())
        } else {
            None
        };
        // `-P` (physical): a later `cd` resolves links as it goes, where
        // the walk follows the logical path.
        if t[1..].contains(['k', 'P'])
            || matches!(opt_name, Some("keyword" | "posix" | "onecmd" | "physical"))
        {
            d.unknowns
                .push(format!("`set {t}` changes how later commands run"));
        }
        // History expansion: a later `!!`, `!N` or `!text` becomes text
        // from the history, which runs.
        if (t.starts_with('-') && t[1..].contains('H'))
            || (t == "-o" && opt_name == Some("histexpand"))
        {
            d.unknowns.push(format!(
                "`set {t}` turns on history expansion, which runs text from the history"
            ));
        }
    }
}

/// dc's `!` runs the rest of the line as a shell command: only literal
/// programs given with `-e` and free of `!` are known.
fn dc(args: &[Arg], d: &mut Derived) {
    let mut iter = args.iter();
    let mut programs = 0;
    let mut known = true;
    while let Some(a) = iter.next() {
        let t = a.text.as_str();
        let program = match t {
            "-e" | "--expression" => iter.next(),
            _ if t.starts_with("--expression=") => Some(a),
            _ if t.starts_with("-e") && t.len() > 2 => Some(a),
            "-V" | "--version" | "-h" | "--help" => {
                programs += 1;
                None
            }
            _ => {
                known = false;
                None
            }
        };
        if let Some(p) = program {
            programs += 1;
            if !p.literal || p.text.contains('!') {
                known = false;
            }
        }
    }
    if !known || programs == 0 {
        d.unknowns
            .push("`dc` program can run shell commands (`!`) and is not analysed".into());
    }
}

/// git options of reading subcommands that run programs or write files.
pub(crate) fn git(sub: &str, rest: &[Arg], read_only: bool, d: &mut Derived) {
    // git's parse-options takes a unique prefix of a long option too.
    let runs_with = |flag: &str| -> bool {
        rest.iter().any(|a| {
            let given = a.text.split('=').next().unwrap_or(&a.text);
            a.literal && is_option(given, flag)
        })
    };
    let mut risky = Vec::new();
    let diff_like = matches!(
        sub,
        "diff"
            | "log"
            | "show"
            | "whatchanged"
            | "diff-tree"
            | "diff-files"
            | "diff-index"
            | "grep"
            | "blame"
            | "annotate"
            | "cat-file"
            | "format-patch"
    );
    if diff_like {
        for flag in ["--ext-diff", "--textconv"] {
            if runs_with(flag) {
                risky.push(flag);
            }
        }
    }
    if sub == "cat-file" && runs_with("--filters") {
        risky.push("--filters");
    }
    if sub == "help" && (runs_with("-w") || runs_with("--web")) {
        risky.push("--web");
    }
    for flag in risky {
        d.unknowns.push(format!(
            "`git {sub} {flag}` runs a program chosen by configuration"
        ));
    }
    if matches!(sub, "blame" | "annotate") {
        let mut iter = rest.iter();
        while let Some(a) = iter.next() {
            match a.text.as_str() {
                "--contents" | "-S" | "--ignore-revs-file" => {
                    if let Some(f) = iter.next() {
                        d.add(Access::Read, f, false);
                    }
                }
                t => {
                    for p in ["--contents=", "--ignore-revs-file="] {
                        if let Some(f) = t.strip_prefix(p) {
                            d.add(Access::Read, &a.with_text(f), false);
                        }
                    }
                }
            }
        }
    }
    if let Some(a) = rest.iter().find(|a| !a.literal && read_only) {
        d.unknowns.push(format!(
            "`git {sub}` argument is not literal: `{}`, and it may be an option",
            a.text
        ));
    }
}

/// `-M PATH` (`--manpath=PATH`) of `man`, `apropos` and `whatis`: the
/// pages (or their index) are read from the directories PATH lists
/// (`man -M secrets k` prints `secrets/man1/k.1`), each a recursive read.
fn manpath_reads(args: &[Arg], d: &mut Derived) {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        if !a.literal {
            continue;
        }
        let value = if t == "-M" || t == "--manpath" {
            it.next().cloned()
        } else if let Some((name, v)) = t.split_once('=').filter(|(n, _)| n.starts_with("--")) {
            is_option(name, "--manpath").then(|| a.with_text(v))
        } else {
            t.strip_prefix("-M")
                .filter(|v| !v.is_empty())
                .map(|v| a.with_text(v))
        };
        let Some(v) = value else { continue };
        if !v.literal {
            d.add(Access::Read, &v, true);
            continue;
        }
        for dir in v.text.split(':').filter(|p| !p.is_empty()) {
            d.add(Access::Read, &v.with_text(dir), true);
        }
    }
}

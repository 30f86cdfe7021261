//! Commands that run other commands: wrappers (`timeout 5 cmd`, `env X=1
//! cmd`, `xargs cmd`, `sudo cmd`) and shells given a script (`bash -c`,
//! `eval`, `su -c`, `watch`).

use crate::tables;
use crate::words::Arg;

mod parallel;

/// Where a shell's script comes from.
#[derive(Debug, Clone)]
pub(crate) enum Script {
    /// Given as an argument (`-c SCRIPT`, `eval ARGS`).
    Text { text: String, literal: bool },
    /// Read from standard input (`bash`, `bash -s`, `sh -`).
    Stdin,
    /// Read from a file (`bash script.sh`).
    File(Arg),
}

/// What one step of unwrapping found.
#[derive(Debug)]
pub(crate) enum Step {
    /// A wrapper around the command in `rest`.
    Wrapper {
        wrapper: Vec<String>,
        rest: Vec<Arg>,
        /// `env -C DIR`.
        cwd: Option<Arg>,
        /// Variables `env` gives the command, with their values (`env
        /// PATH=.. cmd`).
        env: Vec<(String, Arg)>,
        /// Why part of the wrapper cannot be followed.
        unknown: Option<String>,
        /// `xargs`: the command gets more operands from its input; the
        /// word that marks where they go (`-I {}`), if any.
        xargs: Option<Option<String>>,
    },
    /// A shell that runs `script`.
    Shell {
        wrapper: Vec<String>,
        script: Script,
    },
    /// Not a wrapper (or a wrapper with nothing to run).
    None,
}

fn texts(args: &[Arg]) -> Vec<String> {
    args.iter().map(|a| a.text.clone()).collect()
}

/// Looks at `argv` (name first) and returns what it wraps, if anything.
pub(crate) fn step(name: &str, argv: &[Arg]) -> Step {
    if argv.is_empty() {
        return Step::None;
    }
    let known = tables::known(name);
    if let Some(&(_, short, long, leading)) = known.wrapper {
        return simple_wrapper(name, argv, short, long, leading);
    }
    match name {
        "env" => env(argv),
        "xargs" => xargs(argv),
        "busybox" => match argv.get(1) {
            Some(_) => runs(&argv[..1], argv[1..].to_vec(), None),
            None => Step::None,
        },
        "eval" => {
            let args = &argv[1..];
            if args.is_empty() {
                return Step::None;
            }
            Step::Shell {
                wrapper: vec![argv[0].text.clone()],
                script: joined(args),
            }
        }
        "trap" => match argv.get(1) {
            Some(a) if !(a.literal && (a.text.starts_with('-') || a.text.is_empty())) => {
                Step::Shell {
                    wrapper: vec![argv[0].text.clone()],
                    script: one(a),
                }
            }
            _ => Step::None,
        },
        "su" => su(argv),
        // The grammar has no `coproc`: what follows (after an optional
        // name before a compound command) is read again as a script.
        "coproc" => {
            let skip = match argv.get(2) {
                Some(a) if matches!(a.text.as_str(), "{" | "(") => 2,
                _ => 1,
            };
            let rest = argv.get(skip..).unwrap_or_default();
            if rest.is_empty() {
                return Step::None;
            }
            let mut script = joined(rest);
            // The grammar ends the command at the group's first separator
            // and reads its `}` as a command of its own: the group read
            // again is closed here.
            if let (Some(open), Script::Text { text, .. }) = (rest.first(), &mut script)
                && open.literal
                && open.text == "{"
            {
                text.push_str("\n}");
            }
            Step::Shell {
                wrapper: texts(&argv[..skip]),
                script,
            }
        }
        "watch" => watch(argv),
        // ast-grep's `sg` (`sg run --pattern ..`, `sg scan`): not a wrapper.
        "sg" if argv.get(1).is_some_and(|a| {
            a.literal
                && (matches!(
                    a.text.as_str(),
                    "run" | "scan" | "test" | "new" | "lsp" | "completions" | "help"
                ) || (a.text.starts_with('-') && a.text != "-"))
        }) =>
        {
            Step::None
        }
        // `sg [-] GROUP [-c] COMMAND`: COMMAND is a string for /bin/sh -c;
        // without one, a shell reads standard input (as `newgrp` starts).
        "sg" => {
            let mut i = 1;
            if argv.get(i).is_some_and(|a| a.literal && a.text == "-") {
                i += 1;
            }
            i += 1; // the group
            if argv.get(i).is_some_and(|a| a.literal && a.text == "-c") {
                i += 1;
            }
            match argv.get(i..).filter(|rest| !rest.is_empty()) {
                Some(rest) => Step::Shell {
                    wrapper: texts(&argv[..i]),
                    script: joined(rest),
                },
                None => Step::Shell {
                    wrapper: texts(argv),
                    script: Script::Stdin,
                },
            }
        }
        "newgrp" => Step::Shell {
            wrapper: texts(argv),
            script: Script::Stdin,
        },
        // capsh hands the words after `--` to bash (or to `--shell=`).
        "capsh" => match argv.iter().position(|a| a.literal && a.text == "--") {
            Some(end) => {
                let changes = argv[1..end].iter().find(|a| {
                    !a.literal
                        || ["--chroot", "--shell", "--exec"]
                            .iter()
                            .any(|o| a.text.starts_with(o))
                });
                let mut rest = vec![Arg::lit("bash")];
                rest.extend_from_slice(&argv[end + 1..]);
                runs(
                    &argv[..=end],
                    rest,
                    changes.map(|a| format!("`capsh {}` changes what runs, or where", a.text)),
                )
            }
            None => Step::None,
        },
        // `nix-shell --run CMD` runs CMD in a shell; `nix develop -c CMD
        // ARGS`, `nix shell PKGS -c CMD ARGS` run the command. (What the
        // Nix expressions run, like a Makefile's recipes, is the program's.)
        "nix-shell" => {
            let at = argv
                .iter()
                .position(|a| a.literal && matches!(a.text.as_str(), "--run" | "--command"));
            match at.and_then(|i| argv.get(i + 1).map(|s| (i, s))) {
                Some((i, s)) => Step::Shell {
                    wrapper: texts(&argv[..=i]),
                    script: one(s),
                },
                None => Step::None,
            }
        }
        "nix" => match argv
            .iter()
            .position(|a| a.literal && matches!(a.text.as_str(), "-c" | "--command"))
        {
            Some(i) if i + 1 < argv.len() => runs(&argv[..=i], argv[i + 1..].to_vec(), None),
            _ => Step::None,
        },
        // `crontab FILE`, `crontab -` install commands that cron runs
        // later, outside any gate; `-l` only lists.
        "crontab"
            if !argv
                .iter()
                .skip(1)
                .any(|a| a.literal && a.text.starts_with('-') && a.text[1..].contains('l')) =>
        {
            opaque(
                argv,
                "`crontab` installs commands that cron runs later, outside the gate".into(),
            )
        }
        "vipe" => opaque(
            argv,
            "`vipe` runs the editor `$EDITOR` or `$VISUAL` names".into(),
        ),
        // Each argument of `pee` is a command for `sh -c`; one alone is
        // read as such, several are not joined (a here-document opened in
        // one would swallow the next).
        "pee" => match argv.get(1..) {
            Some([one_script]) => Step::Shell {
                wrapper: texts(&argv[..1]),
                script: one(one_script),
            },
            Some([]) | None => Step::None,
            Some(_) => opaque(
                argv,
                "`pee` runs each of its arguments as a shell command".into(),
            ),
        },
        "sqlite3" => sqlite3(argv),
        "hyperfine" => opaque(
            argv,
            "`hyperfine` runs the commands it is given through a shell, with parameters put in"
                .into(),
        ),
        // Sandboxes that build the command's file system from their options.
        "bwrap" | "proot" => opaque(
            argv,
            format!("`{name}` runs a command in a file system its options build"),
        ),
        "direnv" if argv.get(1).is_some_and(|a| a.text == "exec") => opaque(
            argv,
            "`direnv exec` runs the `.envrc` of the directory it is given, then the command".into(),
        ),
        "perf"
            if argv.get(1).is_some_and(|a| {
                !a.literal
                    || matches!(
                        a.text.as_str(),
                        "stat"
                            | "record"
                            | "trace"
                            | "ftrace"
                            | "c2c"
                            | "mem"
                            | "kmem"
                            | "lock"
                            | "sched"
                            | "kvm"
                            | "timechart"
                            | "script"
                            | "kwork"
                            | "daemon"
                            | "test"
                            | "bench"
                    )
            }) =>
        {
            opaque(
                argv,
                "`perf` runs the command (or the scripts) it is given".into(),
            )
        }
        // `entr UTILITY ARGS`; with `-s`, one command for the shell.
        "entr" => {
            let p = parse_leading(argv, "", &[]);
            let rest = argv.get(p.next..).unwrap_or_default();
            match rest.first() {
                None => Step::None,
                Some(first) if p.options.iter().any(|o| o.contains('s')) => Step::Shell {
                    wrapper: texts(&argv[..p.next]),
                    script: one(first),
                },
                Some(_) => runs(&argv[..p.next], rest.to_vec(), None),
            }
        }
        "flock" => flock(argv),
        "script" => script(argv),
        "parallel" => parallel::parallel(argv),
        "at" | "batch" => at(argv),
        "tmux" => tmux(argv),
        "gdb" | "lldb" | "vim" | "vi" | "nvim" | "view" | "vimdiff" | "ex" | "emacs" => {
            debugger_or_editor(name, argv)
        }
        "screen" => screen(argv),
        _ if known.shell => shell(argv),
        _ => Step::None,
    }
}

fn joined(args: &[Arg]) -> Script {
    Script::Text {
        text: args
            .iter()
            .map(|a| a.text.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        literal: args.iter().all(|a| a.literal),
    }
}

fn simple_wrapper(name: &str, argv: &[Arg], short: &str, long: &[&str], leading: usize) -> Step {
    let p = parse_leading(argv, short, long);
    if name == "command" && p.options.iter().any(|o| o.contains(['v', 'V'])) {
        // `command -v x` looks a name up; it runs nothing.
        return Step::None;
    }
    // `nice -5 cmd` and `chrt 10 cmd`-style leading operands.
    let end = (p.next + leading).min(argv.len());
    if end >= argv.len() {
        return Step::None;
    }
    let (cwd, changes) = root_and_dir(name, argv, &p);
    let risky = tables::WRAPPER_RISKY
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, risky)| p.options.iter().find(|o| risky.contains(o)))
        .map(|o| {
            let dashes = if o.len() == 1 { "-" } else { "--" };
            format!("`{name} {dashes}{o}` loads or runs code, or writes a file, of its own")
        });
    Step::Wrapper {
        wrapper: texts(&argv[..end]),
        rest: argv[end..].to_vec(),
        cwd,
        env: Vec::new(),
        unknown: unknown_option(name, &p, short, long).or(changes).or(risky),
        xargs: None,
    }
}

/// Whether a literal path names the root directory (`/`, `//`, `/.`, `/..`).
fn is_root(a: &Arg) -> bool {
    use std::path::Component;
    a.literal
        && a.text.starts_with('/')
        && std::path::Path::new(&a.text).components().all(|c| {
            matches!(
                c,
                Component::RootDir | Component::CurDir | Component::ParentDir
            )
        })
}

/// The directory the command of `chroot`, `nsenter`, `unshare`, `sudo`, `run0` or `systemd-run` runs in,
/// and why its paths cannot be followed, when they cannot. `chroot DIR`
/// and `unshare --root=DIR` change to the new root's `/` (`chroot /
/// cat x` reads `/x`); a root other than `/` makes every path of the
/// command one beneath it, resolved through that tree's own links, which
/// is not analysed; `nsenter --wd=DIR` runs it in DIR, and `nsenter -w`,
/// `-r` without a directory, `-m` or `-a` in the target process's
/// directories or mount namespace.
fn root_and_dir(name: &str, argv: &[Arg], p: &Parsed<'_>) -> (Option<Arg>, Option<String>) {
    let other_root = |dir: &Arg| {
        format!(
            "`{name}` runs the command with `{}` as its root: its paths lie beneath it and resolve through that tree's own links, which is not analysed",
            dir.text
        )
    };
    match name {
        "chroot" => {
            let Some(root) = argv.get(p.next) else {
                return (None, None);
            };
            // Relative paths then resolve beneath the new root: as seen from
            // here, in it.
            let skip = p.options.contains(&"skip-chdir");
            if is_root(root) {
                ((!skip).then(|| Arg::lit("/")), None)
            } else {
                ((!skip).then(|| root.clone()), Some(other_root(root)))
            }
        }
        "unshare" => {
            let root = p.values_of(&["R", "root"]).last();
            let wd = p.values_of(&["w", "wd"]).last().cloned();
            match root {
                Some(r) if !is_root(r) => (wd.or_else(|| Some(r.clone())), Some(other_root(r))),
                Some(_) => (wd.or_else(|| Some(Arg::lit("/"))), None),
                None => (wd, None),
            }
        }
        "nsenter" => {
            // `-r`, `-w` take a directory only attached (`--wd=DIR`): alone,
            // they mean the target process's.
            if p.options.iter().any(|o| matches!(*o, "w" | "r"))
                || ["root", "wd"]
                    .iter()
                    .any(|o| p.options.contains(o) && p.values_of(&[o]).next().is_none())
            {
                return (
                    None,
                    Some(format!(
                        "`{name}` runs the command in the target process's root or working directory, which is not known"
                    )),
                );
            }
            if p.options
                .iter()
                .any(|o| matches!(*o, "m" | "mount" | "a" | "all"))
            {
                return (
                    None,
                    Some(format!(
                        "`{name}` runs the command in another mount namespace, where its paths name other files"
                    )),
                );
            }
            let wd = p.values_of(&["wd"]).last().cloned();
            match p.values_of(&["root"]).last() {
                Some(r) if !is_root(r) => (wd, Some(other_root(r))),
                _ => (wd, None),
            }
        }
        // `sudo -D DIR`, `run0 --chdir=DIR`, `systemd-run
        // --working-directory=DIR` run the command in DIR.
        "sudo" => (p.values_of(&["D", "chdir"]).last().cloned(), None),
        "run0" => (p.values_of(&["chdir"]).last().cloned(), None),
        "systemd-run" => (p.values_of(&["working-directory"]).last().cloned(), None),
        _ => (None, None),
    }
}

/// The files a wrapper itself writes: the trace of `strace -o FILE` and
/// `ltrace -o FILE`, the statistics of `time -o FILE` (GNU time). A
/// `strace -o '|cmd'` or `'!cmd'` pipes the trace to a program: an unknown.
pub(crate) fn writes(name: &str, argv: &[Arg]) -> (Vec<Arg>, Option<String>) {
    let Some(&(_, short, long, _)) = tables::known(name).wrapper else {
        return (Vec::new(), None);
    };
    if !matches!(name, "strace" | "ltrace" | "time") {
        return (Vec::new(), None);
    }
    let p = parse_leading(argv, short, long);
    let mut files = Vec::new();
    let mut unknown = None;
    for v in p.values_of(&["o", "output"]) {
        if name == "strace" && v.text.starts_with(['|', '!']) {
            unknown = Some(format!(
                "`strace -o {}` pipes the trace to a program",
                v.text
            ));
            continue;
        }
        files.push(v.clone());
    }
    // `strace -ff -o FILE` writes one `FILE.PID` per process.
    let separate = p.options.iter().filter(|o| **o == "f").count() >= 2
        || p.options.iter().any(|o| o.starts_with("output-sep"));
    if name == "strace" && separate && !files.is_empty() {
        unknown = Some(
            "`strace -ff -o FILE` writes `FILE.PID` files whose names are known only when it runs"
                .into(),
        );
    }
    (files, unknown)
}

/// For a wrapper whose every option is known ([`tables::wrapper_flags`]),
/// the first option that is not: it might take the next word as its
/// value, and then the word taken for the command is not the one that
/// runs, so the command is unknown.
fn unknown_option(name: &str, p: &Parsed<'_>, short: &str, long: &[&str]) -> Option<String> {
    let (_, short_flags, long_flags) = tables::wrapper_flags(name)?;
    let known = |o: &&str| match o.len() {
        1 => short.contains(*o) || short_flags.contains(*o),
        _ => long.contains(o) || long_flags.contains(o),
    };
    let o = p.options.iter().find(|o| !known(o))?;
    let dashes = if o.len() == 1 { "-" } else { "--" };
    Some(format!(
        "`{name}` option `{dashes}{o}` is not known, so the command it runs is not either"
    ))
}

/// `env [OPTION].. [NAME=VALUE].. [COMMAND [ARG]..]`. `-S STRING` splits
/// STRING into words that are read in its place, options and assignments
/// included (`env -S 'GIT_PAGER=x git log'`).
fn env(argv: &[Arg]) -> Step {
    use std::collections::VecDeque;
    let mut words: VecDeque<Arg> = argv.iter().skip(1).cloned().collect();
    let mut wrapper = vec![argv[0].text.clone()];
    let mut cwd = None;
    let mut vars = Vec::new();
    let mut unknown = None;
    let mut options = true;
    while let Some(a) = words.pop_front() {
        let t = a.text.as_str();
        let option = a.literal && options && t.starts_with('-');
        // After its options, env(1) takes every word with a `=` before the
        // command for a variable, whatever its name
        // (`BASH_FUNC_ls%%=() { ..; }`, which a child bash defines as a
        // function); options end at the first of them.
        let assignment = t.split_once('=').filter(|_| a.literal && !option);
        if let Some((name, value)) = assignment {
            vars.push((name.to_string(), a.with_text(value)));
            wrapper.push(a.text.clone());
            options = false;
            continue;
        }
        if !option {
            words.push_front(a);
            break;
        }
        wrapper.push(a.text.clone());
        if t == "--" {
            options = false;
            continue;
        }
        // The options that take a value, long or short; a short one may
        // end a cluster (`-iS STRING`, `-iC/dir`).
        let found = if let Some(long) = t.strip_prefix("--") {
            // getopt_long takes an unambiguous abbreviation (`--u NAME` is
            // `--unset NAME`).
            let (given, attached) = match long.split_once('=') {
                Some((n, v)) => (n, v.to_string()),
                None => (long, String::new()),
            };
            match crate::effects::getopt_long(given, ENV_LONG) {
                Some(l @ ("chdir" | "unset" | "split-string" | "argv0")) => Some((l, attached)),
                Some(_) => None,
                None => {
                    if unknown.is_none() {
                        unknown = Some(format!(
                            "`env` option `--{given}` is not known, so the command it runs is not either"
                        ));
                    }
                    None
                }
            }
        } else {
            t[1..].char_indices().find_map(|(i, c)| {
                let name = match c {
                    'C' => "chdir",
                    'u' => "unset",
                    'S' => "split-string",
                    'a' => "argv0",
                    'P' => "path",
                    _ => return None,
                };
                Some((name, t[1 + i + c.len_utf8()..].to_string()))
            })
        };
        let Some((long, attached)) = found else {
            continue;
        };
        let value = if attached.is_empty() {
            let v = words.pop_front();
            if let Some(v) = &v {
                wrapper.push(v.text.clone());
            }
            v
        } else {
            Some(a.with_text(attached))
        };
        match (long, value) {
            ("chdir", v) => cwd = v,
            ("split-string", Some(v)) if v.literal => match shell_words::split(&v.text) {
                Ok(split) => {
                    for w in split.into_iter().rev() {
                        words.push_front(Arg::lit(w));
                    }
                }
                Err(_) => unknown = Some(format!("`env -S {}` cannot be split", v.text)),
            },
            ("split-string", Some(v)) => {
                unknown = Some(format!("`env -S` string is not literal: `{}`", v.text));
            }
            // BSD env's `-P ALTPATH` searches its own path for the command.
            ("path", _) => unknown = Some("`env -P` changes where programs are found".into()),
            _ => {}
        }
    }
    if words.is_empty() {
        return Step::None;
    }
    Step::Wrapper {
        wrapper,
        rest: words.into(),
        cwd,
        env: vars,
        unknown,
        xargs: None,
    }
}

/// GNU env's long options.
const ENV_LONG: &[&str] = &[
    "ignore-environment",
    "null",
    "unset",
    "chdir",
    "split-string",
    "block-signal",
    "default-signal",
    "ignore-signal",
    "list-signal-handling",
    "debug",
    "help",
    "version",
    "argv0",
];

fn xargs(argv: &[Arg]) -> Step {
    let mut i = 1;
    let mut replace = None;
    let mut unknown = None;
    while let Some(a) = argv.get(i) {
        let t = a.text.as_str();
        if !a.literal || !t.starts_with('-') {
            break;
        }
        i += 1;
        if t == "--" {
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            // `--eof`, `--replace` and `--max-lines` take their value only
            // after `=` (`xargs --max-lines rm x` runs `rm x ...`).
            let takes = [
                "arg-file",
                "delimiter",
                "max-args",
                "max-procs",
                "max-chars",
                "process-slot-var",
            ];
            let value = match value {
                Some(v) => Some(v),
                None if takes.contains(&name) => {
                    i += 1;
                    argv.get(i - 1).map(|a| a.text.clone())
                }
                None => None,
            };
            // getopt_long takes an abbreviation (`--proc` for
            // `--process-slot-var`, which takes the next word): only the
            // whole names are followed.
            const FLAGS: &[&str] = &[
                "eof",
                "replace",
                "max-lines",
                "interactive",
                "no-run-if-empty",
                "null",
                "open-tty",
                "verbose",
                "show-limits",
                "exit",
                "help",
                "version",
            ];
            if !takes.contains(&name) && !FLAGS.contains(&name) && unknown.is_none() {
                unknown = Some(format!(
                    "`xargs` option `--{name}` is not known, so the command it runs is not either"
                ));
            }
            // The variable it names is set, to a slot number, in the
            // environment of every command it runs: `PATH`, `LD_PRELOAD`,
            // `BASH_ENV` then name a program or library of the workspace
            // (`--process-slot-var=PATH ls` runs `./0/ls`).
            if name == "process-slot-var"
                && unknown.is_none()
                && value.as_deref().is_none_or(|v| {
                    v.is_empty()
                        || !v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                        || tables::changes_what_runs(v)
                })
            {
                unknown = Some(format!(
                    "`xargs --process-slot-var` sets `{}` for the command it runs, which changes what runs",
                    value.as_deref().unwrap_or("")
                ));
            }
            if name == "replace" {
                replace = Some(value.unwrap_or_else(|| "{}".into()));
            }
            if name == "arg-file" {
                unknown = Some("`xargs` reads its arguments from a file".into());
            }
            continue;
        }
        // A cluster of letters (`-0rP4`): flags, then at most one option
        // with a value, the rest of the word or the next one.
        let cluster = &t[1..];
        for (pos, c) in cluster.char_indices() {
            let attached = &cluster[pos + c.len_utf8()..];
            match c {
                'I' | 'a' | 'd' | 'E' | 'L' | 'n' | 'P' | 's' => {
                    let value = if attached.is_empty() {
                        i += 1;
                        argv.get(i - 1).map(|a| a.text.clone())
                    } else {
                        Some(attached.to_string())
                    };
                    if c == 'I' {
                        replace = value;
                    } else if c == 'a' {
                        unknown = Some("`xargs` reads its arguments from a file".into());
                    }
                    break;
                }
                // An optional value is the rest of the word only.
                'i' => {
                    replace = Some(if attached.is_empty() {
                        "{}".into()
                    } else {
                        attached.to_string()
                    });
                    break;
                }
                'e' | 'l' => break,
                '0' | 'o' | 'p' | 'r' | 't' | 'x' => {}
                _ => {
                    if unknown.is_none() {
                        unknown = Some(format!(
                            "`xargs` option `-{c}` is not known, so the command it runs is not either"
                        ));
                    }
                    break;
                }
            }
        }
    }
    let mut rest: Vec<Arg> = argv.get(i..).unwrap_or_default().to_vec();
    if rest.is_empty() {
        rest.push(Arg::lit("echo"));
    }
    if let Some(r) = &replace {
        for a in rest.iter_mut().skip(1) {
            if a.text.contains(r.as_str()) {
                a.literal = false;
            }
        }
    }
    Step::Wrapper {
        wrapper: texts(&argv[..i.min(argv.len())]),
        rest,
        cwd: None,
        env: Vec::new(),
        unknown,
        xargs: Some(replace),
    }
}

fn shell(argv: &[Arg]) -> Step {
    let mut i = 1;
    let mut has_c = false;
    let mut stdin = false;
    while let Some(a) = argv.get(i) {
        let t = a.text.as_str();
        if !a.literal || !(t.starts_with('-') || t.starts_with('+')) || t == "-" {
            break;
        }
        i += 1;
        if t == "--" {
            break;
        }
        match t {
            "--rcfile" | "--init-file" => i += 1,
            _ if t.starts_with("--") => {}
            _ => {
                // bash reads a cluster a letter at a time: each `o` or `O`
                // takes the next word as its value (`-euo pipefail -c`,
                // `-xeO extglob`), and the script of `-c` is the first word
                // after all the options.
                for c in t[1..].chars() {
                    match c {
                        'o' | 'O' => i += 1,
                        'c' if t.starts_with('-') => has_c = true,
                        's' if t.starts_with('-') => stdin = true,
                        _ => {}
                    }
                }
            }
        }
    }
    if has_c {
        return match argv.get(i) {
            Some(script) => Step::Shell {
                wrapper: texts(&argv[..i]),
                script: one(script),
            },
            None => Step::None,
        };
    }
    match argv.get(i) {
        Some(a) if !(stdin || a.literal && a.text == "-") => Step::Shell {
            wrapper: texts(&argv[..i]),
            script: Script::File(a.clone()),
        },
        _ => Step::Shell {
            wrapper: texts(&argv[..i.min(argv.len())]),
            script: Script::Stdin,
        },
    }
}

fn su(argv: &[Arg]) -> Step {
    let mut i = 1;
    while let Some(a) = argv.get(i) {
        let t = a.text.as_str();
        i += 1;
        if matches!(t, "-c" | "--command" | "--session-command") {
            return match argv.get(i) {
                Some(s) => Step::Shell {
                    wrapper: texts(&argv[..i]),
                    script: one(s),
                },
                None => Step::None,
            };
        }
        if let Some(s) = t.strip_prefix("--command=") {
            return Step::Shell {
                wrapper: texts(&argv[..i - 1]),
                script: Script::Text {
                    text: s.to_string(),
                    literal: a.literal,
                },
            };
        }
        if matches!(
            t,
            "-s" | "--shell"
                | "-g"
                | "--group"
                | "-G"
                | "--supp-group"
                | "-w"
                | "--whitelist-environment"
        ) {
            i += 1;
        }
    }
    Step::None
}

fn watch(argv: &[Arg]) -> Step {
    let mut i = 1;
    let mut exec = false;
    while let Some(a) = argv.get(i) {
        let t = a.text.as_str();
        if !a.literal || !t.starts_with('-') {
            break;
        }
        i += 1;
        match t {
            "-n" | "--interval" | "-q" | "--equexit" => i += 1,
            "-x" | "--exec" => exec = true,
            _ => {}
        }
    }
    let rest = argv.get(i..).unwrap_or_default();
    if rest.is_empty() {
        return Step::None;
    }
    if exec {
        return runs(&argv[..i], rest.to_vec(), None);
    }
    Step::Shell {
        wrapper: texts(&argv[..i]),
        script: joined(rest),
    }
}

/// The options of `argv` from index 1, parsed as getopt would with `short`
/// and `long` options taking a value: the index of the first operand, each
/// option seen (as written, without a value), and the values by option,
/// whether given in the next word or attached (`-ofile`, `--output=file`).
/// Parsing stops at the first operand or `--`.
struct Parsed<'a> {
    next: usize,
    options: Vec<&'a str>,
    values: Vec<(&'a str, Arg)>,
}

impl Parsed<'_> {
    /// The values given to any of `names` (short letters, long names).
    fn values_of<'s>(&'s self, names: &'s [&str]) -> impl Iterator<Item = &'s Arg> + 's {
        self.values
            .iter()
            .filter(move |(o, _)| names.contains(o))
            .map(|(_, v)| v)
    }
}

fn parse_leading<'a>(argv: &'a [Arg], short: &str, long: &[&str]) -> Parsed<'a> {
    let mut p = Parsed {
        next: 1,
        options: Vec::new(),
        values: Vec::new(),
    };
    while let Some(a) = argv.get(p.next) {
        let t = a.text.as_str();
        if !a.literal || !t.starts_with('-') || t == "-" {
            break;
        }
        p.next += 1;
        if t == "--" {
            break;
        }
        if let Some(l) = t.strip_prefix("--") {
            // A long option of one letter (`--e`, an abbreviation) is kept
            // with its dashes, so that it is not taken for the short one.
            let named = |opt: &'a str| if opt.len() == 1 { &t[..3] } else { opt };
            match l.split_once('=') {
                Some((opt, value)) => {
                    p.options.push(named(opt));
                    p.values.push((opt, a.with_text(value)));
                }
                None => {
                    p.options.push(named(l));
                    if long.contains(&l) {
                        if let Some(v) = argv.get(p.next) {
                            p.values.push((l, v.clone()));
                        }
                        p.next += 1;
                    }
                }
            }
            continue;
        }
        let cluster = &t[1..];
        for (pos, c) in cluster.char_indices() {
            let letter = &cluster[pos..pos + c.len_utf8()];
            p.options.push(letter);
            if short.contains(c) {
                let rest = &cluster[pos + c.len_utf8()..];
                if rest.is_empty() {
                    if let Some(v) = argv.get(p.next) {
                        p.values.push((letter, v.clone()));
                    }
                    p.next += 1;
                } else {
                    p.values.push((letter, a.with_text(rest)));
                }
                break;
            }
        }
    }
    p
}

/// `flock [OPTS] FILE CMD ARGS..` and `flock [OPTS] FILE -c CMD`; with a
/// descriptor or nothing after the file, it runs nothing.
fn flock(argv: &[Arg]) -> Step {
    const LONG: &[&str] = &["wait", "timeout", "conflict-exit-code"];
    let p = parse_leading(argv, "wE", LONG);
    if let Some(why) = unknown_option("flock", &p, "wE", LONG) {
        return opaque(argv, why);
    }
    let Some(cmd) = argv.get(p.next + 1) else {
        return Step::None;
    };
    if cmd.literal && matches!(cmd.text.as_str(), "-c" | "--command") {
        return match argv.get(p.next + 2) {
            Some(script) => Step::Shell {
                wrapper: texts(&argv[..p.next + 2]),
                script: one(script),
            },
            None => Step::None,
        };
    }
    Step::Wrapper {
        wrapper: texts(&argv[..p.next + 1]),
        rest: argv[p.next + 1..].to_vec(),
        cwd: None,
        env: Vec::new(),
        unknown: None,
        xargs: None,
    }
}

/// `script [OPTS] [FILE]` runs `-c CMD` in a shell, or else a shell that
/// reads its commands from standard input, and logs the session to FILE.
fn script(argv: &[Arg]) -> Step {
    let value_long = [
        "command",
        "echo",
        "log-in",
        "log-out",
        "log-io",
        "log-timing",
        "logging-format",
        "output-limit",
    ];
    let p = parse_leading(argv, "cEIOBTmo", &value_long);
    // The session log is a file written; where it goes is not an operand
    // toolgate follows through a wrapper, so anywhere but /dev/null makes
    // the command unknown.
    let log_opts = [
        "I",
        "O",
        "B",
        "T",
        "log-in",
        "log-out",
        "log-io",
        "log-timing",
    ];
    let logs_elsewhere = argv
        .get(p.next)
        .is_some_and(|f| !(f.literal && f.text == "/dev/null"))
        || p.values.iter().any(|(o, _)| log_opts.contains(o))
        || p.options.iter().any(|o| o.starts_with("log-"));
    if logs_elsewhere {
        return opaque(argv, "`script` writes its session log to a file".to_owned());
    }
    let command = p.values_of(&["c", "command"]).next();
    Step::Shell {
        wrapper: texts(argv),
        script: match command {
            Some(c) => one(c),
            None => Script::Stdin,
        },
    }
}

/// `at TIME` and `batch` run, later, the commands read from standard input
/// or from `-f FILE`; listing, showing and removing jobs runs nothing.
fn at(argv: &[Arg]) -> Step {
    let p = parse_leading(argv, "qftu", &[]);
    if p.options
        .iter()
        .any(|o| matches!(*o, "l" | "d" | "r" | "c" | "V" | "h" | "help" | "version"))
    {
        return Step::None;
    }
    let script = match p.values_of(&["f"]).next() {
        Some(file) => Script::File(file.clone()),
        None => Script::Stdin,
    };
    Step::Shell {
        wrapper: texts(argv),
        script,
    }
}

/// A wrapper (the words `wrapper`) that runs the command `rest` as it is:
/// no directory, variables or input of its own.
fn runs(wrapper: &[Arg], rest: Vec<Arg>, unknown: Option<String>) -> Step {
    Step::Wrapper {
        wrapper: texts(wrapper),
        rest,
        cwd: None,
        env: Vec::new(),
        unknown,
        xargs: None,
    }
}

/// The sqlite3 shell: its dot-commands run programs (`.shell`, `.system`),
/// read and write files (`.read`, `.output`, `.import`, `.open`, `.load`),
/// and so do SQL functions it adds (`readfile`, `writefile`, `edit`,
/// `load_extension`) and `ATTACH`. SQL given as arguments that uses none
/// of them is analysed as a program's arguments; anything else (commands
/// read from its input, `-cmd`, `-init`, `-A`) is not, unless `-safe`
/// turns all of that off. A database given as a `file:` URI is not
/// followed either (even with `-safe`).
fn sqlite3(argv: &[Arg]) -> Step {
    const VALUED: &[&str] = &[
        "-cmd",
        "-init",
        "-separator",
        "-newline",
        "-nullvalue",
        "-mmap",
        "-vfs",
        "-maxsize",
        "-nonce",
        "-escape",
    ];
    const TWO_VALUES: &[&str] = &["-lookaside", "-pagecache", "-heap"];
    const RISKY: &[&str] = &[
        "readfile",
        "writefile",
        "edit",
        "load_extension",
        "attach",
        "fts3_tokenizer",
    ];
    let mut i = 1;
    let mut safe = false;
    let mut why: Option<String> = None;
    while let Some(a) = argv.get(i) {
        let t = a.text.trim_start_matches('-');
        if !a.literal {
            why = Some(format!("`sqlite3` argument `{}` is not literal", a.text));
            break;
        }
        if !a.text.starts_with('-') {
            break;
        }
        let opt = format!("-{t}");
        if opt == "-safe" {
            safe = true;
        } else if matches!(opt.as_str(), "-cmd" | "-init" | "-A" | "-archive") {
            why = Some(format!(
                "`sqlite3 {opt}` runs commands or archive operations of its own"
            ));
            break;
        }
        i += if VALUED.contains(&opt.as_str()) {
            2
        } else if TWO_VALUES.contains(&opt.as_str()) {
            3
        } else {
            1
        };
    }
    // A database named by a URI (`file:DB?mode=rw`, `file:%2e/db`) is
    // opened at the path the URI decodes to, not at the word's text.
    if why.is_none()
        && let Some(db) = argv.get(i)
        && db
            .text
            .get(..5)
            .is_some_and(|p| p.eq_ignore_ascii_case("file:"))
    {
        why = Some(format!(
            "`sqlite3 {}` opens the database a URI names, which is not followed",
            db.text
        ));
    }
    let sql = argv.get(i + 1..).unwrap_or_default();
    if why.is_none() && !safe {
        if sql.is_empty() {
            why = Some("`sqlite3` reads its commands from its input".into());
        } else if let Some(a) = sql.iter().find(|a| {
            let lower = a.text.to_ascii_lowercase();
            !a.literal
                || a.text.trim_start().starts_with('.')
                || RISKY.iter().any(|r| lower.contains(r))
        }) {
            why = Some(format!(
                "`sqlite3` runs `{}`, whose dot-commands or functions may run programs or read and write files",
                a.text
            ));
        }
    }
    match why {
        Some(why) => opaque(argv, why),
        None => Step::None,
    }
}

/// A command toolgate does not follow into what it starts: `unknown`.
fn opaque(argv: &[Arg], unknown: String) -> Step {
    runs(argv, Vec::new(), Some(unknown))
}

/// A script given as one word (`-c SCRIPT`). A word that stands for the
/// names `find` selects (its `{}`) is not the text it is written as: the
/// names become the script (`find . -exec sh -c {} \;`).
fn one(a: &Arg) -> Script {
    Script::Text {
        text: a.text.clone(),
        literal: a.literal && !a.beneath,
    }
}

/// tmux commands that start a shell command or type into a pane; the
/// others (`ls`, `kill-session`, `capture-pane`, ...) run nothing. tmux
/// takes several commands separated by `;`, so every word is looked at.
fn tmux(argv: &[Arg]) -> Step {
    const RUNS: &[&str] = &[
        "new-session",
        "new",
        "new-window",
        "neww",
        "split-window",
        "splitw",
        "respawn-pane",
        "respawnp",
        "respawn-window",
        "respawnw",
        "run-shell",
        "run",
        "if-shell",
        "if",
        "pipe-pane",
        "pipep",
        "send-keys",
        "send",
        "display-popup",
        "popup",
        "source-file",
        "source",
        "command-prompt",
        "confirm-before",
        "confirm",
        "bind-key",
        "bind",
        "set-hook",
    ];
    let global_command = argv
        .get(1..)
        .unwrap_or_default()
        .iter()
        .take_while(|a| a.literal && a.text.starts_with('-'))
        .any(|a| a.text.starts_with("-c") || a.text.starts_with("-f"));
    let runs = argv
        .iter()
        .skip(1)
        .find(|a| !a.literal || RUNS.contains(&a.text.as_str()));
    match runs {
        Some(a) if a.literal => opaque(
            argv,
            format!(
                "`tmux {}` runs a command in a shell that is not analysed",
                a.text
            ),
        ),
        Some(_) => opaque(argv, "`tmux` with a command that is not literal".to_owned()),
        None if global_command => opaque(
            argv,
            "`tmux -c`/`-f` runs a command or a configuration".to_owned(),
        ),
        None => Step::None,
    }
}

/// `screen` runs the command it is given (or a shell) in a new window,
/// and `-X` sends a command to a running session; listing runs nothing.
fn screen(argv: &[Arg]) -> Step {
    let args = argv.get(1..).unwrap_or_default();
    let lists = args.iter().all(|a| {
        a.literal
            && matches!(
                a.text.as_str(),
                "-ls" | "-list" | "-q" | "-v" | "--version" | "-h" | "--help"
            )
    });
    if lists && !args.is_empty() {
        return Step::None;
    }
    opaque(
        argv,
        "`screen` runs a command or a shell that is not analysed".to_owned(),
    )
}

/// Debuggers and editors run commands given as options (`gdb -ex 'shell
/// CMD'`, `vim -c ':!CMD'`, `emacs --eval`), script files (`gdb -x`, `vim
/// -S`) or a program (`gdb --args PROG`, `lldb -- PROG`); vim in ex mode
/// (`-e`, `-es`) reads its commands from standard input.
fn debugger_or_editor(name: &str, argv: &[Arg]) -> Step {
    let args = argv.get(1..).unwrap_or_default();
    let runs = |t: &str| match name {
        "gdb" => {
            matches!(t, "-x" | "-ex" | "-ix" | "-iex" | "--args" | "-p" | "--pid")
                || [
                    "--command",
                    "--eval-command",
                    "--init-command",
                    "--init-eval-command",
                    "-batch",
                ]
                .iter()
                .any(|o| t.starts_with(o))
        }
        "lldb" => {
            matches!(
                t,
                "-o" | "-O" | "-k" | "-K" | "-s" | "-S" | "--" | "-p" | "-n" | "-b"
            ) || ["--one-line", "--source", "--batch", "--attach", "--file"]
                .iter()
                .any(|o| t.starts_with(o))
        }
        "emacs" => [
            "--eval",
            "-l",
            "--load",
            "-f",
            "--funcall",
            "--batch",
            "-batch",
            "--script",
            "-x",
        ]
        .iter()
        .any(|o| t == *o || t.starts_with(&format!("{o}="))),
        // vim and its names: commands to run, scripts to source, ex mode.
        _ => {
            t.starts_with('+')
                || matches!(
                    t,
                    "-c" | "-S"
                        | "-u"
                        | "-U"
                        | "-s"
                        | "-W"
                        | "-w"
                        | "--cmd"
                        | "-e"
                        | "-E"
                        | "-es"
                        | "-Es"
                        | "-y"
                )
                || t.starts_with("--cmd")
                || t.starts_with("--startuptime")
        }
    };
    match args.iter().find(|a| !a.literal || runs(&a.text)) {
        Some(a) => opaque(
            argv,
            format!("`{name} {}` runs commands that are not analysed", a.text),
        ),
        None => Step::None,
    }
}

//! Build and test tools the tables have no operands for (`cargo`, `go`,
//! `pytest`, `npm`): the options that make them write a place they are
//! told, run a program they are told, or load configuration that can.
//!
//! An allow such as `Bash(go test *)` is a permission to build and test.
//! `go test -coverprofile=.git/hooks/pre-commit`, `go build -o
//! /usr/local/bin/x`, `pytest --basetemp=/tmp/x` (which removes it first)
//! and `cargo build --target-dir=/elsewhere` write where that allow did not
//! name: each such write is judged as a redirect is (its target's rules,
//! the roots, else the policy's default). An option that hands the tool a
//! program to run (`go test -exec`, `npm test --script-shell`) or
//! configuration that can name one (`cargo --config`) is unanalysable.
//! Their other arguments are still looked at as a program's arguments.

use super::{Derived, runners};
use crate::tables::Access;
use crate::words::Arg;

/// What an option's value is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Value {
    /// A file written.
    Writes,
    /// A file written, whose name the option may be given (argparse's
    /// `nargs='?'`: the next word when it is not an option), else the
    /// default name here (`pytest --debug`, `pytestdebug.log`).
    WritesOr(&'static str),
    /// A directory written into.
    WritesInto,
    /// A directory removed and made again.
    Replaces,
    /// A file read.
    Reads,
    /// Names a program run, or configuration that may: the text says
    /// which.
    Runs(&'static str),
    /// pytest's `-o KEY=VALUE`: `cache_dir` is a directory written, any
    /// other key may change what runs (`addopts`).
    Ini,
    /// pytest-cov's `--cov-report TYPE[:PATH]`: the report written at
    /// `PATH` (a directory for `html`), or under its own name here.
    Cov,
    /// pytest's `--rootdir DIR`: read, and its cache (`.pytest_cache`,
    /// relative to the root) written there.
    Root,
    /// The URL of a package registry or index (`cargo --index`, `npm
    /// --registry`): a fetch of that URL, as curl's URLs are.
    Fetches,
}

use Value::{Cov, Fetches, Ini, Reads, Replaces, Root, Runs, Writes, WritesInto, WritesOr};

/// Go's flags, with one or two dashes, `-flag value` or `-flag=value`
/// (`go help build`, `go help testflag`); the test binary's own flags
/// also take the `test.` prefix. `-C DIR` (go 1.20) runs go in DIR, with
/// its `go.mod`, `go.work` and sources: a read of DIR, as `make -C`.
const GO: &[(&str, Value)] = &[
    ("C", Reads),
    ("o", Writes),
    ("coverprofile", Writes),
    ("cpuprofile", Writes),
    ("memprofile", Writes),
    ("blockprofile", Writes),
    ("mutexprofile", Writes),
    ("trace", Writes),
    ("testlogfile", Writes),
    ("outputdir", WritesInto),
    ("fuzzcachedir", WritesInto),
    ("gocoverdir", WritesInto),
    ("modfile", Reads),
    ("pgo", Reads),
    (
        "exec",
        Runs("runs the test binary through the program it names"),
    ),
    (
        "toolexec",
        Runs("runs every build tool through the program it names"),
    ),
    ("vettool", Runs("runs the program it names as the vet tool")),
    (
        "overlay",
        Runs("replaces source files with the files a JSON file names"),
    ),
    ("compiler", Runs("chooses the compiler that runs")),
];

/// Go's flags that take no value (anything else is taken to take one).
const GO_BOOLEANS: &[&str] = &[
    "a",
    "n",
    "v",
    "x",
    "race",
    "msan",
    "asan",
    "cover",
    "i",
    "json",
    "short",
    "failfast",
    "benchmem",
    "linkshared",
    "modcacherw",
    "trimpath",
    "work",
    "buildvcs",
    "c",
    "fullpath",
    "paniconexit0",
];

/// cargo's options (`cargo help build`, `cargo help config`).
const CARGO: &[(&str, Value)] = &[
    ("--target-dir", WritesInto),
    ("--artifact-dir", WritesInto),
    ("--out-dir", WritesInto),
    ("--root", WritesInto),
    ("--manifest-path", Reads),
    ("--sync", Reads),
    ("--lockfile-path", Writes),
    // `cargo search --index sparse+http://HOST/`, `publish --index URL`:
    // the registry cargo talks to; `--registry NAME`, one whose URL (and
    // credential provider, a program) cargo's configuration holds.
    ("--index", Fetches),
    (
        "--registry",
        Runs("names a registry whose URL and credential provider cargo's configuration holds"),
    ),
    (
        "--config",
        Runs(
            "sets configuration, which can name the programs cargo runs (`runner`, `rustc-wrapper`, `linker`)",
        ),
    ),
];

/// pytest's options (`pytest --help`); `--basetemp` is removed when it
/// exists.
const PYTEST: &[(&str, Value)] = &[
    ("--basetemp", Replaces),
    ("--junitxml", Writes),
    ("--junit-xml", Writes),
    ("--result-log", Writes),
    ("--resultlog", Writes),
    ("--report-log", Writes),
    ("--log-file", Writes),
    ("--html", Writes),
    ("--debug", WritesOr("pytestdebug.log")),
    ("-c", Reads),
    ("--config-file", Reads),
    ("--confcutdir", Reads),
    ("--rootdir", Root),
    ("-o", Ini),
    ("--override-ini", Ini),
    (
        "--pastebin",
        Runs("sends the test session's output to a pastebin service"),
    ),
    // pytest-xdist's gateways: `popen//python=PROGRAM`, `ssh=HOST`.
    (
        "--tx",
        Runs(
            "names the gateways xdist starts, which can name the program or host that runs the tests",
        ),
    ),
    ("--cov-report", Cov),
];

/// pytest's options that take the next word as their value (`pytest
/// --help`, with pytest-cov's, xdist's and the timeout and rerun plugins'),
/// so that it is not taken for a test path.
const PYTEST_VALUED: &[&str] = &[
    "-k",
    "-m",
    "-p",
    "-c",
    "-o",
    "-W",
    "-r",
    "-n",
    "--maxfail",
    "--deselect",
    "--ignore",
    "--ignore-glob",
    "--rootdir",
    "--basetemp",
    "--confcutdir",
    "--junitxml",
    "--junit-xml",
    "--junit-prefix",
    "--tb",
    "--durations",
    "--durations-min",
    "--log-level",
    "--log-file",
    "--log-cli-level",
    "--log-format",
    "--log-date-format",
    "--log-file-level",
    "--log-file-format",
    "--log-file-date-format",
    "--import-mode",
    "--capture",
    "--cov",
    "--cov-report",
    "--cov-config",
    "--cov-fail-under",
    "--dist",
    "--timeout",
    "--color",
    "--code-highlight",
    "--show-capture",
    "--verbosity",
    "--override-ini",
    "--config-file",
    "--html",
    "--report-log",
    "--result-log",
    "--resultlog",
    "--pastebin",
    "--doctest-glob",
    "--doctest-report",
    "--reruns",
    "--maxprocesses",
    "--numprocesses",
    "--tx",
    "--rsyncdir",
    "--deselect",
    "--keyword",
    "--markers",
    "--plugin",
    "--tb",
];

/// pytest's options whose value is optional (argparse's `nargs='?'`):
/// the next word is theirs when it does not start with `-`.
const PYTEST_OPTIONAL: &[&str] = &["--debug"];

/// pytest's operands are the files and directories whose tests it
/// imports and runs (`tests/t.py::TestA::test_b` names `tests/t.py`):
/// each is read, beneath a directory as well, so that one outside the
/// roots (`pytest ../other`) or a denied file is judged as a read of it.
fn pytest_operands(args: &[Arg], d: &mut Derived) {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        if a.literal && t == "--" {
            for a in it.by_ref() {
                pytest_operand(a, d);
            }
            break;
        }
        if a.literal && t.starts_with('-') && t != "-" {
            let optional = || {
                PYTEST_OPTIONAL.contains(&t)
                    && it
                        .as_slice()
                        .first()
                        .is_some_and(|n| !n.text.starts_with('-'))
            };
            if PYTEST_VALUED.contains(&t) || optional() {
                it.next();
            }
            continue;
        }
        pytest_operand(a, d);
    }
}

fn pytest_operand(a: &Arg, d: &mut Derived) {
    let path = a.text.split_once("::").map_or(a.text.as_str(), |(p, _)| p);
    if !path.is_empty() {
        d.add(Access::Read, &a.with_text(path), true);
    }
}

/// npm's options (`npm help config`).
const NPM: &[(&str, Value)] = &[
    ("--cache", WritesInto),
    ("--logs-dir", WritesInto),
    ("--prefix", Reads),
    // The registry every package is fetched from (`--reg` is npm's
    // shorthand, and a start of the name is taken for it).
    ("--registry", Fetches),
    // npm's shorthand of `--prefix` (`npm help config`: "prefix ... Alias:
    // -C"), and pnpm's of `--dir`.
    ("-C", Reads),
    (
        "--userconfig",
        Runs("reads configuration, which can name the shell scripts run in"),
    ),
    (
        "--globalconfig",
        Runs("reads configuration, which can name the shell scripts run in"),
    ),
    (
        "--script-shell",
        Runs("runs the package's scripts with the program it names"),
    ),
    (
        "--node-options",
        Runs("hands options to every node it runs, which can load code"),
    ),
    (
        "--shell",
        Runs("runs the program it names for `exec -c` and `explore`"),
    ),
    ("--editor", Runs("runs the program it names as the editor")),
    (
        "--browser",
        Runs("runs the program it names as the browser"),
    ),
    ("--viewer", Runs("runs the program it names to show help")),
    ("--git", Runs("runs the program it names as git")),
    (
        "--node-gyp",
        Runs("runs the program it names to build native modules"),
    ),
    (
        "--init-module",
        Runs("runs the JavaScript file it names for `init`"),
    ),
];

/// pnpm's options beyond npm's (`pnpm help`, pnpm's `.npmrc` settings):
/// `--dir` is the long form of `-C`.
const PNPM: &[(&str, Value)] = &[
    ("--dir", Reads),
    ("--store-dir", WritesInto),
    ("--virtual-store-dir", WritesInto),
    ("--modules-dir", WritesInto),
    ("--global-dir", WritesInto),
    ("--global-bin-dir", WritesInto),
    ("--cache-dir", WritesInto),
    ("--state-dir", WritesInto),
    (
        "--pnpmfile",
        Runs("loads the JavaScript file it names, whose hooks run"),
    ),
    (
        "--global-pnpmfile",
        Runs("loads the JavaScript file it names, whose hooks run"),
    ),
    (
        "--config-dir",
        Runs("reads configuration, which can name the shell scripts run in"),
    ),
    ("--npm-path", Runs("runs the program it names as npm")),
];

/// yarn's options, classic's (`yarn --help`) and berry's `--cwd`, exactly
/// as written (neither takes a start of a name or more dashes).
const YARN: &[(&str, Value)] = &[
    ("--cwd", Reads),
    ("--cache-folder", WritesInto),
    ("--preferred-cache-folder", WritesInto),
    ("--global-folder", WritesInto),
    ("--link-folder", WritesInto),
    ("--modules-folder", WritesInto),
    ("--registry", Fetches),
    (
        "--use-yarnrc",
        Runs("reads configuration, which can name the shell scripts run in"),
    ),
];

/// bun's options: `--cwd DIR` runs it in DIR, with DIR's `package.json`
/// and `bunfig.toml`.
const BUN: &[(&str, Value)] = &[("--cwd", Reads)];

/// The single-letter shorthands of npm's option parser (`npm help
/// config`, `@npmcli/config`'s definitions), with pnpm's `-r` and `-F`: a
/// word of only these letters is a cluster of them (`-sC DIR` is `-s -C
/// DIR`), however many dashes it has.
const NPM_SINGLES: &str = "acfgLlmpCSBDEOPHhvwydqsnrF?";

/// npm's and pnpm's names that start names in the tables (`--global`,
/// `--globalconfig`): each is itself, never a start of another.
const NPM_WHOLE: &[&str] = &["global", "ca", "cache"];

/// npm's names that are made of those letters but are names (or
/// shorthands) of their own, not clusters.
const NPM_NOT_CLUSTERS: &[&str] = &["all", "ca", "call", "dd", "ddd", "ws"];

/// npm's and pnpm's words as their option parser (nopt) reads them, with
/// each option spelt as the tables spell it: nopt takes off every
/// leading dash (`---prefix=DIR` and `-prefix=DIR` are `--prefix=DIR`,
/// `--C DIR` is `-C DIR`), expands a cluster of one-letter shorthands
/// (`-gC DIR`), and takes off `no-` (in any case) as often as it is
/// given, an odd count negating a flag (`--no-no-global` is `--global`)
/// while an option whose value is text still takes its value
/// (`--no-script-shell=X` sets it to X; kept as `--no-X`, which
/// [`table`] reads as X). A run of dashes alone ends the options; the
/// words after it are the script's.
fn npm_words(args: &[Arg]) -> Vec<Arg> {
    let mut out = Vec::with_capacity(args.len());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        if !a.literal || !t.starts_with('-') || t.len() == 1 {
            out.push(a.clone());
            continue;
        }
        if t.bytes().all(|b| b == b'-') {
            out.push(a.with_text("--"));
            out.extend(it.cloned());
            break;
        }
        let (key, inline) = match t.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (t, None),
        };
        let name = key.trim_start_matches('-');
        let with = |option: String| match inline {
            Some(v) => a.with_text(format!("{option}={v}")),
            None => a.with_text(option),
        };
        if name.chars().count() == 1 {
            out.push(with(format!("-{name}")));
            continue;
        }
        if !name.is_empty()
            && name.chars().all(|c| NPM_SINGLES.contains(c))
            && !NPM_NOT_CLUSTERS.contains(&name)
        {
            out.extend(name.chars().map(|c| a.with_text(format!("-{c}"))));
            out.extend(inline.map(|v| a.with_text(v)));
            continue;
        }
        let mut bare = name;
        let mut negated = false;
        while bare.get(..3).is_some_and(|p| p.eq_ignore_ascii_case("no-")) {
            bare = &bare[3..];
            negated = !negated;
        }
        if bare.is_empty() {
            out.push(a.clone());
        } else if negated {
            out.push(with(format!("--no-{bare}")));
        } else {
            out.push(with(format!("--{bare}")));
        }
    }
    out
}

/// pnpm's `--config.KEY=VALUE` sets any configuration key
/// (`--config.script-shell=X`, in any case and spelling of the key).
fn pnpm_config(words: &[Arg], d: &mut Derived) {
    for a in words {
        if !a.literal {
            continue;
        }
        if a.text == "--" {
            break;
        }
        let body = a.text.strip_prefix("--").unwrap_or(&a.text);
        let body = body.strip_prefix("no-").unwrap_or(body);
        if body
            .get(..7)
            .is_some_and(|c| c.eq_ignore_ascii_case("config."))
        {
            d.unknowns.push(format!(
                "`pnpm {}` sets configuration, which can name the programs pnpm runs (`script-shell`, `node-options`)",
                a.text
            ));
        }
    }
}

/// The writes, reads and unanalysable options of a build or test tool;
/// false when `name` is not one.
pub(super) fn builders(name: &str, args: &[Arg], d: &mut Derived) -> bool {
    match name {
        "go" => {
            go_subcommand(args, d);
            go(args, d);
        }
        "make" | "gmake" | "bmake" => make(args, d),
        "yarn" => {
            runners::runner(name, args, d);
            package_manager(name, args, d);
            table(name, YARN, args, d);
        }
        "npx" | "bunx" | "pnpx" | "uvx" | "poetry" | "pipx" | "bundle" => {
            runners::runner(name, args, d);
        }
        "uv" => {
            runners::runner(name, args, d);
        }
        "pip" | "pip3" => pip(args, d),
        "cargo" => {
            cargo(args, d);
            table("cargo", CARGO, args, d);
        }
        "pytest" | "py.test" => {
            table(name, PYTEST, args, d);
            pytest_operands(args, d);
        }
        _ if is_python(name) => match python_module(args) {
            Some(("pytest", rest)) => {
                table("pytest", PYTEST, rest, d);
                pytest_operands(rest, d);
            }
            Some(("pip", rest)) => pip(rest, d),
            _ => return false,
        },
        "npm" | "pnpm" => {
            runners::runner(name, args, d);
            let words = npm_words(args);
            package_manager(name, &words, d);
            table(name, NPM, &words, d);
            if name == "pnpm" {
                table(name, PNPM, &words, d);
                pnpm_config(&words, d);
            }
        }
        "bun" => table(name, BUN, args, d),
        _ => return false,
    }
    true
}

/// cargo's subcommands that reach past the package (`cargo help`): a
/// package made or vendored where a path says (judged as a redirect is:
/// the allow of cargo does not name where), programs installed where
/// every later shell finds them, the registry token changed, and `-C`, which runs cargo (and so the build scripts and
/// configuration) of another directory.
fn cargo(args: &[Arg], d: &mut Derived) {
    let mut i = 0;
    let mut sub = None;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if !a.literal {
            d.unknowns
                .push(format!("cargo subcommand is not literal: `{t}`"));
            return;
        }
        if t.starts_with("-C") {
            d.unknowns.push(
                "`cargo -C` runs cargo in another directory, with its build scripts and configuration"
                    .into(),
            );
            return;
        }
        if !t.starts_with(['-', '+']) {
            sub = Some(t);
            break;
        }
        i += if matches!(t, "-Z" | "--config" | "--color" | "--explain") {
            2
        } else {
            1
        };
    }
    let Some(sub) = sub else { return };
    let rest = args.get(i + 1..).unwrap_or_default();
    // Options of `new`, `init` and `vendor` that take a value.
    let operands = || {
        super::parse_opts(
            rest,
            "s",
            &[
                "name",
                "vcs",
                "edition",
                "registry",
                "sync",
                "manifest-path",
            ],
            &[],
        )
        .operands
    };
    let flag = |f: &str| rest.iter().any(|a| a.literal && a.text == f);
    match sub {
        // The package's directory is made as `mkdir` makes one.
        "new" | "init" => {
            if let Some(dir) = operands().first() {
                d.add_by_option(Access::Write, dir, false);
            }
        }
        // The vendor directory is emptied and filled again.
        "vendor" => match operands().first() {
            Some(dir) => d.add_by_option(Access::WriteDir, dir, true),
            None => d.add_by_option(Access::WriteDir, &Arg::lit("vendor"), true),
        },
        "install" if flag("--list") => {}
        "install" | "uninstall" => d.unknowns.push(format!(
            "`cargo {sub}` changes the programs in cargo's `bin` directory, which every later shell runs outside the gate"
        )),
        "login" | "logout" => d.unknowns.push(format!(
            "`cargo {sub}` changes the registry token in cargo's credentials"
        )),
        // A dry run packages and builds without uploading; a listing of
        // the owners changes nothing.
        "publish" if flag("--dry-run") || flag("-n") => {}
        "owner" if flag("--list") || flag("-l") => {}
        // What is published (and yanked, and who owns it) on a registry
        // lies outside the workspace, under the registry token.
        "publish" | "yank" | "owner" => d.unknowns.push(format!(
            "`cargo {sub}` changes what a registry serves, with the registry token"
        )),
        // The package's Rust sources are rewritten (formatted, or fixed as
        // the compiler or clippy suggests): a write of every `.rs` file
        // beneath. It is what the subcommand is for, so an allow of it
        // covers it where no rule on the files says otherwise.
        "fmt" if !flag("--check") => rewrites_rust_sources(d),
        "fix" => rewrites_rust_sources(d),
        "clippy" if rest.iter().any(|a| a.literal && a.text.starts_with("--fix")) => {
            rewrites_rust_sources(d);
        }
        // What follows `--` is the compiler's, rustdoc's or (clippy)
        // clippy-driver's own command line: `@FILE` reads a file into it,
        // `-o` writes anywhere, `-C linker=` runs a program.
        "rustc" | "rustdoc" | "clippy" => {
            if let Some(compiler) = after_dashes(rest) {
                compiler_options(sub, compiler, d);
            }
        }
        // The test harness's options: `--logfile` writes where it says.
        "test" | "t" | "bench" => {
            if let Some(harness) = after_dashes(rest) {
                let o = super::parse_opts(
                    harness,
                    "",
                    &[
                        "logfile",
                        "test-threads",
                        "skip",
                        "color",
                        "format",
                        "shuffle-seed",
                        "report-time",
                    ],
                    &[],
                );
                for f in o.values(&["--logfile"]) {
                    d.add_by_option(Access::Write, f, false);
                }
            }
        }
        _ => {}
    }
}

/// A registry's or index's URL (cargo's `sparse+` prefix taken off): a
/// fetch of it, judged as curl's URLs are; a path, a `file:` URL or a
/// word that is not a URL is unanalysable.
fn index_url(tool: &str, option: &str, value: &Arg, d: &mut Derived) {
    let url = value
        .text
        .strip_prefix("sparse+")
        .or_else(|| value.text.strip_prefix("registry+"))
        .unwrap_or(&value.text);
    let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
    if !value.literal || matches!(scheme.as_deref(), Some("http" | "https" | "ssh" | "git")) {
        d.add(Access::Fetch, &value.with_text(url), false);
    } else {
        d.unknowns.push(format!(
            "`{tool} {option} {}` names a registry that is not a URL fetched over the network",
            value.text
        ));
    }
}

/// Whether the text of a `rust-toolchain.toml` (or of a `rust-toolchain`
/// in the same form) sets `path`, a custom toolchain's directory, whose
/// `bin/cargo` and `bin/rustc` rustup then runs: a `path` key of any
/// table, however written (`path=`, `"path" =`, `toolchain.path =`).
pub(crate) fn toolchain_names_path(text: &str) -> bool {
    text.lines().any(|line| {
        let key = line.split('=').next().unwrap_or("");
        line.contains('=')
            && key
                .rsplit('.')
                .next()
                .is_some_and(|k| k.trim().trim_matches(['"', '\'']) == "path")
    })
}

/// `python`, `python3`, `python3.12`.
fn is_python(name: &str) -> bool {
    name.strip_prefix("python")
        .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

/// The module `python -m MODULE ARGS` runs, and its arguments: python's
/// own options come first (`-B`, `-u`, `-X dev`, `-W error`), and `-m`
/// may end a cluster of them (`-Bm pytest`) or hold the name
/// (`-mpytest`). `-c` (code) and a script end the options with no module.
fn python_module(args: &[Arg]) -> Option<(&str, &[Arg])> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if !a.literal || !t.starts_with('-') || t == "-" || t == "--" {
            return None;
        }
        if t.starts_with("--") {
            i += if t == "--check-hash-based-pycs" { 2 } else { 1 };
            continue;
        }
        for (at, c) in t.char_indices().skip(1) {
            let rest = &t[at + 1..];
            match c {
                'm' => {
                    return if rest.is_empty() {
                        let m = args.get(i + 1).filter(|m| m.literal)?;
                        Some((m.text.as_str(), args.get(i + 2..).unwrap_or_default()))
                    } else {
                        Some((rest, args.get(i + 1..).unwrap_or_default()))
                    };
                }
                'c' => return None,
                'W' | 'X' => {
                    if rest.is_empty() {
                        i += 1;
                    }
                    break;
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

/// The options `cargo rustc --`, `cargo rustdoc --` and `cargo clippy --`
/// hand the compiler:
/// lint levels, `--cfg`, `--edition`, `-O`, `-g` and the code generation
/// settings that name no file or program pass; a plain word is an input
/// file (read), `--extend-css FILE` too. Anything else (`@FILE` reads a
/// file into the command line, `-o`/`--out-dir` write, `-C linker=` and
/// `link-arg` run or hand a program options, `-Z` flags dump files) is
/// unanalysable.
fn compiler_options(sub: &str, words: &[Arg], d: &mut Derived) {
    const VALUED: &[&str] = &[
        "-A",
        "-W",
        "-D",
        "-F",
        "--allow",
        "--warn",
        "--deny",
        "--forbid",
        "--cap-lints",
        "--cfg",
        "--check-cfg",
        "--edition",
        "--crate-type",
        "--crate-name",
        "--target",
    ];
    const FLAGS: &[&str] = &[
        "-O",
        "-g",
        "--test",
        "--document-private-items",
        "-v",
        "--verbose",
    ];
    const CODEGEN: &[&str] = &[
        "opt-level",
        "target-cpu",
        "target-feature",
        "debuginfo",
        "codegen-units",
        "lto",
        "panic",
        "overflow-checks",
        "debug-assertions",
        "strip",
        "relocation-model",
        "force-frame-pointers",
        "embed-bitcode",
        "code-model",
        "split-debuginfo",
    ];
    const UNSTABLE: &[&str] = &["print-type-sizes", "time-passes", "macro-backtrace"];
    let mut it = words.iter();
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        let ok = if !a.literal {
            false
        } else if !t.starts_with('-') {
            if t.starts_with('@') {
                false
            } else {
                d.add(Access::Read, a, false);
                true
            }
        } else if FLAGS.contains(&t) {
            true
        } else if VALUED.contains(&t) {
            it.next().is_some_and(|v| v.literal)
        } else if let Some(v) = t.strip_prefix("-C").filter(|v| !v.is_empty()) {
            CODEGEN.contains(&v.split('=').next().unwrap_or(""))
        } else if let Some(v) = t.strip_prefix("-Z").filter(|v| !v.is_empty()) {
            UNSTABLE.contains(&v.split('=').next().unwrap_or(""))
        } else if let Some((name, _)) = t.split_once('=') {
            VALUED.contains(&name)
        } else if let Some(v) = VALUED
            .iter()
            .find_map(|o| (o.len() == 2).then(|| t.strip_prefix(o)).flatten())
        {
            !v.is_empty()
        } else if t == "-C" || t == "--codegen" || t == "-Z" {
            let allowed = if t == "-Z" { UNSTABLE } else { CODEGEN };
            it.next().is_some_and(|v| {
                v.literal && allowed.contains(&v.text.split('=').next().unwrap_or(""))
            })
        } else if t == "--extend-css" && sub == "rustdoc" {
            it.next().is_some_and(|v| {
                d.add(Access::Read, v, false);
                true
            })
        } else {
            false
        };
        if !ok {
            d.unknowns.push(format!(
                "`cargo {sub} --` hands the compiler `{t}`, an option that is not followed (it may read, write or run what it names)"
            ));
            return;
        }
    }
}

/// The words after the first `--`, if there is one.
fn after_dashes(rest: &[Arg]) -> Option<&[Arg]> {
    let at = rest.iter().position(|a| a.literal && a.text == "--")?;
    rest.get(at + 1..)
}

/// A write of every Rust source file beneath the working directory
/// (`cargo fmt`, `cargo fix`, `cargo clippy --fix`), as an operand's: the
/// rules on those files judge it, and with none the command's decision.
fn rewrites_rust_sources(d: &mut Derived) {
    let mut sources = Arg::lit(".");
    sources.beneath = true;
    sources.filter = Some(super::Filter {
        files: super::NameTest::Glob {
            pattern: "*.rs".into(),
            fold: false,
        },
        dirs: super::NameTest::Any,
        split: false,
        ignores: None,
    });
    d.add(Access::Write, &sources, false);
}

/// The first word that is not an option (nor the value of one of
/// `valued`), and the words after it.
fn subcommand<'a>(args: &'a [Arg], valued: &[&str]) -> Option<(&'a Arg, &'a [Arg])> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if !a.literal || !a.text.starts_with('-') {
            return Some((a, &args[i + 1..]));
        }
        i += if valued.contains(&a.text.as_str()) {
            2
        } else {
            1
        };
    }
    None
}

/// Whether one of `names` is among `args`, as `--name`, `--name=..` or a
/// one-letter flag.
fn has_flag(args: &[Arg], names: &[&str]) -> bool {
    args.iter().any(|a| {
        a.literal && {
            let name = a.text.split('=').next().unwrap_or(&a.text);
            names.contains(&name)
        }
    })
}

/// `go env -w` writes go's environment file, which every later `go`
/// reads (`GOFLAGS=-toolexec=..` names a program); `go install` puts
/// programs in `GOBIN`, where later shells run them; `go clean -cache`
/// and `-modcache` remove go's caches outside the workspace.
fn go_subcommand(args: &[Arg], d: &mut Derived) {
    let Some((sub, rest)) = subcommand(args, &["-C"]) else {
        return;
    };
    let why = match sub.text.as_str() {
        "env" if has_flag(rest, &["-w", "-u", "--w", "--u"]) => {
            "`go env -w` changes go's environment file, which every later `go` reads (`GOFLAGS` can name programs it runs)"
        }
        "install" => "`go install` puts programs in `GOBIN`, where later shells run them",
        "clean"
            if has_flag(
                rest,
                &["-cache", "-modcache", "-fuzzcache", "--cache", "--modcache"],
            ) =>
        {
            "`go clean -cache`/`-modcache` removes go's caches outside the workspace"
        }
        _ => return,
    };
    d.unknowns.push(why.into());
}

/// `make -f FILE` reads (and runs the recipes of) the makefile it
/// names, and `make -C DIR` those of DIR's makefile: each a read of what
/// it names, so that one outside the roots, or denied, is not run as
/// the allow of `make` says. `-I DIR` (`--include-dir`) is a directory
/// make searches for the makefiles `include`, `-include` and `MAKEFILES`
/// name: a read of DIR too.
fn make(args: &[Arg], d: &mut Derived) {
    // GNU make's options that take a value (`make --help`): a short one
    // takes the rest of its cluster (`-spf.env` reads `.env`), or the next
    // word; `-j`, `-l` and `-O` take one only when attached.
    const VALUED: &str = "CEfIoW";
    const OPTIONAL: &str = "jlO";
    let read = |d: &mut Derived, v: &Arg| {
        if !(v.literal && v.text == "-") {
            d.add(Access::Read, v, false);
        }
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        if !a.literal {
            continue;
        }
        if t == "--" {
            break;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, inline) = match long.split_once('=') {
                Some((n, v)) => (n, Some(a.with_text(v))),
                None => (long, None),
            };
            // getopt_long takes any unambiguous start of a name.
            let is = |full: &str, least: usize| name.len() >= least && full.starts_with(name);
            let reads =
                is("file", 1) || is("makefile", 3) || is("directory", 2) || is("include-dir", 2);
            let valued = reads
                || is("old-file", 2)
                || is("assume-old", 8)
                || is("what-if", 1)
                || is("new-file", 2)
                || is("assume-new", 8)
                || is("eval", 2);
            let value = match inline {
                Some(v) => Some(v),
                None if valued => it.next().cloned(),
                None => None,
            };
            if reads && let Some(v) = value {
                read(d, &v);
            }
            continue;
        }
        if let Some(cluster) = t.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (at, c) in cluster.char_indices() {
                let rest = &cluster[at + c.len_utf8()..];
                if OPTIONAL.contains(c) {
                    break;
                }
                if VALUED.contains(c) {
                    let value = if rest.is_empty() {
                        it.next().cloned()
                    } else {
                        Some(a.with_text(rest))
                    };
                    if matches!(c, 'f' | 'C' | 'I')
                        && let Some(v) = value
                    {
                        read(d, &v);
                    }
                    break;
                }
            }
            continue;
        }
        // A variable given on the command line: `MAKEFILES` names more
        // makefiles to read, `MAKEFLAGS` more options.
        if let Some((var, value)) = t.split_once('=') {
            match var.trim_end_matches([':', '+', '?', '!']) {
                "MAKEFILES" => {
                    for f in value.split_whitespace() {
                        read(d, &a.with_text(f));
                    }
                }
                "MAKEFLAGS" | "MFLAGS" | "GNUMAKEFLAGS" => d.unknowns.push(format!(
                    "`make {var}=..` gives make options that are not followed"
                )),
                // Any other variable overrides the makefile's, and may be
                // a command or a flag its recipes run with (`make RM='touch
                // P' clean`, `.SHELLFLAGS=`, `CFLAGS=-wrapper ..`): only a
                // plain number or yes/no word (`V=1`) leaves them as written.
                name => {
                    if !crate::environ::make_keeps_recipes(name, Some(value)) {
                        d.unknowns.push(format!(
                            "`make {name}=..` overrides a variable of the makefile, which may change the commands its recipes run"
                        ));
                    }
                }
            }
        }
    }
}

/// npm, pnpm and yarn: what changes more than the package. A global
/// install or link (`-g`) changes packages, and the programs on `PATH`,
/// outside the workspace; `config set` changes the configuration every
/// later npm reads (`script-shell`, the registry); the registry
/// credentials (`login`, `token`, `profile`). Publishing, like `git push`,
/// is the allow's to decide, so that a rule written for it does;
/// `edit` runs an editor, `explore` and `exec -c` a shell command; `pack
/// --pack-destination` writes where it names.
fn package_manager(tool: &str, args: &[Arg], d: &mut Derived) {
    let Some((sub, rest)) = subcommand(
        args,
        &[
            "-w",
            "--workspace",
            "-C",
            "--dir",
            "--filter",
            "-F",
            "--prefix",
            "--cwd",
            "-L",
            "--location",
            "--registry",
            "--reg",
            "--cache",
            "--userconfig",
            "--globalconfig",
            "--loglevel",
        ],
    ) else {
        return;
    };
    let sub = sub.text.as_str();
    // npm's `--location` (`-L`), also as a start of its name from
    // `--locat`, and with `no-`, whose value npm still takes.
    let location = |t: &str| {
        t == "-L"
            || t.strip_prefix("--")
                .map(|b| b.strip_prefix("no-").unwrap_or(b))
                .is_some_and(|b| b.len() >= 5 && "location".starts_with(b))
    };
    let global = args.iter().enumerate().any(|(i, a)| {
        a.literal
            && (matches!(a.text.as_str(), "-g" | "--global")
                || a.text
                    .split_once('=')
                    .is_some_and(|(k, v)| v == "global" && location(k))
                || (location(&a.text) && args.get(i + 1).is_some_and(|n| n.text == "global")))
    });
    let first = rest
        .iter()
        .find(|a| !a.text.starts_with('-'))
        .map(|a| a.text.as_str());
    // A runner's own options: those before the command it runs.
    let runner_options = &rest[..rest
        .iter()
        .position(|a| !(a.literal && a.text.starts_with('-')))
        .unwrap_or(rest.len())];
    let why = match sub {
        _ if global => format!(
            "`{tool} {sub} -g` changes packages, and the programs on `PATH`, outside the workspace"
        ),
        "global" => format!(
            "`{tool} global` changes packages, and the programs on `PATH`, outside the workspace"
        ),
        "config" | "c" if matches!(first, Some("set" | "delete" | "edit" | "fix" | "unset")) => {
            format!(
                "`{tool} config` changes the configuration every later `{tool}` reads (the registry, the shell scripts run in)"
            )
        }
        "set" => format!(
            "`{tool} set` changes the configuration every later `{tool}` reads (the registry, the shell scripts run in)"
        ),
        "login" | "logout" | "adduser" | "add-user" | "token" | "profile" => {
            format!("`{tool} {sub}` changes the registry credentials or account")
        }
        "edit" => format!("`{tool} edit` runs the editor its configuration names"),
        "explore" => format!("`{tool} explore` runs a shell command in a package's directory"),
        "exec" | "x" | "dlx" if has_flag(runner_options, &["-c", "--call", "--shell-mode"]) => {
            format!("`{tool} {sub} -c` runs a shell command")
        }
        "pack" => {
            let o = super::parse_opts(rest, "", &["pack-destination"], &[]);
            for dir in o.values(&["--pack-destination"]) {
                d.add_by_option(Access::WriteDir, dir, true);
            }
            return;
        }
        _ => return,
    };
    d.unknowns.push(why);
}

/// pip: the directories `install --target`/`--prefix`/`--root`,
/// `download -d` and `wheel -w` write into, and `config set`, which
/// changes the index every later pip installs from.
fn pip(args: &[Arg], d: &mut Derived) {
    let Some((sub, rest)) = subcommand(args, &["--python", "--log", "--cache-dir", "--proxy"])
    else {
        return;
    };
    match sub.text.as_str() {
        "install" | "download" | "wheel" => {
            let o = super::parse_opts(
                rest,
                "tdwrceiC",
                &[
                    "target",
                    "prefix",
                    "root",
                    "dest",
                    "wheel-dir",
                    "requirement",
                    "constraint",
                    "editable",
                    "index-url",
                    "extra-index-url",
                    "find-links",
                    "config-settings",
                    "platform",
                    "python-version",
                    "implementation",
                    "abi",
                    "src",
                    "upgrade-strategy",
                    "progress-bar",
                    "report",
                ],
                &[],
            );
            for dir in o.values(&[
                "-t",
                "--target",
                "--prefix",
                "--root",
                "-d",
                "--dest",
                "-w",
                "--wheel-dir",
            ]) {
                d.add_by_option(Access::WriteDir, dir, true);
            }
            for f in o.values(&["-r", "--requirement", "-c", "--constraint"]) {
                d.add(Access::Read, f, false);
            }
            for f in o.values(&["--report"]) {
                if f.text != "-" {
                    d.add_by_option(Access::Write, f, false);
                }
            }
        }
        "config"
            if rest
                .iter()
                .any(|a| matches!(a.text.as_str(), "set" | "unset" | "edit")) =>
        {
            d.unknowns.push(
                "`pip config` changes the configuration every later pip reads (the index it installs from)"
                    .into(),
            );
        }
        _ => {}
    }
}

/// go's flags (see [`GO`]). The words after `go test`'s `-args` are the
/// test binary's own: of them only its `-test.` flags are followed
/// (`-args -test.cpuprofile=F` writes F), each with its value.
fn go(args: &[Arg], d: &mut Derived) {
    let mut it = args.iter().peekable();
    let mut binary = false;
    while let Some(a) = it.next() {
        if a.literal && a.text == "--" {
            break;
        }
        let Some(flag) = a
            .text
            .strip_prefix("--")
            .or_else(|| a.text.strip_prefix('-'))
        else {
            continue;
        };
        if !a.literal || flag.is_empty() {
            continue;
        }
        let (flag, inline) = match flag.split_once('=') {
            Some((f, v)) => (f, Some(a.with_text(v))),
            None => (flag, None),
        };
        if binary && !flag.starts_with("test.") {
            continue;
        }
        if flag == "args" {
            binary = true;
            continue;
        }
        let bare = flag.strip_prefix("test.").unwrap_or(flag);
        let value = match inline {
            Some(v) => Some(v),
            None if GO_BOOLEANS.contains(&bare) => None,
            None => it.next().cloned(),
        };
        let Some(value) = value else { continue };
        if let Some((_, what)) = GO.iter().find(|(f, _)| *f == bare) {
            act("go", &format!("-{flag}"), *what, &value, d);
        } else if matches!(bare, "ldflags" | "gccgoflags")
            && (!value.literal || value.text.contains("extld") || value.text.contains("extar"))
        {
            act(
                "go",
                &format!("-{flag}"),
                Runs("can name the external linker or archiver that runs"),
                &value,
                d,
            );
        }
    }
}

/// Options looked up by name, `--name=value`, `--name value`, `-x value`
/// or `-xvalue` for a one-letter one.
fn table(tool: &str, options: &[(&str, Value)], args: &[Arg], d: &mut Derived) {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if !a.literal {
            continue;
        }
        let t = a.text.as_str();
        if t == "--" {
            break;
        }
        if !t.starts_with('-') {
            continue;
        }
        let found = options.iter().find_map(|(o, what)| {
            if t == *o {
                return Some((*o, *what, None));
            }
            let rest = t.strip_prefix(o)?;
            if let Some(v) = rest.strip_prefix('=') {
                return Some((*o, *what, Some(a.with_text(v))));
            }
            // `-ocache_dir=x`: a one-letter option's value joined to it.
            (o.len() == 2 && !rest.is_empty()).then(|| (*o, *what, Some(a.with_text(rest))))
        });
        // npm expands the start of an option's name (`--script-she` is
        // `--script-shell`, with a warning): a start of one of these is
        // taken for it.
        let found = found.or_else(|| {
            let body = t.strip_prefix("--")?;
            let (start, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(a.with_text(v))),
                None => (body, None),
            };
            if start.len() < 2 || !matches!(tool, "npm" | "pnpm") || NPM_WHOLE.contains(&start) {
                return None;
            }
            options
                .iter()
                .find(|(o, _)| o.strip_prefix("--").is_some_and(|l| l.starts_with(start)))
                .map(|(o, what)| (*o, *what, inline))
        });
        // npm's `--@scope:registry=URL`: the registry of one scope.
        let found = found.or_else(|| {
            let body = t
                .strip_prefix("--@")
                .filter(|_| matches!(tool, "npm" | "pnpm"))?;
            let (key, inline) = match body.split_once('=') {
                Some((k, v)) => (k, Some(a.with_text(v))),
                None => (body, None),
            };
            key.ends_with(":registry")
                .then_some(("--registry", Fetches, inline))
        });
        // `--no-script-shell X` (as [`npm_words`] spells it): npm still
        // sets an option whose value is text, to that value.
        if found.is_none()
            && matches!(tool, "npm" | "pnpm")
            && let Some(rest) = t.strip_prefix("--no-")
        {
            let start = rest.split('=').next().unwrap_or(rest);
            let runs = options.iter().find_map(|(o, what)| match what {
                Runs(why)
                    if start.len() >= 2
                        && !NPM_WHOLE.contains(&start)
                        && o.strip_prefix("--").is_some_and(|l| l.starts_with(start)) =>
                {
                    Some(*why)
                }
                _ => None,
            });
            if let Some(why) = runs {
                d.unknowns.push(format!("`{tool} {t}` {why}"));
            }
            continue;
        }
        let Some((option, what, inline)) = found else {
            continue;
        };
        let value = match (inline, what) {
            (Some(v), _) => Some(v),
            // `--debug` followed by an option, or last: its own name.
            (None, WritesOr(default)) => match it.as_slice().first() {
                Some(n) if !n.text.starts_with('-') => it.next().cloned(),
                _ => Some(a.with_text(default)),
            },
            (None, _) => it.next().cloned(),
        };
        match value {
            Some(v) => act(tool, option, what, &v, d),
            // `--pastebin` at the end still does it.
            None => {
                if let Runs(why) = what {
                    d.unknowns.push(format!("`{tool} {option}` {why}"));
                }
            }
        }
    }
}

fn act(tool: &str, option: &str, what: Value, value: &Arg, d: &mut Derived) {
    let at = d.found.len();
    match what {
        Writes | WritesOr(_) => d.add(Access::Write, value, false),
        WritesInto => d.add(Access::WriteDir, value, true),
        Replaces => d.add(Access::Delete, value, true),
        Reads => d.add(Access::Read, value, false),
        Root => {
            d.add(Access::Read, value, false);
            let cache = format!("{}/.pytest_cache", value.text.trim_end_matches('/'));
            d.add(Access::WriteDir, &value.with_text(cache), true);
        }
        Runs(why) => {
            d.unknowns
                .push(format!("`{tool} {option} {}` {why}", value.text));
            return;
        }
        Fetches => index_url(tool, option, value, d),
        Ini => match value.text.split_once('=') {
            Some(("cache_dir", dir)) if value.literal => {
                d.add(Access::WriteDir, &value.with_text(dir), true);
            }
            _ => {
                d.unknowns.push(format!(
                    "`{tool} {option} {}` overrides a configuration option, which can change what runs",
                    value.text
                ));
                return;
            }
        },
        Cov => {
            if !value.literal {
                d.unknowns.push(format!(
                    "`{tool} {option} {}` may name where it writes",
                    value.text
                ));
                return;
            }
            if let Some((kind, path)) = value.text.split_once(':') {
                if kind == "html" {
                    d.add(Access::WriteDir, &value.with_text(path), true);
                } else {
                    d.add(Access::Write, &value.with_text(path), false);
                }
            }
        }
    }
    // Writes an option turns on: not covered by an allow for the tool.
    for f in &mut d.found[at..] {
        if f.access != Access::Read {
            f.by_option = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn derived(cmd: &str) -> Derived {
        let words: Vec<Arg> = cmd.split_whitespace().map(Arg::lit).collect();
        let mut d = Derived::default();
        assert!(builders(&words[0].text, &words[1..], &mut d), "{cmd}");
        d
    }

    /// Every file access the tables find, by option or not.
    fn found(cmd: &str) -> Vec<(Access, String)> {
        derived(cmd)
            .found
            .iter()
            .map(|f| (f.access, f.arg.text.clone()))
            .collect()
    }

    fn writes(cmd: &str) -> Vec<(Access, String)> {
        derived(cmd)
            .found
            .iter()
            .filter(|f| f.by_option)
            .map(|f| (f.access, f.arg.text.clone()))
            .collect()
    }

    #[test]
    fn output_options_are_writes_the_tools_allow_does_not_name() {
        use Access::{Delete, Write, WriteDir};
        for (cmd, want) in [
            (
                "go build -o /usr/local/bin/x .",
                vec![(Write, "/usr/local/bin/x")],
            ),
            (
                "go test -coverprofile=.git/hooks/pre-commit ./...",
                vec![(Write, ".git/hooks/pre-commit")],
            ),
            (
                "go test --cpuprofile c.out -v ./...",
                vec![(Write, "c.out")],
            ),
            (
                "go test -v -run X -test.trace=t.out",
                vec![(Write, "t.out")],
            ),
            ("go test -outputdir /tmp/o", vec![(WriteDir, "/tmp/o")]),
            (
                "cargo build --target-dir=/tmp/t",
                vec![(WriteDir, "/tmp/t")],
            ),
            (
                "cargo install --root /opt/x ripgrep",
                vec![(WriteDir, "/opt/x")],
            ),
            ("pytest --basetemp=/tmp/x", vec![(Delete, "/tmp/x")]),
            ("pytest -q --junitxml r.xml", vec![(Write, "r.xml")]),
            ("npm test --cache /tmp/c", vec![(WriteDir, "/tmp/c")]),
            ("npm test --logs-d=/tmp/l", vec![(WriteDir, "/tmp/l")]),
            ("pytest -ocache_dir=/tmp/c", vec![(WriteDir, "/tmp/c")]),
            (
                "pytest --cov=src --cov-report=xml:/tmp/c.xml",
                vec![(Write, "/tmp/c.xml")],
            ),
            (
                "pytest --cov-report html:/tmp/h",
                vec![(WriteDir, "/tmp/h")],
            ),
        ] {
            let want: Vec<(Access, String)> =
                want.into_iter().map(|(a, t)| (a, t.to_string())).collect();
            assert_eq!(writes(cmd), want, "{cmd}");
        }
        for cmd in [
            "go test -v -race ./...",
            "go build -x .",
            "go test -run TestX -count=1 ./pkg",
            "cargo build --release",
            "cargo test --workspace -- --nocapture",
            "pytest -q -x tests",
            "pytest --cov=src --cov-report=term-missing",
            "npm test -- --watch",
        ] {
            assert!(writes(cmd).is_empty(), "{cmd}");
            assert!(derived(cmd).unknowns.is_empty(), "{cmd}");
        }
    }

    #[test]
    fn cargo_subcommands_that_reach_past_the_package() {
        use Access::{Read, Write, WriteDir};
        for (cmd, want) in [
            ("cargo new /tmp/o/x", vec![(Write, "/tmp/o/x")]),
            (
                "cargo new --lib --name n /tmp/o/y",
                vec![(Write, "/tmp/o/y")],
            ),
            ("cargo +nightly init --vcs none ../z", vec![(Write, "../z")]),
            ("cargo vendor /tmp/v", vec![(WriteDir, "/tmp/v")]),
            ("cargo vendor", vec![(WriteDir, "vendor")]),
            (
                "cargo vendor --sync ../x/Cargo.toml v",
                vec![(WriteDir, "v"), (Read, "../x/Cargo.toml")],
            ),
            ("cargo init", vec![]),
            ("cargo build --release", vec![]),
        ] {
            let want: Vec<(Access, String)> =
                want.into_iter().map(|(a, t)| (a, t.to_string())).collect();
            assert_eq!(found(cmd), want, "{cmd}");
        }
        for cmd in [
            "cargo install ripgrep",
            "cargo install --path ../tool",
            "cargo uninstall rg",
            "cargo login",
            "cargo logout",
            "cargo -C /elsewhere build",
            "cargo -C/elsewhere build",
            "cargo +nightly -Zunstable-options -C /elsewhere test",
        ] {
            assert!(!derived(cmd).unknowns.is_empty(), "{cmd}");
        }
        for cmd in [
            "cargo build",
            "cargo +nightly test -- --nocapture",
            "cargo -Z unstable-options build",
            "cargo --color always clippy",
            "cargo add serde --features derive",
        ] {
            assert!(derived(cmd).unknowns.is_empty(), "{cmd}");
        }
    }

    #[test]
    fn python_m_runs_the_tables_of_its_module() {
        assert_eq!(
            writes("python3 -m pytest --basetemp=src"),
            writes("pytest --basetemp=src")
        );
        assert!(!writes("python3 -B -m pytest --junitxml=o.xml").is_empty());
        assert!(!writes("python -mpytest -o cache_dir=c").is_empty());
        assert_eq!(
            writes("pytest --rootdir=r/"),
            vec![(Access::WriteDir, "r/.pytest_cache".to_string())]
        );
        assert!(!writes("python3.12 -X dev -m pip install -t /tmp/o x").is_empty());
        assert!(!builders(
            "python3",
            &[Arg::lit("-c"), Arg::lit("1")],
            &mut Derived::default()
        ));
        assert!(!builders(
            "python3",
            &[Arg::lit("x.py")],
            &mut Derived::default()
        ));
    }

    #[test]
    fn make_clusters_long_starts_and_makefiles() {
        use Access::Read;
        for (cmd, want) in [
            ("make -spf.env", vec![(Read, ".env")]),
            ("make -sp -f .env", vec![(Read, ".env")]),
            ("make --fi=.env", vec![(Read, ".env")]),
            ("make --mak .env", vec![(Read, ".env")]),
            ("make --dir=sub", vec![(Read, "sub")]),
            ("make -pq MAKEFILES=.env", vec![(Read, ".env")]),
            ("make MAKEFILES+=a", vec![(Read, "a")]),
            ("make -j4f x", vec![]),
            ("make -o old -W new all", vec![]),
            ("make -I inc -o old all", vec![(Read, "inc")]),
            ("make -sIinc", vec![(Read, "inc")]),
            ("make --include-dir=/o", vec![(Read, "/o")]),
            ("make --inc /o", vec![(Read, "/o")]),
        ] {
            let want: Vec<(Access, String)> =
                want.into_iter().map(|(a, p)| (a, p.to_string())).collect();
            assert_eq!(found(cmd), want, "{cmd}");
        }
        assert!(!derived("make MAKEFLAGS=-f.env").unknowns.is_empty());
    }

    #[test]
    fn cargo_rewrites_sources_and_its_harness_options() {
        for cmd in [
            "cargo fmt",
            "cargo fix",
            "cargo clippy --fix",
            "cargo fmt --all",
        ] {
            let d = derived(cmd);
            assert!(
                d.found
                    .iter()
                    .any(|f| f.access == Access::Write && f.arg.text == "."),
                "{cmd}"
            );
        }
        for cmd in ["cargo fmt --check", "cargo clippy", "cargo fmt -- --check"] {
            assert!(derived(cmd).found.is_empty(), "{cmd}");
        }
        assert_eq!(
            writes("cargo test -q -- --logfile /tmp/l"),
            vec![(Access::Write, "/tmp/l".to_string())]
        );
        assert_eq!(
            writes("cargo bench -- --logfile=l"),
            vec![(Access::Write, "l".to_string())]
        );
        assert!(!derived("cargo rustc -- @.env").unknowns.is_empty());
        assert!(derived("cargo rustc --release").unknowns.is_empty());
        for cmd in [
            "cargo rustc -- -o /tmp/x",
            "cargo rustc -- -C linker=./x",
            "cargo rustc -- -Clink-arg=-Wl,x",
            "cargo rustc -- -Z dump-mir=all",
            "cargo rustdoc -- --output /tmp/o",
            "cargo clippy -- -C linker=./x",
            "cargo clippy -- --emit=dep-info=src/main.rs",
            "cargo clippy --all-targets -- @opts",
        ] {
            assert!(!derived(cmd).unknowns.is_empty(), "{cmd}");
        }
        for cmd in [
            "cargo rustc --lib -- -D unsafe-code",
            "cargo rustc -r -- -C target-cpu=native",
            "cargo rustc -- -Copt-level=3 -g",
            "cargo rustc --lib -- -Z print-type-sizes",
            "cargo rustdoc -- -W rustdoc::lint_name",
            "cargo rustdoc --lib -- --extend-css extra.css",
            "cargo clippy --all-targets -- -D warnings",
            "cargo clippy -- -W clippy::pedantic -A clippy::too_many_lines",
        ] {
            assert!(derived(cmd).unknowns.is_empty(), "{cmd}");
        }
    }

    #[test]
    fn package_managers_go_pip_and_make_beyond_the_package() {
        for cmd in [
            "go env -w GOFLAGS=-toolexec=./x",
            "go install example.com/x@latest",
            "go clean -modcache",
            "npm config set script-shell ./x",
            "npm set registry http://h",
            "npm install -g x",
            "npm i --location global x",
            "pnpm add --global x",
            "yarn global add x",
            "yarn config set x y",
            "npm login",
            "npm token create",
            "npm edit x",
            "npm explore x -- ls",
            "npm exec -c ls",
            "pnpm exec --shell-mode ls",
            "npm exec --yes -c ls",
            "pip config set global.index-url http://h",
        ] {
            assert!(!derived(cmd).unknowns.is_empty(), "{cmd}");
        }
        use Access::{Read, WriteDir};
        for (cmd, want) in [
            (
                "npm pack --pack-destination /tmp/o",
                vec![(WriteDir, "/tmp/o")],
            ),
            ("pip install -t /tmp/o x", vec![(WriteDir, "/tmp/o")]),
            ("pip download --dest=/tmp/o x", vec![(WriteDir, "/tmp/o")]),
            ("pip install -r req.txt", vec![(Read, "req.txt")]),
            ("make -C /tmp/o", vec![(Read, "/tmp/o")]),
            (
                "make -f/tmp/o/Makefile all",
                vec![(Read, "/tmp/o/Makefile")],
            ),
            ("make --directory=d", vec![(Read, "d")]),
        ] {
            let want: Vec<(Access, String)> =
                want.into_iter().map(|(a, t)| (a, t.to_string())).collect();
            assert_eq!(found(cmd), want, "{cmd}");
        }
        for cmd in [
            "go env GOPATH",
            "go clean",
            "npm install",
            "npm install lodash",
            "npm config get registry",
            "npm run build",
            "pnpm install",
            "pnpm exec jest -c jest.config.js",
            "npm exec -- eslint -c .eslintrc .",
            "yarn add x",
            "pip install x",
            "make -j4 test",
        ] {
            assert!(derived(cmd).unknowns.is_empty(), "{cmd}");
        }
    }

    #[test]
    fn options_that_run_programs_are_unanalysable() {
        for cmd in [
            "go test -exec ./evil ./...",
            "go test --toolexec=./evil ./...",
            "go vet -vettool=./evil ./...",
            "go build -overlay o.json .",
            "go build -ldflags=-extld=./evil .",
            "cargo --config target.x.runner=\"sh\" run",
            "cargo build --config=.cargo/other.toml",
            "pytest -o addopts=--basetemp=/x",
            "pytest --override-ini=python_files=*.txt",
            "pytest --pastebin=all",
            "npm test --script-shell=./evil",
            "npm test --userconfig .npmrc2",
            "npm test --script-she=./evil",
            "npm test --node-opt=--require=./x.js",
        ] {
            assert!(!derived(cmd).unknowns.is_empty(), "{cmd}");
        }
    }
}

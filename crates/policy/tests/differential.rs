//! The option tables against the real programs: a differential test.
//!
//! For every program the shell tables know as a reader or read-only command
//! that is installed here, every option its `--help` (or `-h`) lists is put
//! before a file the policy denies reading (`secret.txt`) and before one
//! under an Edit deny (`protected/guarded.txt`), in several spellings: the
//! option then the file (a value-taking option takes the file as its value),
//! `--opt=FILE`, `-oFILE`, the option with a harmless value then the file,
//! and the shortest prefix GNU `getopt_long` and git accept for a long
//! option. Each command is decided in process; every one the policy allows
//! runs under `strace -f` in a scratch workspace, and a run that opened the
//! denied file or changed anything beneath `protected/` is a finding naming
//! the program and the option.
//!
//! Findings fail the test unless [`KNOWN`] lists them with a reason
//! (`docs/known-limits.md`). Without strace the test is skipped with a
//! message, except under `CI=true`, where it fails.
//! `TOOLGATE_DIFFERENTIAL=cat,wc` limits a run to some programs.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use toolgate_policy::{Call, Effect, LoadOptions, Policy};

/// A program (or git subcommand) under test.
struct Program {
    /// The argv that names it: `["sort"]`, `["git", "log"]`.
    argv: &'static [&'static str],
    /// What prints its options.
    help: &'static [&'static str],
    /// Arguments before the option (`grep -e x`, `jq .`).
    pre: &'static [&'static str],
    /// What follows the file: each is one variant (two-file programs).
    posts: &'static [&'static [&'static str]],
    /// Options its manual lists and its help does not, as help lines.
    extra: &'static str,
}

const ONE: &[&[&str]] = &[&[]];
const TWO: &[&[&str]] = &[&["input.txt"], &["input.txt", "other.txt"]];

const fn p(argv: &'static [&'static str]) -> Program {
    Program {
        argv,
        help: &["--help"],
        pre: &[],
        posts: ONE,
        extra: "",
    }
}

const fn git(sub: &'static str, pre: &'static [&'static str]) -> Program {
    Program {
        argv: match sub.as_bytes() {
            b"status" => &["git", "status"],
            b"log" => &["git", "log"],
            b"diff" => &["git", "diff"],
            b"show" => &["git", "show"],
            b"blame" => &["git", "blame"],
            b"grep" => &["git", "grep"],
            b"ls-files" => &["git", "ls-files"],
            b"cat-file" => &["git", "cat-file"],
            b"shortlog" => &["git", "shortlog"],
            b"diff-files" => &["git", "diff-files"],
            b"diff-index" => &["git", "diff-index"],
            b"check-ignore" => &["git", "check-ignore"],
            _ => &["git", "annotate"],
        },
        help: &["-h"],
        pre,
        posts: ONE,
        extra: "",
    }
}

/// The programs: every reader and read-only command of the tables whose
/// operands are files, as far as it is installed.
static PROGRAMS: &[Program] = &[
    p(&["cat"]),
    p(&["rev"]),
    p(&["base32"]),
    p(&["basenc"]),
    p(&["tsort"]),
    p(&["zcat"]),
    p(&["bzcat"]),
    p(&["xzcat"]),
    p(&["head"]),
    p(&["tail"]),
    Program {
        extra: "  -o, --log-file=FILE\n  -O, --LOG-FILE=FILE\n  -k, --lesskey-file=FILE\n",
        ..p(&["less"])
    },
    p(&["more"]),
    p(&["nl"]),
    p(&["tac"]),
    p(&["wc"]),
    p(&["date"]),
    p(&["realpath"]),
    p(&["readlink"]),
    p(&["sort"]),
    p(&["uniq"]),
    p(&["cut"]),
    p(&["paste"]),
    Program {
        posts: TWO,
        ..p(&["comm"])
    },
    Program {
        posts: TWO,
        ..p(&["join"])
    },
    p(&["fold"]),
    p(&["fmt"]),
    p(&["column"]),
    p(&["expand"]),
    p(&["unexpand"]),
    Program {
        pre: &["-e", "x"],
        ..p(&["grep"])
    },
    Program {
        pre: &["-e", "x"],
        ..p(&["rg"])
    },
    Program {
        pre: &["-e", "1"],
        ..p(&["gawk"])
    },
    Program {
        pre: &["-e", "p"],
        ..p(&["sed"])
    },
    Program {
        posts: TWO,
        ..p(&["diff"])
    },
    Program {
        posts: TWO,
        ..p(&["cmp"])
    },
    p(&["base64"]),
    Program {
        help: &["-h"],
        ..p(&["xxd"])
    },
    p(&["od"]),
    Program {
        help: &["-h"],
        ..p(&["hexdump"])
    },
    p(&["strings"]),
    Program {
        pre: &["-f", "UTF-8", "-t", "UTF-8"],
        ..p(&["iconv"])
    },
    p(&["pr"]),
    Program {
        pre: &["x"],
        ..p(&["look"])
    },
    p(&["shuf"]),
    p(&["file"]),
    p(&["stat"]),
    p(&["md5sum"]),
    p(&["sha1sum"]),
    p(&["sha256sum"]),
    p(&["sha512sum"]),
    p(&["b2sum"]),
    p(&["cksum"]),
    p(&["sum"]),
    Program {
        pre: &["."],
        extra: "  -f, --from-file FILE\n  -L DIR\n  --indent N\n  --seq\n  --stream\n  --raw-output0\n",
        ..p(&["jq"])
    },
    p(&["ls"]),
    p(&["du"]),
    p(&["tree"]),
    Program {
        pre: &["-tf", "a.tar"],
        ..p(&["tar"])
    },
    p(&["bc"]),
    git("status", &[]),
    git("log", &[]),
    git("diff", &[]),
    git("show", &[]),
    git("blame", &[]),
    git("annotate", &[]),
    git("grep", &["-e", "x"]),
    git("ls-files", &[]),
    git("cat-file", &[]),
    git("shortlog", &["HEAD"]),
    git("diff-files", &[]),
    git("diff-index", &["HEAD"]),
    git("check-ignore", &[]),
];

/// Findings that are known and listed in `docs/known-limits.md`: program
/// (its argv joined), the option as its help spells it, and why it is not
/// fixed in the tables.
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "file",
        "-p",
        "sets back the access time it found: no content changes",
    ),
    (
        "file",
        "--preserve-date",
        "sets back the access time it found: no content changes",
    ),
    (
        "git diff",
        "--abbrev",
        "with no path, git diff reads every changed tracked file: what git \
         shows is taken as tracked content, not as a read of each file",
    ),
    (
        "git ls-files",
        "--eol",
        "reads each file it names only to report its line endings",
    ),
    (
        "git ls-files",
        "-X",
        "the exclude file is read; git's per-subcommand options are not \
         in the option tables",
    ),
    (
        "git ls-files",
        "--exclude-from",
        "the exclude file is read; git's per-subcommand options are not \
         in the option tables",
    ),
];

/// The denied file and the protected one, relative to the workspace.
const SECRET: &str = "secret.txt";
const GUARDED: &str = "protected/guarded.txt";

const POLICY: &str = r#"
deny = ["Read(secret.txt)", "Edit(protected/**)"]

[policy]
default = "ask"
"#;

/// How long one run may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(5);

/// At most this many allowed commands run per program: an even,
/// deterministic sample of them when there are more.
const RUNS_PER_PROGRAM: usize = 400;

/// Whether an option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arity {
    Flag,
    /// This many words after it (`--arg NAME VALUE` is 2); a long option
    /// written `--opt=ARG` is 1.
    Required(usize),
    /// `--opt[=ARG]`: attached only.
    Optional,
}

/// One option as the help lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Opt {
    name: String,
    arity: Arity,
    metavar: String,
}

/// The options a help text lists, on lines that begin (after blanks) with
/// `-`: `-n, --lines=[-]NUM`, `--color[=WHEN]`, `-U, --unified[=<n>]`,
/// `--arg a v`, `-W, --[no-]function-context`.
fn parse_help(text: &str) -> Vec<Opt> {
    let mut out: Vec<Opt> = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        if !line.starts_with('-') {
            continue;
        }
        // The option part ends where two blanks or a tab start the text.
        let spec = match line.find("  ").into_iter().chain(line.find('\t')).min() {
            Some(i) => &line[..i],
            None => line,
        };
        let spec = spec.replace("[no-]", "");
        let mut items: Vec<Opt> = Vec::new();
        for item in spec.split(", ").flat_map(|s| s.split(" | ")) {
            let mut words = item.split_whitespace();
            let Some(first) = words.next() else { continue };
            if !first.starts_with('-') {
                continue;
            }
            let (name, mut arity, mut metavar) = match first.find(['=', '[']) {
                Some(i) if first[i..].starts_with("[=") => (
                    &first[..i],
                    Arity::Optional,
                    first[i + 2..].trim_end_matches(']').to_string(),
                ),
                Some(i) if first[i..].starts_with('=') => {
                    (&first[..i], Arity::Required(1), first[i + 1..].to_string())
                }
                Some(i) => (&first[..i], Arity::Flag, String::new()),
                None => (first, Arity::Flag, String::new()),
            };
            let values: Vec<&str> = words
                .take_while(|w| !w.starts_with('-') || w.len() == 1)
                .collect();
            if arity == Arity::Flag && !values.is_empty() {
                arity = Arity::Required(values.len());
                metavar = values.join(" ");
            }
            if valid_name(name) {
                items.push(Opt {
                    name: name.to_string(),
                    arity,
                    metavar,
                });
            }
        }
        // GNU: "mandatory arguments to long options are mandatory for short
        // options too": a short option on the line of a long one with a
        // value takes it.
        if let Some(valued) = items.iter().find(|o| o.arity != Arity::Flag).cloned() {
            for o in items.iter_mut().filter(|o| o.arity == Arity::Flag) {
                o.arity = valued.arity;
                o.metavar = valued.metavar.clone();
            }
        }
        for o in items {
            if !out.iter().any(|x| x.name == o.name) {
                out.push(o);
            }
        }
    }
    out
}

fn valid_name(name: &str) -> bool {
    if let Some(long) = name.strip_prefix("--") {
        long.len() > 1
            && long.starts_with(|c: char| c.is_ascii_alphanumeric())
            && long
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    } else if let Some(short) = name.strip_prefix('-') {
        short.len() == 1 && short.chars().all(|c| c.is_ascii_alphanumeric())
    } else {
        false
    }
}

/// The shortest prefix that names `long` among `longs` alone (GNU
/// `getopt_long` and git's parse-options accept it), when shorter.
fn abbreviation(long: &str, longs: &[&str]) -> Option<String> {
    let name = long.strip_prefix("--")?;
    (1..name.len()).find_map(|n| {
        let prefix = format!("--{}", &name[..n]);
        let others = longs
            .iter()
            .filter(|l| **l != long && l.starts_with(&prefix))
            .count();
        (others == 0).then_some(prefix)
    })
}

/// A harmless value for an option, from its name and metavar: a file of the
/// workspace (which names the denied and the protected file, as a list of
/// files would; NUL-separated for `--files0-from`) for a file, else a
/// number.
fn harmless(opt: &Opt) -> &'static str {
    if opt.name.contains("files0") {
        return "names0.txt";
    }
    let m = opt.metavar.to_ascii_uppercase();
    let file = ["FILE", "DIR", "PATH", "ARCHIVE", "<F>", "<FILE"]
        .iter()
        .any(|k| m.contains(k))
        || m == "F";
    if file { "names.txt" } else { "1" }
}

/// One command to decide: the option as its help spells it, and the words
/// after the program's name.
#[derive(Debug, Clone)]
struct Case {
    option: String,
    args: Vec<String>,
}

/// Every spelling of `opt` before `target`.
fn cases(prog: &Program, opt: &Opt, abbrev: Option<&str>, target: &str) -> Vec<Case> {
    let mut spellings: Vec<(String, Vec<String>)> = Vec::new();
    let names: Vec<&str> = std::iter::once(opt.name.as_str()).chain(abbrev).collect();
    let fill = harmless(opt);
    for name in names {
        let s = |v: &[&str]| v.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        // The option, then the file: a value-taking option takes it.
        let more = match opt.arity {
            Arity::Required(n) => n.saturating_sub(1),
            _ => 0,
        };
        let mut words = vec![name.to_string()];
        words.extend(std::iter::repeat_n(fill.to_string(), more));
        words.push(target.to_string());
        spellings.push((format!("{name} FILE"), words));
        match opt.arity {
            Arity::Flag => {}
            Arity::Optional | Arity::Required(_) => {
                if name.starts_with("--") {
                    if more == 0 {
                        spellings.push((format!("{name}=FILE"), vec![format!("{name}={target}")]));
                    }
                } else if more == 0 {
                    spellings.push((format!("{name}FILE"), vec![format!("{name}{target}")]));
                }
                if let Arity::Required(n) = opt.arity {
                    let mut words = vec![name.to_string()];
                    words.extend(std::iter::repeat_n(fill.to_string(), n));
                    words.push(target.to_string());
                    spellings.push((format!("{name} {fill} FILE"), words));
                } else if name.starts_with("--") {
                    spellings.push((format!("{name}=1 FILE"), s(&[&format!("{name}=1"), target])));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (_, words) in spellings {
        for post in prog.posts {
            let mut args: Vec<String> = prog.pre.iter().map(|w| w.to_string()).collect();
            args.extend(words.iter().cloned());
            args.extend(post.iter().map(|w| w.to_string()));
            out.push(Case {
                option: opt.name.clone(),
                args,
            });
        }
    }
    out
}

/// Every case of a program, from its help text.
fn program_cases(prog: &Program, help: &str) -> (usize, Vec<Case>) {
    let mut opts = parse_help(help);
    for o in parse_help(prog.extra) {
        if !opts.iter().any(|x| x.name == o.name) {
            opts.push(o);
        }
    }
    // Options that only print and exit, or (`tail -f`) never end.
    opts.retain(|o| {
        let endless = prog.argv[0] == "tail"
            && matches!(o.name.as_str(), "-f" | "-F" | "--follow" | "--retry");
        !(endless || matches!(o.name.as_str(), "--help" | "--version"))
    });
    let longs: Vec<&str> = opts
        .iter()
        .map(|o| o.name.as_str())
        .filter(|n| n.starts_with("--"))
        .collect();
    let mut out = Vec::new();
    for o in &opts {
        let abbrev = abbreviation(&o.name, &longs);
        for target in [SECRET, GUARDED] {
            out.extend(cases(prog, o, abbrev.as_deref(), target));
        }
    }
    (opts.len(), out)
}

/// Where `path` is on `PATH`, if anywhere.
fn installed(name: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|d| {
            let f = d.join(name);
            f.is_file()
        })
    })
}

fn help_text(prog: &Program, scratch: &Path) -> String {
    let out = Command::new(prog.argv[0])
        .args(&prog.argv[1..])
        .args(prog.help)
        .current_dir(scratch)
        .env("HOME", scratch)
        .env("LC_ALL", "C")
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(o) => {
            let mut s = String::from_utf8_lossy(&o.stdout).into_owned();
            s.push_str(&String::from_utf8_lossy(&o.stderr));
            s
        }
        Err(_) => String::new(),
    }
}

/// Runs `cmd` with `args`; its combined output.
fn sh(cmd: &str, args: &[&str], dir: &Path, home: &Path) {
    let st = Command::new(cmd)
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    assert!(st.success(), "{cmd} {args:?} failed in {}", dir.display());
}

/// The files of the workspace and what they hold.
const FIXTURE: &[(&str, &str)] = &[
    ("input.txt", "b 1\na 2\n"),
    ("other.txt", "a 2\nc 3\n"),
    ("names.txt", "secret.txt\nprotected/guarded.txt\n"),
    ("names0.txt", "secret.txt\0protected/guarded.txt\0"),
    (SECRET, "the secret\n"),
    (GUARDED, "guarded\n"),
];

/// Builds the scratch workspace: the fixture files, committed to a git
/// repository (then the secret and the guarded file changed, so that git
/// has to read them to diff), and a tar archive.
fn build_workspace(ws: &Path, home: &Path) {
    let _ = std::fs::remove_dir_all(ws);
    std::fs::create_dir_all(ws.join("protected")).unwrap();
    for (name, _) in FIXTURE {
        std::fs::write(ws.join(name), "committed\n").unwrap();
    }
    if installed("git") {
        sh("git", &["init", "-q"], ws, home);
        sh("git", &["add", "."], ws, home);
        sh(
            "git",
            &[
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-qm",
                "fixture",
            ],
            ws,
            home,
        );
    }
    for (name, text) in FIXTURE {
        std::fs::write(ws.join(name), text).unwrap();
    }
    if installed("tar") {
        sh("tar", &["-cf", "a.tar", "input.txt"], ws, home);
    }
}

/// What the workspace holds now, to see whether a run changed it.
fn fingerprint(ws: &Path) -> String {
    let mut s = String::new();
    for dir in [ws.to_path_buf(), ws.join("protected")] {
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .map(|r| {
                r.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        let _ = writeln!(s, "{}: {names:?}", dir.display());
    }
    for (name, _) in FIXTURE {
        let _ = writeln!(s, "{name}: {:?}", std::fs::read(ws.join(name)).ok());
    }
    s
}

/// A file operation that strace saw succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Touch {
    syscall: String,
    path: PathBuf,
    /// Opened for writing, created, removed, renamed, changed.
    write: bool,
}

/// System calls of `trace=%file` that change the file they name.
const CHANGING: &[&str] = &[
    "unlink",
    "unlinkat",
    "rename",
    "renameat",
    "renameat2",
    "mkdir",
    "mkdirat",
    "rmdir",
    "truncate",
    "chmod",
    "fchmodat",
    "fchmodat2",
    "chown",
    "lchown",
    "fchownat",
    "utime",
    "utimes",
    "utimensat",
    "futimesat",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "mknod",
    "mknodat",
    "setxattr",
    "lsetxattr",
    "removexattr",
    "lremovexattr",
    "creat",
];

const OPENING: &[&str] = &["open", "openat", "openat2", "creat"];

/// The quoted strings and `N</path>` descriptors of a call's arguments,
/// in order: `(Some(dir), None)` for a descriptor, `(None, Some(s))` for a
/// string.
fn call_args(args: &str) -> Vec<(Option<String>, Option<String>)> {
    let mut out = Vec::new();
    let b = args.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                let mut s = Vec::new();
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' && i + 1 < b.len() {
                        i += 1;
                        match b[i] {
                            b'n' => s.push(b'\n'),
                            b't' => s.push(b'\t'),
                            b'x' if i + 2 < b.len() => {
                                let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("3f");
                                s.push(u8::from_str_radix(hex, 16).unwrap_or(b'?'));
                                i += 2;
                            }
                            c => s.push(c),
                        }
                    } else {
                        s.push(b[i]);
                    }
                    i += 1;
                }
                out.push((None, Some(String::from_utf8_lossy(&s).into_owned())));
                i += 1;
            }
            b'<' if i > 0 && (b[i - 1].is_ascii_digit() || args[..i].ends_with("AT_FDCWD")) => {
                let end = args[i..].find('>').map_or(b.len(), |e| i + e);
                out.push((Some(args[i + 1..end].to_string()), None));
                i = end + 1;
            }
            b'A' if args[i..].starts_with("AT_FDCWD") => {
                out.push((Some(String::new()), None));
                i += 8;
            }
            _ => i += 1,
        }
    }
    out
}

/// The successful file operations of an `strace -f -y` log, relative
/// paths resolved against `ws` (or the directory descriptor given).
fn parse_log(log: &str, ws: &Path) -> Vec<Touch> {
    let mut pending: HashMap<String, String> = HashMap::new();
    let mut out = Vec::new();
    for line in log.lines() {
        let Some((pid, rest)) = line.split_once(' ') else {
            continue;
        };
        let rest = rest.trim_start();
        let full = if let Some(head) = rest.strip_suffix(" <unfinished ...>") {
            pending.insert(pid.to_string(), head.to_string());
            continue;
        } else if rest.starts_with("<... ") {
            let Some(head) = pending.remove(pid) else {
                continue;
            };
            let tail = rest.split_once("resumed>").map_or("", |(_, t)| t);
            format!("{head}{tail}")
        } else {
            rest.to_string()
        };
        let Some(open) = full.find('(') else { continue };
        let syscall = &full[..open];
        let opening = OPENING.contains(&syscall);
        if !opening && !CHANGING.contains(&syscall) {
            continue;
        }
        let Some(eq) = full.rfind(") = ") else {
            continue;
        };
        let ret = &full[eq + 4..];
        if ret.starts_with('-') || ret.starts_with('?') {
            continue;
        }
        let args = &full[open + 1..eq];
        let write = !opening
            || ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC"]
                .iter()
                .any(|f| args.contains(f));
        // An open's result names the file it opened (`= 3</ws/secret.txt>`).
        let mut paths: Vec<PathBuf> = Vec::new();
        if opening && let Some(start) = ret.find('<') {
            let end = ret.rfind('>').unwrap_or(ret.len());
            paths.push(PathBuf::from(&ret[start + 1..end]));
        } else {
            let mut dir: Option<String> = None;
            for (d, s) in call_args(args) {
                if let Some(d) = d {
                    dir = Some(d);
                } else if let Some(s) = s {
                    let base = match dir.take() {
                        Some(d) if !d.is_empty() => PathBuf::from(d),
                        _ => ws.to_path_buf(),
                    };
                    paths.push(base.join(s));
                }
            }
        }
        for path in paths {
            out.push(Touch {
                syscall: syscall.to_string(),
                path,
                write,
            });
        }
    }
    out
}

/// What a run did that the policy forbids: a read of the denied file, a
/// write of it or of anything beneath `protected/`.
fn violations(touches: &[Touch], ws: &Path) -> Vec<String> {
    let secret = ws.join(SECRET);
    let protected = ws.join("protected");
    let mut out = Vec::new();
    for t in touches {
        let path = normalize(&t.path);
        if path == secret {
            out.push(format!(
                "{} {} ({})",
                if t.write { "wrote" } else { "read" },
                SECRET,
                t.syscall
            ));
        } else if t.write && path.starts_with(&protected) {
            let rel = path.strip_prefix(ws).unwrap_or(&path);
            out.push(format!("wrote {} ({})", rel.display(), t.syscall));
        }
    }
    out.sort();
    out.dedup();
    out
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// Runs one command under strace in `ws`; what it did that it should not.
fn run_traced(argv: &[String], ws: &Path, home: &Path, log: &Path) -> Vec<String> {
    let _ = std::fs::remove_file(log);
    let mut cmd = Command::new("strace");
    cmd.args([
        "-f",
        "-y",
        "-qq",
        "-e",
        "trace=%file",
        "-e",
        "signal=none",
        "-o",
    ])
    .arg(log)
    .arg("--")
    .args(argv)
    .current_dir(ws)
    .env_clear()
    .env("PATH", std::env::var_os("PATH").unwrap_or_default())
    .env("HOME", home)
    .env("LC_ALL", "C")
    .env("TERM", "dumb")
    .env("GIT_CONFIG_NOSYSTEM", "1")
    .stdin(Stdio::null())
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .process_group(0);
    let Ok(mut child) = cmd.spawn() else {
        return vec!["strace did not start".into()];
    };
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if start.elapsed() > RUN_TIMEOUT => {
                // SAFETY: kill(2) on the process group this run started.
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                let _ = child.wait();
                break;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => break,
        }
    }
    let text = std::fs::read_to_string(log).unwrap_or_default();
    violations(&parse_log(&text, ws), ws)
}

/// Whether strace can trace here (installed, and ptrace permitted).
fn strace_works() -> bool {
    Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=%file", "-o", "/dev/null", "true"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// One finding: program, option, the spelling, what it did.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Finding {
    program: String,
    option: String,
    command: String,
    did: String,
}

#[derive(Default)]
struct Counts {
    programs: usize,
    options: usize,
    decided: usize,
    allowed: usize,
    ran: usize,
}

#[test]
fn allowed_commands_never_touch_denied_files_when_run() {
    if !strace_works() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("strace is not installed or cannot trace: CI runs this test (scripts/test.sh)");
        }
        eprintln!(
            "skipped: strace is not installed or cannot trace (apt-get install strace); CI runs this test"
        );
        return;
    }
    let only: Option<BTreeSet<String>> = std::env::var("TOOLGATE_DIFFERENTIAL")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let scratch = tempfile::tempdir().unwrap();
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let workers = 2;
    let spaces: Vec<(PathBuf, Policy)> = (0..workers)
        .map(|i| {
            let ws = scratch.path().join(format!("ws{i}"));
            build_workspace(&ws, &home);
            let ws = ws.canonicalize().unwrap();
            let mut text = String::from("allow = [");
            for prog in PROGRAMS {
                let _ = write!(text, "\"Bash({} *)\", ", prog.argv.join(" "));
            }
            text.push_str("]\n");
            text.push_str(POLICY);
            let policy =
                Policy::from_toml(&text, &ws.join("toolgate.toml"), &LoadOptions::default())
                    .unwrap();
            (ws, policy)
        })
        .collect();

    let mut counts = Counts::default();
    // Every allowed command of every program, decided in the first workspace.
    let mut jobs: Vec<(String, String, Vec<String>)> = Vec::new();
    let mut per_program: BTreeMap<String, (usize, usize, usize)> = BTreeMap::new();
    for prog in PROGRAMS {
        let label = prog.argv.join(" ");
        if !installed(prog.argv[0])
            || only
                .as_ref()
                .is_some_and(|o| !o.contains(&label) && !o.contains(prog.argv[0]))
        {
            continue;
        }
        let help = help_text(prog, &spaces[0].0);
        let (n_opts, cases) = program_cases(prog, &help);
        if n_opts == 0 {
            eprintln!("{label}: no options found in its help");
            continue;
        }
        counts.programs += 1;
        counts.options += n_opts;
        let mut allowed = Vec::new();
        for case in cases {
            counts.decided += 1;
            let mut argv: Vec<String> = prog.argv.iter().map(|w| w.to_string()).collect();
            argv.extend(case.args.iter().cloned());
            let command = shell_words::join(&argv);
            let mut call = Call::new("run_shell", json!({ "command": command }));
            call.cwd = Some(spaces[0].0.clone());
            if spaces[0].1.decide(&call).decision == Effect::Allow {
                allowed.push((case.option.clone(), argv));
            }
        }
        counts.allowed += allowed.len();
        let sample: Vec<_> = if allowed.len() > RUNS_PER_PROGRAM {
            let n = allowed.len();
            (0..RUNS_PER_PROGRAM)
                .map(|i| allowed[i * n / RUNS_PER_PROGRAM].clone())
                .collect()
        } else {
            allowed.clone()
        };
        per_program.insert(label.clone(), (n_opts, allowed.len(), sample.len()));
        jobs.extend(sample.into_iter().map(|(o, a)| (label.clone(), o, a)));
    }
    counts.ran = jobs.len();

    let next = AtomicUsize::new(0);
    let findings: Mutex<Vec<Finding>> = Mutex::new(Vec::new());
    let started = Instant::now();
    std::thread::scope(|s| {
        for (i, (ws, _)) in spaces.iter().enumerate() {
            let (jobs, next, findings, home) = (&jobs, &next, &findings, &home);
            let log = scratch.path().join(format!("strace{i}.log"));
            s.spawn(move || {
                let clean = fingerprint(ws);
                loop {
                    let j = next.fetch_add(1, Ordering::Relaxed);
                    let Some((program, option, argv)) = jobs.get(j) else {
                        break;
                    };
                    let did = run_traced(argv, ws, home, &log);
                    for d in did {
                        findings.lock().unwrap().push(Finding {
                            program: program.clone(),
                            option: option.clone(),
                            command: shell_words::join(argv),
                            did: d,
                        });
                    }
                    if fingerprint(ws) != clean {
                        build_workspace(ws, home);
                    }
                }
            });
        }
    });
    let mut findings = findings.into_inner().unwrap();
    findings.sort();

    let mut report = String::new();
    for (prog, (opts, allowed, ran)) in &per_program {
        let _ = writeln!(
            report,
            "  {prog}: {opts} options, {allowed} allowed, {ran} run"
        );
    }
    let known = |f: &Finding| {
        KNOWN
            .iter()
            .any(|(p, o, _)| *p == f.program && *o == f.option)
    };
    let (listed, new): (Vec<&Finding>, Vec<&Finding>) = findings.iter().partition(|f| known(f));
    let distinct = |v: &[&Finding]| {
        v.iter()
            .map(|f| (f.program.clone(), f.option.clone()))
            .collect::<BTreeSet<_>>()
            .len()
    };
    eprintln!(
        "differential: {} programs, {} options, {} commands decided, {} allowed, {} run in {:.0?}; \
         findings: {} new ({} options), {} listed ({} options)\n{report}",
        counts.programs,
        counts.options,
        counts.decided,
        counts.allowed,
        counts.ran,
        started.elapsed(),
        new.len(),
        distinct(&new),
        listed.len(),
        distinct(&listed),
    );
    for f in &listed {
        eprintln!(
            "listed: {} {}: `{}` {}",
            f.program, f.option, f.command, f.did
        );
    }
    for (program, option, _) in KNOWN {
        if per_program.contains_key(*program)
            && !listed
                .iter()
                .any(|f| f.program == *program && f.option == *option)
        {
            eprintln!("listed but not found (fixed?): {program} {option}");
        }
    }
    let mut text = String::new();
    for f in &new {
        let _ = writeln!(
            text,
            "{} {}: `{}` {}",
            f.program, f.option, f.command, f.did
        );
    }
    assert!(
        new.is_empty(),
        "allowed commands that opened the denied file or changed a protected one \
         (fix the option tables, or list the option in KNOWN with a reason):\n{text}"
    );
}

#[test]
fn help_lines_are_read_as_options_with_their_values() {
    let help = "\
  -n, --lines=[-]NUM       output the last NUM lines
      --files0-from=F    read input from the files
  -U, --unified[=<n>]   generate diffs with <n> lines context
  -W, --[no-]function-context
  --arg a v        set variable $a to value <v>;
  -c               compact instead of pretty-printed output;
  -L DIR
      --color[=WHEN]
  text that is not an option -x
";
    let got: Vec<(String, Arity)> = parse_help(help)
        .into_iter()
        .map(|o| (o.name, o.arity))
        .collect();
    let want = [
        ("-n", Arity::Required(1)),
        ("--lines", Arity::Required(1)),
        ("--files0-from", Arity::Required(1)),
        ("-U", Arity::Optional),
        ("--unified", Arity::Optional),
        ("-W", Arity::Flag),
        ("--function-context", Arity::Flag),
        ("--arg", Arity::Required(2)),
        ("-c", Arity::Flag),
        ("-L", Arity::Required(1)),
        ("--color", Arity::Optional),
    ];
    let want: Vec<(String, Arity)> = want.iter().map(|(n, a)| (n.to_string(), *a)).collect();
    assert_eq!(got, want);
    let longs = ["--files0-from", "--files", "--lines", "--line-buffered"];
    assert_eq!(
        abbreviation("--files0-from", &longs).as_deref(),
        Some("--files0")
    );
    assert_eq!(abbreviation("--lines", &longs), None);
    let opt = |name: &str, metavar: &str| Opt {
        name: name.into(),
        arity: Arity::Required(1),
        metavar: metavar.into(),
    };
    assert_eq!(harmless(&opt("-f", "FILE")), "names.txt");
    assert_eq!(harmless(&opt("--files0-from", "F")), "names0.txt");
    assert_eq!(harmless(&opt("-n", "NUM")), "1");
}

#[test]
fn strace_logs_are_read_as_the_files_each_call_touched() {
    let ws = Path::new("/w");
    let log = r#"10 openat(AT_FDCWD</w>, "secret.txt", O_RDONLY) = 3</w/secret.txt>
10 openat(AT_FDCWD</w>, "nope", O_RDONLY) = -1 ENOENT (No such file or directory)
11 openat(AT_FDCWD</w>, "protected/guarded.txt", O_WRONLY|O_CREAT|O_TRUNC, 0666 <unfinished ...>
11 <... openat resumed>) = 4</w/protected/guarded.txt>
12 unlinkat(5</w/protected>, "guarded.txt", 0) = 0
12 newfstatat(AT_FDCWD</w>, "secret.txt", {st_mode=S_IFREG|0644, st_size=5, ...}, 0) = 0
13 rename("protected/x", "/w/y") = 0
"#;
    let got = violations(&parse_log(log, ws), ws);
    assert_eq!(
        got,
        [
            "read secret.txt (openat)",
            "wrote protected/guarded.txt (openat)",
            "wrote protected/guarded.txt (unlinkat)",
            "wrote protected/x (rename)",
        ]
    );
}

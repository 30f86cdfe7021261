//! Scripts the session wrote, run as programs: an allow for the
//! interpreter or the path does not cover them.
//!
//! The person allowed `python3 *` or `./run.sh` for what those files held
//! when they wrote the rule. A file whose change time is newer than the
//! session's start was written (or replaced, linked, renamed) since; the
//! agent running it is the agent running its own code. The change time is
//! the kernel's: no program can set it back.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use toolgate_policy::Action;

use super::*;

/// Interpreters whose first operand is the script they run, and the
/// options after which there is no script file (code given inline, a
/// module by name).
const INTERPRETERS: &[(&str, &[&str])] = &[
    ("python", &["-c", "-m"]),
    ("bash", &["-c"]),
    ("sh", &["-c"]),
    ("dash", &["-c"]),
    ("zsh", &["-c"]),
    ("ksh", &["-c"]),
    ("fish", &["-c", "--command"]),
    ("node", &["-e", "--eval", "-p", "--print"]),
    ("nodejs", &["-e", "--eval", "-p", "--print"]),
    ("perl", &["-e", "-E"]),
    ("ruby", &["-e"]),
    ("php", &["-r"]),
    ("lua", &["-e"]),
    ("Rscript", &["-e"]),
    ("tsx", &["-e", "--eval"]),
    ("ts-node", &["-e", "--eval"]),
    ("bun", &["-e", "--eval"]),
    ("source", &[]),
    (".", &[]),
];

/// The shells among them, whose option clusters take values letter by
/// letter.
const SHELLS: &[&str] = &["bash", "sh", "dash", "zsh", "ksh"];

/// Options of those interpreters that take the next word as their value.
const TAKES_VALUE: &[&str] = &["-W", "-X", "-o", "-O", "-r", "--require", "-I", "--import"];

impl Gate {
    /// The policy's allow, unless the call runs a script written since the
    /// session began: then an ask naming it.
    pub(super) fn self_written(&self, snapshot: &Call, decision: Decision) -> Decision {
        let Some(start) = self.session_start else {
            return decision;
        };
        if decision.decision != Effect::Allow || decision.mode == Mode::Bypass {
            return decision;
        }
        let base = snapshot
            .cwd
            .clone()
            .or_else(|| self.policy.roots().first().cloned());
        let fresh = decision.actions.iter().find_map(|a| match &a.action {
            Action::Exec { argv, cwd, .. } => {
                // Where the command runs: the directory an earlier part of
                // it changed to (`cd sub && python3 diag.py`), else the
                // call's.
                let here = cwd.as_deref().map(|c| resolve(c, base.as_deref()));
                let base = here.as_deref().or(base.as_deref());
                scripts(argv)
                    .into_iter()
                    .map(|s| resolve(&s, base))
                    .find(|p| changed_since(p, start))
            }
            _ => None,
        });
        let Some(path) = fresh else {
            return decision;
        };
        let mut asked = decision;
        asked.reason = format!(
            "`{}` was written or changed during this session and runs as a program; an allow for its interpreter or path does not cover what the agent wrote",
            path.display()
        );
        asked.decision = Effect::Ask;
        asked.rule = Some(rule_ids::GATE_SELF_WRITTEN.into());
        asked.hard = false;
        asked.remember = false;
        asked.grant_rules = Vec::new();
        asked
    }
}

/// The files a command runs as code: its [script], the files of a module
/// `python -m` runs from the working directory (`-m diag` runs `diag.py`
/// or `diag/__main__.py` there before any installed one), and the files
/// an interpreter is told to load first by path (`node -r ./hook.js`).
fn scripts(argv: &[String]) -> Vec<String> {
    let mut out: Vec<String> = script(argv).into_iter().collect();
    let Some(program) = argv.first().filter(|p| is_interpreter(p)) else {
        return out;
    };
    let name = interpreter_name(program.rsplit('/').next().unwrap_or(program));
    let mut words = argv.iter().skip(1);
    while let Some(w) = words.next() {
        if w == "--" || !w.starts_with('-') {
            break;
        }
        let (opt, inline) = match w.split_once('=') {
            Some((o, v)) => (o, Some(v.to_string())),
            None => (w.as_str(), None),
        };
        // `-mdiag` is `-m diag`.
        let (opt, inline) = match (name, opt.strip_prefix("-m")) {
            ("python", Some(rest)) if !rest.is_empty() && inline.is_none() => {
                ("-m", Some(rest.to_string()))
            }
            _ => (opt, inline),
        };
        let takes = opt == "-m" || TAKES_VALUE.contains(&opt);
        let value = match inline {
            Some(v) => Some(v),
            None if takes => words.next().cloned(),
            None => None,
        };
        let Some(value) = value else { continue };
        if name == "python" && opt == "-m" {
            let module = value.replace('.', "/");
            out.push(format!("{module}.py"));
            out.push(format!("{module}/__main__.py"));
            out.push(format!("{module}/__init__.py"));
            break;
        }
        if matches!(opt, "-r" | "--require" | "--import")
            && (value.starts_with('.') || value.starts_with('/'))
        {
            out.push(value);
        }
    }
    out
}

/// The file a command runs as a program: a command word with a slash, or
/// the script an interpreter is given.
fn script(argv: &[String]) -> Option<String> {
    let program = argv.first()?;
    if program.contains('/') && !is_interpreter(program) {
        return Some(program.clone());
    }
    let name = program.rsplit('/').next().unwrap_or(program);
    let (_, inline) = INTERPRETERS
        .iter()
        .find(|(n, _)| interpreter_name(name) == *n)?;
    let mut words = argv.iter().skip(1);
    // `deno run FILE`, `bun run FILE`.
    let mut skip_run = matches!(name, "deno" | "bun");
    while let Some(w) = words.next() {
        if skip_run && w == "run" {
            skip_run = false;
            continue;
        }
        if w == "--" {
            return words.next().cloned();
        }
        // `-c CODE`, `-cCODE`, `--eval=CODE`.
        if inline.iter().any(|o| {
            w == o || w.starts_with(&format!("{o}=")) || (o.len() == 2 && w.starts_with(o))
        }) {
            return None;
        }
        if w.starts_with('-') && w.len() > 1 {
            if TAKES_VALUE.contains(&w.as_str()) {
                words.next();
            } else if SHELLS.contains(&interpreter_name(name)) && !w.starts_with("--") {
                // bash reads a cluster a letter at a time: each `o` or `O`
                // takes the next word (`bash -euo pipefail run.sh`).
                for _ in w.chars().filter(|c| matches!(c, 'o' | 'O')) {
                    words.next();
                }
            }
            continue;
        }
        if SHELLS.contains(&interpreter_name(name)) && w.starts_with('+') && w.len() > 1 {
            for _ in w.chars().filter(|c| matches!(c, 'o' | 'O')) {
                words.next();
            }
            continue;
        }
        return Some(w.clone());
    }
    None
}

/// `python3.12` and `python3` are `python`; `deno` is one too (with `run`).
fn interpreter_name(name: &str) -> &str {
    if name.starts_with("python") {
        return "python";
    }
    match name {
        "deno" => "bun",
        n => n,
    }
}

fn is_interpreter(program: &str) -> bool {
    let name = program.rsplit('/').next().unwrap_or(program);
    let name = interpreter_name(name);
    INTERPRETERS.iter().any(|(n, _)| *n == name) && name != "."
}

fn resolve(path: &str, base: Option<&Path>) -> PathBuf {
    let p = Path::new(path);
    match base {
        Some(b) if p.is_relative() => b.join(p),
        _ => p.to_path_buf(),
    }
}

/// How much earlier than the session's start a change still counts: file
/// times come from the kernel's coarse clock, which can lag the clock a
/// session's start is read from by a few milliseconds.
const CLOCK_SLACK: std::time::Duration = std::time::Duration::from_millis(50);

/// The file, or the link naming it, changed at or after `start`. A file
/// that cannot be looked at was not written by the session as far as this
/// check can tell; the rules have decided it.
fn changed_since(path: &Path, start: SystemTime) -> bool {
    let start = start.checked_sub(CLOCK_SLACK).unwrap_or(start);
    use std::os::unix::fs::MetadataExt;
    let since = |m: std::fs::Metadata| {
        let ctime = SystemTime::UNIX_EPOCH
            + std::time::Duration::new(
                u64::try_from(m.ctime()).unwrap_or(0),
                u32::try_from(m.ctime_nsec()).unwrap_or(0),
            );
        ctime >= start
    };
    std::fs::symlink_metadata(path).is_ok_and(since) || std::fs::metadata(path).is_ok_and(since)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn the_script_a_command_runs() {
        for (cmd, want) in [
            ("python3 diag.py x", Some("diag.py")),
            ("python3.12 -u diag.py", Some("diag.py")),
            ("python3 -W ignore diag.py", Some("diag.py")),
            ("python3 -m pytest", None),
            ("python3 -c print(1)", None),
            ("bash run.sh", Some("run.sh")),
            ("bash -c ls", None),
            ("./run.sh --fast", Some("./run.sh")),
            ("scripts/build", Some("scripts/build")),
            ("/usr/bin/python3 tool.py", Some("tool.py")),
            ("node --eval 1", None),
            ("node app.js", Some("app.js")),
            ("deno run -A main.ts", Some("main.ts")),
            ("source env.sh", Some("env.sh")),
            ("bash -euo pipefail run.sh", Some("run.sh")),
            ("bash -xeO extglob run.sh x", Some("run.sh")),
            ("sh +o posix -e run.sh", Some("run.sh")),
            (". env.sh", Some("env.sh")),
            ("ls -la", None),
            ("cargo test", None),
        ] {
            assert_eq!(script(&argv(cmd)).as_deref(), want, "{cmd}");
        }
    }

    #[test]
    fn the_files_a_command_runs_as_code() {
        for (cmd, want) in [
            (
                "python3 -m diag",
                &["diag.py", "diag/__main__.py", "diag/__init__.py"][..],
            ),
            (
                "python3 -u -mpkg.tool x",
                &[
                    "pkg/tool.py",
                    "pkg/tool/__main__.py",
                    "pkg/tool/__init__.py",
                ],
            ),
            ("python3 diag.py", &["diag.py"]),
            ("python3 -c import", &[]),
            ("node -r ./hook.js app.js", &["app.js", "./hook.js"]),
            ("node --import=./hook.mjs app.js", &["app.js", "./hook.mjs"]),
            ("node -r dotenv/config app.js", &["app.js"]),
            ("cargo run -m x", &[]),
        ] {
            assert_eq!(scripts(&argv(cmd)), want, "{cmd}");
        }
    }
}

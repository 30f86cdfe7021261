//! The held corpus through the real Claude Code: every command
//! `sandbox_corpus` runs directly inside `toolgate sandbox` (the corpus
//! commands the sandbox holds, and the attacks), plus two commits, issued by
//! the model as `Bash` tool calls one after another in one Claude Code
//! session per policy (the hook does not honour a project policy that
//! changed during a session), with the hook installed as `hook install
//! claude --sandbox` installs it.
//!
//! Between two model turns (the client waits for the fake API's answer) the
//! test checks the command just run, then puts the workspace back as it was,
//! so that each command meets the same fixture as in `sandbox_corpus`. Per
//! command:
//!
//! - the hook let it run inside the sandbox: its ledger row allows it, held
//!   (`sandbox:holds`) for the corpus and the attacks, with the rewrite
//!   noted;
//! - a corpus command did what it does when run directly inside `toolgate
//!   sandbox` in a fresh fixture: the same files in the workspace, and what
//!   it printed in the tool result; a commit landed in `git log`;
//! - nothing outside the workspace (the client's own folders aside) and no
//!   protected path that existed changed;
//! - no secret (the fixture's files, a secret-looking environment variable,
//!   the client's API key) is in the tool result the model received or in
//!   a file left in the workspace.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use toolgate_store::{Decision, RowFilter, Store};

use crate::corpus_fixture::{ATTACKS, POLICIES, SECRET, Ws, corpus, toolgate_sandbox_available};
use crate::sandbox_hooks_e2e::install;
use crate::support::anthropic::{FakeAnthropic, ToolResult};
use crate::support::http::Limits;
use crate::support::{Sandbox, Turn, have_clients, run_claude_with};

/// Commits, which no held corpus command makes, under `dev`: one its `git`
/// rule allows, one held (the `eval` hides it from the analysis); with the
/// subject each leaves in `git log`.
const COMMITS: &[(&str, &str)] = &[
    (
        "git add README.md && git commit -qm corpus-allowed",
        "corpus-allowed",
    ),
    (
        "eval \"$(printf 'git add notes.txt f.txt && git commit -qm corpus-held')\"",
        "corpus-held",
    ),
];

/// A secret in the client's environment, under a name that looks like one.
const ENV_SECRET: (&str, &str) = ("DEPLOY_API_TOKEN", "SECRET-c0rpus-91b2-env");
/// The client's own API key (`run_claude_with` sets it).
const API_KEY: &str = "sk-ant-offline-test";

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Corpus,
    Attack,
    /// A commit, with its subject.
    Commit(&'static str),
}

#[derive(Debug, Clone)]
struct Case {
    policy: String,
    /// As written, `HOME` and `BASE` not yet expanded.
    command: String,
    kind: Kind,
}

/// Every command the sessions run, in order.
fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    for (policy, command) in corpus() {
        if Ws::new(&policy).held(&command) {
            out.push(Case {
                policy,
                command,
                kind: Kind::Corpus,
            });
        }
    }
    for attack in ATTACKS {
        out.push(Case {
            policy: "dev".into(),
            command: (*attack).into(),
            kind: Kind::Attack,
        });
    }
    for (command, subject) in COMMITS {
        out.push(Case {
            policy: "dev".into(),
            command: (*command).into(),
            kind: Kind::Commit(subject),
        });
    }
    out
}

/// One entry of a directory tree, as put back between commands.
#[derive(Debug, Clone, PartialEq)]
enum Entry {
    Dir(u32),
    File(Vec<u8>, u32),
    Link(PathBuf),
}

/// Every path beneath `root`, relative, with what it is.
fn entries(root: &Path) -> BTreeMap<PathBuf, Entry> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(list) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in list.flatten() {
            let path = entry.path();
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            let mode = meta.permissions().mode() & 0o7777;
            let relative = path.strip_prefix(root).unwrap().to_path_buf();
            let value = if meta.is_dir() {
                stack.push(path.clone());
                Entry::Dir(mode)
            } else if meta.is_symlink() {
                Entry::Link(std::fs::read_link(&path).unwrap())
            } else {
                Entry::File(std::fs::read(&path).unwrap_or_default(), mode)
            };
            out.insert(relative, value);
        }
    }
    out
}

/// Puts `root` back as `pristine`, touching only what differs: a file the
/// client reads (its settings) is never rewritten unless a command changed
/// it.
fn restore(root: &Path, pristine: &BTreeMap<PathBuf, Entry>) {
    let now = entries(root);
    // Children before their parents.
    for (path, entry) in now.iter().rev() {
        let keep = match (entry, pristine.get(path)) {
            (Entry::Dir(_), Some(Entry::Dir(_))) | (Entry::File(..), Some(Entry::File(..))) => true,
            (Entry::Link(a), Some(Entry::Link(b))) => a == b,
            _ => false,
        };
        if keep {
            continue;
        }
        let full = root.join(path);
        if let Entry::Dir(_) = entry {
            let _ = std::fs::set_permissions(&full, std::fs::Permissions::from_mode(0o755));
            std::fs::remove_dir_all(&full)
                .unwrap_or_else(|e| panic!("remove {}: {e}", full.display()));
        } else {
            std::fs::remove_file(&full)
                .unwrap_or_else(|e| panic!("remove {}: {e}", full.display()));
        }
    }
    let now = entries(root);
    for (path, entry) in pristine {
        let full = root.join(path);
        if now.get(path) == Some(entry) {
            continue;
        }
        match entry {
            Entry::Dir(mode) => {
                std::fs::create_dir_all(&full).unwrap();
                std::fs::set_permissions(&full, std::fs::Permissions::from_mode(*mode)).unwrap();
            }
            Entry::File(bytes, mode) => {
                let _ = std::fs::set_permissions(&full, std::fs::Permissions::from_mode(0o644));
                if !matches!(now.get(path), Some(Entry::File(b, _)) if b == bytes) {
                    std::fs::write(&full, bytes).unwrap();
                }
                std::fs::set_permissions(&full, std::fs::Permissions::from_mode(*mode)).unwrap();
            }
            Entry::Link(target) => {
                if !now.contains_key(path) {
                    std::os::unix::fs::symlink(target, &full).unwrap();
                }
            }
        }
    }
    assert_eq!(&entries(root), pristine, "the workspace was not put back");
}

/// The workspace as a command leaves it, comparable across workspaces:
/// each path with its content, `base` written `BASE`. The client's settings
/// (which hold the hook) are left out.
fn view(root: &Path, base: &Path) -> BTreeMap<PathBuf, String> {
    let base = base.display().to_string();
    entries(root)
        .into_iter()
        .filter(|(path, _)| !path.starts_with(".claude"))
        .map(|(path, entry)| {
            let value = match entry {
                Entry::Dir(mode) => format!("dir {mode:o}"),
                Entry::Link(target) => format!("-> {}", target.display()),
                Entry::File(bytes, mode) => format!(
                    "{mode:o} {}",
                    String::from_utf8_lossy(&bytes).replace(&base, "BASE")
                ),
            };
            (path, value)
        })
        .collect()
}

/// The tool use id the fake API gives the `index`th call.
fn tool_use_id(index: usize) -> String {
    format!("toolu_{:02}", index + 1)
}

/// The state the fake API's observer keeps between turns.
struct Progress {
    /// The case whose command the model is about to run, with the
    /// workspace snapshot taken before it.
    prepared: Option<(usize, BTreeMap<PathBuf, String>)>,
    /// How many cases were checked.
    checked: usize,
    /// What went wrong, per case checked.
    failures: Vec<String>,
    ran: usize,
}

struct Observer {
    cases: Vec<Case>,
    ws: Ws,
    pristine: BTreeMap<PathBuf, Entry>,
    progress: Mutex<Progress>,
}

impl Observer {
    /// Called before the fake API answers a turn carrying `done` results.
    fn turn(&self, done: usize, results: &[ToolResult]) {
        let mut progress = self.progress.lock().unwrap();
        if done == progress.checked + 1
            && let Some((index, before)) = progress.prepared.take()
        {
            assert_eq!(index, progress.checked);
            let wrong = self.check(index, &before, &results[index]);
            if wrong.is_empty() {
                if self.cases[index].kind != Kind::Attack {
                    progress.ran += 1;
                }
            } else {
                let case = &self.cases[index];
                progress.failures.push(format!(
                    "{:?} {:?} (under `{}`): {}",
                    case.kind,
                    self.ws.expand(&case.command),
                    case.policy,
                    wrong.join("; ")
                ));
            }
            progress.checked += 1;
        }
        if done == progress.checked && done < self.cases.len() && progress.prepared.is_none() {
            restore(&self.ws.root, &self.pristine);
            progress.prepared = Some((done, self.ws.snapshot()));
        }
    }

    /// What went wrong with the `index`th case, which just ran.
    fn check(
        &self,
        index: usize,
        before: &BTreeMap<PathBuf, String>,
        result: &ToolResult,
    ) -> Vec<String> {
        let case = &self.cases[index];
        let ws = &self.ws;
        let mut wrong = Ws::changes(before, &ws.snapshot());
        if result.tool_use_id != tool_use_id(index) {
            wrong.push(format!("the result is of {}", result.tool_use_id));
        }
        for secret in [SECRET, ENV_SECRET.1, API_KEY] {
            for path in ws.leaks(secret) {
                wrong.push(format!("{} holds {secret}", path.display()));
            }
            if result.content.contains(secret) {
                wrong.push(format!("the model received {secret}"));
            }
        }
        // The hook's decision: allowed, rewritten to run inside the sandbox.
        let rows = Store::open(ws.state.join("toolgate.db"))
            .expect("open the ledger")
            .rows(&RowFilter {
                call_id: Some(tool_use_id(index)),
                ..RowFilter::default()
            })
            .expect("ledger rows");
        match rows.as_slice() {
            [row] => {
                let r = &row.record;
                // A commit may be allowed by a rule; the rest only because
                // the sandbox holds them.
                let held = r.rule.as_deref() == Some("sandbox:holds")
                    || matches!(case.kind, Kind::Commit(_));
                if r.decision != Decision::Allow
                    || !held
                    || !r.note.as_deref().is_some_and(|n| n.contains("sandbox"))
                {
                    wrong.push(format!(
                        "the hook decided {} by {:?} ({}), ran as {:?}: {}",
                        r.decision, r.rule, r.reason, r.note, result.content
                    ));
                }
            }
            rows => wrong.push(format!("{} ledger rows", rows.len())),
        }
        match case.kind {
            Kind::Corpus => {
                // The same command run directly inside the sandbox, in a
                // fresh fixture: what it leaves and prints.
                let direct = Ws::new(&case.policy);
                // Bash does not wait for an output process substitution
                // (`tee >(sh)`): what it prints reaches the client or not
                // by timing. Run directly, the command waits for it (bash
                // 5.1's `wait` takes the last process substitution), so
                // that everything it may print is there to compare with.
                let asynchronous = case.command.contains(">(");
                let script = direct.expand(&case.command);
                let script = if asynchronous {
                    format!("{script}\nwait")
                } else {
                    script
                };
                let printed = direct.run(&script);
                let expected = view(&direct.root, &direct.base);
                let got = view(&ws.root, &ws.base);
                if expected != got {
                    let differ: Vec<String> = expected
                        .iter()
                        .filter(|(p, v)| got.get(*p) != Some(*v))
                        .map(|(p, v)| {
                            format!("{}: {v:?} run directly, {:?} here", p.display(), got.get(p))
                        })
                        .chain(
                            got.iter()
                                .filter(|(p, _)| !expected.contains_key(*p))
                                .map(|(p, v)| format!("{}: only here ({v:?})", p.display())),
                        )
                        .collect();
                    wrong.push(format!("it left another workspace: {}", differ.join(", ")));
                }
                let printed =
                    timings_masked(&printed.replace(&direct.base.display().to_string(), "BASE"));
                let content = timings_masked(
                    &result
                        .content
                        .replace(&ws.base.display().to_string(), "BASE"),
                );
                // There everything the model received must be something
                // the command prints, not the other way.
                let lines = |t: &str| -> Vec<String> {
                    t.lines()
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .map(str::to_string)
                        .collect()
                };
                if asynchronous {
                    let all = lines(&printed);
                    if let Some(line) = lines(&content).into_iter().find(|l| !all.contains(l)) {
                        wrong.push(format!(
                            "the model received {line:?}, which the command does not print: {content:?}, directly {printed:?}"
                        ));
                    }
                } else if let Some(line) = lines(&printed)
                    .into_iter()
                    .find(|l| !content.contains(l.as_str()))
                {
                    wrong.push(format!(
                        "the model did not receive {line:?}: {content:?}, directly {printed:?}"
                    ));
                }
            }
            Kind::Commit(subject) => {
                let log = Command::new("git")
                    .args(["log", "--format=%s"])
                    .current_dir(&ws.root)
                    .env("GIT_CONFIG_GLOBAL", "/dev/null")
                    .output()
                    .expect("run git log");
                let log = String::from_utf8_lossy(&log.stdout).into_owned();
                if log.trim() != subject {
                    wrong.push(format!("git log: {log:?}: {}", result.content));
                }
            }
            Kind::Attack => {}
        }
        wrong
    }
}

/// What one session under one policy came to.
struct Session {
    commands: usize,
    checked: usize,
    ran: usize,
    results: usize,
    failures: Vec<String>,
}

/// Runs `cases` (all under `policy`) one `Bash` call after another in one
/// Claude Code session, in a fresh workspace with the hook installed as
/// `hook install claude --sandbox` installs it.
fn session(policy: &str, cases: Vec<Case>) -> Session {
    let sandbox = Sandbox::new_in(Path::new(env!("CARGO_TARGET_TMPDIR")));
    let mut ws = Ws::lay_out(
        &sandbox.base,
        &sandbox.project,
        &sandbox.home,
        &sandbox.state,
    );
    // The client's own folders, which it writes during the session.
    ws.skip = vec![sandbox.claude_config.clone(), sandbox.hooks.clone()];
    ws.set_policy(policy);
    install(&sandbox, "claude", &["--sandbox"]);
    let pristine = entries(&sandbox.project);
    let script = cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            Turn::tool(
                "Bash",
                json!({
                    "command": ws.expand(&case.command),
                    "description": format!("Corpus command {}", i + 1),
                    "timeout": 30_000,
                }),
            )
        })
        .collect();
    let commands = cases.len();
    let observer = Arc::new(Observer {
        cases,
        ws,
        pristine,
        progress: Mutex::new(Progress {
            prepared: None,
            checked: 0,
            failures: Vec::new(),
            ran: 0,
        }),
    });
    let watching = Arc::clone(&observer);
    let api = FakeAnthropic::start_observed(
        script,
        Limits {
            max_requests: 5_000,
            lifetime: Duration::from_secs(1_200),
        },
        move |done, results| watching.turn(done, results),
    );
    let run = run_claude_with(
        &sandbox,
        &api,
        "Run the commands.",
        &[],
        &[
            ENV_SECRET,
            ("GIT_CONFIG_GLOBAL", "/dev/null"),
            ("GIT_AUTHOR_NAME", "t"),
            ("GIT_AUTHOR_EMAIL", "t@t"),
            ("GIT_COMMITTER_NAME", "t"),
            ("GIT_COMMITTER_EMAIL", "t@t"),
        ],
        Duration::from_secs(900),
    );
    assert!(run.status.success(), "claude failed: {}", run.stderr);
    let mut progress = observer.progress.lock().unwrap();
    Session {
        commands,
        checked: progress.checked,
        ran: progress.ran,
        results: api.tool_results().len(),
        failures: std::mem::take(&mut progress.failures),
    }
}

/// The held corpus, the attacks and two commits, run by the real Claude
/// Code one `Bash` call after another through `hook claude --sandbox`: one
/// session per policy, since the hook does not honour a project policy
/// that changed during a session.
#[test]
fn claude_code_runs_the_sandbox_corpus() {
    if !have_clients() || !toolgate_sandbox_available() {
        return;
    }
    let started = Instant::now();
    let cases = cases();
    let count = |kind: fn(&Kind) -> bool| cases.iter().filter(|c| kind(&c.kind)).count();
    let corpus = count(|k| *k == Kind::Corpus);
    let mut failures = Vec::new();
    for policy in POLICIES {
        let mine: Vec<Case> = cases
            .iter()
            .filter(|c| c.policy == *policy)
            .cloned()
            .collect();
        let s = session(policy, mine);
        eprintln!(
            "under `{policy}`: {} commands through Claude Code, {} checked, {} legitimate ran, \
             {} failures",
            s.commands,
            s.checked,
            s.ran,
            s.failures.len()
        );
        failures.extend(s.failures);
        if s.results != s.commands || s.checked != s.commands {
            failures.push(format!(
                "under `{policy}`: {} commands, {} results, {} checked",
                s.commands, s.results, s.checked
            ));
        }
    }
    eprintln!(
        "{} commands ({corpus} held corpus commands, {} attacks, {} commits) in {:.0?}",
        cases.len(),
        count(|k| *k == Kind::Attack),
        count(|k| matches!(k, Kind::Commit(_))),
        started.elapsed(),
    );
    assert!(
        failures.is_empty(),
        "{} of {} commands went wrong through Claude Code:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(corpus >= 20, "only {corpus} corpus commands were held");
}

/// `text` with the milliseconds a program reports having waited (`curl:
/// (7) Failed to connect .. after 3 ms`) masked: two runs differ there.
fn timings_masked(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("after ") {
        let (head, tail) = rest.split_at(i + "after ".len());
        out.push_str(head);
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && tail[digits..].starts_with(" ms") {
            out.push('N');
            rest = &tail[digits..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

//! `toolgate hook claude|gemini --sandbox` under the real Claude Code and
//! Gemini CLI: an allowed interpreter command that no parser can see into
//! (`python3 -c` copying a denied file) runs rewritten under `toolgate
//! sandbox`, so the copy never holds the secret. Without `--sandbox` the
//! same run copies it, which proves the test can tell the two apart.

pub(crate) use crate::hooks_e2e::install;
use crate::support;

use std::process::Command;

use serde_json::json;
use support::anthropic::FakeAnthropic;
use support::gemini::FakeGemini;
use support::{Sandbox, Turn, run_claude, run_gemini};
use toolgate_store::{RowFilter, Store};

const POLICY: &str = r#"
allow = ["Read", "Bash(python3 *)", "run_shell_command(python3 *)"]
deny  = ["Read(secret.txt)"]
"#;

const COPY: &str = "python3 -c \"open('copy.txt','w').write(open('secret.txt').read() + '|ran')\"";

fn project() -> (Sandbox, String) {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path("toolgate.toml"), POLICY).expect("write the policy");
    let secret = format!("tg-sandbox-secret-{}", std::process::id());
    std::fs::write(sandbox.path("secret.txt"), &secret).expect("write the secret");
    (sandbox, secret)
}

fn copy(sandbox: &Sandbox) -> String {
    std::fs::read_to_string(sandbox.path("copy.txt")).unwrap_or_default()
}

/// The ledger's note for the call: what it ran as.
fn ran_as(sandbox: &Sandbox) -> Option<String> {
    Store::open(sandbox.state.join("toolgate.db"))
        .expect("open the ledger")
        .rows(&RowFilter::default())
        .expect("ledger rows")
        .into_iter()
        .find_map(|r| r.record.note)
}

/// Installs the Claude Code hook, with `--sandbox` or without, and has
/// Claude Code run the copy once; returns the fake API with what it was
/// sent.
fn claude_runs_the_copy(sandbox: &Sandbox, sandboxed: bool) -> FakeAnthropic {
    // `hook install` registers the sandbox by default where the kernel
    // enforces it: the control run opts out.
    let args: &[&str] = if sandboxed {
        &["--sandbox"]
    } else {
        &["--no-sandbox"]
    };
    install(sandbox, "claude", args);
    let api = FakeAnthropic::start(vec![Turn::tool(
        "Bash",
        json!({"command": COPY, "description": "Copy"}),
    )]);
    let run = run_claude(sandbox, &api, "Copy the file.", &[]);
    assert!(run.status.success(), "claude failed: {}", run.stderr);
    api
}

#[test]
fn claude_code_runs_an_allowed_command_inside_the_sandbox() {
    if !crate::support::have_clients() {
        return;
    }
    for sandboxed in [true, false] {
        let (sandbox, secret) = project();
        claude_runs_the_copy(&sandbox, sandboxed);
        let copied = copy(&sandbox);
        if sandboxed {
            assert_eq!(copied, "|ran", "the sandboxed copy holds {copied:?}");
            let note = ran_as(&sandbox).expect("the ledger records the rewrite");
            assert!(note.contains("sandbox") && note.contains("bash"), "{note}");
        } else {
            assert_eq!(
                copied,
                format!("{secret}|ran"),
                "the control run did not copy"
            );
        }
    }
}

#[test]
fn gemini_cli_runs_an_allowed_command_inside_the_sandbox() {
    if !crate::support::have_clients() {
        return;
    }
    for sandboxed in [true, false] {
        let (sandbox, secret) = project();
        let args: &[&str] = if sandboxed {
            &["--sandbox"]
        } else {
            &["--no-sandbox"]
        };
        install(&sandbox, "gemini", args);
        let api = FakeGemini::start(vec![Turn::tool(
            "run_shell_command",
            json!({"command": COPY, "description": "Copy"}),
        )]);
        let run = run_gemini(&sandbox, &api, "Copy the file.", &[]);
        assert!(run.status.success(), "gemini failed: {}", run.stderr);
        let copied = copy(&sandbox);
        if sandboxed {
            assert_eq!(copied, "|ran", "the sandboxed copy holds {copied:?}");
            assert!(ran_as(&sandbox).is_some(), "the ledger records the rewrite");
        } else {
            assert_eq!(
                copied,
                format!("{secret}|ran"),
                "the control run did not copy"
            );
        }
    }
}

/// A command the policy asks about, under `--sandbox`: Claude Code gets
/// `ask` with the rewritten input (so that a person approving it runs it
/// sandboxed) and takes it as the same valid answer as a plain `ask`: in
/// `-p` mode, with nobody to prompt, the call is refused with the reason
/// alone, in both runs alike. The command does not run, and the ledger
/// notes the rewrite it was shown as.
#[test]
fn claude_code_takes_an_asked_command_with_its_sandboxed_rewrite() {
    if !crate::support::have_clients() {
        return;
    }
    let mut told = Vec::new();
    for sandboxed in [true, false] {
        let (sandbox, _) = project();
        std::fs::write(
            sandbox.path("toolgate.toml"),
            "allow = [\"Read\"]\nask = [\"Bash(python3 *)\"]\n",
        )
        .expect("write the policy");
        let api = claude_runs_the_copy(&sandbox, sandboxed);
        assert!(
            !sandbox.path("copy.txt").exists(),
            "an asked command ran with nobody to approve it"
        );
        let results = api.tool_results();
        assert_eq!(results.len(), 1, "{results:?}");
        assert!(results[0].is_error, "{:?}", results[0]);
        assert!(
            results[0].content.contains("ask[0]"),
            "{}",
            results[0].content
        );
        told.push(results[0].content.clone());
        let note = ran_as(&sandbox);
        if sandboxed {
            let note = note.expect("the ledger records the rewrite");
            assert!(note.contains("sandbox") && note.contains("bash"), "{note}");
        } else {
            assert_eq!(note, None);
        }
    }
    assert_eq!(
        told[0], told[1],
        "Claude Code took the two answers differently"
    );
}

/// Under a policy that asks by default, the real Claude Code with `hook
/// claude --sandbox` runs a command no rule names without a question
/// (`sandbox:holds`), inside the sandbox: its write in the project lands,
/// its write of a git hook does not, and the commit a rule allows works
/// inside the boundary. Without `--sandbox`, the same command asks, and
/// with nobody to answer in `-p` mode it does not run.
#[test]
fn claude_code_runs_a_held_command_and_commits_inside_the_sandbox() {
    if !crate::support::have_clients() {
        return;
    }
    const HELD: &str = "python3 -c \"open('made.txt','w').write('held')\"; \
                        python3 -c \"open('.git/hooks/pre-commit','w').write('evil')\"";
    for sandboxed in [true, false] {
        let (sandbox, _) = project();
        std::fs::write(
            sandbox.path("toolgate.toml"),
            "allow = [\"Read\", \"Bash(git add *)\", \"Bash(git commit *)\"]\n\
             ask = [\"Bash(git push *)\"]\n[policy]\ndefault = \"ask\"\n",
        )
        .expect("write the policy");
        let git = |args: &[&str]| {
            Command::new("git")
                .args(args)
                .current_dir(&sandbox.project)
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .output()
                .expect("run git")
        };
        assert!(git(&["init", "-q", "."]).status.success());
        install(
            &sandbox,
            "claude",
            if sandboxed {
                &["--sandbox"]
            } else {
                &["--no-sandbox"]
            },
        );
        let commit = "git add made.txt && git -c user.name=t -c user.email=t@t commit -qm held";
        let api = FakeAnthropic::start(vec![
            Turn::tool("Bash", json!({"command": HELD, "description": "Make"})),
            Turn::tool("Bash", json!({"command": commit, "description": "Commit"})),
        ]);
        let run = run_claude(&sandbox, &api, "Make the file and commit it.", &[]);
        assert!(run.status.success(), "claude failed: {}", run.stderr);
        assert!(
            !sandbox.path(".git/hooks/pre-commit").exists(),
            "a git hook was written"
        );
        let made = std::fs::read_to_string(sandbox.path("made.txt")).unwrap_or_default();
        let log = git(&["log", "--format=%s"]);
        let log = String::from_utf8_lossy(&log.stdout).into_owned();
        if sandboxed {
            assert_eq!(made, "held", "{:?}", api.tool_results());
            assert_eq!(log.trim(), "held", "{:?}", api.tool_results());
            let rows = Store::open(sandbox.state.join("toolgate.db"))
                .expect("open the ledger")
                .rows(&RowFilter::default())
                .expect("ledger rows");
            assert!(
                rows.iter()
                    .any(|r| r.record.rule.as_deref() == Some("sandbox:holds")),
                "no held row"
            );
        } else {
            assert_eq!(made, "", "an asked command ran with nobody to approve it");
            assert_eq!(log.trim(), "", "{log}");
        }
    }
}

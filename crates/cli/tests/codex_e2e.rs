//! `toolgate hook codex` under the real Codex CLI, run headless and offline
//! against a fake Responses API (the harness of `crates/hook/tests/support`).
//!
//! The hook is installed with `toolgate hook install codex --user` into the
//! sandbox's `CODEX_HOME`; Codex runs with no approvals and no sandbox of its
//! own, so toolgate is the only gate. What happened is read from disk
//! (marker files), from what the model was told, and from the ledger. They
//! need `scripts/install-clients.sh` to have run.

#[path = "../../hook/tests/support/mod.rs"]
mod support;

use std::process::Command;

use serde_json::json;
use support::codex::FakeResponses;
use support::{Sandbox, Turn, run_codex};
use toolgate_store::{Decision, Outcome, RowFilter, Store};

const POLICY: &str = r#"
allow = ["Bash(git status)", "Bash(ls *)"]
deny  = ["Bash(rm *)"]
"#;

fn project(policy: &str) -> Sandbox {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path("toolgate.toml"), policy).expect("write the policy");
    std::fs::write(sandbox.path("keep.txt"), "still here\n").expect("write keep.txt");
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&sandbox.project)
        .env("HOME", &sandbox.home)
        .status()
        .expect("run git init");
    assert!(git.success(), "git init failed");
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["hook", "install", "codex", "--user"])
        .current_dir(&sandbox.project)
        .env("HOME", &sandbox.home)
        .env("CODEX_HOME", sandbox.home.join(".codex"))
        .output()
        .expect("run toolgate hook install codex");
    assert!(
        out.status.success(),
        "hook install failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    sandbox
}

fn exec(cmd: &str) -> Turn {
    Turn::tool("exec_command", json!({"cmd": cmd}))
}

#[test]
fn codex_runs_only_what_the_policy_allows() {
    let sandbox = project(POLICY);
    let api = FakeResponses::start(vec![
        exec("rm -f keep.txt"),
        exec("git status"),
        exec("git status && touch marker"),
    ]);
    let run = run_codex(&sandbox, &api, "tidy up");
    assert!(run.status.success(), "codex failed: {}", run.stderr);

    // What ran: the denied `rm` did not, nor the chained `touch`.
    assert!(sandbox.path("keep.txt").exists(), "`rm -f keep.txt` ran");
    assert!(
        !sandbox.path("marker").exists(),
        "`git status && touch marker` ran"
    );

    // What the model was told.
    let outputs = api.outputs();
    assert_eq!(outputs.len(), 3, "{outputs:?}");
    assert!(
        outputs[0].output.contains("denied by rule `deny[0]`"),
        "{}",
        outputs[0].output
    );
    assert!(
        outputs[0].output.contains("was not executed"),
        "{}",
        outputs[0].output
    );
    assert!(
        outputs[1].output.contains("On branch") && !outputs[1].output.contains("not executed"),
        "git status ran: {}",
        outputs[1].output
    );
    assert!(
        outputs[2].output.contains("was not executed"),
        "{}",
        outputs[2].output
    );

    // What the ledger holds: one row per call, tagged with the client.
    let rows = Store::open(sandbox.state.join("toolgate.db"))
        .expect("open the ledger")
        .rows(&RowFilter::default())
        .expect("ledger rows");
    let got: Vec<(Decision, Option<String>, Outcome)> = rows
        .iter()
        .map(|r| (r.record.decision, r.record.rule.clone(), r.record.outcome))
        .collect();
    assert_eq!(
        got,
        [
            (Decision::Deny, Some("deny[0]".into()), Outcome::Blocked),
            (Decision::Allow, Some("allow[0]".into()), Outcome::Passed),
            (Decision::Deny, None, Outcome::Blocked),
        ]
    );
    for row in &rows {
        assert_eq!(row.record.client.as_deref(), Some("codex"));
        assert_eq!(row.record.tool, "Bash");
    }
}

#[test]
fn a_call_the_hook_cannot_decide_is_blocked() {
    // A policy that does not load: the hook cannot decide anything.
    let sandbox = project("allow = [\"Bash(touch *)\"\n");
    let api = FakeResponses::start(vec![exec("touch marker")]);
    let run = run_codex(&sandbox, &api, "make a marker");
    assert!(run.status.success(), "codex failed: {}", run.stderr);
    assert!(!sandbox.path("marker").exists(), "the undecidable call ran");
    let outputs = api.outputs();
    assert_eq!(outputs.len(), 1, "{outputs:?}");
    assert!(
        outputs[0].output.contains("cannot load the policy"),
        "{}",
        outputs[0].output
    );
}

//! `toolgate hook qwen|copilot|pi|opencode` under the real Qwen Code,
//! Copilot CLI, Pi and OpenCode, run headless and offline against a fake
//! OpenAI chat-completions API (`crates/hook/tests/support/openai.rs`).
//!
//! Each client gets toolgate through `toolgate hook install CLIENT
//! --project` (Qwen Code and Copilot CLI: a command hook; Pi: an extension;
//! OpenCode: a plugin), in a git project holding the policy and
//! `victim.txt`. What happened is read from disk (the victim survives),
//! from what the model was told, and from the ledger. They need
//! `scripts/install-clients.sh` to have run (skipped without it, required
//! under CI=true).

use crate::support;

use std::process::Command;

use serde_json::json;
use support::openai::FakeChat;
use support::{ChatClient, Sandbox, Turn, run_chat};
use toolgate_store::{Decision, Outcome, RowFilter, Store};

const POLICY: &str = r#"
allow = ["Bash(git status)", "Bash(touch ran.txt)"]
deny  = ["Bash(rm *)"]
"#;

/// A git project with `policy` and `victim.txt`, and toolgate installed
/// for `client`.
fn project(client: ChatClient, policy: &str) -> Sandbox {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path("toolgate.toml"), policy).expect("write the policy");
    std::fs::write(sandbox.path("victim.txt"), "still here\n").expect("write victim.txt");
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&sandbox.project)
        .env("HOME", &sandbox.home)
        .status()
        .expect("run git init");
    assert!(git.success(), "git init failed");
    let mut install = Command::new(env!("CARGO_BIN_EXE_toolgate"));
    install
        .args(["hook", "install", client.name(), "--project"])
        .current_dir(&sandbox.project)
        .env("HOME", &sandbox.home);
    for (k, v) in client.home_env(&sandbox) {
        install.env(k, v);
    }
    let out = install.output().expect("run toolgate hook install");
    assert!(
        out.status.success(),
        "hook install {} failed: {}",
        client.name(),
        String::from_utf8_lossy(&out.stderr)
    );
    sandbox
}

fn shell(client: ChatClient, command: &str) -> Turn {
    Turn::tool(
        client.shell_tool(),
        json!({"command": command, "description": "run it"}),
    )
}

fn ledger(sandbox: &Sandbox) -> Vec<(Decision, Option<String>, Outcome, String)> {
    Store::open(sandbox.state.join("toolgate.db"))
        .expect("open the ledger")
        .rows(&RowFilter::default())
        .expect("ledger rows")
        .iter()
        .map(|r| {
            let r = &r.record;
            (r.decision, r.client.clone(), r.outcome, r.tool.clone())
        })
        .collect()
}

/// A denied `rm`, an allowed `touch ran.txt && git status`, and `git status
/// && rm victim.txt`: only the allowed one runs, the model reads toolgate's
/// refusals, and the ledger has a row per call tagged with the client.
fn runs_only_what_the_policy_allows(client: ChatClient) {
    if !support::have_chat_clients() {
        return;
    }
    let sandbox = project(client, POLICY);
    let api = FakeChat::start(vec![
        shell(client, "rm victim.txt"),
        shell(client, "touch ran.txt && git status"),
        shell(client, "git status && rm victim.txt"),
    ]);
    let run = run_chat(client, &sandbox, &api, "tidy up");
    let shown = format!("{}\n--- stderr\n{}", run.stdout, run.stderr);
    assert!(run.status.success(), "{} failed: {shown}", client.name());
    eprintln!("{} ran three calls in {:?}", client.name(), run.elapsed);
    if client == ChatClient::OpenCode {
        // `hook install opencode` settled the config folders: OpenCode did
        // not install its plugin package (online it would have; offline it
        // would have retried for about two minutes).
        assert!(
            !sandbox.path(".opencode/node_modules/@opencode-ai").exists(),
            "OpenCode installed its plugin package"
        );
    }

    assert!(
        sandbox.path("victim.txt").exists(),
        "a denied `rm` ran: {shown}"
    );
    let results = api.results();
    assert_eq!(results.len(), 3, "{results:?}\n{shown}");
    for refused in [&results[0], &results[2]] {
        assert!(
            refused.content.contains("toolgate") && refused.content.contains("deny[0]"),
            "the model was not told toolgate refused it: {refused:?}"
        );
        assert!(!refused.content.contains("On branch"), "{refused:?}");
    }
    assert!(
        sandbox.path("ran.txt").exists() && !results[1].content.contains("deny["),
        "the allowed `touch ran.txt && git status` did not run: {:?}\n{shown}",
        results[1]
    );
    // Qwen Code's shell tool sometimes reports a short command's output as
    // "(empty)" with exit code 0 on a loaded machine, toolgate or not; the
    // marker above is what proves the command ran there.
    let lost_by_qwen = client == ChatClient::Qwen && results[1].content.contains("Output: (empty)");
    assert!(
        results[1].content.contains("On branch") || lost_by_qwen,
        "the output of git status did not reach the model: {:?}",
        results[1]
    );

    let rows = ledger(&sandbox);
    let name = Some(client.name().to_owned());
    let got: Vec<_> = rows
        .iter()
        .map(|(d, c, o, _)| (*d, c.clone(), *o))
        .collect();
    assert_eq!(
        got,
        vec![
            (Decision::Deny, name.clone(), Outcome::Blocked),
            (Decision::Allow, name.clone(), Outcome::Passed),
            (Decision::Deny, name, Outcome::Blocked),
        ],
        "{rows:?}"
    );
}

/// A policy that cannot be read blocks the call, and the model is told so
/// by toolgate.
fn an_unreadable_policy_blocks(client: ChatClient) {
    if !support::have_chat_clients() {
        return;
    }
    let sandbox = project(client, "allow = [\"Bash(*)\"\n");
    let api = FakeChat::start(vec![shell(client, "rm victim.txt")]);
    let run = run_chat(client, &sandbox, &api, "tidy up");
    let shown = format!("{}\n--- stderr\n{}", run.stdout, run.stderr);
    assert!(
        sandbox.path("victim.txt").exists(),
        "`rm` ran under a policy that does not load: {shown}"
    );
    let results = api.results();
    assert_eq!(results.len(), 1, "{results:?}\n{shown}");
    assert!(
        results[0].content.contains("toolgate"),
        "the refusal does not name toolgate: {:?}",
        results[0]
    );
}

#[test]
fn qwen_code_runs_only_what_the_policy_allows() {
    runs_only_what_the_policy_allows(ChatClient::Qwen);
}

#[test]
fn qwen_code_is_blocked_by_an_unreadable_policy() {
    an_unreadable_policy_blocks(ChatClient::Qwen);
}

#[test]
fn copilot_cli_runs_only_what_the_policy_allows() {
    runs_only_what_the_policy_allows(ChatClient::Copilot);
}

#[test]
fn copilot_cli_is_blocked_by_an_unreadable_policy() {
    an_unreadable_policy_blocks(ChatClient::Copilot);
}

#[test]
fn pi_runs_only_what_the_policy_allows() {
    runs_only_what_the_policy_allows(ChatClient::Pi);
}

#[test]
fn pi_is_blocked_by_an_unreadable_policy() {
    an_unreadable_policy_blocks(ChatClient::Pi);
}

#[test]
fn opencode_runs_only_what_the_policy_allows() {
    runs_only_what_the_policy_allows(ChatClient::OpenCode);
}

#[test]
fn opencode_is_blocked_by_an_unreadable_policy() {
    an_unreadable_policy_blocks(ChatClient::OpenCode);
}

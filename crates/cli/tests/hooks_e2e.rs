//! `toolgate hook claude` and `toolgate hook gemini` under the real Claude
//! Code and Gemini CLI, run headless and offline against fake model APIs
//! (the harness of `crates/hook/tests/support`).
//!
//! Each test installs the hook with `toolgate hook install` into a
//! throw-away project holding a `toolgate.toml`, plays a scripted
//! conversation, and checks what happened on disk (marker files), what the
//! model was told (the fake API's recorded requests), and what the ledger
//! holds. They need `scripts/install-clients.sh` to have run.

use crate::support;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::anthropic::FakeAnthropic;
use support::gemini::FakeGemini;
use support::{Sandbox, Turn, run_claude, run_gemini};
use toolgate_store::{
    Answer, ApprovalAnswer, Decision, Outcome, Pending, Row, RowFilter, RowKind, Store,
};

const POLICY: &str = r#"
allow = ["Read", "Bash(git status)", "Bash(cat *)", "Bash(touch made-by-allow)"]
ask   = ["Bash(touch made-after-approval)"]
deny  = ["Read(.env*)", "Bash(rm *)"]
"#;

/// A project with the policy, a git repository, a file for `rm` to miss,
/// and a secret in `.env` and `.env.local` that must never reach the model.
fn project() -> (Sandbox, String) {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path("toolgate.toml"), POLICY).expect("write the policy");
    std::fs::write(sandbox.path("keep.txt"), "still here\n").expect("write keep.txt");
    let secret = format!("tg-e2e-secret-{}-{}", std::process::id(), nanos());
    for file in [".env", ".env.local"] {
        std::fs::write(sandbox.path(file), format!("API_KEY={secret}\n")).expect("write .env");
    }
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&sandbox.project)
        .env("HOME", &sandbox.home)
        .status()
        .expect("run git init");
    assert!(git.success(), "git init failed");
    (sandbox, secret)
}

pub(crate) fn nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// `toolgate hook install CLIENT ARGS` in the project, as a user would run it.
pub(crate) fn install(sandbox: &Sandbox, client: &str, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["hook", "install", client])
        .args(args)
        .current_dir(&sandbox.project)
        .env("HOME", &sandbox.home)
        .env("GEMINI_CLI_HOME", &sandbox.home)
        .output()
        .expect("run toolgate hook install");
    assert!(
        out.status.success(),
        "hook install failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

pub(crate) fn ledger(sandbox: &Sandbox) -> Vec<Row> {
    Store::open(sandbox.state.join("toolgate.db"))
        .expect("open the ledger")
        .rows(&RowFilter::default())
        .expect("ledger rows")
}

fn bash(command: &str) -> Value {
    json!({"command": command, "description": "Run a command"})
}

/// The calls of the scripted conversation, each with the decision and rule
/// the ledger must hold for it.
struct Scripted {
    tool: &'static str,
    input: Value,
    decision: Decision,
    /// `None`: no rule matched and the policy's default decided.
    rule: Option<&'static str>,
}

fn assert_rows(rows: &[Row], script: &[Scripted], client: &str, session: &str) {
    let got: Vec<(String, Decision, Option<String>, Outcome)> = rows
        .iter()
        .map(|r| {
            (
                r.record.tool.clone(),
                r.record.decision,
                r.record.rule.clone(),
                r.record.outcome,
            )
        })
        .collect();
    let want: Vec<(String, Decision, Option<String>, Outcome)> = script
        .iter()
        .map(|s| {
            let outcome = if s.decision == Decision::Allow {
                Outcome::Passed
            } else {
                Outcome::Blocked
            };
            (
                s.tool.to_owned(),
                s.decision,
                s.rule.map(str::to_owned),
                outcome,
            )
        })
        .collect();
    assert_eq!(got, want, "one ledger row per call, in order");
    for row in rows {
        assert_eq!(row.kind, RowKind::Request);
        assert_eq!(row.record.client.as_deref(), Some(client));
        assert_eq!(row.record.session, session);
    }
}

// ---------------------------------------------------------------- Claude Code

fn claude_script(sandbox: &Sandbox) -> Vec<Scripted> {
    let env_file = sandbox.path(".env").display().to_string();
    let call = |tool, input, decision, rule| Scripted {
        tool,
        input,
        decision,
        rule,
    };
    vec![
        call(
            "Bash",
            bash("rm -f keep.txt"),
            Decision::Deny,
            Some("deny[1]"),
        ),
        call(
            "Bash",
            bash("git status"),
            Decision::Allow,
            Some("allow[1]"),
        ),
        call(
            "Bash",
            bash("touch made-by-allow"),
            Decision::Allow,
            Some("allow[3]"),
        ),
        call(
            "Bash",
            bash("git status && touch marker"),
            Decision::Deny,
            None,
        ),
        call(
            "Read",
            json!({"file_path": env_file}),
            Decision::Deny,
            Some("deny[0]"),
        ),
        call("Bash", bash("cat .env"), Decision::Deny, Some("deny[0]")),
    ]
}

#[test]
fn claude_code_runs_only_what_the_policy_allows() {
    if !crate::support::have_clients() {
        return;
    }
    let (sandbox, secret) = project();
    install(&sandbox, "claude", &[]);
    let script = claude_script(&sandbox);
    let api = FakeAnthropic::start(
        script
            .iter()
            .map(|s| Turn::tool(s.tool, s.input.clone()))
            .collect(),
    );
    let run = run_claude(&sandbox, &api, "Do the scripted steps.", &[]);
    assert!(run.status.success(), "claude failed: {}", run.stderr);
    assert_eq!(
        run.json["result"],
        support::anthropic::FINAL_TEXT,
        "{}",
        run.stdout
    );
    assert_eq!(api.unanswered(), Vec::<String>::new());

    // What ran and what did not.
    assert!(sandbox.path("keep.txt").exists(), "the denied `rm` ran");
    assert!(
        sandbox.path("made-by-allow").exists(),
        "the allowed `touch` did not run"
    );
    assert!(
        !sandbox.path("marker").exists(),
        "`git status && touch marker` ran"
    );

    // What the model was told.
    let results = api.tool_results();
    assert_eq!(results.len(), script.len(), "{results:?}");
    let (rm, status, touch, chained, read, cat) = (
        &results[0],
        &results[1],
        &results[2],
        &results[3],
        &results[4],
        &results[5],
    );
    assert!(rm.is_error);
    assert!(
        rm.content.starts_with("PreToolUse:Bash hook error: toolgate: command `rm -f keep.txt` is denied by rule `deny[1]`"),
        "{}",
        rm.content
    );
    assert!(rm.content.contains("was not executed"), "{}", rm.content);
    assert!(!status.is_error, "{status:?}");
    assert!(
        status.content.contains("No commits yet"),
        "{}",
        status.content
    );
    assert!(!touch.is_error, "{touch:?}");
    assert!(chained.is_error);
    assert!(
        chained.content.contains("command `touch marker`"),
        "{}",
        chained.content
    );
    assert!(read.is_error);
    assert!(
        read.content
            .starts_with("PreToolUse:Read hook error: toolgate: read of"),
        "{}",
        read.content
    );
    assert!(read.content.contains("`deny[0]`"), "{}", read.content);
    assert!(cat.is_error);
    assert!(cat.content.contains("`deny[0]`"), "{}", cat.content);
    for request in api.requests() {
        let body = String::from_utf8_lossy(&request.body);
        assert!(
            !body.contains(&secret),
            "the secret reached the model: {body}"
        );
    }

    // What the ledger holds.
    let rows = ledger(&sandbox);
    let session = run.json["session_id"].as_str().expect("session id");
    assert_rows(&rows, &script, "claude", session);
    let ids: Vec<&str> = results.iter().map(|r| r.tool_use_id.as_str()).collect();
    let recorded: Vec<&str> = rows.iter().map(|r| r.record.call_id.as_str()).collect();
    assert_eq!(recorded, ids, "each row carries the call's tool_use_id");
}

/// Answers the first pending approval with `answer` from this thread, as
/// `toolgate approvals approve ID` would from another terminal.
fn answer_when_pending(sandbox: &Sandbox, answer: Answer) -> Pending {
    let deadline = Instant::now() + Duration::from_secs(90);
    let db = sandbox.state.join("toolgate.db");
    loop {
        assert!(Instant::now() < deadline, "no approval was queued");
        if db.exists()
            && let Ok(store) = Store::open(&db)
            && let Some(pending) = store
                .list_pending()
                .expect("list pending")
                .into_iter()
                .next()
        {
            store
                .answer(&pending.id, answer, None, "cli:e2e")
                .expect("answer the approval");
            return pending;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn assert_approved_rows(sandbox: &Sandbox, approval: &Pending, client: &str) {
    let rows = ledger(sandbox);
    assert_eq!(rows.len(), 2, "{rows:?}");
    let (request, resolution) = (&rows[0].record, &rows[1].record);
    assert_eq!(request.client.as_deref(), Some(client));
    assert_eq!(
        (request.decision, request.outcome),
        (Decision::Ask, Outcome::Waiting)
    );
    assert_eq!(request.approval_id.as_deref(), Some(approval.id.as_str()));
    assert_eq!(rows[1].kind, RowKind::Resolution);
    assert_eq!(resolution.outcome, Outcome::Passed);
    assert_eq!(resolution.approval, Some(ApprovalAnswer::Approve));
}

#[test]
fn claude_code_waits_in_the_queue_until_a_person_approves() {
    if !crate::support::have_clients() {
        return;
    }
    let (sandbox, _) = project();
    install(&sandbox, "claude", &["--approver", "queue", "--wait", "60"]);
    let api = FakeAnthropic::start(vec![Turn::tool("Bash", bash("touch made-after-approval"))]);
    let (run, approval) = std::thread::scope(|s| {
        let approver = s.spawn(|| answer_when_pending(&sandbox, Answer::Approve));
        let run = run_claude(&sandbox, &api, "Create the file.", &[]);
        (run, approver.join().expect("approver thread"))
    });
    assert!(run.status.success(), "{}", run.stderr);
    assert!(
        sandbox.path("made-after-approval").exists(),
        "the approved call did not run"
    );
    assert_eq!(approval.rule.as_deref(), Some("ask[0]"));
    assert_eq!(approval.client.as_deref(), Some("claude"));
    let results = api.tool_results();
    assert_eq!(results.len(), 1);
    assert!(!results[0].is_error, "{:?}", results[0]);
    assert_approved_rows(&sandbox, &approval, "claude");
}

#[test]
fn claude_code_is_refused_when_nobody_answers_in_time() {
    if !crate::support::have_clients() {
        return;
    }
    let (sandbox, _) = project();
    install(&sandbox, "claude", &["--approver", "queue", "--wait", "2"]);
    let api = FakeAnthropic::start(vec![Turn::tool("Bash", bash("touch made-after-approval"))]);
    let run = run_claude(&sandbox, &api, "Create the file.", &[]);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(
        !sandbox.path("made-after-approval").exists(),
        "an unanswered call ran"
    );
    let results = api.tool_results();
    assert_eq!(results.len(), 1);
    assert!(results[0].is_error);
    assert!(
        results[0].content.contains("still pending"),
        "{}",
        results[0].content
    );
    assert!(
        results[0].content.contains("toolgate approvals approve"),
        "{}",
        results[0].content
    );
    let rows = ledger(&sandbox);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].record.outcome, Outcome::Waiting);
}

// ----------------------------------------------------------------- Gemini CLI

#[test]
fn gemini_cli_runs_only_what_the_policy_allows() {
    if !crate::support::have_clients() {
        return;
    }
    let (sandbox, secret) = project();
    install(&sandbox, "gemini", &[]);
    let call = |tool, input, decision, rule| Scripted {
        tool,
        input,
        decision,
        rule,
    };
    let script = vec![
        call(
            "run_shell_command",
            bash("rm -f keep.txt"),
            Decision::Deny,
            Some("deny[1]"),
        ),
        call(
            "run_shell_command",
            bash("git status"),
            Decision::Allow,
            Some("allow[1]"),
        ),
        call(
            "run_shell_command",
            bash("touch made-by-allow"),
            Decision::Allow,
            Some("allow[3]"),
        ),
        // Gemini CLI refuses its file tools on `.env` itself, before any
        // hook runs (PROTOCOL.md); `.env.local` reaches the hook.
        call(
            "read_file",
            json!({"file_path": ".env.local"}),
            Decision::Deny,
            Some("deny[0]"),
        ),
        call(
            "run_shell_command",
            bash("cat .env"),
            Decision::Deny,
            Some("deny[0]"),
        ),
        call(
            "run_shell_command",
            bash("git status && touch marker"),
            Decision::Deny,
            None,
        ),
    ];
    let api = FakeGemini::start(
        script
            .iter()
            .map(|s| Turn::tool(s.tool, s.input.clone()))
            .collect(),
    );
    let run = run_gemini(&sandbox, &api, "Do the scripted steps.", &[]);
    assert!(run.status.success(), "gemini failed: {}", run.stderr);
    assert_eq!(
        run.json["response"],
        support::gemini::FINAL_TEXT,
        "{}",
        run.stdout
    );
    assert_eq!(api.unanswered(), Vec::<String>::new());

    assert!(sandbox.path("keep.txt").exists(), "the denied `rm` ran");
    assert!(
        sandbox.path("made-by-allow").exists(),
        "the allowed `touch` did not run"
    );
    assert!(
        !sandbox.path("marker").exists(),
        "`git status && touch marker` ran"
    );

    let responses = api.function_responses();
    assert_eq!(responses.len(), script.len(), "{responses:?}");
    let blocked = |i: usize| responses[i].error().unwrap_or_default().to_owned();
    assert!(
        blocked(0).starts_with(
            "Tool execution blocked: toolgate: command `rm -f keep.txt` is denied by rule `deny[1]`"
        ),
        "{}",
        blocked(0)
    );
    assert_eq!(responses[1].error(), None, "{:?}", responses[1]);
    assert!(
        responses[1].response.to_string().contains("No commits yet"),
        "{:?}",
        responses[1]
    );
    assert_eq!(responses[2].error(), None, "{:?}", responses[2]);
    assert!(blocked(3).contains("toolgate: read of"), "{}", blocked(3));
    assert!(blocked(3).contains("`deny[0]`"), "{}", blocked(3));
    assert!(blocked(4).contains("`deny[0]`"), "{}", blocked(4));
    assert!(
        blocked(5).contains("command `touch marker`"),
        "{}",
        blocked(5)
    );
    for request in api.requests() {
        let body = String::from_utf8_lossy(&request.body);
        assert!(
            !body.contains(&secret),
            "the secret reached the model: {body}"
        );
    }

    let rows = ledger(&sandbox);
    let session = run.json["session_id"].as_str().expect("session id");
    assert_rows(&rows, &script, "gemini", session);
}

#[test]
fn gemini_cli_waits_in_the_queue_until_a_person_approves() {
    if !crate::support::have_clients() {
        return;
    }
    let (sandbox, _) = project();
    install(&sandbox, "gemini", &["--approver", "queue", "--wait", "60"]);
    let api = FakeGemini::start(vec![Turn::tool(
        "run_shell_command",
        bash("touch made-after-approval"),
    )]);
    let (run, approval) = std::thread::scope(|s| {
        let approver = s.spawn(|| answer_when_pending(&sandbox, Answer::Approve));
        let run = run_gemini(&sandbox, &api, "Create the file.", &[]);
        (run, approver.join().expect("approver thread"))
    });
    assert!(run.status.success(), "{}", run.stderr);
    assert!(
        sandbox.path("made-after-approval").exists(),
        "the approved call did not run"
    );
    let responses = api.function_responses();
    assert_eq!(responses.len(), 1);
    assert_eq!(responses[0].error(), None, "{:?}", responses[0]);
    assert_approved_rows(&sandbox, &approval, "gemini");
}

#[test]
fn gemini_cli_ask_without_a_queue_is_refused_and_says_how_to_allow_it() {
    if !crate::support::have_clients() {
        return;
    }
    let (sandbox, _) = project();
    install(&sandbox, "gemini", &[]);
    let api = FakeGemini::start(vec![Turn::tool(
        "run_shell_command",
        bash("touch made-after-approval"),
    )]);
    let run = run_gemini(&sandbox, &api, "Create the file.", &[]);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(!sandbox.path("made-after-approval").exists());
    let responses = api.function_responses();
    assert_eq!(
        responses.len(),
        1,
        "the run did not hang: the model got an answer"
    );
    let error = responses[0].error().unwrap_or_default();
    assert!(error.contains("--approver queue"), "{error}");
    assert!(
        error.contains(
            &Path::new(&sandbox.project)
                .join("toolgate.toml")
                .display()
                .to_string()
        ),
        "{error}"
    );
}

//! `claude_hook` and `gemini_hook` end to end in the test process: real
//! policies in temporary projects, a real ledger, and the approval queue
//! answered from another thread as `toolgate approvals` would.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{Value, json};
use toolgate_hook::{AnswerBy, HookOptions, HookReply, claude_hook, gemini_hook};
use toolgate_store::{
    Answer, ApprovalAnswer, ApprovalStatus, Decision, Outcome, Row, RowFilter, RowKind, Store,
};

const POLICY: &str = r#"
allow = ["Read", "Bash(git status)", "Bash(ls *)", "mcp__echo__*", "run_shell_command"]
ask   = ["Bash(git push *)"]
deny  = ["Read(.env)", "Bash(rm *)"]

[[rule]]
id = "edits"
effect = "ask"
match = ["Edit(src/**)"]
remember = "session"
"#;

/// A project with a policy and a state directory of its own.
struct Project {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    state: PathBuf,
}

impl Project {
    fn new(policy: &str) -> Project {
        let tmp = tempfile::tempdir().expect("temp dir");
        let base = tmp.path().canonicalize().expect("canonical temp dir");
        let dir = base.join("project");
        std::fs::create_dir_all(dir.join("src")).expect("project folder");
        std::fs::write(dir.join("toolgate.toml"), policy).expect("policy");
        std::fs::write(dir.join(".env"), "SECRET=1\n").expect(".env");
        std::fs::create_dir_all(base.join("state")).expect("state folder");
        Project {
            _tmp: tmp,
            dir,
            state: base.join("state"),
        }
    }

    fn opts(&self) -> HookOptions {
        HookOptions {
            policy: Some(self.dir.join("toolgate.toml")),
            state_dir: Some(self.state.clone()),
            poll: Duration::from_millis(20),
            ..HookOptions::default()
        }
    }

    fn queue(&self, wait: Duration) -> HookOptions {
        HookOptions {
            approver: AnswerBy::Queue { wait },
            ..self.opts()
        }
    }

    fn claude(&self, mode: &str, tool: &str, input: Value) -> HookReply {
        self.claude_with(&self.opts(), "s1", mode, tool, input)
    }

    fn claude_with(
        &self,
        opts: &HookOptions,
        session: &str,
        mode: &str,
        tool: &str,
        input: Value,
    ) -> HookReply {
        let stdin = claude_input(&self.dir, session, mode, tool, input);
        claude_hook(stdin.to_string().as_bytes(), opts)
    }

    fn gemini_with(&self, opts: &HookOptions, tool: &str, input: Value) -> HookReply {
        let stdin = json!({
            "session_id": "g1", "transcript_path": "/t.jsonl", "cwd": self.dir,
            "hook_event_name": "BeforeTool", "timestamp": "2026-11-30T00:00:00.000Z",
            "tool_name": tool, "tool_input": input,
        });
        gemini_hook(stdin.to_string().as_bytes(), opts)
    }

    fn store(&self) -> Store {
        Store::open(self.state.join("toolgate.db")).expect("open the store")
    }

    fn rows(&self) -> Vec<Row> {
        self.store()
            .rows(&RowFilter::default())
            .expect("ledger rows")
    }
}

fn claude_input(cwd: &Path, session: &str, mode: &str, tool: &str, input: Value) -> Value {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    json!({
        "session_id": session, "transcript_path": "/t.jsonl", "cwd": cwd,
        "prompt_id": "p1", "permission_mode": mode, "effort": {"level": "medium"},
        "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input,
        "tool_use_id": format!("toolu_{n:04}"),
    })
}

/// Claude Code's answer: (permissionDecision, permissionDecisionReason).
fn claude_answer(reply: &HookReply) -> (String, String) {
    assert_eq!(reply.exit_code, 0, "{reply:?}");
    let v: Value = serde_json::from_str(&reply.stdout).expect("JSON on stdout");
    let out = &v["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PreToolUse");
    (
        out["permissionDecision"]
            .as_str()
            .expect("decision")
            .to_owned(),
        out["permissionDecisionReason"]
            .as_str()
            .unwrap_or("")
            .to_owned(),
    )
}

/// Gemini CLI's answer: (decision, reason).
fn gemini_answer(reply: &HookReply) -> (String, String) {
    let v: Value = serde_json::from_str(&reply.stdout).expect("JSON on stdout");
    (
        v["decision"].as_str().expect("decision").to_owned(),
        v["reason"].as_str().unwrap_or("").to_owned(),
    )
}

fn bash(command: &str) -> Value {
    json!({"command": command, "description": "run it"})
}

fn assert_claude_failure(reply: &HookReply, needle: &str) {
    assert_eq!(reply.exit_code, 2, "{reply:?}");
    assert_eq!(
        reply.stdout, "",
        "stdout is ignored on exit 2: keep it empty"
    );
    assert!(reply.stderr.contains(needle), "{needle:?} not in {reply:?}");
}

fn assert_gemini_failure(reply: &HookReply, needle: &str) {
    assert_eq!(reply.exit_code, 2, "{reply:?}");
    let (decision, reason) = gemini_answer(reply);
    assert_eq!(decision, "deny");
    assert!(reason.contains(needle), "{needle:?} not in {reason:?}");
}

// ------------------------------------------------------------- decisions

#[test]
fn claude_decisions_are_answered_and_recorded() {
    let p = Project::new(POLICY);
    let cases = [
        (
            bash("rm -rf build"),
            "deny",
            "deny[1]",
            Decision::Deny,
            Outcome::Blocked,
        ),
        (
            bash("git status"),
            "allow",
            "allow[1]",
            Decision::Allow,
            Outcome::Passed,
        ),
        (
            bash("git push origin main"),
            "ask",
            "ask[0]",
            Decision::Ask,
            Outcome::Passed,
        ),
    ];
    for (input, answer, rule, _, _) in &cases {
        let (decision, reason) = claude_answer(&p.claude("default", "Bash", input.clone()));
        assert_eq!(&decision, answer);
        assert!(reason.starts_with("toolgate: "), "{reason}");
        assert!(reason.contains(&format!("`{rule}`")), "{reason}");
    }
    let rows = p.rows();
    assert_eq!(rows.len(), 3);
    for (row, (input, _, rule, decision, outcome)) in rows.iter().zip(&cases) {
        let r = &row.record;
        assert_eq!(row.kind, RowKind::Request);
        assert_eq!(
            (r.session.as_str(), r.client.as_deref()),
            ("s1", Some("claude"))
        );
        assert!(
            r.call_id.starts_with("toolu_"),
            "the call id is the tool_use_id"
        );
        assert_eq!(r.tool, "Bash");
        assert_eq!((r.decision, r.rule.as_deref()), (*decision, Some(*rule)));
        assert_eq!(r.outcome, *outcome);
        assert_eq!(r.approval, None);
        assert_eq!(serde_json::from_str::<Value>(&r.input).unwrap(), *input);
        assert_eq!(r.digest.len(), 64);
    }
    assert!(p.store().verify().unwrap().is_intact());
}

#[test]
fn a_denial_tells_the_model_it_did_not_run_and_not_to_retry() {
    let p = Project::new(POLICY);
    let (_, reason) = claude_answer(&p.claude("default", "Bash", bash("rm -rf build")));
    assert!(reason.contains("was not executed"), "{reason}");
    assert!(reason.contains("Do not retry it"), "{reason}");
    let (_, hard) = claude_answer(&p.claude("default", "Bash", bash("sudo ls")));
    assert!(hard.contains("hard limit"), "{hard}");
}

#[test]
fn a_chained_command_needs_every_part_allowed() {
    let p = Project::new(POLICY);
    let (decision, reason) =
        claude_answer(&p.claude("default", "Bash", bash("git status && touch marker")));
    assert_eq!(decision, "deny");
    assert!(reason.contains("touch marker"), "{reason}");
}

#[test]
fn relative_paths_resolve_against_the_input_cwd() {
    let p = Project::new(POLICY);
    // The test process runs elsewhere; `.env` means the project's.
    assert_ne!(std::env::current_dir().unwrap(), p.dir);
    let (decision, reason) =
        claude_answer(&p.claude("default", "Read", json!({"file_path": ".env"})));
    assert_eq!(decision, "deny");
    assert!(
        reason.contains(&p.dir.join(".env").display().to_string()),
        "{reason}"
    );
    let (decision, _) = claude_answer(&p.claude("default", "Bash", bash("cat .env")));
    assert_eq!(decision, "deny", "a shell read meets the same Read rule");
    let (decision, _) =
        claude_answer(&p.claude("default", "Read", json!({"file_path": "src/x.rs"})));
    assert_eq!(decision, "allow");
}

#[test]
fn the_policy_is_found_from_the_input_cwd() {
    let p = Project::new(POLICY);
    let opts = HookOptions {
        policy: None,
        ..p.opts()
    };
    let reply = p.claude_with(&opts, "s1", "default", "Bash", bash("rm -rf build"));
    let (decision, reason) = claude_answer(&reply);
    assert_eq!(decision, "deny");
    assert!(
        reason.contains("deny[1]"),
        "the project's toolgate.toml decided: {reason}"
    );
}

#[test]
fn without_a_policy_file_the_builtin_policy_is_rooted_at_the_input_cwd() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    std::fs::write(dir.join("notes.txt"), "hi").unwrap();
    let opts = HookOptions {
        state_dir: Some(dir.join("state")),
        ..HookOptions::default()
    };
    let read = claude_input(
        &dir,
        "s1",
        "default",
        "Read",
        json!({"file_path": "notes.txt"}),
    );
    let (decision, _) = claude_answer(&claude_hook(read.to_string().as_bytes(), &opts));
    assert_eq!(decision, "allow", "reads inside the workspace are allowed");
    let outside = claude_input(
        &dir,
        "s1",
        "default",
        "Read",
        json!({"file_path": "/var/log/syslog"}),
    );
    let (decision, reason) = claude_answer(&claude_hook(outside.to_string().as_bytes(), &opts));
    assert_eq!(decision, "deny", "{reason}");
    let shell = claude_input(&dir, "s1", "default", "Bash", bash("ls"));
    let (decision, _) = claude_answer(&claude_hook(shell.to_string().as_bytes(), &opts));
    assert_eq!(decision, "ask", "every shell command asks");
}

#[test]
fn claude_mcp_tools_fall_through_to_name_rules() {
    let p = Project::new(POLICY);
    let (decision, _) =
        claude_answer(&p.claude("default", "mcp__echo__echo", json!({"text": "hi"})));
    assert_eq!(decision, "allow");
    let (decision, _) = claude_answer(&p.claude("default", "mcp__other__x", json!({})));
    assert_eq!(decision, "deny", "no rule: the default");
    assert_eq!(p.rows()[0].record.client.as_deref(), Some("claude"));
}

// ------------------------------------------------------------- client modes

#[test]
fn stricter_claude_modes_tighten_the_decision() {
    let p = Project::new(POLICY);
    let (decision, reason) = claude_answer(&p.claude("plan", "Bash", bash("git push origin main")));
    assert_eq!(
        (decision.as_str(), reason.contains("plan")),
        ("deny", true),
        "{reason}"
    );
    let (decision, _) = claude_answer(&p.claude(
        "plan",
        "Write",
        json!({"file_path": "src/a.rs", "content": ""}),
    ));
    assert_eq!(decision, "deny", "plan mode writes nothing");
    let (decision, _) = claude_answer(&p.claude("plan", "Bash", bash("git status")));
    assert_eq!(
        decision, "allow",
        "read-only commands stay allowed in plan mode"
    );
    let (decision, _) = claude_answer(&p.claude("dontAsk", "Bash", bash("git push origin main")));
    assert_eq!(decision, "deny", "dontAsk turns an ask into a deny");
}

#[test]
fn looser_or_unknown_claude_modes_never_loosen_it() {
    let p = Project::new(POLICY);
    for mode in [
        "default",
        "acceptEdits",
        "bypassPermissions",
        "auto",
        "someFutureMode",
    ] {
        let (decision, _) = claude_answer(&p.claude(mode, "Bash", bash("git push origin main")));
        assert_eq!(decision, "ask", "{mode}");
        let (decision, _) = claude_answer(&p.claude(mode, "Bash", bash("rm -rf build")));
        assert_eq!(decision, "deny", "{mode}");
        let (decision, _) = claude_answer(&p.claude(
            mode,
            "Edit",
            json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b"}),
        ));
        assert_eq!(decision, "ask", "{mode}");
    }
}

/// Older and third-party senders omit `permission_mode`: the call is
/// decided as in `default` (not refused as bad input), answered in
/// Claude Code's shape and recorded with the rule that decided it.
#[test]
fn a_claude_payload_without_permission_mode_is_decided_as_default() {
    let p = Project::new(POLICY);
    let cases = [
        (bash("git status"), "allow", "allow[1]"),
        (bash("git push origin main"), "ask", "ask[0]"),
        (bash("rm -rf build"), "deny", "deny[1]"),
        (
            json!({"file_path": "src/a.rs", "content": ""}),
            "ask",
            "edits",
        ),
    ];
    for (i, (input, answer, rule)) in cases.iter().enumerate() {
        let tool = if input.get("command").is_some() {
            "Bash"
        } else {
            "Write"
        };
        let with_mode = claude_answer(&p.claude("default", tool, input.clone()));
        let mut stdin = claude_input(&p.dir, "s1", "default", tool, input.clone());
        stdin
            .as_object_mut()
            .expect("an object")
            .remove("permission_mode");
        let reply = claude_hook(stdin.to_string().as_bytes(), &p.opts());
        let (decision, reason) = claude_answer(&reply);
        assert_eq!(
            (decision.as_str(), reason.as_str()),
            (*answer, with_mode.1.as_str()),
            "{input}"
        );
        let rows = p.rows();
        let row = &rows[2 * i + 1].record;
        assert_eq!(
            (row.tool.as_str(), row.rule.as_deref()),
            (tool, Some(*rule)),
            "{input}"
        );
        assert_eq!(
            row.decision,
            match *answer {
                "allow" => Decision::Allow,
                "ask" => Decision::Ask,
                _ => Decision::Deny,
            }
        );
    }
}

// ------------------------------------------------------------- grants

#[test]
fn session_grants_from_the_store_lift_an_ask_in_that_session_only() {
    let p = Project::new(POLICY);
    let edit = json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b"});
    let (decision, _) = claude_answer(&p.claude("default", "Edit", edit.clone()));
    assert_eq!(decision, "ask");
    p.store().grant("s1", "edits").unwrap();
    let (decision, _) = claude_answer(&p.claude("default", "Edit", edit.clone()));
    assert_eq!(decision, "allow");
    let other = p.claude_with(&p.opts(), "s2", "default", "Edit", edit);
    assert_eq!(
        claude_answer(&other).0,
        "ask",
        "a grant stays in its session"
    );
    p.store().grant("s1", "deny[1]").unwrap();
    let (decision, _) = claude_answer(&p.claude("default", "Bash", bash("rm -rf build")));
    assert_eq!(decision, "deny", "a grant never lifts a deny");
}

// ------------------------------------------------------------- failures

#[test]
fn unusable_claude_input_blocks_with_exit_2() {
    let p = Project::new(POLICY);
    let good = claude_input(&p.dir, "s1", "default", "Bash", bash("git status"));
    let without = |field: &str| {
        let mut v = good.clone();
        v.as_object_mut().unwrap().remove(field);
        v.to_string()
    };
    let with = |field: &str, value: Value| {
        let mut v = good.clone();
        v[field] = value;
        v.to_string()
    };
    let cases: Vec<(String, &str)> = vec![
        (String::new(), "not valid JSON"),
        ("{".into(), "not valid JSON"),
        ("[]".into(), "must be a JSON object"),
        ("null".into(), "must be a JSON object"),
        (without("tool_name"), "no `tool_name` field"),
        (without("tool_input"), "no `tool_input` field"),
        (without("cwd"), "no `cwd` field"),
        (without("session_id"), "no `session_id` field"),
        (without("hook_event_name"), "no `hook_event_name` field"),
        (
            with("permission_mode", json!(3)),
            "`permission_mode` must be a string",
        ),
        (
            with("tool_input", json!("git status")),
            "`tool_input` must be an object",
        ),
        (
            with("tool_input", json!(["git", "status"])),
            "`tool_input` must be an object",
        ),
        (with("tool_name", json!(1)), "`tool_name` must be a string"),
        (
            with("tool_name", json!("")),
            "`tool_name` must not be empty",
        ),
        (with("cwd", json!("project")), "must be an absolute path"),
        (
            with("hook_event_name", json!("PostToolUse")),
            "expected `PreToolUse`",
        ),
        (
            with("hook_event_name", json!("BeforeTool")),
            "expected `PreToolUse`",
        ),
    ];
    for (stdin, needle) in cases {
        assert_claude_failure(&claude_hook(stdin.as_bytes(), &p.opts()), needle);
    }
    assert_claude_failure(&claude_hook(b"\xff\xfe{}", &p.opts()), "not UTF-8");
    assert!(
        p.rows().is_empty(),
        "nothing was decided, so nothing is recorded"
    );
}

#[test]
fn unusable_gemini_input_blocks_with_a_deny_and_exit_2() {
    let p = Project::new(POLICY);
    let good = json!({"session_id": "g1", "cwd": p.dir, "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command", "tool_input": {"command": "ls"}});
    let mut wrong_event = good.clone();
    wrong_event["hook_event_name"] = json!("PreToolUse");
    let mut no_tool = good.clone();
    no_tool.as_object_mut().unwrap().remove("tool_name");
    let mut bad_input = good.clone();
    bad_input["tool_input"] = json!(3);
    for (stdin, needle) in [
        ("".to_owned(), "not valid JSON"),
        ("\"ls\"".to_owned(), "must be a JSON object"),
        (wrong_event.to_string(), "expected `BeforeTool`"),
        (no_tool.to_string(), "no `tool_name` field"),
        (bad_input.to_string(), "`tool_input` must be an object"),
    ] {
        assert_gemini_failure(&gemini_hook(stdin.as_bytes(), &p.opts()), needle);
    }
}

#[test]
fn an_unreadable_policy_blocks() {
    let p = Project::new("allow = [\"Bash(git status\"]\n");
    let reply = p.claude("default", "Bash", bash("git status"));
    assert_claude_failure(&reply, "cannot load the policy");
    assert!(
        reply.stderr.contains("toolgate.toml:1:"),
        "{}",
        reply.stderr
    );
    let missing = HookOptions {
        policy: Some(p.dir.join("nope.toml")),
        ..p.opts()
    };
    let reply = p.gemini_with(&missing, "run_shell_command", bash("ls"));
    assert_gemini_failure(&reply, "nope.toml");
}

#[test]
fn a_call_that_cannot_be_recorded_is_blocked() {
    let p = Project::new(POLICY);
    std::fs::remove_dir(&p.state).unwrap();
    std::fs::write(&p.state, "not a directory").unwrap();
    for command in ["git status", "git push origin main", "rm -rf x"] {
        let (decision, reason) = claude_answer(&p.claude("default", "Bash", bash(command)));
        assert_eq!(decision, "deny", "{command}");
        assert!(reason.contains("cannot be recorded"), "{reason}");
    }
    let reply = p.gemini_with(&p.opts(), "run_shell_command", bash("git status"));
    assert_eq!(gemini_answer(&reply).0, "deny");
    // Under `--approver queue` too.
    let reply = p.claude_with(
        &p.queue(Duration::from_secs(5)),
        "s1",
        "default",
        "Bash",
        bash("git push origin main"),
    );
    assert_eq!(claude_answer(&reply).0, "deny");
}

#[test]
fn a_real_unwritable_state_directory_blocks_the_call() {
    let p = Project::new(POLICY);
    // A state directory on a read-only bind is beyond even root; here the
    // directory exists and its database cannot be created because a
    // directory already takes its name.
    std::fs::create_dir_all(p.state.join("toolgate.db")).unwrap();
    let (decision, reason) = claude_answer(&p.claude("default", "Bash", bash("git status")));
    assert_eq!(decision, "deny");
    assert!(reason.contains("cannot be recorded"), "{reason}");
}

#[test]
fn best_effort_ledger_lets_the_decision_stand_with_a_warning() {
    let p = Project::new(&format!("[policy]\nledger = \"best-effort\"\n{POLICY}"));
    std::fs::remove_dir(&p.state).unwrap();
    std::fs::write(&p.state, "not a directory").unwrap();
    let reply = p.claude("default", "Bash", bash("git status"));
    assert_eq!(claude_answer(&reply).0, "allow");
    assert!(reply.stderr.contains("warning"), "{}", reply.stderr);
    assert!(reply.stderr.contains("not recorded"), "{}", reply.stderr);
    let reply = p.claude("default", "Bash", bash("rm -rf x"));
    assert_eq!(claude_answer(&reply).0, "deny");
    // Without a queue to wait in, an ask under `--approver queue` is refused.
    let reply = p.claude_with(
        &p.queue(Duration::from_secs(5)),
        "s1",
        "default",
        "Bash",
        bash("git push origin main"),
    );
    let (decision, reason) = claude_answer(&reply);
    assert_eq!(decision, "deny");
    assert!(reason.contains("no one has answered"), "{reason}");
}

// ------------------------------------------------------------- Gemini asks

#[test]
fn gemini_ask_is_refused_with_how_to_allow_it() {
    let p = Project::new("ask = [\"run_shell_command\"]\n");
    let reply = p.gemini_with(&p.opts(), "run_shell_command", bash("ls"));
    assert_eq!(reply.exit_code, 0);
    let (decision, reason) = gemini_answer(&reply);
    assert_eq!(decision, "deny", "a headless Gemini CLI hangs on ask");
    for needle in [
        "was not executed",
        "toolgate.toml",
        "--approver queue",
        "toolgate approvals approve",
    ] {
        assert!(reason.contains(needle), "{needle:?} not in {reason}");
    }
    let row = &p.rows()[0].record;
    assert_eq!(
        (row.decision, row.outcome),
        (Decision::Ask, Outcome::Blocked)
    );
    assert_eq!(
        (row.session.as_str(), row.client.as_deref()),
        ("g1", Some("gemini"))
    );
    assert!(
        row.call_id.starts_with("call-"),
        "a generated id: {}",
        row.call_id
    );
}

#[test]
fn gemini_relative_paths_resolve_against_the_input_cwd() {
    let p = Project::new(POLICY);
    let reply = p.gemini_with(&p.opts(), "read_file", json!({"file_path": ".env"}));
    assert_eq!(gemini_answer(&reply).0, "deny");
    let reply = p.gemini_with(
        &p.opts(),
        "read_file",
        json!({"file_path": "toolgate.toml"}),
    );
    assert_eq!(gemini_answer(&reply).0, "allow");
}

// ------------------------------------------------------------- the queue

/// Waits until a pending approval for `session` appears, and returns it.
fn pending(store: &Store, session: &str) -> toolgate_store::Pending {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(found) = store
            .list_pending()
            .unwrap()
            .into_iter()
            .find(|a| a.session == session)
        {
            return found;
        }
        assert!(Instant::now() < deadline, "no pending approval appeared");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn a_queued_call_runs_once_a_person_approves_it() {
    let p = Project::new(POLICY);
    let store = p.store();
    let reply = std::thread::scope(|s| {
        let hook = s.spawn(|| {
            p.claude_with(
                &p.queue(Duration::from_secs(20)),
                "s1",
                "default",
                "Bash",
                bash("git push origin main"),
            )
        });
        let approval = pending(&store, "s1");
        assert_eq!(approval.tool, "Bash");
        assert_eq!(approval.rule.as_deref(), Some("ask[0]"));
        let snapshot: Value = serde_json::from_str(&approval.snapshot_json).unwrap();
        assert_eq!(snapshot["input"]["command"], "git push origin main");
        store
            .answer(&approval.id, Answer::Approve, None, "cli:test")
            .unwrap();
        hook.join().unwrap()
    });
    let (decision, reason) = claude_answer(&reply);
    assert_eq!(decision, "allow", "{reason}");
    assert!(reason.contains("approved by cli:test"), "{reason}");

    let rows = p.rows();
    assert_eq!(rows.len(), 2, "the request and its resolution");
    let (request, resolution) = (&rows[0], &rows[1]);
    assert_eq!(request.record.outcome, Outcome::Waiting);
    assert_eq!(request.record.approval, Some(ApprovalAnswer::Unanswered));
    assert_eq!(resolution.kind, RowKind::Resolution);
    assert_eq!(resolution.record.outcome, Outcome::Passed);
    assert_eq!(resolution.record.approval, Some(ApprovalAnswer::Approve));
    assert_eq!(resolution.record.approval_id, request.record.approval_id);
    let id = request.record.approval_id.clone().unwrap();
    assert_eq!(
        store.approval(&id).unwrap().unwrap().status,
        ApprovalStatus::Done
    );
}

#[test]
fn a_declined_call_is_refused_with_the_note() {
    let p = Project::new(POLICY);
    let store = p.store();
    let reply = std::thread::scope(|s| {
        let hook = s.spawn(|| {
            p.gemini_with(
                &p.queue(Duration::from_secs(20)),
                "run_shell_command",
                bash("rm -rf build"),
            )
        });
        // run_shell_command is allowed by name, `rm` denied: no approval.
        let reply = hook.join().unwrap();
        assert_eq!(gemini_answer(&reply).0, "deny");
        let hook = s.spawn(|| {
            p.claude_with(
                &p.queue(Duration::from_secs(20)),
                "s1",
                "default",
                "Bash",
                bash("git push origin main"),
            )
        });
        let approval = pending(&store, "s1");
        store
            .answer(
                &approval.id,
                Answer::Decline,
                Some("not on Fridays"),
                "cli:test",
            )
            .unwrap();
        hook.join().unwrap()
    });
    let (decision, reason) = claude_answer(&reply);
    assert_eq!(decision, "deny");
    assert!(reason.contains("declined by cli:test"), "{reason}");
    assert!(reason.contains("not on Fridays"), "{reason}");
    assert_eq!(store.list_pending().unwrap().len(), 0);
    let totals = store.totals().unwrap();
    assert_eq!((totals.requests, totals.blocked, totals.waiting), (2, 2, 0));
}

#[test]
fn no_answer_in_time_is_a_refusal_and_the_approval_stays_pending() {
    let p = Project::new(POLICY);
    let started = Instant::now();
    let reply = p.claude_with(
        &p.queue(Duration::from_millis(300)),
        "s1",
        "default",
        "Bash",
        bash("git push origin main"),
    );
    assert!(started.elapsed() >= Duration::from_millis(300));
    let (decision, reason) = claude_answer(&reply);
    assert_eq!(decision, "deny");
    let store = p.store();
    let pending = store.list_pending().unwrap();
    assert_eq!(pending.len(), 1);
    let id = &pending[0].id;
    assert!(reason.contains("still pending"), "{reason}");
    assert!(
        reason.contains(&format!("toolgate approvals approve {id}")),
        "{reason}"
    );
    assert_eq!(store.totals().unwrap().waiting, 1);
}

#[test]
fn an_approval_given_after_the_wait_runs_the_same_call_made_again() {
    let p = Project::new(POLICY);
    let queue = p.queue(Duration::from_millis(200));
    let push = bash("git push origin main");
    let first = p.claude_with(&queue, "s1", "default", "Bash", push.clone());
    assert_eq!(claude_answer(&first).0, "deny");
    let store = p.store();
    let id = store.list_pending().unwrap()[0].id.clone();
    store
        .answer(&id, Answer::Approve, None, "cli:test")
        .unwrap();

    // Another call, or the same call in another session, does not get it.
    let other = p.claude_with(&queue, "s1", "default", "Bash", bash("git push origin dev"));
    assert_eq!(claude_answer(&other).0, "deny");
    let elsewhere = p.claude_with(&queue, "s2", "default", "Bash", push.clone());
    assert_eq!(claude_answer(&elsewhere).0, "deny");

    let retry = p.claude_with(&queue, "s1", "default", "Bash", push.clone());
    let (decision, reason) = claude_answer(&retry);
    assert_eq!(decision, "allow", "{reason}");
    assert!(reason.contains(&id), "{reason}");
    assert_eq!(
        store.approval(&id).unwrap().unwrap().status,
        ApprovalStatus::Done
    );
    // Used once: the next identical call waits again.
    let again = p.claude_with(&queue, "s1", "default", "Bash", push);
    assert_eq!(claude_answer(&again).0, "deny");

    // Each call counts once, where it ended: the first was refused, the
    // retry ran, three still wait.
    let totals = store.totals().unwrap();
    assert_eq!(
        (
            totals.requests,
            totals.blocked,
            totals.passed,
            totals.waiting
        ),
        (5, 1, 1, 3)
    );
    let rows = store
        .rows(&RowFilter {
            approval_id: Some(id.clone()),
            ..RowFilter::default()
        })
        .unwrap();
    let story: Vec<(RowKind, Outcome)> = rows.iter().map(|r| (r.kind, r.record.outcome)).collect();
    assert_eq!(
        story,
        [
            (RowKind::Request, Outcome::Waiting),
            (RowKind::Resolution, Outcome::Blocked),
            (RowKind::Request, Outcome::Passed),
        ]
    );
}

#[test]
fn a_session_answer_grants_the_rule_for_the_rest_of_the_session() {
    let p = Project::new(POLICY);
    let store = p.store();
    let edit = json!({"file_path": "src/a.rs", "old_string": "a", "new_string": "b"});
    let reply = std::thread::scope(|s| {
        let hook = s.spawn(|| {
            p.claude_with(
                &p.queue(Duration::from_secs(20)),
                "s1",
                "default",
                "Edit",
                edit.clone(),
            )
        });
        let approval = pending(&store, "s1");
        assert!(approval.remember_allowed);
        store
            .answer(&approval.id, Answer::Session, None, "cli:test")
            .unwrap();
        hook.join().unwrap()
    });
    let (decision, reason) = claude_answer(&reply);
    assert_eq!(decision, "allow");
    assert!(reason.contains("for this session"), "{reason}");
    // The next edit under the same rule is allowed without asking.
    let next = json!({"file_path": "src/b.rs", "old_string": "a", "new_string": "b"});
    let reply = p.claude_with(
        &p.queue(Duration::from_millis(100)),
        "s1",
        "default",
        "Edit",
        next,
    );
    assert_eq!(claude_answer(&reply).0, "allow");
    assert!(store.list_pending().unwrap().is_empty());
}

// ------------------------------------------------------------- fuzzing

/// A policy under which nothing may ever be allowed, whatever arrives.
const NOTHING_ALLOWED: &str = "deny = [\"Read(.env)\"]\nask = [\"Bash(git push *)\"]\n";

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        ".{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "PreToolUse",
            "BeforeTool",
            "Bash",
            "/",
            "default",
            "plan"
        ])
        .prop_map(|s| Value::String(s.to_owned())),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "session_id",
                    "cwd",
                    "permission_mode",
                    "hook_event_name",
                    "tool_name",
                    "tool_input",
                    "tool_use_id",
                    "command",
                    "file_path",
                    "x",
                ]),
                inner,
                0..8,
            )
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

/// Where the mutated inputs say they run; replaced by a real project.
const FUZZ_CWD: &str = "/toolgate-fuzz/project";

/// A real-looking input with one field replaced by anything, or removed.
fn mutated_input() -> impl Strategy<Value = Value> {
    let fields = prop::sample::select(vec![
        "session_id",
        "cwd",
        "permission_mode",
        "hook_event_name",
        "tool_name",
        "tool_input",
        "tool_use_id",
    ]);
    let tools = prop::sample::select(vec![
        "Bash",
        "Read",
        "Write",
        "Edit",
        "WebFetch",
        "mcp__a__b",
    ]);
    (fields, any_json(), any::<bool>(), tools).prop_map(|(field, value, remove, tool)| {
        let mut v = claude_input(
            Path::new(FUZZ_CWD),
            "s1",
            "default",
            tool,
            bash("git status"),
        );
        v["tool_input"] =
            json!({"command": "git status", "file_path": ".env", "url": "https://x.y/"});
        if remove {
            v.as_object_mut().map(|m| m.remove(field));
        } else {
            v[field] = value;
        }
        v
    })
}

fn never_allows(reply: &HookReply) -> Result<(), TestCaseError> {
    match reply.exit_code {
        2 => prop_assert_eq!(&reply.stdout, ""),
        0 => {
            let v: Value = serde_json::from_str(&reply.stdout)
                .map_err(|e| TestCaseError::fail(format!("not JSON ({e}): {reply:?}")))?;
            let decision = &v["hookSpecificOutput"]["permissionDecision"];
            prop_assert!(decision == "deny" || decision == "ask", "{:?}", reply);
        }
        other => prop_assert!(false, "exit {other}: {reply:?}"),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_allow(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let p = Project::new(NOTHING_ALLOWED);
        let reply = claude_hook(&bytes, &p.opts());
        prop_assert_eq!(reply.exit_code, 2);
        prop_assert_eq!(&reply.stdout, "");
        let reply = gemini_hook(&bytes, &p.opts());
        prop_assert_eq!(reply.exit_code, 2);
        prop_assert!(reply.stdout.contains("\"deny\""));
    }

    #[test]
    fn random_json_never_allows(value in any_json()) {
        let p = Project::new(NOTHING_ALLOWED);
        never_allows(&claude_hook(value.to_string().as_bytes(), &p.opts()))?;
        let reply = gemini_hook(value.to_string().as_bytes(), &p.opts());
        let decision: Value = serde_json::from_str(&reply.stdout).unwrap_or(Value::Null);
        prop_assert!(decision["decision"] == "deny", "{:?}", reply);
    }

    #[test]
    fn mutated_inputs_never_allow_what_the_policy_does_not(value in mutated_input()) {
        let p = Project::new(NOTHING_ALLOWED);
        let mut value = value;
        if value.get("cwd").and_then(Value::as_str) == Some(FUZZ_CWD) {
            value["cwd"] = json!(p.dir);
        }
        never_allows(&claude_hook(value.to_string().as_bytes(), &p.opts()))?;
    }
}

#[test]
fn sandbox_rewrites_allowed_and_asked_shell_commands_and_records_the_rewrite() {
    let p = Project::new(POLICY);
    let opts = HookOptions {
        sandbox: Some(PathBuf::from("/opt/toolgate")),
        ..p.opts()
    };
    // Claude Code's answer to a shell command: `decision`, with the command
    // rewritten to run sandboxed. The ledger row is bound to the original
    // input and notes the rewrite. Returns the row's decision.
    let rewritten = |command: &str, decision: &str| {
        let reply = p.claude_with(&opts, "s1", "default", "Bash", bash(command));
        let out: Value = serde_json::from_str(&reply.stdout).unwrap();
        let spec = &out["hookSpecificOutput"];
        assert_eq!(spec["permissionDecision"], decision);
        let wrapped = spec["updatedInput"]["command"].as_str().unwrap();
        assert!(
            wrapped.starts_with("'/opt/toolgate' 'sandbox' '--policy' ")
                && wrapped.ends_with(&format!("'--' 'bash' '-c' '{command}'")),
            "{wrapped}"
        );
        let rows = p.rows();
        let row = &rows.last().unwrap().record;
        assert_eq!(
            serde_json::from_str::<Value>(&row.input).unwrap(),
            bash(command)
        );
        assert!(
            row.note.as_deref().unwrap_or("").contains(wrapped),
            "{row:?}"
        );
        row.decision
    };
    assert_eq!(
        rewritten("git status", "allow"),
        toolgate_store::Decision::Allow
    );

    for (tool, input) in [
        ("Bash", bash("rm -rf build")),
        ("Read", json!({"file_path": "README.md"})),
    ] {
        let reply = p.claude_with(&opts, "s1", "default", tool, input);
        let out: Value = serde_json::from_str(&reply.stdout).unwrap();
        assert!(
            out["hookSpecificOutput"].get("updatedInput").is_none(),
            "{tool}: {}",
            reply.stdout
        );
    }
    // An asked command is shown to the person, and runs if approved, as
    // rewritten: approving in Claude Code must not run it unsandboxed.
    assert_eq!(
        rewritten("git push origin main", "ask"),
        toolgate_store::Decision::Ask
    );

    let gemini = p.gemini_with(&opts, "run_shell_command", bash("git status"));
    let out: Value = serde_json::from_str(&gemini.stdout).unwrap();
    assert_eq!(out["decision"], "allow");
    assert!(
        out["hookSpecificOutput"]["tool_input"]["command"]
            .as_str()
            .unwrap()
            .contains("'sandbox'")
    );
}

#[test]
fn a_script_written_during_the_session_asks_when_run() {
    let p = Project::new("allow = [\"Bash(git status)\", \"Bash(python3 *)\"]\n");
    // The session's first call begins it; the script is written after.
    let (first, _) =
        claude_answer(&p.claude_with(&p.opts(), "sw", "default", "Bash", bash("git status")));
    assert_eq!(first, "allow");
    std::thread::sleep(Duration::from_millis(120));
    std::fs::write(p.dir.join("diag.py"), "print(1)\n").expect("write the script");
    let (decision, reason) =
        claude_answer(&p.claude_with(&p.opts(), "sw", "default", "Bash", bash("python3 diag.py")));
    assert_eq!(decision, "ask", "{reason}");
    assert!(
        reason.contains("`gate:self-written`")
            || reason.contains("written or changed during this session"),
        "{reason}"
    );
    let rows = p.rows();
    assert_eq!(
        rows.last().and_then(|r| r.record.rule.as_deref()),
        Some("gate:self-written")
    );

    // A session that began after the script was written runs it under the
    // allow.
    std::thread::sleep(Duration::from_millis(120));
    let (decision, reason) = claude_answer(&p.claude_with(
        &p.opts(),
        "later",
        "default",
        "Bash",
        bash("python3 diag.py"),
    ));
    assert_eq!(decision, "allow", "{reason}");
}

#[test]
fn a_policy_file_that_appears_during_the_session_only_tightens() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let base = tmp.path().canonicalize().expect("canonical temp dir");
    let dir = base.join("repo");
    let state = base.join("state");
    std::fs::create_dir_all(&dir).expect("project folder");
    std::fs::create_dir_all(&state).expect("state folder");
    let opts = HookOptions {
        state_dir: Some(state),
        poll: Duration::from_millis(20),
        ..HookOptions::default()
    };
    let ask = |session: &str, command: &str| {
        let stdin = claude_input(&dir, session, "default", "Bash", bash(command));
        claude_answer(&claude_hook(stdin.to_string().as_bytes(), &opts))
    };
    // The session begins without a project policy; then a command the
    // parser cannot see through (a checkout) brings one that allows all.
    let (first, _) = ask("grow", "ls");
    assert_ne!(first, "", "no answer");
    std::fs::write(dir.join("toolgate.toml"), "allow = [\"Bash(*)\"]\n")
        .expect("write the brought policy");
    let (decision, reason) = ask("grow", "rm -rf build");
    assert_ne!(
        decision, "allow",
        "a policy file brought mid-session was honoured: {reason}"
    );

    // A session that begins with the file in place reads it as before.
    let (decision, reason) = ask("fresh", "rm -rf build");
    assert_eq!(decision, "allow", "{reason}");
}

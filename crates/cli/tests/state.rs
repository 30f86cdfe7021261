//! `toolgate approvals` and `toolgate audit`, run as real processes against
//! a real SQLite state directory.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;
use toolgate_gate::{Gate, GateOptions, Outcome, QueueApprover};
use toolgate_policy::{Call, LoadOptions, Policy};
use toolgate_store::Store;

struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    state: PathBuf,
}

impl Ws {
    fn new() -> Ws {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        let state = base.join("state");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&state).unwrap();
        std::fs::write(root.join("notes.txt"), "draft").unwrap();
        std::fs::write(
            root.join("toolgate.toml"),
            "allow = [\"Read\"]\nask = [\"Edit\"]\n",
        )
        .unwrap();
        Ws {
            _tmp: tmp,
            root,
            state,
        }
    }

    fn db(&self) -> PathBuf {
        self.state.join("toolgate.db")
    }

    /// Queues `write_file notes.txt reviewed` the way `toolgate agent
    /// --approver queue` does, and returns the approval id.
    fn queue_write(&self) -> String {
        let policy =
            Policy::load(&self.root.join("toolgate.toml"), &LoadOptions::default()).unwrap();
        let mut gate = Gate::new(
            policy,
            Box::new(QueueApprover),
            GateOptions {
                store: Some(Store::open(self.db()).unwrap()),
                ..GateOptions::default()
            },
        );
        let r = gate.submit(&Call::new(
            "write_file",
            json!({"path": "notes.txt", "content": "reviewed"}),
        ));
        assert_eq!(r.outcome, Outcome::Waiting);
        r.approval_id.unwrap()
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(args)
            .current_dir(&self.root)
            .env("TOOLGATE_STATE_DIR", &self.state)
            .env("HOME", self.root.join("home"))
            .env_remove("TOOLGATE_POLICY")
            .output()
            .unwrap()
    }

    fn notes(&self) -> String {
        std::fs::read_to_string(self.root.join("notes.txt")).unwrap()
    }
}

/// A call made to look like another where it is shown raw: the line is
/// erased, the cursor returned, and the rest reversed.
const COMMAND: &str = "echo ok\x1b[2K\rrm -rf ~ \u{202e}gnp.exe";
const COMMAND_SHOWN: &str = "echo ok\\x1b[2K\\rrm -rf ~ \\u{202e}gnp.exe";

impl Ws {
    /// Queues a Claude Code `Bash` call as the hooks do (a pending
    /// approval and its `waiting` row), with `session` and `reason`.
    fn queue_shell(&self, command: &str, session: &str, reason: &str) -> String {
        let call = Call::new("Bash", json!({ "command": command }))
            .with_client(toolgate_policy::Client::Claude);
        let record = toolgate_store::Record {
            session: session.into(),
            client: Some("claude".into()),
            server: None,
            call_id: call.id.clone(),
            tool: "Bash".into(),
            digest: call.digest(),
            input: serde_json::Value::Object(call.input.clone()).to_string(),
            decision: toolgate_store::Decision::Ask,
            rule: None,
            hard: false,
            reason: reason.into(),
            approval: Some(toolgate_store::ApprovalAnswer::Unanswered),
            note: None,
            outcome: toolgate_store::Outcome::Waiting,
            duration_us: 1,
            approval_id: None,
            review: None,
        };
        let pending = toolgate_store::PendingNew {
            session: session.into(),
            client: Some("claude".into()),
            server: None,
            call_id: call.id.clone(),
            tool: "Bash".into(),
            snapshot_json: call.canonical_json(),
            digest: call.digest(),
            reason: reason.into(),
            rule: None,
            remember_allowed: false,
        };
        Store::open(self.db())
            .unwrap()
            .append_waiting(&record, &pending)
            .unwrap()
            .id
    }
}

/// What a terminal gets holds no control byte but the newlines between
/// lines, no DEL, and no bidi or invisible character.
fn assert_clean(what: &str, bytes: &[u8]) {
    for (i, b) in bytes.iter().enumerate() {
        assert!(
            *b >= 0x20 || *b == b'\n',
            "{what}: raw byte {b:#04x} at {i}: {}",
            String::from_utf8_lossy(bytes)
        );
        assert_ne!(*b, 0x7f, "{what}: raw DEL at {i}");
    }
    let text = std::str::from_utf8(bytes).expect("UTF-8");
    assert!(!text.contains('\u{202e}'), "{what}: raw U+202E");
    for c in text.chars() {
        assert!(
            c == '\n' || !toolgate_store::shown::is_hidden(c),
            "{what}: raw {c:?} in {text}"
        );
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn approving_a_waiting_call_runs_it_exactly_once() {
    let ws = Ws::new();
    let id = ws.queue_write();
    let out = ws.run(&["approvals", "list"]);
    assert!(text(&out).contains(&id), "{}", text(&out));
    assert!(
        text(&out).contains("write_file `notes.txt`"),
        "{}",
        text(&out)
    );
    assert_eq!(ws.notes(), "draft");

    let out = ws.run(&["approvals", "approve", &id]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(ws.notes(), "reviewed");

    std::fs::write(ws.root.join("notes.txt"), "changed by hand").unwrap();
    let out = ws.run(&["approvals", "approve", &id]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(ws.notes(), "changed by hand", "it did not run twice");

    let out = ws.run(&["audit", "show"]);
    let t = text(&out);
    assert!(
        t.contains("totals: 1 requests, 1 prompts, 1 executions, 0 blocked, 0 waiting"),
        "{t}"
    );
    let out = ws.run(&["audit", "verify"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("ledger intact: 2 rows"));
}

#[test]
fn declining_a_waiting_call_keeps_the_file_and_records_the_note() {
    let ws = Ws::new();
    let id = ws.queue_write();
    let out = ws.run(&["approvals", "decline", &id, "--note", "keep the draft"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(ws.notes(), "draft");
    let out = ws.run(&["audit", "show", "--json"]);
    let last: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().last().unwrap()).unwrap();
    assert_eq!(last["outcome"], "blocked");
    assert_eq!(last["note"], "keep the draft");
    assert_eq!(ws.run(&["approvals", "list"]).status.code(), Some(0));
    assert!(text(&ws.run(&["approvals", "list"])).contains("no pending approvals"));
}

#[test]
fn unknown_approval_ids_exit_2() {
    let ws = Ws::new();
    ws.queue_write();
    let out = ws.run(&["approvals", "approve", "deadbeef"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("deadbeef"), "{}", text(&out));
}

#[test]
fn audit_verify_names_the_first_tampered_row() {
    let ws = Ws::new();
    for _ in 0..3 {
        ws.queue_write();
    }
    let conn = rusqlite::Connection::open(ws.db()).unwrap();
    conn.execute(
        "UPDATE ledger SET reason = 'nothing to see' WHERE seq = 2",
        [],
    )
    .unwrap();
    drop(conn);
    let out = ws.run(&["audit", "verify"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("first bad row 2"), "{}", text(&out));
}

/// Rows removed from the end, with the head moved back, leave a chain
/// that is intact on its own; a head kept from an earlier `audit verify`
/// and given back with `--expect` catches it.
#[test]
fn audit_verify_with_an_earlier_head_catches_rows_removed_from_the_end() {
    let ws = Ws::new();
    for _ in 0..3 {
        ws.queue_write();
    }
    let out = ws.run(&["audit", "verify"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let t = text(&out);
    let head: Vec<&str> = t
        .split("head ")
        .nth(1)
        .expect("the head")
        .split_whitespace()
        .take(2)
        .collect();
    let expect = format!("{}:{}", head[0], head[1]);
    let out = ws.run(&["audit", "verify", "--expect", &expect]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    let conn = rusqlite::Connection::open(ws.db()).unwrap();
    conn.execute_batch(
        "DELETE FROM ledger WHERE seq > 1; \
         UPDATE head SET seq = 1, hash = (SELECT hash FROM ledger WHERE seq = 1) WHERE id = 1;",
    )
    .unwrap();
    drop(conn);
    // The chain alone cannot show it.
    let out = ws.run(&["audit", "verify"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = ws.run(&["audit", "verify", "--expect", &expect]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("is gone"), "{}", text(&out));
    let out = ws.run(&["audit", "verify", "--expect", "x"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}

fn digest(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap()
}

#[test]
fn a_corrupted_or_foreign_database_is_refused_and_left_alone() {
    let ws = Ws::new();
    std::fs::write(
        ws.db(),
        b"this is not a database, just text that happens to be here",
    )
    .unwrap();
    let before = digest(&ws.db());
    for args in [
        &["audit", "verify"][..],
        &["audit", "show"],
        &["approvals", "list"],
    ] {
        let out = ws.run(args);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains("toolgate.db"), "{e}");
        assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    }
    assert_eq!(digest(&ws.db()), before, "nothing was overwritten");

    std::fs::remove_file(ws.db()).unwrap();
    let conn = rusqlite::Connection::open(ws.db()).unwrap();
    conn.execute_batch("CREATE TABLE notes (t TEXT); INSERT INTO notes VALUES ('mine');")
        .unwrap();
    drop(conn);
    let before = digest(&ws.db());
    let out = ws.run(&["audit", "verify"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert_eq!(digest(&ws.db()), before);
}

/// A person approves what the listing shows: a command padded past any
/// width is shown to its end (here the `touch evil` a padded `git log`
/// hid), and the ledger's table marks an input it cuts.
#[test]
fn approvals_list_shows_the_whole_command() {
    let ws = Ws::new();
    let command = format!("git log --oneline -n 20 {} ; touch evil", " ".repeat(90));
    let id = ws.queue_shell(&command, "s1", "command `git log` asks");
    let out = ws.run(&["approvals", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains(&id), "{t}");
    assert!(t.contains("; touch evil`"), "{t}");
}

#[test]
fn approvals_list_and_audit_show_print_a_disguised_call_escaped() {
    let ws = Ws::new();
    let session = "s\x1b]0;title\x07";
    let id = ws.queue_shell(COMMAND, session, &format!("command `{COMMAND}` asks"));

    let out = ws.run(&["approvals", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_clean("approvals list", &out.stdout);
    let t = text(&out);
    assert!(t.contains(&id), "{t}");
    assert!(t.contains(&format!("Bash `{COMMAND_SHOWN}`")), "{t}");
    assert!(t.contains("(session s\\x1b]0;title\\x07, call"), "{t}");
    assert!(
        t.contains(&format!("why: command `{COMMAND_SHOWN}` asks")),
        "{t}"
    );
    assert_eq!(t.lines().count(), 2, "one call, two lines: {t}");

    // JSON for programs: the same values, the characters as \uXXXX.
    let out = ws.run(&["approvals", "list", "--json"]);
    assert_clean("approvals list --json", &out.stdout);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["session"], session);

    let out = ws.run(&["audit", "show"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_clean("audit show", &out.stdout);
    assert!(text(&out).contains("\\u{202e}gnp.exe"), "{}", text(&out));
    let out = ws.run(&["audit", "show", "--json"]);
    assert_clean("audit show --json", &out.stdout);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let input: serde_json::Value = serde_json::from_str(v["input"].as_str().unwrap()).unwrap();
    assert_eq!(input["command"], COMMAND, "the ledger keeps the call exact");
}

#[test]
fn the_hook_reason_shows_a_disguised_command_escaped() {
    let ws = Ws::new();
    std::fs::write(
        ws.root.join("toolgate.toml"),
        "[policy]\ndefault = \"ask\"\ndeny = [\"Bash(rm *)\"]\n",
    )
    .unwrap();
    let command = "rm -rf x\x1b[2K\rls \u{202e}gnp.exe";
    // Denied by the rule; and a program no rule names, asked by default.
    let unknown = "x\x1b[2K\rls \u{202e}gnp.exe";
    for (command, decision) in [(command, "deny"), (unknown, "ask")] {
        let input = json!({"session_id": "s1", "cwd": ws.root, "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": "toolu_1"});
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(["hook", "claude"])
            .current_dir(&ws.root)
            .env("TOOLGATE_STATE_DIR", &ws.state)
            .env("HOME", ws.root.join("home"))
            .env_remove("TOOLGATE_POLICY")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write as _;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.to_string().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert_clean("the hook's answer", &out.stdout);
        let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let output = &answer["hookSpecificOutput"];
        assert_eq!(output["permissionDecision"], decision);
        let reason = output["permissionDecisionReason"].as_str().unwrap();
        assert_clean("permissionDecisionReason", reason.as_bytes());
        let shown = toolgate_store::shown::line(command);
        assert!(reason.contains(shown.as_ref()), "{reason}");
        assert!(shown.contains("\\x1b[2K\\r") && shown.contains("\\u{202e}"));
    }
}

#[test]
fn audit_show_marks_reviewed_calls_and_filters_them() {
    use toolgate_store::{Decision, Outcome, Record, ReviewDecision, ReviewRecord};
    let ws = Ws::new();
    let store = Store::open(ws.db()).unwrap();
    let row = |call_id: &str, review: Option<ReviewRecord>| Record {
        session: "s1".into(),
        client: Some("claude".into()),
        server: None,
        call_id: call_id.into(),
        tool: "Bash".into(),
        digest: "d".into(),
        input: r#"{"command":"git push"}"#.into(),
        decision: Decision::Ask,
        rule: Some("ask[0]".into()),
        hard: false,
        reason: "pushing asks".into(),
        approval: None,
        note: None,
        outcome: Outcome::Blocked,
        duration_us: 1,
        approval_id: None,
        review,
    };
    store.append(&row("plain", None)).unwrap();
    store
        .append(&row(
            "reviewed",
            Some(ReviewRecord {
                model: "gpt-4.1-mini".into(),
                decision: ReviewDecision::Deny,
                reason: "pushes to main \u{202e}x".into(),
                latency_ms: 412,
            }),
        ))
        .unwrap();
    drop(store);

    let out = ws.run(&["audit", "show"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_clean("audit show", &out.stdout);
    let t = text(&out);
    let lines: Vec<&str> = t.lines().collect();
    assert!(!lines[0].contains("review"), "{t}");
    assert!(lines[1].ends_with(" [reviewed: deny]"), "{t}");
    assert_eq!(
        lines[2], "      review: deny by gpt-4.1-mini (412 ms): pushes to main \\u{202e}x",
        "{t}"
    );
    assert!(lines[3].starts_with("totals: 2 requests"), "{t}");

    // Only the reviewed row.
    let out = ws.run(&["audit", "show", "--reviewed"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let t = text(&out);
    assert_eq!(t.lines().count(), 3, "{t}");
    assert!(
        t.lines().next().unwrap().contains("[reviewed: deny]"),
        "{t}"
    );

    // JSON: the review object, the reason exact.
    let out = ws.run(&["audit", "show", "--json"]);
    assert_clean("audit show --json", &out.stdout);
    let rows: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows[0]["review"], serde_json::Value::Null);
    assert_eq!(
        rows[1]["review"],
        json!({
            "model": "gpt-4.1-mini",
            "decision": "deny",
            "reason": "pushes to main \u{202e}x",
            "latency_ms": 412,
        })
    );
}

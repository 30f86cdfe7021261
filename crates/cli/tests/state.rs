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
        )
        .unwrap();
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

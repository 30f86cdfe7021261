//! Shared helpers: records, stores in temporary directories, child
//! processes, file fingerprints, and an independent implementation of the
//! documented row hash.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};

use sha2::{Digest, Sha256};
use toolgate_store::{
    ApprovalAnswer, Decision, GENESIS_HASH, Outcome, PendingNew, Record, Row, Store,
};

pub const ROLE_ENV: &str = "TOOLGATE_STORE_TEST_ROLE";
pub const DB_ENV: &str = "TOOLGATE_STORE_TEST_DB";
pub const ARG_ENV: &str = "TOOLGATE_STORE_TEST_ARG";

/// A record with the given decision and outcome and plausible other fields.
pub fn record(session: &str, call_id: &str, decision: Decision, outcome: Outcome) -> Record {
    Record {
        session: session.to_owned(),
        client: Some("claude".to_owned()),
        server: None,
        call_id: call_id.to_owned(),
        tool: "Bash".to_owned(),
        digest: hex(&Sha256::digest(call_id.as_bytes())),
        input: format!(r#"{{"command":"echo {call_id}"}}"#),
        decision,
        rule: Some("allow[0]".to_owned()),
        hard: false,
        reason: format!("{decision} by the policy"),
        approval: None,
        note: None,
        outcome,
        duration_us: 120,
        approval_id: None,
    }
}

/// An allowed call that ran.
pub fn executed(session: &str, call_id: &str) -> Record {
    record(session, call_id, Decision::Allow, Outcome::Executed)
}

/// A waiting request and its approval, ready for `append_waiting`.
pub fn waiting(session: &str, call_id: &str) -> (Record, PendingNew) {
    let mut r = record(session, call_id, Decision::Ask, Outcome::Waiting);
    r.rule = Some("ask[0]".to_owned());
    r.approval = Some(ApprovalAnswer::Unanswered);
    let p = PendingNew {
        session: session.to_owned(),
        client: r.client.clone(),
        server: r.server.clone(),
        call_id: call_id.to_owned(),
        tool: r.tool.clone(),
        snapshot_json: format!(
            r#"{{"id":"{call_id}","input":{},"tool":"{}"}}"#,
            r.input, r.tool
        ),
        digest: r.digest.clone(),
        reason: r.reason.clone(),
        rule: r.rule.clone(),
        remember_allowed: false,
    };
    (r, p)
}

/// A new store in a new temporary directory.
pub fn fresh() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path().join("toolgate.db")).expect("open");
    (dir, store)
}

/// A raw connection for editing the file behind the store's back.
pub fn raw(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).expect("raw connection")
}

/// SHA-256 of a file's bytes, to prove that nothing wrote to it.
pub fn fingerprint(path: &Path) -> String {
    hex(&Sha256::digest(std::fs::read(path).expect("read file")))
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The row hash as the crate documentation specifies it, written
/// independently of the crate's code.
pub fn documented_hash(prev_hash: &str, row: &Row) -> String {
    fn s(h: &mut Sha256, v: &str) {
        h.update((v.len() as u64).to_be_bytes());
        h.update(v.as_bytes());
    }
    fn o(h: &mut Sha256, v: Option<&str>) {
        match v {
            None => h.update([0]),
            Some(v) => {
                h.update([1]);
                s(h, v);
            }
        }
    }
    let r = &row.record;
    let mut h = Sha256::new();
    h.update(b"toolgate-ledger-v1\0");
    s(&mut h, prev_hash);
    h.update(row.seq.to_be_bytes());
    s(&mut h, row.kind.as_str());
    s(&mut h, &row.time);
    s(&mut h, &r.session);
    o(&mut h, r.client.as_deref());
    s(&mut h, &r.call_id);
    s(&mut h, &r.tool);
    s(&mut h, &r.digest);
    s(&mut h, &r.input);
    s(&mut h, r.decision.as_str());
    o(&mut h, r.rule.as_deref());
    h.update([u8::from(r.hard)]);
    s(&mut h, &r.reason);
    o(&mut h, r.approval.map(|a| a.as_str()));
    o(&mut h, r.note.as_deref());
    s(&mut h, r.outcome.as_str());
    h.update(r.duration_us.to_be_bytes());
    o(&mut h, r.approval_id.as_deref());
    if let Some(server) = r.server.as_deref() {
        h.update([1]);
        s(&mut h, server);
    }
    hex(&h.finalize())
}

/// The genesis hash, for readability at call sites.
pub fn genesis() -> &'static str {
    GENESIS_HASH
}

/// Starts this test binary again in a child role (see `children`).
pub fn spawn_child(role: &str, db: &Path, arg: &str) -> Child {
    Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "children::child",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(ROLE_ENV, role)
        .env(DB_ENV, db)
        .env(ARG_ENV, arg)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn child")
}

/// Lines the child printed with the `CHILD ` prefix (the test harness
/// prints its own lines too). Children exit right after their last line,
/// so the reader may be dropped early.
pub struct ChildLines(BufReader<ChildStdout>);

impl ChildLines {
    pub fn of(child: &mut Child) -> ChildLines {
        ChildLines(BufReader::new(child.stdout.take().expect("piped stdout")))
    }

    /// The next `CHILD ` line, without the prefix; `None` at end of output.
    pub fn next_line(&mut self) -> Option<String> {
        let mut line = String::new();
        loop {
            line.clear();
            if self.0.read_line(&mut line).expect("read child output") == 0 {
                return None;
            }
            // The harness prints `test children::child ... ` without a
            // newline before the test's own output.
            if let Some(at) = line.find("CHILD ") {
                return Some(line[at + "CHILD ".len()..].trim_end().to_owned());
            }
        }
    }
}

/// Waits for a child and insists that it succeeded.
pub fn wait_ok(mut child: Child, what: &str) {
    let status = child.wait().expect("wait for child");
    assert!(status.success(), "{what} failed: {status}");
}

/// A database path inside `dir`.
pub fn db_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("toolgate.db")
}

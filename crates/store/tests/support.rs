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
        review: None,
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

/// SQL that takes a SQLite ledger back from schema version 6 to 5: no
/// review columns, no indexes for them.
pub const UNDO_V6: &str = "DROP INDEX ledger_review; DROP INDEX ledger_request_approval;
     ALTER TABLE ledger DROP COLUMN review_model;
     ALTER TABLE ledger DROP COLUMN review_decision;
     ALTER TABLE ledger DROP COLUMN review_reason;
     ALTER TABLE ledger DROP COLUMN review_latency_ms;";

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
    if let Some(review) = &r.review {
        h.update([2]);
        s(&mut h, &review.model);
        s(&mut h, review.decision.as_str());
        s(&mut h, &review.reason);
        h.update(review.latency_ms.to_be_bytes());
    }
    hex(&h.finalize())
}

/// The genesis hash, for readability at call sites.
pub fn genesis() -> &'static str {
    GENESIS_HASH
}

/// Starts this test binary again in a child role (see `children`).
pub fn spawn_child(role: &str, db: impl AsRef<std::ffi::OsStr>, arg: &str) -> Child {
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

/// The environment variable naming the PostgreSQL database the tests may
/// use (`scripts/pg.sh` starts a server and sets it).
pub const PG_ENV: &str = "TOOLGATE_TEST_DATABASE_URL";

/// Where a store lives: a SQLite file or a PostgreSQL URL (whose
/// `search_path` names a schema of the test's own).
#[derive(Debug, Clone)]
pub struct Target(pub String);

impl Target {
    /// Opens (another handle to) the store.
    pub fn open(&self) -> toolgate_store::Result<Store> {
        if self.is_postgres() {
            Store::open_url(&self.0)
        } else {
            Store::open(&self.0)
        }
    }

    pub fn is_postgres(&self) -> bool {
        self.0.starts_with("postgres://")
    }
}

/// A new, empty store of one backend, for one test.
pub struct Fixture {
    _dir: tempfile::TempDir,
    target: Target,
}

impl Fixture {
    /// A SQLite file in a new temporary directory.
    pub fn sqlite() -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let target = Target(db_in(&dir).to_string_lossy().into_owned());
        Fixture { _dir: dir, target }
    }

    /// A new schema in the test database; `None` (the test is skipped)
    /// when no database is configured outside CI. In CI a missing
    /// database fails the test.
    pub fn postgres() -> Option<Fixture> {
        let base = pg_base()?;
        let schema = format!("t_{}", unique());
        let mut admin = postgres::Client::connect(&base, postgres::NoTls)
            .unwrap_or_else(|e| panic!("connect to {base}: {e}"));
        admin
            .batch_execute(&format!("CREATE SCHEMA {schema}"))
            .expect("create schema");
        let sep = if base.contains('?') { '&' } else { '?' };
        let url =
            format!("{base}{sep}application_name={schema}&options=-c%20search_path%3D{schema}");
        Some(Fixture {
            _dir: tempfile::tempdir().expect("temp dir"),
            target: Target(url),
        })
    }

    /// The store, opened.
    pub fn open(&self) -> Store {
        self.target.open().expect("open the store")
    }

    /// Where the store lives, for other threads and processes.
    pub fn target(&self) -> Target {
        self.target.clone()
    }

    /// The schema's name (also the connections' `application_name`), for
    /// a PostgreSQL fixture.
    pub fn schema(&self) -> Option<&str> {
        self.target.0.rsplit_once("search_path%3D").map(|(_, s)| s)
    }
}

/// The test database's URL, or `None` to skip (never in CI).
pub fn pg_base() -> Option<String> {
    match std::env::var(PG_ENV).ok().filter(|v| !v.is_empty()) {
        Some(url) => Some(url),
        None if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!(
                "{PG_ENV} is not set: CI runs the store's tests on PostgreSQL too (scripts/pg.sh)"
            )
        }
        None => {
            eprintln!("skipped: {PG_ENV} is not set (scripts/pg.sh starts a server)");
            None
        }
    }
}

/// A name no other test of this run (or an earlier run) uses.
pub fn unique() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!(
        "{}_{}_{}",
        std::process::id(),
        nanos % 1_000_000_000,
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A raw connection to a PostgreSQL fixture's schema, for looking behind
/// the store's back.
pub fn pg_raw(target: &Target) -> postgres::Client {
    postgres::Client::connect(&target.0, postgres::NoTls).expect("raw PostgreSQL connection")
}

/// Defines a test that runs once on each backend: `NAME::sqlite` and
/// `NAME::postgres`. The body gets `fx: &Fixture`.
#[macro_export]
macro_rules! both {
    ($(fn $name:ident($fx:ident) $body:block)+) => {
        $(
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                fn run($fx: &$crate::support::Fixture) $body

                #[test]
                fn sqlite() {
                    run(&$crate::support::Fixture::sqlite());
                }

                #[test]
                fn postgres() {
                    if let Some(fx) = $crate::support::Fixture::postgres() {
                        run(&fx);
                    }
                }
            }
        )+
    };
}

/*!
toolgate's state: the hash-chained ledger of every tool call, the queue of
pending approvals, and the rules granted for a session.

Everything lives in one SQLite file, `toolgate.db`, in the [state
directory](Store::open_in). Many processes use it at once (one hook process per
tool call is normal, plus the CLI and the approval page): every write is a
short `BEGIN IMMEDIATE` transaction, the journal is WAL so readers never
block the writer, and a process killed at any point leaves either all or
none of its transaction behind.

The store knows nothing of policies: decisions and outcomes are its own
small enums, and the caller computes digests.

# Example: record a call and check the chain

```
use toolgate_store::{Decision, Outcome, Record, Store};

# fn main() -> Result<(), toolgate_store::Error> {
# let dir = tempfile::tempdir().unwrap();
let store = Store::open(dir.path().join("toolgate.db"))?;
let appended = store.append(&Record {
    session: "s1".into(),
    client: Some("claude".into()),
    server: None,
    call_id: "toolu_01".into(),
    tool: "Read".into(),
    digest: "9f2c…".into(),
    input: r#"{"file_path":"README.md"}"#.into(),
    decision: Decision::Allow,
    rule: Some("allow[0]".into()),
    hard: false,
    reason: "reads inside the roots are allowed".into(),
    approval: None,
    note: None,
    outcome: Outcome::Executed,
    duration_us: 85,
    approval_id: None,
})?;
assert_eq!(appended.seq, 1);
assert!(store.verify()?.is_intact());
assert_eq!(store.totals()?.executions, 1);
# Ok(())
# }
```

# Example: a call that waits for a person

```
use toolgate_store::{Answer, Decision, Outcome, PendingNew, Record, Store};

# fn main() -> Result<(), toolgate_store::Error> {
# let dir = tempfile::tempdir().unwrap();
# let store = Store::open(dir.path().join("toolgate.db"))?;
let pending = PendingNew {
    session: "s1".into(),
    client: None,
    server: None,
    call_id: "c7".into(),
    tool: "run_shell".into(),
    snapshot_json: r#"{"id":"c7","input":{"command":"git push"},"tool":"run_shell"}"#.into(),
    digest: "4be1…".into(),
    reason: "pushing asks".into(),
    rule: Some("ask[0]".into()),
    remember_allowed: false,
};
let request = Record {
    session: pending.session.clone(),
    client: None,
    server: None,
    call_id: pending.call_id.clone(),
    tool: pending.tool.clone(),
    digest: pending.digest.clone(),
    input: r#"{"command":"git push"}"#.into(),
    decision: Decision::Ask,
    rule: pending.rule.clone(),
    hard: false,
    reason: pending.reason.clone(),
    approval: Some(toolgate_store::ApprovalAnswer::Unanswered),
    note: None,
    outcome: Outcome::Waiting,
    duration_us: 40,
    approval_id: None,
};
// The approval and its `waiting` request row, in one transaction.
let queued = store.append_waiting(&request, &pending)?;
assert_eq!(store.totals()?.waiting, 1);

// Later, in another process: `toolgate approvals approve <id>` ...
store.answer(&queued.id, Answer::Approve, None, "cli")?;
// ... and exactly one process gets to run the snapshot.
let approval = store.claim_for_execution(&queued.id)?.expect("approved");
assert!(store.claim_for_execution(&queued.id)?.is_none());
// (re-check approval.digest, run approval.snapshot_json)
store.finish(&approval.id, Outcome::Executed, 1200)?;

let totals = store.totals()?;
assert_eq!((totals.requests, totals.waiting, totals.executions), (1, 0, 1));
# Ok(())
# }
```

# The ledger

One row per submitted call, never updated or deleted. A call that waited
for an approval gets a second row when it is declined or executed, of kind
[`RowKind::Resolution`] and with the same call id and approval id (see
[`Totals`] for how both are counted). Each row stores the previous row's
hash and its own, a SHA-256 over the previous hash and a length-prefixed
encoding of all its fields, seq included:

```text
hash = hex(SHA-256(
    "toolgate-ledger-v1" 0x00
    str(prev_hash)  u64(seq)  str(kind)  str(time)  str(session)
    opt(client)  str(call_id)  str(tool)  str(digest)  str(input)
    str(decision)  opt(rule)  u8(hard)  str(reason)  opt(approval)
    opt(note)  str(outcome)  u64(duration_us)  opt(approval_id)
    [0x01 str(server)]    (only when a server is recorded)
))
str(s) = u64(byte length) ++ bytes;  opt(x) = 0x00 | 0x01 ++ str(x)
u64(n) = 8 bytes big-endian;         u8(b) = 0x00 | 0x01
```

The first row's previous hash is [`GENESIS_HASH`]. A one-row `head` table
holds the last seq and hash, updated in the same transaction as each
append, so that deleting the newest rows is detected as well.
[`Store::verify`] walks the chain and names the first bad row.

The chain detects changes made by someone who cannot also rewrite every
later row and the head. Against someone who can, keep the head hash
([`Store::head`]) somewhere else too.
*/

#![deny(missing_docs)]

mod approvals;
mod chain;
mod error;
mod grants;
mod ledger;
mod open;
mod paths;
mod pins;
mod schema;
mod stored;
mod time;
mod types;
mod verify;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use rusqlite::Connection;

pub use chain::GENESIS_HASH;
pub use error::{Error, Result, UnknownValue};
pub use open::BUSY_TIMEOUT;
pub use paths::DB_FILE_NAME;
pub use pins::{Pin, PinChange, PinCheck};
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};
pub use types::{
    Answer, Answered, Appended, ApprovalAnswer, ApprovalStatus, Decision, Grant, Head, Outcome,
    Pending, PendingNew, Queued, Record, Row, RowFilter, RowKind, Totals,
};
pub use verify::{Problem, ProblemKind, VerifyReport};

/// An open toolgate database.
///
/// One connection, shared by the threads of a process behind a mutex;
/// other processes open their own. Every method is a single transaction.
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl Store {
    /// Opens the database at `path`, creating it (owner-only) when missing.
    ///
    /// A file that is not SQLite, is damaged, belongs to another
    /// application or has a newer schema is refused with an error naming
    /// the file, and nothing in it is written or migrated.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        let conn = open::open(&path)?;
        Ok(Store {
            path,
            conn: Mutex::new(conn),
        })
    }

    /// Opens `toolgate.db` in the state directory `dir`, creating the
    /// directory with mode 0700 when missing.
    ///
    /// `dir` comes from `toolgate_policy::state_dir` (or the host's
    /// `--state-dir`), the same directory the policy is told to protect.
    pub fn open_in(dir: impl AsRef<Path>) -> Result<Store> {
        let dir = dir.as_ref();
        paths::create_private_dir(dir)?;
        Store::open(dir.join(DB_FILE_NAME))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether a write can be made now: takes the write lock (waiting up to
    /// the busy timeout) and gives it back. A database that is read-only,
    /// locked by another process past the timeout, or whose file system
    /// refuses writes fails here, before a call that must be recorded runs.
    pub fn check_writable(&self) -> Result<()> {
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(self.db())?;
        tx.rollback().map_err(self.db())
    }

    /// The connection. A thread that panicked while holding it cannot have
    /// left a transaction open (dropping a transaction rolls it back), so a
    /// poisoned lock is still a usable connection.
    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.conn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Wraps a SQLite error with this database's path.
    fn db(&self) -> impl Fn(rusqlite::Error) -> Error + '_ {
        |e| Error::sqlite(&self.path, e)
    }
}

/// The WAL size past which the closing connection folds it into the
/// database and empties it.
const WAL_TRUNCATE_BYTES: u64 = 256 * 1024;

impl Drop for Store {
    /// Closing does not checkpoint (see `open.rs`), so the WAL outlives the
    /// process. Every process that opens the database first is the one to
    /// read the WAL back (SQLite's recovery), so it is kept small: once it
    /// passes 256 KiB, the connection that closes checkpoints it and
    /// truncates it to nothing. That costs a few fsyncs every few dozen
    /// tool calls instead of on every one. Best effort: a busy database or
    /// an error leaves the WAL for a later close.
    fn drop(&mut self) {
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        let big = std::fs::metadata(&wal).is_ok_and(|m| m.len() > WAL_TRUNCATE_BYTES);
        if big {
            let conn = self.conn();
            let _ = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
        }
    }
}

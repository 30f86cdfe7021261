/*!
toolgate's state: the hash-chained ledger of every tool call, the queue of
pending approvals, and the rules granted for a session.

Two backends keep the same state behind the same [`Store`]:

- **SQLite** (the embedded default): one file, `toolgate.db`, in the [state
  directory](Store::open_in). Many processes use it at once (one hook
  process per tool call is normal, plus the CLI and the approval page):
  every write is a short `BEGIN IMMEDIATE` transaction, the journal is WAL
  so readers never block the writer, and a process killed at any point
  leaves either all or none of its transaction behind.
- **PostgreSQL** ([`Store::open_url`]), for several hosts sharing one
  ledger and one approval queue: appends from every host are serialised on
  the head row (`SELECT .. FOR UPDATE`), so they form one chain; an
  approval is claimed by a conditional update, so it runs at most once
  across hosts; grants and pins are rows every host sees. The schema is
  created by versioned migrations (`migrations/postgres/`). A lost
  connection is an error, which the gate turns into a refusal.

[`Store::open_configured`] picks the backend the way hosts do:
`TOOLGATE_DATABASE_URL`, else the policy's `[state] database`, else SQLite.
Row hashes are computed by the same code for both, so a SQLite ledger can be
copied into PostgreSQL row by row ([`Store::copy_to`]) and still verify.

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
    review: None,
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
    review: None,
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
    [0x02 str(review_model) str(review_decision) str(review_reason)
          u64(review_latency_ms)]    (only when the call was reviewed)
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
mod copy;
mod error;
mod paths;
mod pins;
mod postgres;
pub mod shown;
mod spool;
mod sqlite;
mod stored;
mod time;
mod types;
mod verify;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub use chain::GENESIS_HASH;
pub use copy::CopyReport;
pub use error::{Error, Result, UnknownValue};
pub use paths::DB_FILE_NAME;
pub use pins::{Pin, PinChange, PinCheck};
pub use postgres::{CONNECT_TIMEOUT, POOL_SIZE, STATEMENT_TIMEOUT};
pub use sqlite::BUSY_TIMEOUT;
pub use sqlite::schema::{APPLICATION_ID, SCHEMA_VERSION};
pub use types::{
    Answer, Answered, Appended, ApprovalAnswer, ApprovalStatus, Decision, Grant, Head, Outcome,
    Pending, PendingNew, Queued, Record, ReviewCounts, ReviewDecision, ReviewRecord, Row,
    RowFilter, RowKind, Totals,
};
pub use verify::{Problem, ProblemKind, VerifyReport};

/// The environment variable that names a shared database
/// (`postgres://user@host/db`); it wins over the policy's
/// `[state] database`.
pub const DATABASE_URL_ENV: &str = "TOOLGATE_DATABASE_URL";

/// Whether the project policy `file` is trusted with exactly `digest`, in
/// the store [`Store::open_configured`] opens for `state_dir` and
/// `database`: the check hosts hand to the layered policy loader. The
/// state directory's SQLite file is not created just to say no.
pub fn is_trusted_in(
    state_dir: impl AsRef<Path>,
    database: Option<&str>,
    file: &Path,
    digest: &str,
) -> Result<bool> {
    if configured_database(database).is_none() && !state_dir.as_ref().join(DB_FILE_NAME).exists() {
        return Ok(false);
    }
    let store = Store::open_configured(state_dir, database)?;
    let key = file.to_string_lossy();
    Ok(store.trusted(&key)?.as_deref() == Some(digest))
}

/// The database a host is configured to use instead of the state
/// directory's SQLite file: `$TOOLGATE_DATABASE_URL` when set, else
/// `database` (the policy's `[state] database`).
pub fn configured_database(database: Option<&str>) -> Option<String> {
    std::env::var(DATABASE_URL_ENV)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .or_else(|| database.map(str::to_owned))
}

/// Whether a database value names PostgreSQL (`postgres://` or
/// `postgresql://`) rather than a SQLite file.
pub fn is_postgres_url(value: &str) -> bool {
    postgres::is_url(value)
}

/// An open toolgate store, in a SQLite file or a PostgreSQL database.
///
/// SQLite: one connection, shared by the threads of a process behind a
/// mutex; other processes open their own. PostgreSQL: a small pool of
/// connections. Either way every method is a single transaction.
///
/// A store opened with [`Store::open_spooled`] opens its SQLite file only
/// when something other than an append needs it; until then appends go to
/// the spool beside it (see `spool.rs`).
#[derive(Debug)]
pub struct Store {
    path: PathBuf,
    backend: OnceLock<Backend>,
    /// The spool appends go to, for a store opened spooled.
    spool: Option<spool::Spool>,
}

/// Which database holds the state.
#[derive(Debug)]
enum Backend {
    Sqlite(sqlite::Db),
    Postgres(postgres::Db),
}

/// Calls the same method on whichever backend is open.
macro_rules! dispatch {
    ($self:ident, $db:ident => $call:expr) => {
        match $self.opened()? {
            Backend::Sqlite($db) => $call,
            Backend::Postgres($db) => $call,
        }
    };
}

impl Store {
    /// Opens the SQLite database at `path`, creating it (owner-only) when
    /// missing.
    ///
    /// A file that is not SQLite, is damaged, belongs to another
    /// application or has a newer schema is refused with an error naming
    /// the file, and nothing in it is written or migrated.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref().to_path_buf();
        let db = sqlite::Db::open(&path)?;
        Ok(Store {
            path,
            backend: OnceLock::from(Backend::Sqlite(db)),
            spool: None,
        })
    }

    /// A store over `toolgate.db` in the state directory `dir` (created
    /// with mode 0700 when missing) that does not open the database yet:
    /// appends go to the spool beside it, and the database is opened (the
    /// spool folded into it) only when something else is asked of the
    /// store, or when the spool has grown past a bound.
    ///
    /// For a host that lives for one call (a hook process), for which
    /// opening SQLite is most of the work. A path at the database's name
    /// that is not a file is an error here, as it would be for
    /// [`Store::open_in`]: the spool could never reach the ledger.
    pub fn open_spooled(dir: impl AsRef<Path>) -> Result<Store> {
        let dir = dir.as_ref();
        if !dir.is_dir() {
            paths::create_private_dir(dir)?;
        }
        let path = dir.join(DB_FILE_NAME);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => {
                return Err(Error::NotSqlite {
                    path,
                    detail: "it is not a regular file".to_owned(),
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(Error::Io {
                    path,
                    action: "look at the database",
                    source,
                });
            }
        }
        Ok(Store {
            spool: Some(spool::Spool::new(spool::path_for(&path))),
            path,
            backend: OnceLock::new(),
        })
    }

    /// Like [`Store::open_configured`], but the default SQLite store is
    /// opened spooled ([`Store::open_spooled`]).
    pub fn open_configured_spooled(
        state_dir: impl AsRef<Path>,
        database: Option<&str>,
    ) -> Result<Store> {
        match configured_database(database) {
            Some(_) => Store::open_configured(state_dir, database),
            None => Store::open_spooled(state_dir),
        }
    }

    /// The open backend, opening the SQLite file of a spooled store on
    /// first use (which folds the spool into it).
    fn opened(&self) -> Result<&Backend> {
        if let Some(b) = self.backend.get() {
            return Ok(b);
        }
        let db = sqlite::Db::open(&self.path)?;
        // Another thread may have opened it meanwhile; either is the file.
        let _ = self.backend.set(Backend::Sqlite(db));
        self.backend.get().ok_or_else(|| Error::Corrupt {
            path: self.path.clone(),
            detail: "the database could not be opened".to_owned(),
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

    /// Opens the PostgreSQL database at `url` (`postgres://` or
    /// `postgresql://`, libpq's URL syntax), applying the migrations it
    /// lacks. A database migrated by a newer toolgate is refused.
    ///
    /// Connections time out after [`CONNECT_TIMEOUT`] and statements
    /// (lock waits included) after [`STATEMENT_TIMEOUT`]; an unreachable
    /// server is an error here, not later.
    pub fn open_url(url: &str) -> Result<Store> {
        let db = postgres::Db::open(url)?;
        Ok(Store {
            path: PathBuf::from(db.display_url()),
            backend: OnceLock::from(Backend::Postgres(db)),
            spool: None,
        })
    }

    /// Opens the store a host should use: `$TOOLGATE_DATABASE_URL` when
    /// set, else `database` (the policy's `[state] database`), else
    /// `toolgate.db` in `state_dir`.
    ///
    /// A database value is a `postgres://` URL or, for SQLite, a file path.
    pub fn open_configured(state_dir: impl AsRef<Path>, database: Option<&str>) -> Result<Store> {
        match configured_database(database).as_deref() {
            Some(url) if postgres::is_url(url) => Store::open_url(url),
            Some(file) => Store::open(file),
            None => Store::open_in(state_dir),
        }
    }

    /// The database file; for PostgreSQL, the URL without its password.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `"sqlite"` or `"postgres"`.
    pub fn backend(&self) -> &'static str {
        match self.backend.get() {
            Some(Backend::Postgres(_)) => "postgres",
            Some(Backend::Sqlite(_)) | None => "sqlite",
        }
    }

    /// Whether a write can be made now. SQLite: takes the write lock
    /// (waiting up to the busy timeout) and gives it back, so a database
    /// that is read-only, locked past the timeout, or on a file system that
    /// refuses writes fails here. PostgreSQL: a connection that answers and
    /// is not read-only. Either way before a call that must be recorded runs.
    pub fn check_writable(&self) -> Result<()> {
        dispatch!(self, db => db.check_writable())
    }

    /// Queues a call for a person to answer and returns the approval's id.
    ///
    /// Prefer [`Store::append_waiting`], which also writes the call's
    /// `waiting` ledger row in the same transaction.
    pub fn create_pending(&self, new: &PendingNew) -> Result<String> {
        dispatch!(self, db => db.create_pending(new))
    }

    /// Queues a call and appends its request row, linked by the new
    /// approval's id (which replaces `record.approval_id`), in one
    /// transaction: after a crash there is either both or neither.
    ///
    /// The record's outcome must be `waiting`.
    pub fn append_waiting(&self, record: &Record, new: &PendingNew) -> Result<Queued> {
        if record.outcome != Outcome::Waiting {
            return Err(Error::WrongOutcome {
                outcome: record.outcome,
                expected: "`waiting`",
            });
        }
        dispatch!(self, db => db.append_waiting(record, new))
    }

    /// One approval, whatever its status; `None` for an unknown id.
    ///
    /// A primary-key read that takes no write lock: a hook waiting for an
    /// answer can poll it every few hundred milliseconds.
    pub fn approval(&self, id: &str) -> Result<Option<Pending>> {
        dispatch!(self, db => db.approval(id))
    }

    /// Approvals waiting for an answer, oldest first.
    pub fn list_pending(&self) -> Result<Vec<Pending>> {
        self.list_approvals(Some(ApprovalStatus::Pending))
    }

    /// Approvals with the given status (all when `None`), oldest first.
    pub fn list_approvals(&self, status: Option<ApprovalStatus>) -> Result<Vec<Pending>> {
        dispatch!(self, db => db.list_approvals(status))
    }

    /// Answers a pending approval, exactly once.
    ///
    /// - `Approve`: the approval becomes `approved`; the call's outcome
    ///   is recorded when it has run ([`Store::finish`]).
    /// - `Session`: the same, and the rule is granted for the session in
    ///   the same transaction; only where the rule allows remembering.
    /// - `Decline`: the approval becomes `declined` and the call's
    ///   resolution (outcome `blocked`) is appended to the ledger.
    ///
    /// `who` names the answerer for the record (e.g. `cli:alice`, `web`).
    /// An unknown id, or an approval answered before, is an error.
    pub fn answer(
        &self,
        id: &str,
        answer: Answer,
        note: Option<&str>,
        who: &str,
    ) -> Result<Answered> {
        dispatch!(self, db => db.answer(id, answer, note, who))
    }

    /// Takes an approved call for execution. Exactly one caller, across all
    /// processes (and, on PostgreSQL, all hosts), gets `Some` (and must then
    /// run the snapshot, after re-checking its digest, and call
    /// [`Store::finish`]); everyone else gets `None`, as does a call not
    /// (yet) approved. An unknown id is an error.
    pub fn claim_for_execution(&self, id: &str) -> Result<Option<Pending>> {
        dispatch!(self, db => db.claim_for_execution(id))
    }

    /// Expires every approval still `pending` that was queued more than
    /// `ttl` ago, and returns them (now `expired`).
    ///
    /// Each gets its resolution row (outcome `blocked`, approval answer
    /// `none`, a note saying it expired) in the same transaction as its
    /// move, so the chain and the queue stay in step; a waiter polling the
    /// approval sees `expired` and refuses the call. An approval answered
    /// meanwhile by another process is left alone (the update is
    /// conditional on `pending`).
    pub fn expire_older_than(&self, ttl: std::time::Duration) -> Result<Vec<Pending>> {
        dispatch!(self, db => db.expire_older_than(ttl))
    }

    /// Records how a claimed call ended: the approval becomes `done` and
    /// the call's resolution row is appended, in one transaction.
    ///
    /// `outcome` is `executed`, `failed`, `passed` (handed to a host that
    /// runs it, e.g. a waiting hook), or `blocked` (the snapshot was not
    /// run after all, e.g. its digest no longer matched).
    pub fn finish(&self, id: &str, outcome: Outcome, duration_us: u64) -> Result<Appended> {
        if outcome == Outcome::Waiting {
            return Err(Error::WrongOutcome {
                outcome,
                expected: "`executed`, `failed`, `passed` or `blocked`",
            });
        }
        dispatch!(self, db => db.finish(id, outcome, duration_us))
    }

    /// Grants `rule` for `session`. Returns whether it is new (granting
    /// twice is not an error).
    pub fn grant(&self, session: &str, rule: &str) -> Result<bool> {
        dispatch!(self, db => db.grant(session, rule))
    }

    /// Whether `rule` was granted for `session`.
    pub fn has_grant(&self, session: &str, rule: &str) -> Result<bool> {
        dispatch!(self, db => db.has_grant(session, rule))
    }

    /// The rules granted for `session`, by rule id.
    pub fn grants(&self, session: &str) -> Result<Vec<Grant>> {
        dispatch!(self, db => db.grants(session))
    }

    /// Appends a request row for one call and returns its seq and hash.
    ///
    /// The head is read and moved in the same transaction as the insert
    /// (under SQLite's write lock, or PostgreSQL's lock on the head row),
    /// so appends from concurrent processes and hosts chain one after
    /// another, with seqs 1, 2, 3, ... and no gaps.
    ///
    /// A spooled store ([`Store::open_spooled`]) writes the row to its
    /// spool instead: it is in the ledger, with its seq, once the spool is
    /// folded, and the seq returned is 0.
    pub fn append(&self, record: &Record) -> Result<Appended> {
        if let Some(spool) = &self.spool {
            let len = spool.append(RowKind::Request, &time::now(), record)?;
            // Past the bound, fold now (opening the database folds too; a
            // store already open, a long-lived host's, folds again).
            if len > spool::FOLD_BYTES
                && let Backend::Sqlite(db) = self.opened()?
            {
                db.fold_spool()?;
            }
            return Ok(Appended {
                seq: 0,
                hash: String::new(),
            });
        }
        dispatch!(self, db => db.append(record))
    }

    /// Ledger rows, oldest first unless the filter says otherwise.
    pub fn rows(&self, filter: &RowFilter) -> Result<Vec<Row>> {
        dispatch!(self, db => db.rows(filter))
    }

    /// Counts over the whole ledger; see [`Totals`] for what each means.
    pub fn totals(&self) -> Result<Totals> {
        dispatch!(self, db => db.count(None))
    }

    /// Counts over one session's rows.
    pub fn session_totals(&self, session: &str) -> Result<Totals> {
        dispatch!(self, db => db.count(Some(session)))
    }

    /// The last seq and hash, as the `head` table holds them.
    pub fn head(&self) -> Result<Head> {
        dispatch!(self, db => db.head())
    }

    /// The reviewer model's answers over one session's rows, in ledger
    /// order: how many denied, how many denied since the last allow or
    /// escalate, how many rows the breaker sent to a person (see
    /// [`ReviewCounts`]). Reads only the session's reviewed rows, through
    /// an index that holds nothing else.
    pub fn review_counts(&self, session: &str) -> Result<ReviewCounts> {
        dispatch!(self, db => db.review_counts(session))
    }

    /// The request row of the call queued as approval `id` (its
    /// `waiting` row, written by [`Store::append_waiting`]), through an
    /// index of such rows; `None` when there is none.
    pub fn request_row(&self, id: &str) -> Result<Option<Row>> {
        dispatch!(self, db => db.request_row(id))
    }

    /// Checks the database (SQLite: its `quick_check`) and then the hash
    /// chain from the first row to the head, inside one read transaction
    /// (one snapshot) so that concurrent appends are not mistaken for
    /// tampering.
    ///
    /// A broken chain is a report, not an error; errors are for a database
    /// that cannot be read.
    pub fn verify(&self) -> Result<VerifyReport> {
        dispatch!(self, db => db.verify())
    }

    /// Checks a definition against the pin of `server`/`tool`, pinning it on
    /// first sight and recording it as the changed definition when it
    /// differs. One transaction.
    pub fn check_pin(
        &self,
        server: &str,
        tool: &str,
        digest: &str,
        definition: &str,
    ) -> Result<PinCheck> {
        dispatch!(self, db => db.check_pin(server, tool, digest, definition))
    }

    /// The pin of one tool.
    pub fn pin(&self, server: &str, tool: &str) -> Result<Option<Pin>> {
        dispatch!(self, db => db.pin(server, tool))
    }

    /// Every pin, of one server or of all, by server and tool.
    pub fn pins(&self, server: Option<&str>) -> Result<Vec<Pin>> {
        dispatch!(self, db => db.pins(server))
    }

    /// Trusts the project policy `file` (its canonical path) as it is now:
    /// `digest` is the SHA-256 (hex) of its bytes. Trusting again replaces
    /// the digest.
    pub fn trust(&self, file: &str, digest: &str) -> Result<()> {
        dispatch!(self, db => db.trust(file, digest))
    }

    /// The digest `file` was trusted with, if it was. A file whose digest
    /// differs from this one was edited since, and is not trusted.
    pub fn trusted(&self, file: &str) -> Result<Option<String>> {
        dispatch!(self, db => db.trusted(file))
    }

    /// Accepts the changed definition of a tool: it becomes the pin. Returns
    /// the new pin, or `None` when the tool has no pin or no change waits.
    /// When `digest` is given, only a change with that digest is accepted
    /// (so what a person looked at is what is trusted).
    pub fn accept_pin(
        &self,
        server: &str,
        tool: &str,
        digest: Option<&str>,
    ) -> Result<Option<Pin>> {
        dispatch!(self, db => db.accept_pin(server, tool, digest))
    }
}

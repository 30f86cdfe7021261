//! The embedded backend: one SQLite file, `toolgate.db`, in the state
//! directory. Many processes use it at once (one hook process per tool
//! call is normal): every write is a short `BEGIN IMMEDIATE` transaction,
//! the journal is WAL so readers never block the writer, and a process
//! killed at any point leaves either all or none of its transaction behind.

mod approvals;
mod export;
mod grants;
mod ledger;
mod open;
mod pins;
pub(crate) mod schema;
mod trust;
mod verify;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use rusqlite::Connection;

use crate::error::{Error, Result};

pub use open::BUSY_TIMEOUT;

/// An open SQLite database: one connection, shared by the threads of a
/// process behind a mutex; other processes open their own.
#[derive(Debug)]
pub(crate) struct Db {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl Db {
    /// Opens (creating when missing) the database file at `path`.
    pub fn open(path: &Path) -> Result<Db> {
        let conn = open::open(path)?;
        let db = Db {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
        };
        db.fold_spool()?;
        Ok(db)
    }

    /// Takes the write lock (waiting up to the busy timeout) and gives it
    /// back.
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

impl Drop for Db {
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

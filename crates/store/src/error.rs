//! The store's errors. Those about the database name its file, because the
//! user who reads them has to find and inspect (or move away) that file.

use std::fmt;
use std::path::PathBuf;

use crate::types::{ApprovalStatus, Outcome};

/// Everything that can go wrong in the store.
///
/// Errors that say something about the database file (`NotSqlite`,
/// `Corrupt`, `Foreign`, `NewerSchema`) are raised before anything is
/// written to it: a file that is not toolgate's, or that toolgate cannot
/// read, is left exactly as it was.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file system refused an operation on a path.
    #[error("`{}`: cannot {action}: {source}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done, e.g. "create the state directory".
        action: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },

    /// The file exists but is not a SQLite database at all.
    #[error("`{}` is not a SQLite database: {detail}", .path.display())]
    NotSqlite {
        /// The database file.
        path: PathBuf,
        /// What gave it away.
        detail: String,
    },

    /// The file is a SQLite database, but damaged (truncated, bad pages).
    #[error("`{}` is corrupted: {detail}", .path.display())]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What is damaged.
        detail: String,
    },

    /// The file is another application's SQLite database.
    #[error("`{}` is not toolgate's database: {detail}", .path.display())]
    Foreign {
        /// The database file.
        path: PathBuf,
        /// Why it is not toolgate's.
        detail: String,
    },

    /// The database was written by a newer toolgate whose schema this build
    /// does not know; reading or writing it could lose data.
    #[error(
        "`{}` has schema version {found}, newer than version {supported} known to this toolgate; upgrade toolgate",
        .path.display()
    )]
    NewerSchema {
        /// The database file.
        path: PathBuf,
        /// The version in the file.
        found: i64,
        /// The newest version this build knows.
        supported: i64,
    },

    /// Any other SQLite failure (a lock held past the busy timeout, a full
    /// disk, a read-only file).
    #[error("`{}`: {source}", .path.display())]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        source: rusqlite::Error,
    },

    /// A PostgreSQL failure: the server refused a statement, a statement
    /// timed out, or the connection was lost (the transaction it was in is
    /// rolled back by the server).
    #[error("`{url}`: {}", describe(.source))]
    Postgres {
        /// The database, without its password.
        url: String,
        /// The underlying error.
        source: postgres::Error,
    },

    /// No connection to the PostgreSQL server could be made (in time).
    #[error("`{url}`: cannot connect: {detail}")]
    Connect {
        /// The database, without its password.
        url: String,
        /// Why not.
        detail: String,
    },

    /// A copy between stores was refused or did not check out.
    #[error("cannot copy the store: {detail}")]
    Copy {
        /// Why.
        detail: String,
    },

    /// No pending approval has this id.
    #[error("no approval with id `{id}`")]
    UnknownApproval {
        /// The id asked for.
        id: String,
    },

    /// The approval was answered before: an approval transitions exactly
    /// once, so a second answer (even the same one) is refused.
    #[error("approval `{id}` was already answered: it is {status}")]
    AlreadyAnswered {
        /// The approval.
        id: String,
        /// Its current status.
        status: ApprovalStatus,
    },

    /// `finish` was called for an approval that is not being executed.
    #[error("approval `{id}` is {status}, not executing")]
    NotExecuting {
        /// The approval.
        id: String,
        /// Its current status.
        status: ApprovalStatus,
    },

    /// "Approve for this session" was given where the rule does not allow
    /// remembering, or there is no rule to remember.
    #[error("approval `{id}` cannot be remembered for the session: {detail}")]
    SessionNotAllowed {
        /// The approval.
        id: String,
        /// Why not.
        detail: &'static str,
    },

    /// An outcome that makes no sense at this step (e.g. finishing an
    /// execution with `waiting`).
    #[error("outcome `{outcome}` is not allowed here: expected {expected}")]
    WrongOutcome {
        /// The outcome given.
        outcome: Outcome,
        /// The outcomes allowed.
        expected: &'static str,
    },
}

/// A convenient alias for the store's results.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Classifies a SQLite error on `path`: damage and "not a database" get
    /// their own variants so that the message says what the user must do.
    pub(crate) fn sqlite(path: impl Into<PathBuf>, source: rusqlite::Error) -> Error {
        let path = path.into();
        let code = source.sqlite_error_code();
        match code {
            Some(rusqlite::ErrorCode::DatabaseCorrupt) => Error::Corrupt {
                path,
                detail: source.to_string(),
            },
            Some(rusqlite::ErrorCode::NotADatabase) => Error::NotSqlite {
                path,
                detail: source.to_string(),
            },
            _ => Error::Sqlite { path, source },
        }
    }
}

/// A PostgreSQL error in words: the server's own message when it sent one.
fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.severity(), db.message()),
        None if e.is_closed() => format!("the connection is closed ({e})"),
        None => {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(s) = source {
                text.push_str(&format!(": {s}"));
                source = s.source();
            }
            text
        }
    }
}

/// A stored value that is not one of the spellings its type knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownValue {
    /// The kind of value, e.g. "decision".
    pub what: &'static str,
    /// The text that was found.
    pub value: String,
}

impl fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {} `{}`", self.what, self.value)
    }
}

impl std::error::Error for UnknownValue {}

//! Where toolgate keeps its state: the one place that decides it.
//!
//! The engine denies writes to this directory as a hard limit and the store
//! writes its database there; both get the directory from [`state_dir`]
//! (a host resolves it once and hands it to both), so the directory the
//! policy protects is the directory the store writes, whatever `HOME` and
//! `TOOLGATE_STATE_DIR` say. Resolution is a pure function of the
//! environment: no file system access, nothing created.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The environment variable that overrides the state directory.
pub const STATE_DIR_ENV: &str = "TOOLGATE_STATE_DIR";

/// Why no state directory can be named.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StateDirError {
    /// Neither variable is set.
    #[error("cannot find the state directory: neither TOOLGATE_STATE_DIR nor HOME is set")]
    Unset,
    /// The current directory is needed for a relative path and is gone.
    #[error("cannot make the state directory `{0}` absolute: the current directory is unknown")]
    NotAbsolute(PathBuf),
}

/// The state directory: `$TOOLGATE_STATE_DIR` when set and not empty, else
/// `$HOME/.local/state/toolgate`, made absolute against the current
/// directory.
///
/// It lies outside every workspace so that a confined agent cannot reach it.
pub fn state_dir() -> Result<PathBuf, StateDirError> {
    resolve(std::env::var_os(STATE_DIR_ENV), std::env::var_os("HOME"))
}

fn resolve(explicit: Option<OsString>, home: Option<OsString>) -> Result<PathBuf, StateDirError> {
    let dir = match (
        explicit.filter(|v| !v.is_empty()),
        home.filter(|v| !v.is_empty()),
    ) {
        (Some(dir), _) => PathBuf::from(dir),
        (None, Some(home)) => Path::new(&home).join(".local/state/toolgate"),
        (None, None) => return Err(StateDirError::Unset),
    };
    std::path::absolute(&dir).map_err(|_| StateDirError::NotAbsolute(dir))
}

/// Checks a `[state] database` value: a PostgreSQL URL (`postgres://` or
/// `postgresql://`) or an absolute path to a SQLite file. A relative path
/// would depend on the directory a host happens to run in.
pub(crate) fn check_database(value: &str) -> Result<String, DatabaseError> {
    let v = value.trim();
    if v.starts_with("postgres://") || v.starts_with("postgresql://") || Path::new(v).is_absolute()
    {
        Ok(v.to_owned())
    } else {
        Err(DatabaseError(v.to_owned()))
    }
}

/// A `[state] database` value that names no database a host could open
/// wherever it runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is neither a `postgres://` URL nor an absolute path to a SQLite file")]
pub struct DatabaseError(pub String);

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> Option<OsString> {
        Some(OsString::from(s))
    }

    #[test]
    fn explicit_directory_wins_over_home() {
        assert_eq!(
            resolve(os("/srv/tg"), os("/home/u")).unwrap(),
            PathBuf::from("/srv/tg")
        );
    }

    #[test]
    fn default_is_under_home() {
        assert_eq!(
            resolve(None, os("/home/u")).unwrap(),
            PathBuf::from("/home/u/.local/state/toolgate")
        );
        assert_eq!(
            resolve(os(""), os("/home/u")).unwrap(),
            PathBuf::from("/home/u/.local/state/toolgate")
        );
    }

    #[test]
    fn relative_directory_is_made_absolute() {
        let dir = resolve(os("state"), None).unwrap();
        assert!(dir.is_absolute());
        assert!(dir.ends_with("state"));
    }

    #[test]
    fn no_directory_without_home() {
        assert_eq!(resolve(None, None), Err(StateDirError::Unset));
        assert_eq!(resolve(os(""), os("")), Err(StateDirError::Unset));
    }
}

//! Where the state lives. The policy engine resolves the same directory to
//! deny writes to it as a hard limit, so resolution is a pure function of
//! the environment: no file system access, nothing created.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The environment variable that overrides the state directory.
pub const STATE_DIR_ENV: &str = "TOOLGATE_STATE_DIR";

/// The database's file name inside the state directory.
pub const DB_FILE_NAME: &str = "toolgate.db";

/// The state directory: `$TOOLGATE_STATE_DIR` when set and not empty,
/// else `~/.local/state/toolgate`.
///
/// It lies outside every workspace so that a confined agent cannot reach
/// it. A relative `$TOOLGATE_STATE_DIR` is made absolute against the
/// current directory, so that the path the gate protects is the path the
/// store writes. Nothing is created; [`Store::open_default`] does that.
///
/// [`Store::open_default`]: crate::Store::open_default
pub fn state_dir() -> Result<PathBuf> {
    resolve(std::env::var_os(STATE_DIR_ENV), std::env::var_os("HOME"))
}

/// The database file inside [`state_dir`].
pub fn default_db_path() -> Result<PathBuf> {
    Ok(state_dir()?.join(DB_FILE_NAME))
}

fn resolve(explicit: Option<OsString>, home: Option<OsString>) -> Result<PathBuf> {
    let dir = match (
        explicit.filter(|v| !v.is_empty()),
        home.filter(|v| !v.is_empty()),
    ) {
        (Some(dir), _) => PathBuf::from(dir),
        (None, Some(home)) => Path::new(&home).join(".local/state/toolgate"),
        (None, None) => return Err(Error::NoStateDir),
    };
    std::path::absolute(&dir).map_err(|source| Error::Io {
        path: dir,
        action: "make the state directory's path absolute",
        source,
    })
}

/// Creates the state directory (and missing parents) readable by its owner
/// only: it holds every call's input and the approval queue.
pub(crate) fn create_private_dir(dir: &Path) -> Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        action: "create the state directory",
        source,
    })
}

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
        assert!(matches!(resolve(None, None), Err(Error::NoStateDir)));
        assert!(matches!(resolve(os(""), os("")), Err(Error::NoStateDir)));
    }
}

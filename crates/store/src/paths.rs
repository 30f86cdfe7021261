//! The state directory's layout. Which directory it is, is decided in one
//! place, `toolgate_policy::state_dir`, and handed to [`Store::open_in`]
//! by the host, so that the directory the policy protects is the one the
//! store writes.
//!
//! [`Store::open_in`]: crate::Store::open_in

use std::path::Path;

use crate::error::{Error, Result};

/// The database's file name inside the state directory.
pub const DB_FILE_NAME: &str = "toolgate.db";

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

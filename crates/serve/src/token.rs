//! The server's secrets: the access token (in a 0600 file in the state
//! directory, and in the printed link) and the CSRF token (in memory only,
//! handed out by `GET /api/session` to whoever holds the access token).

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::{ServeError, TOKEN_FILE};

/// 32 random bytes as 64 hex digits.
pub fn random_token() -> Result<String, ServeError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| ServeError::Random(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Writes a new token to `state_dir/serve.token`, owner-only (0600), and
/// returns it. The directory is created (0700) when missing. A token of an
/// earlier server is replaced, so its links stop working.
pub fn create(state_dir: &Path) -> Result<String, ServeError> {
    let path = state_dir.join(TOKEN_FILE);
    let err = |source| ServeError::Token {
        path: path.clone(),
        source,
    };
    if !state_dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(state_dir)
            .map_err(err)?;
    }
    let token = random_token()?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .map_err(err)?;
    // An existing file keeps its mode on open: make it owner-only as well.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))
        .map_err(err)?;
    file.write_all(token.as_bytes()).map_err(err)?;
    file.sync_all().map_err(err)?;
    Ok(token)
}

/// Reads the token a local server wrote to `state_dir`.
pub fn read(state_dir: &Path) -> Result<String, ServeError> {
    let path: PathBuf = state_dir.join(TOKEN_FILE);
    std::fs::read_to_string(&path)
        .map(|t| t.trim().to_owned())
        .map_err(|source| ServeError::Token { path, source })
}

/// Compares two secrets in time independent of where they differ.
pub fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_hex_and_the_file_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().join("state");
        let a = create(&state).unwrap();
        let b = create(&state).unwrap();
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_eq!(read(&state).unwrap(), b);
        let mode = std::fs::metadata(state.join(TOKEN_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let dmode = std::fs::metadata(&state).unwrap().permissions().mode();
        assert_eq!(dmode & 0o777, 0o700);
    }

    #[test]
    fn comparison() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "ab"));
        assert!(!same("", "a"));
    }
}

//! Environment variables that look like they hold secrets: a command that
//! runs without a person having seen it (the agent's `run_shell`, a command
//! the sandbox holds) does not get them, since the model reads whatever it
//! prints. A heuristic on names, not a boundary: a secret under another
//! name passes.

use std::ffi::OsStr;

/// Whether an environment variable's name looks like it holds a secret:
/// one of its `_`- or `-`-separated words is KEY, TOKEN, SECRET, PASSWORD
/// or alike (`OPENAI_API_KEY`, `GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`).
pub fn secret_env_name(name: &OsStr) -> bool {
    let name = name.to_string_lossy().to_ascii_uppercase();
    name.split(['_', '-']).any(|word| {
        matches!(
            word,
            "KEY"
                | "KEYS"
                | "APIKEY"
                | "TOKEN"
                | "TOKENS"
                | "SECRET"
                | "SECRETS"
                | "PASSWORD"
                | "PASSWD"
                | "PASSPHRASE"
                | "CREDENTIAL"
                | "CREDENTIALS"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_names() {
        for name in [
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
        ] {
            assert!(secret_env_name(OsStr::new(name)), "{name}");
        }
        for name in ["PATH", "HOME", "SSH_AUTH_SOCK", "KEYBOARD_LAYOUT", "MONKEY"] {
            assert!(!secret_env_name(OsStr::new(name)), "{name}");
        }
    }
}

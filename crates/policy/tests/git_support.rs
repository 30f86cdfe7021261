//! Running git for real in a scratch repository, for the tests that check
//! the analysis of git commands against what git does.

use std::path::Path;
use std::process::{Command, Output};

/// Runs `script` with bash in `ws`: git with no user or system
/// configuration, `home` as its home, a fixed identity, no pager and an
/// editor that accepts what it is given.
pub fn run(ws: &Path, home: &Path, script: &str) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(ws)
        .env("HOME", home)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_PAGER", "cat")
        .env("GIT_EDITOR", "true")
        .env("GIT_AUTHOR_NAME", "a")
        .env("GIT_AUTHOR_EMAIL", "a@example.com")
        .env("GIT_COMMITTER_NAME", "a")
        .env("GIT_COMMITTER_EMAIL", "a@example.com")
        .output()
        .expect("bash runs")
}

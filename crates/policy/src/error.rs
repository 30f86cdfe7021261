//! Load errors: each names the file, the place in it, and the problem.

use std::fmt;
use std::path::{Path, PathBuf};

/// A policy that cannot be used. The CLI prints it as one line
/// (`file:line:column: problem`) and exits 2; hooks treat it as deny.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolicyError {
    /// The policy file, or `<built-in>`.
    pub file: PathBuf,
    /// 1-based line and column, when the problem has a place.
    pub place: Option<(usize, usize)>,
    /// What is wrong, lowercase, user input in backticks.
    pub message: String,
}

impl PolicyError {
    /// An error with no place in the file (unreadable file, bad root, ...).
    pub fn new(file: &Path, message: impl Into<String>) -> PolicyError {
        PolicyError {
            file: file.to_path_buf(),
            place: None,
            message: message.into(),
        }
    }

    /// An error at a byte offset of the file's text.
    pub fn at(
        file: &Path,
        text: &str,
        offset: Option<usize>,
        message: impl Into<String>,
    ) -> PolicyError {
        PolicyError {
            file: file.to_path_buf(),
            place: offset.map(|o| line_col(text, o)),
            message: message.into(),
        }
    }
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.place {
            Some((l, c)) => write!(f, "{}:{l}:{c}: {}", self.file.display(), self.message),
            None => write!(f, "{}: {}", self.file.display(), self.message),
        }
    }
}

impl std::error::Error for PolicyError {}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    #[test]
    fn line_col() {
        assert_eq!(super::line_col("ab\ncd", 4), (2, 2));
        assert_eq!(super::line_col("", 9), (1, 1));
    }
}

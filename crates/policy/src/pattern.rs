//! The path and command pattern languages of rule specifiers (URL patterns
//! are in `urls`).

use std::path::{Path, PathBuf};

use globset::{Glob, GlobBuilder};

/// Why a path or command pattern of a rule cannot be used; the policy
/// loader places it in the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// A path pattern with no text.
    #[error("empty path pattern")]
    EmptyPath,
    /// `~/p` with no home directory to anchor it to.
    #[error("`{0}`: `~` used but no home directory is known")]
    NoHome(String),
    /// `~user/p`: other users' homes are not looked up.
    #[error("`{0}`: `~user` patterns are not supported")]
    OtherUser(String),
    /// The pattern does not make a glob.
    #[error("bad glob `{pattern}`: {source}")]
    BadGlob {
        /// The pattern as written.
        pattern: String,
        /// What globset found.
        source: GlobSyntaxError,
    },
    /// A command pattern with no text.
    #[error("empty command pattern")]
    EmptyCommand,
    /// A command pattern whose words cannot be split (an open quote).
    #[error("command pattern `{pattern}`: {source}")]
    CommandWords {
        /// The pattern as written.
        pattern: String,
        /// What the shell-word splitter found.
        source: shell_words::ParseError,
    },
}

/// A glob that globset refuses; the message is the kind of problem only,
/// without globset's copy of the glob, which the caller names in its own
/// words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.kind())]
pub struct GlobSyntaxError(globset::Error);

/// The directories path patterns are anchored to.
#[derive(Debug, Clone)]
pub struct Anchors {
    /// `~/p`.
    pub home: Option<PathBuf>,
    /// `/p`: the policy file's directory.
    pub policy_dir: PathBuf,
    /// `p` and `./p`: the first root.
    pub root: PathBuf,
}

/// Turns a path pattern into an absolute glob (docs/policy.md, "Path patterns"):
/// `//p` absolute, `~/p` home, `/p` the policy file's directory, `p` and
/// `./p` the first root, and a pattern without `/` a file name at any depth.
pub fn path_glob(pattern: &str, anchors: &Anchors) -> Result<String, PatternError> {
    if pattern.is_empty() {
        return Err(PatternError::EmptyPath);
    }
    let (base, rest): (Option<&Path>, &str) = if let Some(rest) = pattern.strip_prefix("//") {
        (Some(Path::new("/")), rest)
    } else if pattern == "~" || pattern.starts_with("~/") {
        let home = anchors
            .home
            .as_deref()
            .ok_or_else(|| PatternError::NoHome(pattern.to_string()))?;
        (
            Some(home),
            pattern.trim_start_matches('~').trim_start_matches('/'),
        )
    } else if let Some(rest) = pattern.strip_prefix("./") {
        (Some(anchors.root.as_path()), rest)
    } else if let Some(rest) = pattern.strip_prefix('/') {
        (Some(anchors.policy_dir.as_path()), rest)
    } else if pattern.starts_with('~') {
        return Err(PatternError::OtherUser(pattern.to_string()));
    } else if pattern.trim_end_matches('/').contains('/') {
        (Some(anchors.root.as_path()), pattern)
    } else {
        (None, pattern)
    };
    let mut rest = rest.to_string();
    if rest.ends_with('/') {
        rest.push_str("**");
    }
    let glob = match base {
        None => format!("**/{rest}"),
        Some(base) => {
            let base = escape_path(base);
            let base = base.trim_end_matches('/');
            if rest.is_empty() {
                if base.is_empty() {
                    "/".to_string()
                } else {
                    base.to_string()
                }
            } else {
                format!("{base}/{rest}")
            }
        }
    };
    // Reject malformed globs here, with the pattern as written. Parsing is
    // enough: compiling to a matcher is left to first use (see `index.rs`).
    path_glob_builder(&glob).map_err(|source| PatternError::BadGlob {
        pattern: pattern.to_string(),
        source,
    })?;
    Ok(glob)
}

fn escape_path(p: &Path) -> String {
    globset::escape(&p.to_string_lossy())
}

/// Builds a glob with the semantics of path patterns: `*` stays within a
/// segment, `**` crosses segments.
pub fn path_glob_builder(glob: &str) -> Result<Glob, GlobSyntaxError> {
    GlobBuilder::new(glob)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(GlobSyntaxError)
}

/// A `Bash(..)` specifier, compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandPattern {
    /// As written in the policy.
    pub source: String,
    form: CommandForm,
    /// The pattern ended in ` *` or `:*`: what follows the rest is free,
    /// at a word boundary.
    prefix: bool,
}

/// The start of a command pattern: [`CommandPattern::lead`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lead {
    /// The literal words before the first wildcard.
    pub words: Vec<String>,
    /// The first word, when it holds a wildcard itself (`py*`).
    pub first_glob: Option<String>,
    /// A wildcard follows the words: a prefix pattern (`python3 *`) or a
    /// `*` in the text.
    pub wild: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum CommandForm {
    /// Literal words (quoting in the pattern resolved).
    Words(Vec<String>),
    /// A wildcard pattern over the command's canonical text, `*` spanning
    /// anything; the second form is the pattern followed by ` *`, for
    /// prefix patterns.
    Wild(String, String),
}

impl CommandPattern {
    /// Compiles `git status`, `git diff *`, `git diff:*`, `ls*`, `git * main`.
    pub fn compile(source: &str) -> Result<CommandPattern, PatternError> {
        let s = source.trim();
        if s.is_empty() {
            return Err(PatternError::EmptyCommand);
        }
        let (body, prefix) = if let Some(b) = s.strip_suffix(":*") {
            (b.trim_end(), true)
        } else if let Some(b) = s.strip_suffix(" *") {
            (b.trim_end(), true)
        } else if s == "*" {
            ("", true)
        } else {
            (s, false)
        };
        let form = if body.contains('*') {
            CommandForm::Wild(body.to_string(), format!("{body} *"))
        } else {
            let words = shell_words::split(body).map_err(|e| PatternError::CommandWords {
                pattern: source.to_string(),
                source: e,
            })?;
            CommandForm::Words(words)
        };
        Ok(CommandPattern {
            source: source.to_string(),
            form,
            prefix,
        })
    }

    /// The first word, when it is a literal: rules are indexed by it so
    /// that a decision only looks at the patterns for its command's name.
    pub fn first_word(&self) -> Option<&str> {
        match &self.form {
            CommandForm::Words(w) => w.first().map(String::as_str),
            CommandForm::Wild(s, _) => {
                let (first, _) = s.split_once(' ')?;
                if first.is_empty() || first.contains(['*', '\'', '"', '\\']) {
                    None
                } else {
                    Some(first)
                }
            }
        }
    }

    /// The literal words the pattern starts with, up to its first
    /// wildcard, and whether a wildcard follows them (see `demote`).
    pub(crate) fn lead(&self) -> Lead {
        match &self.form {
            CommandForm::Words(w) => Lead {
                words: w.clone(),
                first_glob: None,
                wild: self.prefix,
            },
            CommandForm::Wild(body, _) => {
                let mut words = Vec::new();
                let mut first_glob = None;
                for (i, w) in body.split_whitespace().enumerate() {
                    if w.contains('*') {
                        if i == 0 {
                            first_glob = Some(w.to_owned());
                        }
                        break;
                    }
                    words.push(w.to_owned());
                }
                Lead {
                    words,
                    first_glob,
                    wild: true,
                }
            }
        }
    }

    /// Matches one simple command's argv (and its canonical text).
    pub fn matches(&self, argv: &[String], canonical: &str) -> bool {
        match &self.form {
            CommandForm::Words(words) => {
                if self.prefix {
                    argv.len() >= words.len() && argv[..words.len()] == words[..]
                } else {
                    argv == &words[..]
                }
            }
            CommandForm::Wild(pat, spaced) => {
                wildcard(pat, canonical) || (self.prefix && wildcard(spaced, canonical))
            }
        }
    }
}

/// The canonical text of an argv: words joined by single spaces, each
/// quoted only where the shell would need it, so that a word containing a
/// space can never pose as two words.
pub fn canonical_command(argv: &[String]) -> String {
    shell_words::join(argv)
}

/// `*`-only wildcard match over whole strings, linear in practice (greedy
/// with single backtrack point).
pub fn wildcard(pattern: &str, text: &str) -> bool {
    let p = pattern.as_bytes();
    let t = text.as_bytes();
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<usize> = None;
    let mut mark = 0usize;
    while ti < t.len() {
        if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            pi += 1;
            mark = ti;
        } else if pi < p.len() && p[pi] == t[ti] {
            pi += 1;
            ti += 1;
        } else if let Some(s) = star {
            pi = s + 1;
            mark += 1;
            ti = mark;
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == b'*' {
        pi += 1;
    }
    pi == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        shell_words::split(s).unwrap()
    }

    fn cmd(p: &str, c: &str) -> bool {
        let a = argv(c);
        CommandPattern::compile(p)
            .unwrap()
            .matches(&a, &canonical_command(&a))
    }

    #[test]
    fn command_forms() {
        assert!(cmd("git status", "git status"));
        assert!(!cmd("git status", "git status -s"));
        assert!(cmd("git diff *", "git diff"));
        assert!(cmd("git diff *", "git diff --stat"));
        assert!(!cmd("git diff *", "git difftool"));
        assert!(cmd("git diff:*", "git diff HEAD"));
        assert!(!cmd("git diff:*", "git difftool"));
        assert!(cmd("ls*", "ls"));
        assert!(cmd("ls*", "lsof -i"));
        assert!(cmd("ls*", "ls -la"));
        assert!(cmd("git * main", "git push origin main"));
        assert!(!cmd("git * main", "git push origin dev"));
        assert!(cmd("*", "anything at all"));
        assert!(!cmd("git status", "'git status'"));
        assert!(cmd("git commit -m *", "git commit -m 'a && b'"));
    }

    #[test]
    fn path_anchors() {
        let a = Anchors {
            home: Some("/home/u".into()),
            policy_dir: "/p".into(),
            root: "/r".into(),
        };
        assert_eq!(path_glob("//etc/x", &a).unwrap(), "/etc/x");
        assert_eq!(path_glob("~/.ssh/**", &a).unwrap(), "/home/u/.ssh/**");
        assert_eq!(path_glob("/docs/**", &a).unwrap(), "/p/docs/**");
        assert_eq!(path_glob("./src/*.rs", &a).unwrap(), "/r/src/*.rs");
        assert_eq!(path_glob("src/*.rs", &a).unwrap(), "/r/src/*.rs");
        assert_eq!(path_glob(".env", &a).unwrap(), "**/.env");
        assert_eq!(path_glob("docs/", &a).unwrap(), "**/docs/**");
        assert_eq!(path_glob("a/docs/", &a).unwrap(), "/r/a/docs/**");
        assert!(path_glob("a[", &a).is_err());
    }
}

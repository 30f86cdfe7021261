//! The `[sandbox]` table: directories outside the roots that commands in
//! the OS sandbox may write, such as package managers' caches.
//!
//! ```toml
//! [sandbox]
//! writable = ["~/.cargo/registry", "~/.npm"]
//! ```
//!
//! A granted directory is never one that holds, or lies within, what the
//! boundary protects: the home directory or any directory above it, a
//! root or a directory above one, the policy file, the state directory,
//! shell start-up files (`~/.bashrc`, `~/.profile`, `~/.zshrc`, ...),
//! `~/.ssh` and the other files listed in [`HOME_KEPT`], the protected
//! paths, and what a deny rule keeps from writes. Each is a load error
//! naming the entry's line; the sandbox checks again, against what the
//! path resolves to when a command starts, and refuses the command when a
//! symlink has since made it one of these.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::error::{PolicyError, line_col};
use crate::paths;
use crate::policy::Policy;

/// Files and directories in the home directory that a granted directory
/// may neither be, hold, nor lie within: they run programs at login, in
/// every shell, or when a tool starts, or hold credentials. The built-in
/// protected names (`.bashrc`, `.gitconfig`, `.cargo/config*`, ...) are
/// added to these.
pub const HOME_KEPT: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".pam_environment",
    ".xprofile",
    ".xsessionrc",
    ".local/bin",
    "bin",
    ".cargo/bin",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".config/git",
    ".config/toolgate",
    ".config/systemd",
    ".config/autostart",
    ".config/environment.d",
    ".config/gh",
    ".pypirc",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
];

/// A probe name beneath a directory, as the sandbox's walk uses: when a
/// protected pattern or a deny rule matches it at two levels, everything
/// beneath the directory is kept.
const PROBE: &str = "toolgate-sandbox-probe";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawSandboxTable {
    writable: Option<Vec<Spanned<String>>>,
}

/// One `writable` entry as written, with its place.
#[derive(Debug, Clone)]
pub struct WritableEntry {
    /// The entry as written.
    pub written: String,
    /// The policy file it is written in.
    pub file: PathBuf,
    /// Its 1-based line and column.
    pub place: (usize, usize),
}

/// A directory commands in the sandbox may write, resolved.
#[derive(Debug, Clone)]
pub struct WritableDir {
    /// The entry as written, with its place.
    pub entry: WritableEntry,
    /// The directory: `~` expanded, `..` removed, symlinks resolved as far
    /// as it exists when the policy is loaded.
    pub path: PathBuf,
}

impl WritableEntry {
    fn error(&self, message: String) -> PolicyError {
        PolicyError {
            file: self.file.clone(),
            place: Some(self.place),
            message: format!("`[sandbox] writable` `{}`: {message}", self.written),
        }
    }
}

/// Reads the table's entries; each must be absolute or start with `~/`.
pub(crate) fn parse(
    raw: RawSandboxTable,
    text: &str,
    file: &Path,
) -> Result<Vec<WritableEntry>, PolicyError> {
    let mut out = Vec::new();
    for w in raw.writable.unwrap_or_default() {
        let entry = WritableEntry {
            written: w.get_ref().clone(),
            file: file.to_path_buf(),
            place: line_col(text, w.span().start),
        };
        let s = entry.written.as_str();
        if !(s.starts_with('/') || s == "~" || s.starts_with("~/")) {
            return Err(entry.error(
                "must be an absolute path or start with `~/` (the roots are writable already)"
                    .into(),
            ));
        }
        out.push(entry);
    }
    Ok(out)
}

/// Resolves the entries against `policy` (its home directory, roots,
/// protected paths, deny rules, file and state directory) and checks each.
pub(crate) fn compile(
    entries: Vec<WritableEntry>,
    policy: &Policy,
) -> Result<Vec<WritableDir>, PolicyError> {
    let mut out = Vec::new();
    for entry in entries {
        let path = resolve(&entry.written, policy.home.as_deref())
            .map_err(|m| entry.error(m.to_string()))?;
        check(&path, policy).map_err(|m| entry.error(m.to_string()))?;
        out.push(WritableDir { entry, path });
    }
    Ok(out)
}

/// `~` expanded, `..` removed lexically, then symlinks resolved as far as
/// the path exists.
fn resolve(written: &str, home: Option<&Path>) -> Result<PathBuf, WritableError> {
    let abs = if written == "~" || written.starts_with("~/") {
        let h = home.ok_or(WritableError::NoHome)?;
        h.join(written.trim_start_matches('~').trim_start_matches('/'))
    } else {
        PathBuf::from(written)
    };
    let lexical = paths::normalize_lexically(&abs);
    Ok(paths::resolve_real(&lexical).unwrap_or(lexical))
}

/// Why a `[sandbox] writable` directory may not be granted: writes there
/// would let a sandboxed command undo what the policy protects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WritableError {
    /// `~/..` with no home directory to expand it to.
    #[error("no home directory is known")]
    NoHome,
    /// `/` itself.
    #[error("the file system's root holds everything the sandbox keeps")]
    FileSystemRoot,
    /// The home directory lies within it.
    #[error("it holds the home directory `{}`, its shell start-up files and keys", .0.display())]
    HoldsHome(PathBuf),
    /// A start-up file or a credential store lies within it (or it within
    /// one).
    #[error("`{}` lies there: it runs programs or holds credentials", .0.display())]
    HoldsKept(PathBuf),
    /// A root lies within it.
    #[error(
        "it holds the root `{}`, which could then be moved away and replaced",
        .0.display()
    )]
    HoldsRoot(PathBuf),
    /// The policy file or the state directory lies within it.
    #[error("{what} `{}` lies there", .path.display())]
    Holds {
        /// "the policy file" or "the state directory".
        what: &'static str,
        /// Its path.
        path: PathBuf,
    },
    /// It is a protected path.
    #[error("it is a protected path (`{0}`)")]
    Protected(String),
    /// A deny rule keeps it from writes.
    #[error("deny rule `{0}` keeps it from writes")]
    Denied(String),
}

/// Whether one of `a` and `b` lies within the other (or they are equal).
fn overlaps(a: &Path, b: &Path) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// Why `dir` (absolute, resolved) may not be granted, if it may not.
pub fn check(dir: &Path, policy: &Policy) -> Result<(), WritableError> {
    if dir.parent().is_none() {
        return Err(WritableError::FileSystemRoot);
    }
    if let Some(home) = &policy.home {
        let home = paths::resolve_real(home).unwrap_or_else(|_| home.clone());
        if home.starts_with(dir) {
            return Err(WritableError::HoldsHome(home));
        }
        let builtin = crate::index::BUILTIN_PROTECTED.iter().map(|p| {
            p.trim_start_matches("**/")
                .trim_end_matches("/**")
                .trim_end_matches('*')
        });
        for name in HOME_KEPT.iter().copied().chain(builtin) {
            let kept = home.join(name);
            if overlaps(dir, &kept) {
                return Err(WritableError::HoldsKept(kept));
            }
        }
    }
    for root in &policy.roots {
        if root.starts_with(dir) && root != dir {
            return Err(WritableError::HoldsRoot(root.clone()));
        }
    }
    let named = [
        ("the policy file", policy.file_real.as_deref()),
        ("the state directory", policy.state_dir.as_deref()),
    ];
    for (what, p) in named {
        if let Some(p) = p
            && overlaps(dir, p)
        {
            return Err(WritableError::Holds {
                what,
                path: p.to_path_buf(),
            });
        }
    }
    let probe = dir.join(PROBE);
    for p in [dir, probe.as_path(), probe.join(PROBE).as_path()] {
        if let Some(label) = policy.protected_path(p) {
            return Err(WritableError::Protected(label.to_string()));
        }
    }
    for p in [dir, probe.as_path()] {
        if let Some(rule) = policy.write_denied(p) {
            return Err(WritableError::Denied(rule.to_string()));
        }
    }
    Ok(())
}

/// Why a granted directory could not be used when a command started: the
/// entry's file, line and column, what it says, and the problem.
#[derive(Debug, thiserror::Error)]
#[error("{}:{}:{}: `[sandbox] writable` `{written}`: {problem}", .file.display(), .place.0, .place.1)]
pub struct WritableNowError {
    /// The policy file that grants it.
    pub file: PathBuf,
    /// Line and column of the entry.
    pub place: (usize, usize),
    /// The entry as written.
    pub written: String,
    /// What went wrong.
    pub problem: WritableNowProblem,
}

/// What went wrong with a granted directory when a command started.
#[derive(Debug, thiserror::Error)]
pub enum WritableNowProblem {
    /// It did not exist and could not be made.
    #[error("cannot make `{}`: {source}", .path.display())]
    Make {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Its real path could not be found.
    #[error("cannot resolve `{}`: {source}", .path.display())]
    Resolve {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It resolves to something that is not a directory.
    #[error("`{}` is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// It now resolves to a directory that may not be granted.
    #[error("{0}")]
    Refused(#[from] WritableError),
}

impl WritableDir {
    /// The directory as it resolves now, made when it does not exist yet,
    /// checked again (a symlink may have changed since the policy was
    /// loaded): the error names the entry's place.
    pub fn resolve_now(&self, policy: &Policy) -> Result<PathBuf, WritableNowError> {
        let place = |problem: WritableNowProblem| WritableNowError {
            file: self.entry.file.clone(),
            place: (self.entry.place.0, self.entry.place.1),
            written: self.entry.written.clone(),
            problem,
        };
        std::fs::create_dir_all(&self.path).map_err(|source| {
            place(WritableNowProblem::Make {
                path: self.path.clone(),
                source,
            })
        })?;
        let real = std::fs::canonicalize(&self.path).map_err(|source| {
            place(WritableNowProblem::Resolve {
                path: self.path.clone(),
                source,
            })
        })?;
        if !real.is_dir() {
            return Err(place(WritableNowProblem::NotADirectory(real)));
        }
        check(&real, policy).map_err(|e| place(e.into()))?;
        Ok(real)
    }
}

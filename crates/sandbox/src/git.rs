//! git inside the boundary: a repository's own data is writable, what makes
//! git run a program or read from elsewhere is not.
//!
//! git writes the files at the top of `.git` (`index`, `HEAD`,
//! `packed-refs`, `ORIG_HEAD`, `COMMIT_EDITMSG`, ...) by creating a lock
//! file beside each and renaming it over the old one, so `.git` itself must
//! accept new names: it is writable. Some names there change what git runs
//! or where it reads its configuration, and must never be created or
//! changed from inside:
//!
//! | name | why |
//! | --- | --- |
//! | `config` | `core.hooksPath`, `core.fsmonitor`, `core.pager`, aliases, filter and diff drivers run programs |
//! | `config.worktree` | read as configuration once `extensions.worktreeConfig` is on (`git sparse-checkout` turns it on) |
//! | `commondir` | makes git read its configuration and hooks from another directory |
//! | `hooks/` | programs git runs |
//! | `info/` | `exclude` and `attributes` that no `git status` shows: hidden files, hidden diffs |
//! | `modules/` | submodules' git directories, each with its own `config`, `hooks` and `commondir`; `git submodule update` reuses one it finds |
//! | `branches/`, `remotes/` | where `git fetch NAME` goes when the configuration names no such remote (kept read-only when present) |
//! | `worktrees/ID/{commondir,gitdir,config.worktree}` | where a linked worktree reads its configuration, and where git believes it lies |
//!
//! A mount can only cover a name that exists, and Landlock grants a whole
//! directory tree, so neither can refuse one new name in a writable
//! directory. So before the command starts, every such name that does not
//! exist is made to exist, in the form that means to git what its absence
//! means:
//!
//! - `config`, `config.worktree`: an empty file (no settings);
//! - `commondir`: a file holding `.`, the git directory itself, which is
//!   where git reads its common data when there is no `commondir`. (git
//!   reads a `commondir` that exists whatever it is: a symlink that leads
//!   nowhere makes it fail, so the placeholder must hold a path.) One
//!   difference shows: `git rev-parse --git-common-dir` prints the absolute
//!   path where it printed `.git`;
//! - `hooks`, `info`, `modules`: an empty directory, as `git init` makes
//!   them.
//!
//! Then every name of the table is bound over itself: read-only, and,
//! being a mount point, impossible to remove, rename, or replace by another
//! file (a symlink is bound as the link itself, with `open_tree` not
//! following it, and what it leads to read-only). `.git` itself,
//! `worktrees/` and each `worktrees/ID/` are bound over themselves
//! writable, so that none of them can be moved away and replaced by a
//! directory of the command's making.
//!
//! When a placeholder cannot be made (a read-only file system, a directory
//! of another owner), `.git` stays read-only as a whole, as it was before.

use std::io;
use std::path::{Path, PathBuf};

use crate::plan::Op;

/// Names in a git directory that are read-only, and made to exist when
/// absent, with what they then hold.
const KEPT_FILES: &[(&str, &str)] = &[
    ("config", ""),
    ("config.worktree", ""),
    ("commondir", COMMONDIR_PLACEHOLDER),
];

/// What a `commondir` made by the sandbox holds: the git directory itself.
pub const COMMONDIR_PLACEHOLDER: &str = ".\n";
/// Directories in a git directory that are read-only, and made (empty)
/// when absent.
const KEPT_DIRS: &[&str] = &["hooks", "info", "modules"];
/// Directories kept read-only only when present: git no longer makes them.
const KEPT_IF_PRESENT: &[&str] = &["branches", "remotes"];
/// Names in a linked worktree's directory (`.git/worktrees/ID/`) that are
/// read-only, made to exist when absent (`gitdir` only kept when present:
/// git prunes an entry without it).
const WORKTREE_FILES: &[(&str, &str)] = &[
    ("commondir", COMMONDIR_PLACEHOLDER),
    ("config.worktree", ""),
];

/// The mounts that lay out the git directory `git` (a directory named
/// `.git` inside the roots), after making the placeholders its names need.
/// An error means a placeholder could not be made: the caller keeps `.git`
/// read-only as a whole.
pub(crate) fn layout(git: &Path) -> io::Result<Vec<Op>> {
    let mut ops = vec![Op::Pin(git.to_path_buf())];
    for (name, text) in KEPT_FILES {
        keep(&git.join(name), Kind::File(text), &mut ops)?;
    }
    for name in KEPT_DIRS {
        keep(&git.join(name), Kind::Dir, &mut ops)?;
    }
    for name in KEPT_IF_PRESENT {
        keep(&git.join(name), Kind::IfPresent, &mut ops)?;
    }
    let worktrees = git.join("worktrees");
    match std::fs::symlink_metadata(&worktrees) {
        Ok(m) if m.is_dir() => {
            ops.push(Op::Pin(worktrees.clone()));
            for entry in std::fs::read_dir(&worktrees)? {
                let entry = entry?;
                if !entry.file_type()?.is_dir() {
                    continue;
                }
                let wt = entry.path();
                ops.push(Op::Pin(wt.clone()));
                for (name, text) in WORKTREE_FILES {
                    keep(&wt.join(name), Kind::File(text), &mut ops)?;
                }
                keep(&wt.join("gitdir"), Kind::IfPresent, &mut ops)?;
            }
        }
        // A file or a symlink where git keeps its worktrees: it stays as
        // it is, and so does what it leads to.
        Ok(_) => keep(&worktrees, Kind::IfPresent, &mut ops)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    Ok(ops)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A file, made holding this text when absent.
    File(&'static str),
    Dir,
    IfPresent,
}

/// Makes `path` exist (unless [`Kind::IfPresent`]) and adds the mounts that
/// keep it: read-only, or for a symlink, the link itself pinned and what it
/// leads to read-only.
fn keep(path: &Path, kind: Kind, ops: &mut Vec<Op>) -> io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let made = match kind {
                Kind::IfPresent => return Ok(()),
                Kind::File(text) => placeholder(path, text),
                Kind::Dir => std::fs::create_dir(path),
            };
            match made {
                // Made by someone else meanwhile: kept as it is now.
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            }
            std::fs::symlink_metadata(path)?
        }
        Err(e) => return Err(e),
    };
    if meta.file_type().is_symlink() {
        ops.push(Op::Link(path.to_path_buf()));
        if let Ok(target) = std::fs::canonicalize(path) {
            ops.push(Op::ReadOnly(target));
        }
    } else {
        ops.push(Op::ReadOnly(path.to_path_buf()));
    }
    Ok(())
}

/// Creates the file `path`, which must not exist, holding `text`.
fn placeholder(path: &Path, text: &str) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    // A `commondir` left empty would stop git: a failed write takes the
    // file away again.
    f.write_all(text.as_bytes()).inspect_err(|_| {
        let _ = std::fs::remove_file(path);
    })
}

/// Whether `path` is named `.git`.
pub(crate) fn is_git_dir_name(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == ".git")
}

/// The git directory among `dirs` that `path` lies beneath, if any.
pub(crate) fn within<'a>(path: &Path, dirs: &'a [PathBuf]) -> Option<&'a Path> {
    dirs.iter()
        .map(PathBuf::as_path)
        .find(|g| path.starts_with(g) && path != *g)
}

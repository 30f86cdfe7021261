//! Confinement of paths to the workspace roots at execution time.
//!
//! The policy engine has already decided that a path lies inside the roots,
//! but it looked at the file system earlier: a symlink swapped in between that
//! decision and the open (or a `..` that the decision resolved differently)
//! must still not reach outside. So every root is held open as a directory
//! file descriptor, and every path is opened *relative to that descriptor* with
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`: the kernel itself
//! refuses any resolution step that would leave the root (`..` above it, an
//! absolute symlink, a relative symlink climbing out, a `/proc/self/fd` magic
//! link), whatever the file system looks like at that instant.
//!
//! What the kernel guarantees is that the file was inside the root when it
//! was opened. A directory that someone moves out of the root *after* it was
//! opened is not chased; that takes write access outside the roots, which a
//! sandboxed command does not have.
//!
//! Choosing the root is text work on the absolute path (longest matching root
//! wins). Only when no root matches the path as written is the path
//! canonicalized (to accept an alias such as a symlinked parent of a root);
//! that canonicalization may race too, which is harmless because the open that
//! follows is still confined to the root it picked.

use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

use crate::error::{ToolError, reason};

/// How many times an open is retried when the kernel reports that a rename or
/// mount raced with a `RESOLVE_BENEATH` walk (`EAGAIN`). Past this the open
/// fails: a caller that keeps losing the race learns so instead of spinning.
const RACE_RETRIES: usize = 16;

/// One root: the canonical path (for reports and prefix matching) and an
/// `O_PATH` descriptor that pins the directory itself, so that renaming or
/// replacing the root's path later cannot redirect opens.
#[derive(Debug)]
pub(crate) struct Root {
    pub(crate) path: PathBuf,
    pub(crate) fd: OwnedFd,
}

/// The directories the file tools may touch, each held open.
///
/// Reads may go to `roots` and `read_roots`; writes only to `roots`. The first
/// root is the default working directory for relative paths and for
/// [`run_shell`](crate::run_shell).
///
/// A `Workspace` is opened once per policy and shared by every call; it holds
/// one descriptor per root.
#[derive(Debug)]
pub struct Workspace {
    pub(crate) roots: Vec<Root>,
    pub(crate) read_roots: Vec<Root>,
    home: Option<PathBuf>,
}

/// What a path will be used for, which decides the roots it may lie under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    Read,
    Write,
}

/// A path placed under one root: `rel` is relative to `root.fd` and may still
/// contain `..` or symlinks, which the kernel resolves beneath the root.
#[derive(Debug)]
pub(crate) struct Target<'w> {
    pub(crate) root: &'w Root,
    pub(crate) rel: PathBuf,
    /// The path as written, for messages.
    pub(crate) written: String,
}

impl Workspace {
    /// Opens the roots (read and write) and the extra read-only roots.
    ///
    /// Each root must exist and be a directory; it is canonicalized (symlinks
    /// resolved) and opened once, so later changes to the path do not move the
    /// root. Fails when `roots` is empty, or when the kernel cannot confine
    /// opens (`openat2` missing), so that no tool ever runs unconfined.
    pub fn open(roots: &[PathBuf], read_roots: &[PathBuf]) -> Result<Workspace, ToolError> {
        if roots.is_empty() {
            return Err(ToolError::BadRoot {
                path: String::new(),
                reason: "no workspace root was given".into(),
            });
        }
        let open_all = |list: &[PathBuf]| -> Result<Vec<Root>, ToolError> {
            list.iter().map(|p| open_root(p)).collect()
        };
        Ok(Workspace {
            roots: open_all(roots)?,
            read_roots: open_all(read_roots)?,
            home: std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|h| h.is_absolute()),
        })
    }

    /// The canonical paths of the read-write roots, first root first.
    pub fn roots(&self) -> impl Iterator<Item = &Path> {
        self.roots.iter().map(|r| r.path.as_path())
    }

    /// The canonical paths of the read-only roots.
    pub fn read_roots(&self) -> impl Iterator<Item = &Path> {
        self.read_roots.iter().map(|r| r.path.as_path())
    }

    /// The first root: where relative paths and shell commands start.
    pub(crate) fn first(&self) -> &Root {
        // INVARIANT: `open` refuses an empty list of roots.
        &self.roots[0]
    }

    /// Places `written` under a root allowed for `access`.
    ///
    /// A relative path is joined to `cwd` (default: the first root); `~` and
    /// `~/..` use `$HOME` as the policy engine does. The root whose path is
    /// the longest prefix of the result wins; the rest becomes the path
    /// relative to that root's descriptor.
    pub(crate) fn locate<'w>(
        &'w self,
        written: &str,
        cwd: Option<&Path>,
        access: Access,
    ) -> Result<Target<'w>, ToolError> {
        let invalid = |reason: &str| ToolError::InvalidPath {
            path: written.to_string(),
            reason: reason.to_string(),
        };
        if written.is_empty() {
            return Err(invalid("the path is empty"));
        }
        if written.contains('\0') {
            return Err(invalid("the path contains a NUL byte"));
        }
        let expanded = if written == "~" || written.starts_with("~/") {
            let home = self
                .home
                .as_deref()
                .ok_or_else(|| invalid("`~` is used but no home directory is known"))?;
            home.join(written[1..].trim_start_matches('/'))
        } else if written.starts_with('~') {
            return Err(invalid("`~user` paths are not expanded"));
        } else {
            PathBuf::from(written)
        };
        let absolute = if expanded.is_absolute() {
            expanded
        } else {
            let base = cwd.unwrap_or(&self.first().path);
            if !base.is_absolute() {
                return Err(invalid("the working directory is not an absolute path"));
            }
            base.join(expanded)
        };

        let candidates: Vec<&Root> = match access {
            Access::Read => self.roots.iter().chain(&self.read_roots).collect(),
            Access::Write => self.roots.iter().collect(),
        };
        let placed = place(&candidates, &absolute).or_else(|| {
            // The path may name a root through an alias (a symlinked parent);
            // the canonical form decides, and the open stays confined anyway.
            canonical_prefix(&absolute).and_then(|c| place(&candidates, &c))
        });
        match placed {
            Some((root, rel)) => Ok(Target {
                root,
                rel,
                written: written.to_string(),
            }),
            None => Err(ToolError::OutsideRoots {
                path: written.to_string(),
                scope: match access {
                    Access::Read => "workspace roots",
                    Access::Write => "writable workspace roots",
                },
            }),
        }
    }
}

impl Target<'_> {
    /// The path for reports: the root joined with the relative path, `.`
    /// and `..` removed as text (the kernel's own resolution may differ when
    /// symlinks are involved, but never leaves the root).
    pub(crate) fn display(&self) -> PathBuf {
        display_under(&self.root.path, &self.rel)
    }

    /// Opens the target beneath its root with `flags`.
    pub(crate) fn open(&self, flags: OFlags) -> Result<OwnedFd, ToolError> {
        open_beneath(self.root.fd.as_fd(), &self.rel, flags, Mode::empty())
            .map_err(|e| self.error("open", e))
    }

    /// Turns an error from a confined open into the tool error the model sees.
    pub(crate) fn error(&self, op: &'static str, e: io::Error) -> ToolError {
        confine_error(&self.written, &self.root.path, op, e)
    }
}

/// Maps an error of a confined operation to a [`ToolError`], so that an
/// escape reads as an escape and not as a generic I/O error.
pub(crate) fn confine_error(
    written: &str,
    root: &Path,
    op: &'static str,
    e: io::Error,
) -> ToolError {
    let path = written.to_string();
    match e.raw_os_error().map(Errno::from_raw_os_error) {
        Some(Errno::XDEV) => ToolError::Escapes {
            path,
            root: root.display().to_string(),
        },
        // Under RESOLVE_NO_MAGICLINKS a magic link fails with ELOOP; so does a
        // symlink loop. Both are refusals to follow, reported as such.
        Some(Errno::LOOP) => ToolError::Io {
            op,
            path,
            reason: "it goes through a symlink loop or a /proc magic link, which is not followed"
                .into(),
        },
        Some(Errno::NOENT) => ToolError::NotFound { path },
        Some(Errno::NOSYS) => ToolError::Unconfinable { path },
        _ => ToolError::Io {
            op,
            path,
            reason: reason(&e),
        },
    }
}

/// `openat2(dir, rel, flags, mode, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`,
/// retried when a concurrent rename or mount made the kernel give up the walk.
///
/// An empty `rel` opens the directory itself. `O_CLOEXEC` is always added
/// (no descriptor leaks into a spawned shell), and `O_NOCTTY` to every real
/// open (a terminal never becomes the controlling one).
pub(crate) fn open_beneath(
    dir: BorrowedFd<'_>,
    rel: &Path,
    flags: OFlags,
    mode: Mode,
) -> io::Result<OwnedFd> {
    let rel: &Path = if rel.as_os_str().is_empty() {
        Path::new(".")
    } else {
        rel
    };
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS;
    // openat2 rejects O_PATH combined with anything but these (EINVAL).
    let flags = if flags.contains(OFlags::PATH) {
        flags | OFlags::CLOEXEC
    } else {
        flags | OFlags::CLOEXEC | OFlags::NOCTTY
    };
    let mut last = Errno::AGAIN;
    for _ in 0..RACE_RETRIES {
        match rustix::fs::openat2(dir, rel, flags, mode, resolve) {
            Err(Errno::AGAIN) | Err(Errno::INTR) => last = Errno::AGAIN,
            other => return other.map_err(io::Error::from),
        }
    }
    Err(io::Error::from(last))
}

/// `root` joined with `rel`, `.` and `..` removed as text and never above
/// `root`: a readable name for reports, not a path to open.
pub(crate) fn display_under(root: &Path, rel: &Path) -> PathBuf {
    let mut out = root.to_path_buf();
    for c in rel.components() {
        match c {
            Component::Normal(n) => out.push(n),
            Component::ParentDir if out != root => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

/// Opens and checks one root.
fn open_root(given: &Path) -> Result<Root, ToolError> {
    let bad = |reason: String| ToolError::BadRoot {
        path: given.display().to_string(),
        reason,
    };
    if !given.is_absolute() {
        return Err(bad("it is not an absolute path".into()));
    }
    let path = std::fs::canonicalize(given).map_err(|e| bad(reason(&e)))?;
    let fd = rustix::fs::open(
        &path,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| match e {
        Errno::NOTDIR => bad("it is not a directory".into()),
        e => bad(reason(&io::Error::from(e))),
    })?;
    // Fail at set-up, not at the first call, when the kernel cannot confine.
    match open_beneath(fd.as_fd(), Path::new("."), OFlags::PATH, Mode::empty()) {
        Ok(_) => {}
        Err(e) if e.raw_os_error() == Some(libc::ENOSYS) => {
            return Err(ToolError::Unconfinable {
                path: given.display().to_string(),
            });
        }
        Err(e) => return Err(bad(reason(&e))),
    }
    Ok(Root { path, fd })
}

/// The root with the longest path that is a prefix of `absolute` (by whole
/// components), and the rest of the path relative to it.
fn place<'w>(candidates: &[&'w Root], absolute: &Path) -> Option<(&'w Root, PathBuf)> {
    candidates
        .iter()
        .filter(|r| absolute.starts_with(&r.path))
        .max_by_key(|r| r.path.as_os_str().len())
        .and_then(|r| {
            let rel = absolute.strip_prefix(&r.path).ok()?;
            Some((*r, rel.to_path_buf()))
        })
}

/// Canonicalizes the longest existing ancestor of `absolute` and joins the
/// rest (which does not exist yet) as written.
fn canonical_prefix(absolute: &Path) -> Option<PathBuf> {
    let mut existing = absolute;
    let mut rest: Vec<&OsStr> = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(existing) {
            let mut out = c;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return Some(out);
        }
        let name = existing.file_name()?;
        if name.as_bytes() == b".." {
            return None;
        }
        rest.push(name);
        existing = existing.parent()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(root: &Path, home: Option<&Path>) -> Workspace {
        let mut ws = Workspace::open(&[root.to_path_buf()], &[]).unwrap();
        ws.home = home.map(Path::to_path_buf);
        ws
    }

    #[test]
    fn a_workspace_is_shared_across_threads() {
        fn shareable<T: Send + Sync>() {}
        shareable::<Workspace>();
    }

    #[test]
    fn tilde_expands_to_home_like_the_policy_does() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let ws = workspace(&root, Some(&root));
        let t = ws.locate("~/a/b.txt", None, Access::Read).unwrap();
        assert_eq!(t.rel, Path::new("a/b.txt"));
        let t = ws.locate("~", None, Access::Read).unwrap();
        assert_eq!(t.rel, Path::new(""));

        assert!(matches!(
            ws.locate("~root/x", None, Access::Read),
            Err(ToolError::InvalidPath { .. })
        ));
        let homeless = workspace(&root, None);
        assert!(matches!(
            homeless.locate("~/x", None, Access::Read),
            Err(ToolError::InvalidPath { .. })
        ));
    }

    #[test]
    fn the_longest_matching_root_wins() {
        let dir = tempfile::tempdir().unwrap();
        let outer = std::fs::canonicalize(dir.path()).unwrap();
        let inner = outer.join("vendor");
        std::fs::create_dir(&inner).unwrap();
        let ws =
            Workspace::open(std::slice::from_ref(&outer), std::slice::from_ref(&inner)).unwrap();
        let path = inner.join("x.txt");
        let t = ws
            .locate(path.to_str().unwrap(), None, Access::Read)
            .unwrap();
        assert_eq!(t.root.path, inner);
        assert_eq!(t.rel, Path::new("x.txt"));
        // Writes only consider the writable roots.
        let t = ws
            .locate(path.to_str().unwrap(), None, Access::Write)
            .unwrap();
        assert_eq!(t.root.path, outer);
        assert_eq!(t.rel, Path::new("vendor/x.txt"));
    }

    #[test]
    fn malformed_paths_are_invalid() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path(), None);
        for p in ["", "a\0b"] {
            assert!(matches!(
                ws.locate(p, None, Access::Read),
                Err(ToolError::InvalidPath { .. })
            ));
        }
        assert!(matches!(
            ws.locate("x", Some(Path::new("relative/cwd")), Access::Read),
            Err(ToolError::InvalidPath { .. })
        ));
    }
}

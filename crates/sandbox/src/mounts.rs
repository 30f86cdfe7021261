//! User and mount namespaces: masks over denied paths and read-only binds
//! over protected ones, made in the child between `fork` and `exec`, with no
//! root needed.
//!
//! 1. `unshare(CLONE_NEWUSER | CLONE_NEWNS)`, then the child maps its own
//!    user and group ids onto themselves (`setgroups` denied first, as the
//!    kernel requires), so files keep their owners and git its ownership
//!    checks;
//! 2. every mount becomes private, so nothing made here propagates out;
//! 3. the binds: a read-only path is bound over itself (recursively for a
//!    directory) and remounted read-only; a mask binds an empty read-only
//!    file or directory from the sandbox's staging directory over the path.
//!    A remount keeps the flags the kernel locks (`nosuid`, `nodev`,
//!    `noexec`, the atime mode), read beforehand with `statvfs`;
//! 4. `unshare(CLONE_NEWUSER | CLONE_NEWNS)` once more, with the same
//!    mapping: mounts copied into a namespace owned by a less privileged
//!    user namespace are locked, so even a process that is root inside
//!    cannot unmount a mask, move it, or remount a read-only bind writable
//!    (and seccomp refuses the mount calls besides).
//!
//! A mount point cannot be renamed over, removed or replaced (`EBUSY`), so
//! replacing `.git` by a directory or a symlink fails, and so does any
//! rename or replace-by-symlink of the policy file, a mask, or the state
//! directory.
//!
//! Everything the child does is a raw system call on memory prepared here
//! in the parent: no allocation, no lock (async-signal-safe, as code after
//! `fork` in a multithreaded process must be).

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fs::{Mode, OFlags, StatVfsMountFlags};
use rustix::mount::{MountFlags, MountPropagationFlags};
use rustix::thread::UnshareFlags;

use crate::error::{Part, SandboxError};
use crate::plan::Op;

/// One bind mount, ready for the child.
#[derive(Debug)]
pub(crate) struct Bind {
    pub(crate) source: CString,
    pub(crate) target: CString,
    pub(crate) recursive: bool,
    /// Bound with `open_tree` and `move_mount`, neither following the path
    /// when it is a symlink: the link itself becomes the mount point.
    pub(crate) link: bool,
    /// The read-only remount's flags; `None` when the source's mount is
    /// read-only already (a bind inherits it).
    pub(crate) remount: Option<MountFlags>,
    /// A daemon socket's mask: when the bind fails (the socket lies in a
    /// directory the sandboxed user cannot enter, or is gone), the command
    /// cannot reach the socket either, and the sandbox goes on.
    pub(crate) optional: bool,
}

/// The namespaces' setup, ready for the child.
#[derive(Debug)]
pub(crate) struct Namespaces {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// Mount a private memory file system on `/dev/shm` first, holding the
    /// private temp dir and, read-only, the masks' sources (see
    /// [`PRIVATE_TMP`]).
    private_shm: bool,
    pub(crate) binds: Vec<Bind>,
    /// Directories the command gets its own copy of (`/tmp`, `/var/tmp`,
    /// and in a child `/dev/shm`), made after the binds.
    private: Vec<PrivateDir>,
}

/// A directory outside the roots where anyone may leave a Unix socket
/// (`/tmp`, `/var/tmp`, `/dev/shm`): the command sees a directory of its
/// own there instead, holding only what it must keep (the roots, the
/// read-only paths, the staging directory that lie beneath it), each put
/// back in place by a recursive clone of its mounts. A daemon's socket
/// anywhere beneath it, at any depth, is then out of reach.
#[derive(Debug)]
pub(crate) struct PrivateDir {
    target: CString,
    /// Bound over the target (the private temp dir, so that `/tmp` is the
    /// command's `$TMPDIR`); `None`: an empty memory file system.
    source: Option<CString>,
    keeps: Vec<Keep>,
}

/// A path beneath a private directory that stays: the directories to
/// create on the way to it (the path itself last) and whether it is one.
#[derive(Debug)]
struct Keep {
    path: CString,
    dir: bool,
    create: Vec<CString>,
}

/// Paths kept beneath one private directory, at most (they are cloned
/// into descriptors held on the child's stack).
const MAX_KEEPS: usize = 16;

/// The private directories for `targets` (`(directory, what to bind over
/// it)`), keeping each of `keep` (canonical paths) that lies beneath one.
/// A target that does not exist, lies within the roots, or is itself to be
/// kept is left alone.
pub(crate) fn private_dirs(
    targets: &[(&Path, Option<&Path>)],
    keep: &[&Path],
    roots: &[std::path::PathBuf],
) -> Result<Vec<PrivateDir>, SandboxError> {
    let mut out = Vec::new();
    for (target, source) in targets {
        let Ok(target) = std::fs::canonicalize(target) else {
            continue;
        };
        if !target.is_dir()
            || roots.iter().any(|r| target.starts_with(r))
            || keep.iter().any(|k| target.starts_with(k))
        {
            continue;
        }
        let mut under: Vec<&Path> = keep
            .iter()
            .copied()
            .filter(|k| k.starts_with(&target))
            .collect();
        under.sort();
        under.dedup();
        // An ancestor's recursive clone carries what lies beneath it.
        let under: Vec<&Path> = under
            .iter()
            .copied()
            .filter(|k| !under.iter().any(|a| a != k && k.starts_with(a)))
            .collect();
        if under.len() > MAX_KEEPS {
            return Err(SandboxError::Unsupported {
                part: Part::Namespaces,
                reason: format!(
                    "more than {MAX_KEEPS} roots or read-only paths lie in `{}`, which the command gets a private copy of",
                    target.display()
                ),
            });
        }
        let mut keeps = Vec::with_capacity(under.len());
        for k in under {
            let mut create = Vec::new();
            let mut at = target.clone();
            if let Ok(rest) = k.strip_prefix(&target) {
                for c in rest.components() {
                    at.push(c);
                    create.push(cstring(&at)?);
                }
            }
            keeps.push(Keep {
                path: cstring(k)?,
                dir: k.is_dir(),
                create,
            });
        }
        out.push(PrivateDir {
            target: cstring(&target)?,
            source: (*source).map(cstring).transpose()?,
            keeps,
        });
    }
    Ok(out)
}

/// Where a process that enters the sandbox itself ([`crate::exec`]) keeps
/// its private temp dir and the masks' sources: on a memory file system
/// mounted over `/dev/shm` in its own mount namespace, which goes away with
/// the namespace, so there is nothing to clean up. Landlock leaves the
/// real `/dev/shm` unreadable inside the sandbox anyway.
pub(crate) const SHM: &std::ffi::CStr = c"/dev/shm";
/// The private temp dir beneath [`SHM`].
pub(crate) const PRIVATE_TMP: &str = "/dev/shm/tmp";
const SHM_TMP: &std::ffi::CStr = c"/dev/shm/tmp";
const SHM_MASK: &std::ffi::CStr = c"/dev/shm/.toolgate-mask";
const SHM_MASK_FILE: &str = "/dev/shm/.toolgate-mask/file";
const SHM_MASK_FILE_C: &std::ffi::CStr = c"/dev/shm/.toolgate-mask/file";
const SHM_MASK_DIR: &str = "/dev/shm/.toolgate-mask/dir";
const SHM_MASK_DIR_C: &std::ffi::CStr = c"/dev/shm/.toolgate-mask/dir";
/// A fresh tmpfs has no locked flags; these are the ones it is mounted with.
const SHM_FLAGS: MountFlags = MountFlags::NOSUID
    .union(MountFlags::NODEV)
    .union(MountFlags::NOEXEC);

/// Steps the child reports when one fails (the index into [`STEPS`]).
pub(crate) const STEPS: &[&str] = &[
    "creating the user and mount namespaces (unshare)",
    "denying setgroups in the user namespace",
    "writing the user id map",
    "writing the group id map",
    "making the mounts private",
    "bind mount",
    "read-only remount",
    "locking the mounts (a second user namespace)",
    "no_new_privs",
    "landlock_restrict_self",
    "loading the seccomp filter",
    "marking descriptors close-on-exec",
    "arming the parent-death signal",
    "mounting the private /dev/shm",
    "private /tmp: cloning a path it keeps (open_tree)",
    "private /tmp: mounting over it",
    "private /tmp: putting a kept path back (move_mount)",
    "returning to the working directory (does it lie in /tmp, /var/tmp or /dev/shm outside the roots?)",
    "creating the PID namespace (unshare)",
    "starting the command's process in the PID namespace",
];

pub(crate) const STEP_UNSHARE: u8 = 0;
pub(crate) const STEP_SHM: u8 = 13;
pub(crate) const STEP_CLONE: u8 = 14;
pub(crate) const STEP_PRIVATE: u8 = 15;
pub(crate) const STEP_KEEP: u8 = 16;
pub(crate) const STEP_CWD: u8 = 17;
pub(crate) const STEP_BIND: u8 = 5;
pub(crate) const STEP_REMOUNT: u8 = 6;
pub(crate) const STEP_LOCK: u8 = 7;

fn cstring(p: &Path) -> Result<CString, SandboxError> {
    CString::new(p.as_os_str().as_bytes()).map_err(|_| SandboxError::Io {
        what: format!("`{}`: the path holds a NUL byte", p.display()),
        source: io::Error::from(io::ErrorKind::InvalidInput),
    })
}

/// The flags a read-only remount of a bind of `source` must carry: the
/// source mount's locked flags, plus read-only.
fn remount_flags(source: &Path) -> Result<MountFlags, SandboxError> {
    let st = rustix::fs::statvfs(source).map_err(|e| SandboxError::Io {
        what: format!("`{}`: cannot read its mount's flags", source.display()),
        source: e.into(),
    })?;
    let f = st.f_flag;
    let mut m = MountFlags::BIND | MountFlags::RDONLY;
    for (st, ms) in [
        (StatVfsMountFlags::NOSUID, MountFlags::NOSUID),
        (StatVfsMountFlags::NODEV, MountFlags::NODEV),
        (StatVfsMountFlags::NOEXEC, MountFlags::NOEXEC),
        (StatVfsMountFlags::NOATIME, MountFlags::NOATIME),
        (StatVfsMountFlags::NODIRATIME, MountFlags::NODIRATIME),
        (StatVfsMountFlags::RELATIME, MountFlags::RELATIME),
    ] {
        if f.contains(st) {
            m |= ms;
        }
    }
    if !f.intersects(StatVfsMountFlags::NOATIME | StatVfsMountFlags::RELATIME) {
        m |= MountFlags::STRICTATIME;
    }
    Ok(m)
}

impl Namespaces {
    /// Prepares the binds of `ops`; masks come from `empty_file` and
    /// `empty_dir`.
    pub(crate) fn prepare(
        ops: &[Op],
        empty_file: &Path,
        empty_dir: &Path,
        private: Vec<PrivateDir>,
    ) -> Result<Namespaces, SandboxError> {
        let file_flags = Some(remount_flags(empty_file)?);
        let dir_flags = Some(remount_flags(empty_dir)?);
        Namespaces::with_sources(
            ops,
            (empty_file, file_flags),
            (empty_dir, dir_flags),
            false,
            private,
        )
    }

    /// Prepares the binds of `ops` for a process that enters the sandbox
    /// itself: the masks' sources live on the private `/dev/shm`.
    pub(crate) fn prepare_private_shm(
        ops: &[Op],
        private: Vec<PrivateDir>,
    ) -> Result<Namespaces, SandboxError> {
        // The sources' tmpfs is mounted read-only, and binds of it are too.
        Namespaces::with_sources(
            ops,
            (Path::new(SHM_MASK_FILE), None),
            (Path::new(SHM_MASK_DIR), None),
            true,
            private,
        )
    }

    fn with_sources(
        ops: &[Op],
        (empty_file, file_flags): (&Path, Option<MountFlags>),
        (empty_dir, dir_flags): (&Path, Option<MountFlags>),
        private_shm: bool,
        private: Vec<PrivateDir>,
    ) -> Result<Namespaces, SandboxError> {
        let uid = rustix::process::geteuid().as_raw();
        let gid = rustix::process::getegid().as_raw();
        let mut binds = Vec::with_capacity(ops.len());
        for op in ops {
            binds.push(match op {
                Op::ReadOnly(p) => Bind {
                    source: cstring(p)?,
                    target: cstring(p)?,
                    recursive: p.is_dir(),
                    link: false,
                    remount: Some(remount_flags(p)?),
                    optional: false,
                },
                Op::Pin(p) => Bind {
                    source: cstring(p)?,
                    target: cstring(p)?,
                    recursive: true,
                    link: false,
                    remount: None,
                    optional: false,
                },
                Op::Link(p) => Bind {
                    source: cstring(p)?,
                    target: cstring(p)?,
                    recursive: false,
                    link: true,
                    remount: None,
                    optional: false,
                },
                Op::Mask { path, dir, rule } => Bind {
                    source: cstring(if *dir { empty_dir } else { empty_file })?,
                    target: cstring(path)?,
                    recursive: false,
                    link: false,
                    remount: if *dir { dir_flags } else { file_flags },
                    optional: rule == crate::plan::DAEMON_SOCKET,
                },
            });
        }
        Ok(Namespaces {
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            private_shm,
            binds,
            private,
        })
    }

    fn map_ids(&self) -> Result<(), (u8, io::Error)> {
        write_proc(c"/proc/self/setgroups", b"deny").map_err(|e| (1, e))?;
        write_proc(c"/proc/self/uid_map", &self.uid_map).map_err(|e| (2, e))?;
        write_proc(c"/proc/self/gid_map", &self.gid_map).map_err(|e| (3, e))
    }

    /// Enters the namespaces and makes the mounts. Runs in the child; on
    /// failure, returns the step (an index into [`STEPS`]) and, for a
    /// mount, the bind's index.
    pub(crate) fn enter(&self) -> Result<(), (u8, u16, io::Error)> {
        let flags = UnshareFlags::NEWUSER | UnshareFlags::NEWNS;
        // SAFETY: the child is single-threaded after fork, and the flags do
        // not unshare the descriptor table.
        unsafe { rustix::thread::unshare_unsafe(flags) }
            .map_err(|e| (STEP_UNSHARE, 0, e.into()))?;
        self.map_ids().map_err(|(s, e)| (s, 0, e))?;
        rustix::mount::mount_change(
            c"/",
            MountPropagationFlags::REC | MountPropagationFlags::PRIVATE,
        )
        .map_err(|e| (4, 0, e.into()))?;
        if self.private_shm {
            private_shm().map_err(|e| (STEP_SHM, 0, e))?;
        }
        for (i, b) in self.binds.iter().enumerate() {
            let i = u16::try_from(i).unwrap_or(u16::MAX);
            let r = if b.link {
                bind_link(b)
            } else if b.recursive {
                rustix::mount::mount_bind_recursive(b.source.as_c_str(), b.target.as_c_str())
            } else {
                rustix::mount::mount_bind(b.source.as_c_str(), b.target.as_c_str())
            };
            match r {
                Ok(()) => {}
                Err(_) if b.optional => continue,
                Err(e) => return Err((STEP_BIND, i, e.into())),
            }
            if let Some(flags) = b.remount {
                rustix::mount::mount_remount(b.target.as_c_str(), flags, c"")
                    .map_err(|e| (STEP_REMOUNT, i, e.into()))?;
            }
        }
        if !self.private.is_empty() {
            // The working directory's path, read before the private
            // directories hide where it lies, then entered again after:
            // `..` from a directory beneath an overmounted one would
            // otherwise climb into what the mount hides.
            let mut cwd = [0u8; 4096];
            // SAFETY: the kernel writes at most `cwd.len()` bytes, NUL
            // included, into the stack buffer.
            let n = unsafe { libc::syscall(libc::SYS_getcwd, cwd.as_mut_ptr(), cwd.len()) };
            if n <= 0 || cwd[0] != b'/' {
                return Err((STEP_CWD, 0, io::Error::last_os_error()));
            }
            for p in &self.private {
                p.enter()?;
            }
            let cwd = std::ffi::CStr::from_bytes_until_nul(&cwd).map_err(|_| {
                (
                    STEP_CWD,
                    0,
                    io::Error::from_raw_os_error(libc::ENAMETOOLONG),
                )
            })?;
            rustix::process::chdir(cwd).map_err(|e| (STEP_CWD, 0, e.into()))?;
        }
        // SAFETY: as above.
        unsafe { rustix::thread::unshare_unsafe(flags) }.map_err(|e| (STEP_LOCK, 0, e.into()))?;
        self.map_ids().map_err(|(_, e)| (STEP_LOCK, 0, e))
    }
}

impl PrivateDir {
    /// Clones what it keeps, mounts over the directory, and puts the
    /// clones back. Runs in the child: descriptors live on the stack.
    fn enter(&self) -> Result<(), (u8, u16, io::Error)> {
        use rustix::mount::{MoveMountFlags, OpenTreeFlags};
        const NONE: Option<rustix::fd::OwnedFd> = None;
        let mut clones = [NONE; MAX_KEEPS];
        for (i, k) in self.keeps.iter().enumerate() {
            let at = u16::try_from(i).unwrap_or(u16::MAX);
            let slot = clones.get_mut(i).ok_or((
                STEP_CLONE,
                at,
                io::Error::from_raw_os_error(libc::E2BIG),
            ))?;
            *slot = Some(
                rustix::mount::open_tree(
                    rustix::fs::CWD,
                    k.path.as_c_str(),
                    OpenTreeFlags::OPEN_TREE_CLONE
                        | OpenTreeFlags::OPEN_TREE_CLOEXEC
                        | OpenTreeFlags::AT_RECURSIVE,
                )
                .map_err(|e| (STEP_CLONE, at, e.into()))?,
            );
        }
        match &self.source {
            Some(src) => rustix::mount::mount_bind(src.as_c_str(), self.target.as_c_str()),
            None => rustix::mount::mount(
                c"tmpfs",
                self.target.as_c_str(),
                c"tmpfs",
                SHM_FLAGS,
                c"mode=0755",
            ),
        }
        .map_err(|e| (STEP_PRIVATE, 0, e.into()))?;
        for (i, (k, clone)) in self.keeps.iter().zip(clones.iter()).enumerate() {
            let at = u16::try_from(i).unwrap_or(u16::MAX);
            let Some(clone) = clone else {
                return Err((STEP_KEEP, at, io::Error::from_raw_os_error(libc::EBADF)));
            };
            let last = k.create.len().saturating_sub(1);
            for (j, d) in k.create.iter().enumerate() {
                let made = if j < last || k.dir {
                    rustix::fs::mkdir(d.as_c_str(), Mode::from_raw_mode(0o755))
                } else {
                    rustix::fs::open(
                        d.as_c_str(),
                        OFlags::WRONLY | OFlags::CREATE | OFlags::CLOEXEC,
                        Mode::from_raw_mode(0o600),
                    )
                    .map(drop)
                };
                match made {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(e) => return Err((STEP_KEEP, at, e.into())),
                }
            }
            rustix::mount::move_mount(
                clone,
                c"",
                rustix::fs::CWD,
                k.path.as_c_str(),
                MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH,
            )
            .map_err(|e| (STEP_KEEP, at, e.into()))?;
        }
        Ok(())
    }
}

/// Binds `b.source` over `b.target` without following either when it is a
/// symlink (`mount` follows both): the link itself becomes a mount point,
/// which cannot be removed, renamed over or replaced.
fn bind_link(b: &Bind) -> rustix::io::Result<()> {
    use rustix::mount::{MoveMountFlags, OpenTreeFlags};
    let tree = rustix::mount::open_tree(
        rustix::fs::CWD,
        b.source.as_c_str(),
        OpenTreeFlags::OPEN_TREE_CLONE
            | OpenTreeFlags::OPEN_TREE_CLOEXEC
            | OpenTreeFlags::AT_SYMLINK_NOFOLLOW,
    )?;
    rustix::mount::move_mount(
        &tree,
        c"",
        rustix::fs::CWD,
        b.target.as_c_str(),
        MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH,
    )
}

/// A private tmpfs on `/dev/shm` with the temp dir, and beneath it a
/// read-only tmpfs holding an empty file and an empty directory.
fn private_shm() -> io::Result<()> {
    use rustix::fs::{Mode, mkdir};
    rustix::mount::mount(c"tmpfs", SHM, c"tmpfs", SHM_FLAGS, c"mode=0755")?;
    mkdir(SHM_TMP, Mode::from_raw_mode(0o700))?;
    mkdir(SHM_MASK, Mode::from_raw_mode(0o755))?;
    rustix::mount::mount(c"tmpfs", SHM_MASK, c"tmpfs", SHM_FLAGS, c"mode=0555")?;
    let f = rustix::fs::open(
        SHM_MASK_FILE_C,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o444),
    )?;
    drop(f);
    mkdir(SHM_MASK_DIR_C, Mode::from_raw_mode(0o555))?;
    rustix::mount::mount_remount(SHM_MASK, SHM_FLAGS | MountFlags::RDONLY, c"mode=0555")?;
    Ok(())
}

fn write_proc(path: &std::ffi::CStr, data: &[u8]) -> io::Result<()> {
    let fd = rustix::fs::open(path, OFlags::WRONLY | OFlags::CLOEXEC, Mode::empty())?;
    let n = rustix::io::write(&fd, data)?;
    if n != data.len() {
        return Err(io::Error::from_raw_os_error(libc::EIO));
    }
    Ok(())
}

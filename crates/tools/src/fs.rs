//! `read_file`, `write_file` and `list_dir`, every open confined beneath a
//! root's descriptor (see [`confine`](crate::confine)).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::ffi::OsStr;
use std::fmt;
use std::io::{self, Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::confine::{Access, Target, Workspace, display_under, open_beneath};
use crate::content::{Body, classify};
use crate::error::ToolError;

/// Size and count limits of the file tools.
///
/// They keep one call from flooding the model's context or the disk. The
/// defaults match: what `write_file` may write, `read_file` may read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Largest file `read_file` returns (default 1 MiB).
    pub max_read_bytes: u64,
    /// Largest content `write_file` accepts (default 1 MiB).
    pub max_write_bytes: usize,
    /// Most entries `list_dir` returns (default 1,000); the rest are counted.
    pub max_dir_entries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_read_bytes: 1 << 20,
            max_write_bytes: 1 << 20,
            max_dir_entries: 1000,
        }
    }
}

/// What `read_file` returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileText {
    /// The file's path under its root (as text: `..` removed).
    pub path: PathBuf,
    /// The file's size in bytes.
    pub size: u64,
    /// The text, or a summary when the file is binary.
    pub body: Body,
}

impl fmt::Display for FileText {
    /// The text as the model reads it (a summary line for binary files).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.body)
    }
}

/// What `write_file` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteReport {
    /// The file's path under its root.
    pub path: PathBuf,
    /// Bytes written.
    pub bytes: usize,
    /// True when the file did not exist before.
    pub created: bool,
    /// Parent directories that were created for it, outermost first.
    pub created_dirs: Vec<PathBuf>,
}

impl fmt::Display for WriteReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verb = if self.created { "created" } else { "replaced" };
        write!(f, "{verb} {} ({} bytes)", self.path.display(), self.bytes)?;
        if !self.created_dirs.is_empty() {
            f.write_str("; created the directories")?;
            for d in &self.created_dirs {
                write!(f, " {}", d.display())?;
            }
        }
        Ok(())
    }
}

/// The kind of a directory entry, shown as a marker after its name the way
/// `ls -F` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EntryKind {
    /// A regular file (no marker).
    File,
    /// A directory (`/`).
    Dir,
    /// A symlink (`@`); not followed.
    Symlink,
    /// A named pipe (`|`).
    Fifo,
    /// A Unix socket (`=`).
    Socket,
    /// A character or block device (`#`).
    Device,
    /// Unknown to the file system (`?`).
    Other,
}

impl EntryKind {
    /// The marker written after the name.
    pub fn marker(self) -> &'static str {
        match self {
            EntryKind::File => "",
            EntryKind::Dir => "/",
            EntryKind::Symlink => "@",
            EntryKind::Fifo => "|",
            EntryKind::Socket => "=",
            EntryKind::Device => "#",
            EntryKind::Other => "?",
        }
    }

    fn of(t: FileType) -> EntryKind {
        match t {
            FileType::RegularFile => EntryKind::File,
            FileType::Directory => EntryKind::Dir,
            FileType::Symlink => EntryKind::Symlink,
            FileType::Fifo => EntryKind::Fifo,
            FileType::Socket => EntryKind::Socket,
            FileType::CharacterDevice | FileType::BlockDevice => EntryKind::Device,
            _ => EntryKind::Other,
        }
    }
}

/// One entry of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The name (invalid UTF-8 replaced).
    pub name: String,
    /// What it is.
    pub kind: EntryKind,
}

impl fmt::Display for DirEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.name, self.kind.marker())
    }
}

/// What `list_dir` returns: the first entries in byte order of their names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirListing {
    /// The directory's path under its root.
    pub path: PathBuf,
    /// Sorted by name, at most [`Limits::max_dir_entries`].
    pub entries: Vec<DirEntry>,
    /// How many entries the directory has in all (`.` and `..` excluded).
    pub total: usize,
}

impl DirListing {
    /// Entries that were left out by the limit.
    pub fn omitted(&self) -> usize {
        self.total - self.entries.len()
    }
}

impl fmt::Display for DirListing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for e in &self.entries {
            writeln!(f, "{e}")?;
        }
        if self.omitted() > 0 {
            writeln!(
                f,
                "[{} more entries not shown; {} in all]",
                self.omitted(),
                self.total
            )?;
        }
        if self.total == 0 {
            writeln!(f, "[empty directory]")?;
        }
        Ok(())
    }
}

/// Reads a regular file under the roots or read roots.
///
/// The file is first opened with `O_PATH` and inspected, so that a FIFO, a
/// socket or a device is refused without being opened for reading (which
/// could block or have side effects); the real open adds `O_NONBLOCK` for the
/// same reason, in case the path was swapped in between, and is inspected
/// again. A file larger than [`Limits::max_read_bytes`] is refused with its
/// size; bytes that are not UTF-8 text come back as [`Body::Binary`].
pub fn read_file(
    ws: &Workspace,
    path: &str,
    cwd: Option<&Path>,
    limits: &Limits,
) -> Result<FileText, ToolError> {
    let target = ws.locate(path, cwd, Access::Read)?;
    let probe = target.open(OFlags::PATH)?;
    require_regular(&target, &probe)?;
    let fd = target.open(OFlags::RDONLY | OFlags::NONBLOCK)?;
    let size = require_regular(&target, &fd)?;
    let too_large = |size: u64| ToolError::FileTooLarge {
        path: path.to_string(),
        size,
        limit: limits.max_read_bytes,
    };
    if size > limits.max_read_bytes {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    std::fs::File::from(fd)
        .take(limits.max_read_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| target.error("read", e))?;
    let read = bytes.len() as u64;
    if read > limits.max_read_bytes {
        // The file grew after it was measured.
        return Err(too_large(read));
    }
    Ok(FileText {
        path: target.display(),
        size: read,
        body: classify(bytes, false, None),
    })
}

/// Writes `content` to a file under the (writable) roots, atomically.
///
/// Missing parent directories are created one at a time, each `mkdirat`
/// relative to a parent that was itself opened beneath the root. The content
/// goes to a new temporary file in the target's directory (created through
/// that directory's descriptor with `O_EXCL`), is flushed to disk, and is
/// renamed over the target with `renameat`: a reader sees the old file or the
/// new one, never a mix, and a failure leaves no temporary file behind. An
/// existing symlink at the final component is refused, not followed; should
/// one be swapped in after that check, the rename replaces the link itself
/// and still writes nothing through it. The permission bits of a replaced
/// file are kept (set-id bits dropped).
pub fn write_file(
    ws: &Workspace,
    path: &str,
    content: &str,
    cwd: Option<&Path>,
    limits: &Limits,
) -> Result<WriteReport, ToolError> {
    if content.len() > limits.max_write_bytes {
        return Err(ToolError::ContentTooLarge {
            path: path.to_string(),
            size: content.len(),
            limit: limits.max_write_bytes,
        });
    }
    let target = ws.locate(path, cwd, Access::Write)?;
    let not_a_file = |found| ToolError::WrongType {
        path: path.to_string(),
        found,
        expected: "a regular file",
    };
    if path.ends_with('/') || path.ends_with("/.") {
        return Err(not_a_file("a directory path"));
    }
    let (parent_rel, name) = match target.rel.components().next_back() {
        Some(Component::Normal(name)) => (
            target.rel.parent().unwrap_or(Path::new("")).to_path_buf(),
            name.to_os_string(),
        ),
        // The root itself, or a path ending in `..`.
        _ => return Err(not_a_file("a directory")),
    };

    let mut created_dirs = Vec::new();
    let parent = open_or_create_dirs(&target, &parent_rel, &mut created_dirs)?;

    let existing = match rustix::fs::statat(&parent, name.as_os_str(), AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Some(st),
        Err(Errno::NOENT) => None,
        Err(e) => return Err(target.error("inspect", e.into())),
    };
    let keep_mode = match existing {
        None => None,
        Some(st) => match FileType::from_raw_mode(st.st_mode) {
            FileType::RegularFile => Some(Mode::from_raw_mode(st.st_mode) & Mode::from(0o777)),
            FileType::Symlink => {
                return Err(ToolError::Symlink {
                    path: path.to_string(),
                });
            }
            t => return Err(not_a_file(type_name(t))),
        },
    };

    let (tmp_name, tmp) = create_temp(&parent).map_err(|e| target.error("write", e))?;
    let result = (|| -> io::Result<()> {
        if let Some(mode) = keep_mode {
            rustix::fs::fchmod(&tmp, mode)?;
        }
        let mut file = std::fs::File::from(tmp);
        file.write_all(content.as_bytes())?;
        file.sync_all()?;
        drop(file);
        rustix::fs::renameat(&parent, tmp_name.as_str(), &parent, name.as_os_str())?;
        Ok(())
    })();
    if let Err(e) = result {
        let _ = rustix::fs::unlinkat(&parent, tmp_name.as_str(), AtFlags::empty());
        return Err(match e.raw_os_error() {
            Some(libc::EISDIR) => not_a_file("a directory"),
            _ => target.error("write", e),
        });
    }
    // Make the rename itself durable; the write already succeeded, so a
    // failure here is not reported as a failed write.
    let _ = rustix::fs::fsync(&parent);

    Ok(WriteReport {
        path: target.display(),
        bytes: content.len(),
        created: existing.is_none(),
        created_dirs,
    })
}

/// Lists a directory under the roots or read roots: names sorted bytewise,
/// each with its kind, at most [`Limits::max_dir_entries`] of them (the
/// smallest names, found with a bounded heap so that a huge directory costs
/// memory for the limit only), plus the total count.
pub fn list_dir(
    ws: &Workspace,
    path: &str,
    cwd: Option<&Path>,
    limits: &Limits,
) -> Result<DirListing, ToolError> {
    let target = ws.locate(path, cwd, Access::Read)?;
    let fd = target.open(OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NONBLOCK)?;
    let mut dir = rustix::fs::Dir::new(fd).map_err(|e| target.error("list", e.into()))?;

    // A max-heap of the smallest names seen so far.
    let mut heap: BinaryHeap<ByName> = BinaryHeap::new();
    let mut total = 0usize;
    while let Some(entry) = dir.read() {
        let entry = entry.map_err(|e| target.error("list", e.into()))?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        total += 1;
        if limits.max_dir_entries == 0 {
            continue;
        }
        let full = heap.len() >= limits.max_dir_entries;
        if full && heap.peek().is_some_and(|top| name >= top.name.as_slice()) {
            continue;
        }
        let kind = match entry.file_type() {
            FileType::Unknown => dir
                .fd()
                .and_then(|d| rustix::fs::statat(d, entry.file_name(), AtFlags::SYMLINK_NOFOLLOW))
                .map(|st| EntryKind::of(FileType::from_raw_mode(st.st_mode)))
                .unwrap_or(EntryKind::Other),
            t => EntryKind::of(t),
        };
        if full {
            heap.pop();
        }
        heap.push(ByName {
            name: name.to_vec(),
            kind,
        });
    }
    let entries = heap
        .into_sorted_vec()
        .into_iter()
        .map(|e| DirEntry {
            name: String::from_utf8_lossy(&e.name).into_owned(),
            kind: e.kind,
        })
        .collect();
    Ok(DirListing {
        path: target.display(),
        entries,
        total,
    })
}

/// An entry ordered by its raw name, for the bounded heap.
struct ByName {
    name: Vec<u8>,
    kind: EntryKind,
}

impl PartialEq for ByName {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}
impl Eq for ByName {}
impl PartialOrd for ByName {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for ByName {
    fn cmp(&self, other: &Self) -> Ordering {
        self.name.cmp(&other.name)
    }
}

/// Checks that `fd` is a regular file and returns its size.
fn require_regular(target: &Target<'_>, fd: &OwnedFd) -> Result<u64, ToolError> {
    let st = rustix::fs::fstat(fd).map_err(|e| target.error("inspect", e.into()))?;
    match FileType::from_raw_mode(st.st_mode) {
        FileType::RegularFile => Ok(u64::try_from(st.st_size).unwrap_or(0)),
        t => Err(ToolError::WrongType {
            path: target.written.clone(),
            found: type_name(t),
            expected: "a regular file",
        }),
    }
}

fn type_name(t: FileType) -> &'static str {
    match t {
        FileType::RegularFile => "a regular file",
        FileType::Directory => "a directory",
        FileType::Symlink => "a symlink",
        FileType::Fifo => "a named pipe (fifo)",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        _ => "a file of unknown type",
    }
}

/// Opens the directory `parent_rel` beneath the target's root, creating the
/// missing components one at a time.
///
/// Each step reopens the prefix from the root descriptor with
/// `RESOLVE_BENEATH`, so `..` and symlinks inside the path keep their kernel
/// meaning and can never climb out; `mkdirat` creates exactly one name in a
/// directory opened that way and does not follow a symlink at that name.
fn open_or_create_dirs(
    target: &Target<'_>,
    parent_rel: &Path,
    created: &mut Vec<PathBuf>,
) -> Result<OwnedFd, ToolError> {
    let root = target.root.fd.as_fd();
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY;
    let not_dir = |e: io::Error| match e.raw_os_error() {
        Some(libc::ENOTDIR) => ToolError::WrongType {
            path: target.written.clone(),
            found: "under a path component that is not a directory",
            expected: "a path whose parents are directories",
        },
        _ => target.error("open the parent directory of", e),
    };
    match open_beneath(root, parent_rel, dir_flags, Mode::empty()) {
        Ok(fd) => return Ok(fd),
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {}
        Err(e) => return Err(not_dir(e)),
    }
    let mut prefix = PathBuf::new();
    for component in parent_rel.components() {
        let next = prefix.join(component);
        match open_beneath(root, &next, OFlags::PATH | OFlags::DIRECTORY, Mode::empty()) {
            Ok(_) => {}
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => {
                let Component::Normal(name) = component else {
                    return Err(not_dir(e));
                };
                let at = open_beneath(
                    root,
                    &prefix,
                    OFlags::PATH | OFlags::DIRECTORY,
                    Mode::empty(),
                )
                .map_err(not_dir)?;
                mkdir_one(&at, name).map_err(|e| target.error("create the directory for", e))?;
                created.push(display_under(&target.root.path, &next));
            }
            Err(e) => return Err(not_dir(e)),
        }
        prefix = next;
    }
    open_beneath(root, parent_rel, dir_flags, Mode::empty()).map_err(not_dir)
}

fn mkdir_one(at: &OwnedFd, name: &OsStr) -> io::Result<()> {
    match rustix::fs::mkdirat(at, name, Mode::from(0o777)) {
        // Created meanwhile by someone else: the next open decides.
        Ok(()) | Err(Errno::EXIST) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Creates a fresh temporary file in `dir` with `O_EXCL`, under a short name
/// that cannot collide with a concurrent writer (process id, counter, time).
fn create_temp(dir: &OwnedFd) -> io::Result<(String, OwnedFd)> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir: BorrowedFd<'_> = dir.as_fd();
    let mut last = io::Error::from(Errno::EXIST);
    for _ in 0..16 {
        let n = COUNTER.fetch_add(1, AtomicOrdering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let name = format!(".toolgate-{}-{n}-{nanos:x}.tmp", std::process::id());
        match rustix::fs::openat(
            dir,
            name.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from(0o666),
        ) {
            Ok(fd) => return Ok((name, fd)),
            Err(Errno::EXIST) => last = io::Error::from(Errno::EXIST),
            Err(e) => return Err(e.into()),
        }
    }
    Err(last)
}

//! Path resolution: `~`, `..` and symlinks are resolved before any rule or
//! root check sees a path.
//!
//! A path is resolved component by component: each existing component is
//! looked at with `lstat`, a symlink is replaced by its target (at most 40
//! hops), and once a component does not exist the rest is joined lexically
//! (a file that is about to be created cannot be a symlink). Anything that
//! cannot be resolved safely (a loop, a permission error, `~user`, a NUL
//! byte) is reported as unresolvable, and the caller treats it as outside
//! every root.
//!
//! Where `..` is met depends on who opens the path ([`Opener`]): the
//! kernel reads a `..` after a link from the link's target, while the
//! clients remove `.` and `..` as text before they open a path, so for a
//! client's tool they are removed first and only the rest is resolved.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::ffi::{OsStr, OsString};
use std::fs::FileType;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;

const MAX_SYMLINK_HOPS: usize = 40;

/// Why a path could not be resolved safely; a path with one is outside
/// every root. An I/O failure is kept as its text so that a resolved path
/// stays comparable and cloneable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    /// An empty path names nothing.
    #[error("path is empty")]
    Empty,
    /// No system call takes a path with a NUL byte.
    #[error("path contains a NUL byte")]
    Nul,
    /// `~` with no home directory to expand it to.
    #[error("`~` used but no home directory is known")]
    NoHome,
    /// `~user`: other users' homes are not looked up.
    #[error("`{0}`: `~user` paths are not resolved")]
    OtherUser(String),
    /// The path stays relative after joining it to the working directory.
    #[error("`{0}` does not resolve to an absolute path")]
    NotAbsolute(String),
    /// More than 40 symlinks were followed.
    #[error("`{}`: too many levels of symbolic links", .0.display())]
    SymlinkLoop(PathBuf),
    /// A symlink that cannot be read.
    #[error("`{}`: cannot read link: {detail}", .link.display())]
    ReadLink {
        /// The symlink.
        link: PathBuf,
        /// The system's error.
        detail: String,
    },
    /// A component that is followed by more is not a directory.
    #[error("`{}`: `{}` is not a directory", .path.display(), .component.display())]
    NotADirectory {
        /// The path being resolved.
        path: PathBuf,
        /// The component that is a file.
        component: PathBuf,
    },
    /// A link in toolgate's own `/proc` entry (`/proc/self/cwd`,
    /// `/proc/thread-self/cwd`, `/dev/fd/..`): in the command it is the
    /// command's own process, whose working directory and files differ.
    #[error(
        "`{}` leads through `/proc/self`, which the command would read as its own process, not this one",
        .0.display()
    )]
    OwnProcess(PathBuf),
    /// A component that cannot be looked at (a permission error).
    #[error("`{}`: cannot resolve: {detail}", .component.display())]
    Unresolvable {
        /// The component.
        component: PathBuf,
        /// The system's error.
        detail: String,
    },
}

/// Why a directory that must exist (a root) cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DirError {
    /// It does not exist or cannot be reached.
    #[error("`{}`: {source}", .path.display())]
    Canonicalize {
        /// The directory as given.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
    /// It exists but is a file.
    #[error("`{}` is not a directory", .0.display())]
    NotADirectory(PathBuf),
}

/// A path as the rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Absolute, `.` and `..` removed by text alone, symlinks not followed:
    /// the path "as written", on which deny rules also fire.
    pub lexical: Option<PathBuf>,
    /// Absolute with every symlink followed; an error names why the path
    /// could not be resolved safely.
    pub real: Result<PathBuf, PathError>,
}

impl Resolved {
    /// The path with its links followed, else as written: the one path
    /// an action is shown and found by.
    pub fn best(&self) -> Option<&Path> {
        self.real.as_deref().ok().or(self.lexical.as_deref())
    }

    /// Both forms that exist, resolved first: what deny rules, protected
    /// paths and toolgate's own files are met on.
    pub fn both(&self) -> impl Iterator<Item = &Path> {
        self.real
            .as_deref()
            .ok()
            .into_iter()
            .chain(self.lexical.as_deref())
    }
}

/// Expands a leading `~` and makes the path absolute against `cwd`.
fn absolute(written: &str, cwd: &Path, home: Option<&Path>) -> Result<PathBuf, PathError> {
    if written.is_empty() {
        return Err(PathError::Empty);
    }
    if written.contains('\0') {
        return Err(PathError::Nul);
    }
    let p = if written == "~" || written.starts_with("~/") {
        let home = home.ok_or(PathError::NoHome)?;
        let rest = written.trim_start_matches('~').trim_start_matches('/');
        if rest.is_empty() {
            home.to_path_buf()
        } else {
            home.join(rest)
        }
    } else if written.starts_with('~') {
        return Err(PathError::OtherUser(written.to_string()));
    } else {
        let p = Path::new(written);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            cwd.join(p)
        }
    };
    if !p.is_absolute() {
        return Err(PathError::NotAbsolute(written.to_string()));
    }
    Ok(p)
}

/// Removes `.` and `..` by text alone (`/a/b/../c` → `/a/c`; `..` at `/` stays `/`).
pub fn normalize_lexically(p: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for c in p.components() {
        match c {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(n) => out.push(n),
        }
    }
    out
}

/// Who opens a path, which decides what `..` after a symlink means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opener {
    /// The kernel, component by component, in toolgate's own process
    /// (toolgate's own file tools open beneath a root with `openat2`):
    /// `..` after a link climbs from the link's target.
    Kernel,
    /// The kernel, in a shell command's process: as [`Opener::Kernel`],
    /// and `/proc/self/cwd` is the command's working directory.
    Command,
    /// A client's own tool: the client removes `.` and `..` as text
    /// against its working directory first (Node's `path.resolve` and
    /// `path.join`; Codex's lexical absolutize), and the kernel then opens
    /// what remains, so `link/..` is the directory holding the link.
    Client,
}

/// Resolves a path as written in a tool call or a command.
pub fn resolve(written: &str, cwd: &Path, home: Option<&Path>) -> Resolved {
    resolve_within(written, cwd, home, &[])
}

/// Like [`resolve`], with directories already known to be canonical (the
/// workspace roots, resolved when the policy loaded): a path beneath one of
/// them is resolved from there, which saves a system call per component
/// of the root's own path.
pub fn resolve_within(
    written: &str,
    cwd: &Path,
    home: Option<&Path>,
    canonical: &[PathBuf],
) -> Resolved {
    resolve_for(
        written,
        cwd,
        home,
        canonical,
        &Lookups::default(),
        Opener::Kernel,
    )
}

/// Resolves a path as `opener` opens it, remembering what each component
/// was found to be in `seen` (see [`Lookups`]). A shell command runs in
/// `cwd`, so its `/proc/self/cwd` is `cwd`; for a client's tool, which
/// runs in the client's process whose directory is not known here, or for
/// toolgate's own, such a path cannot be resolved. For a client's tool,
/// `cwd` is the client's working directory as it has it (its links not
/// followed), since the client joins the path to it as text.
pub(crate) fn resolve_for(
    written: &str,
    cwd: &Path,
    home: Option<&Path>,
    canonical: &[PathBuf],
    seen: &Lookups,
    opener: Opener,
) -> Resolved {
    match absolute(written, cwd, home) {
        Err(e) => Resolved {
            lexical: None,
            real: Err(e),
        },
        Ok(abs) => {
            let lexical = normalize_lexically(&abs);
            let real = match opener {
                Opener::Client => resolve_real_within(&lexical, None, canonical, seen),
                Opener::Command => resolve_real_within(&abs, Some(cwd), canonical, seen),
                Opener::Kernel => resolve_real_within(&abs, None, canonical, seen),
            };
            Resolved {
                lexical: Some(lexical),
                real,
            }
        }
    }
}

/// Whether `link` lies beneath this process's own `/proc/PID` (reached as
/// `/proc/self`, `/proc/thread-self` or `/dev/fd`): its links (`cwd`,
/// `root`, `fd/N`, `exe`) name what this process has open, which the
/// command that runs later reads as its own: `cwd` is the directory the
/// path is resolved against, `root` is `/`, and the others cannot be
/// known.
fn own_process(link: &Path) -> bool {
    // Asked of every missing component of every path: the process id is
    // read once (`getpid` is a system call), and only below `/proc`.
    static PID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let mut c = link.components();
    c.next() == Some(Component::RootDir)
        && c.next() == Some(Component::Normal(OsStr::new("proc")))
        && c.next()
            == Some(Component::Normal(OsStr::new(
                PID.get_or_init(|| std::process::id().to_string()),
            )))
        && c.next().is_some()
}

/// Follows symlinks of the longest existing prefix of an absolute path and
/// joins the rest lexically.
pub fn resolve_real(abs: &Path) -> Result<PathBuf, PathError> {
    resolve_real_within(abs, None, &[], &Lookups::default())
}

/// What looking at one path found: its `lstat`, and for a symlink its
/// `readlink`, with an error kept as its text.
#[derive(Debug, Clone)]
enum Found {
    Link(Result<PathBuf, String>),
    Dir,
    NotDir,
    Missing,
    Failed(String),
}

/// The components looked at while resolving paths, remembered for one
/// decision: a path or directory named many times in one call (a script
/// that reads beneath `src/` in each of its steps) costs one `lstat`
/// (and one `readlink` for a link) instead of one per mention.
///
/// INVARIANT: one value lives for one decision at most, so a file that
/// changes between two calls is always seen as it is at the second.
#[derive(Debug, Default)]
pub(crate) struct Lookups {
    found: RefCell<HashMap<PathBuf, Found>>,
    listed: RefCell<HashMap<PathBuf, Rc<Listing>>>,
    /// For each directory looked at, the hooks directory the
    /// configuration of the repository holding it names.
    hooks: RefCell<HashMap<PathBuf, Option<Rc<PathBuf>>>>,
    /// For each file looked at, its other names, if it has any.
    names: RefCell<HashMap<PathBuf, Option<Names>>>,
}

/// A regular file with more than one name (hard links): how many, and
/// the device and inode every name shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Names {
    pub count: u64,
    pub dev: u64,
    pub ino: u64,
}

/// A directory's entries in the order the system gave them, or why it
/// could not be read; an entry that could not be read is its error's text.
pub(crate) type Listing = Result<Vec<Result<Entry, String>>, String>;

/// One directory entry as a walk needs it.
#[derive(Debug)]
pub(crate) struct Entry {
    /// The directory joined with the name.
    pub path: PathBuf,
    /// The name.
    pub name: OsString,
    /// Its type (a link is not followed), or why it could not be read.
    pub kind: Result<FileType, String>,
}

impl Lookups {
    /// The names `real` has, when it is a regular file with more than
    /// one: looked up once per decision, however many checks ask (the
    /// policy file's hard limit, then the protected paths).
    pub(crate) fn other_names(&self, real: &Path) -> Option<Names> {
        use std::os::unix::fs::MetadataExt;
        if let Some(known) = self.names.borrow().get(real) {
            return *known;
        }
        let found = std::fs::symlink_metadata(real)
            .ok()
            .filter(|m| m.is_file() && m.nlink() > 1)
            .map(|m| Names {
                count: m.nlink(),
                dev: m.dev(),
                ino: m.ino(),
            });
        self.names.borrow_mut().insert(real.to_path_buf(), found);
        found
    }

    /// The hooks directory (`core.hooksPath` of its repository's own
    /// configuration) that `path` is or lies beneath, if any: git runs
    /// what is there, so a write of it is a write of a protected path.
    /// Each directory is looked at once per decision (one `lstat` of its
    /// `.git`), so that a walk of a tree costs one per directory.
    pub(crate) fn git_hooks_holding(
        &self,
        path: &Path,
        home: Option<&Path>,
    ) -> Option<Rc<PathBuf>> {
        let hooks = self.hooks_for(path.parent()?, home)?;
        is_within(path, &hooks).then_some(hooks)
    }

    fn hooks_for(&self, dir: &Path, home: Option<&Path>) -> Option<Rc<PathBuf>> {
        if let Some(known) = self.hooks.borrow().get(dir) {
            return known.clone();
        }
        // A work tree's top holds `.git` (a directory, or a file naming
        // one); a path inside a git directory is protected already.
        let top = std::fs::symlink_metadata(dir.join(".git")).is_ok();
        let found = match top.then(|| crate::git_index::repo_at(dir)).flatten() {
            Some(repo) => crate::git_hooks::configured(&repo, home).map(Rc::new),
            None => dir.parent().and_then(|up| self.hooks_for(up, home)),
        };
        self.hooks
            .borrow_mut()
            .insert(dir.to_path_buf(), found.clone());
        found
    }

    /// The entries of `dir` (`read_dir`), read once per decision: several
    /// recursive reads of one directory (`find .` in each step of a
    /// script) list it once. At most `limit` entries that could be read
    /// are kept: a walk that counts more than that many stops anyway, and
    /// a huge directory is not read to its end.
    pub(crate) fn list(&self, dir: &Path, limit: usize) -> Rc<Listing> {
        if let Some(l) = self.listed.borrow().get(dir) {
            return Rc::clone(l);
        }
        let listing: Listing = match std::fs::read_dir(dir) {
            Err(e) => Err(e.to_string()),
            Ok(entries) => {
                let mut out = Vec::new();
                let mut read = 0usize;
                for entry in entries {
                    if read >= limit {
                        break;
                    }
                    match entry {
                        Ok(entry) => {
                            read += 1;
                            out.push(Ok(Entry {
                                path: entry.path(),
                                name: entry.file_name(),
                                kind: entry.file_type().map_err(|e| e.to_string()),
                            }));
                        }
                        Err(e) => out.push(Err(e.to_string())),
                    }
                }
                Ok(out)
            }
        };
        let listing = Rc::new(listing);
        self.listed
            .borrow_mut()
            .insert(dir.to_path_buf(), Rc::clone(&listing));
        listing
    }

    /// Whether `path` is a directory, following links (`Path::is_dir`),
    /// from what resolving paths already found where it can.
    pub(crate) fn is_dir(&self, path: &Path) -> bool {
        match self.found.borrow().get(path) {
            Some(Found::Dir) => return true,
            Some(Found::NotDir | Found::Missing) => return false,
            Some(Found::Link(_) | Found::Failed(_)) | None => {}
        }
        path.is_dir()
    }

    fn look(&self, path: &Path) -> Found {
        if let Some(f) = self.found.borrow().get(path) {
            return f.clone();
        }
        let f = match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                Found::Link(std::fs::read_link(path).map_err(|e| e.to_string()))
            }
            Ok(meta) if meta.is_dir() => Found::Dir,
            Ok(_) => Found::NotDir,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Found::Missing,
            Err(e) => Found::Failed(e.to_string()),
        };
        self.found
            .borrow_mut()
            .insert(path.to_path_buf(), f.clone());
        f
    }
}

fn resolve_real_within(
    abs: &Path,
    cwd: Option<&Path>,
    canonical: &[PathBuf],
    seen: &Lookups,
) -> Result<PathBuf, PathError> {
    let start = canonical
        .iter()
        .filter(|c| abs.starts_with(c))
        .max_by_key(|c| c.as_os_str().len());
    let (mut cur, rest) = match start {
        Some(c) => (c.clone(), abs.strip_prefix(c).unwrap_or(abs)),
        None => (PathBuf::from("/"), abs),
    };
    let mut queue: VecDeque<OsString> = VecDeque::new();
    for c in rest.components() {
        match c {
            Component::Normal(n) => queue.push_back(n.to_os_string()),
            Component::ParentDir => queue.push_back("..".into()),
            _ => {}
        }
    }
    // Components below `cur` that do not exist (so cannot be symlinks).
    let mut missing: Vec<OsString> = Vec::new();
    let mut hops = 0usize;
    while let Some(name) = queue.pop_front() {
        if name == ".." {
            if missing.pop().is_none() {
                cur.pop();
            }
            continue;
        }
        if name == "." {
            continue;
        }
        if !missing.is_empty() {
            missing.push(name);
            continue;
        }
        cur.push(&name);
        let found = seen.look(&cur);
        if matches!(found, Found::Missing) && own_process(&cur) {
            // What this process has (or lacks: `/dev/fd/3` when it has no
            // descriptor 3) says nothing of the command's.
            return Err(PathError::OwnProcess(abs.to_path_buf()));
        }
        match found {
            Found::Link(target) => {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(PathError::SymlinkLoop(abs.to_path_buf()));
                }
                let target = if own_process(&cur) {
                    // The command's own working directory and root; what
                    // else it has open is not known here.
                    match (cur.file_name().and_then(OsStr::to_str), cwd) {
                        (Some("cwd"), Some(cwd)) => cwd.to_path_buf(),
                        (Some("root"), _) => PathBuf::from("/"),
                        _ => return Err(PathError::OwnProcess(abs.to_path_buf())),
                    }
                } else {
                    target.map_err(|detail| PathError::ReadLink {
                        link: cur.clone(),
                        detail,
                    })?
                };
                cur.pop();
                let mut front: Vec<OsString> = Vec::new();
                if target.is_absolute() {
                    cur = PathBuf::from("/");
                }
                for c in target.components() {
                    match c {
                        Component::Normal(n) => front.push(n.to_os_string()),
                        Component::ParentDir => front.push("..".into()),
                        _ => {}
                    }
                }
                for n in front.into_iter().rev() {
                    queue.push_front(n);
                }
            }
            Found::Dir => {}
            Found::NotDir => {
                if !queue.is_empty() {
                    // `file/child`: the system call would fail with ENOTDIR.
                    return Err(PathError::NotADirectory {
                        path: abs.to_path_buf(),
                        component: cur,
                    });
                }
            }
            Found::Missing => {
                cur.pop();
                missing.push(name);
            }
            Found::Failed(detail) => {
                return Err(PathError::Unresolvable {
                    component: cur,
                    detail,
                });
            }
        }
    }
    for m in missing {
        cur.push(m);
    }
    Ok(cur)
}

/// Canonicalises a directory that must exist (a root).
pub fn canonical_dir(p: &Path) -> Result<PathBuf, DirError> {
    let c = std::fs::canonicalize(p).map_err(|source| DirError::Canonicalize {
        path: p.to_path_buf(),
        source,
    })?;
    if !c.is_dir() {
        return Err(DirError::NotADirectory(p.to_path_buf()));
    }
    Ok(c)
}

/// True when `path` is `dir` or lies beneath it.
pub fn is_within(path: &Path, dir: &Path) -> bool {
    path.starts_with(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical() {
        assert_eq!(
            normalize_lexically(Path::new("/a/b/../c/./d")),
            PathBuf::from("/a/c/d")
        );
        assert_eq!(normalize_lexically(Path::new("/../..")), PathBuf::from("/"));
    }

    #[test]
    fn resolves_symlinks_and_missing_tails() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        std::fs::create_dir(root.join("d")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("d/link")).unwrap();
        let r = resolve("d/link/hosts", &root, None);
        assert_eq!(r.real.unwrap(), PathBuf::from("/etc/hosts"));
        assert_eq!(r.lexical.unwrap(), root.join("d/link/hosts"));
        let r = resolve("d/new/../x", &root, None);
        assert_eq!(r.real.unwrap(), root.join("d/x"));
        // `link/..` is the parent of the link's target, not `d`.
        let r = resolve("d/link/..", &root, None);
        assert_eq!(r.real.unwrap(), PathBuf::from("/"));
    }

    /// A client's tool takes `..` as text before any link: `link/..` is
    /// the directory holding the link, not the parent of its target; the
    /// kernel's reading is kept for toolgate's own tools and commands.
    #[test]
    fn a_clients_tool_takes_dot_dot_as_text() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        std::fs::create_dir_all(root.join("d/a/b")).unwrap();
        std::os::unix::fs::symlink("a/b", root.join("d/lk")).unwrap();
        let client = |w: &str| {
            resolve_for(w, &root, None, &[], &Lookups::default(), Opener::Client)
                .real
                .unwrap()
        };
        assert_eq!(client("d/lk/../x"), root.join("d/x"));
        assert_eq!(client("d/lk/../../x"), root.join("x"));
        assert_eq!(client("d/lk/./y"), root.join("d/a/b/y"));
        assert_eq!(
            resolve("d/lk/../x", &root, None).real.unwrap(),
            root.join("d/a/x")
        );
        assert_eq!(
            command("d/lk/../x", &root).real.unwrap(),
            root.join("d/a/x")
        );
        // The working directory is text too.
        let from_link = resolve_for(
            "../x",
            &root.join("d/lk"),
            None,
            &[],
            &Lookups::default(),
            Opener::Client,
        );
        assert_eq!(from_link.real.unwrap(), root.join("d/x"));
    }

    fn command(written: &str, cwd: &Path) -> Resolved {
        resolve_for(
            written,
            cwd,
            None,
            &[],
            &Lookups::default(),
            Opener::Command,
        )
    }

    /// `/proc/self` is this process: its `cwd` is the directory the path
    /// is resolved against (the command's, not this process's), its `root`
    /// is `/`, and what else it has open (`/dev/fd/N`, `/dev/stdin`) is
    /// not the command's.
    #[test]
    fn this_processs_own_links_are_the_commands() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        std::fs::create_dir_all(root.join("sub/secrets")).unwrap();
        let cwd = root.join("sub");
        for written in [
            "/proc/self/cwd/secrets/k",
            "/proc/thread-self/cwd/secrets/k",
            "/dev/fd/../cwd/secrets/k",
            "/proc/self/root/proc/self/cwd/secrets/k",
        ] {
            let r = command(written, &cwd);
            assert_eq!(r.real.unwrap(), cwd.join("secrets/k"), "{written}");
        }
        let own = format!("/proc/{}/cwd/k", std::process::id());
        assert_eq!(command(&own, &cwd).real.unwrap(), cwd.join("k"));
        assert_eq!(
            command("/proc/self/root/etc/hosts", &cwd).real.unwrap(),
            PathBuf::from("/etc/hosts")
        );
        for written in [
            "/dev/stdin",
            "/dev/fd/3",
            "/dev/fd/97",
            "/proc/self/fd/97",
            "/proc/self/exe",
            "/proc/self/fd/0",
        ] {
            assert!(
                matches!(command(written, &cwd).real, Err(PathError::OwnProcess(_))),
                "{written}"
            );
        }
        // A client's tool runs in the client's process, whose directory
        // is not known.
        assert!(matches!(
            resolve("/proc/self/cwd/k", &cwd, None).real,
            Err(PathError::OwnProcess(_))
        ));
        assert!(matches!(
            resolve_real(Path::new("/proc/self/cwd/x")),
            Err(PathError::OwnProcess(_))
        ));
    }

    #[test]
    fn loops_and_tilde_users_are_unresolvable() {
        let t = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(t.path()).unwrap();
        std::os::unix::fs::symlink("b", root.join("a")).unwrap();
        std::os::unix::fs::symlink("a", root.join("b")).unwrap();
        assert!(resolve("a/x", &root, None).real.is_err());
        assert!(resolve("~root/x", &root, None).real.is_err());
        assert!(resolve("~/x", &root, None).real.is_err());
        assert_eq!(
            resolve("~/x", &root, Some(Path::new("/h"))).lexical,
            Some(PathBuf::from("/h/x"))
        );
    }
}

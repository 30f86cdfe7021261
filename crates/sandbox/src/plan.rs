//! A command's plan: what is masked and what is kept read-only, found by
//! walking the roots (and the directories Read deny patterns name) when the
//! command starts.
//!
//! # Hard links and symlinks
//!
//! A mask is a mount over a path, so every path that resolves to it (a
//! symlink, `..`, a bind) reaches the mask. A hard link is another name for
//! the same inode, which a mount over one name does not cover: the walk
//! records the device and inode of every file with more than one link, and
//! every other name of a masked inode that it finds is masked too. Names
//! outside the walked directories are not found. New hard links cannot be
//! made from inside: a masked path is the root of another mount, and `link`
//! across mounts fails (`EXDEV`).

use std::collections::{HashSet, VecDeque};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::SandboxError;
use crate::profile::Profile;

/// A name no real file is likely to have: when it is denied beneath a
/// directory, at two levels, every name there is, and the whole directory
/// is masked. Over-masking (a pattern that happens to match the probe) hides
/// more than the policy denies, which is the safe direction.
const PROBE: &str = "toolgate-sandbox-probe";

/// The rule a daemon socket's mask names.
pub(crate) const DAEMON_SOCKET: &str = toolgate_policy::rule_ids::SANDBOX_DAEMON_SOCKET;

/// Entries looked at, at most, beneath `/run` and `$XDG_RUNTIME_DIR` when
/// looking for daemons' sockets.
pub const SOCKET_SCAN_LIMIT: usize = 20_000;

/// Where, beneath the home directory, container engines and virtual
/// machines keep the sockets that run what they are sent (Docker Desktop,
/// Colima, Lima, Rancher Desktop, OrbStack, Podman machines): masked with
/// the network closed on kernels whose Landlock cannot refuse pathname
/// sockets, and always for a command the sandbox holds.
const HOME_SOCKET_DIRS: &[&str] = &[
    ".docker/run",
    ".colima",
    ".lima",
    ".rd",
    ".orbstack/run",
    ".local/share/containers/podman/machine",
];

/// One mount the sandbox makes, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    /// Bind the path over itself, read-only (recursively for a directory).
    ReadOnly(PathBuf),
    /// Bind a directory over itself (recursively), still writable: a mount
    /// point cannot be removed, renamed, or replaced (a git directory, see
    /// `git`).
    Pin(PathBuf),
    /// Bind the path over itself without following it when it is a
    /// symlink: the link itself cannot be removed, renamed or replaced (a
    /// git directory's placeholders, see `git`).
    Link(PathBuf),
    /// Bind an empty read-only file or directory over the path.
    Mask {
        /// The path.
        path: PathBuf,
        /// A directory (else a file).
        dir: bool,
        /// The Read deny rule that denies it.
        rule: String,
    },
}

/// What one command's sandbox holds.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Directories beneath which writes are allowed (the roots, then the
    /// directories `[sandbox] writable` grants; the private temp dir is
    /// added when the sandbox is prepared).
    pub writable: Vec<PathBuf>,
    /// The mounts, in the order they are made (parents before children).
    pub ops: Vec<Op>,
    /// Whether the network stays open.
    pub network: bool,
    /// How many entries the walk looked at.
    pub walked: usize,
}

impl Plan {
    /// Walks the roots and makes the plan for `profile`.
    pub fn build(profile: &Profile) -> Result<Plan, SandboxError> {
        let mut w = Walk {
            profile,
            ops: Vec::new(),
            masked: HashSet::new(),
            readonly: HashSet::new(),
            linked: Vec::new(),
            git_dirs: Vec::new(),
            seen: 0,
            denies_writes: profile.policy().is_some_and(|p| p.denies_writes()),
            asks_writes: profile.held && profile.policy().is_some_and(|p| p.asks_writes()),
        };
        let mut starts: Vec<PathBuf> = profile.roots.clone();
        if let Some(p) = profile.policy() {
            for base in p.deny_read_bases() {
                if !profile.within_roots(base) && base.exists() {
                    starts.push(base.clone());
                }
            }
        }
        for start in &starts {
            // A base may itself be denied (`Read(//secrets)`): check it as
            // an entry; a root is walked whatever it is.
            if !profile.roots.contains(start) {
                match std::fs::symlink_metadata(start) {
                    Ok(m) => {
                        if w.visit(start, &m.file_type())? {
                            continue;
                        }
                    }
                    Err(_) => continue,
                }
            } else if let Some(p) = profile.policy()
                && w.denies_writes
                && p.write_denied(&start.join(PROBE)).is_some()
                && p.write_denied(&start.join(PROBE).join(PROBE)).is_some()
                && w.readonly.insert(start.clone())
            {
                // `Edit` denied everywhere: the root itself is read-only.
                w.ops.push(Op::ReadOnly(start.clone()));
            }
            w.walk(start)?;
        }
        if profile.held
            && let Some(p) = profile.policy()
        {
            w.credentials(p);
            w.home_sockets(p);
        }
        for p in &profile.readonly {
            if let Ok(real) = std::fs::canonicalize(p)
                && !w.readonly.contains(&real)
                && !w.masked.contains(&real)
            {
                w.readonly.insert(real.clone());
                w.ops.push(Op::ReadOnly(real));
            }
        }
        w.hard_links();
        w.pin_ancestors();
        if !profile.network && crate::landlock::kernel_abi().is_none_or(|v| v < 9) {
            w.sockets()?;
            if let Some(p) = profile.policy() {
                w.home_sockets(p);
            }
        }
        // `[sandbox] writable`, resolved and checked as the command starts.
        let mut writable = profile.roots.clone();
        if let Some(p) = profile.policy() {
            for w in p.sandbox_writable() {
                let dir = w.resolve_now(p).map_err(SandboxError::Writable)?;
                if !writable.contains(&dir) {
                    writable.push(dir);
                }
            }
        }
        Ok(Plan {
            writable,
            ops: w.ops,
            network: profile.network,
            walked: w.seen,
        })
    }

    /// The masked paths.
    pub fn masks(&self) -> impl Iterator<Item = &Path> {
        self.ops.iter().filter_map(|o| match o {
            Op::Mask { path, .. } => Some(path.as_path()),
            _ => None,
        })
    }

    /// The git directories whose own data is writable (see `git`).
    pub fn git_dirs(&self) -> impl Iterator<Item = &Path> {
        self.ops.iter().filter_map(|o| match o {
            Op::Pin(p) if crate::git::is_git_dir_name(p) => Some(p.as_path()),
            _ => None,
        })
    }

    /// The paths kept in place as they are, links not followed (a git
    /// directory's placeholders).
    pub fn links(&self) -> impl Iterator<Item = &Path> {
        self.ops.iter().filter_map(|o| match o {
            Op::Link(p) => Some(p.as_path()),
            _ => None,
        })
    }

    /// What a private `/tmp` (or `/var/tmp`, `/dev/shm`) keeps when it lies
    /// there: the roots and the paths kept read-only.
    pub(crate) fn kept(&self) -> Vec<&Path> {
        self.writable
            .iter()
            .map(PathBuf::as_path)
            .chain(self.readonly())
            .collect()
    }

    /// The paths kept read-only.
    pub fn readonly(&self) -> impl Iterator<Item = &Path> {
        self.ops.iter().filter_map(|o| match o {
            Op::ReadOnly(p) => Some(p.as_path()),
            _ => None,
        })
    }
}

/// What a directory of the walk is: `.git/objects` holds thousands of
/// compressed objects whose names no path pattern is written for (and a
/// secret committed once is in the object store, readable through git,
/// which a mask could not change). Its fan-out directories (`ab/`) are
/// listed, but the object files in them (38 hex digits) are not looked at
/// one by one; anything else there (`objects/sub/.env` moved in by a
/// command, under a `.git` of its own making) is walked as anywhere else.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Plain,
    Objects,
    FanOut,
}

impl Place {
    /// Where a directory found in a directory of this kind stands.
    fn of_child(self, path: &Path) -> Place {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        match self {
            Place::Objects if hex(name, 2) => Place::FanOut,
            _ if name == "objects"
                && path
                    .parent()
                    .and_then(Path::file_name)
                    .is_some_and(|n| n == ".git") =>
            {
                Place::Objects
            }
            _ => Place::Plain,
        }
    }
}

/// `name` is `len` lowercase hexadecimal digits.
fn hex(name: &str, len: usize) -> bool {
    name.len() == len && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The rule of a mask over a directory the user cannot list: what lies
/// beneath is not known, and the command could make it listable again
/// (`chmod`), so none of it is reachable inside.
pub const UNLISTABLE: &str = "sandbox:unlistable";

struct Walk<'a> {
    profile: &'a Profile,
    ops: Vec<Op>,
    masked: HashSet<PathBuf>,
    readonly: HashSet<PathBuf>,
    /// Files with more than one link: (device, inode, path).
    linked: Vec<(u64, u64, PathBuf)>,
    /// The git directories laid out by `git::layout`: the built-in
    /// protection of `.git` does not make what lies in them read-only.
    git_dirs: Vec<PathBuf>,
    seen: usize,
    /// Whether some rule denies writes.
    denies_writes: bool,
    /// Whether some rule asks about writes, for a held command.
    asks_writes: bool,
}

/// Whether a rule denies writing `path`, or, for a directory, every name
/// beneath it (probed at two levels, as for Read denies).
fn write_denied(policy: &toolgate_policy::Policy, path: &Path, dir: bool) -> bool {
    matched_beneath(path, dir, |p| policy.write_denied(p).is_some())
}

/// Whether an `ask` rule names writing `path`, or, for a directory, every
/// name beneath it (probed as for denies).
fn write_asked(policy: &toolgate_policy::Policy, path: &Path, dir: bool) -> bool {
    matched_beneath(path, dir, |p| policy.write_asked(p).is_some())
}

/// Whether `matches` takes `path`, or, for a directory, a name beneath it
/// at two levels that no real file is likely to have: then it takes every
/// name there.
fn matched_beneath(path: &Path, dir: bool, matches: impl Fn(&Path) -> bool) -> bool {
    if matches(path) {
        return true;
    }
    let probe = path.join(PROBE);
    dir && matches(&probe) && matches(&probe.join(PROBE))
}

impl Walk<'_> {
    /// For a held command: masks every credential location that exists,
    /// unless it holds a root (the command's own files stay).
    fn credentials(&mut self, policy: &toolgate_policy::Policy) {
        for loc in policy.credential_locations() {
            self.mask_existing(&loc, toolgate_policy::rule_ids::BUILTIN_CREDENTIALS);
        }
    }

    /// Masks the places in the home directory where container engines and
    /// virtual machines keep their sockets ([`HOME_SOCKET_DIRS`]): outside
    /// `/run` and `$XDG_RUNTIME_DIR`, which [`Walk::sockets`] scans, and
    /// out of Landlock's reach below ABI 9.
    fn home_sockets(&mut self, policy: &toolgate_policy::Policy) {
        let Some(home) = policy.home() else {
            return;
        };
        for dir in HOME_SOCKET_DIRS {
            self.mask_existing(&home.join(dir), DAEMON_SOCKET);
        }
    }

    /// Masks `path` if it exists as a file or directory and holds no root.
    fn mask_existing(&mut self, path: &Path, rule: &str) {
        let Ok(real) = std::fs::canonicalize(path) else {
            return;
        };
        if self.profile.roots.iter().any(|r| r.starts_with(&real)) {
            return;
        }
        let dir = real.is_dir();
        if dir || real.is_file() {
            self.mask(real, dir, rule.to_string());
        }
    }

    /// Breadth first, so that a directory's own mount comes before those of
    /// what lies beneath it.
    fn walk(&mut self, start: &Path) -> Result<(), SandboxError> {
        let mut queue = VecDeque::from([(start.to_path_buf(), Place::Plain)]);
        while let Some((dir, place)) = queue.pop_front() {
            let entries = match std::fs::read_dir(&dir) {
                Ok(e) => e,
                // A root the user cannot list: its protections cannot be
                // known, so the command does not run.
                Err(e) if dir == start => {
                    return Err(SandboxError::Io {
                        what: format!(
                            "`{}`: cannot list the directory, so what it holds cannot be protected",
                            dir.display()
                        ),
                        source: e,
                    });
                }
                // The user cannot list it now, but owns it or its parent
                // and could list it again from inside (`chmod 0311 dir` in
                // one command hid what the next one reached): nothing of it
                // is reachable inside.
                Err(_) => {
                    self.mask(dir.clone(), true, UNLISTABLE.to_string());
                    continue;
                }
            };
            for entry in entries {
                let entry = entry.map_err(|e| SandboxError::Io {
                    what: format!("`{}`: cannot list the directory", dir.display()),
                    source: e,
                })?;
                if place == Place::FanOut
                    && entry.file_name().to_str().is_some_and(|n| hex(n, 38))
                    && entry.file_type().is_ok_and(|t| t.is_file())
                {
                    continue;
                }
                self.seen += 1;
                if self.seen > self.profile.walk_limit {
                    return Err(SandboxError::TooManyEntries {
                        limit: self.profile.walk_limit,
                    });
                }
                let path = entry.path();
                let ft = entry.file_type().map_err(|e| SandboxError::Io {
                    what: format!("`{}`: cannot read what kind of file it is", path.display()),
                    source: e,
                })?;
                if !self.visit(&path, &ft)? && ft.is_dir() {
                    let child = place.of_child(&path);
                    queue.push_back((path, child));
                }
            }
        }
        Ok(())
    }

    /// Looks at one entry; true when it was masked (nothing beneath it
    /// needs a look).
    fn visit(&mut self, path: &Path, ft: &std::fs::FileType) -> Result<bool, SandboxError> {
        let Some(policy) = self.profile.policy() else {
            return Ok(false);
        };
        if ft.is_symlink() {
            if !policy.denies_reads() {
                return Ok(true);
            }
            // The link itself or where it leads may be denied; the target is
            // masked, which every name that resolves to it then reaches.
            let Ok(real) = std::fs::canonicalize(path) else {
                return Ok(false);
            };
            let rule = policy
                .read_denied(path)
                .or_else(|| policy.read_denied(&real))
                .map(str::to_string);
            if let Some(rule) = rule {
                let dir = real.is_dir();
                self.mask(real, dir, rule);
            }
            return Ok(true);
        }
        let dir = ft.is_dir();
        let denies = policy.denies_reads();
        let mut rule = if denies {
            policy.read_denied(path).map(str::to_string)
        } else {
            None
        };
        if denies && rule.is_none() && dir {
            let probe = path.join(PROBE);
            if let Some(r) = policy.read_denied(&probe)
                && policy.read_denied(&probe.join(PROBE)).is_some()
            {
                rule = Some(r.to_string());
            }
        }
        if let Some(rule) = rule {
            if dir || ft.is_file() {
                self.mask(path.to_path_buf(), dir, rule);
            }
            return Ok(true);
        }
        // A directory whose every name is protected (`.claude/**`) is bound
        // as a whole, so that it cannot be renamed away and replaced; what
        // lies beneath a read-only bind needs no bind of its own. A path an
        // Edit or Write deny rule matches is kept read-only the same way
        // (`Edit(conf/**)` binds `conf` whole, so nothing can be created
        // there either). In a git directory laid out for git's own writes,
        // the built-in `.git` protection is what the layout made read-only.
        let in_git = crate::git::within(path, &self.git_dirs).is_some();
        let by_pattern = |label: Option<&str>| match label {
            Some(".git/**" | ".git") => !in_git,
            Some(_) => true,
            None => false,
        };
        let write_denied = (self.denies_writes && write_denied(policy, path, dir))
            || (self.asks_writes && write_asked(policy, path, dir));
        // The hooks directory a repository's configuration names
        // (`core.hooksPath = .githooks`) is as protected as `.git/hooks`:
        // git runs what is there on the next commit.
        if dir
            && crate::git::is_git_dir_name(path)
            && let Some(hooks) = path.parent().and_then(|top| policy.git_hooks_dir(top))
            && hooks.is_dir()
            && self.profile.within_roots(&hooks)
            && !hooks.ancestors().any(|a| self.readonly.contains(a))
        {
            self.readonly.insert(hooks.clone());
            self.ops.push(Op::ReadOnly(hooks));
        }
        if dir
            && crate::git::is_git_dir_name(path)
            && !write_denied
            && !in_git
            && self.profile.within_roots(path)
            && !self.profile.roots.iter().any(|r| r == path)
            && !path.ancestors().skip(1).any(|a| self.readonly.contains(a))
        {
            // Unless the layout cannot be made: then `.git` stays
            // read-only as a whole, below.
            if let Ok(ops) = crate::git::layout(path) {
                self.git_dirs.push(path.to_path_buf());
                for op in ops {
                    self.push_git_op(op);
                }
                return Ok(false);
            }
        }
        let protected = by_pattern(policy.protected_path(path))
            || (dir && by_pattern(policy.protected_path(&path.join(PROBE))))
            || write_denied;
        if protected
            && !path.ancestors().skip(1).any(|a| self.readonly.contains(a))
            && self.readonly.insert(path.to_path_buf())
        {
            self.ops.push(Op::ReadOnly(path.to_path_buf()));
        }
        if ft.is_file()
            && let Ok(m) = std::fs::symlink_metadata(path)
            && m.nlink() > 1
        {
            self.linked.push((m.dev(), m.ino(), path.to_path_buf()));
        }
        Ok(false)
    }

    /// Adds one mount of a git directory's layout, unless a read-only bind
    /// already covers the path.
    fn push_git_op(&mut self, op: Op) {
        match op {
            Op::ReadOnly(p) => {
                if !p.ancestors().any(|a| self.readonly.contains(a)) {
                    self.readonly.insert(p.clone());
                    self.ops.push(Op::ReadOnly(p));
                }
            }
            other => self.ops.push(other),
        }
    }

    /// Pins every directory between a root and a path kept read-only
    /// (binds it over itself, still writable): a mount point cannot be
    /// renamed, so `mv conf conf.bak; mkdir -p conf/prod` cannot move an
    /// Edit-denied `conf/prod` away with its bind and make a new one in
    /// its place. Ancestors first, before every other bind; a git
    /// directory's own layout pins what it needs.
    fn pin_ancestors(&mut self) {
        let mut pins: Vec<PathBuf> = Vec::new();
        for op in &self.ops {
            let Op::ReadOnly(path) = op else { continue };
            let Some(root) = self
                .profile
                .roots
                .iter()
                .find(|r| path.starts_with(r) && path != *r)
            else {
                continue;
            };
            for a in path.ancestors().skip(1) {
                if a == root.as_path() {
                    break;
                }
                if crate::git::is_git_dir_name(a)
                    || crate::git::within(a, &self.git_dirs).is_some()
                    || self.readonly.contains(a)
                    || self.masked.contains(a)
                    || pins.iter().any(|p| p == a)
                {
                    continue;
                }
                pins.push(a.to_path_buf());
            }
        }
        pins.sort_by_key(|p| p.components().count());
        let ops = std::mem::take(&mut self.ops);
        self.ops = pins.into_iter().map(Op::Pin).chain(ops).collect();
    }

    fn mask(&mut self, path: PathBuf, dir: bool, rule: String) {
        if self.masked.insert(path.clone()) {
            self.ops.push(Op::Mask { path, dir, rule });
        }
    }

    /// With the network closed on a kernel whose Landlock cannot refuse
    /// connecting to pathname Unix sockets (ABI < 9): masks every socket
    /// outside the roots beneath `/run` (`/var/run`) and
    /// `$XDG_RUNTIME_DIR`, at any depth: `docker.sock`, the session bus,
    /// ssh-agent, a browser's singleton socket, whose servers would act
    /// outside the sandbox (a container engine's socket is root; a session
    /// bus runs commands). `/tmp`, `/var/tmp` and `/dev/shm`, where anyone
    /// may leave a socket, are private to the command instead (`mounts`).
    /// More than [`SOCKET_SCAN_LIMIT`] entries there and the command is
    /// refused: a socket past the bound would stay reachable.
    fn sockets(&mut self) -> Result<(), SandboxError> {
        use std::os::unix::fs::FileTypeExt;
        let mut bases = vec![PathBuf::from("/run")];
        if let Ok(v) = std::fs::canonicalize("/var/run")
            && !v.starts_with("/run")
        {
            bases.push(v);
        }
        if let Some(x) = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from)
            && x.is_absolute()
            && !x.starts_with("/run")
        {
            bases.push(x);
        }
        let mut budget = SOCKET_SCAN_LIMIT;
        for base in bases {
            let mut queue = VecDeque::from([base]);
            while let Some(dir) = queue.pop_front() {
                let Ok(entries) = std::fs::read_dir(&dir) else {
                    continue;
                };
                for entry in entries.flatten() {
                    budget = budget.checked_sub(1).ok_or(SandboxError::Unsupported {
                        part: crate::error::Part::Namespaces,
                        reason: format!(
                            "more than {SOCKET_SCAN_LIMIT} entries beneath /run and $XDG_RUNTIME_DIR, where daemons' sockets are looked for"
                        ),
                    })?;
                    let Ok(ft) = entry.file_type() else { continue };
                    let path = entry.path();
                    if self.profile.within_roots(&path) {
                        continue;
                    }
                    if ft.is_socket() {
                        self.mask(path, false, DAEMON_SOCKET.into());
                    } else if ft.is_dir() {
                        queue.push_back(path);
                    }
                }
            }
        }
        Ok(())
    }

    /// Masks every other name found of a masked file's inode, and binds
    /// read-only every other name of a file kept read-only (the policy
    /// file, a protected file): a hard link shares the file's content, so
    /// writing through it would change the file.
    fn hard_links(&mut self) {
        let mut masked = std::collections::HashMap::new();
        let mut kept = std::collections::HashSet::new();
        for op in &self.ops {
            match op {
                Op::Mask {
                    path,
                    dir: false,
                    rule,
                } => {
                    if let Ok(m) = std::fs::metadata(path) {
                        masked.insert((m.dev(), m.ino()), rule.clone());
                    }
                }
                Op::ReadOnly(path) => {
                    if let Ok(m) = std::fs::metadata(path)
                        && m.is_file()
                    {
                        kept.insert((m.dev(), m.ino()));
                    }
                }
                _ => {}
            }
        }
        if masked.is_empty() && kept.is_empty() && self.readonly.is_empty() {
            return;
        }
        let linked = std::mem::take(&mut self.linked);
        // A name found beneath a read-only directory (`.claude/`) keeps
        // its inode read-only as well.
        for (dev, ino, path) in &linked {
            if path.ancestors().any(|a| self.readonly.contains(a)) {
                kept.insert((*dev, *ino));
            }
        }
        for (dev, ino, path) in linked {
            if let Some(rule) = masked.get(&(dev, ino)) {
                self.mask(path, false, rule.clone());
            } else if kept.contains(&(dev, ino))
                && !path.ancestors().any(|a| self.readonly.contains(a))
                && self.readonly.insert(path.clone())
            {
                self.ops.push(Op::ReadOnly(path));
            }
        }
    }
}

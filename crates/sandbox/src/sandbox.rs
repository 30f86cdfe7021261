//! The sandbox of one command: prepared in the parent (the walk, the
//! staging directory, the Landlock ruleset, the seccomp program, the mount
//! list), entered by the child between `fork` and `exec`.

use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::Arc;

use landlock::{AccessFs, BitFlags};
use rustix::process::Signal;
use seccompiler::BpfProgram;

use crate::error::{Part, SandboxError};
use crate::mounts::{self, Namespaces};
use crate::plan::{Op, Plan};
use crate::profile::Profile;

/// Settings of [`Sandbox::prepare`].
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Landlock rights that must be enforced on top of the standard ones:
    /// tests name one this kernel lacks to see the command refused.
    #[doc(hidden)]
    pub extra_landlock_rights: BitFlags<AccessFs>,
    /// Where the proxy records the connections it refuses (when the
    /// profile has the proxy); without it, refusals are not recorded.
    pub ledger: Option<crate::ProxyLedger>,
}

/// Why a sandboxed command did not start.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// The sandbox could not be entered; the command did not run.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The sandbox was entered but the program could not be executed (not
    /// found, not executable).
    #[error("{0}")]
    Exec(io::Error),
}

/// What the child needs, prepared by the parent.
struct Child_ {
    ns: Namespaces,
    ruleset: OwnedFd,
    bpf: BpfProgram,
    /// Write end of the pipe on which a failing child names its step.
    report: OwnedFd,
    /// The network namespace and the proxy's listener, with the proxy.
    net: Option<crate::netns::NetChild>,
}

/// A prepared sandbox, for one command.
pub struct Sandbox {
    plan: Plan,
    tmp: PathBuf,
    child: Arc<Child_>,
    report: OwnedFd,
    /// The proxy, serving the child's connections until dropped.
    proxy: Option<crate::proxy::ProxyThread>,
    // Dropped last: the staging directory (masks' sources, the temp dir).
    _stage: tempfile::TempDir,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("plan", &self.plan)
            .field("tmp", &self.tmp)
            .finish_non_exhaustive()
    }
}

impl Sandbox {
    /// Walks the roots and prepares everything: fails, naming the part,
    /// when the kernel cannot enforce it (Landlock's ABI, seccomp). A kernel
    /// without user namespaces is found when the child tries to enter them,
    /// and [`Sandbox::spawn`] says so.
    pub fn prepare(profile: &Profile, opts: &Options) -> Result<Sandbox, SandboxError> {
        let plan = Plan::build(profile)?;
        let stage = tempfile::Builder::new()
            .prefix("toolgate-sandbox-")
            .tempdir_in(staging_parent())
            .map_err(|e| SandboxError::Io {
                what: "cannot create the sandbox's staging directory".into(),
                source: e,
            })?;
        let io = |what: &str, p: &Path| {
            let what = format!("`{}`: cannot {what}", p.display());
            move |e: io::Error| SandboxError::Io { what, source: e }
        };
        let tmp = stage.path().join("tmp");
        std::fs::create_dir(&tmp).map_err(io("create the private temp dir", &tmp))?;
        let empty_dir = stage.path().join("empty");
        std::fs::create_dir(&empty_dir).map_err(io("create the empty directory", &empty_dir))?;
        let empty_file = stage.path().join("empty-file");
        std::fs::File::create(&empty_file).map_err(io("create the empty file", &empty_file))?;
        use std::os::unix::fs::PermissionsExt;
        for (p, mode) in [(&empty_dir, 0o555), (&empty_file, 0o444)] {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode))
                .map_err(io("set the mode of", p))?;
        }
        let tmp = std::fs::canonicalize(&tmp).map_err(io("resolve", &tmp))?;

        let mut writable = plan.writable.clone();
        writable.push(tmp.clone());
        let proxy = profile.proxy();
        let ruleset = crate::landlock::ruleset(
            &writable,
            plan.network,
            proxy.then_some(crate::netns::PROXY_PORT),
            opts.extra_landlock_rights,
        )?;
        let bpf = crate::seccomp::program(plan.network, proxy)?;
        let stage_real =
            std::fs::canonicalize(stage.path()).map_err(io("resolve", stage.path()))?;
        let mut keep = plan.kept();
        keep.push(&stage_real);
        let private = mounts::private_dirs(
            &[
                (Path::new("/tmp"), Some(&tmp)),
                (Path::new("/var/tmp"), None),
                (Path::new("/dev/shm"), None),
            ],
            &keep,
            &plan.writable,
        )?;
        let ns = Namespaces::prepare(&plan.ops, &empty_file, &empty_dir, private)?;
        let (report_r, report_w) = rustix::pipe::pipe_with(
            rustix::pipe::PipeFlags::CLOEXEC | rustix::pipe::PipeFlags::NONBLOCK,
        )
        .map_err(|e| SandboxError::Io {
            what: "cannot create a pipe".into(),
            source: e.into(),
        })?;
        let (net, proxy) = if proxy {
            let (inside, outside) = crate::netns::channel()?;
            let gate = crate::proxy::Gate {
                policy: profile.policy.clone(),
                ledger: opts.ledger.clone(),
            };
            (
                Some(crate::netns::NetChild { channel: inside }),
                Some(crate::proxy::ProxyThread::start(outside, gate)?),
            )
        } else {
            (None, None)
        };
        Ok(Sandbox {
            plan,
            tmp,
            proxy,
            child: Arc::new(Child_ {
                ns,
                ruleset,
                bpf,
                report: report_w,
                net,
            }),
            report: report_r,
            _stage: stage,
        })
    }

    /// The plan: what is masked, what is read-only.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The private temp dir (the command's `TMPDIR`), removed with the
    /// sandbox.
    pub fn tmp_dir(&self) -> &Path {
        &self.tmp
    }

    /// Sets `cmd` up to enter the sandbox, after any `pre_exec` step already
    /// registered (so a caller's `setsid` or `fchdir` runs first), and
    /// points `TMPDIR` at the private temp dir (and, with the proxy, the
    /// proxy variables at the proxy).
    pub fn install(&self, cmd: &mut Command) {
        cmd.env("TMPDIR", &self.tmp);
        if self.proxy.is_some() {
            crate::netns::set_env(cmd);
        }
        let child = Arc::clone(&self.child);
        // SAFETY: the closure runs between fork and exec; it only makes raw
        // system calls on memory and descriptors the parent prepared and
        // keeps alive (the `Arc`) until `spawn` returns. It allocates
        // nothing and takes no lock.
        unsafe {
            cmd.pre_exec(move || {
                enter(&child).map_err(|(step, index, e)| {
                    let msg = [step, (index & 0xff) as u8, (index >> 8) as u8];
                    let _ = rustix::io::write(&child.report, &msg);
                    e
                })
            });
        }
    }

    /// Spawns `cmd` (set up with [`Sandbox::install`]) and tells a failure
    /// to enter the sandbox from a failure to execute the program.
    pub fn spawn(&self, cmd: &mut Command) -> Result<Child, SpawnError> {
        cmd.spawn().map_err(|e| self.spawn_error(e))
    }

    /// Classifies an error of spawning a command set up with
    /// [`Sandbox::install`].
    pub fn spawn_error(&self, e: io::Error) -> SpawnError {
        let mut msg = [0u8; 3];
        match rustix::io::read(&self.report, &mut msg) {
            Ok(3) => {
                let step = msg[0];
                let index = usize::from(msg[1]) | usize::from(msg[2]) << 8;
                SpawnError::Sandbox(self.describe_failure(step, index, e))
            }
            _ => SpawnError::Exec(e),
        }
    }

    fn describe_failure(&self, step: u8, index: usize, e: io::Error) -> SandboxError {
        describe_step(&self.plan, step, index, e)
    }
}

/// What failed when the child (or the process itself) entered the
/// sandbox, naming the part and, for a mount, its path.
pub(crate) fn describe_step(plan: &Plan, step: u8, index: usize, e: io::Error) -> SandboxError {
    if let Some(err) = crate::netns::describe(step, &e) {
        return err;
    }
    let name = mounts::STEPS
        .get(usize::from(step))
        .copied()
        .unwrap_or("setup");
    if step <= mounts::STEP_LOCK || step >= mounts::STEP_SHM {
        let target = match plan.ops.get(index) {
            Some(Op::ReadOnly(p) | Op::Pin(p) | Op::Link(p) | Op::Mask { path: p, .. })
                if step == mounts::STEP_BIND || step == mounts::STEP_REMOUNT =>
            {
                format!(" of `{}`", p.display())
            }
            _ => String::new(),
        };
        let hint = if step == mounts::STEP_UNSHARE {
            "; user namespaces may be disabled (see /proc/sys/user/max_user_namespaces and kernel.apparmor_restrict_unprivileged_userns), or the process has several threads"
        } else {
            ""
        };
        return SandboxError::Unsupported {
            part: Part::Namespaces,
            reason: format!("{name}{target} failed: {e}{hint}"),
        };
    }
    let part = match step {
        9 => Part::LandlockFs,
        10 => Part::Seccomp,
        _ => Part::NoNewPrivs,
    };
    SandboxError::Unsupported {
        part,
        reason: format!("{name} failed: {e}"),
    }
}

/// Where the staging directory (the private temp dir and the masks'
/// sources) goes: a memory file system when there is one
/// (`$XDG_RUNTIME_DIR`, else `/dev/shm`), since creating and removing a
/// directory on a busy disk costs milliseconds per command; else the
/// system's temp dir.
fn staging_parent() -> PathBuf {
    let usable = |p: &Path| {
        rustix::fs::access(
            p,
            rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK,
        )
        .is_ok()
            && p.is_dir()
    };
    if let Some(d) = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from)
        && d.is_absolute()
        && usable(&d)
    {
        return d;
    }
    let shm = Path::new("/dev/shm");
    if usable(shm) {
        return shm.to_path_buf();
    }
    std::env::temp_dir()
}

/// Enters the sandbox: the child's side. Every step is a raw system call.
fn enter(c: &Child_) -> Result<(), (u8, u16, io::Error)> {
    rustix::process::set_parent_process_death_signal(Some(Signal::KILL))
        .map_err(|e| (12, 0, e.into()))?;
    c.ns.enter()?;
    if let Some(net) = &c.net {
        net.enter()?;
    }
    crate::pidns::unshare()?;
    restrict(c.ruleset.as_fd(), &c.bpf)?;
    crate::pidns::contain_child()
}

/// The steps after the namespaces, the same for a child and for a process
/// that enters the sandbox itself: no_new_privs, Landlock, seccomp, and
/// every descriptor above stderr closed at exec (Landlock checks accesses
/// when a file is opened, so a writable descriptor inherited from the host
/// would be a way around it).
pub(crate) fn restrict(
    ruleset: std::os::fd::BorrowedFd<'_>,
    bpf: &BpfProgram,
) -> Result<(), (u8, u16, io::Error)> {
    rustix::thread::set_no_new_privs(true).map_err(|e| (8, 0, e.into()))?;
    // SAFETY: the descriptor is a Landlock ruleset kept open by the caller
    // until after exec; the call touches no memory.
    let rc = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) };
    if rc != 0 {
        return Err((9, 0, io::Error::last_os_error()));
    }
    seccompiler::apply_filter(bpf).map_err(|e| {
        let os = match e {
            seccompiler::Error::Seccomp(e) | seccompiler::Error::Prctl(e) => e,
            _ => io::Error::from_raw_os_error(libc::EINVAL),
        };
        (10, 0, os)
    })?;
    // SAFETY: close_range takes two numbers and flags and touches no memory.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if rc != 0 {
        return Err((11, 0, io::Error::last_os_error()));
    }
    Ok(())
}

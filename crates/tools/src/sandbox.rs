//! The Landlock sandbox of `run_shell` (README, "Sandbox": rules are a
//! seatbelt, the OS is the boundary).
//!
//! # What the sandbox allows
//!
//! | access | allowed |
//! | --- | --- |
//! | write, create, remove, rename, truncate | beneath the roots and the run's private temp dir; `/dev/null`, `/dev/zero`, `/dev/full` |
//! | read, list, execute | everywhere except `/dev`, where only `null`, `zero`, `full`, `random` and `urandom` are readable |
//! | create device nodes | nowhere (not even in the roots: a device node is a door to raw disks) |
//! | device ioctls | nowhere (no `TIOCSTI` keystroke injection into a terminal) |
//! | TCP connect and bind | only when `network` is on |
//! | UDP; abstract Unix sockets outside the sandbox; pathname Unix sockets outside the roots | only when `network` is on, where the kernel can tell (ABI 10, 6 and 9) |
//! | signals to processes outside the sandbox | never, where the kernel can tell (ABI 6) |
//! | `ptrace` of processes outside, their `/proc/PID/mem` | never (Landlock's own rule, every ABI) |
//!
//! Reads are not confined to the roots: compilers, interpreters and git read
//! from all over the system and the home directory (git fails outright when
//! its config is unreadable), and the policy's Read rules already judge every
//! file a command names. The exception is `/dev`: terminals there would let a
//! command read the keystrokes meant for toolgate's own approval prompt, and
//! block devices would give raw access to disks. So reads are no boundary:
//! whatever the user can read (`~/.ssh`, `/proc/PID/environ` of their own
//! processes) a command can read too, and with the network off (the
//! default) its only way out is the output the model sees.
//!
//! # Fail closed
//!
//! What principle 8 promises (writes confined, including truncation: ABI 3;
//! TCP off when asked: ABI 4) is requested as a *hard requirement*: on a
//! kernel without Landlock, or with an older ABI, building the ruleset fails
//! and the command is not run, unless the user allowed running unsandboxed.
//! The extras (device ioctls, scopes, Unix sockets) are best effort: newer
//! kernels enforce them, older ones do not, and the promise does not depend on
//! them.
//!
//! # Where the sandbox is entered
//!
//! The ruleset is built completely in the parent (opening paths, allocating,
//! checking the kernel's support, all of which can fail with a proper error).
//! The forked child, between `fork` and `exec`, only issues raw system calls
//! on descriptors prepared beforehand: `prctl(PR_SET_NO_NEW_PRIVS)` and
//! `landlock_restrict_self(fd)`. Those are async-signal-safe: no allocation,
//! no lock, nothing that another thread of the parent could have held at fork
//! time. Re-executing through a helper binary would also be safe, but it
//! needs a second program to be installed and found at run time; a gate that
//! cannot find its helper would have to fail closed anyway.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, PathFd,
    Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetError, Scope, make_bitflags,
};

/// Whether a command ran inside the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxStatus {
    /// Landlock enforced everything the sandbox promises: writes only inside
    /// the roots and the private temp dir, and TCP only when `network` is on.
    Enforced {
        /// Whether TCP was allowed.
        network: bool,
    },
    /// The kernel could not enforce the sandbox and the user allowed running
    /// without it ([`ShellOptions::allow_unsandboxed`](crate::ShellOptions));
    /// whatever part the kernel supports was still applied.
    NotEnforced {
        /// What the kernel could not enforce.
        reason: String,
    },
}

/// What the sandbox is to allow.
pub(crate) struct Spec<'a> {
    /// Directories beneath which writes are allowed, held open.
    pub(crate) writable: Vec<BorrowedFd<'a>>,
    /// Allow TCP connect and bind.
    pub(crate) network: bool,
    /// Access rights that must be enforced besides the standard ones; empty
    /// except in tests that simulate a kernel lacking a right.
    pub(crate) extra_required: BitFlags<AccessFs>,
}

/// A ruleset ready to be entered by a child, and what it amounts to.
#[derive(Debug)]
pub(crate) struct Prepared {
    ruleset: Option<OwnedFd>,
    pub(crate) status: SandboxStatus,
}

impl Prepared {
    /// The descriptor the child passes to `landlock_restrict_self`.
    pub(crate) fn raw_fd(&self) -> Option<RawFd> {
        self.ruleset.as_ref().map(|fd| fd.as_raw_fd())
    }
}

/// Devices that are harmless to read (and, for the first three, to write).
const DEV_READ_WRITE: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];
const DEV_READ: &[&str] = &["/dev/random", "/dev/urandom"];

/// Builds the ruleset for `spec`.
///
/// Fails, naming what is missing, when the kernel cannot enforce the
/// promised sandbox; with `allow_unsandboxed`, builds whatever the kernel
/// supports instead and says so in the status.
pub(crate) fn prepare(spec: &Spec<'_>, allow_unsandboxed: bool) -> Result<Prepared, String> {
    match build(spec, CompatLevel::HardRequirement) {
        Ok(created) => {
            let ruleset: Option<OwnedFd> = created.into();
            match ruleset {
                Some(fd) => Ok(Prepared {
                    ruleset: Some(fd),
                    status: SandboxStatus::Enforced {
                        network: spec.network,
                    },
                }),
                None => unavailable(
                    "the kernel did not create a landlock ruleset".into(),
                    spec,
                    allow_unsandboxed,
                ),
            }
        }
        Err(e) => unavailable(describe(&e, spec), spec, allow_unsandboxed),
    }
}

fn unavailable(
    reason: String,
    spec: &Spec<'_>,
    allow_unsandboxed: bool,
) -> Result<Prepared, String> {
    if !allow_unsandboxed {
        return Err(reason);
    }
    // Best effort: whatever the kernel supports still applies.
    let ruleset = build(spec, CompatLevel::BestEffort)
        .ok()
        .and_then(Option::<OwnedFd>::from);
    Ok(Prepared {
        ruleset,
        status: SandboxStatus::NotEnforced { reason },
    })
}

/// A sentence on why the kernel cannot enforce the sandbox.
fn describe(e: &RulesetError, spec: &Spec<'_>) -> String {
    let (need, what) = if spec.network {
        (3, "to confine writes")
    } else {
        (4, "to confine writes and block network access")
    };
    match kernel_abi() {
        None => "landlock is not available on this kernel (it needs linux 5.13 or later with landlock enabled at boot), so writes outside the workspace cannot be prevented".to_string(),
        Some(v) if v < need => format!(
            "this kernel's landlock (abi {v}) is too old: the sandbox needs abi {need} or later {what}"
        ),
        Some(v) => format!("landlock (abi {v}) could not set up the sandbox: {e}"),
    }
}

/// The kernel's Landlock ABI version, for messages only (decisions are made
/// by the crate's compatibility checks, never by comparing versions).
fn kernel_abi() -> Option<i64> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attribute, a zero size and the VERSION flag, the
    // call only returns a number; it reads and writes no memory.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    (v > 0).then_some(v)
}

fn build(spec: &Spec<'_>, required: CompatLevel) -> Result<RulesetCreated, RulesetError> {
    let read = make_bitflags!(AccessFs::{Execute | ReadFile | ReadDir});
    let file_rights = AccessFs::from_file(ABI::V5) | AccessFs::ReadFile;

    let mut handled = AccessFs::from_all(ABI::V3) | spec.extra_required;
    let mut ruleset = Ruleset::default()
        .set_compatibility(required)
        .handle_access(AccessFs::from_all(ABI::V3) | spec.extra_required)?;
    if !spec.network {
        ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
    }
    ruleset = ruleset
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::IoctlDev)?
        .scope(Scope::Signal)?;
    handled |= AccessFs::IoctlDev;
    if !spec.network {
        ruleset = ruleset
            .handle_access(AccessFs::ResolveUnix)?
            .handle_access(AccessNet::BindUdp | AccessNet::ConnectSendUdp)?
            .scope(Scope::AbstractUnixSocket)?;
        handled |= AccessFs::ResolveUnix;
    }
    let mut created = ruleset.create()?;

    // Everything writable except device creation and device ioctls.
    let write = handled & !(AccessFs::MakeChar | AccessFs::MakeBlock | AccessFs::IoctlDev);
    for dir in &spec.writable {
        created = created.add_rule(PathBeneath::new(*dir, write))?;
    }

    // Reads everywhere but /dev: one rule per top-level entry, skipping
    // symlinks (their targets are covered by their own entries, and a link
    // to /dev must not open it).
    if let Ok(entries) = std::fs::read_dir("/") {
        for entry in entries.flatten() {
            if entry.file_name() == "dev" {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let access = if kind.is_dir() {
                read
            } else if kind.is_file() {
                read & file_rights
            } else {
                continue;
            };
            if let Ok(fd) = PathFd::new(entry.path()) {
                created = created.add_rule(PathBeneath::new(fd, access))?;
            }
        }
    }
    if let Ok(fd) = PathFd::new("/dev") {
        created = created.add_rule(PathBeneath::new(fd, AccessFs::ReadDir))?;
    }
    let device_rules = DEV_READ_WRITE
        .iter()
        .map(|p| {
            (
                p,
                AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate,
            )
        })
        .chain(
            DEV_READ
                .iter()
                .map(|p| (p, BitFlags::from(AccessFs::ReadFile))),
        );
    for (path, access) in device_rules {
        if let Ok(fd) = PathFd::new(Path::new(path)) {
            created = created.add_rule(PathBeneath::new(fd, access))?;
        }
    }
    Ok(created)
}

/// Enters the sandbox. Runs in the forked child before `exec`.
///
/// Only raw system calls on an already-open descriptor: async-signal-safe,
/// as code between `fork` and `exec` of a multithreaded process must be.
///
/// - `PR_SET_NO_NEW_PRIVS`, even without a ruleset, so that nothing the
///   command runs gains privileges through set-id binaries or file
///   capabilities;
/// - `landlock_restrict_self`;
/// - every descriptor above stderr is marked close-on-exec: Landlock checks
///   accesses when a file is opened, so a writable descriptor inherited from
///   the host (a database, a log) would be a way around it.
///
/// With `strict`, a failure of any step fails the spawn; otherwise (running
/// unsandboxed by the user's choice, possibly on an old kernel) only the
/// first two are required.
pub(crate) fn enter(ruleset: Option<RawFd>, strict: bool) -> io::Result<()> {
    rustix::thread::set_no_new_privs(true)?;
    if let Some(fd) = ruleset {
        // SAFETY: `fd` is a Landlock ruleset descriptor owned by the parent's
        // `Prepared`, alive until after the child has exec'd; the call takes
        // an int and flags and touches no memory.
        let rc = unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    // SAFETY: close_range takes two descriptor numbers and flags and touches
    // no memory; with CLOSE_RANGE_CLOEXEC it closes nothing before exec (the
    // standard library's own error pipe keeps working).
    let rc = unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if rc != 0 && strict {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

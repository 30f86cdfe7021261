//! Landlock: writes only beneath the writable directories, reads everywhere
//! but `/dev`, TCP only when the network is open, and (by Landlock's own
//! rule, every ABI) no `ptrace` of processes outside the sandbox, which
//! also closes `/proc/PID/root`, `/proc/PID/mem` and alike of the processes
//! outside.
//!
//! | access | allowed |
//! | --- | --- |
//! | write, create, remove, rename, truncate | beneath the roots and the private temp dir; `/dev/null`, `/dev/zero`, `/dev/full` |
//! | read, list, execute | everywhere except `/dev`, where only `null`, `zero`, `full`, `random` and `urandom` are readable |
//! | create device nodes, device ioctls | nowhere (ABI 5 for ioctls) |
//! | TCP connect and bind | only when the network is open (ABI 4); with the proxy, connect to its port (in the command's own network namespace) |
//! | abstract Unix sockets and signals to processes outside | never, where the kernel can tell (ABI 6) |
//! | pathname Unix sockets outside the roots | only when the network is open, where the kernel can tell (ABI 9) |
//!
//! What the sandbox promises (writes confined, truncation included: ABI 3;
//! TCP off: ABI 4) is a hard requirement: an older kernel refuses. The rest
//! is best effort, and `toolgate sandbox --check` says which applies.

use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, PathBeneath,
    PathFd, Ruleset, RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetError, Scope,
    make_bitflags,
};

use crate::error::{Part, SandboxError};

const DEV_READ_WRITE: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];
const DEV_READ: &[&str] = &["/dev/random", "/dev/urandom"];

/// Builds the ruleset: a descriptor the child passes to
/// `landlock_restrict_self`. `extra` are rights that must be enforced on top
/// of the standard ones (tests use one this kernel lacks).
pub(crate) fn ruleset(
    writable: &[PathBuf],
    network: bool,
    proxy_port: Option<u16>,
    extra: BitFlags<AccessFs>,
) -> Result<OwnedFd, SandboxError> {
    let mut fds = Vec::with_capacity(writable.len());
    for w in writable {
        fds.push(PathFd::new(w).map_err(|e| SandboxError::Io {
            what: format!("`{}`: cannot open the writable directory", w.display()),
            source: std::io::Error::other(e.to_string()),
        })?);
    }
    match build(&fds, network, proxy_port, extra) {
        Ok(created) => Option::<OwnedFd>::from(created).ok_or_else(|| SandboxError::Unsupported {
            part: Part::LandlockFs,
            reason: "the kernel did not create a landlock ruleset".into(),
        }),
        Err(e) => Err(describe(&e, network, extra)),
    }
}

fn describe(e: &RulesetError, network: bool, extra: BitFlags<AccessFs>) -> SandboxError {
    let v = kernel_abi();
    let (part, reason) = match v {
        None => (
            Part::LandlockFs,
            "landlock is not available on this kernel (it needs linux 5.13 or later with landlock enabled at boot), so writes outside the workspace cannot be prevented".to_string(),
        ),
        Some(v) if v < 3 => (
            Part::LandlockFs,
            format!("this kernel's landlock (abi {v}) is too old: confining writes, truncation included, needs abi 3"),
        ),
        Some(v) if v < 4 && !network => (
            Part::LandlockNet,
            format!("this kernel's landlock (abi {v}) is too old: blocking TCP needs abi 4"),
        ),
        Some(v) if !extra.is_empty() => (
            Part::LandlockFs,
            format!("this kernel's landlock (abi {v}) cannot enforce {extra:?}: {e}"),
        ),
        Some(v) => (
            Part::LandlockFs,
            format!("landlock (abi {v}) could not set up the sandbox: {e}"),
        ),
    };
    SandboxError::Unsupported { part, reason }
}

/// The kernel's Landlock ABI version, or `None` without Landlock. For
/// messages and `--check` only: what is enforced is decided by the crate's
/// compatibility checks, never by comparing versions.
pub(crate) fn kernel_abi() -> Option<i64> {
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

fn build(
    writable: &[PathFd],
    network: bool,
    proxy_port: Option<u16>,
    extra: BitFlags<AccessFs>,
) -> Result<RulesetCreated, RulesetError> {
    let read = make_bitflags!(AccessFs::{Execute | ReadFile | ReadDir});
    let file_rights = AccessFs::from_file(ABI::V5) | AccessFs::ReadFile;

    let mut handled = AccessFs::from_all(ABI::V3) | extra;
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(handled)?;
    if !network {
        ruleset = ruleset.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)?;
    }
    ruleset = ruleset
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::IoctlDev)?
        .scope(Scope::Signal)?;
    handled |= AccessFs::IoctlDev;
    if !network {
        ruleset = ruleset
            .handle_access(AccessFs::ResolveUnix)?
            .handle_access(AccessNet::BindUdp | AccessNet::ConnectSendUdp)?
            .scope(Scope::AbstractUnixSocket)?;
        handled |= AccessFs::ResolveUnix;
    }
    let mut created = ruleset.create()?;
    if let (false, Some(port)) = (network, proxy_port) {
        // The proxy's port, on the command's own loopback (`netns`).
        created = created.add_rule(NetPort::new(port, AccessNet::ConnectTcp))?;
    }

    // Everything writable except device creation and device ioctls.
    let write = handled & !(AccessFs::MakeChar | AccessFs::MakeBlock | AccessFs::IoctlDev);
    for fd in writable {
        created = created.add_rule(PathBeneath::new(fd.as_fd(), write))?;
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

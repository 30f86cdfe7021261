//! seccomp, for what Landlock's ABI cannot say (built with `seccompiler`,
//! no hand-written BPF):
//!
//! - with the network closed, `socket` for any family but `AF_UNIX` (and,
//!   with the proxy, `AF_INET` and `AF_INET6`, in the command's own network
//!   namespace) fails
//!   with `EPERM` (UDP, raw, packet, netlink, IPv4 and IPv6 alike; Landlock
//!   handles TCP only, and UDP from ABI 10 on), and so does io_uring, whose
//!   `IORING_OP_SOCKET` would create sockets past the filter;
//! - always, `ioctl(TIOCSTI)` and `ioctl(TIOCLINUX)` fail with `EPERM`: a
//!   terminal inherited from the host (opened before Landlock applied, so
//!   outside its device-ioctl rule) would otherwise let the command type
//!   keystrokes into the shell that started it;
//! - always, the mount family (`mount`, `umount2`, `pivot_root`, the new
//!   mount API, `mount_setattr`) fails with `EPERM`: the masks and
//!   read-only binds are also locked by a second user namespace, and this
//!   is the second lock.
//!
//! Other architectures' system call tables (the 32-bit `int 0x80` entry on
//! x86-64) do not get past: the filter kills a process that uses one.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use crate::error::{Part, SandboxError};

fn unsupported(e: impl std::fmt::Display) -> SandboxError {
    SandboxError::Unsupported {
        part: Part::Seccomp,
        reason: format!("cannot build the seccomp filter: {e}"),
    }
}

/// The filter's program, compiled in the parent; the child only loads it.
pub(crate) fn program(network: bool, inet: bool) -> Result<BpfProgram, SandboxError> {
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(unsupported)?;
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for nr in [
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_move_mount,
        libc::SYS_open_tree,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
    ] {
        rules.insert(nr, Vec::new());
    }
    let ioctl = |request: u64| -> Result<SeccompRule, SandboxError> {
        let c = SeccompCondition::new(1, SeccompCmpArgLen::Dword, SeccompCmpOp::Eq, request)
            .map_err(unsupported)?;
        SeccompRule::new(vec![c]).map_err(unsupported)
    };
    // `libc`'s type for ioctl requests differs between targets.
    #[allow(clippy::unnecessary_cast)]
    rules.insert(
        libc::SYS_ioctl,
        vec![ioctl(libc::TIOCSTI as u64)?, ioctl(libc::TIOCLINUX as u64)?],
    );
    if !network {
        // With the proxy, IPv4 and IPv6 too: the command's own network
        // namespace is then the boundary (`netns`).
        let allowed: &[libc::c_int] = if inet {
            &[libc::AF_UNIX, libc::AF_INET, libc::AF_INET6]
        } else {
            &[libc::AF_UNIX]
        };
        let not_unix = || {
            allowed
                .iter()
                .map(|&f| {
                    SeccompCondition::new(0, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, f as u64)
                })
                .collect::<Result<Vec<_>, _>>()
                .and_then(SeccompRule::new)
                .map_err(unsupported)
        };
        rules.insert(libc::SYS_socket, vec![not_unix()?]);
        rules.insert(libc::SYS_socketpair, vec![not_unix()?]);
        for nr in [
            libc::SYS_io_uring_setup,
            libc::SYS_io_uring_enter,
            libc::SYS_io_uring_register,
        ] {
            rules.insert(nr, Vec::new());
        }
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(unsupported)?;
    filter.try_into().map_err(unsupported)
}

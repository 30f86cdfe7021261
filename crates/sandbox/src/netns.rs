//! The command's own network namespace, when the policy allows fetches:
//! the only way out is toolgate's proxy ([`crate::proxy`]).
//!
//! After the user and mount namespaces, the child (or the process that
//! enters the sandbox itself) unshares a new network namespace, where the
//! only interface is `lo`, brings `lo` up, and opens a TCP listener on
//! `127.0.0.1:`[`PROXY_PORT`]. It hands that listening socket to the proxy,
//! which runs outside the sandbox, over a Unix socket pair made beforehand
//! (`SCM_RIGHTS`), and keeps no copy: the proxy accepts, inside the
//! command's namespace, the connections the command makes to its port, and
//! makes its own connections from the host's namespace. No process inside
//! relays anything, and nothing inside holds a socket of the host's
//! namespace.
//!
//! Why a namespace rather than Landlock alone: Landlock's TCP rules name
//! ports, not addresses, so a rule letting the command reach the proxy's
//! port would let it reach that port on every host; and Landlock (before
//! ABI 10) says nothing of UDP. In a namespace of its own, the command has
//! no route anywhere: whatever socket it makes, and whatever proxy
//! variables it ignores, it reaches only the namespace's loopback, where
//! only the proxy listens.
//!
//! What runs in the child is raw system calls on memory prepared in the
//! parent (no allocation, no lock), as after `fork` in a multithreaded
//! process it must be.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::Command;

use crate::error::{Part, SandboxError};

/// The port the proxy listens on, on `127.0.0.1` of the command's own
/// network namespace (nothing else can listen there: binding is refused
/// inside the sandbox).
pub const PROXY_PORT: u16 = 3128;

/// The proxy's URL, as the command's environment names it.
pub const PROXY_URL: &str = "http://127.0.0.1:3128";

/// The variables that name the proxy, upper and lower case (programs read
/// one or the other).
pub const PROXY_VARIABLES: [&str; 6] = [
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
];

/// The variables that exempt hosts from the proxy: removed, since there is
/// no other way out.
pub const NO_PROXY_VARIABLES: [&str; 2] = ["NO_PROXY", "no_proxy"];

/// Points `cmd` at the proxy.
pub(crate) fn set_env(cmd: &mut Command) {
    for v in PROXY_VARIABLES {
        cmd.env(v, PROXY_URL);
    }
    for v in NO_PROXY_VARIABLES {
        cmd.env_remove(v);
    }
}

/// Steps the child reports, after those of [`crate::mounts::STEPS`].
pub(crate) const STEP_UNSHARE: u8 = 40;
pub(crate) const STEP_LO: u8 = 41;
pub(crate) const STEP_LISTEN: u8 = 42;
pub(crate) const STEP_HAND_OVER: u8 = 43;

/// What failed, for a step of this module.
pub(crate) fn describe(step: u8, e: &io::Error) -> Option<SandboxError> {
    let what = match step {
        STEP_UNSHARE => "creating the network namespace (unshare)",
        STEP_LO => "bringing up the loopback interface of the network namespace",
        STEP_LISTEN => "listening on the proxy's port in the network namespace",
        STEP_HAND_OVER => "handing the proxy's listening socket to the proxy",
        _ => return None,
    };
    Some(SandboxError::Unsupported {
        part: Part::Namespaces,
        reason: format!(
            "{what} failed: {e}; the policy allows fetches of some hosts, which the sandbox grants through its proxy only"
        ),
    })
}

/// The two ends of the channel on which the listener goes to the proxy:
/// `(the sandbox's, the proxy's)`.
pub(crate) fn channel() -> Result<(OwnedFd, OwnedFd), SandboxError> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: the kernel writes two descriptors into the array.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(SandboxError::Io {
            what: "cannot create the proxy's channel".into(),
            source: io::Error::last_os_error(),
        });
    }
    // SAFETY: both descriptors were just created and are owned here.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// The sandbox's side: prepared in the parent, entered in the child.
#[derive(Debug)]
pub(crate) struct NetChild {
    /// The sandbox's end of the channel.
    pub(crate) channel: OwnedFd,
}

impl NetChild {
    /// Unshares the network namespace, brings `lo` up, listens on the
    /// proxy's port and hands the listener over. Runs in the child, after
    /// the user and mount namespaces and before Landlock and seccomp.
    pub(crate) fn enter(&self) -> Result<(), (u8, u16, io::Error)> {
        // SAFETY: unshare takes a flag word and touches no memory.
        if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
            return Err((STEP_UNSHARE, 0, io::Error::last_os_error()));
        }
        loopback_up().map_err(|e| (STEP_LO, 0, e))?;
        let listener = listen().map_err(|e| (STEP_LISTEN, 0, e))?;
        let sent = send_fd(&self.channel, &listener);
        drop(listener);
        sent.map_err(|e| (STEP_HAND_OVER, 0, e))
    }
}

fn socket(domain: libc::c_int, kind: libc::c_int) -> io::Result<OwnedFd> {
    // SAFETY: socket takes three numbers and touches no memory.
    let fd = unsafe { libc::socket(domain, kind | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the descriptor was just created and is owned here.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// `ip link set lo up`, with the old ioctls (no netlink message to build).
fn loopback_up() -> io::Result<()> {
    let s = socket(libc::AF_INET, libc::SOCK_DGRAM)?;
    // SAFETY: an all-zero ifreq is valid (a C struct of integers and
    // arrays).
    let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
    for (dst, src) in ifr.ifr_name.iter_mut().zip(b"lo\0") {
        *dst = *src as libc::c_char;
    }
    // SAFETY: the kernel reads and writes the ifreq on this stack frame.
    if unsafe { libc::ioctl(s.as_raw_fd(), libc::SIOCGIFFLAGS, &mut ifr) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: SIOCGIFFLAGS filled the flags member of the union.
    unsafe {
        ifr.ifr_ifru.ifru_flags |= libc::IFF_UP as libc::c_short;
    }
    // SAFETY: as above.
    if unsafe { libc::ioctl(s.as_raw_fd(), libc::SIOCSIFFLAGS, &ifr) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// A TCP listener on `127.0.0.1:PROXY_PORT`.
fn listen() -> io::Result<OwnedFd> {
    let s = socket(libc::AF_INET, libc::SOCK_STREAM)?;
    let addr = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: PROXY_PORT.to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(std::net::Ipv4Addr::LOCALHOST).to_be(),
        },
        sin_zero: [0; 8],
    };
    // SAFETY: the kernel reads `size_of::<sockaddr_in>()` bytes of `addr`.
    let rc = unsafe {
        libc::bind(
            s.as_raw_fd(),
            (&raw const addr).cast::<libc::sockaddr>(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: listen takes two numbers.
    if unsafe { libc::listen(s.as_raw_fd(), 128) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(s)
}

/// Room for one `SCM_RIGHTS` message of one descriptor, aligned as
/// `cmsghdr` needs.
#[repr(C, align(8))]
struct ControlBuffer([u8; 64]);

/// Sends `fd` over `channel` (one byte of data, the descriptor beside it).
fn send_fd(channel: &OwnedFd, fd: &OwnedFd) -> io::Result<()> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control = ControlBuffer([0; 64]);
    // SAFETY: an all-zero msghdr is valid; the pointers set below point
    // into this stack frame, which outlives the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &raw mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.0.as_mut_ptr().cast();
    // SAFETY: CMSG_SPACE only computes a size.
    msg.msg_controllen =
        unsafe { libc::CMSG_SPACE(std::mem::size_of::<libc::c_int>() as u32) } as _;
    // SAFETY: the control buffer holds CMSG_SPACE(sizeof(int)) bytes
    // (at most 24 on any Linux target), so the first header and its data
    // lie within it.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&raw const msg);
        if cmsg.is_null() {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(std::mem::size_of::<libc::c_int>() as u32) as _;
        let raw = fd.as_raw_fd();
        std::ptr::copy_nonoverlapping(
            (&raw const raw).cast::<u8>(),
            libc::CMSG_DATA(cmsg),
            std::mem::size_of::<libc::c_int>(),
        );
    }
    // SAFETY: `msg` and everything it points to live on this stack frame.
    let n = unsafe { libc::sendmsg(channel.as_raw_fd(), &raw const msg, libc::MSG_NOSIGNAL) };
    if n != 1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Receives the descriptor [`send_fd`] sent; `None` when the other end
/// closed without sending one (the command never got to its namespace).
pub(crate) fn recv_fd(channel: &OwnedFd) -> io::Result<Option<OwnedFd>> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    let mut control = ControlBuffer([0; 64]);
    // SAFETY: as in `send_fd`.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &raw mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.0.as_mut_ptr().cast();
    msg.msg_controllen = control.0.len() as _;
    let n = loop {
        // SAFETY: `msg` and everything it points to live on this stack
        // frame; the kernel writes at most `msg_controllen` control bytes.
        let n = unsafe { libc::recvmsg(channel.as_raw_fd(), &raw mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
            continue;
        }
        break n;
    };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut found = None;
    // SAFETY: the CMSG_* macros walk the control bytes the kernel wrote,
    // within `msg_controllen`; a descriptor it passed is ours to own.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&raw const msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let data = libc::CMSG_DATA(cmsg);
                let len = (*cmsg).cmsg_len as usize - (data as usize - cmsg as usize);
                let count = len / std::mem::size_of::<libc::c_int>();
                for i in 0..count {
                    let mut raw: libc::c_int = -1;
                    std::ptr::copy_nonoverlapping(
                        data.add(i * std::mem::size_of::<libc::c_int>()),
                        (&raw mut raw).cast::<u8>(),
                        std::mem::size_of::<libc::c_int>(),
                    );
                    if raw >= 0 {
                        let owned = OwnedFd::from_raw_fd(raw);
                        // Only the first is the listener; others close.
                        if found.is_none() {
                            found = Some(owned);
                        }
                    }
                }
            }
            cmsg = libc::CMSG_NXTHDR(&raw const msg, cmsg);
        }
    }
    Ok(found)
}

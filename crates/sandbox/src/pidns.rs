//! The PID namespace of a sandboxed command, started with
//! [`Sandbox::spawn`](crate::Sandbox::spawn) or executed in the process's
//! place ([`exec`](crate::exec)):
//! the command runs beneath an init of its own, so that when it ends,
//! every process it left behind (`setsid cmd &`, a daemon that double
//! forks) is killed by the kernel with the namespace, instead of living on
//! inside the sandbox to write the roots later or to wait for a protected
//! file to be replaced from outside.
//!
//! For `Sandbox::spawn` this runs in the child of a process that may have
//! many threads, between `fork` and `exec`: every step is a raw system
//! call on memory prepared before, with no allocation and no lock. Three
//! processes come of it:
//!
//! - the spawned process (the one `Child` holds, or for `exec` the process
//!   itself) waits for the init and ends as the command ended (its exit
//!   code, or its signal);
//! - the init, the namespace's first process, reaps everything in it until
//!   the command ends, passes the command's raw status up through a pipe,
//!   and exits, and the kernel kills the rest of the namespace;
//! - the command, which goes on to `exec`.
//!
//! The spawned process and the init close every descriptor they do not
//! need once they have forked, so that the command is the only holder of
//! the pipe through which the standard library learns that `exec` failed
//! (and `spawn` returns as soon as the command has executed), and of the
//! command's output pipes but for the two waiting processes' standard
//! output and error.

use std::io;

/// Steps reported when one fails (indices into `mounts::STEPS`).
pub(crate) const STEP_PIDNS: u8 = 18;
pub(crate) const STEP_FORK: u8 = 19;

/// Makes the PID namespace this process's next child will be the first
/// of; done while unsharing is still allowed (before the seccomp filter).
pub(crate) fn unshare() -> Result<(), (u8, u16, io::Error)> {
    // SAFETY: unshare with a constant flag.
    if unsafe { libc::unshare(libc::CLONE_NEWPID) } != 0 {
        return Err((STEP_PIDNS, 0, io::Error::last_os_error()));
    }
    Ok(())
}

/// Starts the two processes above, after [`unshare`]; returns in the
/// command's process only. Errors before the first fork are the caller's
/// to report; after it, a process that fails exits instead (code 126, as
/// a shell reports a command it could not run).
pub(crate) fn contain_child() -> Result<(), (u8, u16, io::Error)> {
    let status = pipe()?;
    // The spawned process holds `alive`'s write end for as long as it
    // lives: the init tells from it whether its parent died before the
    // parent-death signal was armed.
    let alive = pipe()?;
    match fork() {
        -1 => return Err((STEP_FORK, 0, io::Error::last_os_error())),
        0 => {}
        init => spawned(init, status, alive),
    }
    // The init.
    close(status.0);
    close(alive.1);
    // SAFETY: prctl with an integer signal number.
    unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) };
    if parent_gone(alive.0) {
        exit(1);
    }
    close(alive.0);
    let command = fork();
    match command {
        -1 => exit(126),
        0 => {
            close(status.1);
            Ok(())
        }
        _ => init(command, status.1),
    }
}

/// The spawned process: waits for the init, then ends as the command did.
fn spawned(init: libc::pid_t, status: (i32, i32), alive: (i32, i32)) -> ! {
    close(status.1);
    close(alive.0);
    close_all_but(&[status.0, alive.1]);
    let init_code = wait_for(init);
    let mut raw = [0u8; 4];
    // SAFETY: reading into a local buffer of the length given.
    let got = unsafe { libc::read(status.0, raw.as_mut_ptr().cast(), raw.len()) };
    if got == 4 {
        end_as(i32::from_ne_bytes(raw));
    }
    exit(init_code)
}

/// The init: reaps every process of the namespace until the command ends,
/// then writes its status to `status_out` and exits (the kernel then kills
/// what is left).
fn init(command: libc::pid_t, status_out: i32) -> ! {
    close_all_but(&[status_out]);
    let status = loop {
        let mut status = 0;
        // SAFETY: a valid pointer to a local.
        let pid = unsafe { libc::waitpid(-1, &raw mut status, 0) };
        if pid == command {
            break Some(status);
        }
        if pid == -1 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            break None;
        }
    };
    match status {
        Some(status) => {
            let raw = status.to_ne_bytes();
            // SAFETY: writing a local buffer of the length given.
            unsafe { libc::write(status_out, raw.as_ptr().cast(), raw.len()) };
            exit(exit_code(status))
        }
        None => exit(1),
    }
}

fn pipe() -> Result<(i32, i32), (u8, u16, io::Error)> {
    let mut fds = [0; 2];
    // SAFETY: a valid pointer to two ints.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err((STEP_FORK, 0, io::Error::last_os_error()));
    }
    Ok((fds[0], fds[1]))
}

/// `fork` as a raw `clone`: the C library's `fork` runs `atfork` handlers,
/// which may take locks another thread of the parent held.
fn fork() -> libc::pid_t {
    // SAFETY: clone with SIGCHLD and no other flag is fork without the C
    // library's handlers; the child runs only raw system calls.
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone,
            libc::c_long::from(libc::SIGCHLD),
            0usize,
            0usize,
            0usize,
            0usize,
        )
    };
    libc::pid_t::try_from(pid).unwrap_or(-1)
}

/// Whether the write end of `alive` has been closed by everyone (the
/// process that held it is gone).
fn parent_gone(alive_r: i32) -> bool {
    let mut pfd = libc::pollfd {
        fd: alive_r,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, no waiting.
    let n = unsafe { libc::poll(&raw mut pfd, 1, 0) };
    n > 0 && pfd.revents & libc::POLLHUP != 0
}

fn close(fd: i32) {
    // SAFETY: closing a descriptor this process owns.
    unsafe { libc::close(fd) };
}

/// Closes every descriptor above standard error but those in `keep`.
fn close_all_but(keep: &[i32]) {
    let mut sorted = [0i32; 4];
    let n = keep.len().min(sorted.len());
    sorted[..n].copy_from_slice(&keep[..n]);
    let sorted = &mut sorted[..n];
    sorted.sort_unstable();
    let mut from: u32 = 3;
    for &fd in sorted.iter() {
        let Ok(fd) = u32::try_from(fd) else { continue };
        if fd > from {
            close_range(from, fd - 1);
        }
        from = from.max(fd.saturating_add(1));
    }
    close_range(from, u32::MAX);
}

fn close_range(first: u32, last: u32) {
    // SAFETY: close_range takes two numbers and flags and touches no memory.
    unsafe { libc::syscall(libc::SYS_close_range, first, last, 0u32) };
}

/// Ends this process as the command ended (`status`, as `waitpid` gives
/// it): by the same signal, or with the same exit code.
fn end_as(status: i32) -> ! {
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        // SAFETY: restoring the default action of a signal, unblocking it
        // and sending it to this process: raw calls on local memory.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(sig, &raw const act, std::ptr::null_mut());
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&raw mut set);
            libc::sigaddset(&raw mut set, sig);
            libc::sigprocmask(libc::SIG_UNBLOCK, &raw const set, std::ptr::null_mut());
            libc::kill(libc::getpid(), sig);
        }
    }
    exit(exit_code(status))
}

/// Waits for `pid` and gives the status it ended with as an exit code.
fn wait_for(pid: libc::pid_t) -> i32 {
    loop {
        let mut status = 0;
        // SAFETY: a valid pointer to a local.
        let got = unsafe { libc::waitpid(pid, &raw mut status, 0) };
        if got == pid {
            return exit_code(status);
        }
        if got == -1 && io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return 1;
        }
    }
}

/// The exit code a shell gives a process that ended with `status`.
fn exit_code(status: i32) -> i32 {
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        1
    }
}

fn exit(code: i32) -> ! {
    // SAFETY: ends this process without running anything of the parent's.
    unsafe { libc::_exit(code) }
}

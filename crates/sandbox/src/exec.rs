//! Entering the sandbox in the process itself, then executing the command
//! in a PID namespace of its own: what `toolgate sandbox` does. The
//! process waits for the command and exits with its status, and when the
//! command ends every process it left behind is killed (`contain`);
//! there is nothing else to clean up: the private temp dir and the masks' sources live on a memory
//! file system mounted over `/dev/shm` in the sandbox's own mount
//! namespace, which goes away with the last process inside.
//!
//! The same plan, mounts, Landlock rules and seccomp filter as
//! [`Sandbox`](crate::Sandbox), which a multithreaded host (the agent loop's
//! `run_shell`) uses instead: `unshare(CLONE_NEWUSER)` needs a
//! single-threaded caller, which `toolgate sandbox` is.

use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::SandboxError;
use crate::mounts::{self, Namespaces};
use crate::plan::Plan;
use crate::profile::Profile;
use crate::sandbox::{Options, SpawnError, describe_step, restrict};

/// Whether [`exec`] can run `profile`: it mounts over `/dev/shm`, which
/// must exist and hold none of the roots, read-only paths or the working
/// directory (they would be hidden). Otherwise, use
/// [`Sandbox`](crate::Sandbox) and wait for the child.
pub fn can_exec(profile: &Profile) -> bool {
    let shm = Path::new("/dev/shm");
    let cwd = std::env::current_dir().unwrap_or_default();
    shm.is_dir()
        && !profile
            .roots
            .iter()
            .chain(&profile.readonly)
            .chain(std::iter::once(&cwd))
            .any(|p| p.starts_with(shm))
}

/// Enters the sandbox of `profile` and executes `cmd` in this process's
/// place. Returns only on failure: [`SpawnError::Sandbox`] when the sandbox
/// could not be entered (nothing ran), [`SpawnError::Exec`] when the
/// program could not be executed.
///
/// The process must be single-threaded.
pub fn exec(profile: &Profile, opts: &Options, cmd: &mut Command) -> SpawnError {
    match enter(profile, opts) {
        Ok(()) => {}
        Err(e) => return SpawnError::Sandbox(e),
    }
    cmd.env("TMPDIR", mounts::PRIVATE_TMP);
    if profile.proxy() {
        crate::netns::set_env(cmd);
    }
    contain();
    SpawnError::Exec(cmd.exec())
}

/// Makes the command the only process that may outlive nothing: the
/// command runs as the child of a process that is the first of the PID
/// namespace [`enter`] made (its "init"), and this process waits for that
/// one and ends as the command did (its exit code, or its signal). When
/// the command ends, the init ends with it, and the kernel kills every
/// other process of the namespace: a process the command left behind (`setsid cmd &`) cannot
/// wait for a protected file to be replaced from outside (a rename drops
/// the read-only bind over it) and write or read it then. When this
/// process dies first, the init is killed (`PR_SET_PDEATHSIG`), and the
/// namespace with it. Returns in the command's process only.
fn contain() {
    // The command's own status goes back to this process through a pipe
    // (closed on exec): the namespace's init cannot die of the command's
    // signal, and an exit code cannot tell `exit 137` from `kill -9`.
    let mut fds = [0; 2];
    // SAFETY: a valid pointer to two ints.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        eprintln!(
            "toolgate sandbox: cannot start the command's process: {}",
            std::io::Error::last_os_error()
        );
        std::process::exit(126);
    }
    let [status_in, status_out] = fds;
    // SAFETY: the process is single-threaded (the caller's contract), so
    // the child may go on running Rust after `fork`.
    match unsafe { libc::fork() } {
        -1 => {
            eprintln!(
                "toolgate sandbox: cannot start the command's process: {}",
                std::io::Error::last_os_error()
            );
            std::process::exit(126);
        }
        0 => {}
        init => {
            // SAFETY: closing a descriptor this process owns.
            unsafe { libc::close(status_out) };
            let init_code = wait_for(init);
            let mut raw = [0u8; 4];
            // SAFETY: reading into a local buffer of the length given.
            let got = unsafe { libc::read(status_in, raw.as_mut_ptr().cast(), raw.len()) };
            if got == 4 {
                end_as(i32::from_ne_bytes(raw));
            }
            std::process::exit(init_code);
        }
    }
    // The namespace's init.
    // SAFETY: closing a descriptor this process owns; prctl with an
    // integer signal number; getppid has no effect.
    unsafe {
        libc::close(status_in);
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() == 1 {
            // The waiting parent is already gone.
            libc::_exit(1);
        }
    }
    // SAFETY: as above; this process is single-threaded.
    match unsafe { libc::fork() } {
        // SAFETY: ends this process.
        -1 => unsafe { libc::_exit(126) },
        0 => {}
        command => {
            // Reaps every process of the namespace until the command ends.
            let status = loop {
                let mut status = 0;
                // SAFETY: a valid pointer to a local.
                let pid = unsafe { libc::waitpid(-1, &raw mut status, 0) };
                if pid == command {
                    break Some(status);
                }
                if pid == -1 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR)
                {
                    break None;
                }
            };
            let code = status.map_or(1, exit_code);
            if let Some(status) = status {
                let raw = status.to_ne_bytes();
                // SAFETY: writing a local buffer of the length given.
                unsafe { libc::write(status_out, raw.as_ptr().cast(), raw.len()) };
            }
            // SAFETY: ends this process; the kernel kills the rest.
            unsafe { libc::_exit(code) };
        }
    }
}

/// Ends this process as the command ended (`status`, as `waitpid` gives
/// it): by the same signal, or with the same exit code.
fn end_as(status: i32) -> ! {
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        // SAFETY: restoring the default action of a signal and raising it
        // in this process.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&raw mut set);
            libc::sigaddset(&raw mut set, sig);
            libc::sigprocmask(libc::SIG_UNBLOCK, &raw const set, std::ptr::null_mut());
            libc::raise(sig);
        }
    }
    std::process::exit(exit_code(status))
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
        if got == -1 && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
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

fn enter(profile: &Profile, opts: &Options) -> Result<(), SandboxError> {
    let plan = Plan::build(profile)?;
    let proxy = profile.proxy();
    let bpf = crate::seccomp::program(plan.network, proxy)?;
    let private = mounts::private_dirs(
        &[
            (Path::new("/tmp"), Some(Path::new(mounts::PRIVATE_TMP))),
            (Path::new("/var/tmp"), None),
        ],
        &plan.kept(),
        &plan.writable,
    )?;
    let ns = Namespaces::prepare_private_shm(&plan.ops, private)?;
    // The proxy starts outside, before this process enters anything.
    let net = if proxy {
        let (inside, outside) = crate::netns::channel()?;
        let gate = crate::proxy::Gate {
            policy: profile.policy.clone(),
            ledger: opts.ledger.clone(),
        };
        crate::proxy::spawn_process(outside, gate)?;
        Some(crate::netns::NetChild { channel: inside })
    } else {
        None
    };
    ns.enter()
        .map_err(|(step, i, e)| describe_step(&plan, step, usize::from(i), e))?;
    if let Some(net) = &net {
        net.enter()
            .map_err(|(step, i, e)| describe_step(&plan, step, usize::from(i), e))?;
    }
    // A PID namespace for the command's processes (see `contain`), made
    // while unsharing is still allowed.
    // SAFETY: unshare with a constant flag; the process is single-threaded.
    if unsafe { libc::unshare(libc::CLONE_NEWPID) } != 0 {
        return Err(SandboxError::Io {
            what: "creating the PID namespace (unshare)".into(),
            source: std::io::Error::last_os_error(),
        });
    }
    let mut writable = plan.writable.clone();
    writable.push(PathBuf::from(mounts::PRIVATE_TMP));
    let ruleset = crate::landlock::ruleset(
        &writable,
        plan.network,
        proxy.then_some(crate::netns::PROXY_PORT),
        opts.extra_landlock_rights,
    )?;
    restrict(ruleset.as_fd(), &bpf)
        .map_err(|(step, i, e)| describe_step(&plan, step, usize::from(i), e))?;
    Ok(())
}

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
    // The command runs beneath an init of the PID namespace `enter` made,
    // and this process ends as it did (its exit code, or its signal); what
    // it leaves running is killed with the namespace (see `pidns`).
    if let Err((_, _, e)) = crate::pidns::contain_child() {
        eprintln!("toolgate sandbox: cannot start the command's process: {e}");
        std::process::exit(126);
    }
    SpawnError::Exec(cmd.exec())
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
    // A PID namespace for the command's processes, made while unsharing
    // is still allowed.
    crate::pidns::unshare().map_err(|(_, _, e)| SandboxError::Io {
        what: "creating the PID namespace (unshare)".into(),
        source: e,
    })?;
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

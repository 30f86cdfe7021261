//! `run_shell`: `bash -c COMMAND` in the sandbox, bounded in time and output.
//!
//! # Process handling
//!
//! The shell is started in a session of its own (`setsid`), so it and
//! everything it starts share one process group that can be killed at once,
//! and none of it has a controlling terminal (it cannot read the terminal
//! where toolgate asks its approvals). Its stdin is `/dev/null`; stdout and
//! stderr share one pipe, read as it fills so that a flooding command never
//! blocks on a full pipe, with only a bounded head and tail kept.
//!
//! When the timeout passes, the whole process group gets `SIGKILL`. When the
//! shell exits by itself, whatever it left running in its group is killed
//! too: a call runs a command to completion, it does not start services that
//! outlive it (see [`supervise`](crate::supervise)). Inside the sandbox, the
//! shell also runs in a PID namespace of its own (`Sandbox::spawn`), so a
//! process that leaves the group on purpose (`setsid`, `setpgid`) is killed
//! with the namespace when the shell ends. Without the sandbox (the user's
//! opt-out), such a process escapes both kills: closing that gap there
//! takes a PID namespace or a cgroup, and both need privileges or set-up
//! that a gate cannot assume.
//!
//! The shell also gets `PR_SET_PDEATHSIG(SIGKILL)`: if the thread that ran it
//! dies, the shell dies with it instead of running on without a timeout.

use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use landlock::{AccessFs, BitFlags};
use rustix::fs::OFlags;
use rustix::process::Signal;
use toolgate_sandbox::{Profile, Sandbox, SpawnError};

use crate::confine::{Access, Workspace};
use crate::error::{ToolError, reason};
use crate::supervise::Running;

/// Whether a command ran inside the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SandboxStatus {
    /// Everything the sandbox promises was enforced (see
    /// `toolgate-sandbox`): writes only inside the roots and the private
    /// temp dir, denied paths masked, protected paths read-only, and the
    /// network only when allowed.
    Enforced {
        /// Whether the network was open.
        network: bool,
    },
    /// The kernel could not enforce the sandbox and the user allowed running
    /// without it ([`ShellOptions::allow_unsandboxed`]).
    NotEnforced {
        /// What the kernel could not enforce.
        reason: String,
    },
}

/// How to run a command.
#[derive(Debug, Clone)]
pub struct ShellOptions {
    /// Working directory; must lie under the roots or read roots. Default:
    /// the first root. Relative paths are taken from the first root.
    pub cwd: Option<PathBuf>,
    /// Wall-clock limit (default 30 s), after which the command and every
    /// process it started in its group are killed.
    pub timeout: Duration,
    /// Output kept, stdout and stderr together (default 30,000 bytes): the
    /// first half and the last half; the middle is cut and counted.
    pub max_output_bytes: usize,
    /// Open the network (default off), whatever the profile says.
    pub network: bool,
    /// The OS boundary from the policy (`toolgate_sandbox::Profile`): its
    /// Read denies masked, its protected paths, policy file and state
    /// directory read-only. `None`: the workspace's roots, nothing masked.
    pub sandbox: Option<Arc<Profile>>,
    /// Run even where the kernel cannot enforce the sandbox (default off).
    /// This is the user's explicit opt-out; the result then says the command
    /// ran unsandboxed.
    pub allow_unsandboxed: bool,
    /// Pass environment variables whose names look like secrets (a word
    /// `KEY`, `TOKEN`, `SECRET`, `PASSWORD`, `CREDENTIALS`, ...) to the
    /// command (default off): the model reads whatever the command prints,
    /// and an API key in the agent's environment is not the model's to read.
    /// This keeps keys out of `env` dumps and error messages; it is no
    /// boundary, since reads are not confined (a command can still read
    /// `/proc/PID/environ` of the user's own processes).
    pub pass_secret_env: bool,
    /// Where the sandbox's proxy records the connections it refuses
    /// (default none: not recorded).
    pub proxy_ledger: Option<toolgate_sandbox::ProxyLedger>,
}

impl Default for ShellOptions {
    fn default() -> Self {
        ShellOptions {
            cwd: None,
            timeout: Duration::from_secs(30),
            max_output_bytes: 30_000,
            network: false,
            sandbox: None,
            allow_unsandboxed: false,
            pass_secret_env: false,
            proxy_ledger: None,
        }
    }
}

/// How the command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It exited with this code.
    Code(i32),
    /// It was killed by this signal (`SIGKILL`, 9, after a timeout).
    Signal(i32),
}

/// What `run_shell` returns: the command ran (whatever its exit code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellOutput {
    /// stdout and stderr, interleaved as written, invalid UTF-8 replaced;
    /// when cut, a line in the middle says how many bytes were left out.
    pub output: String,
    /// Bytes the command wrote in all.
    pub total_bytes: u64,
    /// Bytes left out of `output`.
    pub cut_bytes: u64,
    /// How the shell ended.
    pub exit: Exit,
    /// The timeout passed and the process group was killed.
    pub timed_out: bool,
    /// The timeout that was in force.
    pub timeout: Duration,
    /// Whether the sandbox was enforced.
    pub sandbox: SandboxStatus,
    /// How long it ran.
    pub elapsed: Duration,
}

impl ShellOutput {
    /// Exit code 0 and no timeout.
    pub fn success(&self) -> bool {
        self.exit == Exit::Code(0) && !self.timed_out
    }
}

impl fmt::Display for ShellOutput {
    /// The result as the model reads it: the output, then a bracketed line
    /// for how it ended and anything unusual.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.output)?;
        if !self.output.is_empty() && !self.output.ends_with('\n') {
            f.write_str("\n")?;
        }
        if self.timed_out {
            writeln!(
                f,
                "[timed out: the command was still running after {} s and was killed, with every process it started; run something shorter, or split the work]",
                self.timeout.as_secs_f64()
            )?;
        } else {
            match self.exit {
                Exit::Code(c) => writeln!(f, "[exit code {c}]")?,
                Exit::Signal(s) => writeln!(f, "[killed by signal {s}]")?,
            }
        }
        if let SandboxStatus::NotEnforced { reason } = &self.sandbox {
            writeln!(f, "[ran without the full sandbox: {reason}]")?;
        }
        Ok(())
    }
}

/// Runs `bash -c command` in the sandbox, in the first root or `opts.cwd`.
///
/// Returns an error, without running anything, when the sandbox cannot be
/// enforced (unless `opts.allow_unsandboxed`), the working directory is
/// outside the roots, or the shell cannot be started. A command that fails,
/// times out or is killed is not an error: it ran, and [`ShellOutput`] says
/// how it ended.
pub fn run_shell(
    ws: &Workspace,
    command: &str,
    opts: &ShellOptions,
) -> Result<ShellOutput, ToolError> {
    run(ws, command, opts, BitFlags::EMPTY)
}

/// [`run_shell`], with rights the sandbox must enforce on top of the standard
/// ones (tests use a right this kernel lacks to see the command refused).
pub(crate) fn run(
    ws: &Workspace,
    command: &str,
    opts: &ShellOptions,
    extra_required: BitFlags<AccessFs>,
) -> Result<ShellOutput, ToolError> {
    let spawn_error = |reason: String| ToolError::Spawn {
        command: command.to_string(),
        reason,
    };
    if command.contains('\0') {
        return Err(spawn_error("the command contains a NUL byte".into()));
    }

    // The working directory, opened beneath its root: the child changes into
    // this descriptor, not into a path that could be swapped meanwhile.
    let (cwd_fd, cwd_path) = match &opts.cwd {
        None => {
            let root = ws.first();
            let fd = crate::confine::open_beneath(
                root.fd.as_fd(),
                Path::new(""),
                OFlags::PATH | OFlags::DIRECTORY,
                rustix::fs::Mode::empty(),
            )
            .map_err(|e| spawn_error(reason(&e)))?;
            (fd, root.path.clone())
        }
        Some(dir) => {
            let written = dir.to_string_lossy();
            let target = ws.locate(&written, None, Access::Read)?;
            let fd = crate::confine::open_beneath(
                target.root.fd.as_fd(),
                &target.rel,
                OFlags::PATH | OFlags::DIRECTORY,
                rustix::fs::Mode::empty(),
            )
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ENOTDIR) => ToolError::WrongType {
                    path: written.to_string(),
                    found: "not a directory",
                    expected: "a working directory",
                },
                _ => target.error("change into", e),
            })?;
            (fd, target.display())
        }
    };

    let profile = match &opts.sandbox {
        Some(p) => {
            let network = p.network() || opts.network;
            (**p).clone().with_network(network)
        }
        None => Profile::for_roots(ws.roots.iter().map(|r| r.path.clone()).collect())
            .with_network(opts.network),
    };
    let sb_opts = toolgate_sandbox::Options {
        extra_landlock_rights: extra_required,
        ledger: opts.proxy_ledger.clone(),
    };
    let (sandbox, mut status) = match Sandbox::prepare(&profile, &sb_opts) {
        Ok(s) => (
            Some(s),
            SandboxStatus::Enforced {
                network: profile.network(),
            },
        ),
        Err(e) if opts.allow_unsandboxed => (
            None,
            SandboxStatus::NotEnforced {
                reason: e.to_string(),
            },
        ),
        Err(e) => {
            return Err(ToolError::SandboxUnavailable {
                command: command.to_string(),
                reason: e.to_string(),
            });
        }
    };

    let (reader, writer) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
        .map_err(|e| spawn_error(reason(&e.into())))?;
    rustix::io::ioctl_fionbio(&reader, true).map_err(|e| spawn_error(reason(&e.into())))?;

    let parent = rustix::process::getpid();
    let cwd_raw = cwd_fd.as_raw_fd();
    // `bash -c command`, writing into the pipe, with the shell's own setup.
    let make = || -> Result<Command, ToolError> {
        let out = writer.try_clone().map_err(|e| spawn_error(reason(&e)))?;
        let err = writer.try_clone().map_err(|e| spawn_error(reason(&e)))?;
        let mut cmd = Command::new("bash");
        cmd.arg("-c")
            .arg(command)
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err))
            .env("PWD", &cwd_path);
        if !opts.pass_secret_env {
            for (name, _) in std::env::vars_os() {
                if toolgate_sandbox::secret_env_name(&name) {
                    cmd.env_remove(&name);
                }
            }
        }
        // SAFETY: the closure runs between fork and exec. It only makes raw
        // system calls (setsid, prctl, getppid, fchdir) on a descriptor that
        // the parent keeps open until `spawn` returns; it allocates nothing
        // and takes no lock.
        unsafe {
            cmd.pre_exec(move || {
                rustix::process::setsid()?;
                rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
                if rustix::process::getppid() != Some(parent) {
                    // The parent died before the death signal was armed.
                    return Err(io::Error::from_raw_os_error(libc::ESRCH));
                }
                let cwd = std::os::fd::BorrowedFd::borrow_raw(cwd_raw);
                rustix::process::fchdir(cwd)?;
                Ok(())
            });
        }
        Ok(cmd)
    };
    let not_found = |e: io::Error| match e.raw_os_error() {
        Some(libc::ENOENT) => spawn_error("bash was not found on the PATH".into()),
        _ => spawn_error(reason(&e)),
    };
    // Without the sandbox (the user's opt-out): no_new_privs still, and a
    // private temp dir of its own.
    let mut own_tmp = None;
    let unsandboxed = |own_tmp: &mut Option<tempfile::TempDir>| -> Result<_, ToolError> {
        let tmp = tempfile::Builder::new()
            .prefix("toolgate-run-")
            .tempdir()
            .map_err(|e| spawn_error(format!("could not create its temp dir: {}", reason(&e))))?;
        let mut cmd = make()?;
        cmd.env("TMPDIR", tmp.path());
        *own_tmp = Some(tmp);
        // SAFETY: two raw system calls that touch no memory.
        unsafe {
            cmd.pre_exec(|| {
                rustix::thread::set_no_new_privs(true)?;
                libc::syscall(
                    libc::SYS_close_range,
                    3u32,
                    u32::MAX,
                    libc::CLOSE_RANGE_CLOEXEC,
                );
                Ok(())
            });
        }
        cmd.spawn().map_err(not_found)
    };
    let started = Instant::now();
    let child = match &sandbox {
        Some(sb) => {
            let mut cmd = make()?;
            // After the shell's closure: the sandbox is entered last.
            sb.install(&mut cmd);
            match sb.spawn(&mut cmd) {
                Ok(c) => c,
                // A part the kernel refused when the child tried it (user
                // namespaces, typically): the command did not run.
                Err(SpawnError::Sandbox(e)) if opts.allow_unsandboxed => {
                    status = SandboxStatus::NotEnforced {
                        reason: e.to_string(),
                    };
                    unsandboxed(&mut own_tmp)?
                }
                Err(SpawnError::Sandbox(e)) => {
                    return Err(ToolError::SandboxUnavailable {
                        command: command.to_string(),
                        reason: e.to_string(),
                    });
                }
                Err(SpawnError::Exec(e)) => return Err(not_found(e)),
            }
        }
        None => unsandboxed(&mut own_tmp)?,
    };
    // `spawn` returns once the child has exec'd, so the descriptors the
    // child used are no longer needed. Dropping every write end held here
    // (the commands' copies went with them) leaves the child's group as the
    // only writers, so the pipe reports end-of-file once they are gone.
    drop(writer);
    drop(cwd_fd);

    let mut running = Running::new(child);
    let outcome = running.supervise(&reader, started, opts.timeout, opts.max_output_bytes);
    drop(running);
    drop(sandbox);
    drop(own_tmp);
    let (capture, exit, timed_out) = outcome.map_err(|e| spawn_error(reason(&e)))?;
    let (output, total_bytes, cut_bytes) = capture.finish();
    Ok(ShellOutput {
        output,
        total_bytes,
        cut_bytes,
        exit,
        timed_out,
        timeout: opts.timeout,
        sandbox: status,
        elapsed: started.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use landlock::{Compatible, RulesetAttr};

    /// A right this kernel's Landlock lacks stands in for an old kernel:
    /// the command must not run, unless running unsandboxed was allowed.
    #[test]
    fn fails_closed_when_the_kernel_cannot_enforce_the_sandbox() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open(&[dir.path().to_path_buf()], &[]).unwrap();
        let marker = dir.path().join("ran");
        let command = format!("touch {}", marker.display());
        // ResolveUnix needs Landlock ABI 9; where the kernel has it, there is
        // nothing to simulate with it.
        let missing = AccessFs::ResolveUnix;
        if landlock::Ruleset::default()
            .set_compatibility(landlock::CompatLevel::HardRequirement)
            .handle_access(missing)
            .is_ok()
        {
            return;
        }

        let e = run(&ws, &command, &ShellOptions::default(), missing.into()).unwrap_err();
        assert!(matches!(e, ToolError::SandboxUnavailable { .. }), "{e:?}");
        assert!(!marker.exists(), "the command ran without its sandbox");

        let opts = ShellOptions {
            allow_unsandboxed: true,
            ..ShellOptions::default()
        };
        let out = run(&ws, &command, &opts, missing.into()).unwrap();
        assert_eq!(out.exit, Exit::Code(0));
        assert!(matches!(out.sandbox, SandboxStatus::NotEnforced { .. }));
        assert!(out.to_string().contains("without the full sandbox"));
        assert!(marker.exists());
    }
}

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
//! outlive it. A process that leaves the group on purpose (`setsid`,
//! `setpgid`) escapes both kills; it stays inside the sandbox, and dies with
//! nothing to write to once the run's temp dir is gone, but it is not
//! killed. Were that to matter, a PID namespace or a cgroup would be the
//! tool; both need privileges or set-up that a gate cannot assume.
//!
//! The shell also gets `PR_SET_PDEATHSIG(SIGKILL)`: if the thread that ran it
//! dies, the shell dies with it instead of running on without a timeout.

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::fmt;
use std::io;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use landlock::{AccessFs, BitFlags};
use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::fs::OFlags;
use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};

use crate::confine::{Access, Workspace};
use crate::error::{ToolError, reason};
use crate::sandbox::{self, SandboxStatus, Spec};

/// How to run a command.
#[derive(Debug, Clone, PartialEq, Eq)]
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
    /// Allow TCP connect and bind (default off).
    pub network: bool,
    /// Run even where the kernel cannot enforce the sandbox (default off).
    /// This is the user's explicit opt-out; the result then says the command
    /// ran unsandboxed.
    pub allow_unsandboxed: bool,
    /// Pass environment variables whose names look like secrets (`*KEY*`,
    /// `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*CREDENTIAL*`) to the command
    /// (default off): the model reads whatever the command prints, and an
    /// API key in the agent's environment is not the model's to read.
    pub pass_secret_env: bool,
}

impl Default for ShellOptions {
    fn default() -> Self {
        ShellOptions {
            cwd: None,
            timeout: Duration::from_secs(30),
            max_output_bytes: 30_000,
            network: false,
            allow_unsandboxed: false,
            pass_secret_env: false,
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
            let fd = target
                .open(OFlags::PATH | OFlags::DIRECTORY)
                .map_err(|e| match e {
                    ToolError::Io { reason, .. } if reason.contains("not a directory") => {
                        ToolError::WrongType {
                            path: written.to_string(),
                            found: "not a directory",
                            expected: "a working directory",
                        }
                    }
                    e => e,
                })?;
            (fd, target.display())
        }
    };

    let tmp = tempfile::Builder::new()
        .prefix("toolgate-run-")
        .tempdir()
        .map_err(|e| spawn_error(format!("could not create its temp dir: {}", reason(&e))))?;
    let tmp_fd = rustix::fs::open(
        tmp.path(),
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )
    .map_err(|e| {
        spawn_error(format!(
            "could not open its temp dir: {}",
            reason(&e.into())
        ))
    })?;

    let mut writable: Vec<_> = ws.roots.iter().map(|r| r.fd.as_fd()).collect();
    writable.push(tmp_fd.as_fd());
    let spec = Spec {
        writable,
        network: opts.network,
        extra_required,
    };
    let prepared = sandbox::prepare(&spec, opts.allow_unsandboxed).map_err(|reason| {
        ToolError::SandboxUnavailable {
            command: command.to_string(),
            reason,
        }
    })?;

    let (reader, writer) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
        .map_err(|e| spawn_error(reason(&e.into())))?;
    rustix::io::ioctl_fionbio(&reader, true).map_err(|e| spawn_error(reason(&e.into())))?;
    let writer2 = writer.try_clone().map_err(|e| spawn_error(reason(&e)))?;

    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::from(writer2))
        .env("TMPDIR", tmp.path())
        .env("PWD", &cwd_path);
    if !opts.pass_secret_env {
        for (name, _) in std::env::vars_os() {
            if looks_secret(&name) {
                cmd.env_remove(&name);
            }
        }
    }
    let parent = rustix::process::getpid();
    let cwd_raw = cwd_fd.as_raw_fd();
    let ruleset_raw = prepared.raw_fd();
    // SAFETY: the closure runs between fork and exec. It only makes raw
    // system calls (setsid, prctl, getppid, fchdir, landlock_restrict_self)
    // on descriptors that the parent keeps open until `spawn` returns; it
    // allocates nothing and takes no lock.
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
            sandbox::enter(ruleset_raw)
        });
    }

    let status = prepared.status.clone();
    let started = Instant::now();
    let child = cmd.spawn().map_err(|e| match e.raw_os_error() {
        Some(libc::ENOENT) => spawn_error("bash was not found on the PATH".into()),
        _ => spawn_error(reason(&e)),
    })?;
    // `spawn` returns once the child has exec'd, so the descriptors the
    // child used are no longer needed. The command owns the pipe's write
    // ends: dropping it leaves the child's group as the only writers, so the
    // pipe reports end-of-file once they are gone.
    drop(cmd);
    drop(prepared);
    drop(cwd_fd);

    let mut running = Running::new(child);
    let outcome = running.supervise(&reader, opts, started);
    drop(running);
    drop(tmp);
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

/// After the shell exits (or is killed), how long to keep reading for
/// output from processes that left its group and still hold the pipe.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Reads per wake-up before the clocks are looked at again, so that a
/// command writing faster than it is read cannot starve the timeout.
const READS_PER_WAKE: usize = 64;

/// A started shell. Dropping it kills the group and reaps the shell, so an
/// early return never leaves a command running unsupervised.
struct Running {
    child: Child,
    pid: Pid,
    /// Becomes readable when the shell exits (Linux 5.3); without it, exits
    /// are noticed by polling every 50 ms.
    pidfd: Option<OwnedFd>,
    reaped: bool,
}

impl Running {
    fn new(child: Child) -> Running {
        let pid = Pid::from_child(&child);
        let pidfd = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).ok();
        Running {
            child,
            pid,
            pidfd,
            reaped: false,
        }
    }

    /// Reads the output until the shell has ended and the pipe is closed
    /// (or the grace period after the end has passed), enforcing the
    /// timeout on the way.
    fn supervise(
        &mut self,
        reader: &OwnedFd,
        opts: &ShellOptions,
        started: Instant,
    ) -> io::Result<(Capture, Exit, bool)> {
        let deadline = started + opts.timeout;
        let mut capture = Capture::new(opts.max_output_bytes);
        let mut buf = vec![0u8; 64 * 1024];
        let mut eof = false;
        let mut ended: Option<(Exit, Instant)> = None;
        let mut timed_out = false;
        loop {
            if !eof {
                eof = drain(reader, &mut buf, &mut capture)?;
            }
            let now = Instant::now();
            if ended.is_none() {
                if self.has_exited()? {
                    // Whatever it left behind in its group goes with it.
                    self.kill_group();
                    ended = Some((self.reap()?, now + DRAIN_GRACE));
                } else if now >= deadline {
                    self.kill_group();
                    timed_out = true;
                    ended = Some((self.reap()?, now + DRAIN_GRACE));
                }
            }
            let wake = match ended {
                Some((exit, grace_end)) => {
                    if eof || now >= grace_end {
                        return Ok((capture, exit, timed_out));
                    }
                    grace_end
                }
                None => deadline,
            };
            let mut wait = wake.saturating_duration_since(now);
            let mut fds = Vec::with_capacity(2);
            if !eof {
                fds.push(PollFd::new(reader, PollFlags::IN));
            }
            match (&self.pidfd, ended) {
                (Some(pidfd), None) => fds.push(PollFd::new(pidfd, PollFlags::IN)),
                (None, None) => wait = wait.min(Duration::from_millis(50)),
                _ => {}
            }
            let wait = Timespec::try_from(wait).unwrap_or(Timespec {
                tv_sec: 1,
                tv_nsec: 0,
            });
            match rustix::event::poll(&mut fds, Some(&wait)) {
                Ok(_) | Err(Errno::INTR) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }

    /// Whether the shell has exited, without reaping it: while it is a
    /// zombie its pid cannot be reused, so killing its group stays safe.
    fn has_exited(&self) -> io::Result<bool> {
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        match rustix::process::waitid(WaitId::Pid(self.pid), options) {
            Ok(status) => Ok(status.is_some()),
            Err(Errno::INTR) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    fn kill_group(&self) {
        // ESRCH: the group is already empty.
        let _ = rustix::process::kill_process_group(self.pid, Signal::KILL);
    }

    fn reap(&mut self) -> io::Result<Exit> {
        let status = self.child.wait()?;
        self.reaped = true;
        Ok(match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(signal)) => Exit::Signal(signal),
            (None, None) => Exit::Code(-1),
        })
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if !self.reaped {
            self.kill_group();
            let _ = self.child.wait();
        }
    }
}

/// Reads what is available; true at end-of-file.
fn drain(reader: &OwnedFd, buf: &mut [u8], capture: &mut Capture) -> io::Result<bool> {
    for _ in 0..READS_PER_WAKE {
        match rustix::io::read(reader, &mut *buf) {
            Ok(0) => return Ok(true),
            Ok(n) => capture.push(&buf[..n]),
            Err(Errno::AGAIN) => return Ok(false),
            Err(Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(false)
}

/// The output kept: a head and a tail of bounded size, and the total count.
struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    head_cap: usize,
    tail_cap: usize,
    total: u64,
}

impl Capture {
    fn new(max: usize) -> Capture {
        let head_cap = max / 2;
        Capture {
            head: Vec::new(),
            tail: VecDeque::new(),
            head_cap,
            tail_cap: max - head_cap,
            total: 0,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let take = (self.head_cap - self.head.len()).min(bytes.len());
        self.head.extend_from_slice(&bytes[..take]);
        let rest = &bytes[take..];
        if rest.len() >= self.tail_cap {
            self.tail.clear();
            self.tail.extend(&rest[rest.len() - self.tail_cap..]);
        } else {
            let overflow = (self.tail.len() + rest.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..overflow);
            self.tail.extend(rest);
        }
    }

    /// The text, the total and the bytes cut from the middle.
    fn finish(self) -> (String, u64, u64) {
        let kept = (self.head.len() + self.tail.len()) as u64;
        let cut = self.total - kept;
        let tail: Vec<u8> = self.tail.into();
        let text = if cut == 0 {
            let mut all = self.head;
            all.extend_from_slice(&tail);
            String::from_utf8_lossy(&all).into_owned()
        } else {
            format!(
                "{}\n[... {cut} bytes of output cut here; {} bytes in all ...]\n{}",
                String::from_utf8_lossy(&self.head),
                self.total,
                String::from_utf8_lossy(&tail)
            )
        };
        (text, self.total, cut)
    }
}

/// Whether an environment variable's name looks like it holds a secret:
/// one of its `_`-separated words is KEY, TOKEN, SECRET, PASSWORD or alike.
fn looks_secret(name: &OsStr) -> bool {
    let name = name.to_string_lossy().to_ascii_uppercase();
    name.split(['_', '-']).any(|word| {
        matches!(
            word,
            "KEY"
                | "KEYS"
                | "APIKEY"
                | "TOKEN"
                | "TOKENS"
                | "SECRET"
                | "SECRETS"
                | "PASSWORD"
                | "PASSWD"
                | "PASSPHRASE"
                | "CREDENTIAL"
                | "CREDENTIALS"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use landlock::{Compatible, RulesetAttr};

    #[test]
    fn capture_keeps_head_and_tail_and_counts_the_cut() {
        let mut c = Capture::new(10);
        for chunk in [&b"abc"[..], b"defgh", b"ijklmnop", b"qrstuvwxyz"] {
            c.push(chunk);
        }
        let (text, total, cut) = c.finish();
        assert_eq!(total, 26);
        assert_eq!(cut, 16);
        assert!(text.starts_with("abcde\n"));
        assert!(text.ends_with("\nvwxyz"));
    }

    #[test]
    fn capture_under_the_limit_is_whole() {
        let mut c = Capture::new(10);
        c.push(b"hello");
        c.push(b"12345");
        assert_eq!(c.finish(), ("hello12345".to_string(), 10, 0));
    }

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

    #[test]
    fn secret_names() {
        for name in [
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "DB_PASSWORD",
        ] {
            assert!(looks_secret(OsStr::new(name)), "{name}");
        }
        for name in ["PATH", "HOME", "SSH_AUTH_SOCK", "KEYBOARD_LAYOUT", "MONKEY"] {
            assert!(!looks_secret(OsStr::new(name)), "{name}");
        }
    }
}

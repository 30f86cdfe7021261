//! Supervising a started shell: reading its output while enforcing the
//! timeout, then killing what is left of its process group.
//!
//! One thread does it all with `poll` on the output pipe and a pidfd of the
//! shell, so that a command that floods its output, one that closes it and
//! keeps running, and one that exits while its children hold the pipe are
//! all handled without extra threads or busy waiting.

use std::collections::VecDeque;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt;
use std::process::Child;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};

use crate::shell::Exit;

/// After the shell exits (or is killed), how long to keep reading for
/// output from processes that left its group and still hold the pipe.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Reads per wake-up before the clocks are looked at again, so that a
/// command writing faster than it is read cannot starve the timeout.
const READS_PER_WAKE: usize = 64;

/// A started shell. Dropping it kills the group and reaps the shell, so an
/// early return never leaves a command running unsupervised.
pub(crate) struct Running {
    child: Child,
    pid: Pid,
    /// Becomes readable when the shell exits (Linux 5.3); without it, exits
    /// are noticed by polling every 50 ms.
    pidfd: Option<OwnedFd>,
    reaped: bool,
}

impl Running {
    pub(crate) fn new(child: Child) -> Running {
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
    pub(crate) fn supervise(
        &mut self,
        reader: &OwnedFd,
        started: Instant,
        timeout: Duration,
        max_output_bytes: usize,
    ) -> io::Result<(Capture, Exit, bool)> {
        // A timeout too large to add is as good as none.
        let deadline = started
            .checked_add(timeout)
            .unwrap_or_else(|| started + Duration::from_secs(100 * 365 * 86_400));
        let mut capture = Capture::new(max_output_bytes);
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
pub(crate) struct Capture {
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
    pub(crate) fn finish(self) -> (String, u64, u64) {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}

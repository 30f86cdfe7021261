//! Helpers for proving cases against the real programs: a scratch
//! directory, a script run there under `bash -c`, and a local listener
//! that records what a program sent it. Only 127.0.0.1, unix sockets in
//! the scratch directory and `file:` URLs are used, never the network.
//!
//! A program that is not installed skips the proof with a message; under
//! `CI=true` a missing `bash`, `git` or `curl` fails the test instead (the
//! other programs are optional everywhere, and the message says so).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Programs every CI machine must have for these proofs.
const REQUIRED_ON_CI: &[&str] = &["bash", "git", "curl"];

/// Whether `program` runs here; prints why a proof is skipped when not.
pub fn have(program: &str) -> bool {
    let ok = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
        || Command::new(program)
            .arg("-V")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok();
    if !ok {
        if std::env::var("CI").is_ok_and(|v| v == "true") && REQUIRED_ON_CI.contains(&program) {
            panic!("{program} is not installed: CI proves these cases against it");
        }
        eprintln!("skipped: {program} is not installed; its cases were only analysed");
    }
    ok
}

/// A scratch directory; `@D` in a text stands for its path.
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            dir: tempfile::tempdir().expect("temporary directory"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `text` with `@D` replaced by the directory's path.
    pub fn fill(&self, text: &str) -> String {
        text.replace("@D", &self.dir.path().display().to_string())
    }

    /// Runs `setup` then `script` (both with `@D` filled) under `bash -c`
    /// in the directory, with a clean environment (`PATH`, and `HOME` the
    /// directory), standard input empty; killed after 20 s. Returns what
    /// it printed on standard output.
    pub fn run(&self, setup: &str, script: &str) -> String {
        let text = format!("{}\n{}", self.fill(setup), self.fill(script));
        let mut child = Command::new("bash")
            .arg("-c")
            .arg(&text)
            .current_dir(self.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("bash starts");
        let mut out = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = out.read_to_string(&mut s);
            let _ = tx.send(s);
        });
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("did not finish within 20 s: {text:?}");
                }
            }
        }
        rx.recv_timeout(Duration::from_secs(5)).unwrap_or_default()
    }
}

/// A TCP listener on 127.0.0.1 that accepts one connection in the
/// background, answers it with `reply`, and keeps what it received.
pub struct Listener {
    pub port: u16,
    got: mpsc::Receiver<Vec<u8>>,
}

impl Listener {
    pub fn new(reply: &'static [u8]) -> Listener {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = l.local_addr().expect("address").port();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            if let Ok((mut s, _)) = l.accept() {
                let _ = s.set_read_timeout(Some(Duration::from_millis(1000)));
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                // Read until the client pauses: after the headers, a body
                // follows at once or not at all.
                while let Ok(n) = s.read(&mut chunk) {
                    if n == 0 {
                        break;
                    }
                    buf.extend_from_slice(&chunk[..n]);
                    if buf.starts_with(b"SSH-") {
                        break;
                    }
                    if buf.windows(4).any(|w| w == b"\r\n\r\n") {
                        let _ = s.set_read_timeout(Some(Duration::from_millis(150)));
                    }
                }
                let _ = s.write_all(reply);
                let _ = tx.send(buf);
            }
        });
        Listener { port, got: rx }
    }

    /// What the one connection sent, or `None` when nothing connected
    /// within a few seconds.
    pub fn received(&self) -> Option<String> {
        self.got
            .recv_timeout(Duration::from_secs(5))
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }
}

/// A reply for an HTTP client.
pub const HTTP_OK: &[u8] = b"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nhi\n";

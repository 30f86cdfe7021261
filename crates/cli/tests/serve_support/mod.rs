//! A real `toolgate serve` process, a real waiting `toolgate hook claude
//! --approver queue` process, and a small HTTP client for the API.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub fn toolgate() -> Command {
    Command::new(env!("CARGO_BIN_EXE_toolgate"))
}

/// `toolgate serve --listen 127.0.0.1:0` over `state`, with the policy of
/// `project`; killed when dropped.
pub struct Served {
    pub child: Child,
    pub url: String,
    pub token: String,
    pub link: String,
    _stdout: BufReader<ChildStdout>,
}

impl Served {
    pub fn start(project: &Path, state: &Path, home: Option<&Path>) -> Served {
        Served::start_with(project, state, home, &[])
    }

    /// The same, with extra environment variables for the server.
    pub fn start_with(
        project: &Path,
        state: &Path,
        home: Option<&Path>,
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Served {
        let mut cmd = toolgate();
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.args(["serve", "--listen", "127.0.0.1:0"])
            .current_dir(project)
            .env("TOOLGATE_STATE_DIR", state)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(h) = home {
            cmd.env("HOME", h);
        }
        let mut child = cmd.spawn().expect("run toolgate serve");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut link = String::new();
        stdout.read_line(&mut link).expect("the link");
        let link = link.trim().to_owned();
        let (url, token) = link.split_once("/#token=").expect("a link with a token");
        Served {
            url: url.to_owned(),
            token: token.to_owned(),
            link: link.clone(),
            child,
            _stdout: stdout,
        }
    }

    pub fn host(&self) -> String {
        self.url.trim_start_matches("http://").to_owned()
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        let auth = format!("Bearer {}", self.token);
        http(&self.host(), "GET", path, &[("authorization", &auth)], None)
    }

    pub fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let auth = format!("Bearer {}", self.token);
        let csrf = self.get("/api/session").1["csrf"]
            .as_str()
            .expect("csrf")
            .to_owned();
        http(
            &self.host(),
            "POST",
            path,
            &[
                ("authorization", &auth),
                ("origin", &self.url),
                ("x-csrf-token", &csrf),
                ("content-type", "application/json"),
            ],
            Some(&body.to_string()),
        )
    }

    /// The first waiting call, once there is one.
    pub fn first_pending(&self) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let (status, v) = self.get("/api/approvals");
            assert_eq!(status, 200, "{v}");
            if let Some(a) = v["approvals"].as_array().and_then(|l| l.first()) {
                return a.clone();
            }
            assert!(Instant::now() < deadline, "no call started waiting");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request over a plain socket: (status, body as JSON).
pub fn http(
    host: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (u16, Value) {
    let mut s = TcpStream::connect(host).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let body = body.unwrap_or("");
    let mut req = format!("{method} {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    s.write_all(req.as_bytes()).expect("send");
    let mut raw = String::new();
    s.read_to_string(&mut raw).expect("read");
    let (head, body) = raw.split_once("\r\n\r\n").expect("a response");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .expect("status");
    let v = serde_json::from_str(body).unwrap_or(Value::String(body.to_owned()));
    (status, v)
}

/// A project directory holding `policy` as its toolgate.toml.
pub fn project(policy: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let project = dir.path().join("project");
    let state = dir.path().join("state");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("toolgate.toml"), policy).unwrap();
    let project = project.canonicalize().unwrap();
    (dir, project, state)
}

/// A real `toolgate hook claude --approver queue --wait SECS` process,
/// given one PreToolUse call for `command` on its standard input.
pub fn waiting_hook(project: &Path, state: &Path, command: &str, wait: u32) -> Child {
    waiting_hook_with(project, state, command, wait, &[])
}

/// The same, with extra environment variables for the hook.
pub fn waiting_hook_with(
    project: &Path,
    state: &Path,
    command: &str,
    wait: u32,
    env: &[(&str, &std::ffi::OsStr)],
) -> Child {
    let input = json!({
        "session_id": "sess-page", "transcript_path": "/t.jsonl", "cwd": project,
        "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": command, "description": "run it"},
        "tool_use_id": "toolu_page_1",
    });
    let mut cmd = toolgate();
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .args([
            "hook",
            "claude",
            "--approver",
            "queue",
            "--wait",
            &wait.to_string(),
        ])
        .current_dir(project)
        .env("TOOLGATE_STATE_DIR", state)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run toolgate hook claude");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.to_string().as_bytes())
        .expect("write the call");
    child
}

/// The hook's answer: (permissionDecision, permissionDecisionReason).
pub fn hook_answer(child: Child) -> (String, String) {
    let out = child.wait_with_output().expect("the hook ends");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON from the hook");
    let o = &v["hookSpecificOutput"];
    (
        o["permissionDecision"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        o["permissionDecisionReason"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

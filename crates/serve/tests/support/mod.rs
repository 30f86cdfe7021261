//! A real server on 127.0.0.1 over a real store in a temporary directory,
//! and a small HTTP client for the tests.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolgate_policy::{Call, Client, Notify};
use toolgate_serve::{Config, Running, Server};
use toolgate_store::{ApprovalAnswer, Decision, Outcome, PendingNew, Record, ReviewRecord, Store};

pub struct Fixture {
    pub _dir: tempfile::TempDir,
    pub ws: PathBuf,
    pub store: Store,
    pub url: String,
    pub token: String,
    pub _running: Option<Running>,
}

impl Fixture {
    pub fn start() -> Fixture {
        Fixture::with_notify(Notify::default())
    }

    pub fn with_notify(notify: Notify) -> Fixture {
        Fixture::with_config(notify, |_| {})
    }

    /// A server whose config `adjust` changes first (limits, timeouts).
    pub fn with_config(notify: Notify, adjust: impl FnOnce(&mut Config)) -> Fixture {
        let dir = tempfile::tempdir().expect("temp dir");
        let ws = dir.path().join("ws").canonicalize().unwrap_or_else(|_| {
            std::fs::create_dir_all(dir.path().join("ws")).expect("ws");
            dir.path().join("ws").canonicalize().expect("ws")
        });
        let state_dir = dir.path().join("state");
        let mut config = Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            notify,
            roots: vec![ws.clone()],
            poll: Duration::from_millis(50),
            ..Config::new(state_dir.clone())
        };
        adjust(&mut config);
        let server = Server::bind(config).expect("bind");
        let store = Store::open(state_dir.join("toolgate.db")).expect("store");
        let running = server.spawn();
        Fixture {
            url: running.url.clone(),
            token: running.token.clone(),
            _running: Some(running),
            _dir: dir,
            ws,
            store,
        }
    }

    /// Queues a call the way the gate and the hooks do: snapshot, digest,
    /// a pending approval and its `waiting` ledger row.
    pub fn queue(&self, session: &str, client: Option<Client>, tool: &str, input: Value) -> String {
        self.queue_with(session, client, tool, input, false)
    }

    pub fn queue_with(
        &self,
        session: &str,
        client: Option<Client>,
        tool: &str,
        input: Value,
        remember: bool,
    ) -> String {
        self.queue_full(session, client, tool, input, remember, "it asks")
    }

    /// [`Fixture::queue_with`], with the policy's reason.
    pub fn queue_full(
        &self,
        session: &str,
        client: Option<Client>,
        tool: &str,
        input: Value,
        remember: bool,
        reason: &str,
    ) -> String {
        self.queue_reviewed(session, client, tool, input, remember, reason, None)
    }

    /// [`Fixture::queue_full`], with the reviewer model's answer on the
    /// `waiting` row (an escalated call).
    #[allow(clippy::too_many_arguments)]
    pub fn queue_reviewed(
        &self,
        session: &str,
        client: Option<Client>,
        tool: &str,
        input: Value,
        remember: bool,
        reason: &str,
        review: Option<ReviewRecord>,
    ) -> String {
        let mut call = Call::new(tool, input);
        if let Some(c) = client {
            call = call.with_client(c);
        }
        let digest = call.digest();
        let client_tag = client.map(|c| c.as_str().to_owned());
        let record = Record {
            session: session.into(),
            client: client_tag.clone(),
            server: None,
            call_id: call.id.clone(),
            tool: tool.into(),
            digest: digest.clone(),
            input: Value::Object(call.input.clone()).to_string(),
            decision: Decision::Ask,
            rule: Some("ask[0]".into()),
            hard: false,
            reason: reason.into(),
            approval: Some(ApprovalAnswer::Unanswered),
            note: None,
            outcome: Outcome::Waiting,
            duration_us: 1,
            approval_id: None,
            review,
        };
        let pending = PendingNew {
            session: session.into(),
            client: client_tag,
            server: None,
            call_id: call.id.clone(),
            tool: tool.into(),
            snapshot_json: call.canonical_json(),
            digest,
            reason: reason.into(),
            rule: Some("ask[0]".into()),
            remember_allowed: remember,
        };
        self.store
            .append_waiting(&record, &pending)
            .expect("queue")
            .id
    }

    pub fn status(&self, id: &str) -> String {
        self.store.approval(id).unwrap().unwrap().status.to_string()
    }

    pub fn bearer(&self) -> String {
        format!("Bearer {}", self.token)
    }

    pub fn host(&self) -> String {
        self.url.trim_start_matches("http://").to_owned()
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        http(
            "GET",
            &format!("{}{path}", self.url),
            &[("authorization", &self.bearer())],
            None,
        )
    }

    pub fn csrf(&self) -> String {
        self.get("/api/session").1["csrf"]
            .as_str()
            .expect("csrf")
            .to_owned()
    }

    /// A POST as the page makes it: token, Origin, CSRF token.
    pub fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let csrf = self.csrf();
        http(
            "POST",
            &format!("{}{path}", self.url),
            &[
                ("authorization", &self.bearer()),
                ("origin", &self.url),
                ("x-csrf-token", &csrf),
                ("content-type", "application/json"),
            ],
            Some(&body.to_string()),
        )
    }

    pub fn approve(&self, id: &str, digest: &str) -> (u16, Value) {
        self.post(
            &format!("/api/approvals/{id}/approve"),
            json!({"digest": digest}),
        )
    }

    pub fn digest(&self, id: &str) -> String {
        self.store.approval(id).unwrap().unwrap().digest
    }
}

/// One request; (status, body as JSON or as a JSON string).
pub fn http(method: &str, url: &str, headers: &[(&str, &str)], body: Option<&str>) -> (u16, Value) {
    let (status, _, text) = http_full(method, url, headers, body);
    let v = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, v)
}

/// One request over a plain socket, so that every header (Host, Origin,
/// Cookie) is exactly what the test says: (status, headers, body).
pub fn http_full(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> (u16, Vec<(String, String)>, String) {
    let rest = url.strip_prefix("http://").expect("http URL");
    let (hostport, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let mut s = TcpStream::connect(hostport).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nconnection: close\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("host: {hostport}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    let body = body.unwrap_or("");
    req.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    s.write_all(req.as_bytes()).expect("send");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read");
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a response");
    let mut lines = head.lines();
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    (status, headers, body)
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// Polls `f` until it is true or `secs` pass.
pub fn eventually(secs: u64, what: &str, mut f: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !f() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// A webhook receiver on 127.0.0.1: each POST's body arrives on the
/// channel; it answers 200.
pub fn webhook_receiver() -> (String, mpsc::Receiver<(String, String)>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind receiver");
    let url = format!(
        "http://{}/hooks/toolgate-approvals",
        listener.local_addr().unwrap()
    );
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            let mut reader = BufReader::new(conn);
            let mut request_line = String::new();
            if reader.read_line(&mut request_line).is_err() {
                continue;
            }
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some((k, v)) = line.split_once(':')
                    && k.eq_ignore_ascii_case("content-length")
                {
                    len = v.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; len];
            let _ = reader.read_exact(&mut body);
            let mut conn = reader.into_inner();
            let _ = conn
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n");
            let _ = tx.send((request_line, String::from_utf8_lossy(&body).into_owned()));
        }
    });
    (url, rx)
}

//! `toolgate agent` and `toolgate demo`, run as real processes; the live
//! models talk to fake OpenAI and Anthropic servers on 127.0.0.1 that
//! record every request.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

// ---------------------------------------------------------------- server

/// One canned HTTP response.
struct Reply {
    status: u16,
    content_type: &'static str,
    headers: Vec<(&'static str, String)>,
    body: String,
}

impl Reply {
    fn json(v: Value) -> Reply {
        Reply {
            status: 200,
            content_type: "application/json",
            headers: Vec::new(),
            body: v.to_string(),
        }
    }

    /// A server-sent event stream; each item is (event name, data).
    fn sse(events: &[(Option<&str>, String)]) -> Reply {
        let mut body = String::new();
        for (name, data) in events {
            if let Some(n) = name {
                body.push_str(&format!("event: {n}\n"));
            }
            body.push_str(&format!("data: {data}\n\n"));
        }
        Reply {
            status: 200,
            content_type: "text/event-stream",
            headers: Vec::new(),
            body,
        }
    }

    fn error(status: u16, body: Value, retry_after: Option<&str>) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            headers: retry_after
                .map(|r| vec![("retry-after", r.to_string())])
                .unwrap_or_default(),
            body: body.to_string(),
        }
    }
}

/// A request as the server saw it.
#[derive(Debug, Clone)]
struct Seen {
    path: String,
    headers: HashMap<String, String>,
    body: Value,
}

/// Serves `replies` in order, one connection each, then stops; it also
/// stops accepting after 60 s, so a test can never hang on it.
struct Server {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    fn start(replies: Vec<Reply>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let log = seen.clone();
        std::thread::spawn(move || {
            let deadline = Instant::now() + Duration::from_secs(60);
            for reply in replies {
                let stream = loop {
                    match listener.accept() {
                        Ok((s, _)) => break s,
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            if Instant::now() > deadline {
                                return;
                            }
                            std::thread::sleep(Duration::from_millis(5));
                        }
                        Err(_) => return,
                    }
                };
                if serve_one(stream, &reply, &log).is_err() {
                    return;
                }
            }
        });
        Server { base, seen }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve_one(stream: TcpStream, reply: &Reply, log: &Mutex<Vec<Seen>>) -> std::io::Result<()> {
    stream.set_nonblocking(false)?;
    stream.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut headers = HashMap::new();
    loop {
        line.clear();
        reader.read_line(&mut line)?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((k, v)) = l.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body)?;
    let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
    log.lock().unwrap().push(Seen {
        path,
        headers,
        body,
    });
    let mut out = stream;
    let mut head = format!(
        "HTTP/1.1 {} X\r\ncontent-type: {}\r\ncontent-length: {}\r\nconnection: close\r\n",
        reply.status,
        reply.content_type,
        reply.body.len()
    );
    for (k, v) in &reply.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    out.write_all(reply.body.as_bytes())?;
    out.flush()
}

// ---------------------------------------------------------------- client

const POLICY: &str = r#"
allow = ["Read", "Write"]
deny = ["Read(secrets.txt)"]
"#;

struct Ws {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    root: PathBuf,
}

impl Ws {
    fn new(policy: &str) -> Ws {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(base.join("home")).unwrap();
        std::fs::write(root.join("toolgate.toml"), policy).unwrap();
        std::fs::write(root.join("readme.txt"), "hello").unwrap();
        std::fs::write(root.join("secrets.txt"), "KEY=1").unwrap();
        Ws {
            _tmp: tmp,
            base,
            root,
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_toolgate"));
        c.args(args)
            .current_dir(&self.root)
            .env("HOME", self.base.join("home"))
            .env("TOOLGATE_STATE_DIR", self.base.join("state"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for var in [
            "TOOLGATE_POLICY",
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            "NO_COLOR",
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "http_proxy",
            "https_proxy",
            "all_proxy",
        ] {
            c.env_remove(var);
        }
        c
    }

    fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = self.command(args);
        for (k, v) in env {
            c.env(k, v);
        }
        let child = c.spawn().unwrap();
        wait_bounded(child, Duration::from_secs(60))
    }

    fn marker(&self) -> PathBuf {
        self.root.join("marker.txt")
    }

    fn ledger(&self) -> toolgate_store::Store {
        toolgate_store::Store::open(self.base.join("state/toolgate.db")).unwrap()
    }

    fn script(&self, text: &str) -> String {
        let p = self.base.join("script.toml");
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }
}

fn wait_bounded(mut child: std::process::Child, limit: Duration) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("toolgate did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn tool_names(tools: &Value, path: &str) -> Vec<String> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.pointer(path).unwrap().as_str().unwrap().to_string())
        .collect()
}

const TOOLS: [&str; 5] = [
    "read_file",
    "write_file",
    "list_dir",
    "run_shell",
    "fetch_url",
];

fn invalid_rows(ws: &Ws, call_id: &str) -> Vec<toolgate_store::Row> {
    ws.ledger()
        .rows(&toolgate_store::RowFilter {
            call_id: Some(call_id.into()),
            ..Default::default()
        })
        .unwrap()
}

// ---------------------------------------------------------------- OpenAI

fn openai_chunk(delta: Value, finish: Option<&str>) -> (Option<&'static str>, String) {
    let v = json!({
        "id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
    });
    (None, v.to_string())
}

#[test]
fn openai_streamed_calls_malformed_arguments_and_refusals_reach_the_model() {
    let ws = Ws::new(POLICY);
    let frag = |index: u64, id: Option<&str>, name: Option<&str>, args: &str| {
        let mut f = json!({"index": index, "function": {"arguments": args}});
        if let Some(id) = id {
            f["id"] = json!(id);
            f["type"] = json!("function");
        }
        if let Some(n) = name {
            f["function"]["name"] = json!(n);
        }
        openai_chunk(json!({"tool_calls": [f]}), None)
    };
    let server = Server::start(vec![
        Reply::sse(&[
            openai_chunk(json!({"role": "assistant", "content": "Checking "}), None),
            openai_chunk(json!({"content": "the files."}), None),
            frag(0, Some("call_w"), Some("write_file"), ""),
            frag(0, None, None, "{\"path\": \"marker.txt\","),
            frag(0, None, None, " \"content\": \"ran\""),
            frag(
                1,
                Some("call_s"),
                Some("read_file"),
                "{\"path\": \"secrets.txt\"}",
            ),
            frag(2, Some("call_r"), Some("read_file"), "{\"path\":"),
            frag(2, None, None, " \"readme.txt\"}"),
            openai_chunk(json!({}), Some("tool_calls")),
            (None, "[DONE]".into()),
        ]),
        Reply::json(json!({
            "id": "chatcmpl-2", "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop",
                "message": {"role": "assistant", "content": "All done."}}]
        })),
    ]);
    let base = format!("{}/v1", server.base);
    let out = ws.run(
        &[
            "agent",
            "Look around.",
            "--live",
            "--api",
            "openai",
            "--model",
            "gpt-test",
            "--base-url",
            &base,
            "--approver",
            "never",
        ],
        &[("OPENAI_API_KEY", "sk-test")],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "All done.\n");
    assert!(!ws.marker().exists(), "the malformed write must not run");

    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    let first = &seen[0];
    assert_eq!(first.path, "/v1/chat/completions");
    assert_eq!(first.headers["authorization"], "Bearer sk-test");
    assert_eq!(first.body["model"], "gpt-test");
    assert_eq!(first.body["stream"], true);
    assert_eq!(tool_names(&first.body["tools"], "/function/name"), TOOLS);
    assert_eq!(
        first.body["tools"][1]["function"]["parameters"]["additionalProperties"],
        false
    );
    assert_eq!(first.body["messages"][1]["content"], "Look around.");

    // The second request: the assistant turn as it was streamed, then one
    // tool message per call, in order.
    let msgs = seen[1].body["messages"].as_array().unwrap();
    let n = msgs.len();
    let assistant = &msgs[n - 4];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["content"], "Checking the files.");
    assert_eq!(
        assistant["tool_calls"][0]["function"]["arguments"],
        "{\"path\": \"marker.txt\", \"content\": \"ran\""
    );
    let results: Vec<(&str, &str)> = msgs[n - 3..]
        .iter()
        .map(|m| {
            assert_eq!(m["role"], "tool");
            (
                m["tool_call_id"].as_str().unwrap(),
                m["content"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(results[0].0, "call_w");
    assert!(
        results[0]
            .1
            .starts_with("toolgate: arguments are not valid JSON"),
        "{}",
        results[0].1
    );
    assert_eq!(results[1].0, "call_s");
    assert!(
        results[1].1.contains("was not executed"),
        "{}",
        results[1].1
    );
    assert!(results[1].1.contains("secrets.txt"), "{}", results[1].1);
    assert!(results[1].1.contains("Do not retry"), "{}", results[1].1);
    assert_eq!(results[2], ("call_r", "hello"));

    // The trace is on stderr, and the malformed call is in the ledger.
    let err = stderr(&out);
    assert!(err.contains("call 1 write_file"), "{err}");
    assert!(err.contains("arguments are not valid JSON"), "{err}");
    let rows = invalid_rows(&ws, "call_w");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].record.rule.as_deref(), Some("invalid-arguments"));
    assert_eq!(rows[0].record.outcome, toolgate_store::Outcome::Blocked);
}

#[test]
fn openai_base_url_comes_from_the_environment_and_answers_may_be_whole() {
    let ws = Ws::new(POLICY);
    let server = Server::start(vec![
        Reply::json(
            json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
                "role": "assistant", "content": null,
                "tool_calls": [{"id": "c1", "type": "function",
                    "function": {"name": "write_file", "arguments": "{\"path\":\"marker.txt\",\"content\":\"yes\"}"}}]
            }}]}),
        ),
        Reply::json(json!({"choices": [{"index": 0, "finish_reason": "stop",
            "message": {"role": "assistant", "content": "Wrote it."}}]})),
    ]);
    let base = format!("{}/v1", server.base);
    let out = ws.run(
        &[
            "agent",
            "Write.",
            "--live",
            "--api",
            "openai",
            "--model",
            "m",
            "--no-stream",
        ],
        &[("OPENAI_BASE_URL", &base), ("OPENAI_API_KEY", "k")],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "Wrote it.\n");
    // Allowed by the policy, so it ran.
    assert_eq!(std::fs::read_to_string(ws.marker()).unwrap(), "yes");
    let seen = server.seen();
    assert_eq!(seen[0].body["stream"], false);
    let last = seen[1].body["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(last["role"], "tool");
    assert_eq!(last["tool_call_id"], "c1");
}

#[test]
fn openai_rate_limits_are_retried_then_fail_clearly_with_exit_1() {
    let ws = Ws::new(POLICY);
    let limited = || {
        Reply::error(
            429,
            json!({"error": {"message": "Rate limit reached for requests", "type": "requests"}}),
            Some("0"),
        )
    };
    let server = Server::start((0..5).map(|_| limited()).collect());
    let base = format!("{}/v1", server.base);
    let out = ws.run(
        &[
            "agent",
            "x",
            "--live",
            "--api",
            "openai",
            "--model",
            "m",
            "--base-url",
            &base,
        ],
        &[("OPENAI_API_KEY", "k")],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert!(err.contains("HTTP 429"), "{err}");
    assert!(err.contains("after 5 attempts"), "{err}");
    assert!(err.contains("Rate limit reached for requests"), "{err}");
    assert_eq!(server.seen().len(), 5);
}

#[test]
fn an_unreachable_api_is_exit_1_and_a_missing_key_is_exit_2() {
    let ws = Ws::new(POLICY);
    // A port with nothing listening.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = format!("http://127.0.0.1:{port}/v1");
    let out = ws.run(
        &[
            "agent",
            "x",
            "--live",
            "--api",
            "openai",
            "--model",
            "m",
            "--base-url",
            &base,
        ],
        &[],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("unreachable"), "{}", stderr(&out));

    let out = ws.run(
        &["agent", "x", "--live", "--api", "anthropic", "--model", "m"],
        &[],
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("ANTHROPIC_API_KEY"),
        "{}",
        stderr(&out)
    );

    let out = ws.run(&["agent", "x", "--live", "--api", "openai"], &[]);
    assert_eq!(code(&out), 2, "--live without --model is bad usage");
    let out = ws.run(&["agent", "x", "--decision", "maybe"], &[]);
    assert_eq!(code(&out), 2);
}

// ---------------------------------------------------------------- Anthropic

fn event(name: &'static str, data: Value) -> (Option<&'static str>, String) {
    (Some(name), data.to_string())
}

#[test]
fn anthropic_streamed_tool_use_malformed_input_and_refusals_reach_the_model() {
    let ws = Ws::new(POLICY);
    let delta = |index: u64, json_part: &str| {
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": json_part}}),
        )
    };
    let server = Server::start(vec![
        Reply::sse(&[
            event(
                "message_start",
                json!({"type": "message_start", "message": {
                "id": "msg_1", "type": "message", "role": "assistant", "content": [],
                "model": "claude-test", "stop_reason": null}}),
            ),
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}),
            ),
            event("ping", json!({"type": "ping"})),
            event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": "Let me look."}}),
            ),
            event(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 0}),
            ),
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": 1,
                "content_block": {"type": "tool_use", "id": "toolu_s", "name": "read_file", "input": {}}}),
            ),
            delta(1, "{\"path\": "),
            delta(1, "\"secrets.txt\"}"),
            event(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 1}),
            ),
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": 2,
                "content_block": {"type": "tool_use", "id": "toolu_w", "name": "write_file", "input": {}}}),
            ),
            delta(2, "{\"path\": \"marker.txt\", "),
            delta(2, "\"content\": "),
            event(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 2}),
            ),
            event(
                "message_delta",
                json!({"type": "message_delta",
                "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 30}}),
            ),
            event("message_stop", json!({"type": "message_stop"})),
        ]),
        Reply::json(json!({
            "id": "msg_2", "type": "message", "role": "assistant", "model": "claude-test",
            "content": [{"type": "text", "text": "I could not read the secrets."}],
            "stop_reason": "end_turn"
        })),
    ]);
    let out = ws.run(
        &[
            "agent",
            "Read the secrets.",
            "--live",
            "--api",
            "anthropic",
            "--model",
            "claude-test",
            "--decision",
            "allow",
        ],
        &[
            ("ANTHROPIC_API_KEY", "sk-ant-test"),
            ("ANTHROPIC_BASE_URL", &server.base),
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "I could not read the secrets.\n");
    assert!(!ws.marker().exists(), "the malformed write must not run");

    let seen = server.seen();
    assert_eq!(seen.len(), 2);
    let first = &seen[0];
    assert_eq!(first.path, "/v1/messages");
    assert_eq!(first.headers["x-api-key"], "sk-ant-test");
    assert_eq!(first.headers["anthropic-version"], "2023-06-01");
    assert_eq!(first.body["model"], "claude-test");
    assert_eq!(first.body["stream"], true);
    assert!(first.body["max_tokens"].as_u64().unwrap() > 0);
    assert!(
        first.body["system"]
            .as_str()
            .unwrap()
            .contains("not executed")
    );
    assert_eq!(tool_names(&first.body["tools"], "/name"), TOOLS);
    assert_eq!(
        first.body["tools"][3]["input_schema"]["required"],
        json!(["command"])
    );

    let msgs = seen[1].body["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 3);
    assert_eq!(msgs[1]["role"], "assistant");
    assert_eq!(msgs[1]["content"][0]["text"], "Let me look.");
    assert_eq!(
        msgs[1]["content"][1]["input"],
        json!({"path": "secrets.txt"})
    );
    let results = msgs[2]["content"].as_array().unwrap();
    assert_eq!(msgs[2]["role"], "user");
    assert_eq!(results.len(), 2);
    assert_eq!(results[0]["type"], "tool_result");
    assert_eq!(results[0]["tool_use_id"], "toolu_s");
    assert_eq!(results[0]["is_error"], true);
    let denied = results[0]["content"].as_str().unwrap();
    assert!(denied.contains("was not executed"), "{denied}");
    assert!(denied.contains("Do not retry"), "{denied}");
    assert_eq!(results[1]["tool_use_id"], "toolu_w");
    assert_eq!(results[1]["is_error"], true);
    assert!(
        results[1]["content"]
            .as_str()
            .unwrap()
            .starts_with("toolgate: arguments are not valid JSON")
    );
    assert_eq!(invalid_rows(&ws, "toolu_w").len(), 1);
}

#[test]
fn anthropic_server_errors_are_retried_with_backoff() {
    let ws = Ws::new(POLICY);
    let overloaded = json!({"type": "error", "error": {"type": "api_error", "message": "Internal server error"}});
    // One 500 without retry-after: the client waits its backoff (1 s), then
    // the retry succeeds.
    let server = Server::start(vec![
        Reply::error(500, overloaded.clone(), None),
        Reply::json(json!({"type": "message", "role": "assistant",
            "content": [{"type": "text", "text": "Recovered."}], "stop_reason": "end_turn"})),
    ]);
    let start = Instant::now();
    let out = ws.run(
        &[
            "agent",
            "x",
            "--live",
            "--api",
            "anthropic",
            "--model",
            "m",
            "--base-url",
            &server.base,
        ],
        &[("ANTHROPIC_API_KEY", "k")],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "Recovered.\n");
    assert!(start.elapsed() >= Duration::from_millis(900), "no backoff");
    assert_eq!(server.seen().len(), 2);
    assert_eq!(server.seen()[0].body, server.seen()[1].body);

    // Five 500s: the retries run out and the run fails clearly.
    let server = Server::start(
        (0..5)
            .map(|_| Reply::error(500, overloaded.clone(), Some("0")))
            .collect(),
    );
    let out = ws.run(
        &[
            "agent",
            "x",
            "--live",
            "--api",
            "anthropic",
            "--model",
            "m",
            "--base-url",
            &server.base,
        ],
        &[("ANTHROPIC_API_KEY", "k")],
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("Anthropic API error: HTTP 500 after 5 attempts"),
        "{err}"
    );
    assert!(err.contains("Internal server error"), "{err}");
    assert_eq!(server.seen().len(), 5);
}

#[test]
fn a_client_error_is_not_retried() {
    let ws = Ws::new(POLICY);
    let server = Server::start(vec![
        Reply::error(
            401,
            json!({"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
            None,
        ),
        Reply::error(401, json!({}), None),
    ]);
    let out = ws.run(
        &[
            "agent",
            "x",
            "--live",
            "--api",
            "anthropic",
            "--model",
            "m",
            "--base-url",
            &server.base,
        ],
        &[("ANTHROPIC_API_KEY", "wrong")],
    );
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("invalid x-api-key"),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.seen().len(), 1);
}

// ---------------------------------------------------------------- scripted

fn denied_turns(n: usize) -> String {
    let mut s = String::new();
    for _ in 0..n {
        s.push_str("[[turn]]\n[[turn.call]]\nname = \"read_file\"\narguments = { path = \"secrets.txt\" }\n\n");
    }
    s.push_str("[[turn]]\ntext = \"finished\"\n");
    s
}

#[test]
fn three_refusals_in_a_row_stop_the_run_with_exit_3() {
    let ws = Ws::new(POLICY);
    let script = ws.script(&format!(
        "{}\n[[turn]]\n[[turn.call]]\nname = \"write_file\"\narguments = {{ path = \"marker.txt\", content = \"x\" }}\n",
        denied_turns(3).replace("[[turn]]\ntext = \"finished\"\n", "")
    ));
    let out = ws.run(&["agent", "x", "--script", &script], &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).contains("3 tool calls in a row were refused"),
        "{}",
        stderr(&out)
    );
    assert!(!ws.marker().exists());
}

#[test]
fn twenty_refusals_in_all_stop_the_run_with_exit_3() {
    let ws = Ws::new(POLICY);
    let mut s = String::new();
    for _ in 0..15 {
        s.push_str(concat!(
            "[[turn]]\n",
            "[[turn.call]]\nname = \"read_file\"\narguments = { path = \"secrets.txt\" }\n",
            "[[turn.call]]\nname = \"run_shell\"\narguments = '{\"command\": '\n",
            "[[turn.call]]\nname = \"read_file\"\narguments = { path = \"readme.txt\" }\n\n",
        ));
    }
    s.push_str("[[turn]]\ntext = \"finished\"\n");
    let out = ws.run(&["agent", "x", "--script", &ws.script(&s)], &[]);
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("20 tool calls were refused in this session"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_call_budget_stops_the_run_with_exit_3_before_the_extra_call_runs() {
    let ws = Ws::new(POLICY);
    let script = ws.script(concat!(
        "[[turn]]\n[[turn.call]]\nname = \"read_file\"\narguments = { path = \"readme.txt\" }\n\n",
        "[[turn]]\n[[turn.call]]\nname = \"write_file\"\narguments = { path = \"marker.txt\", content = \"x\" }\n\n",
        "[[turn]]\ntext = \"finished\"\n",
    ));
    let out = ws.run(
        &["agent", "x", "--script", &script, "--max-calls", "1"],
        &[],
    );
    assert_eq!(code(&out), 3, "{}", stderr(&out));
    assert!(stderr(&out).contains("--max-calls"), "{}", stderr(&out));
    assert!(!ws.marker().exists());

    // With room for both calls, the write runs and the answer is printed.
    let out = ws.run(
        &["agent", "x", "--script", &script, "--max-calls", "2"],
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "finished\n");
    assert!(ws.marker().exists());
}

#[test]
fn blocked_tools_and_fixed_decisions_apply_to_scripted_runs() {
    let ws = Ws::new("allow = [\"Read\"]\nask = [\"Write\"]\n");
    let script = ws.script(concat!(
        "[[turn]]\n[[turn.call]]\nname = \"write_file\"\narguments = { path = \"marker.txt\", content = \"x\" }\n\n",
        "[[turn]]\ntext = \"finished\"\n",
    ));
    let out = ws.run(
        &["agent", "x", "--script", &script, "--decision", "deny"],
        &[],
    );
    assert_eq!(code(&out), 0);
    assert!(!ws.marker().exists());
    let out = ws.run(
        &[
            "agent",
            "x",
            "--script",
            &script,
            "--decision",
            "allow",
            "--block",
            "write_file",
        ],
        &[],
    );
    assert_eq!(code(&out), 0);
    assert!(
        stderr(&out).contains("host:blocked-tool"),
        "{}",
        stderr(&out)
    );
    assert!(!ws.marker().exists());
    let out = ws.run(
        &["agent", "x", "--script", &script, "--approver", "never"],
        &[],
    );
    assert_eq!(code(&out), 0);
    assert!(!ws.marker().exists());
    let out = ws.run(
        &["agent", "x", "--script", &script, "--approver", "queue"],
        &[],
    );
    assert_eq!(code(&out), 0);
    assert!(stderr(&out).contains("-> waiting"), "{}", stderr(&out));
    assert!(!ws.marker().exists());
    assert_eq!(ws.ledger().list_pending().unwrap().len(), 1);
    let out = ws.run(
        &["agent", "x", "--script", &script, "--decision", "allow"],
        &[],
    );
    assert_eq!(code(&out), 0);
    assert!(ws.marker().exists());
}

#[test]
fn a_bad_script_is_exit_2() {
    let ws = Ws::new(POLICY);
    let out = ws.run(
        &[
            "agent",
            "x",
            "--script",
            &ws.script("[[turn]]\nbogus = 1\n"),
        ],
        &[],
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("script.toml"), "{}", stderr(&out));
    let missing = ws.base.join("nope.toml").display().to_string();
    let out = ws.run(&["agent", "x", "--script", &missing], &[]);
    assert_eq!(code(&out), 2);
}

#[test]
fn the_default_script_runs_offline() {
    let ws = Ws::new(POLICY);
    std::fs::write(ws.root.join("notes.txt"), "draft").unwrap();
    let out = ws.run(&["agent", "Review the notes.", "--decision", "allow"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).starts_with("Done"), "{}", stdout(&out));
    assert_eq!(
        std::fs::read_to_string(ws.root.join("notes.txt")).unwrap(),
        "reviewed"
    );
}

// ---------------------------------------------------------------- demo

fn demo(ws: &Ws, args: &[&str]) -> Output {
    let mut full = vec!["demo"];
    full.extend_from_slice(args);
    ws.run(&full, &[])
}

fn section<'a>(text: &'a str, title: &str) -> &'a str {
    let start = text
        .find(title)
        .unwrap_or_else(|| panic!("no {title:?} in:\n{text}"));
    let rest = &text[start..];
    let end = rest[1..].find("\n\n").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

#[test]
fn the_demo_replays_every_scenario() {
    let ws = Ws::new(POLICY);
    let out = demo(&ws, &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains('\x1b'), "no colour into a pipe");

    let approve = section(&text, "1. the host approves");
    assert!(
        approve.contains("call 1    read_file readme.txt"),
        "{approve}"
    );
    assert!(approve.contains("outcome   executed: hello"), "{approve}");
    assert!(approve.contains("-> approve"), "{approve}");
    assert!(approve.contains("requests 3  prompts 1  executions 2  blocked 1  waiting 0"));
    assert!(approve.contains("notes.txt \"reviewed\""), "{approve}");

    let decline = section(&text, "2. the host declines");
    assert!(
        decline.contains("-> decline (keep the draft for now)"),
        "{decline}"
    );
    assert!(decline.contains("requests 3  prompts 1  executions 1  blocked 2  waiting 0"));
    assert!(decline.contains("notes.txt \"draft\""), "{decline}");

    let waiting = section(&text, "3. no answer yet");
    assert!(waiting.contains("-> unanswered"), "{waiting}");
    assert!(
        waiting.contains("waiting, not executed (approval "),
        "{waiting}"
    );
    assert!(waiting.contains("requests 3  prompts 1  executions 1  blocked 1  waiting 1"));
    assert!(waiting.contains("notes.txt \"draft\""), "{waiting}");

    let deny = section(&text, "4. deny beats a yes");
    assert!(deny.contains("deny   rule no-secrets"), "{deny}");
    assert!(deny.contains("no one (a deny is final)"), "{deny}");
    assert!(
        deny.contains("requests 1  prompts 0  executions 0  blocked 1"),
        "{deny}"
    );

    let allow = section(&text, "5. allow needs no yes");
    assert!(
        allow.contains("requests 1  prompts 0  executions 1  blocked 0"),
        "{allow}"
    );

    let blocked = section(&text, "6. a blocked tool");
    assert!(blocked.contains("rule host:blocked-tool"), "{blocked}");
    assert!(blocked.contains("notes.txt \"draft\""), "{blocked}");

    let budget = section(&text, "7. a call budget of 1");
    assert!(budget.contains("beyond the call budget of 1"), "{budget}");
    assert!(budget.contains("stopped"), "{budget}");
    assert!(
        budget.contains("requests 1  prompts 0  executions 1  blocked 0"),
        "{budget}"
    );

    assert!(
        text.contains("requests 13  prompts 3  executions 6  blocked 6  waiting 1  failed 0"),
        "{text}"
    );
    assert!(text.contains("hash chain intact"));
    // The demo's ledger is its own: nothing in the user's state directory.
    assert!(!ws.base.join("state/toolgate.db").exists());
}

#[test]
fn demo_flags_run_one_configuration() {
    let ws = Ws::new(POLICY);
    let out = demo(&ws, &["--decision", "deny"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(text.matches("call 1 ").count(), 1, "{text}");
    assert!(text.contains("1. your configuration"), "{text}");
    assert!(text.contains("-> decline"), "{text}");
    assert!(text.contains("notes.txt \"draft\""), "{text}");

    let text = stdout(&demo(&ws, &["--block", "write_file"]));
    assert!(text.contains("rule host:blocked-tool"), "{text}");
    assert!(text.contains("notes.txt \"draft\""), "{text}");

    let text = stdout(&demo(&ws, &["--max-calls", "1"]));
    assert!(text.contains("beyond the call budget of 1"), "{text}");
    assert!(
        text.contains("requests 1  prompts 0  executions 1"),
        "{text}"
    );

    let text = stdout(&demo(&ws, &["--decision", "allow"]));
    assert!(text.contains("notes.txt \"reviewed\""), "{text}");

    assert_eq!(code(&demo(&ws, &["--decision", "maybe"])), 2);
}

#[test]
fn the_demo_needs_no_home_and_no_configuration() {
    let ws = Ws::new(POLICY);
    let mut c = ws.command(&["demo"]);
    c.env_remove("HOME").env_remove("TOOLGATE_STATE_DIR");
    c.current_dir(Path::new("/"));
    let out = wait_bounded(c.spawn().unwrap(), Duration::from_secs(60));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("hash chain intact"));
}

/// The agent's `run_shell` runs inside the sandbox; with a fetch allowed,
/// its network is toolgate's proxy, and each connection the proxy refuses
/// is a ledger row where the agent's own calls are recorded.
#[test]
fn the_agents_shell_records_what_its_proxy_refuses() {
    let have_curl = Command::new("sh")
        .args(["-c", "command -v curl"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_curl {
        eprintln!("curl missing: skipped");
        assert!(std::env::var_os("CI").is_none(), "CI installs curl");
        return;
    }
    let ws =
        Ws::new("allow = [\"Read\", \"Edit\", \"Bash\", \"WebFetch(domain:allowed.example)\"]\n");
    let command = "curl -sS --max-time 10 -o /dev/null -w '%{http_code}' http://blocked.example/x > code.txt; echo ran > marker.txt";
    let script = ws.script(&format!(
        "[[turn]]\n[[turn.call]]\nname = \"run_shell\"\narguments = {{ command = {} }}\n\n[[turn]]\ntext = \"done\"\n",
        toml_string(command)
    ));
    let enforced = ws.run(&["sandbox", "--check"], &[]).status.success();
    if !enforced {
        eprintln!("this kernel cannot enforce the sandbox: skipped");
        assert!(std::env::var_os("CI").is_none(), "CI requires the sandbox");
        return;
    }
    let out = ws.run(&["agent", "x", "--script", &script], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        ws.marker().exists(),
        "the command did not run: {}",
        stderr(&out)
    );
    let code_seen = std::fs::read_to_string(ws.root.join("code.txt")).unwrap_or_default();
    assert_eq!(code_seen, "403", "the proxy did not refuse it");
    let rows = ws
        .ledger()
        .rows(&toolgate_store::RowFilter::default())
        .unwrap();
    let refused: Vec<_> = rows
        .iter()
        .filter(|r| r.record.input.contains("blocked.example"))
        .filter(|r| r.record.tool != "run_shell")
        .collect();
    assert_eq!(refused.len(), 1, "{rows:?}");
    assert_eq!(refused[0].record.outcome.to_string(), "blocked", "{rows:?}");
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}

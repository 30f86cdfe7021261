//! `toolgate mcp` fails closed on what it cannot read exactly: raw lines
//! that repeat a key (in either direction), methods it does not know,
//! parameters that do not fit their method, resource reads the policy
//! denies, and tools that appear after the first listing. Real servers
//! (`server-filesystem`, the repo's own `server.py`) show that what was
//! refused never ran; `dupes.py` is the one server that writes the bad
//! lines itself. They need `scripts/install-mcp.sh` to have run.

use serde_json::{Value, json};
use toolgate_store::Decision;

use crate::mcp::{Env, Wire, free_port, npm_server, own_server, py_dir, python, terminate};

/// The ledger rows of `env` as (tool, decision, rule).
fn decided(env: &Env) -> Vec<(String, Decision, Option<String>)> {
    env.rows()
        .into_iter()
        .map(|r| (r.record.tool, r.record.decision, r.record.rule))
        .collect()
}

/// The same, once `n` rows are there (a refusal of a server's line is
/// recorded beside its relay, not before it).
fn decided_when(env: &Env, n: usize) -> Vec<(String, Decision, Option<String>)> {
    for _ in 0..100 {
        let rows = decided(env);
        if rows.len() >= n {
            return rows;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    decided(env)
}

fn refused_row(tool: &str) -> (String, Decision, Option<String>) {
    (
        tool.to_string(),
        Decision::Deny,
        Some("invalid-arguments".to_string()),
    )
}

/// A `tools/call` line whose `params` are written as given (so that a key
/// can be repeated).
fn call_line(id: &str, params: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
}

fn text(v: &Value) -> String {
    serde_json::to_string(v).expect("json")
}

#[test]
fn a_call_that_repeats_a_key_at_any_level_is_refused_recorded_and_never_runs() {
    let env = Env::new(
        r#"allow = ["mcp__fs__write_file", "mcp__fs__read_text_file"]
[tool.mcp__fs__write_file]
kind = "write"
field = "path"
"#,
    );
    let mut server = npm_server("filesystem");
    server.push(env.ws("").to_string_lossy().into_owned());
    let mut w = Wire::start(env.gateway("fs", &[], &server));
    w.initialize();
    let path = |f: &str| text(&json!(env.ws(f)));
    // Control: the same call without a repeated key runs, so a marker
    // that stays absent below was kept from running by the gateway.
    let args = |f: &str, extra: &str| format!(r#"{{"path":{},"content":"x"{extra}}}"#, path(f));
    w.send(&call_line(
        "2",
        &format!(
            r#"{{"name":"write_file","arguments":{},"_meta":{{"k":1}}}}"#,
            args("control", r#","extra":{"deep":[{"k":1}]}"#)
        ),
    ));
    let r = w.response();
    assert!(
        r.get("result").is_some() && r["result"]["isError"] != true,
        "{r}"
    );
    assert!(env.ws("control").exists(), "the control call ran");

    let cases = [
        // `arguments` twice: the gate would see one, the server the other.
        (
            "3",
            format!(
                r#"{{"name":"write_file","arguments":{},"arguments":{}}}"#,
                args("ok", ""),
                args("m-arguments", "")
            ),
            "mcp__fs__write_file",
        ),
        // `name` twice.
        (
            "4",
            format!(
                r#"{{"name":"read_text_file","name":"write_file","arguments":{}}}"#,
                args("m-name", "")
            ),
            "mcp__fs__tools/call",
        ),
        // Deep inside the arguments.
        (
            "5",
            format!(
                r#"{{"name":"write_file","arguments":{}}}"#,
                args("m-deep", r#","extra":{"deep":[{"k":1,"k":2}]}"#)
            ),
            "mcp__fs__write_file",
        ),
        // In `_meta`.
        (
            "6",
            format!(
                r#"{{"name":"write_file","arguments":{},"_meta":{{"k":1,"k":2}}}}"#,
                args("m-meta", "")
            ),
            "mcp__fs__write_file",
        ),
        // The key spelt with an escape is the same key.
        (
            "7",
            format!(
                r#"{{"name":"write_file","arguments":{},"argument\u0073":{}}}"#,
                args("ok", ""),
                args("m-escaped", "")
            ),
            "mcp__fs__write_file",
        ),
    ];
    for (id, params, _) in &cases {
        w.send(&call_line(id, params));
        let r = w.response();
        assert_eq!(r["id"].to_string(), *id, "answered under its id: {r}");
        assert_eq!(r["error"]["code"], -32600, "{r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("repeats the key")),
            "{r}"
        );
    }
    // The id itself twice: answered under `null`.
    w.send(&format!(
        r#"{{"jsonrpc":"2.0","id":8,"id":9,"method":"tools/call","params":{{"name":"write_file","arguments":{}}}}}"#,
        args("m-id", "")
    ));
    let r = w.response();
    assert!(r["id"].is_null(), "{r}");
    assert_eq!(r["error"]["code"], -32600, "{r}");

    for f in [
        "ok",
        "m-arguments",
        "m-name",
        "m-deep",
        "m-meta",
        "m-escaped",
        "m-id",
    ] {
        assert!(
            !env.ws(f).exists(),
            "{f}: a refused call reached the server"
        );
    }
    let rows = decided(&env);
    let mut want = vec![(
        "mcp__fs__write_file".to_string(),
        Decision::Allow,
        Some("allow[0]".to_string()),
    )];
    want.extend(cases.iter().map(|(_, _, tool)| refused_row(tool)));
    want.push(refused_row("mcp__fs__write_file"));
    assert_eq!(rows, want);
    // The row keeps the line as it came.
    let last = env.rows().pop().expect("a row");
    assert!(last.record.input.contains("m-id"), "{}", last.record.input);
}

#[test]
fn parameters_of_the_wrong_type_are_refused_and_recorded() {
    let env = Env::new("allow = [\"mcp__marker__*\"]\n");
    let mut w = Wire::start(env.gateway("marker", &[], &own_server()));
    w.initialize();
    let m = text(&json!(env.ws("m1")));
    // `_meta` that is no object: not a message rmcp reads at all.
    w.send(&call_line(
        "2",
        &format!(r#"{{"name":"touch","arguments":{{"path":{m}}},"_meta":"x"}}"#),
    ));
    let r = w.response();
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(2), json!(-32600)),
        "{r}"
    );
    // A name that is no string: not a `tools/call` of the protocol.
    w.send(&call_line(
        "3",
        &format!(r#"{{"name":["touch"],"arguments":{{"path":{m}}}}}"#),
    ));
    let r = w.response();
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(3), json!(-32602)),
        "{r}"
    );
    // Arguments that are no object.
    w.send(&call_line("4", r#"{"name":"touch","arguments":["p"]}"#));
    let r = w.response();
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(4), json!(-32602)),
        "{r}"
    );
    assert!(!env.ws("m1").exists());
    assert_eq!(
        decided(&env),
        vec![
            refused_row("mcp__marker__touch"),
            refused_row("mcp__marker__tools/call"),
            refused_row("mcp__marker__tools/call"),
        ]
    );
}

#[test]
fn an_unknown_method_is_refused_unless_a_rule_allows_it() {
    let env = Env::new("allow = [\"mcp__marker__touch\"]\n");
    let mut w = Wire::start(env.gateway("marker", &[], &own_server()));
    w.initialize();
    w.request(2, "x/run", json!({"path": "p"}));
    let r = w.response();
    assert_eq!(r["error"]["code"], -32601, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("toolgate")),
        "the gateway's refusal, not the server's answer: {r}"
    );
    w.send(r#"{"jsonrpc":"2.0","method":"notifications/x","params":{}}"#);
    let rows = decided(&env);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0].0, "mcp__marker__x/run");
    assert_ne!(rows[0].1, Decision::Allow);

    // A rule that allows the name lets it through: the server answers
    // (its own "method not found").
    let env = Env::new("allow = [\"mcp__marker__x?run\"]\n");
    let mut w = Wire::start(env.gateway("marker", &[], &own_server()));
    w.initialize();
    w.request(2, "x/run", json!({"path": "p"}));
    let r = w.response();
    assert!(r.get("error").is_some(), "{r}");
    assert!(
        !r["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("toolgate")),
        "forwarded to the server: {r}"
    );
    assert_eq!(
        decided(&env),
        vec![(
            "mcp__marker__x/run".to_string(),
            Decision::Allow,
            Some("allow[0]".to_string())
        )]
    );
}

#[test]
fn a_resource_read_meets_the_read_rules_of_its_file() {
    let env = Env::new("allow = [\"Read\"]\ndeny = [\"Read(secret.txt)\"]\n");
    std::fs::write(env.ws("a.txt"), "hello\n").expect("write");
    std::fs::write(env.ws("secret.txt"), "s3cret\n").expect("write");
    let a = env.ws("a.txt");
    let secret = env.ws("secret.txt");
    let served = std::env::join_paths([&a, &secret]).expect("paths");
    let mut gw = env.gateway("marker", &[], &own_server());
    gw.env("MARKER_RESOURCES", served);
    let mut w = Wire::start(gw);
    w.initialize();
    let uri = |p: &std::path::Path| format!("file://{}", p.display());
    w.request(2, "resources/read", json!({"uri": uri(&a)}));
    let r = w.response();
    assert_eq!(r["result"]["contents"][0]["text"], "hello\n", "{r}");
    assert!(env.ws("a.txt.read").exists(), "the allowed read ran");
    w.request(3, "resources/read", json!({"uri": uri(&secret)}));
    let r = w.response();
    assert_eq!(r["id"], 3);
    assert_eq!(r["error"]["code"], -32600, "{r}");
    assert!(
        !env.ws("secret.txt.read").exists(),
        "the denied read never ran"
    );
    // Outside the roots: a hard limit, whatever the server serves.
    w.request(
        4,
        "resources/read",
        json!({"uri": "file:///var/log/syslog"}),
    );
    let r = w.response();
    assert_eq!(r["error"]["code"], -32600, "{r}");
    let rows = decided(&env);
    let tools: Vec<(&str, Decision)> = rows.iter().map(|r| (r.0.as_str(), r.1)).collect();
    assert_eq!(
        tools,
        vec![
            ("read_file", Decision::Allow),
            ("read_file", Decision::Deny),
            ("read_file", Decision::Deny)
        ]
    );
    assert_eq!(rows[1].2.as_deref(), Some("deny[0]"));
    assert_eq!(rows[2].2.as_deref(), Some("hard:outside-roots"));
    // A URI that WHATWG URL parsers read as another file (a leading space,
    // a tab in the scheme, backslashes for slashes): refused before the
    // server sees it, never decided as something else.
    let sub = env.ws("sub").display().to_string();
    for (id, bad) in [
        (5, format!(" {}", uri(&secret))),
        (6, format!("fi\tle://{}", secret.display())),
        (7, format!("file://{sub}\\..\\secret.txt")),
    ] {
        w.request(id, "resources/read", json!({"uri": bad}));
        let r = w.response();
        assert_eq!(r["id"], id);
        assert_eq!(r["error"]["code"], -32602, "{bad:?}: {r}");
    }
    assert!(
        !env.ws("secret.txt.read").exists(),
        "the server never read the secret"
    );
}

#[test]
fn a_tool_that_appears_after_the_first_listing_is_not_trusted_until_accepted() {
    let env = Env::new("allow = [\"mcp__marker__*\"]\n");
    let mut w = Wire::start(env.gateway("marker", &[], &own_server()));
    w.initialize();
    w.request(2, "tools/list", json!({}));
    let r = w.response();
    assert!(
        r["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{r}"
    );
    w.request(
        3,
        "tools/call",
        json!({"name": "grow", "arguments": {"name": "late"}}),
    );
    assert_eq!(w.response()["result"]["isError"], false);
    let m1 = env.ws("m1").to_string_lossy().into_owned();
    w.request(
        4,
        "tools/call",
        json!({"name": "late", "arguments": {"path": m1}}),
    );
    let r = w.response();
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert!(
        r["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("appeared later")),
        "{r}"
    );
    assert!(!env.ws("m1").exists(), "the new tool did not run");
    w.request(5, "tools/list", json!({}));
    let r = w.response();
    let late = r["result"]["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "late"))
        .cloned()
        .expect("the new tool is listed");
    assert!(
        late["description"]
            .as_str()
            .is_some_and(|d| d.starts_with("[toolgate: not trusted")),
        "{late}"
    );
    // Waiting in the queue as a change of the server's definitions.
    let store = toolgate_store::Store::open_in(env.path("state")).expect("store");
    let waiting: Vec<_> = store
        .list_pending()
        .expect("pending")
        .into_iter()
        .filter(|p| p.rule.as_deref() == Some("host:pin-changed"))
        .collect();
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].tool, "mcp__marker__late");
    drop(store);

    let accept = std::process::Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["mcp", "pins", "accept", "marker", "late"])
        .env("TOOLGATE_STATE_DIR", env.path("state"))
        .output()
        .expect("run pins accept");
    assert!(
        accept.status.success(),
        "{}",
        String::from_utf8_lossy(&accept.stderr)
    );
    w.request(6, "tools/list", json!({}));
    w.response();
    w.request(
        7,
        "tools/call",
        json!({"name": "late", "arguments": {"path": m1}}),
    );
    let r = w.response();
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert!(env.ws("m1").exists(), "accepted: it runs");
}

#[test]
fn a_server_line_that_repeats_a_key_is_not_passed_on() {
    let env = Env::new("allow = [\"mcp__dupes__t\"]\n");
    let server = vec![
        python().to_string_lossy().into_owned(),
        py_dir().join("dupes.py").to_string_lossy().into_owned(),
    ];
    let mut w = Wire::start(env.gateway("dupes", &[], &server));
    w.initialize();
    w.request(2, "tools/list", json!({}));
    let r = w.response();
    assert_eq!(r["result"]["tools"][0]["description"], "Harmless.", "{r}");
    // The call runs, but its answer repeats `content`: the client gets an
    // error, not one reading of it.
    let m = env.ws("ran").to_string_lossy().into_owned();
    w.request(
        3,
        "tools/call",
        json!({"name": "t", "arguments": {"path": m}}),
    );
    let r = w.response();
    assert_eq!(r["id"], 3);
    assert_eq!(r["error"]["code"], -32603, "{r}");
    assert!(env.ws("ran").exists());
    // A listing whose tool repeats its description is not shown.
    w.request(4, "tools/list", json!({}));
    let r = w.response();
    assert_eq!(r["id"], 4);
    assert!(r.get("result").is_none(), "{r}");
    // A request of the server's whose id is given twice is refused.
    w.request(5, "resources/list", json!({}));
    let r = w.response();
    assert_eq!(r["id"], 5);
    let rows = decided_when(&env, 4);
    assert_eq!(
        rows,
        vec![
            (
                "mcp__dupes__t".to_string(),
                Decision::Allow,
                Some("allow[0]".to_string())
            ),
            refused_row("mcp__dupes__(response)"),
            refused_row("mcp__dupes__(response)"),
            refused_row("mcp__dupes__ping"),
        ]
    );
}

/// One HTTP/1.1 POST of `body` to `port`'s `/mcp`; the status line and the
/// body of the answer.
fn post(port: u16, body: &str) -> (String, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    write!(
        s,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut answer = String::new();
    s.read_to_string(&mut answer).expect("read");
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head.lines().next().unwrap_or_default().to_string();
    (status, body.to_string())
}

#[test]
fn an_http_client_body_that_repeats_a_key_is_refused_and_recorded() {
    let env = Env::new("allow = [\"mcp__marker__*\"]\n");
    let port = free_port();
    let mut gw = env.gateway("marker", &["--listen", &port.to_string()], &own_server());
    gw.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut gateway = gw.spawn().expect("start toolgate mcp --listen");
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let m = text(&json!(env.ws("m1")));
    let (status, body) = post(
        port,
        &call_line(
            "1",
            &format!(r#"{{"name":"touch","arguments":{{"path":"x"}},"arguments":{{"path":{m}}}}}"#),
        ),
    );
    assert!(status.contains(" 200 "), "{status}");
    let r: Value = serde_json::from_str(&body).expect("a JSON-RPC answer");
    assert_eq!(
        (r["id"].clone(), r["error"]["code"].clone()),
        (json!(1), json!(-32600)),
        "{r}"
    );
    assert_eq!(decided(&env), vec![refused_row("mcp__marker__touch")]);
    assert!(!env.ws("m1").exists());
    terminate(gateway.id());
    let _ = gateway.wait();
}

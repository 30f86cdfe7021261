//! What a person is shown of a call: the page's JSON and the notifications
//! carry no raw control, bidi or invisible character, only visible escapes;
//! the stored values stay exact for programs.

use crate::support;

use std::time::Duration;

use serde_json::{Value, json};
use toolgate_policy::{Client, Notify};
use toolgate_store::shown::is_hidden;

use support::{Fixture, http_full, webhook_receiver};

/// Erases the line, returns the cursor and reverses the rest: on a
/// terminal or a page shown raw, it reads as something else.
const COMMAND: &str = "echo ok\x1b[2K\rrm -rf ~ \u{202e}gnp.exe";
const COMMAND_SHOWN: &str = "echo ok\\x1b[2K\\rrm -rf ~ \\u{202e}gnp.exe";

/// No raw hidden character anywhere in `text` (a JSON text has no raw
/// newline inside its strings, so none at all is allowed).
fn assert_clean(what: &str, text: &str) {
    for (i, c) in text.char_indices() {
        assert!(
            !is_hidden(c) || c == '\n',
            "{what}: raw {c:?} at byte {i}: {text}"
        );
    }
    for b in text.bytes() {
        assert!(b >= 0x20 || b == b'\n', "{what}: raw byte {b:#04x}");
        assert_ne!(b, 0x7f, "{what}: raw DEL");
    }
}

fn get_text(f: &Fixture, path: &str) -> String {
    let (status, _, body) = http_full(
        "GET",
        &format!("{}{path}", f.url),
        &[("authorization", &f.bearer())],
        None,
    );
    assert_eq!(status, 200, "{body}");
    body
}

#[test]
fn the_page_json_shows_the_call_escaped_and_keeps_it_exact() {
    let f = Fixture::start();
    let session = "s\x1b]0;title\x07\u{2066}";
    let reason = format!("`{COMMAND}` asks");
    let id = f.queue_full(
        session,
        Some(Client::Claude),
        "Bash",
        json!({ "command": COMMAND }),
        false,
        &reason,
    );
    for path in [
        "/api/approvals",
        &format!("/api/approvals/{id}"),
        "/api/history",
    ] {
        assert_clean(path, &get_text(&f, path));
    }

    let v: Value = serde_json::from_str(&get_text(&f, "/api/approvals")).unwrap();
    let a = &v["approvals"][0];
    // For programs: exactly what was stored.
    assert_eq!(a["input"]["command"], COMMAND);
    assert_eq!(a["session"], session);
    assert_eq!(a["reason"], reason.as_str());
    // For people: visible escapes, nothing raw.
    let shown = &a["shown"];
    assert_eq!(shown["session"], "s\\x1b]0;title\\x07\\u{2066}");
    assert_eq!(shown["reason"], format!("`{COMMAND_SHOWN}` asks"));
    assert_eq!(shown["tool"], "Bash");
    assert_eq!(a["details"]["command"], COMMAND_SHOWN);
    let argv = a["details"]["parts"][0]["argv"].to_string();
    // (tree-sitter-bash splits words at the carriage return, bash does
    // not; either way each part is escaped.)
    assert!(
        argv.contains("ok\\\\x1b[2K") && argv.contains("\\\\u{202e}gnp.exe"),
        "{argv}"
    );
    let input = shown["input"].as_str().unwrap();
    assert!(
        input.contains("\\u001b[2K\\r") && input.contains("\\u202e"),
        "{input}"
    );
    for s in [shown.to_string(), a["details"].to_string()] {
        let decoded: Value = serde_json::from_str(&s).unwrap();
        assert_clean("decoded shown/details", &all_strings(&decoded));
    }

    let h: Value = serde_json::from_str(&get_text(&f, "/api/history")).unwrap();
    let row = &h["rows"][0]["shown"];
    assert!(
        row["input"].as_str().unwrap().contains("\\\\u001b[2K\\\\r"),
        "{row}"
    );
    assert!(
        row["session"].as_str().unwrap().contains("\\x1b]0;"),
        "{row}"
    );
    assert_clean("decoded history", &all_strings(row));
}

/// Every string in `v`, joined by spaces.
fn all_strings(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(all_strings).collect::<Vec<_>>().join(" "),
        Value::Object(o) => o.values().map(all_strings).collect::<Vec<_>>().join(" "),
        _ => String::new(),
    }
}

#[test]
fn a_multi_line_command_keeps_its_lines_on_the_page_and_nothing_else() {
    let f = Fixture::start();
    f.queue(
        "s",
        None,
        "run_shell",
        json!({ "command": "ls\n\tcat a\r\nrm b" }),
    );
    let v: Value = serde_json::from_str(&get_text(&f, "/api/approvals")).unwrap();
    assert_eq!(
        v["approvals"][0]["details"]["command"],
        "ls\n\\tcat a\\r\nrm b"
    );
}

#[test]
fn the_page_sets_every_text_as_text_from_the_escaped_fields() {
    let f = Fixture::start();
    let js = get_text(&f, "/assets/app.js");
    for html in [
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
    ] {
        assert!(!js.contains(html), "app.js uses {html}");
    }
    // The raw fields are never what the page shows.
    for raw in [
        "a.tool",
        "a.reason",
        "a.session",
        "a.input)",
        "r.input",
        "r.tool",
        "r.note",
    ] {
        assert!(!js.contains(raw), "app.js shows `{raw}` raw");
    }
}

#[test]
fn a_webhook_names_the_call_escaped_and_sends_no_raw_control_character() {
    let (hook, rx) = webhook_receiver();
    let f = Fixture::with_notify(Notify {
        webhook: Some(hook),
        include_arguments: true,
        ..Notify::default()
    });
    let tool = "Bash\x1b[2K\rRead";
    let session = "s\u{202e}1";
    f.queue_full(
        session,
        Some(Client::Claude),
        tool,
        json!({ "command": COMMAND }),
        false,
        COMMAND,
    );
    let (_, body) = rx.recv_timeout(Duration::from_secs(10)).expect("a POST");
    assert_clean("webhook body", &body);
    let v: Value = serde_json::from_str(&body).expect("JSON");
    for k in ["text", "body", "message", "summary"] {
        let text = v[k].as_str().unwrap();
        assert_clean(k, text);
        assert!(
            text.contains("Bash\\x1b[2K\\rRead") && text.contains("session s\\u{202e}1"),
            "{k}: {text}"
        );
    }
    // toolgate's own fields: the stored values, exact.
    assert_eq!(v["tool"], tool);
    assert_eq!(v["session"], session);
    assert_eq!(v["arguments"]["command"], COMMAND);
}

//! A call the reviewer model escalated waits for a person like any other;
//! the page shows the reviewer's reason beside it, escaped.

use crate::support;

use serde_json::{Value, json};
use toolgate_policy::Client;
use toolgate_store::{ReviewDecision, ReviewRecord};

use support::{Fixture, http_full};

/// A reason that would reorder or hide text if shown raw.
const REASON: &str = "force-pushes to main \u{202e}<b>x</b>\x1b[2K";
const REASON_SHOWN: &str = "force-pushes to main \\u{202e}<b>x</b>\\x1b[2K";

fn escalated() -> ReviewRecord {
    ReviewRecord {
        model: "gpt-4.1-mini".to_owned(),
        decision: ReviewDecision::Escalate,
        reason: REASON.to_owned(),
        latency_ms: 412,
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
fn an_escalated_call_shows_the_reviewers_reason_escaped() {
    let f = Fixture::start();
    let reviewed = f.queue_reviewed(
        "s1",
        Some(Client::Claude),
        "Bash",
        json!({ "command": "git push --force origin main" }),
        false,
        "pushing asks",
        Some(escalated()),
    );
    let plain = f.queue(
        "s1",
        Some(Client::Claude),
        "Bash",
        json!({ "command": "ls" }),
    );

    let (status, v) = f.get("/api/approvals");
    assert_eq!(status, 200, "{v}");
    let list = v["approvals"].as_array().unwrap();
    let find = |id: &str| list.iter().find(|a| a["id"] == id).expect("listed").clone();
    let a = find(&reviewed);
    // For programs: the stored values, exact.
    assert_eq!(
        a["review"],
        json!({
            "model": "gpt-4.1-mini",
            "decision": "escalate",
            "reason": REASON,
            "latency_ms": 412,
        })
    );
    // For people: escaped, beside the policy's reason.
    assert_eq!(a["shown"]["reason"], "pushing asks");
    assert_eq!(a["shown"]["review"]["reason"], REASON_SHOWN);
    assert_eq!(a["shown"]["review"]["model"], "gpt-4.1-mini");
    assert_eq!(a["shown"]["review"]["decision"], "escalate");
    // A call nobody reviewed has none.
    let p = find(&plain);
    assert_eq!(p["review"], Value::Null);
    assert_eq!(p["shown"]["review"], Value::Null);

    let (status, one) = f.get(&format!("/api/approvals/{reviewed}"));
    assert_eq!(status, 200, "{one}");
    assert_eq!(one["shown"]["review"]["reason"], REASON_SHOWN);

    // The history row of the escalated call carries it too.
    let (_, h) = f.get("/api/history");
    let row = h["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["approval_id"] == reviewed.as_str())
        .expect("the waiting row")
        .clone();
    assert_eq!(row["review"]["decision"], "escalate");
    assert_eq!(row["shown"]["review"]["reason"], REASON_SHOWN);

    // Nothing raw in what the page reads.
    for path in ["/api/approvals", "/api/history"] {
        let text = get_text(&f, path);
        assert!(
            !text.contains('\u{202e}') && !text.contains('\x1b'),
            "{path}: {text}"
        );
    }
}

#[test]
fn the_page_shows_the_review_from_the_escaped_fields() {
    let f = Fixture::start();
    let html = get_text(&f, "/");
    assert!(html.contains(r#"<div class="review"></div>"#), "{html}");
    let js = get_text(&f, "/assets/app.js");
    assert!(
        js.contains("s.review.reason"),
        "app.js shows the reviewer's reason"
    );
    assert!(!js.contains("a.review"), "app.js shows the raw review");
}

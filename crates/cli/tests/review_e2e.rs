//! The reviewer under the real Claude Code: `toolgate hook install claude`
//! in a project whose policy names a fake OpenAI-compatible reviewer on
//! 127.0.0.1. The call the reviewer allows runs without a prompt; the one
//! it denies does not run, and the model reads the reviewer's reason. They
//! need `scripts/install-clients.sh` to have run.

use crate::support;

use serde_json::{Value, json};
use support::anthropic::FakeAnthropic;
use support::http::{Limits, Request, Response, Server};
use support::{Sandbox, Turn, run_claude};
use toolgate_store::{ReviewDecision, RowFilter, Store};

const PROMPT: &str = "Create the two marker files for the release.";
const NO: &str = "REVIEWER-SAYS-NO: it writes a file nobody asked for";

/// Allows a call whose document names `approved-by-reviewer`, denies any
/// other, as OpenAI chat completions (streamed or not).
fn reviewer() -> Server {
    Server::start(Limits::default(), |req: &Request| {
        let body = req.json().unwrap_or(Value::Null);
        let sent = body["messages"].to_string();
        let answer = if sent.contains("touch approved-by-reviewer") {
            json!({"decision": "allow", "reason": "the person asked for marker files"})
        } else {
            json!({"decision": "deny", "reason": NO})
        }
        .to_string();
        if body["stream"] == json!(true) {
            let chunk = json!({"choices": [{"index": 0, "delta": {"content": answer}}]});
            Response::event_stream(format!("data: {chunk}\n\ndata: [DONE]\n\n"))
        } else {
            Response::json(
                200,
                &json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": answer}}]}),
            )
        }
    })
}

#[test]
fn claude_code_runs_what_the_reviewer_allows_and_not_what_it_denies() {
    if !support::have_clients() {
        return;
    }
    let review = reviewer();
    let sandbox = Sandbox::new();
    let policy = format!(
        r#"
ask = ["Bash(touch *)"]

[review]
api = "openai"
model = "fake-reviewer"
base_url = "{}/v1"
api_key_env = "TOOLGATE_TEST_REVIEW_KEY"
timeout = 20
"#,
        review.url()
    );
    std::fs::write(sandbox.path("toolgate.toml"), policy).expect("write the policy");
    crate::hooks_e2e::install(&sandbox, "claude", &[]);

    let bash = |c: &str| {
        Turn::tool(
            "Bash",
            json!({"command": c, "description": "Make a marker"}),
        )
    };
    let api = FakeAnthropic::start(vec![
        bash("touch approved-by-reviewer"),
        bash("touch denied-by-reviewer"),
    ]);
    let run = run_claude(&sandbox, &api, PROMPT, &[]);
    assert!(run.status.success(), "claude failed: {}", run.stderr);
    assert_eq!(api.unanswered(), Vec::<String>::new());

    assert!(
        sandbox.path("approved-by-reviewer").exists(),
        "the call the reviewer allowed did not run: {}",
        run.stdout
    );
    assert!(
        !sandbox.path("denied-by-reviewer").exists(),
        "the call the reviewer denied ran"
    );
    let results = api.tool_results();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(!results[0].is_error, "{:?}", results[0]);
    assert!(
        results[1].is_error && results[1].content.contains(NO),
        "the model was not told the reviewer's reason: {:?}",
        results[1]
    );

    // The reviewer read the person's request from the transcript, and never
    // a tool result.
    let sent: Vec<String> = review
        .requests()
        .iter()
        .filter_map(Request::json)
        .map(|b| b["messages"].to_string())
        .collect();
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert!(sent.iter().all(|s| s.contains(PROMPT)), "{sent:?}");
    assert!(
        !sent[1].contains("approved-by-reviewer"),
        "the second review saw the first call's result: {}",
        sent[1]
    );

    let rows = Store::open(sandbox.state.join("toolgate.db"))
        .expect("open the ledger")
        .rows(&RowFilter::default())
        .expect("ledger rows");
    let reviews: Vec<_> = rows
        .iter()
        .map(|r| {
            r.record
                .review
                .as_ref()
                .map(|v| (v.decision, v.model.clone()))
        })
        .collect();
    assert_eq!(
        reviews,
        vec![
            Some((ReviewDecision::Allow, "fake-reviewer".to_string())),
            Some((ReviewDecision::Deny, "fake-reviewer".to_string())),
        ]
    );
}

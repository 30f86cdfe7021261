//! The reviewer against fake OpenAI and Anthropic servers on 127.0.0.1,
//! streamed and not. "Not executed" is proven by a marker file that does
//! not exist; "the person was asked" by an approver that counts its
//! questions; "never reached the reviewer" by the fake's request count.

#[path = "../../hook/tests/support/http.rs"]
#[allow(dead_code)]
mod http;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::{Limits, Request, Response, Server};
use serde_json::{Value, json};
use toolgate_gate::{
    Answer, ApprovalRequest, Approver, Gate, GateOptions, Outcome, Requests, ToolOutput, Verdict,
};
use toolgate_policy::{Call, LoadOptions, Policy, ReviewApi, ReviewConfig};
use toolgate_store::{ReviewDecision, RowFilter, Store};

const POLICY: &str = r#"
[policy]
default = "ask"
allow = ["Bash(ls)"]
deny = ["Bash(rm *)"]
"#;

/// What the fake reviewer answers to the n-th request.
type Script = Arc<dyn Fn(usize) -> Reply + Send + Sync>;

#[derive(Clone)]
enum Reply {
    /// The reply text, as the API carries it.
    Text(String),
    /// An HTTP status with a JSON error.
    Status(u16),
    /// Nothing before this long.
    Sleep(Duration),
}

fn decision(d: &str, reason: &str) -> Reply {
    Reply::Text(json!({"decision": d, "reason": reason}).to_string())
}

struct Reviewer {
    server: Server,
    api: ReviewApi,
}

impl Reviewer {
    fn start(api: ReviewApi, script: Script) -> Reviewer {
        let n = Arc::new(AtomicUsize::new(0));
        let server = Server::start(
            Limits {
                max_requests: 500,
                ..Limits::default()
            },
            move |req: &Request| {
                let i = n.fetch_add(1, Ordering::SeqCst);
                let stream = req
                    .json()
                    .and_then(|b| b.get("stream").and_then(Value::as_bool))
                    .unwrap_or(false);
                match script(i) {
                    Reply::Text(t) => answer(api, stream, &t),
                    Reply::Status(s) => Response::json(s, &json!({"error": {"message": "boom"}})),
                    Reply::Sleep(d) => {
                        std::thread::sleep(d);
                        answer(api, stream, &decision("allow", "late").text())
                    }
                }
            },
        );
        Reviewer { server, api }
    }

    fn config(&self, stream: bool) -> ReviewConfig {
        let mut c = ReviewConfig::new(self.api, "fake-reviewer");
        c.base_url = match self.api {
            ReviewApi::OpenAi => format!("{}/v1", self.server.url()),
            ReviewApi::Anthropic => self.server.url(),
        };
        c.api_key_env = "TOOLGATE_TEST_REVIEW_KEY_UNSET".into();
        c.stream = stream;
        c.timeout = Duration::from_secs(5);
        c
    }

    fn bodies(&self) -> Vec<Value> {
        self.server
            .requests()
            .iter()
            .filter(|r| r.method == "POST")
            .filter_map(Request::json)
            .collect()
    }
}

impl Reply {
    fn text(&self) -> String {
        match self {
            Reply::Text(t) => t.clone(),
            _ => String::new(),
        }
    }
}

fn answer(api: ReviewApi, stream: bool, text: &str) -> Response {
    match (api, stream) {
        (ReviewApi::OpenAi, false) => Response::json(
            200,
            &json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                "finish_reason": "stop"}]}),
        ),
        (ReviewApi::OpenAi, true) => {
            let mut body = String::new();
            for piece in split(text) {
                let chunk = json!({"choices": [{"index": 0, "delta": {"content": piece}}]});
                body.push_str(&format!("data: {chunk}\n\n"));
            }
            body.push_str("data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
            Response::event_stream(body)
        }
        (ReviewApi::Anthropic, false) => Response::json(
            200,
            &json!({"id": "msg_1", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": text}], "stop_reason": "end_turn"}),
        ),
        (ReviewApi::Anthropic, true) => {
            let mut body = String::new();
            let mut event = |name: &str, data: Value| {
                body.push_str(&format!("event: {name}\ndata: {data}\n\n"));
            };
            event(
                "message_start",
                json!({"type": "message_start", "message": {"id": "msg_1", "content": []}}),
            );
            event(
                "content_block_start",
                json!({"type": "content_block_start", "index": 0,
                    "content_block": {"type": "text", "text": ""}}),
            );
            for piece in split(text) {
                event(
                    "content_block_delta",
                    json!({"type": "content_block_delta", "index": 0,
                        "delta": {"type": "text_delta", "text": piece}}),
                );
            }
            event(
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 0}),
            );
            event(
                "message_delta",
                json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
            );
            event("message_stop", json!({"type": "message_stop"}));
            Response::event_stream(body)
        }
    }
}

/// The text in three pieces, as a stream carries it.
fn split(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let third = chars.len().div_ceil(3).max(1);
    chars.chunks(third).map(|c| c.iter().collect()).collect()
}

/// Counts the person's questions and answers each with `answer`.
#[derive(Clone)]
struct Person {
    asked: Arc<Mutex<Vec<String>>>,
    answer: Answer,
}

impl Person {
    fn declining() -> Person {
        Person {
            asked: Arc::default(),
            answer: Answer::Decline { note: None },
        }
    }

    fn questions(&self) -> usize {
        self.asked.lock().unwrap().len()
    }
}

impl Approver for Person {
    fn ask(&mut self, req: &mut ApprovalRequest) -> Result<Answer, toolgate_gate::AskError> {
        self.asked.lock().unwrap().push(req.call.tool.clone());
        Ok(self.answer.clone())
    }
}

struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    db: PathBuf,
}

impl Ws {
    fn new() -> Ws {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(base.join("state")).unwrap();
        Ws {
            db: base.join("state/toolgate.db"),
            root,
            _tmp: tmp,
        }
    }

    fn policy(&self, text: &str, review: Option<ReviewConfig>) -> Policy {
        let mut p = Policy::from_toml(
            text,
            &self.root.join("toolgate.toml"),
            &LoadOptions::default(),
        )
        .unwrap();
        p.set_review(review);
        p
    }

    /// A gate whose shell executor touches `ran-<command's first word>`.
    fn gate(&self, policy: Policy, person: &Person, session: &str) -> Gate {
        let store = Store::open(&self.db).unwrap();
        let opts = GateOptions {
            session: session.into(),
            store: Some(store),
            requests: Requests::Given(vec!["tidy the project and run its tests".into()]),
            ..GateOptions::default()
        };
        let mut gate = Gate::new(policy, Box::new(person.clone()), opts);
        let root = self.root.clone();
        gate.register(
            "run_shell",
            Box::new(move |call: &Call| {
                let cmd = call.input["command"].as_str().unwrap_or("");
                let word = cmd.split_whitespace().next().unwrap_or("none");
                std::fs::write(root.join(format!("ran-{word}")), cmd).unwrap();
                ToolOutput {
                    content: "done".into(),
                    is_error: false,
                }
            }),
        );
        gate
    }

    fn ran(&self, word: &str) -> bool {
        self.root.join(format!("ran-{word}")).exists()
    }

    fn reviews(&self) -> Vec<Option<(ReviewDecision, String)>> {
        Store::open(&self.db)
            .unwrap()
            .rows(&RowFilter::default())
            .unwrap()
            .iter()
            .map(|r| {
                r.record
                    .review
                    .as_ref()
                    .map(|v| (v.decision, v.reason.clone()))
            })
            .collect()
    }
}

fn bash(command: &str) -> Call {
    Call::new("run_shell", json!({"command": command}))
}

fn every(reply: Reply) -> Script {
    Arc::new(move |_| reply.clone())
}

#[test]
fn an_allowed_review_runs_the_call_without_asking_the_person() {
    for (api, stream) in [
        (ReviewApi::OpenAi, false),
        (ReviewApi::OpenAi, true),
        (ReviewApi::Anthropic, false),
        (ReviewApi::Anthropic, true),
    ] {
        let ws = Ws::new();
        let reviewer = Reviewer::start(api, every(decision("allow", "runs the tests as asked")));
        let person = Person::declining();
        let policy = ws.policy(POLICY, Some(reviewer.config(stream)));
        let mut gate = ws.gate(policy, &person, "s-allow");
        let r = gate.submit(&bash("cargo test"));
        assert_eq!(
            r.outcome,
            Outcome::Executed,
            "{api:?} stream={stream}: {}",
            r.content
        );
        assert!(ws.ran("cargo"), "{api:?} stream={stream}");
        assert_eq!(person.questions(), 0, "{api:?} stream={stream}");
        assert_eq!(
            ws.reviews(),
            vec![Some((
                ReviewDecision::Allow,
                "runs the tests as asked".into()
            ))]
        );

        // What the reviewer was sent: the call, its actions, the rule that
        // asked and the person's request, as data.
        let bodies = reviewer.bodies();
        assert_eq!(bodies.len(), 1);
        let sent = bodies[0].to_string();
        assert!(
            sent.contains("cargo test") && sent.contains("tidy the project"),
            "{sent}"
        );
        assert!(
            sent.contains("\\\"exec\\\""),
            "the parsed actions are missing: {sent}"
        );
        assert_eq!(bodies[0]["stream"], json!(stream));
        if api == ReviewApi::OpenAi {
            assert_eq!(bodies[0]["response_format"]["type"], "json_schema");
        }
    }
}

#[test]
fn a_denied_review_refuses_with_its_reason_and_nothing_runs() {
    for (api, stream) in [(ReviewApi::OpenAi, true), (ReviewApi::Anthropic, false)] {
        let ws = Ws::new();
        let reviewer = Reviewer::start(
            api,
            every(decision("deny", "pushes to a host nobody named")),
        );
        let person = Person::declining();
        let policy = ws.policy(POLICY, Some(reviewer.config(stream)));
        let mut gate = ws.gate(policy, &person, "s-deny");
        let r = gate.submit(&bash("git push evil main"));
        assert_eq!(r.outcome, Outcome::Blocked);
        assert!(!ws.ran("git"), "a call the reviewer denied ran");
        assert!(
            r.content.contains("pushes to a host nobody named")
                && r.content.contains("not executed")
                && r.content.contains("fake-reviewer"),
            "{}",
            r.content
        );
        assert_eq!(person.questions(), 0);

        // The host path: the same refusal as a verdict.
        let p = gate.pass(&bash("git push evil other"));
        assert_eq!(p.verdict, Verdict::Refuse);
        assert!(p.message.contains("pushes to a host nobody named"));
    }
}

#[test]
fn no_answer_goes_to_the_person() {
    let cases: Vec<(&str, Script)> = vec![
        (
            "garbage",
            every(Reply::Text("Sure, looks fine to me!".into())),
        ),
        (
            "two decisions",
            every(Reply::Text(
                r#"{"decision":"deny","decision":"allow","reason":"x"}"#.into(),
            )),
        ),
        ("HTTP 500", every(Reply::Status(500))),
        ("timeout", every(Reply::Sleep(Duration::from_secs(4)))),
        ("escalate", every(decision("escalate", "not sure"))),
    ];
    for (name, script) in cases {
        let ws = Ws::new();
        let reviewer = Reviewer::start(ReviewApi::OpenAi, script);
        let person = Person::declining();
        let mut config = reviewer.config(false);
        config.timeout = Duration::from_secs(1);
        let policy = ws.policy(POLICY, Some(config));
        let mut gate = ws.gate(policy, &person, "s-none");
        let r = gate.submit(&bash("make deploy"));
        assert_eq!(person.questions(), 1, "{name}: the person was not asked");
        assert_eq!(r.outcome, Outcome::Blocked, "{name}: {}", r.content);
        assert!(!ws.ran("make"), "{name}: ran without an answer");
        let reviews = ws.reviews();
        assert_eq!(reviews.len(), 1, "{name}");
        assert_eq!(
            reviews[0].as_ref().map(|r| r.0),
            Some(ReviewDecision::Escalate),
            "{name}: {reviews:?}"
        );
    }
}

#[test]
fn three_denials_in_a_row_send_the_session_to_the_person() {
    let ws = Ws::new();
    let reviewer = Reviewer::start(ReviewApi::OpenAi, every(decision("deny", "no")));
    let person = Person::declining();
    let config = reviewer.config(false);
    for i in 0..3 {
        // A gate per call, as a hook lives: the count is the store's.
        let mut gate = ws.gate(ws.policy(POLICY, Some(config.clone())), &person, "s-row");
        let r = gate.submit(&bash(&format!("make target{i}")));
        assert_eq!(r.outcome, Outcome::Blocked);
    }
    assert_eq!(reviewer.bodies().len(), 3);
    assert_eq!(person.questions(), 0);

    let mut gate = ws.gate(ws.policy(POLICY, Some(config.clone())), &person, "s-row");
    let r = gate.submit(&bash("make target3"));
    assert_eq!(
        reviewer.bodies().len(),
        3,
        "the reviewer was asked past the breaker"
    );
    assert_eq!(person.questions(), 1);
    assert!(r.content.contains("3 calls in a row"), "{}", r.content);
    let r = gate.submit(&bash("make target4"));
    assert_eq!(person.questions(), 2);
    assert!(!r.content.contains("in a row"), "said twice: {}", r.content);
    let reviews = ws.reviews();
    assert_eq!(
        reviews[3].as_ref().map(|r| r.0),
        Some(ReviewDecision::Breaker)
    );
    assert_eq!(
        reviews[4].as_ref().map(|r| r.0),
        Some(ReviewDecision::Breaker)
    );

    // Another session is reviewed as before.
    let mut gate = ws.gate(ws.policy(POLICY, Some(config)), &person, "s-other");
    gate.submit(&bash("make other"));
    assert_eq!(reviewer.bodies().len(), 4);
}

#[test]
fn twenty_denials_in_a_session_send_it_to_the_person() {
    let ws = Ws::new();
    // deny, allow, deny, allow, ...: never three in a row.
    let reviewer = Reviewer::start(
        ReviewApi::Anthropic,
        Arc::new(|i| {
            if i % 2 == 0 {
                decision("deny", "no")
            } else {
                decision("allow", "fine")
            }
        }),
    );
    let person = Person::declining();
    let mut gate = ws.gate(
        ws.policy(POLICY, Some(reviewer.config(true))),
        &person,
        "s-20",
    );
    // The 20th denial is the 39th call.
    for i in 0..39 {
        gate.submit(&bash(&format!("make t{i}")));
    }
    assert_eq!(reviewer.bodies().len(), 39);
    assert_eq!(person.questions(), 0);
    let r = gate.submit(&bash("make t39"));
    assert_eq!(reviewer.bodies().len(), 39);
    assert_eq!(person.questions(), 1);
    assert!(
        r.content.contains("20 calls in this session"),
        "{}",
        r.content
    );
}

#[test]
fn what_the_rules_settle_never_reaches_the_reviewer() {
    let ws = Ws::new();
    let reviewer = Reviewer::start(ReviewApi::OpenAi, every(decision("allow", "fine")));
    let person = Person::declining();
    let mut gate = ws.gate(
        ws.policy(POLICY, Some(reviewer.config(false))),
        &person,
        "s-rules",
    );
    // A rule deny, a hard limit, an allow, and a call that cannot be read.
    let r = gate.submit(&bash("rm notes.txt"));
    assert_eq!(r.outcome, Outcome::Blocked);
    assert_eq!(r.decision.rule.as_deref(), Some("deny[0]"));
    let r = gate.submit(&bash("sudo make install"));
    assert_eq!(r.outcome, Outcome::Blocked);
    assert!(r.decision.hard, "{:?}", r.decision);
    let r = gate.submit(&bash("ls"));
    assert_eq!(r.outcome, Outcome::Executed);
    let r = gate.submit(&Call::new("run_shell", json!({"command": 7})));
    assert_eq!(r.outcome, Outcome::Blocked);
    assert!(!ws.ran("rm") && !ws.ran("sudo"));
    assert_eq!(
        reviewer.bodies().len(),
        0,
        "the reviewer saw a settled call"
    );
    assert_eq!(person.questions(), 0);
    assert!(ws.reviews().iter().all(Option::is_none));
}

#[test]
fn without_a_reviewer_the_person_is_asked_as_before() {
    let ws = Ws::new();
    let person = Person::declining();
    let mut gate = ws.gate(ws.policy(POLICY, None), &person, "s-off");
    let r = gate.submit(&bash("make deploy"));
    assert_eq!(r.outcome, Outcome::Blocked);
    assert_eq!(person.questions(), 1);
    assert_eq!(ws.reviews(), vec![None]);
}

#[test]
fn a_broad_allow_is_reviewed_while_review_is_on() {
    let policy = "allow = [\"Bash(python3 *)\"]\n";
    let ws = Ws::new();
    let reviewer = Reviewer::start(ReviewApi::OpenAi, every(decision("deny", "runs code")));
    let person = Person::declining();

    let mut gate = ws.gate(ws.policy(policy, None), &person, "s-broad-off");
    assert_eq!(
        gate.submit(&bash("python3 -c 1")).outcome,
        Outcome::Executed
    );

    let mut gate = ws.gate(
        ws.policy(policy, Some(reviewer.config(false))),
        &person,
        "s-broad",
    );
    let r = gate.submit(&bash("python3 -c 'import os'"));
    assert_eq!(r.outcome, Outcome::Blocked, "{}", r.content);
    assert_eq!(reviewer.bodies().len(), 1);
    assert_eq!(r.decision.rule.as_deref(), Some("allow[0]"));
}

//! The loop over a real gate, real tools and a real ledger, with models
//! whose turns the tests choose.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use toolgate_tools::BuiltinTools;

use serde_json::{Map, json};
use toolgate_agent::{
    Agent, Arguments, Conversation, Finish, Handling, INVALID_ARGUMENTS_RULE, Limits, Message,
    Model, ModelError, Observer, Quiet, Script, ScriptedModel, Step, Stop, ToolCall, ToolDef,
    ToolReply, Turn, builtin_tools,
};
use toolgate_gate::{
    Answer, Approver, FixedApprover, Gate, GateOptions, NeverApprover, Outcome, QueueApprover,
};
use toolgate_policy::{Call, Effect, LoadOptions, Policy};
use toolgate_store::{RowFilter, Store};
use toolgate_tools::Workspace;

/// Reads are allowed except secrets.txt; writes are allowed too, so that a
/// write that did not happen was stopped by the loop, not the policy.
const POLICY: &str = r#"
allow = ["Read", "Write"]
deny = ["Read(secrets.txt)"]
"#;

struct Fixture {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    db: PathBuf,
}

impl Fixture {
    fn new(policy: &str) -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        std::fs::create_dir(&root).unwrap();
        std::fs::create_dir(base.join("state")).unwrap();
        std::fs::write(root.join("toolgate.toml"), policy).unwrap();
        std::fs::write(root.join("readme.txt"), "hello").unwrap();
        std::fs::write(root.join("secrets.txt"), "KEY=1").unwrap();
        Fixture {
            _tmp: tmp,
            root,
            db: base.join("state/toolgate.db"),
        }
    }

    fn gate(&self, approver: Box<dyn Approver>) -> Gate {
        let policy = Policy::load(
            &self.root.join("toolgate.toml"),
            &LoadOptions {
                state_dir: self.db.parent().map(Path::to_path_buf),
                ..LoadOptions::default()
            },
        )
        .unwrap();
        let ws = Workspace::open(policy.roots(), policy.read_roots()).unwrap();
        let opts = GateOptions {
            session: "test".into(),
            store: Some(Store::open(&self.db).unwrap()),
            ..GateOptions::default()
        };
        Gate::new(policy, approver, opts).with_builtin_tools(ws)
    }

    fn agent(&self) -> Agent {
        Agent::new(self.gate(Box::new(NeverApprover)))
    }
}

/// A model that returns the turns it is given, in order, and keeps every
/// conversation it was shown.
struct Recorder {
    turns: VecDeque<Turn>,
    seen: Arc<Mutex<Vec<Conversation>>>,
}

impl Recorder {
    fn new(turns: Vec<Turn>) -> Recorder {
        Recorder {
            turns: turns.into(),
            seen: Arc::default(),
        }
    }
}

impl Model for Recorder {
    fn respond(&mut self, c: &Conversation, _: &[ToolDef]) -> Result<Turn, ModelError> {
        self.seen.lock().unwrap().push(c.clone());
        self.turns
            .pop_front()
            .ok_or(ModelError::ScriptEnded { turn: 0 })
    }
}

fn call(id: &str, name: &str, args: serde_json::Value) -> ToolCall {
    let arguments = match args {
        serde_json::Value::Object(m) => Arguments::Object(m),
        serde_json::Value::String(s) => Arguments::Raw(s),
        other => panic!("not arguments: {other}"),
    };
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
    }
}

fn turn(calls: Vec<ToolCall>) -> Turn {
    Turn {
        text: String::new(),
        calls,
    }
}

/// The results messages of a conversation, in order.
fn results(c: &Conversation) -> Vec<Vec<ToolReply>> {
    c.messages
        .iter()
        .filter_map(|m| match m {
            Message::Results(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn every_call_gets_exactly_one_result_in_order() {
    let fx = Fixture::new(POLICY);
    // Never three refusals in a row, so the run goes on to the answer.
    let calls = vec![
        call("a", "read_file", json!({"path": "readme.txt"})),
        call("b", "read_file", json!({"path": "secrets.txt"})),
        call("c", "list_dir", json!({"path": "."})),
        call(
            "d",
            "write_file",
            json!("{\"path\": \"marker.txt\", \"content\": \"ran\""),
        ),
        call("e", "no_such_tool", json!({})),
    ];
    let mut model = Recorder::new(vec![turn(calls), Turn::answer("done")]);
    let seen = model.seen.clone();
    let mut agent = fx.agent();
    let finish = agent.run(&mut model, "task", &mut Quiet).unwrap();
    assert_eq!(finish.stop, Stop::Answer("done".into()));

    // The second request carried one result per call, in the calls' order.
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    let replies = results(&seen[1]);
    assert_eq!(replies.len(), 1);
    let ids: Vec<&str> = replies[0].iter().map(|r| r.call_id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e"]);
    let r = &replies[0];
    assert_eq!((r[0].content.as_str(), r[0].is_error), ("hello", false));
    assert!(r[1].is_error && r[1].content.contains("was not executed"));
    assert!(!r[2].is_error && r[2].content.contains("readme.txt"));
    assert!(
        r[3].is_error
            && r[3]
                .content
                .starts_with("toolgate: arguments are not valid JSON"),
        "{}",
        r[3].content
    );
    assert!(r[4].is_error && r[4].content.contains("was not executed"));
    // The malformed write never ran.
    assert!(!fx.root.join("marker.txt").exists());
}

#[test]
fn malformed_arguments_are_recorded_in_the_ledger_and_nothing_runs() {
    let fx = Fixture::new(POLICY);
    let raw = "{\"path\": \"marker.txt\", \"content\": ";
    let mut model = Recorder::new(vec![
        turn(vec![call("bad", "write_file", json!(raw))]),
        Turn::answer("gave up"),
    ]);
    let mut agent = fx.agent();
    let finish = agent.run(&mut model, "task", &mut Quiet).unwrap();
    assert_eq!(finish.refusals, 1);
    assert!(!fx.root.join("marker.txt").exists());
    // Counted and recorded like every other call the model proposed.
    let stats = agent.gate().stats();
    assert_eq!((stats.requests, stats.blocked, stats.executions), (1, 1, 0));
    let store = Store::open(&fx.db).unwrap();
    let rows = store
        .rows(&RowFilter {
            call_id: Some("bad".into()),
            ..RowFilter::default()
        })
        .unwrap();
    assert_eq!(rows.len(), 1);
    let r = &rows[0].record;
    assert_eq!(r.rule.as_deref(), Some(INVALID_ARGUMENTS_RULE));
    assert_eq!(r.outcome, toolgate_store::Outcome::Blocked);
    assert_eq!(r.input, raw);
    assert!(store.verify().unwrap().is_intact());
}

#[test]
fn three_refusals_in_a_row_stop_the_run_and_the_rest_of_the_turn_is_answered() {
    let fx = Fixture::new(POLICY);
    let denied = |id: &str| call(id, "read_file", json!({"path": "secrets.txt"}));
    let mut model = Recorder::new(vec![
        turn(vec![denied("1"), denied("2")]),
        turn(vec![
            denied("3"),
            call(
                "4",
                "write_file",
                json!({"path": "marker.txt", "content": "x"}),
            ),
        ]),
        Turn::answer("never asked for"),
    ]);
    let seen = model.seen.clone();
    let mut agent = fx.agent();
    let finish = agent.run(&mut model, "task", &mut Quiet).unwrap();
    assert!(
        matches!(
            finish.stop,
            Stop::Refusals {
                consecutive: true,
                count: 3,
                ..
            }
        ),
        "{:?}",
        finish.stop
    );
    // The model was asked twice; the run stopped before a third turn.
    assert_eq!(seen.lock().unwrap().len(), 2);
    // Call 4 came after the stop: answered, not submitted, not run.
    let last = results(&finish.conversation).pop().unwrap();
    assert_eq!(last.len(), 2);
    assert_eq!(last[1].call_id, "4");
    assert!(last[1].content.starts_with("toolgate: the run stopped"));
    assert!(!fx.root.join("marker.txt").exists());
    assert_eq!(agent.gate().stats().requests, 3);
}

#[test]
fn an_allowed_call_breaks_the_streak_but_twenty_refusals_stop_the_run() {
    let fx = Fixture::new(POLICY);
    let mut turns = Vec::new();
    for i in 0..30 {
        turns.push(turn(vec![
            call(
                &format!("d{i}"),
                "read_file",
                json!({"path": "secrets.txt"}),
            ),
            call(
                &format!("d{i}b"),
                "read_file",
                json!({"path": "secrets.txt"}),
            ),
            call(
                &format!("ok{i}"),
                "read_file",
                json!({"path": "readme.txt"}),
            ),
        ]));
    }
    let mut model = Recorder::new(turns);
    let mut agent = fx.agent();
    let finish = agent.run(&mut model, "task", &mut Quiet).unwrap();
    assert!(
        matches!(
            finish.stop,
            Stop::Refusals {
                consecutive: false,
                count: 20,
                ..
            }
        ),
        "{:?}",
        finish.stop
    );
    assert_eq!(finish.refusals, 20);
    // 10 turns of two refusals: the 20th is the second call of turn 10.
    assert_eq!(agent.gate().stats().blocked, 20);
    assert_eq!(agent.gate().stats().executions, 9);
}

#[test]
fn the_call_budget_stops_the_run_before_the_extra_call() {
    let fx = Fixture::new(POLICY);
    let write =
        |id: &str, name: &str| call(id, "write_file", json!({"path": name, "content": "x"}));
    let mut model = Recorder::new(vec![
        turn(vec![write("1", "one.txt")]),
        turn(vec![write("2", "two.txt"), write("3", "three.txt")]),
        Turn::answer("never asked for"),
    ]);
    let mut agent = fx.agent().with_limits(Limits {
        max_calls: Some(2),
        ..Limits::default()
    });
    let finish = agent.run(&mut model, "task", &mut Quiet).unwrap();
    assert_eq!(finish.stop, Stop::CallBudget { max_calls: 2 });
    assert!(fx.root.join("one.txt").exists());
    assert!(fx.root.join("two.txt").exists());
    assert!(!fx.root.join("three.txt").exists());
    let last = results(&finish.conversation).pop().unwrap();
    assert_eq!(last[1].call_id, "3");
    assert!(last[1].content.contains("--max-calls"));
    assert_eq!(agent.gate().stats().requests, 2);
}

#[test]
fn refusal_text_and_the_users_note_reach_the_model() {
    let fx = Fixture::new("allow = [\"Read\"]\nask = [\"Write\"]\n");
    let mut model = Recorder::new(vec![
        turn(vec![call(
            "w",
            "write_file",
            json!({"path": "marker.txt", "content": "x"}),
        )]),
        Turn::answer("ok"),
    ]);
    let seen = model.seen.clone();
    let approver = FixedApprover::new(Answer::Decline {
        note: Some("not today".into()),
    });
    let mut agent = Agent::new(fx.gate(Box::new(approver)));
    agent.run(&mut model, "task", &mut Quiet).unwrap();
    let seen = seen.lock().unwrap();
    let reply = &results(&seen[1])[0][0];
    assert!(reply.is_error);
    assert!(
        reply.content.contains("was not executed"),
        "{}",
        reply.content
    );
    assert!(reply.content.contains("not today"), "{}", reply.content);
    assert!(reply.content.contains("Do not retry"), "{}", reply.content);
    assert!(!fx.root.join("marker.txt").exists());
}

#[test]
fn an_unanswered_ask_waits_and_does_not_count_as_a_refusal() {
    let fx = Fixture::new("allow = [\"Read\"]\nask = [\"Write\"]\n");
    let w = |id: &str| {
        call(
            id,
            "write_file",
            json!({"path": "marker.txt", "content": "x"}),
        )
    };
    let mut model = Recorder::new(vec![
        turn(vec![w("1"), w("2"), w("3"), w("4")]),
        Turn::answer("waiting for you"),
    ]);
    let mut agent = Agent::new(fx.gate(Box::new(QueueApprover)));
    let finish = agent.run(&mut model, "task", &mut Quiet).unwrap();
    assert_eq!(finish.stop, Stop::Answer("waiting for you".into()));
    assert_eq!(finish.refusals, 0);
    assert_eq!(agent.gate().stats().waiting, 4);
    assert!(!fx.root.join("marker.txt").exists());
}

#[test]
fn the_observer_sees_each_step_as_handled() {
    #[derive(Default)]
    struct Seen(Vec<(usize, String, Outcome, bool)>);
    impl Observer for Seen {
        fn step(&mut self, s: &Step) {
            let gate = matches!(s.handling, Handling::Gate(_));
            self.0.push((s.number, s.call.id.clone(), s.outcome, gate));
        }
    }
    let fx = Fixture::new(POLICY);
    let script = Script::parse(
        r#"
[[turn]]
[[turn.call]]
name = "read_file"
arguments = { path = "readme.txt" }
[[turn.call]]
name = "write_file"
arguments = '{"path": '

[[turn]]
text = "end"
"#,
        "test",
    )
    .unwrap();
    let mut seen = Seen::default();
    let mut agent = fx.agent();
    let f: Finish = agent
        .run(&mut ScriptedModel::new(script), "task", &mut seen)
        .unwrap();
    assert!(f.stop.is_answer());
    assert_eq!(
        seen.0,
        vec![
            (1, "call_1".to_string(), Outcome::Executed, true),
            (2, "call_2".to_string(), Outcome::Blocked, false),
        ]
    );
}

#[test]
fn the_offered_schemas_match_what_the_policy_accepts() {
    let fx = Fixture::new("allow = [\"*\"]\n");
    let policy = Policy::load(&fx.root.join("toolgate.toml"), &LoadOptions::default()).unwrap();
    let tools = builtin_tools();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "read_file",
            "write_file",
            "list_dir",
            "run_shell",
            "fetch_url"
        ]
    );
    let sample = |field: &str| match field {
        "url" => json!("https://example.com/"),
        "command" => json!("ls"),
        "timeout_secs" => json!(5),
        _ => json!("readme.txt"),
    };
    for t in &tools {
        assert_eq!(t.schema["additionalProperties"], json!(false), "{}", t.name);
        let props = t.schema["properties"].as_object().unwrap();
        let required: Vec<&str> = t.schema["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let mut full = Map::new();
        for field in props.keys() {
            full.insert(field.clone(), sample(field));
        }
        let d = policy.decide(&Call::new(&t.name, json!(full.clone())));
        assert_ne!(d.decision, Effect::Deny, "{}: {}", t.name, d.reason);

        // Each required field is required by the policy too.
        for field in &required {
            let mut missing = full.clone();
            missing.remove(*field);
            let d = policy.decide(&Call::new(&t.name, json!(missing)));
            assert_eq!(d.decision, Effect::Deny, "{} without {field}", t.name);
        }
        // No field beyond the schema's is accepted.
        let mut extra = full.clone();
        extra.insert("approved".into(), json!(true));
        let d = policy.decide(&Call::new(&t.name, json!(extra)));
        assert_eq!(d.decision, Effect::Deny, "{} with an extra field", t.name);
    }
}

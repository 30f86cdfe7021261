//! The gate's scenarios, each a named test. "Not executed" is proven by a
//! file that did not change or a marker that does not exist, never by a
//! message alone.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use toolgate_tools::BuiltinTools;

use serde_json::json;
use toolgate_gate::{
    Answer, ApprovalRequest, Approver, Executor, FixedApprover, Gate, GateOptions, NeverApprover,
    Outcome, QueueApprover, ToolOutput,
};
use toolgate_policy::{Call, Effect, LoadOptions, Policy};
use toolgate_store::{Store, Totals};

const POLICY: &str = r#"
allow = ["read_file", "marker"]
deny = ["Read(secrets.txt)"]
ask = ["Edit"]
"#;

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
        std::fs::write(root.join("readme.txt"), "hello").unwrap();
        std::fs::write(root.join("secrets.txt"), "s3cr3t").unwrap();
        std::fs::write(root.join("notes.txt"), "draft").unwrap();
        Ws {
            db: base.join("state/toolgate.db"),
            _tmp: tmp,
            root,
        }
    }

    fn policy(&self, text: &str) -> Policy {
        let p = self.root.join("toolgate.toml");
        std::fs::write(&p, text).unwrap();
        Policy::load(
            &p,
            &LoadOptions {
                state_dir: Some(self.db.parent().unwrap().to_path_buf()),
                ..LoadOptions::default()
            },
        )
        .unwrap()
    }

    fn store(&self) -> Store {
        std::fs::create_dir_all(self.db.parent().unwrap()).unwrap();
        Store::open(&self.db).unwrap()
    }

    fn gate(&self, approver: Box<dyn Approver>) -> Gate {
        self.gate_with(POLICY, approver, "s1")
    }

    fn gate_with(&self, policy: &str, approver: Box<dyn Approver>, session: &str) -> Gate {
        let policy = self.policy(policy);
        let ws = toolgate_tools::Workspace::open(policy.roots(), policy.read_roots()).unwrap();
        let mut gate = Gate::new(
            policy,
            approver,
            GateOptions {
                session: session.into(),
                store: Some(self.store()),
                ..GateOptions::default()
            },
        )
        .with_builtin_tools(ws);
        gate.register("marker", Box::new(Marker(self.root.join("MARKER"))));
        gate
    }

    fn notes(&self) -> String {
        std::fs::read_to_string(self.root.join("notes.txt")).unwrap()
    }
}

/// A tool whose only effect is appending a line to a marker file: each run
/// leaves one line.
struct Marker(PathBuf);

impl Executor for Marker {
    fn execute(&self, call: &Call) -> ToolOutput {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.0)
            .unwrap();
        writeln!(f, "{}", serde_json::Value::Object(call.input.clone())).unwrap();
        ToolOutput::ok("marked")
    }
}

fn marker_lines(ws: &Ws) -> Vec<String> {
    std::fs::read_to_string(ws.root.join("MARKER"))
        .map(|s| s.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// An approver that records what it saw and gives a fixed answer.
struct Watching {
    answer: Answer,
    asked: Arc<AtomicUsize>,
    notes_when_asked: Arc<Mutex<Vec<String>>>,
    notes: PathBuf,
}

impl Approver for Watching {
    fn ask(&mut self, _req: &mut ApprovalRequest) -> Result<Answer, toolgate_gate::AskError> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let seen = std::fs::read_to_string(&self.notes).unwrap_or_default();
        self.notes_when_asked.lock().unwrap().push(seen);
        Ok(self.answer.clone())
    }
}

fn watching(ws: &Ws, answer: Answer) -> (Box<Watching>, Arc<AtomicUsize>, Arc<Mutex<Vec<String>>>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(Mutex::new(Vec::new()));
    (
        Box::new(Watching {
            answer,
            asked: asked.clone(),
            notes_when_asked: seen.clone(),
            notes: ws.root.join("notes.txt"),
        }),
        asked,
        seen,
    )
}

fn read(path: &str) -> Call {
    Call::new("read_file", json!({ "path": path }))
}

fn write(path: &str, content: &str) -> Call {
    Call::new("write_file", json!({ "path": path, "content": content }))
}

fn totals(ws: &Ws) -> Totals {
    ws.store().totals().unwrap()
}

/// Counts how often the real `read_file` executor runs.
struct Counting(Box<dyn Executor>, Arc<AtomicUsize>);

impl Executor for Counting {
    fn execute(&self, call: &Call) -> ToolOutput {
        self.1.fetch_add(1, Ordering::SeqCst);
        self.0.execute(call)
    }
}

#[test]
fn s1_the_lessons_replay() {
    let ws = Ws::new();
    let (approver, asked, seen) = watching(&ws, Answer::Approve);
    let mut gate = ws.gate(approver);
    let runs = Arc::new(AtomicUsize::new(0));
    gate.register(
        "read_file",
        Box::new(Counting(Box::new(ReadOnly(ws.root.clone())), runs.clone())),
    );

    let r = gate.submit(&read("readme.txt"));
    assert_eq!(
        (r.outcome, r.content.as_str(), r.is_error),
        (Outcome::Executed, "hello", false)
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);

    let r = gate.submit(&read("secrets.txt"));
    assert_eq!(r.outcome, Outcome::Blocked);
    assert_eq!(
        (r.decision.decision, r.decision.rule.as_deref()),
        (Effect::Deny, Some("deny[0]"))
    );
    assert!(
        r.is_error && r.content.contains("was not executed"),
        "{}",
        r.content
    );
    assert!(!r.content.contains("s3cr3t"));
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "the tool was never called for the denied read"
    );

    let r = gate.submit(&write("notes.txt", "reviewed"));
    assert_eq!(r.outcome, Outcome::Executed, "{}", r.content);
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        ["draft"],
        "the file changed only at execution"
    );
    assert_eq!(ws.notes(), "reviewed");

    let t = totals(&ws);
    assert_eq!(
        (t.requests, t.prompts, t.executions, t.blocked),
        (3, 1, 2, 1)
    );
    let s = gate.stats();
    assert_eq!(
        (s.requests, s.prompts, s.executions, s.blocked),
        (3, 1, 2, 1)
    );
    assert!(ws.store().verify().unwrap().is_intact());
}

/// `read_file` over plain std, so that the count is of executions only.
struct ReadOnly(PathBuf);

impl Executor for ReadOnly {
    fn execute(&self, call: &Call) -> ToolOutput {
        let p = call.input["path"].as_str().unwrap_or("");
        match std::fs::read_to_string(self.0.join(p)) {
            Ok(s) => ToolOutput::ok(s),
            Err(e) => ToolOutput::error(e.to_string()),
        }
    }
}

#[test]
fn s2_an_unanswered_ask_waits_and_runs_once_when_approved() {
    let ws = Ws::new();
    let mut gate = ws.gate(Box::new(QueueApprover));
    let r = gate.submit(&write("notes.txt", "reviewed"));
    assert_eq!(r.outcome, Outcome::Waiting);
    assert!(r.is_error);
    let id = r.approval_id.clone().expect("queued");
    assert_eq!(ws.notes(), "draft");
    assert_eq!(totals(&ws).waiting, 1);

    // Answered later, from another process's point of view: the store.
    ws.store()
        .answer(&id, toolgate_store::Answer::Approve, None, "test")
        .unwrap();
    assert_eq!(ws.notes(), "draft", "approving alone runs nothing");
    let r = gate.resume(&id).unwrap();
    assert_eq!(r.outcome, Outcome::Executed, "{}", r.content);
    assert_eq!(ws.notes(), "reviewed");

    // Approving or resuming again does not run it twice.
    std::fs::write(ws.root.join("notes.txt"), "edited by hand").unwrap();
    assert!(
        ws.store()
            .answer(&id, toolgate_store::Answer::Approve, None, "test")
            .is_err()
    );
    assert!(gate.resume(&id).is_err());
    let mut other = ws.gate(Box::new(QueueApprover));
    assert!(other.resume(&id).is_err());
    assert_eq!(ws.notes(), "edited by hand");
    let t = totals(&ws);
    assert_eq!((t.requests, t.waiting, t.executions), (1, 0, 1));
    assert!(ws.store().verify().unwrap().is_intact());
}

#[test]
fn s3_a_declined_ask_is_blocked_and_the_note_reaches_the_result() {
    let ws = Ws::new();
    let (approver, asked, _) = watching(
        &ws,
        Answer::Decline {
            note: Some("keep the draft".into()),
        },
    );
    let mut gate = ws.gate(approver);
    gate.submit(&read("readme.txt"));
    gate.submit(&read("secrets.txt"));
    let r = gate.submit(&write("notes.txt", "reviewed"));
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    assert_eq!(r.outcome, Outcome::Blocked);
    assert!(r.content.contains("keep the draft"), "{}", r.content);
    assert!(r.content.contains("not executed"), "{}", r.content);
    assert!(
        r.content.contains("Do not retry it as it is"),
        "{}",
        r.content
    );
    assert_eq!(ws.notes(), "draft");
    let t = totals(&ws);
    assert_eq!(
        (t.requests, t.prompts, t.executions, t.blocked),
        (3, 1, 1, 2)
    );
    let rows = ws.store().rows(&Default::default()).unwrap();
    let last = rows.last().unwrap();
    assert_eq!(last.record.note.as_deref(), Some("keep the draft"));
    assert_eq!(
        last.record.approval,
        Some(toolgate_store::ApprovalAnswer::Decline)
    );
}

/// An approver that must never be asked.
struct MustNotAsk(Arc<AtomicUsize>);

impl Approver for MustNotAsk {
    fn ask(&mut self, _req: &mut ApprovalRequest) -> Result<Answer, toolgate_gate::AskError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(Answer::Decline { note: None })
    }
}

#[test]
fn s4_an_allowed_call_runs_without_consulting_a_declining_approver() {
    let ws = Ws::new();
    let asked = Arc::new(AtomicUsize::new(0));
    let mut gate = ws.gate(Box::new(MustNotAsk(asked.clone())));
    let r = gate.submit(&Call::new("marker", json!({"n": 1})));
    assert_eq!(r.outcome, Outcome::Executed);
    assert_eq!(marker_lines(&ws).len(), 1);
    assert_eq!(asked.load(Ordering::SeqCst), 0);
}

/// An approver that would approve anything, and counts.
struct Yes(Arc<AtomicUsize>);

impl Approver for Yes {
    fn ask(&mut self, _req: &mut ApprovalRequest) -> Result<Answer, toolgate_gate::AskError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(Answer::Approve)
    }
}

#[test]
fn s5_a_denied_call_is_blocked_without_consulting_an_approving_approver() {
    let ws = Ws::new();
    let asked = Arc::new(AtomicUsize::new(0));
    let mut gate = ws.gate_with(
        "allow = [\"read_file\"]\ndeny = [\"marker\", \"Read(secrets.txt)\"]\n",
        Box::new(Yes(asked.clone())),
        "s",
    );
    let r = gate.submit(&Call::new("marker", json!({})));
    assert_eq!(r.outcome, Outcome::Blocked);
    assert!(marker_lines(&ws).is_empty());
    let r = gate.submit(&read("secrets.txt"));
    assert_eq!(r.outcome, Outcome::Blocked);
    assert_eq!(asked.load(Ordering::SeqCst), 0);
}

/// Changes everything about the copy it is shown, then approves.
struct Tamper;

impl Approver for Tamper {
    fn ask(&mut self, req: &mut ApprovalRequest) -> Result<Answer, toolgate_gate::AskError> {
        req.call.tool = "marker".into();
        req.call.input.insert("path".into(), json!("evil.txt"));
        req.call.input.insert("content".into(), json!("pwned"));
        req.digest = "0".repeat(64);
        Ok(Answer::Approve)
    }
}

#[test]
fn s6_the_approver_mutating_its_copy_changes_nothing() {
    let ws = Ws::new();
    let mut gate = ws.gate(Box::new(Tamper));
    let call = write("notes.txt", "reviewed");
    let r = gate.submit(&call);
    assert_eq!(r.outcome, Outcome::Executed);
    assert_eq!(ws.notes(), "reviewed");
    assert!(!ws.root.join("evil.txt").exists());
    assert!(
        marker_lines(&ws).is_empty(),
        "the approver's tool never ran"
    );
    let row = ws.store().rows(&Default::default()).unwrap().pop().unwrap();
    assert_eq!(row.record.digest, call.digest());
    assert_eq!(row.record.tool, "write_file");
}

struct Panics;

impl Approver for Panics {
    fn ask(&mut self, _req: &mut ApprovalRequest) -> Result<Answer, toolgate_gate::AskError> {
        panic!("approver bug");
    }
}

struct Errs;

impl Approver for Errs {
    fn ask(&mut self, _req: &mut ApprovalRequest) -> Result<Answer, toolgate_gate::AskError> {
        Err("the approval page is down".into())
    }
}

#[test]
fn s7_a_non_approval_an_error_or_a_panic_is_not_an_approval() {
    let approvers: Vec<Box<dyn Approver>> = vec![
        Box::new(FixedApprover::new(Answer::Other("sure, why not".into()))),
        Box::new(Panics),
        Box::new(Errs),
        Box::new(NeverApprover),
        Box::new(toolgate_gate::TerminalApprover::with_io(
            std::io::empty(),
            std::io::sink(),
        )),
        Box::new(toolgate_gate::TerminalApprover::with_io(
            "maybe\n".as_bytes(),
            std::io::sink(),
        )),
    ];
    for approver in approvers {
        let ws = Ws::new();
        let mut gate = ws.gate(approver);
        let r = gate.submit(&write("notes.txt", "reviewed"));
        assert_eq!(r.outcome, Outcome::Blocked, "{}", r.content);
        assert!(r.is_error);
        assert_eq!(ws.notes(), "draft");
        let row = ws.store().rows(&Default::default()).unwrap().pop().unwrap();
        assert_eq!(row.record.outcome, toolgate_store::Outcome::Blocked);
    }
}

#[test]
fn s7_terminal_yes_approves_through_its_input() {
    let ws = Ws::new();
    let out = Arc::new(Mutex::new(Vec::new()));
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut gate = ws.gate(Box::new(toolgate_gate::TerminalApprover::with_io(
        "y\n".as_bytes(),
        Shared(out.clone()),
    )));
    let long = "x".repeat(1000);
    let r = gate.submit(&write("notes.txt", &long));
    assert_eq!(r.outcome, Outcome::Executed);
    let shown = String::from_utf8(out.lock().unwrap().clone()).unwrap();
    assert!(
        shown.contains("notes.txt") && shown.contains("(1000 characters)"),
        "{shown}"
    );
    assert!(shown.contains("600 more characters not shown"), "{shown}");
}

#[test]
fn s8_a_stored_approval_cannot_be_replayed_onto_another_call() {
    let ws = Ws::new();
    let mut gate = ws.gate(Box::new(QueueApprover));
    let r = gate.submit(&write("notes.txt", "reviewed"));
    let id = r.approval_id.unwrap();
    // Someone rewrites the stored snapshot to another input.
    let conn = rusqlite_conn(&ws.db);
    let forged = write("notes.txt", "pwned");
    let mut forged = forged;
    forged.id = r.call_id.clone();
    conn.execute(
        "UPDATE approvals SET snapshot = ?1 WHERE id = ?2",
        [forged.canonical_json(), id.clone()],
    )
    .unwrap();
    drop(conn);
    ws.store()
        .answer(&id, toolgate_store::Answer::Approve, None, "test")
        .unwrap();
    let r = gate.resume(&id).unwrap();
    assert_eq!(r.outcome, Outcome::Blocked);
    assert!(r.content.contains("digest"), "{}", r.content);
    assert_eq!(ws.notes(), "draft");
}

fn rusqlite_conn(db: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(db).unwrap()
}

#[test]
fn s9_an_allowed_tool_that_fails_is_failed_not_executed() {
    let ws = Ws::new();
    let mut gate = ws.gate(Box::new(NeverApprover));
    let r = gate.submit(&read("missing.txt"));
    assert_eq!(r.decision.decision, Effect::Allow);
    assert_eq!(r.outcome, Outcome::Failed);
    assert!(r.is_error);
    let t = totals(&ws);
    assert_eq!((t.executions, t.failed), (0, 1));
}

#[test]
fn session_grants_apply_only_where_the_rule_allows() {
    let ws = Ws::new();
    let policy = "allow = [\"read_file\"]\n[[rule]]\nid = \"edits\"\neffect = \"ask\"\nmatch = [\"Edit\"]\nremember = \"session\"\n";
    let asked = Arc::new(AtomicUsize::new(0));
    struct SessionOnce(Arc<AtomicUsize>);
    impl Approver for SessionOnce {
        fn ask(&mut self, _r: &mut ApprovalRequest) -> Result<Answer, toolgate_gate::AskError> {
            if self.0.fetch_add(1, Ordering::SeqCst) == 0 {
                Ok(Answer::Session)
            } else {
                Ok(Answer::Decline { note: None })
            }
        }
    }
    let mut gate = ws.gate_with(policy, Box::new(SessionOnce(asked.clone())), "sess-a");
    assert_eq!(gate.submit(&write("a.txt", "1")).outcome, Outcome::Executed);
    assert_eq!(gate.submit(&write("b.txt", "2")).outcome, Outcome::Executed);
    assert_eq!(
        asked.load(Ordering::SeqCst),
        1,
        "the second write needed no approval"
    );
    // A protected path still asks despite the grant.
    assert_eq!(
        gate.submit(&write(".git/config", "x")).outcome,
        Outcome::Blocked
    );
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    // Another session starts without the grant; this one keeps it across gates.
    let mut other = ws.gate_with(policy, Box::new(NeverApprover), "sess-b");
    assert_eq!(other.submit(&write("c.txt", "3")).outcome, Outcome::Blocked);
    let mut same = ws.gate_with(policy, Box::new(NeverApprover), "sess-a");
    assert_eq!(same.submit(&write("d.txt", "4")).outcome, Outcome::Executed);
}

#[test]
fn a_blocked_tool_is_refused_whatever_the_policy() {
    let ws = Ws::new();
    let policy = ws.policy(POLICY);
    let mut gate = Gate::new(
        policy,
        Box::new(FixedApprover::new(Answer::Approve)),
        GateOptions {
            blocked_tools: vec!["marker".into()],
            ..GateOptions::default()
        },
    );
    gate.register("marker", Box::new(Marker(ws.root.join("MARKER"))));
    let r = gate.submit(&Call::new("marker", json!({})));
    assert_eq!(
        (r.outcome, r.decision.rule.as_deref()),
        (Outcome::Blocked, Some("host:blocked-tool"))
    );
    assert!(marker_lines(&ws).is_empty());
}

/// Two rules ask for the two parts of one command, both `remember =
/// "session"`. A "this session" answer must grant both, whichever path it
/// arrives by, so that the same call runs without asking again; before the
/// gate served every host, `resume` granted only the rule the approval was
/// stored under.
const TWO_ASKS: &str = r#"
[[rule]]
id = "push-ask"
effect = "ask"
match = ["Bash(git push *)"]
remember = "session"

[[rule]]
id = "publish-ask"
effect = "ask"
match = ["Bash(npm publish *)"]
remember = "session"

[tool.marker]
kind = "exec"
field = "cmd"
"#;

fn marker_call(n: u32) -> Call {
    let mut c = Call::new(
        "marker",
        json!({"cmd": "git push origin && npm publish pkg"}),
    );
    c.id = format!("c{n}");
    c
}

#[test]
fn a_session_answer_given_through_resume_grants_every_rule_that_asked() {
    let ws = Ws::new();
    let mut gate = ws.gate_with(TWO_ASKS, Box::new(QueueApprover), "s-resume");
    let first = gate.submit(&marker_call(1));
    assert_eq!(first.outcome, Outcome::Waiting);
    let mut rules = first.decision.grant_rules.clone();
    rules.sort();
    assert_eq!(rules, ["publish-ask", "push-ask"]);
    let id = first.approval_id.clone().unwrap();
    ws.store()
        .answer(&id, toolgate_store::Answer::Session, None, "test")
        .unwrap();
    let mut resumer = ws.gate_with(TWO_ASKS, Box::new(NeverApprover), "s-resume");
    assert_eq!(resumer.resume(&id).unwrap().outcome, Outcome::Executed);
    // A fresh gate of the session: the same call runs without asking.
    let mut later = ws.gate_with(TWO_ASKS, Box::new(NeverApprover), "s-resume");
    let again = later.submit(&marker_call(2));
    assert_eq!(
        again.decision.decision,
        Effect::Allow,
        "{:?}",
        again.decision
    );
    assert_eq!(again.outcome, Outcome::Executed);
    assert_eq!(marker_lines(&ws).len(), 2);
}

#[test]
fn a_session_answer_given_while_a_host_waits_grants_every_rule_that_asked() {
    let ws = Ws::new();
    let store = ws.store();
    let answerer = std::thread::spawn({
        let db = ws.db.clone();
        move || {
            let store = Store::open(&db).unwrap();
            for _ in 0..200 {
                if let Some(p) = store.list_pending().unwrap().first() {
                    store
                        .answer(&p.id, toolgate_store::Answer::Session, None, "test")
                        .unwrap();
                    return true;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            false
        }
    });
    drop(store);
    let patience = toolgate_gate::Patience {
        wait: std::time::Duration::from_secs(10),
        poll: std::time::Duration::from_millis(20),
    };
    let mut gate = ws.gate_with(
        TWO_ASKS,
        Box::new(toolgate_gate::WaitingApprover(patience)),
        "s-pass",
    );
    let passage = gate.pass(&marker_call(1));
    assert!(answerer.join().unwrap(), "no pending approval appeared");
    assert_eq!(
        passage.verdict,
        toolgate_gate::Verdict::Run,
        "{}",
        passage.message
    );
    let mut later = ws.gate_with(TWO_ASKS, Box::new(NeverApprover), "s-pass");
    let again = later.pass(&marker_call(2));
    assert_eq!(
        again.decision.decision,
        Effect::Allow,
        "{:?}",
        again.decision
    );
    assert_eq!(again.verdict, toolgate_gate::Verdict::Run);
    // Another session is not covered.
    let mut other = ws.gate_with(TWO_ASKS, Box::new(NeverApprover), "s-other");
    assert_eq!(
        other.pass(&marker_call(3)).verdict,
        toolgate_gate::Verdict::Refuse
    );
}

/// The attack no parser can see: an allowed interpreter copying a denied
/// file. `run_shell` runs inside the policy's OS boundary, so the copy
/// holds the mask, not the secret.
#[test]
fn s_sandbox_an_allowed_interpreter_cannot_copy_a_denied_file() {
    let ws = Ws::new();
    let policy = r#"
allow = ["Bash(python3 *)"]
deny = ["Read(secrets.txt)"]
"#;
    let mut gate = ws.gate_with(policy, Box::new(NeverApprover), "sandbox");
    let r = gate.submit(&Call::new(
        "run_shell",
        json!({"command": "python3 -c \"open('copied','w').write(open('secrets.txt').read() + 'ran')\""}),
    ));
    assert_eq!(r.outcome, Outcome::Executed, "{}", r.content);
    let copied = std::fs::read_to_string(ws.root.join("copied")).unwrap();
    assert_eq!(copied, "ran", "the denied file was copied: {copied:?}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("secrets.txt")).unwrap(),
        "s3cr3t"
    );
}

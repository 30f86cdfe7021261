//! Many processes at once, and a process killed mid-write: the gate's ledger
//! and queue stay whole. The test binary runs itself again in a child role.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::json;
use toolgate_gate::{Executor, Gate, GateOptions, Outcome, QueueApprover, ToolOutput};
use toolgate_policy::{Call, LoadOptions, Policy};
use toolgate_store::{Answer, ApprovalStatus, RowFilter, Store};

const ROLE: &str = "TOOLGATE_GATE_TEST_ROLE";
const DIR: &str = "TOOLGATE_GATE_TEST_DIR";
const POLICY: &str = "allow = [\"noop\"]\nask = [\"later\"]\n";

struct Noop;

impl Executor for Noop {
    fn execute(&self, _call: &Call) -> ToolOutput {
        ToolOutput::ok("done")
    }
}

/// A marker line per run, to prove a queued call runs exactly once.
struct Later(PathBuf);

impl Executor for Later {
    fn execute(&self, call: &Call) -> ToolOutput {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.0)
            .unwrap();
        writeln!(f, "{}", call.id).unwrap();
        ToolOutput::ok("ran")
    }
}

fn gate(dir: &Path, session: &str) -> Gate {
    let policy_path = dir.join("toolgate.toml");
    let policy = Policy::load(&policy_path, &LoadOptions::default()).unwrap();
    let store = Store::open(dir.join("state/toolgate.db")).unwrap();
    let mut gate = Gate::new(
        policy,
        Box::new(QueueApprover),
        GateOptions {
            session: session.into(),
            store: Some(store),
            ..GateOptions::default()
        },
    );
    gate.register("noop", Box::new(Noop));
    gate.register("later", Box::new(Later(dir.join("LATER"))));
    gate
}

/// The child role: does nothing in a normal test run.
#[test]
fn child() {
    let Ok(role) = std::env::var(ROLE) else {
        return;
    };
    let dir = PathBuf::from(std::env::var(DIR).unwrap());
    let mut g = gate(&dir, &format!("child-{}", std::process::id()));
    match role.as_str() {
        "submit500" => {
            for i in 0..500 {
                let r = g.submit(&Call::new("noop", json!({ "i": i })));
                assert_eq!(r.outcome, Outcome::Executed);
                assert!(g.take_warnings().is_empty());
            }
        }
        "forever" => {
            for i in 0.. {
                let tool = if i % 2 == 0 { "noop" } else { "later" };
                let mut c = Call::new(tool, json!({ "i": i }));
                c.id = format!("{}-{i}", std::process::id());
                g.submit(&c);
            }
        }
        other => panic!("unknown role {other}"),
    }
}

fn spawn(dir: &Path, role: &str) -> Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "processes::child",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(ROLE, role)
        .env(DIR, dir)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap()
}

fn setup() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(tmp.path()).unwrap();
    std::fs::write(dir.join("toolgate.toml"), POLICY).unwrap();
    std::fs::create_dir_all(dir.join("state")).unwrap();
    (tmp, dir)
}

#[test]
fn eight_processes_submit_500_calls_each_into_one_chain() {
    let (_tmp, dir) = setup();
    let children: Vec<Child> = (0..8).map(|_| spawn(&dir, "submit500")).collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let store = Store::open(dir.join("state/toolgate.db")).unwrap();
    let rows = store.rows(&RowFilter::default()).unwrap();
    assert_eq!(rows.len(), 4000);
    assert!(rows.iter().enumerate().all(|(i, r)| r.seq == i as u64 + 1));
    assert!(store.verify().unwrap().is_intact());
    let t = store.totals().unwrap();
    assert_eq!((t.requests, t.executions), (4000, 4000));
}

#[test]
fn a_process_killed_mid_write_leaves_a_whole_ledger_and_answerable_approvals() {
    let (_tmp, dir) = setup();
    for round in 0..4u64 {
        let mut child = spawn(&dir, "forever");
        std::thread::sleep(Duration::from_millis(150 + 70 * round));
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        let store = Store::open(dir.join("state/toolgate.db")).unwrap();
        let report = store.verify().unwrap();
        assert!(report.is_intact(), "round {round}: {report:?}");
    }
    let store = Store::open(dir.join("state/toolgate.db")).unwrap();
    let pending = store.list_approvals(Some(ApprovalStatus::Pending)).unwrap();
    assert!(!pending.is_empty(), "the children queued calls");
    let waiting_rows = store
        .rows(&RowFilter::default())
        .unwrap()
        .into_iter()
        .filter(|r| r.record.outcome == toolgate_store::Outcome::Waiting)
        .count();
    assert_eq!(
        waiting_rows,
        pending.len(),
        "every waiting row has its approval and back"
    );
    drop(store);
    // Every pending approval is still answerable, and runs exactly once.
    let mut g = gate(&dir, "approver");
    for p in &pending {
        g.store()
            .unwrap()
            .answer(&p.id, Answer::Approve, None, "test")
            .unwrap();
        let r = g.resume(&p.id).unwrap();
        assert_eq!(r.outcome, Outcome::Executed, "{}", r.content);
        assert!(g.resume(&p.id).is_err());
    }
    let ran = std::fs::read_to_string(dir.join("LATER")).unwrap_or_default();
    for p in &pending {
        assert_eq!(
            ran.lines().filter(|l| *l == p.call_id).count(),
            1,
            "{} ran once",
            p.call_id
        );
    }
    let store = Store::open(dir.join("state/toolgate.db")).unwrap();
    assert!(store.verify().unwrap().is_intact());
    assert_eq!(store.totals().unwrap().waiting, 0);
}

//! The demo end to end: every scenario, and one configuration, with what
//! is on disk afterwards as the proof of what ran.

use toolgate_agent::Stop;
use toolgate_store::Store;

use super::scenarios::{DemoConfig, DemoOptions, HostAnswer, run_demo};

#[test]
fn the_demo_runs_every_scenario_and_leaves_proof_of_what_ran() {
    let tmp = tempfile::tempdir().unwrap();
    let mut out = Vec::new();
    let report = run_demo(
        &DemoOptions {
            color: false,
            only: None,
            dir: Some(tmp.path().to_path_buf()),
        },
        &mut out,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains('\x1b'), "no colour when not asked for");

    let titles: Vec<&str> = report.scenarios.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "the host approves",
            "the host declines",
            "no answer yet",
            "deny beats a yes",
            "allow needs no yes",
            "a blocked tool",
            "a call budget of 1",
        ]
    );
    let counts: Vec<(u64, u64, u64, u64, u64)> = report
        .scenarios
        .iter()
        .map(|s| {
            let t = s.stats;
            (t.requests, t.prompts, t.executions, t.blocked, t.waiting)
        })
        .collect();
    assert_eq!(
        counts,
        [
            (3, 1, 2, 1, 0),
            (3, 1, 1, 2, 0),
            (3, 1, 1, 1, 1),
            (1, 0, 0, 1, 0),
            (1, 0, 1, 0, 0),
            (1, 0, 0, 1, 0),
            (1, 0, 1, 0, 0),
        ]
    );
    // What is on disk afterwards: only the approved write happened.
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let notes =
        |n: usize| std::fs::read_to_string(base.join(format!("workspace-{n}/notes.txt"))).unwrap();
    assert_eq!(notes(1), "reviewed");
    for n in 2..=7 {
        assert_eq!(notes(n), "draft", "scenario {n}");
    }
    assert_eq!(report.scenarios[6].stop, Stop::CallBudget { max_calls: 1 });
    let t = report.totals;
    assert_eq!(
        (t.requests, t.prompts, t.executions, t.blocked, t.waiting),
        (13, 3, 6, 6, 1)
    );
    assert!(report.chain_intact);
    // The waiting write is a pending approval in the demo's ledger.
    let store = Store::open(base.join("state/toolgate.db")).unwrap();
    let pending = store.list_pending().unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].tool, "write_file");

    for needle in [
        "1. the host approves",
        "rule no-secrets: secrets.txt never enters the model's context",
        "-> approve",
        "-> decline (keep the draft for now)",
        "-> unanswered",
        "rule host:blocked-tool",
        "beyond the call budget of 1",
        "notes.txt \"reviewed\"",
        "requests 13  prompts 3  executions 6  blocked 6  waiting 1",
        "hash chain intact",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
}

#[test]
fn the_demo_runs_one_configuration_with_colour() {
    let tmp = tempfile::tempdir().unwrap();
    let mut out = Vec::new();
    let report = run_demo(
        &DemoOptions {
            color: true,
            only: Some(DemoConfig {
                answer: HostAnswer::Decline,
                blocked_tools: vec!["read_file".into()],
                max_calls: None,
            }),
            dir: Some(tmp.path().to_path_buf()),
        },
        &mut out,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("\x1b[31m"), "red for refusals");
    assert_eq!(report.scenarios.len(), 1);
    let s = report.scenarios[0].stats;
    // Both reads blocked by the host; the write asked and was declined.
    assert_eq!(
        (s.requests, s.prompts, s.executions, s.blocked),
        (3, 1, 0, 3)
    );
    assert_eq!(report.scenarios[0].notes, "draft");
}

//! A process killed with SIGKILL in the middle of its work leaves a ledger
//! that verifies and a queue whose approvals can all still be answered.

use std::collections::HashSet;
use std::time::Duration;

use toolgate_store::{Answer, ApprovalStatus, Outcome, RowFilter, RowKind};

use crate::both;
use crate::support::{ChildLines, spawn_child};

both! {
fn a_killed_writer_leaves_nothing_half_written(fx) {
    let target = fx.target();
    let mut last_head = 0;
    // Several rounds against the same file, killed after different delays
    // so that the kill lands at different points of a transaction.
    for (round, delay_ms) in [1u64, 3, 7, 13, 17, 29, 41, 89].into_iter().enumerate() {
        let mut child = spawn_child("crash-loop", &target.0, &format!("r{round}"));
        let mut lines = ChildLines::of(&mut child);
        assert_eq!(lines.next_line().as_deref(), Some("ready"));
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().expect("SIGKILL the child");
        let status = child.wait().unwrap();
        assert!(!status.success(), "the child was killed, not finished");

        let store = target.open().expect("the store opens after the kill");
        let report = store.verify().unwrap();
        assert!(report.is_intact(), "round {round}: {:?}", report.problem);
        let head = report.head.unwrap();
        assert!(
            head.seq > last_head + 100,
            "round {round}: the child made progress"
        );

        // Every queued approval has its waiting request row, and every
        // waiting request row has its approval: both or neither.
        let rows = store.rows(&RowFilter::default()).unwrap();
        assert_eq!(rows.len() as u64, head.seq);
        let pending = store.list_pending().unwrap();
        let resolved: HashSet<&str> = rows
            .iter()
            .filter(|r| r.kind == RowKind::Resolution)
            .filter_map(|r| r.record.approval_id.as_deref())
            .collect();
        let waiting_rows: Vec<_> = rows
            .iter()
            .filter(|r| r.kind == RowKind::Request && r.record.outcome == Outcome::Waiting)
            .filter(|r| !resolved.contains(r.record.approval_id.as_deref().unwrap_or_default()))
            .collect();
        assert_eq!(waiting_rows.len(), pending.len());
        for row in &waiting_rows {
            let id = row.record.approval_id.as_deref().expect("linked");
            assert!(
                pending.iter().any(|p| p.id == id),
                "approval {id} is missing"
            );
        }

        // Each one can still be answered, and the ledger still verifies.
        for (i, approval) in pending.iter().enumerate() {
            if i % 2 == 0 {
                store
                    .answer(&approval.id, Answer::Decline, None, "test")
                    .unwrap();
            } else {
                store
                    .answer(&approval.id, Answer::Approve, None, "test")
                    .unwrap();
                let claimed = store.claim_for_execution(&approval.id).unwrap().unwrap();
                assert_eq!(claimed.status, ApprovalStatus::Executing);
                store.finish(&approval.id, Outcome::Executed, 5).unwrap();
            }
        }
        let totals = store.totals().unwrap();
        assert_eq!(totals.waiting, 0);
        assert_eq!(
            totals.requests,
            totals.executions + totals.blocked + totals.failed
        );
        let report = store.verify().unwrap();
        assert!(
            report.is_intact(),
            "round {round} after answering: {:?}",
            report.problem
        );
        last_head = report.head.unwrap().seq;
    }
}
}

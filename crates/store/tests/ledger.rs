//! Appending, reading back, and counting.

use toolgate_store::{Answer, ApprovalAnswer, Decision, Outcome, RowFilter, RowKind, Totals};

use crate::both;
use crate::support::{documented_hash, executed, genesis, record, waiting};

both! {
fn rows_start_at_one_and_each_names_the_previous_hash(fx) {
    let store = fx.open();
    for i in 0..5 {
        let appended = store.append(&executed("s", &format!("c{i}"))).unwrap();
        assert_eq!(appended.seq, i + 1);
    }
    let rows = store.rows(&RowFilter::default()).unwrap();
    assert_eq!(
        rows.iter().map(|r| r.seq).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    let mut prev = genesis().to_owned();
    for row in &rows {
        assert_eq!(row.prev_hash, prev, "row {}", row.seq);
        assert_eq!(row.hash, documented_hash(&prev, row), "row {}", row.seq);
        prev = row.hash.clone();
    }
    let head = store.head().unwrap();
    assert_eq!((head.seq, head.hash), (5, prev));
}
}

both! {
fn a_record_reads_back_as_it_was_appended(fx) {
    let store = fx.open();
    let mut r = record("s1", "toolu_9", Decision::Deny, Outcome::Blocked);
    r.client = None;
    r.rule = None;
    r.hard = true;
    r.reason = "writes outside the roots are never allowed: `/etc/passwd`".to_owned();
    r.input = r#"{"path":"/etc/passwd","content":"x\ny"}"#.to_owned();
    r.note = Some("ünïcödé note".to_owned());
    r.approval = Some(ApprovalAnswer::NoAnswer);
    r.duration_us = u64::from(u32::MAX) + 7;
    let appended = store.append(&r).unwrap();

    let rows = store.rows(&RowFilter::default()).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].record, r);
    assert_eq!(rows[0].kind, RowKind::Request);
    assert_eq!((rows[0].seq, &rows[0].hash), (appended.seq, &appended.hash));
}
}

both! {
fn row_time_is_rfc3339_utc_with_milliseconds(fx) {
    let store = fx.open();
    store.append(&executed("s", "c")).unwrap();
    let time = &store.rows(&RowFilter::default()).unwrap()[0].time;
    let b = time.as_bytes();
    assert_eq!(time.len(), 24, "{time}");
    for (i, c) in [
        (4, b'-'),
        (7, b'-'),
        (10, b'T'),
        (13, b':'),
        (16, b':'),
        (19, b'.'),
        (23, b'Z'),
    ] {
        assert_eq!(b[i], c, "{time}");
    }
    assert!(time.starts_with("20"), "{time}");
}
}

both! {
fn rows_filter_by_session_call_and_position(fx) {
    let store = fx.open();
    for i in 0..10 {
        let session = if i % 2 == 0 { "even" } else { "odd" };
        store.append(&executed(session, &format!("c{i}"))).unwrap();
    }
    let seqs =
        |f: RowFilter| -> Vec<u64> { store.rows(&f).unwrap().iter().map(|r| r.seq).collect() };
    assert_eq!(
        seqs(RowFilter {
            session: Some("odd".into()),
            ..Default::default()
        }),
        [2, 4, 6, 8, 10]
    );
    assert_eq!(
        seqs(RowFilter {
            call_id: Some("c3".into()),
            ..Default::default()
        }),
        [4]
    );
    assert_eq!(
        seqs(RowFilter {
            after_seq: Some(7),
            ..Default::default()
        }),
        [8, 9, 10]
    );
    assert_eq!(
        seqs(RowFilter {
            limit: Some(3),
            newest_first: true,
            ..Default::default()
        }),
        [10, 9, 8]
    );
    assert_eq!(
        seqs(RowFilter {
            session: Some("even".into()),
            limit: Some(2),
            ..Default::default()
        }),
        [1, 3]
    );
}
}

both! {
fn totals_count_each_call_once_where_it_ended(fx) {
    let store = fx.open();
    // Allowed and ran; allowed and the tool failed; denied.
    store.append(&executed("s", "ran")).unwrap();
    store
        .append(&record("s", "broke", Decision::Allow, Outcome::Failed))
        .unwrap();
    store
        .append(&record("s", "denied", Decision::Deny, Outcome::Blocked))
        .unwrap();
    // Asked at the terminal and declined there: one row.
    let mut declined = record("s", "said-no", Decision::Ask, Outcome::Blocked);
    declined.approval = Some(ApprovalAnswer::Decline);
    store.append(&declined).unwrap();
    // Asked through the queue: approved and executed later.
    let (r, p) = waiting("s", "later-yes");
    let yes = store.append_waiting(&r, &p).unwrap();
    // Asked through the queue: declined later.
    let (r, p) = waiting("s", "later-no");
    let no = store.append_waiting(&r, &p).unwrap();
    // Asked through the queue: still unanswered.
    let (r, p) = waiting("s", "pending");
    store.append_waiting(&r, &p).unwrap();

    let before = store.totals().unwrap();
    assert_eq!(
        before,
        Totals {
            requests: 7,
            prompts: 4,
            executions: 1,
            blocked: 2,
            waiting: 3,
            failed: 1,
            passed: 0
        }
    );

    store
        .answer(&yes.id, Answer::Approve, None, "test")
        .unwrap();
    store.claim_for_execution(&yes.id).unwrap().unwrap();
    store.finish(&yes.id, Outcome::Executed, 900).unwrap();
    store
        .answer(&no.id, Answer::Decline, Some("not now"), "test")
        .unwrap();

    let after = store.totals().unwrap();
    assert_eq!(
        after,
        Totals {
            requests: 7,
            prompts: 4,
            executions: 2,
            blocked: 3,
            waiting: 1,
            failed: 1,
            passed: 0
        }
    );
    assert_eq!(
        after.requests,
        after.executions + after.failed + after.blocked + after.waiting
    );
    assert_eq!(store.rows(&RowFilter::default()).unwrap().len(), 9);
    assert!(store.verify().unwrap().is_intact());
}
}

both! {
fn a_resolution_row_carries_the_call_and_the_answer(fx) {
    let store = fx.open();
    let (r, p) = waiting("s", "c1");
    let queued = store.append_waiting(&r, &p).unwrap();
    store
        .answer(&queued.id, Answer::Approve, Some("ok once"), "cli:alice")
        .unwrap();
    store.claim_for_execution(&queued.id).unwrap().unwrap();
    let appended = store.finish(&queued.id, Outcome::Failed, 4321).unwrap();

    let rows = store
        .rows(&RowFilter {
            approval_id: Some(queued.id.clone()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(rows.len(), 2);
    let (request, resolution) = (&rows[0], &rows[1]);
    assert_eq!(request.kind, RowKind::Request);
    assert_eq!(request.record.outcome, Outcome::Waiting);
    assert_eq!(request.seq, queued.appended.seq);
    assert_eq!(resolution.kind, RowKind::Resolution);
    assert_eq!(resolution.seq, appended.seq);
    assert_eq!(resolution.record.call_id, "c1");
    assert_eq!(resolution.record.session, "s");
    assert_eq!(resolution.record.digest, p.digest);
    assert_eq!(resolution.record.input, p.snapshot_json);
    assert_eq!(resolution.record.decision, Decision::Ask);
    assert_eq!(resolution.record.approval, Some(ApprovalAnswer::Approve));
    assert_eq!(resolution.record.note.as_deref(), Some("ok once"));
    assert_eq!(resolution.record.outcome, Outcome::Failed);
    assert_eq!(resolution.record.duration_us, 4321);
}
}

both! {
fn session_totals_count_only_that_session(fx) {
    let store = fx.open();
    store.append(&executed("a", "1")).unwrap();
    store.append(&executed("a", "2")).unwrap();
    store
        .append(&record("b", "3", Decision::Deny, Outcome::Blocked))
        .unwrap();
    let a = store.session_totals("a").unwrap();
    let b = store.session_totals("b").unwrap();
    assert_eq!((a.requests, a.executions, a.blocked), (2, 2, 0));
    assert_eq!((b.requests, b.executions, b.blocked), (1, 0, 1));
    assert_eq!(store.session_totals("nobody").unwrap(), Totals::default());
    assert_eq!(store.totals().unwrap().requests, 3);
}
}

both! {
fn the_ledger_survives_reopening(fx) {
    let path = fx.target();
    {
        let store = path.open().unwrap();
        store.append(&executed("s", "c1")).unwrap();
    }
    let store = path.open().unwrap();
    let appended = store.append(&executed("s", "c2")).unwrap();
    assert_eq!(appended.seq, 2);
    assert!(store.verify().unwrap().is_intact());
}
}

both! {
fn passed_calls_count_once(fx) {
    let store = fx.open();
    store
        .append(&record("s", "c1", Decision::Allow, Outcome::Passed))
        .unwrap();
    let t = store.totals().unwrap();
    assert_eq!((t.requests, t.passed, t.executions), (1, 1, 0));
    assert_eq!(
        t.requests,
        t.executions + t.failed + t.blocked + t.waiting + t.passed
    );
}
}

both! {
fn rows_with_a_server_hash_as_documented_and_filter_by_server(fx) {
    let store = fx.open();
    let mut a = executed("s", "c1");
    a.server = Some("fs".to_owned());
    store.append(&a).unwrap();
    store.append(&executed("s", "c2")).unwrap();
    let (mut w, mut p) = waiting("s", "c3");
    w.server = Some("git".to_owned());
    p.server = Some("git".to_owned());
    let queued = store.append_waiting(&w, &p).unwrap();
    assert_eq!(
        store
            .approval(&queued.id)
            .unwrap()
            .unwrap()
            .server
            .as_deref(),
        Some("git")
    );

    let rows = store.rows(&RowFilter::default()).unwrap();
    let mut prev = genesis().to_owned();
    for row in &rows {
        assert_eq!(row.hash, documented_hash(&prev, row), "row {}", row.seq);
        prev = row.hash.clone();
    }
    assert!(store.verify().unwrap().is_intact());
    let fs = store
        .rows(&RowFilter {
            server: Some("fs".to_owned()),
            ..RowFilter::default()
        })
        .unwrap();
    assert_eq!(fs.len(), 1);
    assert_eq!(fs[0].record.call_id, "c1");
    assert_eq!(fs[0].record.server.as_deref(), Some("fs"));
}
}

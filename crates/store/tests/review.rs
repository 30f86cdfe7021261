//! The reviewer model's answers: stored with the call's row, hashed into
//! the chain, counted per session, and found again from a queued approval.

use toolgate_store::{
    Answer, Decision, Outcome, ProblemKind, Record, ReviewCounts, ReviewDecision, ReviewRecord,
    RowFilter, RowKind, SCHEMA_VERSION, Store,
};

use crate::both;
use crate::support::{
    Fixture, UNDO_V6, db_in, documented_hash, executed, fresh, genesis, pg_raw, raw, record,
    waiting,
};

fn review(decision: ReviewDecision, reason: &str) -> ReviewRecord {
    ReviewRecord {
        model: "gpt-4.1-mini".to_owned(),
        decision,
        reason: reason.to_owned(),
        latency_ms: 412,
    }
}

/// A call the policy asked about and the reviewer answered: allowed and
/// run, denied and blocked, or escalated and left to a person (here
/// recorded as blocked; a queued one is `waiting`).
fn reviewed(session: &str, call_id: &str, decision: ReviewDecision) -> Record {
    let outcome = match decision {
        ReviewDecision::Allow => Outcome::Executed,
        _ => Outcome::Blocked,
    };
    let mut r = record(session, call_id, Decision::Ask, outcome);
    r.review = Some(review(decision, &format!("{decision} for {call_id}")));
    r
}

/// A row's four review columns, as stored.
type ReviewColumns = (
    Option<String>,
    Option<String>,
    Option<String>,
    rusqlite::types::Value,
);

fn counts(store: &Store, session: &str) -> (u32, u32, u32) {
    let c = store.review_counts(session).expect("review counts");
    (c.denials_in_a_row, c.denials, c.breaker_rows)
}

#[test]
fn review_decisions_are_spelt_and_parsed() {
    for (d, text) in [
        (ReviewDecision::Allow, "allow"),
        (ReviewDecision::Deny, "deny"),
        (ReviewDecision::Escalate, "escalate"),
        (ReviewDecision::Breaker, "breaker"),
    ] {
        assert_eq!(d.as_str(), text);
        assert_eq!(text.parse::<ReviewDecision>().unwrap(), d);
    }
    assert!("maybe".parse::<ReviewDecision>().is_err());
}

both! {
fn reviews_read_back_as_appended_and_hash_as_documented(fx) {
    let store = fx.open();
    let mut appended = vec![
        executed("s", "plain"),
        reviewed("s", "a", ReviewDecision::Allow),
        reviewed("s", "d", ReviewDecision::Deny),
        reviewed("s", "e", ReviewDecision::Escalate),
        reviewed("s", "b", ReviewDecision::Breaker),
    ];
    // A reason with every kind of text, a server beside the review, and a
    // latency past what the column holds (stored as its largest value).
    let mut odd = reviewed("s", "odd", ReviewDecision::Deny);
    odd.server = Some("fs".to_owned());
    odd.review = Some(ReviewRecord {
        model: "m\u{202e}x".to_owned(),
        decision: ReviewDecision::Deny,
        reason: "line\nbreak \"quoted\" \u{1b}[31m ü".to_owned(),
        latency_ms: u64::MAX,
    });
    appended.push(odd);
    for r in &appended {
        store.append(r).unwrap();
    }
    let rows = store.rows(&RowFilter::default()).unwrap();
    assert_eq!(rows.len(), appended.len());
    let mut prev = genesis().to_owned();
    for (row, want) in rows.iter().zip(&appended) {
        let mut want = want.clone();
        if let Some(r) = &mut want.review {
            r.latency_ms = r.latency_ms.min(i64::MAX as u64);
        }
        assert_eq!(row.record, want, "row {}", row.seq);
        assert_eq!(row.hash, documented_hash(&prev, row), "row {}", row.seq);
        prev = row.hash.clone();
    }
    assert!(rows[0].record.review.is_none());
    assert!(store.verify().unwrap().is_intact());

    // Only reviewed rows, when asked.
    let only: Vec<String> = store
        .rows(&RowFilter { reviewed: true, ..RowFilter::default() })
        .unwrap()
        .into_iter()
        .map(|r| r.record.call_id)
        .collect();
    assert_eq!(only, ["a", "d", "e", "b", "odd"]);
}
}

both! {
fn review_counts_follow_the_session_in_order(fx) {
    let store = fx.open();
    assert_eq!(store.review_counts("s").unwrap(), ReviewCounts::default());
    for (i, d) in [
        ReviewDecision::Deny,
        ReviewDecision::Deny,
        ReviewDecision::Allow,
        ReviewDecision::Deny,
    ]
    .into_iter()
    .enumerate()
    {
        store.append(&reviewed("s", &format!("c{i}"), d)).unwrap();
    }
    assert_eq!(
        store.review_counts("s").unwrap(),
        ReviewCounts { denials_in_a_row: 1, denials: 3, breaker_rows: 0 }
    );

    // Rows nobody reviewed, and other sessions' rows, change nothing.
    store.append(&executed("s", "plain")).unwrap();
    store.append(&reviewed("other", "o1", ReviewDecision::Allow)).unwrap();
    store.append(&reviewed("other", "o2", ReviewDecision::Breaker)).unwrap();
    assert_eq!(counts(&store, "s"), (1, 3, 0));
    assert_eq!(counts(&store, "other"), (0, 0, 1));

    // A breaker row is counted and does not reset the run of denials.
    store.append(&reviewed("s", "b1", ReviewDecision::Breaker)).unwrap();
    assert_eq!(counts(&store, "s"), (1, 3, 1));
    store.append(&reviewed("s", "d5", ReviewDecision::Deny)).unwrap();
    assert_eq!(counts(&store, "s"), (2, 4, 1));

    // An escalation resets it, as an allow does.
    store.append(&reviewed("s", "e6", ReviewDecision::Escalate)).unwrap();
    assert_eq!(counts(&store, "s"), (0, 4, 1));
    store.append(&reviewed("s", "d7", ReviewDecision::Deny)).unwrap();
    assert_eq!(counts(&store, "s"), (1, 5, 1));
    assert_eq!(counts(&store, "nobody"), (0, 0, 0));
}
}

both! {
fn a_queued_call_is_found_with_its_review_by_its_approval(fx) {
    let store = fx.open();
    let (mut request, pending) = waiting("s", "c1");
    request.review = Some(review(ReviewDecision::Escalate, "force-pushes to a shared branch"));
    let queued = store.append_waiting(&request, &pending).unwrap();
    let (plain, plain_pending) = waiting("s", "c2");
    let unreviewed = store.append_waiting(&plain, &plain_pending).unwrap();

    let row = store.request_row(&queued.id).unwrap().expect("the request row");
    assert_eq!(row.kind, RowKind::Request);
    assert_eq!(row.seq, queued.appended.seq);
    assert_eq!(row.record.review, request.review);
    let row = store.request_row(&unreviewed.id).unwrap().expect("the request row");
    assert_eq!(row.record.review, None);
    assert!(store.request_row("ffffffff").unwrap().is_none());

    // Once answered it has a resolution row too, which the reviewer did
    // not answer: the request row is still the one found.
    let answered = store.answer(&queued.id, Answer::Decline, Some("no"), "web").unwrap();
    assert!(answered.resolution.is_some());
    let row = store.request_row(&queued.id).unwrap().expect("the request row");
    assert_eq!(row.kind, RowKind::Request);
    let resolution = store
        .rows(&RowFilter { approval_id: Some(queued.id.clone()), ..RowFilter::default() })
        .unwrap()
        .into_iter()
        .find(|r| r.kind == RowKind::Resolution)
        .expect("a resolution row");
    assert_eq!(resolution.record.review, None);
    // One escalation counted, no denial.
    assert_eq!(counts(&store, "s"), (0, 0, 0));
    assert!(store.verify().unwrap().is_intact());
}
}

#[test]
fn an_edited_review_is_caught_at_its_row() {
    let (dir, store) = fresh();
    store.append(&executed("s", "c1")).unwrap();
    store
        .append(&reviewed("s", "c2", ReviewDecision::Deny))
        .unwrap();
    store.append(&executed("s", "c3")).unwrap();
    assert!(store.verify().unwrap().is_intact());
    let conn = raw(&db_in(&dir));
    for edit in [
        "UPDATE ledger SET review_decision = 'allow' WHERE seq = 2",
        "UPDATE ledger SET review_model = NULL WHERE seq = 2",
        "UPDATE ledger SET review_latency_ms = 'fast' WHERE seq = 2",
        // A review slipped onto a row that had none.
        "UPDATE ledger SET review_model = 'm', review_decision = 'allow', review_reason = 'ok',
             review_latency_ms = 1 WHERE seq = 3",
    ] {
        let before: Vec<ReviewColumns> = conn
            .prepare(
                "SELECT review_model, review_decision, review_reason, review_latency_ms
                 FROM ledger ORDER BY seq",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        conn.execute_batch(edit).unwrap();
        let report = store.verify().unwrap();
        let problem = report
            .problem
            .unwrap_or_else(|| panic!("not caught: {edit}"));
        assert_eq!(problem.kind, ProblemKind::Edited, "{edit}");
        let seq = if edit.contains("seq = 3") { 3 } else { 2 };
        assert_eq!(problem.seq, seq, "{edit}");
        // Put it back.
        for (i, (m, d, r, l)) in before.into_iter().enumerate() {
            conn.execute(
                "UPDATE ledger SET review_model = ?1, review_decision = ?2, review_reason = ?3,
                     review_latency_ms = ?4 WHERE seq = ?5",
                rusqlite::params![m, d, r, l, i as i64 + 1],
            )
            .unwrap();
        }
        assert!(store.verify().unwrap().is_intact(), "restored after {edit}");
    }
}

#[test]
fn a_version_5_database_gains_the_review_columns_and_keeps_its_hashes() {
    let (dir, store) = fresh();
    store.append(&executed("s", "c1")).unwrap();
    let (request, pending) = waiting("s", "c2");
    let queued = store.append_waiting(&request, &pending).unwrap();
    drop(store);
    // Take the file back to schema version 5: no review columns or indexes.
    let conn = raw(&db_in(&dir));
    conn.execute_batch(UNDO_V6).unwrap();
    conn.pragma_update(None, "user_version", 5).unwrap();
    drop(conn);

    let store = Store::open(db_in(&dir)).unwrap();
    assert!(
        store.verify().unwrap().is_intact(),
        "old rows keep their hashes"
    );
    assert_eq!(
        store.rows(&RowFilter::default()).unwrap()[0].record.review,
        None
    );
    assert!(store.request_row(&queued.id).unwrap().is_some());
    store
        .append(&reviewed("s", "c3", ReviewDecision::Deny))
        .unwrap();
    assert_eq!(counts(&store, "s"), (1, 1, 0));
    assert!(store.verify().unwrap().is_intact());
    drop(store);

    let conn = raw(&db_in(&dir));
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    let indexes: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'ledger_%'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(indexes.contains(&"ledger_review".to_owned()), "{indexes:?}");
    assert!(
        indexes.contains(&"ledger_request_approval".to_owned()),
        "{indexes:?}"
    );
}

/// The two reads that run per reviewed call or per shown approval go
/// through their own partial indexes, never over the whole ledger.
#[test]
fn review_reads_use_their_indexes() {
    let (dir, store) = fresh();
    store
        .append(&reviewed("s", "c1", ReviewDecision::Deny))
        .unwrap();
    drop(store);
    let conn = raw(&db_in(&dir));
    let plan = |sql: &str| -> String {
        conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap()
            .query_map(["x"], |r| r.get::<_, String>(3))
            .unwrap()
            .collect::<rusqlite::Result<Vec<_>>>()
            .unwrap()
            .join("\n")
    };
    let counting =
        plan("SELECT COUNT(*) FROM ledger WHERE session = ?1 AND review_decision IS NOT NULL");
    assert!(counting.contains("ledger_review"), "{counting}");
    let finding = plan(
        "SELECT seq FROM ledger WHERE approval_id = ?1 AND kind = 'request' ORDER BY seq LIMIT 1",
    );
    assert!(finding.contains("ledger_request_approval"), "{finding}");
}

#[test]
fn a_spooled_review_reaches_the_ledger() {
    let dir = tempfile::tempdir().unwrap();
    {
        let spooled = Store::open_spooled(dir.path()).unwrap();
        spooled.append(&executed("s", "c1")).unwrap();
        spooled
            .append(&reviewed("s", "c2", ReviewDecision::Deny))
            .unwrap();
    }
    assert!(!dir.path().join("toolgate.db").exists());
    let store = Store::open_in(dir.path()).unwrap();
    let rows = store.rows(&RowFilter::default()).unwrap();
    assert_eq!(rows[0].record.review, None);
    assert_eq!(
        rows[1].record.review,
        Some(review(ReviewDecision::Deny, "deny for c2"))
    );
    assert_eq!(counts(&store, "s"), (1, 1, 0));
    assert!(store.verify().unwrap().is_intact());
}

#[test]
fn a_postgres_database_before_reviews_is_migrated_keeping_its_rows() {
    let Some(fx) = Fixture::postgres() else {
        return;
    };
    let store = fx.open();
    store.append(&executed("s", "c1")).unwrap();
    drop(store);
    pg_raw(&fx.target())
        .batch_execute(
            "DROP INDEX ledger_review; DROP INDEX ledger_request_approval;
             ALTER TABLE ledger DROP COLUMN review_model, DROP COLUMN review_decision,
                 DROP COLUMN review_reason, DROP COLUMN review_latency_ms;
             DELETE FROM toolgate_migrations WHERE version = 4;",
        )
        .unwrap();
    let store = fx.open();
    assert!(store.verify().unwrap().is_intact());
    store
        .append(&reviewed("s", "c2", ReviewDecision::Deny))
        .unwrap();
    assert_eq!(counts(&store, "s"), (1, 1, 0));
    assert!(store.verify().unwrap().is_intact());
}

#[test]
fn reviews_are_copied_into_postgres_and_verify_there() {
    let Some(fx) = Fixture::postgres() else {
        return;
    };
    let (_dir, source) = fresh();
    source.append(&executed("s", "c1")).unwrap();
    source
        .append(&reviewed("s", "c2", ReviewDecision::Deny))
        .unwrap();
    source
        .append(&reviewed("s", "c3", ReviewDecision::Breaker))
        .unwrap();
    let target = fx.open();
    let report = source.copy_to(&target).unwrap();
    assert_eq!(report.rows, 3);
    assert_eq!(
        target.rows(&RowFilter::default()).unwrap(),
        source.rows(&RowFilter::default()).unwrap()
    );
    assert_eq!(counts(&target, "s"), (1, 1, 1));
}

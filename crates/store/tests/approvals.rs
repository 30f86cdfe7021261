//! The approval queue: each transition happens exactly once.

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use toolgate_store::{Answer, ApprovalStatus, Error, Outcome, RowFilter, RowKind, Store};

use crate::both;
use crate::support::{executed, waiting};

fn queued(store: &Store, call: &str) -> String {
    let (r, p) = waiting("s", call);
    store.append_waiting(&r, &p).unwrap().id
}

both! {
fn ids_are_short_hex_and_unique(fx) {
    let store = fx.open();
    let mut ids = std::collections::HashSet::new();
    for i in 0..2000 {
        let (_, p) = waiting("s", &format!("c{i}"));
        let id = store.create_pending(&p).unwrap();
        assert_eq!(id.len(), 8, "{id}");
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
            "{id}"
        );
        assert!(ids.insert(id.clone()), "duplicate id {id}");
    }
    assert_eq!(store.list_pending().unwrap().len(), 2000);
}
}

both! {
fn a_queued_call_keeps_its_snapshot_and_digest(fx) {
    let store = fx.open();
    let (r, p) = waiting("s", "c1");
    let queued = store.append_waiting(&r, &p).unwrap();
    let got = store.approval(&queued.id).unwrap().unwrap();
    assert_eq!(got.id, queued.id);
    assert_eq!(got.status, ApprovalStatus::Pending);
    assert_eq!(
        (
            &got.session,
            &got.call_id,
            &got.tool,
            &got.snapshot_json,
            &got.digest
        ),
        (&p.session, &p.call_id, &p.tool, &p.snapshot_json, &p.digest)
    );
    assert_eq!(
        (&got.reason, &got.rule, got.remember_allowed),
        (&p.reason, &p.rule, false)
    );
    assert_eq!((got.answer, got.outcome), (None, None));
    let rows = store.rows(&RowFilter::default()).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        rows[0].record.approval_id.as_deref(),
        Some(queued.id.as_str())
    );
    assert_eq!(rows[0].record.outcome, Outcome::Waiting);
}
}

both! {
fn only_a_waiting_record_can_be_queued(fx) {
    let store = fx.open();
    let (_, p) = waiting("s", "c1");
    let err = store.append_waiting(&executed("s", "c1"), &p).unwrap_err();
    assert!(
        matches!(
            err,
            Error::WrongOutcome {
                outcome: Outcome::Executed,
                ..
            }
        ),
        "{err}"
    );
    assert!(store.list_pending().unwrap().is_empty());
    assert_eq!(store.head().unwrap().seq, 0);
}
}

both! {
fn an_approval_is_answered_once(fx) {
    let store = fx.open();
    let id = queued(&store, "c1");
    let answered = store
        .answer(&id, Answer::Approve, Some("fine"), "cli:alice")
        .unwrap();
    assert_eq!(answered.approval.status, ApprovalStatus::Approved);
    assert_eq!(answered.approval.answer, Some(Answer::Approve));
    assert_eq!(answered.approval.note.as_deref(), Some("fine"));
    assert_eq!(answered.approval.answered_by.as_deref(), Some("cli:alice"));
    assert!(answered.approval.answered.is_some());
    assert!(answered.resolution.is_none());

    for again in [Answer::Approve, Answer::Decline] {
        let err = store.answer(&id, again, None, "cli:bob").unwrap_err();
        assert!(
            matches!(&err, Error::AlreadyAnswered { id: i, status: ApprovalStatus::Approved } if *i == id),
            "{err}"
        );
    }
    let still = store.approval(&id).unwrap().unwrap();
    assert_eq!(still.answered_by.as_deref(), Some("cli:alice"));
}
}

both! {
fn an_unknown_id_is_an_error_everywhere(fx) {
    let store = fx.open();
    queued(&store, "c1");
    assert_eq!(store.approval("deadbeef").unwrap(), None);
    let unknown = |e: Error| matches!(&e, Error::UnknownApproval { id } if id == "deadbeef");
    assert!(unknown(
        store
            .answer("deadbeef", Answer::Approve, None, "t")
            .unwrap_err()
    ));
    assert!(unknown(store.claim_for_execution("deadbeef").unwrap_err()));
    assert!(unknown(
        store.finish("deadbeef", Outcome::Executed, 1).unwrap_err()
    ));
    let msg = store
        .answer("deadbeef", Answer::Approve, None, "t")
        .unwrap_err()
        .to_string();
    assert_eq!(msg, "no approval with id `deadbeef`");
}
}

both! {
fn a_decline_ends_the_call_in_the_ledger(fx) {
    let store = fx.open();
    let id = queued(&store, "c1");
    let answered = store
        .answer(&id, Answer::Decline, Some("too risky"), "web")
        .unwrap();
    assert_eq!(answered.approval.status, ApprovalStatus::Declined);
    assert_eq!(answered.approval.outcome, Some(Outcome::Blocked));
    let resolution = answered
        .resolution
        .expect("a decline appends its resolution");
    assert_eq!(resolution.seq, 2);

    let rows = store.rows(&RowFilter::default()).unwrap();
    assert_eq!(rows[1].kind, RowKind::Resolution);
    assert_eq!(rows[1].record.outcome, Outcome::Blocked);
    assert_eq!(rows[1].record.note.as_deref(), Some("too risky"));
    assert_eq!(store.claim_for_execution(&id).unwrap(), None);
    let totals = store.totals().unwrap();
    assert_eq!((totals.blocked, totals.waiting), (1, 0));
    assert!(store.list_pending().unwrap().is_empty());
}
}

both! {
fn a_call_is_claimed_once_and_only_after_approval(fx) {
    let store = fx.open();
    let id = queued(&store, "c1");
    assert_eq!(
        store.claim_for_execution(&id).unwrap(),
        None,
        "not approved yet"
    );
    store.answer(&id, Answer::Approve, None, "t").unwrap();
    let claimed = store
        .claim_for_execution(&id)
        .unwrap()
        .expect("first claim wins");
    assert_eq!(claimed.status, ApprovalStatus::Executing);
    assert_eq!(
        store.claim_for_execution(&id).unwrap(),
        None,
        "second claim loses"
    );

    let appended = store.finish(&id, Outcome::Executed, 77).unwrap();
    assert_eq!(appended.seq, 2);
    let done = store.approval(&id).unwrap().unwrap();
    assert_eq!(
        (done.status, done.outcome),
        (ApprovalStatus::Done, Some(Outcome::Executed))
    );
    assert!(done.finished.is_some());
    assert_eq!(
        store.claim_for_execution(&id).unwrap(),
        None,
        "done is final"
    );
    let err = store.finish(&id, Outcome::Executed, 1).unwrap_err();
    assert!(
        matches!(
            err,
            Error::NotExecuting {
                status: ApprovalStatus::Done,
                ..
            }
        ),
        "{err}"
    );
}
}

both! {
fn finish_needs_a_claimed_call_and_a_final_outcome(fx) {
    let store = fx.open();
    let id = queued(&store, "c1");
    let err = store.finish(&id, Outcome::Executed, 1).unwrap_err();
    assert!(
        matches!(
            err,
            Error::NotExecuting {
                status: ApprovalStatus::Pending,
                ..
            }
        ),
        "{err}"
    );
    store.answer(&id, Answer::Approve, None, "t").unwrap();
    store.claim_for_execution(&id).unwrap().unwrap();
    let err = store.finish(&id, Outcome::Waiting, 1).unwrap_err();
    assert!(
        matches!(
            err,
            Error::WrongOutcome {
                outcome: Outcome::Waiting,
                ..
            }
        ),
        "{err}"
    );
    // A snapshot whose digest no longer matches is not run: blocked.
    store.finish(&id, Outcome::Blocked, 0).unwrap();
    assert_eq!(store.totals().unwrap().blocked, 1);
}
}

both! {
fn claim_races_between_threads_have_one_winner(fx) {
    let store = fx.open();
    let id = queued(&store, "c1");
    store.answer(&id, Answer::Approve, None, "t").unwrap();
    let path = fx.target();
    let barrier = Arc::new(Barrier::new(8));
    let winners: usize = std::thread::scope(|s| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                let (path, id, barrier) = (path.clone(), id.clone(), barrier.clone());
                s.spawn(move || {
                    let store = path.open().unwrap();
                    barrier.wait();
                    store.claim_for_execution(&id).unwrap().is_some()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| usize::from(h.join().unwrap()))
            .sum()
    });
    assert_eq!(winners, 1);
}
}

both! {
fn answer_races_between_threads_have_one_winner(fx) {
    let store = fx.open();
    let id = queued(&store, "c1");
    let store = Arc::new(store);
    let barrier = Arc::new(Barrier::new(6));
    let results: Vec<Result<_, Error>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..6)
            .map(|i| {
                let (store, id, barrier) = (store.clone(), id.clone(), barrier.clone());
                s.spawn(move || {
                    barrier.wait();
                    let answer = if i % 2 == 0 {
                        Answer::Approve
                    } else {
                        Answer::Decline
                    };
                    store.answer(&id, answer, None, &format!("t{i}"))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1);
    assert!(
        results
            .iter()
            .filter_map(|r| r.as_ref().err())
            .all(|e| matches!(e, Error::AlreadyAnswered { .. }))
    );
    // At most one resolution, whichever answer won.
    assert!(store.rows(&RowFilter::default()).unwrap().len() <= 2);
    assert!(store.verify().unwrap().is_intact());
}
}

both! {
fn approve_for_the_session_grants_the_rule_where_allowed(fx) {
    let store = fx.open();
    let (r, mut p) = waiting("s1", "c1");
    let not_remembered = store.append_waiting(&r, &p).unwrap().id;
    let err = store
        .answer(&not_remembered, Answer::Session, None, "t")
        .unwrap_err();
    assert!(matches!(err, Error::SessionNotAllowed { .. }), "{err}");
    assert_eq!(
        store.approval(&not_remembered).unwrap().unwrap().status,
        ApprovalStatus::Pending,
        "a refused answer changes nothing"
    );
    assert!(store.grants("s1").unwrap().is_empty());

    p.remember_allowed = true;
    p.rule = Some("edits".to_owned());
    let remembered = store.append_waiting(&r, &p).unwrap().id;
    let answered = store
        .answer(&remembered, Answer::Session, None, "t")
        .unwrap();
    assert_eq!(answered.approval.status, ApprovalStatus::Approved);
    assert_eq!(answered.approval.answer, Some(Answer::Session));
    assert!(store.has_grant("s1", "edits").unwrap());
    assert!(!store.has_grant("s2", "edits").unwrap());
}
}

both! {
fn session_approval_needs_a_rule(fx) {
    let store = fx.open();
    let (r, mut p) = waiting("s1", "c1");
    p.remember_allowed = true;
    p.rule = None;
    let id = store.append_waiting(&r, &p).unwrap().id;
    let err = store.answer(&id, Answer::Session, None, "t").unwrap_err();
    assert!(matches!(err, Error::SessionNotAllowed { .. }), "{err}");
}
}

both! {
fn list_pending_shows_only_unanswered_oldest_first(fx) {
    let store = fx.open();
    let a = queued(&store, "a");
    std::thread::sleep(Duration::from_millis(3));
    let b = queued(&store, "b");
    std::thread::sleep(Duration::from_millis(3));
    let c = queued(&store, "c");
    store.answer(&b, Answer::Decline, None, "t").unwrap();
    let pending: Vec<String> = store
        .list_pending()
        .unwrap()
        .into_iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(pending, [a.clone(), c.clone()]);
    let declined = store
        .list_approvals(Some(ApprovalStatus::Declined))
        .unwrap();
    assert_eq!(declined.len(), 1);
    assert_eq!(declined[0].id, b);
    assert_eq!(store.list_approvals(None).unwrap().len(), 3);
}
}

both! {
fn a_waiting_caller_sees_the_answer_by_polling(fx) {
    let store = fx.open();
    let id = queued(&store, "c1");
    let path = fx.target();
    let answerer = {
        let (path, id) = (path.clone(), id.clone());
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            path.open()
                .unwrap()
                .answer(&id, Answer::Approve, None, "web")
                .unwrap();
        })
    };
    let poller = path.open().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut polls = 0;
    let status = loop {
        polls += 1;
        let status = poller.approval(&id).unwrap().unwrap().status;
        if status != ApprovalStatus::Pending || Instant::now() > deadline {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    answerer.join().unwrap();
    assert_eq!(status, ApprovalStatus::Approved);
    assert!(polls > 1);
}
}

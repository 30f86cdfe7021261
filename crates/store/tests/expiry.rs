//! Expiry: a pending approval older than the TTL ends as `expired`, with a
//! resolution row, and the chain stays intact.

use std::time::{Duration, Instant};

use toolgate_store::{
    Answer, ApprovalAnswer, ApprovalStatus, Error, Outcome, RowFilter, RowKind, Store,
};

use crate::both;
use crate::support::{db_in, raw, waiting};

fn queued(store: &Store, call: &str) -> String {
    let (r, p) = waiting("s", call);
    store.append_waiting(&r, &p).unwrap().id
}

both! {
fn an_old_pending_approval_expires_with_a_resolution_row(fx) {
    let store = fx.open();
    let old = queued(&store, "old");
    // A second apart, so that an age limit between the two holds however
    // slow the store is to answer (a fixed 15 ms limit expired the young
    // one too when PostgreSQL was slow under load).
    std::thread::sleep(Duration::from_secs(1));
    let before_young = Instant::now();
    let young = queued(&store, "young");

    // Nothing is older than an hour.
    assert!(
        store
            .expire_older_than(Duration::from_secs(3600))
            .unwrap()
            .is_empty()
    );
    // Older than the young one can be by the time the sweep runs, younger
    // than the old one is.
    let limit = before_young.elapsed() + Duration::from_millis(500);
    let expired = store.expire_older_than(limit).unwrap();
    assert_eq!(
        expired.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        [old.as_str()]
    );
    let got = store.approval(&old).unwrap().unwrap();
    assert_eq!(got.status, ApprovalStatus::Expired);
    assert_eq!(got.outcome, Some(Outcome::Blocked));
    assert_eq!(
        store.approval(&young).unwrap().unwrap().status,
        ApprovalStatus::Pending
    );

    let rows = store
        .rows(&RowFilter {
            approval_id: Some(old.clone()),
            ..RowFilter::default()
        })
        .unwrap();
    assert_eq!(rows.len(), 2);
    let res = &rows[1];
    assert_eq!(res.kind, RowKind::Resolution);
    assert_eq!(res.record.outcome, Outcome::Blocked);
    assert_eq!(res.record.approval, Some(ApprovalAnswer::NoAnswer));
    assert!(
        res.record.note.as_deref().unwrap().starts_with("expired"),
        "{:?}",
        res.record.note
    );
    assert!(store.verify().unwrap().is_intact());
    let t = store.totals().unwrap();
    assert_eq!((t.requests, t.waiting, t.blocked), (2, 1, 1));

    // Expired is final: it can no longer be answered.
    let err = store.answer(&old, Answer::Approve, None, "t").unwrap_err();
    assert!(
        matches!(
            err,
            Error::AlreadyAnswered {
                status: ApprovalStatus::Expired,
                ..
            }
        ),
        "{err}"
    );
    // A later sweep takes only what has aged since; the expired one stays.
    assert!(
        store
            .expire_older_than(Duration::from_secs(3600))
            .unwrap()
            .is_empty()
    );
    std::thread::sleep(Duration::from_millis(30));
    let later = store.expire_older_than(Duration::from_millis(15)).unwrap();
    assert_eq!(
        later.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
        [young.as_str()]
    );
    assert!(store.verify().unwrap().is_intact());
}
}

both! {
fn an_answered_approval_never_expires(fx) {
    let store = fx.open();
    let id = queued(&store, "c");
    store.answer(&id, Answer::Approve, None, "t").unwrap();
    std::thread::sleep(Duration::from_millis(5));
    assert!(store.expire_older_than(Duration::ZERO).unwrap().is_empty());
    assert_eq!(
        store.approval(&id).unwrap().unwrap().status,
        ApprovalStatus::Approved
    );
}
}

#[test]
fn a_version_1_database_is_migrated_with_its_approvals() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    let id = {
        let store = Store::open(&path).unwrap();
        queued(&store, "c")
    };
    // Put the file back to what version 1 wrote: the old CHECK, no pins and
    // no server columns (version 3), no trust table (version 4), no
    // spool_folded table (version 5), no review columns (version 6),
    // user_version 1.
    {
        let conn = raw(&path);
        conn.execute_batch(crate::support::UNDO_V6).unwrap();
        conn.execute_batch(
            "BEGIN;
             CREATE TABLE a1 AS SELECT id, created, session, client, call_id, tool, snapshot,
                 digest, reason, rule, remember_allowed, status, answer, note, answered_by,
                 answered, claimed, outcome, finished FROM approvals;
             DROP TABLE pins;
             DROP TABLE trust;
             DROP TABLE spool_folded;
             ALTER TABLE ledger DROP COLUMN server;
             DROP TABLE approvals;
             CREATE TABLE approvals (
                id TEXT PRIMARY KEY, created TEXT NOT NULL, session TEXT NOT NULL, client TEXT,
                call_id TEXT NOT NULL, tool TEXT NOT NULL, snapshot TEXT NOT NULL,
                digest TEXT NOT NULL, reason TEXT NOT NULL, rule TEXT,
                remember_allowed INTEGER NOT NULL,
                status TEXT NOT NULL CHECK (status IN
                    ('pending', 'approved', 'declined', 'executing', 'done')),
                answer TEXT, note TEXT, answered_by TEXT, answered TEXT, claimed TEXT,
                outcome TEXT, finished TEXT) WITHOUT ROWID;
             INSERT INTO approvals SELECT * FROM a1;
             DROP TABLE a1;
             CREATE INDEX approvals_status ON approvals (status, created);
             PRAGMA user_version = 1;
             COMMIT;",
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(
        store.approval(&id).unwrap().unwrap().status,
        ApprovalStatus::Pending
    );
    assert_eq!(store.expire_older_than(Duration::ZERO).unwrap().len(), 1);
    assert_eq!(
        store.approval(&id).unwrap().unwrap().status,
        ApprovalStatus::Expired
    );
    assert!(store.verify().unwrap().is_intact());
}

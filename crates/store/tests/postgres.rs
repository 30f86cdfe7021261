//! What only the PostgreSQL backend has: migrations recorded in the
//! database, connections the server can cut, and copies from SQLite.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use toolgate_store::{Answer, Error, Outcome, PinCheck, ProblemKind, RowFilter, RowKind, Store};

use crate::support::{Fixture, executed, fresh, pg_raw, waiting};

fn pg() -> Option<Fixture> {
    Fixture::postgres()
}

#[test]
fn migrations_are_recorded_and_run_once_by_racing_hosts() {
    let Some(fx) = pg() else { return };
    let target = fx.target();
    // Eight hosts open a schema that has no tables yet, at once.
    std::thread::scope(|s| {
        for _ in 0..8 {
            let target = target.clone();
            s.spawn(move || target.open().expect("open while others migrate"));
        }
    });
    let mut raw = pg_raw(&target);
    let versions: Vec<i32> = raw
        .query(
            "SELECT version FROM toolgate_migrations ORDER BY version",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(versions, [1, 2, 3, 4], "each migration once, in order");
    let store = fx.open();
    store.append(&executed("s", "c1")).unwrap();
    assert!(store.verify().unwrap().is_intact());
}

#[test]
fn a_database_migrated_by_a_newer_toolgate_is_refused() {
    let Some(fx) = pg() else { return };
    drop(fx.open());
    pg_raw(&fx.target())
        .batch_execute("INSERT INTO toolgate_migrations (version, name) VALUES (999, 'future')")
        .unwrap();
    let err = fx.target().open().unwrap_err();
    assert!(
        matches!(err, Error::NewerSchema { found: 999, .. }),
        "{err}"
    );
}

#[test]
fn another_applications_ledger_table_is_refused() {
    let Some(fx) = pg() else { return };
    pg_raw(&fx.target())
        .batch_execute("CREATE TABLE ledger (id INTEGER)")
        .unwrap();
    let err = fx.target().open().unwrap_err();
    assert!(matches!(err, Error::Foreign { .. }), "{err}");
}

#[test]
fn an_unreachable_server_is_an_error_naming_it_without_the_password() {
    // A port nothing listens on (bound, then closed).
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = Store::open_url(&format!(
        "postgres://alice:s3cret@127.0.0.1:{port}/toolgate?connect_timeout=2"
    ))
    .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, Error::Connect { .. }), "{text}");
    assert!(
        text.contains(&format!("postgres://alice@127.0.0.1:{port}/toolgate")),
        "{text}"
    );
    assert!(!text.contains("s3cret"), "{text}");
}

#[test]
fn an_edited_row_is_found_by_verify() {
    let Some(fx) = pg() else { return };
    let store = fx.open();
    for i in 0..20 {
        store.append(&executed("s", &format!("c{i}"))).unwrap();
    }
    pg_raw(&fx.target())
        .batch_execute("UPDATE ledger SET reason = 'nothing to see' WHERE seq = 7")
        .unwrap();
    let problem = store.verify().unwrap().problem.expect("the edit is found");
    assert_eq!((problem.seq, problem.kind), (7, ProblemKind::Edited));
}

/// The server ends the store's connection while its append waits for the
/// head row inside its transaction: the append fails (an error, no
/// panic), nothing of it is left, and the next append works on a new
/// connection.
#[test]
fn a_connection_killed_mid_transaction_leaves_no_half_row() {
    let Some(fx) = pg() else { return };
    let app = fx.schema().unwrap().to_owned();
    let store = fx.open();
    store.append(&executed("s", "before")).unwrap();
    let (record, pending) = waiting("s", "cut");

    // Another session holds the head row, so the store's transaction
    // (approval inserted, head not yet locked) has to wait.
    let mut holder = pg_raw(&fx.target());
    holder
        .batch_execute(
            "SET application_name = 'holder'; BEGIN; SELECT * FROM head WHERE id = 1 FOR UPDATE",
        )
        .unwrap();
    let result = std::thread::scope(|s| {
        let waiting = s.spawn(|| store.append_waiting(&record, &pending));
        let mut killer = pg_raw(&fx.target());
        // Wait until the store's backend is blocked on the lock, then end it.
        let mut killed = 0;
        for _ in 0..500 {
            killed = killer
                .query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                     WHERE application_name = $1 AND wait_event_type = 'Lock'
                       AND pid <> pg_backend_pid()",
                    &[&app],
                )
                .unwrap()
                .len();
            if killed > 0 {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(
            killed, 1,
            "the store's transaction was waiting for the lock"
        );
        waiting.join().expect("no panic")
    });
    holder.batch_execute("ROLLBACK").unwrap();
    let err = result.expect_err("the append was cut off");
    assert!(matches!(err, Error::Postgres { .. }), "{err}");

    // Neither the approval nor its row: the transaction rolled back whole.
    assert!(store.list_approvals(None).unwrap().is_empty());
    assert_eq!(store.rows(&RowFilter::default()).unwrap().len(), 1);
    // The pool replaces the dead connection.
    assert_eq!(store.append(&executed("s", "after")).unwrap().seq, 2);
    assert!(store.verify().unwrap().is_intact());
}

/// Connections are terminated again and again while a host writes: every
/// write that reported success is in the ledger as reported, every
/// failure is an error, and queue and ledger agree.
#[test]
fn terminated_connections_lose_nothing_committed() {
    let Some(fx) = pg() else { return };
    let app = fx.schema().unwrap().to_owned();
    let store = fx.open();
    let done = AtomicBool::new(false);
    let (committed, failures, killed) = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let mut committed = Vec::new();
            let mut failures = 0;
            for i in 0..400 {
                let result = if i % 5 == 0 {
                    let (r, p) = waiting("s", &format!("w{i}"));
                    store.append_waiting(&r, &p).map(|q| q.appended)
                } else {
                    store.append(&executed("s", &format!("c{i}")))
                };
                match result {
                    Ok(appended) => committed.push(appended),
                    Err(Error::Postgres { .. } | Error::Connect { .. }) => failures += 1,
                    Err(other) => panic!("unexpected error: {other}"),
                }
            }
            done.store(true, Ordering::SeqCst);
            (committed, failures)
        });
        let mut killer = pg_raw(&fx.target());
        let mut killed = 0;
        while !done.load(Ordering::SeqCst) {
            killed += killer
                .query(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                     WHERE application_name = $1 AND pid <> pg_backend_pid()",
                    &[&app],
                )
                .unwrap()
                .len();
            // Often enough that writes keep meeting a dead connection, not
            // so often that a reconnect (slower on a busy machine) never
            // gets a write through.
            std::thread::sleep(Duration::from_millis(15));
        }
        let (committed, failures) = writer.join().expect("no panic");
        (committed, failures, killed)
    });
    assert!(
        killed > 0 && failures > 0,
        "connections were cut ({killed}, {failures})"
    );
    assert!(
        committed.len() > 50,
        "enough writes went through to check them: {}",
        committed.len()
    );

    let store = fx.target().open().unwrap();
    let report = store.verify().unwrap();
    assert!(report.is_intact(), "{:?}", report.problem);
    let rows = store.rows(&RowFilter::default()).unwrap();
    // A commit whose acknowledgement was cut off may be there without
    // being reported; a reported one is there exactly as reported.
    for appended in &committed {
        let row = &rows[usize::try_from(appended.seq).unwrap() - 1];
        assert_eq!(row.hash, appended.hash, "row {}", appended.seq);
    }
    let approvals: HashSet<String> = store
        .list_approvals(None)
        .unwrap()
        .into_iter()
        .map(|a| a.id)
        .collect();
    let linked: HashSet<String> = rows
        .iter()
        .filter(|r| r.kind == RowKind::Request && r.record.outcome == Outcome::Waiting)
        .filter_map(|r| r.record.approval_id.clone())
        .collect();
    assert_eq!(approvals, linked, "every approval has its row, and back");
}

#[test]
fn a_sqlite_store_is_copied_row_by_row_and_verified() {
    let Some(fx) = pg() else { return };
    let (_dir, source) = fresh();
    for i in 0..50 {
        source.append(&executed("s", &format!("c{i}"))).unwrap();
    }
    let ids: Vec<String> = (0..4)
        .map(|i| {
            let (r, p) = waiting("s", &format!("w{i}"));
            source.append_waiting(&r, &p).unwrap().id
        })
        .collect();
    source
        .answer(&ids[0], Answer::Decline, Some("no"), "t")
        .unwrap();
    source.answer(&ids[1], Answer::Approve, None, "t").unwrap();
    source.answer(&ids[2], Answer::Approve, None, "t").unwrap();
    source.claim_for_execution(&ids[2]).unwrap().unwrap();
    source.finish(&ids[2], Outcome::Executed, 9).unwrap();
    source.grant("s", "edits").unwrap();
    source.check_pin("fs", "read", "aaa", "{}").unwrap();
    source.check_pin("fs", "read", "bbb", "{\"v\":2}").unwrap();
    source.trust("/p/toolgate.toml", "abc").unwrap();

    let target = fx.open();
    let report = source.copy_to(&target).unwrap();
    assert_eq!(report.rows, 56);
    assert_eq!(
        (report.approvals, report.grants, report.pins, report.trusted),
        (4, 1, 1, 1)
    );
    assert_eq!(
        target.trusted("/p/toolgate.toml").unwrap().as_deref(),
        Some("abc")
    );
    assert_eq!(report.head, source.head().unwrap());
    assert_eq!(target.head().unwrap(), source.head().unwrap());
    assert_eq!(
        target.rows(&RowFilter::default()).unwrap(),
        source.rows(&RowFilter::default()).unwrap()
    );
    assert_eq!(
        target.list_approvals(None).unwrap(),
        source.list_approvals(None).unwrap()
    );
    assert_eq!(target.totals().unwrap(), source.totals().unwrap());
    assert!(target.has_grant("s", "edits").unwrap());
    assert_eq!(target.pins(None).unwrap(), source.pins(None).unwrap());
    assert!(target.verify().unwrap().is_intact());

    // The copy goes on as one chain, and the queue works there.
    assert_eq!(target.append(&executed("s", "next")).unwrap().seq, 57);
    assert!(target.claim_for_execution(&ids[1]).unwrap().is_some());
    assert!(matches!(
        target.check_pin("fs", "read", "bbb", "{}").unwrap(),
        PinCheck::Changed { .. }
    ));
    assert!(target.verify().unwrap().is_intact());

    // A second copy into a store that holds something is refused.
    let err = source.copy_to(&target).unwrap_err();
    assert!(matches!(err, Error::Copy { .. }), "{err}");
    assert_eq!(target.head().unwrap().seq, 57);
}

#[test]
fn a_source_that_does_not_verify_is_not_copied() {
    let Some(fx) = pg() else { return };
    let (dir, source) = fresh();
    for i in 0..5 {
        source.append(&executed("s", &format!("c{i}"))).unwrap();
    }
    crate::support::raw(&crate::support::db_in(&dir))
        .execute("UPDATE ledger SET tool = 'Write' WHERE seq = 3", [])
        .unwrap();
    let target = fx.open();
    let err = source.copy_to(&target).unwrap_err();
    assert!(matches!(err, Error::Copy { .. }), "{err}");
    assert_eq!(target.head().unwrap().seq, 0, "nothing was copied");
}

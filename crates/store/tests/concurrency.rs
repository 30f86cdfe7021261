//! Many writers at once, as with one hook process per tool call.

use std::sync::Arc;

use toolgate_store::{Answer, RowFilter, Store};

use crate::both;
use crate::support::{ChildLines, Fixture, db_in, executed, spawn_child, wait_ok, waiting};

#[test]
fn eight_processes_appending_500_each_make_one_chain_of_4000() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    // No database yet: the processes race to create it, too.
    let children: Vec<_> = (0..8)
        .map(|i| spawn_child("append", &path, &format!("p{i}:500")))
        .collect();
    for child in children {
        wait_ok(child, "appending child");
    }

    let store = Store::open(&path).unwrap();
    let rows = store.rows(&RowFilter::default()).unwrap();
    assert_eq!(rows.len(), 4000);
    assert!(
        rows.iter().map(|r| r.seq).eq(1..=4000),
        "seqs are 1..=4000 without gaps"
    );
    for i in 0..8 {
        let session = format!("p{i}");
        let mine: Vec<_> = rows
            .iter()
            .filter(|r| r.record.session == session)
            .collect();
        assert_eq!(mine.len(), 500, "{session}");
        // Each process's own rows are in the order it appended them.
        assert!(
            mine.iter()
                .map(|r| r.record.call_id.clone())
                .eq((0..500).map(|n| format!("{session}-{n}")))
        );
    }
    let report = store.verify().unwrap();
    assert!(report.is_intact(), "{:?}", report.problem);
    assert_eq!(report.head.unwrap().seq, 4000);
    assert_eq!(store.totals().unwrap().requests, 4000);
}

both! {
fn threads_sharing_one_store_chain_correctly(fx) {
    let store = fx.open();
    let store = Arc::new(store);
    std::thread::scope(|s| {
        for t in 0..4 {
            let store = store.clone();
            s.spawn(move || {
                for i in 0..250 {
                    store
                        .append(&executed(&format!("t{t}"), &format!("{i}")))
                        .unwrap();
                }
            });
        }
    });
    let rows = store.rows(&RowFilter::default()).unwrap();
    assert!(rows.iter().map(|r| r.seq).eq(1..=1000));
    assert!(store.verify().unwrap().is_intact());
}
}

both! {
fn claim_races_between_processes_have_one_winner(fx) {
    let store = fx.open();
    let (r, p) = waiting("s", "c1");
    let id = store.append_waiting(&r, &p).unwrap().id;
    store.answer(&id, Answer::Approve, None, "t").unwrap();

    let mut children: Vec<_> = (0..4)
        .map(|_| spawn_child("claim", &fx.target().0, &id))
        .collect();
    let answers: Vec<String> = children
        .iter_mut()
        .map(|c| ChildLines::of(c).next_line().expect("child answers"))
        .collect();
    for child in children {
        wait_ok(child, "claiming child");
    }
    assert_eq!(
        answers.iter().filter(|a| *a == "claimed=true").count(),
        1,
        "{answers:?}"
    );
    assert_eq!(
        answers.iter().filter(|a| *a == "claimed=false").count(),
        3,
        "{answers:?}"
    );
}
}

#[test]
fn opening_while_others_write_and_checkpoint_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    drop(Store::open(&path).unwrap());
    let mut children: Vec<_> = (0..3)
        .map(|i| spawn_child("append", &path, &format!("w{i}:1500")))
        .collect();
    let mut opens = 0;
    while children.iter_mut().any(|c| c.try_wait().unwrap().is_none()) {
        let store = Store::open(&path).unwrap_or_else(|e| panic!("open #{opens}: {e}"));
        store.totals().unwrap();
        opens += 1;
    }
    for child in children {
        wait_ok(child, "appending child");
    }
    assert!(opens > 0);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.totals().unwrap().requests, 4500);
    assert!(store.verify().unwrap().is_intact());
}

/// Four processes, each playing two hosts with their own connections,
/// append 500 rows per host to one PostgreSQL ledger at once.
#[test]
fn four_processes_as_two_hosts_each_make_one_chain_of_4000() {
    let Some(fx) = Fixture::postgres() else {
        return;
    };
    // No schema yet: the hosts race to migrate it, too.
    let children: Vec<_> = (0..4)
        .map(|i| spawn_child("hosts", &fx.target().0, &format!("p{i}:2:500")))
        .collect();
    for child in children {
        wait_ok(child, "host process");
    }
    let store = fx.open();
    let rows = store.rows(&RowFilter::default()).unwrap();
    assert_eq!(rows.len(), 4000);
    assert!(rows.iter().map(|r| r.seq).eq(1..=4000), "no gaps");
    for p in 0..4 {
        for h in 0..2 {
            let session = format!("p{p}h{h}");
            let mine: Vec<_> = rows
                .iter()
                .filter(|r| r.record.session == session)
                .collect();
            assert!(
                mine.iter()
                    .map(|r| r.record.call_id.clone())
                    .eq((0..500).map(|n| format!("{session}-{n}"))),
                "{session}: its 500 rows, in its order"
            );
        }
    }
    let report = store.verify().unwrap();
    assert!(report.is_intact(), "{:?}", report.problem);
    assert_eq!(report.rows, 4000);
    assert_eq!(report.head.unwrap().seq, 4000);
}

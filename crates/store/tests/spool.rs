//! The spool: rows a spooled store appends without opening the database
//! reach the ledger, in order and chained, exactly once, and a spool that
//! was tampered with is refused.

use std::path::Path;

use toolgate_store::{Appended, Error, Record, RowFilter, Store};

use crate::support::{executed, spawn_child};

fn spool_of(dir: &Path) -> std::path::PathBuf {
    dir.join("toolgate.db-spool")
}

/// One row appended as a hook process appends it: from a spooled store
/// of its own.
fn spool_one(dir: &Path, call_id: &str) -> Appended {
    Store::open_spooled(dir)
        .unwrap()
        .append(&executed("s1", call_id))
        .unwrap()
}

/// A row of some 600 KiB: two of them take a spool past its bound.
fn big() -> Record {
    let mut big = executed("s1", "big");
    big.input = format!(r#"{{"content":"{}"}}"#, "x".repeat(600 * 1024));
    big
}

fn calls(store: &Store) -> Vec<String> {
    store
        .rows(&RowFilter::default())
        .expect("rows")
        .into_iter()
        .map(|r| r.record.call_id)
        .collect()
}

#[test]
fn spooled_rows_reach_the_ledger_in_order_when_the_database_opens() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..5 {
        let appended = spool_one(dir.path(), &format!("c{i}"));
        assert_eq!(appended.seq, 0, "a spooled row has no seq yet");
    }
    // Nothing opened the database: no file, five lines in the spool.
    assert!(!dir.path().join("toolgate.db").exists());
    let spooled = std::fs::read_to_string(spool_of(dir.path())).unwrap();
    assert_eq!(spooled.lines().count(), 5);

    let store = Store::open_in(dir.path()).unwrap();
    assert_eq!(calls(&store), ["c0", "c1", "c2", "c3", "c4"]);
    let rows = store.rows(&RowFilter::default()).unwrap();
    assert_eq!(
        rows.iter().map(|r| r.seq).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    assert_eq!(rows[2].record, executed("s1", "c2"));
    assert!(rows.windows(2).all(|w| w[0].time <= w[1].time));
    assert!(store.verify().unwrap().is_intact());
    // The spool is empty once folded.
    assert_eq!(std::fs::metadata(spool_of(dir.path())).unwrap().len(), 0);
}

#[test]
fn a_long_lived_store_sees_rows_spooled_after_it_opened() {
    let dir = tempfile::tempdir().unwrap();
    let reader = Store::open_in(dir.path()).unwrap();
    reader.append(&executed("s1", "direct")).unwrap();
    spool_one(dir.path(), "spooled");
    assert_eq!(calls(&reader), ["direct", "spooled"]);
    assert_eq!(reader.totals().unwrap().executions, 2);
    assert_eq!(reader.head().unwrap().seq, 2);
}

#[test]
fn a_spooled_store_opens_the_database_for_anything_but_an_append() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_spooled(dir.path()).unwrap();
    store.append(&executed("s1", "c0")).unwrap();
    assert!(!dir.path().join("toolgate.db").exists());
    assert!(store.grants("s1").unwrap().is_empty());
    assert!(dir.path().join("toolgate.db").exists());
    assert_eq!(calls(&store), ["c0"]);
}

#[test]
fn an_edited_spool_line_is_refused_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..3 {
        spool_one(dir.path(), &format!("c{i}"));
    }
    let path = spool_of(dir.path());
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("echo c1", "echo cX", 1)).unwrap();
    let err = Store::open_in(dir.path()).unwrap_err();
    match &err {
        Error::Corrupt { path: p, detail } => {
            assert_eq!(p, &path);
            assert!(detail.starts_with("line 2:"), "{detail}");
        }
        other => panic!("expected a corrupt spool, got {other}"),
    }
    // Nothing was folded, and the spool is left as found.
    let db = toolgate_store::Store::open(dir.path().join("toolgate.db"));
    assert!(db.is_err());
    assert!(std::fs::read_to_string(&path).unwrap().contains("echo cX"));
}

#[test]
fn an_unfinished_last_line_is_cut_and_never_folded() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_spooled(dir.path()).unwrap();
    store.append(&executed("s1", "c0")).unwrap();
    // A writer that died half-way through its line.
    let path = spool_of(dir.path());
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.extend_from_slice(br#"{"kind":"request","sess"#);
    std::fs::write(&path, &bytes).unwrap();
    store.append(&executed("s1", "c1")).unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    assert_eq!(calls(&store), ["c0", "c1"]);
    assert!(store.verify().unwrap().is_intact());
}

#[test]
fn a_fold_interrupted_before_the_spool_was_emptied_adds_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..3 {
        spool_one(dir.path(), &format!("c{i}"));
    }
    let path = spool_of(dir.path());
    let before = std::fs::read(&path).unwrap();
    drop(Store::open_in(dir.path()).unwrap());
    // As if the process had died between its commit and emptying the spool.
    std::fs::write(&path, &before).unwrap();
    spool_one(dir.path(), "c3");
    let store = Store::open_in(dir.path()).unwrap();
    assert_eq!(calls(&store), ["c0", "c1", "c2", "c3"]);
    assert!(store.verify().unwrap().is_intact());
}

/// A spool left by a fold from before folds were noted (the ledger has
/// its rows, nothing says which line it ended on): its rows are
/// recognised by content and not added twice, while a fresh ledger's first
/// fold takes every row.
#[test]
fn a_spool_folded_before_folds_were_noted_adds_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..3 {
        spool_one(dir.path(), &format!("c{i}"));
    }
    let path = spool_of(dir.path());
    let before = std::fs::read(&path).unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    assert_eq!(calls(&store), ["c0", "c1", "c2"]);
    drop(store);
    std::fs::write(&path, &before).unwrap();
    let db = rusqlite::Connection::open(dir.path().join("toolgate.db")).unwrap();
    db.execute("UPDATE spool_folded SET line_hash = '' WHERE id = 1", [])
        .unwrap();
    drop(db);
    spool_one(dir.path(), "c3");
    let store = Store::open_in(dir.path()).unwrap();
    assert_eq!(calls(&store), ["c0", "c1", "c2", "c3"]);
    assert!(store.verify().unwrap().is_intact());
}

#[test]
fn concurrent_processes_spool_without_losing_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let arg = |name: &str| format!("{}:{name}:40", dir.path().display());
    let children: Vec<_> = ["a", "b", "c"]
        .iter()
        .map(|n| spawn_child("spool-append", "", &arg(n)))
        .collect();
    // A reader folding meanwhile.
    let reader = Store::open_in(dir.path()).unwrap();
    for _ in 0..20 {
        reader.totals().unwrap();
    }
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let rows = reader.rows(&RowFilter::default()).unwrap();
    assert_eq!(rows.len(), 120);
    for name in ["a", "b", "c"] {
        let mine: Vec<_> = rows
            .iter()
            .filter(|r| r.record.session == name)
            .map(|r| r.record.call_id.clone())
            .collect();
        let expected: Vec<_> = (0..40).map(|i| format!("{name}-{i}")).collect();
        assert_eq!(mine, expected, "each process's rows in its order");
    }
    assert!(reader.verify().unwrap().is_intact());
}

#[test]
fn a_spool_past_its_bound_is_folded_by_the_appender() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_spooled(dir.path()).unwrap();
    let big = big();
    store.append(&big).unwrap();
    assert!(!dir.path().join("toolgate.db").exists());
    store.append(&big).unwrap();
    // Past 1 MiB: the second append folded both into the database.
    assert!(dir.path().join("toolgate.db").exists());
    assert_eq!(std::fs::metadata(spool_of(dir.path())).unwrap().len(), 0);
    assert_eq!(calls(&Store::open_in(dir.path()).unwrap()).len(), 2);
}

/// A long-lived host (the MCP gateway) keeps one spooled store open: once
/// its database is open, every later pass of the bound folds again, so the
/// spool never grows past it.
#[test]
fn a_store_that_stays_open_folds_each_time_the_spool_passes_its_bound() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_spooled(dir.path()).unwrap();
    let big = big();
    for round in 1..=3 {
        store.append(&big).unwrap();
        store.append(&big).unwrap();
        let spooled = std::fs::metadata(spool_of(dir.path())).unwrap().len();
        assert_eq!(spooled, 0, "round {round}: the spool was folded");
    }
    let reader = Store::open_in(dir.path()).unwrap();
    assert_eq!(calls(&reader).len(), 6);
    assert!(reader.verify().unwrap().is_intact());
}

#[test]
fn a_spooled_store_refuses_a_database_path_that_is_not_a_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("toolgate.db")).unwrap();
    let err = Store::open_spooled(dir.path()).unwrap_err();
    assert!(matches!(err, Error::NotSqlite { .. }), "{err}");
}

#[test]
fn an_unwritable_spool_is_an_append_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(spool_of(dir.path())).unwrap();
    let store = Store::open_spooled(dir.path()).unwrap();
    let err = store.append(&executed("s1", "c0")).unwrap_err();
    assert!(matches!(err, Error::Io { .. }), "{err}");
}

/// A long-lived spooled store keeps its spool file open between appends:
/// a fold by another process empties that file in place, and the rows
/// appended after it still reach the ledger, chained.
#[test]
fn a_store_that_stays_open_appends_after_another_process_folds() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_spooled(dir.path()).unwrap();
    store.append(&executed("s1", "c0")).unwrap();
    let reader = Store::open_in(dir.path()).unwrap();
    assert_eq!(calls(&reader), ["c0"]);
    assert_eq!(std::fs::metadata(spool_of(dir.path())).unwrap().len(), 0);
    store.append(&executed("s1", "c1")).unwrap();
    store.append(&executed("s1", "c2")).unwrap();
    assert_eq!(calls(&reader), ["c0", "c1", "c2"]);
    assert!(reader.verify().unwrap().is_intact());
}

/// When the file at the spool's path is no longer the one a long-lived
/// store keeps open (removed, or another put in its place), the next
/// append goes to the file at the path, which is what folds read: not
/// to the file kept open, where no fold would find it.
#[test]
fn a_store_that_stays_open_appends_to_the_spool_at_its_path() {
    let dir = tempfile::tempdir().unwrap();
    let spool = spool_of(dir.path());
    let store = Store::open_spooled(dir.path()).unwrap();
    store.append(&executed("s1", "c0")).unwrap();
    let reader = Store::open_in(dir.path()).unwrap();
    assert_eq!(calls(&reader), ["c0"]);

    // Removed: the append creates it again.
    std::fs::remove_file(&spool).unwrap();
    store.append(&executed("s1", "c1")).unwrap();
    assert_eq!(std::fs::read_to_string(&spool).unwrap().lines().count(), 1);
    assert_eq!(calls(&reader), ["c0", "c1"]);

    // Replaced by another (empty) file.
    let other = dir.path().join("other-spool");
    std::fs::write(&other, "").unwrap();
    std::fs::rename(&other, &spool).unwrap();
    store.append(&executed("s1", "c2")).unwrap();
    assert_eq!(calls(&reader), ["c0", "c1", "c2"]);
    assert!(reader.verify().unwrap().is_intact());
}

/// Threads of one process appending through one spooled store (the
/// gateway's calls in flight at once) write whole, chained lines.
#[test]
fn threads_sharing_a_spooled_store_lose_no_row() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_spooled(dir.path()).unwrap();
    std::thread::scope(|s| {
        for t in 0..4 {
            let store = &store;
            s.spawn(move || {
                for i in 0..50 {
                    store.append(&executed("s1", &format!("t{t}-{i}"))).unwrap();
                }
            });
        }
    });
    let reader = Store::open_in(dir.path()).unwrap();
    assert_eq!(calls(&reader).len(), 200);
    assert!(reader.verify().unwrap().is_intact());
}

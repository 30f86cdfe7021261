//! Opening files: toolgate's own, new, damaged, and other applications'.
//! A file that is refused is left byte for byte as it was.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use toolgate_store::{APPLICATION_ID, Error, SCHEMA_VERSION, Store};

use crate::support::{ChildLines, db_in, executed, fingerprint, fresh, raw, spawn_child, wait_ok};

/// Pseudo-random bytes (xorshift), reproducible without a dependency.
fn noise(len: usize, mut seed: u64) -> Vec<u8> {
    (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect()
}

/// Opens `path`, expects a refusal that names the file, and checks that the
/// file was not written.
fn refused(path: &Path) -> Error {
    let before = fingerprint(path);
    let err = Store::open(path).expect_err("the file must be refused");
    let message = err.to_string();
    assert!(
        message.contains(&path.display().to_string()),
        "message does not name the file: {message}"
    );
    assert_eq!(fingerprint(path), before, "the refused file was modified");
    err
}

/// A toolgate database with some rows, closed and checkpointed: every page
/// in the database file, no WAL beside it. (The store itself does not
/// checkpoint on close.)
fn closed_database(path: &Path, rows: usize) {
    let store = Store::open(path).unwrap();
    for i in 0..rows {
        store.append(&executed("s", &format!("c{i}"))).unwrap();
    }
    drop(store);
    let conn = raw(path);
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
}

#[test]
fn a_new_database_is_marked_as_toolgates() {
    let (dir, store) = fresh();
    drop(store);
    let conn = raw(&db_in(&dir));
    let app: i32 = conn
        .pragma_query_value(None, "application_id", |r| r.get(0))
        .unwrap();
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    let journal: String = conn
        .pragma_query_value(None, "journal_mode", |r| r.get(0))
        .unwrap();
    assert_eq!(app, APPLICATION_ID);
    assert_eq!(version, SCHEMA_VERSION);
    assert_eq!(journal, "wal");
}

#[test]
fn a_new_database_is_private() {
    let (dir, _store) = fresh();
    let mode = std::fs::metadata(db_in(&dir)).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
}

#[test]
fn the_store_lives_in_a_private_state_directory() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("nested/state");
    let mut child = std::process::Command::new(std::env::current_exe().unwrap());
    child
        .args(["--exact", "children::child", "--nocapture"])
        .env(crate::support::ROLE_ENV, "open-default")
        .env(crate::support::DB_ENV, "-")
        .env("STATE_DIR", &state)
        .stdout(std::process::Stdio::piped());
    let mut child = child.spawn().unwrap();
    let line = ChildLines::of(&mut child)
        .next_line()
        .expect("child reports its path");
    wait_ok(child, "open-default child");
    assert_eq!(
        line,
        format!("path={}", state.join("toolgate.db").display())
    );
    let mode = std::fs::metadata(&state).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
    assert_eq!(
        Store::open(state.join("toolgate.db"))
            .unwrap()
            .totals()
            .unwrap()
            .requests,
        1
    );
}

#[test]
fn an_empty_file_becomes_a_new_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    std::fs::File::create(&path).unwrap();
    let store = Store::open(&path).unwrap();
    assert_eq!(store.append(&executed("s", "c")).unwrap().seq, 1);
}

#[test]
fn random_bytes_are_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    std::fs::write(&path, noise(64 * 1024, 0x9e37_79b9_7f4a_7c15)).unwrap();
    let err = refused(&path);
    assert!(matches!(err, Error::NotSqlite { .. }), "{err}");
}

#[test]
fn a_short_text_file_is_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    std::fs::write(&path, "ledger: none\n").unwrap();
    let err = refused(&path);
    assert!(matches!(err, Error::NotSqlite { .. }), "{err}");
}

#[test]
fn a_truncated_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    closed_database(&path, 2000);
    let len = std::fs::metadata(&path).unwrap().len();
    // Cut on a page boundary (only the header's page count tells) ...
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(len / 2 / 4096 * 4096).unwrap();
    let err = refused(&path);
    assert!(matches!(err, Error::Corrupt { .. }), "{err}");
    assert!(err.to_string().contains("truncated"), "{err}");
    // ... and in the middle of a page.
    file.set_len(len / 3 + 123).unwrap();
    let err = refused(&path);
    assert!(err.to_string().contains("truncated"), "{err}");
}

#[test]
fn damaged_pages_are_reported_by_verify_without_writing() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    closed_database(&path, 2000);
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    let mut bytes = std::fs::read(&path).unwrap();
    let start = len / 2 / 4096 * 4096;
    bytes[start..start + 8 * 4096].copy_from_slice(&noise(8 * 4096, 42));
    std::fs::write(&path, &bytes).unwrap();
    let before = fingerprint(&path);

    let store = Store::open(&path).expect("the header and schema are intact");
    let err = store.verify().expect_err("damaged pages must be an error");
    assert!(matches!(err, Error::Corrupt { .. }), "{err}");
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
    drop(store);
    assert_eq!(fingerprint(&path), before);
}

#[test]
fn another_applications_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.db");
    {
        let conn = raw(&path);
        conn.execute_batch(
            "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
             INSERT INTO notes (body) VALUES ('keep me');",
        )
        .unwrap();
    }
    let err = refused(&path);
    assert!(matches!(err, Error::Foreign { .. }), "{err}");
    assert!(err.to_string().contains("`notes`"), "{err}");
    let body: String = raw(&path)
        .query_row("SELECT body FROM notes", [], |r| r.get(0))
        .unwrap();
    assert_eq!(body, "keep me");
}

#[test]
fn a_database_with_another_application_id_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.db");
    raw(&path)
        .pragma_update(None, "application_id", 0x4d50_4442)
        .unwrap();
    let err = refused(&path);
    assert!(matches!(err, Error::Foreign { .. }), "{err}");
    assert!(err.to_string().contains("0x4d504442"), "{err}");
}

#[test]
fn another_applications_wal_database_is_refused_while_in_use() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("busy.db");
    let owner = raw(&path);
    owner
        .execute_batch(
            "PRAGMA journal_mode = WAL;
             CREATE TABLE jobs (id INTEGER PRIMARY KEY);
             INSERT INTO jobs DEFAULT VALUES;",
        )
        .unwrap();
    let wal = dir.path().join("busy.db-wal");
    let wal_before = fingerprint(&wal);
    let err = refused(&path);
    assert!(matches!(err, Error::Foreign { .. }), "{err}");
    assert_eq!(
        fingerprint(&wal),
        wal_before,
        "the other application's WAL was modified"
    );
    let n: i64 = owner
        .query_row("SELECT count(*) FROM jobs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    closed_database(&path, 3);
    raw(&path)
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    // Make sure the new version is in the main file, not only in the WAL.
    raw(&path)
        .pragma_update(None, "wal_checkpoint", "TRUNCATE")
        .unwrap();
    let err = refused(&path);
    assert!(
        matches!(err, Error::NewerSchema { found, supported, .. } if found == SCHEMA_VERSION + 1 && supported == SCHEMA_VERSION),
        "{err}"
    );
    assert!(err.to_string().contains("upgrade toolgate"), "{err}");
}

#[test]
fn a_newer_schema_still_in_the_wal_is_refused_without_checkpointing() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    closed_database(&path, 3);
    // A newer toolgate migrated the database and stopped before any
    // checkpoint: the new version is only in the WAL.
    let newer = raw(&path);
    newer
        .set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )
        .unwrap();
    newer
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    drop(newer);
    let wal = dir.path().join("toolgate.db-wal");
    let wal_before = fingerprint(&wal);
    let err = refused(&path);
    assert!(matches!(err, Error::NewerSchema { .. }), "{err}");
    assert_eq!(fingerprint(&wal), wal_before);
}

#[test]
fn another_applications_closed_wal_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.db");
    raw(&path)
        .execute_batch(
            "PRAGMA journal_mode = WAL;
             CREATE TABLE entries (k TEXT PRIMARY KEY, v BLOB);",
        )
        .unwrap();
    let err = refused(&path);
    assert!(matches!(err, Error::Foreign { .. }), "{err}");
    assert!(err.to_string().contains("`entries`"), "{err}");
}

#[test]
fn a_directory_is_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("toolgate.db");
    std::fs::create_dir(&path).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
}

#[test]
fn a_file_appended_to_stays_refused() {
    // A text file that grows past the header size is still not SQLite.
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    let mut f = std::fs::File::create(&path).unwrap();
    for i in 0..200 {
        writeln!(f, "line {i}").unwrap();
    }
    drop(f);
    let err = refused(&path);
    assert!(matches!(err, Error::NotSqlite { .. }), "{err}");
}

#[test]
fn processes_creating_the_same_database_at_once_agree() {
    let dir = tempfile::tempdir().unwrap();
    let path = db_in(&dir);
    let children: Vec<_> = (0..6)
        .map(|i| spawn_child("append", &path, &format!("p{i}:3")))
        .collect();
    for child in children {
        wait_ok(child, "creating child");
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(store.totals().unwrap().requests, 18);
    assert!(store.verify().unwrap().is_intact());
}

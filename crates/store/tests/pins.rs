//! Pinned MCP tool definitions: first sight pins, a change is kept beside
//! the pin until accepted, and a database of schema version 1 is migrated.

use toolgate_store::{PinCheck, SCHEMA_VERSION, Store};

use crate::both;
use crate::support::{db_in, executed, fresh, raw};

both! {
fn first_sight_pins_and_a_change_waits_for_acceptance(fx) {
    let store = fx.open();
    assert_eq!(
        store
            .check_pin("fs", "read", "aaa", r#"{"name":"read"}"#)
            .unwrap(),
        PinCheck::Pinned
    );
    assert_eq!(
        store
            .check_pin("fs", "read", "aaa", r#"{"name":"read"}"#)
            .unwrap(),
        PinCheck::Same
    );
    assert_eq!(
        store
            .check_pin("fs", "read", "bbb", r#"{"name":"read2"}"#)
            .unwrap(),
        PinCheck::Changed {
            pinned: "aaa".into()
        }
    );
    // Still changed on the next look: nothing was accepted.
    assert!(matches!(
        store.check_pin("fs", "read", "bbb", "{}").unwrap(),
        PinCheck::Changed { .. }
    ));
    let pin = store.pin("fs", "read").unwrap().unwrap();
    assert_eq!(pin.digest, "aaa");
    assert_eq!(pin.changed.as_ref().unwrap().digest, "bbb");

    // Only the change that is waiting can be accepted.
    assert!(
        store
            .accept_pin("fs", "read", Some("ccc"))
            .unwrap()
            .is_none()
    );
    let accepted = store.accept_pin("fs", "read", None).unwrap().unwrap();
    assert_eq!(accepted.digest, "bbb");
    assert!(accepted.changed.is_none());
    assert_eq!(
        store.check_pin("fs", "read", "bbb", "{}").unwrap(),
        PinCheck::Same
    );
    assert!(store.accept_pin("fs", "read", None).unwrap().is_none());
}
}

both! {
fn pins_are_per_server(fx) {
    let store = fx.open();
    store.check_pin("a", "t", "1", "{}").unwrap();
    assert_eq!(
        store.check_pin("b", "t", "2", "{}").unwrap(),
        PinCheck::Pinned
    );
    assert_eq!(store.pins(None).unwrap().len(), 2);
    assert_eq!(store.pins(Some("b")).unwrap()[0].digest, "2");
}
}

#[test]
fn a_version_1_database_is_migrated_keeping_its_rows() {
    let (dir, store) = fresh();
    store.append(&executed("s", "c1")).unwrap();
    drop(store);
    // Take the file back to schema version 1: no review columns, no pins,
    // trust or spool_folded table, no server columns.
    {
        let conn = raw(&db_in(&dir));
        conn.execute_batch(crate::support::UNDO_V6).unwrap();
        conn.execute_batch(
            "DROP TABLE pins; DROP TABLE trust; DROP TABLE spool_folded;
             ALTER TABLE ledger DROP COLUMN server;
             ALTER TABLE approvals DROP COLUMN server; PRAGMA user_version = 1;",
        )
        .unwrap();
        conn.execute(
            "INSERT INTO grants (session, rule, granted) VALUES ('s', 'r', 't')",
            [],
        )
        .unwrap();
    }
    let store = Store::open(db_in(&dir)).unwrap();
    assert!(store.has_grant("s", "r").unwrap());
    // The version-1 row keeps its hash.
    assert!(store.verify().unwrap().is_intact());
    assert_eq!(
        store.check_pin("x", "y", "1", "{}").unwrap(),
        PinCheck::Pinned
    );
    drop(store);
    let version: i64 = raw(&db_in(&dir))
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

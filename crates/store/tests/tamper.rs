//! Editing the SQLite file behind the store's back: each kind of tampering
//! is caught and the first bad row is named.

use toolgate_store::{Answer, Outcome, Problem, ProblemKind, Row, RowFilter, Store};

use crate::support::{documented_hash, executed, fresh, raw, waiting};

const ROWS: u64 = 20;

/// A ledger of 20 rows: plain requests, plus one call that waited and was
/// declined (a request and a resolution row).
fn ledger() -> (tempfile::TempDir, Store) {
    let (dir, store) = fresh();
    for i in 1..ROWS {
        if i == 10 {
            let (r, p) = waiting("s", "queued");
            let queued = store.append_waiting(&r, &p).unwrap();
            store
                .answer(&queued.id, Answer::Decline, Some("no"), "t")
                .unwrap();
        } else {
            store.append(&executed("s", &format!("c{i}"))).unwrap();
        }
    }
    assert_eq!(store.head().unwrap().seq, ROWS);
    assert!(store.verify().unwrap().is_intact());
    (dir, store)
}

fn problem(store: &Store) -> Problem {
    let report = store.verify().unwrap();
    report.problem.expect("tampering must be detected")
}

fn row(store: &Store, seq: u64) -> Row {
    store
        .rows(&RowFilter {
            after_seq: Some(seq - 1),
            limit: Some(1),
            ..Default::default()
        })
        .unwrap()
        .remove(0)
}

fn exec(store: &Store, sql: &str) {
    raw(store.path()).execute_batch(sql).unwrap();
}

/// Moves rows `from..` one seq up, leaving `from` free.
fn shift_up(store: &Store, from: u64) {
    exec(
        store,
        &format!(
            "UPDATE ledger SET seq = -seq WHERE seq >= {from};
             UPDATE ledger SET seq = 1 - seq WHERE seq < 0;"
        ),
    );
}

fn insert(store: &Store, row: &Row) {
    let r = &row.record;
    raw(store.path())
        .execute(
            "INSERT INTO ledger (seq, kind, time, session, client, call_id, tool, digest, input,
                 decision, rule, hard, reason, approval, note, outcome, duration_us, approval_id,
                 prev_hash, hash)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                 ?18, ?19, ?20)",
            rusqlite::params![
                row.seq as i64,
                row.kind.as_str(),
                row.time,
                r.session,
                r.client,
                r.call_id,
                r.tool,
                r.digest,
                r.input,
                r.decision.as_str(),
                r.rule,
                r.hard,
                r.reason,
                r.approval.map(|a| a.as_str()),
                r.note,
                r.outcome.as_str(),
                r.duration_us as i64,
                r.approval_id,
                row.prev_hash,
                row.hash,
            ],
        )
        .unwrap();
}

/// A row that was never appended: `rm -rf ~` run and recorded as allowed,
/// chained onto row `seq - 1`, with a hash computed the documented way.
fn forged(store: &Store, seq: u64) -> Row {
    let mut row = row(store, seq - 1);
    row.seq = seq;
    row.record.call_id = "forged".to_owned();
    row.record.input = r#"{"command":"rm -rf ~"}"#.to_owned();
    row.prev_hash = row.hash.clone();
    row.hash = documented_hash(&row.prev_hash, &row);
    row
}

#[test]
fn a_long_chain_verifies() {
    let (_dir, store) = fresh();
    for i in 0..1000 {
        store
            .append(&executed(&format!("s{}", i % 7), &format!("c{i}")))
            .unwrap();
    }
    let report = store.verify().unwrap();
    assert!(report.is_intact(), "{:?}", report.problem);
    assert_eq!(report.rows, 1000);
    let head = report.head.unwrap();
    assert_eq!(head.seq, 1000);
    assert_eq!(head.hash, row(&store, 1000).hash);
}

#[test]
fn an_empty_ledger_verifies() {
    let (_dir, store) = fresh();
    let report = store.verify().unwrap();
    assert!(report.is_intact());
    assert_eq!(report.rows, 0);
    assert_eq!(report.head.unwrap().seq, 0);
}

#[test]
fn an_edited_field_is_caught_at_its_row() {
    let (_dir, store) = ledger();
    exec(
        &store,
        "UPDATE ledger SET outcome = 'blocked' WHERE seq = 7",
    );
    assert_eq!(
        problem(&store),
        Problem {
            seq: 7,
            kind: ProblemKind::Edited
        }
    );
}

#[test]
fn an_edited_input_is_caught_at_its_row() {
    let (_dir, store) = ledger();
    exec(
        &store,
        r#"UPDATE ledger SET input = '{"command":"echo hi"}' WHERE seq = 3"#,
    );
    assert_eq!(
        problem(&store),
        Problem {
            seq: 3,
            kind: ProblemKind::Edited
        }
    );
}

#[test]
fn an_edited_resolution_is_caught() {
    let (_dir, store) = ledger();
    exec(
        &store,
        "UPDATE ledger SET note = NULL WHERE kind = 'resolution'",
    );
    assert_eq!(
        problem(&store),
        Problem {
            seq: 11,
            kind: ProblemKind::Edited
        }
    );
}

#[test]
fn a_value_of_the_wrong_type_is_an_edit() {
    let (_dir, store) = ledger();
    exec(&store, "UPDATE ledger SET hard = 'yes' WHERE seq = 12");
    assert_eq!(
        problem(&store),
        Problem {
            seq: 12,
            kind: ProblemKind::Edited
        }
    );
}

#[test]
fn an_edit_with_a_recomputed_hash_is_caught_by_the_next_row() {
    let (_dir, store) = ledger();
    let mut edited = row(&store, 6);
    edited.record.outcome = Outcome::Blocked;
    edited.hash = documented_hash(&edited.prev_hash, &edited);
    exec(&store, "DELETE FROM ledger WHERE seq = 6");
    insert(&store, &edited);
    assert_eq!(
        problem(&store),
        Problem {
            seq: 6,
            kind: ProblemKind::Edited
        }
    );
}

#[test]
fn a_deleted_middle_row_is_caught() {
    let (_dir, store) = ledger();
    exec(&store, "DELETE FROM ledger WHERE seq = 9");
    assert_eq!(
        problem(&store),
        Problem {
            seq: 9,
            kind: ProblemKind::Deleted
        }
    );
}

#[test]
fn a_deleted_last_row_is_caught_by_the_head() {
    let (_dir, store) = ledger();
    exec(&store, &format!("DELETE FROM ledger WHERE seq = {ROWS}"));
    assert_eq!(
        problem(&store),
        Problem {
            seq: ROWS,
            kind: ProblemKind::Deleted
        }
    );
}

#[test]
fn deleted_last_rows_are_caught_by_the_head() {
    let (_dir, store) = ledger();
    exec(&store, "DELETE FROM ledger WHERE seq > 15");
    assert_eq!(
        problem(&store),
        Problem {
            seq: 16,
            kind: ProblemKind::Deleted
        }
    );
}

#[test]
fn a_forged_row_appended_without_the_head_is_caught() {
    let (_dir, store) = ledger();
    insert(&store, &forged(&store, ROWS + 1));
    assert_eq!(
        problem(&store),
        Problem {
            seq: ROWS + 1,
            kind: ProblemKind::Inserted
        }
    );
}

#[test]
fn a_forged_row_inserted_in_the_middle_is_caught() {
    let (_dir, store) = ledger();
    let forged = forged(&store, 8);
    shift_up(&store, 8);
    insert(&store, &forged);
    assert_eq!(
        problem(&store),
        Problem {
            seq: 8,
            kind: ProblemKind::Inserted
        }
    );
}

#[test]
fn a_forged_row_with_a_made_up_hash_is_caught() {
    let (_dir, store) = ledger();
    let mut forged = forged(&store, 8);
    forged.hash = "ab".repeat(32);
    shift_up(&store, 8);
    insert(&store, &forged);
    assert_eq!(
        problem(&store),
        Problem {
            seq: 8,
            kind: ProblemKind::Inserted
        }
    );
}

const CONTENT: &str = "kind, time, session, client, call_id, tool, digest, input, decision, rule, \
                       hard, reason, approval, note, outcome, duration_us, approval_id";

#[test]
fn two_rows_with_swapped_content_are_caught() {
    let (_dir, store) = ledger();
    // Swap everything but seq, prev_hash and hash between rows 5 and 14.
    let set: Vec<String> = CONTENT
        .split(", ")
        .map(|c| format!("{c} = (SELECT {c} FROM o WHERE o.seq = 19 - ledger.seq)"))
        .collect();
    exec(
        &store,
        &format!(
            "CREATE TEMP TABLE o AS SELECT * FROM ledger WHERE seq IN (5, 14);
             UPDATE ledger SET {} WHERE seq IN (5, 14);",
            set.join(", ")
        ),
    );
    assert_eq!(
        problem(&store),
        Problem {
            seq: 5,
            kind: ProblemKind::Reordered
        }
    );
}

#[test]
fn two_rows_swapped_whole_are_caught() {
    let (_dir, store) = ledger();
    // Swap every column but seq: each row keeps its own hashes.
    let all = format!("{CONTENT}, prev_hash, hash");
    let set: Vec<String> = all
        .split(", ")
        .map(|c| format!("{c} = (SELECT {c} FROM o WHERE o.seq = 19 - ledger.seq)"))
        .collect();
    exec(
        &store,
        &format!(
            "CREATE TEMP TABLE o AS SELECT * FROM ledger WHERE seq IN (5, 14);
             UPDATE ledger SET {} WHERE seq IN (5, 14);",
            set.join(", ")
        ),
    );
    assert_eq!(
        problem(&store),
        Problem {
            seq: 5,
            kind: ProblemKind::Reordered
        }
    );
}

#[test]
fn a_changed_head_is_caught() {
    let (_dir, store) = ledger();
    exec(
        &store,
        &format!("UPDATE head SET hash = '{}'", "0f".repeat(32)),
    );
    assert_eq!(
        problem(&store),
        Problem {
            seq: ROWS,
            kind: ProblemKind::HeadMismatch
        }
    );
}

#[test]
fn a_deleted_head_is_caught() {
    let (_dir, store) = ledger();
    exec(&store, "DELETE FROM head");
    let report = store.verify().unwrap();
    assert!(report.head.is_none());
    assert_eq!(
        report.problem,
        Some(Problem {
            seq: ROWS,
            kind: ProblemKind::HeadMismatch
        })
    );
}

#[test]
fn problems_name_the_row_in_words() {
    let p = Problem {
        seq: 9,
        kind: ProblemKind::Deleted,
    };
    assert_eq!(p.to_string(), "row 9 was deleted");
}

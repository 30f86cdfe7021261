//! The schema's versions: SQL files under `migrations/postgres/`, applied
//! in order, each in the transaction that records it in
//! `toolgate_migrations`. Hosts that open the database at the same time
//! queue on a transaction-level advisory lock, so each migration runs once.

use super::Db;
use crate::error::{Error, Result};

/// `(version, name, sql)`, in order; version `n` is at index `n - 1`.
pub(crate) const MIGRATIONS: &[(i32, &str, &str)] = &[
    (
        1,
        "0001_init",
        include_str!("../../migrations/postgres/0001_init.sql"),
    ),
    (
        2,
        "0002_trust",
        include_str!("../../migrations/postgres/0002_trust.sql"),
    ),
    (
        3,
        "0003_expiry_server",
        include_str!("../../migrations/postgres/0003_expiry_server.sql"),
    ),
    (
        4,
        "0004_review",
        include_str!("../../migrations/postgres/0004_review.sql"),
    ),
];

/// The advisory lock key the migrations hold (ASCII `tgdb`, as SQLite's
/// application id).
const MIGRATION_LOCK: i64 = 0x7467_6462;

/// Brings the database to the newest version this build knows.
pub(crate) fn migrate(db: &Db) -> Result<()> {
    let newest = MIGRATIONS.last().map_or(0, |m| m.0);
    let mut conn = db.conn()?;
    // The fast path takes no lock: every hook process opens the store.
    if current(db, &mut conn)? == Some(newest) {
        return Ok(());
    }
    let mut tx = conn.transaction().map_err(db.db())?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(db.db())?;
    let marked: bool = tx
        .query_one("SELECT to_regclass('toolgate_migrations') IS NOT NULL", &[])
        .map_err(db.db())?
        .get(0);
    if !marked {
        let ours: bool = tx
            .query_one("SELECT to_regclass('ledger') IS NOT NULL", &[])
            .map_err(db.db())?
            .get(0);
        if ours {
            return Err(Error::Foreign {
                path: db.url.clone().into(),
                detail: "it has a `ledger` table but no `toolgate_migrations`".to_owned(),
            });
        }
        tx.batch_execute(
            "CREATE TABLE toolgate_migrations (
                 version INTEGER PRIMARY KEY,
                 name    TEXT NOT NULL,
                 applied TIMESTAMPTZ NOT NULL DEFAULT now()
             )",
        )
        .map_err(db.db())?;
    }
    let have: i32 = tx
        .query_one(
            "SELECT COALESCE(MAX(version), 0) FROM toolgate_migrations",
            &[],
        )
        .map_err(db.db())?
        .get(0);
    if have > newest {
        return Err(newer(db, have, newest));
    }
    for (version, name, sql) in MIGRATIONS.iter().filter(|m| m.0 > have) {
        tx.batch_execute(sql).map_err(db.db())?;
        tx.execute(
            "INSERT INTO toolgate_migrations (version, name) VALUES ($1, $2)",
            &[version, name],
        )
        .map_err(db.db())?;
    }
    tx.commit().map_err(db.db())
}

/// The recorded version, `None` when the table is missing. One round
/// trip: every hook process asks.
fn current(db: &Db, conn: &mut postgres::Client) -> Result<Option<i32>> {
    let answer =
        match conn.simple_query("SELECT COALESCE(MAX(version), 0) FROM toolgate_migrations") {
            Ok(answer) => answer,
            Err(e) if e.code() == Some(&postgres::error::SqlState::UNDEFINED_TABLE) => {
                return Ok(None);
            }
            Err(e) => return Err(db.db()(e)),
        };
    let have = answer
        .iter()
        .find_map(|m| match m {
            postgres::SimpleQueryMessage::Row(r) => r.get(0).and_then(|v| v.parse::<i32>().ok()),
            _ => None,
        })
        .ok_or_else(|| db.corrupt("`toolgate_migrations` has no readable version".to_owned()))?;
    let newest = MIGRATIONS.last().map_or(0, |m| m.0);
    if have > newest {
        return Err(newer(db, have, newest));
    }
    Ok(Some(have))
}

fn newer(db: &Db, found: i32, supported: i32) -> Error {
    Error::NewerSchema {
        path: db.url.clone().into(),
        found: i64::from(found),
        supported: i64::from(supported),
    }
}

#[cfg(test)]
mod tests {
    use super::MIGRATIONS;

    #[test]
    fn versions_count_up_from_one() {
        for (i, (version, name, _)) in MIGRATIONS.iter().enumerate() {
            assert_eq!(*version as usize, i + 1);
            assert!(name.starts_with(&format!("{:04}_", version)));
        }
    }

    #[test]
    fn the_empty_head_is_the_genesis_hash() {
        assert!(
            MIGRATIONS[0]
                .2
                .contains(&format!("VALUES (1, 0, '{}')", crate::GENESIS_HASH))
        );
    }
}

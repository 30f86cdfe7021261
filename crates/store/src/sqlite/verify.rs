//! Checking the hash chain of a SQLite database: SQLite's own structure
//! check, then the shared walk over the rows in one read transaction.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension};

use super::Db;
use super::ledger::read_raw;
use crate::error::{Error, Result};
use crate::stored::ROW_COLUMNS;
use crate::verify::{Lookup, VerifyReport, walk};

impl Db {
    /// Checks the file, then the chain, inside one read transaction so that
    /// concurrent appends are not mistaken for tampering.
    pub fn verify(&self) -> Result<VerifyReport> {
        self.fold_spool()?;
        let mut conn = self.conn();
        let db = self.db();
        quick_check(&conn, &self.path)?;
        let tx = conn.transaction().map_err(&db)?;
        let head = tx
            .query_row("SELECT seq, hash FROM head WHERE id = 1", [], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
            })
            .optional()
            .map_err(&db)?;
        let mut stmt = tx
            .prepare(&format!("SELECT {ROW_COLUMNS} FROM ledger ORDER BY seq"))
            .map_err(&db)?;
        let rows = stmt
            .query_map([], read_raw)
            .map_err(&db)?
            .map(|r| r.map_err(&db));
        let mut lookup = SqliteLookup {
            conn: &tx,
            path: &self.path,
        };
        walk(rows, head, &mut lookup)
    }
}

struct SqliteLookup<'a> {
    conn: &'a Connection,
    path: &'a Path,
}

impl Lookup for SqliteLookup<'_> {
    fn seq_with_hash(&mut self, hash: &str, not_seq: i64) -> Result<Option<i64>> {
        self.conn
            .query_row(
                "SELECT seq FROM ledger WHERE hash = ?1 AND seq <> ?2 LIMIT 1",
                rusqlite::params![hash, not_seq],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| Error::sqlite(self.path, e))
    }

    fn links_except(&mut self, seq: i64) -> Result<Vec<(i64, String, String)>> {
        let db = |e| Error::sqlite(self.path, e);
        let mut stmt = self
            .conn
            .prepare("SELECT seq, prev_hash, hash FROM ledger WHERE seq <> ?1")
            .map_err(db)?;
        stmt.query_map([seq], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(db)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(db)
    }
}

/// SQLite's own check of the file's structure; a failure is damage, not
/// tampering with the chain.
fn quick_check(conn: &Connection, path: &Path) -> Result<()> {
    let db = |e| Error::sqlite(path, e);
    let mut stmt = conn.prepare("PRAGMA quick_check(5)").map_err(db)?;
    let lines = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(db)?
        .collect::<rusqlite::Result<Vec<String>>>()
        .map_err(db)?;
    if lines.len() == 1 && lines[0] == "ok" {
        return Ok(());
    }
    Err(Error::Corrupt {
        path: path.to_path_buf(),
        detail: format!("SQLite's quick_check reports: {}", lines.join("; ")),
    })
}

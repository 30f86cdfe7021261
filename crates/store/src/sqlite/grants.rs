//! Rules granted "for this session". A grant is keyed by session and rule
//! id and nothing else, so it cannot leak into another session; whether a
//! grant may lift a decision (never a deny or a hard limit) is the policy's
//! business, not the store's.

use rusqlite::{Connection, OptionalExtension, params};

use super::Db;
use crate::error::Result;
use crate::time;
use crate::types::Grant;

impl Db {
    /// Grants `rule` for `session`. Returns whether it is new (granting
    /// twice is not an error).
    pub fn grant(&self, session: &str, rule: &str) -> Result<bool> {
        let conn = self.conn();
        insert_grant(&conn, session, rule).map_err(self.db())
    }

    /// Whether `rule` was granted for `session`.
    pub fn has_grant(&self, session: &str, rule: &str) -> Result<bool> {
        let conn = self.conn();
        conn.prepare_cached("SELECT 1 FROM grants WHERE session = ?1 AND rule = ?2")
            .and_then(|mut stmt| {
                stmt.query_row(params![session, rule], |_| Ok(()))
                    .optional()
            })
            .map(|found| found.is_some())
            .map_err(self.db())
    }

    /// The rules granted for `session`, by rule id.
    pub fn grants(&self, session: &str) -> Result<Vec<Grant>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare_cached("SELECT rule, granted FROM grants WHERE session = ?1 ORDER BY rule")
            .map_err(self.db())?;
        stmt.query_map([session], |r| {
            Ok(Grant {
                rule: r.get(0)?,
                granted: r.get(1)?,
            })
        })
        .map_err(self.db())?
        .collect::<rusqlite::Result<Vec<Grant>>>()
        .map_err(self.db())
    }
}

/// Inserts a grant unless present; shared with "approve for this session".
pub(crate) fn insert_grant(conn: &Connection, session: &str, rule: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached(
        "INSERT INTO grants (session, rule, granted) VALUES (?1, ?2, ?3)
         ON CONFLICT (session, rule) DO NOTHING",
    )?
    .execute(params![session, rule, time::now()])
    .map(|n| n == 1)
}

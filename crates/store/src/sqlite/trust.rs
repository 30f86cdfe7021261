//! Trusted project policies, in SQLite.

use rusqlite::{OptionalExtension, params};

use super::Db;
use crate::error::Result;
use crate::time;

impl Db {
    /// Records `digest` as the trusted content of `file`.
    pub fn trust(&self, file: &str, digest: &str) -> Result<()> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO trust (file, digest, trusted) VALUES (?1, ?2, ?3)
             ON CONFLICT (file) DO UPDATE SET digest = excluded.digest,
                 trusted = excluded.trusted",
            params![file, digest, time::now()],
        )
        .map(|_| ())
        .map_err(self.db())
    }

    /// The trusted digest of `file`.
    pub fn trusted(&self, file: &str) -> Result<Option<String>> {
        let conn = self.conn();
        conn.query_row("SELECT digest FROM trust WHERE file = ?1", [file], |r| {
            r.get(0)
        })
        .optional()
        .map_err(self.db())
    }
}

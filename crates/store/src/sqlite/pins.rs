//! Pinned tool definitions, in SQLite.

use rusqlite::{OptionalExtension, params};

use super::Db;
use crate::error::Result;
use crate::pins::{Pin, PinChange, PinCheck};
use crate::time;

impl Db {
    /// Checks a definition against the pin of `server`/`tool`, pinning it on
    /// first sight and recording it as the changed definition when it
    /// differs. One transaction.
    pub fn check_pin(
        &self,
        server: &str,
        tool: &str,
        digest: &str,
        definition: &str,
    ) -> Result<PinCheck> {
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(self.db())?;
        let pinned: Option<String> = tx
            .query_row(
                "SELECT digest FROM pins WHERE server = ?1 AND tool = ?2",
                params![server, tool],
                |r| r.get(0),
            )
            .optional()
            .map_err(self.db())?;
        let check = match pinned {
            None => {
                tx.execute(
                    "INSERT INTO pins (server, tool, digest, definition, pinned)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    params![server, tool, digest, definition, time::now()],
                )
                .map_err(self.db())?;
                PinCheck::Pinned
            }
            Some(p) if p == digest => PinCheck::Same,
            Some(p) => {
                tx.execute(
                    "UPDATE pins SET changed_digest = ?3, changed_definition = ?4,
                         changed_seen = CASE WHEN changed_digest IS ?3 THEN changed_seen ELSE ?5 END
                     WHERE server = ?1 AND tool = ?2",
                    params![server, tool, digest, definition, time::now()],
                )
                .map_err(self.db())?;
                PinCheck::Changed { pinned: p }
            }
        };
        tx.commit().map_err(self.db())?;
        Ok(check)
    }

    /// The pin of one tool.
    pub fn pin(&self, server: &str, tool: &str) -> Result<Option<Pin>> {
        let conn = self.conn();
        conn.query_row(
            &format!("{SELECT} WHERE server = ?1 AND tool = ?2"),
            params![server, tool],
            read_pin,
        )
        .optional()
        .map_err(self.db())
    }

    /// Every pin, of one server or of all, by server and tool.
    pub fn pins(&self, server: Option<&str>) -> Result<Vec<Pin>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(&format!(
                "{SELECT} WHERE ?1 IS NULL OR server = ?1 ORDER BY server, tool"
            ))
            .map_err(self.db())?;
        stmt.query_map(params![server], read_pin)
            .map_err(self.db())?
            .collect::<rusqlite::Result<Vec<Pin>>>()
            .map_err(self.db())
    }

    /// Accepts the changed definition of a tool: it becomes the pin. Returns
    /// the new pin, or `None` when the tool has no pin or no change waits.
    /// When `digest` is given, only a change with that digest is accepted
    /// (so what a person looked at is what is trusted).
    pub fn accept_pin(
        &self,
        server: &str,
        tool: &str,
        digest: Option<&str>,
    ) -> Result<Option<Pin>> {
        {
            let conn = self.conn();
            let n = conn
                .execute(
                    "UPDATE pins SET digest = changed_digest, definition = changed_definition,
                         pinned = ?4, changed_digest = NULL, changed_definition = NULL,
                         changed_seen = NULL
                     WHERE server = ?1 AND tool = ?2 AND changed_digest IS NOT NULL
                       AND (?3 IS NULL OR changed_digest = ?3)",
                    params![server, tool, digest, time::now()],
                )
                .map_err(self.db())?;
            if n == 0 {
                return Ok(None);
            }
        }
        self.pin(server, tool)
    }
}

pub(crate) const SELECT: &str = "SELECT server, tool, digest, definition, pinned, changed_digest,
    changed_definition, changed_seen FROM pins";

pub(crate) fn read_pin(r: &rusqlite::Row<'_>) -> rusqlite::Result<Pin> {
    let changed_digest: Option<String> = r.get(5)?;
    let changed = match changed_digest {
        Some(digest) => Some(PinChange {
            digest,
            definition: r.get::<_, Option<String>>(6)?.unwrap_or_default(),
            seen: r.get::<_, Option<String>>(7)?.unwrap_or_default(),
        }),
        None => None,
    };
    Ok(Pin {
        server: r.get(0)?,
        tool: r.get(1)?,
        digest: r.get(2)?,
        definition: r.get(3)?,
        pinned: r.get(4)?,
        changed,
    })
}

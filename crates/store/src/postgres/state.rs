//! Session grants and pinned tool definitions in PostgreSQL: rows every
//! host sees as soon as they are committed.

use postgres::GenericClient;

use super::Db;
use crate::error::Result;
use crate::pins::{Pin, PinChange, PinCheck};
use crate::time;
use crate::types::Grant;

impl Db {
    /// Grants `rule` for `session`; whether it is new.
    pub fn grant(&self, session: &str, rule: &str) -> Result<bool> {
        let mut conn = self.conn()?;
        insert_grant(self, &mut *conn, session, rule)
    }

    /// Whether `rule` was granted for `session`.
    pub fn has_grant(&self, session: &str, rule: &str) -> Result<bool> {
        let mut conn = self.conn()?;
        let found = conn
            .query_opt(
                "SELECT 1 FROM grants WHERE session = $1 AND rule = $2",
                &[&session, &rule],
            )
            .map_err(self.db())?;
        Ok(found.is_some())
    }

    /// The rules granted for `session`, by rule id.
    pub fn grants(&self, session: &str) -> Result<Vec<Grant>> {
        let mut conn = self.conn()?;
        let rows = conn
            .query(
                "SELECT rule, granted FROM grants WHERE session = $1 ORDER BY rule",
                &[&session],
            )
            .map_err(self.db())?;
        rows.iter()
            .map(|r| {
                Ok(Grant {
                    rule: r.try_get(0).map_err(self.db())?,
                    granted: r.try_get(1).map_err(self.db())?,
                })
            })
            .collect()
    }

    /// Checks a definition against its pin, pinning on first sight. Two
    /// hosts that see a tool first at once: one inserts, the other finds
    /// its pin.
    pub fn check_pin(
        &self,
        server: &str,
        tool: &str,
        digest: &str,
        definition: &str,
    ) -> Result<PinCheck> {
        let mut conn = self.conn()?;
        let mut tx = conn.transaction().map_err(self.db())?;
        let now = time::now();
        let inserted = tx
            .execute(
                "INSERT INTO pins (server, tool, digest, definition, pinned)
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (server, tool) DO NOTHING",
                &[&server, &tool, &digest, &definition, &now],
            )
            .map_err(self.db())?;
        let check = if inserted == 1 {
            PinCheck::Pinned
        } else {
            let pinned: String = tx
                .query_one(
                    "SELECT digest FROM pins WHERE server = $1 AND tool = $2 FOR UPDATE",
                    &[&server, &tool],
                )
                .map_err(self.db())?
                .get(0);
            if pinned == digest {
                PinCheck::Same
            } else {
                tx.execute(
                    "UPDATE pins SET changed_digest = $3, changed_definition = $4,
                         changed_seen = CASE WHEN changed_digest IS NOT DISTINCT FROM $3
                                        THEN changed_seen ELSE $5 END
                     WHERE server = $1 AND tool = $2",
                    &[&server, &tool, &digest, &definition, &now],
                )
                .map_err(self.db())?;
                PinCheck::Changed { pinned }
            }
        };
        tx.commit().map_err(self.db())?;
        Ok(check)
    }

    /// The pin of one tool.
    pub fn pin(&self, server: &str, tool: &str) -> Result<Option<Pin>> {
        let mut conn = self.conn()?;
        conn.query_opt(
            &format!("{SELECT} WHERE server = $1 AND tool = $2"),
            &[&server, &tool],
        )
        .map_err(self.db())?
        .map(|r| read_pin(self, &r))
        .transpose()
    }

    /// Every pin, of one server or of all.
    pub fn pins(&self, server: Option<&str>) -> Result<Vec<Pin>> {
        let mut conn = self.conn()?;
        let rows = conn
            .query(
                &format!("{SELECT} WHERE $1::text IS NULL OR server = $1 ORDER BY server, tool"),
                &[&server],
            )
            .map_err(self.db())?;
        rows.iter().map(|r| read_pin(self, r)).collect()
    }

    /// Accepts the changed definition of a tool.
    pub fn accept_pin(
        &self,
        server: &str,
        tool: &str,
        digest: Option<&str>,
    ) -> Result<Option<Pin>> {
        let mut conn = self.conn()?;
        let accepted = conn
            .query_opt(
                &format!(
                    "UPDATE pins SET digest = changed_digest, definition = changed_definition,
                         pinned = $4, changed_digest = NULL, changed_definition = NULL,
                         changed_seen = NULL
                     WHERE server = $1 AND tool = $2 AND changed_digest IS NOT NULL
                       AND ($3::text IS NULL OR changed_digest = $3)
                     RETURNING {PIN_COLUMNS}"
                ),
                &[&server, &tool, &digest, &time::now()],
            )
            .map_err(self.db())?;
        accepted.map(|r| read_pin(self, &r)).transpose()
    }
}

impl Db {
    /// Records `digest` as the trusted content of `file`.
    pub fn trust(&self, file: &str, digest: &str) -> Result<()> {
        let mut conn = self.conn()?;
        conn.execute(
            "INSERT INTO trust (file, digest, trusted) VALUES ($1, $2, $3)
             ON CONFLICT (file) DO UPDATE SET digest = excluded.digest,
                 trusted = excluded.trusted",
            &[&file, &digest, &time::now()],
        )
        .map(|_| ())
        .map_err(self.db())
    }

    /// The trusted digest of `file`.
    pub fn trusted(&self, file: &str) -> Result<Option<String>> {
        let mut conn = self.conn()?;
        let row = conn
            .query_opt("SELECT digest FROM trust WHERE file = $1", &[&file])
            .map_err(self.db())?;
        Ok(row.map(|r| r.get(0)))
    }
}

/// Inserts a grant unless present; shared with "approve for this session".
pub(crate) fn insert_grant(
    db: &Db,
    conn: &mut impl GenericClient,
    session: &str,
    rule: &str,
) -> Result<bool> {
    conn.execute(
        "INSERT INTO grants (session, rule, granted) VALUES ($1, $2, $3)
         ON CONFLICT (session, rule) DO NOTHING",
        &[&session, &rule, &time::now()],
    )
    .map(|n| n == 1)
    .map_err(db.db())
}

const PIN_COLUMNS: &str = "server, tool, digest, definition, pinned, changed_digest, \
    changed_definition, changed_seen";

const SELECT: &str = "SELECT server, tool, digest, definition, pinned, changed_digest, \
    changed_definition, changed_seen FROM pins";

fn read_pin(db: &Db, r: &postgres::Row) -> Result<Pin> {
    let get = |e| db.db()(e);
    let changed_digest: Option<String> = r.try_get(5).map_err(get)?;
    let changed = match changed_digest {
        Some(digest) => Some(PinChange {
            digest,
            definition: r
                .try_get::<_, Option<String>>(6)
                .map_err(get)?
                .unwrap_or_default(),
            seen: r
                .try_get::<_, Option<String>>(7)
                .map_err(get)?
                .unwrap_or_default(),
        }),
        None => None,
    };
    Ok(Pin {
        server: r.try_get(0).map_err(get)?,
        tool: r.try_get(1).map_err(get)?,
        digest: r.try_get(2).map_err(get)?,
        definition: r.try_get(3).map_err(get)?,
        pinned: r.try_get(4).map_err(get)?,
        changed,
    })
}

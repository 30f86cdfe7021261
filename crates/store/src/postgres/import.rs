//! Writing a snapshot of another store into an empty PostgreSQL store.

use super::Db;
use super::ledger::read_head;
use crate::copy::Snapshot;
use crate::error::{Error, Result};
use crate::stored::ROW_COLUMNS;

impl Db {
    /// Copies every row of `snapshot` in one transaction. The target must
    /// hold nothing: no ledger rows, approvals, grants or pins.
    pub(crate) fn import(&self, snapshot: &Snapshot) -> Result<()> {
        let mut conn = self.conn()?;
        let mut tx = conn.transaction().map_err(self.db())?;
        // The head lock keeps every other host from appending meanwhile.
        let head = read_head(self, &mut tx, true)?;
        let held: i64 = tx
            .query_one(
                "SELECT (SELECT COUNT(*) FROM ledger) + (SELECT COUNT(*) FROM approvals)
                      + (SELECT COUNT(*) FROM grants) + (SELECT COUNT(*) FROM pins)
                      + (SELECT COUNT(*) FROM trust)",
                &[],
            )
            .map_err(self.db())?
            .get(0);
        if head.seq != 0 || held != 0 {
            return Err(Error::Copy {
                detail: format!(
                    "`{}` is not empty (head at row {}, {held} rows in its tables); \
                     nothing was copied",
                    self.url, head.seq
                ),
            });
        }

        let insert_row = tx
            .prepare(&format!(
                "INSERT INTO ledger ({ROW_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9,
                 $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24,
                 $25)"
            ))
            .map_err(self.db())?;
        for r in &snapshot.ledger {
            if r.malformed || !(0..=1).contains(&r.hard) {
                return Err(Error::Copy {
                    detail: format!("ledger row {} holds a value of the wrong type", r.seq),
                });
            }
            let hard = r.hard == 1;
            tx.execute(
                &insert_row,
                &[
                    &r.seq,
                    &r.kind,
                    &r.time,
                    &r.session,
                    &r.client,
                    &r.call_id,
                    &r.tool,
                    &r.digest,
                    &r.input,
                    &r.decision,
                    &r.rule,
                    &hard,
                    &r.reason,
                    &r.approval,
                    &r.note,
                    &r.outcome,
                    &r.duration_us,
                    &r.approval_id,
                    &r.prev_hash,
                    &r.hash,
                    &r.server,
                    &r.review_model,
                    &r.review_decision,
                    &r.review_reason,
                    &r.review_latency_ms,
                ],
            )
            .map_err(self.db())?;
        }
        let seq = super::to_i64(snapshot.head.seq);
        tx.execute(
            "UPDATE head SET seq = $1, hash = $2 WHERE id = 1",
            &[&seq, &snapshot.head.hash],
        )
        .map_err(self.db())?;

        let insert_approval = tx
            .prepare(
                "INSERT INTO approvals (id, created, session, client, call_id, tool, snapshot,
                     digest, reason, rule, remember_allowed, status, answer, note, answered_by,
                     answered, outcome, finished, claimed, server)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                     $17, $18, $19, $20)",
            )
            .map_err(self.db())?;
        for (a, claimed) in &snapshot.approvals {
            let answer = a.answer.map(|x| x.as_str());
            let outcome = a.outcome.map(|x| x.as_str());
            tx.execute(
                &insert_approval,
                &[
                    &a.id,
                    &a.created,
                    &a.session,
                    &a.client,
                    &a.call_id,
                    &a.tool,
                    &a.snapshot_json,
                    &a.digest,
                    &a.reason,
                    &a.rule,
                    &a.remember_allowed,
                    &a.status.as_str(),
                    &answer,
                    &a.note,
                    &a.answered_by,
                    &a.answered,
                    &outcome,
                    &a.finished,
                    claimed,
                    &a.server,
                ],
            )
            .map_err(self.db())?;
        }
        for (session, rule, granted) in &snapshot.grants {
            tx.execute(
                "INSERT INTO grants (session, rule, granted) VALUES ($1, $2, $3)",
                &[session, rule, granted],
            )
            .map_err(self.db())?;
        }
        for p in &snapshot.pins {
            let changed = p.changed.as_ref();
            tx.execute(
                "INSERT INTO pins (server, tool, digest, definition, pinned, changed_digest,
                     changed_definition, changed_seen)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
                &[
                    &p.server,
                    &p.tool,
                    &p.digest,
                    &p.definition,
                    &p.pinned,
                    &changed.map(|c| c.digest.as_str()),
                    &changed.map(|c| c.definition.as_str()),
                    &changed.map(|c| c.seen.as_str()),
                ],
            )
            .map_err(self.db())?;
        }
        for (file, digest, trusted) in &snapshot.trust {
            tx.execute(
                "INSERT INTO trust (file, digest, trusted) VALUES ($1, $2, $3)",
                &[file, digest, trusted],
            )
            .map_err(self.db())?;
        }
        tx.commit().map_err(self.db())
    }
}

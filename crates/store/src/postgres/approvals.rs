//! The queue of pending approvals in PostgreSQL. Each move locks the
//! approval's row (`FOR UPDATE`) or is a single conditional `UPDATE`, so of
//! two hosts that try the same move exactly one succeeds.

use std::str::FromStr;

use postgres::GenericClient;

use super::Db;
use super::ledger::append_row;
use crate::approvals::{
    COLUMNS, ID_ATTEMPTS, expiry_note, expiry_resolution, new_id, resolution, unknown,
};
use crate::error::{Error, Result, UnknownValue};
use crate::time;
use crate::types::{
    Answer, Answered, Appended, ApprovalStatus, Outcome, Pending, PendingNew, Queued, Record,
    RowKind,
};

impl Db {
    /// Queues a call.
    pub fn create_pending(&self, new: &PendingNew) -> Result<String> {
        let mut conn = self.conn()?;
        let mut tx = conn.transaction().map_err(self.db())?;
        let id = insert_pending(self, &mut tx, new)?;
        tx.commit().map_err(self.db())?;
        Ok(id)
    }

    /// Queues a call and appends its request row, in one transaction.
    pub fn append_waiting(&self, record: &Record, new: &PendingNew) -> Result<Queued> {
        let mut conn = self.conn()?;
        let mut tx = conn.transaction().map_err(self.db())?;
        let id = insert_pending(self, &mut tx, new)?;
        let record = Record {
            approval_id: Some(id.clone()),
            ..record.clone()
        };
        let appended = append_row(self, &mut tx, RowKind::Request, &record)?;
        tx.commit().map_err(self.db())?;
        Ok(Queued { id, appended })
    }

    /// One approval.
    pub fn approval(&self, id: &str) -> Result<Option<Pending>> {
        let mut conn = self.conn()?;
        select(self, &mut *conn, id, false)
    }

    /// Approvals with the given status (all when `None`), oldest first.
    pub fn list_approvals(&self, status: Option<ApprovalStatus>) -> Result<Vec<Pending>> {
        let mut conn = self.conn()?;
        let rows = match status {
            Some(status) => conn.query(
                &format!("SELECT {COLUMNS} FROM approvals WHERE status = $1 ORDER BY created, id"),
                &[&status.as_str()],
            ),
            None => conn.query(
                &format!("SELECT {COLUMNS} FROM approvals ORDER BY created, id"),
                &[],
            ),
        }
        .map_err(self.db())?;
        rows.iter().map(|r| read(self, r)).collect()
    }

    /// Answers a pending approval, exactly once.
    pub fn answer(
        &self,
        id: &str,
        answer: Answer,
        note: Option<&str>,
        who: &str,
    ) -> Result<Answered> {
        let mut conn = self.conn()?;
        let mut tx = conn.transaction().map_err(self.db())?;
        let current = select(self, &mut tx, id, true)?.ok_or_else(|| unknown(id))?;
        if current.status != ApprovalStatus::Pending {
            return Err(Error::AlreadyAnswered {
                id: id.to_owned(),
                status: current.status,
            });
        }
        let session_rule = if answer == Answer::Session {
            let not_allowed = |detail| Error::SessionNotAllowed {
                id: id.to_owned(),
                detail,
            };
            if !current.remember_allowed {
                return Err(not_allowed("its rule does not allow remembering"));
            }
            Some(
                current
                    .rule
                    .clone()
                    .ok_or_else(|| not_allowed("no rule asked for it"))?,
            )
        } else {
            None
        };
        let now = time::now();
        let declined = answer == Answer::Decline;
        let (status, outcome, finished) = if declined {
            (
                ApprovalStatus::Declined,
                Some(Outcome::Blocked.as_str()),
                Some(now.as_str()),
            )
        } else {
            (ApprovalStatus::Approved, None, None)
        };
        tx.execute(
            "UPDATE approvals
             SET status = $2, answer = $3, note = $4, answered_by = $5, answered = $6,
                 outcome = $7, finished = $8
             WHERE id = $1 AND status = 'pending'",
            &[
                &id,
                &status.as_str(),
                &answer.as_str(),
                &note,
                &who,
                &now,
                &outcome,
                &finished,
            ],
        )
        .map_err(self.db())?;
        if let Some(rule) = session_rule {
            super::state::insert_grant(self, &mut tx, &current.session, &rule)?;
        }
        let approval = select(self, &mut tx, id, false)?.ok_or_else(|| unknown(id))?;
        let resolution = if declined {
            let record = resolution(&approval, Outcome::Blocked, 0);
            Some(append_row(self, &mut tx, RowKind::Resolution, &record)?)
        } else {
            None
        };
        tx.commit().map_err(self.db())?;
        Ok(Answered {
            approval,
            resolution,
        })
    }

    /// Takes an approved call for execution: one conditional update, so
    /// exactly one caller across all hosts gets `Some`.
    pub fn claim_for_execution(&self, id: &str) -> Result<Option<Pending>> {
        let mut conn = self.conn()?;
        let claimed = conn
            .query_opt(
                &format!(
                    "UPDATE approvals SET status = 'executing', claimed = $2
                     WHERE id = $1 AND status = 'approved' RETURNING {COLUMNS}"
                ),
                &[&id, &time::now()],
            )
            .map_err(self.db())?;
        match claimed {
            Some(row) => read(self, &row).map(Some),
            None => match select(self, &mut *conn, id, false)? {
                Some(_) => Ok(None),
                None => Err(unknown(id)),
            },
        }
    }

    /// Records how a claimed call ended, with its resolution row.
    pub fn finish(&self, id: &str, outcome: Outcome, duration_us: u64) -> Result<Appended> {
        let mut conn = self.conn()?;
        let mut tx = conn.transaction().map_err(self.db())?;
        let current = select(self, &mut tx, id, true)?.ok_or_else(|| unknown(id))?;
        if current.status != ApprovalStatus::Executing {
            return Err(Error::NotExecuting {
                id: id.to_owned(),
                status: current.status,
            });
        }
        tx.execute(
            "UPDATE approvals SET status = 'done', outcome = $2, finished = $3
             WHERE id = $1 AND status = 'executing'",
            &[&id, &outcome.as_str(), &time::now()],
        )
        .map_err(self.db())?;
        let record = resolution(&current, outcome, duration_us);
        let appended = append_row(self, &mut tx, RowKind::Resolution, &record)?;
        tx.commit().map_err(self.db())?;
        Ok(appended)
    }

    /// Expires every approval still `pending` queued more than `ttl` ago,
    /// each with its resolution row, in one transaction. The update is
    /// conditional on `pending`, so an approval answered meanwhile by
    /// another host is left alone.
    pub fn expire_older_than(&self, ttl: std::time::Duration) -> Result<Vec<Pending>> {
        let mut conn = self.conn()?;
        let mut tx = conn.transaction().map_err(self.db())?;
        let cutoff = time::ago(ttl);
        let now = time::now();
        let note = expiry_note(ttl);
        let rows = tx
            .query(
                &format!(
                    "UPDATE approvals
                     SET status = 'expired', note = $2, answered_by = 'expiry', answered = $3,
                         outcome = 'blocked', finished = $3
                     WHERE status = 'pending' AND created < $1
                     RETURNING {COLUMNS}"
                ),
                &[&cutoff, &note, &now],
            )
            .map_err(self.db())?;
        let mut expired = rows
            .iter()
            .map(|r| read(self, r))
            .collect::<Result<Vec<_>>>()?;
        expired.sort_by(|a, b| (&a.created, &a.id).cmp(&(&b.created, &b.id)));
        for approval in &expired {
            append_row(
                self,
                &mut tx,
                RowKind::Resolution,
                &expiry_resolution(approval),
            )?;
        }
        tx.commit().map_err(self.db())?;
        Ok(expired)
    }
}

fn insert_pending(db: &Db, tx: &mut impl GenericClient, new: &PendingNew) -> Result<String> {
    let created = time::now();
    for attempt in 0..ID_ATTEMPTS {
        let id = new_id(attempt);
        // A taken id inserts nothing (an error would abort the transaction).
        let inserted = tx
            .execute(
                "INSERT INTO approvals (id, created, session, client, call_id, tool, snapshot,
                     digest, reason, rule, remember_allowed, status, server)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'pending', $12)
                 ON CONFLICT (id) DO NOTHING",
                &[
                    &id,
                    &created,
                    &new.session,
                    &new.client,
                    &new.call_id,
                    &new.tool,
                    &new.snapshot_json,
                    &new.digest,
                    &new.reason,
                    &new.rule,
                    &new.remember_allowed,
                    &new.server,
                ],
            )
            .map_err(db.db())?;
        if inserted == 1 {
            return Ok(id);
        }
    }
    Err(db.corrupt(format!("no free approval id after {ID_ATTEMPTS} attempts")))
}

fn select(db: &Db, conn: &mut impl GenericClient, id: &str, lock: bool) -> Result<Option<Pending>> {
    let lock = if lock { " FOR UPDATE" } else { "" };
    conn.query_opt(
        &format!("SELECT {COLUMNS} FROM approvals WHERE id = $1{lock}"),
        &[&id],
    )
    .map_err(db.db())?
    .map(|r| read(db, &r))
    .transpose()
}

fn read(db: &Db, r: &postgres::Row) -> Result<Pending> {
    let get = |e| db.db()(e);
    let text = |i: usize| -> Result<String> { r.try_get(i).map_err(get) };
    let opt = |i: usize| -> Result<Option<String>> { r.try_get(i).map_err(get) };
    let id = text(0)?;
    let bad = |e: UnknownValue| db.corrupt(format!("approval `{id}`: {e}"));
    Ok(Pending {
        id: id.clone(),
        created: text(1)?,
        session: text(2)?,
        client: opt(3)?,
        call_id: text(4)?,
        tool: text(5)?,
        snapshot_json: text(6)?,
        digest: text(7)?,
        reason: text(8)?,
        rule: opt(9)?,
        remember_allowed: r.try_get(10).map_err(get)?,
        status: parse(&text(11)?).map_err(bad)?,
        answer: opt(12)?.map(|a| parse(&a)).transpose().map_err(bad)?,
        note: opt(13)?,
        answered_by: opt(14)?,
        answered: opt(15)?,
        outcome: opt(16)?.map(|o| parse(&o)).transpose().map_err(bad)?,
        finished: opt(17)?,
        server: opt(18)?,
    })
}

fn parse<T: FromStr<Err = UnknownValue>>(text: &str) -> std::result::Result<T, UnknownValue> {
    text.parse()
}

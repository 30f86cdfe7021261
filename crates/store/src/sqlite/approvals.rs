//! The queue of pending approvals, in SQLite: every move is a conditional
//! update inside a `BEGIN IMMEDIATE` transaction.

use std::path::Path;
use std::str::FromStr;

use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::Db;
use super::grants::insert_grant;
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
    /// Queues a call for a person to answer and returns the approval's id.
    ///
    /// Prefer [`Store::append_waiting`], which also writes the call's
    /// `waiting` ledger row in the same transaction.
    pub fn create_pending(&self, new: &PendingNew) -> Result<String> {
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.db())?;
        let id = insert_pending(&tx, &self.path, new)?;
        tx.commit().map_err(self.db())?;
        Ok(id)
    }

    /// Queues a call and appends its request row, linked by the new
    /// approval's id (which replaces `record.approval_id`), in one
    /// transaction: after a crash there is either both or neither.
    ///
    /// The record's outcome must be `waiting`.
    pub fn append_waiting(&self, record: &Record, new: &PendingNew) -> Result<Queued> {
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.db())?;
        let id = insert_pending(&tx, &self.path, new)?;
        let record = Record {
            approval_id: Some(id.clone()),
            ..record.clone()
        };
        let appended = append_row(&tx, &self.path, RowKind::Request, &record)?;
        tx.commit().map_err(self.db())?;
        Ok(Queued { id, appended })
    }

    /// One approval, whatever its status; `None` for an unknown id.
    ///
    /// A primary-key read that takes no write lock: a hook waiting for an
    /// answer can poll it every few hundred milliseconds.
    pub fn approval(&self, id: &str) -> Result<Option<Pending>> {
        let conn = self.conn();
        select(&conn, id).map_err(self.db())
    }

    /// Approvals with the given status (all when `None`), oldest first.
    pub fn list_approvals(&self, status: Option<ApprovalStatus>) -> Result<Vec<Pending>> {
        let conn = self.conn();
        let (filter, args) = match status {
            Some(status) => ("WHERE status = ?1", vec![status.as_str()]),
            None => ("", vec![]),
        };
        let sql = format!("SELECT {COLUMNS} FROM approvals {filter} ORDER BY created, id");
        let mut stmt = conn.prepare_cached(&sql).map_err(self.db())?;
        stmt.query_map(rusqlite::params_from_iter(args), read)
            .map_err(self.db())?
            .collect::<rusqlite::Result<Vec<Pending>>>()
            .map_err(self.db())
    }

    /// Answers a pending approval, exactly once.
    ///
    /// - `Approve`: the approval becomes `approved`; the call's outcome
    ///   is recorded when it has run ([`Store::finish`]).
    /// - `Session`: the same, and the rule is granted for the session in
    ///   the same transaction; only where the rule allows remembering.
    /// - `Decline`: the approval becomes `declined` and the call's
    ///   resolution (outcome `blocked`) is appended to the ledger.
    ///
    /// `who` names the answerer for the record (e.g. `cli:alice`, `web`).
    /// An unknown id, or an approval answered before, is an error.
    pub fn answer(
        &self,
        id: &str,
        answer: Answer,
        note: Option<&str>,
        who: &str,
    ) -> Result<Answered> {
        let mut conn = self.conn();
        let db = self.db();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(&db)?;
        let current = select(&tx, id).map_err(&db)?.ok_or_else(|| unknown(id))?;
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
                    .as_deref()
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
                Some(Outcome::Blocked),
                Some(now.as_str()),
            )
        } else {
            (ApprovalStatus::Approved, None, None)
        };
        tx.execute(
            "UPDATE approvals
             SET status = ?2, answer = ?3, note = ?4, answered_by = ?5, answered = ?6,
                 outcome = ?7, finished = ?8
             WHERE id = ?1 AND status = 'pending'",
            params![
                id,
                status.as_str(),
                answer.as_str(),
                note,
                who,
                now,
                outcome.map(|o| o.as_str()),
                finished,
            ],
        )
        .map_err(&db)?;
        if let Some(rule) = session_rule {
            insert_grant(&tx, &current.session, rule).map_err(&db)?;
        }
        let approval = select(&tx, id).map_err(&db)?.ok_or_else(|| unknown(id))?;
        let resolution = if declined {
            let record = resolution(&approval, Outcome::Blocked, 0);
            Some(append_row(&tx, &self.path, RowKind::Resolution, &record)?)
        } else {
            None
        };
        tx.commit().map_err(&db)?;
        Ok(Answered {
            approval,
            resolution,
        })
    }

    /// Takes an approved call for execution. Exactly one caller, across all
    /// processes, gets `Some` (and must then run the snapshot, after
    /// re-checking its digest, and call [`Store::finish`]); everyone else
    /// gets `None`, as does a call not (yet) approved. An unknown id is an
    /// error.
    pub fn claim_for_execution(&self, id: &str) -> Result<Option<Pending>> {
        let mut conn = self.conn();
        let db = self.db();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(&db)?;
        let claimed = tx
            .execute(
                "UPDATE approvals SET status = 'executing', claimed = ?2
                 WHERE id = ?1 AND status = 'approved'",
                params![id, time::now()],
            )
            .map_err(&db)?;
        let approval = select(&tx, id).map_err(&db)?.ok_or_else(|| unknown(id))?;
        tx.commit().map_err(&db)?;
        Ok((claimed == 1).then_some(approval))
    }

    /// Records how a claimed call ended: the approval becomes `done` and
    /// the call's resolution row is appended, in one transaction.
    ///
    /// `outcome` is `executed`, `failed`, `passed` (handed to a host that
    /// runs it, e.g. a waiting hook), or `blocked` (the snapshot was not
    /// run after all, e.g. its digest no longer matched).
    pub fn finish(&self, id: &str, outcome: Outcome, duration_us: u64) -> Result<Appended> {
        let mut conn = self.conn();
        let db = self.db();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(&db)?;
        let current = select(&tx, id).map_err(&db)?.ok_or_else(|| unknown(id))?;
        if current.status != ApprovalStatus::Executing {
            return Err(Error::NotExecuting {
                id: id.to_owned(),
                status: current.status,
            });
        }
        tx.execute(
            "UPDATE approvals SET status = 'done', outcome = ?2, finished = ?3
             WHERE id = ?1 AND status = 'executing'",
            params![id, outcome.as_str(), time::now()],
        )
        .map_err(&db)?;
        let record = resolution(&current, outcome, duration_us);
        let appended = append_row(&tx, &self.path, RowKind::Resolution, &record)?;
        tx.commit().map_err(&db)?;
        Ok(appended)
    }

    /// Expires every approval still `pending` that was queued more than
    /// `ttl` ago, and returns them (now `expired`), each with its
    /// resolution row written in the same transaction as its move.
    pub fn expire_older_than(&self, ttl: std::time::Duration) -> Result<Vec<Pending>> {
        let mut conn = self.conn();
        let db = self.db();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(&db)?;
        let cutoff = time::ago(ttl);
        let ids: Vec<String> = {
            let mut stmt = tx
                .prepare_cached(
                    "SELECT id FROM approvals WHERE status = 'pending' AND created < ?1
                     ORDER BY created, id",
                )
                .map_err(&db)?;
            stmt.query_map([&cutoff], |r| r.get(0))
                .map_err(&db)?
                .collect::<rusqlite::Result<_>>()
                .map_err(&db)?
        };
        let now = time::now();
        let note = expiry_note(ttl);
        let mut expired = Vec::with_capacity(ids.len());
        for id in ids {
            let moved = tx
                .execute(
                    "UPDATE approvals
                     SET status = 'expired', note = ?2, answered_by = 'expiry', answered = ?3,
                         outcome = 'blocked', finished = ?3
                     WHERE id = ?1 AND status = 'pending'",
                    params![id, note, now],
                )
                .map_err(&db)?;
            if moved != 1 {
                continue;
            }
            let approval = select(&tx, &id).map_err(&db)?.ok_or_else(|| unknown(&id))?;
            let record = expiry_resolution(&approval);
            append_row(&tx, &self.path, RowKind::Resolution, &record)?;
            expired.push(approval);
        }
        tx.commit().map_err(&db)?;
        Ok(expired)
    }
}

fn insert_pending(conn: &Connection, path: &Path, new: &PendingNew) -> Result<String> {
    let db = |e| Error::sqlite(path, e);
    let created = time::now();
    let mut stmt = conn
        .prepare_cached(
            "INSERT INTO approvals (id, created, session, client, call_id, tool, snapshot,
                 digest, reason, rule, remember_allowed, status, server)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 'pending', ?12)",
        )
        .map_err(db)?;
    let mut last_error = None;
    for attempt in 0..ID_ATTEMPTS {
        let id = new_id(attempt);
        let inserted = stmt.execute(params![
            id,
            created,
            new.session,
            new.client,
            new.call_id,
            new.tool,
            new.snapshot_json,
            new.digest,
            new.reason,
            new.rule,
            new.remember_allowed,
            new.server,
        ]);
        match inserted {
            Ok(_) => return Ok(id),
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation) => {
                last_error = Some(e);
            }
            Err(e) => return Err(db(e)),
        }
    }
    Err(db(
        last_error.unwrap_or(rusqlite::Error::QueryReturnedNoRows)
    ))
}

fn select(conn: &Connection, id: &str) -> rusqlite::Result<Option<Pending>> {
    conn.prepare_cached(&format!("SELECT {COLUMNS} FROM approvals WHERE id = ?1"))?
        .query_row([id], read)
        .optional()
}

pub(crate) fn read(r: &rusqlite::Row<'_>) -> rusqlite::Result<Pending> {
    Ok(Pending {
        id: r.get(0)?,
        created: r.get(1)?,
        session: r.get(2)?,
        client: r.get(3)?,
        call_id: r.get(4)?,
        tool: r.get(5)?,
        snapshot_json: r.get(6)?,
        digest: r.get(7)?,
        reason: r.get(8)?,
        rule: r.get(9)?,
        remember_allowed: r.get(10)?,
        status: parse(r, 11)?,
        answer: parse_opt(r, 12)?,
        note: r.get(13)?,
        answered_by: r.get(14)?,
        answered: r.get(15)?,
        outcome: parse_opt(r, 16)?,
        finished: r.get(17)?,
        server: r.get(18)?,
    })
}

fn parse<T: FromStr<Err = UnknownValue>>(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<T> {
    let text: String = r.get(i)?;
    text.parse()
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, Type::Text, Box::new(e)))
}

fn parse_opt<T: FromStr<Err = UnknownValue>>(
    r: &rusqlite::Row<'_>,
    i: usize,
) -> rusqlite::Result<Option<T>> {
    match r.get::<_, Option<String>>(i)? {
        None => Ok(None),
        Some(_) => parse(r, i).map(Some),
    }
}

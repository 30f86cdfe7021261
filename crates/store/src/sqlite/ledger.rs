//! Appending to and reading the ledger.

use std::path::Path;

use rusqlite::types::Value;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::Db;
use crate::chain::{self, Fields, ReviewFields};
use crate::error::{Error, Result};
use crate::stored::{ROW_COLUMNS, RawRow};
use crate::time;
use crate::types::{Appended, Head, Record, ReviewCounts, Row, RowFilter, RowKind, Totals};

impl Db {
    /// Moves the rows of the spool beside the database into the ledger
    /// (see `spool.rs`): all of them in one transaction, in spool order,
    /// then empties the spool. Rows the ledger already holds (a fold whose
    /// commit went through but whose emptying did not) are skipped.
    pub fn fold_spool(&self) -> Result<()> {
        let spool_path = crate::spool::path_for(&self.path);
        let Some(locked) = crate::spool::Locked::open_if_any(&spool_path)? else {
            return Ok(());
        };
        let rows = locked.read_all()?;
        if !rows.is_empty() {
            let mut conn = self.conn();
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(self.db())?;
            let folded: String = tx
                .query_row("SELECT line_hash FROM spool_folded WHERE id = 1", [], |r| {
                    r.get(0)
                })
                .map_err(self.db())?;
            // Lines up to the one the last fold ended on are in the ledger
            // already (that fold died before it emptied the spool).
            let start = rows
                .iter()
                .position(|r| !folded.is_empty() && r.line_hash == folded)
                .map_or(0, |i| i + 1);
            let last = rows.last().map(|r| r.line_hash.clone());
            // Only rows the ledger held before this fold can be a spooled
            // row folded already: the rows this fold appends are the
            // spool's own (looking among them made a first fold quadratic).
            let before = if folded.is_empty() {
                read_head(&tx, &self.path)?.seq
            } else {
                0
            };
            for row in rows.into_iter().skip(start) {
                // A spool left by a fold from before the fold was noted
                // (version 4): recognised by content instead.
                if before > 0 && holds(&tx, &row, before).map_err(self.db())? {
                    continue;
                }
                append_row_at(&tx, &self.path, row.kind, &row.record, row.time)?;
            }
            if let Some(last) = last {
                tx.execute(
                    "UPDATE spool_folded SET line_hash = ?1 WHERE id = 1",
                    [last],
                )
                .map_err(self.db())?;
            }
            tx.commit().map_err(self.db())?;
        }
        locked.clear()
    }

    /// Appends a request row for one call and returns its seq and hash.
    ///
    /// The head is read and moved in the same `BEGIN IMMEDIATE`
    /// transaction as the insert, so appends from concurrent processes
    /// chain one after another, with seqs 1, 2, 3, ... and no gaps.
    pub fn append(&self, record: &Record) -> Result<Appended> {
        let mut conn = self.conn();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(self.db())?;
        let appended = append_row(&tx, &self.path, RowKind::Request, record)?;
        tx.commit().map_err(self.db())?;
        Ok(appended)
    }

    /// Ledger rows, oldest first unless the filter says otherwise.
    pub fn rows(&self, filter: &RowFilter) -> Result<Vec<Row>> {
        self.fold_spool()?;
        let mut sql = format!("SELECT {ROW_COLUMNS} FROM ledger WHERE seq > ?1");
        let mut args: Vec<Value> = vec![Value::Integer(to_i64(filter.after_seq.unwrap_or(0)))];
        for (column, value) in [
            ("session", &filter.session),
            ("call_id", &filter.call_id),
            ("server", &filter.server),
            ("approval_id", &filter.approval_id),
        ] {
            if let Some(value) = value {
                args.push(Value::Text(value.clone()));
                sql.push_str(&format!(" AND {column} = ?{}", args.len()));
            }
        }
        if filter.reviewed {
            sql.push_str(" AND review_decision IS NOT NULL");
        }
        sql.push_str(if filter.newest_first {
            " ORDER BY seq DESC"
        } else {
            " ORDER BY seq ASC"
        });
        if let Some(limit) = filter.limit {
            args.push(Value::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
            sql.push_str(&format!(" LIMIT ?{}", args.len()));
        }

        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&sql).map_err(self.db())?;
        let raw = stmt
            .query_map(rusqlite::params_from_iter(args), read_raw)
            .map_err(self.db())?
            .collect::<rusqlite::Result<Vec<RawRow>>>()
            .map_err(self.db())?;
        raw.into_iter()
            .map(|r| {
                r.into_row().map_err(|e| Error::Corrupt {
                    path: self.path.clone(),
                    detail: e.to_string(),
                })
            })
            .collect()
    }

    /// The request row of the call queued as approval `id`.
    pub fn request_row(&self, id: &str) -> Result<Option<Row>> {
        self.fold_spool()?;
        let conn = self.conn();
        // The terms match index `ledger_request_approval`'s condition.
        let raw = conn
            .prepare_cached(&format!(
                "SELECT {ROW_COLUMNS} FROM ledger \
                 WHERE approval_id = ?1 AND kind = 'request' ORDER BY seq LIMIT 1"
            ))
            .and_then(|mut stmt| stmt.query_row([id], read_raw).optional())
            .map_err(self.db())?;
        raw.map(|r| {
            r.into_row().map_err(|e| Error::Corrupt {
                path: self.path.clone(),
                detail: e.to_string(),
            })
        })
        .transpose()
    }

    /// A session's reviewer answers; see [`ReviewCounts`].
    pub fn review_counts(&self, session: &str) -> Result<ReviewCounts> {
        self.fold_spool()?;
        let conn = self.conn();
        // Reads only index `ledger_review`: the session's reviewed rows.
        conn.prepare_cached(REVIEW_COUNTS_SQLITE)
            .and_then(|mut stmt| {
                stmt.query_row([session], |r| {
                    let n = |i| r.get::<_, i64>(i).map(to_u32);
                    Ok(ReviewCounts {
                        denials_in_a_row: n(0)?,
                        denials: n(1)?,
                        breaker_rows: n(2)?,
                    })
                })
            })
            .map_err(self.db())
    }

    /// The last seq and hash, as the `head` table holds them.
    pub fn head(&self) -> Result<Head> {
        self.fold_spool()?;
        let conn = self.conn();
        read_head(&conn, &self.path)
    }

    pub fn count(&self, session: Option<&str>) -> Result<Totals> {
        self.fold_spool()?;
        // A waiting request is resolved by the one resolution row with its
        // approval id (unique by index `ledger_resolution`).
        let sql = "SELECT
                COUNT(*) FILTER (WHERE kind = 'request'),
                COUNT(*) FILTER (WHERE kind = 'request' AND decision = 'ask'),
                COUNT(*) FILTER (WHERE outcome = 'executed'),
                COUNT(*) FILTER (WHERE outcome = 'blocked'),
                COUNT(*) FILTER (WHERE outcome = 'failed'),
                COUNT(*) FILTER (WHERE kind = 'request' AND outcome = 'waiting'
                    AND (approval_id IS NULL OR NOT EXISTS (
                        SELECT 1 FROM ledger r
                        WHERE r.kind = 'resolution' AND r.approval_id = l.approval_id))),
                COUNT(*) FILTER (WHERE outcome = 'passed')
            FROM ledger l";
        // Two statements rather than `?1 IS NULL OR ...`, which would keep
        // SQLite from using the session index.
        let (sql, args) = match session {
            Some(session) => (format!("{sql} WHERE l.session = ?1"), vec![session]),
            None => (sql.to_owned(), vec![]),
        };
        let conn = self.conn();
        let mut stmt = conn.prepare_cached(&sql).map_err(self.db())?;
        stmt.query_row(rusqlite::params_from_iter(args), |r| {
            let n = |i| r.get::<_, i64>(i).map(|v| u64::try_from(v).unwrap_or(0));
            Ok(Totals {
                requests: n(0)?,
                prompts: n(1)?,
                executions: n(2)?,
                blocked: n(3)?,
                failed: n(4)?,
                waiting: n(5)?,
                passed: n(6)?,
            })
        })
        .map_err(self.db())
    }
}

/// Counts over one session's reviewed rows (`?1`): deny rows after the
/// last allow or escalate row, deny rows, breaker rows.
const REVIEW_COUNTS_SQLITE: &str = "WITH reviewed AS (
        SELECT seq, review_decision AS d FROM ledger
        WHERE session = ?1 AND review_decision IS NOT NULL),
    reset AS (
        SELECT COALESCE(MAX(seq), 0) AS seq FROM reviewed WHERE d IN ('allow', 'escalate'))
    SELECT
        COUNT(*) FILTER (WHERE d = 'deny' AND seq > (SELECT seq FROM reset)),
        COUNT(*) FILTER (WHERE d = 'deny'),
        COUNT(*) FILTER (WHERE d = 'breaker')
    FROM reviewed";

/// A count as `u32`, saturating.
pub(crate) fn to_u32(n: i64) -> u32 {
    u32::try_from(n.max(0)).unwrap_or(u32::MAX)
}

/// Appends one row. The caller holds a `BEGIN IMMEDIATE` transaction on
/// `conn` and commits it, together with whatever else belongs to the same
/// step (an approval's new status).
pub(crate) fn append_row(
    conn: &Connection,
    path: &Path,
    kind: RowKind,
    record: &Record,
) -> Result<Appended> {
    append_row_at(conn, path, kind, record, time::now())
}

/// [`append_row`] with the row's time given (a spooled row's is when it
/// was spooled).
fn append_row_at(
    conn: &Connection,
    path: &Path,
    kind: RowKind,
    record: &Record,
    time: String,
) -> Result<Appended> {
    let db = |e| Error::sqlite(path, e);
    let head = read_head(conn, path)?;
    let seq = head.seq + 1;
    // Stored as a SQLite integer, so hash what will be read back.
    let duration_us = record.duration_us.min(i64::MAX as u64);
    let hash = chain::row_hash(
        &head.hash,
        &Fields {
            seq,
            kind: kind.as_str(),
            time: &time,
            session: &record.session,
            client: record.client.as_deref(),
            call_id: &record.call_id,
            tool: &record.tool,
            digest: &record.digest,
            input: &record.input,
            decision: record.decision.as_str(),
            rule: record.rule.as_deref(),
            hard: record.hard,
            reason: &record.reason,
            approval: record.approval.map(|a| a.as_str()),
            note: record.note.as_deref(),
            outcome: record.outcome.as_str(),
            duration_us,
            approval_id: record.approval_id.as_deref(),
            server: record.server.as_deref(),
            review: record.review.as_ref().map(ReviewFields::of),
        },
    );
    let review = record.review.as_ref();
    conn.prepare_cached(&format!(
        "INSERT INTO ledger ({ROW_COLUMNS}) VALUES \
         (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, \
          ?21, ?22, ?23, ?24, ?25)"
    ))
    .and_then(|mut stmt| {
        stmt.execute(params![
            to_i64(seq),
            kind.as_str(),
            time,
            record.session,
            record.client,
            record.call_id,
            record.tool,
            record.digest,
            record.input,
            record.decision.as_str(),
            record.rule,
            record.hard,
            record.reason,
            record.approval.map(|a| a.as_str()),
            record.note,
            record.outcome.as_str(),
            to_i64(duration_us),
            record.approval_id,
            head.hash,
            hash,
            record.server,
            review.map(|r| r.model.as_str()),
            review.map(|r| r.decision.as_str()),
            review.map(|r| r.reason.as_str()),
            review.map(|r| to_i64(chain::stored_latency(r.latency_ms))),
        ])
    })
    .map_err(|e| match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::ConstraintViolation) => Error::Corrupt {
            path: path.to_path_buf(),
            detail: format!(
                "ledger row {seq} cannot be written ({e}); the head does not match the rows, \
                 run `toolgate audit verify`"
            ),
        },
        _ => db(e),
    })?;
    conn.prepare_cached("UPDATE head SET seq = ?1, hash = ?2 WHERE id = 1")
        .and_then(|mut stmt| stmt.execute(params![to_i64(seq), hash]))
        .map_err(db)?;
    Ok(Appended { seq, hash })
}

/// Whether the ledger already held a spooled row among its first `upto`
/// rows: one with the same session, call id, time, digest, kind and
/// outcome.
fn holds(conn: &Connection, row: &crate::spool::Spooled, upto: u64) -> rusqlite::Result<bool> {
    let r = &row.record;
    conn.prepare_cached(
        "SELECT 1 FROM ledger WHERE session = ?1 AND seq <= ?7 AND call_id = ?2 AND time = ?3 \
         AND digest = ?4 AND kind = ?5 AND outcome = ?6 LIMIT 1",
    )?
    .query_row(
        params![
            r.session,
            r.call_id,
            row.time,
            r.digest,
            row.kind.as_str(),
            r.outcome.as_str(),
            to_i64(upto)
        ],
        |_| Ok(()),
    )
    .optional()
    .map(|found| found.is_some())
}

pub(crate) fn read_head(conn: &Connection, path: &Path) -> Result<Head> {
    let head = conn
        .prepare_cached("SELECT seq, hash FROM head WHERE id = 1")
        .and_then(|mut stmt| {
            stmt.query_row([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))
                .optional()
        })
        .map_err(|e| Error::sqlite(path, e))?;
    match head {
        Some((seq, hash)) if seq >= 0 => Ok(Head {
            seq: seq.unsigned_abs(),
            hash,
        }),
        Some((seq, _)) => Err(Error::Corrupt {
            path: path.to_path_buf(),
            detail: format!("the ledger head has seq {seq}"),
        }),
        None => Err(Error::Corrupt {
            path: path.to_path_buf(),
            detail: "the ledger head is missing".to_owned(),
        }),
    }
}

pub(crate) fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Reads the columns of [`ROW_COLUMNS`], without trusting their types.
pub(crate) fn read_raw(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawRow> {
    let mut malformed = false;
    let mut text = |i: usize| -> rusqlite::Result<Option<String>> {
        Ok(match r.get::<_, Value>(i)? {
            Value::Text(s) => Some(s),
            Value::Null => None,
            _ => {
                malformed = true;
                Some(String::new())
            }
        })
    };
    let seq = r.get::<_, i64>(0)?;
    let kind = text(1)?.unwrap_or_default();
    let time = text(2)?.unwrap_or_default();
    let session = text(3)?.unwrap_or_default();
    let client = text(4)?;
    let call_id = text(5)?.unwrap_or_default();
    let tool = text(6)?.unwrap_or_default();
    let digest = text(7)?.unwrap_or_default();
    let input = text(8)?.unwrap_or_default();
    let decision = text(9)?.unwrap_or_default();
    let rule = text(10)?;
    let reason = text(12)?.unwrap_or_default();
    let approval = text(13)?;
    let note = text(14)?;
    let outcome = text(15)?.unwrap_or_default();
    let approval_id = text(17)?;
    let prev_hash = text(18)?.unwrap_or_default();
    let hash = text(19)?.unwrap_or_default();
    let server = text(20)?;
    let review_model = text(21)?;
    let review_decision = text(22)?;
    let review_reason = text(23)?;
    let review_latency_ms = match r.get::<_, Value>(24)? {
        Value::Integer(n) => Some(n),
        Value::Null => None,
        _ => {
            malformed = true;
            Some(0)
        }
    };
    let mut int = |i: usize| -> rusqlite::Result<i64> {
        Ok(match r.get::<_, Value>(i)? {
            Value::Integer(n) => n,
            _ => {
                malformed = true;
                0
            }
        })
    };
    let hard = int(11)?;
    let duration_us = int(16)?;
    Ok(RawRow {
        seq,
        kind,
        time,
        session,
        client,
        call_id,
        tool,
        digest,
        input,
        decision,
        rule,
        hard,
        reason,
        approval,
        note,
        outcome,
        duration_us,
        approval_id,
        server,
        review_model,
        review_decision,
        review_reason,
        review_latency_ms,
        prev_hash,
        hash,
        malformed: malformed || !(0..=1).contains(&hard) || duration_us < 0,
    })
}

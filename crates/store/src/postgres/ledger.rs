//! Appending to and reading the ledger in PostgreSQL.

use postgres::GenericClient;
use postgres::types::{ToSql, Type};

use super::{Db, to_i64};
use crate::chain::{self, Fields, ReviewFields};
use crate::error::Result;
use crate::stored::{ROW_COLUMNS, RawRow};
use crate::time;
use crate::types::{Appended, Head, Record, ReviewCounts, Row, RowFilter, RowKind, Totals};

impl Db {
    /// Appends a request row in its own transaction.
    pub fn append(&self, record: &Record) -> Result<Appended> {
        let mut conn = self.conn()?;
        let mut tx = conn.transaction().map_err(self.db())?;
        let appended = append_row(self, &mut tx, RowKind::Request, record)?;
        tx.commit().map_err(self.db())?;
        Ok(appended)
    }

    /// Ledger rows as the filter selects them.
    pub fn rows(&self, filter: &RowFilter) -> Result<Vec<Row>> {
        let mut sql = format!("SELECT {ROW_COLUMNS} FROM ledger WHERE seq > $1");
        let mut args: Vec<Box<dyn ToSql + Sync>> =
            vec![Box::new(to_i64(filter.after_seq.unwrap_or(0)))];
        for (column, value) in [
            ("session", &filter.session),
            ("call_id", &filter.call_id),
            ("server", &filter.server),
            ("approval_id", &filter.approval_id),
        ] {
            if let Some(value) = value {
                args.push(Box::new(value.clone()));
                sql.push_str(&format!(" AND {column} = ${}", args.len()));
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
            args.push(Box::new(i64::try_from(limit).unwrap_or(i64::MAX)));
            sql.push_str(&format!(" LIMIT ${}", args.len()));
        }
        let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a.as_ref()).collect();
        let mut conn = self.conn()?;
        let rows = conn.query(&sql, &params).map_err(self.db())?;
        rows.iter()
            .map(|r| {
                read_raw(r)
                    .map_err(self.db())?
                    .into_row()
                    .map_err(|e| self.corrupt(e.to_string()))
            })
            .collect()
    }

    /// Counts over the ledger, or one session's rows.
    pub fn count(&self, session: Option<&str>) -> Result<Totals> {
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
        let mut conn = self.conn()?;
        let row = match session {
            Some(session) => conn.query_one(&format!("{sql} WHERE l.session = $1"), &[&session]),
            None => conn.query_one(sql, &[]),
        }
        .map_err(self.db())?;
        let n = |i| u64::try_from(row.get::<_, i64>(i)).unwrap_or(0);
        Ok(Totals {
            requests: n(0),
            prompts: n(1),
            executions: n(2),
            blocked: n(3),
            failed: n(4),
            waiting: n(5),
            passed: n(6),
        })
    }

    /// The request row of the call queued as approval `id`.
    pub fn request_row(&self, id: &str) -> Result<Option<Row>> {
        let mut conn = self.conn()?;
        // The terms match index `ledger_request_approval`'s condition.
        let row = conn
            .query_opt(
                &format!(
                    "SELECT {ROW_COLUMNS} FROM ledger \
                     WHERE approval_id = $1 AND approval_id IS NOT NULL AND kind = 'request' \
                     ORDER BY seq LIMIT 1"
                ),
                &[&id],
            )
            .map_err(self.db())?;
        row.map(|r| {
            read_raw(&r)
                .map_err(self.db())?
                .into_row()
                .map_err(|e| self.corrupt(e.to_string()))
        })
        .transpose()
    }

    /// A session's reviewer answers; see [`ReviewCounts`].
    pub fn review_counts(&self, session: &str) -> Result<ReviewCounts> {
        let mut conn = self.conn()?;
        let row = conn
            .query_one(
                "WITH reviewed AS (
                     SELECT seq, review_decision AS d FROM ledger
                     WHERE session = $1 AND review_decision IS NOT NULL)
                 SELECT
                     COUNT(*) FILTER (WHERE d = 'deny' AND seq > COALESCE((
                         SELECT MAX(seq) FROM reviewed WHERE d IN ('allow', 'escalate')), 0)),
                     COUNT(*) FILTER (WHERE d = 'deny'),
                     COUNT(*) FILTER (WHERE d = 'breaker')
                 FROM reviewed",
                &[&session],
            )
            .map_err(self.db())?;
        let n = |i| u32::try_from(row.get::<_, i64>(i).max(0)).unwrap_or(u32::MAX);
        Ok(ReviewCounts {
            denials_in_a_row: n(0),
            denials: n(1),
            breaker_rows: n(2),
        })
    }

    /// The head row.
    pub fn head(&self) -> Result<Head> {
        let mut conn = self.conn()?;
        read_head(self, &mut *conn, false)
    }
}

/// Appends one row inside the caller's transaction, which it commits with
/// whatever else belongs to the same step.
///
/// INVARIANT: the head row is locked (`FOR UPDATE`) before its hash is
/// read, and stays locked until the caller's transaction ends: appends
/// from every host form one chain.
pub(crate) fn append_row(
    db: &Db,
    tx: &mut impl GenericClient,
    kind: RowKind,
    record: &Record,
) -> Result<Appended> {
    let head = read_head(db, tx, true)?;
    let seq = head.seq + 1;
    let time = time::now();
    // Stored as a BIGINT, so hash what will be read back.
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
    let seq_i = to_i64(seq);
    let review = record.review.as_ref();
    let review_model = review.map(|r| r.model.as_str());
    let review_decision = review.map(|r| r.decision.as_str());
    let review_reason = review.map(|r| r.reason.as_str());
    let review_latency = review.map(|r| to_i64(chain::stored_latency(r.latency_ms)));
    let duration_i = to_i64(duration_us);
    let approval = record.approval.map(|a| a.as_str());
    // One round trip (typed parameters need no prepare): the row and the
    // head move together.
    tx.execute_typed(
        &format!(
            "WITH appended AS (
                 INSERT INTO ledger ({ROW_COLUMNS}) VALUES
                 ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                  $18, $19, $20, $21, $22, $23, $24, $25)
                 RETURNING seq, hash)
             UPDATE head SET seq = appended.seq, hash = appended.hash FROM appended
             WHERE head.id = 1"
        ),
        &[
            (&seq_i, Type::INT8),
            (&kind.as_str(), Type::TEXT),
            (&time, Type::TEXT),
            (&record.session, Type::TEXT),
            (&record.client, Type::TEXT),
            (&record.call_id, Type::TEXT),
            (&record.tool, Type::TEXT),
            (&record.digest, Type::TEXT),
            (&record.input, Type::TEXT),
            (&record.decision.as_str(), Type::TEXT),
            (&record.rule, Type::TEXT),
            (&record.hard, Type::BOOL),
            (&record.reason, Type::TEXT),
            (&approval, Type::TEXT),
            (&record.note, Type::TEXT),
            (&record.outcome.as_str(), Type::TEXT),
            (&duration_i, Type::INT8),
            (&record.approval_id, Type::TEXT),
            (&head.hash, Type::TEXT),
            (&hash, Type::TEXT),
            (&record.server, Type::TEXT),
            (&review_model, Type::TEXT),
            (&review_decision, Type::TEXT),
            (&review_reason, Type::TEXT),
            (&review_latency, Type::INT8),
        ],
    )
    .map_err(|source| {
        if source.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION) {
            db.corrupt(format!(
                "ledger row {seq} cannot be written ({source}); the head does not match the \
                 rows, run `toolgate audit verify`"
            ))
        } else {
            db.db()(source)
        }
    })?;
    Ok(Appended { seq, hash })
}

/// The head row; `lock` takes its row lock for an append.
pub(crate) fn read_head(db: &Db, conn: &mut impl GenericClient, lock: bool) -> Result<Head> {
    let sql = if lock {
        "SELECT seq, hash FROM head WHERE id = 1 FOR UPDATE"
    } else {
        "SELECT seq, hash FROM head WHERE id = 1"
    };
    let head = conn.query_typed_opt(sql, &[]).map_err(db.db())?;
    match head.map(|r| (r.get::<_, i64>(0), r.get::<_, String>(1))) {
        Some((seq, hash)) if seq >= 0 => Ok(Head {
            seq: seq.unsigned_abs(),
            hash,
        }),
        Some((seq, _)) => Err(db.corrupt(format!("the ledger head has seq {seq}"))),
        None => Err(db.corrupt("the ledger head is missing".to_owned())),
    }
}

/// Reads the columns of [`ROW_COLUMNS`]. PostgreSQL enforces the column
/// types, so only the values can be wrong, which `verify` finds.
pub(crate) fn read_raw(r: &postgres::Row) -> std::result::Result<RawRow, postgres::Error> {
    let hard: bool = r.try_get(11)?;
    let duration_us: i64 = r.try_get(16)?;
    Ok(RawRow {
        seq: r.try_get(0)?,
        kind: r.try_get(1)?,
        time: r.try_get(2)?,
        session: r.try_get(3)?,
        client: r.try_get(4)?,
        call_id: r.try_get(5)?,
        tool: r.try_get(6)?,
        digest: r.try_get(7)?,
        input: r.try_get(8)?,
        decision: r.try_get(9)?,
        rule: r.try_get(10)?,
        hard: i64::from(hard),
        reason: r.try_get(12)?,
        approval: r.try_get(13)?,
        note: r.try_get(14)?,
        outcome: r.try_get(15)?,
        duration_us,
        approval_id: r.try_get(17)?,
        server: r.try_get(20)?,
        review_model: r.try_get(21)?,
        review_decision: r.try_get(22)?,
        review_reason: r.try_get(23)?,
        review_latency_ms: r.try_get(24)?,
        prev_hash: r.try_get(18)?,
        hash: r.try_get(19)?,
        malformed: duration_us < 0,
    })
}

//! Ledger rows as stored, as every backend reads them: without trusting the
//! column types, so that `verify` can name a tampered row instead of failing
//! on it.

use crate::chain::{self, Fields, ReviewFields};
use crate::types::{Record, ReviewRecord, Row};

/// A stored ledger row that is not one the store writes: the database is
/// reported as corrupt, naming the row.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("ledger row {seq}: {problem}")]
pub struct BadRow {
    /// The row's sequence number as stored.
    pub seq: i64,
    /// What is wrong with it.
    pub problem: RowProblem,
}

/// What is wrong with a stored ledger row.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowProblem {
    /// A column of another SQL type than the schema's.
    #[error("a column holds a value of the wrong type")]
    WrongType,
    /// Some review columns set and others not.
    #[error("its review columns are set only in part")]
    PartialReview,
    /// A sequence number below zero.
    #[error("negative seq")]
    NegativeSeq,
    /// A decision, outcome or kind the store does not write.
    #[error(transparent)]
    Value(#[from] crate::error::UnknownValue),
}

/// The ledger's columns in the order the backends' row readers expect.
pub(crate) const ROW_COLUMNS: &str = "seq, kind, time, session, client, call_id, tool, digest, \
     input, decision, rule, hard, reason, approval, note, outcome, duration_us, approval_id, \
     prev_hash, hash, server, review_model, review_decision, review_reason, review_latency_ms";

/// A ledger row as stored, read without trusting the types: a tampered row
/// must still be readable so that `verify` can name it.
#[derive(Clone)]
pub(crate) struct RawRow {
    pub seq: i64,
    pub kind: String,
    pub time: String,
    pub session: String,
    pub client: Option<String>,
    pub call_id: String,
    pub tool: String,
    pub digest: String,
    pub input: String,
    pub decision: String,
    pub rule: Option<String>,
    pub hard: i64,
    pub reason: String,
    pub approval: Option<String>,
    pub note: Option<String>,
    pub outcome: String,
    pub duration_us: i64,
    pub approval_id: Option<String>,
    pub server: Option<String>,
    /// The reviewer's answer: all four or none (anything else is
    /// malformed).
    pub review_model: Option<String>,
    pub review_decision: Option<String>,
    pub review_reason: Option<String>,
    pub review_latency_ms: Option<i64>,
    pub prev_hash: String,
    pub hash: String,
    /// Some column held a value of the wrong type (which the store never
    /// writes), so the row cannot hash to its stored hash.
    pub malformed: bool,
}

impl RawRow {
    /// The reviewer's answer as stored: `Ok(None)` when the row has none,
    /// `Err` when only some of its columns are set or the latency is
    /// negative (which the store never writes).
    fn review(&self) -> std::result::Result<Option<ReviewFields<'_>>, ()> {
        match (
            &self.review_model,
            &self.review_decision,
            &self.review_reason,
            self.review_latency_ms,
        ) {
            (None, None, None, None) => Ok(None),
            (Some(model), Some(decision), Some(reason), Some(ms)) if ms >= 0 => {
                Ok(Some(ReviewFields {
                    model,
                    decision,
                    reason,
                    latency_ms: ms.unsigned_abs(),
                }))
            }
            _ => Err(()),
        }
    }

    /// The hash the row's stored content gives, with its stored previous
    /// hash, as if it stood at `seq`. `None` when the row is malformed.
    pub fn hash_at(&self, seq: i64) -> Option<String> {
        if self.malformed {
            return None;
        }
        let review = self.review().ok()?;
        let seq = u64::try_from(seq).ok()?;
        Some(chain::row_hash(
            &self.prev_hash,
            &Fields {
                seq,
                kind: &self.kind,
                time: &self.time,
                session: &self.session,
                client: self.client.as_deref(),
                call_id: &self.call_id,
                tool: &self.tool,
                digest: &self.digest,
                input: &self.input,
                decision: &self.decision,
                rule: self.rule.as_deref(),
                hard: self.hard == 1,
                reason: &self.reason,
                approval: self.approval.as_deref(),
                note: self.note.as_deref(),
                outcome: &self.outcome,
                duration_us: self.duration_us.unsigned_abs(),
                approval_id: self.approval_id.as_deref(),
                server: self.server.as_deref(),
                review,
            },
        ))
    }

    /// Whether the row's content matches its own hash.
    pub fn self_consistent(&self) -> bool {
        self.hash_at(self.seq).is_some_and(|h| h == self.hash)
    }

    /// The typed row, or what in it is not a value the store writes.
    pub fn into_row(self) -> std::result::Result<Row, BadRow> {
        let seq = self.seq;
        let bad = |e: crate::error::UnknownValue| BadRow {
            seq,
            problem: e.into(),
        };
        if self.malformed {
            return Err(BadRow {
                seq,
                problem: RowProblem::WrongType,
            });
        }
        let review = match self.review() {
            Err(()) => {
                return Err(BadRow {
                    seq,
                    problem: RowProblem::PartialReview,
                });
            }
            Ok(None) => None,
            Ok(Some(r)) => Some(ReviewRecord {
                model: r.model.to_owned(),
                decision: r.decision.parse().map_err(bad)?,
                reason: r.reason.to_owned(),
                latency_ms: r.latency_ms,
            }),
        };
        Ok(Row {
            seq: u64::try_from(self.seq).map_err(|_| BadRow {
                seq,
                problem: RowProblem::NegativeSeq,
            })?,
            kind: self.kind.parse().map_err(bad)?,
            time: self.time,
            record: Record {
                session: self.session,
                client: self.client,
                server: self.server,
                call_id: self.call_id,
                tool: self.tool,
                digest: self.digest,
                input: self.input,
                decision: self.decision.parse().map_err(bad)?,
                rule: self.rule,
                hard: self.hard == 1,
                reason: self.reason,
                approval: self.approval.map(|a| a.parse()).transpose().map_err(bad)?,
                note: self.note,
                outcome: self.outcome.parse().map_err(bad)?,
                duration_us: self.duration_us.unsigned_abs(),
                approval_id: self.approval_id,
                review,
            },
            prev_hash: self.prev_hash,
            hash: self.hash,
        })
    }
}

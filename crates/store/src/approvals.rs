//! The queue of pending approvals.
//!
//! An approval moves `pending → approved → executing → done` or
//! `pending → declined`, and every move is a conditional update inside a
//! transaction (`BEGIN IMMEDIATE` in SQLite, a row lock in PostgreSQL): of
//! two processes, or two hosts, that try the same move, exactly one
//! succeeds. That is what makes "approving twice does not run
//! it twice" hold across the CLI, the web page and waiting hooks.
//!
//! The ledger row that ends a waiting call (its resolution) is appended in
//! the same transaction as the move that ends it (a decline, or `finish`),
//! so the queue and the ledger never disagree, even after a crash.
//!
//! A process killed between [`Store::claim_for_execution`] and
//! [`Store::finish`] leaves the approval `executing`: whether the call ran
//! is unknown, and running it again could do it twice, so it stays there
//! for a person to look at.

use std::hash::{BuildHasher, Hasher};

use crate::error::Error;
use crate::types::{Decision, Outcome, Pending, Record};

/// The approvals table's columns, in the order the backends read them.
pub(crate) const COLUMNS: &str = "id, created, session, client, call_id, tool, snapshot, digest, \
     reason, rule, remember_allowed, status, answer, note, answered_by, answered, outcome, finished";

/// Ids are 8 hex digits: short enough to type, and with one id per call
/// that waits, collisions are rare; the insert retries on one.
pub(crate) const ID_ATTEMPTS: u32 = 32;

/// The ledger row that ends a call that waited. Its input is the approved
/// snapshot: what was (or would have been) run.
pub(crate) fn resolution(approval: &Pending, outcome: Outcome, duration_us: u64) -> Record {
    Record {
        session: approval.session.clone(),
        client: approval.client.clone(),
        call_id: approval.call_id.clone(),
        tool: approval.tool.clone(),
        digest: approval.digest.clone(),
        input: approval.snapshot_json.clone(),
        decision: Decision::Ask,
        rule: approval.rule.clone(),
        hard: false,
        reason: approval.reason.clone(),
        approval: approval.answer.map(Into::into),
        note: approval.note.clone(),
        outcome,
        duration_us,
        approval_id: Some(approval.id.clone()),
    }
}

/// A fresh id from the process's random hasher keys, the clock, the pid and
/// the attempt number. Not a secret: it only has to be unlikely to repeat.
pub(crate) fn new_id(attempt: u32) -> String {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    h.write_u128(nanos);
    h.write_u32(std::process::id());
    h.write_u32(attempt);
    format!("{:08x}", h.finish() & 0xffff_ffff)
}

/// The error for an id that names no approval.
pub(crate) fn unknown(id: &str) -> Error {
    Error::UnknownApproval { id: id.to_owned() }
}

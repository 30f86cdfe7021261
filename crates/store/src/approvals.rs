//! The queue of pending approvals.
//!
//! An approval moves `pending → approved → executing → done` or
//! `pending → declined` or `pending → expired`, and every move is a conditional update inside a
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
     reason, rule, remember_allowed, status, answer, note, answered_by, answered, outcome, finished, server";

/// Ids are 8 hex digits: short enough to type, and with one id per call
/// that waits, collisions are rare; the insert retries on one.
pub(crate) const ID_ATTEMPTS: u32 = 32;

/// The note an expired approval carries.
pub(crate) fn expiry_note(ttl: std::time::Duration) -> String {
    format!("expired: no answer within {}", human_duration(ttl))
}

/// The resolution row of an approval that expired: blocked, with no answer.
pub(crate) fn expiry_resolution(approval: &Pending) -> Record {
    Record {
        approval: Some(crate::types::ApprovalAnswer::NoAnswer),
        ..resolution(approval, Outcome::Blocked, 0)
    }
}

/// `1h`, `90s`, `2m30s`: how a TTL reads in the expiry note.
fn human_duration(d: std::time::Duration) -> String {
    let secs = d.as_secs();
    let (h, m, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if s > 0 || out.is_empty() {
        out.push_str(&format!("{s}s"));
    }
    out
}

/// The ledger row that ends a call that waited. Its input is the approved
/// snapshot: what was (or would have been) run.
pub(crate) fn resolution(approval: &Pending, outcome: Outcome, duration_us: u64) -> Record {
    Record {
        session: approval.session.clone(),
        client: approval.client.clone(),
        server: approval.server.clone(),
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
        // A person answered it, not the reviewer.
        review: None,
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

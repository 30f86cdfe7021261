//! The approval queue as the gate uses it: queueing an ask, waiting for
//! its answer, and picking up an approval that a person gave after an
//! earlier identical call stopped waiting.

use std::time::Instant;

use toolgate_policy::{Call, Decision};
use toolgate_store::{ApprovalAnswer, ApprovalStatus, Pending, PendingNew};

use crate::approver::Patience;
use crate::gate::Gate;
use crate::record::{self, Row};
use crate::result::Outcome;

/// Where a queued call stands after waiting.
pub(crate) enum Queued {
    /// A person approved it and this gate claimed it: it is this call's to
    /// run, exactly once.
    Approved(Pending),
    /// A person declined it (the store wrote its resolution row).
    Declined(Pending),
    /// No one answered within the approval TTL (the store wrote its
    /// resolution row).
    Expired,
    /// No answer within the wait; it stays queued.
    Pending,
    /// Another process took the approval first.
    Taken,
    /// The approval is no longer in the queue.
    Gone,
    /// The queue could not be read.
    Failed(toolgate_store::Error),
}

/// Queues the call with its `waiting` request row (one transaction) and
/// returns the approval's id; `None` when there is no store to wait in.
pub(crate) fn enqueue(
    gate: &mut Gate,
    snapshot: &Call,
    decision: &Decision,
    start: Instant,
) -> Result<Option<String>, toolgate_store::Error> {
    let Some(store) = gate.store.as_ref() else {
        return Ok(None);
    };
    let row = Row::request(Outcome::Waiting, start).answer(Some(ApprovalAnswer::Unanswered));
    let request = record::record_of(gate, snapshot, decision, &row);
    let pending = PendingNew {
        session: gate.session.clone(),
        client: request.client.clone(),
        server: request.server.clone(),
        call_id: request.call_id.clone(),
        tool: request.tool.clone(),
        snapshot_json: snapshot.canonical_json(),
        digest: request.digest.clone(),
        reason: decision.reason.clone(),
        rule: decision.rule.clone(),
        remember_allowed: decision.remember,
    };
    store.append_waiting(&request, &pending).map(|q| Some(q.id))
}

/// Waits up to `patience.wait` for a person to answer approval `id`.
pub(crate) fn await_answer(gate: &Gate, id: &str, patience: Patience) -> Queued {
    if patience.wait.is_zero() {
        return Queued::Pending;
    }
    let Some(store) = gate.store.as_ref() else {
        return Queued::Gone;
    };
    let deadline = Instant::now() + patience.wait;
    loop {
        let approval = match store.approval(id) {
            Ok(Some(approval)) => approval,
            Ok(None) => return Queued::Gone,
            Err(e) => return Queued::Failed(e),
        };
        match approval.status {
            ApprovalStatus::Pending => {}
            ApprovalStatus::Approved => {
                return match claim(gate, id) {
                    Ok(Some(claimed)) => Queued::Approved(claimed),
                    Ok(None) => Queued::Taken,
                    Err(e) => Queued::Failed(e),
                };
            }
            ApprovalStatus::Declined => return Queued::Declined(approval),
            ApprovalStatus::Expired => return Queued::Expired,
            ApprovalStatus::Executing | ApprovalStatus::Done => return Queued::Taken,
        }
        let now = Instant::now();
        if now >= deadline {
            return Queued::Pending;
        }
        std::thread::sleep(patience.poll.min(deadline - now));
    }
}

/// Takes an approved call for running: exactly one process succeeds.
pub(crate) fn claim(gate: &Gate, id: &str) -> Result<Option<Pending>, toolgate_store::Error> {
    match gate.store.as_ref() {
        Some(store) => store.claim_for_execution(id),
        None => Ok(None),
    }
}

/// An approval a person gave for a call identical to this one (same
/// session, client, tool, input and directory; only the call id differs,
/// as it does on every retry) after the earlier call stopped waiting. Its
/// stored snapshot must still match its digest.
pub(crate) fn approved_earlier(
    gate: &Gate,
    call: &Call,
) -> Result<Option<Pending>, toolgate_store::Error> {
    let Some(store) = gate.store.as_ref() else {
        return Ok(None);
    };
    let client = record::client_tag(call);
    let found = store
        .list_approvals(Some(ApprovalStatus::Approved))?
        .into_iter()
        .find(|p| {
            p.session == gate.session
                && p.client == client
                && p.tool == call.tool
                && stored_call(p).is_some_and(|snapshot| {
                    snapshot.client == call.client
                        && snapshot.input == call.input
                        && snapshot.cwd == call.cwd
                })
        });
    Ok(found)
}

/// The call an approval stores, when it still matches its digest.
pub(crate) fn stored_call(p: &Pending) -> Option<Call> {
    Call::parse(&p.snapshot_json)
        .ok()
        .filter(|snapshot| snapshot.digest() == p.digest)
}

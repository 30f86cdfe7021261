//! `toolgate agent --approver queue --wait SECS`: a call that the gate
//! queued is held until a person answers it (the web page,
//! `toolgate approvals`), then resumed through [`Gate::resume`], which
//! claims it, re-checks the snapshot's digest, decides again and runs it.
//! A decline, an expiry or no answer in time is a refusal the model reads.

use std::time::{Duration, Instant};

use toolgate_gate::{Gate, Outcome, ToolResult, refusal_text};
use toolgate_store::ApprovalStatus;

/// How often a waiting agent looks at the queue.
pub(crate) const POLL: Duration = Duration::from_millis(200);

/// Waits up to `wait` for an answer to the call `result` left waiting, and
/// returns the call's final result. A result that is not waiting, or a gate
/// without a store, is returned as it is.
pub(crate) fn await_answer(gate: &mut Gate, result: ToolResult, wait: Duration) -> ToolResult {
    if result.outcome != Outcome::Waiting {
        return result;
    }
    let Some(id) = result.approval_id.clone() else {
        return result;
    };
    let deadline = Instant::now() + wait;
    loop {
        let Some(store) = gate.store() else {
            return result;
        };
        let approval = match store.approval(&id) {
            Ok(Some(a)) => a,
            Ok(None) => {
                return refused(
                    result,
                    "its pending approval disappeared from the queue",
                    None,
                );
            }
            Err(e) => return refused(result, &format!("the approval queue failed ({e})"), None),
        };
        match approval.status {
            ApprovalStatus::Pending => {}
            ApprovalStatus::Approved => {
                return match gate.resume(&id) {
                    Ok(r) => r,
                    Err(e) => refused(
                        result,
                        &format!("it was approved but could not run ({e})"),
                        None,
                    ),
                };
            }
            ApprovalStatus::Declined => {
                let by = approval.answered_by.as_deref().unwrap_or("a person");
                let why = format!("{}; declined by {by}", result.decision.reason);
                return refused(result, &why, approval.note.as_deref());
            }
            ApprovalStatus::Expired => {
                let why = format!(
                    "{}; nobody answered before the approval expired",
                    result.decision.reason
                );
                return refused(result, &why, None);
            }
            ApprovalStatus::Executing | ApprovalStatus::Done => {
                return refused(
                    result,
                    "its approval was already used by another process",
                    None,
                );
            }
        }
        let now = Instant::now();
        if now >= deadline {
            // Still pending: the model is told it waits (the gate's text).
            return result;
        }
        std::thread::sleep(POLL.min(deadline - now));
    }
}

fn refused(result: ToolResult, why: &str, note: Option<&str>) -> ToolResult {
    ToolResult {
        content: refusal_text(why, note),
        is_error: true,
        outcome: Outcome::Blocked,
        ..result
    }
}

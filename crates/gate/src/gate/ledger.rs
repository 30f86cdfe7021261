//! The ledger rows a call leaves, and the check that a call which must be
//! recorded can be.

use super::*;

/// A call the policy requires a record of that cannot be recorded: shown
/// as the refusal the model reads, with the call's reason and the store's
/// problem.
#[derive(Debug, thiserror::Error)]
#[error("{}", texts::unrecorded_text(.reason, .problem))]
pub(crate) struct Unrecorded {
    /// The decision's reason.
    reason: String,
    /// Why the ledger cannot take the row.
    problem: String,
}

impl Gate {
    /// Records a call that runs (or is handed over): its own request row,
    /// or, for a call that waited in the queue, the approval's resolution.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn finish_run(
        &mut self,
        snapshot: &Call,
        decision: &Decision,
        start: Instant,
        answer: Option<ApprovalAnswer>,
        note: Option<String>,
        queued: Option<Box<Pending>>,
        picked_up: bool,
        outcome: Outcome,
    ) -> Result<(), Unrecorded> {
        match queued {
            Some(p) if !picked_up => match &self.store {
                Some(store) => store
                    .finish(&p.id, outcome.store(), record::elapsed_us(start))
                    .map(|_| ())
                    .or_else(|e| self.unrecorded(decision, e.to_string())),
                None => Ok(()),
            },
            queued => {
                let row = Row::request(outcome, start)
                    .answer(answer)
                    .note(note)
                    .approval(queued.map(|p| p.id));
                self.write(snapshot, decision, row)
            }
        }
    }

    /// The request row of a refused call. A refusal stands whether or not
    /// it could be recorded, so a failure to write is ignored here.
    pub(super) fn record_refusal(
        &mut self,
        snapshot: &Call,
        decision: &Decision,
        start: Instant,
        answer: Option<ApprovalAnswer>,
        note: Option<String>,
        approval_id: &Option<String>,
    ) {
        let row = Row::request(Outcome::Blocked, start)
            .answer(answer)
            .note(note)
            .approval(approval_id.clone());
        let _ = self.write(snapshot, decision, row);
    }

    /// Appends a row; a failure is a refusal text when the policy requires
    /// a record, a warning otherwise.
    pub(super) fn write(
        &mut self,
        snapshot: &Call,
        decision: &Decision,
        row: Row,
    ) -> Result<(), Unrecorded> {
        match record::append(self, snapshot, decision, row) {
            Ok(()) => Ok(()),
            Err(problem) => self.unrecorded(decision, problem.to_string()),
        }
    }

    pub(super) fn unrecorded(
        &mut self,
        decision: &Decision,
        problem: String,
    ) -> Result<(), Unrecorded> {
        match self.policy.ledger() {
            Ledger::BestEffort => {
                self.warnings
                    .push(format!("the call was not recorded ({problem})"));
                Ok(())
            }
            Ledger::Required => Err(Unrecorded {
                reason: decision.reason.clone(),
                problem,
            }),
        }
    }

    /// Whether calls can be recorded before any of them runs: a store
    /// that could not be opened, or cannot take a write now, refuses every
    /// call unless the policy says `ledger = "best-effort"`.
    pub(super) fn ledger_ready(
        &mut self,
        decision: &Decision,
        preflight: bool,
    ) -> Result<(), Unrecorded> {
        let problem = match (&self.store, &self.store_error) {
            (Some(_), _) if !preflight => return Ok(()),
            (Some(store), _) => match store.check_writable() {
                Ok(()) => return Ok(()),
                Err(e) => e.to_string(),
            },
            (None, Some(problem)) => problem.clone(),
            // A gate set up without a store records nothing by design.
            (None, None) => return Ok(()),
        };
        match self.policy.ledger() {
            Ledger::BestEffort => {
                self.warnings
                    .push(format!("the call was not recorded ({problem})"));
                Ok(())
            }
            Ledger::Required => Err(Unrecorded {
                reason: decision.reason.clone(),
                problem,
            }),
        }
    }
}

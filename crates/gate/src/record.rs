//! Ledger rows as the gate writes them, for both paths.

use std::time::Instant;

use toolgate_policy::{Call, Client, Decision, Effect};
use toolgate_store::{ApprovalAnswer, Record};

use crate::gate::Gate;
use crate::result::Outcome;

/// What a request row says beyond the call and its decision.
pub(crate) struct Row {
    outcome: Outcome,
    start: Instant,
    answer: Option<ApprovalAnswer>,
    note: Option<String>,
    approval_id: Option<String>,
    raw_input: Option<String>,
}

impl Row {
    pub(crate) fn request(outcome: Outcome, start: Instant) -> Row {
        Row {
            outcome,
            start,
            answer: None,
            note: None,
            approval_id: None,
            raw_input: None,
        }
    }

    pub(crate) fn answer(mut self, answer: Option<ApprovalAnswer>) -> Row {
        self.answer = answer;
        self
    }

    pub(crate) fn note(mut self, note: Option<String>) -> Row {
        self.note = note;
        self
    }

    pub(crate) fn approval(mut self, id: Option<String>) -> Row {
        self.approval_id = id;
        self
    }

    /// The input exactly as the model sent it, for calls whose arguments
    /// could not be read.
    pub(crate) fn raw_input(mut self, raw: String) -> Row {
        self.raw_input = Some(raw);
        self
    }
}

/// The ledger's name for a call's client: `None` for toolgate's own tools.
pub(crate) fn client_tag(call: &Call) -> Option<String> {
    match call.client {
        Client::Toolgate => None,
        c => Some(c.as_str().to_string()),
    }
}

pub(crate) fn elapsed_us(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX)
}

pub(crate) fn record_of(gate: &Gate, snapshot: &Call, decision: &Decision, row: &Row) -> Record {
    Record {
        session: gate.session.clone(),
        client: client_tag(snapshot),
        server: gate.server.clone(),
        call_id: snapshot.id.clone(),
        tool: snapshot.tool.clone(),
        digest: decision.digest.clone().unwrap_or_else(|| snapshot.digest()),
        input: row
            .raw_input
            .clone()
            .unwrap_or_else(|| serde_json::to_string(&snapshot.input).unwrap_or_default()),
        decision: match decision.decision {
            Effect::Allow => toolgate_store::Decision::Allow,
            Effect::Ask => toolgate_store::Decision::Ask,
            Effect::Deny => toolgate_store::Decision::Deny,
        },
        rule: decision.rule.clone(),
        hard: decision.hard,
        reason: decision.reason.clone(),
        approval: row.answer,
        note: row.note.clone(),
        outcome: row.outcome.store(),
        duration_us: elapsed_us(row.start),
        approval_id: row.approval_id.clone(),
        review: gate.review.clone(),
    }
}

/// Appends a request row. Without a store there is nothing to write (the
/// gate refused or warned about that before).
pub(crate) fn append(
    gate: &Gate,
    snapshot: &Call,
    decision: &Decision,
    row: Row,
) -> Result<(), toolgate_store::Error> {
    let Some(store) = gate.store.as_ref() else {
        return Ok(());
    };
    store
        .append(&record_of(gate, snapshot, decision, &row))
        .map(|_| ())
}

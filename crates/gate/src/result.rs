//! What a submitted call returns.

use std::fmt;

use toolgate_policy::Decision;

/// What became of a call (DESIGN §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Allowed, ran, and the tool succeeded.
    Executed,
    /// Allowed and ran, but the tool itself reported an error.
    Failed,
    /// Denied, or declined: not executed.
    Blocked,
    /// Asked, and no answer yet: not executed, queued.
    Waiting,
}

impl Outcome {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Executed => "executed",
            Outcome::Failed => "failed",
            Outcome::Blocked => "blocked",
            Outcome::Waiting => "waiting",
        }
    }

    pub(crate) fn store(self) -> toolgate_store::Outcome {
        match self {
            Outcome::Executed => toolgate_store::Outcome::Executed,
            Outcome::Failed => toolgate_store::Outcome::Failed,
            Outcome::Blocked => toolgate_store::Outcome::Blocked,
            Outcome::Waiting => toolgate_store::Outcome::Waiting,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The approval question asked for a call and the answer it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalLog {
    /// The question as the approver was shown it (one line).
    pub question: String,
    /// `approve`, `session`, `decline`, `unanswered` or `none` (no valid answer).
    pub answer: String,
    /// The approver's note, when there is one.
    pub note: Option<String>,
}

/// The one result of one call.
#[derive(Debug, Clone)]
pub struct ToolResult {
    /// The call's id: the host links the result to the call by it.
    pub call_id: String,
    /// The text for the model: the tool's output, or the refusal.
    pub content: String,
    /// True for refusals and tool errors.
    pub is_error: bool,
    /// What became of the call.
    pub outcome: Outcome,
    /// The decision it got.
    pub decision: Decision,
    /// The approval asked, if one was.
    pub approval: Option<ApprovalLog>,
    /// The pending approval's id, for a call that waits.
    pub approval_id: Option<String>,
}

/// The text a refused call returns to the model (DESIGN principle 6): not
/// executed, why, the person's note, and what to do instead.
pub fn refusal_text(reason: &str, note: Option<&str>) -> String {
    let mut s = format!("not executed: {reason}.");
    if let Some(n) = note.filter(|n| !n.trim().is_empty()) {
        s.push_str(&format!("\nnote from the user: {}", n.trim()));
    }
    s.push_str(
        "\nDo not retry the same call: it will be refused again. Change your approach, or explain to the user what you need and why.",
    );
    s
}

/// The text a call that waits for a person returns.
pub fn waiting_text(reason: &str, id: Option<&str>) -> String {
    match id {
        Some(id) => format!(
            "not executed yet: {reason}. The call waits for a person's approval (approval `{id}`: `toolgate approvals approve {id}`). Do not retry it; continue with something else or tell the user what you are waiting for."
        ),
        None => format!(
            "not executed: {reason}, and no one has answered. Do not retry the same call; continue with something else or tell the user what you need."
        ),
    }
}

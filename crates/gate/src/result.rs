//! What a submitted call returns.

use std::fmt;

use toolgate_policy::Decision;

/// What became of a call.
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
    /// Allowed (or approved) and handed to the host, which runs it.
    Passed,
}

impl Outcome {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Executed => "executed",
            Outcome::Failed => "failed",
            Outcome::Blocked => "blocked",
            Outcome::Waiting => "waiting",
            Outcome::Passed => "passed",
        }
    }

    pub(crate) fn store(self) -> toolgate_store::Outcome {
        match self {
            Outcome::Executed => toolgate_store::Outcome::Executed,
            Outcome::Failed => toolgate_store::Outcome::Failed,
            Outcome::Blocked => toolgate_store::Outcome::Blocked,
            Outcome::Waiting => toolgate_store::Outcome::Waiting,
            Outcome::Passed => toolgate_store::Outcome::Passed,
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

/// What the host is to do with a call it executes itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Run it: allowed, or approved by a person.
    Run,
    /// Let the host's own prompt ask the person (Claude Code's `ask`).
    AskHost,
    /// Do not run it; tell the model [`Passage::message`].
    Refuse,
    /// Do not run it: it waits in the approval queue as
    /// [`Passage::approval_id`]; the same call made again after a person
    /// approved it runs.
    Wait,
}

/// The gate's answer for a call the host executes ([`Gate::pass`]).
///
/// [`Gate::pass`]: crate::Gate::pass
#[derive(Debug, Clone)]
pub struct Passage {
    /// The call's id.
    pub call_id: String,
    /// What the host is to do.
    pub verdict: Verdict,
    /// The text for the model (and the reason a host shows beside its
    /// answer): why it runs, or why not and what to do instead.
    pub message: String,
    /// The decision it got.
    pub decision: Decision,
    /// The approval asked, if one was.
    pub approval: Option<ApprovalLog>,
    /// The approval it waits on or ran on.
    pub approval_id: Option<String>,
}

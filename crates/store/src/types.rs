//! The plain data the store keeps. The store does not depend on the policy
//! crate: decisions and outcomes are small enums of its own whose spelling
//! (`as_str`) is what the database, the ledger hash and the CLI all use.

use std::fmt;
use std::str::FromStr;

use crate::error::UnknownValue;

macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        $name:ident, $what:literal {
            $( $(#[$vmeta:meta])* $variant:ident => $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// The spelling stored in the database, hashed into the ledger
            /// and shown to users. Changing one breaks every stored chain.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = UnknownValue;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $( $text => Ok($name::$variant), )+
                    _ => Err(UnknownValue { what: $what, value: s.to_owned() }),
                }
            }
        }
    };
}

string_enum! {
    /// What the policy decided for a call.
    Decision, "decision" {
        /// The call may run.
        Allow => "allow",
        /// A person has to answer first.
        Ask => "ask",
        /// The call is refused.
        Deny => "deny",
    }
}

string_enum! {
    /// What became of a call.
    Outcome, "outcome" {
        /// Allowed and ran successfully.
        Executed => "executed",
        /// Allowed and ran, but the tool itself reported an error.
        Failed => "failed",
        /// Denied, or declined by the approver: not executed.
        Blocked => "blocked",
        /// Asked, and no answer yet: not executed (yet).
        Waiting => "waiting",
        /// Allowed and handed back to the host, which runs the call itself
        /// (a Claude Code or Gemini CLI hook): toolgate does not see how it
        /// ends.
        Passed => "passed",
    }
}

string_enum! {
    /// The approver's answer as the ledger records it.
    ApprovalAnswer, "approval answer" {
        /// Yes, this once.
        Approve => "approve",
        /// No (maybe with a note).
        Decline => "decline",
        /// Nothing yet: the call waits in the queue.
        Unanswered => "unanswered",
        /// Yes, and for the rest of the session where the rule allows it.
        Session => "session",
        /// The approver gave no valid answer (a timeout, a closed terminal,
        /// an error). Only an explicit yes allows, so this counts as a no.
        NoAnswer => "none",
    }
}

string_enum! {
    /// Why a ledger row was written.
    RowKind, "row kind" {
        /// The one row written when a call is submitted.
        Request => "request",
        /// The row written later, when a call that waited for an approval
        /// is declined or has been executed.
        Resolution => "resolution",
    }
}

string_enum! {
    /// An answer to a pending approval.
    Answer, "answer" {
        /// Run it, once.
        Approve => "approve",
        /// Run it, and grant the rule for the rest of the session.
        Session => "session",
        /// Do not run it.
        Decline => "decline",
    }
}

string_enum! {
    /// Where a pending approval is in its life:
    /// `pending → approved → executing → done`, `pending → declined`, or
    /// `pending → expired`.
    ApprovalStatus, "approval status" {
        /// Waiting for an answer.
        Pending => "pending",
        /// Approved, not yet picked up for execution.
        Approved => "approved",
        /// Declined; final.
        Declined => "declined",
        /// Picked up by exactly one process that runs the snapshot.
        Executing => "executing",
        /// Executed (or failed or blocked at execution); final.
        Done => "done",
        /// Nobody answered within the approval TTL; final, and not executed
        /// ([`Store::expire_older_than`](crate::Store::expire_older_than)).
        Expired => "expired",
    }
}

string_enum! {
    /// What the reviewer model answered for a call the policy decided
    /// `ask`.
    ReviewDecision, "review decision" {
        /// The reviewer allowed the call: it runs.
        Allow => "allow",
        /// The reviewer refused the call, with its reason.
        Deny => "deny",
        /// The reviewer left the call to a person, who is asked as before.
        Escalate => "escalate",
        /// The call went to a person without the reviewer: the session's
        /// reviewer denials tripped the breaker (the reason says which
        /// limit).
        Breaker => "breaker",
    }
}

/// The reviewer model's answer to a call, recorded with the call's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewRecord {
    /// The model that reviewed the call (as configured, e.g.
    /// `gpt-4.1-mini`).
    pub model: String,
    /// What it answered.
    pub decision: ReviewDecision,
    /// Why, in the reviewer's words (for a breaker row: which limit).
    pub reason: String,
    /// How long the review took, in milliseconds.
    pub latency_ms: u64,
}

/// A session's reviewer answers, as [`Store::review_counts`] counts them
/// over the session's rows in ledger order.
///
/// [`Store::review_counts`]: crate::Store::review_counts
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReviewCounts {
    /// Rows reviewed `deny` since the last row reviewed `allow` or
    /// `escalate` (a `breaker` row does not reset it).
    pub denials_in_a_row: u32,
    /// Rows reviewed `deny`.
    pub denials: u32,
    /// Rows whose call went to a person because the breaker had tripped.
    pub breaker_rows: u32,
}

impl From<Answer> for ApprovalAnswer {
    fn from(answer: Answer) -> ApprovalAnswer {
        match answer {
            Answer::Approve => ApprovalAnswer::Approve,
            Answer::Session => ApprovalAnswer::Session,
            Answer::Decline => ApprovalAnswer::Decline,
        }
    }
}

/// One call as the ledger records it, given to [`Store::append`].
///
/// [`Store::append`]: crate::Store::append
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The agent session the call belongs to.
    pub session: String,
    /// The client whose tool catalog named the tool (`claude`, `gemini`,
    /// `codex`, `mcp`); `None` for toolgate's own tools.
    pub client: Option<String>,
    /// The MCP server the call went to (`toolgate mcp`); `None` otherwise.
    pub server: Option<String>,
    /// The call's id as the client gave it; not unique across sessions.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// Hex SHA-256 of the call's canonical JSON, computed by the caller;
    /// ties the row to the exact call that was decided.
    pub digest: String,
    /// The call's input as JSON text, stored verbatim.
    pub input: String,
    /// The decision.
    pub decision: Decision,
    /// The id of the rule that decided; `None` for the policy's default.
    pub rule: Option<String>,
    /// Whether a hard limit decided (nothing could have lifted it).
    pub hard: bool,
    /// Why, in words.
    pub reason: String,
    /// The approver's answer, when one was asked.
    pub approval: Option<ApprovalAnswer>,
    /// The approver's note, if any.
    pub note: Option<String>,
    /// What became of the call.
    pub outcome: Outcome,
    /// Time spent on the call, in microseconds.
    pub duration_us: u64,
    /// The pending approval the call waits on, when it waits in the queue;
    /// its resolution row carries the same id.
    pub approval_id: Option<String>,
    /// The reviewer model's answer, when the call was reviewed.
    pub review: Option<ReviewRecord>,
}

/// A ledger row as stored: the record plus what the store added.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Position in the ledger, from 1 without gaps.
    pub seq: u64,
    /// Request or resolution.
    pub kind: RowKind,
    /// When the row was appended, RFC 3339 UTC with milliseconds.
    pub time: String,
    /// The recorded call.
    pub record: Record,
    /// The hash of the row before (all zeros for the first row).
    pub prev_hash: String,
    /// This row's hash.
    pub hash: String,
}

/// Where an append landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appended {
    /// The new row's seq.
    pub seq: u64,
    /// The new row's hash, which is also the new head.
    pub hash: String,
}

/// The last row of the ledger, as the `head` table remembers it.
///
/// Anyone who can write the database can rewrite the whole chain, head
/// included; a head hash copied somewhere else (a log, a ticket) is what
/// proves later that the ledger up to it is unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// The last seq (0 when the ledger is empty).
    pub seq: u64,
    /// The last row's hash (the all-zero genesis hash when empty).
    pub hash: String,
}

/// Counts over the ledger.
///
/// A call that waited for an approval has two rows: its request (outcome
/// `waiting`) and later one resolution (`executed`, `failed` or
/// `blocked`). So:
/// - `requests` counts request rows: one per submitted call;
/// - `prompts` counts request rows whose decision was `ask`;
/// - `executions`, `failed` and `blocked` count rows of either kind with
///   that outcome, so a resolved call counts where it ended;
/// - `waiting` counts request rows with outcome `waiting` and no
///   resolution yet.
///
/// - `passed` counts rows whose call was allowed and handed back to the
///   host that runs it (hooks).
///
/// Each call therefore counts once in exactly one of `executions`,
/// `failed`, `blocked`, `waiting` or `passed`, and their sum is `requests`: the
/// store writes at most one resolution per approval, and
/// [`Store::append_waiting`] links the request row to its approval. (A
/// request row appended without the approval id stays `waiting` forever,
/// and its resolution counts without a request.)
///
/// [`Store::append_waiting`]: crate::Store::append_waiting
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Calls submitted.
    pub requests: u64,
    /// Calls for which a person was asked.
    pub prompts: u64,
    /// Calls that ran successfully.
    pub executions: u64,
    /// Calls that were not executed: denied or declined.
    pub blocked: u64,
    /// Calls still waiting for an answer.
    pub waiting: u64,
    /// Calls that ran and whose tool reported an error.
    pub failed: u64,
    /// Calls allowed and handed back to a host that runs them itself.
    pub passed: u64,
}

/// Which ledger rows [`Store::rows`] returns.
///
/// [`Store::rows`]: crate::Store::rows
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowFilter {
    /// Only this session's rows.
    pub session: Option<String>,
    /// Only rows with this call id.
    pub call_id: Option<String>,
    /// Only rows of calls to this MCP server.
    pub server: Option<String>,
    /// Only rows linked to this approval.
    pub approval_id: Option<String>,
    /// Only rows of calls the reviewer model answered.
    pub reviewed: bool,
    /// Only rows after this seq (for paging and following the ledger).
    pub after_seq: Option<u64>,
    /// At most this many rows.
    pub limit: Option<usize>,
    /// Newest rows first; with `limit`, the last rows of the ledger.
    pub newest_first: bool,
}

/// A call to hold in the queue until someone answers, given to
/// [`Store::create_pending`].
///
/// [`Store::create_pending`]: crate::Store::create_pending
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingNew {
    /// The agent session.
    pub session: String,
    /// The client (see [`Record::client`]).
    pub client: Option<String>,
    /// The MCP server (see [`Record::server`]).
    pub server: Option<String>,
    /// The call's id.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The snapshot of the call that will run if approved, as JSON text.
    pub snapshot_json: String,
    /// Hex SHA-256 of the snapshot's canonical JSON: the approval is bound
    /// to it, and the executor re-checks it before running.
    pub digest: String,
    /// Why the policy asks.
    pub reason: String,
    /// The rule that asked, if any.
    pub rule: Option<String>,
    /// Whether the rule lets the approver grant it for the session.
    pub remember_allowed: bool,
}

/// A stored approval, in whatever state it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The short id people type: 8 lowercase hex digits.
    pub id: String,
    /// When it was queued.
    pub created: String,
    /// The agent session.
    pub session: String,
    /// The client.
    pub client: Option<String>,
    /// The MCP server.
    pub server: Option<String>,
    /// The call's id.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The call snapshot, JSON text.
    pub snapshot_json: String,
    /// The snapshot's digest.
    pub digest: String,
    /// Why the policy asks.
    pub reason: String,
    /// The rule that asked.
    pub rule: Option<String>,
    /// Whether "approve for this session" may be given.
    pub remember_allowed: bool,
    /// Where it is in its life.
    pub status: ApprovalStatus,
    /// The answer, once given.
    pub answer: Option<Answer>,
    /// The approver's note.
    pub note: Option<String>,
    /// Who answered (as the answering tool names them).
    pub answered_by: Option<String>,
    /// When it was answered.
    pub answered: Option<String>,
    /// The final outcome, once declined or finished.
    pub outcome: Option<Outcome>,
    /// When it reached its final state.
    pub finished: Option<String>,
}

/// The result of [`Store::answer`].
///
/// [`Store::answer`]: crate::Store::answer
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    /// The approval after the answer.
    pub approval: Pending,
    /// The resolution row appended to the ledger: a decline ends the call
    /// at once (outcome `blocked`); an approval waits for execution.
    pub resolution: Option<Appended>,
}

/// The result of [`Store::append_waiting`].
///
/// [`Store::append_waiting`]: crate::Store::append_waiting
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    /// The new approval's id.
    pub id: String,
    /// The request row, which carries the id.
    pub appended: Appended,
}

/// A rule granted for a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The rule's id.
    pub rule: String,
    /// When it was granted.
    pub granted: String,
}

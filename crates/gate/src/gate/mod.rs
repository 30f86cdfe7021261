//! The gate: one path from a proposed call to its answer, for every host.
//!
//! Two ways out, the same way in:
//! - [`Gate::submit`]: toolgate executes (the agent loop, the demo). The
//!   call runs through a registered [`Executor`] only on allow.
//! - [`Gate::pass`]: the host executes (the Claude Code, Gemini CLI and
//!   Codex hooks, the MCP gateway). The gate decides, asks, records and
//!   hands back a [`Verdict`]; the host runs the call only on
//!   [`Verdict::Run`].
//!
//! Both snapshot the call, decide it, consult the approver on ask (picking
//! up an approval a person gave earlier for the same call), refuse what
//! cannot be recorded, and write the ledger through the same functions.

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Instant;

use toolgate_policy::{Call, Context, Decision, Effect, Ledger, Mode, Policy, rule_ids};
use toolgate_store::{ApprovalAnswer, Pending, Store};

use crate::approver::{Answer, ApprovalRequest, Approver, QueueApprover};
use crate::error::GateError;
use crate::executor::{Executor, ToolOutput};
use crate::queue::{self, Queued};
use crate::record::{self, Row};
use crate::result::{ApprovalLog, Outcome, Passage, ToolResult, Verdict};
use crate::texts;

mod approval;
mod decisions;
mod fresh;
mod grants;
mod holds;
mod ledger;
mod resume;
mod reviewing;

use decisions::{blocked_by_host, unreadable_decision};
pub use holds::{Sandboxed, sandbox_holds};

/// How a gate is set up.
pub struct GateOptions {
    /// The session calls belong to (grants and ledger rows are per session).
    pub session: String,
    /// Where the ledger, the queue and the grants live. Without a store
    /// nothing is recorded and no call can wait.
    pub store: Option<Store>,
    /// Why there is no store although the host wanted one (the state
    /// directory is not writable, the database is locked or damaged). With
    /// a policy whose `ledger` is `required` (the default), every call is
    /// then refused with this reason.
    pub store_error: Option<String>,
    /// Replaces the policy's mode.
    pub mode: Option<Mode>,
    /// The client's own mode (Claude Code's `permission_mode`): it can only
    /// tighten the decision.
    pub client_mode: Option<Mode>,
    /// Tools the host refuses whatever the policy says (`--block TOOL`).
    pub blocked_tools: Vec<String>,
    /// Who answers approvals given later through [`Gate::resume`] (for the
    /// record).
    pub who: String,
    /// The MCP server the calls go to, for the record and the queue.
    pub server: Option<String>,
    /// The person's own requests, which the reviewer reads beside a call.
    pub requests: Requests,
    /// The longest a review may take here, whatever the policy's
    /// `[review] timeout` says: a hook must answer before its client gives
    /// up on it (most clients then run the call).
    pub review_budget: Option<std::time::Duration>,
    /// When the session began: a script changed since then and run as a
    /// program asks (`gate:self-written`). `None` (no session, as in
    /// `toolgate check`) skips that check.
    pub session_start: Option<std::time::SystemTime>,
    /// The host runs shell commands inside toolgate's OS sandbox, as
    /// described: an ask the sandbox answers becomes an allow
    /// (`sandbox:holds`, see [`sandbox_holds`]). `None`: no such host.
    pub sandbox: Option<Sandboxed>,
}

/// Where the person's own requests come from, for the reviewer. A
/// transcript is read only when a call is reviewed, so calls that are not
/// pay nothing for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Requests {
    /// The host gives none.
    #[default]
    None,
    /// The requests themselves, oldest first (`toolgate agent`'s task).
    Given(Vec<String>),
    /// A Claude Code transcript (`transcript_path`): its user messages
    /// only, never tool results or the agent's words.
    ClaudeTranscript(std::path::PathBuf),
}

impl Default for GateOptions {
    /// The defaults, in a fresh session.
    fn default() -> Self {
        GateOptions::in_session(new_session_id())
    }
}

impl GateOptions {
    /// The defaults, in the session `session`: for a host that knows its
    /// session, without making a fresh id only to replace it (the MCP
    /// gateway sets up a gate for every call).
    pub fn in_session(session: String) -> GateOptions {
        GateOptions {
            session,
            store: None,
            store_error: None,
            mode: None,
            client_mode: None,
            blocked_tools: Vec::new(),
            who: "toolgate".into(),
            server: None,
            requests: Requests::None,
            review_budget: None,
            session_start: None,
            sandbox: None,
        }
    }
}

/// The rule id of a call refused because its arguments could not be read.
pub const INVALID_ARGUMENTS_RULE: &str = rule_ids::INVALID_ARGUMENTS;

/// A fresh session id.
pub fn new_session_id() -> String {
    toolgate_policy::new_id("s")
}

/// What this gate has seen: the counts kept per session.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Calls submitted.
    pub requests: u64,
    /// Calls for which the approver was asked.
    pub prompts: u64,
    /// Calls that ran and succeeded.
    pub executions: u64,
    /// Calls refused or declined.
    pub blocked: u64,
    /// Calls waiting in the queue.
    pub waiting: u64,
    /// Calls that ran and failed.
    pub failed: u64,
    /// Calls handed to the host to run.
    pub passed: u64,
}

impl Stats {
    fn count(&mut self, o: Outcome) {
        match o {
            Outcome::Executed => self.executions += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::Blocked => self.blocked += 1,
            Outcome::Waiting => self.waiting += 1,
            Outcome::Passed => self.passed += 1,
        }
    }
}

/// The gate: decides, asks, records every call, and executes the ones
/// toolgate runs itself.
pub struct Gate {
    pub(crate) policy: Arc<Policy>,
    approver: Box<dyn Approver>,
    pub(crate) store: Option<Store>,
    store_error: Option<String>,
    executors: HashMap<String, Box<dyn Executor>>,
    pub(crate) session: String,
    mode: Option<Mode>,
    client_mode: Option<Mode>,
    blocked: HashSet<String>,
    /// The session's granted rules, read from the store the first time a
    /// decision asks (grants only ever lift an ask, so no other decision
    /// needs them, and a host that lives for one call saves the read).
    grants: Option<Vec<String>>,
    who: String,
    pub(crate) server: Option<String>,
    stats: Stats,
    pub(crate) warnings: Vec<String>,
    requests: Requests,
    review_budget: Option<std::time::Duration>,
    session_start: Option<std::time::SystemTime>,
    sandbox: Option<Sandboxed>,
    /// The current call's review, written into its rows.
    pub(crate) review: Option<toolgate_store::ReviewRecord>,
    /// Said once to the model, the first time the breaker sends a
    /// session's asks to the person.
    review_notice: Option<String>,
    /// Reviewer denials of a gate without a store (a store counts them
    /// itself, across the processes of one session).
    review_counts: toolgate_store::ReviewCounts,
}

/// Where a call stands once the approver (or the queue) has spoken.
// Short-lived, one per call, never stored: its size does not matter.
#[allow(clippy::large_enum_variant)]
enum Approval {
    /// Run it (approved, or allowed without asking).
    Go {
        answer: Option<ApprovalAnswer>,
        note: Option<String>,
        log: Option<ApprovalLog>,
        /// The approval it ran on, when it came through the queue: its
        /// resolution row ends it.
        queued: Option<Box<Pending>>,
        /// The approval was picked up from an earlier identical call:
        /// this call gets its own request row linked to it.
        picked_up: bool,
    },
    /// The host's own prompt decides.
    Host,
    /// Refused; `recorded` says whether its rows are already written.
    Refuse {
        text: String,
        answer: Option<ApprovalAnswer>,
        note: Option<String>,
        log: Option<ApprovalLog>,
        recorded: bool,
        approval_id: Option<String>,
    },
    /// Queued, and no answer (yet): its `waiting` row is written.
    Wait {
        text: String,
        id: String,
        log: ApprovalLog,
    },
}

impl Gate {
    /// A gate over a policy. A queue approver needs a store.
    pub fn new(
        policy: impl Into<Arc<Policy>>,
        approver: Box<dyn Approver>,
        opts: GateOptions,
    ) -> Gate {
        Gate {
            policy: policy.into(),
            approver,
            store: opts.store,
            store_error: opts.store_error,
            executors: HashMap::new(),
            session: opts.session,
            mode: opts.mode,
            client_mode: opts.client_mode,
            blocked: opts.blocked_tools.into_iter().collect(),
            grants: None,
            who: opts.who,
            server: opts.server,
            stats: Stats::default(),
            warnings: Vec::new(),
            requests: opts.requests,
            review_budget: opts.review_budget,
            session_start: opts.session_start,
            sandbox: opts.sandbox,
            review: None,
            review_notice: None,
            review_counts: toolgate_store::ReviewCounts::default(),
        }
    }

    /// A gate whose approver queues every ask (requires a store).
    pub fn queued(policy: impl Into<Arc<Policy>>, opts: GateOptions) -> Result<Gate, GateError> {
        if opts.store.is_none() {
            return Err(GateError::Config(
                "the queue approver needs the state store to keep pending approvals".into(),
            ));
        }
        Ok(Gate::new(policy, Box::new(QueueApprover), opts))
    }

    /// Registers the executors of several tools (e.g. toolgate's own five,
    /// from `toolgate_tools::executors`).
    pub fn with_executors(
        mut self,
        executors: impl IntoIterator<Item = (String, Box<dyn Executor>)>,
    ) -> Gate {
        self.executors.extend(executors);
        self
    }

    /// Registers (or replaces) the executor of a tool.
    pub fn register(&mut self, tool: &str, exec: Box<dyn Executor>) {
        self.executors.insert(tool.to_string(), exec);
    }

    /// The policy this gate decides with.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }

    /// The same policy, shared: for executors that must honour it too (the
    /// shell's OS boundary, the addresses a fetch may connect to).
    pub fn shared_policy(&self) -> Arc<Policy> {
        self.policy.clone()
    }

    /// The session id.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// The store, when there is one.
    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// Ends the gate and gives its store back, so that a host making one
    /// gate per call (the MCP gateway) can reuse the connection.
    pub fn into_store(self) -> Option<Store> {
        self.store
    }

    /// Counts of this gate's calls.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Problems that did not stop a call but should be shown (the ledger
    /// could not be written under `ledger = "best-effort"`); drained by the
    /// caller.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Who answers through [`Gate::resume`], for the record.
    pub fn who(&self) -> &str {
        &self.who
    }

    /// The MCP server this gate's calls go to.
    pub fn server(&self) -> Option<&str> {
        self.server.as_deref()
    }

    /// Submits one call that toolgate executes, and returns its one result.
    pub fn submit(&mut self, call: &Call) -> ToolResult {
        let start = Instant::now();
        // INVARIANT: from here on only `snapshot` is used; the caller's
        // object is never looked at again.
        let snapshot = call.clone();
        let digest = snapshot.digest();
        let decision = self.decide(&snapshot, &digest);
        // toolgate runs the call before its row is written: check first
        // that the row can be written.
        let approval = self.settle(&snapshot, &decision, start, true);
        let (content, is_error, outcome, log, approval_id) = match approval {
            Approval::Go {
                answer,
                note,
                log,
                queued,
                picked_up,
            } => {
                let (content, is_error, outcome) = self.execute(&snapshot, &digest);
                let id = queued.as_ref().map(|p| p.id.clone());
                if let Err(text) = self.finish_run(
                    &snapshot, &decision, start, answer, note, queued, picked_up, outcome,
                ) {
                    // The check before running passed; the call ran.
                    self.warnings.push(text.to_string());
                }
                (content, is_error, outcome, log, id)
            }
            Approval::Host => {
                // toolgate runs this call itself: handing it to a host
                // prompt that does not exist is no approval.
                let text = texts::refusal(
                    &format!(
                        "{} (no one here can answer the host's prompt)",
                        decision.reason
                    ),
                    false,
                    None,
                );
                let row =
                    Row::request(Outcome::Blocked, start).answer(Some(ApprovalAnswer::NoAnswer));
                // A refusal stands whether or not it could be recorded.
                let _ = self.write(&snapshot, &decision, row);
                (text, true, Outcome::Blocked, None, None)
            }
            Approval::Refuse {
                text,
                answer,
                note,
                log,
                recorded,
                approval_id,
            } => {
                if !recorded {
                    self.record_refusal(&snapshot, &decision, start, answer, note, &approval_id);
                }
                (text, true, Outcome::Blocked, log, approval_id)
            }
            Approval::Wait { text, id, log } => (text, true, Outcome::Waiting, Some(log), Some(id)),
        };
        let content = match self.review_notice.take() {
            Some(n) => format!("{content}\n{n}"),
            None => content,
        };
        self.stats.count(outcome);
        ToolResult {
            call_id: snapshot.id.clone(),
            content,
            is_error,
            outcome,
            decision,
            approval: log,
            approval_id,
        }
    }

    /// Decides one call that the host executes: the same snapshot,
    /// decision, approval and record as [`Gate::submit`], then the verdict
    /// is handed back instead of running anything. The request row says
    /// `passed` for a call handed over; how it ends is the host's to know.
    ///
    /// It cannot fail: every problem (a store that cannot record, an
    /// approver that breaks) is a [`Verdict::Refuse`].
    pub fn pass(&mut self, call: &Call) -> Passage {
        self.pass_rewritten(call, None)
    }

    /// [`Gate::pass`] for a host that will run a call that runs in another
    /// form than the one decided (a shell command wrapped to run under
    /// `toolgate sandbox`): `rewritten` is recorded in the row of a call
    /// handed over to run, beside the original, whose digest the decision
    /// and any approval stay bound to.
    pub fn pass_rewritten(&mut self, call: &Call, rewritten: Option<&str>) -> Passage {
        let start = Instant::now();
        let snapshot = call.clone();
        let digest = snapshot.digest();
        let decision = self.decide(&snapshot, &digest);
        // The host runs the call after its row is written: a row that
        // cannot be written refuses it then.
        let approval = self.settle(&snapshot, &decision, start, false);
        let (verdict, message, log, approval_id, outcome) = match approval {
            Approval::Go {
                answer,
                note,
                log,
                queued,
                picked_up,
            } => {
                let id = queued.as_ref().map(|p| p.id.clone());
                let message = match &queued {
                    Some(p) => texts::approved_text(
                        &decision.reason,
                        p.answered_by.as_deref(),
                        p.answer == Some(toolgate_store::Answer::Session),
                        Some(&p.id),
                    ),
                    None if answer.is_some() => texts::approved_text(
                        &decision.reason,
                        None,
                        answer == Some(ApprovalAnswer::Session),
                        None,
                    ),
                    None => texts::reason_text(&decision.reason),
                };
                let note = match (note, rewritten) {
                    (n, None) => n,
                    (None, Some(r)) => Some(format!("runs as: {r}")),
                    (Some(n), Some(r)) => Some(format!("{n}\nruns as: {r}")),
                };
                match self.finish_run(
                    &snapshot,
                    &decision,
                    start,
                    answer,
                    note,
                    queued,
                    picked_up,
                    Outcome::Passed,
                ) {
                    Ok(()) => (Verdict::Run, message, log, id, Outcome::Passed),
                    Err(text) => (Verdict::Refuse, text.to_string(), log, id, Outcome::Blocked),
                }
            }
            Approval::Host => {
                // The host asks its person about the rewritten call: if they
                // approve, that is what runs.
                let row = Row::request(Outcome::Passed, start)
                    .note(rewritten.map(|r| format!("runs as: {r}")));
                match self.write(&snapshot, &decision, row) {
                    Ok(()) => (
                        Verdict::AskHost,
                        texts::reason_text(&decision.reason),
                        None,
                        None,
                        Outcome::Passed,
                    ),
                    Err(text) => (
                        Verdict::Refuse,
                        text.to_string(),
                        None,
                        None,
                        Outcome::Blocked,
                    ),
                }
            }
            Approval::Refuse {
                text,
                answer,
                note,
                log,
                recorded,
                approval_id,
            } => {
                if !recorded {
                    self.record_refusal(&snapshot, &decision, start, answer, note, &approval_id);
                }
                (Verdict::Refuse, text, log, approval_id, Outcome::Blocked)
            }
            Approval::Wait { text, id, log } => {
                (Verdict::Wait, text, Some(log), Some(id), Outcome::Waiting)
            }
        };
        let message = match self.review_notice.take() {
            Some(n) => format!("{message}\n{n}"),
            None => message,
        };
        self.stats.count(outcome);
        Passage {
            call_id: snapshot.id.clone(),
            verdict,
            message,
            decision,
            approval: log,
            approval_id,
        }
    }

    /// The decision for a snapshot: the host's blocked tools first, then
    /// the policy with this session's grants and the modes.
    fn decide(&mut self, snapshot: &Call, digest: &str) -> Decision {
        self.stats.requests += 1;
        self.review = None;
        self.review_notice = None;
        if self.blocked.contains(&snapshot.tool) {
            return blocked_by_host(snapshot, self.mode.unwrap_or(self.policy.mode()), digest);
        }
        let decision =
            self.decide_with(snapshot, digest, self.grants.as_deref().unwrap_or_default());
        let decision = if decision.decision != Effect::Ask || self.grants.is_some() {
            decision
        } else {
            self.load_grants();
            match self.grants.as_deref() {
                Some(grants) if !grants.is_empty() => self.decide_with(snapshot, digest, grants),
                _ => decision,
            }
        };
        let decision = self.self_written(snapshot, decision);
        self.sandbox_held(snapshot, decision)
    }

    fn decide_with(&self, snapshot: &Call, digest: &str, grants: &[String]) -> Decision {
        let ctx = Context {
            mode: self.mode,
            client_mode: self.client_mode,
            grants,
            trace: false,
        };
        self.policy
            .decide_in(snapshot, &ctx)
            .with_digest(digest.to_string())
    }

    /// Runs the snapshot, after checking it is still the call that was
    /// decided.
    fn execute(&self, snapshot: &Call, digest: &str) -> (String, bool, Outcome) {
        if snapshot.digest() != digest {
            return (
                texts::refusal_text("the call changed after it was decided", None),
                true,
                Outcome::Blocked,
            );
        }
        let Some(exec) = self.executors.get(&snapshot.tool) else {
            return (texts::no_tool_text(&snapshot.tool), true, Outcome::Failed);
        };
        match catch_unwind(AssertUnwindSafe(|| exec.execute(snapshot))) {
            Ok(ToolOutput { content, is_error }) => {
                let o = if is_error {
                    Outcome::Failed
                } else {
                    Outcome::Executed
                };
                (content, is_error, o)
            }
            Err(_) => (texts::crashed_text(&snapshot.tool), true, Outcome::Failed),
        }
    }
}

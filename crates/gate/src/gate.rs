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
}

impl Default for GateOptions {
    fn default() -> Self {
        GateOptions {
            session: new_session_id(),
            store: None,
            store_error: None,
            mode: None,
            client_mode: None,
            blocked_tools: Vec::new(),
            who: "toolgate".into(),
            server: None,
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
    ) -> Result<Gate, GateError> {
        Ok(Gate {
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
        })
    }

    /// A gate whose approver queues every ask (requires a store).
    pub fn queued(policy: impl Into<Arc<Policy>>, opts: GateOptions) -> Result<Gate, GateError> {
        if opts.store.is_none() {
            return Err(GateError::Config(
                "the queue approver needs the state store to keep pending approvals".into(),
            ));
        }
        Gate::new(policy, Box::new(QueueApprover), opts)
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
                    self.warnings.push(text);
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
                    Err(text) => (Verdict::Refuse, text, log, id, Outcome::Blocked),
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
                    Err(text) => (Verdict::Refuse, text, None, None, Outcome::Blocked),
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
        if self.blocked.contains(&snapshot.tool) {
            return blocked_by_host(snapshot, self.mode.unwrap_or(self.policy.mode()), digest);
        }
        let decision =
            self.decide_with(snapshot, digest, self.grants.as_deref().unwrap_or_default());
        if decision.decision != Effect::Ask || self.grants.is_some() {
            return decision;
        }
        self.load_grants();
        match self.grants.as_deref() {
            Some(grants) if !grants.is_empty() => self.decide_with(snapshot, digest, grants),
            _ => decision,
        }
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

    /// The session's grants, read from the store on first use. Grants only
    /// ever lift an ask, so deciding without them when they cannot be read
    /// is the safe side.
    fn load_grants(&mut self) {
        if self.grants.is_none() {
            let grants = match self.store.as_ref().map(|s| s.grants(&self.session)) {
                Some(Ok(grants)) => grants.into_iter().map(|g| g.rule).collect(),
                Some(Err(e)) => {
                    self.warnings
                        .push(format!("session grants cannot be read ({e})"));
                    Vec::new()
                }
                None => Vec::new(),
            };
            self.grants = Some(grants);
        }
    }

    /// What the decision, the approver and the queue make of a call. Rows
    /// for waiting and declined-in-queue calls are written here; the
    /// others are written by the caller once it knows the outcome.
    fn settle(
        &mut self,
        snapshot: &Call,
        decision: &Decision,
        start: Instant,
        preflight: bool,
    ) -> Approval {
        if let Err(problem) = self.ledger_ready(preflight) {
            return Approval::Refuse {
                text: texts::unrecorded_text(&decision.reason, &problem),
                answer: None,
                note: None,
                log: None,
                recorded: true,
                approval_id: None,
            };
        }
        match decision.decision {
            Effect::Allow => Approval::Go {
                answer: None,
                note: None,
                log: None,
                queued: None,
                picked_up: false,
            },
            Effect::Deny => Approval::Refuse {
                text: texts::refusal(&decision.reason, decision.hard, None),
                answer: None,
                note: None,
                log: None,
                recorded: false,
                approval_id: None,
            },
            Effect::Ask => {
                self.stats.prompts += 1;
                self.ask(snapshot, decision, start)
            }
        }
    }

    /// The approver's turn (after looking for an approval a person gave
    /// earlier for the same call).
    fn ask(&mut self, snapshot: &Call, decision: &Decision, start: Instant) -> Approval {
        match queue::approved_earlier(self, snapshot) {
            Ok(Some(earlier)) => return self.pick_up(decision, earlier),
            Ok(None) => {}
            Err(problem) => {
                return Approval::Refuse {
                    text: texts::refusal(
                        &format!(
                            "{}; the approval queue cannot be read ({problem})",
                            decision.reason
                        ),
                        false,
                        None,
                    ),
                    answer: None,
                    note: None,
                    log: None,
                    recorded: false,
                    approval_id: None,
                };
            }
        }
        let digest = decision.digest.clone().unwrap_or_else(|| snapshot.digest());
        let mut req = ApprovalRequest {
            call: snapshot.clone(),
            digest,
            reason: decision.reason.clone(),
            rule: decision.rule.clone(),
            remember: decision.remember,
            session: self.session.clone(),
        };
        let question = req.question();
        let approver = &mut self.approver;
        let answer = catch_unwind(AssertUnwindSafe(|| approver.ask(&mut req)));
        let log = |answer: ApprovalAnswer, note: Option<String>| ApprovalLog {
            question: question.clone(),
            answer: answer.as_str().into(),
            note,
        };
        let refuse =
            |what: String, answer: ApprovalAnswer, note: Option<String>| Approval::Refuse {
                text: texts::refusal(&what, false, note.as_deref()),
                answer: Some(answer),
                log: Some(log(answer, note.clone())),
                note,
                recorded: false,
                approval_id: None,
            };
        let no_answer = |what: String| {
            refuse(
                format!("{what} ({})", decision.reason),
                ApprovalAnswer::NoAnswer,
                None,
            )
        };
        match answer {
            Ok(Ok(Answer::Approve)) => Approval::Go {
                answer: Some(ApprovalAnswer::Approve),
                note: None,
                log: Some(log(ApprovalAnswer::Approve, None)),
                queued: None,
                picked_up: false,
            },
            Ok(Ok(Answer::Session)) => {
                // "This session" only where the rule allows it; elsewhere
                // it is a yes for this call alone.
                let recorded = if decision.remember {
                    self.grant(&decision.grant_rules);
                    ApprovalAnswer::Session
                } else {
                    ApprovalAnswer::Approve
                };
                Approval::Go {
                    answer: Some(recorded),
                    note: None,
                    log: Some(log(recorded, None)),
                    queued: None,
                    picked_up: false,
                }
            }
            Ok(Ok(Answer::Decline { note })) => Approval::Refuse {
                text: texts::declined_text(&decision.reason, None, None, note.as_deref()),
                answer: Some(ApprovalAnswer::Decline),
                log: Some(log(ApprovalAnswer::Decline, note.clone())),
                note,
                recorded: false,
                approval_id: None,
            },
            Ok(Ok(Answer::Unanswered)) => {
                let patience = self.approver.patience();
                match queue::enqueue(self, snapshot, decision, start) {
                    Err(problem) => refuse(
                        format!(
                            "{}; it needs a person's approval, but the approval queue failed ({problem})",
                            decision.reason
                        ),
                        ApprovalAnswer::NoAnswer,
                        None,
                    ),
                    Ok(None) => Approval::Refuse {
                        text: texts::waiting_text(&decision.reason, None),
                        answer: Some(ApprovalAnswer::Unanswered),
                        note: None,
                        log: Some(log(ApprovalAnswer::Unanswered, None)),
                        recorded: false,
                        approval_id: None,
                    },
                    Ok(Some(id)) => {
                        let waited = queue::await_answer(self, &id, patience);
                        self.after_wait(
                            decision,
                            id,
                            waited,
                            patience,
                            log(ApprovalAnswer::Unanswered, None),
                        )
                    }
                }
            }
            Ok(Ok(Answer::Host)) => Approval::Host,
            Ok(Ok(Answer::Unavailable { why })) => Approval::Refuse {
                text: texts::refusal(&format!("{}; {why}", decision.reason), false, None),
                answer: Some(ApprovalAnswer::NoAnswer),
                note: None,
                log: Some(log(ApprovalAnswer::NoAnswer, None)),
                recorded: false,
                approval_id: None,
            },
            Ok(Ok(Answer::Other(v))) => {
                no_answer(format!("the approver's answer `{v}` is not an approval"))
            }
            Ok(Err(e)) => no_answer(format!("the approver failed: {e}")),
            Err(_) => no_answer("the approver failed unexpectedly".to_string()),
        }
    }

    /// What became of a queued call after waiting for its answer.
    fn after_wait(
        &mut self,
        decision: &Decision,
        id: String,
        waited: Queued,
        patience: crate::approver::Patience,
        log: ApprovalLog,
    ) -> Approval {
        let refuse_recorded = |text: String| Approval::Refuse {
            text,
            answer: None,
            note: None,
            log: None,
            recorded: true,
            approval_id: Some(id.clone()),
        };
        match waited {
            Queued::Approved(claimed) => {
                self.take_session_grant(&claimed, decision);
                Approval::Go {
                    answer: claimed.answer.map(ApprovalAnswer::from),
                    note: claimed.note.clone(),
                    log: Some(ApprovalLog {
                        question: log.question,
                        answer: claimed
                            .answer
                            .map(|a| a.to_string())
                            .unwrap_or_else(|| "approve".into()),
                        note: claimed.note.clone(),
                    }),
                    queued: Some(Box::new(claimed)),
                    picked_up: false,
                }
            }
            Queued::Declined(p) => {
                // The store wrote the decline's resolution row.
                let text = texts::declined_text(
                    &decision.reason,
                    p.answered_by.as_deref(),
                    Some(&p.id),
                    p.note.as_deref(),
                );
                Approval::Refuse {
                    text,
                    answer: Some(ApprovalAnswer::Decline),
                    note: p.note.clone(),
                    log: Some(ApprovalLog {
                        question: log.question,
                        answer: "decline".into(),
                        note: p.note.clone(),
                    }),
                    recorded: true,
                    approval_id: Some(p.id),
                }
            }
            Queued::Pending if patience.wait.is_zero() => Approval::Wait {
                text: texts::waiting_text(&decision.reason, Some(&id)),
                id,
                log,
            },
            Queued::Pending => Approval::Wait {
                text: texts::still_pending_text(&decision.reason, &id, patience.wait),
                id,
                log,
            },
            Queued::Taken => refuse_recorded(texts::used_elsewhere_text(&decision.reason, &id)),
            Queued::Expired => refuse_recorded(texts::refusal(
                &format!(
                    "{}; its approval `{id}` expired: no one answered within the approval TTL",
                    decision.reason
                ),
                false,
                None,
            )),
            Queued::Gone => refuse_recorded(texts::refusal(
                &format!(
                    "{}; its pending approval `{id}` disappeared from the queue",
                    decision.reason
                ),
                false,
                None,
            )),
            Queued::Failed(problem) => refuse_recorded(texts::refusal(
                &format!(
                    "{}; the approval queue failed while waiting for `{id}` ({problem})",
                    decision.reason
                ),
                false,
                None,
            )),
        }
    }

    /// Uses an approval a person gave after an earlier identical call
    /// stopped waiting. The approval's resolution row is about that
    /// earlier call, which was told it was refused: it says `blocked`.
    /// This call's own row links to the approval.
    fn pick_up(&mut self, decision: &Decision, earlier: Pending) -> Approval {
        match queue::claim(self, &earlier.id) {
            Ok(Some(claimed)) => {
                self.take_session_grant(&claimed, decision);
                if let Some(store) = &self.store
                    && let Err(e) = store.finish(&claimed.id, toolgate_store::Outcome::Blocked, 0)
                {
                    self.warnings
                        .push(format!("the approval's resolution was not recorded ({e})"));
                }
                Approval::Go {
                    answer: claimed.answer.map(ApprovalAnswer::from),
                    note: claimed.note.clone(),
                    log: Some(ApprovalLog {
                        question: format!("{} (call {})", earlier.tool, earlier.call_id),
                        answer: claimed
                            .answer
                            .map(|a| a.to_string())
                            .unwrap_or_else(|| "approve".into()),
                        note: claimed.note.clone(),
                    }),
                    queued: Some(Box::new(claimed)),
                    picked_up: true,
                }
            }
            Ok(None) => Approval::Refuse {
                text: texts::used_elsewhere_text(&decision.reason, &earlier.id),
                answer: None,
                note: None,
                log: None,
                recorded: false,
                approval_id: Some(earlier.id),
            },
            Err(problem) => Approval::Refuse {
                text: texts::refusal(
                    &format!(
                        "{}; an approval for it (`{}`) could not be taken ({problem})",
                        decision.reason, earlier.id
                    ),
                    false,
                    None,
                ),
                answer: None,
                note: None,
                log: None,
                recorded: false,
                approval_id: Some(earlier.id),
            },
        }
    }

    /// Records a call that runs (or is handed over): its own request row,
    /// or, for a call that waited in the queue, the approval's resolution.
    #[allow(clippy::too_many_arguments)]
    fn finish_run(
        &mut self,
        snapshot: &Call,
        decision: &Decision,
        start: Instant,
        answer: Option<ApprovalAnswer>,
        note: Option<String>,
        queued: Option<Box<Pending>>,
        picked_up: bool,
        outcome: Outcome,
    ) -> Result<(), String> {
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
    fn record_refusal(
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
    fn write(&mut self, snapshot: &Call, decision: &Decision, row: Row) -> Result<(), String> {
        match record::append(self, snapshot, decision, row) {
            Ok(()) => Ok(()),
            Err(problem) => self.unrecorded(decision, problem),
        }
    }

    fn unrecorded(&mut self, decision: &Decision, problem: String) -> Result<(), String> {
        match self.policy.ledger() {
            Ledger::BestEffort => {
                self.warnings
                    .push(format!("the call was not recorded ({problem})"));
                Ok(())
            }
            Ledger::Required => Err(texts::unrecorded_text(&decision.reason, &problem)),
        }
    }

    /// Whether calls can be recorded before any of them runs: a store
    /// that could not be opened, or cannot take a write now, refuses every
    /// call unless the policy says `ledger = "best-effort"`.
    fn ledger_ready(&mut self, preflight: bool) -> Result<(), String> {
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
            Ledger::Required => Err(problem),
        }
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

    /// Runs a queued call once a person approved it: claims it (so it runs
    /// at most once, whoever else tries), checks the stored snapshot
    /// against its digest, decides it again (a deny now still wins), runs
    /// it and records the resolution.
    pub fn resume(&mut self, id: &str) -> Result<ToolResult, GateError> {
        let start = Instant::now();
        let store = self.store.as_ref().ok_or_else(|| {
            GateError::Config("resuming a queued call needs the state store".into())
        })?;
        let Some(pending) = store.claim_for_execution(id)? else {
            let status = store
                .approval(id)?
                .map(|p| p.status.to_string())
                .ok_or_else(|| GateError::UnknownApproval(id.to_string()))?;
            return Err(GateError::NotResumable {
                id: id.to_string(),
                status,
                what: "only an approved call that has not run yet can be executed".into(),
            });
        };
        let refuse = |this: &mut Gate,
                      why: String,
                      decision: Option<Decision>|
         -> Result<ToolResult, GateError> {
            if let Some(s) = &this.store {
                s.finish(
                    id,
                    toolgate_store::Outcome::Blocked,
                    record::elapsed_us(start),
                )?;
            }
            this.stats.count(Outcome::Blocked);
            Ok(ToolResult {
                call_id: pending.call_id.clone(),
                content: texts::refusal_text(&why, None),
                is_error: true,
                outcome: Outcome::Blocked,
                decision: decision
                    .unwrap_or_else(|| unreadable_decision(&pending.call_id, &pending.tool, &why)),
                approval: None,
                approval_id: Some(id.to_string()),
            })
        };
        let Some(snapshot) = queue::stored_call(&pending) else {
            return refuse(
                self,
                "the stored call no longer matches the digest that was approved".into(),
                None,
            );
        };
        let digest = snapshot.digest();
        let decision = self.decide(&snapshot, &digest);
        if decision.decision == Effect::Deny {
            let why = decision.reason.clone();
            return refuse(self, why, Some(decision));
        }
        self.take_session_grant(&pending, &decision);
        let (content, is_error, outcome) = self.execute(&snapshot, &digest);
        self.stats.count(outcome);
        if let Some(s) = &self.store {
            s.finish(id, outcome.store(), record::elapsed_us(start))?;
        }
        Ok(ToolResult {
            call_id: snapshot.id.clone(),
            content,
            is_error,
            outcome,
            decision,
            approval: Some(ApprovalLog {
                question: format!("{} (call {})", snapshot.tool, snapshot.id),
                answer: pending
                    .answer
                    .map(|a| a.to_string())
                    .unwrap_or_else(|| "approve".into()),
                note: pending.note.clone(),
            }),
            approval_id: Some(id.to_string()),
        })
    }

    /// The one rule for "this session" answers, whichever way the answer
    /// arrives (the approver, the queue while waiting, an approval picked
    /// up on retry, `approvals approve` + resume): when the call's decision
    /// allows remembering, every rule that asked for it
    /// (`Decision::grant_rules`) is granted for the session, so that the
    /// same call does not ask again; otherwise the answer counts once.
    fn take_session_grant(&mut self, approval: &Pending, decision: &Decision) {
        if approval.answer != Some(toolgate_store::Answer::Session) {
            return;
        }
        if !decision.remember && decision.decision == Effect::Ask {
            return;
        }
        let mut rules = decision.grant_rules.clone();
        // The store granted the rule that asked when the answer was given.
        if let Some(rule) = &approval.rule
            && !rules.contains(rule)
            && approval.remember_allowed
        {
            rules.push(rule.clone());
        }
        self.grant(&rules);
    }

    fn grant(&mut self, rules: &[String]) {
        self.load_grants();
        let grants = self.grants.get_or_insert_with(Vec::new);
        for r in rules {
            if !grants.contains(r) {
                grants.push(r.clone());
            }
            if let Some(s) = &self.store
                && let Err(e) = s.grant(&self.session, r)
            {
                self.warnings
                    .push(format!("cannot record the session grant: {e}"));
            }
        }
    }

    /// Refuses a call that could not even be read (its arguments are not a
    /// JSON object), recording it like any other request: the ledger and
    /// [`Gate::stats`] count every call a model proposed, readable or not.
    ///
    /// `raw` is the arguments' text exactly as the model sent it.
    pub fn reject_unreadable(
        &mut self,
        call_id: &str,
        tool: &str,
        raw: &str,
        problem: &str,
    ) -> ToolResult {
        let start = Instant::now();
        let mut input = serde_json::Map::new();
        input.insert(
            "unreadable_arguments".into(),
            serde_json::Value::String(raw.to_string()),
        );
        let snapshot = Call {
            id: call_id.to_string(),
            tool: tool.to_string(),
            input,
            client: toolgate_policy::Client::Toolgate,
            cwd: None,
        };
        let digest = snapshot.digest();
        self.stats.requests += 1;
        self.stats.count(Outcome::Blocked);
        let mut decision = unreadable_decision(call_id, tool, problem);
        decision.rule = Some(INVALID_ARGUMENTS_RULE.into());
        decision.digest = Some(digest);
        // The ledger keeps what the model sent, byte for byte.
        let row = Row::request(Outcome::Blocked, start).raw_input(raw.to_string());
        let _ = self.write(&snapshot, &decision, row);
        ToolResult {
            call_id: call_id.to_string(),
            content: texts::refusal_text(&decision.reason, None),
            is_error: true,
            outcome: Outcome::Blocked,
            decision,
            approval: None,
            approval_id: None,
        }
    }
}

fn blocked_by_host(call: &Call, mode: Mode, digest: &str) -> Decision {
    let reason = format!("the host blocked the tool `{}`", call.tool);
    Decision {
        id: call.id.clone(),
        decision: Effect::Deny,
        reason,
        rule: Some(rule_ids::HOST_BLOCKED_TOOL.into()),
        hard: false,
        tool: call.tool.clone(),
        client: call.client,
        mode,
        digest: Some(digest.to_string()),
        remember: false,
        grant_rules: Vec::new(),
        actions: Vec::new(),
    }
}

fn unreadable_decision(id: &str, tool: &str, why: &str) -> Decision {
    Decision {
        id: id.to_string(),
        decision: Effect::Deny,
        reason: why.to_string(),
        rule: Some(rule_ids::INVALID_SNAPSHOT.into()),
        hard: false,
        tool: tool.to_string(),
        client: toolgate_policy::Client::Toolgate,
        mode: Mode::Default,
        digest: None,
        remember: false,
        grant_rules: Vec::new(),
        actions: Vec::new(),
    }
}

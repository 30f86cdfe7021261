//! `Gate::submit`: the single execution entry.

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use toolgate_policy::{Call, Context, Decision, Effect, Mode, Policy};
use toolgate_store::{ApprovalAnswer, PendingNew, Record, Store};
use toolgate_tools::Workspace;

use crate::approver::{Answer, ApprovalRequest, Approver, QueueApprover};
use crate::builtin::{self, BuiltinOptions};
use crate::error::GateError;
use crate::executor::{Executor, ToolOutput};
use crate::result::{ApprovalLog, Outcome, ToolResult, refusal_text, waiting_text};

/// How a gate is set up.
pub struct GateOptions {
    /// The session calls belong to (grants and ledger rows are per session).
    pub session: String,
    /// Where the ledger, the queue and the grants live. Without a store
    /// nothing is recorded and no call can wait.
    pub store: Option<Store>,
    /// Replaces the policy's mode.
    pub mode: Option<Mode>,
    /// Tools the host refuses whatever the policy says (`--block TOOL`).
    pub blocked_tools: Vec<String>,
    /// Who answers approvals given later through [`Gate::resume`] (for the
    /// record).
    pub who: String,
}

impl Default for GateOptions {
    fn default() -> Self {
        GateOptions {
            session: new_session_id(),
            store: None,
            mode: None,
            blocked_tools: Vec::new(),
            who: "toolgate".into(),
        }
    }
}

/// The rule id of a call refused because its arguments could not be read.
pub const INVALID_ARGUMENTS_RULE: &str = "invalid-arguments";

/// A fresh session id: time and process, unique enough to tell runs apart.
pub fn new_session_id() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    format!(
        "s-{:x}-{:x}-{}",
        nanos,
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// What this gate has seen (DESIGN §2: counts kept per session).
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
}

impl Stats {
    fn count(&mut self, o: Outcome) {
        match o {
            Outcome::Executed => self.executions += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::Blocked => self.blocked += 1,
            Outcome::Waiting => self.waiting += 1,
        }
    }
}

/// The gate: decides, asks, executes and records every call.
pub struct Gate {
    policy: Arc<Policy>,
    approver: Box<dyn Approver>,
    store: Option<Store>,
    executors: HashMap<String, Box<dyn Executor>>,
    session: String,
    mode: Option<Mode>,
    blocked: HashSet<String>,
    grants: Vec<String>,
    who: String,
    stats: Stats,
    warnings: Vec<String>,
}

impl Gate {
    /// A gate over a policy. A queue approver needs a store.
    pub fn new(
        policy: Policy,
        approver: Box<dyn Approver>,
        opts: GateOptions,
    ) -> Result<Gate, GateError> {
        let grants = match &opts.store {
            Some(s) => s
                .grants(&opts.session)?
                .into_iter()
                .map(|g| g.rule)
                .collect(),
            None => Vec::new(),
        };
        Ok(Gate {
            policy: Arc::new(policy),
            approver,
            store: opts.store,
            executors: HashMap::new(),
            session: opts.session,
            mode: opts.mode,
            blocked: opts.blocked_tools.into_iter().collect(),
            grants,
            who: opts.who,
            stats: Stats::default(),
            warnings: Vec::new(),
        })
    }

    /// A gate whose approver queues every ask (requires a store).
    pub fn queued(policy: Policy, opts: GateOptions) -> Result<Gate, GateError> {
        if opts.store.is_none() {
            return Err(GateError::Config(
                "the queue approver needs the state store to keep pending approvals".into(),
            ));
        }
        Gate::new(policy, Box::new(QueueApprover), opts)
    }

    /// Registers toolgate's own five tools, confined to `ws`.
    pub fn with_builtin_tools(self, ws: Workspace) -> Gate {
        self.with_builtin_tools_opts(ws, BuiltinOptions::default())
    }

    /// Registers toolgate's own five tools with settings.
    ///
    /// `run_shell` runs inside the policy's OS boundary
    /// (`toolgate_sandbox::Profile::from_policy`) unless `opts.sandbox`
    /// names another.
    pub fn with_builtin_tools_opts(mut self, ws: Workspace, mut opts: BuiltinOptions) -> Gate {
        if opts.sandbox.is_none() {
            opts.sandbox = Some(Arc::new(toolgate_sandbox::Profile::from_policy(
                self.policy.clone(),
            )));
        }
        for (name, exec) in builtin::executors(ws, opts) {
            self.executors.insert(name.to_string(), exec);
        }
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

    /// The session id.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// The store, when there is one.
    pub fn store(&self) -> Option<&Store> {
        self.store.as_ref()
    }

    /// Counts of this gate's calls.
    pub fn stats(&self) -> Stats {
        self.stats
    }

    /// Problems that did not stop a call but should be shown (the ledger
    /// could not be written); drained by the caller.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Submits one call and returns its one result.
    pub fn submit(&mut self, call: &Call) -> ToolResult {
        let start = Instant::now();
        // INVARIANT: from here on only `snapshot` is used; the caller's
        // object is never looked at again.
        let snapshot = call.clone();
        let digest = snapshot.digest();
        self.stats.requests += 1;

        let decision = if self.blocked.contains(&snapshot.tool) {
            blocked_by_host(&snapshot, self.mode.unwrap_or(self.policy.mode()), &digest)
        } else {
            let ctx = Context {
                mode: self.mode,
                grants: &self.grants,
                ..Context::default()
            };
            self.policy
                .decide_in(&snapshot, &ctx)
                .with_digest(digest.clone())
        };

        let mut approval: Option<ApprovalLog> = None;
        let mut approval_answer: Option<ApprovalAnswer> = None;
        let mut note: Option<String> = None;
        let run = match decision.decision {
            Effect::Allow => Ok(()),
            Effect::Deny => Err(refusal_text(&decision.reason, None)),
            Effect::Ask => {
                self.stats.prompts += 1;
                let mut req = ApprovalRequest {
                    call: snapshot.clone(),
                    digest: digest.clone(),
                    reason: decision.reason.clone(),
                    rule: decision.rule.clone(),
                    remember: decision.remember,
                    session: self.session.clone(),
                };
                let question = req.question();
                let approver = &mut self.approver;
                let answer = catch_unwind(AssertUnwindSafe(|| approver.ask(&mut req)));
                let why = |what: String| {
                    Err(refusal_text(&format!("{what} ({})", decision.reason), None))
                };
                let (recorded, result) = match answer {
                    Ok(Ok(Answer::Approve)) => (ApprovalAnswer::Approve, Ok(())),
                    // "This session" only where the rule allows it;
                    // elsewhere it is a yes for this call alone.
                    Ok(Ok(Answer::Session)) if decision.remember => {
                        self.grant(&decision.grant_rules);
                        (ApprovalAnswer::Session, Ok(()))
                    }
                    Ok(Ok(Answer::Session)) => (ApprovalAnswer::Approve, Ok(())),
                    Ok(Ok(Answer::Decline { note: n })) => {
                        note = n;
                        let text = refusal_text(
                            &format!("the user declined: {}", decision.reason),
                            note.as_deref(),
                        );
                        (ApprovalAnswer::Decline, Err(text))
                    }
                    Ok(Ok(Answer::Unanswered)) => return self.wait(snapshot, decision, start),
                    Ok(Ok(Answer::Other(v))) => (
                        ApprovalAnswer::NoAnswer,
                        why(format!("the approver's answer `{v}` is not an approval")),
                    ),
                    Ok(Err(e)) => (
                        ApprovalAnswer::NoAnswer,
                        why(format!("the approver failed: {e}")),
                    ),
                    Err(_) => (
                        ApprovalAnswer::NoAnswer,
                        why("the approver failed unexpectedly".to_string()),
                    ),
                };
                approval_answer = Some(recorded);
                approval = Some(ApprovalLog {
                    question,
                    answer: recorded.as_str().into(),
                    note: note.clone(),
                });
                result
            }
        };

        let (content, is_error, outcome) = match run {
            Err(text) => (text, true, Outcome::Blocked),
            Ok(()) => self.execute(&snapshot, &digest),
        };
        self.stats.count(outcome);
        let result = ToolResult {
            call_id: snapshot.id.clone(),
            content,
            is_error,
            outcome,
            decision,
            approval,
            approval_id: None,
        };
        self.record(&snapshot, &result, approval_answer, note, start);
        result
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
        let result = ToolResult {
            call_id: call_id.to_string(),
            content: refusal_text(&decision.reason, None),
            is_error: true,
            outcome: Outcome::Blocked,
            decision,
            approval: None,
            approval_id: None,
        };
        if let Some(store) = &self.store {
            let digest = result.decision.digest.clone().unwrap_or_default();
            let mut record = self.record_of(
                &snapshot,
                &result.decision,
                None,
                None,
                toolgate_store::Outcome::Blocked,
                start,
                &digest,
            );
            // The ledger keeps what the model sent, byte for byte.
            record.input = raw.to_string();
            if let Err(e) = store.append(&record) {
                self.warnings.push(format!("cannot write the ledger: {e}"));
            }
        }
        result
    }

    /// Runs the snapshot, after checking it is still the call that was
    /// decided.
    fn execute(&self, snapshot: &Call, digest: &str) -> (String, bool, Outcome) {
        if snapshot.digest() != digest {
            return (
                refusal_text("the call changed after it was decided", None),
                true,
                Outcome::Blocked,
            );
        }
        let Some(exec) = self.executors.get(&snapshot.tool) else {
            return (
                format!(
                    "the call was allowed, but no tool named `{}` is available here",
                    snapshot.tool
                ),
                true,
                Outcome::Failed,
            );
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
            Err(_) => (
                format!("the tool `{}` crashed while running", snapshot.tool),
                true,
                Outcome::Failed,
            ),
        }
    }

    /// Queues an unanswered ask.
    fn wait(&mut self, snapshot: Call, decision: Decision, start: Instant) -> ToolResult {
        let question = ApprovalRequest {
            call: snapshot.clone(),
            digest: decision.digest.clone().unwrap_or_default(),
            reason: decision.reason.clone(),
            rule: decision.rule.clone(),
            remember: decision.remember,
            session: self.session.clone(),
        }
        .question();
        let (content, outcome, approval_id) = match &self.store {
            // No queue to wait in: an ask nobody answers is not an approval.
            None => (waiting_text(&decision.reason, None), Outcome::Blocked, None),
            Some(store) => {
                let digest = decision.digest.clone().unwrap_or_else(|| snapshot.digest());
                let pending = PendingNew {
                    session: self.session.clone(),
                    client: client_tag(&snapshot),
                    call_id: snapshot.id.clone(),
                    tool: snapshot.tool.clone(),
                    snapshot_json: snapshot.canonical_json(),
                    digest: digest.clone(),
                    reason: decision.reason.clone(),
                    rule: decision.rule.clone(),
                    remember_allowed: decision.remember,
                };
                let record = self.record_of(
                    &snapshot,
                    &decision,
                    Some(ApprovalAnswer::Unanswered),
                    None,
                    toolgate_store::Outcome::Waiting,
                    start,
                    &digest,
                );
                match store.append_waiting(&record, &pending) {
                    Ok(q) => (
                        waiting_text(&decision.reason, Some(&q.id)),
                        Outcome::Waiting,
                        Some(q.id),
                    ),
                    Err(e) => {
                        self.warnings
                            .push(format!("cannot queue the approval: {e}"));
                        let why = format!(
                            "{}, and the approval could not be queued ({e})",
                            decision.reason
                        );
                        (refusal_text(&why, None), Outcome::Blocked, None)
                    }
                }
            }
        };
        self.stats.count(outcome);
        ToolResult {
            call_id: snapshot.id.clone(),
            content,
            is_error: true,
            outcome,
            decision,
            approval: Some(ApprovalLog {
                question,
                answer: "unanswered".into(),
                note: None,
            }),
            approval_id,
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
        let parsed = serde_json::from_str::<serde_json::Value>(&pending.snapshot_json)
            .ok()
            .and_then(|v| Call::from_value(&v).ok());
        let refuse = |this: &mut Gate,
                      why: String,
                      decision: Option<Decision>|
         -> Result<ToolResult, GateError> {
            if let Some(s) = &this.store {
                s.finish(id, toolgate_store::Outcome::Blocked, elapsed_us(start))?;
            }
            this.stats.count(Outcome::Blocked);
            Ok(ToolResult {
                call_id: pending.call_id.clone(),
                content: refusal_text(&why, None),
                is_error: true,
                outcome: Outcome::Blocked,
                decision: decision
                    .unwrap_or_else(|| unreadable_decision(&pending.call_id, &pending.tool, &why)),
                approval: None,
                approval_id: Some(id.to_string()),
            })
        };
        let Some(snapshot) = parsed else {
            return refuse(self, "the stored call cannot be read".into(), None);
        };
        let digest = snapshot.digest();
        if digest != pending.digest {
            return refuse(
                self,
                "the stored call no longer matches the digest that was approved".into(),
                None,
            );
        }
        if let Some(a) = pending.answer
            && a == toolgate_store::Answer::Session
            && let Some(rule) = &pending.rule
            && !self.grants.contains(rule)
        {
            self.grants.push(rule.clone());
        }
        let ctx = Context {
            mode: self.mode,
            grants: &self.grants,
            ..Context::default()
        };
        let decision = self
            .policy
            .decide_in(&snapshot, &ctx)
            .with_digest(digest.clone());
        if decision.decision == Effect::Deny {
            let why = decision.reason.clone();
            return refuse(self, why, Some(decision));
        }
        let (content, is_error, outcome) = self.execute(&snapshot, &digest);
        self.stats.count(outcome);
        if let Some(s) = &self.store {
            s.finish(id, outcome.store(), elapsed_us(start))?;
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

    /// Who answers through [`Gate::resume`], for the record.
    pub fn who(&self) -> &str {
        &self.who
    }

    fn grant(&mut self, rules: &[String]) {
        for r in rules {
            if !self.grants.contains(r) {
                self.grants.push(r.clone());
            }
            if let Some(s) = &self.store
                && let Err(e) = s.grant(&self.session, r)
            {
                self.warnings
                    .push(format!("cannot record the session grant: {e}"));
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn record_of(
        &self,
        snapshot: &Call,
        decision: &Decision,
        approval: Option<ApprovalAnswer>,
        note: Option<String>,
        outcome: toolgate_store::Outcome,
        start: Instant,
        digest: &str,
    ) -> Record {
        Record {
            session: self.session.clone(),
            client: client_tag(snapshot),
            call_id: snapshot.id.clone(),
            tool: snapshot.tool.clone(),
            digest: digest.to_string(),
            input: serde_json::Value::Object(snapshot.input.clone()).to_string(),
            decision: match decision.decision {
                Effect::Allow => toolgate_store::Decision::Allow,
                Effect::Ask => toolgate_store::Decision::Ask,
                Effect::Deny => toolgate_store::Decision::Deny,
            },
            rule: decision.rule.clone(),
            hard: decision.hard,
            reason: decision.reason.clone(),
            approval,
            note,
            outcome,
            duration_us: elapsed_us(start),
            approval_id: None,
        }
    }

    fn record(
        &mut self,
        snapshot: &Call,
        result: &ToolResult,
        approval: Option<ApprovalAnswer>,
        note: Option<String>,
        start: Instant,
    ) {
        let Some(store) = &self.store else { return };
        let digest = result
            .decision
            .digest
            .clone()
            .unwrap_or_else(|| snapshot.digest());
        let record = self.record_of(
            snapshot,
            &result.decision,
            approval,
            note,
            result.outcome.store(),
            start,
            &digest,
        );
        if let Err(e) = store.append(&record) {
            self.warnings.push(format!("cannot write the ledger: {e}"));
        }
    }
}

fn client_tag(call: &Call) -> Option<String> {
    match call.client {
        toolgate_policy::Client::Toolgate => None,
        c => Some(c.as_str().to_string()),
    }
}

fn elapsed_us(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_micros()).unwrap_or(u64::MAX)
}

fn blocked_by_host(call: &Call, mode: Mode, digest: &str) -> Decision {
    let reason = format!("the host blocked the tool `{}`", call.tool);
    Decision {
        id: call.id.clone(),
        decision: Effect::Deny,
        reason,
        rule: Some("host:blocked-tool".into()),
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
        rule: Some("invalid-snapshot".into()),
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

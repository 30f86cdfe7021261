//! Until the gate's host-executes path (`Gate::pass`) lands: the same shape
//! over `Gate::submit`, one gate behind a lock. Deleted once it lands.

use std::sync::{Arc, Mutex};

use toolgate_gate::{
    Answer, ApprovalRequest, Approver, Executor, Gate, GateOptions, Outcome, ToolOutput,
};
use toolgate_policy::{Call, Decision, Policy};

/// The verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Run.
    Run,
    /// Refuse.
    Refuse,
    /// Wait.
    Wait,
    /// Ask the host.
    AskHost,
}

/// What the gate hands back.
pub struct Passage {
    /// The verdict.
    pub verdict: Verdict,
    /// The decision.
    pub decision: Decision,
    /// The model-facing text.
    pub message: String,
    /// The approval id.
    pub approval_id: Option<String>,
    /// Warnings.
    pub warnings: Vec<String>,
}

type Slot = Arc<Mutex<Option<Box<dyn Approver>>>>;

struct SlotApprover(Slot);

impl Approver for SlotApprover {
    fn ask(&mut self, req: &mut ApprovalRequest) -> Result<Answer, String> {
        let mut slot = self.0.lock().map_err(|_| "poisoned".to_string())?;
        match slot.as_mut() {
            Some(a) => a.ask(req),
            None => Ok(Answer::Decline { note: None }),
        }
    }
}

struct Pass;

impl Executor for Pass {
    fn execute(&self, _call: &Call) -> ToolOutput {
        ToolOutput {
            content: String::new(),
            is_error: false,
        }
    }
}

/// One gate for the stub.
pub struct StubGate {
    gate: Mutex<Gate>,
    slot: Slot,
}

impl StubGate {
    /// A gate over its own copy of the policy.
    pub fn new(policy: Policy, opts: GateOptions) -> Result<StubGate, String> {
        let slot: Slot = Arc::new(Mutex::new(None));
        let gate = Gate::new(policy, Box::new(SlotApprover(Arc::clone(&slot))), opts)
            .map_err(|e| e.to_string())?;
        Ok(StubGate {
            gate: Mutex::new(gate),
            slot,
        })
    }

    /// `Gate::pass`.
    pub fn pass(&self, call: &Call, approver: Box<dyn Approver>, blocked: bool) -> Passage {
        let mut gate = self.gate.lock().unwrap_or_else(|p| p.into_inner());
        if let Ok(mut s) = self.slot.lock() {
            *s = Some(approver);
        }
        let tool = call.tool.clone();
        if blocked {
            let reason = format!("the host blocked the tool `{tool}`");
            return Passage {
                verdict: Verdict::Refuse,
                message: toolgate_gate::refusal_text(&reason, None),
                decision: Decision {
                    id: call.id.clone(),
                    decision: toolgate_policy::Effect::Deny,
                    reason,
                    rule: Some("host:blocked-tool".into()),
                    hard: false,
                    tool: tool.clone(),
                    client: call.client,
                    mode: toolgate_policy::Mode::Default,
                    digest: None,
                    remember: false,
                    grant_rules: Vec::new(),
                    actions: Vec::new(),
                },
                approval_id: None,
                warnings: Vec::new(),
            };
        }
        gate.register(&tool, Box::new(Pass));
        let r = gate.submit(call);
        let verdict = match r.outcome {
            Outcome::Executed => Verdict::Run,
            Outcome::Waiting => Verdict::Wait,
            _ => Verdict::Refuse,
        };
        Passage {
            verdict,
            decision: r.decision,
            message: r.content,
            approval_id: r.approval_id,
            warnings: gate.take_warnings(),
        }
    }
}

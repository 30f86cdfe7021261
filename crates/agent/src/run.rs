//! The agent loop: ask the model, put each proposed call through the gate,
//! hand the results back, until the model answers without calling a tool or
//! a budget stops it.
//!
//! The loop keeps the invariants the APIs and the design both need:
//!
//! - every call of a turn gets exactly one result, in the order of the
//!   calls, before the model is asked again (a call the loop itself refuses
//!   included), so both wire formats stay well formed;
//! - refusal text goes back to the model as the result, so it can change
//!   its approach instead of retrying;
//! - nothing runs but through [`Gate::submit`]: arguments that are not a
//!   JSON object never become a `Call`, so they are refused here, and
//!   recorded in the gate's ledger when it has one;
//! - budgets (docs/approvals.md, "Budgets"): `max_calls` calls at most, and the run stops
//!   after 3 consecutive or 20 total refused calls.

use std::path::Path;

use toolgate_gate::{Gate, Outcome, ToolResult};
use toolgate_policy::{Call, Client};

use crate::model::{Conversation, Message, Model, ModelError, ToolCall, ToolDef, ToolReply};
use crate::tools::builtin_tools;

/// The rule id recorded for a call whose arguments are not a JSON object.
pub use toolgate_gate::INVALID_ARGUMENTS_RULE;

/// When the loop stops on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Tool calls allowed in the run (`--max-calls`); `None`: no limit.
    pub max_calls: Option<usize>,
    /// Refused calls in a row that stop the run (default 3).
    pub max_consecutive_refusals: usize,
    /// Refused calls in all that stop the run (default 20).
    pub max_refusals: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_calls: None,
            max_consecutive_refusals: 3,
            max_refusals: 20,
        }
    }
}

/// Why a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The model answered without calling a tool: its final answer.
    Answer(String),
    /// The model asked for more calls than `max_calls`.
    CallBudget {
        /// The budget.
        max_calls: usize,
    },
    /// Too many calls were refused.
    Refusals {
        /// True when the streak limit was hit, false for the total.
        consecutive: bool,
        /// The refusals counted (the streak or the total).
        count: usize,
        /// Why the last refused call was refused.
        last: String,
    },
}

impl Stop {
    /// True for a final answer; false when a budget stopped the run.
    pub fn is_answer(&self) -> bool {
        matches!(self, Stop::Answer(_))
    }

    /// What the user is told: the answer, or why a budget stopped the run.
    pub fn message(&self) -> String {
        match self {
            Stop::Answer(text) => text.clone(),
            Stop::CallBudget { max_calls } => format!(
                "the model asked for more than {max_calls} tool call{} (--max-calls); the calls beyond the budget were not executed",
                plural(*max_calls)
            ),
            Stop::Refusals {
                consecutive: true,
                count,
                last,
            } => format!(
                "{count} tool calls in a row were refused; the model keeps proposing calls that are not allowed. Last refusal: {last}"
            ),
            Stop::Refusals {
                consecutive: false,
                count,
                last,
            } => format!("{count} tool calls were refused in this session. Last refusal: {last}"),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// How the loop handled one call.
#[derive(Debug, Clone)]
pub enum Handling {
    /// Submitted to the gate; its result.
    Gate(Box<ToolResult>),
    /// The arguments are not a JSON object: refused by the loop, never a
    /// `Call`, never run.
    InvalidArguments {
        /// Why they could not be read.
        error: String,
    },
    /// Beyond `max_calls`: not submitted.
    OverBudget {
        /// The budget.
        max_calls: usize,
    },
    /// The run was already stopping when this call of the same turn came.
    AfterStop,
}

/// One call and what became of it.
#[derive(Debug, Clone)]
pub struct Step {
    /// The call's position in the run, from 1.
    pub number: usize,
    /// The call as the model proposed it.
    pub call: ToolCall,
    /// What went back to the model.
    pub reply: ToolReply,
    /// What became of it (`blocked` for every call the loop refused).
    pub outcome: Outcome,
    /// Who handled it, with the details.
    pub handling: Handling,
}

impl Step {
    /// True when the call counts as refused (blocked by the gate, or its
    /// arguments could not be read).
    pub fn is_refusal(&self) -> bool {
        matches!(
            self.handling,
            Handling::Gate(_) | Handling::InvalidArguments { .. }
        ) && self.outcome == Outcome::Blocked
    }
}

/// Sees the run as it happens (the CLI prints a trace, the demo its
/// report).
pub trait Observer {
    /// The model said something alongside its tool calls.
    fn text(&mut self, _text: &str) {}
    /// A call was handled.
    fn step(&mut self, _step: &Step) {}
    /// The gate could not record something (the ledger write failed).
    fn warning(&mut self, _message: &str) {}
}

/// An observer that sees nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl Observer for Quiet {}

/// How a run ended, with the whole conversation.
#[derive(Debug, Clone)]
pub struct Finish {
    /// Why it ended.
    pub stop: Stop,
    /// Everything said, the results included.
    pub conversation: Conversation,
    /// Calls handled (over-budget ones included).
    pub calls: usize,
    /// Calls refused.
    pub refusals: usize,
}

/// The loop over a gate.
pub struct Agent {
    gate: Gate,
    tools: Vec<ToolDef>,
    limits: Limits,
    system: Option<String>,
    warnings: Vec<String>,
    queue_wait: Option<std::time::Duration>,
}

/// The instructions a run starts with, naming the workspace when known.
pub fn default_system_prompt(workspace: Option<&Path>) -> String {
    let mut s = String::from(
        "You are an agent working in a workspace on the user's computer. You act only through the tools offered.",
    );
    if let Some(w) = workspace {
        s.push_str(&format!(
            " The workspace root is {}; relative paths resolve against it.",
            w.display()
        ));
    }
    s.push_str(
        " Every tool call passes a permission gate: it runs, waits for a person's approval, or is refused. \
A result that says \"The call was not executed\" says why the call did not run. Do not repeat a refused call: change your approach, or explain to the user what you need. \
When the task is done, answer with a short summary and no tool call.",
    );
    s
}

impl Agent {
    /// A loop that offers toolgate's own five tools, with the default
    /// limits and instructions naming the policy's first root.
    pub fn new(gate: Gate) -> Agent {
        let root = gate.policy().roots().first().cloned();
        Agent {
            gate,
            tools: builtin_tools(),
            limits: Limits::default(),
            system: Some(default_system_prompt(root.as_deref())),
            warnings: Vec::new(),
            queue_wait: None,
        }
    }

    /// Holds a call the gate queued (`--approver queue`) for up to `wait`
    /// until a person answers it, then resumes it ([`Gate::resume`]); a
    /// decline or an expiry is a refusal. Without this, a queued call ends
    /// at once as `waiting`.
    pub fn with_queue_wait(mut self, wait: std::time::Duration) -> Agent {
        self.queue_wait = Some(wait);
        self
    }

    /// Replaces the limits.
    pub fn with_limits(mut self, limits: Limits) -> Agent {
        self.limits = limits;
        self
    }

    /// Replaces the tools offered (the gate still decides every call).
    pub fn with_tools(mut self, tools: Vec<ToolDef>) -> Agent {
        self.tools = tools;
        self
    }

    /// Replaces the instructions (`None`: none).
    pub fn with_system(mut self, system: Option<String>) -> Agent {
        self.system = system;
        self
    }

    /// The gate (its stats, its store).
    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// The gate, to register tools or resume calls.
    pub fn gate_mut(&mut self) -> &mut Gate {
        &mut self.gate
    }

    /// Runs `task` to the end. An error means the model failed; a budget
    /// stop is a [`Finish`] whose [`Stop`] says so.
    pub fn run(
        &mut self,
        model: &mut dyn Model,
        task: &str,
        observer: &mut dyn Observer,
    ) -> Result<Finish, ModelError> {
        let mut conversation = Conversation {
            system: self.system.clone(),
            messages: vec![Message::User(task.to_string())],
        };
        let mut tally = Tally::default();
        loop {
            let mut turn = model.respond(&conversation, &self.tools)?;
            if turn.calls.is_empty() {
                let text = turn.text.clone();
                conversation.messages.push(Message::Assistant(turn));
                return Ok(tally.finish(Stop::Answer(text), conversation));
            }
            if !turn.text.trim().is_empty() {
                observer.text(&turn.text);
            }
            for (i, c) in turn.calls.iter_mut().enumerate() {
                if c.id.is_empty() {
                    c.id = format!("call_{}_{}", tally.calls + 1, i + 1);
                }
            }
            let mut replies = Vec::with_capacity(turn.calls.len());
            let mut stop: Option<Stop> = None;
            for call in &turn.calls {
                tally.calls += 1;
                let n = tally.calls;
                let step = if let Some(s) = &stop {
                    let why = format!("the run stopped before this call: {}", s.message());
                    self.refuse(n, call, Handling::AfterStop, &why)
                } else if let Some(max_calls) =
                    self.limits.max_calls.filter(|m| tally.submitted >= *m)
                {
                    let why = format!(
                        "the budget of {max_calls} tool call{} for this run (--max-calls) is spent; the run stops here",
                        plural(max_calls)
                    );
                    stop = Some(Stop::CallBudget { max_calls });
                    self.refuse(n, call, Handling::OverBudget { max_calls }, &why)
                } else {
                    tally.submitted += 1;
                    self.handle(n, call)
                };
                let mut warnings = std::mem::take(&mut self.warnings);
                warnings.extend(self.gate.take_warnings());
                for w in warnings {
                    observer.warning(&w);
                }
                let limit = tally.count(&step, &self.limits);
                if stop.is_none() {
                    stop = limit;
                }
                observer.step(&step);
                replies.push(step.reply);
            }
            conversation.messages.push(Message::Assistant(turn));
            conversation.messages.push(Message::Results(replies));
            if let Some(stop) = stop {
                return Ok(tally.finish(stop, conversation));
            }
        }
    }

    /// Puts one call through the gate, or refuses it when its arguments
    /// cannot be read.
    fn handle(&mut self, number: usize, call: &ToolCall) -> Step {
        let input = match call.arguments.parse() {
            Ok(input) => input,
            Err(error) => {
                let error = error.to_string();
                let raw = call.arguments.to_json_string();
                let result = self
                    .gate
                    .reject_unreadable(&call.id, &call.name, &raw, &error);
                return Step {
                    number,
                    call: call.clone(),
                    reply: ToolReply {
                        call_id: call.id.clone(),
                        content: result.content,
                        is_error: true,
                    },
                    outcome: Outcome::Blocked,
                    handling: Handling::InvalidArguments { error },
                };
            }
        };
        let gate_call = Call {
            id: call.id.clone(),
            tool: call.name.clone(),
            input,
            client: Client::Toolgate,
            cwd: None,
        };
        let mut result = self.gate.submit(&gate_call);
        if let Some(wait) = self.queue_wait {
            result = crate::wait::await_answer(&mut self.gate, result, wait);
        }
        Step {
            number,
            call: call.clone(),
            reply: ToolReply {
                // INVARIANT: the reply answers the model's id, whatever the
                // gate did with the call.
                call_id: call.id.clone(),
                content: result.content.clone(),
                is_error: result.is_error,
            },
            outcome: result.outcome,
            handling: Handling::Gate(Box::new(result)),
        }
    }

    fn refuse(&self, number: usize, call: &ToolCall, handling: Handling, why: &str) -> Step {
        Step {
            number,
            call: call.clone(),
            reply: ToolReply {
                call_id: call.id.clone(),
                content: toolgate_gate::texts::refusal(why, false, None),
                is_error: true,
            },
            outcome: Outcome::Blocked,
            handling,
        }
    }
}

/// The counts a run keeps for its budgets.
#[derive(Debug, Default)]
struct Tally {
    /// Calls handled, over-budget ones included.
    calls: usize,
    /// Calls handed to the gate or refused for their arguments.
    submitted: usize,
    /// Refused calls.
    refusals: usize,
    /// Refused calls since the last one that was not refused.
    streak: usize,
}

impl Tally {
    /// Counts a handled call; the refusal limit it reaches, if any. A call
    /// the gate did not refuse (executed, failed, waiting) ends a streak.
    fn count(&mut self, step: &Step, limits: &Limits) -> Option<Stop> {
        if !step.is_refusal() {
            if matches!(step.handling, Handling::Gate(_)) {
                self.streak = 0;
            }
            return None;
        }
        self.refusals += 1;
        self.streak += 1;
        if self.streak >= limits.max_consecutive_refusals {
            Some(Stop::Refusals {
                consecutive: true,
                count: self.streak,
                last: last_reason(step),
            })
        } else if self.refusals >= limits.max_refusals {
            Some(Stop::Refusals {
                consecutive: false,
                count: self.refusals,
                last: last_reason(step),
            })
        } else {
            None
        }
    }

    fn finish(&self, stop: Stop, conversation: Conversation) -> Finish {
        Finish {
            stop,
            conversation,
            calls: self.calls,
            refusals: self.refusals,
        }
    }
}

fn last_reason(step: &Step) -> String {
    match &step.handling {
        Handling::Gate(r) => format!("`{}`: {}", step.call.name, r.decision.reason),
        Handling::InvalidArguments { error } => format!("`{}`: {error}", step.call.name),
        _ => String::new(),
    }
}

/*!
The gate: the one function through which a tool call becomes an action.

A host (the agent loop, `toolgate approvals approve`, the demo) hands a
[`Call`] to [`Gate::submit`] and gets back exactly one [`ToolResult`]. No tool
runs any other way. Inside, in this order:

1. **snapshot** — a deep copy of the call and the SHA-256 of its canonical
   JSON; from here on only the snapshot is used;
2. **decide** — the policy engine (validation, hard limits, rules, mode,
   session grants);
3. **approve**, only on `ask` — the approver sees a copy of the snapshot;
   only an explicit approve lets the call run; a decline, no answer, any
   other value, an error or a panic does not;
4. **execute**, only on allow (or an approved ask) — the executor receives
   the snapshot, never the caller's object;
5. **record** — one ledger row (two for a call that waited);
6. **return** — refusals say "not executed", why, and tell the model not to
   retry the same call.

# Example

```
use serde_json::json;
use toolgate_gate::{Gate, GateOptions, NeverApprover, Outcome};
use toolgate_policy::{Call, LoadOptions, Policy};
use toolgate_tools::BuiltinTools;

let dir = tempfile::tempdir().unwrap();
std::fs::write(dir.path().join("readme.txt"), "hello").unwrap();
let policy = Policy::from_toml(
    "allow = [\"Read\"]\ndeny = [\"Read(secrets.txt)\"]\n",
    &dir.path().join("toolgate.toml"),
    &LoadOptions::default(),
).unwrap();
let ws = toolgate_tools::Workspace::open(policy.roots(), policy.read_roots()).unwrap();
let mut gate = Gate::new(policy, Box::new(NeverApprover), GateOptions::default())
    .with_builtin_tools(ws);

let r = gate.submit(&Call::new("read_file", json!({"path": "readme.txt"})));
assert_eq!((r.outcome, r.content.as_str()), (Outcome::Executed, "hello"));

let r = gate.submit(&Call::new("read_file", json!({"path": "secrets.txt"})));
assert_eq!(r.outcome, Outcome::Blocked);
assert!(r.is_error && r.content.contains("was not executed"));
```
*/
#![deny(missing_docs)]

pub mod approvals;
mod approver;
mod error;
mod executor;
mod gate;
pub mod host;
mod queue;
mod record;
mod result;
pub mod review;
pub mod texts;

pub use approver::{
    Answer, ApprovalRequest, Approver, AskError, FixedApprover, HostApprover, NeverApprover,
    Patience, QueueApprover, TerminalApprover, TerminalError, UnavailableApprover, WaitingApprover,
};
pub use error::GateError;
pub use executor::{Executor, ToolOutput};
pub use gate::{
    Gate, GateOptions, INVALID_ARGUMENTS_RULE, Requests, Sandboxed, Stats, new_session_id,
    sandbox_holds,
};
pub use host::{HostError, ProjectSeenFn, Setup};
pub use result::{ApprovalLog, Outcome, Passage, ToolResult, Verdict};
pub use texts::refusal_text;
pub use toolgate_policy::{Call, Decision, Effect};

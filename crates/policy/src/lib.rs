/*!
The toolgate decision engine.

An agent's model proposes a tool call; this crate decides whether it runs
(`allow`), waits for a person (`ask`) or is refused (`deny`), and says which
rule decided and why. It executes nothing: hosts (the gate, the Claude Code
and Gemini CLI hooks, the MCP gateway) call [`Policy::decide`] at the one
place where the call would become a real action.

# Example

```
use toolgate_policy::{Call, Effect, LoadOptions, Policy};

let dir = tempfile::tempdir().unwrap();
let policy = Policy::from_toml(
    r#"
allow = ["Read", "Bash(git status)"]
deny  = ["Read(.env)"]
"#,
    &dir.path().join("toolgate.toml"),
    &LoadOptions::default(),
)
.unwrap();

let d = policy.decide(&Call::new("read_file", serde_json::json!({"path": "README.md"})));
assert_eq!(d.decision, Effect::Allow);

let d = policy.decide(&Call::new("read_file", serde_json::json!({"path": ".env"})));
assert_eq!((d.decision, d.rule.as_deref()), (Effect::Deny, Some("deny[0]")));
```

# How a call is decided

1. The input is validated against the tool: invalid is deny.
2. The call becomes actions: paths read or written, each simple command of
   a shell command with the files and URLs it touches, URLs fetched, or the
   tool by name.
3. Each action: hard limits (outside the roots, the policy file, the state
   directory, catastrophic commands) deny first; then every matching rule,
   the strictest winning (deny > ask > allow); no match is the policy's
   default, or for an operand of a command, that command's decision;
   protected paths and unanalysable parts are at least ask; session grants;
   the mode.
4. The call's decision is the strictest of its actions'.
*/
#![deny(missing_docs)]

mod actions;
mod boundary;
mod call;
mod catalog;
mod decision;
mod demote;
mod effect;
mod engine;
mod error;
mod explain;
mod file;
mod git_hooks;
mod git_index;
mod git_refs;
mod holds;
mod index;
pub mod json;
pub mod layers;
pub mod lint;
mod notify;
mod paths;
mod pattern;
mod policy;
mod review;
mod rule;
pub mod rule_ids;
mod sandbox_table;
mod schema;
mod state_dir;
pub mod system;
mod testing;
mod urls;
mod validate;

pub use call::{Call, CallError, Client, UnknownClient, canonical_json, canonical_object, new_id};
pub use catalog::{Kind, ToolSpec, lookup as lookup_tool};
pub use decision::{Action, ActionDecision, Decision, Matched, Tracked};
pub use effect::{Effect, Mode, UnknownEffect, UnknownMode};
pub use engine::{Context, WALK_LIMIT};
pub use error::PolicyError;
pub use explain::explain;

pub use file::{Ledger, SandboxSetting, TestCase};
pub use holds::{Sandboxed, sandbox_holds};
pub use lint::lint;
pub use notify::{DEFAULT_APPROVAL_TTL, DurationError, Notify, parse_duration};
pub use paths::{PathError, Resolved, normalize_lexically, resolve, resolve_within};
pub use policy::{BUILTIN_POLICY, LoadOptions, POLICY_FILE_NAME, Policy, locate};
pub use review::{
    DEFAULT_DENIALS_IN_A_ROW, DEFAULT_DENIALS_PER_SESSION, DEFAULT_REVIEW_TIMEOUT, ReviewApi,
    ReviewConfig,
};
pub use rule::{Remember, Rule};
pub use sandbox_table::{
    HOME_KEPT, WritableDir, WritableEntry, WritableNowError, WritableNowProblem,
};
pub use schema::json_type_name;
pub use state_dir::{STATE_DIR_ENV, StateDirError, state_dir};
pub use testing::TestOutcome;
pub use urls::{Cidr, CidrError, FetchTarget, UrlError, UrlHost, normalize as normalize_url};
pub use validate::InputError;

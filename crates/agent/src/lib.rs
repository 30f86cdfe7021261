/*!
The agent loop under the gate, and the models it talks to.

A model only *proposes* tool calls. [`Agent::run`] asks the [`Model`] for a
turn, puts every call it proposes through [`toolgate_gate::Gate::submit`]
(the single execution entry: decide, ask, execute, record), hands exactly
one result per call back in order, refusals included, and repeats until the
model answers without calling a tool, or a budget stops it
(`max_calls`; 3 refusals in a row; 20 in all).

Models:

- [`ScriptedModel`]: offline, replays a TOML script of assistant turns
  (format in [`scripted`]); the demo and the tests use it;
- [`OpenAiModel`]: any OpenAI-compatible chat-completions endpoint with tool
  calling, streamed or not;
- [`AnthropicModel`]: the Anthropic Messages API with `tool_use` /
  `tool_result`, streamed or not.

Both live models retry 429, 500, 502, 503 and 529 with bounded exponential
backoff, honouring `retry-after` ([`HttpOptions`]).

# Example: a scripted run

```
use toolgate_agent::{Agent, Quiet, Script, ScriptedModel, Stop};
use toolgate_gate::{Gate, GateOptions, NeverApprover};
use toolgate_policy::{LoadOptions, Policy};

let dir = tempfile::tempdir().unwrap();
std::fs::write(dir.path().join("readme.txt"), "hello").unwrap();
let policy = Policy::from_toml(
    "allow = [\"Read\"]\n",
    &dir.path().join("toolgate.toml"),
    &LoadOptions::default(),
).unwrap();
let ws = toolgate_tools::Workspace::open(policy.roots(), policy.read_roots()).unwrap();
use toolgate_tools::BuiltinTools;
let gate = Gate::new(policy, Box::new(NeverApprover), GateOptions::default())
    .with_builtin_tools(ws);

let script = Script::parse(r#"
[[turn]]
[[turn.call]]
name = "read_file"
arguments = { path = "readme.txt" }

[[turn]]
text = "The readme says hello."
"#, "example").unwrap();

let mut agent = Agent::new(gate);
let finish = agent.run(&mut ScriptedModel::new(script), "What does the readme say?", &mut Quiet).unwrap();
assert_eq!(finish.stop, Stop::Answer("The readme says hello.".into()));
assert_eq!(agent.gate().stats().executions, 1);
```
*/
#![deny(missing_docs)]

mod run;
pub mod scripted;
mod tools;
mod trace;
mod wait;

pub use run::{
    Agent, Finish, Handling, INVALID_ARGUMENTS_RULE, Limits, Observer, Quiet, Step, Stop,
    default_system_prompt,
};
pub use scripted::{DEFAULT_SCRIPT, Script, ScriptError, ScriptedModel};
/// The conversation types and the live clients, from `toolgate-model`
/// (the gate's reviewer uses them too).
pub use toolgate_model as model;
pub use toolgate_model::{
    ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_VERSION, AnthropicModel, ApiConfig, Arguments,
    Conversation, HttpOptions, Message, Model, ModelError, OPENAI_DEFAULT_BASE_URL, OpenAiModel,
    ToolCall, ToolDef, ToolReply, Turn,
};
pub use tools::{TOOL_NAMES, builtin_tools};
pub use trace::{Trace, cut, describe_step};

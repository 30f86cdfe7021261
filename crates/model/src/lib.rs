/*!
The models toolgate talks to: the neutral conversation types and the two
live clients.

- [`OpenAiModel`]: any OpenAI-compatible chat-completions endpoint with tool
  calling, streamed or not;
- [`AnthropicModel`]: the Anthropic Messages API with `tool_use` /
  `tool_result`, streamed or not.

Both retry 429, 500, 502, 503 and 529 with bounded exponential backoff,
honouring `retry-after` ([`HttpOptions`]).

They sit below the gate because two parts of toolgate need them: the agent
loop (`toolgate-agent`), whose model proposes calls, and the gate's
reviewer, which answers the calls the policy leaves to a person.
*/
#![deny(missing_docs)]

mod anthropic;
mod http;
mod live;
mod model;
mod openai;

pub use anthropic::{ANTHROPIC_DEFAULT_BASE_URL, ANTHROPIC_VERSION, AnthropicModel};
pub use http::HttpOptions;
pub use live::ApiConfig;
pub use model::{
    Arguments, ArgumentsError, Conversation, Message, Model, ModelError, ToolCall, ToolDef,
    ToolReply, Turn,
};
pub use openai::{OPENAI_DEFAULT_BASE_URL, OpenAiModel};

//! The conversation the loop keeps and the [`Model`] that continues it.
//!
//! These types are neutral: each model client translates them to its own
//! wire format (OpenAI chat completions, Anthropic Messages) and back, so
//! the loop never sees a wire format.

use std::fmt;

use serde_json::{Map, Value};

/// A model: given the conversation so far and the tools on offer, it
/// returns the assistant's next turn.
///
/// A model only proposes tool calls; the loop decides what becomes of them.
pub trait Model {
    /// The assistant's next turn.
    fn respond(
        &mut self,
        conversation: &Conversation,
        tools: &[ToolDef],
    ) -> Result<Turn, ModelError>;
}

impl<M: Model + ?Sized> Model for Box<M> {
    fn respond(
        &mut self,
        conversation: &Conversation,
        tools: &[ToolDef],
    ) -> Result<Turn, ModelError> {
        (**self).respond(conversation, tools)
    }
}

/// The conversation so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversation {
    /// Instructions that frame the whole conversation.
    pub system: Option<String>,
    /// The messages, oldest first.
    pub messages: Vec<Message>,
}

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// The user's words (the task).
    User(String),
    /// A turn of the model.
    Assistant(Turn),
    /// The results of the previous assistant turn's tool calls: exactly one
    /// per call, in the order of the calls.
    Results(Vec<ToolReply>),
}

/// One assistant turn: text, tool calls, or both.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Turn {
    /// What the model said (empty when it only called tools).
    pub text: String,
    /// The tool calls it proposed, in order.
    pub calls: Vec<ToolCall>,
}

impl Turn {
    /// A turn with text only: a final answer.
    pub fn answer(text: impl Into<String>) -> Turn {
        Turn {
            text: text.into(),
            calls: Vec::new(),
        }
    }
}

/// A tool call as the model proposed it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The id the result is linked to.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, kept as the model sent them.
    pub arguments: Arguments,
}

/// A tool call's arguments as the model sent them.
///
/// OpenAI-style models send a JSON *string* that may not parse; keeping it
/// raw lets the loop refuse it with the parse error and replay it to the
/// model exactly as it was sent.
#[derive(Debug, Clone, PartialEq)]
pub enum Arguments {
    /// A JSON object.
    Object(Map<String, Value>),
    /// The text the model sent, not yet parsed.
    Raw(String),
}

/// Why a model's tool-call arguments are not a JSON object; the call is
/// refused with this and the model is told.
#[derive(Debug, thiserror::Error)]
pub enum ArgumentsError {
    /// JSON, but not an object.
    #[error("arguments are not a JSON object (got {0})")]
    NotObject(&'static str),
    /// Not JSON.
    #[error("arguments are not valid JSON: {0}")]
    NotJson(#[source] serde_json::Error),
}

impl Arguments {
    /// The arguments as a JSON object, or why they are not one. An empty
    /// string counts as no arguments, as the OpenAI wire format allows.
    pub fn parse(&self) -> Result<Map<String, Value>, ArgumentsError> {
        match self {
            Arguments::Object(m) => Ok(m.clone()),
            Arguments::Raw(s) if s.trim().is_empty() => Ok(Map::new()),
            Arguments::Raw(s) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Object(m)) => Ok(m),
                Ok(other) => Err(ArgumentsError::NotObject(type_name(&other))),
                Err(e) => Err(ArgumentsError::NotJson(e)),
            },
        }
    }

    /// The arguments as JSON text: the raw text unchanged, or the object
    /// serialised.
    pub fn to_json_string(&self) -> String {
        match self {
            Arguments::Object(m) => Value::Object(m.clone()).to_string(),
            Arguments::Raw(s) => s.clone(),
        }
    }

    /// The arguments as a JSON object for wire formats that require one
    /// (Anthropic's `tool_use.input`): text that does not parse becomes an
    /// empty object, since its result already told the model what was wrong.
    pub fn to_object_lossy(&self) -> Map<String, Value> {
        self.parse().unwrap_or_default()
    }

    /// Reads arguments that arrived as JSON text: an object when the text is
    /// one, else the raw text.
    pub fn from_text(text: &str) -> Arguments {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(m)) => Arguments::Object(m),
            _ => Arguments::Raw(text.to_string()),
        }
    }
}

impl fmt::Display for Arguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json_string())
    }
}

/// The result of one tool call, as it goes back to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolReply {
    /// The id of the call it answers.
    pub call_id: String,
    /// The text the model reads: the tool's output or the refusal.
    pub content: String,
    /// True for refusals and tool errors.
    pub is_error: bool,
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// The tool's name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// The JSON Schema of its arguments.
    pub schema: Value,
}

/// Why a model could not produce a turn. The CLI exits 1 with this message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The API answered with an error status (after retries, for the
    /// statuses worth retrying).
    #[error("{api} API error: HTTP {status}{}: {message}", retried_note(*.attempts))]
    Status {
        /// `OpenAI` or `Anthropic`.
        api: &'static str,
        /// The HTTP status.
        status: u16,
        /// The API's error message, or the start of the body.
        message: String,
        /// How many requests were made.
        attempts: u32,
    },
    /// The API could not be reached, or the connection failed.
    #[error("{api} API unreachable at {url}: {message}")]
    Transport {
        /// `OpenAI` or `Anthropic`.
        api: &'static str,
        /// The URL requested.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The API answered something that is not its wire format.
    #[error("{api} API response not understood: {message}")]
    BadResponse {
        /// `OpenAI` or `Anthropic`.
        api: &'static str,
        /// What was wrong with it.
        message: String,
    },
    /// A scripted model has no turn left: the script ended without a
    /// final answer.
    #[error("the script has no turn {turn}: it ended before a final answer (a turn without calls)")]
    ScriptEnded {
        /// The 1-based turn that was asked for.
        turn: usize,
    },
}

fn retried_note(attempts: u32) -> String {
    if attempts > 1 {
        format!(" after {attempts} attempts")
    } else {
        String::new()
    }
}

/// The JSON type of a value, as an error names it.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

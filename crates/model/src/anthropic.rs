//! A model behind the Anthropic Messages API.
//!
//! Tools go out as `tools: [{name, description, input_schema}]`; calls come
//! back as `tool_use` content blocks; results go back in one `user` message
//! of `tool_result` blocks (`tool_use_id`, `content`, `is_error`), one per
//! call, in order. A streamed answer (server-sent events `message_start`,
//! `content_block_start`, `content_block_delta` with `text_delta` or
//! `input_json_delta` fragments, `content_block_stop`, `message_delta`,
//! `message_stop`) and a plain JSON one are both read.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::http::{Events, Http, Reply};
use crate::live::ApiConfig;
use crate::model::{Arguments, Conversation, Message, Model, ModelError, ToolCall, ToolDef, Turn};

const API: &str = "Anthropic";

/// The API version sent in `anthropic-version`.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The default base URL; `ANTHROPIC_BASE_URL` or `--base-url` replace it.
pub const ANTHROPIC_DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// A Messages API model.
pub struct AnthropicModel {
    config: ApiConfig,
    http: Http,
}

impl AnthropicModel {
    /// A client for `config.model` at `config.base_url` (without `/v1`).
    pub fn new(config: ApiConfig) -> AnthropicModel {
        let http = Http::new(API, config.http.clone());
        AnthropicModel { config, http }
    }

    /// The request body for a conversation.
    pub fn request_body(&self, conversation: &Conversation, tools: &[ToolDef]) -> Value {
        let mut messages = Vec::new();
        for m in &conversation.messages {
            match m {
                Message::User(text) => messages.push(json!({"role": "user", "content": text})),
                Message::Assistant(turn) => {
                    let mut content = Vec::new();
                    if !turn.text.is_empty() {
                        content.push(json!({"type": "text", "text": turn.text}));
                    }
                    for c in &turn.calls {
                        content.push(json!({
                            "type": "tool_use",
                            "id": c.id,
                            "name": c.name,
                            "input": Value::Object(c.arguments.to_object_lossy()),
                        }));
                    }
                    if content.is_empty() {
                        content.push(json!({"type": "text", "text": "(no answer)"}));
                    }
                    messages.push(json!({"role": "assistant", "content": content}));
                }
                Message::Results(replies) => {
                    let content: Vec<Value> = replies
                        .iter()
                        .map(|r| {
                            json!({
                                "type": "tool_result",
                                "tool_use_id": r.call_id,
                                "content": r.content,
                                "is_error": r.is_error,
                            })
                        })
                        .collect();
                    messages.push(json!({"role": "user", "content": content}));
                }
            }
        }
        let mut body = Map::new();
        body.insert("model".into(), json!(self.config.model));
        body.insert("max_tokens".into(), json!(self.config.max_tokens));
        if let Some(system) = &conversation.system {
            body.insert("system".into(), json!(system));
        }
        body.insert("messages".into(), Value::Array(messages));
        if !tools.is_empty() {
            let tools: Vec<Value> = tools
                .iter()
                .map(|t| {
                    json!({
                        "name": t.name,
                        "description": t.description,
                        "input_schema": t.schema,
                    })
                })
                .collect();
            body.insert("tools".into(), Value::Array(tools));
        }
        body.insert("stream".into(), json!(self.config.stream));
        Value::Object(body)
    }
}

impl Model for AnthropicModel {
    fn respond(
        &mut self,
        conversation: &Conversation,
        tools: &[ToolDef],
    ) -> Result<Turn, ModelError> {
        let url = format!("{}/v1/messages", self.config.base_url.trim_end_matches('/'));
        let mut headers = vec![("anthropic-version", ANTHROPIC_VERSION.to_string())];
        if let Some(key) = &self.config.api_key {
            headers.push(("x-api-key", key.clone()));
        }
        if self.config.stream {
            headers.push(("accept", "text/event-stream".to_string()));
        }
        let body = self.request_body(conversation, tools).to_string();
        match self.http.post(&url, &headers, &body)? {
            Reply::Json(v) => parse_message(&v),
            Reply::Events(events) => parse_stream(events),
        }
    }
}

fn bad(message: impl Into<String>) -> ModelError {
    ModelError::BadResponse {
        api: API,
        message: message.into(),
    }
}

/// Reads a (non-streamed) `message`.
pub(crate) fn parse_message(v: &Value) -> Result<Turn, ModelError> {
    if v.get("type").and_then(Value::as_str) == Some("error") {
        return Err(bad(format!("the API reported an error: {}", v["error"])));
    }
    let blocks = v
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("no `content` array"))?;
    let mut turn = Turn::default();
    for (i, b) in blocks.iter().enumerate() {
        match b.get("type").and_then(Value::as_str) {
            Some("text") => turn
                .text
                .push_str(b.get("text").and_then(Value::as_str).unwrap_or_default()),
            Some("tool_use") => turn.calls.push(tool_use(b, i, None)?),
            _ => {}
        }
    }
    Ok(turn)
}

/// A `tool_use` block as a call; `streamed_input` is the joined
/// `input_json_delta` fragments, when the block was streamed.
fn tool_use(b: &Value, i: usize, streamed_input: Option<&str>) -> Result<ToolCall, ModelError> {
    let name = b
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
        .ok_or_else(|| bad(format!("content block {i} (tool_use) has no `name`")))?;
    let id = match b.get("id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => return Err(bad(format!("content block {i} (tool_use) has no `id`"))),
    };
    let arguments = match streamed_input {
        Some(text) if !text.trim().is_empty() => Arguments::from_text(text),
        _ => match b.get("input") {
            Some(Value::Object(m)) => Arguments::Object(m.clone()),
            None | Some(Value::Null) => Arguments::Object(Map::new()),
            Some(other) => Arguments::Raw(other.to_string()),
        },
    };
    Ok(ToolCall {
        id,
        name: name.to_string(),
        arguments,
    })
}

enum Block {
    Text(String),
    ToolUse { start: Value, input: String },
    Other,
}

/// Reads a streamed answer, up to `message_stop`.
fn parse_stream<R: std::io::BufRead>(mut events: Events<R>) -> Result<Turn, ModelError> {
    let mut blocks: BTreeMap<u64, Block> = BTreeMap::new();
    let mut stopped = false;
    while let Some(event) = events
        .next_event()
        .map_err(|e| bad(format!("the stream broke: {e}")))?
    {
        if event.data.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&event.data)
            .map_err(|e| bad(format!("an event is not JSON ({e}): {}", event.data)))?;
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .or(event.name.as_deref())
            .unwrap_or_default();
        let index = v.get("index").and_then(Value::as_u64).unwrap_or(0);
        match kind {
            "error" => {
                return Err(bad(format!(
                    "the API reported an error mid-stream: {}",
                    v.get("error").unwrap_or(&v)
                )));
            }
            "content_block_start" => {
                let block = v.get("content_block").cloned().unwrap_or(Value::Null);
                let b = match block.get("type").and_then(Value::as_str) {
                    Some("text") => Block::Text(
                        block
                            .get("text")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                    ),
                    Some("tool_use") => Block::ToolUse {
                        start: block,
                        input: String::new(),
                    },
                    _ => Block::Other,
                };
                blocks.insert(index, b);
            }
            "content_block_delta" => {
                let delta = v.get("delta").unwrap_or(&Value::Null);
                match (
                    blocks.get_mut(&index),
                    delta.get("type").and_then(Value::as_str),
                ) {
                    (Some(Block::Text(t)), Some("text_delta")) => t.push_str(
                        delta
                            .get("text")
                            .and_then(Value::as_str)
                            .unwrap_or_default(),
                    ),
                    (Some(Block::ToolUse { input, .. }), Some("input_json_delta")) => input
                        .push_str(
                            delta
                                .get("partial_json")
                                .and_then(Value::as_str)
                                .unwrap_or_default(),
                        ),
                    (None, _) => {
                        return Err(bad(format!(
                            "a delta for block {index}, which never started"
                        )));
                    }
                    _ => {}
                }
            }
            "message_stop" => {
                stopped = true;
                break;
            }
            // message_start, content_block_stop, message_delta, ping, and
            // event types added later.
            _ => {}
        }
    }
    if !stopped {
        return Err(bad("the stream ended before `message_stop`"));
    }
    let mut turn = Turn::default();
    for (i, (_, b)) in blocks.into_iter().enumerate() {
        match b {
            Block::Text(t) => turn.text.push_str(&t),
            Block::ToolUse { start, input } => turn.calls.push(tool_use(&start, i, Some(&input))?),
            Block::Other => {}
        }
    }
    Ok(turn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_blocks_are_assembled() {
        let sse = concat!(
            "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"content\":[]}}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
            "event: ping\ndata: {\"type\":\"ping\"}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Reading.\"}}\n\n",
            "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
            "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"read_file\",\"input\":{}}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": \"}}\n\n",
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"a.txt\\\"}\"}}\n\n",
            "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
            "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}\n\n",
            "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
        );
        let turn = parse_stream(Events::new(sse.as_bytes())).unwrap();
        assert_eq!(turn.text, "Reading.");
        assert_eq!(turn.calls.len(), 1);
        assert_eq!(turn.calls[0].id, "toolu_1");
        assert_eq!(
            turn.calls[0].arguments.to_json_string(),
            r#"{"path":"a.txt"}"#
        );
    }

    #[test]
    fn a_mid_stream_error_is_reported() {
        let sse = "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
        let e = parse_stream(Events::new(sse.as_bytes())).unwrap_err();
        assert!(e.to_string().contains("Overloaded"), "{e}");
    }

    #[test]
    fn a_tool_use_without_streamed_input_keeps_its_input() {
        let v = json!({"content": [
            {"type": "text", "text": "ok"},
            {"type": "tool_use", "id": "toolu_2", "name": "list_dir", "input": {"path": "."}}
        ], "stop_reason": "tool_use"});
        let turn = parse_message(&v).unwrap();
        assert_eq!(turn.calls[0].arguments.to_json_string(), r#"{"path":"."}"#);
    }
}

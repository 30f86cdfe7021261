//! A model behind any OpenAI-compatible chat-completions endpoint with tool
//! calling (OpenAI, and the many servers that speak its format).
//!
//! Tools go out as `tools: [{type: "function", function: {name,
//! description, parameters}}]`; calls come back as `tool_calls` whose
//! `arguments` is a JSON *string*, kept raw so that text that does not parse
//! reaches the loop as it was sent; results go back as `role: "tool"`
//! messages. Both a plain JSON answer and a streamed one (server-sent
//! events of `chat.completion.chunk`, the calls arriving as `delta.tool_calls`
//! fragments keyed by `index`) are read, whichever the server sends.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::http::{Events, Http, Reply};
use crate::live::ApiConfig;
use crate::model::{Arguments, Conversation, Message, Model, ModelError, ToolCall, ToolDef, Turn};

const API: &str = "OpenAI";

/// The default base URL; `OPENAI_BASE_URL` or `--base-url` replace it.
pub const OPENAI_DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// A chat-completions model.
pub struct OpenAiModel {
    config: ApiConfig,
    http: Http,
}

impl OpenAiModel {
    /// A client for `config.model` at `config.base_url` (which includes the
    /// version path, e.g. `https://api.openai.com/v1`).
    pub fn new(config: ApiConfig) -> OpenAiModel {
        let http = Http::new(API, config.http.clone());
        OpenAiModel { config, http }
    }

    /// The request body for a conversation.
    pub fn request_body(&self, conversation: &Conversation, tools: &[ToolDef]) -> Value {
        let mut messages = Vec::new();
        if let Some(system) = &conversation.system {
            messages.push(json!({"role": "system", "content": system}));
        }
        for m in &conversation.messages {
            match m {
                Message::User(text) => messages.push(json!({"role": "user", "content": text})),
                Message::Assistant(turn) => {
                    let mut msg = Map::new();
                    msg.insert("role".into(), json!("assistant"));
                    msg.insert(
                        "content".into(),
                        if turn.text.is_empty() {
                            Value::Null
                        } else {
                            json!(turn.text)
                        },
                    );
                    if !turn.calls.is_empty() {
                        let calls: Vec<Value> = turn
                            .calls
                            .iter()
                            .map(|c| {
                                json!({
                                    "id": c.id,
                                    "type": "function",
                                    "function": {
                                        "name": c.name,
                                        "arguments": c.arguments.to_json_string(),
                                    }
                                })
                            })
                            .collect();
                        msg.insert("tool_calls".into(), Value::Array(calls));
                    }
                    messages.push(Value::Object(msg));
                }
                Message::Results(replies) => {
                    for r in replies {
                        messages.push(json!({
                            "role": "tool",
                            "tool_call_id": r.call_id,
                            "content": r.content,
                        }));
                    }
                }
            }
        }
        let tools: Vec<Value> = tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.schema,
                    }
                })
            })
            .collect();
        let mut body = json!({
            "model": self.config.model,
            "messages": messages,
            "stream": self.config.stream,
        });
        if !tools.is_empty() {
            body["tools"] = Value::Array(tools);
        }
        if let Some(format) = &self.config.response_format {
            body["response_format"] = format.clone();
        }
        body
    }
}

impl Model for OpenAiModel {
    fn respond(
        &mut self,
        conversation: &Conversation,
        tools: &[ToolDef],
    ) -> Result<Turn, ModelError> {
        let url = format!(
            "{}/chat/completions",
            self.config.base_url.trim_end_matches('/')
        );
        let mut headers = Vec::new();
        if let Some(key) = &self.config.api_key {
            headers.push(("authorization", format!("Bearer {key}")));
        }
        if self.config.stream {
            headers.push(("accept", "text/event-stream".to_string()));
        }
        let body = self.request_body(conversation, tools).to_string();
        match self.http.post(&url, &headers, &body)? {
            Reply::Json(v) => parse_completion(&v),
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

/// Reads a (non-streamed) `chat.completion`.
pub(crate) fn parse_completion(v: &Value) -> Result<Turn, ModelError> {
    if let Some(e) = v.get("error") {
        return Err(bad(format!("the API reported an error: {e}")));
    }
    let message = v
        .pointer("/choices/0/message")
        .ok_or_else(|| bad("no `choices[0].message`"))?;
    let mut text = message
        .get("content")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if text.is_empty()
        && let Some(refusal) = message.get("refusal").and_then(Value::as_str)
    {
        text = refusal.to_string();
    }
    let mut calls = Vec::new();
    if let Some(list) = message.get("tool_calls").and_then(Value::as_array) {
        for (i, c) in list.iter().enumerate() {
            let name = c
                .pointer("/function/name")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(format!("tool call {i} has no `function.name`")))?;
            let arguments = match c.pointer("/function/arguments") {
                None | Some(Value::Null) => Arguments::Raw(String::new()),
                Some(Value::String(s)) => Arguments::from_text(s),
                Some(Value::Object(m)) => Arguments::Object(m.clone()),
                Some(other) => Arguments::Raw(other.to_string()),
            };
            calls.push(ToolCall {
                id: call_id(c.get("id").and_then(Value::as_str), i),
                name: name.to_string(),
                arguments,
            });
        }
    }
    Ok(Turn { text, calls })
}

fn call_id(id: Option<&str>, i: usize) -> String {
    match id {
        Some(id) if !id.is_empty() => id.to_string(),
        _ => format!("call_{}", i + 1),
    }
}

#[derive(Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// Reads a streamed answer: `data:` chunks until `data: [DONE]`.
fn parse_stream<R: std::io::BufRead>(mut events: Events<R>) -> Result<Turn, ModelError> {
    let mut text = String::new();
    let mut calls: BTreeMap<u64, PartialCall> = BTreeMap::new();
    let mut last: Option<u64> = None;
    let mut finished = false;
    while let Some(event) = events
        .next_event()
        .map_err(|e| bad(format!("the stream broke: {e}")))?
    {
        let data = event.data.trim();
        if data.is_empty() {
            continue;
        }
        if data == "[DONE]" {
            finished = true;
            break;
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|e| bad(format!("a stream chunk is not JSON ({e}): {data}")))?;
        if let Some(e) = chunk.get("error") {
            return Err(bad(format!("the API reported an error mid-stream: {e}")));
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            continue; // e.g. a usage-only chunk
        };
        if choice.get("finish_reason").is_some_and(|r| !r.is_null()) {
            finished = true;
        }
        let Some(delta) = choice.get("delta") else {
            continue;
        };
        if let Some(t) = delta.get("content").and_then(Value::as_str) {
            text.push_str(t);
        }
        if let Some(t) = delta.get("refusal").and_then(Value::as_str) {
            text.push_str(t);
        }
        let Some(fragments) = delta.get("tool_calls").and_then(Value::as_array) else {
            continue;
        };
        for f in fragments {
            let id = f
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty());
            // Servers that omit `index` send one call at a time: a new id
            // starts the next call, no id continues the current one.
            let index = match f.get("index").and_then(Value::as_u64) {
                Some(i) => i,
                None => match (last, id) {
                    (Some(l), Some(id)) if calls.get(&l).is_some_and(|c| c.id != id) => l + 1,
                    (Some(l), _) => l,
                    (None, _) => 0,
                },
            };
            last = Some(index);
            let call = calls.entry(index).or_default();
            if let Some(id) = id {
                call.id = id.to_string();
            }
            if let Some(name) = f.pointer("/function/name").and_then(Value::as_str) {
                call.name.push_str(name);
            }
            if let Some(args) = f.pointer("/function/arguments").and_then(Value::as_str) {
                call.arguments.push_str(args);
            }
        }
    }
    if !finished {
        return Err(bad("the stream ended before `[DONE]` or a finish reason"));
    }
    let mut out = Vec::with_capacity(calls.len());
    for (i, (_, c)) in calls.into_iter().enumerate() {
        if c.name.is_empty() {
            return Err(bad(format!("streamed tool call {i} has no name")));
        }
        out.push(ToolCall {
            id: call_id(Some(&c.id), i),
            name: c.name,
            arguments: Arguments::from_text(&c.arguments),
        });
    }
    Ok(Turn { text, calls: out })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streamed_fragments_are_joined_by_index() {
        let sse = concat!(
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Let me \"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"look.\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"list_dir\",\"arguments\":\"{\\\"path\\\":\\\".\\\"}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"pa\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"th\\\":\\\"a.txt\\\"}\"}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: [DONE]\n\n",
        );
        let turn = parse_stream(Events::new(sse.as_bytes())).unwrap();
        assert_eq!(turn.text, "Let me look.");
        let got: Vec<(&str, &str, String)> = turn
            .calls
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.to_json_string()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("call_a", "read_file", r#"{"path":"a.txt"}"#.to_string()),
                ("call_b", "list_dir", r#"{"path":"."}"#.to_string()),
            ]
        );
    }

    #[test]
    fn a_stream_cut_short_is_an_error() {
        let sse = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hal\"}}]}\n\n";
        assert!(matches!(
            parse_stream(Events::new(sse.as_bytes())),
            Err(ModelError::BadResponse { .. })
        ));
    }

    #[test]
    fn arguments_that_do_not_parse_stay_raw() {
        let v = json!({"choices": [{"message": {"content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "write_file", "arguments": "{\"path\": \"x"}}
        ]}}]});
        let turn = parse_completion(&v).unwrap();
        assert_eq!(
            turn.calls[0].arguments,
            Arguments::Raw("{\"path\": \"x".into())
        );
        assert!(turn.calls[0].arguments.parse().is_err());
    }
}

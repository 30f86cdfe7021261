//! A fake Anthropic Messages API that plays a scripted conversation.
//!
//! Claude Code (observed on 2.1.332) sends `HEAD /api/hello` at start-up and
//! then `POST /v1/messages?beta=true` with `"stream": true` for every model
//! turn. The reply to a turn is chosen by how many `tool_result` blocks the
//! request already carries: with none, the script's first tool call; after
//! the first result, the second; and once the script is played out, a final
//! text answer. Being stateless, retries and extra requests cannot shift it.

use serde_json::{Value, json};

use super::Turn;
use super::http::{Limits, Request, Response, Server};

/// The text of the final answer once the script is played out.
pub const FINAL_TEXT: &str = "All done.";

/// A `tool_result` block the model received.
#[derive(Debug, Clone)]
pub struct ToolResult {
    pub tool_use_id: String,
    pub is_error: bool,
    /// The result's text (text blocks joined when the content is a list).
    pub content: String,
}

/// The running fake; stops when dropped.
pub struct FakeAnthropic {
    server: Server,
}

impl FakeAnthropic {
    /// Serves `script` on 127.0.0.1.
    pub fn start(script: Vec<Turn>) -> FakeAnthropic {
        FakeAnthropic::start_observed(script, Limits::default(), |_, _| {})
    }

    /// Like [`FakeAnthropic::start`], within `limits`, calling `observe`
    /// with how many tool results a turn carries, and those results, before
    /// it answers the turn: the client waits for the answer, so `observe`
    /// sees the effects of the calls so far and nothing after them. A turn
    /// may be sent more than once (retries): `observe` can be called again
    /// with the same count.
    pub fn start_observed(
        script: Vec<Turn>,
        limits: Limits,
        observe: impl Fn(usize, &[ToolResult]) + Send + Sync + 'static,
    ) -> FakeAnthropic {
        let server = Server::start(limits, move |request| {
            if request.method == "POST" && request.route() == "/v1/messages" {
                if let Some(body) = request.json() {
                    if body["tools"].as_array().is_some_and(|t| !t.is_empty()) {
                        let results = tool_results(&body);
                        observe(results.len(), &results);
                    }
                }
            }
            respond(&script, request)
        });
        FakeAnthropic { server }
    }

    /// The value for `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        self.server.url()
    }

    pub fn requests(&self) -> Vec<Request> {
        self.server.requests()
    }

    /// `METHOD path` of every request the fake could not answer, so that a
    /// test notices when a client starts depending on another endpoint.
    pub fn unanswered(&self) -> Vec<String> {
        self.requests()
            .iter()
            .filter(|r| r.status != 200)
            .map(|r| format!("{} {}", r.method, r.path))
            .collect()
    }

    /// The `POST /v1/messages` bodies that offered tools, i.e. the agent
    /// loop's turns.
    pub fn turns(&self) -> Vec<Value> {
        self.requests()
            .iter()
            .filter(|r| r.method == "POST" && r.route() == "/v1/messages")
            .filter_map(Request::json)
            .filter(|body| body["tools"].as_array().is_some_and(|t| !t.is_empty()))
            .collect()
    }

    /// The names of the tools the model was offered in the first turn.
    pub fn offered_tools(&self) -> Vec<String> {
        self.turns()
            .first()
            .and_then(|body| body["tools"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
            .collect()
    }

    /// Every tool result the model received, in order, as of the last turn.
    pub fn tool_results(&self) -> Vec<ToolResult> {
        self.turns().last().map(tool_results).unwrap_or_default()
    }
}

fn tool_results(body: &Value) -> Vec<ToolResult> {
    let mut found = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            if block["type"] == "tool_result" {
                found.push(ToolResult {
                    tool_use_id: block["tool_use_id"].as_str().unwrap_or("").to_owned(),
                    is_error: block["is_error"].as_bool().unwrap_or(false),
                    content: text_of(&block["content"]),
                });
            }
        }
    }
    found
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn respond(script: &[Turn], request: &Request) -> Response {
    match (request.method.as_str(), request.route()) {
        ("HEAD" | "GET", "/api/hello") => Response::json(200, &json!({})),
        ("POST", "/v1/messages/count_tokens") => Response::json(200, &json!({"input_tokens": 100})),
        ("POST", "/v1/messages") => {
            let Some(body) = request.json() else {
                return Response::json(400, &error("the body is not JSON"));
            };
            let offers_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
            let done = tool_results(&body).len();
            let turn = match script.get(done) {
                Some(turn) if offers_tools => turn.clone(),
                _ => Turn::Text(FINAL_TEXT.to_owned()),
            };
            let model = body["model"].as_str().unwrap_or("claude").to_owned();
            let id = format!("toolu_{:02}", done + 1);
            if body["stream"] == true {
                Response::event_stream(events(&model, &id, &turn))
            } else {
                Response::json(200, &message(&model, &id, &turn))
            }
        }
        _ => Response::json(404, &error("not found")),
    }
}

fn error(message: &str) -> Value {
    json!({"type": "error", "error": {"type": "not_found_error", "message": message}})
}

fn usage() -> Value {
    json!({"input_tokens": 10, "output_tokens": 5})
}

fn message(model: &str, id: &str, turn: &Turn) -> Value {
    let (content, stop) = match turn {
        Turn::Tool { name, input } => (
            json!([{"type": "tool_use", "id": id, "name": name, "input": input}]),
            "tool_use",
        ),
        Turn::Text(text) => (json!([{"type": "text", "text": text}]), "end_turn"),
    };
    json!({
        "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop, "stop_sequence": null, "usage": usage(),
    })
}

fn events(model: &str, id: &str, turn: &Turn) -> String {
    let start = json!({
        "type": "message_start",
        "message": {
            "id": "msg_fake", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage(),
        },
    });
    let (block, delta, stop) = match turn {
        Turn::Tool { name, input } => (
            json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input.to_string()}),
            "tool_use",
        ),
        Turn::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
            "end_turn",
        ),
    };
    let events = [
        ("message_start", start),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": block}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

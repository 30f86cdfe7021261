//! A fake OpenAI chat-completions API that plays a scripted conversation
//! for Qwen Code, Copilot CLI, Pi and OpenCode.
//!
//! Each of them sends `POST /v1/chat/completions` per model turn, with
//! `"stream": true` (observed: Pi 0.73.1, OpenCode 1.18.33, Qwen Code
//! 0.24.4, Copilot CLI 1.0.102) and reads `data: <chunk>` events ending in
//! `data: [DONE]`. The reply to a request with tools is chosen by how many
//! `role: "tool"` messages it already carries; a request without tools
//! (OpenCode's title request) gets a short text.

use serde_json::{Value, json};

use super::Turn;
use super::http::{Limits, Request, Response, Server};

/// The text of the final answer once the script is played out.
pub const FINAL_TEXT: &str = "All done.";

/// The running fake; stops when dropped.
pub struct FakeChat {
    server: Server,
}

/// A tool result the model received.
#[derive(Debug, Clone)]
pub struct ToolResult {
    pub call_id: String,
    pub content: String,
}

impl FakeChat {
    /// Serves `script` on 127.0.0.1.
    pub fn start(script: Vec<Turn>) -> FakeChat {
        let limits = Limits {
            max_requests: 200,
            ..Limits::default()
        };
        let server = Server::start(limits, move |request| respond(&script, request));
        FakeChat { server }
    }

    /// The API's base URL, `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.url())
    }

    pub fn requests(&self) -> Vec<Request> {
        self.server.requests()
    }

    /// Every tool result the model received, as of the last turn with tools.
    pub fn results(&self) -> Vec<ToolResult> {
        self.requests()
            .iter()
            .rev()
            .filter(|r| r.method == "POST" && r.route().ends_with("/chat/completions"))
            .filter_map(Request::json)
            .find(|body| body.get("tools").is_some_and(|t| !t.is_null()))
            .map(|body| results(&body))
            .unwrap_or_default()
    }
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(|p| match p.get("text") {
                Some(Value::String(t)) => t.clone(),
                _ => p.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

fn results(body: &Value) -> Vec<ToolResult> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .map(|m| ToolResult {
            call_id: m["tool_call_id"].as_str().unwrap_or("").to_owned(),
            content: text_of(&m["content"]),
        })
        .collect()
}

fn respond(script: &[Turn], request: &Request) -> Response {
    if request.method == "GET" && request.route().ends_with("/models") {
        return Response::json(
            200,
            &json!({"object": "list", "data": [{"id": "m", "object": "model"}]}),
        );
    }
    if request.method != "POST" || !request.route().ends_with("/chat/completions") {
        return Response::json(404, &json!({"error": {"message": "not found"}}));
    }
    let Some(body) = request.json() else {
        return Response::json(400, &json!({"error": {"message": "the body is not JSON"}}));
    };
    let has_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    let done = results(&body).len();
    let delta = match (has_tools, script.get(done)) {
        (false, _) => json!({"role": "assistant", "content": "A title"}),
        (true, Some(Turn::Tool { name, input })) => json!({"role": "assistant", "tool_calls": [{
            "index": 0, "id": format!("call_{}", done + 1), "type": "function",
            "function": {"name": name, "arguments": input.to_string()},
        }]}),
        (true, Some(Turn::Text(text))) => json!({"role": "assistant", "content": text}),
        (true, None) => json!({"role": "assistant", "content": FINAL_TEXT}),
    };
    let finish = if delta.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
    if body.get("stream") != Some(&Value::Bool(true)) {
        let mut message = delta.clone();
        if let Some(calls) = message.get_mut("tool_calls").and_then(Value::as_array_mut) {
            for call in calls {
                if let Some(c) = call.as_object_mut() {
                    c.remove("index");
                }
            }
        }
        return Response::json(
            200,
            &json!({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage}),
        );
    }
    let chunk = |delta: Value, finish: Value, usage: Option<&Value>| {
        let mut c = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1,
            "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        if let Some(u) = usage {
            c["usage"] = u.clone();
        }
        format!("data: {c}\n\n")
    };
    let mut text = chunk(delta, Value::Null, None);
    text.push_str(&chunk(json!({}), json!(finish), Some(&usage)));
    text.push_str("data: [DONE]\n\n");
    Response::event_stream(text)
}

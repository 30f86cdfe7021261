//! A fake OpenAI Responses API that plays a scripted conversation for Codex
//! CLI.
//!
//! Codex CLI (observed on 0.169.0) sends `POST /v1/responses` with
//! `"stream": true` for every model turn and reads server-sent events
//! (`response.created`, `response.output_item.done`, `response.completed`).
//! Its shell tool is `exec_command` with the command line in `cmd`. The
//! reply to a turn is chosen by how many `function_call_output` items the
//! request already carries, as in the other fakes.

use serde_json::{Value, json};

use super::Turn;
use super::http::{Limits, Request, Response, Server};

/// The text of the final answer once the script is played out.
pub const FINAL_TEXT: &str = "All done.";

/// The running fake; stops when dropped.
pub struct FakeResponses {
    server: Server,
}

/// A `function_call_output` the model received.
#[derive(Debug, Clone)]
pub struct CallOutput {
    pub call_id: String,
    pub output: String,
}

impl FakeResponses {
    /// Serves `script` on 127.0.0.1; a `Turn::Tool` named `exec_command`
    /// takes `{"cmd": ..}`.
    pub fn start(script: Vec<Turn>) -> FakeResponses {
        let server = Server::start(Limits::default(), move |request| respond(&script, request));
        FakeResponses { server }
    }

    /// The provider's `base_url`.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.server.url())
    }

    pub fn requests(&self) -> Vec<Request> {
        self.server.requests()
    }

    /// Every tool output the model received, as of the last turn.
    pub fn outputs(&self) -> Vec<CallOutput> {
        self.requests()
            .iter()
            .rev()
            .filter(|r| r.method == "POST" && r.route().ends_with("/responses"))
            .find_map(Request::json)
            .map(|body| outputs(&body))
            .unwrap_or_default()
    }
}

fn outputs(body: &Value) -> Vec<CallOutput> {
    body["input"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|item| item["type"] == "function_call_output")
        .map(|item| CallOutput {
            call_id: item["call_id"].as_str().unwrap_or("").to_owned(),
            output: match &item["output"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
        })
        .collect()
}

fn respond(script: &[Turn], request: &Request) -> Response {
    if request.method != "POST" || !request.route().ends_with("/responses") {
        return Response::json(404, &json!({"error": {"message": "not found"}}));
    }
    let Some(body) = request.json() else {
        return Response::json(400, &json!({"error": {"message": "the body is not JSON"}}));
    };
    let done = outputs(&body).len();
    let item = match script.get(done) {
        Some(Turn::Tool { name, input }) => json!({
            "type": "function_call", "id": format!("fc_{done}"), "call_id": format!("call_{done}"),
            "name": name, "arguments": input.to_string(),
        }),
        Some(Turn::Text(text)) => message(text),
        None => message(FINAL_TEXT),
    };
    let events = [
        json!({"type": "response.created", "response": {"id": format!("resp_{done}")}}),
        json!({"type": "response.output_item.done", "item": item}),
        json!({"type": "response.completed", "response": {"id": format!("resp_{done}"),
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}}),
    ];
    let mut text = String::new();
    for event in events {
        text.push_str(&format!(
            "event: {}\ndata: {event}\n\n",
            event["type"].as_str().unwrap_or("")
        ));
    }
    Response::event_stream(text)
}

fn message(text: &str) -> Value {
    json!({"type": "message", "role": "assistant", "id": "msg_1",
           "content": [{"type": "output_text", "text": text}]})
}

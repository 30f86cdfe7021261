//! A fake Gemini API that plays a scripted conversation.
//!
//! Gemini CLI (observed on 0.61.0) sends
//! `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` for every model
//! turn and reads server-sent events, each `data:` line one
//! `GenerateContentResponse`. The reply to a turn is chosen by how many
//! `functionResponse` parts the request already carries, as in the Anthropic
//! fake.

use serde_json::{Value, json};

use super::Turn;
use super::http::{Limits, Request, Response, Server};

/// The text of the final answer once the script is played out.
pub const FINAL_TEXT: &str = "All done.";

/// A `functionResponse` part the model received.
#[derive(Debug, Clone)]
pub struct FunctionResponse {
    pub name: String,
    /// `{"output": ..}` when the tool ran, `{"error": ..}` when it did not.
    pub response: Value,
}

impl FunctionResponse {
    /// The `error` text, when the tool did not run or failed.
    pub fn error(&self) -> Option<&str> {
        self.response["error"].as_str()
    }
}

/// The running fake; stops when dropped.
pub struct FakeGemini {
    server: Server,
}

impl FakeGemini {
    /// Serves `script` on 127.0.0.1.
    pub fn start(script: Vec<Turn>) -> FakeGemini {
        let server = Server::start(Limits::default(), move |request| respond(&script, request));
        FakeGemini { server }
    }

    /// The value for `GOOGLE_GEMINI_BASE_URL`.
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

    /// The `streamGenerateContent` bodies that offered tools, i.e. the agent
    /// loop's turns.
    pub fn turns(&self) -> Vec<Value> {
        self.requests()
            .iter()
            .filter(|r| r.method == "POST" && r.route().ends_with(":streamGenerateContent"))
            .filter_map(Request::json)
            .filter(|body| !declarations(body).is_empty())
            .collect()
    }

    /// The names of the tools the model was offered in the first turn.
    pub fn offered_tools(&self) -> Vec<String> {
        self.turns()
            .first()
            .map(declarations)
            .unwrap_or_default()
            .iter()
            .filter_map(|d| d["name"].as_str().map(str::to_owned))
            .collect()
    }

    /// Every function response the model received, in order, as of the last
    /// turn.
    pub fn function_responses(&self) -> Vec<FunctionResponse> {
        self.turns()
            .last()
            .map(function_responses)
            .unwrap_or_default()
    }
}

fn declarations(body: &Value) -> Vec<Value> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|tool| {
            tool["functionDeclarations"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .collect()
}

fn function_responses(body: &Value) -> Vec<FunctionResponse> {
    let mut found = Vec::new();
    for content in body["contents"].as_array().into_iter().flatten() {
        for part in content["parts"].as_array().into_iter().flatten() {
            let response = &part["functionResponse"];
            if response.is_object() {
                found.push(FunctionResponse {
                    name: response["name"].as_str().unwrap_or("").to_owned(),
                    response: response["response"].clone(),
                });
            }
        }
    }
    found
}

fn respond(script: &[Turn], request: &Request) -> Response {
    let route = request.route();
    if request.method != "POST" || !route.starts_with("/v1beta/models/") {
        return Response::json(404, &error(404, "not found"));
    }
    let Some(body) = request.json() else {
        return Response::json(400, &error(400, "the body is not JSON"));
    };
    if route.ends_with(":countTokens") {
        return Response::json(200, &json!({"totalTokens": 100}));
    }
    let offers_tools = !declarations(&body).is_empty();
    let turn = match script.get(function_responses(&body).len()) {
        Some(turn) if offers_tools => turn.clone(),
        _ => Turn::Text(FINAL_TEXT.to_owned()),
    };
    let part = match turn {
        Turn::Tool { name, input } => json!({"functionCall": {"name": name, "args": input}}),
        Turn::Text(text) => json!({"text": text}),
    };
    let chunk = json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
    });
    if route.ends_with(":streamGenerateContent") {
        Response::event_stream(format!("data: {chunk}\r\n\r\n"))
    } else if route.ends_with(":generateContent") {
        Response::json(200, &chunk)
    } else {
        Response::json(404, &error(404, "not found"))
    }
}

fn error(code: u16, message: &str) -> Value {
    json!({"error": {"code": code, "message": message, "status": "NOT_FOUND"}})
}

//! GitHub Copilot CLI's `preToolUse` hook.
//!
//! Registered under `preToolUse`, Copilot CLI sends a camelCase payload
//! (`sessionId`, `timestamp`, `cwd`, `toolName`, `toolArgs`); registered
//! under `PreToolUse`, Claude Code's snake_case one (`session_id`,
//! `hook_event_name`, `tool_name` with the shell tool as `Bash`,
//! `tool_input`). Neither carries a call id. Both honour a top-level
//! `{"permissionDecision": "deny", "permissionDecisionReason": R}` on exit
//! 0 (the camelCase payload honours nothing else), and the model reads
//! `Denied by preToolUse hook: R`.
//!
//! Exit 1 and 2 block but lose the reason; an answer that is not JSON and
//! a timeout **let the call run** (observed on 1.0.102, see `PROTOCOL.md`).
//! So a failure here is the deny object too, which keeps the reason.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::InputError;
use crate::fields;
use crate::run::{HookOptions, Host, Job, Verdict, serve};
use crate::{HookReply, Permission};

/// The event name `hook install copilot` registers.
pub const EVENT: &str = "preToolUse";

/// One hook input from Copilot CLI, in either of its shapes.
#[derive(Debug, Clone, PartialEq)]
pub struct CopilotInput {
    /// The session's id.
    pub session_id: String,
    /// The directory Copilot CLI works in.
    pub cwd: PathBuf,
    /// `bash` (`Bash` in the PascalCase payload), `view`, `create`, ...
    pub tool_name: String,
    /// The tool's arguments.
    pub tool_input: Map<String, Value>,
}

impl CopilotInput {
    /// Parses the JSON Copilot CLI writes to the hook's standard input:
    /// the camelCase payload of `preToolUse`, or, when it names
    /// `hook_event_name`, the snake_case payload of `PreToolUse`.
    pub fn parse(text: &str) -> Result<CopilotInput, InputError> {
        let map = fields::object(text)?;
        if map.contains_key("hook_event_name") {
            fields::event(&map, "PreToolUse")?;
            return Ok(CopilotInput {
                session_id: fields::string(&map, "session_id")?,
                cwd: fields::cwd(&map)?,
                tool_name: fields::string(&map, "tool_name")?,
                tool_input: fields::object_field(&map, "tool_input")?,
            });
        }
        Ok(CopilotInput {
            session_id: fields::string(&map, "sessionId")?,
            cwd: fields::cwd(&map)?,
            tool_name: fields::string(&map, "toolName")?,
            tool_input: tool_args(&map)?,
        })
    }
}

/// `toolArgs`: an object as observed; a string holding one is read too,
/// strictly, as the SDK's documentation shows it that way.
fn tool_args(map: &Map<String, Value>) -> Result<Map<String, Value>, InputError> {
    match map.get("toolArgs") {
        Some(Value::String(text)) => match fields::object(text) {
            Ok(inner) => Ok(inner),
            Err(_) => Err(InputError::WrongType {
                field: "toolArgs",
                expected: "an object",
                found: "a string that is not a JSON object",
            }),
        },
        _ => fields::object_field(map, "toolArgs"),
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Output<'a> {
    permission_decision: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    permission_decision_reason: &'a str,
}

/// The answer Copilot CLI honours in both payload shapes: the top-level
/// `permissionDecision` object on exit 0.
pub fn reply(permission: Permission, reason: &str) -> HookReply {
    let reason = if permission == Permission::Deny && reason.trim().is_empty() {
        "toolgate refused the call"
    } else {
        reason
    };
    HookReply {
        stdout: serde_json::to_string(&Output {
            permission_decision: permission.as_str(),
            permission_decision_reason: reason,
        })
        // INVARIANT: the output holds only strings.
        .unwrap_or_else(|_| String::from(r#"{"permissionDecision":"deny"}"#)),
        stderr: String::new(),
        exit_code: 0,
    }
}

/// The answer when no decision could be made: the deny object on exit 0,
/// the one failure Copilot CLI both honours and shows the model the reason
/// of (exit 1 and 2 block with a generic text; a closed output pipe still
/// ends in exit 2, which blocks).
pub fn failure(message: &str) -> HookReply {
    let mut reply = reply(Permission::Deny, message);
    reply.stderr = message.to_owned();
    reply
}

/// Answers one Copilot CLI hook input. Copilot sends no call id, so the
/// call gets a fresh one.
pub fn copilot_hook(stdin: &[u8], opts: &HookOptions) -> HookReply {
    serve(
        stdin,
        opts,
        failure,
        CopilotInput::parse,
        |input: &CopilotInput| {
            Job::new(
                Host::Copilot,
                input.session_id.clone(),
                input.cwd.clone(),
                input.tool_name.clone(),
                input.tool_input.clone(),
                None,
            )
        },
        |_, verdict: &Verdict| reply(verdict.permission, &verdict.reason),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn both_observed_shapes_parse() {
        let camel = json!({"sessionId":"dea24e39-2957-438f-8f5b-497efe6ec24b",
            "timestamp":1796154905143u64,"cwd":"/ws","toolName":"bash",
            "toolArgs":{"command":"rm victim.txt","description":"run it"}});
        let input = CopilotInput::parse(&camel.to_string()).unwrap();
        assert_eq!(
            (input.tool_name.as_str(), input.session_id.len()),
            ("bash", 36)
        );
        assert_eq!(input.tool_input["command"], "rm victim.txt");

        let pascal = json!({"hook_event_name":"PreToolUse",
            "session_id":"9223a41b-272d-4a2a-8312-abb9dba89035",
            "timestamp":"2026-12-01T19:55:41.854Z","cwd":"/ws","tool_name":"Bash",
            "tool_input":{"command":"rm victim.txt","description":"run it"}});
        let input = CopilotInput::parse(&pascal.to_string()).unwrap();
        assert_eq!(input.tool_name, "Bash");
    }

    #[test]
    fn string_tool_args_are_read_strictly() {
        let text = json!({"sessionId":"s","cwd":"/ws","toolName":"bash",
            "toolArgs":"{\"command\":\"ls\"}"});
        assert_eq!(
            CopilotInput::parse(&text.to_string()).unwrap().tool_input["command"],
            "ls"
        );
        let repeated = json!({"sessionId":"s","cwd":"/ws","toolName":"bash",
            "toolArgs":"{\"command\":\"ls\",\"command\":\"rm -rf /\"}"});
        assert!(CopilotInput::parse(&repeated.to_string()).is_err());
    }

    #[test]
    fn answers_are_top_level_and_failure_keeps_the_reason() {
        assert_eq!(
            reply(Permission::Deny, "no").stdout,
            r#"{"permissionDecision":"deny","permissionDecisionReason":"no"}"#
        );
        assert_eq!(
            reply(Permission::Allow, "").stdout,
            r#"{"permissionDecision":"allow"}"#
        );
        let f = failure("policy unreadable");
        assert_eq!(f.exit_code, 0);
        assert!(f.stdout.contains(r#""permissionDecision":"deny""#));
        assert!(f.stdout.contains("policy unreadable"));
    }
}

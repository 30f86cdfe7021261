//! The hook behind toolgate's Pi extension and OpenCode plugin.
//!
//! Pi and OpenCode have no command hooks: they run JavaScript in process
//! (Pi's `tool_call` event, OpenCode's `tool.execute.before`). The
//! extension and the plugin that `hook install pi|opencode` writes
//! (`src/plugins/`) run `toolgate-hook pi|opencode` with one JSON object on
//! standard input, which this module defines:
//!
//! ```json
//! {"session_id": "…", "cwd": "/abs/project", "tool_name": "bash",
//!  "tool_input": {"command": "rm victim.txt"}, "call_id": "call_1", "can_ask": false}
//! ```
//!
//! and answer with `{"decision": "allow"|"ask"|"deny", "reason": R}` on
//! exit 0, plus `tool_input` (the whole input to run instead) for an
//! allowed or asked shell command under `--sandbox`. The extension and the
//! plugin block the call on anything but exit 0 with `allow` (or `ask`
//! answered yes by the person, in Pi with a UI): a spawn error, a non-zero
//! exit, an answer that is not this JSON, and their own timeout. A failure
//! here is a deny object on exit 2.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::InputError;
use crate::fields;
use crate::run::{HookOptions, Host, Job, Verdict, serve};
use crate::{HookReply, Permission};

/// One tool call, as the extension or the plugin sends it.
#[derive(Debug, Clone, PartialEq)]
pub struct PluginInput {
    /// The session's id (Pi: `ctx.sessionManager.getSessionId()`;
    /// OpenCode: `sessionID`).
    pub session_id: String,
    /// The project directory (Pi: `ctx.cwd`; OpenCode: the plugin's
    /// `directory`).
    pub cwd: PathBuf,
    /// The host's tool name (`bash`, `read`, `edit`, `write`, ...).
    pub tool_name: String,
    /// The tool's arguments.
    pub tool_input: Map<String, Value>,
    /// The model's call id, when sent.
    pub call_id: Option<String>,
    /// Whether the extension can put an ask to a person (Pi's
    /// `ctx.hasUI`); absent means it cannot.
    pub can_ask: bool,
}

impl PluginInput {
    /// Parses the extension's or the plugin's JSON.
    pub fn parse(text: &str) -> Result<PluginInput, InputError> {
        let map = fields::object(text)?;
        let can_ask = match map.get("can_ask") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(InputError::WrongType {
                    field: "can_ask",
                    expected: "a boolean",
                    found: fields::type_name(other),
                });
            }
        };
        Ok(PluginInput {
            session_id: fields::string(&map, "session_id")?,
            cwd: fields::cwd(&map)?,
            tool_name: fields::string(&map, "tool_name")?,
            tool_input: fields::object_field(&map, "tool_input")?,
            call_id: fields::optional_string(&map, "call_id"),
            can_ask,
        })
    }
}

#[derive(Serialize)]
struct Output<'a> {
    decision: &'static str,
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_input: Option<&'a Map<String, Value>>,
}

/// The answer for a decided call, on exit 0. `tool_input` goes with an
/// `Allow` or an `Ask` only.
pub fn reply(
    permission: Permission,
    reason: &str,
    tool_input: Option<&Map<String, Value>>,
) -> HookReply {
    let reason = if permission == Permission::Deny && reason.trim().is_empty() {
        "toolgate refused the call"
    } else {
        reason
    };
    HookReply {
        stdout: to_json(&Output {
            decision: permission.as_str(),
            reason,
            tool_input: tool_input.filter(|_| permission != Permission::Deny),
        }),
        stderr: String::new(),
        exit_code: 0,
    }
}

/// The answer when no decision could be made: a deny object, exit 2 (the
/// extension blocks on the exit status alone; the reason is for the
/// model).
pub fn failure(message: &str) -> HookReply {
    let mut reply = reply(Permission::Deny, message, None);
    reply.stderr = message.to_owned();
    reply.exit_code = 2;
    reply
}

fn to_json<T: Serialize>(value: &T) -> String {
    // INVARIANT: the output holds strings and JSON values only.
    serde_json::to_string(value)
        .unwrap_or_else(|_| String::from(r#"{"decision":"deny","reason":"toolgate"}"#))
}

fn hook(host: fn(&PluginInput) -> Host, stdin: &[u8], opts: &HookOptions) -> HookReply {
    serve(
        stdin,
        opts,
        failure,
        PluginInput::parse,
        |input: &PluginInput| {
            Job::new(
                host(input),
                input.session_id.clone(),
                input.cwd.clone(),
                input.tool_name.clone(),
                input.tool_input.clone(),
                input.call_id.clone(),
            )
        },
        |_, verdict: &Verdict| {
            reply(
                verdict.permission,
                &verdict.reason,
                verdict.updated_input.as_ref(),
            )
        },
    )
}

/// Answers one call from toolgate's Pi extension. An ask goes to the
/// person when the extension says it can ask (`can_ask`, Pi's UI).
pub fn pi_hook(stdin: &[u8], opts: &HookOptions) -> HookReply {
    hook(
        |input| Host::Pi {
            can_ask: input.can_ask,
        },
        stdin,
        opts,
    )
}

/// Answers one call from toolgate's OpenCode plugin. OpenCode's
/// `permission.ask` hook does not fire (1.18.33), so an ask is refused
/// with how to allow it, or waits in toolgate's queue.
pub fn opencode_hook(stdin: &[u8], opts: &HookOptions) -> HookReply {
    hook(|_| Host::OpenCode, stdin, opts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn input_parses_and_can_ask_defaults_to_false() {
        let text = json!({"session_id":"s","cwd":"/ws","tool_name":"bash",
            "tool_input":{"command":"ls"},"call_id":"call_1"});
        let input = PluginInput::parse(&text.to_string()).unwrap();
        assert!(!input.can_ask);
        assert_eq!(input.call_id.as_deref(), Some("call_1"));
        let mut bad = text.clone();
        bad["can_ask"] = json!("yes");
        assert!(PluginInput::parse(&bad.to_string()).is_err());
    }

    #[test]
    fn answers_and_failure() {
        let input: Map<String, Value> = serde_json::from_value(json!({"command": "x"})).unwrap();
        let allow = reply(Permission::Allow, "", Some(&input));
        assert_eq!(
            allow.stdout,
            r#"{"decision":"allow","reason":"","tool_input":{"command":"x"}}"#
        );
        let deny = reply(Permission::Deny, "", Some(&input));
        assert_eq!(
            deny.stdout,
            r#"{"decision":"deny","reason":"toolgate refused the call"}"#
        );
        let f = failure("unreadable");
        assert_eq!(f.exit_code, 2);
        assert!(f.stdout.contains("unreadable"));
    }
}

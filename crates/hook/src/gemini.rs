//! Gemini CLI's `BeforeTool` hook.
//!
//! Gemini CLI runs the hook before every tool call (built-in tools and
//! `mcp_<server>_<tool>` tools alike) and reads a `{"decision": ..}` object
//! from its standard output (from standard error when standard output is
//! empty). It honours that JSON whatever the exit status, and blocks on a
//! non-JSON answer only with an exit status of 2 or more. A hook that prints
//! nothing, times out or is killed lets the call run. See `PROTOCOL.md`.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::InputError;
use crate::fields;
use crate::{HookReply, Permission};

/// The event name Gemini CLI sends.
pub const EVENT: &str = "BeforeTool";

/// One `BeforeTool` hook input: the tool call Gemini CLI is about to make.
///
/// Gemini CLI sends no permission mode and no call id.
#[derive(Debug, Clone, PartialEq)]
pub struct GeminiInput {
    /// The session's id; the same for every call of one `gemini` run.
    pub session_id: String,
    /// The project directory; relative paths in `tool_input` are relative
    /// to it.
    pub cwd: PathBuf,
    /// The tool's name: `run_shell_command`, `read_file`, `write_file`,
    /// `replace`, ..., or `mcp_<server>_<tool>`.
    pub tool_name: String,
    /// The tool's arguments as the model wrote them (paths may be relative).
    pub tool_input: Map<String, Value>,
    /// When the hook was fired (ISO 8601), when sent.
    pub timestamp: Option<String>,
    /// The session's transcript, when sent.
    pub transcript_path: Option<PathBuf>,
    /// For an MCP tool, its server's configured name and the tool's own
    /// name on that server, when sent.
    pub mcp: Option<GeminiMcpContext>,
}

/// Which MCP server and tool an `mcp_*` call goes to.
///
/// Gemini CLI builds the tool name from both with `_` separators, which
/// cannot be split back reliably when either contains `_`; these fields can.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeminiMcpContext {
    /// The server's name in the `mcpServers` settings.
    pub server_name: String,
    /// The tool's name as the server lists it.
    pub tool_name: String,
}

impl GeminiInput {
    /// Parses the JSON Gemini CLI writes to the hook's standard input.
    ///
    /// Fails when `session_id`, `cwd`, `tool_name` or `tool_input` is missing
    /// or mistyped, when `cwd` is relative, or when the event is not
    /// `BeforeTool`. Other fields are ignored.
    pub fn parse(text: &str) -> Result<GeminiInput, InputError> {
        let map = fields::object(text)?;
        fields::event(&map, EVENT)?;
        let mcp = map
            .get("mcp_context")
            .and_then(Value::as_object)
            .and_then(|context| {
                Some(GeminiMcpContext {
                    server_name: fields::optional_string(context, "server_name")?,
                    tool_name: fields::optional_string(context, "tool_name")?,
                })
            });
        Ok(GeminiInput {
            session_id: fields::string(&map, "session_id")?,
            cwd: fields::cwd(&map)?,
            tool_name: fields::string(&map, "tool_name")?,
            tool_input: fields::object_field(&map, "tool_input")?,
            timestamp: fields::optional_string(&map, "timestamp"),
            transcript_path: fields::optional_string(&map, "transcript_path").map(PathBuf::from),
            mcp,
        })
    }
}

#[derive(Serialize)]
struct Output<'a> {
    decision: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    reason: &'a str,
}

/// The answer Gemini CLI honours for a decided call: a `decision` object on
/// standard output, exit 0.
///
/// - `Allow` lets the call go on; Gemini CLI's own approval mode and
///   policies still apply (in `yolo` mode nothing more is asked).
/// - `Deny` refuses it; the model's `functionResponse` is
///   `{"error": "Tool execution blocked: <reason>"}`.
/// - `Ask` forces Gemini CLI's confirmation prompt, even in `yolo` mode.
///   Headless (`-p`) there is nobody to answer and the run waits until it is
///   killed, so a caller that may serve a headless run should send `Deny`
///   instead.
///
/// An empty reason is left out (Gemini CLI then says `No reason provided`).
pub fn reply(permission: Permission, reason: &str) -> HookReply {
    reply_with_input(permission, reason, None)
}

/// [`reply`], and for an `Allow`, the input fields Gemini CLI is to run
/// with instead of the model's (`hookSpecificOutput.tool_input`, merged
/// into the call's parameters). Ignored for other answers.
pub fn reply_with_input(
    permission: Permission,
    reason: &str,
    tool_input: Option<&Map<String, Value>>,
) -> HookReply {
    let stdout = match tool_input.filter(|_| permission == Permission::Allow) {
        None => to_json(&Output {
            decision: permission.as_str(),
            reason,
        }),
        Some(input) => to_json(&RewriteOutput {
            decision: permission.as_str(),
            reason,
            hook_specific_output: Rewrite { tool_input: input },
        }),
    };
    HookReply {
        stdout,
        stderr: String::new(),
        exit_code: 0,
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RewriteOutput<'a> {
    decision: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    reason: &'a str,
    hook_specific_output: Rewrite<'a>,
}

#[derive(Serialize)]
struct Rewrite<'a> {
    tool_input: &'a Map<String, Value>,
}

/// The answer when no decision could be made (unreadable input or policy,
/// an internal error).
///
/// A deny object on standard output blocks the call, and exit 2 with the
/// message on standard error blocks it too should the JSON ever be ignored;
/// exit 2 alone would not, as Gemini CLI lets a call run when the hook
/// prints nothing.
pub fn failure(message: &str) -> HookReply {
    HookReply {
        stdout: to_json(&Output {
            decision: Permission::Deny.as_str(),
            reason: message,
        }),
        stderr: message.to_owned(),
        exit_code: 2,
    }
}

fn to_json<T: Serialize>(value: &T) -> String {
    // INVARIANT: the output type holds only strings, so serializing cannot fail.
    serde_json::to_string(value).unwrap_or_else(|_| String::from("{}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn minimal() -> Value {
        json!({
            "session_id": "s1",
            "cwd": "/home/dev/project",
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "ls"},
        })
    }

    fn input(value: Value) -> Result<GeminiInput, InputError> {
        GeminiInput::parse(&value.to_string())
    }

    #[test]
    fn minimal_input_parses() {
        let parsed = input(minimal()).unwrap();
        assert_eq!(parsed.tool_name, "run_shell_command");
        assert_eq!(parsed.tool_input["command"], "ls");
        assert_eq!(parsed.mcp, None);
        assert_eq!(parsed.timestamp, None);
    }

    #[test]
    fn each_required_field_is_checked() {
        for field in [
            "session_id",
            "cwd",
            "hook_event_name",
            "tool_name",
            "tool_input",
        ] {
            let mut value = minimal();
            value.as_object_mut().unwrap().remove(field);
            let err = input(value).unwrap_err();
            assert!(
                matches!(err, InputError::Missing { field: f } if f == field),
                "{field}: {err}"
            );
        }
    }

    #[test]
    fn another_event_is_refused() {
        let mut value = minimal();
        value["hook_event_name"] = json!("PreToolUse");
        assert!(matches!(
            input(value),
            Err(InputError::WrongEvent {
                expected: "BeforeTool",
                ..
            })
        ));
    }

    #[test]
    fn mcp_context_needs_both_names() {
        let mut value = minimal();
        value["mcp_context"] =
            json!({"server_name": "db", "tool_name": "query", "command": "node"});
        assert_eq!(
            input(value.clone()).unwrap().mcp,
            Some(GeminiMcpContext {
                server_name: "db".into(),
                tool_name: "query".into()
            })
        );
        value["mcp_context"] = json!({"server_name": "db"});
        assert_eq!(input(value).unwrap().mcp, None);
    }

    #[test]
    fn replies_render_the_exact_shape() {
        assert_eq!(
            reply(Permission::Deny, "not here").stdout,
            r#"{"decision":"deny","reason":"not here"}"#
        );
        assert_eq!(
            reply(Permission::Allow, "").stdout,
            r#"{"decision":"allow"}"#
        );
        assert_eq!(
            reply(Permission::Ask, "check").stdout,
            r#"{"decision":"ask","reason":"check"}"#
        );
        assert_eq!(reply(Permission::Deny, "x").exit_code, 0);
    }

    #[test]
    fn failure_denies_in_json_and_by_exit_status() {
        let failed = failure("policy unreadable");
        assert_eq!(failed.exit_code, 2);
        assert_eq!(
            failed.stdout,
            r#"{"decision":"deny","reason":"policy unreadable"}"#
        );
        assert_eq!(failed.stderr, "policy unreadable");
    }
}

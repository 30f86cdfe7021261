//! Cursor's agent hooks, from its published documentation
//! (cursor.com/docs/agent/hooks; the CLI is not installable here).
//!
//! `hook install cursor` registers `toolgate hook cursor` in
//! `.cursor/hooks.json` under the four events that can block a call, each
//! with `failClosed: true` (a crash, a timeout or an unreadable answer then
//! blocks). Every input carries `hook_event_name`, `conversation_id`,
//! `generation_id` and `workspace_roots`, and:
//!
//! - `beforeShellExecution`: `command`, `cwd`;
//! - `beforeMCPExecution`: `tool_name`, `tool_input` (an object, or a
//!   string holding one), and the server's `url` or `command`;
//! - `beforeReadFile`: `file_path`, `content` (never recorded), `attachments`;
//! - `preToolUse`: `tool_name`, `tool_input` (and `tool_use_id`, `cwd` when
//!   sent).
//!
//! The answer is `{"permission": "allow"|"deny"|"ask", "user_message",
//! "agent_message"}` (`beforeReadFile` reads `permission` only).

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::InputError;
use crate::fields;
use crate::run::{HookOptions, Host, Job, Verdict, serve};
use crate::{HookReply, Permission};

/// The events `hook install cursor` registers: exactly the documented
/// names (an unknown one voids Cursor's whole file).
pub const EVENTS: [&str; 4] = [
    "beforeShellExecution",
    "beforeMCPExecution",
    "beforeReadFile",
    "preToolUse",
];

/// Which of the four events an input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CursorEvent {
    /// `beforeShellExecution`: the call is the tool `Shell`.
    Shell,
    /// `beforeMCPExecution`: the MCP tool by its name.
    Mcp,
    /// `beforeReadFile`: the call is the tool `Read`.
    ReadFile,
    /// `preToolUse`: any tool, by its name.
    Tool,
}

/// One Cursor hook input, as a call.
#[derive(Debug, Clone, PartialEq)]
pub struct CursorInput {
    /// The event.
    pub event: CursorEvent,
    /// The conversation's id (the session).
    pub session_id: String,
    /// The directory the call runs in: `cwd` when sent, else the first
    /// workspace root.
    pub cwd: PathBuf,
    /// `Shell`, `Read`, or the tool's name.
    pub tool_name: String,
    /// The call's input (`{"command"}`, `{"file_path"}`, or the tool's).
    pub tool_input: Map<String, Value>,
    /// `tool_use_id`, when sent.
    pub call_id: Option<String>,
    /// The first of `workspace_roots`, when sent: the project policy is
    /// found from it.
    pub workspace_root: Option<PathBuf>,
}

impl CursorInput {
    /// Parses the JSON Cursor writes to the hook's standard input.
    pub fn parse(text: &str) -> Result<CursorInput, InputError> {
        let map = fields::object(text)?;
        let event = match fields::string(&map, "hook_event_name")?.as_str() {
            "beforeShellExecution" => CursorEvent::Shell,
            "beforeMCPExecution" => CursorEvent::Mcp,
            "beforeReadFile" => CursorEvent::ReadFile,
            "preToolUse" => CursorEvent::Tool,
            other => {
                return Err(InputError::WrongEvent {
                    expected: "beforeShellExecution, beforeMCPExecution, beforeReadFile or preToolUse",
                    found: other.to_owned(),
                });
            }
        };
        let session_id = fields::string(&map, "conversation_id")?;
        let workspace_root = match map.get("workspace_roots") {
            None | Some(Value::Null) => None,
            Some(Value::Array(roots)) if roots.is_empty() => None,
            Some(_) => Some(first_root(&map)?),
        };
        let cwd = match map.get("cwd") {
            Some(Value::String(s)) if !s.is_empty() => fields::cwd(&map)?,
            _ => first_root(&map)?,
        };
        let (tool_name, tool_input) = match event {
            CursorEvent::Shell => {
                let mut input = Map::new();
                input.insert(
                    "command".into(),
                    Value::String(fields::string(&map, "command")?),
                );
                ("Shell".to_owned(), input)
            }
            CursorEvent::ReadFile => {
                let mut input = Map::new();
                input.insert(
                    "file_path".into(),
                    Value::String(fields::string(&map, "file_path")?),
                );
                ("Read".to_owned(), input)
            }
            CursorEvent::Mcp | CursorEvent::Tool => {
                (fields::string(&map, "tool_name")?, tool_input(&map)?)
            }
        };
        Ok(CursorInput {
            event,
            session_id,
            cwd,
            tool_name,
            tool_input,
            call_id: fields::optional_string(&map, "tool_use_id"),
            workspace_root,
        })
    }
}

/// The first of `workspace_roots`, which must be absolute.
fn first_root(map: &Map<String, Value>) -> Result<PathBuf, InputError> {
    let roots = match map.get("workspace_roots") {
        None | Some(Value::Null) => {
            return Err(InputError::Missing {
                field: "workspace_roots",
            });
        }
        Some(Value::Array(roots)) => roots,
        Some(other) => {
            return Err(InputError::WrongType {
                field: "workspace_roots",
                expected: "an array",
                found: fields::type_name(other),
            });
        }
    };
    let Some(Value::String(root)) = roots.first() else {
        return Err(InputError::Empty {
            field: "workspace_roots",
        });
    };
    let mut one = Map::new();
    one.insert("cwd".into(), Value::String(root.clone()));
    fields::cwd(&one)
}

/// `tool_input`: an object, or a string holding one (read strictly).
fn tool_input(map: &Map<String, Value>) -> Result<Map<String, Value>, InputError> {
    match map.get("tool_input") {
        Some(Value::String(text)) => fields::object(text).map_err(|_| InputError::WrongType {
            field: "tool_input",
            expected: "an object",
            found: "a string that is not a JSON object",
        }),
        _ => fields::object_field(map, "tool_input"),
    }
}

#[derive(Serialize)]
struct Output<'a> {
    permission: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    user_message: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agent_message: Option<&'a str>,
}

/// The answer Cursor honours, on exit 0: `permission`, and for a refusal
/// or an ask the reason for the person (`user_message`) and the model
/// (`agent_message`). `beforeReadFile` gets `permission` alone.
pub fn reply(event: CursorEvent, permission: Permission, reason: &str) -> HookReply {
    let reason = if permission == Permission::Deny && reason.trim().is_empty() {
        "toolgate refused the call"
    } else {
        reason
    };
    let message =
        (event != CursorEvent::ReadFile && permission != Permission::Allow && !reason.is_empty())
            .then_some(reason);
    HookReply {
        stdout: to_json(&Output {
            permission: permission.as_str(),
            user_message: message,
            agent_message: message,
        }),
        stderr: String::new(),
        exit_code: 0,
    }
}

/// The answer when no decision could be made: a deny object and exit 2,
/// both of which Cursor takes as a refusal (and `failClosed` covers a
/// crash or a timeout).
pub fn failure(message: &str) -> HookReply {
    let mut reply = reply(CursorEvent::Shell, Permission::Deny, message);
    reply.stderr = message.to_owned();
    reply.exit_code = 2;
    reply
}

fn to_json<T: Serialize>(value: &T) -> String {
    // INVARIANT: the output holds only strings.
    serde_json::to_string(value).unwrap_or_else(|_| String::from(r#"{"permission":"deny"}"#))
}

/// Answers one Cursor hook input. Grok Build, which also runs the hooks of
/// `.cursor/hooks.json`, sends its own payload: that is answered as Grok's.
pub fn cursor_hook(stdin: &[u8], opts: &HookOptions) -> HookReply {
    if crate::grok::is_grok(stdin) {
        return crate::grok::grok_hook(stdin, opts);
    }
    serve(
        stdin,
        opts,
        failure,
        CursorInput::parse,
        |input: &CursorInput| {
            Job::new(
                Host::Cursor(input.event),
                input.session_id.clone(),
                input.cwd.clone(),
                input.tool_name.clone(),
                input.tool_input.clone(),
                input.call_id.clone(),
            )
            .in_workspace(input.workspace_root.clone())
        },
        |input: &CursorInput, verdict: &Verdict| {
            reply(input.event, verdict.permission, &verdict.reason)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn common(event: &str) -> Value {
        json!({"hook_event_name": event, "conversation_id": "conv-123",
            "generation_id": "gen-456", "workspace_roots": ["/ws"]})
    }

    #[test]
    fn each_documented_event_becomes_a_call() {
        let mut shell = common("beforeShellExecution");
        shell["command"] = json!("rm victim.txt");
        shell["cwd"] = json!("/ws/sub");
        let input = CursorInput::parse(&shell.to_string()).unwrap();
        assert_eq!(
            (input.event, input.tool_name.as_str()),
            (CursorEvent::Shell, "Shell")
        );
        assert_eq!(input.cwd, PathBuf::from("/ws/sub"));
        assert_eq!(input.tool_input["command"], "rm victim.txt");

        let mut read = common("beforeReadFile");
        read["file_path"] = json!("/ws/.env");
        read["content"] = json!("API_KEY=secret");
        let input = CursorInput::parse(&read.to_string()).unwrap();
        assert_eq!(input.tool_name, "Read");
        assert_eq!(input.cwd, PathBuf::from("/ws"));
        assert!(!input.tool_input.contains_key("content"), "never recorded");

        let mut mcp = common("beforeMCPExecution");
        mcp["tool_name"] = json!("database_query");
        mcp["tool_input"] = json!("{\"query\": \"SELECT 1\"}");
        mcp["command"] = json!("npx mcp-server");
        let input = CursorInput::parse(&mcp.to_string()).unwrap();
        assert_eq!(input.tool_input["query"], "SELECT 1");

        let mut tool = common("preToolUse");
        tool["tool_name"] = json!("Write");
        tool["tool_input"] = json!({"file_path": "a.txt", "contents": "x"});
        let input = CursorInput::parse(&tool.to_string()).unwrap();
        assert_eq!(input.event, CursorEvent::Tool);
    }

    #[test]
    fn unknown_events_and_missing_roots_are_refused() {
        assert!(CursorInput::parse(&common("afterFileEdit").to_string()).is_err());
        let mut shell = common("beforeShellExecution");
        shell["command"] = json!("ls");
        shell.as_object_mut().unwrap().remove("workspace_roots");
        assert!(CursorInput::parse(&shell.to_string()).is_err());
        shell["workspace_roots"] = json!(["relative"]);
        assert!(CursorInput::parse(&shell.to_string()).is_err());
    }

    #[test]
    fn answers() {
        assert_eq!(
            reply(CursorEvent::Shell, Permission::Deny, "no").stdout,
            r#"{"permission":"deny","user_message":"no","agent_message":"no"}"#
        );
        assert_eq!(
            reply(CursorEvent::ReadFile, Permission::Deny, "no").stdout,
            r#"{"permission":"deny"}"#
        );
        assert_eq!(
            reply(CursorEvent::Shell, Permission::Allow, "").stdout,
            r#"{"permission":"allow"}"#
        );
        let f = failure("unreadable");
        assert_eq!(f.exit_code, 2);
        assert!(f.stdout.starts_with(r#"{"permission":"deny""#));
    }
}

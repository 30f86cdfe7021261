//! Claude Code's `PreToolUse` hook.
//!
//! Claude Code runs the hook before every tool call (built-in tools and
//! `mcp__server__tool` tools alike) and reads a
//! `{"hookSpecificOutput": {"permissionDecision": ..}}` object from its
//! standard output. Only that shape on exit 0 (or 1), and exit 2, change what
//! happens; anything else it cannot parse is ignored and the call goes on to
//! Claude Code's own permission rules. See `PROTOCOL.md`.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::InputError;
use crate::fields;
use crate::{HookReply, Permission};

/// The event name Claude Code sends, and expects back in the answer.
pub const EVENT: &str = "PreToolUse";

/// One `PreToolUse` hook input: the tool call Claude Code is about to make.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaudeInput {
    /// The conversation's id; the same for every call of one `claude` run.
    pub session_id: String,
    /// The directory Claude Code works in; relative paths in `tool_input`
    /// are relative to it.
    pub cwd: PathBuf,
    /// The permission mode the session runs in.
    pub permission_mode: ClaudePermissionMode,
    /// The tool's name: `Bash`, `Read`, `Write`, `Edit`, ..., or
    /// `mcp__<server>__<tool>`.
    pub tool_name: String,
    /// The tool's arguments as the model wrote them (after Claude Code filled
    /// in defaults such as `Edit`'s `replace_all`).
    pub tool_input: Map<String, Value>,
    /// The id of the model's `tool_use` block, when sent.
    pub tool_use_id: Option<String>,
    /// The conversation transcript, when sent.
    pub transcript_path: Option<PathBuf>,
    /// For an MCP tool, the name of its server as configured, when sent.
    pub mcp_server: Option<String>,
}

impl ClaudeInput {
    /// Parses the JSON Claude Code writes to the hook's standard input.
    ///
    /// Fails when `session_id`, `cwd`, `tool_name` or `tool_input` is
    /// missing or mistyped, when `cwd` is relative, or when the event is not
    /// `PreToolUse`. A missing `permission_mode` (older and third-party
    /// senders omit it) is `default`: the mode that loosens nothing; a
    /// mistyped one is an error. Other fields are ignored.
    pub fn parse(text: &str) -> Result<ClaudeInput, InputError> {
        let map = fields::object(text)?;
        fields::event(&map, EVENT)?;
        let mcp_server = map
            .get("mcp_server")
            .and_then(Value::as_object)
            .and_then(|server| fields::optional_string(server, "name"));
        Ok(ClaudeInput {
            session_id: fields::string(&map, "session_id")?,
            cwd: fields::cwd(&map)?,
            permission_mode: match map.get("permission_mode") {
                None | Some(Value::Null) => ClaudePermissionMode::Default,
                Some(_) => {
                    ClaudePermissionMode::from_wire(&fields::string(&map, "permission_mode")?)
                }
            },
            tool_name: fields::string(&map, "tool_name")?,
            tool_input: fields::object_field(&map, "tool_input")?,
            tool_use_id: fields::optional_string(&map, "tool_use_id"),
            transcript_path: fields::optional_string(&map, "transcript_path").map(PathBuf::from),
            mcp_server,
        })
    }
}

/// Claude Code's permission modes, as its hook input names them.
///
/// Kept open (`Other`) because Claude Code adds modes over time; a caller
/// that maps modes onto policy behaviour must treat an unknown one
/// conservatively.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ClaudePermissionMode {
    /// `default`: Claude Code asks before edits and most commands.
    Default,
    /// `acceptEdits`: file edits in the working directories are accepted.
    AcceptEdits,
    /// `plan`: read-only planning.
    Plan,
    /// `dontAsk`: whatever would be asked is refused.
    DontAsk,
    /// `bypassPermissions`: nothing is asked.
    BypassPermissions,
    /// `auto`: a classifier decides what would be asked.
    Auto,
    /// A mode this crate does not know, verbatim.
    Other(String),
}

impl ClaudePermissionMode {
    /// The mode for a `permission_mode` value.
    pub fn from_wire(value: &str) -> ClaudePermissionMode {
        match value {
            "default" => ClaudePermissionMode::Default,
            "acceptEdits" => ClaudePermissionMode::AcceptEdits,
            "plan" => ClaudePermissionMode::Plan,
            "dontAsk" => ClaudePermissionMode::DontAsk,
            "bypassPermissions" => ClaudePermissionMode::BypassPermissions,
            "auto" => ClaudePermissionMode::Auto,
            other => ClaudePermissionMode::Other(other.to_owned()),
        }
    }

    /// The `permission_mode` value for this mode.
    pub fn as_str(&self) -> &str {
        match self {
            ClaudePermissionMode::Default => "default",
            ClaudePermissionMode::AcceptEdits => "acceptEdits",
            ClaudePermissionMode::Plan => "plan",
            ClaudePermissionMode::DontAsk => "dontAsk",
            ClaudePermissionMode::BypassPermissions => "bypassPermissions",
            ClaudePermissionMode::Auto => "auto",
            ClaudePermissionMode::Other(other) => other,
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Output<'a> {
    hook_specific_output: SpecificOutput<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SpecificOutput<'a> {
    hook_event_name: &'static str,
    permission_decision: &'static str,
    #[serde(skip_serializing_if = "str::is_empty")]
    permission_decision_reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    updated_input: Option<&'a Map<String, Value>>,
}

/// The answer Claude Code honours for a decided call: the
/// `hookSpecificOutput` object on standard output, exit 0.
///
/// - `Allow` runs the call without Claude Code's own prompt, but Claude
///   Code's `deny` and `ask` rules in its settings still apply on top.
/// - `Deny` refuses it; the model's `tool_result` is
///   `PreToolUse:<tool> hook error: <reason>` with `is_error: true`.
/// - `Ask` makes Claude Code prompt the user; with no one to prompt (`-p`)
///   the call is refused and the model receives `<reason>` alone, so the
///   reason must make sense on its own.
///
/// An empty reason is left out (Claude Code then says `Blocked by hook`).
pub fn reply(permission: Permission, reason: &str) -> HookReply {
    reply_with_input(permission, reason, None)
}

/// [`reply`], and for an `Allow` or an `Ask`, the input Claude Code is to
/// run instead of the model's (`updatedInput`: the whole input, as Claude
/// Code replaces it, not merges it; with `ask` the person is shown, and
/// approves, the replaced input). Ignored for a `Deny`.
pub fn reply_with_input(
    permission: Permission,
    reason: &str,
    updated_input: Option<&Map<String, Value>>,
) -> HookReply {
    let output = Output {
        hook_specific_output: SpecificOutput {
            hook_event_name: EVENT,
            permission_decision: permission.as_str(),
            permission_decision_reason: reason,
            updated_input: updated_input
                .filter(|_| matches!(permission, Permission::Allow | Permission::Ask)),
        },
    };
    HookReply {
        stdout: to_json(&output),
        stderr: String::new(),
        exit_code: 0,
    }
}

/// The answer when no decision could be made (unreadable input or policy,
/// an internal error): exit 2 with the message on standard error.
///
/// Exit 2 is the one answer Claude Code treats as a refusal whatever the
/// standard output says, so this blocks the call even if the JSON protocol
/// changes. The model receives `PreToolUse:<tool> hook error: [<hook
/// command>]: <message>`.
pub fn failure(message: &str) -> HookReply {
    HookReply {
        stdout: String::new(),
        stderr: message.to_owned(),
        exit_code: 2,
    }
}

fn to_json<T: Serialize>(value: &T) -> String {
    // INVARIANT: the output types hold only strings, so serializing cannot fail.
    serde_json::to_string(value).unwrap_or_else(|_| String::from("{}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(value: Value) -> Result<ClaudeInput, InputError> {
        ClaudeInput::parse(&value.to_string())
    }

    fn minimal() -> Value {
        json!({
            "session_id": "s1",
            "cwd": "/home/dev/project",
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
        })
    }

    #[test]
    fn minimal_input_parses_and_optional_fields_are_absent() {
        let parsed = input(minimal()).unwrap();
        assert_eq!(parsed.tool_name, "Bash");
        assert_eq!(parsed.cwd, PathBuf::from("/home/dev/project"));
        assert_eq!(parsed.permission_mode, ClaudePermissionMode::Default);
        assert_eq!(parsed.tool_use_id, None);
        assert_eq!(parsed.transcript_path, None);
        assert_eq!(parsed.mcp_server, None);
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let mut value = minimal();
        value["effort"] = json!({"level": "medium"});
        value["some_future_field"] = json!([1, 2, 3]);
        assert!(input(value).is_ok());
    }

    #[test]
    fn a_missing_permission_mode_is_the_default_mode_and_a_mistyped_one_an_error() {
        let mut value = minimal();
        value.as_object_mut().unwrap().remove("permission_mode");
        assert_eq!(
            input(value).unwrap().permission_mode,
            ClaudePermissionMode::Default
        );
        let mut value = minimal();
        value["permission_mode"] = json!(3);
        assert!(input(value).is_err());
    }

    #[test]
    fn each_required_field_is_checked() {
        for field in ["session_id", "cwd", "tool_name", "tool_input"] {
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
    fn mistyped_fields_are_refused_with_their_name() {
        let cases = [
            (
                "tool_name",
                json!(7),
                "hook input field `tool_name` must be a string, got a number",
            ),
            (
                "tool_input",
                json!("ls"),
                "hook input field `tool_input` must be an object, got a string",
            ),
            (
                "tool_input",
                json!([]),
                "hook input field `tool_input` must be an object, got an array",
            ),
            (
                "session_id",
                json!(""),
                "hook input field `session_id` must not be empty",
            ),
            (
                "cwd",
                json!("project"),
                "hook input field `cwd` must be an absolute path, got `project`",
            ),
            (
                "tool_name",
                Value::Null,
                "hook input has no `tool_name` field",
            ),
        ];
        for (field, bad, message) in cases {
            let mut value = minimal();
            value[field] = bad;
            assert_eq!(input(value).unwrap_err().to_string(), message);
        }
    }

    #[test]
    fn another_event_is_refused() {
        let mut value = minimal();
        value["hook_event_name"] = json!("PostToolUse");
        assert_eq!(
            input(value).unwrap_err().to_string(),
            "hook input is for the event `PostToolUse`, expected `PreToolUse`"
        );
    }

    #[test]
    fn non_objects_are_refused() {
        assert!(matches!(
            ClaudeInput::parse("[1]"),
            Err(InputError::NotAnObject { found: "an array" })
        ));
        assert!(matches!(ClaudeInput::parse("{"), Err(InputError::Json(_))));
        assert!(matches!(ClaudeInput::parse(""), Err(InputError::Json(_))));
    }

    #[test]
    fn modes_round_trip_and_unknown_modes_are_kept() {
        for mode in [
            "default",
            "acceptEdits",
            "plan",
            "dontAsk",
            "bypassPermissions",
            "auto",
            "later",
        ] {
            assert_eq!(ClaudePermissionMode::from_wire(mode).as_str(), mode);
        }
        assert_eq!(
            ClaudePermissionMode::from_wire("later"),
            ClaudePermissionMode::Other("later".into())
        );
    }

    #[test]
    fn malformed_informative_fields_count_as_absent() {
        let mut value = minimal();
        value["mcp_server"] = json!("echo");
        value["tool_use_id"] = json!(5);
        let parsed = input(value).unwrap();
        assert_eq!(parsed.mcp_server, None);
        assert_eq!(parsed.tool_use_id, None);
    }

    #[test]
    fn replies_render_the_exact_shape() {
        let deny = reply(Permission::Deny, "no \"rm\" here");
        assert_eq!(
            deny.stdout,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no \"rm\" here"}}"#
        );
        assert_eq!((deny.exit_code, deny.stderr.as_str()), (0, ""));

        let allow = reply(Permission::Allow, "");
        assert_eq!(
            allow.stdout,
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#
        );
        let ask: Value = serde_json::from_str(&reply(Permission::Ask, "why").stdout).unwrap();
        assert_eq!(ask["hookSpecificOutput"]["permissionDecision"], "ask");
        assert_eq!(ask["hookSpecificOutput"]["permissionDecisionReason"], "why");
    }

    #[test]
    fn failure_blocks_with_exit_2_and_stderr() {
        let failed = failure("policy unreadable");
        assert_eq!(failed.exit_code, 2);
        assert_eq!(failed.stdout, "");
        assert_eq!(failed.stderr, "policy unreadable");
    }
}

//! Codex CLI's `PreToolUse` and `PermissionRequest` hooks.
//!
//! Codex runs `PreToolUse` before a shell command (`tool_name` `Bash`,
//! `tool_input.command` the command line), an `apply_patch` or an MCP tool
//! call. That event can only block: a
//! `{"hookSpecificOutput": {"permissionDecision": "deny", ..}}` object on
//! exit 0, or exit 2 with the reason on standard error; an empty answer lets
//! the call go on to Codex's own approval policy and sandbox. `allow` and
//! `ask` are not honoured there (Codex reports them as invalid hook output
//! and goes on).
//!
//! `PermissionRequest` runs when Codex itself would ask the person (an
//! escalation out of its sandbox, a network request). That event can allow
//! (`decision.behavior = "allow"`) or deny (`"deny"` with a `message`, or
//! exit 2); an empty answer leaves the question to Codex's own prompt.
//!
//! A hook that crashes, times out or prints something unparsable counts as
//! "no verdict" and the call goes on, so every failure here is exit 2 with
//! the reason on standard error, which both events take as a refusal. See
//! `PROTOCOL.md`.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::InputError;
use crate::fields;
use crate::{HookReply, Permission};

/// The event that can only block.
pub const PRE_TOOL_USE: &str = "PreToolUse";
/// The event that answers Codex's own permission question.
pub const PERMISSION_REQUEST: &str = "PermissionRequest";

/// Which of Codex's two events an input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CodexEvent {
    /// Before a tool runs: deny or nothing.
    PreToolUse,
    /// Codex would ask the person: allow, deny or nothing.
    PermissionRequest,
}

impl CodexEvent {
    /// The `hook_event_name` value.
    pub fn as_str(self) -> &'static str {
        match self {
            CodexEvent::PreToolUse => PRE_TOOL_USE,
            CodexEvent::PermissionRequest => PERMISSION_REQUEST,
        }
    }
}

/// One Codex hook input.
#[derive(Debug, Clone, PartialEq)]
pub struct CodexInput {
    /// The event.
    pub event: CodexEvent,
    /// The thread's id; the same for every call of one `codex` run.
    pub session_id: String,
    /// The directory the command runs in.
    pub cwd: PathBuf,
    /// Codex's permission mode (`default`, `bypassPermissions`, ...).
    pub permission_mode: Option<String>,
    /// `Bash`, `apply_patch`, `NetworkAccess`, or an MCP tool's name.
    pub tool_name: String,
    /// The tool's arguments (`{"command": ..}` for shell commands).
    pub tool_input: Map<String, Value>,
    /// The model's call id (`PreToolUse` only).
    pub tool_use_id: Option<String>,
}

impl CodexInput {
    /// Parses the JSON Codex writes to the hook's standard input.
    ///
    /// Fails when `session_id`, `cwd`, `hook_event_name`, `tool_name` or
    /// `tool_input` is missing or mistyped, when `cwd` is relative, or when
    /// the event is neither `PreToolUse` nor `PermissionRequest`.
    pub fn parse(text: &str) -> Result<CodexInput, InputError> {
        let map = fields::object(text)?;
        let event = match fields::string(&map, "hook_event_name")?.as_str() {
            PRE_TOOL_USE => CodexEvent::PreToolUse,
            PERMISSION_REQUEST => CodexEvent::PermissionRequest,
            other => {
                return Err(InputError::WrongEvent {
                    expected: "PreToolUse or PermissionRequest",
                    found: other.to_owned(),
                });
            }
        };
        Ok(CodexInput {
            event,
            session_id: fields::string(&map, "session_id")?,
            cwd: fields::cwd(&map)?,
            permission_mode: fields::optional_string(&map, "permission_mode"),
            tool_name: fields::string(&map, "tool_name")?,
            tool_input: fields::object_field(&map, "tool_input")?,
            tool_use_id: fields::optional_string(&map, "tool_use_id"),
        })
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PreOutput<'a> {
    hook_specific_output: PreSpecific<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PreSpecific<'a> {
    hook_event_name: &'static str,
    permission_decision: &'static str,
    permission_decision_reason: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RequestOutput<'a> {
    hook_specific_output: RequestSpecific<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RequestSpecific<'a> {
    hook_event_name: &'static str,
    decision: RequestDecision<'a>,
}

#[derive(Serialize)]
struct RequestDecision<'a> {
    behavior: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

/// The answer Codex honours for a decided call.
///
/// - `PreToolUse`: `Deny` is the deny object on exit 0; `Allow` and `Ask`
///   print nothing, since Codex honours neither there (the caller refuses
///   an ask it cannot hand over before it gets here).
/// - `PermissionRequest`: `Allow` and `Deny` are the decision object;
///   `Ask` prints nothing, which leaves the question to Codex's own
///   prompt.
///
/// A `Deny` with an empty reason would be ignored by Codex, so a fixed
/// reason stands in.
pub fn reply(event: CodexEvent, permission: Permission, reason: &str) -> HookReply {
    let reason = if reason.trim().is_empty() {
        "toolgate refused the call"
    } else {
        reason
    };
    let stdout = match (event, permission) {
        (CodexEvent::PreToolUse, Permission::Deny) => to_json(&PreOutput {
            hook_specific_output: PreSpecific {
                hook_event_name: PRE_TOOL_USE,
                permission_decision: "deny",
                permission_decision_reason: reason,
            },
        }),
        (CodexEvent::PreToolUse, _) | (CodexEvent::PermissionRequest, Permission::Ask) => {
            String::new()
        }
        (CodexEvent::PermissionRequest, Permission::Allow) => to_json(&RequestOutput {
            hook_specific_output: RequestSpecific {
                hook_event_name: PERMISSION_REQUEST,
                decision: RequestDecision {
                    behavior: "allow",
                    message: None,
                },
            },
        }),
        (CodexEvent::PermissionRequest, Permission::Deny) => to_json(&RequestOutput {
            hook_specific_output: RequestSpecific {
                hook_event_name: PERMISSION_REQUEST,
                decision: RequestDecision {
                    behavior: "deny",
                    message: Some(reason),
                },
            },
        }),
    };
    HookReply {
        stdout,
        stderr: String::new(),
        exit_code: 0,
    }
}

/// The answer when no decision could be made: exit 2 with the message on
/// standard error, which both events take as a refusal.
pub fn failure(message: &str) -> HookReply {
    let message = if message.trim().is_empty() {
        "toolgate: the call was blocked"
    } else {
        message
    };
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

    /// What Codex 0.169.0 sent for `echo hi > marker` (PROTOCOL.md).
    fn observed() -> Value {
        json!({
            "session_id": "01a230e5-5a70-7f03-9c1c-6394618178d4",
            "turn_id": "01a230e5-5a8a-7ea2-b355-055a228599ff",
            "transcript_path": "/tmp/home/sessions/rollout.jsonl",
            "cwd": "/tmp/ws",
            "hook_event_name": "PreToolUse",
            "model": "gpt-test",
            "permission_mode": "bypassPermissions",
            "tool_name": "Bash",
            "tool_input": {"command": "echo hi > /tmp/ws/marker"},
            "tool_use_id": "call_1"
        })
    }

    #[test]
    fn the_observed_input_parses() {
        let input = CodexInput::parse(&observed().to_string()).unwrap();
        assert_eq!(input.event, CodexEvent::PreToolUse);
        assert_eq!(input.tool_name, "Bash");
        assert_eq!(input.tool_input["command"], "echo hi > /tmp/ws/marker");
        assert_eq!(input.tool_use_id.as_deref(), Some("call_1"));
    }

    #[test]
    fn other_events_and_missing_fields_are_refused() {
        let mut v = observed();
        v["hook_event_name"] = json!("PostToolUse");
        assert!(CodexInput::parse(&v.to_string()).is_err());
        for field in ["session_id", "cwd", "tool_name", "tool_input"] {
            let mut v = observed();
            v.as_object_mut().unwrap().remove(field);
            assert!(CodexInput::parse(&v.to_string()).is_err(), "{field}");
        }
        let mut v = observed();
        v["cwd"] = json!("relative");
        assert!(CodexInput::parse(&v.to_string()).is_err());
    }

    #[test]
    fn answers_have_the_shapes_codex_honours() {
        let deny = reply(CodexEvent::PreToolUse, Permission::Deny, "no");
        let v: Value = serde_json::from_str(&deny.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(v["hookSpecificOutput"]["permissionDecisionReason"], "no");
        assert_eq!(
            reply(CodexEvent::PreToolUse, Permission::Allow, "").stdout,
            ""
        );
        let allow = reply(CodexEvent::PermissionRequest, Permission::Allow, "ok");
        let v: Value = serde_json::from_str(&allow.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["decision"]["behavior"], "allow");
        let deny = reply(CodexEvent::PermissionRequest, Permission::Deny, "");
        let v: Value = serde_json::from_str(&deny.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["decision"]["behavior"], "deny");
        assert!(
            !v["hookSpecificOutput"]["decision"]["message"]
                .as_str()
                .unwrap()
                .is_empty()
        );
        let f = failure("");
        assert_eq!(f.exit_code, 2);
        assert!(!f.stderr.is_empty());
    }
}

//! Qwen Code's `PreToolUse` hook.
//!
//! Qwen Code (a Gemini CLI fork) sends Claude Code's snake_case payload
//! (`session_id`, `cwd`, `hook_event_name`, `permission_mode`,
//! `tool_name`, `tool_input`, `tool_use_id`, `tool_call_id`) with its own
//! tool names (`run_shell_command`, `read_file`, `edit`, ...), and honours
//! Claude Code's `hookSpecificOutput.permissionDecision` on exit 0, or
//! exit 2 with the reason on standard error.
//!
//! It **fails open**: exit 1, an answer that is not JSON, a top-level
//! `permissionDecision` and a timeout all let the call run (observed on
//! 0.24.4, see `PROTOCOL.md`). So every answer here is the
//! `hookSpecificOutput` object on exit 0 or exit 2, and `hook install qwen`
//! registers a timeout above any queue wait.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::error::InputError;
use crate::fields;
use crate::run::{HookOptions, Host, Job, Verdict, serve};
use crate::{HookReply, Permission, claude};

/// The event name Qwen Code sends, and expects back.
pub const EVENT: &str = "PreToolUse";

/// One `PreToolUse` input from Qwen Code.
#[derive(Debug, Clone, PartialEq)]
pub struct QwenInput {
    /// The session's id.
    pub session_id: String,
    /// The directory Qwen Code works in.
    pub cwd: PathBuf,
    /// `run_shell_command`, `read_file`, `write_file`, `edit`, ...
    pub tool_name: String,
    /// The tool's arguments.
    pub tool_input: Map<String, Value>,
    /// The model's call id (`tool_call_id`), else Qwen's own
    /// (`tool_use_id`), when sent.
    pub call_id: Option<String>,
    /// `default`, `auto-edit`, `yolo`, ..., when sent.
    pub permission_mode: Option<String>,
}

impl QwenInput {
    /// Parses the JSON Qwen Code writes to the hook's standard input.
    pub fn parse(text: &str) -> Result<QwenInput, InputError> {
        let map = fields::object(text)?;
        fields::event(&map, EVENT)?;
        Ok(QwenInput {
            session_id: fields::string(&map, "session_id")?,
            cwd: fields::cwd(&map)?,
            tool_name: fields::string(&map, "tool_name")?,
            tool_input: fields::object_field(&map, "tool_input")?,
            call_id: fields::optional_string(&map, "tool_call_id")
                .or_else(|| fields::optional_string(&map, "tool_use_id")),
            permission_mode: fields::optional_string(&map, "permission_mode"),
        })
    }
}

/// The answer Qwen Code honours: Claude Code's `hookSpecificOutput` object
/// on exit 0. `Ask` is never sent (toolgate refuses an ask Qwen Code would
/// have to put to a person, or waits in its queue), but would block in a
/// headless run as observed.
pub fn reply(permission: Permission, reason: &str) -> HookReply {
    claude::reply(permission, reason)
}

/// The answer when no decision could be made: exit 2 with the reason on
/// standard error, which Qwen Code takes as a refusal and shows the model.
pub fn failure(message: &str) -> HookReply {
    claude::failure(message)
}

/// Answers one Qwen Code `PreToolUse` hook input.
pub fn qwen_hook(stdin: &[u8], opts: &HookOptions) -> HookReply {
    serve(
        stdin,
        opts,
        failure,
        QwenInput::parse,
        |input: &QwenInput| {
            Job::new(
                Host::Qwen,
                input.session_id.clone(),
                input.cwd.clone(),
                input.tool_name.clone(),
                input.tool_input.clone(),
                input.call_id.clone(),
            )
        },
        |_, verdict: &Verdict| reply(verdict.permission, &verdict.reason),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What Qwen Code 0.24.4 sent for `rm victim.txt` (`/work/shared`
    /// observation, in PROTOCOL.md).
    fn observed() -> Value {
        json!({"session_id":"2b9d4770-3c47-42a5-9f21-be1756878b24",
            "transcript_path":"/h/.qwen/projects/-ws/chats/2b9d4770.jsonl","cwd":"/ws",
            "hook_event_name":"PreToolUse","timestamp":"2026-12-01T19:54:35.740Z",
            "permission_mode":"yolo","prompt_id":"2b9d4770########0",
            "tool_name":"run_shell_command","tool_input":{"command":"rm victim.txt"},
            "tool_use_id":"toolu_1796154875740_42jriz99u","tool_call_id":"call_1"})
    }

    #[test]
    fn the_observed_input_parses_with_the_models_call_id() {
        let input = QwenInput::parse(&observed().to_string()).unwrap();
        assert_eq!(input.tool_name, "run_shell_command");
        assert_eq!(input.call_id.as_deref(), Some("call_1"));
        assert_eq!(input.permission_mode.as_deref(), Some("yolo"));
    }

    #[test]
    fn answers_are_the_hook_specific_object_or_exit_2() {
        let deny: Value = serde_json::from_str(&reply(Permission::Deny, "no").stdout).unwrap();
        assert_eq!(deny["hookSpecificOutput"]["permissionDecision"], "deny");
        assert_eq!(deny["hookSpecificOutput"]["hookEventName"], "PreToolUse");
        let f = failure("bad");
        assert_eq!((f.exit_code, f.stderr.as_str()), (2, "bad"));
    }
}

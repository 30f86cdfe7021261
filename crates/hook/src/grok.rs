//! Grok Build's `PreToolUse` hook, from its published documentation
//! (docs.x.ai, "Build › Hooks"; the binary is not installable here).
//!
//! Grok reads its own hook files (`.grok/hooks/*.json`, `~/.grok/hooks/`)
//! and also Claude Code's `.claude/settings.json` and Cursor's
//! `.cursor/hooks.json`, and runs their commands with **its own payload**:
//! camelCase `hookEventName` (`pre_tool_use`), `sessionId`, `cwd`,
//! `workspaceRoot`, `toolName` (its own tool names: `run_terminal_command`,
//! `read_file`, `search_replace`, ...) and `toolInput`. It honours
//! `{"decision": "deny", "reason": R}`; a hook's default timeout is 5 s.
//!
//! So `toolgate hook claude` and `toolgate hook cursor` recognise this
//! payload ([`is_grok`]) and answer it here, in Grok's words, instead of
//! failing on it or misreading it.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::InputError;
use crate::fields;
use crate::run::{HookOptions, Host, Job, Verdict, serve};
use crate::{HookReply, Permission};

/// The event name `hook install grok` registers.
pub const EVENT: &str = "PreToolUse";

/// The event names a Grok pre-tool payload may carry.
const EVENTS: [&str; 2] = ["pre_tool_use", "PreToolUse"];

/// One pre-tool input from Grok Build.
#[derive(Debug, Clone, PartialEq)]
pub struct GrokInput {
    /// The session's id.
    pub session_id: String,
    /// The directory Grok works in.
    pub cwd: PathBuf,
    /// Grok's tool name.
    pub tool_name: String,
    /// The tool's arguments.
    pub tool_input: Map<String, Value>,
    /// The workspace root, when sent (an absolute path): the project
    /// policy is found from it.
    pub workspace_root: Option<PathBuf>,
}

impl GrokInput {
    /// Parses Grok's payload. Fails on another event than the pre-tool
    /// one, on a missing or mistyped `sessionId`, `cwd`, `toolName` or
    /// `toolInput`, and on a `workspaceRoot` that is not an absolute path.
    pub fn parse(text: &str) -> Result<GrokInput, InputError> {
        let map = fields::object(text)?;
        let event = fields::string(&map, "hookEventName")?;
        if !EVENTS.contains(&event.as_str()) {
            return Err(InputError::WrongEvent {
                expected: "pre_tool_use",
                found: event,
            });
        }
        Ok(GrokInput {
            session_id: fields::string(&map, "sessionId")?,
            cwd: fields::cwd(&map)?,
            tool_name: fields::string(&map, "toolName")?,
            tool_input: fields::object_field(&map, "toolInput")?,
            workspace_root: fields::optional_absolute(&map, "workspaceRoot")?,
        })
    }
}

/// Whether a hook input is Grok's payload: a JSON object naming its event
/// in `hookEventName` and not in Claude Code's `hook_event_name`.
pub fn is_grok(stdin: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(stdin) else {
        return false;
    };
    match fields::object(text) {
        Ok(map) => map.contains_key("hookEventName") && !map.contains_key("hook_event_name"),
        Err(_) => false,
    }
}

#[derive(Serialize)]
struct Output<'a> {
    decision: &'static str,
    reason: &'a str,
}

/// The answer Grok honours: nothing on exit 0 lets the call go on; a deny
/// is `{"decision": "deny", "reason": R}`. An ask is never sent: Grok's
/// hook cannot ask, so toolgate refuses it with how to allow it (or waits
/// in its queue).
pub fn reply(permission: Permission, reason: &str) -> HookReply {
    let stdout = match permission {
        Permission::Allow => String::new(),
        Permission::Ask | Permission::Deny => deny_json(reason),
    };
    HookReply {
        stdout,
        stderr: String::new(),
        exit_code: 0,
    }
}

fn deny_json(reason: &str) -> String {
    let reason = if reason.trim().is_empty() {
        "toolgate refused the call"
    } else {
        reason
    };
    // INVARIANT: the output holds only strings.
    serde_json::to_string(&Output {
        decision: "deny",
        reason,
    })
    .unwrap_or_else(|_| String::from(r#"{"decision":"deny"}"#))
}

/// The answer when no decision could be made: the deny object, and exit 2
/// with the reason on standard error (Claude Code's blocking exit, which a
/// Claude-compatible host honours should the JSON be ignored).
pub fn failure(message: &str) -> HookReply {
    HookReply {
        stdout: deny_json(message),
        stderr: message.to_owned(),
        exit_code: 2,
    }
}

/// Answers one Grok Build pre-tool input. Grok sends no call id, so the
/// call gets a fresh one.
pub fn grok_hook(stdin: &[u8], opts: &HookOptions) -> HookReply {
    serve(
        stdin,
        opts,
        failure,
        GrokInput::parse,
        |input: &GrokInput| {
            Job::new(
                Host::Grok,
                input.session_id.clone(),
                input.cwd.clone(),
                input.tool_name.clone(),
                input.tool_input.clone(),
                None,
            )
            .in_workspace(input.workspace_root.clone())
        },
        |_, verdict: &Verdict| reply(verdict.permission, &verdict.reason),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The payload as Grok's documentation describes it.
    fn documented() -> Value {
        json!({"hookEventName":"pre_tool_use","sessionId":"g1","cwd":"/ws",
            "workspaceRoot":"/ws","toolName":"run_terminal_command",
            "toolInput":{"command":"rm victim.txt"}})
    }

    #[test]
    fn the_documented_payload_parses_and_is_recognised() {
        let text = documented().to_string();
        assert!(is_grok(text.as_bytes()));
        let input = GrokInput::parse(&text).unwrap();
        assert_eq!(input.tool_name, "run_terminal_command");
        assert_eq!(input.workspace_root, Some(PathBuf::from("/ws")));
        let claude = json!({"hook_event_name":"PreToolUse","session_id":"s"}).to_string();
        assert!(!is_grok(claude.as_bytes()));
        assert!(!is_grok(b"not json"));
    }

    #[test]
    fn other_events_are_refused() {
        let mut v = documented();
        v["hookEventName"] = json!("post_tool_use");
        assert!(GrokInput::parse(&v.to_string()).is_err());
    }

    #[test]
    fn answers() {
        assert_eq!(reply(Permission::Allow, "").stdout, "");
        assert_eq!(
            reply(Permission::Deny, "no").stdout,
            r#"{"decision":"deny","reason":"no"}"#
        );
        let f = failure("x");
        assert_eq!(f.exit_code, 2);
        assert_eq!(f.stdout, r#"{"decision":"deny","reason":"x"}"#);
    }
}

/*!
The hooks through which Claude Code, Gemini CLI, Codex CLI, Qwen Code,
Copilot CLI, Grok Build and Cursor (and, through toolgate's extension and
plugin, Pi and OpenCode) ask toolgate about a tool call before running it,
and the commands that set them up. Each client has its module (`claude`,
`gemini`, `codex`, `qwen`, `copilot`, `grok`, `cursor`, and `plugin` for Pi
and OpenCode); the examples below show the first two.

Both clients run a configured command before each tool call, write one JSON
object describing the call to its standard input, and read the answer from its
standard output and exit status. This crate:

- knows those two wire formats: it parses the input into [`ClaudeInput`] or
  [`GeminiInput`], and renders an answer into a [`HookReply`] (the bytes to
  print and the exit status to return);
- runs one hook call end to end ([`claude_hook`], [`gemini_hook`]): the
  policy from `toolgate-policy` decides, the approval queue of
  `toolgate-store` answers an ask when configured, and the ledger records
  the call, tagged with its client and session;
- registers the hook in a client's settings file ([`install`]);
- turns Claude Code's own `permissions` settings into a `toolgate.toml`
  ([`import`]).

Reading standard input and exiting belong to the binary, which prints the
[`HookReply`] it is given.

`PROTOCOL.md` beside this crate records what the real clients send and which
answers they honour, with the versions it was observed on, and what
`toolgate hook` answers and records in each case.

# Example: answer Claude Code

```
use toolgate_hook::{ClaudeInput, Permission, claude};

let stdin = r#"{"session_id":"s1","cwd":"/home/dev/project","permission_mode":"default",
  "hook_event_name":"PreToolUse","tool_name":"Bash",
  "tool_input":{"command":"rm -rf build"},"tool_use_id":"toolu_01"}"#;
let input = ClaudeInput::parse(stdin)?;
assert_eq!(input.tool_name, "Bash");

let reply = claude::reply(Permission::Deny, "`rm -r` is denied by rule `deny[0]`");
assert_eq!(reply.exit_code, 0);
assert!(reply.stdout.contains(r#""permissionDecision":"deny""#));
# Ok::<(), toolgate_hook::InputError>(())
```

# Example: answer Gemini CLI

```
use toolgate_hook::{GeminiInput, Permission, gemini};

let stdin = r#"{"session_id":"s1","cwd":"/home/dev/project","hook_event_name":"BeforeTool",
  "tool_name":"read_file","tool_input":{"file_path":"README.md"}}"#;
let input = GeminiInput::parse(stdin)?;
assert_eq!(input.tool_input["file_path"], "README.md");

let reply = gemini::reply(Permission::Allow, "");
assert_eq!(reply.stdout, r#"{"decision":"allow"}"#);
# Ok::<(), toolgate_hook::InputError>(())
```

# Example: run the Claude Code hook

```
use toolgate_hook::{HookOptions, claude_hook};

let dir = tempfile::tempdir().unwrap();
let project = dir.path().canonicalize().unwrap();
std::fs::write(project.join("toolgate.toml"), "deny = [\"Bash(rm *)\"]\n").unwrap();
let opts = HookOptions {
    policy: Some(project.join("toolgate.toml")),
    state_dir: Some(project.join("state")),
    ..HookOptions::default()
};
let stdin = serde_json::json!({
    "session_id": "s1", "cwd": project, "permission_mode": "default",
    "hook_event_name": "PreToolUse", "tool_name": "Bash",
    "tool_input": {"command": "rm -rf build"}, "tool_use_id": "toolu_01",
});
let reply = claude_hook(stdin.to_string().as_bytes(), &opts);
assert_eq!(reply.exit_code, 0);
assert!(reply.stdout.contains(r#""permissionDecision":"deny""#));
```

# When something goes wrong

A hook that crashes, times out or prints something unexpected does not stop
either client from running the tool: both fall back to their own permission
handling (see `PROTOCOL.md`). So [`claude_hook`] and [`gemini_hook`] always
end with a reply: when they cannot decide (unreadable input, an unreadable
policy, even a panic) they answer with [`claude::failure`] or
[`gemini::failure`], which block the call in the one way each client honours
whatever else happens. A ledger that cannot be written does not change the
answer; it is reported on standard error.
*/
#![deny(missing_docs)]

mod anchor;
pub mod claude;
pub mod codex;
pub mod codex_trust;
pub mod copilot;
pub mod cursor;
mod error;
pub mod extension;
mod fatal;
mod fields;
pub mod gemini;
pub mod grok;
pub mod import;
pub mod install;
mod mcp_json;
mod ordered;
pub mod plugin;
pub mod process;
pub mod qwen;
mod run;
pub mod sandbox_cmd;

pub use anchor::PROJECT_DIR_VARS;
pub use claude::{ClaudeInput, ClaudePermissionMode};
pub use codex::{CodexEvent, CodexInput};
pub use copilot::copilot_hook;
pub use cursor::cursor_hook;
pub use error::InputError;
pub use gemini::GeminiInput;
pub use grok::grok_hook;
pub use plugin::{opencode_hook, pi_hook};
pub use qwen::qwen_hook;
pub use run::{
    AnswerBy, DEFAULT_WAIT, HookOptions, REVIEW_BUDGET, claude_hook, codex_hook, gemini_hook,
};

use std::fmt;

/// The answer to a tool call, already decided, in the vocabulary both hook
/// protocols share. It is separate from the policy engine's own type so that
/// this crate stays a pure wire format that any decider can use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Permission {
    /// The call runs, unless the client's own rules refuse it.
    Allow,
    /// A person must approve the call; a headless client cannot, see each
    /// client's `reply` for what happens then.
    Ask,
    /// The call is refused and the reason is passed back to the model.
    Deny,
}

impl Permission {
    /// The lowercase word both clients use for this answer.
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::Allow => "allow",
            Permission::Ask => "ask",
            Permission::Deny => "deny",
        }
    }
}

impl fmt::Display for Permission {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the hook process must print and how it must exit.
///
/// Kept as data rather than written directly so that the exact bytes each
/// client receives can be unit-tested and so that the binary stays thin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookReply {
    /// Printed to standard output as is (no newline is added by the renderer).
    pub stdout: String,
    /// Printed to standard error as is.
    pub stderr: String,
    /// The process exit status.
    pub exit_code: u8,
}

/*!
The hook protocols through which Claude Code and Gemini CLI ask toolgate about a
tool call before running it.

Both clients run a configured command before each tool call, write one JSON
object describing the call to its standard input, and read the answer from its
standard output and exit status. This crate knows those two wire formats and
nothing else: it parses the input into [`ClaudeInput`] or [`GeminiInput`], and
renders an answer that has already been decided into a [`HookReply`] (the bytes
to print and the exit status to return). Deciding belongs to
`toolgate-policy`; reading stdin and exiting belongs to the binary.

`PROTOCOL.md` beside this crate records what the real clients send and which
answers they honour, with the versions it was observed on.

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

# When something goes wrong

A hook that crashes, times out or prints something unexpected does not stop
either client from running the tool: both fall back to their own permission
handling (see `PROTOCOL.md`). So the binary must always end with a reply from
this crate, and when it cannot decide it answers with [`claude::failure`] or
[`gemini::failure`], which block the call in the one way each client honours
whatever else happens.
*/
#![deny(missing_docs)]

pub mod claude;
mod error;
mod fields;
pub mod gemini;

pub use claude::{ClaudeInput, ClaudePermissionMode};
pub use error::InputError;
pub use gemini::GeminiInput;

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

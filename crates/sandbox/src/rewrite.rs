//! The command line that runs a shell command under `toolgate sandbox`, for
//! hooks that rewrite an allowed command (Claude Code's `updatedInput`,
//! Gemini CLI's `tool_input`).
//!
//! Every word is single-quoted: inside `'...'` bash gives every byte its
//! literal meaning, and a `'` of the text is written `'\''` (close, an
//! escaped quote, reopen). So the command reaches `bash -c` byte for byte,
//! whatever it holds: quotes, `$`, backquotes, newlines, `!`, invalid
//! UTF-8 is impossible (the text is a `str`), and only NUL cannot be passed
//! (no argument can hold it), which is refused.

use crate::error::SandboxError;

/// Quotes one word for bash (and any POSIX shell).
pub fn shell_quote(word: &str) -> Result<String, SandboxError> {
    if word.contains('\0') {
        return Err(SandboxError::NulByte);
    }
    let mut out = String::with_capacity(word.len() + 2);
    out.push('\'');
    for c in word.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    Ok(out)
}

/// `TOOLGATE sandbox [--policy F] [--workspace D] -- bash -c '<command>'`:
/// the line a host runs instead of `command`, so that it runs under the
/// policy's OS boundary. `toolgate` is the path of the binary.
///
/// ```
/// let line = toolgate_sandbox::sandboxed_command_line(
///     "toolgate", Some("/ws/toolgate.toml"), None, "echo 'hi' && ls",
/// ).unwrap();
/// assert_eq!(
///     line,
///     r#"'toolgate' 'sandbox' '--policy' '/ws/toolgate.toml' '--' 'bash' '-c' 'echo '\''hi'\'' && ls'"#,
/// );
/// ```
pub fn sandboxed_command_line(
    toolgate: &str,
    policy: Option<&str>,
    workspace: Option<&str>,
    command: &str,
) -> Result<String, SandboxError> {
    let mut words = vec![toolgate, "sandbox"];
    if let Some(p) = policy {
        words.extend(["--policy", p]);
    }
    if let Some(w) = workspace {
        words.extend(["--workspace", w]);
    }
    words.extend(["--", "bash", "-c", command]);
    let quoted: Result<Vec<String>, SandboxError> = words.into_iter().map(shell_quote).collect();
    Ok(quoted?.join(" "))
}

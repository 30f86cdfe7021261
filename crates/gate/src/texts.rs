//! Every text a refused, waiting or approved call gives back to the model.
//!
//! One source for every host: the agent loop, the hooks and the MCP gateway
//! show the model the same words for the same situation. A refusal always
//! names toolgate, says why and that the call was *not executed*, and that
//! the same call should not be made again (docs/policy.md, "Refusals").
//!
//! The hosts also show these texts to the person (Claude Code prints a
//! hook's `permissionDecisionReason`), and the reasons quote the call's
//! arguments, so every value put into a text goes through [`shown::line`]
//! exactly once: a terminal escape, a carriage return or a bidi override in
//! a command is shown escaped, never acted on, and a newline in it cannot
//! start a line of its own. The texts' own line breaks stay.

use std::borrow::Cow;
use std::path::Path;
use std::time::Duration;

/// The one escaping of what a person is shown (re-exported for the hosts
/// that link the gate but not the store).
pub use toolgate_store::shown;

fn esc(s: &str) -> Cow<'_, str> {
    shown::line(s)
}

const DO_NOT_RETRY: &str = "Do not retry it as it is: the same call will be refused again. \
     Change your approach, or explain to the user what you need and why.";

/// A refused call: not executed, why, the person's note, what to do instead.
pub fn refusal_text(reason: &str, note: Option<&str>) -> String {
    refusal(reason, false, note)
}

/// [`refusal_text`], saying so when a hard limit refused it (no rule or
/// approval can lift it).
pub fn refusal(reason: &str, hard: bool, note: Option<&str>) -> String {
    refusal_shown(&esc(reason), hard, note)
}

/// [`refusal`] of a reason already escaped (a text composed here).
fn refusal_shown(reason: &str, hard: bool, note: Option<&str>) -> String {
    let mut s = format!("toolgate: {reason}. The call was not executed.");
    if hard {
        s.push_str(" This is a hard limit: no rule or approval can allow it.");
    }
    if let Some(n) = note.filter(|n| !n.trim().is_empty()) {
        s.push_str(&format!("\nnote from the user: {}", esc(n.trim())));
    }
    s.push('\n');
    s.push_str(DO_NOT_RETRY);
    s
}

/// The reason a host shows beside a call it runs or asks its own person
/// about.
pub fn reason_text(reason: &str) -> String {
    format!("toolgate: {}", esc(reason))
}

/// An allowed call of a tool no executor here runs.
pub fn no_tool_text(tool: &str) -> String {
    format!(
        "the call was allowed, but no tool named `{}` is available here",
        esc(tool)
    )
}

/// An executor that panicked.
pub fn crashed_text(tool: &str) -> String {
    format!("the tool `{}` crashed while running", esc(tool))
}

/// A call that waits in the approval queue, or could not (`id` = `None`).
pub fn waiting_text(reason: &str, id: Option<&str>) -> String {
    let reason = esc(reason);
    let id = id.map(esc);
    match id {
        Some(id) => format!(
            "toolgate: {reason}. The call was not executed yet: it waits for a person's approval (approval \
             `{id}`: `toolgate approvals approve {id}`); once approved, the same call made again \
             in this session runs. Continue with something else or tell the user what you are \
             waiting for."
        ),
        None => format!(
            "toolgate: {reason}, and no one has answered. The call was not executed. Do not retry the same call; \
             continue with something else or tell the user what you need."
        ),
    }
}

/// A call whose approval was not given within `wait`; it stays queued.
pub fn still_pending_text(reason: &str, id: &str, wait: Duration) -> String {
    let (reason, id) = (esc(reason), esc(id));
    format!(
        "toolgate: {reason}. The call was not executed: no one answered within {} s; the call is still pending as \
         approval `{id}`. A person can approve it with `toolgate approvals approve {id}` (or \
         decline it with `toolgate approvals decline {id}`); once approved, the same call made \
         again in this session runs.",
        wait.as_secs()
    )
}

/// A person declined the call.
pub fn declined_text(
    reason: &str,
    by: Option<&str>,
    id: Option<&str>,
    note: Option<&str>,
) -> String {
    let by = by
        .map(|who| format!(" by {}", esc(who)))
        .unwrap_or_default();
    let id = id
        .map(|id| format!(" (approval `{}`)", esc(id)))
        .unwrap_or_default();
    refusal_shown(
        &format!("the user declined{by}{id}: {}", esc(reason)),
        false,
        note,
    )
}

/// A person approved the call (the reason a host shows beside an allow).
pub fn approved_text(reason: &str, by: Option<&str>, session: bool, id: Option<&str>) -> String {
    let by = by
        .map(|who| format!(" by {}", esc(who)))
        .unwrap_or_default();
    let scope = if session { " for this session" } else { "" };
    let id = id
        .map(|id| format!(" (approval `{}`)", esc(id)))
        .unwrap_or_default();
    format!("toolgate: {}; approved{by}{scope}{id}", esc(reason))
}

/// The approval this call would have used was taken by another call.
pub fn used_elsewhere_text(reason: &str, id: &str) -> String {
    refusal_shown(
        &format!(
            "{}; its approval `{}` was already used by another call",
            esc(reason),
            esc(id)
        ),
        false,
        None,
    )
}

/// Why no one can be asked where this host runs (Gemini CLI's hook without
/// a queue), and the two ways to let such calls run; the gate puts it
/// beside the reason in the refusal (which escapes both).
pub fn cannot_ask_why(host: &str, policy_file: Option<&Path>) -> String {
    let file = policy_file
        .map(|f| format!("`{}`", f.display()))
        .unwrap_or_else(|| "a `toolgate.toml`".to_owned());
    format!(
        "{host} cannot ask a person from a hook. To allow such calls, add an allow rule to \
         {file}, or register the hook with `--approver queue --wait SECS` and approve with \
         `toolgate approvals approve ID` (or on the approval page of `toolgate serve`)"
    )
}

/// The call cannot be written to the ledger, and the policy requires it.
pub fn unrecorded_text(reason: &str, problem: &str) -> String {
    refusal_shown(
        &format!(
            "{}; but the call cannot be recorded in the ledger ({}), and the policy \
             requires a record of every call (`ledger = \"best-effort\"` under [policy] lets calls \
             run unrecorded)",
            esc(reason),
            esc(problem)
        ),
        false,
        None,
    )
}

/// A call the reviewer refused: not executed, the rule's reason and the
/// reviewer's.
pub fn review_denied_text(reason: &str, model: &str, review: &str) -> String {
    refusal_shown(
        &format!(
            "{}; the reviewer ({}) refused it: {}",
            esc(reason),
            esc(model),
            esc(review)
        ),
        false,
        None,
    )
}

/// Said once, when a session's reviewer denials send its asks to the
/// person.
pub fn review_breaker_text(limit: &str) -> String {
    format!(
        "toolgate: {}; from now on a person decides every call of this session that the policy asks about.",
        esc(limit)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reason that quotes a command made to look like another: erase
    /// the line, return the cursor, reverse the rest.
    const REASON: &str = "`echo ok\x1b[2K\rrm -rf ~ \u{202e}gnp.exe` asks";

    fn assert_shown(text: &str) {
        for c in text.chars() {
            assert!(c == '\n' || !shown::is_hidden(c), "raw {c:?} in {text:?}");
        }
        assert!(
            text.contains("\\x1b[2K\\rrm -rf ~ \\u{202e}gnp.exe"),
            "{text}"
        );
    }

    #[test]
    fn every_text_shows_the_call_escaped() {
        let nasty = Some("by\x08\x08 me\u{2066}");
        let texts = [
            refusal(REASON, true, nasty),
            refusal_text(REASON, None),
            reason_text(REASON),
            waiting_text(REASON, Some("a1\x1b")),
            waiting_text(REASON, None),
            still_pending_text(REASON, "a1\r", Duration::from_secs(5)),
            declined_text(REASON, nasty, nasty, nasty),
            approved_text(REASON, nasty, true, nasty),
            used_elsewhere_text(REASON, "a1\u{7f}"),
            unrecorded_text(REASON, "disk\x1b[31m full"),
            refusal(
                &format!("{REASON}; {}", cannot_ask_why("Gemini CLI", None)),
                false,
                None,
            ),
        ];
        for t in &texts {
            assert_shown(t);
        }
        assert_shown(&no_tool_text("echo ok\x1b[2K\rrm -rf ~ \u{202e}gnp.exe"));
        assert_shown(&crashed_text("echo ok\x1b[2K\rrm -rf ~ \u{202e}gnp.exe"));
    }

    #[test]
    fn a_value_is_escaped_once_and_a_newline_in_it_cannot_start_a_line() {
        let t = declined_text("a\nb", Some("x\\y"), None, Some("line one\nline two"));
        assert!(t.contains("a\\nb"), "{t}");
        // `\y` is no escape: left alone, not doubled by a second pass.
        assert!(t.contains("by x\\y:"), "{t}");
        assert!(
            t.contains("note from the user: line one\\nline two\n"),
            "{t}"
        );
        assert_eq!(t.lines().count(), 3, "{t}");
    }
}

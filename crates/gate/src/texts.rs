//! Every text a refused, waiting or approved call gives back to the model.
//!
//! One source for every host: the agent loop, the hooks and the MCP gateway
//! show the model the same words for the same situation. A refusal always
//! names toolgate, says why and that the call was *not executed*, and that
//! the same call should not be made again (docs/policy.md, "Refusals").

use std::path::Path;
use std::time::Duration;

const DO_NOT_RETRY: &str = "Do not retry it as it is: the same call will be refused again. \
     Change your approach, or explain to the user what you need and why.";

/// A refused call: not executed, why, the person's note, what to do instead.
pub fn refusal_text(reason: &str, note: Option<&str>) -> String {
    refusal(reason, false, note)
}

/// [`refusal_text`], saying so when a hard limit refused it (no rule or
/// approval can lift it).
pub fn refusal(reason: &str, hard: bool, note: Option<&str>) -> String {
    let mut s = format!("toolgate: {reason}. The call was not executed.");
    if hard {
        s.push_str(" This is a hard limit: no rule or approval can allow it.");
    }
    if let Some(n) = note.filter(|n| !n.trim().is_empty()) {
        s.push_str(&format!("\nnote from the user: {}", n.trim()));
    }
    s.push('\n');
    s.push_str(DO_NOT_RETRY);
    s
}

/// A call that waits in the approval queue, or could not (`id` = `None`).
pub fn waiting_text(reason: &str, id: Option<&str>) -> String {
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
    let by = by.map(|who| format!(" by {who}")).unwrap_or_default();
    let id = id
        .map(|id| format!(" (approval `{id}`)"))
        .unwrap_or_default();
    refusal(&format!("the user declined{by}{id}: {reason}"), false, note)
}

/// A person approved the call (the reason a host shows beside an allow).
pub fn approved_text(reason: &str, by: Option<&str>, session: bool, id: Option<&str>) -> String {
    let by = by.map(|who| format!(" by {who}")).unwrap_or_default();
    let scope = if session { " for this session" } else { "" };
    let id = id
        .map(|id| format!(" (approval `{id}`)"))
        .unwrap_or_default();
    format!("toolgate: {reason}; approved{by}{scope}{id}")
}

/// The approval this call would have used was taken by another call.
pub fn used_elsewhere_text(reason: &str, id: &str) -> String {
    refusal(
        &format!("{reason}; its approval `{id}` was already used by another call"),
        false,
        None,
    )
}

/// Why no one can be asked where this host runs (Gemini CLI's hook without
/// a queue), and the two ways to let such calls run; the gate puts it
/// beside the reason in the refusal.
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
    refusal(
        &format!(
            "{reason}; but the call cannot be recorded in the ledger ({problem}), and the policy \
             requires a record of every call (`ledger = \"best-effort\"` under [policy] lets calls \
             run unrecorded)"
        ),
        false,
        None,
    )
}

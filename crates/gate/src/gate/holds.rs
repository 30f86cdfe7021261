//! Asks the OS sandbox answers: a shell command the host runs inside
//! toolgate's sandbox, which asks only because of connections the sandbox
//! refuses, is allowed (`sandbox:holds`).
//!
//! Only what the boundary holds whole qualifies (docs/sandbox.md, "Questions
//! the boundary answers"): a connection or fetch of a network URL that no
//! rule decides (the policy's default asked), when the sandbox's network is
//! closed for every host. Nothing else does:
//!
//! - an ask a rule wrote (`ask = [...]`), a protected path, a mode's or the
//!   gate's own ask (a script the session wrote), a deny, a hard limit;
//! - an unanalysable part: it may write anywhere in the roots, and the
//!   sandbox cannot keep a protected or Edit-denied path that does not
//!   exist yet (`.claude/settings.json`, `.envrc`, at any depth) from being
//!   created, nor reads outside the roots from happening;
//! - a write the policy asks about by default: the roots are writable
//!   inside, and every path the sandbox keeps read-only is already decided
//!   by a rule (protected, denied, a hard limit);
//! - a URL with no network host or a scheme that reads local files
//!   (`file:`), and a connection to a local socket (an unanalysable part);
//! - anything while the network is open or goes through toolgate's proxy
//!   (the proxy admits hosts by name, not the URL a rule names).

use toolgate_policy::{Action, Call, Decision, Effect, Kind, Mode, Policy, rule_ids};

use super::*;

/// What toolgate's OS sandbox does for the shell commands a host runs in
/// it: given to [`GateOptions::sandbox`] (and [`sandbox_holds`]) by hosts
/// that run every shell command of the call inside it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sandboxed {
    /// The sandbox leaves the network open to every host whatever the
    /// policy says (`Profile::network`, `--network`).
    pub network_open: bool,
}

/// URL schemes whose target is a network host: with the network closed,
/// nothing of the kind can be reached.
const NETWORK_SCHEMES: &[&str] = &[
    "http", "https", "ftp", "ftps", "ws", "wss", "tcp", "udp", "ssh", "sftp", "scp", "rsync",
    "git", "telnet",
];

/// The decision a host that runs `call` inside toolgate's sandbox acts on:
/// `decision` itself, unless it asks only about what the sandbox holds
/// (see the module's documentation); then an allow with the rule id
/// `sandbox:holds`, whose reason names the questions it replaced.
pub fn sandbox_holds(
    policy: &Policy,
    call: &Call,
    decision: Decision,
    sandbox: &Sandboxed,
) -> Decision {
    if decision.decision != Effect::Ask
        || decision.hard
        || decision.rule.is_some()
        || !matches!(decision.mode, Mode::Default | Mode::AcceptEdits)
        || decision.tool != call.tool
    {
        return decision;
    }
    let shell =
        toolgate_policy::lookup_tool(call.client, &call.tool).is_some_and(|s| s.kind == Kind::Exec);
    // A network the sandbox opens, or reaches through the proxy, lets
    // some connection through.
    if !shell || sandbox.network_open || policy.allows_network() {
        return decision;
    }
    let mut replaced = Vec::new();
    for a in &decision.actions {
        match a.decision {
            Effect::Allow => {}
            Effect::Ask if a.rule.is_none() && !a.hard && is_network_fetch(&a.action) => {
                replaced.push(a.reason.clone());
            }
            _ => return decision,
        }
    }
    if replaced.is_empty() {
        return decision;
    }
    let mut held = decision;
    for a in &mut held.actions {
        if a.decision == Effect::Ask {
            a.decision = Effect::Allow;
            a.rule = Some(rule_ids::SANDBOX_HOLDS.into());
            a.sticky = false;
            a.reason = format!("held by the sandbox (no network inside): {}", a.reason);
        }
    }
    held.decision = Effect::Allow;
    held.rule = Some(rule_ids::SANDBOX_HOLDS.into());
    held.remember = false;
    held.grant_rules = Vec::new();
    held.reason = format!(
        "runs inside toolgate's sandbox, whose network is closed, so it can make no connection; \
         that answers what would have been asked: {}",
        replaced.join("; ")
    );
    held
}

/// A fetch or connection whose URL names a host on the network.
fn is_network_fetch(action: &Action) -> bool {
    let Action::Fetch { url } = action else {
        return false;
    };
    let Some((scheme, rest)) = url.split_once("://") else {
        return false;
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or_default();
    NETWORK_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()) && !host.is_empty()
}

impl Gate {
    /// The decision as the host's sandbox leaves it ([`sandbox_holds`]),
    /// when the host runs this call's shell command inside it.
    pub(super) fn sandbox_held(&self, snapshot: &Call, decision: Decision) -> Decision {
        match &self.sandbox {
            Some(s) => sandbox_holds(&self.policy, snapshot, decision, s),
            None => decision,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_urls() {
        for (url, want) in [
            ("https://example.com/x", true),
            ("tcp://10.0.0.1:22", true),
            ("ssh://host/path", true),
            ("file:///etc/passwd", false),
            ("file://localhost/etc/passwd", false),
            ("http:///nohost", false),
            ("example.com", false),
        ] {
            let a = Action::Fetch { url: url.into() };
            assert_eq!(is_network_fetch(&a), want, "{url}");
        }
        let a = Action::Unknown { reason: "x".into() };
        assert!(!is_network_fetch(&a));
    }
}

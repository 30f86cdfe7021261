//! Asks the OS sandbox answers: a shell command the host runs inside
//! toolgate's sandbox, which asks only about what the boundary holds, is
//! allowed (`sandbox:holds`), and runs with the boundary tightened for it.
//!
//! The questions the boundary answers (docs/sandbox.md, "Questions the
//! boundary answers") are the policy's *default* asks, the ones no rule
//! wrote, about:
//!
//! - a program no rule names, and a part that could not be analysed: they
//!   run confined. Writes land only in the roots and the `[sandbox]
//!   writable` directories, never on a protected path that exists, an
//!   Edit-denied path or, for a command allowed this way, a path an `ask`
//!   rule names for Edit or Write; every Read-denied file and, for such a
//!   command, every credential location is masked; connections reach
//!   only the hosts the policy allows (none, or those toolgate's proxy
//!   admits);
//! - a write the analysis sees, in the roots (the boundary lets it, as it
//!   lets the writes it cannot see) or outside them (the boundary refuses
//!   it);
//! - a connection or fetch of a network URL whose host the boundary
//!   refuses: every host with the network closed, through the proxy every
//!   host whose origin the policy does not allow.
//!
//! Held only when the policy lets the command read the roots and asks about
//! no read (the boundary hides only what Read deny rules name), and the
//! sandbox's network is not open. Never held:
//! an ask a rule wrote (`ask = [...]`), a protected path, a hard limit, a
//! mode's or the gate's own ask (a script the session wrote), a deny, a
//! read the policy asks about, a fetch of a URL with no network host or of
//! a local file, and anything a host runs outside the sandbox.

use crate::{Action, Call, Decision, Effect, Kind, Mode, Policy, rule_ids};
use serde_json::json;

/// What toolgate's OS sandbox does for the shell commands a host runs in
/// it: given to the gate (`GateOptions::sandbox`) and [`sandbox_holds`] by hosts
/// that run every shell command of the call inside it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sandboxed {
    /// The sandbox leaves the network open to every host whatever the
    /// policy says (`Profile::network`, `--network`).
    pub network_open: bool,
}

/// URL schemes whose target is a network host.
const NETWORK_SCHEMES: &[&str] = &[
    "http", "https", "ftp", "ftps", "ws", "wss", "tcp", "udp", "ssh", "sftp", "scp", "rsync",
    "git", "telnet",
];

/// A name no real file is likely to have, to ask whether the policy lets
/// a command read in a root.
const PROBE: &str = "toolgate-sandbox-probe";

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
        || sandbox.network_open
    {
        return decision;
    }
    let shell = crate::lookup_tool(call.client, &call.tool).is_some_and(|s| s.kind == Kind::Exec);
    if !shell {
        return decision;
    }
    let proxied = policy.allows_network();
    let mut replaced = Vec::new();
    let mut roots_read = None;
    for a in &decision.actions {
        match a.decision {
            Effect::Allow => {}
            Effect::Ask if a.rule.is_none() && !a.hard => {
                let holds = match &a.action {
                    Action::Exec { .. } | Action::Unknown { .. } => {
                        *roots_read.get_or_insert_with(|| reads_roots(policy))
                    }
                    Action::Write { .. } => true,
                    Action::Fetch { url } => refused_at_boundary(policy, url, proxied),
                    _ => false,
                };
                if !holds {
                    return decision;
                }
                replaced.push(a.reason.clone());
            }
            _ => return decision,
        }
    }
    if replaced.is_empty() {
        return decision;
    }
    let network = if proxied {
        "connections go only to the hosts the policy allows, through toolgate's proxy"
    } else {
        "no connection can be made"
    };
    let mut held = decision;
    for a in &mut held.actions {
        if a.decision == Effect::Ask {
            a.decision = Effect::Allow;
            a.rule = Some(rule_ids::SANDBOX_HOLDS.into());
            a.sticky = false;
            a.reason = format!("held by the sandbox: {}", a.reason);
        }
    }
    held.decision = Effect::Allow;
    held.rule = Some(rule_ids::SANDBOX_HOLDS.into());
    held.remember = false;
    held.grant_rules = Vec::new();
    held.reason = format!(
        "runs inside toolgate's sandbox (writes only in the roots, protected, denied and \
         asked-about paths read-only, credentials hidden; {network}), which answers what would \
         have been asked: {}",
        replaced.join("; ")
    );
    held
}

impl Policy {
    /// Whether a shell call run inside toolgate's sandbox (network closed
    /// or proxied) is one the sandbox holds: decided with this policy
    /// alone, then [`sandbox_holds`]. What runs the command (the sandbox's
    /// own command, the agent's `run_shell`) asks this to tighten the
    /// boundary for it ([`sandbox_holds`]'s conditions), whatever the host
    /// told it.
    pub fn held_by_sandbox(&self, call: &Call) -> bool {
        let decision = sandbox_holds(self, call, self.decide(call), &Sandboxed::default());
        decision.decision == Effect::Allow
            && decision.rule.as_deref() == Some(rule_ids::SANDBOX_HOLDS)
    }
}

/// Whether the policy lets a command read what lies in its roots, and asks
/// about no read anywhere: the boundary hides only what Read deny rules
/// name, so a part that could read anything is held only then.
fn reads_roots(policy: &Policy) -> bool {
    !policy.roots().is_empty()
        && !policy.asks_reads()
        && policy.roots().iter().all(|root| {
            let probe = root.join(PROBE).join(PROBE);
            let call = Call::new("read_file", json!({ "path": probe.to_string_lossy() }));
            policy.decide(&call).decision == Effect::Allow
        })
}

/// Whether the boundary refuses every connection a fetch of `url` makes:
/// a URL naming a network host, with the network closed, or, through the
/// proxy, whose origin the policy does not allow (the proxy admits a
/// `CONNECT` by origin).
fn refused_at_boundary(policy: &Policy, url: &str, proxied: bool) -> bool {
    let Some((scheme, rest)) = url.split_once("://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    if !NETWORK_SCHEMES.contains(&scheme.to_ascii_lowercase().as_str()) || host.is_empty() {
        return false;
    }
    if !proxied {
        return true;
    }
    let bare = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().map(|h| format!("[{h}]")),
        None => host.split(':').next().map(str::to_string),
    };
    let Some(bare) = bare else { return false };
    [
        format!("https://{host}/"),
        format!("https://{bare}/"),
        format!("http://{host}/"),
    ]
    .iter()
    .all(|origin| {
        let call = Call::new("fetch_url", json!({ "url": origin }));
        policy.decide(&call).decision != Effect::Allow
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LoadOptions;

    #[test]
    fn network_urls() {
        let policy = Policy::from_toml(
            "allow = [\"WebFetch(domain:docs.rs)\"]\n",
            std::path::Path::new("/tmp/toolgate.toml"),
            &LoadOptions::default(),
        )
        .unwrap();
        for (url, closed, proxied) in [
            ("https://example.com/x", true, true),
            ("tcp://10.0.0.1:22", true, true),
            ("ssh://host/path", true, true),
            ("https://docs.rs/serde/latest/x", true, false),
            ("https://user@docs.rs:8443/x", true, false),
            ("file:///etc/passwd", false, false),
            ("file://localhost/etc/passwd", false, false),
            ("http:///nohost", false, false),
            ("example.com", false, false),
        ] {
            assert_eq!(refused_at_boundary(&policy, url, false), closed, "{url}");
            assert_eq!(refused_at_boundary(&policy, url, true), proxied, "{url}");
        }
    }
}

//! The rule ids toolgate itself gives decisions, in one place.
//!
//! A decision's `rule` names the rule that decided it. Most are the
//! policy's own (`allow[0]`, `keys`); the ids here name what decides
//! without a user rule: a hard limit, a floor, a mode, a host's own
//! refusal, the built-in default policy. A user rule may not take one of
//! them, nor any id with a [reserved prefix](RESERVED_PREFIXES), so that a
//! ledger row's rule id says unambiguously who decided. docs/policy.md
//! ("Rule ids toolgate gives") lists them for users.

/// A read outside `roots` + `read_roots`, a write outside `roots`, or a
/// path that cannot be resolved safely (a hard limit).
pub const HARD_OUTSIDE_ROOTS: &str = "hard:outside-roots";
/// A write to the policy file (a hard limit).
pub const HARD_POLICY_FILE: &str = "hard:policy-file";
/// A write to toolgate's state directory (a hard limit).
pub const HARD_STATE_DIR: &str = "hard:state-dir";
/// A catastrophic command (a hard limit).
pub const HARD_CATASTROPHIC: &str = "hard:catastrophic";
/// A write to a protected path: always asks.
pub const PROTECTED: &str = "protected";
/// Plan mode denied a write, fetch or command that is not read-only.
pub const MODE_PLAN: &str = "mode:plan";
/// The call's input does not match the tool's schema (denied before any
/// rule).
pub const INVALID_INPUT: &str = "invalid-input";
/// A tool call whose arguments are not valid JSON (the gate, the agent
/// loop).
pub const INVALID_ARGUMENTS: &str = "invalid-arguments";
/// `toolgate check` was given a line that is not a call.
pub const INVALID_CALL: &str = "invalid-call";
/// A stored snapshot no longer matches the digest its approval is bound to.
pub const INVALID_SNAPSHOT: &str = "invalid-snapshot";
/// The host blocked the tool outright (`--block TOOL`).
pub const HOST_BLOCKED_TOOL: &str = "host:blocked-tool";
/// The rule of a queued approval that trusts an MCP tool's changed
/// definition (`toolgate mcp`); approving it accepts the new definition.
pub const HOST_PIN_CHANGED: &str = "host:pin-changed";
/// A request an MCP server sent the client (`sampling/createMessage`,
/// `elicitation/create`, `roots/list`), passed on because the client
/// declared that capability: recorded, not decided by the policy.
pub const HOST_RELAYED: &str = "host:relayed";
/// The built-in default policy's rules.
pub const BUILTIN_READ: &str = "builtin:read";
/// See [`BUILTIN_READ`].
pub const BUILTIN_WRITE: &str = "builtin:write";
/// See [`BUILTIN_READ`].
pub const BUILTIN_SHELL: &str = "builtin:shell";
/// See [`BUILTIN_READ`].
pub const BUILTIN_FETCH: &str = "builtin:fetch";
/// A read or write of a place where credentials live (`~/.ssh/**`,
/// `/etc/shadow`, `/proc/*/environ`, ...: `system::CREDENTIALS`), denied
/// in every policy; only an allow rule naming that exact file lifts it.
pub const BUILTIN_CREDENTIALS: &str = "builtin:credentials";

/// `toolgate sandbox --no-sandbox`: a command ran outside the OS boundary
/// because the user said so (recorded in the ledger).
pub const SANDBOX_NO_SANDBOX_FLAG: &str = "sandbox:no-sandbox-flag";
/// A command ran outside the OS boundary because the policy says
/// `sandbox = "off"` (recorded in the ledger).
pub const SANDBOX_OFF_IN_POLICY: &str = "sandbox:off-in-policy";
/// A local daemon's socket masked in the sandbox while the network is
/// closed (in the sandbox's plan, not in decisions).
pub const SANDBOX_DAEMON_SOCKET: &str = "sandbox:daemon-socket";
/// A shell command that runs inside toolgate's OS sandbox and asked only
/// about what the sandbox holds (a connection with its network closed):
/// allowed, the reason naming the questions it replaced.
pub const SANDBOX_HOLDS: &str = "sandbox:holds";
/// The sandbox's proxy refused a connection to an address that is not
/// public (loopback, private, link-local, ...) that no allow rule names
/// (a ledger row of the proxy, not a decision of the engine).
pub const SANDBOX_PROXY_LOCAL_ADDRESS: &str = "sandbox:proxy-local-address";
/// A script the session itself wrote (or changed) since it began, run as a
/// program: asks whatever allowed the interpreter or the path.
pub const GATE_SELF_WRITTEN: &str = "gate:self-written";

/// A relative path the client corrects to another file when none is
/// named so (Gemini CLI's `replace` edits the one file in its workspace
/// whose path ends with it): asks, unless a rule denies it or a file found
/// that it may mean.
pub const CLIENT_PATH_CORRECTION: &str = "client:path-correction";

/// Every id above.
pub const ALL: &[&str] = &[
    HARD_OUTSIDE_ROOTS,
    HARD_POLICY_FILE,
    HARD_STATE_DIR,
    HARD_CATASTROPHIC,
    PROTECTED,
    MODE_PLAN,
    INVALID_INPUT,
    INVALID_ARGUMENTS,
    INVALID_CALL,
    INVALID_SNAPSHOT,
    HOST_BLOCKED_TOOL,
    HOST_PIN_CHANGED,
    HOST_RELAYED,
    BUILTIN_READ,
    BUILTIN_WRITE,
    BUILTIN_SHELL,
    BUILTIN_FETCH,
    BUILTIN_CREDENTIALS,
    SANDBOX_NO_SANDBOX_FLAG,
    SANDBOX_OFF_IN_POLICY,
    SANDBOX_DAEMON_SOCKET,
    SANDBOX_HOLDS,
    SANDBOX_PROXY_LOCAL_ADDRESS,
    GATE_SELF_WRITTEN,
    CLIENT_PATH_CORRECTION,
];

/// Prefixes kept for ids toolgate may add: a user rule's id may not start
/// with one.
pub const RESERVED_PREFIXES: &[&str] = &[
    "hard:",
    "mode:",
    "host:",
    "builtin:",
    "sandbox:",
    "invalid-",
    "protected",
    "toolgate:",
    "gate:",
    "hook:",
    "client:",
];

/// Whether a user rule may not take this id: one of [`ALL`], or any id
/// with a [reserved prefix](RESERVED_PREFIXES) (compared without case, so
/// that `Hard:x` cannot pose as a hard limit either).
pub fn is_reserved(id: &str) -> bool {
    let lower = id.trim().to_ascii_lowercase();
    ALL.contains(&lower.as_str()) || RESERVED_PREFIXES.iter().any(|p| lower.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_is_reserved() {
        for id in ALL {
            assert!(is_reserved(id), "{id}");
        }
        for id in [
            "hard:x",
            "Mode:plan",
            "host:anything",
            "protected-x",
            "invalid-foo",
        ] {
            assert!(is_reserved(id), "{id}");
        }
        for id in ["keys", "allow-git", "my:rule", "rule[0]"] {
            assert!(!is_reserved(id), "{id}");
        }
    }

    #[test]
    fn the_builtin_policy_uses_these_ids() {
        for id in [BUILTIN_READ, BUILTIN_WRITE, BUILTIN_SHELL, BUILTIN_FETCH] {
            assert!(
                crate::policy::BUILTIN_POLICY.contains(&format!("id = \"{id}\"")),
                "{id}"
            );
        }
    }
}

//! The rule ids toolgate gives decisions that no rule of the policy file
//! made. They are listed here and nowhere else, documented in
//! docs/policy.md ("Rule ids"), and a `[[rule]]` may not take one: an id
//! equal to one of them, or starting with a reserved prefix, is a load
//! error naming the file and line.

/// A read or write outside the workspace roots (a hard limit).
pub const HARD_OUTSIDE_ROOTS: &str = "hard:outside-roots";
/// A catastrophic command (a hard limit).
pub const HARD_CATASTROPHIC: &str = "hard:catastrophic";
/// A write to toolgate's state directory (a hard limit).
pub const HARD_STATE_DIR: &str = "hard:state-dir";
/// A write to the policy file (a hard limit).
pub const HARD_POLICY_FILE: &str = "hard:policy-file";
/// A write to a protected path: it always asks.
pub const PROTECTED: &str = "protected";
/// Plan mode refused a write, a fetch or a command that is not read-only.
pub const MODE_PLAN: &str = "mode:plan";
/// The call's input does not fit the tool's schema.
pub const INVALID_INPUT: &str = "invalid-input";
/// The call itself could not be read (not a JSON object, no tool name).
pub const INVALID_CALL: &str = "invalid-call";
/// A model's tool-call arguments were not a JSON object.
pub const INVALID_ARGUMENTS: &str = "invalid-arguments";
/// A queued call whose stored snapshot cannot be read or no longer
/// matches its digest.
pub const INVALID_SNAPSHOT: &str = "invalid-snapshot";
/// The host refused the tool whatever the policy says (`--block TOOL`).
pub const HOST_BLOCKED_TOOL: &str = "host:blocked-tool";
/// The rule of a queued approval that trusts an MCP tool's changed
/// definition (`toolgate mcp`); approving it accepts the new definition.
pub const HOST_PIN_CHANGED: &str = "host:pin-changed";

/// Every id above, for documentation and checks.
pub const ALL: &[&str] = &[
    HARD_OUTSIDE_ROOTS,
    HARD_CATASTROPHIC,
    HARD_STATE_DIR,
    HARD_POLICY_FILE,
    PROTECTED,
    MODE_PLAN,
    INVALID_INPUT,
    INVALID_CALL,
    INVALID_ARGUMENTS,
    INVALID_SNAPSHOT,
    HOST_BLOCKED_TOOL,
    HOST_PIN_CHANGED,
];

/// Prefixes kept for toolgate's own ids.
pub const RESERVED_PREFIXES: &[&str] = &["hard:", "mode:", "host:", "invalid-"];

/// Whether a user rule may not take `id`.
pub fn is_reserved(id: &str) -> bool {
    ALL.contains(&id) || RESERVED_PREFIXES.iter().any(|p| id.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_id_is_reserved() {
        for id in ALL {
            assert!(is_reserved(id), "{id}");
        }
        assert!(is_reserved("hard:anything"));
        assert!(!is_reserved("keys"));
        assert!(!is_reserved("deny-hard"));
    }
}

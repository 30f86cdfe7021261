//! Asks the OS sandbox answers (`sandbox:holds`): the rule itself lives in
//! the policy crate ([`sandbox_holds`]), where the sandbox and the tools
//! that run a held command find it too.

pub use toolgate_policy::{Sandboxed, sandbox_holds};

use super::*;

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

//! The three answers and the modes that adjust them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What happens to a call: it runs, waits for a person, or is refused.
///
/// The order is the order of strictness (`Allow < Ask < Deny`), so the
/// decision of a call with several parts is the `max` of its parts and the
/// decision of a part matched by several rules is the `max` of their effects:
/// that is what makes "deny > ask > allow, whatever the order rules are
/// written in" hold by construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Effect {
    /// The call runs.
    Allow,
    /// A person must approve the call first.
    Ask,
    /// The call is refused.
    Deny,
}

impl Effect {
    /// The lowercase name used in policy files and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Effect::Allow => "allow",
            Effect::Ask => "ask",
            Effect::Deny => "deny",
        }
    }
}

impl fmt::Display for Effect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A word that names no effect.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown effect `{0}`: expected `allow`, `ask` or `deny`")]
pub struct UnknownEffect(pub String);

impl FromStr for Effect {
    type Err = UnknownEffect;
    fn from_str(s: &str) -> Result<Self, UnknownEffect> {
        match s {
            "allow" => Ok(Effect::Allow),
            "ask" => Ok(Effect::Ask),
            "deny" => Ok(Effect::Deny),
            other => Err(UnknownEffect(other.to_string())),
        }
    }
}

/// How decisions are adjusted after the rules (docs/policy.md, "Modes").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Decisions stand as the rules made them.
    #[default]
    Default,
    /// Writes inside the roots that would ask are allowed (protected paths
    /// still ask).
    AcceptEdits,
    /// Only reads and read-only commands may proceed; everything else is denied.
    Plan,
    /// Every ask becomes a deny, for unattended runs.
    DontAsk,
    /// Every ask becomes an allow, except protected paths and commands that
    /// could not be analysed; denies and hard limits still hold.
    Bypass,
}

impl Mode {
    /// The kebab-case name used in policy files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Default => "default",
            Mode::AcceptEdits => "accept-edits",
            Mode::Plan => "plan",
            Mode::DontAsk => "dont-ask",
            Mode::Bypass => "bypass",
        }
    }

    /// All modes, for help texts and tests.
    pub const ALL: [Mode; 5] = [
        Mode::Default,
        Mode::AcceptEdits,
        Mode::Plan,
        Mode::DontAsk,
        Mode::Bypass,
    ];
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A word that names no mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode `{0}`: expected `default`, `accept-edits`, `plan`, `dont-ask` or `bypass`")]
pub struct UnknownMode(pub String);

impl FromStr for Mode {
    type Err = UnknownMode;
    fn from_str(s: &str) -> Result<Self, UnknownMode> {
        match s {
            "default" => Ok(Mode::Default),
            "accept-edits" | "acceptEdits" => Ok(Mode::AcceptEdits),
            "plan" => Ok(Mode::Plan),
            "dont-ask" | "dontAsk" => Ok(Mode::DontAsk),
            "bypass" | "bypassPermissions" => Ok(Mode::Bypass),
            other => Err(UnknownMode(other.to_string())),
        }
    }
}

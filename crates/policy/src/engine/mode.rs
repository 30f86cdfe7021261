//! Modes, applied to each action after the rules.

use crate::actions::{Item, What};
use crate::catalog::Kind;
use crate::decision::ActionDecision;
use crate::effect::{Effect, Mode};
use crate::rule_ids;

/// Applies a mode to one action's decision (docs/policy.md, "Modes").
pub(super) fn apply_mode(mode: Mode, item: &Item, kind: Kind, ad: &mut ActionDecision) {
    if ad.hard {
        return;
    }
    match mode {
        Mode::Default => {}
        Mode::AcceptEdits => {
            if matches!(item.what, What::Path { write: true, .. })
                && ad.decision == Effect::Ask
                && !ad.sticky
            {
                ad.decision = Effect::Allow;
                ad.reason = format!("{}; allowed by accept-edits mode", ad.reason);
            }
        }
        Mode::Plan => {
            let read_only = match &item.what {
                What::Path { write, .. } => !write,
                What::Exec { read_only, .. } => *read_only,
                What::Tool { .. } => kind == Kind::Read,
                _ => false,
            };
            if !read_only && ad.decision != Effect::Deny {
                ad.decision = Effect::Deny;
                ad.rule = Some(rule_ids::MODE_PLAN.into());
                ad.sticky = false;
                ad.reason = format!(
                    "{}: plan mode allows only reads and read-only commands",
                    ad.action.describe()
                );
            }
        }
        Mode::DontAsk => {
            if ad.decision == Effect::Ask {
                ad.decision = Effect::Deny;
                ad.reason = format!("{}; dont-ask mode turns every ask into deny", ad.reason);
            }
        }
        Mode::Bypass => {
            if ad.decision == Effect::Ask && !ad.sticky {
                ad.decision = Effect::Allow;
                ad.reason = format!("{}; allowed by bypass mode", ad.reason);
            }
        }
    }
}

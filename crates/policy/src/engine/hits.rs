//! The rules that matched one action.

use crate::effect::Effect;
use crate::index::RuleIdx;
use crate::policy::Policy;

/// The rules that matched an action, and the strictest of them.
#[derive(Default)]
pub(super) struct Hits {
    pub(super) best: Option<(Effect, RuleIdx)>,
    /// Which selector of the best rule matched, for its reason (a rule may
    /// list several; naming the first would name one that did not match).
    pub(super) best_sel: usize,
    pub(super) all: Vec<(RuleIdx, usize)>,
    pub(super) trace: bool,
}

impl Hits {
    pub(super) fn new(trace: bool) -> Hits {
        Hits {
            trace,
            ..Hits::default()
        }
    }

    pub(super) fn add(&mut self, policy: &Policy, r: RuleIdx, sel: usize) {
        let e = policy.rules[r].effect;
        match self.best {
            Some((be, br)) if be > e || (be == e && br <= r) => {}
            _ => {
                self.best = Some((e, r));
                self.best_sel = sel;
            }
        }
        if self.trace && !self.all.contains(&(r, sel)) {
            self.all.push((r, sel));
        }
    }

    /// When not tracing, effects weaker than what is already found need
    /// not be looked at.
    pub(super) fn settled_above(&self, e: Effect) -> bool {
        !self.trace && self.best.is_some_and(|(b, _)| b > e)
    }

    pub(super) fn effect(&self) -> Option<Effect> {
        self.best.map(|(e, _)| e)
    }
}

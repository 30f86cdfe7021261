//! "This session" grants: read once per gate, taken when a person approves
//! for the session.

use super::*;

impl Gate {
    /// The session's grants, read from the store on first use. Grants only
    /// ever lift an ask, so deciding without them when they cannot be read
    /// is the safe side.
    pub(super) fn load_grants(&mut self) {
        if self.grants.is_none() {
            let grants = match self.store.as_ref().map(|s| s.grants(&self.session)) {
                Some(Ok(grants)) => grants.into_iter().map(|g| g.rule).collect(),
                Some(Err(e)) => {
                    self.warnings
                        .push(format!("session grants cannot be read ({e})"));
                    Vec::new()
                }
                None => Vec::new(),
            };
            self.grants = Some(grants);
        }
    }

    /// The one rule for "this session" answers, whichever way the answer
    /// arrives (the approver, the queue while waiting, an approval picked
    /// up on retry, `approvals approve` + resume): when the call's decision
    /// allows remembering, every rule that asked for it
    /// (`Decision::grant_rules`) is granted for the session, so that the
    /// same call does not ask again; otherwise the answer counts once.
    pub(super) fn take_session_grant(&mut self, approval: &Pending, decision: &Decision) {
        if approval.answer != Some(toolgate_store::Answer::Session) {
            return;
        }
        if !decision.remember && decision.decision == Effect::Ask {
            return;
        }
        let mut rules = decision.grant_rules.clone();
        // The store granted the rule that asked when the answer was given.
        if let Some(rule) = &approval.rule
            && !rules.contains(rule)
            && approval.remember_allowed
        {
            rules.push(rule.clone());
        }
        self.grant(&rules);
    }

    pub(super) fn grant(&mut self, rules: &[String]) {
        self.load_grants();
        let grants = self.grants.get_or_insert_with(Vec::new);
        for r in rules {
            if !grants.contains(r) {
                grants.push(r.clone());
            }
            if let Some(s) = &self.store
                && let Err(e) = s.grant(&self.session, r)
            {
                self.warnings
                    .push(format!("cannot record the session grant: {e}"));
            }
        }
    }
}

//! Running a queued call once a person approved it.

use super::*;

impl Gate {
    /// Runs a queued call once a person approved it: claims it (so it runs
    /// at most once, whoever else tries), checks the stored snapshot
    /// against its digest, decides it again (a deny now still wins), runs
    /// it and records the resolution.
    pub fn resume(&mut self, id: &str) -> Result<ToolResult, GateError> {
        let start = Instant::now();
        let store = self.store.as_ref().ok_or_else(|| {
            GateError::Config("resuming a queued call needs the state store".into())
        })?;
        let Some(pending) = store.claim_for_execution(id)? else {
            let status = store
                .approval(id)?
                .map(|p| p.status.to_string())
                .ok_or_else(|| GateError::UnknownApproval(id.to_string()))?;
            return Err(GateError::NotResumable {
                id: id.to_string(),
                status,
                what: "only an approved call that has not run yet can be executed".into(),
            });
        };
        let refuse = |this: &mut Gate,
                      why: String,
                      decision: Option<Decision>|
         -> Result<ToolResult, GateError> {
            if let Some(s) = &this.store {
                s.finish(
                    id,
                    toolgate_store::Outcome::Blocked,
                    record::elapsed_us(start),
                )?;
            }
            this.stats.count(Outcome::Blocked);
            Ok(ToolResult {
                call_id: pending.call_id.clone(),
                content: texts::refusal_text(&why, None),
                is_error: true,
                outcome: Outcome::Blocked,
                decision: decision
                    .unwrap_or_else(|| unreadable_decision(&pending.call_id, &pending.tool, &why)),
                approval: None,
                approval_id: Some(id.to_string()),
            })
        };
        let Some(snapshot) = queue::stored_call(&pending) else {
            return refuse(
                self,
                "the stored call no longer matches the digest that was approved".into(),
                None,
            );
        };
        let digest = snapshot.digest();
        let decision = self.decide(&snapshot, &digest);
        if decision.decision == Effect::Deny {
            let why = decision.reason.clone();
            return refuse(self, why, Some(decision));
        }
        self.take_session_grant(&pending, &decision);
        let (content, is_error, outcome) = self.execute(&snapshot, &digest);
        self.stats.count(outcome);
        if let Some(s) = &self.store {
            s.finish(id, outcome.store(), record::elapsed_us(start))?;
        }
        Ok(ToolResult {
            call_id: snapshot.id.clone(),
            content,
            is_error,
            outcome,
            decision,
            approval: Some(ApprovalLog {
                question: format!("{} (call {})", snapshot.tool, snapshot.id),
                answer: pending
                    .answer
                    .map(|a| a.to_string())
                    .unwrap_or_else(|| "approve".into()),
                note: pending.note.clone(),
            }),
            approval_id: Some(id.to_string()),
        })
    }
}

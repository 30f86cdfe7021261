//! The review step of an `ask`: the configured reviewer answers before the
//! person is asked, unless the session's breaker has tripped.

use toolgate_store::{ReviewCounts, ReviewDecision, ReviewRecord};

use super::*;
use crate::review::{Review, ReviewInput, ReviewVerdict, Reviewer};

impl Gate {
    /// Reviews an asked call when the policy has a reviewer: `Some` when
    /// the reviewer settled it (allow or deny), `None` when the person
    /// decides (no reviewer, an escalation, a failure, the breaker).
    pub(super) fn review_step(&mut self, snapshot: &Call, decision: &Decision) -> Option<Approval> {
        let mut config = self.policy.review()?.clone();
        if let Some(budget) = self.review_budget {
            config.timeout = config.timeout.min(budget);
        }
        let counts = match self.review_counts() {
            Ok(c) => c,
            Err(problem) => {
                // Without the count the breaker cannot be kept: the person
                // decides.
                self.review = Some(ReviewRecord {
                    model: config.model.clone(),
                    decision: ReviewDecision::Escalate,
                    reason: format!("the reviewer's denials cannot be counted ({problem})"),
                    latency_ms: 0,
                });
                return None;
            }
        };
        let limit = if counts.denials_in_a_row >= config.denials_in_a_row {
            Some(format!(
                "the reviewer denied {} calls in a row",
                counts.denials_in_a_row
            ))
        } else if counts.denials >= config.denials_per_session {
            Some(format!(
                "the reviewer denied {} calls in this session",
                counts.denials
            ))
        } else {
            None
        };
        if let Some(limit) = limit {
            if counts.breaker_rows == 0 {
                self.review_notice = Some(texts::review_breaker_text(&limit));
            }
            self.review = Some(ReviewRecord {
                model: config.model.clone(),
                decision: ReviewDecision::Breaker,
                reason: limit,
                latency_ms: 0,
            });
            self.review_counts.breaker_rows += 1;
            return None;
        }
        let workspace = self.policy.roots().first().cloned();
        let requests = self.person_requests();
        let review = Reviewer::from_config(&config).review(&ReviewInput {
            call: snapshot,
            decision,
            workspace: workspace.as_deref(),
            requests: &requests,
        });
        self.count_review(&review);
        self.review = Some(recorded(&review));
        let model = review.model;
        match review.verdict {
            ReviewVerdict::Allow => Some(Approval::Go {
                answer: None,
                note: Some(format!(
                    "allowed by the reviewer ({model}): {}",
                    review.reason
                )),
                log: None,
                queued: None,
                picked_up: false,
            }),
            ReviewVerdict::Deny => Some(Approval::Refuse {
                text: texts::review_denied_text(&decision.reason, &model, &review.reason),
                answer: None,
                note: None,
                log: None,
                recorded: false,
                approval_id: None,
            }),
            ReviewVerdict::Escalate => None,
        }
    }

    /// The session's reviewer denials so far: the store's count across
    /// every process of the session, else this gate's own.
    fn review_counts(&self) -> Result<ReviewCounts, toolgate_store::Error> {
        match &self.store {
            Some(store) => store.review_counts(&self.session),
            None => Ok(self.review_counts),
        }
    }

    fn count_review(&mut self, review: &Review) {
        let c = &mut self.review_counts;
        match review.verdict {
            ReviewVerdict::Deny => {
                c.denials += 1;
                c.denials_in_a_row += 1;
            }
            ReviewVerdict::Allow | ReviewVerdict::Escalate => c.denials_in_a_row = 0,
        }
    }

    /// The person's requests, read only now that a call is reviewed.
    fn person_requests(&self) -> Vec<String> {
        match &self.requests {
            Requests::None => Vec::new(),
            Requests::Given(r) => r.clone(),
            Requests::ClaudeTranscript(path) => {
                crate::review::transcript_requests_settled(path, crate::review::TRANSCRIPT_WAIT)
            }
        }
    }
}

fn recorded(review: &Review) -> ReviewRecord {
    ReviewRecord {
        model: review.model.clone(),
        decision: match review.verdict {
            ReviewVerdict::Allow => ReviewDecision::Allow,
            ReviewVerdict::Deny => ReviewDecision::Deny,
            ReviewVerdict::Escalate => ReviewDecision::Escalate,
        },
        reason: review.reason.clone(),
        latency_ms: u64::try_from(review.latency.as_millis()).unwrap_or(u64::MAX),
    }
}

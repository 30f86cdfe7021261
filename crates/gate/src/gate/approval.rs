//! The approval flow of one call: the decision settled with the approver,
//! the queue, or an approval a person gave earlier for the same call.

use super::*;

impl Gate {
    /// What the decision, the approver and the queue make of a call. Rows
    /// for waiting and declined-in-queue calls are written here; the
    /// others are written by the caller once it knows the outcome.
    pub(super) fn settle(
        &mut self,
        snapshot: &Call,
        decision: &Decision,
        start: Instant,
        preflight: bool,
    ) -> Approval {
        if let Err(unrecorded) = self.ledger_ready(decision, preflight) {
            return Approval::Refuse {
                text: unrecorded.to_string(),
                answer: None,
                note: None,
                log: None,
                recorded: true,
                approval_id: None,
            };
        }
        match decision.decision {
            Effect::Allow => Approval::Go {
                answer: None,
                note: None,
                log: None,
                queued: None,
                picked_up: false,
            },
            Effect::Deny => Approval::Refuse {
                text: texts::refusal(&decision.reason, decision.hard, None),
                answer: None,
                note: None,
                log: None,
                recorded: false,
                approval_id: None,
            },
            Effect::Ask => {
                self.stats.prompts += 1;
                self.ask(snapshot, decision, start)
            }
        }
    }

    /// The approver's turn (after looking for an approval a person gave
    /// earlier for the same call).
    pub(super) fn ask(&mut self, snapshot: &Call, decision: &Decision, start: Instant) -> Approval {
        match queue::approved_earlier(self, snapshot) {
            Ok(Some(earlier)) => return self.pick_up(decision, earlier),
            Ok(None) => {}
            Err(problem) => {
                return Approval::Refuse {
                    text: texts::refusal(
                        &format!(
                            "{}; the approval queue cannot be read ({problem})",
                            decision.reason
                        ),
                        false,
                        None,
                    ),
                    answer: None,
                    note: None,
                    log: None,
                    recorded: false,
                    approval_id: None,
                };
            }
        }
        if let Some(settled) = self.review_step(snapshot, decision) {
            return settled;
        }
        let digest = decision.digest.clone().unwrap_or_else(|| snapshot.digest());
        let mut req = ApprovalRequest {
            call: snapshot.clone(),
            digest,
            reason: decision.reason.clone(),
            rule: decision.rule.clone(),
            remember: decision.remember,
            session: self.session.clone(),
        };
        let question = req.question();
        let approver = &mut self.approver;
        let answer = catch_unwind(AssertUnwindSafe(|| approver.ask(&mut req)));
        let log = |answer: ApprovalAnswer, note: Option<String>| ApprovalLog {
            question: question.clone(),
            answer: answer.as_str().into(),
            note,
        };
        let refuse =
            |what: String, answer: ApprovalAnswer, note: Option<String>| Approval::Refuse {
                text: texts::refusal(&what, false, note.as_deref()),
                answer: Some(answer),
                log: Some(log(answer, note.clone())),
                note,
                recorded: false,
                approval_id: None,
            };
        let no_answer = |what: String| {
            refuse(
                format!("{what} ({})", decision.reason),
                ApprovalAnswer::NoAnswer,
                None,
            )
        };
        match answer {
            Ok(Ok(Answer::Approve)) => Approval::Go {
                answer: Some(ApprovalAnswer::Approve),
                note: None,
                log: Some(log(ApprovalAnswer::Approve, None)),
                queued: None,
                picked_up: false,
            },
            Ok(Ok(Answer::Session)) => {
                // "This session" only where the rule allows it; elsewhere
                // it is a yes for this call alone.
                let recorded = if decision.remember {
                    self.grant(&decision.grant_rules);
                    ApprovalAnswer::Session
                } else {
                    ApprovalAnswer::Approve
                };
                Approval::Go {
                    answer: Some(recorded),
                    note: None,
                    log: Some(log(recorded, None)),
                    queued: None,
                    picked_up: false,
                }
            }
            Ok(Ok(Answer::Decline { note })) => Approval::Refuse {
                text: texts::declined_text(&decision.reason, None, None, note.as_deref()),
                answer: Some(ApprovalAnswer::Decline),
                log: Some(log(ApprovalAnswer::Decline, note.clone())),
                note,
                recorded: false,
                approval_id: None,
            },
            Ok(Ok(Answer::Unanswered)) => {
                let patience = self.approver.patience();
                match queue::enqueue(self, snapshot, decision, start) {
                    Err(problem) => refuse(
                        format!(
                            "{}; it needs a person's approval, but the approval queue failed ({problem})",
                            decision.reason
                        ),
                        ApprovalAnswer::NoAnswer,
                        None,
                    ),
                    Ok(None) => Approval::Refuse {
                        text: texts::waiting_text(&decision.reason, None),
                        answer: Some(ApprovalAnswer::Unanswered),
                        note: None,
                        log: Some(log(ApprovalAnswer::Unanswered, None)),
                        recorded: false,
                        approval_id: None,
                    },
                    Ok(Some(id)) => {
                        let waited = queue::await_answer(self, &id, patience);
                        self.after_wait(
                            decision,
                            id,
                            waited,
                            patience,
                            log(ApprovalAnswer::Unanswered, None),
                        )
                    }
                }
            }
            Ok(Ok(Answer::Host)) => Approval::Host,
            Ok(Ok(Answer::Unavailable { why })) => Approval::Refuse {
                text: texts::refusal(&format!("{}; {why}", decision.reason), false, None),
                answer: Some(ApprovalAnswer::NoAnswer),
                note: None,
                log: Some(log(ApprovalAnswer::NoAnswer, None)),
                recorded: false,
                approval_id: None,
            },
            Ok(Ok(Answer::Other(v))) => {
                no_answer(format!("the approver's answer `{v}` is not an approval"))
            }
            Ok(Err(e)) => no_answer(format!("the approver failed: {e}")),
            Err(_) => no_answer("the approver failed unexpectedly".to_string()),
        }
    }

    /// What became of a queued call after waiting for its answer.
    pub(super) fn after_wait(
        &mut self,
        decision: &Decision,
        id: String,
        waited: Queued,
        patience: crate::approver::Patience,
        log: ApprovalLog,
    ) -> Approval {
        let refuse_recorded = |text: String| Approval::Refuse {
            text,
            answer: None,
            note: None,
            log: None,
            recorded: true,
            approval_id: Some(id.clone()),
        };
        match waited {
            Queued::Approved(claimed) => {
                self.take_session_grant(&claimed, decision);
                Approval::Go {
                    answer: claimed.answer.map(ApprovalAnswer::from),
                    note: claimed.note.clone(),
                    log: Some(ApprovalLog {
                        question: log.question,
                        answer: claimed
                            .answer
                            .map(|a| a.to_string())
                            .unwrap_or_else(|| "approve".into()),
                        note: claimed.note.clone(),
                    }),
                    queued: Some(Box::new(claimed)),
                    picked_up: false,
                }
            }
            Queued::Declined(p) => {
                // The store wrote the decline's resolution row.
                let text = texts::declined_text(
                    &decision.reason,
                    p.answered_by.as_deref(),
                    Some(&p.id),
                    p.note.as_deref(),
                );
                Approval::Refuse {
                    text,
                    answer: Some(ApprovalAnswer::Decline),
                    note: p.note.clone(),
                    log: Some(ApprovalLog {
                        question: log.question,
                        answer: "decline".into(),
                        note: p.note.clone(),
                    }),
                    recorded: true,
                    approval_id: Some(p.id),
                }
            }
            Queued::Pending if patience.wait.is_zero() => Approval::Wait {
                text: texts::waiting_text(&decision.reason, Some(&id)),
                id,
                log,
            },
            Queued::Pending => Approval::Wait {
                text: texts::still_pending_text(&decision.reason, &id, patience.wait),
                id,
                log,
            },
            Queued::Taken => refuse_recorded(texts::used_elsewhere_text(&decision.reason, &id)),
            Queued::Expired => refuse_recorded(texts::refusal(
                &format!(
                    "{}; its approval `{id}` expired: no one answered within the approval TTL",
                    decision.reason
                ),
                false,
                None,
            )),
            Queued::Gone => refuse_recorded(texts::refusal(
                &format!(
                    "{}; its pending approval `{id}` disappeared from the queue",
                    decision.reason
                ),
                false,
                None,
            )),
            Queued::Failed(problem) => refuse_recorded(texts::refusal(
                &format!(
                    "{}; the approval queue failed while waiting for `{id}` ({problem})",
                    decision.reason
                ),
                false,
                None,
            )),
        }
    }

    /// Uses an approval a person gave after an earlier identical call
    /// stopped waiting. The approval's resolution row is about that
    /// earlier call, which was told it was refused: it says `blocked`.
    /// This call's own row links to the approval.
    pub(super) fn pick_up(&mut self, decision: &Decision, earlier: Pending) -> Approval {
        match queue::claim(self, &earlier.id) {
            Ok(Some(claimed)) => {
                self.take_session_grant(&claimed, decision);
                if let Some(store) = &self.store
                    && let Err(e) = store.finish(&claimed.id, toolgate_store::Outcome::Blocked, 0)
                {
                    self.warnings
                        .push(format!("the approval's resolution was not recorded ({e})"));
                }
                Approval::Go {
                    answer: claimed.answer.map(ApprovalAnswer::from),
                    note: claimed.note.clone(),
                    log: Some(ApprovalLog {
                        question: format!("{} (call {})", earlier.tool, earlier.call_id),
                        answer: claimed
                            .answer
                            .map(|a| a.to_string())
                            .unwrap_or_else(|| "approve".into()),
                        note: claimed.note.clone(),
                    }),
                    queued: Some(Box::new(claimed)),
                    picked_up: true,
                }
            }
            Ok(None) => Approval::Refuse {
                text: texts::used_elsewhere_text(&decision.reason, &earlier.id),
                answer: None,
                note: None,
                log: None,
                recorded: false,
                approval_id: Some(earlier.id),
            },
            Err(problem) => Approval::Refuse {
                text: texts::refusal(
                    &format!(
                        "{}; an approval for it (`{}`) could not be taken ({problem})",
                        decision.reason, earlier.id
                    ),
                    false,
                    None,
                ),
                answer: None,
                note: None,
                log: None,
                recorded: false,
                approval_id: Some(earlier.id),
            },
        }
    }
}

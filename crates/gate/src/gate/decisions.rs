//! Decisions the gate makes itself, before or instead of the policy: a
//! tool the host blocks, arguments that cannot be read.

use super::*;

impl Gate {
    /// Refuses a call that could not even be read (its arguments are not a
    /// JSON object), recording it like any other request: the ledger and
    /// [`Gate::stats`] count every call a model proposed, readable or not.
    ///
    /// `raw` is the arguments' text exactly as the model sent it.
    pub fn reject_unreadable(
        &mut self,
        call_id: &str,
        tool: &str,
        raw: &str,
        problem: &str,
    ) -> ToolResult {
        let start = Instant::now();
        let snapshot = raw_snapshot(call_id, tool, "unreadable_arguments", raw);
        let digest = snapshot.digest();
        self.stats.requests += 1;
        self.stats.count(Outcome::Blocked);
        let mut decision = unreadable_decision(call_id, tool, problem);
        decision.rule = Some(INVALID_ARGUMENTS_RULE.into());
        decision.digest = Some(digest);
        // The ledger keeps what the model sent, byte for byte.
        let row = Row::request(Outcome::Blocked, start).raw_input(raw.to_string());
        let _ = self.write(&snapshot, &decision, row);
        ToolResult {
            call_id: call_id.to_string(),
            content: texts::refusal_text(&decision.reason, None),
            is_error: true,
            outcome: Outcome::Blocked,
            decision,
            approval: None,
            approval_id: None,
        }
    }
}

impl Gate {
    /// Records a request the host passed on without a decision of the
    /// policy (an MCP server's request to the client, which the client
    /// declared it takes), so that the ledger holds every request that
    /// crossed the gateway. `raw` is the request's parameters as they came.
    pub fn record_relayed(&mut self, call_id: &str, tool: &str, raw: &str, why: &str) {
        let start = Instant::now();
        let snapshot = raw_snapshot(call_id, tool, "relayed_params", raw);
        let mut decision = unreadable_decision(call_id, tool, why);
        decision.decision = Effect::Allow;
        decision.rule = Some(rule_ids::HOST_RELAYED.into());
        decision.digest = Some(snapshot.digest());
        self.stats.requests += 1;
        self.stats.count(Outcome::Passed);
        let row = Row::request(Outcome::Passed, start).raw_input(raw.to_string());
        let _ = self.write(&snapshot, &decision, row);
    }
}

/// The call a ledger row records for input kept as it came (`raw`), under
/// the field `field`: the gate read nothing of it.
fn raw_snapshot(call_id: &str, tool: &str, field: &str, raw: &str) -> Call {
    let mut input = serde_json::Map::new();
    input.insert(field.into(), serde_json::Value::String(raw.to_string()));
    Call {
        id: call_id.to_string(),
        tool: tool.to_string(),
        input,
        client: toolgate_policy::Client::Toolgate,
        cwd: None,
    }
}

pub(super) fn blocked_by_host(call: &Call, mode: Mode, digest: &str) -> Decision {
    let reason = format!("the host blocked the tool `{}`", call.tool);
    Decision {
        id: call.id.clone(),
        decision: Effect::Deny,
        reason,
        rule: Some(rule_ids::HOST_BLOCKED_TOOL.into()),
        hard: false,
        tool: call.tool.clone(),
        client: call.client,
        mode,
        digest: Some(digest.to_string()),
        remember: false,
        grant_rules: Vec::new(),
        actions: Vec::new(),
    }
}

pub(super) fn unreadable_decision(id: &str, tool: &str, why: &str) -> Decision {
    Decision {
        id: id.to_string(),
        decision: Effect::Deny,
        reason: why.to_string(),
        rule: Some(rule_ids::INVALID_SNAPSHOT.into()),
        hard: false,
        tool: tool.to_string(),
        client: toolgate_policy::Client::Toolgate,
        mode: Mode::Default,
        digest: None,
        remember: false,
        grant_rules: Vec::new(),
        actions: Vec::new(),
    }
}

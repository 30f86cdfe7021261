//! Deciding a call: hard limits first, then every matching rule (strictest
//! wins), then the floors nothing may lift, then session grants, then the
//! mode.

mod action;
mod connect;
mod eval;
mod hard;
mod hits;
mod ignore;
mod matching;
mod mode;
mod tracked;
mod walk;

use std::path::PathBuf;

use crate::actions::{self, DeriveEnv, Via};
use crate::call::{Call, Client};
use crate::catalog;
use crate::decision::{Action, ActionDecision, Decision};
use crate::effect::{Effect, Mode};
use crate::index::ToolRule;
use crate::paths;
use crate::policy::Policy;
use crate::rule::Remember;
use crate::rule_ids;
use crate::validate::{self, Spec};

use connect::Connection;
use mode::apply_mode;

/// How many directory entries a recursive read or write may cover before
/// the gate stops looking and asks.
pub const WALK_LIMIT: usize = 10_000;

/// What a host adds to a decision besides the call.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context<'a> {
    /// Replaces the policy's mode (`--mode`).
    pub mode: Option<Mode>,
    /// The client's own mode (Claude Code's `permission_mode`): applied after
    /// the policy's mode when it is stricter (`plan`, `dont-ask`); a looser
    /// client mode never loosens a decision.
    pub client_mode: Option<Mode>,
    /// Rule ids granted "for this session".
    pub grants: &'a [String],
    /// Collect every matching rule for explanations.
    pub trace: bool,
}

/// One call's evaluation: the policy, the host's context, the tool-name
/// rules of the call's tool, and a scratch buffer for glob matches.
struct Eval<'p, 'c> {
    policy: &'p Policy,
    ctx: &'c Context<'c>,
    tool_rules: Vec<&'p ToolRule>,
    buf: Vec<usize>,
    /// What the file system was found to hold, for this decision.
    seen: &'c paths::Lookups,
}

impl Policy {
    /// Decides a call in the policy's own mode.
    pub fn decide(&self, call: &Call) -> Decision {
        self.decide_in(call, &Context::default())
    }

    /// Decides a call with a host's context (mode, session grants, tracing).
    pub fn decide_in(&self, call: &Call, ctx: &Context<'_>) -> Decision {
        self.decide_with(call, ctx, None)
    }

    /// Decides a call; with a connection, its fetches meet host rules with
    /// the addresses their host resolved to as well.
    fn decide_with(
        &self,
        call: &Call,
        ctx: &Context<'_>,
        connection: Option<Connection<'_>>,
    ) -> Decision {
        let mode = ctx.mode.unwrap_or(self.mode);
        let spec = self.spec_for(call);
        let (text_cwd, cwd) = self.call_cwd(call);
        if let Err(reason) = validate::validate(spec, &call.input) {
            return self.combine(call, mode, vec![invalid_decision(reason.to_string())]);
        }
        let seen = paths::Lookups::default();
        let mut items = actions::derive(
            spec,
            &call.input,
            &DeriveEnv {
                cwd: &cwd,
                text_cwd: &text_cwd,
                // toolgate's own tools open through the kernel, beneath a
                // root; every client's tools take `..` as text first.
                opener: match call.client {
                    Client::Toolgate => paths::Opener::Kernel,
                    _ => paths::Opener::Client,
                },
                home: self.home.as_deref(),
                canonical: &self.roots,
                seen: &seen,
            },
        );
        if let Some(c) = connection {
            c.apply(&mut items);
        }
        let mut ev = Eval {
            policy: self,
            ctx,
            tool_rules: Vec::new(),
            buf: Vec::new(),
            seen: &seen,
        };
        self.index.tools.for_tool(&call.tool, &mut ev.tool_rules);

        let mut out: Vec<Option<ActionDecision>> = vec![None; items.len()];
        // Commands first: their operands may take their decision.
        for pass in 0..2 {
            for (i, item) in items.iter().enumerate() {
                let is_operand = matches!(item.via, Via::Operand(_) | Via::Argument(_));
                if (pass == 0) == is_operand {
                    continue;
                }
                // The command an operand or redirect belongs to comes
                // earlier in `items`, so it is decided by now; it is
                // borrowed from the decided part rather than cloned.
                let (decided, _) = out.split_at(i);
                let owner = match item.via {
                    Via::Operand(j) | Via::Argument(j) | Via::Redirect(Some(j)) => {
                        decided.get(j).and_then(Option::as_ref)
                    }
                    _ => None,
                };
                let mut ad = ev.eval(&call.tool, item, owner);
                self.apply_grants(&mut ad, ctx.grants);
                apply_mode(mode, item, spec.kind(), &mut ad);
                if let Some(cm) = ctx.client_mode
                    && matches!(cm, Mode::Plan | Mode::DontAsk)
                {
                    apply_mode(cm, item, spec.kind(), &mut ad);
                }
                out[i] = Some(ad);
            }
        }
        let actions: Vec<ActionDecision> = out.into_iter().flatten().collect();
        self.combine(call, mode, actions)
    }

    fn spec_for(&self, call: &Call) -> Spec<'_> {
        if let Some(s) = catalog::lookup(call.client, &call.tool) {
            return Spec::Catalog(s);
        }
        if let Some(d) = self.tools.get(&call.tool) {
            return Spec::Declared(d);
        }
        Spec::Unknown
    }

    /// The directory relative paths of a call resolve against: its `cwd`
    /// (relative to the first root when relative), else the first root; as
    /// the call names it (`.` and `..` removed as text, the way a client
    /// joins its tools' paths to it), and with its links followed (where a
    /// command runs).
    fn call_cwd(&self, call: &Call) -> (PathBuf, PathBuf) {
        let root = &self.roots[0];
        match &call.cwd {
            None => (root.clone(), root.clone()),
            Some(c) => {
                let abs = paths::normalize_lexically(&root.join(c));
                let real = paths::resolve_real(&abs).unwrap_or_else(|_| abs.clone());
                (abs, real)
            }
        }
    }

    fn apply_grants(&self, ad: &mut ActionDecision, grants: &[String]) {
        if ad.decision != Effect::Ask || ad.sticky || ad.hard || grants.is_empty() {
            return;
        }
        if let Some(id) = &ad.rule
            && let Some(rule) = self.index.rule_by_id(id).map(|r| &self.rules[r])
            && rule.remember == Remember::Session
            && grants.iter().any(|g| g == id)
        {
            ad.decision = Effect::Allow;
            ad.reason = format!(
                "{}; allowed for this session by a grant of rule `{id}`",
                ad.reason
            );
        }
    }

    fn combine(&self, call: &Call, mode: Mode, actions: Vec<ActionDecision>) -> Decision {
        let decision = actions
            .iter()
            .map(|a| a.decision)
            .max()
            .unwrap_or(self.default);
        // The action shown as the reason: a catastrophic shape first (its
        // reason names the whole command, `rm` of `/*`, where a path action
        // names one of the paths it removes), then any other catastrophic
        // or hard limit, then the first action with the winning decision.
        let hard = |a: &&ActionDecision| a.decision == decision && a.hard;
        let rep = actions
            .iter()
            .filter(hard)
            .find(|a| matches!(a.action, Action::Hazard { .. }))
            .or_else(|| {
                actions
                    .iter()
                    .filter(hard)
                    .find(|a| a.rule.as_deref() == Some(rule_ids::HARD_CATASTROPHIC))
            })
            .or_else(|| actions.iter().find(hard))
            .or_else(|| actions.iter().find(|a| a.decision == decision));
        let (reason, rule, hard) = match rep {
            Some(a) => (
                a.reason.clone(),
                a.rule.clone(),
                a.hard && decision == Effect::Deny,
            ),
            None => (
                format!(
                    "the call implies no action; the policy's default is {}",
                    self.default
                ),
                None,
                false,
            ),
        };
        let mut remember = decision == Effect::Ask;
        let mut grant_rules: Vec<String> = Vec::new();
        if remember {
            for a in actions.iter().filter(|a| a.decision == Effect::Ask) {
                let ok = !a.sticky
                    && a.rule.as_ref().is_some_and(|id| {
                        self.index
                            .rule_by_id(id)
                            .is_some_and(|r| self.rules[r].remember == Remember::Session)
                    });
                if !ok {
                    remember = false;
                    break;
                }
                if let Some(id) = &a.rule
                    && !grant_rules.contains(id)
                {
                    grant_rules.push(id.clone());
                }
            }
            if !remember {
                grant_rules.clear();
            }
        }
        Decision {
            id: call.id.clone(),
            decision,
            reason,
            rule,
            hard,
            tool: call.tool.clone(),
            client: call.client,
            mode,
            digest: None,
            remember,
            grant_rules,
            actions,
        }
    }
}

fn invalid_decision(reason: String) -> ActionDecision {
    ActionDecision {
        action: Action::Invalid {
            reason: reason.clone(),
        },
        decision: Effect::Deny,
        rule: Some(rule_ids::INVALID_INPUT.into()),
        hard: false,
        reason: format!("invalid input: {reason}"),
        via: None,
        matched: Vec::new(),
        sticky: false,
    }
}

fn verb(e: Effect) -> &'static str {
    match e {
        Effect::Allow => "is allowed",
        Effect::Ask => "needs approval",
        Effect::Deny => "is denied",
    }
}

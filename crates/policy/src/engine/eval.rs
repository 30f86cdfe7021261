//! One action decided: hard limits, rules, floors, the walk beneath a
//! recursive read or write.

use crate::actions::{Item, Via, What};
use crate::decision::{Action, ActionDecision, Matched};
use crate::effect::Effect;
use crate::rule_ids;

use super::action::to_action;
use super::hits::Hits;
use super::{Eval, verb};

impl Eval<'_, '_> {
    /// Decides one item. `owner` is the decision on the command an operand
    /// or redirect belongs to: an operand no rule matches takes its
    /// decision, and both name it in `via`.
    pub(super) fn eval(
        &mut self,
        tool: &str,
        item: &Item,
        owner: Option<&ActionDecision>,
    ) -> ActionDecision {
        let action = to_action(tool, &item.what);
        let what = action.describe();
        let owner_name = match owner.map(|d| &d.action) {
            Some(Action::Exec { argv, .. }) => argv.first().map(String::as_str),
            _ => None,
        };
        let via = match (item.via, owner_name) {
            (Via::Direct, _) => None,
            (Via::Redirect(_), Some(name)) => Some(format!("redirect of `{name}`")),
            (Via::Redirect(_), None) => Some("redirect".to_string()),
            (Via::Operand(_), Some(name)) => Some(format!("operand of `{name}`")),
            (Via::Operand(_), None) => Some("operand".to_string()),
            (Via::Argument(_), Some(name)) => Some(format!("argument of `{name}`")),
            (Via::Argument(_), None) => Some("argument".to_string()),
        };
        let inherited = match item.via {
            Via::Operand(_) => owner,
            _ => None,
        };
        let mut ad = ActionDecision {
            action,
            decision: Effect::Deny,
            rule: None,
            hard: false,
            reason: String::new(),
            via,
            matched: Vec::new(),
            sticky: false,
        };

        // An argument that names a file or URL: the program may read,
        // write or fetch it, or not. Only deny and ask rules count, as an
        // ask. For a file, only rules that name files (`Read(.env)`,
        // `Edit(secrets/**)`), not a rule on every read or write (`ask =
        // ["Edit"]`), which says nothing about this file; for a URL, every
        // rule on fetching: any fetch is the network.
        if matches!(item.via, Via::Argument(_)) {
            let is_fetch = matches!(item.what, What::Fetch { .. });
            let mut all = Hits::new(true);
            self.match_rules(&item.what, &mut all);
            let mut hits = Hits::new(self.ctx.trace);
            for &(r, sel) in &all.all {
                let names_files = self.policy.rules[r]
                    .sources
                    .get(sel)
                    .is_some_and(|s| s.contains('('));
                if names_files || is_fetch {
                    hits.add(self.policy, r, sel);
                }
            }
            self.fill_from_hits(&mut ad, &hits, &what);
            let program = owner_name.unwrap_or("the command");
            let credential = self.credential(&item.what);
            if let Some((label, path)) = credential.filter(|_| hits.effect() != Some(Effect::Deny))
            {
                ad.rule = Some(rule_ids::BUILTIN_CREDENTIALS.into());
                ad.reason = format!(
                    "{what}: {}; `{program}` is given it, and what it does with it is not known",
                    super::hard::credential_reason(label, &path)
                );
                ad.decision = Effect::Ask;
            } else if hits.effect().is_some_and(|e| e >= Effect::Ask) {
                ad.reason = format!(
                    "{}; `{program}` is given it, and what it does with it is not known",
                    ad.reason
                );
                ad.decision = Effect::Ask;
            } else if let Some((rule, why)) = self.guarded(&item.what) {
                // What toolgate itself reads, or a protected path: the
                // program may write it, which no allow covers.
                ad.rule = Some(rule.into());
                ad.sticky = true;
                ad.reason = format!(
                    "{what}: `{program}` is given it and may write it, and it {why}; so it needs approval"
                );
                ad.decision = Effect::Ask;
            } else {
                ad.decision = Effect::Allow;
                ad.rule = None;
                ad.reason =
                    format!("{what}: `{program}` is given it; no rule denies or asks for it");
            }
            return ad;
        }

        // 1. Hard limits.
        if let Some((rule, why)) = self.hard_limit(&item.what) {
            ad.rule = Some(rule.to_string());
            ad.hard = true;
            ad.reason = match &item.what {
                What::Hazard { .. } => {
                    format!("{why} (a hard limit: no rule, mode or approval lifts it)")
                }
                _ => format!("{what} {why} (a hard limit: no rule, mode or approval lifts it)"),
            };
            return ad;
        }

        // Where credentials live: a deny no broad allow lifts.
        if let Some((label, path)) = self.credential(&item.what) {
            ad.rule = Some(rule_ids::BUILTIN_CREDENTIALS.into());
            ad.reason = format!("{what}: {}", super::hard::credential_reason(label, &path));
            if self.ctx.trace {
                let mut hits = Hits::new(true);
                self.match_rules(&item.what, &mut hits);
                let reason = std::mem::take(&mut ad.reason);
                let (rule, decision) = (ad.rule.take(), ad.decision);
                self.fill_from_hits(&mut ad, &hits, &what);
                (ad.reason, ad.rule, ad.decision) = (reason, rule, decision);
            }
            return ad;
        }

        // 2. Rules. A read of what a whole repository tracks names no
        // file of its own: only what it reaches meets rules (step 4).
        let mut hits = Hits::new(self.ctx.trace);
        if !matches!(
            item.what,
            What::Path {
                tracked: Some(
                    toolgate_shell::Tracked::Repository | toolgate_shell::Tracked::WorkTree
                ),
                ..
            }
        ) {
            self.match_rules(&item.what, &mut hits);
        }
        self.fill_from_hits(&mut ad, &hits, &what);
        if hits.best.is_none() {
            match (item.via, inherited) {
                _ if matches!(item.what, What::Exec { no_op: true, .. }) => {
                    ad.decision = Effect::Allow;
                    ad.rule = None;
                    ad.reason = format!("{what} runs nothing, so it needs no rule");
                }
                (Via::Operand(_), Some(cmd)) => {
                    ad.decision = cmd.decision.min(Effect::Deny);
                    ad.rule = cmd.rule.clone();
                    ad.reason = format!(
                        "{what}: no rule matches it, so it takes the decision of its command ({})",
                        cmd.decision
                    );
                }
                _ => {
                    ad.decision = self.policy.default;
                    ad.rule = None;
                    ad.reason = format!(
                        "{what}: no rule matches, and the policy's default is {}",
                        self.policy.default
                    );
                }
            }
        }

        // 3. Floors that nothing but a deny overrides.
        // A path the client may correct to another file: which file it
        // edits cannot be known here (the files found that it may mean are
        // actions of their own).
        if let What::Path {
            corrected: true,
            written,
            ..
        } = &item.what
            && ad.decision != Effect::Deny
        {
            ad.decision = Effect::Ask;
            ad.rule = Some(rule_ids::CLIENT_PATH_CORRECTION.into());
            ad.sticky = true;
            ad.reason = format!(
                "{what}: no file is named `{written}`, and the client then edits the one file \
                 in its workspace whose path ends with it, which may be another; so it needs \
                 approval (`{}`)",
                rule_ids::CLIENT_PATH_CORRECTION
            );
        }
        match &item.what {
            What::Path {
                write: true,
                resolved,
                ..
            } if ad.decision != Effect::Deny => {
                let hit = resolved
                    .both()
                    .find_map(|p| {
                        self.policy
                            .protected
                            .find(p)
                            .map(|label| format!("`{label}` is a protected path"))
                            .or_else(|| self.hooks_holding(p))
                    })
                    .or_else(|| {
                        let real = resolved.real.as_ref().ok()?;
                        self.seen.other_names(real).map(|names| {
                            format!(
                                "the file has {} names (hard links), and a write through this one changes \
                                 what the others hold, which may be protected or denied",
                                names.count
                            )
                        })
                    });
                if let Some(why) = hit {
                    ad.decision = Effect::Ask;
                    ad.rule = Some(rule_ids::PROTECTED.into());
                    ad.sticky = true;
                    ad.reason = format!("{what}: {why}; writes there always need approval");
                }
            }
            // An unanalysable part asks, whatever the default; only a rule
            // that denies (a `*` or tool-name rule) makes it deny.
            What::Unknown { reason } if hits.effect() != Some(Effect::Deny) => {
                ad.decision = Effect::Ask;
                ad.sticky = true;
                ad.rule = None;
                ad.reason = format!("could not be analysed, so it needs approval: {reason}");
            }
            What::Fetch { target, .. } if ad.decision != Effect::Deny => {
                let unreadable = match target {
                    Err(why) => Some(format!("it cannot be parsed as a URL: {why}")),
                    Ok(t) if t.hosts.is_empty() => Some("it names no network host".to_string()),
                    Ok(t) if t.ambiguous => Some(format!(
                        "parsers disagree on its host ({})",
                        t.hosts
                            .iter()
                            .map(|h| format!("`{h}`"))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    )),
                    Ok(_) => None,
                };
                if let Some(why) = unreadable {
                    ad.decision = Effect::Ask;
                    ad.sticky = true;
                    ad.rule = None;
                    ad.reason = format!("{what}: {why}, so it needs approval");
                }
            }
            _ => {}
        }

        // 4. A recursive read or write covers what lies beneath; what git
        // shows, what it tracks there.
        if let What::Path {
            tracked: Some(scope),
            resolved,
            filter,
            write,
            written,
            ..
        } = &item.what
        {
            if ad.decision != Effect::Deny {
                match scope {
                    toolgate_shell::Tracked::WorkTree => {
                        self.work_tree(resolved, filter.as_ref(), *write, &mut ad)
                    }
                    // A rewrite is written `.`, `HEAD`, or as the one word
                    // `git checkout` was given, which may name a path.
                    _ => self.tracked(*scope, resolved, write.then_some(written.as_str()), &mut ad),
                }
            }
            return ad;
        }
        if let What::Path {
            write,
            recursive: true,
            resolved,
            filter,
            listing,
            whole_dirs,
            ..
        } = &item.what
            && ad.decision != Effect::Deny
            && let Ok(real) = &resolved.real
            && self.seen.is_dir(real)
        {
            let listing = match (listing, whole_dirs) {
                (false, _) => None,
                (true, true) => Some(super::walk::Listing::WholeDirs),
                (true, false) => Some(super::walk::Listing::Shown),
            };
            self.walk(*write, real, filter.as_ref(), listing, &mut ad);
        }
        ad
    }

    pub(super) fn fill_from_hits(&self, ad: &mut ActionDecision, hits: &Hits, what: &str) {
        if let Some((e, r)) = hits.best {
            let rule = &self.policy.rules[r];
            ad.decision = e;
            ad.rule = Some(rule.id.clone());
            let sel = hits.best_sel;
            let source = rule
                .sources
                .get(sel)
                .or_else(|| rule.sources.first())
                .cloned()
                .unwrap_or_default();
            ad.reason = match &rule.reason {
                Some(why) => format!(
                    "{what} {} by rule `{}` (`{source}`): {why}",
                    verb(e),
                    rule.id
                ),
                None => format!("{what} {} by rule `{}` (`{source}`)", verb(e), rule.id),
            };
            // A reviewer sees only asks: an allow that grants arbitrary
            // code asks while review is on (see `demote`).
            if e == Effect::Allow
                && let Some(why) = self.policy.demoted(r, sel)
            {
                ad.decision = Effect::Ask;
                ad.reason = format!(
                    "{what}: rule `{}` (`{source}`) grants arbitrary code ({why}); while review is on it asks",
                    rule.id
                );
            }
        }
        if self.ctx.trace {
            let mut m: Vec<Matched> = hits
                .all
                .iter()
                .map(|&(r, s)| {
                    let rule = &self.policy.rules[r];
                    Matched {
                        rule: rule.id.clone(),
                        effect: rule.effect,
                        selector: rule.sources.get(s).cloned().unwrap_or_default(),
                    }
                })
                .collect();
            m.sort_by_key(|a| std::cmp::Reverse(a.effect));
            ad.matched = m;
        }
    }
}

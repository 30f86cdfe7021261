//! Deciding a call: hard limits first, then every matching rule (strictest
//! wins), then the floors nothing may lift, then session grants, then the
//! mode.

use std::path::{Path, PathBuf};

use globset::Candidate;

use crate::actions::{self, DeriveEnv, Item, Via, What};
use crate::call::Call;
use crate::catalog::{self, Kind};
use crate::decision::{Action, ActionDecision, Decision, Matched};
use crate::effect::{Effect, Mode};
use crate::index::{Index, RuleIdx, ToolRule};
use crate::paths;
use crate::pattern::wildcard;
use crate::policy::Policy;
use crate::rule::Remember;
use crate::rule_ids;
use crate::validate::{self, Spec};

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

/// The rules that matched an action, and the strictest of them.
#[derive(Default)]
struct Hits {
    best: Option<(Effect, RuleIdx)>,
    /// Which selector of the best rule matched, for its reason (a rule may
    /// list several; naming the first would name one that did not match).
    best_sel: usize,
    all: Vec<(RuleIdx, usize)>,
    trace: bool,
}

impl Hits {
    fn new(trace: bool) -> Hits {
        Hits {
            trace,
            ..Hits::default()
        }
    }

    fn add(&mut self, policy: &Policy, r: RuleIdx, sel: usize) {
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
    fn settled_above(&self, e: Effect) -> bool {
        !self.trace && self.best.is_some_and(|(b, _)| b > e)
    }

    fn effect(&self) -> Option<Effect> {
        self.best.map(|(e, _)| e)
    }
}

struct Eval<'p, 'c> {
    policy: &'p Policy,
    ctx: &'c Context<'c>,
    tool_rules: Vec<&'p ToolRule>,
    buf: Vec<usize>,
}

impl Policy {
    /// Decides a call in the policy's own mode.
    pub fn decide(&self, call: &Call) -> Decision {
        self.decide_in(call, &Context::default())
    }

    /// Decides a call with a host's context (mode, session grants, tracing).
    pub fn decide_in(&self, call: &Call, ctx: &Context<'_>) -> Decision {
        let mode = ctx.mode.unwrap_or(self.mode);
        let spec = self.spec_for(call);
        let cwd = self.call_cwd(call);
        if let Err(reason) = validate::validate(spec, &call.input) {
            return self.combine(call, mode, vec![invalid_decision(reason)]);
        }
        let items = actions::derive(
            spec,
            &call.input,
            &DeriveEnv {
                cwd: &cwd,
                home: self.home.as_deref(),
                canonical: &self.roots,
            },
        );
        let mut ev = Eval {
            policy: self,
            ctx,
            tool_rules: Vec::new(),
            buf: Vec::new(),
        };
        self.index.tools.for_tool(&call.tool, &mut ev.tool_rules);

        let mut out: Vec<Option<ActionDecision>> = vec![None; items.len()];
        // Commands first: their operands may take their decision.
        for pass in 0..2 {
            for (i, item) in items.iter().enumerate() {
                let is_operand = matches!(item.via, Via::Operand(_));
                if (pass == 0) == is_operand {
                    continue;
                }
                // The command an operand or redirect belongs to comes
                // earlier in `items`, so it is decided by now; it is
                // borrowed from the decided part rather than cloned.
                let (decided, _) = out.split_at(i);
                let owner = match item.via {
                    Via::Operand(j) | Via::Redirect(Some(j)) => {
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
    /// (relative to the first root when relative), else the first root.
    fn call_cwd(&self, call: &Call) -> PathBuf {
        let root = &self.roots[0];
        match &call.cwd {
            None => root.clone(),
            Some(c) => {
                let abs = paths::normalize_lexically(&root.join(c));
                paths::resolve_real(&abs).unwrap_or(abs)
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

impl Eval<'_, '_> {
    /// Decides one item. `owner` is the decision on the command an operand
    /// or redirect belongs to: an operand no rule matches takes its
    /// decision, and both name it in `via`.
    fn eval(&mut self, tool: &str, item: &Item, owner: Option<&ActionDecision>) -> ActionDecision {
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

        // 2. Rules.
        let mut hits = Hits::new(self.ctx.trace);
        self.match_rules(&item.what, &mut hits);
        self.fill_from_hits(&mut ad, &hits, &what);
        if hits.best.is_none() {
            match (item.via, inherited) {
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
        match &item.what {
            What::Path {
                write: true,
                resolved,
                ..
            } if ad.decision != Effect::Deny => {
                let hit = resolved
                    .real
                    .as_ref()
                    .ok()
                    .and_then(|p| self.policy.protected.find(p))
                    .or_else(|| {
                        resolved
                            .lexical
                            .as_deref()
                            .and_then(|p| self.policy.protected.find(p))
                    });
                if let Some(label) = hit {
                    ad.decision = Effect::Ask;
                    ad.rule = Some(rule_ids::PROTECTED.into());
                    ad.sticky = true;
                    ad.reason = format!(
                        "{what}: `{label}` is a protected path; writes there always need approval"
                    );
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

        // 4. A recursive read or write covers what lies beneath.
        if let What::Path {
            write,
            recursive: true,
            resolved,
            ..
        } = &item.what
            && ad.decision != Effect::Deny
            && let Ok(real) = &resolved.real
            && real.is_dir()
        {
            self.walk(*write, real, &mut ad);
        }
        ad
    }

    fn fill_from_hits(&self, ad: &mut ActionDecision, hits: &Hits, what: &str) {
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

    /// The hard limit an action breaks, as `(rule id, why)`.
    fn hard_limit(&self, what: &What) -> Option<(&'static str, String)> {
        let p = self.policy;
        match what {
            What::Hazard { kind, reason } => Some((
                rule_ids::HARD_CATASTROPHIC,
                format!("catastrophic command ({kind}): {reason}"),
            )),
            What::Path {
                write,
                written,
                resolved,
                delete,
                ..
            } => {
                let real = match &resolved.real {
                    Err(e) => {
                        return Some((
                            rule_ids::HARD_OUTSIDE_ROOTS,
                            format!(
                                "cannot be resolved safely ({e}), so it counts as outside the workspace roots"
                            ),
                        ));
                    }
                    Ok(r) => r,
                };
                let lexical = resolved.lexical.as_deref();
                let within = |roots: &[PathBuf]| roots.iter().any(|r| paths::is_within(real, r));
                if *write {
                    let is_policy = p
                        .file_real
                        .as_deref()
                        .is_some_and(|f| real == f || lexical == Some(f));
                    if is_policy {
                        return Some((
                            rule_ids::HARD_POLICY_FILE,
                            "is a write to the policy file".into(),
                        ));
                    }
                    if let Some(sd) = &p.state_dir
                        && (paths::is_within(real, sd)
                            || lexical.is_some_and(|l| paths::is_within(l, sd)))
                    {
                        return Some((
                            rule_ids::HARD_STATE_DIR,
                            "is a write to toolgate's state directory".into(),
                        ));
                    }
                    if *delete {
                        let catastrophic = real == Path::new("/")
                            || p.home.as_deref() == Some(real.as_path())
                            || p.roots
                                .iter()
                                .chain(&p.read_roots)
                                .any(|r| paths::is_within(r, real));
                        if catastrophic {
                            return Some((
                                rule_ids::HARD_CATASTROPHIC,
                                "removes `/`, the home directory, a workspace root or a parent of one".into(),
                            ));
                        }
                    }
                    if !within(&p.roots) {
                        return Some((
                            rule_ids::HARD_OUTSIDE_ROOTS,
                            format!(
                                "is outside the workspace roots (`{written}` resolves to `{}`)",
                                real.display()
                            ),
                        ));
                    }
                } else if !within(&p.roots) && !within(&p.read_roots) {
                    return Some((
                        rule_ids::HARD_OUTSIDE_ROOTS,
                        format!(
                            "is outside the workspace roots (`{written}` resolves to `{}`)",
                            real.display()
                        ),
                    ));
                }
                None
            }
            _ => None,
        }
    }

    fn match_rules(&mut self, what: &What, hits: &mut Hits) {
        let p = self.policy;
        for &(r, s) in &p.index.any {
            hits.add(p, r, s);
        }
        for tr in &self.tool_rules {
            let applies = match (&tr.pattern, what) {
                (None, _) => true,
                (Some(pat), What::Path { resolved, .. }) => pat.path.as_ref().is_some_and(|g| {
                    resolved.real.as_ref().is_ok_and(|r| g.is_match(r))
                        || (p.rules[tr.rule].effect != Effect::Allow
                            && resolved.lexical.as_ref().is_some_and(|l| g.is_match(l)))
                }),
                (
                    Some(pat),
                    What::Exec {
                        argv, canonical, ..
                    },
                ) => pat
                    .command
                    .as_ref()
                    .is_some_and(|c| c.matches(argv, canonical)),
                (Some(pat), What::Fetch { url, target }) => pat.url.as_ref().is_some_and(|u| {
                    let written =
                        (p.rules[tr.rule].effect != Effect::Allow).then_some(url.as_str());
                    match target {
                        Ok(t) => u.matches(t, written),
                        Err(_) => written.is_some_and(|w| u.matches_unparsed(w)),
                    }
                }),
                (Some(pat), What::Tool { value: Some(v) }) => wildcard(&pat.source, v),
                (Some(_), _) => false,
            };
            if applies {
                hits.add(p, tr.rule, tr.sel);
            }
        }
        match what {
            What::Path {
                write, resolved, ..
            } => {
                let Ok(real) = &resolved.real else { return };
                let real_c = Candidate::new(real);
                let lex_c = resolved
                    .lexical
                    .as_ref()
                    .filter(|l| *l != real)
                    .map(|l| (l, Candidate::new(l)));
                for e in Index::strictest_first() {
                    if hits.settled_above(e) {
                        break;
                    }
                    let pr = if *write {
                        p.index.write(e)
                    } else {
                        p.index.read(e)
                    };
                    if pr.is_empty() {
                        continue;
                    }
                    pr.each_match(real, &real_c, &mut self.buf, |r, s| hits.add(p, r, s));
                    // A deny or ask also fires on the path as written.
                    if e != Effect::Allow
                        && let Some((l, lc)) = &lex_c
                    {
                        pr.each_match(l, lc, &mut self.buf, |r, s| hits.add(p, r, s));
                    }
                }
            }
            What::Exec {
                argv,
                canonical,
                wrappers,
                ..
            } => {
                for e in Index::strictest_first() {
                    if hits.settled_above(e) {
                        break;
                    }
                    let er = p.index.exec(e);
                    if er.is_empty() {
                        continue;
                    }
                    er.each_match(argv, canonical, |r, s| hits.add(p, r, s));
                    if e != Effect::Allow {
                        // Deny and ask rules also meet a command given by
                        // path under its name, and the wrappers themselves.
                        if let Some(first) = argv.first()
                            && first.contains('/')
                            && let Some(name) =
                                Path::new(first).file_name().and_then(|n| n.to_str())
                        {
                            let mut named = argv.clone();
                            named[0] = name.to_string();
                            let canon = crate::pattern::canonical_command(&named);
                            er.each_match(&named, &canon, |r, s| hits.add(p, r, s));
                        }
                        for w in wrappers {
                            let canon = crate::pattern::canonical_command(w);
                            er.each_match(w, &canon, |r, s| hits.add(p, r, s));
                        }
                    }
                }
            }
            What::Fetch { url, target } => {
                for e in Index::strictest_first() {
                    if hits.settled_above(e) {
                        break;
                    }
                    // A URL glob of a deny or ask rule also fires on the
                    // URL as written.
                    let written = (e != Effect::Allow).then_some(url.as_str());
                    let fr = p.index.fetch(e);
                    match target {
                        Ok(t) => fr.each_match(t, written, |r, s| hits.add(p, r, s)),
                        // Unparsable: only rules that can match it as
                        // written; the floor makes it ask at least.
                        Err(_) => fr.each_match_unparsed(url, |r, s| hits.add(p, r, s)),
                    }
                }
            }
            What::Tool { .. } | What::Unknown { .. } | What::Hazard { .. } => {}
        }
    }

    /// Walks a directory beneath a recursive read or write, applying the
    /// deny and ask rules (and, for writes, protected paths) that match
    /// anything there.
    fn walk(&mut self, write: bool, dir: &Path, ad: &mut ActionDecision) {
        let p = self.policy;
        let deny = if write {
            p.index.write(Effect::Deny)
        } else {
            p.index.read(Effect::Deny)
        };
        let ask = if write {
            p.index.write(Effect::Ask)
        } else {
            p.index.read(Effect::Ask)
        };
        if deny.is_empty() && ask.is_empty() && !write {
            return;
        }
        let mut stack = vec![dir.to_path_buf()];
        let mut seen = 0usize;
        let mut asked: Option<String> = None;
        while let Some(d) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            for entry in entries.flatten() {
                seen += 1;
                if seen > WALK_LIMIT {
                    ad.decision = ad.decision.max(Effect::Ask);
                    ad.sticky = true;
                    ad.rule = None;
                    ad.reason = format!(
                        "{}: more than {WALK_LIMIT} entries lie beneath it, too many to check, so it needs approval",
                        ad.action.describe()
                    );
                    return;
                }
                let path = entry.path();
                let cand = Candidate::new(&path);
                let mut hits = Hits::new(false);
                deny.each_match(&path, &cand, &mut self.buf, |r, s| hits.add(p, r, s));
                if hits.effect() == Some(Effect::Deny)
                    && let Some((_, r)) = hits.best
                {
                    let rule = &p.rules[r];
                    ad.decision = Effect::Deny;
                    ad.rule = Some(rule.id.clone());
                    ad.sticky = false;
                    ad.reason = format!(
                        "{}: `{}` lies beneath it, and that {} by rule `{}`",
                        ad.action.describe(),
                        path.display(),
                        verb(Effect::Deny),
                        rule.id
                    );
                    return;
                }
                if asked.is_none() {
                    ask.each_match(&path, &cand, &mut self.buf, |r, s| hits.add(p, r, s));
                    if let Some((Effect::Ask, r)) = hits.best {
                        asked = Some(format!(
                            "{}: `{}` lies beneath it, and that {} by rule `{}`",
                            ad.action.describe(),
                            path.display(),
                            verb(Effect::Ask),
                            p.rules[r].id
                        ));
                        if ad.decision == Effect::Allow {
                            ad.rule = Some(p.rules[r].id.clone());
                        }
                    } else if write && let Some(label) = p.protected.find(&path) {
                        asked = Some(format!(
                            "{}: `{}` lies beneath it, and `{label}` is a protected path",
                            ad.action.describe(),
                            path.display()
                        ));
                        ad.sticky = true;
                        ad.rule = Some(rule_ids::PROTECTED.into());
                    }
                }
                let Ok(ft) = entry.file_type() else { continue };
                if ft.is_symlink() {
                    // A link beneath the directory may lead outside the roots.
                    if let Ok(target) = std::fs::canonicalize(&path) {
                        let inside = p
                            .roots
                            .iter()
                            .chain(if write {
                                [].iter()
                            } else {
                                p.read_roots.iter()
                            })
                            .any(|r| paths::is_within(&target, r));
                        if !inside && asked.is_none() {
                            asked = Some(format!(
                                "{}: `{}` beneath it links outside the workspace roots",
                                ad.action.describe(),
                                path.display()
                            ));
                            ad.sticky = true;
                            ad.rule = None;
                        }
                    }
                } else if ft.is_dir() {
                    stack.push(path);
                }
            }
        }
        if let Some(reason) = asked {
            ad.decision = ad.decision.max(Effect::Ask);
            ad.reason = reason;
        }
    }
}

/// Applies a mode to one action's decision (DESIGN §3 "Modes").
fn apply_mode(mode: Mode, item: &Item, kind: Kind, ad: &mut ActionDecision) {
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

/// The public form of an action.
fn to_action(tool: &str, what: &What) -> Action {
    match what {
        What::Path {
            write,
            written,
            resolved,
            recursive,
            delete,
        } => {
            let path = resolved
                .real
                .as_ref()
                .ok()
                .or(resolved.lexical.as_ref())
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_else(|| written.clone());
            if *write {
                Action::Write {
                    path,
                    written: written.clone(),
                    recursive: *recursive,
                    delete: *delete,
                }
            } else {
                Action::Read {
                    path,
                    written: written.clone(),
                    recursive: *recursive,
                }
            }
        }
        What::Exec {
            argv,
            text,
            wrappers,
            ..
        } => Action::Exec {
            argv: argv.clone(),
            command: text.clone(),
            wrappers: wrappers.clone(),
        },
        What::Fetch { url, .. } => Action::Fetch { url: url.clone() },
        What::Tool { value } => Action::Tool {
            name: tool.to_string(),
            value: value.clone(),
        },
        What::Unknown { reason } => Action::Unknown {
            reason: reason.clone(),
        },
        What::Hazard { kind, reason } => Action::Hazard {
            hazard: kind.clone(),
            reason: reason.clone(),
        },
    }
}

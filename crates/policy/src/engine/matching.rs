//! Which rules match an action, through the index.

use std::path::Path;

use globset::Candidate;

use crate::actions::What;
use crate::effect::Effect;
use crate::index::Index;
use crate::pattern::wildcard;

use super::Eval;
use super::hits::Hits;

impl Eval<'_, '_> {
    pub(super) fn match_rules(&mut self, what: &What, hits: &mut Hits) {
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
                        argv,
                        canonical,
                        runner_argv,
                        ..
                    },
                ) => pat.command.as_ref().is_some_and(|c| {
                    c.matches(argv, canonical)
                        || runner_argv.as_ref().is_some_and(|(r, rc)| c.matches(r, rc))
                }),
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
                runner_argv,
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
                    // What a runner runs also meets the rules with the
                    // runner's words in front (`Bash(npx prettier *)`).
                    if let Some((joined, canon)) = runner_argv {
                        er.each_match(joined, canon, |r, s| hits.add(p, r, s));
                    }
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
}

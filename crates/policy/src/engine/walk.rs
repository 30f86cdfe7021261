//! The walk beneath a recursive read or write.

use std::path::Path;

use globset::Candidate;

use crate::decision::ActionDecision;
use crate::effect::Effect;
use crate::paths;
use crate::rule_ids;

use super::hits::Hits;
use super::{Eval, WALK_LIMIT, verb};

impl Eval<'_, '_> {
    /// Walks a directory beneath a recursive read or write, applying the
    /// deny and ask rules (and, for writes, protected paths) that match
    /// anything there.
    pub(super) fn walk(&mut self, write: bool, dir: &Path, ad: &mut ActionDecision) {
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
        // A directory that cannot be read may hide what a deny or ask rule
        // names: the action asks, unless something found denies it.
        let unreadable = |ad: &mut ActionDecision,
                          asked: &mut Option<String>,
                          d: &Path,
                          e: &std::io::Error| {
            if asked.is_none() {
                *asked = Some(format!(
                    "{}: `{}` beneath it cannot be read ({e}), so what lies there cannot be checked",
                    ad.action.describe(),
                    d.display()
                ));
                ad.sticky = true;
                ad.rule = None;
            }
        };
        while let Some(d) = stack.pop() {
            let entries = match std::fs::read_dir(&d) {
                Ok(entries) => entries,
                Err(e) => {
                    unreadable(ad, &mut asked, &d, &e);
                    continue;
                }
            };
            for entry in entries {
                let entry = match entry {
                    Ok(entry) => entry,
                    Err(e) => {
                        unreadable(ad, &mut asked, &d, &e);
                        continue;
                    }
                };
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
                let ft = match entry.file_type() {
                    Ok(ft) => ft,
                    Err(e) => {
                        unreadable(ad, &mut asked, &path, &e);
                        continue;
                    }
                };
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

//! The walk beneath a recursive read or write.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use globset::Candidate;

use crate::decision::ActionDecision;
use crate::effect::Effect;
use crate::paths;
use crate::rule_ids;
use toolgate_shell::{Filter, IgnoreMatch};

use super::hits::Hits;
use super::ignore::{Level, Reader};
use super::{Eval, WALK_LIMIT, verb};

impl Eval<'_, '_> {
    /// Walks a directory beneath a recursive read or write, applying the
    /// deny and ask rules (and, for writes, protected paths) that match
    /// anything there, and the built-in deny of credential locations. A
    /// `filter` (`grep -r --include='*.rs'`, `find . -name '*.c' -exec`)
    /// leaves out the entries the read cannot reach: those no rule meets.
    /// Ripgrep's ignore files are read on the way down when the filter
    /// follows them. A symbolic link is judged by its name and by what it
    /// leads to.
    pub(super) fn walk(
        &mut self,
        write: bool,
        dir: &Path,
        filter: Option<&Filter>,
        ad: &mut ActionDecision,
    ) {
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
        let split = filter.is_some_and(|f| f.split);
        // With no rule to meet beneath a read, only links can lead to
        // what is denied (a credential, outside the roots): they are
        // looked for as far as the walk goes, and a tree too large to
        // walk is not asked about for them alone.
        let links_only =
            deny.is_empty() && ask.is_empty() && !write && !split && !p.credentials.may_hold(dir);
        // Ripgrep's ignore files, by directory: where they cannot be found
        // (beneath a link followed), every entry may be re-included.
        let reader = filter
            .and_then(|f| f.ignores.as_ref())
            .map(|ig| Reader::new(ig, p.home.as_deref()));
        let root = match &reader {
            Some(r) => r.root(dir).map_or(Ign::Unknown, Ign::Level),
            None => Ign::Off,
        };
        let mut stack = vec![(dir.to_path_buf(), root)];
        // Directories entered, by their resolved path: a link to one
        // inside the roots is entered once.
        let mut entered: HashSet<PathBuf> = HashSet::new();
        entered.insert(dir.to_path_buf());
        let mut seen = 0usize;
        let mut asked: Option<String> = None;
        // A directory that cannot be read may hide what a deny or ask rule
        // names: the action asks, unless something found denies it.
        let unreadable = |ad: &mut ActionDecision,
                          asked: &mut Option<String>,
                          d: &Path,
                          e: &str| {
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
        'walk: while let Some((d, ign)) = stack.pop() {
            let listing = self.seen.list(&d, WALK_LIMIT + 1);
            let entries = match &*listing {
                Ok(entries) => entries,
                Err(e) => {
                    unreadable(ad, &mut asked, &d, e.as_str());
                    continue;
                }
            };
            for entry in entries {
                let entry = match entry {
                    Ok(entry) => entry,
                    Err(e) => {
                        unreadable(ad, &mut asked, &d, e.as_str());
                        continue;
                    }
                };
                seen += 1;
                if seen > WALK_LIMIT && links_only {
                    break 'walk;
                }
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
                let path = entry.path.clone();
                let ft = match &entry.kind {
                    Ok(ft) => *ft,
                    Err(e) => {
                        unreadable(ad, &mut asked, &path, e.as_str());
                        continue;
                    }
                };
                // What the read cannot reach, no rule meets. A name that
                // is not text may still match: it is kept.
                if let Some(f) = filter {
                    let name = entry.name.to_str();
                    if let Some(name) = name {
                        let ignored = match (&reader, &ign) {
                            (Some(r), Ign::Level(l)) => r.matched(l, &path, ft.is_dir()),
                            (_, Ign::Unknown) => IgnoreMatch::Whitelist,
                            _ => IgnoreMatch::None,
                        };
                        if !f.reaches(name, ft.is_dir(), ignored) {
                            continue;
                        }
                    }
                    // Names handed on as text that is split into words
                    // (`find | xargs`) may become other paths.
                    if f.split && name.is_none_or(Filter::splits) && asked.is_none() {
                        asked = Some(format!(
                            "{}: the name `{}` beneath it holds blanks, quotes or glob characters, which would split it into other paths",
                            ad.action.describe(),
                            path.display()
                        ));
                        ad.sticky = true;
                        ad.rule = None;
                    }
                }
                // A link is also judged by what it leads to.
                let target = if ft.is_symlink() {
                    std::fs::canonicalize(&path).ok()
                } else {
                    None
                };
                for q in std::iter::once(&path).chain(target.as_ref()) {
                    if let Some(reason) = self.denied_beneath(deny, q, ad) {
                        ad.decision = Effect::Deny;
                        ad.sticky = false;
                        ad.reason = if q == &path {
                            reason
                        } else {
                            format!("{reason} (`{}` links there)", path.display())
                        };
                        return;
                    }
                }
                if asked.is_none() {
                    let cand = Candidate::new(&path);
                    let mut hits = Hits::new(false);
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
                if ft.is_symlink() {
                    // A link beneath the directory may lead outside the roots.
                    if let Some(target) = &target {
                        let inside = if write {
                            p.roots.iter().any(|r| paths::is_within(target, r))
                        } else {
                            p.readable(target)
                        };
                        let in_workspace = p.roots.iter().any(|r| paths::is_within(target, r));
                        if !inside && asked.is_none() {
                            asked = Some(format!(
                                "{}: `{}` beneath it links outside the workspace roots",
                                ad.action.describe(),
                                path.display()
                            ));
                            ad.sticky = true;
                            ad.rule = None;
                        } else if target.is_dir() {
                            if in_workspace {
                                // Followed (`grep -R`, `cp -rL`): what lies
                                // there is checked as well.
                                if entered.insert(target.clone()) {
                                    let ign = match ign {
                                        Ign::Off => Ign::Off,
                                        _ => Ign::Unknown,
                                    };
                                    stack.push((target.clone(), ign));
                                }
                            } else if p.credentials.may_hold(target) && asked.is_none() {
                                asked = Some(format!(
                                    "{}: `{}` beneath it links to `{}`, where credentials may lie",
                                    ad.action.describe(),
                                    path.display(),
                                    target.display()
                                ));
                                ad.sticky = true;
                                ad.rule = None;
                            }
                        }
                    }
                } else if ft.is_dir() {
                    let ign = match (&reader, &ign) {
                        (Some(r), Ign::Level(l)) => Ign::Level(r.child(&path, l)),
                        (_, Ign::Unknown) => Ign::Unknown,
                        _ => Ign::Off,
                    };
                    stack.push((path, ign));
                }
            }
        }
        if let Some(reason) = asked {
            ad.decision = ad.decision.max(Effect::Ask);
            ad.reason = reason;
        }
    }
}

/// Where the walk stands among ripgrep's ignore files.
enum Ign {
    /// Not followed.
    Off,
    /// The files of this directory and those above.
    Level(Rc<Level>),
    /// Not known (beneath a link): every entry may be re-included.
    Unknown,
}

impl Eval<'_, '_> {
    /// Why `path`, beneath a recursive read or write, makes it deny: a deny
    /// rule matches it (the rule id is set on `ad`), or it is where
    /// credentials live.
    fn denied_beneath(
        &mut self,
        deny: &crate::index::PathRules,
        path: &Path,
        ad: &mut ActionDecision,
    ) -> Option<String> {
        let p = self.policy;
        let cand = Candidate::new(path);
        let mut hits = Hits::new(false);
        deny.each_match(path, &cand, &mut self.buf, |r, s| hits.add(p, r, s));
        if hits.effect() == Some(Effect::Deny)
            && let Some((_, r)) = hits.best
        {
            let rule = &p.rules[r];
            ad.rule = Some(rule.id.clone());
            return Some(format!(
                "{}: `{}` lies beneath it, and that {} by rule `{}`",
                ad.action.describe(),
                path.display(),
                verb(Effect::Deny),
                rule.id
            ));
        }
        let write = matches!(ad.action, crate::decision::Action::Write { .. });
        if let Some(label) = p.credentials.find(path)
            && !p.credentials.allowed(path, write)
        {
            ad.rule = Some(rule_ids::BUILTIN_CREDENTIALS.into());
            return Some(format!(
                "{}: `{}` lies beneath it, and {}",
                ad.action.describe(),
                path.display(),
                super::hard::credential_reason(label, path)
            ));
        }
        None
    }
}

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
    ///
    /// A `listing` shows names, sizes and times, never a file's bytes: it
    /// reveals what the directories it lists hold, so the rules (and the
    /// credential locations) meet those directories, not the plain files
    /// in them, whose size and times the listing of the directory that
    /// holds them shows as well. Past [`WALK_LIMIT`] entries a listing is
    /// not asked about: what lies further is names, and only the
    /// credential locations beneath are still looked into.
    pub(super) fn walk(
        &mut self,
        write: bool,
        dir: &Path,
        filter: Option<&Filter>,
        listing: Option<Listing>,
        ad: &mut ActionDecision,
    ) {
        self.walk_beneath(write, dir, dir, filter, listing, ad);
    }

    /// [`Eval::walk`] of `dir`, beneath `named`, the directory the action
    /// names (whose own listing the rules met already).
    fn walk_beneath(
        &mut self,
        write: bool,
        dir: &Path,
        named: &Path,
        filter: Option<&Filter>,
        listing: Option<Listing>,
        ad: &mut ActionDecision,
    ) {
        let names_only = listing.is_some() && !write;
        // In a listing of what its filter shows, the directories whose
        // names it showed, each met once.
        let mut shown_in: HashSet<PathBuf> = HashSet::new();
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
        // A listing of what its filter shows follows no link: with no rule
        // and no credential location to meet, there is nothing to look for.
        if links_only && listing == Some(Listing::Shown) {
            return;
        }
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
        let mut cut_short = false;
        let mut asked: Option<String> = None;
        // A directory that cannot be read may hide what a deny or ask rule
        // names: the action asks, unless something found denies it.
        // (A listing cannot list it either.)
        let unreadable = |ad: &mut ActionDecision,
                          asked: &mut Option<String>,
                          d: &Path,
                          e: &str| {
            if asked.is_none() && !names_only {
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
            let listed = self.seen.list(&d, WALK_LIMIT + 1);
            let entries = match &*listed {
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
                if seen > WALK_LIMIT && names_only {
                    cut_short = true;
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
                // A name a listing shows is what the directory holding it
                // holds: that directory meets the rules, and the entry
                // itself none.
                let shows_names = listing == Some(Listing::Shown) && !write;
                if shows_names
                    && d != named
                    && filter.is_none_or(|f| {
                        entry
                            .name
                            .to_str()
                            .is_none_or(|n| f.files.eval_entry(n, Some(ft.is_dir())) != Some(false))
                    })
                    && shown_in.insert(d.clone())
                {
                    if let Some(reason) = self.denied_beneath(deny, &d, true, ad) {
                        ad.decision = Effect::Deny;
                        ad.sticky = false;
                        ad.reason = reason;
                        return;
                    }
                    if asked.is_none() {
                        asked = self.asked_beneath(ask, &d, ad);
                    }
                }
                // A link is also judged by what it leads to (a listing of
                // what its filter shows does not follow links: it shows
                // their names).
                let target = if ft.is_symlink() && !shows_names {
                    std::fs::canonicalize(&path).ok()
                } else {
                    None
                };
                // Of a plain file, a listing shows only its size and times.
                let rules_meet = !(names_only && !write && !ft.is_dir() && !ft.is_symlink());
                // A write of each entry find selects (`-delete`, `-exec rm
                // {}`) enters every directory, but writes one only when it
                // is selected itself.
                let acted_on = !(write
                    && ft.is_dir()
                    && filter.is_some_and(|f| {
                        entry
                            .name
                            .to_str()
                            .is_some_and(|n| f.files.eval_entry(n, Some(true)) == Some(false))
                    }));
                for q in std::iter::once(&path)
                    .chain(target.as_ref())
                    .filter(|_| acted_on && !shows_names)
                {
                    if let Some(reason) = self.denied_beneath(deny, q, rules_meet, ad) {
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
                if asked.is_none() && rules_meet && acted_on && !shows_names {
                    asked = self.asked_beneath(ask, &path, ad);
                    // A protected path beneath a write asks, and so does
                    // what toolgate itself reads (`tar xf`, `unzip -o`, `cp
                    // -r tpl/. .` or `git checkout -- .` may replace the
                    // policy file; writing it directly is a hard limit),
                    // whatever the rules say.
                    let guarded = if asked.is_some() || !write {
                        None
                    } else {
                        super::hard::guarded_beneath(self, &path, "the write may replace")
                    };
                    if let Some((why, rule)) = guarded {
                        asked = Some(format!(
                            "{}: `{}` lies beneath it, and {why}",
                            ad.action.describe(),
                            path.display()
                        ));
                        ad.sticky = true;
                        ad.rule = Some(rule.into());
                    }
                }
                if ft.is_symlink() {
                    // A link beneath the directory may lead outside the roots.
                    if let Some(target) = &target {
                        // A listing is not bounded by the read roots; where
                        // credentials lie is still looked at below.
                        let inside = if write {
                            p.roots.iter().any(|r| paths::is_within(target, r))
                        } else {
                            names_only || p.readable(target)
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
        // A listing cut short still looks into the credential locations
        // beneath it, which are few and small.
        if cut_short {
            let bases: Vec<PathBuf> = p
                .credentials
                .bases()
                .iter()
                .filter(|b| b.starts_with(dir) && *b != dir && !entered.contains(*b))
                .cloned()
                .collect();
            for base in bases {
                if let Some(parent) = base.parent().filter(|_| self.seen.is_dir(&base)) {
                    let parent = parent.to_path_buf();
                    self.walk_beneath(write, &base, &parent, filter, listing, ad);
                    if ad.decision == Effect::Deny {
                        return;
                    }
                }
            }
        }
        if let Some(reason) = asked {
            ad.decision = ad.decision.max(Effect::Ask);
            ad.reason = reason;
        }
    }

    /// Why `path`, beneath a recursive read or write, makes it ask: an ask
    /// rule names it (its id is set on `ad` when it was allowed).
    fn asked_beneath(
        &mut self,
        ask: &crate::index::PathRules,
        path: &Path,
        ad: &mut ActionDecision,
    ) -> Option<String> {
        let why = self.asked_at(ask, path, ad)?;
        Some(format!(
            "{}: `{}` lies beneath it, and {why}",
            ad.action.describe(),
            path.display(),
        ))
    }

    /// Whether an ask rule names `path`, met beneath a recursive read or
    /// write: "that needs approval by rule `x`" (its id is set on `ad` when
    /// it was allowed).
    pub(super) fn asked_at(
        &mut self,
        ask: &crate::index::PathRules,
        path: &Path,
        ad: &mut ActionDecision,
    ) -> Option<String> {
        let p = self.policy;
        let cand = Candidate::new(path);
        let mut hits = Hits::new(false);
        ask.each_match(path, &cand, &mut self.buf, |r, s| hits.add(p, r, s));
        let Some((Effect::Ask, r)) = hits.best else {
            return None;
        };
        if ad.decision == Effect::Allow {
            ad.rule = Some(p.rules[r].id.clone());
        }
        Some(format!(
            "that {} by rule `{}`",
            verb(Effect::Ask),
            p.rules[r].id
        ))
    }
}

/// What a recursive listing shows beneath the directory it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Listing {
    /// The names its filter lets through, each of them what the directory
    /// holding it holds (`find . -name '*.rs'`, `ls -R`, `tree`, `du`).
    Shown,
    /// Every directory it reaches, whole, whatever the filter (`find
    /// . -name 'x*' -exec ls {} +`: `ls` lists what a directory `x1`
    /// holds).
    WholeDirs,
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
    /// rule matches it (the rule id is set on `ad`; only when `rules`), or
    /// it is where credentials live.
    fn denied_beneath(
        &mut self,
        deny: &crate::index::PathRules,
        path: &Path,
        rules: bool,
        ad: &mut ActionDecision,
    ) -> Option<String> {
        let why = self.denied_at(deny, path, rules, ad)?;
        Some(format!(
            "{}: `{}` lies beneath it, and {why}",
            ad.action.describe(),
            path.display(),
        ))
    }

    /// Why `path`, met beneath a recursive read or write, denies it: "that
    /// is denied by rule `x`" (the id is set on `ad`), or where
    /// credentials live. Deny rules count only when `rules`.
    pub(super) fn denied_at(
        &mut self,
        deny: &crate::index::PathRules,
        path: &Path,
        rules: bool,
        ad: &mut ActionDecision,
    ) -> Option<String> {
        let p = self.policy;
        let cand = Candidate::new(path);
        let mut hits = Hits::new(false);
        if rules {
            deny.each_match(path, &cand, &mut self.buf, |r, s| hits.add(p, r, s));
        }
        if hits.effect() == Some(Effect::Deny)
            && let Some((_, r)) = hits.best
        {
            let rule = &p.rules[r];
            ad.rule = Some(rule.id.clone());
            return Some(format!("that {} by rule `{}`", verb(Effect::Deny), rule.id));
        }
        let write = matches!(ad.action, crate::decision::Action::Write { .. });
        if let Some(label) = p.credentials.find(path)
            && !p.credentials.allowed(path, write)
        {
            ad.rule = Some(rule_ids::BUILTIN_CREDENTIALS.into());
            return Some(super::hard::credential_reason(label, path));
        }
        None
    }
}

//! A read of what git tracks (`git diff`, `git log -p`, `git show`, `git
//! grep`): git prints the content of the files its index lists, from the
//! repository, so each of them meets the deny and ask rules on reading it
//! and the credential locations, as `cat` of it would. What the work tree
//! holds beside them (an ignored `.env`) is not reached, and a tracked
//! link is shown as the text of its target, not followed.
//!
//! A rewrite of what git tracks (`git checkout BRANCH`, `reset --hard`,
//! `stash pop`, `merge`): any file the index lists may be overwritten or
//! removed with another commit's content, so each meets the deny and ask
//! rules on writing it, the protected paths, and the policy file's hard
//! limit (another commit may hold another policy file), as a write of a
//! directory holding them would.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use toolgate_shell::Tracked;

use crate::decision::ActionDecision;
use crate::effect::Effect;
use crate::git_index;
use crate::paths::Resolved;

use super::Eval;

/// Whether `path` is `base` or beneath it, ignoring ASCII case: git can be
/// told to match pathspecs so (`GIT_ICASE_PATHSPECS`, `:(icase)`), and a
/// wider match only asks more.
fn within_folded(path: &Path, base: &[u8]) -> bool {
    let p = path.as_os_str().as_bytes();
    if p.len() < base.len() || !p[..base.len()].eq_ignore_ascii_case(base) {
        return false;
    }
    p.len() == base.len() || base.ends_with(b"/") || p[base.len()] == b'/'
}

impl Eval<'_, '_> {
    /// Meets what git tracks beneath `resolved` (or, for
    /// [`Tracked::Repository`], in the whole repository holding it) with
    /// the deny and ask rules on reading, and the credential locations. An
    /// index that cannot be read asks: which files git shows is not known.
    ///
    /// `rewrite` is `None` for a read; for a rewrite, how it is written:
    /// `.` (another commit), `HEAD` (HEAD's content put back), or the word
    /// `git checkout` was given alone, a rewrite only when it may name a
    /// revision, since git checks out a path of that name otherwise, and
    /// that path is a write of its own.
    pub(super) fn tracked(
        &mut self,
        scope: Tracked,
        resolved: &Resolved,
        rewrite: Option<&str>,
        ad: &mut ActionDecision,
    ) {
        let write = rewrite.is_some();
        let p = self.policy;
        let (deny, ask) = if write {
            (p.index.write(Effect::Deny), p.index.write(Effect::Ask))
        } else {
            (p.index.read(Effect::Deny), p.index.read(Effect::Ask))
        };
        let targets: Vec<&Path> = resolved.both().collect();
        let Some(start) = targets.first() else {
            return;
        };
        let Some(repo) = git_index::find(start) else {
            // Not in a repository: git shows nothing of it.
            return;
        };
        if let Some(word) = rewrite.filter(|w| *w != ".")
            && !crate::git_refs::may_name_revision(&repo.git_dir, word)
        {
            // `git checkout src/a.rs`: that path alone is written.
            return;
        }
        let top = repo.top.clone().unwrap_or_else(|| repo.git_dir.clone());
        // A rewrite always looks: protected paths and policy files are
        // not rules.
        if !write && deny.is_empty() && ask.is_empty() && !p.credentials.may_hold(&top) {
            return;
        }
        let names = match git_index::tracked(&repo.git_dir) {
            Ok(names) => names,
            Err(e) => {
                ad.decision = ad.decision.max(Effect::Ask);
                ad.sticky = true;
                ad.rule = None;
                ad.reason = format!(
                    "{}: the index of the repository cannot be read ({e}), so which files git {} cannot be checked",
                    ad.action.describe(),
                    if write { "may rewrite" } else { "shows" }
                );
                return;
            }
        };
        let bases: Vec<&[u8]> = targets.iter().map(|t| t.as_os_str().as_bytes()).collect();
        let mut asked: Option<String> = None;
        for name in names {
            let path = top.join(&name);
            let sparse = name.as_os_str().as_bytes().ends_with(b"/");
            if scope == Tracked::Beneath
                && !bases.iter().any(|b| within_folded(&path, b))
                && !(sparse
                    && targets
                        .iter()
                        .any(|t| within_folded(t, path.as_os_str().as_bytes())))
            {
                // Neither beneath a target nor, for a sparse directory, a
                // directory some target lies in.
                continue;
            }
            if sparse {
                // A sparse index stands for a whole directory by one entry:
                // what it holds is not listed.
                if asked.is_none() {
                    asked = Some(format!(
                        "{}: the index lists `{}` as a sparse directory, whose files cannot be checked",
                        ad.action.describe(),
                        path.display()
                    ));
                    ad.sticky = true;
                    ad.rule = None;
                }
                continue;
            }
            if let Some(why) = self.denied_at(deny, &path, true, ad) {
                ad.decision = Effect::Deny;
                ad.sticky = false;
                ad.reason = format!(
                    "{}: git tracks `{}`, and {why}{}",
                    ad.action.describe(),
                    path.display(),
                    match scope {
                        Tracked::Repository if !write => {
                            " (with no path after `--`, what git shows may come from any file it tracks)"
                        }
                        _ => "",
                    }
                );
                return;
            }
            if asked.is_none()
                && let Some(why) = self.asked_at(ask, &path, ad)
            {
                asked = Some(format!(
                    "{}: git tracks `{}`, and {why}",
                    ad.action.describe(),
                    path.display()
                ));
            }
            // What another commit puts in a protected path or a policy
            // file asks whatever the rules say, as a write of a directory
            // holding it does.
            let guarded = if write && asked.is_none() {
                super::hard::guarded_beneath(self, &path, "the rewrite may replace")
            } else {
                None
            };
            if let Some((why, rule)) = guarded {
                asked = Some(format!(
                    "{}: git tracks `{}`, and {why}",
                    ad.action.describe(),
                    path.display()
                ));
                ad.sticky = true;
                ad.rule = Some(rule.into());
            }
        }
        // Another commit may hold a file where the policy file lies
        // untracked: git puts it in place of an ignored file without a
        // question (and of any other with `-f`). Put back as HEAD holds
        // them (`stash`, `reset --hard`), untracked files stay.
        // The same holds for every layer file the policy was read from (a
        // nested `toolgate.toml`, a user policy in a repository of dotfiles).
        if asked.is_none() && rewrite.is_some_and(|w| w != "HEAD") {
            let layer_files = p.layers().into_iter().flat_map(|l| {
                l.files
                    .iter()
                    .map(|f| std::fs::canonicalize(&f.path).unwrap_or_else(|_| f.path.clone()))
            });
            let inside = p
                .file_real
                .iter()
                .cloned()
                .chain(layer_files)
                .find(|file| crate::paths::is_within(file, &top));
            if let Some(file) = inside {
                asked = Some(format!(
                    "{}: the policy file `{}` lies in the work tree, and git puts another \
                     commit's file of that name in its place (an ignored one without a question)",
                    ad.action.describe(),
                    file.display()
                ));
                ad.sticky = true;
                ad.rule = Some(crate::rule_ids::HARD_POLICY_FILE.into());
            }
        }
        if let Some(reason) = asked {
            ad.decision = ad.decision.max(Effect::Ask);
            ad.reason = reason;
        }
    }

    /// A read of the work tree of the repository holding `resolved`, from
    /// its top (the directory itself outside a repository), through
    /// `filter`: what `git add -A` and `git stash -u` store; or (`write`)
    /// its removal, as `git stash -u` takes what it stores away.
    pub(super) fn work_tree(
        &mut self,
        resolved: &Resolved,
        filter: Option<&toolgate_shell::Filter>,
        write: bool,
        ad: &mut ActionDecision,
    ) {
        let Some(start) = resolved.best() else {
            return;
        };
        let top = git_index::find(start)
            .and_then(|r| r.top)
            .unwrap_or_else(|| start.to_path_buf());
        if self.seen.is_dir(&top) {
            self.walk(write, &top, filter, None, ad);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::within_folded;
    use std::path::Path;

    #[test]
    fn within_is_by_component_and_ignores_case() {
        assert!(within_folded(Path::new("/w/.env"), b"/w/.env"));
        assert!(within_folded(Path::new("/w/.env"), b"/w/.ENV"));
        assert!(within_folded(Path::new("/w/src/a"), b"/w/src"));
        assert!(within_folded(Path::new("/w/src/a"), b"/w/src/"));
        assert!(within_folded(Path::new("/w/src/a"), b"/"));
        assert!(!within_folded(Path::new("/w/srcx/a"), b"/w/src"));
        assert!(!within_folded(Path::new("/w"), b"/w/src"));
    }
}

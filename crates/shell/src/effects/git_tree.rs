//! The git commands that put other content in the work tree: a branch
//! switch, `reset --hard`, `stash`, `merge`, `pull`, `rebase`,
//! `cherry-pick`, `revert`, `bisect`, `read-tree -u`, `sparse-checkout`.
//! They overwrite or remove files git tracks wherever they differ from the
//! commit (or stash, or index) they go to, and which ones differ is in the
//! commits' trees, which are not read here: any tracked file may be
//! written. Another commit may hold another policy file (an older one,
//! or one the agent committed), so such a command is a write of every
//! file the index lists, judged by the deny and ask rules, the protected
//! paths and the policy file's hard limit on each.

use super::*;

/// What `git SUB REST` may overwrite or remove of the tracked files it is
/// not given by name: `None` for nothing; `Some(".")` for every one, from
/// another commit (which may also hold a file the work tree holds
/// untracked: git overwrites an ignored one without a question);
/// `Some("HEAD")` for every one, put back as HEAD holds them (`stash`,
/// `reset --hard`, `checkout -f`: what is not tracked stays); for `git
/// checkout WORD`, `Some(WORD)`: every one if the word names a revision (a
/// switch), else only the path it names (which `worktree_writes` writes),
/// decided where the repository can be read. A word that is not literal
/// may be anything, so it counts.
pub(super) fn rewrites_tracked<'a>(sub: &str, rest: &'a [Arg]) -> Option<&'a str> {
    const ALL: &str = ".";
    const HEAD: &str = "HEAD";
    let flag = |long: &str, short: Option<char>| {
        rest.iter().any(|a| {
            a.literal
                && (is_option(&a.text, long)
                    || short.is_some_and(|c| {
                        a.text.starts_with('-')
                            && !a.text.starts_with("--")
                            && a.text[1..].contains(c)
                    }))
        })
    };
    let unknown = rest.iter().any(|a| !a.literal);
    // The first word that is not an option: a subcommand of `stash`,
    // `bisect` or `sparse-checkout`.
    let first = rest
        .iter()
        .find(|a| !(a.literal && a.text.starts_with('-')))
        .map(|a| (a.literal, a.text.as_str()));
    let first_is = |words: &[&str]| match first {
        None => false,
        Some((false, _)) => true,
        Some((true, w)) => words.contains(&w),
    };
    let all = |yes: bool| yes.then_some(ALL);
    match sub {
        // With paths after `--`, only they are written (see
        // `worktree_writes`). Otherwise `checkout WORD` switches to a
        // commit, or checks out a path of that name (`-` is the branch
        // before); `checkout REV PATH..` writes only the paths; `-b NAME`
        // alone starts a branch where the work tree already is, and `-f`
        // alone discards what was changed. `switch` takes no paths.
        "checkout" | "switch" => {
            if rest.iter().any(|a| a.literal && a.text == "--") {
                return None;
            }
            // Options that take the next word (or the rest of a cluster)
            // as their value: a branch's name, not a commit.
            let (short, long): (&[char], &[&str]) = if sub == "checkout" {
                (
                    &['b', 'B'],
                    &["--orphan", "--conflict", "--pathspec-from-file"],
                )
            } else {
                (
                    &['c', 'C'],
                    &["--create", "--force-create", "--orphan", "--conflict"],
                )
            };
            let mut skip = false;
            let mut words: Vec<&Arg> = Vec::new();
            let mut creates = false;
            for a in rest {
                if std::mem::take(&mut skip) {
                    continue;
                }
                let t = a.text.as_str();
                if !a.literal || !t.starts_with('-') || t == "-" {
                    words.push(a);
                } else if let Some(name) = t.strip_prefix("--") {
                    let valued = long.iter().any(|l| is_option(t, l));
                    creates |= valued && !name.starts_with("con") && !name.starts_with("pa");
                    skip = valued && !name.contains('=');
                } else if let Some(at) = t[1..].find(|c| short.contains(&c)) {
                    // `-qb NAME`, or `-bNAME` with the value glued.
                    creates = true;
                    skip = at + 2 == t.len();
                }
            }
            let forced =
                flag("--force", Some('f')) || (sub == "switch" && flag("--discard-changes", None));
            if sub == "switch" {
                // `switch --orphan` empties the work tree.
                let orphan = rest.iter().any(|a| a.literal && a.text == "--orphan");
                return if unknown || !words.is_empty() || orphan {
                    Some(ALL)
                } else {
                    forced.then_some(HEAD)
                };
            }
            match words.as_slice() {
                [] => forced.then_some(HEAD),
                // (`-` is always the branch before.)
                [w] if w.literal && w.text != "-" && !creates && !flag("--detach", None) => {
                    Some(w.text.as_str())
                }
                [_] => Some(ALL),
                _ => all(creates || unknown),
            }
        }
        "reset" => {
            let rewrites = unknown
                || ["--hard", "--merge", "--keep"]
                    .iter()
                    .any(|f| rest.iter().any(|a| a.literal && is_option(&a.text, f)));
            // To HEAD when no commit is named (`reset --hard`, `reset --hard HEAD`).
            let to_head = matches!(first, None | Some((true, "HEAD" | "@")));
            match (rewrites, to_head && !unknown) {
                (false, _) => None,
                (true, true) => Some(HEAD),
                (true, false) => Some(ALL),
            }
        }
        // `stash` alone is `stash push`: the changes go, what HEAD holds
        // comes back; `pop`, `apply` and `branch` bring the stash's.
        "stash" => {
            // (The first word before `--`: `stash -- src` is a push.)
            let word = rest
                .iter()
                .take_while(|a| !(a.literal && a.text == "--"))
                .find(|a| !(a.literal && a.text.starts_with('-')));
            match word.map(|a| (a.literal, a.text.as_str())) {
                None | Some((true, "push" | "save")) => Some(HEAD),
                Some((true, "pop" | "apply" | "branch")) | Some((false, _)) => Some(ALL),
                Some(_) => None,
            }
        }
        "merge" | "pull" | "rebase" | "cherry-pick" | "revert" | "filter-branch" | "mergetool" => {
            all(!(sub == "pull" && flag("--dry-run", None)))
        }
        "read-tree" => all(unknown || rest.iter().any(|a| a.literal && a.text == "-u")),
        "bisect" => all(!matches!(
            first,
            Some((true, "log" | "visualize" | "view" | "terms" | "help"))
        ) && first.is_some()),
        "sparse-checkout" => all(first_is(&["set", "add", "reapply", "disable", "init"])),
        _ => None,
    }
}

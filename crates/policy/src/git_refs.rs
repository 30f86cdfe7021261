//! Whether a word may name a revision of a repository, as `git checkout
//! WORD` decides between switching to a commit and checking out a path:
//! git takes the word for a revision when it resolves as one (a ref by
//! the rules of `git rev-parse`, an object name, revision syntax, or a
//! branch of a remote that `checkout` creates a local branch for), and
//! for a path otherwise. Only the names are looked up (loose refs,
//! `packed-refs`); git itself is never run, and whatever cannot be read
//! counts as a revision, which only asks more.

use std::path::{Path, PathBuf};

/// The directory holding the refs of the repository whose git directory
/// is `git_dir`: the main repository's, for a linked worktree.
fn common_dir(git_dir: &Path) -> PathBuf {
    match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(text) => git_dir.join(text.trim()),
        Err(_) => git_dir.to_path_buf(),
    }
}

/// Whether `word` may name a revision in the repository at `git_dir`.
pub(crate) fn may_name_revision(git_dir: &Path, word: &str) -> bool {
    // Revision syntax (`HEAD~1`, `main^`, `@{-1}`, `:/msg`, `v1..v2`), a
    // pattern, or what may abbreviate an object name.
    if word.is_empty()
        || word.starts_with('-')
        || word.chars().any(|c| {
            matches!(
                c,
                '~' | '^' | ':' | '@' | '{' | '}' | '*' | '?' | '[' | '\\' | ' '
            )
        })
        || word.contains("..")
        || (word.len() >= 4 && word.chars().all(|c| c.is_ascii_hexdigit()))
    {
        return true;
    }
    let common = common_dir(git_dir);
    // A repository whose refs are kept in a reftable is not read here.
    if common.join("reftable").exists() {
        return true;
    }
    // `git rev-parse`'s rules, then the remote branches `checkout`
    // guesses a new local branch from.
    let candidates = [
        word.to_string(),
        format!("refs/{word}"),
        format!("refs/tags/{word}"),
        format!("refs/heads/{word}"),
        format!("refs/remotes/{word}"),
        format!("refs/remotes/{word}/HEAD"),
    ];
    if candidates
        .iter()
        .any(|c| git_dir.join(c).is_file() || common.join(c).is_file())
    {
        return true;
    }
    if let Ok(remotes) = std::fs::read_dir(common.join("refs/remotes")) {
        for remote in remotes.flatten() {
            if remote.path().join(word).is_file() {
                return true;
            }
        }
    }
    match std::fs::read_to_string(common.join("packed-refs")) {
        Ok(text) => text.lines().any(|line| {
            let Some(name) = line.split_whitespace().nth(1) else {
                return false;
            };
            candidates.iter().any(|c| c == name)
                || (name.starts_with("refs/remotes/")
                    && name
                        .strip_suffix(word)
                        .is_some_and(|head| head.ends_with('/') && head.matches('/').count() == 3))
        }),
        Err(e) => e.kind() != std::io::ErrorKind::NotFound,
    }
}

#[cfg(test)]
mod tests {
    use super::may_name_revision;

    #[test]
    fn refs_loose_packed_and_remote_and_syntax_name_revisions() {
        let t = tempfile::tempdir().unwrap();
        let g = t.path();
        for d in ["refs/heads/feature", "refs/tags", "refs/remotes/origin"] {
            std::fs::create_dir_all(g.join(d)).unwrap();
        }
        std::fs::write(g.join("HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(g.join("refs/heads/main"), "0\n").unwrap();
        std::fs::write(g.join("refs/heads/feature/x"), "0\n").unwrap();
        std::fs::write(g.join("refs/remotes/origin/topic"), "0\n").unwrap();
        std::fs::write(
            g.join("packed-refs"),
            "# pack-refs with: peeled\nabc refs/tags/v1.0\nabc refs/remotes/up/old\n",
        )
        .unwrap();
        for word in [
            "main",
            "HEAD",
            "feature/x",
            "topic",
            "origin/topic",
            "v1.0",
            "old",
            "up/old",
            "HEAD~1",
            "@{-1}",
            "main^",
            "abcd",
            "a..b",
        ] {
            assert!(may_name_revision(g, word), "{word}");
        }
        for word in ["src/a.rs", "README.md", "feature", "v1", "src"] {
            assert!(!may_name_revision(g, word), "{word}");
        }
        std::fs::create_dir_all(g.join("reftable")).unwrap();
        assert!(may_name_revision(g, "src/a.rs"));
    }
}

//! Pathname expansion as bash does it without `nullglob`, `dotglob` or
//! `globstar`: segment by segment, hidden names only for a pattern that
//! starts with `.`, `.` and `..` never, results sorted.

use std::cell::Cell;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

/// Directory entries looked at, per match allowed, before giving up.
const ENTRIES_PER_MATCH: usize = 10;

/// Expands `pattern` (characters with their quoting) in `dir`. A pattern
/// starting with `~/` is expanded in `home` and its results keep the `~`.
/// Returns the matches as they would be written, or why it gave up.
/// `entries_left` is shared by every glob of one analysis: each directory
/// entry read and each `stat` spends one.
pub(crate) fn expand(
    pattern: &[(char, bool)],
    dir: &Path,
    home: Option<&Path>,
    limit: usize,
    entries_left: &Cell<usize>,
) -> Result<Vec<String>, String> {
    let spend = || match entries_left.get() {
        0 => Err("too many directory entries looked at for one command".to_string()),
        n => {
            entries_left.set(n - 1);
            Ok(())
        }
    };
    let mut segments: Vec<&[(char, bool)]> = pattern.split(|&(c, _)| c == '/').collect();
    let (base, prefix) = if pattern.first().is_some_and(|&(c, _)| c == '/') {
        segments.remove(0);
        (PathBuf::from("/"), "/".to_string())
    } else if matches!(pattern.first(), Some(('~', false)))
        && segments.first().is_some_and(|s| s.len() == 1)
    {
        let Some(home) = home else {
            return Err("home directory unknown".into());
        };
        segments.remove(0);
        (home.to_path_buf(), "~/".to_string())
    } else {
        (dir.to_path_buf(), String::new())
    };
    let mut current: Vec<(PathBuf, String)> = vec![(base, prefix)];
    let mut visited = 0usize;
    let budget = limit.saturating_mul(ENTRIES_PER_MATCH).max(limit);
    let last = segments.len().saturating_sub(1);
    for (i, seg) in segments.iter().enumerate() {
        let is_last = i == last;
        let text: String = seg.iter().map(|&(c, _)| c).collect();
        if seg.is_empty() {
            // `a//b` or a trailing `/`: keep the slash, require a directory.
            current.retain(|(p, _)| p.is_dir());
            for (_, shown) in &mut current {
                shown.push('/');
            }
            continue;
        }
        if !crate::words::has_glob(seg) {
            let mut next = Vec::with_capacity(current.len());
            for (path, shown) in current {
                spend()?;
                let p = path.join(&text);
                let keep = if is_last {
                    p.symlink_metadata().is_ok()
                } else {
                    p.is_dir()
                };
                if keep {
                    next.push((p, join_shown(&shown, &text, is_last)));
                }
            }
            current = next;
            continue;
        }
        let matcher = matcher(seg)?;
        let dot_ok = seg.first().is_some_and(|&(c, _)| c == '.');
        let mut next = Vec::new();
        for (path, shown) in &current {
            let Ok(entries) = std::fs::read_dir(path) else {
                continue;
            };
            let mut names = Vec::new();
            for entry in entries.flatten() {
                spend()?;
                visited += 1;
                if visited > budget {
                    return Err(format!("more than {budget} directory entries"));
                }
                let name = entry.file_name();
                let Some(name) = name.to_str() else {
                    continue;
                };
                if name.starts_with('.') && !dot_ok {
                    continue;
                }
                if !matcher.is_match(name) {
                    continue;
                }
                let p = entry.path();
                if !is_last && !p.is_dir() {
                    continue;
                }
                names.push((p, name.to_string()));
            }
            names.sort_by(|a, b| a.1.cmp(&b.1));
            for (p, name) in names {
                next.push((p, join_shown(shown, &name, is_last)));
                if next.len() > limit {
                    return Err(format!("more than {limit} matches"));
                }
            }
        }
        current = next;
    }
    Ok(current.into_iter().map(|(_, shown)| shown).collect())
}

fn join_shown(shown: &str, name: &str, _is_last: bool) -> String {
    if shown.is_empty() {
        name.to_string()
    } else if shown.ends_with('/') {
        format!("{shown}{name}")
    } else {
        format!("{shown}/{name}")
    }
}

/// A matcher for one path segment; quoted characters match themselves.
fn matcher(seg: &[(char, bool)]) -> Result<GlobMatcher, String> {
    let mut glob = String::new();
    let mut in_class = false;
    for (i, &(c, quoted)) in seg.iter().enumerate() {
        if in_class {
            if c == ']' && !quoted {
                in_class = false;
                glob.push(']');
            } else if (c == '!' || c == '^') && !quoted && glob.ends_with('[') {
                glob.push('!');
            } else if quoted && matches!(c, ']' | '\\' | '-' | '!' | '^') {
                push_escaped(&mut glob, c);
            } else {
                glob.push(c);
            }
            continue;
        }
        match (c, quoted) {
            ('*', false) => glob.push('*'),
            ('?', false) => glob.push('?'),
            ('[', false) if seg[i + 1..].iter().skip(1).any(|&(c, q)| c == ']' && !q) => {
                in_class = true;
                glob.push('[');
            }
            _ => push_escaped(&mut glob, c),
        }
    }
    GlobBuilder::new(&glob)
        .literal_separator(true)
        .backslash_escape(true)
        .empty_alternates(false)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| e.to_string())
}

fn push_escaped(glob: &mut String, c: char) {
    if matches!(
        c,
        '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '!' | ',' | '^' | '-'
    ) {
        glob.push('\\');
    }
    glob.push(c);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(s: &str) -> Vec<(char, bool)> {
        s.chars().map(|c| (c, false)).collect()
    }

    #[test]
    fn expands_like_bash() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a.txt", "b.txt", ".env", ".hidden.txt", "c.md"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/x.txt"), "").unwrap();
        let left = Cell::new(1_000);
        let e = |p: &str| expand(&pat(p), dir.path(), None, 100, &left).unwrap();
        assert_eq!(e("*.txt"), ["a.txt", "b.txt"]);
        assert_eq!(e(".e*"), [".env"]);
        assert_eq!(e("*"), ["a.txt", "b.txt", "c.md", "sub"]);
        assert_eq!(e("[ab].txt"), ["a.txt", "b.txt"]);
        assert_eq!(e("[!a].txt"), ["b.txt"]);
        assert_eq!(e("?.md"), ["c.md"]);
        assert_eq!(e("*/x.txt"), ["sub/x.txt"]);
        assert_eq!(e("./*.md"), ["./c.md"]);
        assert!(e("*.none").is_empty());
        let quoted: Vec<(char, bool)> = vec![('*', true), ('.', false), ('t', false)];
        assert!(
            expand(&quoted, dir.path(), None, 100, &left)
                .unwrap()
                .is_empty()
        );
        assert!(expand(&pat("*"), dir.path(), None, 2, &left).is_err());
    }

    /// The entry budget is shared: once spent, no glob expands any more.
    #[test]
    fn entry_budget_is_shared_between_globs() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a", "b", "c"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let left = Cell::new(5);
        assert_eq!(
            expand(&pat("*"), dir.path(), None, 100, &left).unwrap(),
            ["a", "b", "c"]
        );
        assert_eq!(left.get(), 2);
        assert!(expand(&pat("*"), dir.path(), None, 100, &left).is_err());
        assert_eq!(left.get(), 0);
    }
}

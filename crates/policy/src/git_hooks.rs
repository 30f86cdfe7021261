//! The hooks directory a repository's own configuration names
//! (`core.hooksPath`, git-config(1)): git runs the programs there on
//! `commit`, `merge`, `checkout`, `push` and more, as it runs those of
//! `.git/hooks`. A repository that keeps its hooks in the work tree
//! (`core.hooksPath = .githooks`, `scripts/hooks`) makes them files an
//! agent may edit, and the next `git commit` that an allow of git lets
//! run would run what it wrote. So that directory is protected as
//! `.git/hooks` is. Only the repository's own configuration file is read
//! (`.git/config`, or the common one of a linked work tree): the global
//! and system files lie outside the roots, where nothing is written, and
//! `include.path` is not followed.

use std::path::{Path, PathBuf};

use crate::git_index::Repo;

/// The directory `core.hooksPath` of `repo`'s configuration names, if it
/// names one: a relative path is taken from the top of the work tree
/// (where git runs hooks), or from the git directory of a bare
/// repository; `~/` from `home`.
pub(crate) fn configured(repo: &Repo, home: Option<&Path>) -> Option<PathBuf> {
    let text = std::fs::read_to_string(repo.git_dir.join("config"))
        .or_else(|_| {
            let common = std::fs::read_to_string(repo.git_dir.join("commondir"))?;
            std::fs::read_to_string(repo.git_dir.join(common.trim()).join("config"))
        })
        .ok()?;
    let value = hooks_path(&text)?;
    let path = match value.strip_prefix("~/") {
        Some(rest) => home?.join(rest),
        None => {
            let base = repo.top.as_deref().unwrap_or(&repo.git_dir);
            base.join(&value)
        }
    };
    Some(std::fs::canonicalize(&path).unwrap_or_else(|_| crate::paths::normalize_lexically(&path)))
}

/// The last `hooksPath` of the `[core]` section in a configuration file's
/// text (names are case-insensitive; a value may be quoted, and `#` or
/// `;` outside quotes starts a comment). An empty value is none.
fn hooks_path(text: &str) -> Option<String> {
    let mut in_core = false;
    let mut found = None;
    for line in text.lines() {
        let mut line = line.trim();
        if let Some(rest) = line.strip_prefix('[') {
            let Some(end) = rest.find(']') else {
                in_core = false;
                continue;
            };
            in_core = rest[..end].trim().eq_ignore_ascii_case("core");
            line = rest[end + 1..].trim();
            if line.is_empty() {
                continue;
            }
        }
        if !in_core {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if !key.trim().eq_ignore_ascii_case("hookspath") {
            continue;
        }
        let value = unquote(value.trim());
        found = (!value.is_empty()).then_some(value);
    }
    found
}

/// A configuration value as git reads it: quotes removed, `\"` and `\\`
/// kept as the character, a comment outside quotes dropped, the end
/// trimmed.
fn unquote(value: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(match n {
                        't' => '\t',
                        'n' => '\n',
                        other => other,
                    });
                }
            }
            '#' | ';' if !quoted => break,
            c => out.push(c),
        }
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::hooks_path;

    #[test]
    fn reads_core_hooks_path_as_git_does() {
        let cases: &[(&str, Option<&str>)] = &[
            ("[core]\n\thooksPath = .githooks\n", Some(".githooks")),
            (
                "[CORE]\nHOOKSPATH=scripts/hooks # shared\n",
                Some("scripts/hooks"),
            ),
            ("[core]\nhooksPath = \"my hooks\"\n", Some("my hooks")),
            ("[core] hooksPath = a\n[core]\nhooksPath = b\n", Some("b")),
            ("[core \"x\"]\nhooksPath = a\n", None),
            ("[alias]\nhooksPath = a\n", None),
            ("[core]\nhooksPath =\n", None),
            ("[core]\nbare = false\n", None),
        ];
        for (text, want) in cases {
            assert_eq!(hooks_path(text).as_deref(), *want, "{text}");
        }
    }
}

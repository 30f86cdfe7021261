//! `toolgate policy lint`: rules that can never decide anything.
//!
//! Three findings, each naming the rule (and, for a layered policy, its
//! file and line through [`crate::layers::Layers::origin`]):
//!
//! - a **blanket** `ask = ["Bash"]` (or deny) with `Bash(..)` allows beside
//!   it: ask beats allow, so none of those allows ever applies;
//! - a rule **shadowed** by a stricter one that covers every call it
//!   matches (the same selector, the bare tool, or `*`);
//! - a rule that can **never match**: a tool no catalog knows and no
//!   `[tool.NAME]` declares, or an allow for paths outside every root
//!   (reads and writes there are a hard limit).

use std::path::{Path, PathBuf};

use crate::call::Client;
use crate::catalog;
use crate::effect::Effect;
use crate::policy::Policy;
use crate::rule::Selector;

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// The rule it is about.
    pub rule: String,
    /// What is wrong, and what to write instead.
    pub message: String,
}

/// A rule as lint sees it: id, effect and parsed selectors.
struct Linted {
    id: String,
    effect: Effect,
}

/// The findings for every rule written in a policy's files (applying or
/// not: an untrusted project's allows are linted too), in rule order.
pub fn lint(policy: &Policy) -> Vec<Warning> {
    let parsed: Vec<(Linted, Vec<(String, Selector)>)> = crate::layers::origins(policy)
        .into_iter()
        .map(|o| {
            let sels = o
                .selectors
                .iter()
                .filter_map(|s| Selector::parse(s).ok().map(|sel| (s.clone(), sel)))
                .collect();
            (
                Linted {
                    id: o.id,
                    effect: o.effect,
                },
                sels,
            )
        })
        .collect();
    let mut out = Vec::new();

    for (rule, sels) in &parsed {
        if rule.effect != Effect::Allow && sels.iter().any(|(_, s)| *s == Selector::Exec(None)) {
            let allows: Vec<String> = parsed
                .iter()
                .filter(|(r, ss)| {
                    r.effect == Effect::Allow
                        && ss.iter().any(|(_, s)| matches!(s, Selector::Exec(Some(_))))
                })
                .map(|(r, _)| format!("`{}`", r.id))
                .collect();
            if !allows.is_empty() {
                out.push(Warning {
                    rule: rule.id.clone(),
                    message: format!(
                        "a blanket `{} = [\"Bash\"]` overrides every Bash allow ({}): {} beats allow; \
                         to ask for whatever is not allowed, set `default = \"ask\"` instead",
                        rule.effect,
                        allows.join(", "),
                        rule.effect
                    ),
                });
            }
        }
    }

    for (rule, sels) in &parsed {
        if rule.effect == Effect::Deny || sels.is_empty() {
            continue;
        }
        // Each selector covered by a stricter rule's selector.
        let mut by = Vec::new();
        let all_covered = sels.iter().all(|(_, s)| {
            let cover = parsed.iter().find(|(other, os)| {
                stricter(other.effect, rule.effect)
                    && os.iter().any(|(_, o)| covers(o, s))
                    // The blanket Bash case has its own message.
                    && !(matches!(s, Selector::Exec(Some(_)))
                        && os.iter().any(|(_, o)| *o == Selector::Exec(None)))
            });
            if let Some((other, _)) = cover {
                by.push(format!("`{}` ({})", other.id, other.effect));
                true
            } else {
                false
            }
        });
        if all_covered {
            by.dedup();
            out.push(Warning {
                rule: rule.id.clone(),
                message: format!(
                    "shadowed: every call it matches is decided by the stricter {}",
                    by.join(", ")
                ),
            });
        }
    }

    let roots: Vec<&Path> = policy
        .roots()
        .iter()
        .chain(policy.read_roots())
        .map(PathBuf::as_path)
        .collect();
    for (rule, sels) in &parsed {
        for (text, sel) in sels {
            if let Some(why) = never_matches(policy, rule.effect, sel, &roots) {
                out.push(Warning {
                    rule: rule.id.clone(),
                    message: format!("`{text}` can never match: {why}"),
                });
            }
        }
    }
    out
}

/// Whether `a` wins over `b` (deny > ask > allow).
fn stricter(a: Effect, b: Effect) -> bool {
    let rank = |e| match e {
        Effect::Allow => 0,
        Effect::Ask => 1,
        Effect::Deny => 2,
    };
    rank(a) > rank(b)
}

/// Whether every action `s` matches is matched by `by`.
fn covers(by: &Selector, s: &Selector) -> bool {
    match (by, s) {
        (Selector::Any, _) => true,
        (a, b) if a == b => true,
        (Selector::Read(None), Selector::Read(_))
        | (Selector::Write(None), Selector::Write(_))
        | (Selector::Exec(None), Selector::Exec(_))
        | (Selector::Fetch(None), Selector::Fetch(_)) => true,
        (
            Selector::Tool {
                name: a,
                pattern: None,
            },
            Selector::Tool { name: b, .. },
        ) => a == b,
        _ => false,
    }
}

/// Why a selector can never match anything, if it cannot.
fn never_matches(
    policy: &Policy,
    effect: Effect,
    sel: &Selector,
    roots: &[&Path],
) -> Option<String> {
    match sel {
        Selector::Tool { name, .. } => {
            let glob = name.contains(['*', '?']);
            let known = glob
                || name.starts_with("mcp__")
                || policy.tools.contains_key(name)
                || Client::ALL
                    .into_iter()
                    .any(|c| catalog::lookup(c, name).is_some());
            (!known).then(|| {
                format!(
                    "no client's catalog has a tool `{name}` and no `[tool.{name}]` declares it"
                )
            })
        }
        Selector::Read(Some(p)) | Selector::Write(Some(p)) if effect == Effect::Allow => {
            let dir = literal_dir(p, policy.home())?;
            let inside = roots
                .iter()
                .any(|r| dir.starts_with(r) || r.starts_with(&dir));
            (!inside).then(|| {
                format!(
                    "`{}` is outside every root, where reads and writes are a hard limit",
                    dir.display()
                )
            })
        }
        _ => None,
    }
}

/// The literal directory an absolute (`//p`) or home (`~/p`) pattern
/// starts with, up to its first glob character.
fn literal_dir(pattern: &str, home: Option<&Path>) -> Option<PathBuf> {
    let abs = if let Some(rest) = pattern.strip_prefix("//") {
        PathBuf::from("/").join(rest)
    } else if let Some(rest) = pattern.strip_prefix("~/") {
        home?.join(rest)
    } else {
        return None;
    };
    let mut dir = PathBuf::new();
    for c in abs.components() {
        let s = c.as_os_str().to_string_lossy();
        if s.contains(['*', '?', '[', '{']) {
            break;
        }
        dir.push(c);
    }
    Some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_selectors_cover_their_kind() {
        let p = |s| Selector::parse(s).unwrap();
        assert!(covers(&p("Bash"), &p("Bash(git status)")));
        assert!(covers(&p("*"), &p("Read(x)")));
        assert!(covers(&p("Read(.env)"), &p("Read(.env)")));
        assert!(!covers(&p("Read(.env)"), &p("Read")));
        assert!(!covers(&p("Edit"), &p("Read(x)")));
    }

    #[test]
    fn literal_dirs_stop_at_globs() {
        assert_eq!(
            literal_dir("//opt/data/**/*.csv", None),
            Some(PathBuf::from("/opt/data"))
        );
        assert_eq!(literal_dir("src/**", None), None);
    }
}

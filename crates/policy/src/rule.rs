//! Rules and their selectors, as written in the policy file.

use crate::effect::Effect;
use crate::pattern::{CommandPattern, PatternError};
use crate::urls::{UrlPattern, UrlPatternError};

/// Why a rule entry is not a selector; the loader places it in the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// An entry with no text.
    #[error("empty rule selector")]
    Empty,
    /// `)` with no `(`.
    #[error("malformed selector `{0}`: `)` without `(`")]
    Unopened(String),
    /// `(` with no `)` at the end.
    #[error("malformed selector `{0}`: missing the closing `)`")]
    Unclosed(String),
    /// `Tool()`: probably meant as every call of the tool, which the bare
    /// name says.
    #[error("malformed selector `{text}`: empty `()`; write `{name}` to match every call")]
    EmptyParens {
        /// The entry as written.
        text: String,
        /// The tool name before the `(`.
        name: String,
    },
    /// The part before `(` is not a tool name or name glob.
    #[error(
        "malformed selector `{text}`: `{name}` is not a tool name (letters, digits, `_`, `-`, `.`, and `*`/`?` globs)"
    )]
    NotAToolName {
        /// The entry as written.
        text: String,
        /// The name part.
        name: String,
    },
    /// A `Bash(..)` pattern that does not compile.
    #[error("`{text}`: {source}")]
    Command {
        /// The entry as written.
        text: String,
        /// What is wrong with the pattern.
        source: PatternError,
    },
    /// A `WebFetch(..)` pattern that does not compile.
    #[error("`{text}`: {source}")]
    Url {
        /// The entry as written.
        text: String,
        /// What is wrong with the pattern.
        source: UrlPatternError,
    },
}

/// Which actions a rule entry matches (docs/policy.md, "Selectors").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    /// `*`: every action of every call.
    Any,
    /// `Read` or `Read(path pattern)`.
    Read(Option<String>),
    /// `Edit`/`Write`, optionally with a path pattern.
    Write(Option<String>),
    /// `Bash` or `Bash(command pattern)`.
    Exec(Option<CommandPattern>),
    /// `WebFetch` or `WebFetch(domain:..|ip:..|url glob)`.
    Fetch(Option<UrlPattern>),
    /// A tool by name (a glob such as `mcp__db__*`), optionally with a
    /// pattern over the tool's target field.
    Tool {
        /// The name or name glob.
        name: String,
        /// The specifier between the parentheses.
        pattern: Option<String>,
    },
}

impl Selector {
    /// Parses `Tool` or `Tool(specifier)`.
    pub fn parse(text: &str) -> Result<Selector, SelectorError> {
        let s = text.trim();
        if s.is_empty() {
            return Err(SelectorError::Empty);
        }
        if s == "*" {
            return Ok(Selector::Any);
        }
        let (name, spec) = match s.find('(') {
            None => {
                if s.contains(')') {
                    return Err(SelectorError::Unopened(text.to_string()));
                }
                (s, None)
            }
            Some(open) => {
                if !s.ends_with(')') {
                    return Err(SelectorError::Unclosed(text.to_string()));
                }
                let inner = &s[open + 1..s.len() - 1];
                if inner.trim().is_empty() {
                    return Err(SelectorError::EmptyParens {
                        text: text.to_string(),
                        name: s[..open].to_string(),
                    });
                }
                (&s[..open], Some(inner.trim()))
            }
        };
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '*' | '?'))
        {
            return Err(SelectorError::NotAToolName {
                text: text.to_string(),
                name: name.to_string(),
            });
        }
        let spec_owned = spec.map(str::to_string);
        Ok(match name {
            "Read" => Selector::Read(spec_owned),
            "Edit" | "Write" => Selector::Write(spec_owned),
            "Bash" => {
                Selector::Exec(match spec {
                    None => None,
                    Some(p) => Some(CommandPattern::compile(p).map_err(|source| {
                        SelectorError::Command {
                            text: text.to_string(),
                            source,
                        }
                    })?),
                })
            }
            "WebFetch" => Selector::Fetch(match spec {
                None => None,
                Some(p) => Some(UrlPattern::compile(p).map_err(|source| SelectorError::Url {
                    text: text.to_string(),
                    source,
                })?),
            }),
            _ => Selector::Tool {
                name: name.to_string(),
                pattern: spec_owned,
            },
        })
    }
}

/// Whether an approver may offer "allow for this session" for a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Remember {
    /// Each call asks again.
    #[default]
    Never,
    /// One approval may cover the rest of the session.
    Session,
}

/// One rule of the policy.
#[derive(Debug, Clone)]
pub struct Rule {
    /// `allow[0]`, `deny[2]`, or the `[[rule]]`'s `id`.
    pub id: String,
    /// What the rule decides when it matches.
    pub effect: Effect,
    /// The selectors as written, for explanations.
    pub sources: Vec<String>,
    /// Why, shown to the model and the approver.
    pub reason: Option<String>,
    /// Whether a session grant may lift this rule's ask.
    pub remember: Remember,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors() {
        assert_eq!(Selector::parse("*").unwrap(), Selector::Any);
        assert_eq!(Selector::parse("Read").unwrap(), Selector::Read(None));
        assert_eq!(
            Selector::parse("Edit(/docs/**)").unwrap(),
            Selector::Write(Some("/docs/**".into()))
        );
        assert!(matches!(
            Selector::parse("Bash(git status)").unwrap(),
            Selector::Exec(Some(_))
        ));
        assert_eq!(
            Selector::parse("mcp__db__*").unwrap(),
            Selector::Tool {
                name: "mcp__db__*".into(),
                pattern: None
            }
        );
        for bad in ["Read(", "Read()", "Re ad", "(x)", "Bash(git", "x)"] {
            assert!(Selector::parse(bad).is_err(), "{bad}");
        }
    }
}

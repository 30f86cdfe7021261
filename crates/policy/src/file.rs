//! Reading `toolgate.toml` into a checked document.
//!
//! Every string that can be wrong is read with its span, so that a bad
//! effect, mode, selector or glob is reported at its line and column.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::catalog::{self, Kind};
use crate::effect::{Effect, Mode};
use crate::error::PolicyError;
use crate::rule::{Remember, Rule, Selector};
use crate::rule_ids;
use crate::schema::Schema;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    policy: Option<RawPolicy>,
    allow: Option<Vec<Spanned<String>>>,
    ask: Option<Vec<Spanned<String>>>,
    deny: Option<Vec<Spanned<String>>>,
    rule: Option<Vec<RawRule>>,
    tool: Option<BTreeMap<String, Spanned<RawTool>>>,
    test: Option<Vec<Spanned<RawTest>>>,
    notify: Option<crate::notify::RawNotify>,
    state: Option<RawState>,
    review: Option<Spanned<crate::review::RawReview>>,
    sandbox: Option<crate::sandbox_table::RawSandboxTable>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawState {
    database: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    default: Option<Spanned<String>>,
    mode: Option<Spanned<String>>,
    roots: Option<Vec<Spanned<String>>>,
    read_roots: Option<Vec<Spanned<String>>>,
    protected: Option<Vec<Spanned<String>>>,
    ledger: Option<Spanned<String>>,
    sandbox: Option<Spanned<String>>,
    lock: Option<Vec<Spanned<String>>>,
    allow: Option<Vec<Spanned<String>>>,
    ask: Option<Vec<Spanned<String>>>,
    deny: Option<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: Option<Spanned<String>>,
    effect: Spanned<String>,
    #[serde(rename = "match")]
    matches: Spanned<toml::Value>,
    reason: Option<String>,
    remember: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTool {
    kind: Spanned<String>,
    field: Option<String>,
    schema: Option<Spanned<toml::Value>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTest {
    name: Option<String>,
    call: toml::Value,
    expect: Spanned<String>,
    rule: Option<String>,
    mode: Option<Spanned<String>>,
    hard: Option<bool>,
}

/// Whether commands run inside the OS sandbox (`[policy] sandbox`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxSetting {
    /// The sandbox is enforced, and a kernel that cannot enforce it makes
    /// commands refuse to run (the default).
    #[default]
    On,
    /// The user's opt-out: commands run without the sandbox.
    Off,
}

/// A rule selector with the byte offset it was written at.
#[derive(Debug, Clone)]
pub struct Placed<T> {
    /// The value.
    pub value: T,
    /// Byte offset in the file's text.
    pub offset: usize,
}

/// A tool declared with `[tool.NAME]`.
#[derive(Debug, Clone)]
pub struct ToolDecl {
    /// The tool's exact name.
    pub name: String,
    /// What it does.
    pub kind: Kind,
    /// The input field rules' specifiers match.
    pub field: Option<String>,
    /// Its input schema, when declared.
    pub schema: Option<Schema>,
}

/// A `[[test]]` case.
#[derive(Debug, Clone)]
pub struct TestCase {
    /// `name`, or `test[i]`.
    pub name: String,
    /// The call, in any accepted wire format.
    pub call: serde_json::Value,
    /// The expected decision.
    pub expect: Effect,
    /// The expected deciding rule, when given.
    pub rule: Option<String>,
    /// The mode to decide in, when given.
    pub mode: Option<Mode>,
    /// The expected `hard` flag, when given.
    pub hard: Option<bool>,
    /// The line it starts on.
    pub line: usize,
}

/// Whether every call must be recorded before it may run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Ledger {
    /// A call that cannot be written to the ledger is refused (the default).
    #[default]
    Required,
    /// A call that cannot be recorded still gets its decision; the failure
    /// is only reported.
    BestEffort,
}

/// A parsed and checked policy file, before compilation.
#[derive(Debug, Clone, Default)]
pub struct Doc {
    /// No rule matched: deny or ask.
    pub default: Option<Effect>,
    /// The mode.
    pub mode: Option<Mode>,
    /// Workspace roots as written.
    pub roots: Vec<Placed<String>>,
    /// Extra read-only roots as written.
    pub read_roots: Vec<Placed<String>>,
    /// Extra protected path patterns.
    pub protected: Vec<Placed<String>>,
    /// Whether a call that cannot be recorded may still run.
    pub ledger: Option<Ledger>,
    /// `sandbox = "on" | "off"`: whether shell commands run inside the OS
    /// sandbox (`None`: on).
    pub sandbox: Option<SandboxSetting>,
    /// Rules in file order, each with its selectors.
    pub rules: Vec<(Rule, Vec<Placed<Selector>>)>,
    /// Declared tools.
    pub tools: Vec<ToolDecl>,
    /// Policy tests.
    pub tests: Vec<TestCase>,
    /// The `[notify]` table.
    pub notify: crate::notify::Notify,
    /// `[state] database`: where the state store lives, when not in the
    /// state directory.
    pub database: Option<String>,
    /// `[policy] lock`: what a managed policy keeps lower layers from
    /// loosening (see `layers`).
    pub lock: Vec<Placed<String>>,
    /// The `[review]` table, when written (see `layers` for which layer's
    /// counts).
    pub review: Option<crate::review::ReviewTable>,
    /// `[sandbox] writable`: directories outside the roots commands in the
    /// sandbox may write (see `sandbox_table`, and `layers` for which
    /// layers count).
    pub sandbox_writable: Vec<crate::sandbox_table::WritableEntry>,
}

/// Builds the error of a place in the file being read.
struct Errs<'a> {
    file: &'a Path,
    text: &'a str,
}

impl Errs<'_> {
    fn at(&self, offset: Option<usize>, msg: String) -> PolicyError {
        PolicyError::at(self.file, self.text, offset, msg)
    }
}

/// Who wrote the file: ids reserved for toolgate are refused in a user's
/// file, and only the built-in default policy may use its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A policy file someone wrote.
    User,
    /// The built-in default policy.
    Builtin,
}

impl Doc {
    /// Parses a policy file's text; `file` names it in errors.
    pub fn parse(text: &str, file: &Path) -> Result<Doc, PolicyError> {
        Doc::parse_from(text, file, Origin::User)
    }

    /// Parses a policy's text written by `origin`.
    pub fn parse_from(text: &str, file: &Path, origin: Origin) -> Result<Doc, PolicyError> {
        let e = Errs { file, text };
        let raw: RawFile = toml::from_str(text).map_err(|err| {
            let msg = err.message().trim().replace('\n', " ");
            e.at(err.span().map(|s| s.start), msg)
        })?;
        let mut doc = Doc {
            notify: crate::notify::Notify::from_raw(raw.notify, text, file)?,
            ..Doc::default()
        };
        let mut lists: [(Effect, Vec<Spanned<String>>); 3] = [
            (Effect::Allow, raw.allow.unwrap_or_default()),
            (Effect::Ask, raw.ask.unwrap_or_default()),
            (Effect::Deny, raw.deny.unwrap_or_default()),
        ];
        if let Some(p) = raw.policy {
            doc.settings(p, &mut lists, &e)?;
        }
        if let Some(r) = raw.review {
            doc.review = Some(crate::review::ReviewTable::from_raw(r, text, file)?);
        }
        if let Some(t) = raw.sandbox {
            doc.sandbox_writable = crate::sandbox_table::parse(t, text, file)?;
        }
        if let Some(db) = raw.state.and_then(|s| s.database) {
            doc.database =
                Some(crate::state_dir::check_database(db.get_ref()).map_err(|m| {
                    e.at(Some(db.span().start), format!("`[state] database`: {m}"))
                })?);
        }
        doc.list_rules(lists, &e)?;
        for (i, r) in raw.rule.unwrap_or_default().into_iter().enumerate() {
            let rule = table_rule(i, r, origin, &e)?;
            doc.rules.push(rule);
        }
        doc.check_unique_ids(&e)?;
        for (name, t) in raw.tool.unwrap_or_default() {
            let decl = tool_decl(name, t, &e)?;
            doc.tools.push(decl);
        }
        for (i, t) in raw.test.unwrap_or_default().into_iter().enumerate() {
            let case = test_case(i, t, &e)?;
            doc.tests.push(case);
        }
        Ok(doc)
    }

    /// `[policy]`: default, mode, roots and the rule lists written there.
    fn settings(
        &mut self,
        p: RawPolicy,
        lists: &mut [(Effect, Vec<Spanned<String>>); 3],
        e: &Errs<'_>,
    ) -> Result<(), PolicyError> {
        if let Some(d) = p.default {
            let effect: Effect =
                d.get_ref()
                    .parse()
                    .map_err(|m: crate::effect::UnknownEffect| {
                        e.at(Some(d.span().start), format!("`default`: {m}"))
                    })?;
            if effect == Effect::Allow {
                return Err(e.at(
                    Some(d.span().start),
                    "`default` must be `deny` or `ask`: a policy never allows what no rule allows"
                        .into(),
                ));
            }
            self.default = Some(effect);
        }
        if let Some(m) = p.mode {
            self.mode = Some(
                m.get_ref()
                    .parse()
                    .map_err(|msg: crate::effect::UnknownMode| {
                        e.at(Some(m.span().start), msg.to_string())
                    })?,
            );
        }
        if let Some(l) = p.ledger {
            self.ledger = Some(match l.get_ref().as_str() {
                "required" => Ledger::Required,
                "best-effort" => Ledger::BestEffort,
                other => {
                    return Err(e.at(
                        Some(l.span().start),
                        format!("`ledger`: `{other}` is not `required` or `best-effort`"),
                    ));
                }
            });
        }
        let placed = |v: Option<Vec<Spanned<String>>>| -> Vec<Placed<String>> {
            v.unwrap_or_default()
                .into_iter()
                .map(|s| Placed {
                    offset: s.span().start,
                    value: s.into_inner(),
                })
                .collect()
        };
        for l in p.lock.unwrap_or_default() {
            crate::layers::check_lock(l.get_ref())
                .map_err(|m| e.at(Some(l.span().start), format!("`lock`: {m}")))?;
            self.lock.push(Placed {
                offset: l.span().start,
                value: l.into_inner(),
            });
        }
        self.roots = placed(p.roots);
        self.read_roots = placed(p.read_roots);
        self.protected = placed(p.protected);
        if let Some(s) = p.sandbox {
            self.sandbox = Some(match s.get_ref().as_str() {
                "on" => SandboxSetting::On,
                "off" => SandboxSetting::Off,
                other => {
                    return Err(e.at(
                        Some(s.span().start),
                        format!("unknown `sandbox` value `{other}`: expected `on` or `off`"),
                    ));
                }
            });
        }
        lists[0].1.extend(p.allow.unwrap_or_default());
        lists[1].1.extend(p.ask.unwrap_or_default());
        lists[2].1.extend(p.deny.unwrap_or_default());
        Ok(())
    }

    /// The `allow`, `ask` and `deny` lists: one rule per entry, with ids
    /// `allow[0]`, ...
    fn list_rules(
        &mut self,
        lists: [(Effect, Vec<Spanned<String>>); 3],
        e: &Errs<'_>,
    ) -> Result<(), PolicyError> {
        for (effect, entries) in lists {
            for (i, entry) in entries.into_iter().enumerate() {
                let offset = entry.span().start;
                let sel = Selector::parse(entry.get_ref())
                    .map_err(|m| e.at(Some(offset), m.to_string()))?;
                self.rules.push((
                    Rule {
                        id: format!("{}[{i}]", effect.as_str()),
                        effect,
                        sources: vec![entry.into_inner()],
                        reason: None,
                        remember: Remember::Never,
                    },
                    vec![Placed { value: sel, offset }],
                ));
            }
        }
        Ok(())
    }

    /// INVARIANT: rule ids are unique, so a decision's `rule` names one rule.
    fn check_unique_ids(&self, e: &Errs<'_>) -> Result<(), PolicyError> {
        // A set, not a scan of the rules before each one: with 10,000 rules
        // the pairwise comparison alone took a noticeable part of loading.
        let mut seen = std::collections::HashSet::with_capacity(self.rules.len());
        for (a, sels) in &self.rules {
            if !seen.insert(a.id.as_str()) {
                let at = sels.first().map(|p| p.offset);
                return Err(e.at(at, format!("duplicate rule id `{}`", a.id)));
            }
        }
        Ok(())
    }
}

/// One `[[rule]]` table.
fn table_rule(
    i: usize,
    r: RawRule,
    origin: Origin,
    e: &Errs<'_>,
) -> Result<(Rule, Vec<Placed<Selector>>), PolicyError> {
    let effect: Effect =
        r.effect
            .get_ref()
            .parse()
            .map_err(|m: crate::effect::UnknownEffect| {
                e.at(Some(r.effect.span().start), format!("`effect`: {m}"))
            })?;
    let id = match &r.id {
        Some(id) if id.get_ref().trim().is_empty() => {
            return Err(e.at(Some(id.span().start), "rule `id` is empty".into()));
        }
        Some(id) if origin == Origin::User && rule_ids::is_reserved(id.get_ref()) => {
            return Err(e.at(
                Some(id.span().start),
                format!(
                    "rule id `{}` is reserved: toolgate gives it (or its prefix) to decisions of its own; choose another id",
                    id.get_ref()
                ),
            ));
        }
        Some(id) => id.get_ref().clone(),
        None => format!("rule[{i}]"),
    };
    let remember = match &r.remember {
        None => Remember::Never,
        Some(s) => match s.get_ref().as_str() {
            "session" => Remember::Session,
            "never" | "once" => Remember::Never,
            other => {
                return Err(e.at(
                    Some(s.span().start),
                    format!("unknown `remember` value `{other}`: expected `session` or `never`"),
                ));
            }
        },
    };
    let m_off = r.matches.span().start;
    let not_selectors = || {
        e.at(
            Some(m_off),
            "`match` must be a selector string or an array of them".into(),
        )
    };
    let sources: Vec<String> = match r.matches.get_ref() {
        toml::Value::String(s) => vec![s.clone()],
        toml::Value::Array(a) => a
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(not_selectors)?,
        _ => return Err(not_selectors()),
    };
    if sources.is_empty() {
        return Err(e.at(Some(m_off), format!("rule `{id}` has an empty `match`")));
    }
    let mut sels = Vec::new();
    for s in &sources {
        let sel = Selector::parse(s).map_err(|m| e.at(Some(m_off), m.to_string()))?;
        sels.push(Placed {
            value: sel,
            offset: m_off,
        });
    }
    Ok((
        Rule {
            id,
            effect,
            sources,
            reason: r.reason,
            remember,
        },
        sels,
    ))
}

/// One `[tool.NAME]` table.
fn tool_decl(name: String, t: Spanned<RawTool>, e: &Errs<'_>) -> Result<ToolDecl, PolicyError> {
    let offset = t.span().start;
    let t = t.into_inner();
    let kind = Kind::parse(t.kind.get_ref()).ok_or_else(|| {
        e.at(
            Some(t.kind.span().start),
            format!(
                "tool `{name}`: unknown kind `{}`: expected `read`, `write`, `exec`, `fetch` or `other`",
                t.kind.get_ref()
            ),
        )
    })?;
    let clients = catalog::clients_with(&name);
    if !clients.is_empty() {
        let names: Vec<&str> = clients.iter().map(|c| c.as_str()).collect();
        return Err(e.at(
            Some(offset),
            format!(
                "tool `{name}` is built in ({}) and cannot be redeclared",
                names.join(", ")
            ),
        ));
    }
    if kind != Kind::Other && t.field.is_none() {
        return Err(e.at(
            Some(offset),
            format!(
                "tool `{name}` of kind `{}` needs a `field` naming its target",
                kind.as_str()
            ),
        ));
    }
    let schema = match t.schema {
        None => None,
        Some(s) => {
            let off = s.span().start;
            let json = serde_json::to_value(s.get_ref())
                .map_err(|err| e.at(Some(off), format!("tool `{name}` schema: {err}")))?;
            Some(
                Schema::compile(&json)
                    .map_err(|m| e.at(Some(off), format!("tool `{name}`: {m}")))?,
            )
        }
    };
    Ok(ToolDecl {
        name,
        kind,
        field: t.field,
        schema,
    })
}

/// One `[[test]]` case.
fn test_case(i: usize, t: Spanned<RawTest>, e: &Errs<'_>) -> Result<TestCase, PolicyError> {
    let offset = t.span().start;
    let t = t.into_inner();
    let expect: Effect =
        t.expect
            .get_ref()
            .parse()
            .map_err(|m: crate::effect::UnknownEffect| {
                e.at(Some(t.expect.span().start), format!("`expect`: {m}"))
            })?;
    let mode = match t.mode {
        None => None,
        Some(m) => Some(
            m.get_ref()
                .parse()
                .map_err(|msg: crate::effect::UnknownMode| {
                    e.at(Some(m.span().start), msg.to_string())
                })?,
        ),
    };
    let call = serde_json::to_value(&t.call)
        .map_err(|err| e.at(Some(offset), format!("test call: {err}")))?;
    Ok(TestCase {
        name: t.name.unwrap_or_else(|| format!("test[{i}]")),
        call,
        expect,
        rule: t.rule,
        mode,
        hard: t.hard,
        line: crate::error::line_col(e.text, offset).0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Doc, PolicyError> {
        Doc::parse(s, Path::new("t.toml"))
    }

    #[test]
    fn list_ids_and_rule_ids() {
        let d = parse(
            "allow = [\"Read\", \"Bash(git status)\"]\ndeny = [\"Read(.env)\"]\n[[rule]]\nid = \"keys\"\neffect = \"deny\"\nmatch = [\"Read(**/*.pem)\"]\n",
        )
        .unwrap();
        let ids: Vec<&str> = d.rules.iter().map(|(r, _)| r.id.as_str()).collect();
        assert_eq!(ids, ["allow[0]", "allow[1]", "deny[0]", "keys"]);
    }

    #[test]
    fn lists_under_policy_table_are_accepted() {
        let d = parse("[policy]\ndefault = \"ask\"\nallow = [\"Read\"]\n").unwrap();
        assert_eq!(d.rules[0].0.id, "allow[0]");
        assert_eq!(d.default, Some(Effect::Ask));
    }

    #[test]
    fn sandbox_setting_is_strict() {
        assert_eq!(parse("[policy]\n").unwrap().sandbox, None);
        assert_eq!(
            parse("[policy]\nsandbox = \"off\"\n").unwrap().sandbox,
            Some(SandboxSetting::Off)
        );
        assert_eq!(
            parse("[policy]\nsandbox = \"on\"\n").unwrap().sandbox,
            Some(SandboxSetting::On)
        );
        let e = parse("[policy]\nsandbox = \"Off\"\n").unwrap_err();
        assert_eq!(e.place, Some((2, 11)), "{e}");
        assert!(parse("[policy]\nsandbox = false\n").is_err());
        assert!(parse("sandbox = \"off\"\n").is_err());
    }

    #[test]
    fn errors_have_places() {
        let e = parse("[policy]\nmode = \"fast\"\n").unwrap_err();
        assert_eq!(e.place, Some((2, 8)));
        let e = parse("allow = [\n  \"Read(\"\n]").unwrap_err();
        assert_eq!(e.place, Some((2, 3)));
        let e = parse("[policy]\nbogus = 1\n").unwrap_err();
        assert!(e.place.is_some() && e.message.contains("bogus"), "{e}");
        let e = parse("x = ").unwrap_err();
        assert!(e.place.is_some(), "{e}");
        let e = parse("[[rule]]\neffect = \"maybe\"\nmatch = \"Read\"\n").unwrap_err();
        assert_eq!(e.place, Some((2, 10)));
    }

    #[test]
    fn reserved_ids_are_load_errors_at_their_line() {
        for id in crate::rule_ids::ALL.iter().copied().chain([
            "hard:mine",
            "Mode:plan",
            "host:x",
            "builtin:read",
        ]) {
            let text = format!(
                "allow = [\"Read\"]\n\n[[rule]]\nid = \"{id}\"\neffect = \"allow\"\nmatch = \"Read\"\n"
            );
            let e = parse(&text).unwrap_err();
            assert_eq!(e.place.map(|p| p.0), Some(4), "{id}: {e}");
            assert!(
                e.message.contains("reserved") && e.message.contains(id),
                "{e}"
            );
            assert!(e.to_string().contains("t.toml"), "{e}");
        }
        assert!(
            Doc::parse_from(
                "[[rule]]\nid = \"builtin:read\"\neffect = \"allow\"\nmatch = \"Read\"\n",
                Path::new("builtin"),
                Origin::Builtin
            )
            .is_ok()
        );
    }
}

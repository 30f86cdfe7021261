//! Cedar (`cedar-policy`): one policy per rule.
//!
//! Cedar has two effects, `permit` and `forbid`, and denies when nothing
//! permits. toolgate's third, ask, is written as a `permit` annotated
//! `@effect("ask")`, and the whole set is evaluated once:
//!
//! - Cedar says deny and names a determining policy: a `forbid` matched:
//!   deny (a forbid overrides every permit, as deny overrides ask);
//! - Cedar says deny and names none: nothing matched: the default;
//! - Cedar says allow: ask when any of the determining permits is
//!   annotated ask, else allow.
//!
//! One evaluation was chosen over a second policy set for the asks: Cedar
//! evaluates every policy of a set on every request, so a second set would
//! cost a second pass whenever no forbid matched.
//!
//! The request: principal `Agent::"agent"`, action `Action::"read"`,
//! `"write"`, `"exec"`, `"tool"` or `"fetch"`, resource the target as an
//! entity (`File::"/abs/path"`, `Command::"argv joined"`, `Tool::"name"`,
//! `Url::"..."`), and a context with `path`, `command`, `tool` and `host`
//! (the ones that do not apply are empty). Cedar has no ordered lists, so a
//! command is matched on its argv joined with single spaces, each word
//! quoted where the shell would need it (as toolgate's canonical form):
//! `tool sub *` becomes `command == "tool sub" || command like "tool sub *"`.
//! Cedar's `like` lets `*` cross `/`, so a glob's `*` within a segment is
//! written as a `like` plus a `!(.. like "dir/*/*")` guard.

use std::fmt::Write as _;
use std::str::FromStr;

use cedar_policy::{
    Authorizer, Context, Decision, Entities, EntityId, EntityTypeName, EntityUid, PolicySet,
    Request as CedarRequest, RestrictedExpression,
};
use toolgate_policy::Effect;

use crate::DEFAULT;
use crate::calls::{BenchCall, Request};
use crate::engines::Engine;
use crate::rules::{Name, PathPattern, Rule, Target};

/// A Cedar string literal.
fn lit(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A Cedar `like` pattern matching `s` literally, then `tail` (whose `*`
/// are wildcards).
fn like(s: &str, tail: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' | '\\' | '*' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out.push_str(tail);
    out.push('"');
    out
}

fn path_condition(p: &PathPattern, root: &str) -> String {
    let dir = format!("{root}/{}/", p.dir);
    match &p.name {
        Name::Any => format!("context.path like {}", like(&dir, "*")),
        Name::Literal(n) => format!("context.path == {}", lit(&format!("{dir}{n}"))),
        Name::Glob { prefix, suffix } => format!(
            "context.path like {} && !(context.path like {})",
            like(&format!("{dir}{prefix}"), &format!("*{suffix}")),
            like(&dir, "*/*"),
        ),
    }
}

/// The policies for `rules`, in order: the `k`-th policy (`policyk`) is the
/// `k`-th rule.
pub fn policy_text(rules: &[Rule], root: &str) -> String {
    let mut out = String::new();
    for r in rules {
        let (actions, cond) = match &r.target {
            Target::Read(p) => (
                if r.effect == Effect::Deny {
                    // A Read deny also denies writes.
                    r#"action in [Action::"read", Action::"write"]"#
                } else {
                    r#"action == Action::"read""#
                },
                path_condition(p, root),
            ),
            Target::Write(p) => (r#"action == Action::"write""#, path_condition(p, root)),
            Target::Command(words) => {
                let joined = words.join(" ");
                (
                    r#"action == Action::"exec""#,
                    format!(
                        "context.command == {} || context.command like {}",
                        lit(&joined),
                        like(&joined, " *")
                    ),
                )
            }
            Target::Tool(n) => (
                r#"action == Action::"tool""#,
                format!("resource == Tool::{}", lit(n)),
            ),
            Target::ToolPrefix(p) => (
                r#"action == Action::"tool""#,
                format!("context.tool like {}", like(p, "*")),
            ),
            Target::Host(h) => (
                r#"action == Action::"fetch""#,
                format!("context.host == {}", lit(h)),
            ),
        };
        let head = match r.effect {
            Effect::Allow => "permit",
            Effect::Ask => "@effect(\"ask\")\npermit",
            Effect::Deny => "forbid",
        };
        let _ = writeln!(
            out,
            "{head} (principal, {actions}, resource)\nwhen {{ {cond} }};\n"
        );
    }
    out
}

/// `Authorizer::is_authorized` over the policy set.
pub struct Cedar {
    policies: PolicySet,
    authorizer: Authorizer,
    entities: Entities,
    principal: EntityUid,
    actions: [EntityUid; 5],
    types: [EntityTypeName; 4],
}

const READ: usize = 0;
const WRITE: usize = 1;
const EXEC: usize = 2;
const TOOL: usize = 3;
const FETCH: usize = 4;

fn uid(ty: &str, id: &str) -> anyhow::Result<EntityUid> {
    Ok(EntityUid::from_type_name_and_id(
        EntityTypeName::from_str(ty)?,
        EntityId::new(id),
    ))
}

impl Cedar {
    /// Parses the policies for `rules` under the workspace `root`.
    pub fn new(rules: &[Rule], root: &str) -> anyhow::Result<Cedar> {
        let policies = PolicySet::from_str(&policy_text(rules, root))
            .map_err(|e| anyhow::anyhow!("cedar policies: {e:?}"))?;
        Ok(Cedar {
            policies,
            authorizer: Authorizer::new(),
            entities: Entities::empty(),
            principal: uid("Agent", "agent")?,
            actions: [
                uid("Action", "read")?,
                uid("Action", "write")?,
                uid("Action", "exec")?,
                uid("Action", "tool")?,
                uid("Action", "fetch")?,
            ],
            types: [
                EntityTypeName::from_str("File")?,
                EntityTypeName::from_str("Command")?,
                EntityTypeName::from_str("Tool")?,
                EntityTypeName::from_str("Url")?,
            ],
        })
    }

    /// The Cedar request for a call, and the answer with Cedar's
    /// diagnostics (for the agreement check).
    pub fn authorize(&self, req: &Request) -> cedar_policy::Response {
        let (action, ty, id, field, value) = match req {
            Request::Read(p) => {
                let s = p.to_string_lossy().into_owned();
                (READ, 0, s.clone(), "path", s)
            }
            Request::Write(p) => {
                let s = p.to_string_lossy().into_owned();
                (WRITE, 0, s.clone(), "path", s)
            }
            Request::Exec(argv) => {
                let s = shell_words::join(argv);
                (EXEC, 1, s.clone(), "command", s)
            }
            Request::Tool(n) => (TOOL, 2, n.clone(), "tool", n.clone()),
            Request::Fetch { url, host } => (FETCH, 3, url.clone(), "host", host.clone()),
        };
        let context = Context::from_pairs(["path", "command", "tool", "host"].map(|k| {
            let v = if k == field {
                value.clone()
            } else {
                String::new()
            };
            (k.to_string(), RestrictedExpression::new_string(v))
        }))
        .expect("a context of four strings");
        let resource = EntityUid::from_type_name_and_id(self.types[ty].clone(), EntityId::new(id));
        let request = CedarRequest::new(
            self.principal.clone(),
            self.actions[action].clone(),
            resource,
            context,
            None,
        )
        .expect("no schema to violate");
        self.authorizer
            .is_authorized(&request, &self.policies, &self.entities)
    }

    /// Maps Cedar's answer to allow, ask or deny.
    pub fn effect(&self, response: &cedar_policy::Response) -> Effect {
        let mut reasons = response.diagnostics().reason();
        match response.decision() {
            Decision::Deny => {
                if reasons.next().is_some() {
                    Effect::Deny
                } else {
                    DEFAULT
                }
            }
            Decision::Allow => {
                if reasons.any(|id| self.policies.annotation(id, "effect") == Some("ask")) {
                    Effect::Ask
                } else {
                    Effect::Allow
                }
            }
        }
    }
}

impl Engine for Cedar {
    fn name(&self) -> &'static str {
        "cedar"
    }

    fn decide(&self, call: &BenchCall) -> Effect {
        self.effect(&self.authorize(&call.request))
    }
}

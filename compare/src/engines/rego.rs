//! Rego (`regorus`): one rule body per toolgate rule, in partial sets
//! `deny`, `ask` and `allow` holding the rule numbers that matched, and a
//! `decision` that checks them strictest first.
//!
//! The input carries the action (`read`, `write`, `exec`, `tool`, `fetch`)
//! and only the field that applies: `path` (absolute, resolved), `argv`
//! (an array), `tool` or `host`. Path globs use `glob.match` with `/` as the
//! delimiter (globset underneath, `*` within a segment, as in toolgate); a
//! command prefix compares `array.slice` of the argv with the words; a tool
//! name `==` (or `startswith` for `name*`); a host `==`.
//!
//! Each call sets the input and evaluates `data.toolgate.decision` with
//! `Engine::eval_rule` (which regorus documents as faster than
//! `eval_query`), starting from a clean evaluation state; the glob cache is
//! sized to hold every glob of the policy.

use std::cell::RefCell;
use std::fmt::Write as _;

use regorus::Value;
use toolgate_policy::Effect;

use crate::DEFAULT;
use crate::calls::{BenchCall, Request};
use crate::engines::Engine;
use crate::rules::{Name, Rule, Target};

/// A Rego string literal (JSON syntax).
fn lit(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// Rules per module: regorus refuses a policy file over 1 MiB, and 10,000
/// rules in one file would be over that, so the package is split over files
/// as a large policy would be.
const RULES_PER_MODULE: usize = 1_000;

const HEADER: &str = "package toolgate\n\nimport rego.v1\n\n";

/// The modules for `rules` under the workspace `root`: the rules, a
/// thousand per module, then the decision.
pub fn policy_text(rules: &[Rule], root: &str) -> Vec<String> {
    let mut modules = Vec::new();
    let mut out = String::from(HEADER);
    for (k, r) in rules.iter().enumerate() {
        if k > 0 && k % RULES_PER_MODULE == 0 {
            modules.push(std::mem::replace(&mut out, String::from(HEADER)));
        }
        let set = r.effect.as_str();
        let body = match &r.target {
            Target::Read(p) | Target::Write(p) => {
                let action = match (&r.target, r.effect) {
                    // A Read deny also denies writes.
                    (Target::Read(_), Effect::Deny) => r#"input.action in {"read", "write"}"#,
                    (Target::Read(_), _) => r#"input.action == "read""#,
                    _ => r#"input.action == "write""#,
                };
                let test = match &p.name {
                    Name::Literal(_) => {
                        format!(
                            "input.path == {}",
                            lit(&format!("{root}/{}", p.relative_glob()))
                        )
                    }
                    _ => format!(
                        r#"glob.match({}, ["/"], input.path)"#,
                        lit(&p.absolute_glob(root))
                    ),
                };
                format!("{action}\n\t{test}")
            }
            Target::Command(words) => {
                let array: Vec<String> = words.iter().map(|w| lit(w)).collect();
                format!(
                    "input.action == \"exec\"\n\tarray.slice(input.argv, 0, {}) == [{}]",
                    words.len(),
                    array.join(", ")
                )
            }
            Target::Tool(n) => format!("input.action == \"tool\"\n\tinput.tool == {}", lit(n)),
            Target::ToolPrefix(p) => {
                format!(
                    "input.action == \"tool\"\n\tstartswith(input.tool, {})",
                    lit(p)
                )
            }
            Target::Host(h) => format!("input.action == \"fetch\"\n\tinput.host == {}", lit(h)),
        };
        let _ = writeln!(out, "{set} contains {k} if {{\n\t{body}\n}}\n");
    }
    modules.push(out);
    let mut out = String::from(HEADER);
    let _ = writeln!(
        out,
        r#"decision := "deny" if {{
	count(deny) > 0
}} else := "ask" if {{
	count(ask) > 0
}} else := "allow" if {{
	count(allow) > 0
}} else := "{DEFAULT}"
"#
    );
    modules.push(out);
    modules
}

/// `regorus::Engine` with the module loaded.
pub struct Rego {
    // `eval_rule` takes `&mut self`; the benchmark decides through `&self`.
    engine: RefCell<regorus::Engine>,
}

impl Rego {
    /// Parses the module for `rules` under the workspace `root`.
    pub fn new(rules: &[Rule], root: &str) -> anyhow::Result<Rego> {
        // regorus keeps compiled globs in a process-wide LRU cache of 128 by
        // default; past 128 path rules, a call would recompile every glob
        // it meets. Size it for the whole policy, as a deployment would.
        regorus::cache::configure(regorus::cache::Config {
            glob: regorus::cache::Config::MAX_CAPACITY,
            ..regorus::cache::Config::default()
        });
        let mut engine = regorus::Engine::new();
        for (i, module) in policy_text(rules, root).into_iter().enumerate() {
            engine.add_policy(format!("toolgate{i}.rego"), module)?;
        }
        Ok(Rego {
            engine: RefCell::new(engine),
        })
    }

    fn input(req: &Request) -> Value {
        let mut input = Value::new_object();
        let obj = input.as_object_mut().expect("a new object");
        let (action, field, value) = match req {
            Request::Read(p) => ("read", "path", Value::from(p.to_string_lossy().as_ref())),
            Request::Write(p) => ("write", "path", Value::from(p.to_string_lossy().as_ref())),
            Request::Exec(argv) => (
                "exec",
                "argv",
                Value::from(
                    argv.iter()
                        .map(|w| Value::from(w.as_str()))
                        .collect::<Vec<_>>(),
                ),
            ),
            Request::Tool(n) => ("tool", "tool", Value::from(n.as_str())),
            Request::Fetch { host, .. } => ("fetch", "host", Value::from(host.as_str())),
        };
        obj.insert(Value::from("action"), Value::from(action));
        obj.insert(Value::from(field), value);
        input
    }
}

impl Engine for Rego {
    fn name(&self) -> &'static str {
        "rego"
    }

    fn decide(&self, call: &BenchCall) -> Effect {
        let mut engine = self.engine.borrow_mut();
        engine.set_input(Rego::input(&call.request));
        let v = engine
            .eval_rule("data.toolgate.decision".into())
            .expect("the decision rule evaluates");
        match v.as_string().map(|s| s.as_ref()) {
            Ok("deny") => Effect::Deny,
            Ok("ask") => Effect::Ask,
            Ok("allow") => Effect::Allow,
            other => panic!("unexpected decision {other:?}"),
        }
    }
}

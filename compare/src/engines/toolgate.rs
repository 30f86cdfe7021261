//! toolgate itself: the rules as a `toolgate.toml`, decided by
//! `Policy::decide` on the tool call as an agent sends it.

use std::fmt::Write as _;

use toolgate_policy::{Effect, LoadOptions, Policy};

use crate::DEFAULT;
use crate::calls::{BenchCall, Workspace};
use crate::engines::Engine;
use crate::rules::{Rule, Target};

/// The policy file text for `rules`.
pub fn policy_text(rules: &[Rule]) -> String {
    let (mut allow, mut ask, mut deny) = (Vec::new(), Vec::new(), Vec::new());
    for r in rules {
        let sel = match &r.target {
            Target::Read(p) => format!("Read({})", p.relative_glob()),
            Target::Write(p) => format!("Edit({})", p.relative_glob()),
            Target::Command(words) => format!("Bash({} *)", words.join(" ")),
            Target::Tool(name) => name.clone(),
            Target::ToolPrefix(prefix) => format!("{prefix}*"),
            Target::Host(h) => format!("WebFetch(domain:{h})"),
        };
        match r.effect {
            Effect::Allow => allow.push(sel),
            Effect::Ask => ask.push(sel),
            Effect::Deny => deny.push(sel),
        }
    }
    let list = |v: &[String]| {
        let mut s = String::from("[\n");
        for x in v {
            let _ = writeln!(s, "  {x:?},");
        }
        s.push(']');
        s
    };
    format!(
        "[policy]\ndefault = \"{DEFAULT}\"\nallow = {}\nask = {}\ndeny = {}\n",
        list(&allow),
        list(&ask),
        list(&deny)
    )
}

/// `Policy::decide`.
pub struct Toolgate {
    policy: Policy,
}

impl Toolgate {
    /// Writes the policy file into the workspace and compiles it.
    pub fn new(rules: &[Rule], ws: &Workspace) -> anyhow::Result<Toolgate> {
        let text = policy_text(rules);
        let file = ws.policy_file();
        std::fs::write(&file, &text)?;
        let opts = LoadOptions {
            workspace: None,
            home: Some(ws.home.clone()),
            state_dir: Some(ws.home.join(".local/state/toolgate")),
        };
        let policy = Policy::from_toml(&text, &file, &opts)?;
        Ok(Toolgate { policy })
    }
}

impl Engine for Toolgate {
    fn name(&self) -> &'static str {
        "toolgate"
    }

    fn decide(&self, call: &BenchCall) -> Effect {
        self.policy.decide(&call.call).decision
    }
}

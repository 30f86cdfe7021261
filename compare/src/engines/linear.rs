//! The baseline: the rules in a list, every rule looked at for every call,
//! the strictest match winning (deny > ask > allow), no match the default.
//!
//! Matching has toolgate's semantics: a path glob is compiled per rule with
//! `globset` as toolgate compiles it (`*` within a segment, `**` across), a
//! command prefix matches whole words, a tool name is compared for
//! equality (or by prefix for `name*`), a host for equality.

use globset::{GlobBuilder, GlobMatcher};
use toolgate_policy::Effect;

use crate::DEFAULT;
use crate::calls::{BenchCall, Request};
use crate::engines::Engine;
use crate::rules::{Rule, Target};

enum Matcher {
    Read(GlobMatcher),
    Write(GlobMatcher),
    Command(Vec<String>),
    Tool(String),
    ToolPrefix(String),
    Host(String),
}

/// A linear scan over compiled rules.
pub struct Linear {
    rules: Vec<(Effect, Matcher)>,
}

fn glob(pattern: &str) -> anyhow::Result<GlobMatcher> {
    Ok(GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()?
        .compile_matcher())
}

impl Linear {
    /// Compiles `rules` against the workspace `root`.
    pub fn new(rules: &[Rule], root: &str) -> anyhow::Result<Linear> {
        let mut out = Vec::with_capacity(rules.len());
        for r in rules {
            let m = match &r.target {
                Target::Read(p) => Matcher::Read(glob(&p.absolute_glob(root))?),
                Target::Write(p) => Matcher::Write(glob(&p.absolute_glob(root))?),
                Target::Command(w) => Matcher::Command(w.clone()),
                Target::Tool(n) => Matcher::Tool(n.clone()),
                Target::ToolPrefix(p) => Matcher::ToolPrefix(p.clone()),
                Target::Host(h) => Matcher::Host(h.clone()),
            };
            out.push((r.effect, m));
        }
        Ok(Linear { rules: out })
    }
}

fn matches(effect: Effect, m: &Matcher, req: &Request) -> bool {
    match (m, req) {
        (Matcher::Read(g), Request::Read(p)) => g.is_match(p),
        // A Read deny also denies writes to the same paths.
        (Matcher::Read(g), Request::Write(p)) => effect == Effect::Deny && g.is_match(p),
        (Matcher::Write(g), Request::Write(p)) => g.is_match(p),
        (Matcher::Command(words), Request::Exec(argv)) => {
            argv.len() >= words.len() && argv[..words.len()] == words[..]
        }
        (Matcher::Tool(n), Request::Tool(t)) => n == t,
        (Matcher::ToolPrefix(p), Request::Tool(t)) => t.starts_with(p.as_str()),
        (Matcher::Host(h), Request::Fetch { host, .. }) => h == host,
        _ => false,
    }
}

impl Engine for Linear {
    fn name(&self) -> &'static str {
        "linear"
    }

    fn decide(&self, call: &BenchCall) -> Effect {
        let mut best: Option<Effect> = None;
        for (effect, m) in &self.rules {
            if matches(*effect, m, &call.request) {
                best = best.max(Some(*effect));
            }
        }
        best.unwrap_or(DEFAULT)
    }
}

//! The rule set, in a form of its own that each engine's writer translates.
//!
//! The shapes are those of the engine's own benchmark
//! (`crates/policy/benches/decide.rs`): path globs, command prefixes, tool
//! names and domains, with a mix of allow, ask and deny. Every tenth rule
//! starts a "decade" of ten in which some rules overlap on purpose (an ask
//! inside an allowed directory, a deny on a narrower command prefix than an
//! allow), so that deny > ask > allow is exercised, not only the first match.

use toolgate_policy::Effect;

/// What a path rule matches, beneath its directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Name {
    /// `dir/**`: everything beneath.
    Any,
    /// `dir/name`: one file.
    Literal(String),
    /// `dir/prefix*suffix`: a file name in `dir` itself (`*` stays within a
    /// path segment).
    Glob {
        /// Before the `*`.
        prefix: String,
        /// After the `*`.
        suffix: String,
    },
}

/// A path pattern relative to the workspace root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPattern {
    /// The directory, relative to the root, without a trailing `/`.
    pub dir: String,
    /// What beneath it.
    pub name: Name,
}

impl PathPattern {
    /// The pattern as a glob relative to the root (toolgate's spelling).
    pub fn relative_glob(&self) -> String {
        match &self.name {
            Name::Any => format!("{}/**", self.dir),
            Name::Literal(n) => format!("{}/{n}", self.dir),
            Name::Glob { prefix, suffix } => format!("{}/{prefix}*{suffix}", self.dir),
        }
    }

    /// The pattern as an absolute glob under `root` (the linear scan's and
    /// Rego's spelling): the same glob toolgate compiles the relative one to.
    pub fn absolute_glob(&self, root: &str) -> String {
        format!("{}/{}", globset::escape(root), self.relative_glob())
    }
}

/// What a rule matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Reads of matching paths (`Read(..)`); a deny also covers writes.
    Read(PathPattern),
    /// Writes to matching paths (`Edit(..)`).
    Write(PathPattern),
    /// Simple commands whose argv starts with these words, at a word
    /// boundary (`Bash(git diff *)`).
    Command(Vec<String>),
    /// A tool by its exact name (`mcp__srv__tool`).
    Tool(String),
    /// Tools whose name starts with this (`mcp__srv__*`).
    ToolPrefix(String),
    /// Fetches from exactly this host (`WebFetch(domain:host)`).
    Host(String),
}

/// One rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    /// allow, ask or deny.
    pub effect: Effect,
    /// What it matches.
    pub target: Target,
}

fn path(dir: String, name: Name) -> PathPattern {
    PathPattern { dir, name }
}

/// The `slot`-th rule (0..10) of decade `d`; [`generate`] lays decades end
/// to end, and the calls are built from the same numbering.
pub fn rule(d: usize, slot: usize) -> Rule {
    let odd = d % 2 == 1;
    let (effect, target) = match slot {
        0 => (
            Effect::Allow,
            Target::Write(path(format!("src/m{d}"), Name::Any)),
        ),
        1 => (
            Effect::Ask,
            Target::Write(path(format!("src/m{d}/gen"), Name::Any)),
        ),
        2 => (
            Effect::Allow,
            Target::Read(path(
                format!("data/d{d}"),
                Name::Glob {
                    prefix: String::new(),
                    suffix: ".csv".into(),
                },
            )),
        ),
        3 => (
            Effect::Deny,
            Target::Read(path(
                format!("data/d{d}"),
                Name::Glob {
                    prefix: "private".into(),
                    suffix: ".csv".into(),
                },
            )),
        ),
        // Odd and even decades alternate a tool-name glob with a literal
        // file name, so that the 10-rule policy has a tool glob too.
        4 if odd => (
            Effect::Deny,
            Target::Read(path(format!("keys/k{d}"), Name::Literal("id.pem".into()))),
        ),
        4 => (Effect::Deny, Target::ToolPrefix(format!("mcp__srv{d}__"))),
        5 => (
            Effect::Allow,
            Target::Command(vec![format!("tool{d}"), "sub".into()]),
        ),
        6 => (
            Effect::Deny,
            Target::Command(vec![format!("tool{d}"), "sub".into(), "--force".into()]),
        ),
        7 => (
            if odd { Effect::Ask } else { Effect::Allow },
            Target::Command(vec![format!("deploy{d}")]),
        ),
        8 => (
            if odd { Effect::Ask } else { Effect::Allow },
            Target::Tool(format!("mcp__s__t{d}")),
        ),
        9 => (
            if odd { Effect::Ask } else { Effect::Allow },
            Target::Host(format!("host{d}.example.com")),
        ),
        _ => unreachable!("a decade has ten slots"),
    };
    Rule { effect, target }
}

/// `n` rules (a multiple of ten): decade 0, then 1, ...
pub fn generate(n: usize) -> Vec<Rule> {
    assert!(n % 10 == 0 && n > 0, "rule counts are multiples of ten");
    (0..n / 10)
        .flat_map(|d| (0..10).map(move |s| rule(d, s)))
        .collect()
}

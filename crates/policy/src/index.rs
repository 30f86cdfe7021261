//! Rules compiled into indexed matchers, so that a decision looks only at
//! the rules that can match its action: one glob set per path kind and
//! effect, command patterns keyed by command name, URL rules keyed by host,
//! tool rules keyed by tool name.

use std::collections::HashMap;
use std::path::Path;

use globset::{Candidate, GlobMatcher, GlobSet, GlobSetBuilder};

use crate::effect::Effect;
use crate::file::Placed;
use crate::pattern::{self, Anchors, CommandPattern, UrlPattern};
use crate::rule::{Rule, Selector};

/// Index of a rule in `Policy::rules` (file order: lists, then `[[rule]]`s).
pub type RuleIdx = usize;

const EFFECTS: [Effect; 3] = [Effect::Allow, Effect::Ask, Effect::Deny];

fn slot(e: Effect) -> usize {
    match e {
        Effect::Allow => 0,
        Effect::Ask => 1,
        Effect::Deny => 2,
    }
}

/// Path rules of one kind and effect.
#[derive(Debug, Default)]
pub struct PathRules {
    /// Rules without a pattern: every path.
    pub all: Vec<(RuleIdx, usize)>,
    set: Option<GlobSet>,
    /// `(rule, selector index)` of each glob in `set`.
    owners: Vec<(RuleIdx, usize)>,
    builder_globs: Vec<globset::Glob>,
}

impl PathRules {
    fn add_glob(&mut self, glob: globset::Glob, owner: (RuleIdx, usize)) {
        self.builder_globs.push(glob);
        self.owners.push(owner);
    }

    fn finish(&mut self) -> Result<(), String> {
        let mut b = GlobSetBuilder::new();
        for g in self.builder_globs.drain(..) {
            b.add(g);
        }
        self.set = Some(b.build().map_err(|e| e.to_string())?);
        Ok(())
    }

    /// True when no rule could match anything.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty() && self.owners.is_empty()
    }

    /// Calls `hit` for every rule matching the candidate.
    pub fn each_match(
        &self,
        path: &Candidate<'_>,
        buf: &mut Vec<usize>,
        mut hit: impl FnMut(RuleIdx, usize),
    ) {
        for &(r, s) in &self.all {
            hit(r, s);
        }
        if let Some(set) = &self.set
            && !self.owners.is_empty()
        {
            set.matches_candidate_into(path, buf);
            for &i in buf.iter() {
                if let Some(&(r, s)) = self.owners.get(i) {
                    hit(r, s);
                }
            }
        }
    }
}

/// Command rules of one effect.
#[derive(Debug, Default)]
pub struct ExecRules {
    /// `Bash` with no pattern.
    pub all: Vec<(RuleIdx, usize)>,
    by_name: HashMap<String, Vec<(CommandPattern, RuleIdx, usize)>>,
    wild: Vec<(CommandPattern, RuleIdx, usize)>,
}

impl ExecRules {
    /// Calls `hit` for every rule matching the argv.
    pub fn each_match(
        &self,
        argv: &[String],
        canonical: &str,
        mut hit: impl FnMut(RuleIdx, usize),
    ) {
        for &(r, s) in &self.all {
            hit(r, s);
        }
        if let Some(name) = argv.first()
            && let Some(list) = self.by_name.get(name.as_str())
        {
            for (p, r, s) in list {
                if p.matches(argv, canonical) {
                    hit(*r, *s);
                }
            }
        }
        for (p, r, s) in &self.wild {
            if p.matches(argv, canonical) {
                hit(*r, *s);
            }
        }
    }

    /// True when no rule could match anything.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty() && self.by_name.is_empty() && self.wild.is_empty()
    }
}

/// Fetch rules of one effect.
#[derive(Debug, Default)]
pub struct FetchRules {
    /// `WebFetch` with no pattern.
    pub all: Vec<(RuleIdx, usize)>,
    hosts: HashMap<String, Vec<(RuleIdx, usize)>>,
    /// `domain:*.d` rules keyed by `d`: a host is looked up under each of
    /// its parent domains.
    subdomains: HashMap<String, Vec<(RuleIdx, usize)>>,
    wild: Vec<(UrlPattern, RuleIdx, usize)>,
}

impl FetchRules {
    /// Calls `hit` for every rule matching the URL.
    pub fn each_match(&self, url: &str, host: Option<&str>, mut hit: impl FnMut(RuleIdx, usize)) {
        for &(r, s) in &self.all {
            hit(r, s);
        }
        if let Some(h) = host {
            if let Some(list) = self.hosts.get(h) {
                for &(r, s) in list {
                    hit(r, s);
                }
            }
            if !self.subdomains.is_empty() {
                let mut rest = h;
                while let Some((_, parent)) = rest.split_once('.') {
                    if let Some(list) = self.subdomains.get(parent) {
                        for &(r, s) in list {
                            hit(r, s);
                        }
                    }
                    rest = parent;
                }
            }
        }
        for (p, r, s) in &self.wild {
            if p.matches(url, host) {
                hit(*r, *s);
            }
        }
    }
}

/// A `name(pattern)` specifier, compiled for every kind of tool it may meet.
#[derive(Debug)]
pub struct ToolPattern {
    /// As written.
    pub source: String,
    /// As a path pattern (read and write tools).
    pub path: Option<GlobMatcher>,
    /// As a command pattern (exec tools).
    pub command: Option<CommandPattern>,
    /// As a URL pattern (fetch tools).
    pub url: Option<UrlPattern>,
}

/// A tool-name rule.
#[derive(Debug)]
pub struct ToolRule {
    /// The rule.
    pub rule: RuleIdx,
    /// Which selector of the rule.
    pub sel: usize,
    /// The pattern over the tool's target, if any.
    pub pattern: Option<ToolPattern>,
}

/// Tool-name rules, all effects together: exact names in a map, name
/// globs (`mcp__db__*`) in one glob set.
#[derive(Debug, Default)]
pub struct ToolRules {
    exact: HashMap<String, Vec<ToolRule>>,
    globs: Vec<ToolRule>,
    glob_list: Vec<globset::Glob>,
    glob_set: Option<GlobSet>,
}

impl ToolRules {
    /// Every tool rule whose name matches.
    pub fn for_tool<'a>(&'a self, name: &str, out: &mut Vec<&'a ToolRule>) {
        if let Some(list) = self.exact.get(name) {
            out.extend(list.iter());
        }
        if let Some(set) = &self.glob_set
            && !self.globs.is_empty()
        {
            for i in set.matches(name) {
                if let Some(r) = self.globs.get(i) {
                    out.push(r);
                }
            }
        }
    }
}

/// All rules, compiled.
#[derive(Debug, Default)]
pub struct Index {
    /// Read rules by effect slot.
    pub read: [PathRules; 3],
    /// Write rules by effect slot (Read denies included).
    pub write: [PathRules; 3],
    /// Command rules by effect slot.
    pub exec: [ExecRules; 3],
    /// Fetch rules by effect slot.
    pub fetch: [FetchRules; 3],
    /// `*` rules.
    pub any: Vec<(RuleIdx, usize)>,
    /// Tool-name rules.
    pub tools: ToolRules,
}

impl Index {
    /// Read rules of one effect.
    pub fn read(&self, e: Effect) -> &PathRules {
        &self.read[slot(e)]
    }
    /// Write rules of one effect.
    pub fn write(&self, e: Effect) -> &PathRules {
        &self.write[slot(e)]
    }
    /// Command rules of one effect.
    pub fn exec(&self, e: Effect) -> &ExecRules {
        &self.exec[slot(e)]
    }
    /// Fetch rules of one effect.
    pub fn fetch(&self, e: Effect) -> &FetchRules {
        &self.fetch[slot(e)]
    }

    /// The effects, strictest first: the order a decision checks them in.
    pub fn strictest_first() -> [Effect; 3] {
        [EFFECTS[2], EFFECTS[1], EFFECTS[0]]
    }

    /// Compiles rules; an error carries the byte offset of the selector.
    pub fn build(
        rules: &[(Rule, Vec<Placed<Selector>>)],
        anchors: &Anchors,
    ) -> Result<Index, (usize, String)> {
        let mut ix = Index::default();
        for (ri, (rule, sels)) in rules.iter().enumerate() {
            let e = slot(rule.effect);
            for (si, placed) in sels.iter().enumerate() {
                let at = placed.offset;
                let owner = (ri, si);
                match &placed.value {
                    Selector::Any => ix.any.push(owner),
                    Selector::Read(p) | Selector::Write(p) => {
                        let is_read = matches!(placed.value, Selector::Read(_));
                        let glob = match p {
                            None => None,
                            Some(p) => {
                                let g = pattern::path_glob(p, anchors).map_err(|m| (at, m))?;
                                Some(
                                    pattern::path_glob_builder(&g)
                                        .map_err(|m| (at, format!("bad glob `{p}`: {m}")))?,
                                )
                            }
                        };
                        let mut targets: Vec<&mut PathRules> = Vec::new();
                        if is_read {
                            targets.push(&mut ix.read[e]);
                            // A Read deny also denies writes to the same paths.
                            if rule.effect == Effect::Deny {
                                targets.push(&mut ix.write[e]);
                            }
                        } else {
                            targets.push(&mut ix.write[e]);
                        }
                        for t in targets {
                            match &glob {
                                None => t.all.push(owner),
                                Some(g) => t.add_glob(g.clone(), owner),
                            }
                        }
                    }
                    Selector::Exec(p) => match p {
                        None => ix.exec[e].all.push(owner),
                        Some(p) => match p.first_word() {
                            Some(w) => ix.exec[e].by_name.entry(w.to_string()).or_default().push((
                                p.clone(),
                                ri,
                                si,
                            )),
                            None => ix.exec[e].wild.push((p.clone(), ri, si)),
                        },
                    },
                    Selector::Fetch(p) => match p {
                        None => ix.fetch[e].all.push(owner),
                        Some(UrlPattern::Host(h)) => {
                            ix.fetch[e].hosts.entry(h.clone()).or_default().push(owner)
                        }
                        Some(UrlPattern::Subdomains(d)) => ix.fetch[e]
                            .subdomains
                            .entry(d.clone())
                            .or_default()
                            .push(owner),
                        Some(w) => ix.fetch[e].wild.push((w.clone(), ri, si)),
                    },
                    Selector::Tool { name, pattern: p } => {
                        let pattern = match p {
                            None => None,
                            Some(p) => Some(tool_pattern(p, anchors).map_err(|m| (at, m))?),
                        };
                        let tr = ToolRule {
                            rule: ri,
                            sel: si,
                            pattern,
                        };
                        if name.contains(['*', '?']) {
                            let g = globset::GlobBuilder::new(name)
                                .literal_separator(false)
                                .build()
                                .map_err(|err| {
                                    (at, format!("bad tool name glob `{name}`: {}", err.kind()))
                                })?;
                            ix.tools.glob_list.push(g);
                            ix.tools.globs.push(tr);
                        } else {
                            ix.tools.exact.entry(name.clone()).or_default().push(tr);
                        }
                    }
                }
            }
        }
        for pr in ix.read.iter_mut().chain(ix.write.iter_mut()) {
            pr.finish().map_err(|m| (0, m))?;
        }
        let mut b = GlobSetBuilder::new();
        for g in ix.tools.glob_list.drain(..) {
            b.add(g);
        }
        ix.tools.glob_set = Some(b.build().map_err(|e| (0, e.to_string()))?);
        Ok(ix)
    }
}

fn tool_pattern(p: &str, anchors: &Anchors) -> Result<ToolPattern, String> {
    let path = pattern::path_glob(p, anchors)
        .ok()
        .and_then(|g| pattern::path_glob_builder(&g).ok())
        .map(|g| g.compile_matcher());
    let command = CommandPattern::compile(p).ok();
    let url = UrlPattern::compile(p).ok();
    if path.is_none() && command.is_none() && url.is_none() {
        return Err(format!("malformed tool pattern `{p}`"));
    }
    Ok(ToolPattern {
        source: p.to_string(),
        path,
        command,
        url,
    })
}

/// Protected paths (DESIGN §5): writes there always ask.
#[derive(Debug)]
pub struct Protected {
    set: GlobSet,
    labels: Vec<String>,
}

/// The built-in protected paths, as path patterns at any depth.
pub const BUILTIN_PROTECTED: &[&str] = &[
    "**/.git/**",
    "**/.git",
    "**/.claude/**",
    "**/.gemini/**",
    "**/.codex/**",
    "**/.vscode/**",
    "**/.idea/**",
    "**/.husky/**",
    "**/.cargo/config*",
    "**/.gitconfig",
    "**/.gitmodules",
    "**/.bashrc",
    "**/.bash_profile",
    "**/.bash_login",
    "**/.bash_logout",
    "**/.profile",
    "**/.zshrc",
    "**/.zshenv",
    "**/.zprofile",
    "**/.zlogin",
    "**/.zlogout",
    "**/.kshrc",
    "**/.cshrc",
    "**/.tcshrc",
    "**/.config/fish/**",
    "**/.inputrc",
    "**/.envrc",
    "**/.npmrc",
    "**/.mcp.json",
    "**/.pre-commit-config.yaml",
];

impl Protected {
    /// Compiles the built-in list plus the policy's `protected` patterns.
    pub fn build(
        extra: &[Placed<String>],
        anchors: &Anchors,
    ) -> Result<Protected, (usize, String)> {
        let mut b = GlobSetBuilder::new();
        let mut labels = Vec::new();
        for p in BUILTIN_PROTECTED {
            let g = pattern::path_glob_builder(p).map_err(|m| (0, m))?;
            b.add(g);
            labels.push(p.trim_start_matches("**/").to_string());
        }
        for p in extra {
            let g = pattern::path_glob(&p.value, anchors).map_err(|m| (p.offset, m))?;
            b.add(pattern::path_glob_builder(&g).map_err(|m| (p.offset, m))?);
            labels.push(p.value.clone());
        }
        Ok(Protected {
            set: b.build().map_err(|e| (0, e.to_string()))?,
            labels,
        })
    }

    /// The protected pattern a path falls under, if any.
    pub fn find(&self, path: &Path) -> Option<&str> {
        self.set
            .matches(path)
            .first()
            .and_then(|&i| self.labels.get(i))
            .map(String::as_str)
    }
}

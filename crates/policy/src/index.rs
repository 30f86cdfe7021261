//! Rules compiled into indexed matchers, so that a decision looks only at
//! the rules that can match its action: one glob set per path kind and
//! effect, command patterns keyed by command name, URL rules keyed by host,
//! tool rules keyed by tool name.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use globset::{Candidate, GlobMatcher, GlobSet, GlobSetBuilder};

use crate::effect::Effect;
use crate::file::Placed;
use crate::pattern::{self, Anchors, CommandPattern};
use crate::rule::{Rule, Selector};
use crate::urls::{Cidr, FetchTarget, UrlHost, UrlPattern};

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
///
/// Globs are grouped by their literal leading directory (`/ws/src/m1` for
/// `/ws/src/m1/**`): a path can only match a glob whose directory it lies
/// in, so a decision looks up the path's own ancestors (a handful of hash
/// probes) and runs only the globs found there, instead of every glob of
/// the policy. One `GlobSet` over all globs costs time in proportion to the
/// number of rules for the common `dir/*.ext` shape (globset tries each such
/// regex in turn); with 10,000 rules a read took hundreds of microseconds.
/// Globs with no literal directory (`**/.env`) stay in one set beside them.
#[derive(Debug, Default)]
pub struct PathRules {
    /// Rules without a pattern: every path.
    pub all: Vec<(RuleIdx, usize)>,
    /// Globs keyed by their literal leading directory, as bytes.
    by_dir: HashMap<Vec<u8>, GlobGroup>,
    /// Globs with no literal leading directory.
    rest: GlobGroup,
    /// How many globs there are in all.
    globs: usize,
    builder_globs: Vec<(globset::Glob, (RuleIdx, usize))>,
    /// Ask or deny rules: a glob set that cannot be compiled matches
    /// everything (see [`GlobGroup`]).
    strict: bool,
}

/// Some globs compiled together, with the `(rule, selector index)` of each.
///
/// Compiled on first use, not when the policy loads: a hook is one process
/// per tool call, most calls look at few of the groups, and compiling a
/// glob set (regexes, literal searchers) is the larger part of loading a
/// policy. The globs were parsed at load, so a malformed one is still a
/// load error; a set that fails to compile all the same (a regex over
/// its size limit) fails closed: a group of ask or deny rules then matches
/// every path, a group of allow rules none.
#[derive(Debug, Default)]
struct GlobGroup {
    set: OnceLock<Option<GlobSet>>,
    owners: Vec<(RuleIdx, usize)>,
    globs: Vec<globset::Glob>,
}

impl GlobGroup {
    fn set(&self) -> Option<&GlobSet> {
        self.set.get_or_init(|| compile_set(&self.globs)).as_ref()
    }

    fn each_match(
        &self,
        path: &Candidate<'_>,
        buf: &mut Vec<usize>,
        strict: bool,
        hit: &mut impl FnMut(RuleIdx, usize),
    ) {
        if self.owners.is_empty() {
            return;
        }
        match self.set() {
            Some(set) => {
                set.matches_candidate_into(path, buf);
                for &i in buf.iter() {
                    if let Some(&(r, s)) = self.owners.get(i) {
                        hit(r, s);
                    }
                }
            }
            None if strict => {
                for &(r, s) in &self.owners {
                    hit(r, s);
                }
            }
            None => {}
        }
    }
}

/// Globs compiled into one set; `None` when they cannot be (the callers
/// fail closed).
fn compile_set<'a>(globs: impl IntoIterator<Item = &'a globset::Glob>) -> Option<GlobSet> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        b.add(g.clone());
    }
    b.build().ok()
}

/// The literal directory a glob starts with: its text up to the last `/`
/// before the first character that is not a literal (`*?[{\`), or `None`
/// when there is no `/` before it. A path the glob matches starts with that
/// directory followed by `/`.
pub(crate) fn literal_dir(glob: &str) -> Option<&str> {
    let meta = glob.find(['*', '?', '[', '{', '\\']).unwrap_or(glob.len());
    let slash = glob[..meta].rfind('/')?;
    Some(&glob[..slash])
}

impl PathRules {
    fn add_glob(&mut self, glob: globset::Glob, owner: (RuleIdx, usize)) {
        self.builder_globs.push((glob, owner));
        self.globs += 1;
    }

    fn finish(&mut self, strict: bool) {
        self.strict = strict;
        for (g, owner) in self.builder_globs.drain(..) {
            let group = match literal_dir(g.glob()) {
                Some(dir) => self.by_dir.entry(dir.as_bytes().to_vec()).or_default(),
                None => &mut self.rest,
            };
            group.globs.push(g);
            group.owners.push(owner);
        }
    }

    /// True when no rule could match anything.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty() && self.globs == 0
    }

    /// Calls `hit` for every rule matching the path; `cand` is
    /// `Candidate::new(path)`, built once by the caller for all effects.
    pub fn each_match(
        &self,
        path: &Path,
        cand: &Candidate<'_>,
        buf: &mut Vec<usize>,
        mut hit: impl FnMut(RuleIdx, usize),
    ) {
        for &(r, s) in &self.all {
            hit(r, s);
        }
        self.rest.each_match(cand, buf, self.strict, &mut hit);
        if self.by_dir.is_empty() {
            return;
        }
        // Every prefix of the path that ends before a `/`, and the whole
        // path: the directories a matching glob may be keyed by.
        let bytes = path.as_os_str().as_encoded_bytes();
        let ends = bytes
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'/')
            .map(|(i, _)| i)
            .chain(std::iter::once(bytes.len()));
        for end in ends {
            if let Some(group) = self.by_dir.get(&bytes[..end]) {
                group.each_match(cand, buf, self.strict, &mut hit);
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
    hosts: HashMap<UrlHost, Vec<(RuleIdx, usize)>>,
    /// `domain:*.d` rules keyed by `d`: a host is looked up under each of
    /// its parent domains.
    subdomains: HashMap<String, Vec<(RuleIdx, usize)>>,
    /// `ip:` address blocks, tried in turn (policies hold few).
    addrs: Vec<(Cidr, RuleIdx, usize)>,
    wild: Vec<(UrlPattern, RuleIdx, usize)>,
}

impl FetchRules {
    /// True when no rule could match anything.
    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
            && self.hosts.is_empty()
            && self.subdomains.is_empty()
            && self.addrs.is_empty()
            && self.wild.is_empty()
    }

    /// Calls `hit` for every rule matching the fetch: `t` normalised,
    /// `written` as written (URL globs of deny and ask rules also meet it;
    /// `None` for allow rules).
    pub fn each_match(
        &self,
        t: &FetchTarget,
        written: Option<&str>,
        mut hit: impl FnMut(RuleIdx, usize),
    ) {
        for &(r, s) in &self.all {
            hit(r, s);
        }
        for h in &t.hosts {
            if let Some(list) = self.hosts.get(h) {
                for &(r, s) in list {
                    hit(r, s);
                }
            }
            match h {
                UrlHost::Domain(d) if !self.subdomains.is_empty() => {
                    let mut rest = d.as_str();
                    while let Some((_, parent)) = rest.split_once('.') {
                        if let Some(list) = self.subdomains.get(parent) {
                            for &(r, s) in list {
                                hit(r, s);
                            }
                        }
                        rest = parent;
                    }
                }
                UrlHost::Ip(ip) => {
                    for (c, r, s) in &self.addrs {
                        if c.contains(*ip) {
                            hit(*r, *s);
                        }
                    }
                }
                UrlHost::Domain(_) => {}
            }
        }
        for (p, r, s) in &self.wild {
            if p.matches(t, written) {
                hit(*r, *s);
            }
        }
    }

    /// Calls `hit` for every rule matching a URL that cannot be parsed, as
    /// written: `WebFetch` alone, and URL globs.
    pub fn each_match_unparsed(&self, written: &str, mut hit: impl FnMut(RuleIdx, usize)) {
        for &(r, s) in &self.all {
            hit(r, s);
        }
        for (p, r, s) in &self.wild {
            if p.matches_unparsed(written) {
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
    /// Rule ids, so that a decision finds the rule behind an id (for
    /// `remember` and session grants) without a scan of every rule.
    ids: HashMap<String, RuleIdx>,
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

    /// The rule with this id (ids are unique).
    pub fn rule_by_id(&self, id: &str) -> Option<RuleIdx> {
        self.ids.get(id).copied()
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
            ix.ids.entry(rule.id.clone()).or_insert(ri);
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
                                let g = pattern::path_glob(p, anchors)
                                    .map_err(|m| (at, m.to_string()))?;
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
                        Some(UrlPattern::Addr(c)) => ix.fetch[e].addrs.push((*c, ri, si)),
                        Some(w) => ix.fetch[e].wild.push((w.clone(), ri, si)),
                    },
                    Selector::Tool { name, pattern: p } => {
                        let pattern = match p {
                            None => None,
                            Some(p) => {
                                Some(tool_pattern(p, anchors).map_err(|m| (at, m.to_string()))?)
                            }
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
        for e in EFFECTS {
            let strict = e != Effect::Allow;
            ix.read[slot(e)].finish(strict);
            ix.write[slot(e)].finish(strict);
        }
        // Most policies name tools exactly: no set to build then.
        if !ix.tools.glob_list.is_empty() {
            let mut b = GlobSetBuilder::new();
            for g in ix.tools.glob_list.drain(..) {
                b.add(g);
            }
            ix.tools.glob_set = Some(b.build().map_err(|e| (0, e.to_string()))?);
        }
        Ok(ix)
    }
}

/// A tool specifier that reads as none of a path, a command or a URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed tool pattern `{0}`")]
struct MalformedToolPattern(String);

fn tool_pattern(p: &str, anchors: &Anchors) -> Result<ToolPattern, MalformedToolPattern> {
    let path = pattern::path_glob(p, anchors)
        .ok()
        .and_then(|g| pattern::path_glob_builder(&g).ok())
        .map(|g| g.compile_matcher());
    let command = CommandPattern::compile(p).ok();
    let url = UrlPattern::compile(p).ok();
    if path.is_none() && command.is_none() && url.is_none() {
        return Err(MalformedToolPattern(p.to_string()));
    }
    Ok(ToolPattern {
        source: p.to_string(),
        path,
        command,
        url,
    })
}

/// Protected paths (docs/policy.md, "Protected paths"): writes there always ask.
///
/// Compiled on first use, like a [`GlobGroup`]: only writes look here.
#[derive(Debug)]
pub struct Protected {
    globs: Vec<globset::Glob>,
    set: OnceLock<Option<GlobSet>>,
    labels: Vec<String>,
}

/// What [`Protected::find`] names when the patterns cannot be compiled:
/// every path is then protected.
const PROTECTED_UNCOMPILED: &str = "the protected paths (their patterns could not be compiled)";

/// The built-in protected paths, as path patterns at any depth.
pub const BUILTIN_PROTECTED: &[&str] = &[
    "**/.git/**",
    "**/.git",
    "**/.claude/**",
    "**/.gemini/**",
    "**/.codex/**",
    // Where the other clients keep their hooks, plugins and extensions
    // (`toolgate install` writes toolgate's there): rewriting one switches
    // the gate off for that client.
    "**/.qwen/**",
    "**/.github/hooks/**",
    "**/.pi/**",
    "**/.opencode/**",
    "**/opencode.json",
    "**/opencode.jsonc",
    "**/.grok/**",
    "**/.cursor/**",
    "**/.vscode/**",
    "**/.idea/**",
    "**/.husky/**",
    "**/.cargo/config*",
    // rustup runs the toolchain these name, a directory's own with `path`.
    "**/rust-toolchain.toml",
    "**/rust-toolchain",
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
    // What git hook managers run on a commit, from files of the work tree:
    // lefthook's commands and scripts, overcommit's, lint-staged's and
    // commitlint's (whose JavaScript configuration is code).
    "**/lefthook.yml",
    "**/lefthook.yaml",
    "**/.lefthook.yml",
    "**/.lefthook.yaml",
    "**/lefthook-local.yml",
    "**/lefthook-local.yaml",
    "**/.lefthook-local.yml",
    "**/.lefthook-local.yaml",
    "**/.lefthook/**",
    "**/.overcommit.yml",
    "**/.lintstagedrc*",
    "**/lint-staged.config.*",
    "**/.commitlintrc*",
    "**/commitlint.config.*",
];

impl Protected {
    /// The policy's `protected` patterns, parsed (so that a malformed one
    /// is a load error); the built-in list is parsed on first use with
    /// the rest.
    pub fn build(
        extra: &[Placed<String>],
        anchors: &Anchors,
    ) -> Result<Protected, (usize, String)> {
        let mut globs = Vec::new();
        let mut labels = Vec::new();
        for p in extra {
            let g = pattern::path_glob(&p.value, anchors).map_err(|m| (p.offset, m.to_string()))?;
            globs.push(pattern::path_glob_builder(&g).map_err(|m| (p.offset, m.to_string()))?);
            labels.push(p.value.clone());
        }
        Ok(Protected {
            globs,
            set: OnceLock::new(),
            labels,
        })
    }

    /// The built-in globs, then the policy's, compiled together; `None`
    /// when they cannot be.
    fn compile(&self) -> Option<GlobSet> {
        let builtin = BUILTIN_PROTECTED
            .iter()
            .map(|p| pattern::path_glob_builder(p).ok())
            .collect::<Option<Vec<_>>>()?;
        compile_set(builtin.iter().chain(&self.globs))
    }

    /// The label of the `i`th glob of the compiled set.
    fn label(&self, i: usize) -> Option<&str> {
        match BUILTIN_PROTECTED.get(i) {
            Some(p) => Some(p.trim_start_matches("**/")),
            None => self
                .labels
                .get(i - BUILTIN_PROTECTED.len())
                .map(String::as_str),
        }
    }

    /// The protected pattern a path falls under, if any.
    pub fn find(&self, path: &Path) -> Option<&str> {
        let Some(set) = self.set.get_or_init(|| self.compile()) else {
            return Some(PROTECTED_UNCOMPILED);
        };
        set.matches(path).first().and_then(|&i| self.label(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Grouping globs by directory finds exactly what one set of all the
    /// globs finds.
    #[test]
    fn grouped_globs_match_like_one_set() {
        let globs = [
            "/a/b/**",
            "/a/b",
            "/a/*/c",
            "/a/b/*.rs",
            "/a/b/c/x*.rs",
            "**/.env",
            "/a/{b,c}/d",
            "/a/[bc]/d",
            "/a\\*b/c",
            "/a?/c",
            "/*",
            "/",
            "/a/b/c/d/e",
            "*.pem",
        ];
        let paths = [
            "/",
            "/a",
            "/a/b",
            "/a/b/c",
            "/a/bc",
            "/a/b/c/d",
            "/a/b/c/d/e",
            "/a/b/x.rs",
            "/a/b/c/x1.rs",
            "/a/c/d",
            "/a/d/c",
            "/a*b/c",
            "/ab/c",
            "/x/.env",
            "/.env",
            "/a//b/c",
            "/k.pem",
            "/a/b/k.pem",
        ];
        let mut rules = PathRules::default();
        let mut all = GlobSetBuilder::new();
        for (i, g) in globs.iter().enumerate() {
            let glob = pattern::path_glob_builder(g).unwrap();
            all.add(glob.clone());
            rules.add_glob(glob, (i, 0));
        }
        rules.finish(false);
        let all = all.build().unwrap();
        let mut buf = Vec::new();
        for p in paths {
            let path = Path::new(p);
            let cand = Candidate::new(path);
            let mut got = Vec::new();
            rules.each_match(path, &cand, &mut buf, |r, _| got.push(r));
            got.sort_unstable();
            let want = all.matches_candidate(&cand);
            assert_eq!(got, want, "{p}");
        }
    }

    /// The built-in protected globs, parsed only on first use, compile.
    #[test]
    fn the_builtin_protected_globs_compile() {
        let anchors = Anchors {
            home: None,
            policy_dir: "/ws".into(),
            root: "/ws".into(),
        };
        let p = Protected::build(&[], &anchors).unwrap();
        assert!(p.compile().is_some());
        assert_eq!(p.find(Path::new("/ws/.git/config")), Some(".git/**"));
        assert_eq!(p.find(Path::new("/ws/src/main.rs")), None);
    }

    /// A glob set that cannot be compiled fails closed: a group of ask or
    /// deny rules matches every path, a group of allow rules none.
    #[test]
    fn an_uncompiled_group_fails_closed() {
        let group = GlobGroup {
            set: OnceLock::from(None),
            owners: vec![(3, 0), (5, 1)],
            globs: Vec::new(),
        };
        let path = Candidate::new("/anything");
        let mut buf = Vec::new();
        let mut strict = Vec::new();
        group.each_match(&path, &mut buf, true, &mut |r, s| strict.push((r, s)));
        assert_eq!(strict, vec![(3, 0), (5, 1)]);
        let mut loose = Vec::new();
        group.each_match(&path, &mut buf, false, &mut |r, s| loose.push((r, s)));
        assert!(loose.is_empty());

        let protected = Protected {
            globs: Vec::new(),
            set: OnceLock::from(None),
            labels: Vec::new(),
        };
        assert_eq!(
            protected.find(Path::new("/ws/src/main.rs")),
            Some(PROTECTED_UNCOMPILED)
        );
    }
}

//! The walk over the syntax tree: every simple command, where it runs, what
//! it touches, and the shapes that span commands (pipelines into shells,
//! functions that fork themselves).
//!
//! INVARIANT: every recursion (subshells, substitutions, nested scripts,
//! function bodies, commands run by other commands) goes through
//! [`Walker::deeper`], which stops at `Options::max_depth`.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::effects::{self, Derived, Nested};
use crate::hazards;
use crate::parse;
use crate::syntax::{AndOrOp, List, Node, Part, RedirTarget, Redirect, Simple, SubKind, Word};
use crate::tables::{self, Access};
use crate::words::{self, Arg, Vars};
use crate::wrappers::{self, Script, Step};
use crate::{Analysis, Command, Effect, EffectKind, Hazard, Options, Origin, Unknown};

/// Most glob matches followed for one word.
const GLOB_LIMIT: usize = 10_000;

/// Most words that brace and glob expansion may add in one analysis, so
/// that expansion stays proportional to the input.
const EXPANSION_BUDGET: usize = 50_000;

/// Most directory entries (and `stat`s) glob expansion may look at in one
/// analysis, all words together. Without it, one word of 1,024 brace
/// alternatives each holding `/*/*/..` read the directory tree 1,024 times
/// over (a fuzzed 175-byte command took 14 s); past it, globs are not
/// expanded and the analysis reports an unknown.
const GLOB_ENTRY_BUDGET: usize = 100_000;

/// Longest working directory followed (Linux's `PATH_MAX`); a longer one is
/// unknown, which also keeps a script of many `cd`s linear.
const MAX_CWD_LEN: usize = 4096;

/// The directory commands run in.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Cwd {
    /// Where the script started (`Options::cwd`).
    Start,
    /// Changed by `cd`: absolute when `Options::cwd` is set.
    At(PathBuf),
    /// Changed to a place that cannot be known.
    Unknown,
}

/// Where a command's standard input comes from.
#[derive(Debug, Clone)]
enum Stdin {
    /// The script's own standard input.
    Inherit,
    /// The previous stage of a pipeline: its output when that is a literal
    /// (`echo 'ls' | sh`), and whether a network fetch feeds it.
    Pipe { text: Option<String>, fetched: bool },
}

#[derive(Debug, Clone)]
struct Scope {
    cwd: Cwd,
    oldpwd: Option<Cwd>,
    dir_stack: Vec<Cwd>,
    wrappers: Vec<Vec<String>>,
    depth: usize,
    stdin: Stdin,
    /// Inside a multi-stage pipeline or a background job.
    concurrent: bool,
    /// Variables the script assigned, as far as they are sure here.
    vars: Rc<Vars>,
}

pub(crate) struct Walker<'o> {
    opts: &'o Options,
    pub out: Analysis,
    /// Functions defined so far, and whether calling one changes directory.
    functions: HashMap<String, bool>,
    /// Functions whose bodies are being walked (to find self-calls).
    defining: Vec<String>,
    /// Files written by a network fetch earlier in the script.
    fetched_files: HashSet<String>,
    /// Unknowns and hazards already reported, to report each once.
    seen: HashSet<(String, Option<usize>)>,
    /// Words added by expansion so far, against [`EXPANSION_BUDGET`].
    expanded: usize,
    /// Directory entries glob expansion may still look at, out of
    /// [`GLOB_ENTRY_BUDGET`].
    glob_entries: Cell<usize>,
    /// The script file of the shell about to be emitted (`bash x.sh`).
    script_file: Option<Arg>,
    too_deep: bool,
    /// Globs starting with a wildcard, by command index.
    wild_globs: Vec<(usize, String)>,
    /// Variables made read-only (`readonly X`): a later assignment fails,
    /// so their value is no longer followed.
    frozen: HashSet<String>,
}

impl<'o> Walker<'o> {
    pub fn new(opts: &'o Options) -> Self {
        Walker {
            opts,
            out: Analysis::default(),
            functions: HashMap::new(),
            defining: Vec::new(),
            fetched_files: HashSet::new(),
            seen: HashSet::new(),
            expanded: 0,
            glob_entries: Cell::new(GLOB_ENTRY_BUDGET),
            script_file: None,
            too_deep: false,
            wild_globs: Vec::new(),
            frozen: HashSet::new(),
        }
    }

    /// Analyses a whole script at the top level.
    pub fn run(&mut self, script: &str) {
        let mut scope = Scope {
            cwd: Cwd::Start,
            oldpwd: None,
            dir_stack: Vec::new(),
            wrappers: Vec::new(),
            depth: 0,
            stdin: Stdin::Inherit,
            concurrent: false,
            vars: Rc::default(),
        };
        self.script(script, &mut scope, None);
        let globs = std::mem::take(&mut self.wild_globs);
        for (idx, pattern) in globs {
            let writes = self
                .out
                .effects
                .iter()
                .any(|e| e.kind == EffectKind::Write && e.command != Some(idx));
            if writes {
                self.unknown(
                    format!(
                        "glob `{pattern}` is expanded when it runs, after this script writes files, and may then name an option"
                    ),
                    Some(idx),
                );
            }
        }
    }

    fn unknown(&mut self, reason: String, command: Option<usize>) {
        if self.seen.insert((reason.clone(), command)) {
            self.out.unknowns.push(Unknown { reason, command });
        }
    }

    fn hazard(&mut self, kind: &'static str, reason: String, command: Option<usize>) {
        // One hazard of a kind per command, and one per reason.
        let by_reason = (format!("hazard {kind} {reason}"), None);
        let by_command = (format!("hazard {kind}"), command);
        if self.seen.contains(&by_reason) || (command.is_some() && self.seen.contains(&by_command))
        {
            return;
        }
        self.seen.insert(by_reason);
        self.seen.insert(by_command);
        self.out.hazards.push(Hazard {
            kind,
            reason,
            command,
        });
    }

    /// One level deeper; false (and an `Unknown`, once) past `max_depth`.
    fn deeper(&mut self, scope: &Scope) -> Option<Scope> {
        if scope.depth >= self.opts.max_depth {
            if !self.too_deep {
                self.too_deep = true;
                self.unknown(
                    format!("nesting deeper than {} levels", self.opts.max_depth),
                    None,
                );
            }
            return None;
        }
        let mut inner = scope.clone();
        inner.depth += 1;
        Some(inner)
    }

    fn script(&mut self, text: &str, scope: &mut Scope, command: Option<usize>) {
        let parsed = parse::parse(text, scope.depth, self.opts.max_depth);
        for e in parsed.errors {
            if e.starts_with("nesting deeper") {
                if self.too_deep {
                    continue;
                }
                self.too_deep = true;
            }
            self.unknown(e, command);
        }
        self.list(&parsed.list, scope);
    }

    fn list(&mut self, list: &List, scope: &mut Scope) {
        for item in &list.items {
            if item.background {
                let mut bg = scope.clone();
                bg.concurrent = true;
                self.node(&item.node, &mut bg);
            } else {
                self.node(&item.node, scope);
            }
        }
    }

    fn node(&mut self, node: &Node, scope: &mut Scope) {
        match node {
            Node::Simple(s) => self.simple(s, scope),
            Node::Pipeline(stages) => self.pipeline(stages, scope),
            Node::AndOr(first, rest) => {
                let start = scope.cwd.clone();
                self.node(first, scope);
                // What the later parts assign may not have run.
                let after_first = Rc::clone(&scope.vars);
                for (op, next) in rest {
                    match op {
                        AndOrOp::And => self.node(next, scope),
                        AndOrOp::Or => {
                            let mut alt = scope.clone();
                            if alt.cwd != start {
                                // The right side runs when the left failed,
                                // perhaps before its `cd` happened.
                                alt.cwd = start.clone();
                            }
                            self.node(next, &mut alt);
                            if !is_exit(next) && alt.cwd != scope.cwd {
                                self.cwd_unknown(
                                    scope,
                                    "the directory depends on which side of `||` ran",
                                );
                            }
                            let before = Rc::clone(&scope.vars);
                            forget_changed(&mut scope.vars, &before, &alt.vars);
                        }
                    }
                }
                let after = Rc::clone(&scope.vars);
                forget_changed(&mut scope.vars, &after_first, &after);
            }
            Node::Subshell(list) => {
                if let Some(mut inner) = self.deeper(scope) {
                    self.list(list, &mut inner);
                }
            }
            Node::Compound {
                words,
                bodies,
                plain,
                looped,
                binds,
            } => {
                for w in words {
                    self.subs(w, scope);
                }
                let Some(mut inner) = self.deeper(scope) else {
                    return;
                };
                let before = scope.cwd.clone();
                if *plain {
                    for body in bodies {
                        self.list(body, &mut inner);
                    }
                    scope.vars = Rc::clone(&inner.vars);
                } else {
                    // Each body may or may not run (a loop's many times):
                    // it starts from what is sure before it, and what any
                    // body assigns is unsure after the command.
                    let mut entry = Rc::clone(&scope.vars);
                    if *looped || binds.is_none() {
                        forget_all(&mut entry);
                    }
                    for name in binds.iter().flatten() {
                        Rc::make_mut(&mut entry).insert(name.clone(), None);
                    }
                    let mut changed = Vars::default();
                    for body in bodies {
                        inner.vars = Rc::clone(&entry);
                        self.list(body, &mut inner);
                        for (k, v) in inner.vars.iter() {
                            if entry.get(k) != Some(v) {
                                changed.insert(k.clone(), None);
                            }
                        }
                    }
                    for name in binds.iter().flatten() {
                        changed.insert(name.clone(), None);
                    }
                    if binds.is_none() {
                        forget_all(&mut scope.vars);
                    }
                    if !changed.is_empty() {
                        Rc::make_mut(&mut scope.vars).extend(changed);
                    }
                }
                if inner.cwd != before {
                    if *plain {
                        scope.cwd = inner.cwd;
                        scope.oldpwd = inner.oldpwd;
                        scope.dir_stack = inner.dir_stack;
                    } else {
                        self.cwd_unknown(scope, "`cd` inside a conditional or loop");
                    }
                }
            }
            Node::Function { name, body } => {
                let Some(mut inner) = self.deeper(scope) else {
                    return;
                };
                inner.stdin = Stdin::Inherit;
                inner.concurrent = false;
                // The body runs when called, with whatever is assigned then.
                forget_all(&mut inner.vars);
                self.defining.push(name.clone());
                let before = inner.cwd.clone();
                self.node(body, &mut inner);
                self.defining.pop();
                let changes_cwd = inner.cwd != before;
                self.functions.insert(name.clone(), changes_cwd);
            }
            Node::Redirected(inner, redirects) => {
                let start = self.out.commands.len();
                self.node(inner, scope);
                for r in redirects {
                    self.redirect(r, scope, None);
                }
                // Input redirected into a loop or group that runs a shell
                // is a script it reads.
                let _ = start;
            }
            Node::Arith(words) => {
                for w in words {
                    self.subs(w, scope);
                }
                // `(( X = 1 ))`, `[[ .. ]]` with assignments in arithmetic.
                forget_all(&mut scope.vars);
            }
        }
    }

    fn cwd_unknown(&mut self, scope: &mut Scope, why: &str) {
        scope.cwd = Cwd::Unknown;
        self.unknown(format!("working directory unknown: {why}"), None);
    }

    fn pipeline(&mut self, stages: &[Node], scope: &mut Scope) {
        let multi = stages.len() > 1;
        let mut fetched = matches!(scope.stdin, Stdin::Pipe { fetched: true, .. });
        let mut upstream: Option<Option<String>> = None;
        for stage in stages {
            let mut s = scope.clone();
            s.concurrent |= multi;
            if let Some(text) = upstream.take() {
                s.stdin = Stdin::Pipe { text, fetched };
            }
            let start = self.out.commands.len();
            let output = literal_output(stage);
            self.node(stage, &mut s);
            if self.out.commands[start..].iter().any(is_fetcher) {
                fetched = true;
            }
            upstream = Some(output);
            if !multi {
                // A single stage runs in this shell: `cd` applies.
                *scope = Scope {
                    stdin: scope.stdin.clone(),
                    concurrent: scope.concurrent,
                    ..s
                };
            }
        }
    }

    /// Walks the substitutions inside a word (they run in subshells).
    fn subs(&mut self, word: &Word, scope: &Scope) {
        for sub in &word.subs {
            let Some(mut inner) = self.deeper(scope) else {
                return;
            };
            inner.stdin = Stdin::Inherit;
            inner.concurrent = sub.kind != SubKind::Command;
            self.list(&sub.list, &mut inner);
            for r in &sub.redirects {
                self.redirect(r, scope, None);
            }
        }
    }

    /// The directory a command of `scope` runs in, when known. Borrowed
    /// from the options or the scope (not from the walker), so that the
    /// walker stays free to record what it finds.
    fn work_dir<'a>(opts: &'a Options, scope: &'a Scope) -> Option<Cow<'a, Path>> {
        match &scope.cwd {
            Cwd::Start => opts.cwd.as_deref().map(Cow::Borrowed),
            Cwd::At(p) if p.is_absolute() => Some(Cow::Borrowed(p)),
            Cwd::At(p) => opts.cwd.as_ref().map(|c| Cow::Owned(c.join(p))),
            Cwd::Unknown => None,
        }
    }

    /// Expands a word onto `out`, within the expansion budget.
    fn expand(&mut self, word: &Word, dir: Option<&Path>, vars: &Vars, out: &mut Vec<Arg>) {
        let remaining = EXPANSION_BUDGET.saturating_sub(self.expanded);
        let env = words::Env {
            home: self.opts.home.as_deref(),
            vars,
            glob_dir: dir.filter(|_| remaining > 0),
            glob_limit: GLOB_LIMIT.min(remaining),
            glob_entries: &self.glob_entries,
        };
        let start = out.len();
        if let Some(note) = words::expand(word, &env, out) {
            self.unknown(note, None);
        }
        let added = out.len() - start;
        if added > 1 {
            self.expanded += added;
            if self.expanded > EXPANSION_BUDGET {
                self.unknown(
                    format!("expansion of `{}` adds too many words", word.text),
                    None,
                );
                out.truncate(start);
                out.push(Arg::dynamic(word.text.clone()));
            }
        }
        // A process substitution is a pipe, not a file of the tree.
        if word.parts.len() == 1
            && matches!(word.parts.first(), Some(Part::Dynamic))
            && word.subs.len() == 1
            && word.subs.iter().all(|s| s.kind != SubKind::Command)
        {
            for a in &mut out[start..] {
                a.pattern = Some(String::from("<process substitution>"));
            }
        }
    }

    fn simple(&mut self, s: &Simple, scope: &mut Scope) {
        let start = self.out.commands.len();
        for a in &s.assigns {
            for v in &a.value {
                self.subs(v, scope);
            }
            if tables::changes_what_runs(&a.name) {
                self.unknown(
                    format!("assignment to `{}` changes what later commands run", a.name),
                    None,
                );
            }
        }
        let dir = Self::work_dir(self.opts, scope);
        let mut args = Vec::new();
        for w in &s.words {
            self.subs(w, scope);
            self.expand(w, dir.as_deref(), &scope.vars, &mut args);
        }
        for r in &s.redirects {
            self.redirect_subs(r, scope);
        }
        self.assignments(s, &args, scope);
        let sub_fetched = self.out.commands[start..].iter().any(is_fetcher);
        if args.is_empty() {
            for r in &s.redirects {
                self.redirect(r, scope, None);
            }
            return;
        }
        self.run_argv(args, Vec::new(), s, scope, sub_fetched, None);
    }

    /// Strips wrappers from `argv` and analyses what runs.
    fn run_argv(
        &mut self,
        mut argv: Vec<Arg>,
        mut wrappers: Vec<Vec<String>>,
        s: &Simple,
        scope: &mut Scope,
        sub_fetched: bool,
        mut cmd_cwd: Option<Arg>,
    ) {
        let mut xargs: Option<Option<String>> = None;
        let mut privilege = None;
        loop {
            let Some(first) = argv.first() else { return };
            if !first.literal {
                break;
            }
            let name = base_name(&first.text).to_string();
            let by_path = (!system_program(&first.text)).then(|| first.text.clone());
            if privilege.is_none() && tables::known(&name).privilege {
                privilege = Some(name.clone());
            }
            let step = wrappers::step(&name, &argv);
            if let (Some(path), Step::Wrapper { .. } | Step::Shell { .. }) = (&by_path, &step) {
                // Followed all the same, so that deny rules and hard limits
                // still meet what it would run if it were the real one.
                self.unknown(
                    format!(
                        "`{path}` is a program of the workspace, not the system's `{name}`: what it runs is not known"
                    ),
                    None,
                );
            }
            match step {
                Step::Wrapper {
                    wrapper,
                    rest,
                    cwd,
                    env,
                    unknown,
                    xargs: x,
                } => {
                    for var in env {
                        if tables::changes_what_runs(&var) {
                            self.unknown(
                                format!("`{name}` sets `{var}`, which changes what runs"),
                                None,
                            );
                        }
                    }
                    if let Some(u) = unknown {
                        self.unknown(u, None);
                    }
                    if cwd.is_some() {
                        cmd_cwd = cwd;
                    }
                    if x.is_some() {
                        xargs = x;
                    }
                    wrappers.push(wrapper);
                    argv = rest;
                }
                Step::Shell { wrapper, script } => {
                    if let Some(p) = privilege.take() {
                        self.hazard(
                            "privilege",
                            format!("`{p}` runs a command with other privileges"),
                            None,
                        );
                    }
                    let mut w = wrappers.clone();
                    w.push(wrapper);
                    // `eval` and `.` run in this shell and may assign anything.
                    if matches!(name.as_str(), "eval" | "source" | ".") {
                        forget_all(&mut scope.vars);
                    }
                    if self.shell(&name, script, w, s, scope, sub_fetched, &argv) {
                        return;
                    }
                    break;
                }
                Step::None => break,
            }
        }
        self.emit(
            argv,
            wrappers,
            s,
            scope,
            sub_fetched,
            cmd_cwd,
            xargs,
            privilege,
        );
    }

    /// A shell given a script. Returns true when the script was followed
    /// (no command is emitted for the shell itself).
    #[allow(clippy::too_many_arguments)]
    fn shell(
        &mut self,
        name: &str,
        script: Script,
        wrappers: Vec<Vec<String>>,
        s: &Simple,
        scope: &mut Scope,
        sub_fetched: bool,
        argv: &[Arg],
    ) -> bool {
        match script {
            Script::Text { text, literal } => {
                if !literal {
                    let next = Some(self.out.commands.len());
                    self.unknown(
                        format!("`{name}` runs a script that is not literal: `{text}`"),
                        next,
                    );
                    return false;
                }
                if sub_fetched {
                    self.hazard(
                        "download-exec",
                        format!("`{name}` runs a script fetched from the network"),
                        None,
                    );
                }
                self.nested(&text, wrappers, scope);
                for r in &s.redirects {
                    self.redirect(r, scope, None);
                }
                true
            }
            Script::File(file) => {
                self.script_file = Some(file);
                false
            }
            Script::Stdin => {
                let from_redirect =
                    s.redirects
                        .iter()
                        .rev()
                        .find_map(|r| match (&r.op[..], &r.target) {
                            (_, RedirTarget::Heredoc { body, dynamic, .. }) => {
                                Some((Some(body.clone()), *dynamic))
                            }
                            (_, RedirTarget::HereString(w)) => {
                                let literal =
                                    !w.parts.iter().any(|p| !matches!(p, Part::Lit { .. }));
                                let text: String = w
                                    .parts
                                    .iter()
                                    .filter_map(|p| match p {
                                        Part::Lit { text, .. } => Some(text.as_str()),
                                        _ => None,
                                    })
                                    .collect();
                                Some((Some(text), !literal))
                            }
                            ("<", _) => Some((None, false)),
                            _ => None,
                        });
                match from_redirect {
                    Some((Some(text), dynamic)) => {
                        if dynamic {
                            self.unknown(
                                format!("`{name}` runs a here-document with expansions"),
                                None,
                            );
                        }
                        self.nested(&text, wrappers, scope);
                        for r in &s.redirects {
                            self.redirect(r, scope, None);
                        }
                        true
                    }
                    Some((None, _)) => false,
                    None => match scope.stdin.clone() {
                        Stdin::Pipe { text, fetched } => {
                            if fetched && text.is_some() {
                                self.hazard(
                                    "download-exec",
                                    format!("`{name}` runs a script piped from a network fetch"),
                                    None,
                                );
                            }
                            let next = Some(self.out.commands.len());
                            match text {
                                Some(text) => {
                                    self.nested(&text, wrappers, scope);
                                    true
                                }
                                None => {
                                    self.unknown(
                                        format!("`{}` reads its script from a pipe", display(argv)),
                                        next,
                                    );
                                    false
                                }
                            }
                        }
                        Stdin::Inherit => {
                            let next = Some(self.out.commands.len());
                            self.unknown(
                                format!("`{}` reads commands from standard input", display(argv)),
                                next,
                            );
                            false
                        }
                    },
                }
            }
        }
    }

    fn nested(&mut self, text: &str, wrappers: Vec<Vec<String>>, scope: &mut Scope) {
        let Some(mut inner) = self.deeper(scope) else {
            return;
        };
        inner.wrappers = wrappers;
        inner.stdin = Stdin::Inherit;
        // A new shell sees only exported variables, which are not followed.
        forget_all(&mut inner.vars);
        self.script(text, &mut inner, None);
    }

    fn is_fetched(&self, path: &str) -> bool {
        !self.fetched_files.is_empty() && self.fetched_files.contains(path.trim_start_matches("./"))
    }

    #[allow(clippy::too_many_arguments)]
    fn emit(
        &mut self,
        argv: Vec<Arg>,
        wrappers: Vec<Vec<String>>,
        s: &Simple,
        scope: &mut Scope,
        sub_fetched: bool,
        cmd_cwd: Option<Arg>,
        xargs: Option<Option<String>>,
        privilege: Option<String>,
    ) {
        let idx = self.out.commands.len();
        let mut all_wrappers = scope.wrappers.clone();
        all_wrappers.extend(wrappers.iter().cloned());
        let name = argv
            .first()
            .map(|a| base_name(&a.text).to_string())
            .unwrap_or_default();
        let literal_name = argv.first().is_some_and(|a| a.literal);
        // `./cat` and `/tmp/x/cat` are programs of the workspace (or of
        // anyone), not the system's `cat`: never read-only.
        let system = argv.first().is_some_and(|a| system_program(&a.text));
        // The command takes its place now, so that the commands it runs
        // come after it; its argv and wrappers move in once it is done.
        self.out.commands.push(Command {
            argv: Vec::new(),
            non_literal: argv
                .iter()
                .enumerate()
                .filter(|(_, a)| !a.literal)
                .map(|(i, _)| i)
                .collect(),
            wrappers: Vec::new(),
            cwd: match &scope.cwd {
                Cwd::At(p) => Some(p.clone()),
                _ => None,
            },
            read_only: false,
            text: s.text.clone(),
        });
        if let Some(p) = privilege {
            self.hazard(
                "privilege",
                format!("`{p}` runs a command with other privileges"),
                Some(idx),
            );
        }
        if !literal_name {
            let t = argv.first().map(|a| a.text.clone()).unwrap_or_default();
            self.unknown(format!("command name is not literal: `{t}`"), Some(idx));
        }
        self.glob_positions(&argv, idx);
        if self.defining.contains(&name) && scope.concurrent {
            self.hazard(
                "fork-bomb",
                format!("function `{name}` starts copies of itself"),
                Some(idx),
            );
        }
        if let Some(&changes_cwd) = self.functions.get(&name) {
            if changes_cwd {
                self.cwd_unknown(scope, &format!("function `{name}` changes it"));
            }
            forget_all(&mut scope.vars);
        }
        if !literal_name || assigns_variables(&name, &argv) {
            forget_all(&mut scope.vars);
        }
        if name == "alias"
            && argv
                .iter()
                .skip(1)
                .any(|a| a.text.contains('=') || !a.literal)
        {
            self.unknown(
                "`alias` defines a command that is not analysed".into(),
                Some(idx),
            );
        }
        if literal_name && self.is_fetched(&argv[0].text) {
            self.hazard(
                "download-exec",
                format!("`{}` runs a file fetched from the network", argv[0].text),
                Some(idx),
            );
        }
        let known = tables::known(&name);
        if known.interpreter || known.shell || matches!(name.as_str(), "source" | "." | "eval") {
            let stdin_fetched = matches!(scope.stdin, Stdin::Pipe { fetched: true, .. });
            let runs_fetched_file = argv
                .iter()
                .skip(1)
                .any(|a| a.literal && self.is_fetched(&a.text));
            if sub_fetched
                || runs_fetched_file
                || (stdin_fetched && reads_program_from_stdin(&argv))
            {
                self.hazard(
                    "download-exec",
                    format!("`{name}` runs a program fetched from the network"),
                    Some(idx),
                );
            }
        }
        let args = argv.get(1..).unwrap_or_default();
        let derive_args: Cow<'_, [Arg]> = if matches!(xargs, Some(None)) {
            let mut with_input = args.to_vec();
            with_input.push(Arg::dynamic("(xargs input)"));
            Cow::Owned(with_input)
        } else {
            Cow::Borrowed(args)
        };
        let mut d = if literal_name {
            effects::derive(&name, &derive_args)
        } else {
            Derived::default()
        };
        d.found
            .retain(|f| f.arg.pattern.as_deref() != Some("<process substitution>"));
        if literal_name {
            for dir in hazards::emptied_dirs(&name, &argv) {
                d.found.push(effects::Found {
                    access: Access::Delete,
                    arg: dir,
                    recursive: true,
                });
            }
        }
        if matches!(name.as_str(), "cd" | "pushd" | "popd") {
            self.change_dir(&name, &argv, scope, idx);
        }
        let (found_haz, unknowns) = hazards::command(
            &name,
            &argv,
            &d,
            &hazards::Ctx {
                cwd: Self::work_dir(self.opts, scope).as_deref(),
                home: self.opts.home.as_deref(),
            },
        );
        for (kind, reason) in found_haz {
            self.hazard(kind, reason, Some(idx));
        }
        if !d.unknowns.is_empty() {
            d.read_only = false;
        }
        for u in unknowns.into_iter().chain(d.unknowns.drain(..)) {
            self.unknown(u, Some(idx));
        }
        let effect_cwd = self.effect_cwd(scope, cmd_cwd.as_ref().or(d.cwd.as_ref()));
        if let Some(file) = self.script_file.take() {
            if file.pattern.as_deref() != Some("<process substitution>") {
                d.found.push(effects::Found {
                    access: Access::Read,
                    arg: file,
                    recursive: false,
                });
            }
        }
        let mut writes = false;
        let fetcher = known.fetcher;
        for f in &d.found {
            let (kind, delete, recursive) = match f.access {
                Access::Read => (EffectKind::Read, false, f.recursive),
                Access::Write => (EffectKind::Write, false, f.recursive),
                Access::Delete => (EffectKind::Write, true, f.recursive),
                Access::WriteDir => (EffectKind::Write, false, true),
                Access::Fetch => (EffectKind::Fetch, false, false),
            };
            if kind == EffectKind::Write {
                writes = true;
                if fetcher && f.arg.literal {
                    self.fetched_files
                        .insert(f.arg.text.trim_start_matches("./").to_string());
                }
            }
            self.effect(
                kind,
                &f.arg,
                Origin::Operand,
                recursive,
                delete,
                Some(idx),
                &effect_cwd,
            );
        }
        for n in std::mem::take(&mut d.nested) {
            match n {
                Nested::Argv {
                    argv: inner,
                    wrapper,
                } => {
                    let Some(mut inner_scope) = self.deeper(scope) else {
                        continue;
                    };
                    let mut w = wrappers.clone();
                    w.push(wrapper);
                    self.run_argv(inner, w, s, &mut inner_scope, false, None);
                }
                Nested::Script {
                    text,
                    literal,
                    wrapper,
                } => {
                    let mut w = all_wrappers.clone();
                    w.push(wrapper);
                    if literal {
                        self.nested(&text, w, scope);
                    } else {
                        self.unknown(
                            format!("`{name}` runs a script that is not literal: `{text}`"),
                            Some(idx),
                        );
                    }
                }
            }
        }
        for r in &s.redirects {
            if self.redirect(r, scope, Some(idx)) {
                writes = true;
            }
        }
        if let Some(c) = self.out.commands.get_mut(idx) {
            c.read_only = literal_name && system && d.read_only && !writes;
            c.argv = argv.into_iter().map(|a| a.text).collect();
            c.wrappers = all_wrappers;
        }
    }

    /// Follows the assignments of a simple command: alone (`X=lit`) or as
    /// arguments of `export`/`readonly`/`declare`/`typeset`/`local`, a
    /// literal value is known from here on; before a command (`X=1 cmd`),
    /// or when not literal, the variable is unsure.
    fn assignments(&mut self, s: &Simple, args: &[Arg], scope: &mut Scope) {
        let dynamic_assign =
            |w: &Word| w.text.contains('=') && (w.text.contains("${") || w.text.contains("$(("));
        if s.words.iter().any(dynamic_assign)
            || s.assigns.iter().flat_map(|a| &a.value).any(dynamic_assign)
            || s.redirects.iter().any(|r| match &r.target {
                RedirTarget::Word(w) | RedirTarget::HereString(w) => dynamic_assign(w),
                RedirTarget::Heredoc { .. } => false,
            })
        {
            // `${X:=v}` and `$((X = 1))` assign while expanding.
            forget_all(&mut scope.vars);
        }
        if s.assigns.is_empty() {
            return;
        }
        if s.words.is_empty() {
            for a in &s.assigns {
                let plain = a.value.len() == 1
                    && !s.text.contains(&format!("{}+=", a.name))
                    && !s.text.contains(&format!("{}[", a.name));
                let value =
                    a.value.first().filter(|_| plain).and_then(|w| {
                        words::assigned_value(w, self.opts.home.as_deref(), &scope.vars)
                    });
                self.set_var(scope, &a.name, value);
            }
            return;
        }
        let decl = args
            .first()
            .filter(|a| a.literal)
            .map(|a| a.text.as_str())
            .filter(|n| matches!(*n, "export" | "readonly" | "declare" | "typeset" | "local"));
        let Some(decl) = decl else {
            for a in &s.assigns {
                self.set_var(scope, &a.name, None);
            }
            return;
        };
        let rest = args.get(1..).unwrap_or_default();
        let flags: Vec<&str> = rest
            .iter()
            .take_while(|a| a.literal && (a.text.starts_with('-') || a.text.starts_with('+')))
            .map(|a| a.text.as_str())
            .collect();
        let readonly =
            decl == "readonly" || flags.iter().any(|f| f.starts_with('-') && f.contains('r'));
        for a in rest.iter().skip(flags.len()) {
            if !a.literal || a.pattern.is_some() {
                forget_all(&mut scope.vars);
                continue;
            }
            let (name, value) = match a.text.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (a.text.as_str(), None),
            };
            let plain_name = is_name(name);
            let base = name.trim_end_matches('+');
            let base = base.split('[').next().unwrap_or(base).to_string();
            match value {
                Some(v) if plain_name && flags.is_empty() && !v.contains('~') => {
                    self.set_var(scope, &base, Some(v.to_string()));
                }
                None if decl == "export" && flags.is_empty() => {}
                None if decl == "readonly" => {}
                _ => self.set_var(scope, &base, None),
            }
            if readonly {
                self.frozen.insert(base);
            }
        }
    }

    fn set_var(&mut self, scope: &mut Scope, name: &str, value: Option<String>) {
        let value = value.filter(|_| !self.frozen.contains(name));
        if scope.vars.get(name) != Some(&value) {
            Rc::make_mut(&mut scope.vars).insert(name.to_string(), value);
        }
    }

    /// Globs whose expansion at run time can hold an action: one in the
    /// command name (`*`, `/bin/c?t`), or in an option's place (`-del*`,
    /// `--pr*`), is unknown; one that starts with a wildcard (`*`, `?x`)
    /// can match a file named `-delete` created before it runs, and is
    /// unknown when the script writes files (checked in [`Walker::run`]).
    fn glob_positions(&mut self, argv: &[Arg], idx: usize) {
        if let Some(p) = argv.first().and_then(|a| a.pattern.as_deref()) {
            self.unknown(
                format!("command name is a glob: `{p}`, which names a program only when it runs"),
                Some(idx),
            );
        }
        for a in argv.iter().skip(1) {
            let Some(p) = a.pattern.as_deref() else {
                continue;
            };
            if p == "<process substitution>" {
                continue;
            }
            // `--include=*.rs` may only become another `--include=`; `-del*`
            // and `--pr*` may become any option.
            let name_part = p.split(['*', '?', '[']).next().unwrap_or(p);
            if p.starts_with('-') && !name_part.contains('=') {
                self.unknown(
                    format!(
                        "glob `{p}` stands where an option goes, and may expand to one when it runs"
                    ),
                    Some(idx),
                );
            } else if p.starts_with(['*', '?', '['])
                && !self.wild_globs.iter().any(|(i, q)| *i == idx && q == p)
            {
                self.wild_globs.push((idx, p.to_string()));
            }
        }
    }

    fn effect_cwd(&self, scope: &Scope, extra: Option<&Arg>) -> Option<Option<PathBuf>> {
        let base = match &scope.cwd {
            Cwd::Start => None,
            Cwd::At(p) => Some(p.clone()),
            Cwd::Unknown => return None,
        };
        match extra {
            None => Some(base),
            Some(a) if !a.literal => None,
            Some(a) => {
                let p = self.dir_path(&a.text, base.as_deref());
                Some(Some(p))
            }
        }
    }

    /// `text` (a directory as written) made absolute against `base` or
    /// the starting directory, lexically.
    fn dir_path(&self, text: &str, base: Option<&Path>) -> PathBuf {
        let joined = if let Some(rest) = text
            .strip_prefix('~')
            .filter(|r| r.is_empty() || r.starts_with('/'))
        {
            match &self.opts.home {
                Some(h) => h.join(rest.trim_start_matches('/')),
                None => PathBuf::from(text),
            }
        } else if Path::new(text).is_absolute() {
            PathBuf::from(text)
        } else {
            match base
                .map(Path::to_path_buf)
                .or_else(|| self.opts.cwd.clone())
            {
                Some(b) => b.join(text),
                None => PathBuf::from(text),
            }
        };
        hazards::normalize(&joined)
    }

    #[allow(clippy::too_many_arguments)]
    fn effect(
        &mut self,
        kind: EffectKind,
        arg: &Arg,
        origin: Origin,
        recursive: bool,
        delete: bool,
        command: Option<usize>,
        cwd: &Option<Option<PathBuf>>,
    ) {
        let relative = !(arg.text.starts_with('/') || arg.text.starts_with('~'));
        let cwd_known = cwd.is_some();
        let literal = arg.literal && (kind == EffectKind::Fetch || !relative || cwd_known);
        if kind == EffectKind::Write {
            if let Some((k, reason)) = hazards::device_write(&arg.text) {
                self.hazard(k, reason, command);
            }
        }
        self.out.effects.push(Effect {
            kind,
            target: arg.text.clone(),
            cwd: cwd.clone().flatten(),
            origin,
            recursive,
            delete,
            literal,
            command,
        });
    }

    fn redirect_subs(&mut self, r: &Redirect, scope: &Scope) {
        match &r.target {
            RedirTarget::Word(w) | RedirTarget::HereString(w) => self.subs(w, scope),
            RedirTarget::Heredoc { subs, .. } => {
                let w = Word {
                    subs: subs.clone(),
                    ..Word::default()
                };
                self.subs(&w, scope);
            }
        }
    }

    /// The effect of a redirect; true when it writes a file.
    fn redirect(&mut self, r: &Redirect, scope: &Scope, command: Option<usize>) -> bool {
        if command.is_none() {
            self.redirect_subs(r, scope);
        }
        let RedirTarget::Word(w) = &r.target else {
            return false;
        };
        let op = r.op.as_str();
        let dir = Self::work_dir(self.opts, scope);
        let mut args = Vec::new();
        self.expand(w, dir.as_deref(), &scope.vars, &mut args);
        let Some(arg) = args.first() else {
            return false;
        };
        if args.len() > 1 {
            self.unknown(
                format!("redirect target `{}` expands to several words", w.text),
                command,
            );
        }
        let dup = matches!(op, ">&" | "<&")
            && (arg.text == "-"
                || arg.text.chars().all(|c| c.is_ascii_digit())
                || arg.text.ends_with('-'));
        if dup || op.is_empty() {
            return false;
        }
        let kind = match op {
            "<" | "<&" => EffectKind::Read,
            _ => EffectKind::Write,
        };
        let cwd = self.effect_cwd(scope, None);
        if let Some(rest) = arg
            .text
            .strip_prefix("/dev/tcp/")
            .or_else(|| arg.text.strip_prefix("/dev/udp/"))
        {
            let proto = if arg.text.starts_with("/dev/tcp/") {
                "tcp"
            } else {
                "udp"
            };
            let url = match rest.split_once('/') {
                Some((host, port)) => format!("{proto}://{host}:{port}"),
                None => format!("{proto}://{rest}"),
            };
            self.effect(
                EffectKind::Fetch,
                &arg.with_text(url),
                Origin::Redirect,
                false,
                false,
                command,
                &cwd,
            );
            return false;
        }
        if arg.literal
            && (tables::HARMLESS_DEVICES.contains(&arg.text.as_str())
                || arg
                    .text
                    .strip_prefix("/dev/fd/")
                    .is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())))
        {
            return false;
        }
        if op == "<>" {
            self.effect(
                EffectKind::Read,
                arg,
                Origin::Redirect,
                false,
                false,
                command,
                &cwd,
            );
        }
        self.effect(kind, arg, Origin::Redirect, false, false, command, &cwd);
        kind == EffectKind::Write
    }

    fn change_dir(&mut self, name: &str, argv: &[Arg], scope: &mut Scope, idx: usize) {
        let operands: Vec<&Arg> = argv
            .iter()
            .skip(1)
            .filter(|a| {
                !(a.literal
                    && a.text.starts_with('-')
                    && a.text.len() > 1
                    && !a.text[1..].starts_with(|c: char| c.is_ascii_digit()))
            })
            .collect();
        let target = match (name, operands.first()) {
            ("popd", _) => match scope.dir_stack.pop() {
                Some(d) => d,
                None => Cwd::Unknown,
            },
            ("cd", None) => match &self.opts.home {
                Some(h) => Cwd::At(h.clone()),
                None => Cwd::Unknown,
            },
            (_, None) => match scope.dir_stack.pop() {
                Some(d) => {
                    scope.dir_stack.push(scope.cwd.clone());
                    d
                }
                None => Cwd::Unknown,
            },
            (_, Some(a)) if a.literal && a.text == "-" => {
                scope.oldpwd.clone().unwrap_or(Cwd::Unknown)
            }
            (_, Some(a)) if a.literal && !a.text.starts_with('+') => {
                let base = match &scope.cwd {
                    Cwd::At(p) => Some(p.clone()),
                    Cwd::Start => None,
                    Cwd::Unknown => {
                        if !Path::new(&a.text).is_absolute() && !a.text.starts_with('~') {
                            scope.oldpwd = Some(scope.cwd.clone());
                            return;
                        }
                        None
                    }
                };
                Cwd::At(self.dir_path(&a.text, base.as_deref()))
            }
            (_, Some(a)) => {
                let t = a.text.clone();
                self.unknown(
                    format!("`{name}` to a directory that is not literal: `{t}`"),
                    Some(idx),
                );
                scope.oldpwd = Some(scope.cwd.clone());
                scope.cwd = Cwd::Unknown;
                return;
            }
        };
        if let Cwd::At(p) = &target {
            if p.as_os_str().len() > MAX_CWD_LEN {
                self.unknown(
                    format!("`{name}` leads to a path longer than {MAX_CWD_LEN} bytes"),
                    Some(idx),
                );
                scope.cwd = Cwd::Unknown;
                return;
            }
        }
        if name == "pushd" && !operands.is_empty() {
            scope.dir_stack.push(scope.cwd.clone());
        }
        if target == Cwd::Unknown && scope.cwd != Cwd::Unknown {
            self.unknown(
                format!("`{name}` leaves the working directory unknown"),
                Some(idx),
            );
        }
        scope.oldpwd = Some(scope.cwd.clone());
        scope.cwd = target;
    }
}

/// Makes every variable of `vars` unsure.
fn forget_all(vars: &mut Rc<Vars>) {
    if vars.values().any(Option::is_some) {
        for v in Rc::make_mut(vars).values_mut() {
            *v = None;
        }
    }
}

/// Makes unsure in `vars` every variable that differs between `before` and
/// `after`.
fn forget_changed(vars: &mut Rc<Vars>, before: &Vars, after: &Vars) {
    let changed: Vec<String> = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(v))
        .map(|(k, _)| k.clone())
        .collect();
    if !changed.is_empty() {
        let vars = Rc::make_mut(vars);
        for k in changed {
            vars.insert(k, None);
        }
    }
}

/// Builtins that assign variables of this shell in ways not followed.
fn assigns_variables(name: &str, argv: &[Arg]) -> bool {
    match name {
        "read" | "unset" | "mapfile" | "readarray" | "getopts" | "let" | "eval" | "source"
        | "." | "trap" | "declare" | "typeset" | "local" | "export" | "readonly" => {
            // The declaration builtins were followed in `assignments`;
            // only their non-literal arguments reach here as a risk.
            !matches!(
                name,
                "declare" | "typeset" | "local" | "export" | "readonly"
            ) || argv.iter().any(|a| !a.literal)
        }
        "printf" => argv.iter().any(|a| a.literal && a.text.starts_with("-v")),
        _ => false,
    }
}

/// A shell variable name.
fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether a command name is the system's program of that name: a bare
/// name (found on `PATH`, whose changes are unknowns) or a path in the
/// system's own program directories, which the workspace cannot write.
fn system_program(name: &str) -> bool {
    if !name.contains('/') {
        return true;
    }
    ["/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/"]
        .iter()
        .any(|dir| {
            name.strip_prefix(dir)
                .is_some_and(|rest| !rest.is_empty() && !rest.contains('/'))
        })
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn display(argv: &[Arg]) -> String {
    argv.iter()
        .map(|a| a.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

fn is_fetcher(c: &Command) -> bool {
    c.argv
        .first()
        .is_some_and(|a| tables::known(base_name(a)).fetcher)
}

fn is_exit(node: &Node) -> bool {
    match node {
        Node::Simple(s) => s
            .words
            .first()
            .is_some_and(|w| matches!(w.text.as_str(), "exit" | "return")),
        Node::Compound { bodies, .. } => bodies
            .last()
            .and_then(|b| b.items.last())
            .is_some_and(|i| is_exit(&i.node)),
        _ => false,
    }
}

/// An interpreter with no program argument reads its program from stdin.
fn reads_program_from_stdin(argv: &[Arg]) -> bool {
    let mut args = argv.iter().skip(1);
    while let Some(a) = args.next() {
        let t = a.text.as_str();
        if t == "-" {
            return true;
        }
        if !a.literal || !t.starts_with('-') {
            return false;
        }
        if matches!(
            t,
            "-c" | "-e" | "-E" | "-m" | "-p" | "-r" | "--eval" | "--print" | "-Command" | "-File"
        ) {
            return false;
        }
        if matches!(t, "-W" | "-X" | "-I" | "-M" | "-o" | "-O") {
            args.next();
        }
    }
    true
}

/// Whether a word is exactly the literal `want` once quotes are removed
/// (`echo`, `e"ch"o`), without building its text.
fn literal_is(word: &Word, want: &str) -> bool {
    let mut rest = want;
    for p in &word.parts {
        match p {
            Part::Lit { text, .. } => match rest.strip_prefix(text.as_str()) {
                Some(r) => rest = r,
                None => return false,
            },
            _ => return false,
        }
    }
    rest.is_empty()
}

/// What a pipeline stage writes to its standard output, when that is a
/// literal (`echo 'ls'`, `cat <<'EOF'`), for a shell that reads it.
fn literal_output(node: &Node) -> Option<String> {
    let Node::Simple(s) = node else { return None };
    // Most stages are none of these: tell before building any text.
    let first = s.words.first()?;
    if !["echo", "printf", "cat"]
        .iter()
        .any(|name| literal_is(first, name))
    {
        return None;
    }
    let words: Vec<String> = s
        .words
        .iter()
        .map(|w| {
            let mut out = String::new();
            for p in &w.parts {
                match p {
                    Part::Lit { text, .. } => out.push_str(text),
                    _ => return None,
                }
            }
            Some(out)
        })
        .collect::<Option<Vec<_>>>()?;
    match words.first().map(String::as_str) {
        Some("echo") => {
            let rest: Vec<&String> = words.iter().skip(1).collect();
            if rest.first().is_some_and(|w| w.starts_with('-')) {
                return None;
            }
            Some(
                rest.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
                    + "\n",
            )
        }
        Some("printf") if words.len() == 2 && !words[1].contains(['%', '\\']) => {
            Some(words[1].clone())
        }
        Some("cat") if words.len() == 1 => s.redirects.iter().rev().find_map(|r| match &r.target {
            RedirTarget::Heredoc {
                body,
                dynamic: false,
                ..
            } => Some(body.clone()),
            RedirTarget::HereString(w) => {
                let mut out = String::new();
                for p in &w.parts {
                    match p {
                        Part::Lit { text, .. } => out.push_str(text),
                        _ => return None,
                    }
                }
                Some(out + "\n")
            }
            _ => None,
        }),
        _ => None,
    }
}

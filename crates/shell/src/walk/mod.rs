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
use crate::syntax::{
    AndOrOp, Assign, List, Node, Part, RedirTarget, Redirect, Simple, SubKind, Word,
};
use crate::tables::{self, Access};
use crate::words::{self, Arg, Vars};
use crate::wrappers::{self, Script, Step};
use crate::{Analysis, Command, EffectKind, Hazard, Options, Origin, TargetEffect, Unknown};

mod cd;
mod command;
mod environ;
mod evaluate;
mod lines;
mod made;
mod redirects;
mod shells;
mod vars;

use environ::*;
use evaluate::*;
use shells::*;
use vars::*;

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

/// Most values of a `for` loop whose body is walked once per value
/// (`for f in *.rs`); with more, the loop variable is not known.
const LOOP_VALUES: usize = 32;

/// Most rounds of `for` loops walked once per value in one analysis, all
/// loops together (nested loops multiply their rounds); past it, a loop
/// variable is not known.
const LOOP_ROUND_BUDGET: usize = 256;

/// The `pattern` of an argument that stands for the names a `find` printed
/// (`| xargs`, `$(find ..)`), so that the command it is given to is
/// checked to read it.
pub(crate) const PRINTED: &str = "<names find printed>";

/// Arguments that stand for the names a `find` printed.
type Names = Rc<Vec<Arg>>;

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
    Pipe {
        text: Option<String>,
        fetched: bool,
        /// The previous stage is `find` printing names: arguments that
        /// stand for them (`find src -name '*.rs' | xargs grep x`).
        files: Option<Names>,
    },
}

#[derive(Debug, Clone)]
struct Scope {
    cwd: Cwd,
    /// How many `cd`, `pushd` and `popd` this shell has met (not its
    /// subshells'): one met in a list item may have failed, and bash then
    /// runs the next item where it was.
    dir_changes: usize,
    oldpwd: Option<Cwd>,
    dir_stack: Vec<Cwd>,
    wrappers: Vec<Vec<String>>,
    depth: usize,
    stdin: Stdin,
    /// Inside a multi-stage pipeline or a background job.
    concurrent: bool,
    /// Variables the script assigned, as far as they are sure here.
    vars: Rc<Vars>,
    /// Files and URLs that variables given to the commands of this scope
    /// alone (`VAR=x cmd`, `env VAR=x cmd`) make them touch.
    env: Rc<Vec<EnvUse>>,
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
    /// Files written earlier in the script (redirects, operands, the
    /// files programs are given), by path joined to where it ran and
    /// normalised: a program run from one is code not known here.
    written_files: HashSet<PathBuf>,
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
    /// Variables are no longer followed (after `trap`, `declare -n`, ...).
    vars_off: bool,
    /// Variables given the integer attribute (`declare -i`): assigning one
    /// evaluates the value as arithmetic. `ints_any` when a name given it
    /// was not literal.
    ints: HashSet<String>,
    ints_any: bool,
    /// Name references (`declare -n`): assigning one sets the name it
    /// refers to, which is evaluated, subscript included, at each use.
    refs: HashSet<String>,
    refs_any: bool,
    /// Arrays: a declaration's value that is `(..)` when it runs is read
    /// again as a compound assignment of one.
    arrays: HashSet<String>,
    arrays_any: bool,
    /// Counts declarations of those attributes, so that a function defined
    /// before one (whose assignments were walked without it) is known.
    attr_epoch: usize,
    /// The `attr_epoch` at each function's definition.
    fn_epoch: HashMap<String, usize>,
    /// The directory each function's body was walked in: called from
    /// another, its relative paths and globs name other files.
    fn_cwd: HashMap<String, Cwd>,

    /// Variables read by plain arithmetic so far, in order (for loops,
    /// whose arithmetic runs again after the body).
    arith_reads: Vec<String>,
    /// Files and URLs that variables assigned or exported so far make
    /// every later command touch (`export GIT_TRACE=/tmp/t`). Kept for
    /// the rest of the script, subshells and functions included: more
    /// effects than bash would give, never fewer.
    exported: Vec<EnvUse>,
    /// Links, moves, copies and unknown trees earlier commands made
    /// (`made`), through which later paths resolve.
    made: Vec<made::Made>,
    /// An earlier command made a name that is not known: every later path
    /// may be it.
    made_anywhere: Option<String>,
    /// The names commands print, by command index, as arguments that
    /// stand for them (`find src -name '*.rs'`): see [`Walker::printed`].
    outputs: HashMap<usize, Vec<Arg>>,
    /// The names a command substitution gives (`$(find src -name
    /// '*.rs')`), by the word's text.
    sub_outputs: HashMap<String, Names>,
    /// The script names `IFS` somewhere: what word splitting does is not
    /// followed.
    ifs_named: bool,
    /// The script names `OLDPWD` or `DIRSTACK` (which `cd -` and `popd`
    /// go to): neither is followed then.
    dir_vars_named: bool,
    /// Rounds of `for` loops walked once per value, left for this
    /// analysis ([`LOOP_ROUND_BUDGET`]): nested loops multiply them.
    loop_rounds_left: usize,
    /// Commands, by index, whose program puts a new file in its target's
    /// place (`mv`, `ln`, ...): their writes of `/dev/null` are writes.
    replacing: HashSet<usize>,
}

impl<'o> Walker<'o> {
    pub fn new(opts: &'o Options) -> Self {
        Walker {
            opts,
            out: Analysis::default(),
            functions: HashMap::new(),
            defining: Vec::new(),
            fetched_files: HashSet::new(),
            written_files: HashSet::new(),
            seen: HashSet::new(),
            expanded: 0,
            glob_entries: Cell::new(GLOB_ENTRY_BUDGET),
            script_file: None,
            too_deep: false,
            wild_globs: Vec::new(),
            frozen: HashSet::new(),
            vars_off: false,
            ints: HashSet::new(),
            ints_any: false,
            refs: HashSet::new(),
            refs_any: false,
            arrays: HashSet::new(),
            arrays_any: false,
            attr_epoch: 0,
            fn_epoch: HashMap::new(),
            fn_cwd: HashMap::new(),
            arith_reads: Vec::new(),
            exported: Vec::new(),
            made: Vec::new(),
            made_anywhere: None,
            outputs: HashMap::new(),
            sub_outputs: HashMap::new(),
            ifs_named: false,
            dir_vars_named: false,
            replacing: HashSet::new(),
            loop_rounds_left: LOOP_ROUND_BUDGET,
        }
    }

    /// Analyses a whole script at the top level.
    pub fn run(&mut self, script: &str) {
        // A script that may set `IFS` splits `$(..)` at other characters.
        self.ifs_named = script.contains("IFS");
        self.dir_vars_named = script.contains("OLDPWD") || script.contains("DIRSTACK");
        let mut scope = Scope {
            cwd: Cwd::Start,
            dir_changes: 0,
            oldpwd: None,
            dir_stack: Vec::new(),
            wrappers: Vec::new(),
            depth: 0,
            stdin: Stdin::Inherit,
            concurrent: false,
            vars: Rc::default(),
            env: Rc::default(),
        };
        self.script(script, &mut scope, None);
        let globs = std::mem::take(&mut self.wild_globs);
        for (idx, pattern) in globs {
            // A write that may create a name starting with `-`: one named
            // so, one whose name is not known, or everything beneath a
            // directory (`tar -x`, `cp -r`).
            let writes = self.out.effects.iter().any(|e| {
                e.kind == EffectKind::Write
                    && e.command != Some(idx)
                    && (!e.literal
                        || e.recursive
                        || e.target
                            .rsplit('/')
                            .next()
                            .is_some_and(|n| n.starts_with('-')))
            });
            if writes {
                self.unknown(
                    format!(
                        "glob `{pattern}` is expanded when it runs, after this script may create a file named like an option"
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
        let ahead = evaluate::Ahead::of(&parsed.list);
        self.ints.extend(ahead.ints);
        self.ints_any |= ahead.ints_any;
        self.refs.extend(ahead.refs);
        self.refs_any |= ahead.refs_any;
        self.arrays.extend(ahead.arrays);
        self.arrays_any |= ahead.arrays_any;
        self.list(&parsed.list, scope);
    }

    fn list(&mut self, list: &List, scope: &mut Scope) {
        let last = list.items.len().saturating_sub(1);
        for (i, item) in list.items.iter().enumerate() {
            if item.background {
                let mut bg = scope.clone();
                bg.concurrent = true;
                self.node(&item.node, &mut bg);
            } else {
                let (changes, cwd) = (scope.dir_changes, scope.cwd.clone());
                self.node(&item.node, scope);
                // A `cd` fails for many reasons (a directory removed, not
                // enterable, a bad argument), and bash then runs the next
                // item where it was; one that works moves it. The walk
                // goes on where the `cd` leads (a deny there still holds),
                // and the call asks, unless the item ends in `|| exit`.
                if (scope.dir_changes != changes || scope.cwd != cwd)
                    && i < last
                    && scope.cwd != Cwd::Unknown
                    && !exits_on_failure(&item.node)
                {
                    self.unknown(
                        "a `cd` before a `;` or a newline may fail, and bash then runs what follows where it was".into(),
                        None,
                    );
                }
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
                                // before its `cd` happened or after it.
                                alt.cwd = start.clone();
                                if !is_exit(next) {
                                    self.unknown(
                                        "what follows `||` runs where a `cd` before it led, or where it started".into(),
                                        None,
                                    );
                                }
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
                let reads_from = self.arith_reads.len();
                // `for ((..))`: its header, when plain, assigns integers.
                let mut header = binds.is_none().then(Vec::new);
                for w in words {
                    match (self.subs(w, scope), header.as_mut()) {
                        (Some(t), Some(h)) if w.text.starts_with("((") => h.extend(t),
                        (_, Some(_)) => header = None,
                        _ => {}
                    }
                }
                if let Some(targets) = &header {
                    self.integers(scope, targets.clone());
                }
                let int_binds = self.int_binds(words, binds.as_deref(), scope);
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
                    let mut kept = Vec::new();
                    if *looped && (binds.is_some() || header.is_some()) {
                        kept = forget_all_but_integers(&mut entry);
                    } else if *looped || binds.is_none() {
                        forget_all(&mut entry);
                    }
                    for name in binds.iter().flatten() {
                        let value = int_binds.then(|| words::INTEGER.to_string());
                        if value.is_some() {
                            kept.push(name.clone());
                        }
                        Rc::make_mut(&mut entry).insert(name.clone(), value);
                    }
                    let mut changed = Vars::default();
                    // `for f in *.rs`: each round with its value, when the
                    // words are known (`wc -l "$f"` reads each file).
                    let rounds = if *looped && !int_binds {
                        self.loop_values(words, binds.as_deref(), scope)
                    } else {
                        None
                    };
                    let rounds: Vec<Option<(&String, &String)>> = match &rounds {
                        Some((name, values)) => values.iter().map(|v| Some((name, v))).collect(),
                        None => vec![None],
                    };
                    for round in rounds {
                        let mut start = Rc::clone(&entry);
                        if let Some((name, value)) = round {
                            Rc::make_mut(&mut start).insert(name.clone(), Some(value.clone()));
                        }
                        for body in bodies {
                            inner.vars = Rc::clone(&start);
                            self.list(body, &mut inner);
                            for (k, v) in inner.vars.iter() {
                                if entry.get(k) != Some(v) {
                                    changed.insert(k.clone(), None);
                                }
                            }
                            if *looped {
                                self.loop_changed(&kept, &inner.vars, reads_from);
                            }
                        }
                    }
                    for name in binds.iter().flatten() {
                        changed.insert(name.clone(), None);
                    }
                    if binds.is_none() && header.is_none() {
                        forget_all(&mut scope.vars);
                    }
                    if !changed.is_empty() {
                        Rc::make_mut(&mut scope.vars).extend(changed);
                    }
                }
                if *plain {
                    // A group runs in this shell: its `cd`s are this one's.
                    scope.dir_changes = inner.dir_changes;
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
                self.fn_epoch.insert(name.clone(), self.attr_epoch);
                self.fn_cwd.insert(name.clone(), before);
            }
            Node::Redirected(inner, redirects) => {
                let start = self.out.commands.len();
                self.node(inner, scope);
                self.redirects(redirects, scope, None);
                // Input redirected into a loop or group that runs a shell
                // is a script it reads.
                let _ = start;
            }
            Node::Arith(words) => {
                // `(( X = 1 ))` assigns integers when plain; anything else
                // here (the grammar's recovery) may assign anything.
                let mut targets = Some(Vec::new());
                for w in words {
                    match (self.subs(w, scope), targets.as_mut()) {
                        (Some(t), Some(all)) if w.text.starts_with("((") => all.extend(t),
                        _ => targets = None,
                    }
                }
                match targets {
                    Some(t) => self.integers(scope, t),
                    None => forget_all(&mut scope.vars),
                }
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
        let mut upstream: Option<(Option<String>, Option<Names>)> = None;
        for stage in stages {
            let mut s = scope.clone();
            s.concurrent |= multi;
            let mut incoming = None;
            if let Some((text, files)) = upstream.take() {
                incoming.clone_from(&files);
                // Names reach only a command that reads the pipe: one
                // whose input is not redirected.
                let reads_pipe = matches!(stage, Node::Simple(c) if !c.redirects.iter().any(|r| r.op.contains('<')));
                s.stdin = Stdin::Pipe {
                    text,
                    fetched,
                    files: files.filter(|_| reads_pipe),
                };
            }
            let start = self.out.commands.len();
            let output = literal_output(stage);
            self.node(stage, &mut s);
            // Only what `find` prints: none of its errors (`2>&1`, `|&`),
            // passed on by stages that copy some of its lines unchanged
            // (`sort`, `grep -v`, `head`).
            let files = match stage {
                Node::Simple(c) if c.redirects.is_empty() => self.printed(start).or_else(|| {
                    incoming.filter(|_| {
                        lines::passes_lines(c)
                            && c.words
                                .first()
                                .and_then(words::plain_text)
                                .is_some_and(|n| !self.functions.contains_key(&n))
                    })
                }),
                _ => None,
            };
            if self.out.commands[start..].iter().any(is_fetcher) {
                fetched = true;
            }
            upstream = Some((output, files));
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

    /// Checks the evaluations inside a word (`evaluate`) and walks its
    /// substitutions (they run in subshells). `Some` with the variables
    /// plain arithmetic in it assigns, when all its evaluations are plain.
    fn subs(&mut self, word: &Word, scope: &Scope) -> Option<Targets> {
        let targets = if word.evals.is_empty() {
            Some(Vec::new())
        } else {
            self.evals(word, &*scope.vars)
        };
        self.walk_subs(word, scope);
        targets
    }

    /// Walks the substitutions inside a word.
    fn walk_subs(&mut self, word: &Word, scope: &Scope) {
        for sub in &word.subs {
            let Some(mut inner) = self.deeper(scope) else {
                return;
            };
            inner.stdin = Stdin::Inherit;
            inner.concurrent = sub.kind != SubKind::Command;
            let start = self.out.commands.len();
            self.list(&sub.list, &mut inner);
            self.redirects(&sub.redirects, scope, None);
            // `$(find src -name '*.rs')` as a whole, unquoted word: the
            // names find prints, split.
            let one_plain_command = sub.redirects.is_empty()
                && matches!(&sub.list.items[..], [crate::syntax::Item { node: Node::Simple(c), background: false }] if c.redirects.is_empty());
            let whole = sub.kind == SubKind::Command
                && one_plain_command
                && word.subs.len() == 1
                && matches!(word.parts[..], [Part::Dynamic])
                && (word.text.starts_with("$(") || word.text.starts_with('`'));
            if whole && let Some(files) = self.printed(start) {
                self.sub_outputs.insert(word.text.clone(), files);
            }
        }
    }

    /// The names printed by what was walked since command `start`, when
    /// that was one `find` printing names (`find src -name '*.rs'`), as
    /// arguments standing for what lies beneath its starting points that
    /// its expression selects. The names reach the next command as text
    /// that is split ([`crate::effects::Filter::split`]).
    fn printed(&mut self, start: usize) -> Option<Names> {
        if self.out.commands.len() != start + 1 {
            return None;
        }
        let args = self.outputs.remove(&start)?;
        let args = args
            .into_iter()
            .map(|a| {
                let filter = a.filter.clone().unwrap_or(crate::effects::Filter {
                    files: crate::effects::NameTest::Any,
                    dirs: crate::effects::NameTest::Any,
                    split: true,
                    ignores: None,
                });
                Arg {
                    pattern: Some(PRINTED.into()),
                    filter: Some(crate::effects::Filter {
                        split: true,
                        ..filter
                    }),
                    ..a
                }
            })
            .collect();
        Some(Rc::new(args))
    }

    /// Loop values a `for NAME in WORDS` loop binds one at a time: the
    /// words expanded (globs against the file system), when each is
    /// literal, there are at most [`LOOP_VALUES`] of them, and nothing
    /// makes assigning the name evaluate its value.
    fn loop_values(
        &mut self,
        words: &[Word],
        binds: Option<&[String]>,
        scope: &Scope,
    ) -> Option<(String, Vec<String>)> {
        let [name] = binds? else { return None };
        if self.vars_off
            || self.frozen.contains(name)
            || self.evaluates_assignment(name)
            || tables::changes_what_runs(name)
            || words
                .iter()
                .any(|w| !w.subs.is_empty() || !w.evals.is_empty())
        {
            return None;
        }
        let dir = Self::work_dir(self.opts, scope);
        let mut args = Vec::new();
        for w in words {
            self.expand(w, dir.as_deref(), &scope.vars, &mut args);
            if args.len() > LOOP_VALUES {
                return None;
            }
        }
        if args.is_empty() || args.iter().any(|a| !a.literal) || args.len() > self.loop_rounds_left
        {
            return None;
        }
        self.loop_rounds_left -= args.len();
        Some((name.clone(), args.into_iter().map(|a| a.text).collect()))
    }

    /// Whether the variable a `for NAME in WORDS` loop binds holds an
    /// integer in every round: every word is a literal integer. A variable
    /// whose assignment evaluates the value (`declare -i`, `-n`) bound to
    /// anything else is an unknown.
    fn int_binds(&mut self, words: &[Word], binds: Option<&[String]>, scope: &Scope) -> bool {
        let Some(binds) = binds.filter(|b| !b.is_empty()) else {
            return false;
        };
        // Globs are not expanded for this: a file name is no integer.
        let globs = words.iter().any(|w| w.text.contains(['*', '?', '[']));
        let dir = Self::work_dir(self.opts, scope);
        let mut args = Vec::new();
        if !globs {
            for w in words {
                self.expand(w, dir.as_deref(), &scope.vars, &mut args);
            }
        }
        let integers = !args.is_empty()
            && args.iter().all(|a| {
                let digits = a.text.strip_prefix('-').unwrap_or(&a.text);
                a.literal && !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
            });
        for name in binds {
            if tables::changes_what_runs(name) {
                self.unknown(
                    format!("the loop assigns `{name}`, which changes what later commands run"),
                    None,
                );
            }
            if !integers && self.evaluates_assignment(name) {
                self.unknown(
                    format!(
                        "the loop assigns `{name}`, whose integer or name-reference attribute evaluates each value"
                    ),
                    None,
                );
            }
        }
        integers
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
            // A function named `pwd` prints what it likes.
            cwd: dir.filter(|_| !self.functions.contains_key("pwd")),
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

/// Whether what follows `node` runs only when every part of it succeeded:
/// an and-or list that ends in `|| exit` or `|| return`.
fn exits_on_failure(node: &Node) -> bool {
    match node {
        Node::AndOr(_, rest) => rest
            .last()
            .is_some_and(|(op, next)| *op == AndOrOp::Or && is_exit(next)),
        _ => false,
    }
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

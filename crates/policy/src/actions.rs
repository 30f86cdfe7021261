//! From a validated call to the actions it implies: paths read or written,
//! each simple command of a shell command (with the files and URLs it
//! touches), URLs fetched, or the tool itself.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use toolgate_shell as shell;

use crate::catalog::{Kind, Target};
use crate::paths::{self, Resolved};
use crate::pattern::canonical_command;
use crate::urls::{self, FetchTarget};
use crate::validate::Spec;

/// How an action arose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// The tool's own target.
    Direct,
    /// A shell redirect, of the command at this item index when it belongs
    /// to one (not to a compound command): with no rule matching, the
    /// policy's default.
    Redirect(Option<usize>),
    /// An operand of the command at this item index: with no rule
    /// matching, that command's decision.
    Operand(usize),
    /// A file or URL named by an argument of the command at this item
    /// index, a program with no operand table: it may read, write or fetch
    /// it, or not, so only deny and ask rules count, and they make it ask.
    Argument(usize),
}

/// One action, before deciding.
#[derive(Debug, Clone)]
pub enum What {
    /// A path read (`write: false`) or written.
    Path {
        /// Write rather than read.
        write: bool,
        /// As written.
        written: String,
        /// Resolved.
        resolved: Resolved,
        /// Covers everything beneath a directory.
        recursive: bool,
        /// Removes the target.
        delete: bool,
        /// For a recursive read: the entries beneath it reaches, by name
        /// (`grep -r --include='*.rs'`); `None` for all of them.
        filter: Option<shell::Filter>,
        /// The client may act on another file than this one: it corrects
        /// a relative path that names no file to a file found in its
        /// workspace (Gemini CLI's `replace`). Asks unless denied.
        corrected: bool,
        /// A read of names, sizes and times only, never of the bytes
        /// (`ls`, `stat`, `du`, `tree`, the directories `find` walks): the
        /// read roots do not limit it; rules and credential locations do.
        listing: bool,
        /// A recursive listing lists every directory it reaches whole
        /// (`find -exec ls {} +`), not only the names its filter shows.
        whole_dirs: bool,
        /// A read of what git tracks beneath the path, or in the
        /// repository holding it (`git diff`, `git log -p`): the index's
        /// entries meet the rules, not what the directory holds.
        tracked: Option<shell::Tracked>,
    },
    /// One simple command.
    Exec {
        /// The argv after wrappers.
        argv: Vec<String>,
        /// Its canonical text.
        canonical: String,
        /// Stripped wrappers.
        wrappers: Vec<Vec<String>>,
        /// For a command a runner runs (`npx rm -rf src`, `uv run pytest`):
        /// the runner's words and the command's, as written together, with
        /// their canonical text. Rules meet the command this way too, so
        /// that an allow of the runner (`Bash(npx prettier *)`) covers what
        /// it runs.
        runner_argv: Option<(Vec<String>, String)>,
        /// Where it runs, when the command changed the directory first.
        cwd: Option<std::path::PathBuf>,
        /// Known to only read or list.
        read_only: bool,
        /// Source text.
        text: String,
        /// Runs nothing (`:`, `true`, `test`, `[[ .. ]]`, `N=23`): with no
        /// rule matching, it is allowed, since it does nothing a rule could
        /// be about; what its words expand and its redirects are actions
        /// of their own.
        no_op: bool,
    },
    /// A URL.
    Fetch {
        /// The URL as written.
        url: String,
        /// It normalised, or why it cannot be read.
        target: Result<FetchTarget, urls::UrlError>,
    },
    /// The tool itself, by name.
    Tool {
        /// The declared field's value.
        value: Option<String>,
    },
    /// Something that could not be analysed.
    Unknown {
        /// Why.
        reason: String,
    },
    /// A catastrophic shape.
    Hazard {
        /// Stable name.
        kind: String,
        /// Why.
        reason: String,
    },
}

/// An action and how it arose.
#[derive(Debug, Clone)]
pub struct Item {
    /// The action.
    pub what: What,
    /// Its origin.
    pub via: Via,
}

/// What deriving needs to know about the environment.
pub struct DeriveEnv<'a> {
    /// The directory relative paths resolve against, its links followed:
    /// where a command runs.
    pub cwd: &'a Path,
    /// The same directory as the call names it, `.` and `..` removed as
    /// text but its links not followed: a client joins the paths its tools
    /// are given to this, as text.
    pub text_cwd: &'a Path,
    /// Who opens the paths the call's tool names: the client (every client
    /// but toolgate itself), or the kernel (toolgate's own tools).
    pub opener: paths::Opener,
    /// `~`.
    pub home: Option<&'a Path>,
    /// Directories known to be canonical (the roots).
    pub canonical: &'a [PathBuf],
    /// The path components looked at so far in this decision.
    pub seen: &'a paths::Lookups,
}

fn direct(what: What) -> Item {
    Item {
        what,
        via: Via::Direct,
    }
}

/// A path the call's tool names, resolved as its opener resolves it:
/// against the call's working directory as the client has it, `..`
/// removed as text, for a client's tool; through the kernel for
/// toolgate's own.
fn path_item(
    written: &str,
    write: bool,
    recursive: bool,
    delete: bool,
    env: &DeriveEnv<'_>,
) -> What {
    let cwd = match env.opener {
        paths::Opener::Client => env.text_cwd,
        paths::Opener::Kernel | paths::Opener::Command => env.cwd,
    };
    path_item_for(written, write, recursive, delete, cwd, env, env.opener)
}

/// [`path_item`] of a path opened by `opener` (a shell command's, a
/// client's tool's or toolgate's own; see [`paths::resolve_for`]).
fn path_item_for(
    written: &str,
    write: bool,
    recursive: bool,
    delete: bool,
    cwd: &Path,
    env: &DeriveEnv<'_>,
    opener: paths::Opener,
) -> What {
    What::Path {
        write,
        written: written.to_string(),
        resolved: paths::resolve_for(written, cwd, env.home, env.canonical, env.seen, opener),
        recursive,
        delete,
        filter: None,
        corrected: false,
        listing: false,
        whole_dirs: false,
        tracked: None,
    }
}

/// A path a declared tool names. Whether its server removes `..` as text
/// (Node's `path.resolve`, Go's `filepath.Clean`) or has the kernel follow
/// links first (Python's `Path.resolve`, `realpath`) is not known, so where
/// the two differ both are decided.
fn declared_path_items(written: &str, write: bool, env: &DeriveEnv<'_>, items: &mut Vec<Item>) {
    let text = path_item_for(
        written,
        write,
        false,
        false,
        env.text_cwd,
        env,
        paths::Opener::Client,
    );
    let kernel = path_item_for(
        written,
        write,
        false,
        false,
        env.cwd,
        env,
        paths::Opener::Kernel,
    );
    let differ = match (&text, &kernel) {
        (What::Path { resolved: a, .. }, What::Path { resolved: b, .. }) => a != b,
        _ => true,
    };
    items.push(direct(text));
    if differ {
        items.push(direct(kernel));
    }
}

/// What a client's ripgrep search (Claude Code's `Grep`) reads beneath a
/// directory: it passes `--hidden`, its `type` as `--type` and each
/// pattern of its `glob` as `--glob` (split at blanks, and at commas
/// outside a `{..}`). Ignore files are taken as not read, since the
/// client's ripgrep configuration is not known. A field of another type
/// than a string: everything.
fn ripgrep_filter(input: &Map<String, Value>) -> Option<shell::Filter> {
    let mut args: Vec<String> = vec!["--hidden".into(), "--no-ignore".into()];
    match input.get("type") {
        None | Some(Value::Null) => {}
        Some(Value::String(t)) => args.extend(["--type".into(), t.clone()]),
        Some(_) => return None,
    }
    match input.get("glob") {
        None | Some(Value::Null) => {}
        Some(Value::String(g)) => {
            for part in g.split_whitespace() {
                if part.contains('{') && part.contains('}') {
                    args.extend(["--glob".into(), part.to_string()]);
                } else {
                    for p in part.split(',').filter(|p| !p.is_empty()) {
                        args.extend(["--glob".into(), p.to_string()]);
                    }
                }
            }
        }
        Some(_) => return None,
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    shell::ripgrep_filter(&args)
}

/// Derives the actions of a call whose input has been validated.
pub fn derive(spec: Spec<'_>, input: &Map<String, Value>, env: &DeriveEnv<'_>) -> Vec<Item> {
    let mut items = Vec::new();
    match spec {
        Spec::Unknown => items.push(direct(What::Tool { value: None })),
        Spec::Declared(d) => {
            let given = d.field.as_ref().and_then(|f| input.get(f));
            // A list (validated to hold only strings) names several
            // targets: each is decided.
            if let (Kind::Read | Kind::Write | Kind::Fetch, Some(Value::Array(list))) =
                (d.kind, given)
            {
                for v in list.iter().filter_map(Value::as_str) {
                    match d.kind {
                        Kind::Fetch => items.push(direct(fetch(v))),
                        kind => declared_path_items(v, kind == Kind::Write, env, &mut items),
                    }
                }
                if list.is_empty() {
                    items.push(direct(What::Tool { value: None }));
                }
                return items;
            }
            let value = given.and_then(Value::as_str).map(str::to_string);
            match (d.kind, value) {
                (Kind::Read, Some(v)) => declared_path_items(&v, false, env, &mut items),
                (Kind::Write, Some(v)) => declared_path_items(&v, true, env, &mut items),
                (Kind::Exec, Some(v)) => {
                    shell_items(shell::analyze(&v, &shell_opts(env)), env, None, &mut items)
                }
                (Kind::Fetch, Some(v)) => items.push(direct(fetch(&v))),
                (_, value) => items.push(direct(What::Tool { value })),
            }
        }
        Spec::Catalog(s) => {
            match s.target {
                // A missing optional path means the working directory.
                // Every field the client might read the path from is a
                // target: which one a client prefers when several are given
                // differs between clients and versions, and a call that
                // names an allowed path in one field and a denied one in
                // another must not be decided on the first alone.
                Target::Path(fields) | Target::OptionalPath(fields) => {
                    let mut given: Vec<Cow<'_, str>> = fields
                        .iter()
                        .filter_map(|f| input.get(*f))
                        .flat_map(strings)
                        .flat_map(|p| {
                            if s.pi_paths {
                                [Some(Cow::Owned(pi_expanded(p, env.home))), None]
                            } else {
                                [
                                    Some(Cow::Borrowed(p)),
                                    s.at_prefix
                                        .then(|| at_stripped(p))
                                        .flatten()
                                        .map(Cow::Borrowed),
                                ]
                            }
                        })
                        .flatten()
                        .collect();
                    given.dedup();
                    if given.is_empty() && matches!(s.target, Target::OptionalPath(_)) {
                        given.push(Cow::Borrowed("."));
                    }
                    if s.read_variants {
                        for p in &given {
                            if let Some(reason) = read_variant(p, env.text_cwd) {
                                items.push(direct(What::Unknown { reason }));
                            }
                        }
                    }
                    let write = s.kind == Kind::Write;
                    // The path the client may correct, and the files found
                    // that it may mean instead.
                    let correction = s
                        .corrects_path
                        .and_then(|f| input.get(f).and_then(Value::as_str))
                        .and_then(|p| corrections(p, env.text_cwd).map(|found| (p, found)));
                    let searched = s.ripgrep.then(|| ripgrep_filter(input)).flatten();
                    for p in &given {
                        let mut what = path_item(p, write, s.recursive, false, env);
                        if let What::Path {
                            corrected, filter, ..
                        } = &mut what
                        {
                            *corrected = correction.as_ref().is_some_and(|(c, _)| *c == p.as_ref());
                            filter.clone_from(&searched);
                        }
                        items.push(direct(what));
                    }
                    for found in correction.into_iter().flat_map(|(_, found)| found) {
                        items.push(direct(path_item(
                            &found.to_string_lossy(),
                            write,
                            s.recursive,
                            false,
                            env,
                        )));
                    }
                }
                Target::Glob { dir, pattern } => {
                    // The client searches the directory in the first field,
                    // or the working directory; a field it ignores is
                    // decided as well, so that where the pattern leads is
                    // checked from every directory the call may mean.
                    let mut bases: Vec<&str> = dir
                        .iter()
                        .filter_map(|f| input.get(*f))
                        .flat_map(strings)
                        .collect();
                    if dir
                        .first()
                        .is_none_or(|f| input.get(*f).map(strings).is_none_or(|v| v.is_empty()))
                    {
                        bases.insert(0, ".");
                    }
                    bases.dedup();
                    let pattern = input.get(pattern).and_then(Value::as_str);
                    let reach = pattern.map(glob_reach);
                    if let Some(Err(reason)) = &reach {
                        items.push(direct(What::Unknown {
                            reason: reason.clone(),
                        }));
                    }
                    for base in bases {
                        items.push(direct(path_item(base, false, false, false, env)));
                        // Where the pattern leaves the directory (it is
                        // absolute, or climbs with `..`), what it lists
                        // lies beneath where it leads.
                        for r in reach.iter().flatten().flatten() {
                            let target = if r.starts_with(['/', '~']) {
                                r.clone()
                            } else if r == ".." || r.starts_with("../") {
                                format!("{}/{r}", base.trim_end_matches('/'))
                            } else {
                                continue;
                            };
                            items.push(direct(path_item(&target, false, true, false, env)));
                        }
                    }
                }
                Target::Paths(fields) => {
                    for p in fields
                        .iter()
                        .filter_map(|f| input.get(*f).and_then(Value::as_array))
                        .flatten()
                        .filter_map(Value::as_str)
                    {
                        // A glob names whatever lies beneath where it
                        // leads.
                        let reach = match glob_reach(p) {
                            Ok(reach) => reach,
                            Err(reason) => {
                                items.push(direct(What::Unknown { reason }));
                                continue;
                            }
                        };
                        for base in reach {
                            items.push(direct(path_item(&base, false, true, false, env)));
                            // A client that ignores case reads every path
                            // that differs from it in case alone.
                            if !s.nocase {
                                continue;
                            }
                            match case_variants(&base, env.text_cwd) {
                                Some(found) => {
                                    for v in found {
                                        items.push(direct(path_item(
                                            &v.to_string_lossy(),
                                            false,
                                            true,
                                            false,
                                            env,
                                        )));
                                    }
                                }
                                None => items.push(direct(What::Unknown {
                                    reason: format!(
                                        "`{base}` is matched without regard to case, and too \
                                         many paths differ from it in case alone to decide"
                                    ),
                                })),
                            }
                        }
                    }
                }
                // A command string, or an argv array analysed exactly as
                // if its words had been quoted and joined.
                Target::Command(field) | Target::Argv(field) => {
                    let script = match (s.target, input.get(field)) {
                        (Target::Argv(_), Some(Value::Array(words))) => {
                            let argv: Vec<String> = words
                                .iter()
                                .filter_map(|v| v.as_str().map(str::to_string))
                                .collect();
                            shell_words::join(&argv)
                        }
                        (_, v) => v.and_then(Value::as_str).unwrap_or("").to_string(),
                    };
                    let (cwd, extra) = shell_cwd(s.cwd_field, input, env);
                    items.extend(extra);
                    let env2 = DeriveEnv {
                        cwd: &cwd,
                        text_cwd: &cwd,
                        opener: env.opener,
                        home: env.home,
                        canonical: env.canonical,
                        seen: env.seen,
                    };
                    let start = (cwd.as_path() != env.cwd).then_some(cwd.as_path());
                    shell_items(
                        shell::analyze(&script, &shell_opts(&env2)),
                        &env2,
                        start,
                        &mut items,
                    );
                }
                Target::Url(field) => {
                    if let Some(u) = input.get(field).and_then(Value::as_str) {
                        items.push(direct(fetch(u)));
                    }
                }
                Target::UrlsIn(field) => {
                    let text = input.get(field).and_then(Value::as_str).unwrap_or("");
                    let urls = urls_in(text);
                    if urls.is_empty() {
                        items.push(direct(What::Tool { value: None }));
                    }
                    for u in urls {
                        items.push(direct(fetch(&u)));
                    }
                }
                Target::Patch(fields) => {
                    // As for paths: every field a client might take the
                    // patch from counts.
                    let mut files = Vec::new();
                    for f in fields {
                        if let Some(patch) = input.get(*f).and_then(Value::as_str) {
                            let (named, unknown) = patch_files(patch);
                            files.extend(named);
                            if let Some(reason) = unknown {
                                items.push(direct(What::Unknown { reason }));
                            }
                        }
                    }
                    if files.is_empty() {
                        items.push(direct(What::Unknown {
                            reason: "the patch names no file".into(),
                        }));
                    }
                    for (p, delete) in files {
                        items.push(direct(path_item(&p, true, false, delete, env)));
                    }
                }
                Target::Field(field) => items.push(direct(What::Tool {
                    value: input.get(field).and_then(Value::as_str).map(str::to_string),
                })),
                Target::None => items.push(direct(What::Tool { value: None })),
            }
        }
    }
    items
}

fn shell_opts(env: &DeriveEnv<'_>) -> shell::Options {
    shell::Options {
        cwd: Some(env.cwd.to_path_buf()),
        home: env.home.map(Path::to_path_buf),
        ..shell::Options::default()
    }
}

/// The working directory a shell tool names (Gemini's `dir_path`, Codex's
/// `workdir`): commands run there, and it is itself read.
fn shell_cwd(
    fields: Option<&[&str]>,
    input: &Map<String, Value>,
    env: &DeriveEnv<'_>,
) -> (PathBuf, Vec<Item>) {
    let given: Vec<&str> = fields
        .unwrap_or(&[])
        .iter()
        .filter_map(|f| input.get(*f).and_then(Value::as_str))
        .collect();
    // Two different working directories: which one the client runs in is
    // not for toolgate to guess.
    if given.windows(2).any(|w| w[0] != w[1]) {
        return (
            env.cwd.to_path_buf(),
            vec![direct(What::Unknown {
                reason: format!(
                    "the call names two working directories (`{}` and `{}`)",
                    given[0], given[1]
                ),
            })],
        );
    }
    if let Some(dir) = given.first().copied() {
        let what = path_item(dir, false, false, false, env);
        let cwd = match &what {
            What::Path { resolved, .. } => resolved.best().unwrap_or(env.cwd).to_path_buf(),
            _ => env.cwd.to_path_buf(),
        };
        return (cwd, vec![direct(what)]);
    }
    (env.cwd.to_path_buf(), Vec::new())
}

fn fetch(url: &str) -> What {
    What::Fetch {
        url: url.to_string(),
        target: urls::normalize(url),
    }
}

/// Turns a shell analysis into items: commands first, then the files and
/// URLs they touch, then what could not be analysed, then hazards. The
/// analysis is consumed: its strings move into the items. `start`: the
/// directory the commands start in when the call names one of its own (a
/// shell tool's `workdir`), kept on each command that does not move.
pub fn shell_items(
    a: shell::Analysis,
    env: &DeriveEnv<'_>,
    start: Option<&Path>,
    items: &mut Vec<Item>,
) {
    let base = items.len();
    let commands = a.commands.len();
    items.reserve(commands + a.effects.len() + a.unknowns.len() + a.hazards.len());
    for c in a.commands {
        let runner_argv = c
            .wrappers
            .iter()
            .position(|w| shell::is_runner(w))
            .map(|at| {
                let mut joined: Vec<String> = c.wrappers[at..].concat();
                joined.extend(c.argv.iter().cloned());
                let canonical = canonical_command(&joined);
                (joined, canonical)
            });
        items.push(direct(What::Exec {
            canonical: canonical_command(&c.argv),
            runner_argv,
            argv: c.argv,
            wrappers: c.wrappers,
            cwd: c.cwd.or_else(|| start.map(Path::to_path_buf)),
            read_only: c.read_only,
            text: c.text,
            no_op: c.no_op,
        }));
    }
    let name_of = |items: &[Item], i: Option<usize>| -> String {
        let argv = i
            .filter(|&i| i < commands)
            .and_then(|i| items.get(base + i))
            .and_then(|item| match &item.what {
                What::Exec { argv, .. } => argv.first(),
                _ => None,
            });
        argv.cloned().unwrap_or_else(|| "the command".into())
    };
    for e in a.effects {
        let via = match (e.origin, e.command) {
            (shell::Origin::Operand, Some(ci)) if ci < commands => Via::Operand(base + ci),
            (shell::Origin::Argument, Some(ci)) if ci < commands => Via::Argument(base + ci),
            // An argument belongs to a command; without one it says nothing.
            (shell::Origin::Argument, _) => continue,
            (shell::Origin::Redirect, Some(ci)) if ci < commands => Via::Redirect(Some(base + ci)),
            _ => Via::Redirect(None),
        };
        if !e.literal {
            let reason = format!(
                "{} `{}` of `{}` is not a literal, so the file it names cannot be checked",
                match e.origin {
                    shell::Origin::Redirect => "redirect target",
                    shell::Origin::Operand => "operand",
                    shell::Origin::Argument => "argument",
                },
                e.target,
                name_of(items, e.command)
            );
            items.push(Item {
                what: What::Unknown { reason },
                via,
            });
            continue;
        }
        let cwd = e.cwd.as_deref().unwrap_or(env.cwd);
        let what = match e.kind {
            // A recursive read or write keeps what it reaches beneath
            // (`grep -r --include`, `find . -name '*.o' -delete`).
            shell::EffectKind::Read | shell::EffectKind::Write => {
                let write = e.kind == shell::EffectKind::Write;
                match path_item_for(
                    &e.target,
                    write,
                    e.recursive,
                    e.delete,
                    cwd,
                    env,
                    paths::Opener::Command,
                ) {
                    What::Path {
                        write,
                        written,
                        resolved,
                        recursive,
                        delete,
                        corrected,
                        ..
                    } => What::Path {
                        write,
                        written,
                        resolved,
                        recursive,
                        delete,
                        filter: e.filter,
                        corrected,
                        listing: e.listing && !write,
                        whole_dirs: e.whole_dirs,
                        // A write of what git tracks is a rewrite of the
                        // whole repository's files (`git checkout BRANCH`),
                        // or a removal of the work tree's (`git stash -u`).
                        tracked: e.tracked.filter(|t| {
                            !write
                                || matches!(
                                    t,
                                    shell::Tracked::Repository | shell::Tracked::WorkTree
                                )
                        }),
                    },
                    other => other,
                }
            }
            shell::EffectKind::Fetch => fetch(&e.target),
        };
        items.push(Item { what, via });
    }
    for u in a.unknowns {
        items.push(direct(What::Unknown { reason: u.reason }));
    }
    // A statement that only assigns (`N=23`) runs nothing: an action that
    // needs no rule, so that it is not taken for a call with nothing in it.
    for text in a.assignments {
        items.push(direct(What::Exec {
            canonical: canonical_command(std::slice::from_ref(&text)),
            argv: vec![text.clone()],
            wrappers: Vec::new(),
            runner_argv: None,
            cwd: None,
            read_only: true,
            text,
            no_op: true,
        }));
    }
    for h in a.hazards {
        items.push(direct(What::Hazard {
            kind: h.kind.to_string(),
            reason: h.reason,
        }));
    }
    if items.len() == base {
        items.push(direct(What::Unknown {
            reason: "the command contains nothing to run".into(),
        }));
    }
}

/// How many directories [`corrections`] searches, and how many entries it
/// looks at, before it stops (Gemini CLI searches 50 directories, not
/// counting those it ignores). A call it applies to asks in any case.
const CORRECTION_DIRS: usize = 1_000;
const CORRECTION_ENTRIES: usize = 50_000;

/// How many paths [`case_variants`] may find for one path.
const CASE_VARIANTS: usize = 64;

/// Node's `path.join(cwd, p)`: `p` beneath `cwd` even when it begins with
/// `/`, `.` and `..` removed by text.
fn node_join(cwd: &Path, p: &str) -> PathBuf {
    paths::normalize_lexically(&cwd.join(p.trim_start_matches('/')))
}

/// Node's `path.resolve(cwd, p)`.
fn node_resolve(cwd: &Path, p: &str) -> PathBuf {
    paths::normalize_lexically(&cwd.join(p))
}

/// The path Gemini CLI 0.61.0 takes `p` for (`resolveDefensiveToolPath`):
/// NUL bytes dropped; `@name` read as `name` unless a file is named
/// `@name`, or the first segment `@dir` exists.
fn defensive_path(p: &str, cwd: &Path) -> String {
    let clean = p.replace('\0', "");
    if node_resolve(cwd, &clean).exists() {
        return clean;
    }
    if clean.len() > 1
        && let Some(rest) = clean.strip_prefix('@')
    {
        let stripped = rest.trim_start_matches(['/', '\\']);
        if rest.starts_with(['/', '\\']) {
            return if stripped.is_empty() {
                clean.clone()
            } else {
                stripped.to_string()
            };
        }
        let first = stripped.split(['/', '\\']).next().unwrap_or("");
        if !first.is_empty() {
            if node_resolve(cwd, &format!("@{first}")).exists() {
                return clean;
            }
            return stripped.to_string();
        }
    }
    clean
}

/// The files Gemini CLI 0.61.0's `replace` may edit in place of a
/// `file_path` (`correctPath`), or `None` when it edits the path as
/// written. It corrects a relative path (one not beginning with `/`) when
/// no file exists there (after [`defensive_path`]): it searches each
/// workspace directory breadth-first (50 directories, not following
/// links, leaving out what `.gitignore` and `.geminiignore` ignore) for
/// regular files with the path's last name whose path, as text, ends with
/// the path written, and edits the one found; with none or several, it
/// edits the path as written. Searched here: the working directory, with
/// nothing left out (so that what the client finds there is found), as far
/// as [`CORRECTION_DIRS`] allow. Its other workspace directories
/// (`--include-directories`) cannot be known here.
fn corrections(p: &str, cwd: &Path) -> Option<Vec<PathBuf>> {
    if p.starts_with('/') {
        return None;
    }
    let sanitized = defensive_path(p, cwd);
    if node_join(cwd, &sanitized).exists() {
        return None;
    }
    let target = sanitized.replace('\\', "/");
    let name = sanitized
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("")
        .to_string();
    let mut found = Vec::new();
    if name.is_empty() {
        return Some(found);
    }
    let mut queue = std::collections::VecDeque::from([cwd.to_path_buf()]);
    let (mut dirs, mut entries) = (0usize, 0usize);
    while let Some(dir) = queue.pop_front() {
        dirs += 1;
        if dirs > CORRECTION_DIRS {
            break;
        }
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            entries += 1;
            if entries > CORRECTION_ENTRIES {
                return Some(found);
            }
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                queue.push_back(e.path());
            } else if ft.is_file() && e.file_name().to_string_lossy() == name {
                let full = e.path();
                if full.to_string_lossy().replace('\\', "/").ends_with(&target) {
                    found.push(full);
                }
            }
        }
    }
    Some(found)
}

/// The existing paths that differ from `written` in the case of letters
/// alone, the way a glob matched with `nocase` finds them (Gemini CLI's
/// `read_many_files`), `written` itself left out; `None` when there are
/// more than [`CASE_VARIANTS`].
fn case_variants(written: &str, cwd: &Path) -> Option<Vec<PathBuf>> {
    use std::path::Component;
    let start = if written.starts_with('/') {
        PathBuf::from("/")
    } else {
        paths::normalize_lexically(cwd)
    };
    let mut current = vec![start];
    for c in Path::new(written).components() {
        match c {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            // As text, as the client's glob takes it (a link's `..` is
            // the directory holding the link).
            Component::ParentDir => {
                for p in &mut current {
                    p.pop();
                }
                current.dedup();
            }
            Component::Normal(n) => {
                let want = n.to_string_lossy().to_lowercase();
                let mut next = Vec::new();
                for dir in &current {
                    let Ok(rd) = std::fs::read_dir(dir) else {
                        continue;
                    };
                    for e in rd.flatten() {
                        if e.file_name().to_string_lossy().to_lowercase() == want {
                            next.push(dir.join(e.file_name()));
                        }
                    }
                }
                if next.len() > CASE_VARIANTS {
                    return None;
                }
                current = next;
            }
        }
    }
    let as_written = paths::normalize_lexically(&cwd.join(written));
    current.retain(|p| paths::normalize_lexically(p) != as_written);
    Some(current)
}

/// The path Gemini CLI reads for `@name` when no file is named so
/// (`resolveDefensiveToolPath`): the name without the `@` and the
/// separators after it. `None` when the path has no such prefix.
/// The strings of a field: itself, or a list's (Copilot CLI's `paths`).
fn strings(v: &Value) -> Vec<&str> {
    match v {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// A path as Pi resolves it (`expandPath`): one leading `@` dropped,
/// Unicode spaces read as plain ones, `~` and `~/` in front the home
/// directory.
fn pi_expanded(p: &str, home: Option<&Path>) -> String {
    let p = p.strip_prefix('@').unwrap_or(p);
    let p: String = p
        .chars()
        .map(|c| match c {
            '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
            c => c,
        })
        .collect();
    match (home, p.strip_prefix('~')) {
        (Some(h), Some(rest)) if rest.is_empty() || rest.starts_with('/') => {
            format!("{}{rest}", h.display())
        }
        _ => p,
    }
}

/// Why a path Pi's `read` is given may lead it to another file: it names
/// no file, and Pi then tries the name in Unicode's decomposed form, with
/// a curly apostrophe for `'`, and with a narrow space before `AM.` or
/// `PM.` (`resolveReadPath`).
fn read_variant(p: &str, cwd: &Path) -> Option<String> {
    let lower = p.to_ascii_lowercase();
    let varies =
        !p.is_ascii() || p.contains('\'') || lower.contains(" am.") || lower.contains(" pm.");
    if !varies || node_resolve(cwd, p).symlink_metadata().is_ok() {
        return None;
    }
    Some(format!(
        "`{p}` names no file, and Pi then reads a file whose name differs in Unicode form, apostrophe or spacing"
    ))
}

fn at_stripped(p: &str) -> Option<&str> {
    let rest = p.strip_prefix('@')?.trim_start_matches(['/', '\\']);
    (!rest.is_empty()).then_some(rest)
}

/// How many patterns the `{..}` alternatives of one glob may expand to
/// before the glob is not analysed.
const BRACE_EXPANSIONS: usize = 256;

/// A pattern segment as the clients' glob libraries read it when it holds
/// no wildcard once simplified (minimatch removes backslash escapes and
/// reads a class of one character as that character, so `[.][.]` and
/// `\.\.` are `..` to it): the literal name, or `None` for a segment
/// that matches entries of a directory listing (which never holds `..`).
fn literal_segment(seg: &str) -> Option<String> {
    let mut out = String::with_capacity(seg.len());
    let mut chars = seg.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next().unwrap_or('\\')),
            '[' => {
                // One character, maybe escaped, then `]`.
                let mut one = chars.next()?;
                if one == '\\' {
                    one = chars.next()?;
                } else if matches!(one, '!' | '^' | ']') {
                    return None;
                }
                if chars.next()? != ']' {
                    return None;
                }
                out.push(one);
            }
            '*' | '?' | '{' | '(' => return None,
            // An extglob's `@(`, `!(`, `+(`: the `(` above decides.
            c => out.push(c),
        }
    }
    Some(out)
}

/// Where a glob pattern leads: for each pattern its `{..}` alternatives
/// expand to, the directory beneath which everything it matches lies,
/// relative to where it is matched unless it begins with `/` or `~`. That
/// is its literal part in front of the first wildcard, with `.` and `..`
/// taken as text wherever they come: `*` is one directory, so
/// `*/../../x/*` leads to `../x`, and `**` may be none, so `**/..` climbs
/// above what is in front of it. A pattern with no wildcard is itself.
/// `Err` says why it cannot be told: too many alternatives, or one that
/// begins with `/` or `~` after the pattern's start.
fn glob_reach(pattern: &str) -> Result<Vec<String>, String> {
    #[derive(Clone, Copy, PartialEq)]
    enum Seg<'a> {
        Up,
        Name(&'a str),
        One,
        Any,
    }
    fn up(stack: &mut Vec<Seg<'_>>, absolute: bool) {
        match stack.pop() {
            Some(Seg::Name(_) | Seg::One) => {}
            Some(Seg::Any) => {
                up(stack, absolute);
                stack.push(Seg::Any);
            }
            Some(Seg::Up) => stack.extend([Seg::Up, Seg::Up]),
            None if absolute => {}
            None => stack.push(Seg::Up),
        }
    }
    let mut out: Vec<String> = Vec::new();
    for p in brace_expand(pattern, BRACE_EXPANSIONS)? {
        let absolute = p.starts_with('/');
        let literals: Vec<Option<String>> = p.split('/').map(literal_segment).collect();
        let mut stack: Vec<Seg<'_>> = Vec::new();
        for (seg, literal) in p.split('/').zip(&literals) {
            match literal.as_deref() {
                Some("" | ".") => {}
                Some("..") => up(&mut stack, absolute),
                Some(name) => stack.push(Seg::Name(name)),
                None if seg == "**" => stack.push(Seg::Any),
                None => stack.push(Seg::One),
            }
        }
        let lit: Vec<&str> = stack
            .iter()
            .map_while(|s| match s {
                Seg::Up => Some(".."),
                Seg::Name(n) => Some(*n),
                Seg::One | Seg::Any => None,
            })
            .collect();
        let joined = lit.join("/");
        let r = match (absolute, joined.is_empty()) {
            (true, _) => format!("/{joined}"),
            (false, true) => ".".to_string(),
            (false, false) => joined,
        };
        if !out.contains(&r) {
            out.push(r);
        }
    }
    Ok(out)
}

/// The patterns a glob's `{a,b}` alternatives expand to (nested ones too;
/// a `{..}` with no comma stays as written), at most `limit`. An
/// alternative that begins with `/` or `~` anywhere but at the start of
/// the pattern, or more than `limit` patterns, cannot be analysed.
fn brace_expand(pattern: &str, limit: usize) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    let mut work = vec![pattern.to_string()];
    while let Some(p) = work.pop() {
        let Some((open, close, commas)) = brace_group(&p) else {
            if !out.contains(&p) {
                out.push(p);
            }
            continue;
        };
        let mut alternatives = Vec::new();
        let mut start = open + 1;
        for &end in commas.iter().chain(std::iter::once(&close)) {
            alternatives.push(&p[start..end]);
            start = end + 1;
        }
        if open > 0 && alternatives.iter().any(|a| a.starts_with(['/', '~'])) {
            return Err(format!(
                "the pattern `{pattern}` has an alternative that begins with `/` or `~`, so \
                 where it leads cannot be told"
            ));
        }
        for a in alternatives {
            work.push(format!("{}{a}{}", &p[..open], &p[close + 1..]));
        }
        if work.len() + out.len() > limit {
            return Err(format!(
                "the pattern `{pattern}` has more than {limit} alternatives to decide"
            ));
        }
    }
    Ok(out)
}

/// The first `{..}` of `p` that holds a comma outside any inner braces:
/// where it opens and closes, and where its commas are. A `\` escapes the
/// character after it.
fn brace_group(p: &str) -> Option<(usize, usize, Vec<usize>)> {
    let b = p.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'{' => {
                let (mut depth, mut j, mut commas) = (0usize, i + 1, Vec::new());
                while j < b.len() {
                    match b[j] {
                        b'\\' => j += 1,
                        b'{' => depth += 1,
                        b'}' if depth == 0 => break,
                        b'}' => depth -= 1,
                        b',' if depth == 0 => commas.push(j),
                        _ => {}
                    }
                    j += 1;
                }
                if j < b.len() && !commas.is_empty() {
                    return Some((i, j, commas));
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    None
}

/// `http(s)://` URLs written in free text, the scheme in any case.
fn urls_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lower = text.to_ascii_lowercase();
    let mut at = 0;
    while let Some(i) = lower[at..].find("http") {
        let start = at + i;
        let cand = &lower[start..];
        if cand.starts_with("http://") || cand.starts_with("https://") {
            let len = text[start..]
                .find(|c: char| {
                    c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`' | ')' | ']')
                })
                .unwrap_or(text.len() - start);
            out.push(
                text[start..start + len]
                    .trim_end_matches(['.', ',', ';'])
                    .to_string(),
            );
            at = start + len;
        } else {
            at = start + 4;
        }
    }
    out
}

/// The files an `apply_patch` patch touches, and whether each is deleted.
/// The files a patch in the `apply_patch` format names, each with whether
/// it is deleted, and a reason when a line reads like a header that is
/// not understood. Headers are read as the most tolerant of the clients'
/// parsers reads them: Codex trims each header line (`\t*** Delete File:
/// x` is a header), OpenCode needs no space after the colon (`*** Add
/// File:x`); a line that begins with `***` and is none of the known
/// markers may be a header some client takes, so it is unanalysable.
fn patch_files(patch: &str) -> (Vec<(String, bool)>, Option<String>) {
    const HEADERS: [(&str, bool); 4] = [
        ("Add File:", false),
        ("Update File:", false),
        ("Delete File:", true),
        ("Move to:", false),
    ];
    let mut out = Vec::new();
    let mut unknown = None;
    for line in patch.lines() {
        let Some(rest) = line.trim().strip_prefix("***") else {
            continue;
        };
        let rest = rest.trim_start();
        // A rule of asterisks in a file's text, or a marker.
        if rest.is_empty()
            || rest.starts_with('*')
            || matches!(rest, "Begin Patch" | "End Patch" | "End of File")
        {
            continue;
        }
        match HEADERS
            .iter()
            .find_map(|(h, delete)| rest.strip_prefix(h).map(|p| (p.trim(), *delete)))
        {
            Some((p, delete)) if !p.is_empty() => out.push((p.to_string(), delete)),
            _ => {
                unknown.get_or_insert_with(|| {
                    format!(
                        "the patch has a line `{}` that reads like a header toolgate does not know",
                        line.trim()
                    )
                });
            }
        }
    }
    (out, unknown)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        let reach = |p: &str| glob_reach(p).unwrap();
        assert_eq!(reach("src/**/*.rs"), ["src"]);
        assert_eq!(reach("*.md"), ["."]);
        assert_eq!(reach("README.md"), ["README.md"]);
        assert_eq!(reach("/etc/*.conf"), ["/etc"]);
        assert_eq!(reach("/*/../../x/*"), ["/x"]);
        assert_eq!(reach("../x/*"), ["../x"]);
        assert_eq!(reach("*/../../x/*"), ["../x"]);
        assert_eq!(reach("src/*/../*.rs"), ["src"]);
        assert_eq!(reach("src/*/../../s/*"), ["s"]);
        assert_eq!(reach("**/../x/*"), [".."]);
        assert_eq!(reach("a/**/../../x"), [".."]);
        assert_eq!(reach("./a/./b/*"), ["a/b"]);
        assert_eq!(reach("src/[.][.]/secrets/*"), ["secrets"]);
        assert_eq!(reach(r"src/\.\./secrets/key"), ["secrets/key"]);
        assert_eq!(reach("[.][.]/*"), [".."]);
        assert_eq!(reach(r"[\.].[.]/*"), ["..."]);
        assert_eq!(reach("[.a]/x"), ["."]);
        assert_eq!(reach("[!.]/x"), ["."]);
        let mut r = reach("{src,../x}/*");
        r.sort();
        assert_eq!(r, ["../x", "src"]);
        let mut r = reach("{.,x}./o/*");
        r.sort();
        assert_eq!(r, ["../o", "x./o"]);
        let mut r = reach("{~/k,{/etc,s}}/*");
        r.sort();
        assert_eq!(r, ["/etc", "s", "~/k"]);
        assert_eq!(reach("{1..3}/x"), ["."]);
        assert_eq!(reach(r"\{a,b}/x"), ["{a,b}/x"]);
        assert!(glob_reach("src/{a,/etc}/*").is_err());
        assert!(glob_reach("x{a,~}/*").is_err());
        assert!(glob_reach(&"{a,b}".repeat(9)).is_err());
        assert_eq!(
            urls_in("see https://a.com/x, and http://b.org."),
            ["https://a.com/x", "http://b.org"]
        );
        assert_eq!(urls_in("read HTTPS://EVIL.COM/x"), ["HTTPS://EVIL.COM/x"]);
        let p = "*** Begin Patch\n*** Update File: a.rs\n*** Move to: b.rs\n*** Delete File: c.rs\n*** End Patch";
        assert_eq!(
            patch_files(p),
            (
                vec![
                    ("a.rs".into(), false),
                    ("b.rs".into(), false),
                    ("c.rs".into(), true)
                ],
                None
            )
        );
        // Headers as Codex (trimmed) and OpenCode (no space after the
        // colon) read them; a text's rule of asterisks is no header.
        let p = "*** Begin Patch\n\t*** Delete File: a.rs\n  *** Add File:b.rs\n+***\n+x\n*** Update File:c.md\n ***\n*** Move to:d.rs\n*** End of File\n*** End Patch\n";
        assert_eq!(
            patch_files(p),
            (
                vec![
                    ("a.rs".into(), true),
                    ("b.rs".into(), false),
                    ("c.md".into(), false),
                    ("d.rs".into(), false)
                ],
                None
            )
        );
        for odd in [
            "*** add file: x",
            "*** Copy File: x",
            "*** Add File:",
            "***Rename: x",
        ] {
            let (_, unknown) = patch_files(&format!("*** Begin Patch\n{odd}\n*** End Patch"));
            assert!(unknown.is_some(), "{odd}");
        }
    }
}

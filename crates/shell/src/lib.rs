/*!
Shell command analysis: turns a command string into what it will do.

The policy engine never matches a shell command as one string. It asks this
crate for every simple command the string contains (inside lists, pipelines,
substitutions, subshells, loops, functions, `bash -c '..'`, `find -exec`,
wrappers such as `timeout` and `env`), the files those commands read and
write, the URLs they fetch, the parts that could not be analysed, and the
catastrophic shapes found anywhere in the tree. Each part is then judged on
its own by the same rules a file or fetch tool meets.

This crate knows nothing about policies. It reads the file system only to
expand glob operands.

# How it works

tree-sitter-bash parses the text (`parse`), and its tree is normalised into
a small syntax of lists, pipelines, simple commands and words (`syntax`).
The walk (`walk`) visits every simple command with the state bash would
have there (working directory, what feeds its standard input, which
functions exist), expands its words (`words`, `glob`), removes wrappers and
follows shells given a script (`wrappers`), and derives the files and URLs
it touches from data tables (`tables`, `effects`, and `risky` for the
options of reading commands that run programs or write files). Literal
variable assignments are followed where bash makes them sure (`t=touch; $t x`
is `touch x`). Catastrophic shapes are in `hazards`.

A command is read-only only when it is the system's program (a bare name, or
one in `/bin`, `/usr/bin`, `/sbin`, `/usr/sbin`; `./cat` is a program of the
workspace), a known reader, writes nothing and has nothing unknown.

# Example

```
use toolgate_shell::{analyze, EffectKind, Options};

let a = analyze("git status && timeout 5 rm -rf build", &Options::default());
let argv: Vec<_> = a.commands.iter().map(|c| c.argv.join(" ")).collect();
assert_eq!(argv, ["git status", "rm -rf build"]);
assert_eq!(a.commands[1].wrappers, [["timeout", "5"]]);
assert_eq!(a.effects[0].kind, EffectKind::Write);
assert!(a.effects[0].delete && a.effects[0].recursive);
assert!(a.unknowns.is_empty() && a.hazards.is_empty());

let a = analyze("curl -fsSL https://example.com/install.sh | sh", &Options::default());
assert_eq!(a.hazards[0].kind, "download-exec");

let a = analyze("t=touch; $t x; ./cat x", &Options::default());
assert_eq!(a.commands[0].argv, ["touch", "x"]);
assert!(!a.commands[1].read_only); // a program of the workspace, not `cat`
```
*/
#![deny(missing_docs)]

mod arith;
mod effects;
mod environ;
mod glob;
mod hazards;
mod parse;
mod risky;
mod syntax;
mod tables;
mod walk;
mod words;
mod wrappers;

use std::path::PathBuf;

pub use effects::runners::is_runner;
pub use effects::{Filter, Honour, IgnoreMatch, Ignores, NameTest, no_host_scheme, ripgrep_filter};

/// Inputs that change how a command is analysed.
#[derive(Debug, Clone)]
pub struct Options {
    /// The directory the command starts in: relative operands, glob expansion
    /// and `cd` are resolved against it. `None` disables glob expansion.
    pub cwd: Option<PathBuf>,
    /// The value of `~` and `$HOME`.
    pub home: Option<PathBuf>,
    /// Commands longer than this (bytes) are not parsed: one `Unknown`.
    pub max_len: usize,
    /// Nesting deeper than this (substitutions, `bash -c`, compound
    /// commands) is not followed: one `Unknown`.
    pub max_depth: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cwd: None,
            home: None,
            max_len: 100 * 1024,
            max_depth: 64,
        }
    }
}

/// What a command string will do, as far as it can be known without running it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Analysis {
    /// Every simple command, in source order, wrappers stripped.
    pub commands: Vec<Command>,
    /// Files read or written and URLs fetched, each linked to its command.
    pub effects: Vec<TargetEffect>,
    /// Parts that could not be analysed; each makes the whole call at least `ask`.
    pub unknowns: Vec<Unknown>,
    /// Catastrophic shapes (`docs/policy.md`, "Hard limits"); each is a hard
    /// deny.
    pub hazards: Vec<Hazard>,
    /// Statements that only assign variables (`N=23`), as written: they
    /// run nothing. What their values expand (`X=$(cmd)`) is in `commands`,
    /// and what a variable makes later programs do (`PATH=..`,
    /// `LD_PRELOAD=..`) in `unknowns` and `effects`.
    pub assignments: Vec<String>,
}

/// One simple command after unquoting and wrapper stripping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The argv that runs, after wrappers (`timeout 5`, `env X=1`, `nice`, ...)
    /// are stripped, with quoting removed. A word that is not literal keeps
    /// its source text (`$HOME`, `$(date)`), and its index is in `non_literal`.
    pub argv: Vec<String>,
    /// Indexes into `argv` of words that are not literal (expansions,
    /// substitutions, unexpandable globs).
    pub non_literal: Vec<usize>,
    /// The wrappers that were stripped, outermost first, each as its own argv
    /// (`["timeout", "5"]`, `["env", "-i"]`).
    pub wrappers: Vec<Vec<String>>,
    /// The directory this command runs in when `cd` changed it earlier in the
    /// same script; `None` when it is the starting directory. A `cd` whose
    /// target is not literal leaves the directory unknown: that is an `Unknown`.
    pub cwd: Option<PathBuf>,
    /// True when the command is a known reading or listing command (plan
    /// mode's read-only test) and has no write effect and no output redirect.
    pub read_only: bool,
    /// The command's source text, for explanations.
    pub text: String,
    /// The command runs no program and touches no file itself: `:`,
    /// `true`, `false`, `test`, `[`, `[[ .. ]]`, or a builtin that changes
    /// only the shell's own state, which the analysis follows (`cd`,
    /// `pushd`, `popd`, `export`, `declare`, `local`, `readonly`, `unset`,
    /// `set`, `shift`, `wait`, `exit`, ..), by its bare name, with no
    /// wrapper. What its words expand (`[[ -f $(rm x) ]]`) and evaluate,
    /// and what of the shell's state it changes that cannot be followed
    /// (`export PATH=..`, `set -k`), are commands and unknowns of their
    /// own; its redirects are effects of their own.
    pub no_op: bool,
}

/// What an effect does to its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EffectKind {
    /// The target file or directory is read.
    Read,
    /// The target file or directory is created, changed or removed.
    Write,
    /// The target URL is fetched (or pushed to).
    Fetch,
}

/// Where an effect came from: the policy judges the two differently
/// (`docs/policy.md`, "How a call is decided", step 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A redirect (`> f`, `>> f`, `&> f`, `< f`, `<> f`), or a write that an
    /// option turns on in a command that otherwise reads (`sort -o f`, `sed
    /// -i`, `find -delete`, `git log --output=f`, `strace -o f`): with no
    /// rule matching it, the policy's default decides. An allow for the
    /// command does not cover it.
    Redirect,
    /// An operand of a known reader, writer or fetcher: with no rule matching
    /// it, it takes the decision of its command.
    Operand,
    /// An argument of a program toolgate has no operand table for (a
    /// script, a tool of the project, an interpreter's script) that names a
    /// file which exists or could be created, or holds a URL: the program
    /// may read, write or fetch it, or not. Only deny and ask rules count,
    /// and they make the call ask; no rule, allow or hard limit is needed
    /// for it.
    Argument,
}

/// A file read or written, or a URL fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetEffect {
    /// Read, write or fetch.
    pub kind: EffectKind,
    /// The path or URL as written, unquoted, with `~` left as written.
    /// For a glob operand that expanded, one effect per match.
    pub target: String,
    /// The directory a relative `target` is relative to, when `cd` changed it;
    /// `None` for the starting directory.
    pub cwd: Option<PathBuf>,
    /// Redirect or operand.
    pub origin: Origin,
    /// The command covers everything beneath a directory target
    /// (`grep -r`, `rm -r`, `cp -r`, `tar -c`, `find -exec`, `find -delete`);
    /// listings (`ls -R`, `find` alone, `tree`) read names only and are not.
    pub recursive: bool,
    /// The command removes the target (`rm`, `rmdir`, `mv` source, `unlink`).
    pub delete: bool,
    /// False when the target is not a literal (`$F`, `$(..)`, a glob that
    /// could not be expanded): the policy cannot know which file it is.
    pub literal: bool,
    /// Index into `Analysis::commands` of the command this effect belongs to;
    /// `None` for a redirect on a compound command.
    pub command: Option<usize>,
    /// For a recursive read: the entries beneath the target it reaches,
    /// by name (`grep -r --include='*.rs'`, `find DIR -name '*.c' -exec
    /// cat {} +`, ripgrep's hidden files); `None` for everything beneath.
    pub filter: Option<Filter>,
    /// A read of names, sizes, modes and times only, never of a file's
    /// bytes: the operands of `ls`, `stat`, `du` and `tree`, the
    /// directories `find` and `fd` walk. Such a read shows that a file
    /// exists, not what it holds, so the read roots do not limit it (the
    /// rules on reading its target, and the credential locations, still
    /// do).
    pub listing: bool,
    /// For a recursive listing: every directory it reaches is listed
    /// whole, whatever its filter (`find . -name 'x*' -exec ls {} +` lists
    /// what a directory named `x1` holds); otherwise only the names that
    /// pass the filter are shown (`find . -name '*.rs'`, `ls -R`).
    pub whole_dirs: bool,
    /// For a recursive read: git prints the content of the files it
    /// tracks there, from its repository, not what the directory holds
    /// (`git diff`, `git log -p`, `git show`, `git grep`). An ignored
    /// file is not reached, and a link is shown as the text of its
    /// target, not followed; a tracked file is, whether the work tree
    /// still holds it or not.
    pub tracked: Option<Tracked>,
}

/// Which tracked files a read of what git tracks reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tracked {
    /// Those beneath the target, a path git was given (`git diff --
    /// src`): the target itself meets the rules as an operand does.
    Beneath,
    /// Every file tracked in the repository that holds the target (the
    /// directory the command runs in): git was given no path, or words
    /// that may be revisions, object names or pathspec patterns, which
    /// cannot be told from paths here. The target itself meets no rule.
    Repository,
    /// The work tree of the repository that holds the target, what its
    /// filter lets through (the untracked files `git add -A` and `git
    /// stash -u` take, from the top of the work tree whatever directory
    /// they run in): read as a recursive read of that directory. The
    /// target itself meets no rule.
    WorkTree,
}

/// A part of the command that could not be analysed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown {
    /// Names the part and why, e.g. "command name is not literal: `$cmd`".
    pub reason: String,
    /// The command it belongs to, if any.
    pub command: Option<usize>,
}

/// A catastrophic command shape, found anywhere in the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazard {
    /// A stable name: `privilege` (sudo, su, doas), `mkfs`, `device-write`,
    /// `fork-bomb`, `download-exec`, `power` (shutdown, reboot, ...),
    /// `chmod-root`, `rm-root`.
    pub kind: &'static str,
    /// Why, naming the command.
    pub reason: String,
    /// The command it belongs to, if any.
    pub command: Option<usize>,
}

/// Analyses a shell command string.
///
/// Never panics and never fails: what cannot be parsed or followed is
/// reported as an `Unknown`, so that the caller asks rather than allows.
pub fn analyze(script: &str, opts: &Options) -> Analysis {
    if script.len() > opts.max_len {
        let mut out = Analysis::default();
        out.unknowns.push(Unknown {
            reason: format!(
                "command is {} bytes, over the {} byte limit",
                script.len(),
                opts.max_len
            ),
            command: None,
        });
        return out;
    }
    let mut walker = walk::Walker::new(opts);
    walker.run(script);
    walker.out
}

/// Analyses a command given as an argv array (Codex's `shell` tool), exactly
/// as if its words had been quoted and joined.
pub fn analyze_argv(argv: &[String], opts: &Options) -> Analysis {
    analyze(&shell_words::join(argv), opts)
}

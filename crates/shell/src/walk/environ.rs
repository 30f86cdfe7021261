//! Variables given to programs (`VAR=x cmd`, `env VAR=x cmd`, `export`,
//! `declare -x`, plain assignments): what [`crate::environ`] says programs
//! do with each. A file or URL becomes an effect of every command the
//! variable reaches; a variable that changes what runs is an `Unknown`.

use super::*;
use crate::environ::{self, Given};

/// A file or URL that a variable given to programs makes them touch.
#[derive(Debug, Clone)]
pub(super) struct EnvUse {
    /// The variable's name.
    name: String,
    /// The variable's value, when it is literal.
    literal: Option<String>,
    /// No file or URL: kept for the programs that read every variable of
    /// their environment as their own (make).
    inert: bool,
    access: Access,
    arg: Arg,
    /// A variable the table calls data, whose value may still name a
    /// file the program opens (`ENV_FILE=.env make`): checked as a
    /// program's argument is ([`Origin::Argument`]).
    argument: bool,
}

/// The declaration builtins whose `NAME=value` operands assign (and with
/// `export` or `-x`, export).
pub(super) fn is_declaration(name: &str) -> bool {
    matches!(
        name,
        "export" | "declare" | "typeset" | "local" | "readonly"
    )
}

impl<'o> Walker<'o> {
    /// Gives the variable `name` with `value` to programs: to the one
    /// command of `only` (a prefix assignment, `env VAR=x`), or, when
    /// `only` is `None`, to every later command of the script. A plain
    /// assignment counts as exported: the variable may already be in the
    /// environment the script inherited, and then bash exports the new
    /// value (`set -a` and `declare -x` change nothing here).
    pub(super) fn give(
        &mut self,
        name: &str,
        value: &Arg,
        only: Option<&mut Vec<EnvUse>>,
        how: &str,
    ) {
        let literal = value.literal.then(|| value.text.clone());
        let push = |this: &mut Self, only: Option<&mut Vec<EnvUse>>, u: EnvUse| match only {
            Some(list) => list.push(u),
            None => this.exported.push(u),
        };
        match environ::given(name, value) {
            Given::Nothing => {
                // A value that may be a path: what a program does with the
                // variable is its own.
                let path = value.literal && !value.text.is_empty() && !value.text.contains("://");
                let u = EnvUse {
                    name: name.to_string(),
                    literal: literal.clone(),
                    inert: !path,
                    access: Access::Read,
                    arg: value.clone(),
                    argument: true,
                };
                push(self, only, u);
            }
            Given::Unknown(why) => {
                let reach = if only.is_some() {
                    ""
                } else {
                    " (for every later command)"
                };
                self.unknown(format!("{how} `{name}`, which {why}{reach}"), None);
            }
            Given::Effect { access, arg } => {
                let u = EnvUse {
                    name: name.to_string(),
                    literal: literal.clone(),
                    inert: false,
                    access,
                    arg,
                    argument: false,
                };
                push(self, only, u);
            }
        }
    }

    /// The value of an assignment's value words, as far as it is literal.
    pub(super) fn assign_value(&self, a: &Assign, scope: &Scope) -> Arg {
        let value = match a.value.as_slice() {
            [] => Some(String::new()),
            [w] => words::assigned_value(w, self.opts.home.as_deref(), &scope.vars),
            _ => None,
        };
        match value {
            Some(v) => Arg::lit(v),
            None => Arg::dynamic(
                a.value
                    .iter()
                    .map(|w| w.text.as_str())
                    .collect::<Vec<_>>()
                    .join(""),
            ),
        }
    }

    /// The `NAME=value` operands of a declaration builtin (after its
    /// options), each given to every later command.
    pub(super) fn declared_env(&mut self, args: &[Arg]) {
        let Some(decl) = args.first().filter(|a| a.literal) else {
            return;
        };
        if !is_declaration(&decl.text) {
            return;
        }
        let how = format!("`{}` assigns", decl.text);
        for a in args.iter().skip(1) {
            if a.literal && (a.text.starts_with('-') || a.text.starts_with('+')) {
                continue;
            }
            let (name, value) = a.text.split_once('=').unwrap_or((&a.text, ""));
            let name = name.trim_end_matches('+');
            if !crate::parse::is_name(name) {
                if !a.literal {
                    // `export "$v"` may assign any variable.
                    self.unknown(
                        format!(
                            "{how} `{}`, a variable not known here, which may change what later commands run",
                            a.text
                        ),
                        None,
                    );
                }
                continue;
            }
            if !a.text.contains('=') {
                continue;
            }
            let value = a.with_text(value);
            self.give(name, &value, None, &how);
        }
    }

    /// Adds the files and URLs that the variables reaching command `idx`
    /// (`name`) make it touch, resolved where it runs; true when one is
    /// a write or a fetch (the command is then not read-only).
    pub(super) fn env_effects(
        &mut self,
        name: &str,
        scope: &Scope,
        idx: usize,
        cwd: &Option<Option<PathBuf>>,
    ) -> bool {
        if (scope.env.is_empty() && self.exported.is_empty()) || environ::runs_nothing(name) {
            return false;
        }
        let mut writes = false;
        // Borrowed, not cloned: the exported list grows with every
        // assignment of the script, and this runs for every command.
        let env = Rc::clone(&scope.env);
        let exported = std::mem::take(&mut self.exported);
        let uses: Vec<&EnvUse> = env.iter().chain(exported.iter()).collect();
        // make reads every variable of its environment as a variable of
        // the makefile: `RM`, `CC`, `CFLAGS` or one the makefile sets
        // only with `?=` then change the commands its recipes run
        // (`RM='touch P' make clean`). Only the locale's and the
        // terminal's, and plain numbers and yes/no words (`V=1`,
        // `CI=true`), leave them as written.
        if matches!(name, "make" | "gmake" | "bmake")
            && let Some(u) = uses
                .iter()
                .find(|u| !environ::make_keeps_recipes(&u.name, u.literal.as_deref()))
        {
            self.unknown(
                format!(
                    "`{name}` is given `{}`, and make reads its environment as the makefile's variables, which may change the commands its recipes run",
                    u.name
                ),
                Some(idx),
            );
        }
        for u in uses.iter().copied() {
            if u.inert {
                continue;
            }
            if u.argument {
                // Only a value naming a file that exists: a variable's
                // value is seldom a file to create.
                let path = self.written_path(&u.arg.text, cwd.clone().flatten().as_deref());
                if path.is_absolute() && std::fs::symlink_metadata(&path).is_ok() {
                    self.effect(
                        EffectKind::Read,
                        &u.arg,
                        Origin::Argument,
                        false,
                        false,
                        Some(idx),
                        cwd,
                    );
                }
                continue;
            }
            let (kind, recursive) = match u.access {
                Access::Read | Access::List => (EffectKind::Read, false),
                Access::Tracked | Access::Repository | Access::WorkTree => (EffectKind::Read, true),
                Access::Write | Access::Delete => (EffectKind::Write, false),
                Access::WriteDir | Access::Rewrite | Access::WorkTreeRemoved => {
                    (EffectKind::Write, true)
                }
                Access::Fetch => (EffectKind::Fetch, false),
            };
            writes |= kind != EffectKind::Read;
            self.effect(
                kind,
                &u.arg,
                Origin::Operand,
                recursive,
                false,
                Some(idx),
                cwd,
            );
        }
        // Anything exported meanwhile comes after what was there.
        let added = std::mem::replace(&mut self.exported, exported);
        self.exported.extend(added);
        writes
    }
}

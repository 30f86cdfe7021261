//! Shell variables assigned within the script, followed while bash makes
//! their values sure.

use super::*;

/// Variables whose value is known before the script assigns them: `HOME`
/// (the home directory) and `PWD` (the working directory).
const IMPLICIT: &[&str] = &["HOME", "PWD"];

/// Makes every variable of `vars` unsure, those known without an
/// assignment too (`unset HOME`, `read PWD`, a `trap`).
pub(super) fn forget_all(vars: &mut Rc<Vars>) {
    if vars.values().any(Option::is_some) || IMPLICIT.iter().any(|k| !vars.contains_key(*k)) {
        let vars = Rc::make_mut(vars);
        for v in vars.values_mut() {
            *v = None;
        }
        for k in IMPLICIT {
            vars.insert((*k).to_string(), None);
        }
    }
}

/// Makes unsure in `vars` every variable that differs between `before` and
/// `after`.
pub(super) fn forget_changed(vars: &mut Rc<Vars>, before: &Vars, after: &Vars) {
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

/// Variables the shell sets itself (`cd` sets `PWD`, each command `_`,
/// `read` `REPLY`) or computes when read (`RANDOM`, `SECONDS`): never
/// followed.
const SHELL_SET: &[&str] = &[
    "_",
    "PWD",
    "OLDPWD",
    "REPLY",
    "OPTARG",
    "OPTIND",
    "RANDOM",
    "SRANDOM",
    "SECONDS",
    "LINENO",
    "EPOCHSECONDS",
    "EPOCHREALTIME",
    "BASHPID",
    "BASH_COMMAND",
    "BASH_SUBSHELL",
    "BASH_ARGV0",
    "FUNCNAME",
    "DIRSTACK",
    "HISTCMD",
    "PIPESTATUS",
    "MAPFILE",
    "PPID",
    "UID",
    "EUID",
    "GROUPS",
    "SHLVL",
];

/// Builtins that assign variables of this shell in ways not followed.
fn assigns_variables(name: &str, argv: &[Arg]) -> bool {
    match name {
        "read" | "unset" | "mapfile" | "readarray" | "getopts" | "eval" | "source" | "."
        | "trap" | "declare" | "typeset" | "local" | "export" | "readonly" => {
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

impl<'o> Walker<'o> {
    /// What a command that ran does to the variables followed: a builtin
    /// that assigns (`read`, `unset`, `eval`, ...), a function, or a name
    /// that is not literal makes them all unsure; `trap` (whose code runs
    /// between later commands) ends following for the rest of the script.
    pub(super) fn command_ran(
        &mut self,
        name: &str,
        argv: &[Arg],
        literal: bool,
        scope: &mut Scope,
    ) {
        if name == "trap" {
            self.vars_off = true;
        }
        if !literal || assigns_variables(name, argv) || self.functions.contains_key(name) {
            forget_all(&mut scope.vars);
        }
    }

    /// Follows the assignments of a simple command: alone (`X=lit`) or as
    /// arguments of `export`/`readonly`/`declare`/`typeset`/`local`, a
    /// literal value is known from here on; before a command (`X=1 cmd`),
    /// or when not literal, the variable is unsure.
    pub(super) fn assignments(&mut self, s: &Simple, args: &[Arg], scope: &mut Scope) {
        let dynamic_assign = |w: &Word| {
            w.text.contains('=')
                && (w.text.contains("${") || w.text.contains("$((") || w.text.contains("$["))
        };
        if s.words.iter().any(dynamic_assign)
            || s.assigns.iter().flat_map(|a| &a.value).any(dynamic_assign)
            || s.redirects.iter().any(|r| match &r.target {
                RedirTarget::Word(w) | RedirTarget::HereString(w) => dynamic_assign(w),
                RedirTarget::Heredoc { .. } => false,
            })
        {
            // `${X:=v}` and `$((X = 1))` assign while expanding.
            forget_all(&mut scope.vars);
            if self.ints_any || self.refs_any || !self.ints.is_empty() || !self.refs.is_empty() {
                self.unknown(
                    format!(
                        "`{}` assigns while expanding, perhaps to a variable whose attribute evaluates the value",
                        s.text
                    ),
                    None,
                );
            }
        }
        if s.words.is_empty() {
            for a in &s.assigns {
                if self.ints_any || self.ints.contains(&a.name) {
                    // An integer variable stores what the value evaluates
                    // to (`n+=2` included): an integer, when it is plain.
                    let value = match a.value.as_slice() {
                        [w] if !s.text.contains(&format!("{}[", a.name)) => {
                            evaluate::int_assigned_text(a, s, w, &*scope.vars)
                                .filter(|t| crate::arith::check(t, &*scope.vars).is_ok())
                                .map(|_| words::INTEGER.to_string())
                        }
                        _ => None,
                    };
                    self.set_var(scope, &a.name, value);
                    continue;
                }
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
        // Names that refer to other variables (`-n`) and attributes that
        // change what later assignments store (`-l`, `-u`): the values are
        // not followed from here on. (The integer attribute is followed:
        // `set_var` keeps its variables as integers.)
        if decl != "export"
            && decl != "readonly"
            && flags.iter().any(|f| f[1..].contains(['n', 'l', 'u']))
        {
            self.vars_off = true;
            forget_all(&mut scope.vars);
        }
        for a in rest.iter().skip(flags.len()) {
            if !a.literal || a.pattern.is_some() {
                forget_all(&mut scope.vars);
                continue;
            }
            let (name, value) = match a.text.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (a.text.as_str(), None),
            };
            let plain_name = parse::is_name(name);
            let base = name.trim_end_matches('+');
            let base = base.split('[').next().unwrap_or(base).to_string();
            match value {
                // `local` fails outside a function, leaving the old value.
                Some(v)
                    if plain_name
                        && flags.iter().all(|f| *f == "-i")
                        && !v.contains('~')
                        && (decl != "local" || !self.defining.is_empty()) =>
                {
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

    pub(super) fn set_var(&mut self, scope: &mut Scope, name: &str, value: Option<String>) {
        let mut value = value.filter(|_| {
            !self.vars_off && !self.frozen.contains(name) && !SHELL_SET.contains(&name)
        });
        // An integer variable stores what its value evaluates to.
        if self.ints_any || self.ints.contains(name) {
            value = value.and_then(|v| {
                (v == words::INTEGER || crate::arith::check(&v, &*scope.vars).is_ok())
                    .then(|| words::INTEGER.to_string())
            });
        }
        if scope.vars.get(name) != Some(&value) {
            Rc::make_mut(&mut scope.vars).insert(name.to_string(), value);
        }
    }
}

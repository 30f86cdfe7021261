//! The builtins that evaluate their arguments (`let`, `[[ .. -eq .. ]]`,
//! the names given to `read`, `printf -v`, `unset`, `mapfile`, `getopts`,
//! `wait -p`, `test -v`), the declaration builtins with their integer and
//! name-reference attributes, and assignments to variables that have them.

use super::*;
use crate::arith::Overlay;

/// The arithmetic operators of `[[ .. ]]`, which evaluate both operands.
const TEST_ARITH: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];

/// Whether `compgen` or `complete` with `args` may run code: `-C` runs a
/// command and `-F` a function (`compgen` at once, `complete` when a
/// completion is asked for), and `-W`'s word list goes through the shell's
/// expansions, command substitution and arithmetic included. A word list
/// with no `$` or backquote expands to itself; anything not literal may.
fn completion_runs_code(args: &[Arg]) -> bool {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if !a.literal {
            return true;
        }
        if a.text == "--" {
            break;
        }
        let Some(cluster) = a.text.strip_prefix('-').filter(|c| !c.is_empty()) else {
            continue;
        };
        for (at, c) in cluster.char_indices() {
            if matches!(c, 'C' | 'F') {
                return true;
            }
            if !matches!(c, 'o' | 'A' | 'G' | 'W' | 'P' | 'S' | 'X') {
                continue;
            }
            // The rest of the cluster is the option's value, else the next
            // word.
            let rest = &cluster[at + c.len_utf8()..];
            let value = if rest.is_empty() {
                i += 1;
                match args.get(i - 1) {
                    Some(v) if v.literal => v.text.as_str(),
                    Some(_) => return true,
                    None => "",
                }
            } else {
                rest
            };
            if c == 'W' && value.contains(['$', '`']) {
                return true;
            }
            break;
        }
    }
    false
}

/// Options of `read`, `mapfile` and `wait` that take a value.
fn valued_options(name: &str) -> &'static str {
    match name {
        "read" => "adinNptu",
        "mapfile" | "readarray" => "dnOsuCc",
        "wait" => "p",
        "printf" => "v",
        _ => "",
    }
}

impl<'o> Walker<'o> {
    /// A name a builtin assigns or tests: literal, its subscript plain, and
    /// not a variable whose assignment evaluates the value (unless `value`
    /// says the value is plain for it).
    fn assigned_name(
        &mut self,
        builtin: &str,
        arg: &Arg,
        value_plain: bool,
        idx: usize,
        vars: &dyn Values,
    ) {
        if !arg.literal {
            self.unknown(
                format!(
                    "`{builtin}` is given the name `{}`, which is not known here: a subscript in it would be evaluated",
                    arg.text
                ),
                Some(idx),
            );
            return;
        }
        if let Err(why) = arith::check_name(&arg.text, vars) {
            self.unknown(format!("`{builtin}` evaluates {why}"), Some(idx));
        }
        let base = arg.text.split('[').next().unwrap_or(&arg.text);
        if !value_plain && tables::changes_what_runs(base) {
            // `read PS4; set -x` expands what was read as a prompt.
            self.unknown(
                format!("`{builtin}` assigns `{base}`, which changes what later commands run"),
                Some(idx),
            );
        }
        if !value_plain && self.evaluates_assignment(base) {
            self.unknown(
                format!(
                    "`{builtin}` assigns `{base}`, whose integer or name-reference attribute evaluates the value"
                ),
                Some(idx),
            );
        }
    }
    /// The builtins that evaluate their arguments, checked before the
    /// command runs (`argv` after wrappers; `s.words` when they line up).
    pub(in crate::walk) fn evaluating_builtin(
        &mut self,
        name: &str,
        argv: &[Arg],
        s: &Simple,
        scope: &mut Scope,
        idx: usize,
        wrapped: bool,
    ) {
        let vars = Rc::clone(&scope.vars);
        let aligned = !wrapped && s.words.len() == argv.len();
        let args = argv.get(1..).unwrap_or_default();
        match name {
            "let" => {
                let mut texts = Vec::new();
                for (i, a) in args.iter().enumerate() {
                    let text = if a.literal {
                        Some(a.text.clone())
                    } else if aligned && a.pattern.is_none() {
                        s.words.get(i + 1).and_then(|w| arith_text(w, &scope.vars))
                    } else {
                        None
                    };
                    match text {
                        Some(t) => texts.push(t),
                        None => {
                            self.arith_value(None, &a.text, "`let`", &*vars);
                            forget_all(&mut scope.vars);
                            return;
                        }
                    }
                }
                let joined = texts.join(", ");
                match self.arith_value(Some(joined.clone()), &joined, "`let`", &*vars) {
                    Some(targets) => self.integers(scope, targets),
                    None => forget_all(&mut scope.vars),
                }
            }
            "[[" => {
                let words = &s.words;
                for (i, w) in words.iter().enumerate() {
                    if TEST_ARITH.contains(&w.text.as_str()) {
                        let what = format!("`[[ .. {} .. ]]`", w.text);
                        for operand in [i.checked_sub(1), Some(i + 1)].into_iter().flatten() {
                            let Some(o) = words.get(operand) else {
                                continue;
                            };
                            let text = arith_text(o, &*vars);
                            match self.arith_value(text, &o.text, &what, &*vars) {
                                Some(targets) => self.integers(scope, targets),
                                None => forget_all(&mut scope.vars),
                            }
                        }
                    } else if w.text == "-v" {
                        if let Some(o) = words.get(i + 1) {
                            let arg = match words::assigned_value(o, None, &vars) {
                                Some(v) if v != INTEGER => Arg::lit(v),
                                _ => Arg::dynamic(o.text.clone()),
                            };
                            self.assigned_name("[[ -v ]]", &arg, true, idx, &*vars);
                        }
                    }
                }
            }
            "[" | "test" => {
                for (i, a) in args.iter().enumerate() {
                    if a.literal && a.text == "-v" {
                        if let Some(n) = args.get(i + 1) {
                            self.assigned_name(name, n, true, idx, &*vars);
                        }
                    }
                }
            }
            "mapfile" | "readarray"
                if args
                    .iter()
                    .any(|a| !a.literal || (a.text.starts_with('-') && a.text.contains('C'))) =>
            {
                self.unknown(
                    format!("`{name}` may be given a callback (`-C`), which it runs as a command"),
                    Some(idx),
                );
            }
            "compgen" | "complete" if completion_runs_code(args) => {
                self.unknown(
                    format!(
                        "`{name}` runs a command (`-C`) or a function (`-F`), or expands a word \
                         list (`-W`) whose expansions may run code"
                    ),
                    Some(idx),
                );
            }
            // `fc` runs commands from the history (`-s`, or after an
            // editor, which `-e` names); only `fc -l` lists them.
            "fc" if !args.iter().any(|a| {
                a.literal
                    && a.text.starts_with('-')
                    && a.text[1..].chars().all(|c| matches!(c, 'l' | 'n' | 'r'))
                    && a.text.contains('l')
            }) || args
                .iter()
                .any(|a| !a.literal || a.text.starts_with("-e") || a.text.starts_with("-s")) =>
            {
                self.unknown(
                    "`fc` runs commands from the shell's history, which are not analysed".into(),
                    Some(idx),
                );
            }
            "enable" if args.iter().any(|a| !a.literal || a.text.starts_with("-f")) => {
                self.unknown(
                    "`enable -f` loads a shared object, whose code runs".into(),
                    Some(idx),
                );
            }
            "read" | "mapfile" | "readarray" | "wait" | "printf" | "getopts" | "unset" => {
                let (names, default) = self.builtin_names(name, args);
                let value_plain = name == "unset";
                for n in &names {
                    self.assigned_name(name, n, value_plain, idx, &*vars);
                }
                if let Some(d) = default.filter(|_| names.is_empty()) {
                    if self.evaluates_assignment(d) {
                        self.assigned_name(name, &Arg::lit(d), false, idx, &*vars);
                    }
                }
            }
            // Checked in `declaration` when written directly; through a
            // wrapper (`command declare`), anything that may evaluate is
            // unknown.
            "declare" | "typeset" | "local" | "export" | "readonly"
                if wrapped
                    && args.iter().any(|a| {
                        let base = a.text.split(['=', '[', '+']).next().unwrap_or(&a.text);
                        !a.literal
                            || a.text.contains('[')
                            || (a.text.starts_with('-') && a.text.contains(['i', 'n']))
                            || self.evaluates_assignment(base)
                    }) =>
            {
                self.unknown(
                    format!(
                        "`{name}` run through a wrapper assigns names or values that may be evaluated"
                    ),
                    Some(idx),
                );
            }
            _ => {}
        }
    }

    /// The names `read`, `printf -v`, `unset`, `mapfile`, `getopts` and
    /// `wait -p` assign or remove, and the variable they assign when none is
    /// named.
    fn builtin_names(&self, name: &str, args: &[Arg]) -> (Vec<Arg>, Option<&'static str>) {
        let valued = valued_options(name);
        let mut names = Vec::new();
        let mut operands = Vec::new();
        let mut i = 0;
        let mut options = name != "getopts";
        while i < args.len() {
            let a = &args[i];
            i += 1;
            if options && a.literal && a.text == "--" {
                options = false;
                continue;
            }
            if options && a.literal && a.text.len() > 1 && a.text.starts_with('-') {
                // `-rp PROMPT`, `-vNAME`, `-p NAME`.
                for (k, c) in a.text.char_indices().skip(1) {
                    if valued.contains(c) {
                        let rest = &a.text[k + c.len_utf8()..];
                        let value = if rest.is_empty() {
                            i += 1;
                            args.get(i - 1).cloned()
                        } else {
                            Some(a.with_text(rest))
                        };
                        if matches!((name, c), ("read", 'a') | ("printf" | "wait", _)) {
                            names.extend(value);
                        }
                        break;
                    }
                }
                if name == "unset" && a.text.contains('f') {
                    return (Vec::new(), None);
                }
                continue;
            }
            if name == "printf" || name == "wait" {
                break;
            }
            options = false;
            operands.push(a.clone());
        }
        match name {
            "read" => {
                names.extend(operands);
                (names, Some("REPLY"))
            }
            "mapfile" | "readarray" => {
                names.extend(operands.into_iter().take(1));
                (names, Some("MAPFILE"))
            }
            "getopts" => {
                names.extend(operands.into_iter().nth(1));
                if self.evaluates_assignment("OPTARG") {
                    names.push(Arg::lit("OPTARG"));
                }
                (names, None)
            }
            "unset" => (operands, None),
            _ => (names, None),
        }
    }

    /// `declare`, `typeset`, `local`, `export`, `readonly` written directly:
    /// each name's subscript, each value given the integer attribute
    /// (`-i`, or a variable that has it) checked as arithmetic, each value
    /// given a name reference (`-n`) checked as a name, in order, before
    /// the assignments are followed. Records the attributes.
    pub(in crate::walk) fn declaration(&mut self, s: &Simple, args: &[Arg], scope: &mut Scope) {
        // Past `builtin` and `command` (not `command -v`), which run the
        // declaration itself.
        let skip = args
            .iter()
            .take_while(|a| a.literal && matches!(a.text.as_str(), "builtin" | "command"))
            .count();
        let words = s.words.get(skip..).unwrap_or_default();
        let args = args.get(skip..).unwrap_or_default();
        let Some(decl) = args.first().filter(|a| a.literal).map(|a| a.text.clone()) else {
            return;
        };
        if !matches!(
            decl.as_str(),
            "declare" | "typeset" | "local" | "export" | "readonly"
        ) {
            return;
        }
        let aligned = words.len() == args.len();
        let rest = args.get(1..).unwrap_or_default();
        let flags: Vec<&str> = rest
            .iter()
            .take_while(|a| a.literal && (a.text.starts_with('-') || a.text.starts_with('+')))
            .map(|a| a.text.as_str())
            .collect();
        let has = |c: char| flags.iter().any(|f| f.starts_with('-') && f.contains(c));
        // (`export -n` removes the export; only these three take `-i`, `-n`.)
        let attrs = matches!(decl.as_str(), "declare" | "typeset" | "local");
        let (int, nameref) = (attrs && has('i'), attrs && has('n'));
        if !flags
            .iter()
            .all(|f| f.chars().skip(1).all(|c| c.is_ascii_alphabetic()))
        {
            self.unknown(format!("`{decl}` is given options not known here"), None);
        }
        if int || nameref {
            self.attr_epoch += 1;
        }
        let mut assigned: HashSet<String> = HashSet::new();
        for (k, a) in rest.iter().enumerate().skip(flags.len()) {
            let word = aligned.then(|| words.get(k + 1)).flatten();
            // The name: from the literal argument, or the literal text
            // before `=` in the word as written.
            let name = if a.literal {
                Some(a.text.split('=').next().unwrap_or(&a.text).to_string())
            } else {
                word.and_then(|w| match w.parts.first() {
                    Some(Part::Lit { text, .. }) if text.contains('=') => {
                        Some(text.split('=').next().unwrap_or(text).to_string())
                    }
                    _ => None,
                })
            };
            let Some(name) = name else {
                self.unknown(
                    format!(
                        "`{decl}` is given `{}`, whose name is not known here: a subscript in it would be evaluated",
                        a.text
                    ),
                    None,
                );
                if int {
                    self.ints_any = true;
                }
                if nameref {
                    self.refs_any = true;
                }
                continue;
            };
            let append = name.ends_with('+');
            let name = name.trim_end_matches('+').to_string();
            let base = name.split('[').next().unwrap_or(&name).to_string();
            let value = if a.literal {
                a.text.split_once('=').map(|(_, v)| Some(v.to_string()))
            } else if a.text.contains('=') {
                Some(word.and_then(|w| {
                    let t = arith_text(w, &*scope.vars)?;
                    t.split_once('=').map(|(_, v)| v.to_string())
                }))
            } else {
                None
            };
            // Earlier names of this command are assigned before this one.
            let vars = Overlay {
                vars: &scope.vars,
                unknown: &assigned,
            };
            if let Err(why) = arith::check_name(&name, &vars) {
                self.unknown(format!("`{decl}` evaluates {why}"), None);
            }
            // A value that is not written as `(..)` but is `(..)` when the
            // declaration runs is read again as an array's compound
            // assignment where the variable is or becomes an array: its
            // words are expanded then, substitutions included.
            // The value as the message shows it: known, or as written.
            let shown_value = value
                .as_ref()
                .and_then(Option::as_deref)
                .unwrap_or_else(|| a.text.split_once('=').map_or(a.text.as_str(), |(_, v)| v));
            let written_array = word.is_some_and(|w| {
                w.text.split_once('=').is_some_and(|(n, v)| {
                    v.starts_with('(')
                        && n.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'+')
                })
            });
            if let (Some(v), false) = (&value, written_array) {
                let reread = match v {
                    Some(v) => compound_text(v) && !plain_compound(v),
                    None => {
                        has('a')
                            || has('A')
                            || self.arrays_any
                            || self.arrays.contains(&base)
                            || super::ahead::SHELL_ARRAYS.contains(&base.as_str())
                    }
                };
                if reread {
                    self.unknown(
                        format!(
                            "`{decl}` may read the value given to `{base}` (`{shown_value}`) as an array's compound assignment, whose words are expanded again, substitutions included"
                        ),
                        None,
                    );
                }
            }
            if let Some(value) = &value {
                if int || self.ints_any || self.ints.contains(&base) {
                    let what = format!("`{decl}` of an integer variable");
                    let shown = value.clone().unwrap_or_else(|| a.text.clone());
                    // `+=` adds to the old value, evaluated too.
                    let text = match value {
                        Some(v) if append => Some(format!("{base} + ({v})")),
                        v => v.clone(),
                    };
                    self.arith_value(text, &shown, &what, &vars);
                }
                if nameref || self.refs_any || self.refs.contains(&base) {
                    // A reference to `PS4` or `PATH` assigns it through
                    // the reference.
                    let plain = value.as_deref().is_some_and(|v| {
                        !v.contains('$')
                            && arith::check_name(v, &vars).is_ok()
                            && !tables::changes_what_runs(v.split('[').next().unwrap_or(v))
                    });
                    if !plain {
                        self.unknown(
                            format!(
                                "`{decl}` makes `{base}` refer to `{shown_value}`, a name not known to be plain (evaluated at each use of `{base}`) or one that changes what runs"
                            ),
                            None,
                        );
                    }
                }
            }
            if int {
                self.ints.insert(base.clone());
            }
            if nameref {
                self.refs.insert(base.clone());
            }
            assigned.insert(base);
        }
    }

    /// Assignments written as `NAME=value` (alone or before a command) to
    /// a variable whose assignment evaluates the value, checked in order.
    pub(in crate::walk) fn attribute_assignments(&mut self, s: &Simple, scope: &Scope) {
        if self.ints.is_empty() && self.refs.is_empty() && !self.ints_any && !self.refs_any {
            return;
        }
        let mut assigned = HashSet::new();
        for a in &s.assigns {
            let vars = Overlay {
                vars: &scope.vars,
                unknown: &assigned,
            };
            let int = self.ints_any || self.ints.contains(&a.name);
            let nameref = self.refs_any || self.refs.contains(&a.name);
            for w in &a.value {
                // The word of the subscript, kept for its evaluations.
                if w.text.len() > a.name.len()
                    && w.text.starts_with(&a.name)
                    && w.text[a.name.len()..].starts_with('[')
                {
                    continue;
                }
                if int {
                    let what = format!("assigning the integer variable `{}`", a.name);
                    let text = int_assigned_text(a, s, w, &vars);
                    self.arith_value(text, &w.text, &what, &vars);
                }
                if nameref {
                    let plain = arith_text(w, &vars)
                        .is_some_and(|v| !v.contains('$') && arith::check_name(&v, &vars).is_ok());
                    if !plain {
                        self.unknown(
                            format!(
                                "assigning the name reference `{}` makes it refer to `{}`, a name not known to be plain",
                                a.name, w.text
                            ),
                            None,
                        );
                    }
                }
            }
            assigned.insert(a.name.clone());
        }
    }
}

/// Whether a declaration's value is read as a compound assignment where
/// the variable is an array (bash: it starts with `(` and ends with `)`).
fn compound_text(v: &str) -> bool {
    v.starts_with('(') && v.ends_with(')')
}

/// A compound assignment whose words expand to themselves: no parameter,
/// substitution, subscript (arithmetic for an indexed array), quoting or
/// process substitution.
/// `v` is [`compound_text`].
fn plain_compound(v: &str) -> bool {
    v[1..v.len() - 1]
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b" \t\n_-./,:+@%^=".contains(&b))
}

/// What assigning `word` to the integer variable of `a` evaluates: the
/// value, after the old value for `+=`.
pub(in crate::walk) fn int_assigned_text(
    a: &Assign,
    s: &Simple,
    word: &Word,
    vars: &dyn Values,
) -> Option<String> {
    let text = arith_text(word, vars)?;
    if s.text.contains(&format!("{}+=", a.name)) {
        Some(format!("{} + ({text})", a.name))
    } else {
        Some(text)
    }
}

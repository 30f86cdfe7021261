//! Where bash evaluates text as arithmetic, as a parameter name or as a
//! prompt (`crate::arith`), checked against the variables followed at that
//! point: each place that is not plain is an `Unknown`, since a value such
//! as `a[$(cmd)]` reaching it runs `cmd`.
//!
//! The places: evaluations inside words (`$((..))`, `${a[..]}`, `${x:..}`,
//! `${!x}`, `${x@P}`, subscripts of assignments), `((..))` and
//! `for ((..))` (in `walk::mod`), and builtins: `let`, the arithmetic
//! operators of `[[ .. ]]`, the names given to `read`, `printf -v`,
//! `unset`, `mapfile`, `getopts`, `wait -p`, `test -v` and the declaration
//! builtins, and every assignment to a variable with the integer attribute
//! (`declare -i`) or a name reference (`declare -n`).

use super::*;
use crate::arith::{self, Values};
use crate::syntax::Eval;
use crate::words::INTEGER;

mod ahead;
mod builtins;

pub(super) use ahead::Ahead;

pub(super) use builtins::int_assigned_text;

/// Variables an evaluation assigns, each with whether it surely holds an
/// integer afterwards.
pub(super) type Targets = Vec<(String, bool)>;

/// The value of a word where bash evaluates it as arithmetic, when every
/// part is known: an arithmetic expansion or a variable holding an integer
/// stands as `0` (plain whatever its digits).
pub(super) fn arith_text(word: &Word, vars: &dyn Values) -> Option<String> {
    if word.parts.is_empty() {
        return word.text.is_empty().then(String::new);
    }
    let mut out = String::new();
    for part in &word.parts {
        match part {
            Part::Lit { text, .. } => out.push_str(text),
            Part::Param { name, .. } if arith::integer_param(name) => out.push('0'),
            Part::Param { name, .. } => match vars.value(name) {
                Some(INTEGER) => out.push('0'),
                Some(v) => out.push_str(v),
                None => return None,
            },
            Part::Number => out.push('0'),
            Part::Dynamic => return None,
        }
    }
    Some(out)
}

impl<'o> Walker<'o> {
    /// Checks the evaluations inside `word` against `vars`; reports each
    /// that is not plain. `Some` with what the plain ones assign when all
    /// are plain.
    pub(super) fn evals(&mut self, word: &Word, vars: &dyn Values) -> Option<Targets> {
        let mut targets = Vec::new();
        let mut plain = true;
        for e in &word.evals {
            match e {
                Eval::Arith(expr) => match arith::check(expr, vars) {
                    Ok(c) => {
                        self.arith_reads.extend(c.reads);
                        targets.extend(c.targets);
                    }
                    Err(why) => {
                        plain = false;
                        self.unknown(format!("arithmetic `{expr}` is not plain: {why}"), None);
                    }
                },
                Eval::Indirect(name) => {
                    if !arith::indirect_plain(name, vars) {
                        plain = false;
                        self.unknown(
                            format!(
                                "`${{!{name}}}` expands the parameter named by the value of `{name}`, which is not known to be a plain name"
                            ),
                            None,
                        );
                    }
                }
                Eval::Prompt(name) => {
                    if !arith::prompt_plain(name, vars) {
                        plain = false;
                        self.unknown(
                            format!(
                                "`${{{name}@P}}` expands the value of `{name}` as a prompt, which runs the substitutions in it, and that value is not known"
                            ),
                            None,
                        );
                    }
                }
            }
        }
        plain.then_some(targets)
    }

    /// Variables assigned by plain arithmetic hold integers from here on.
    pub(super) fn integers(&mut self, scope: &mut Scope, targets: Targets) {
        for (name, sure) in targets {
            self.set_var(scope, &name, sure.then(|| INTEGER.to_string()));
        }
    }
    /// A value bash evaluates as arithmetic: its text checked, or an
    /// unknown naming `what` evaluates it.
    fn arith_value(
        &mut self,
        text: Option<String>,
        shown: &str,
        what: &str,
        vars: &dyn Values,
    ) -> Option<Targets> {
        let Some(text) = text else {
            self.unknown(
                format!(
                    "{what} evaluates `{shown}` as arithmetic, and its value is not known here"
                ),
                None,
            );
            return None;
        };
        match arith::check(&text, vars) {
            Ok(c) => {
                self.arith_reads.extend(c.reads);
                Some(c.targets)
            }
            Err(why) => {
                self.unknown(
                    format!("{what} evaluates `{shown}` as arithmetic, which is not plain: {why}"),
                    None,
                );
                None
            }
        }
    }
    /// Whether assigning `name` evaluates the value: the integer attribute
    /// (arithmetic) or a name reference (a name, subscript included).
    pub(super) fn evaluates_assignment(&self, name: &str) -> bool {
        self.ints_any || self.refs_any || self.ints.contains(name) || self.refs.contains(name)
    }
    /// After a loop's bodies: a variable kept as an integer at the loop's
    /// entry that the body changes, and that arithmetic in the loop reads,
    /// may hold anything when that arithmetic runs again.
    pub(super) fn loop_changed(&mut self, kept: &[String], after: &Vars, reads_from: usize) {
        let changed: Vec<&String> = kept
            .iter()
            .filter(|name| after.value(name) != Some(INTEGER))
            .collect();
        if changed.is_empty() {
            return;
        }
        let from = reads_from.min(self.arith_reads.len());
        let reads: HashSet<&String> = self.arith_reads[from..].iter().collect();
        let flagged: Vec<String> = changed
            .into_iter()
            .filter(|name| reads.contains(name))
            .cloned()
            .collect();
        for name in flagged {
            self.unknown(
                format!(
                    "`{name}` is changed inside a loop whose arithmetic reads it again: its value there is not known"
                ),
                None,
            );
        }
    }
}

/// Loop entry: every variable is unsure (a later round sees what the body
/// assigned), except those holding an integer, which stay integers so that
/// arithmetic in the body stays plain; `Walker::loop_changed` checks
/// afterwards that the body kept them so. Returns the names kept.
pub(super) fn forget_all_but_integers(vars: &mut Rc<Vars>) -> Vec<String> {
    let mut kept = Vec::new();
    let integer = |v: &str| {
        v == INTEGER || {
            let digits = v.strip_prefix('-').unwrap_or(v);
            !digits.is_empty() && digits.bytes().all(|c| c.is_ascii_digit())
        }
    };
    if vars.values().any(Option::is_some) {
        for (k, v) in Rc::make_mut(vars).iter_mut() {
            if v.as_deref().is_some_and(integer) {
                *v = Some(INTEGER.to_string());
                kept.push(k.clone());
            } else {
                *v = None;
            }
        }
    }
    kept.sort();
    kept
}

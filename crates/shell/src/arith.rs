//! Text that bash evaluates while it expands words, other than command
//! substitutions: arithmetic expressions, indirect names and prompt strings.
//!
//! Arithmetic evaluates every variable it names, and the value of that
//! variable as an expression of its own, recursively; an array subscript
//! met on the way is evaluated too, so a value of `a[$(cmd)]` runs `cmd`
//! (`x='a[$(touch P)]'; echo $((x))`). `${!x}` expands the parameter the
//! value of `x` names, subscript included, and `${x@P}` expands the value
//! of `x` as a prompt, which runs its substitutions.
//!
//! This module reads such text; it never runs it. An expression is *plain*
//! when it holds only numbers, operators, parentheses and variables whose
//! values are known here and are plain themselves: no `[`, no `$(`, no
//! backquote, no quoting that could hide one. Anything else is not plain,
//! and the walk reports it as an `Unknown` (`walk::evaluate`). The scan is
//! linear in the text, and values are followed at most [`VALUE_DEPTH`]
//! variables deep.

use crate::parse::is_name;
use crate::syntax::Eval;
use crate::words::{INTEGER, Vars};

/// The values of variables where text is evaluated: `None` when the
/// value is not known there.
pub(crate) trait Values {
    fn value(&self, name: &str) -> Option<&str>;
}

impl Values for Vars {
    fn value(&self, name: &str) -> Option<&str> {
        self.get(name)?.as_deref()
    }
}

impl Values for std::rc::Rc<Vars> {
    fn value(&self, name: &str) -> Option<&str> {
        self.get(name)?.as_deref()
    }
}

/// The variables followed, except some that are not known at this point
/// (those assigned earlier on the same line, before the value is
/// evaluated), without copying them.
pub(crate) struct Overlay<'a> {
    pub vars: &'a Vars,
    pub unknown: &'a std::collections::HashSet<String>,
}

impl Values for Overlay<'_> {
    fn value(&self, name: &str) -> Option<&str> {
        if self.unknown.contains(name) {
            None
        } else {
            self.vars.value(name)
        }
    }
}

/// How many variables deep values are followed (`a=b; b=c; c=1`). Bash
/// itself stops at 1024 with an error; deeper here is simply not plain.
const VALUE_DEPTH: usize = 8;

/// Parameters whose value is always an integer (or empty, which is 0):
/// `$#`, `$?`, `$$`, `$!`, and the read-only ids.
pub(crate) fn integer_param(name: &str) -> bool {
    matches!(name, "#" | "?" | "$" | "!" | "PPID" | "UID" | "EUID")
}

/// What a plain expression does to variables.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Checked {
    /// Variables it assigns (`=`, `+=`, `++`, ...), each with whether it
    /// surely holds an integer afterwards (false for an assignment that
    /// may not run, `c && (x = 1)`, to a variable whose old value was not
    /// plain).
    pub targets: Vec<(String, bool)>,
    /// Variables whose values it reads.
    pub reads: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// A variable named bare (`x`): its value is evaluated.
    Name(String),
    /// `$x` or `${x}`: its value is pasted into the text first.
    Param(String),
    /// `$#` and the like, and numbers (`12`, `0x1f`, `2#101`).
    Int,
    Op(&'static str),
    Open,
    Close,
    /// `,` (and `;` between the parts of `for ((..))`).
    Seq,
}

/// Why an arithmetic expression is not plain: what it assigns or reads is
/// then unknown, and the command is analysed as such.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ArithError {
    /// `${` without `}`.
    #[error("an unclosed `${{`")]
    UnclosedBrace,
    /// A parameter expansion other than a plain name (the piece).
    #[error("the expansion `{0}`")]
    Expansion(String),
    /// `$(..)`.
    #[error("a command substitution `$(`")]
    CommandSubstitution,
    /// `a[..]`.
    #[error("an array subscript `[`")]
    ArraySubscript,
    /// `` `..` ``.
    #[error("a command substitution in backquotes")]
    Backquotes,
    /// A character that is no operator (the character).
    #[error("`{0}`")]
    Piece(String),
    /// A variable whose value is itself not plain.
    #[error("the value of `{name}` holds {source}")]
    Value {
        /// The variable.
        name: String,
        /// What its value holds.
        source: Box<ArithError>,
    },
    /// Values naming variables naming variables, past the depth followed.
    #[error("`{0}` names variables too deep to follow")]
    TooDeep(String),
    /// A variable whose value is not known where it is evaluated.
    #[error("`{0}` holds a value not known here")]
    UnknownValue(String),
    /// A variable's value with an expansion in it.
    #[error("the expansion in `{0}`")]
    ExpansionIn(String),
    /// A variable's value that assigns.
    #[error("an assignment in `{0}`")]
    AssignmentIn(String),
    /// `$x = ..`, `$x++`: assigns to the variable `x` names.
    #[error("an assignment through `${0}`")]
    AssignmentThrough(String),
    /// `name[..` without `]`.
    #[error("the unclosed subscript of `{0}`")]
    UnclosedSubscript(String),
    /// `name[i = 1]`.
    #[error("the subscript of `{0}` assigns")]
    SubscriptAssigns(String),
    /// A subscript that is not plain.
    #[error("the subscript of `{text}`, which is not plain: {source}")]
    Subscript {
        /// The name with its subscript.
        text: String,
        /// Why the subscript is not plain.
        source: Box<ArithError>,
    },
}

/// Operators, longest first so that the scan takes the longest match.
const OPS: &[&str] = &[
    "<<=", ">>=", "**", "==", "!=", "<=", ">=", "&&", "||", "++", "--", "<<", ">>", "*=", "/=",
    "%=", "+=", "-=", "&=", "^=", "|=", "+", "-", "*", "/", "%", "<", ">", "!", "~", "&", "|", "^",
    "?", ":", "=",
];

/// Assignment operators other than `=`: they read the variable too.
fn op_assign(op: &str) -> bool {
    op.ends_with('=') && !matches!(op, "=" | "==" | "!=" | "<=" | ">=")
}

/// Splits an expression into tokens; `Err` names the first piece that
/// makes it not plain.
fn tokens(expr: &str) -> Result<Vec<Tok>, ArithError> {
    let b = expr.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let ident_len = |from: usize| {
        b[from..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count()
    };
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            // Double quotes inside `$((..))` are removed; what they hold is
            // read like the rest.
            b'"' => i += 1,
            b'0'..=b'9' => {
                // A number in any base: `0x1f`, `2#101`, `64#@_`.
                i += b[i..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'#' | b'@'))
                    .count();
                out.push(Tok::Int);
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let n = ident_len(i);
                out.push(Tok::Name(expr[i..i + n].to_string()));
                i += n;
            }
            b'$' => {
                let next = b.get(i + 1).copied();
                match next {
                    Some(b'{') => {
                        let close = b[i..]
                            .iter()
                            .position(|&c| c == b'}')
                            .ok_or(ArithError::UnclosedBrace)?;
                        let inner = &expr[i + 2..i + close];
                        if integer_param(inner) {
                            out.push(Tok::Int);
                        } else if is_name(inner) {
                            out.push(Tok::Param(inner.to_string()));
                        } else {
                            return Err(ArithError::Expansion(format!("${{{inner}}}")));
                        }
                        i += close + 1;
                    }
                    Some(b'(') if b.get(i + 2) == Some(&b'(') => {
                        // `$((..))` inside: its own expression, read in
                        // place; its `))` closes the two parentheses.
                        out.push(Tok::Open);
                        out.push(Tok::Open);
                        i += 3;
                    }
                    Some(b'(') => return Err(ArithError::CommandSubstitution),
                    Some(b'#' | b'?' | b'$' | b'!') => {
                        out.push(Tok::Int);
                        i += 2;
                    }
                    Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                        let n = ident_len(i + 1);
                        out.push(Tok::Param(expr[i + 1..i + 1 + n].to_string()));
                        i += 1 + n;
                    }
                    _ => {
                        let piece: String = expr[i..].chars().take(2).collect();
                        return Err(ArithError::Expansion(piece));
                    }
                }
            }
            b'(' => {
                out.push(Tok::Open);
                i += 1;
            }
            b')' => {
                out.push(Tok::Close);
                i += 1;
            }
            b',' | b';' => {
                out.push(Tok::Seq);
                i += 1;
            }
            b'[' | b']' => return Err(ArithError::ArraySubscript),
            b'`' => return Err(ArithError::Backquotes),
            _ => {
                let Some(op) = OPS.iter().find(|op| b[i..].starts_with(op.as_bytes())) else {
                    let piece: String = expr[i..].chars().take(1).collect();
                    return Err(ArithError::Piece(piece));
                };
                out.push(Tok::Op(op));
                i += op.len();
            }
        }
    }
    Ok(out)
}

/// Whether the value of variable `name` is plain where it is evaluated:
/// known here and itself a plain expression.
fn value_plain(name: &str, vars: &dyn Values, depth: usize) -> Result<(), ArithError> {
    if integer_param(name) {
        return Ok(());
    }
    match vars.value(name) {
        Some(INTEGER) => Ok(()),
        Some(v) if depth < VALUE_DEPTH => {
            value_expr(v, vars, depth + 1).map_err(|e| ArithError::Value {
                name: name.to_string(),
                source: Box::new(e),
            })
        }
        Some(_) => Err(ArithError::TooDeep(name.to_string())),
        None => Err(ArithError::UnknownValue(name.to_string())),
    }
}

/// A variable's value evaluated as an expression of its own: plain, and
/// assigning nothing (what it would assign is not followed).
fn value_expr(text: &str, vars: &dyn Values, depth: usize) -> Result<(), ArithError> {
    for t in tokens(text)? {
        match &t {
            Tok::Name(n) => value_plain(n, vars, depth)?,
            Tok::Param(_) => return Err(ArithError::ExpansionIn(text.to_string())),
            Tok::Op(op) if op_assign(op) || matches!(*op, "=" | "++" | "--") => {
                return Err(ArithError::AssignmentIn(text.to_string()));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Checks an arithmetic expression: `Ok` with what it assigns and reads
/// when it is plain, `Err` naming why not.
///
/// `$x` is pasted in before evaluation, so its value is the one from
/// before the expression; a bare `x` assigned by an earlier part of the
/// same expression (`i = 0, i < 3`) holds an integer when it is read,
/// unless that assignment may not have run (`?:`, `&&`, `||`).
pub(crate) fn check(expr: &str, vars: &dyn Values) -> Result<Checked, ArithError> {
    let toks = tokens(expr)?;
    let mut out = Checked::default();
    // Assigned by a completed part of the expression.
    let mut assigned: Vec<&str> = Vec::new();
    // `=` targets of the current part, and whether it is conditional.
    let mut pending: Vec<&str> = Vec::new();
    let mut conditional = false;
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate() {
        let next = toks.get(k + 1);
        let prev = k.checked_sub(1).and_then(|p| toks.get(p));
        let incdec = |t: Option<&Tok>| matches!(t, Some(Tok::Op("++" | "--")));
        match t {
            Tok::Name(n) => {
                if next == Some(&Tok::Op("=")) {
                    pending.push(n);
                    let sure = !conditional || value_plain(n, vars, 0).is_ok();
                    out.targets.push((n.clone(), sure));
                    continue;
                }
                out.reads.push(n.clone());
                if !assigned.contains(&n.as_str()) {
                    value_plain(n, vars, 0)?;
                }
                if incdec(next)
                    || incdec(prev)
                    || matches!(next, Some(Tok::Op(op)) if op_assign(op))
                {
                    out.targets.push((n.clone(), true));
                }
            }
            Tok::Param(n) => {
                if incdec(next)
                    || incdec(prev)
                    || matches!(next, Some(Tok::Op(op)) if op_assign(op) || *op == "=")
                {
                    return Err(ArithError::AssignmentThrough(n.clone()));
                }
                out.reads.push(n.clone());
                value_plain(n, vars, 0)?;
            }
            Tok::Op("?" | "&&" | "||") => conditional = true,
            Tok::Open => depth += 1,
            Tok::Close => depth = depth.saturating_sub(1),
            Tok::Seq if depth == 0 => {
                if !conditional {
                    assigned.append(&mut pending);
                }
                pending.clear();
                conditional = false;
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Checks a variable name given to a builtin that assigns or tests it
/// (`read`, `printf -v`, `unset`, `test -v`, `declare`): its subscript,
/// if any, is evaluated. Text that is not a name is refused by bash
/// without evaluating anything.
pub(crate) fn check_name(text: &str, vars: &dyn Values) -> Result<(), ArithError> {
    let Some(open) = text.find('[') else {
        return Ok(());
    };
    let name = &text[..open];
    let Some(sub) = text[open + 1..].strip_suffix(']') else {
        return if is_name(name) {
            Err(ArithError::UnclosedSubscript(text.to_string()))
        } else {
            Ok(())
        };
    };
    if !is_name(name) || matches!(sub, "@" | "*") {
        return Ok(());
    }
    match check(sub, vars) {
        Ok(c) if c.targets.is_empty() => Ok(()),
        Ok(_) => Err(ArithError::SubscriptAssigns(text.to_string())),
        Err(e) => Err(ArithError::Subscript {
            text: text.to_string(),
            source: Box::new(e),
        }),
    }
}

/// Whether the value of `name` is known here and names a parameter with no
/// subscript, as `${!name}` needs to stay plain.
pub(crate) fn indirect_plain(name: &str, vars: &dyn Values) -> bool {
    match vars.value(name) {
        Some(v) if v != INTEGER => {
            is_name(v)
                || (!v.is_empty() && v.bytes().all(|c| c.is_ascii_digit()))
                || matches!(v, "#" | "?" | "$" | "!" | "@" | "*" | "-")
        }
        _ => false,
    }
}

/// Whether the value of `name` is known here and expands as a prompt to
/// itself, running nothing: no `$`, backquote or backslash (`\044` is a
/// `$` in a prompt).
pub(crate) fn prompt_plain(name: &str, vars: &dyn Values) -> bool {
    match vars.value(name) {
        Some(INTEGER) => true,
        Some(v) => !v.contains(['$', '`', '\\']),
        None => false,
    }
}

/// The index just past the `]` closing the `[` at the start of `text`,
/// skipping quoted text and nested brackets.
fn closing_bracket(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'\'' => i += b[i + 1..].iter().position(|&c| c == b'\'')? + 1,
            b'[' => depth += 1,
            b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The evaluations a `${..}` expansion makes, from the text between `${`
/// and `}`: its subscript, the offset and length of `${x:o:l}`, an
/// indirection (`${!x}`, but not `${!prefix*}` or `${!a[@]}`, which list
/// names) and a prompt expansion (`${x@P}`). Nested expansions are found
/// by the parser on their own.
pub(crate) fn expansion_evals(inner: &str, out: &mut Vec<Eval>) {
    let mut rest = inner;
    let mut indirect = false;
    // `${!}` and `${#}` are the parameters `!` and `#`.
    if rest.len() > 1 {
        if let Some(r) = rest.strip_prefix('!') {
            indirect = true;
            rest = r;
        } else if let Some(r) = rest.strip_prefix('#') {
            rest = r;
        }
    }
    let b = rest.as_bytes();
    let name_len = match b.first() {
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => b
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count(),
        Some(c) if c.is_ascii_digit() => b.iter().take_while(|c| c.is_ascii_digit()).count(),
        Some(b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') => 1,
        _ => 0,
    };
    let name = &rest[..name_len];
    rest = &rest[name_len..];
    let mut subscript = None;
    if rest.starts_with('[') {
        match closing_bracket(rest) {
            Some(end) => {
                subscript = Some(&rest[1..end - 1]);
                rest = &rest[end..];
            }
            None => {
                // Unclosed: not plain, whatever it holds.
                out.push(Eval::Arith(rest.to_string()));
                return;
            }
        }
    }
    let all = matches!(subscript, Some("@" | "*"));
    if let Some(sub) = subscript.filter(|_| !all) {
        out.push(Eval::Arith(sub.to_string()));
    }
    let target = match subscript {
        Some(sub) => format!("{name}[{sub}]"),
        None => name.to_string(),
    };
    if indirect {
        let lists_names = subscript.is_none() && matches!(rest, "*" | "@");
        if !lists_names && !all {
            out.push(Eval::Indirect(target.clone()));
        }
    }
    if let Some(op) = rest.strip_prefix(':') {
        // `${x:-w}`, `${x:=w}`, `${x:+w}`, `${x:?w}` are defaults; any
        // other `:` starts an offset (`${x: -1}` included).
        if !op.starts_with(['-', '=', '+', '?']) {
            out.push(Eval::Arith(op.to_string()));
        }
    } else if rest == "@P" {
        let prompt = if indirect {
            format!("!{target}")
        } else {
            target
        };
        out.push(Eval::Prompt(prompt));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> Vars {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), Some(v.to_string())))
            .collect()
    }

    #[test]
    fn plain_expressions() {
        let v = vars(&[
            ("n", "3"),
            ("m", "n*2"),
            ("p", "a[$(touch P)]"),
            ("i", INTEGER),
        ]);
        assert!(check("1+2", &v).is_ok());
        assert!(check("n*2 + m - i", &v).is_ok());
        assert!(check("$n + ${m} + $#", &v).is_ok());
        assert!(check("0x1f + 2#101 + 64#@_", &v).is_ok());
        assert!(check("\"$n\" + 1", &v).is_ok());
        assert!(
            check("p", &v)
                .unwrap_err()
                .to_string()
                .contains("subscript")
        );
        assert!(check("$p", &v).is_err());
        assert!(
            check("q", &v)
                .unwrap_err()
                .to_string()
                .contains("not known")
        );
        assert!(check("a[1]", &v).is_err());
        assert!(check("$(echo 1)", &v).is_err());
        assert!(check("`echo 1`", &v).is_err());
        assert!(check("${p:-1}", &v).is_err());
        assert!(check("$1", &v).is_err());
        assert!(check("$_ + _", &v).is_err());
    }

    #[test]
    fn assignments_in_order() {
        let v = Vars::default();
        let c = check("i=0; i<3; i++", &v).unwrap();
        assert_eq!(
            c.targets,
            [("i".to_string(), true), ("i".to_string(), true)]
        );
        assert!(check("i = i + 1", &v).is_err());
        assert!(check("i = 0, $i", &v).is_err());
        assert!(check("c = 1, c && (i = 1), i", &v).is_err());
        let c = check("c = 1, c && (i = 1)", &v).unwrap();
        assert_eq!(c.targets[1], ("i".to_string(), false));
        assert!(check("$x = 1", &vars(&[("x", "y")])).is_err());
    }

    #[test]
    fn values_that_assign_are_not_plain() {
        let v = vars(&[("x", "y=5"), ("a", "b"), ("b", "a")]);
        assert!(check("x", &v).is_err());
        assert!(check("a", &v).is_err());
    }

    #[test]
    fn expansions() {
        let evals = |s: &str| {
            let mut out = Vec::new();
            expansion_evals(s, &mut out);
            out
        };
        assert_eq!(evals("a[x]"), [Eval::Arith("x".into())]);
        assert_eq!(evals("#a[x]"), [Eval::Arith("x".into())]);
        assert_eq!(evals("a[@]"), []);
        assert_eq!(evals("x:1:2"), [Eval::Arith("1:2".into())]);
        assert_eq!(evals("x: -1"), [Eval::Arith(" -1".into())]);
        assert_eq!(evals("x:-d"), []);
        assert_eq!(evals("x:=d"), []);
        assert_eq!(evals("!x"), [Eval::Indirect("x".into())]);
        assert_eq!(evals("!p*"), []);
        assert_eq!(evals("!p@"), []);
        assert_eq!(evals("!a[@]"), []);
        assert_eq!(evals("!"), []);
        assert_eq!(evals("#"), []);
        assert_eq!(evals("x@P"), [Eval::Prompt("x".into())]);
        assert_eq!(evals("x@Q"), []);
        assert_eq!(
            evals("!x@P"),
            [Eval::Indirect("x".into()), Eval::Prompt("!x".into())]
        );
        assert_eq!(evals("@:x"), [Eval::Arith("x".into())]);
        assert_eq!(evals("a[@]:0:x"), [Eval::Arith("0:x".into())]);
        assert_eq!(evals("a[$(f)]"), [Eval::Arith("$(f)".into())]);
    }

    #[test]
    fn names() {
        let v = vars(&[("i", "2")]);
        assert!(check_name("x", &v).is_ok());
        assert!(check_name("a[i]", &v).is_ok());
        assert!(check_name("a[@]", &v).is_ok());
        assert!(check_name("a[$(touch P)]", &v).is_err());
        assert!(check_name("a[j]", &v).is_err());
        assert!(check_name("a[i=1]", &v).is_err());
        assert!(check_name("a[1", &v).is_err());
        assert!(indirect_plain("i", &vars(&[("i", "HOME")])));
        assert!(!indirect_plain("i", &vars(&[("i", "a[1]")])));
        assert!(!indirect_plain("j", &v));
        assert!(prompt_plain("i", &v));
        assert!(!prompt_plain("i", &vars(&[("i", "\\044(x)")])));
    }
}

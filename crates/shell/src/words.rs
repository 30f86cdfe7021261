//! From a parsed word to the arguments a command receives: quote removal,
//! tilde and `$HOME`, brace expansion and globbing, and which results are
//! not literal.

use std::cell::Cell;
use std::collections::HashMap;
use std::path::Path;

use crate::glob;
use crate::syntax::{Part, Word};

/// More words than this from one brace expression are not followed.
const BRACE_LIMIT: usize = 1024;

/// One argument as the command will receive it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Arg {
    /// The unquoted value; for a non-literal word, its source text.
    pub text: String,
    /// False when the value is only known when the command runs.
    pub literal: bool,
    /// The glob pattern this argument was expanded from, unquoted.
    pub pattern: Option<String>,
    /// The argument stands for everything beneath it (`find DIR -exec .. {}`).
    pub beneath: bool,
    /// With `beneath`: only the entries beneath that pass this filter
    /// (`find DIR -name '*.c' -exec .. {}`); on an effect, what the
    /// recursive read reaches.
    pub filter: Option<crate::effects::Filter>,
}

impl Arg {
    /// A literal argument.
    pub fn lit(text: impl Into<String>) -> Arg {
        Arg {
            text: text.into(),
            literal: true,
            pattern: None,
            beneath: false,
            filter: None,
        }
    }

    /// This argument with another value (a part of it, or a path derived
    /// from it), keeping what else is known about it.
    pub fn with_text(&self, text: impl Into<String>) -> Arg {
        Arg {
            text: text.into(),
            literal: self.literal,
            pattern: self.pattern.clone(),
            beneath: self.beneath,
            filter: self.filter.clone(),
        }
    }

    /// An argument made from other words (a backup's name, a path joined
    /// from a directory and a name): literal only when they all were.
    pub fn made(text: impl Into<String>, literal: bool) -> Arg {
        Arg {
            literal,
            ..Arg::lit(text)
        }
    }

    /// An argument whose value is not known.
    pub fn dynamic(text: impl Into<String>) -> Arg {
        Arg {
            literal: false,
            ..Arg::lit(text)
        }
    }
}

/// Shell variables assigned earlier in the script: `Some(value)` when the
/// assignment was literal and surely ran, `None` when the variable was
/// assigned but its value is not known for sure here.
pub(crate) type Vars = HashMap<String, Option<String>>;

/// The value of a variable known to hold an integer whose digits are not
/// followed (assigned by arithmetic, `n=$((..))`, or given the integer
/// attribute): never expanded as text, since no value bash holds contains
/// a NUL, but plain wherever bash evaluates it as arithmetic.
pub(crate) const INTEGER: &str = "\0integer";

/// What expansion needs to know about the environment.
pub(crate) struct Env<'a> {
    pub home: Option<&'a Path>,
    /// The working directory, the value of `$PWD` and `$(pwd)` unless the
    /// script assigned `PWD`; `None` when not known.
    pub cwd: Option<&'a Path>,
    /// Variables known from the script.
    pub vars: &'a Vars,
    /// The directory globs are expanded in; `None` when unknown or disabled.
    pub glob_dir: Option<&'a Path>,
    pub glob_limit: usize,
    /// Directory entries globs may still look at in this analysis.
    pub glob_entries: &'a Cell<usize>,
}

/// A character and whether it was quoted.
type QChar = (char, bool);

/// Expands a word onto `out`; returns why a part could not be followed, if
/// so. (Appending, rather than returning a vector, saves an allocation per
/// word: most words are one argument.)
pub(crate) fn expand(word: &Word, env: &Env<'_>, out: &mut Vec<Arg>) -> Option<String> {
    if let Some(text) = plain_text(word) {
        out.push(Arg::lit(text));
        return None;
    }
    let Some(chars) = literal_chars(word, env.home, env.cwd, env.vars) else {
        out.push(Arg::dynamic(word.text.clone()));
        return None;
    };
    // An unquoted expansion that is empty leaves no word at all.
    if chars.is_empty()
        && !word.parts.iter().any(|p| {
            matches!(
                p,
                Part::Lit { quoted: true, .. } | Part::Param { quoted: true, .. }
            )
        })
    {
        return None;
    }
    // Tilde: `~` and `~/..` are the home directory (kept as written: the
    // policy resolves it); `~user`, `~+`, `~-` are not known here.
    let tilde_end = chars
        .iter()
        .position(|&(c, q)| c == '/' && !q)
        .unwrap_or(chars.len());
    if matches!(chars.first(), Some(('~', false))) && tilde_end > 1 {
        out.push(Arg::dynamic(word.text.clone()));
        return None;
    }
    let Some(variants) = brace_expand(&chars) else {
        out.push(Arg::dynamic(word.text.clone()));
        return Some(format!("brace expansion of `{}` is too large", word.text));
    };
    let mut note = None;
    for variant in variants {
        let text: String = variant.iter().map(|&(c, _)| c).collect();
        if !has_glob(&variant) {
            out.push(Arg::lit(text));
            continue;
        }
        let Some(dir) = env.glob_dir else {
            out.push(Arg {
                pattern: Some(text.clone()),
                ..Arg::dynamic(text)
            });
            continue;
        };
        match glob::expand(&variant, dir, env.home, env.glob_limit, env.glob_entries) {
            Ok(matches) if matches.is_empty() => out.push(Arg {
                pattern: Some(text.clone()),
                ..Arg::lit(text)
            }),
            Ok(matches) => out.extend(matches.into_iter().map(|m| Arg {
                pattern: Some(text.clone()),
                ..Arg::lit(m)
            })),
            Err(e) => {
                note = Some(format!("glob `{text}`: {e}"));
                out.push(Arg {
                    pattern: Some(text.clone()),
                    ..Arg::dynamic(text)
                });
            }
        }
    }
    note
}

/// The word's value when it is literal text with nothing to expand (the
/// common case, taken without building per-character quoting).
pub(crate) fn plain_text(word: &Word) -> Option<String> {
    let mut out = String::new();
    for part in &word.parts {
        match part {
            Part::Lit { text, quoted: true } => out.push_str(text),
            Part::Lit {
                text,
                quoted: false,
            } if !text.contains(['{', '*', '?', '[', '~']) => out.push_str(text),
            _ => return None,
        }
    }
    (!word.parts.is_empty()).then_some(out)
}

/// The value of `$name`, when it is known: from the script's own literal
/// assignments, else `$HOME` from the options.
pub(crate) fn param_value<'a>(
    name: &str,
    home: Option<&'a Path>,
    cwd: Option<&'a Path>,
    vars: &'a Vars,
) -> Option<&'a str> {
    match vars.get(name) {
        Some(v) => v.as_deref().filter(|v| *v != INTEGER),
        None if name == "HOME" => home?.to_str(),
        None if name == "PWD" => cwd.filter(|c| c.is_absolute())?.to_str(),
        None => None,
    }
}

/// The value an assignment gives (`X=VALUE`): no splitting or globbing
/// happens there; a `~` is left to be unknown.
pub(crate) fn assigned_value(word: &Word, home: Option<&Path>, vars: &Vars) -> Option<String> {
    if integer_word(word, vars) {
        return Some(INTEGER.to_string());
    }
    let mut out = String::new();
    for (i, part) in word.parts.iter().enumerate() {
        match part {
            Part::Lit { text, quoted } => {
                let mut text = text.as_str();
                // `X=~` and `X=~/d` are the home directory.
                if !quoted && i == 0 {
                    if let Some(rest) = text
                        .strip_prefix('~')
                        .filter(|r| r.is_empty() || r.starts_with('/'))
                    {
                        out.push_str(home?.to_str()?);
                        text = rest;
                    }
                }
                if !quoted && text.contains('~') {
                    return None;
                }
                out.push_str(text);
            }
            Part::Param { name, .. } => out.push_str(param_value(name, home, None, vars)?),
            Part::Dynamic | Part::Number => return None,
        }
    }
    if word.parts.is_empty() && !word.text.is_empty() {
        return None;
    }
    Some(out)
}

/// The word's characters with their quoting, when every part is known.
fn literal_chars(
    word: &Word,
    home: Option<&Path>,
    cwd: Option<&Path>,
    vars: &Vars,
) -> Option<Vec<QChar>> {
    if word.parts.is_empty() {
        return if word.text.is_empty() {
            Some(Vec::new())
        } else {
            None
        };
    }
    let mut chars = Vec::new();
    for part in &word.parts {
        match part {
            Part::Lit { text, quoted } => chars.extend(text.chars().map(|c| (c, *quoted))),
            Part::Param { name, quoted } => {
                let value = param_value(name, home, cwd, vars)?;
                if *quoted {
                    chars.extend(value.chars().map(|c| (c, true)));
                } else {
                    // Unquoted, the value is split at blanks (not followed:
                    // unknown) and globbed, but braces and `~` in it are text.
                    if value.contains([' ', '\t', '\n']) {
                        return None;
                    }
                    chars.extend(
                        value
                            .chars()
                            .map(|c| (c, !matches!(c, '*' | '?' | '[' | ']'))),
                    );
                }
            }
            Part::Dynamic | Part::Number => return None,
        }
    }
    Some(chars)
}

/// Whether the word's value is an integer whose digits are not all known:
/// it joins arithmetic expansions, variables holding integers and digits.
fn integer_word(word: &Word, vars: &Vars) -> bool {
    let mut unknown_digits = false;
    let all = word.parts.iter().all(|p| match p {
        Part::Number => {
            unknown_digits = true;
            true
        }
        Part::Param { name, .. } => {
            let int = crate::arith::integer_param(name)
                || vars
                    .get(name)
                    .is_some_and(|v| v.as_deref() == Some(INTEGER));
            unknown_digits |= int;
            int
        }
        Part::Lit { text, .. } => text.bytes().all(|c| c.is_ascii_digit()),
        Part::Dynamic => false,
    });
    all && unknown_digits
}

/// Unquoted `*`, `?`, or `[` with a closing `]`.
pub(crate) fn has_glob(chars: &[QChar]) -> bool {
    chars.iter().enumerate().any(|(i, &(c, q))| {
        !q && (c == '*'
            || c == '?'
            || (c == '['
                && chars
                    .get(i + 1..)
                    .is_some_and(|rest| rest.iter().skip(1).any(|&(c, q)| c == ']' && !q))))
    })
}

/// Bash brace expansion (`{a,b}`, `{1..3}`, `{a..c}`), outermost first;
/// `None` past [`BRACE_LIMIT`] results.
fn brace_expand(chars: &[QChar]) -> Option<Vec<Vec<QChar>>> {
    let mut done = Vec::new();
    let mut todo = vec![chars.to_vec()];
    let mut steps = 0usize;
    while let Some(item) = todo.pop() {
        steps += 1;
        if steps > BRACE_LIMIT * 4 || done.len() + todo.len() > BRACE_LIMIT {
            return None;
        }
        match find_brace(&item) {
            None => done.push(item),
            Some((open, close, alternatives)) => {
                if done.len() + todo.len() + alternatives.len() > BRACE_LIMIT {
                    return None;
                }
                for alt in alternatives.into_iter().rev() {
                    let mut next = item[..open].to_vec();
                    next.extend(alt);
                    next.extend_from_slice(&item[close + 1..]);
                    todo.push(next);
                }
            }
        }
    }
    Some(done)
}

/// The first brace expression in `chars`: its bounds and alternatives.
fn find_brace(chars: &[QChar]) -> Option<(usize, usize, Vec<Vec<QChar>>)> {
    let mut start = 0;
    while let Some(rel) = chars[start..].iter().position(|&(c, q)| c == '{' && !q) {
        let open = start + rel;
        // `${` is a parameter, never a brace expression.
        let after_dollar = open > 0 && chars[open - 1] == ('$', false);
        let mut depth = 0usize;
        let mut commas = Vec::new();
        let mut close = None;
        for (i, &(c, q)) in chars.iter().enumerate().skip(open) {
            if q {
                continue;
            }
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                ',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        let close = close?;
        if !after_dollar {
            if !commas.is_empty() {
                let mut alts = Vec::new();
                let mut from = open + 1;
                for &comma in &commas {
                    alts.push(chars[from..comma].to_vec());
                    from = comma + 1;
                }
                alts.push(chars[from..close].to_vec());
                return Some((open, close, alts));
            }
            if let Some(seq) = sequence(&chars[open + 1..close]) {
                return Some((open, close, seq));
            }
        }
        start = open + 1;
    }
    None
}

/// `1..5`, `a..e`, `1..10..2`.
fn sequence(inner: &[QChar]) -> Option<Vec<Vec<QChar>>> {
    if inner.iter().any(|&(_, q)| q) {
        return None;
    }
    let text: String = inner.iter().map(|&(c, _)| c).collect();
    let mut pieces = text.split("..");
    let (a, b) = (pieces.next()?, pieces.next()?);
    let step: i64 = match pieces.next() {
        Some(s) => s.parse().ok()?,
        None => 1,
    };
    if pieces.next().is_some() {
        return None;
    }
    let step = step.unsigned_abs().max(1);
    let as_chars = |s: String| s.chars().map(|c| (c, true)).collect::<Vec<QChar>>();
    if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        let count = x.abs_diff(y) / step + 1;
        if count > BRACE_LIMIT as u64 {
            return Some(vec![Vec::new(); BRACE_LIMIT + 1]);
        }
        let mut out = Vec::new();
        let mut v = x;
        for _ in 0..count {
            out.push(as_chars(v.to_string()));
            v = if x <= y {
                v.saturating_add(step as i64)
            } else {
                v.saturating_sub(step as i64)
            };
        }
        return Some(out);
    }
    let (mut ca, mut cb) = (a.chars(), b.chars());
    if let (Some(x), None, Some(y), None) = (ca.next(), ca.next(), cb.next(), cb.next()) {
        if x.is_ascii_alphabetic() && y.is_ascii_alphabetic() {
            let (x, y) = (x as u32, y as u32);
            let mut out = Vec::new();
            let mut v = x;
            loop {
                out.push(as_chars(
                    char::from_u32(v).map(String::from).unwrap_or_default(),
                ));
                if v == y {
                    break;
                }
                let next = if x <= y {
                    v.checked_add(step as u32)
                } else {
                    v.checked_sub(step as u32)
                };
                match next {
                    Some(n) if (x <= y && n <= y) || (x > y && n >= y) => v = n,
                    _ => break,
                }
            }
            return Some(out);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> Vec<QChar> {
        s.chars().map(|c| (c, false)).collect()
    }

    fn strings(v: Vec<Vec<QChar>>) -> Vec<String> {
        v.into_iter()
            .map(|w| w.into_iter().map(|(c, _)| c).collect())
            .collect()
    }

    #[test]
    fn braces() {
        assert_eq!(
            strings(brace_expand(&lit("a{b,c}d")).unwrap()),
            ["abd", "acd"]
        );
        assert_eq!(
            strings(brace_expand(&lit("f{,.bak}")).unwrap()),
            ["f", "f.bak"]
        );
        assert_eq!(
            strings(brace_expand(&lit("{1..3}")).unwrap()),
            ["1", "2", "3"]
        );
        assert_eq!(
            strings(brace_expand(&lit("{a..c}")).unwrap()),
            ["a", "b", "c"]
        );
        assert_eq!(strings(brace_expand(&lit("{/,x}")).unwrap()), ["/", "x"]);
        assert_eq!(strings(brace_expand(&lit("{a}")).unwrap()), ["{a}"]);
        assert_eq!(strings(brace_expand(&lit("${x}")).unwrap()), ["${x}"]);
        assert!(brace_expand(&lit("{1..100000}")).is_none());
        assert!(
            brace_expand(&lit(
                "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"
            ))
            .is_none()
        );
    }

    #[test]
    fn globs() {
        assert!(has_glob(&lit("*.txt")));
        assert!(has_glob(&lit("[ab].c")));
        assert!(!has_glob(&lit("[ab")));
        assert!(!has_glob(&[('*', true)]));
    }
}

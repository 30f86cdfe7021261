//! Attributes a script gives its variables anywhere, read before it is
//! walked.
//!
//! Whether assigning a variable evaluates the value depends on attributes
//! given at run time, and the order bash gives them in is not the order of
//! the text: a loop's second round sees what its first declared
//! (`for i in 1 2; do x=$v; declare -i x; done`), a function runs where it
//! is called. So every name a script gives the integer attribute, a name
//! reference or an array anywhere (outside substitutions, whose shells end
//! with them) is treated as having it from the start: more places are
//! checked than bash would evaluate, never fewer.

use std::collections::HashSet;

use crate::syntax::{List, Node, Simple, Word};
use crate::words::plain_text;

/// Arrays bash itself makes whose assignment through a declaration
/// (`declare DIRSTACK="(..)"`) is read as a compound assignment: arrays in
/// every script, looked up here rather than copied into each
/// [`Ahead`].
pub(in crate::walk) const SHELL_ARRAYS: &[&str] = &[
    "BASH_ALIASES",
    "BASH_ARGC",
    "BASH_ARGV",
    "BASH_CMDS",
    "BASH_LINENO",
    "BASH_REMATCH",
    "BASH_SOURCE",
    "BASH_VERSINFO",
    "COMP_WORDS",
    "COPROC",
    "DIRSTACK",
    "FUNCNAME",
    "GROUPS",
    "MAPFILE",
    "PIPESTATUS",
];

/// Names given each attribute; `*_any` when a name given it is not known.
#[derive(Debug, Default)]
pub(in crate::walk) struct Ahead {
    pub ints: HashSet<String>,
    pub ints_any: bool,
    pub refs: HashSet<String>,
    pub refs_any: bool,
    pub arrays: HashSet<String>,
    pub arrays_any: bool,
}

impl Ahead {
    /// Reads `list` and everything nested in it but substitutions.
    pub fn of(list: &List) -> Ahead {
        let mut ahead = Ahead::default();
        ahead.list(list);
        // `declare -a r` through a name reference makes the variable it
        // refers to an array.
        if ahead.refs_any || !ahead.refs.is_empty() {
            ahead.arrays_any = true;
        }
        ahead
    }

    fn list(&mut self, list: &List) {
        for item in &list.items {
            self.node(&item.node);
        }
    }

    fn node(&mut self, node: &Node) {
        match node {
            Node::Simple(s) => self.simple(s),
            Node::Pipeline(stages) => stages.iter().for_each(|n| self.node(n)),
            Node::AndOr(first, rest) => {
                self.node(first);
                rest.iter().for_each(|(_, n)| self.node(n));
            }
            Node::Subshell(l) => self.list(l),
            Node::Compound { bodies, .. } => bodies.iter().for_each(|l| self.list(l)),
            Node::Function { body, .. } => self.node(body),
            Node::Redirected(inner, _) => self.node(inner),
            Node::Arith(_) => {}
        }
    }

    fn simple(&mut self, s: &Simple) {
        // `x=(..)`, `x+=(..)`, `x[i]=v`: an array from here on.
        for a in s.assigns.iter().filter(|a| a.array) {
            self.arrays.insert(a.name.clone());
        }
        // The command's name, past the builtins that run the next word as
        // a command (`builtin declare`, `command local`); the other words
        // are read only for the builtins that give attributes.
        let mut words = s.words.iter();
        let name = loop {
            match words.next().and_then(plain_text) {
                Some(t) if matches!(t.as_str(), "builtin" | "command") => continue,
                Some(t) => break t,
                None => return,
            }
        };
        if !matches!(
            name.as_str(),
            "declare"
                | "typeset"
                | "local"
                | "export"
                | "readonly"
                | "read"
                | "mapfile"
                | "readarray"
        ) {
            return;
        }
        let rest: Vec<(Option<String>, &Word)> = words.map(|w| (plain_text(w), w)).collect();
        match name.as_str() {
            "declare" | "typeset" | "local" | "export" | "readonly" => self.declaration(&rest),
            "read" => self.named_by_option(&rest, 'a', "adinNptu"),
            "mapfile" | "readarray" => {
                let operand = operands(&rest, "dnOsuCc").next();
                match operand {
                    Some(Some(n)) => self.array(&n),
                    Some(None) => self.arrays_any = true,
                    None => {}
                }
            }
            _ => {}
        }
    }

    /// `read -a NAME`: `NAME` is an array.
    fn named_by_option(&mut self, rest: &[(Option<String>, &Word)], opt: char, valued: &str) {
        let mut it = rest.iter();
        while let Some((text, _)) = it.next() {
            let Some(text) = text else {
                // An option not known here may be `-a`.
                self.arrays_any = true;
                return;
            };
            if text == "--" || !text.starts_with('-') || text.len() < 2 {
                return;
            }
            let cluster = &text[1..];
            for (at, c) in cluster.char_indices() {
                if !valued.contains(c) {
                    continue;
                }
                let inline = &cluster[at + c.len_utf8()..];
                let value = if inline.is_empty() {
                    it.next().map(|(t, _)| t.clone())
                } else {
                    Some(Some(inline.to_string()))
                };
                if c == opt {
                    match value {
                        Some(Some(n)) => self.array(&n),
                        _ => self.arrays_any = true,
                    }
                }
                break;
            }
        }
    }

    fn declaration(&mut self, rest: &[(Option<String>, &Word)]) {
        let mut flags = String::new();
        let mut names_from = rest.len();
        for (k, (text, word)) in rest.iter().enumerate() {
            match text {
                Some(t) if t.starts_with('-') && t != "--" => flags.push_str(&t[1..]),
                Some(t) if t.starts_with('+') => {}
                Some(t) if t == "--" => {
                    names_from = k + 1;
                    break;
                }
                Some(_) => {
                    names_from = k;
                    break;
                }
                // `NAME=$v`: a name, whatever its value.
                None if word_names(word) => {
                    names_from = k;
                    break;
                }
                None => {
                    // A word not known here may be any option.
                    self.ints_any = true;
                    self.refs_any = true;
                    self.arrays_any = true;
                    names_from = k;
                    break;
                }
            }
        }
        let (int, nameref) = (flags.contains('i'), flags.contains('n'));
        let array = flags.contains(['a', 'A']);
        if !(int || nameref || array) {
            return;
        }
        for (text, word) in rest.iter().skip(names_from) {
            // The name: the literal text before `=` or `[`.
            let name = text
                .as_deref()
                .or_else(|| {
                    word.text.split_once('=').map(|(n, _)| n).filter(|n| {
                        n.bytes().all(|b| {
                            b.is_ascii_alphanumeric() || b == b'_' || b == b'+' || b == b'['
                        })
                    })
                })
                .map(|t| {
                    let n = t.split(['=', '[']).next().unwrap_or(t);
                    n.trim_end_matches('+').to_string()
                })
                .filter(|n| !n.is_empty());
            match name {
                Some(n) => {
                    if int {
                        self.ints.insert(n.clone());
                    }
                    if nameref {
                        self.refs.insert(n.clone());
                    }
                    if array {
                        self.arrays.insert(n);
                    }
                }
                None => {
                    self.ints_any |= int;
                    self.refs_any |= nameref;
                    self.arrays_any |= array;
                }
            }
        }
    }

    fn array(&mut self, name: &str) {
        let n = name.split('[').next().unwrap_or(name);
        self.arrays.insert(n.to_string());
    }
}

/// Whether `word` as written starts with a variable's name, so that it
/// cannot be an option whatever it expands to.
fn word_names(word: &Word) -> bool {
    word.text
        .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
}

/// The operands after the options of a builtin whose options `valued`
/// take a value; `None` for a word not known here.
fn operands<'a>(
    rest: &'a [(Option<String>, &'a Word)],
    valued: &'a str,
) -> impl Iterator<Item = Option<String>> + 'a {
    let mut options = true;
    let mut skip = false;
    rest.iter().filter_map(move |(text, _)| {
        if skip {
            skip = false;
            return None;
        }
        if options {
            match text {
                Some(t) if t == "--" => {
                    options = false;
                    return None;
                }
                Some(t) if t.starts_with('-') && t.len() > 1 => {
                    let cluster = &t[1..];
                    if let Some((at, c)) = cluster.char_indices().find(|(_, c)| valued.contains(*c))
                    {
                        skip = cluster[at + c.len_utf8()..].is_empty();
                    }
                    return None;
                }
                _ => options = false,
            }
        }
        Some(text.clone())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Ahead {
        fn may_be_array(&self, name: &str) -> bool {
            self.arrays_any || self.arrays.contains(name) || SHELL_ARRAYS.contains(&name)
        }
    }

    fn ahead(src: &str) -> Ahead {
        let parsed = crate::parse::parse(src, 0, 64);
        Ahead::of(&parsed.list)
    }

    #[test]
    fn names_given_attributes_anywhere_are_known_before_the_walk() {
        let a = ahead("for i in 1 2; do x=$v; declare -i x; done");
        assert!(a.ints.contains("x"));
        let a = ahead("f() { local -n r=$1; }; typeset -ai n; readonly -A m");
        assert!(a.refs.contains("r"));
        assert!(a.ints.contains("n") && a.arrays.contains("n"));
        assert!(a.arrays.contains("m"));
        let a = ahead("x=(); y[3]=1; z+=(a); read -ra w; mapfile -t lines; readarray");
        for n in ["x", "y", "z", "w", "lines"] {
            assert!(a.may_be_array(n), "{n}");
        }
        assert!(!a.may_be_array("v"));
        assert!(ahead("declare -a \"$n\"").arrays_any);
        assert!(ahead("read $opts x").arrays_any);
        assert!(ahead("builtin declare -a q").arrays.contains("q"));
        // A name given a value not known here is not an option.
        let a = ahead("export FOO=$HOME/x; declare -a a=$v; local y=$1");
        assert!(!a.ints_any && !a.refs_any && !a.arrays_any);
        assert!(a.arrays.contains("a") && !a.arrays.contains("FOO"));
        // A substitution's shell ends with it.
        assert!(!ahead("echo $(declare -a q)").may_be_array("q"));
        assert!(ahead("echo").may_be_array("DIRSTACK"));
        // Through a name reference, any variable may become an array.
        assert!(ahead("declare -n r=a; declare -a r").may_be_array("a"));
    }
}

//! Pipeline stages that pass on some of the lines they read, unchanged:
//! `find . -name '*.php' | sort | xargs wc -l` hands `wc` names find
//! printed, in another order. Names reach the next stage only through a
//! program known to copy whole lines of its standard input (reordered,
//! some left out), with no operand that would add lines of its own and no
//! option that changes a line (`grep -o`, `uniq -c`, `head -c`).
//!
//! Names are followed as split text (`Filter::split`): a name holding a
//! blank, a newline, a quote or glob characters makes the read ask, so a
//! name a line filter could cut in two never becomes another path.

use crate::syntax::Simple;
use crate::words;

/// Whether `c` copies lines of its standard input to its output unchanged
/// (some of them, in any order) and does nothing else.
pub(super) fn passes_lines(c: &Simple) -> bool {
    if !c.assigns.is_empty() || !c.redirects.is_empty() {
        return false;
    }
    let mut words = Vec::with_capacity(c.words.len());
    for w in &c.words {
        if !w.subs.is_empty() || !w.evals.is_empty() {
            return false;
        }
        match words::plain_text(w) {
            Some(t) => words.push(t),
            None => return false,
        }
    }
    let Some((name, args)) = words.split_first() else {
        return false;
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match name.as_str() {
        "cat" | "tac" => args.iter().all(|a| *a == "-"),
        "sort" => flags(&args, "bdfghinMrRsuVz", "kt", &[]),
        "uniq" => flags(&args, "diuz", "fs", &[]),
        "head" | "tail" => {
            // `-n N` (`-n +N`, `-N`), never `-c` (bytes cut a line).
            let mut i = 0;
            while let Some(a) = args.get(i) {
                if *a == "-n" {
                    i += 2;
                    continue;
                }
                let ok = a
                    .strip_prefix("-n")
                    .or_else(|| a.strip_prefix('-'))
                    .is_some_and(|n| {
                        let n = n.strip_prefix(['+', '-']).unwrap_or(n);
                        !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
                    })
                    || *a == "-z";
                if !ok {
                    return false;
                }
                i += 1;
            }
            true
        }
        "grep" | "egrep" | "fgrep" => grep_selects(&args),
        // Newlines to NULs, for `xargs -0`.
        "tr" => matches!(args.as_slice(), ["\\n", "\\0" | "\\000"]),
        _ => false,
    }
}

/// Options of `flags` (single letters, clustered) and `valued` (letters
/// that take the next word or the rest of their word); no operand.
fn flags(args: &[&str], flags: &str, valued: &str, long: &[&str]) -> bool {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if long.contains(a) {
            continue;
        }
        let Some(cluster) = a
            .strip_prefix('-')
            .filter(|c| !c.is_empty() && !c.starts_with('-'))
        else {
            return false;
        };
        for (at, ch) in cluster.char_indices() {
            if valued.contains(ch) {
                if at + ch.len_utf8() == cluster.len() {
                    i += 1;
                }
                break;
            }
            if !flags.contains(ch) {
                return false;
            }
        }
    }
    true
}

/// `grep` that selects whole lines of its input: a pattern, options that
/// choose which lines match, no file operand.
fn grep_selects(args: &[&str]) -> bool {
    let mut i = 0;
    let mut pattern = false;
    while let Some(a) = args.get(i) {
        i += 1;
        if *a == "-e" {
            pattern = true;
            i += 1;
            continue;
        }
        if let Some(cluster) = a
            .strip_prefix('-')
            .filter(|c| !c.is_empty() && !c.starts_with('-'))
        {
            if cluster.starts_with('e') {
                pattern = true;
                continue;
            }
            if !cluster.chars().all(|ch| "vixwEFGPzsZ".contains(ch)) {
                return false;
            }
            continue;
        }
        if a.starts_with("--") {
            return false;
        }
        // The first operand is the pattern when no `-e` gave one; another
        // is a file, whose lines are not names find printed.
        if pattern {
            return false;
        }
        pattern = true;
    }
    pattern
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passes(cmd: &str) -> bool {
        let parsed = crate::parse::parse(cmd, 0, 64);
        assert!(parsed.errors.is_empty(), "`{cmd}` parses");
        match parsed.list.items.first().map(|i| &i.node) {
            Some(crate::syntax::Node::Simple(s)) => passes_lines(s),
            _ => false,
        }
    }

    #[test]
    fn line_filters() {
        for cmd in [
            "sort",
            "sort -u",
            "sort -rn",
            "sort -t : -k 2",
            "sort -k2,2",
            "uniq",
            "head -n 5",
            "head -5",
            "tail -n +2",
            "grep -v .svn",
            "grep -vE 'a|b'",
            "grep -e x -e y",
            "grep -i foo",
            "grep -vzZ generated",
            "tr '\\n' '\\0'",
            "cat",
            "tac",
        ] {
            assert!(passes(cmd), "`{cmd}` passes lines");
        }
        for cmd in [
            "sort f",
            "sort -o out",
            "uniq -c",
            "head -c 10",
            "head f",
            "grep -o x",
            "grep -n x",
            "grep x f",
            "grep -e x f",
            "grep --only-matching x",
            "tr a-z A-Z",
            "tr -d '\\n'",
            "cat f",
            "cut -d/ -f2",
            "sed s/a/b/",
            "sort $X",
            "sort > out",
            "X=1 sort",
        ] {
            assert!(!passes(cmd), "`{cmd}` does not");
        }
    }
}

//! Places where the grammar's lexer ends a token otherwise than bash's,
//! found after the parse: each is reported, and the script is then
//! unanalysable, since the commands the tree holds are not the ones bash
//! runs.
//!
//! - `$'..'`: the grammar's token is a regular expression that reads `\\'`
//!   as an escaped quote, so a string whose content ends in an even run
//!   of backslashes (`$'\\'`) runs on to a later `'`; bash pairs the
//!   backslashes and ends it there.
//! - Carriage return, vertical tab and form feed: blanks to the grammar
//!   (C's `isspace`), ordinary characters of a word to bash, whose blanks
//!   are space and tab. `x=1<CR>#; cmd` is one assignment and a comment to
//!   the grammar, an assignment and `cmd` to bash.
//! - A comment must start a word: bash reads `#` as a comment only after a
//!   blank, an operator or at the start; glued to the end of a token the
//!   grammar closes early (`x=()#`, `[ ]#`, `{}#`) it is part of a word.
//! - Here-documents end at a line equal to the delimiter after quote
//!   removal (`<<E''` ends at `E`), and an unquoted one's lines are joined
//!   at backslash-newlines before they are compared: the grammar compares
//!   the raw text, line by line.

use tree_sitter::Node as TsNode;

use super::grammar::kind;
use super::{TEXT_INSIDE, within};

/// The first place where bash's lexer and the grammar's part, as a
/// message; `None` when they agree everywhere.
pub(super) fn divergence(root: TsNode<'_>, src: &str) -> Option<String> {
    let bytes = src.as_bytes();
    if let Some(at) = odd_blank(root, bytes) {
        return Some(format!(
            "a carriage return, vertical tab or form feed at byte {at}: a blank to the parser, part of a word to bash"
        ));
    }
    let ansi = src.contains("$'");
    let comments = src.contains('#');
    let heredocs = src.contains("<<");
    if !(ansi || comments || heredocs) {
        return None;
    }
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let found = match kind(node) {
            "ansi_c_string" if ansi => ansi_c_end(node, bytes),
            "comment" if comments => glued_comment(root, node, bytes),
            "heredoc_redirect" if heredocs => heredoc_end(node, src),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

/// A carriage return, vertical tab or form feed outside quoted text, a
/// here-document's body and a comment.
fn odd_blank(root: TsNode<'_>, bytes: &[u8]) -> Option<usize> {
    bytes.iter().enumerate().find_map(|(at, b)| {
        (matches!(b, b'\r' | b'\x0b' | b'\x0c') && !within(root, at, 1, TEXT_INSIDE)).then_some(at)
    })
}

/// An `$'..'` the grammar ends elsewhere than bash: bash reads from `$'`,
/// a backslash taking the byte after it, to the first `'` not so taken.
fn ansi_c_end(node: TsNode<'_>, bytes: &[u8]) -> Option<String> {
    let start = node.start_byte();
    if bytes.get(start..start + 2) != Some(b"$'") {
        return None;
    }
    let mut i = start + 2;
    let end = loop {
        match bytes.get(i) {
            None => break None,
            Some(b'\\') => i += 2,
            Some(b'\'') => break Some(i + 1),
            Some(_) => i += 1,
        }
    };
    (end != Some(node.end_byte())).then(|| {
        format!("an `$'..'` string at byte {start} that bash ends elsewhere than the parser")
    })
}

/// A comment that does not start a word: the byte before its `#` is not a
/// blank, a newline or an operator (`;&|<>(`), nor the `)` of a subshell.
fn glued_comment(root: TsNode<'_>, node: TsNode<'_>, bytes: &[u8]) -> Option<String> {
    let at = node.start_byte();
    let prev = at.checked_sub(1).and_then(|i| bytes.get(i))?;
    let starts = match prev {
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' => true,
        b')' => closes_subshell(root, at - 1),
        _ => false,
    };
    (!starts)
        .then(|| format!("a `#` at byte {at} that bash reads as part of a word, not as a comment"))
}

/// Whether the `)` at `at` ends a subshell `( .. )`.
fn closes_subshell(root: TsNode<'_>, at: usize) -> bool {
    let mut node = root.descendant_for_byte_range(at, at + 1);
    while let Some(x) = node {
        if x.end_byte() != at + 1 {
            return false;
        }
        if kind(x) == "subshell" {
            return true;
        }
        node = x.parent();
    }
    false
}

/// A here-document whose end the grammar finds elsewhere than bash: its
/// end line is not the delimiter after quote removal, or a line of its
/// body already is (after joining an unquoted body's continued lines), or
/// an unquoted body's last line continues into the end line.
fn heredoc_end(node: TsNode<'_>, src: &str) -> Option<String> {
    let mut start = None;
    let mut body = "";
    let mut body_at = None;
    let mut end = None;
    let mut dash = false;
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        let text = src.get(child.byte_range()).unwrap_or("");
        match kind(child) {
            "<<-" => dash = true,
            "heredoc_start" => start = Some((text, child.end_byte())),
            "heredoc_body" => {
                body = text;
                body_at = Some(child.start_byte());
            }
            "heredoc_end" => end = Some((text, child.start_byte(), child.end_byte())),
            _ => {}
        }
    }
    let (Some((start, line_from)), Some((end, end_at, end_to))) = (start, end) else {
        return None;
    };
    let at = node.start_byte();
    let differs = || {
        Some(format!(
            "a here-document at byte {at} that bash ends elsewhere than the parser"
        ))
    };
    // The body starts after the first newline that ends the command's
    // line (a backslash-newline continues the line), and tabs with `<<-`.
    let body_at = body_at.unwrap_or(end_at);
    if !body_follows_line(src.as_bytes(), line_from, body_at, dash) {
        return differs();
    }
    let Some(delim) = delimiter(start) else {
        return differs();
    };
    if delim.is_empty() || end != delim {
        return differs();
    }
    // The whole line holding the end: bash ends only at a line that is
    // the delimiter exactly (after leading tabs, with `<<-`), where the
    // grammar also ends at one with blanks or an operator after it.
    let line_start = src
        .get(..end_at)
        .and_then(|t| t.rfind('\n'))
        .map_or(0, |i| i + 1);
    let line_end = src
        .get(end_to..)
        .and_then(|t| t.find('\n'))
        .map_or(src.len(), |i| end_to + i);
    let line = src.get(line_start..line_end).unwrap_or("");
    let line = if dash {
        line.trim_start_matches('\t')
    } else {
        line
    };
    if line != delim {
        return differs();
    }
    let quoted = start.contains(['\'', '"', '\\']);
    let joined;
    let lines = if quoted {
        body
    } else {
        if continues(body.strip_suffix('\n').unwrap_or(body)) {
            return differs();
        }
        joined = join_continuations(body);
        &joined
    };
    let early = lines.split('\n').any(|line| {
        let line = if dash {
            line.trim_start_matches('\t')
        } else {
            line
        };
        line == delim
    });
    if early {
        return differs();
    }
    None
}

/// Whether the text from `from` (the end of the here-document's word) to
/// `body` (where the tree's body starts) is the rest of the command's line
/// up to its first newline that no backslash escapes, then, with `<<-`,
/// tabs only.
fn body_follows_line(bytes: &[u8], from: usize, body: usize, dash: bool) -> bool {
    let Some(gap) = bytes.get(from..body) else {
        return false;
    };
    let mut j = 0;
    let newline = loop {
        match gap.get(j) {
            None => return false,
            Some(b'\\') => j += 2,
            Some(b'\n') => break j,
            Some(_) => j += 1,
        }
    };
    gap.get(newline + 1..)
        .is_some_and(|rest| rest.iter().all(|&b| dash && b == b'\t'))
}

/// The delimiter bash takes from a here-document's word: the word after
/// quote removal. `None` for `$'..'` and `$".."` in it, and for unclosed
/// quotes, which are not followed here.
fn delimiter(word: &str) -> Option<String> {
    let b = word.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => match b.get(i + 1) {
                Some(&n) => {
                    out.push(n);
                    i += 2;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            },
            b'\'' => {
                let len = b.get(i + 1..)?.iter().position(|&x| x == b'\'')?;
                out.extend_from_slice(b.get(i + 1..i + 1 + len)?);
                i += len + 2;
            }
            b'"' => {
                i += 1;
                loop {
                    let c = *b.get(i)?;
                    if c == b'"' {
                        i += 1;
                        break;
                    }
                    if c == b'\\' {
                        if let Some(&n) = b.get(i + 1) {
                            if matches!(n, b'\\' | b'"' | b'$' | b'`' | b'\n') {
                                out.push(n);
                                i += 2;
                                continue;
                            }
                        }
                    }
                    out.push(c);
                    i += 1;
                }
            }
            b'$' if matches!(b.get(i + 1), Some(b'\'' | b'"')) => return None,
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// Whether `text` ends in an odd run of backslashes (its last newline is
/// then a continuation).
fn continues(text: &str) -> bool {
    text.bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 1
}

/// `text` with each backslash-newline that an odd run of backslashes ends
/// removed, as bash reads an unquoted here-document's lines.
fn join_continuations(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find('\n') {
        let (line, after) = rest.split_at(pos);
        if continues(line) {
            out.push_str(&line[..line.len() - 1]);
        } else {
            out.push_str(line);
            out.push('\n');
        }
        rest = &after[1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delimiter_is_its_word_after_quote_removal() {
        assert_eq!(delimiter("E''").as_deref(), Some("E"));
        assert_eq!(delimiter("E\"\"").as_deref(), Some("E"));
        assert_eq!(delimiter("E\"F\"").as_deref(), Some("EF"));
        assert_eq!(delimiter("'E'").as_deref(), Some("E"));
        assert_eq!(delimiter("\\E").as_deref(), Some("E"));
        assert_eq!(delimiter("\"a\\$b\\c\"").as_deref(), Some("a$b\\c"));
        assert_eq!(delimiter("$'E'"), None);
        assert_eq!(delimiter("'E"), None);
    }

    #[test]
    fn continued_lines_are_joined_where_an_odd_run_of_backslashes_ends_them() {
        assert_eq!(join_continuations("a\\\nb\n"), "ab\n");
        assert_eq!(join_continuations("a\\\\\nb\n"), "a\\\\\nb\n");
        assert_eq!(join_continuations("\\\nE\n"), "E\n");
    }
}

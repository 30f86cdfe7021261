//! Valid bash the grammar misreads, rewritten before conversion into text
//! that means the same and that the grammar reads right.
//!
//! Every rewrite keeps the length of the text and the place of everything
//! outside the bytes it changes, except at the very end (a backslash
//! doubled, a line continuation removed): byte offsets in errors stay
//! those of the input.
//!
//! - A backslash that ends the script is a literal backslash in `bash -c`
//!   and `eval` (`bash -c 'echo a \'` prints `a \`): it is doubled. A
//!   backslash-newline that ends it continues nothing, and goes.
//! - The reserved word `time` (with `-p` and `--`) that starts a pipeline
//!   runs nothing itself: it is blanked, so that `time { ls; }` is a group
//!   and `time (ls)` a subshell, as bash reads them. (Before another
//!   option it is left to be read as GNU time, which says more.)
//! - `for NAME do` (`for NAME; do` without the `;`): the blank before `do`
//!   becomes a `;`.
//! - A here-document before the command name (`<<EOF cat arg`): the
//!   redirect and the words after it change places (`cat arg <<EOF`).
//!
//! The last two repair a tree with errors; their result is kept only when
//! it parses without any.
//! - An escaped blank that starts a word outside any word (`a \ b` is `a`,
//!   ` b`; the grammar drops the backslash and splits there) is written
//!   `' '`: outside quotes a backslash before a character means what single
//!   quotes around it mean. This rewrite is one byte longer for each, so
//!   byte offsets after one move by one; it is kept only when the result
//!   parses without errors and has no such blank left.

use std::borrow::Cow;
use std::ops::Range;

use super::*;

/// One replacement of `range` by text of the same length.
struct Edit {
    range: Range<usize>,
    text: String,
}

/// `src` with a lone backslash at its very end doubled: `bash -c` (and
/// `eval`) keep such a backslash as a literal character, where the
/// grammar reports an error. A line continuation at the very end joins
/// nothing: it goes.
pub(super) fn trailing_backslash(src: &str) -> Cow<'_, str> {
    let escaping = |text: &str| text.bytes().rev().take_while(|b| *b == b'\\').count() % 2 == 1;
    let mut text = src;
    while let Some(rest) = text
        .strip_suffix("\\\n")
        .filter(|_| escaping(&text[..text.len() - 1]))
    {
        text = rest;
    }
    if escaping(text) {
        Cow::Owned(format!("{text}\\"))
    } else {
        Cow::Borrowed(text)
    }
}

/// The repaired text and its tree, or `src` and `tree` unchanged.
pub(super) fn repair(
    src: Cow<'_, str>,
    tree: Tree,
) -> Result<(Cow<'_, str>, Tree), super::ParseError> {
    let (src, tree) = {
        let edits = if src.contains("time") {
            reserved_time(tree.root_node(), &src)
        } else {
            Vec::new()
        };
        if edits.is_empty() {
            (src, tree)
        } else {
            // Always kept: the tree without the rewrite read `time { ls; }`
            // as commands named `time` and `}`.
            let text = apply(&src, edits);
            let tree = parse_tree(&text)?;
            (Cow::Owned(text), tree)
        }
    };
    if !tree.root_node().has_error() {
        return Ok((src, tree));
    }
    let edits = misread(tree.root_node(), &src);
    if edits.is_empty() {
        return Ok((src, tree));
    }
    let text = apply(&src, edits);
    let repaired = parse_tree(&text)?;
    if repaired.root_node().has_error() {
        Ok((src, tree))
    } else {
        Ok((Cow::Owned(text), repaired))
    }
}

/// `src` with `edits` made; an edit that overlaps an earlier one, or
/// would change the length, is dropped.
fn apply(src: &str, mut edits: Vec<Edit>) -> String {
    edits.sort_by_key(|e| e.range.start);
    let mut out = String::with_capacity(src.len());
    let mut pos = 0;
    for edit in edits {
        if edit.range.start < pos || edit.text.len() != edit.range.len() {
            continue;
        }
        let (Some(before), Some(_)) = (src.get(pos..edit.range.start), src.get(edit.range.clone()))
        else {
            continue;
        };
        out.push_str(before);
        out.push_str(&edit.text);
        pos = edit.range.end;
    }
    out.push_str(src.get(pos..).unwrap_or_default());
    out
}

/// Visits every node beneath `root` (iteratively: the tree can be as deep
/// as the input is long), descending only where `descend` says.
pub(super) fn visit<'t>(
    root: TsNode<'t>,
    descend: impl Fn(TsNode<'t>) -> bool,
    mut f: impl FnMut(TsNode<'t>),
) {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        f(node);
        if descend(node) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// Blanks for the reserved word `time` and its `-p` and `--`, where bash
/// reads them as such: the first word of a command that starts a pipeline
/// (not a later stage of one: `a | time b` runs the program `time`), as
/// written, unquoted.
fn reserved_time(root: TsNode<'_>, src: &str) -> Vec<Edit> {
    let mut edits = Vec::new();
    visit(
        root,
        |_| true,
        |node| {
            if kind(node) != "command" {
                return;
            }
            let Some(name) = node.child(0) else { return };
            if kind(name) != "command_name" || src.get(name.byte_range()) != Some("time") {
                return;
            }
            if !starts_pipeline(node) {
                return;
            }
            let mut blank = vec![name.byte_range()];
            let mut expect: &[&str] = &["-p", "--"];
            for (child, field) in fields(node).skip(1) {
                if field != Some("argument") {
                    break;
                }
                let text = src.get(child.byte_range()).unwrap_or_default();
                match expect.iter().position(|e| *e == text) {
                    Some(at) => {
                        blank.push(child.byte_range());
                        expect = expect.get(at + 1..).unwrap_or_default();
                    }
                    // `time -o f ls`: bash runs a command named `-o`; read
                    // as GNU time's option, it says more (a write of `f`,
                    // `ls` run), so that reading stays.
                    None if text.starts_with('-') && expect.contains(&"--") => return,
                    None => break,
                }
            }
            edits.extend(blank.into_iter().map(|range| Edit {
                text: " ".repeat(range.len()),
                range,
            }));
        },
    );
    edits
}

/// Whether `command` stands where bash reads reserved words at the start
/// of a pipeline: not as a later stage of one.
fn starts_pipeline(command: TsNode<'_>) -> bool {
    let mut node = command;
    while let Some(parent) = node.parent() {
        match kind(parent) {
            "redirected_statement" if parent.start_byte() == node.start_byte() => node = parent,
            "pipeline" => {
                let mut cursor = parent.walk();
                return parent
                    .named_children(&mut cursor)
                    .find(|c| kind(*c) != "comment")
                    .is_some_and(|first| first.id() == node.id());
            }
            _ => return true,
        }
    }
    true
}

/// The repairs of `for NAME do` and of a here-document before the command
/// name, looked for where the tree has errors.
fn misread(root: TsNode<'_>, src: &str) -> Vec<Edit> {
    let mut edits = Vec::new();
    visit(
        root,
        |n| n.has_error(),
        |node| {
            if node.is_error() {
                for_without_semicolon(node, src, &mut edits);
                heredoc_first(node, src, &mut edits);
            } else if kind(node) == "file_redirect" {
                numbered_heredoc_first(node, src, &mut edits);
            }
        },
    );
    edits
}

/// `for NAME do`: an error whose children run `for`, a name, `do`; the
/// first blank between the name and `do` becomes `;`.
fn for_without_semicolon(error: TsNode<'_>, src: &str, edits: &mut Vec<Edit>) {
    let mut cursor = error.walk();
    let children: Vec<TsNode<'_>> = error.children(&mut cursor).collect();
    for w in children.windows(3) {
        let [f, name, d] = w else { continue };
        if f.is_named() || kind(*f) != "for" || kind(*name) != "variable_name" {
            continue;
        }
        if d.is_named() || kind(*d) != "do" {
            continue;
        }
        let gap = src.get(name.end_byte()..d.start_byte()).unwrap_or_default();
        if gap.is_empty() || !gap.bytes().all(|b| b == b' ' || b == b'\t') {
            continue;
        }
        let at = name.end_byte();
        edits.push(Edit {
            range: at..at + 1,
            text: ";".into(),
        });
    }
}

/// `<<EOF cat arg`: the grammar reads an error `<`, then a command
/// `<EOF cat arg` that starts with a file redirect.
fn heredoc_first(error: TsNode<'_>, src: &str, edits: &mut Vec<Edit>) {
    if src.get(error.byte_range()) != Some("<") {
        return;
    }
    let Some(mut next) = error.next_sibling() else {
        return;
    };
    // The command may begin a pipeline, a list, a redirected statement.
    while kind(next) != "command" {
        match next.named_child(0) {
            Some(first) if first.start_byte() == error.end_byte() => next = first,
            _ => return,
        }
    }
    let Some(redirect) = next.child(0) else {
        return;
    };
    if kind(redirect) != "file_redirect"
        || redirect.start_byte() != error.end_byte()
        || redirect.child(0).is_none_or(|c| kind(c) != "<")
    {
        return;
    }
    if let Some(edit) = rotate(next, error.start_byte(), redirect, src) {
        edits.push(edit);
    }
}

/// `2<<EOF cat`, `<< 'EOF' cat`: a file redirect whose operator the
/// grammar breaks into `<` and an error `<`, first in a command.
fn numbered_heredoc_first(redirect: TsNode<'_>, src: &str, edits: &mut Vec<Edit>) {
    let mut cursor = redirect.walk();
    let mut children: Vec<TsNode<'_>> = redirect.children(&mut cursor).collect();
    if children
        .first()
        .is_some_and(|c| kind(*c) == "file_descriptor")
    {
        children.remove(0);
    }
    let shape = match children.as_slice() {
        [lt, error, _destination] => {
            !lt.is_named()
                && kind(*lt) == "<"
                && error.is_error()
                && error.start_byte() == lt.end_byte()
                && src.get(error.byte_range()) == Some("<")
        }
        _ => false,
    };
    let Some(command) = redirect.parent() else {
        return;
    };
    let first = command.child(0).is_some_and(|c| c.id() == redirect.id());
    if !shape || !first || kind(command) != "command" {
        return;
    }
    if let Some(edit) = rotate(command, redirect.start_byte(), redirect, src) {
        edits.push(edit);
    }
}

/// Moves the here-document operator (from `start` to the end of
/// `redirect`) behind the rest of `command`, keeping the blanks between.
/// None when the command has no name, or when another of its redirects
/// touches standard input (their order would then matter).
fn rotate(command: TsNode<'_>, start: usize, redirect: TsNode<'_>, src: &str) -> Option<Edit> {
    field(command, grammar().name)?;
    let mut cursor = command.walk();
    for child in command.named_children(&mut cursor) {
        if child.id() == redirect.id() || !kind(child).ends_with("redirect") {
            continue;
        }
        let text = src.get(child.byte_range()).unwrap_or_default();
        let fd0 = field(child, grammar().descriptor)
            .is_some_and(|d| src.get(d.byte_range()) == Some("0"));
        let dup0 = text.contains('&')
            && field(child, grammar().destination)
                .is_some_and(|d| src.get(d.byte_range()) == Some("0"));
        if text.contains('<') || fd0 || dup0 {
            return None;
        }
    }
    let op = src.get(start..redirect.end_byte())?;
    let rest = src.get(redirect.end_byte()..command.end_byte())?;
    let words = rest.trim_start_matches([' ', '\t']);
    let blanks = &rest[..rest.len() - words.len()];
    if blanks.is_empty() || words.is_empty() {
        return None;
    }
    Some(Edit {
        range: start..command.end_byte(),
        text: format!("{words}{blanks}{op}"),
    })
}

/// `src` with every escaped blank outside any word written as a quoted
/// blank (`\\ ` as `' '`), and its tree; `src` and `tree` unchanged when
/// there is none, or when the result does not parse cleanly.
pub(super) fn escaped_blanks(src: Cow<'_, str>, tree: Tree) -> (Cow<'_, str>, Tree) {
    let at: Vec<usize> = dropped_escaped_blanks(tree.root_node(), &src).collect();
    if at.is_empty() {
        return (src, tree);
    }
    let mut text = String::with_capacity(src.len() + at.len());
    let mut pos = 0;
    for &a in &at {
        let (Some(before), Some(blank)) = (src.get(pos..a), src.get(a + 1..a + 2)) else {
            return (src, tree);
        };
        text.push_str(before);
        text.push('\'');
        text.push_str(blank);
        text.push('\'');
        pos = a + 2;
    }
    text.push_str(src.get(pos..).unwrap_or_default());
    match parse_tree(&text) {
        Ok(t)
            if !t.root_node().has_error()
                && dropped_escaped_blanks(t.root_node(), &text)
                    .next()
                    .is_none() =>
        {
            (Cow::Owned(text), t)
        }
        _ => (src, tree),
    }
}

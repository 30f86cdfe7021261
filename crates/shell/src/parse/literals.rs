//! Characters bash reads as themselves where the grammar reads something
//! else (or nothing it can parse), escaped with a backslash so that the
//! grammar reads them as bash does; and a separator bash does not need
//! where the grammar does.
//!
//! Outside quotes a backslash before a character means what single quotes
//! around it mean, so each rewrite keeps the words bash makes:
//!
//! - A `$` that starts no expansion (`grep x$)`, `a$/`, `a$%`, `total$.`,
//!   `a$\ b`): bash keeps the `$`; the grammar reports an error, or drops
//!   it before a backslash. It is written `\$`. (Not before a backslash
//!   that continues the line: bash joins the lines first, and `$\<newline>x`
//!   is `$x`.)
//! - A command name that starts as a variable name and goes on with `@`,
//!   `%` or `#` (`foo@latest`, `page%d.jpg`, `pkcs#11`): the grammar takes
//!   the name for the start of an assignment and fails. The sign is
//!   escaped (not before `(`, where `@(` is an extended glob).
//! - `[`, `]`, `{`, `}` standing alone in a word the grammar did not split
//!   at its blanks (`tc filter ... [ a ] [ b ]`, `find -ok rm { } \;`):
//!   bash splits there and passes each alone, literally (a lone bracket or
//!   brace in an argument is neither a glob nor a group); escaped, the
//!   grammar splits too.
//! - A compound command closed with `)`, `}`, `fi`, `done` or `esac` and
//!   followed on the same line by the reserved word that closes the
//!   command around it (`(cd d; ls) done`, `fi done`, `done }`): bash needs
//!   no `;` there, the grammar does; one is inserted.
//!
//! - A command name that bash reads as one word, with a glob or a brace
//!   expansion in it, where the grammar reads something else: a test
//!   (`[w]`, `[c]at`, `[[x]]`: bash's `[` and `[[` are words of their
//!   own), a group (`{ca,b}t`: `{` too), or a name cut short as if it
//!   began an assignment (`c?t`, `c[a]t`). An empty pair of quotes is
//!   put where the grammar goes astray, before the bracket or brace or
//!   after the name: bash makes the same word of it, pattern and braces
//!   included, and the grammar reads a word. (`[w]` is no error to the
//!   grammar, which reads the test `[ w ]`, running nothing, where bash
//!   runs the program the pattern matches.) And a `[` the grammar takes
//!   for a test it then fails on (`[ "$v" -eq|ne ]`, which bash runs as
//!   `[` cut by pipes): `""[` is the word `[` to bash, a command name to
//!   the grammar. Never inside an assignment, an array's elements or a
//!   subscript, where `[` starts a key.
//!
//! Only characters in unquoted text are touched (not in quotes, here-
//! document bodies, comments, arithmetic or `[[ ]]`). The rewrite is kept
//! only when its text parses without any error, and when the tree had no
//! error only a `$` before a backslash and a test glued to what follows
//! its `[` are rewritten. Byte offsets after
//! an insertion move by its length.

use std::borrow::Cow;

use super::*;

/// Where in the text a piece of it is: what a backslash written there means.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Context {
    /// Outside quotes (or inside a command substitution within them): a
    /// backslash quotes the character after it and goes.
    Unquoted,
    /// In single, double, `$'..'` or `$".."` quotes (and not in a command
    /// substitution within them).
    Quoted,
    /// Anywhere else: a here-document body, a comment, arithmetic, a
    /// `[[ ]]` test.
    Other,
}

/// The context of the byte at `at` of `src`.
pub(super) fn context(root: TsNode<'_>, src: &str, at: usize) -> Context {
    context_from(root.descendant_for_byte_range(at, at + 1), src, at)
}

/// The context of the byte at `at`, `node` being the innermost node that
/// holds it.
fn context_from(mut node: Option<TsNode<'_>>, src: &str, at: usize) -> Context {
    while let Some(x) = node {
        match kind(x) {
            // Bash starts a comment only where a word starts: one the
            // grammar starts inside a word (`tag#tag`) is its misreading.
            "comment" if !comment_starts(src.as_bytes(), x.start_byte()) => {}
            "command_substitution" | "process_substitution" => return Context::Unquoted,
            // A quoted node that starts at the `$` itself is the grammar's
            // misreading of it (`$\ ""` as a `$"..."`): bash quotes nothing.
            "string" | "raw_string" | "ansi_c_string" | "translated_string"
                if x.start_byte() == at => {}
            "string" | "string_content" | "raw_string" | "ansi_c_string" | "translated_string" => {
                return Context::Quoted;
            }
            "heredoc_body"
            | "heredoc_content"
            | "heredoc_start"
            | "comment"
            | "arithmetic_expansion"
            | "test_command"
            | "regex"
            | "extglob_pattern"
            | "c_style_for_statement" => return Context::Other,
            "compound_statement" if x.child(0).is_some_and(|c| kind(c) == "((") => {
                return Context::Other;
            }
            _ => {}
        }
        node = x.parent();
    }
    Context::Unquoted
}

/// Whether a word can start at `at`: at the start, or after a blank, an
/// operator or a backquote.
fn word_starts(bytes: &[u8], at: usize) -> bool {
    matches!(
        at.checked_sub(1).and_then(|i| bytes.get(i)),
        None | Some(b' ' | b'\t' | b'\n' | b';' | b'|' | b'&' | b'(' | b'`')
    )
}

/// Whether bash may start a comment at `at`: where a word starts, or after
/// a `)` (which ends a subshell as well as a substitution).
fn comment_starts(bytes: &[u8], at: usize) -> bool {
    word_starts(bytes, at) || at.checked_sub(1).and_then(|i| bytes.get(i)) == Some(&b')')
}

/// `src` with the characters above escaped and the separators inserted,
/// and its tree; `src` and `tree` unchanged when there is nothing to do or
/// when the result does not parse cleanly.
pub(super) fn literals(src: Cow<'_, str>, tree: Tree) -> (Cow<'_, str>, Tree) {
    let root = tree.root_node();
    let errors = root.has_error();
    let mut inserts: Vec<(usize, &'static str)> = Vec::new();
    lone_dollars(root, &src, errors, &mut inserts);
    if errors || may_glob_name(&src) {
        glob_names(root, &src, &mut inserts);
    }
    if errors {
        signs_after_names(root, &src, &mut inserts);
        closers(root, &src, &mut inserts);
    }
    if may_glue(&src) {
        glued_brackets(root, &src, &mut inserts);
    }
    if inserts.is_empty() {
        return (src, tree);
    }
    inserts.sort_unstable();
    inserts.dedup();
    let mut text = String::with_capacity(src.len() + inserts.len());
    let mut pos = 0;
    for &(at, what) in &inserts {
        let Some(before) = src.get(pos..at) else {
            return (src, tree);
        };
        text.push_str(before);
        text.push_str(what);
        pos = at;
    }
    text.push_str(src.get(pos..).unwrap_or_default());
    match parse_tree(&text) {
        Ok(t) if !t.root_node().has_error() && !glued(t.root_node(), &text) => {
            (Cow::Owned(text), t)
        }
        _ => (src, tree),
    }
}

/// Whether `c`, after a `$`, starts an expansion (or a quoted string).
fn expands(c: u8) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            b'_' | b'{'
                | b'('
                | b'['
                | b'\''
                | b'"'
                | b'!'
                | b'@'
                | b'#'
                | b'$'
                | b'*'
                | b'?'
                | b'-'
        )
}

/// Each unescaped, unquoted `$` that starts no expansion and is followed
/// by a character of the same word: escaped. Without errors in the tree,
/// only one before a backslash (which the grammar drops silently).
fn lone_dollars(
    root: TsNode<'_>,
    src: &str,
    errors: bool,
    inserts: &mut Vec<(usize, &'static str)>,
) {
    let bytes = src.as_bytes();
    for (at, _) in src.match_indices('$') {
        let Some(&next) = bytes.get(at + 1) else {
            continue;
        };
        if expands(next) || matches!(next, b' ' | b'\t' | b'\n' | b'\r') {
            continue;
        }
        if next == b'\\' && bytes.get(at + 2).is_none_or(|b| *b == b'\n') {
            continue;
        }
        if !errors && next != b'\\' {
            continue;
        }
        if backslashes_before(bytes, at) % 2 == 1 || context(root, src, at) != Context::Unquoted {
            continue;
        }
        inserts.push((at, "\\"));
    }
}

/// Whether the text may hold a test's `[` glued to what follows it (a `[`
/// that starts a word, or follows a `!` that does, and is followed by no
/// blank): the cheap test before
/// a tree without errors is walked for one.
fn may_glob_name(src: &str) -> bool {
    let bytes = src.as_bytes();
    bytes.iter().enumerate().any(|(at, &b)| {
        let bang = at.checked_sub(1).filter(|i| bytes[*i] == b'!');
        b == b'['
            && (word_starts(bytes, at) || bang.is_some_and(|i| word_starts(bytes, i)))
            && bytes.get(at + 1).is_some_and(|n| !glued_to_nothing(*n))
    })
}

/// Whether `b`, after a token, leaves it a word of its own: a blank or
/// the start of an operator.
fn glued_to_nothing(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b'\r' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')'
    )
}

/// Where the grammar reads a glob or brace word at a command's start as
/// something else (see the module's text): `""` inserted before the test's
/// or group's opening token glued to what follows (before a `[` the grammar
/// fails on, glued or not), or after a name that `?` or a `[..]` not
/// followed by `=` goes on from.
fn glob_names(root: TsNode<'_>, src: &str, inserts: &mut Vec<(usize, &'static str)>) {
    let bytes = src.as_bytes();
    let glued = |token: TsNode<'_>| {
        bytes
            .get(token.end_byte())
            .is_some_and(|b| !glued_to_nothing(*b))
    };
    let mut found = Vec::new();
    super::repairs::visit(
        root,
        |_| true,
        |node| {
            let Some(first) = node.child(0) else {
                return;
            };
            let mut at = first.start_byte();
            // `![w]` is one word to bash, not `! [w]`.
            if node.parent().is_some_and(|p| kind(p) == "negated_command")
                && at.checked_sub(1).and_then(|i| bytes.get(i)) == Some(&b'!')
            {
                at -= 1;
            }
            let hit = match (kind(node), kind(first)) {
                // `[` is a command like any other to bash, glued or not.
                ("ERROR", "[") => Some(at),
                ("test_command", "[" | "[[") | ("ERROR", "[[" | "{") => glued(first).then_some(at),
                ("ERROR", "variable_name") => {
                    (bytes.get(first.end_byte()) == Some(&b'?')).then_some(first.end_byte())
                }
                ("ERROR", "subscript") => {
                    let assigns = src
                        .get(first.end_byte()..)
                        .is_some_and(|rest| rest.starts_with('=') || rest.starts_with("+="));
                    match first.child(0) {
                        Some(name) if kind(name) == "variable_name" && !assigns => {
                            Some(name.end_byte())
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            if let Some(insert) = hit
                && word_starts(bytes, at)
                && !in_assignment(node)
                && context_from(node.parent(), src, at) == Context::Unquoted
            {
                found.push(insert);
            }
        },
    );
    inserts.extend(found.into_iter().map(|at| (at, "\"\"")));
}

/// Whether `node` is in an assignment, an array's elements or a
/// subscript, where `[` starts a key that bash evaluates: never a command's
/// name, so never rewritten as one.
fn in_assignment(node: TsNode<'_>) -> bool {
    let mut up = node.parent();
    while let Some(p) = up {
        if matches!(
            kind(p),
            "variable_assignment" | "array" | "subscript" | "declaration_command" | "expansion"
        ) {
            return true;
        }
        up = p.parent();
    }
    false
}

/// Each `@`, `%` or `#` that follows a variable name starting a word at a
/// command's start, unquoted: escaped. (Escaping one in an argument too
/// changes nothing, so a word is taken to start after a blank, an
/// operator or a backquote.)
fn signs_after_names(root: TsNode<'_>, src: &str, inserts: &mut Vec<(usize, &'static str)>) {
    let bytes = src.as_bytes();
    for (at, &b) in bytes.iter().enumerate() {
        if !matches!(b, b'@' | b'%' | b'#') || bytes.get(at + 1) == Some(&b'(') {
            continue;
        }
        let name = bytes[..at]
            .iter()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
            .count();
        let start = at - name;
        if !src.get(start..at).is_some_and(is_name) {
            continue;
        }
        let word_start = word_starts(bytes, start);
        // The name's context: the grammar may read `#11` of `pkcs#11` as a
        // comment, which bash never starts inside a word.
        if !word_start || context(root, src, start) != Context::Unquoted {
            continue;
        }
        inserts.push((at, "\\"));
    }
}

/// A word node the grammar did not split at an unescaped blank.
fn glued_word(node: TsNode<'_>, src: &str) -> bool {
    kind(node) == "word"
        && node.named_child_count() == 0
        && src
            .get(node.byte_range())
            .is_some_and(super::word::unescaped_blank)
}

/// Whether the text holds what the grammar glues into one word across a
/// blank (`] [`, `{ }`): the cheap test before the tree is walked for it.
fn may_glue(src: &str) -> bool {
    src.contains("] [") || src.contains("{ }")
}

/// Whether any word of the tree is glued across a blank.
fn glued(root: TsNode<'_>, src: &str) -> bool {
    if !may_glue(src) {
        return false;
    }
    let found = std::cell::Cell::new(false);
    super::repairs::visit(
        root,
        |_| !found.get(),
        |node| {
            if glued_word(node, src) {
                found.set(true);
            }
        },
    );
    found.get()
}

/// In each word glued across a blank, each `[`, `]`, `{` or `}` that
/// stands alone between blanks: escaped.
fn glued_brackets(root: TsNode<'_>, src: &str, inserts: &mut Vec<(usize, &'static str)>) {
    let mut words = Vec::new();
    super::repairs::visit(
        root,
        |_| true,
        |node| {
            // Not a command's name, where `{` alone would be reserved.
            let name = node.parent().is_some_and(|p| kind(p) == "command_name");
            if !name
                && glued_word(node, src)
                && context(root, src, node.start_byte()) == Context::Unquoted
            {
                words.push(node.byte_range());
            }
        },
    );
    for range in words {
        let Some(text) = src.get(range.clone()) else {
            continue;
        };
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if !matches!(b, b'[' | b']' | b'{' | b'}') {
                continue;
            }
            let alone_before = i == 0 || matches!(bytes[i - 1], b' ' | b'\t');
            let alone_after = bytes.get(i + 1).is_none_or(|c| matches!(c, b' ' | b'\t'));
            if alone_before && alone_after {
                inserts.push((range.start + i, "\\"));
            }
        }
    }
}

/// The reserved words that close a compound command.
const CLOSING: &[&str] = &["done", "fi", "esac", "}", "else", "elif", "then", "do"];

/// After each `)` of a subshell, `}` of a group, `fi`, `done` or `esac`
/// that is followed, on the same line, by a closing reserved word: `;`.
fn closers(root: TsNode<'_>, src: &str, inserts: &mut Vec<(usize, &'static str)>) {
    let mut found = Vec::new();
    let mut closer = |token: TsNode<'_>| {
        let is = !token.is_named()
            && match kind(token) {
                ")" => token
                    .parent()
                    .is_some_and(|p| matches!(kind(p), "subshell" | "ERROR")),
                "}" => token
                    .parent()
                    .is_some_and(|p| matches!(kind(p), "compound_statement" | "ERROR")),
                "fi" | "done" | "esac" => true,
                _ => false,
            };
        if is {
            found.push(token.end_byte());
        }
    };
    super::repairs::visit(
        root,
        |n| n.has_error(),
        |node| {
            if node.is_error() {
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    closer(child);
                }
            } else if matches!(
                kind(node),
                "subshell"
                    | "compound_statement"
                    | "if_statement"
                    | "while_statement"
                    | "for_statement"
                    | "c_style_for_statement"
                    | "case_statement"
                    | "do_group"
            ) {
                // The token that ends it: its last child's, down to a leaf.
                let mut last = node;
                while let Some(child) = last.child(last.child_count().saturating_sub(1) as u32) {
                    last = child;
                }
                closer(last);
            }
        },
    );
    for end in found {
        let rest = src.get(end..).unwrap_or_default();
        let word = rest.trim_start_matches([' ', '\t']);
        if word.len() == rest.len() {
            continue;
        }
        let next = word
            .find([' ', '\t', '\n', ';', '&', '|', ')'])
            .map_or(word, |n| &word[..n]);
        if CLOSING.contains(&next) && context(root, src, end.saturating_sub(1)) == Context::Unquoted
        {
            inserts.push((end, ";"));
        }
    }
}

//! From text to [`crate::syntax`]: tree-sitter-bash parses, this module
//! normalises its tree.
//!
//! INVARIANT: conversion recursion is bounded by `frame_limit`, whatever the
//! depth of the parser's tree (which can be as deep as the input is long),
//! and parsing is bounded in time; past either bound the result says so in
//! `errors` and the caller reports an `Unknown`.

use std::cell::RefCell;
use std::num::NonZeroU16;
use std::ops::ControlFlow;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tree_sitter::{Language, Node as TsNode, ParseOptions, Parser, Tree};

use crate::syntax::{
    AndOrOp, Assign, Eval, Item, List, Node, Part, RedirTarget, Redirect, Simple, Sub, SubKind,
    Word,
};

mod commands;
mod grammar;
mod lexing;
mod literals;
mod repairs;
mod statements;
mod word;

use grammar::*;
use statements::*;
use word::*;

pub(crate) use word::is_name;

/// The longest a single parse may take before it is abandoned. The parser is
/// linear in the input, so this is reached only by inputs far beyond
/// `Options::max_len`'s default; it bounds the gate's latency whatever the
/// caller configures.
const PARSE_BUDGET: Duration = Duration::from_millis(250);

/// The result of parsing one script.
#[derive(Debug, Default)]
pub(crate) struct Parsed {
    pub list: List,
    /// Why the script (or part of it) could not be parsed or followed.
    pub errors: Vec<String>,
}

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Why a script got no tree: nothing of it can be followed, and the
/// analysis says so.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ParseError {
    /// The thread's parser is in use further up the stack.
    #[error("parser is busy")]
    Busy,
    /// The grammar does not fit the tree-sitter library.
    #[error("bash grammar unavailable: {0}")]
    Grammar(tree_sitter::LanguageError),
    /// No parser was set up.
    #[error("parser unavailable")]
    Unavailable,
    /// The parse ran out of its time budget.
    #[error("the parser gave up (input too complex)")]
    GaveUp,
}

/// UTF-8, with every character above U+00FF given to the lexer as `ª`
/// (U+00AA, a letter, as most of them are), its length in bytes kept.
///
/// The grammar's hand-written scanner classifies characters with C's
/// `isdigit`, `isalpha` and `isspace`, whose tables end at 255: a larger
/// character is read far past them, which is undefined and, for one above
/// about U+E0000, a segmentation fault (`{` then U+F0000 is enough). A
/// crash must never stand in for a decision. Bash itself reads any
/// non-ASCII character as an ordinary character of a word, never as a
/// separator or an operator; the tree's byte ranges, which are what the
/// analysis reads the source through, are unchanged.
struct NarrowUtf8;

impl tree_sitter::Decode for NarrowUtf8 {
    fn decode(bytes: &[u8]) -> (i32, u32) {
        const DECODE_ERROR: i32 = -1;
        match bytes.first() {
            None => return (DECODE_ERROR, 0),
            Some(&b) if b.is_ascii() => return (i32::from(b), 1),
            Some(_) => {}
        }
        // A character is at most 4 bytes: decoding no further keeps this
        // constant-time per character.
        let head = bytes.get(..4).unwrap_or(bytes);
        match head
            .utf8_chunks()
            .next()
            .and_then(|c| c.valid().chars().next())
        {
            Some(c) => {
                let code = u32::from(c);
                let narrow = if code <= 0xff { code as i32 } else { 0xaa };
                (narrow, c.len_utf8() as u32)
            }
            None => (DECODE_ERROR, 1),
        }
    }
}

fn parse_tree(src: &str) -> Result<Tree, ParseError> {
    PARSER.with(|cell| {
        let mut slot = cell.try_borrow_mut().map_err(|_| ParseError::Busy)?;
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .map_err(ParseError::Grammar)?;
            *slot = Some(parser);
        }
        let parser = slot.as_mut().ok_or(ParseError::Unavailable)?;
        let bytes = src.as_bytes();
        let deadline = Instant::now() + PARSE_BUDGET;
        let mut progress = |_: &tree_sitter::ParseState| {
            if Instant::now() > deadline {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = ParseOptions::new().progress_callback(&mut progress);
        let tree = parser.parse_custom_encoding::<NarrowUtf8, _, _>(
            &mut |i, _| bytes.get(i..).unwrap_or_default(),
            None,
            Some(options),
        );
        // A parse that was abandoned leaves its state behind, to be resumed;
        // start clean next time instead. (A finished parse resets itself.)
        if tree.is_none() {
            parser.reset();
        }
        tree.ok_or(ParseError::GaveUp)
    })
}

/// Parses `src`. `depth` is the nesting the script already sits at (inside
/// `bash -c`, `eval`, backquotes), `max_depth` the limit.
pub(crate) fn parse(src: &str, depth: usize, max_depth: usize) -> Parsed {
    let src = repairs::trailing_backslash(src);
    let (src, tree) = match parse_tree(&src).and_then(|tree| repairs::repair(src, tree)) {
        Ok(parsed) => parsed,
        Err(e) => {
            return Parsed {
                list: List::default(),
                errors: vec![e.to_string()],
            };
        }
    };
    let (src, tree) = literals::literals(src, tree);
    let (src, tree) = repairs::escaped_blanks(src, tree);
    let src: &str = &src;
    let root = tree.root_node();
    let mut conv = Conv {
        src,
        depth,
        max_depth,
        frames: 0,
        frame_limit: max_depth.saturating_mul(16).saturating_add(64),
        errors: Vec::new(),
        too_deep: false,
        joined: Vec::new(),
    };
    let list = conv.list_of(root);
    if let Some(at) = dollar_backslash(root, src) {
        conv.errors.push(format!(
            "a `$` before a backslash at byte {at}: the grammar does not read it as bash does"
        ));
    }
    if let Some(at) = unjoined_continuation(root, src, &conv.joined) {
        conv.errors.push(format!(
            "a line continuation at byte {at} joins two words where this analysis cannot follow it"
        ));
    }
    if let Some(at) = dropped_escaped_blank(root, src) {
        conv.errors.push(format!(
            "an escaped blank at byte {at} starts a word the parser does not see"
        ));
    }
    if let Some(msg) = lexing::divergence(root, src) {
        conv.errors.push(msg);
    }
    if root.has_error() {
        if let Some(msg) = first_syntax_error(root, src) {
            conv.errors.insert(0, msg);
        }
    }
    Parsed {
        list,
        errors: conv.errors,
    }
}

/// The nodes whose bytes are text, not syntax: quoted strings, a
/// here-document's body, a comment. A backslash-newline inside one is
/// kept (single quotes, `$'..'`, a quoted heredoc, a comment) or removed
/// by the word conversion (double quotes, an unquoted heredoc); a carriage
/// return inside one is a character of it.
pub(super) const TEXT_INSIDE: &[&str] = &[
    "string",
    "string_content",
    "raw_string",
    "ansi_c_string",
    "translated_string",
    "heredoc_body",
    "heredoc_content",
    "comment",
];

/// The first backslash-newline that bash removes to join two words (the
/// character before it is not a blank) which the conversion did not join
/// itself: the words toolgate sees are then not the ones bash runs.
fn unjoined_continuation(root: TsNode<'_>, src: &str, joined: &[usize]) -> Option<usize> {
    let bytes = src.as_bytes();
    let mut from = 0;
    while let Some(off) = src.get(from..).and_then(|t| t.find("\\\n")) {
        let at = from + off;
        from = at + 2;
        // An odd run of backslashes ends in an escaping one.
        let run = backslashes_before(bytes, at + 1);
        if run % 2 == 0 || at == 0 {
            continue;
        }
        let prev = at.checked_sub(1).and_then(|i| bytes.get(i));
        if matches!(prev, None | Some(b' ' | b'\t' | b'\n')) || joined.contains(&at) {
            continue;
        }
        let inside = within(root, at, 2, TEXT_INSIDE);
        if !inside {
            return Some(at);
        }
    }
    None
}

/// The nodes that keep an escaped blank as part of their text.
const ESCAPED_BLANK_INSIDE: &[&str] = &[
    "word",
    "concatenation",
    "string",
    "string_content",
    "raw_string",
    "ansi_c_string",
    "translated_string",
    "heredoc_body",
    "heredoc_content",
    "comment",
    "regex",
    "extglob_pattern",
];

/// The first `\ ` (or `\<tab>`) outside any word: the grammar reads the
/// blank as a separator and loses the backslash, where bash starts a word
/// with a blank (`a \ b` is `a`, ` b`; `\ #x` is ` #x`, no comment).
fn dropped_escaped_blank(root: TsNode<'_>, src: &str) -> Option<usize> {
    dropped_escaped_blanks(root, src).next()
}

/// Every `\ ` (or `\<tab>`) outside any word, in order: see
/// [`dropped_escaped_blank`].
pub(super) fn dropped_escaped_blanks<'a>(
    root: TsNode<'a>,
    src: &'a str,
) -> impl Iterator<Item = usize> + 'a {
    let bytes = src.as_bytes();
    bytes
        .windows(2)
        .enumerate()
        .filter(move |(at, pair)| {
            pair[0] == b'\\'
                && matches!(pair[1], b' ' | b'\t')
                && backslashes_before(bytes, at + 1) % 2 == 1
                && !within(root, *at, 2, ESCAPED_BLANK_INSIDE)
        })
        .map(|(at, _)| at)
}

/// The first unescaped `$` followed by a backslash outside quotes (`x$\ y`):
/// bash reads a literal `$`, the grammar drops it and keeps the backslash.
/// (In single or double quotes the grammar reads it as bash does; one
/// outside them is escaped by [`literals::literals`] where it can be.)
fn dollar_backslash(root: TsNode<'_>, src: &str) -> Option<usize> {
    let bytes = src.as_bytes();
    let mut from = 0;
    while let Some(off) = src.get(from..).and_then(|t| t.find("$\\")) {
        let at = from + off;
        from = at + 2;
        let run = backslashes_before(bytes, at);
        // Before a line continuation it is never trusted, quotes or not:
        // in double quotes bash joins the lines first (`"$\<newline>(id)"`
        // runs `id`).
        let continued = bytes.get(at + 2) == Some(&b'\n');
        if run % 2 == 0
            && (continued || literals::context(root, src, at) != literals::Context::Quoted)
        {
            return Some(at);
        }
    }
    None
}

/// How many backslashes end just before `end`: an odd count escapes the
/// byte at `end`.
fn backslashes_before(bytes: &[u8], end: usize) -> usize {
    bytes
        .get(..end)
        .unwrap_or_default()
        .iter()
        .rev()
        .take_while(|b| **b == b'\\')
        .count()
}

/// Whether the `len` bytes at `at` lie within a node of one of `kinds`.
pub(super) fn within(root: TsNode<'_>, at: usize, len: usize, kinds: &[&str]) -> bool {
    let mut node = root.descendant_for_byte_range(at, at + len);
    while let Some(x) = node {
        if kinds.contains(&kind(x)) {
            return true;
        }
        node = x.parent();
    }
    false
}

/// Whether `gap` is nothing but line continuations (at least one).
fn only_continuations(gap: &str) -> bool {
    !gap.is_empty() && gap.split("\\\n").all(str::is_empty)
}

/// Finds the first error or missing node, iteratively (the tree can be deep).
fn first_syntax_error(root: TsNode<'_>, src: &str) -> Option<String> {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if (node.is_error() || node.is_missing()) && !tolerated_error(node, src) {
            let at = node.start_byte();
            return Some(if node.is_missing() {
                format!("cannot parse: `{}` missing at byte {at}", kind(node))
            } else {
                let snippet: String = src
                    .get(node.byte_range())
                    .unwrap_or("")
                    .chars()
                    .take(40)
                    .collect();
                format!("cannot parse: syntax error at byte {at} near `{snippet}`")
            });
        }
        if node.has_error() && cursor.goto_first_child() {
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

/// Errors the conversion reads past as bash does:
/// - The grammar has no `<>` operator and reports its `>` as an error
///   inside a file redirect; the conversion reads the operator from the
///   text instead.
/// - A command of assignments and redirects alone (`g=$(f) > out`: bash
///   assigns, then opens `out`) lacks the name the grammar wants there;
///   the conversion leaves the missing name out.
fn tolerated_error(node: TsNode<'_>, src: &str) -> bool {
    // Its `>` after `<`, or (before a `-`) its `<` before `>`.
    let start = node.start_byte();
    let diamond = node.is_error()
        && node.parent().is_some_and(|p| kind(p) == "file_redirect")
        && match src.get(node.byte_range()) {
            Some(">") => start > 0 && src.get(start - 1..start) == Some("<"),
            Some("<") => src.get(start + 1..start + 2) == Some(">"),
            _ => false,
        };
    diamond || nameless_command(node)
}

/// A missing command name in a command that has assignments and a redirect.
fn nameless_command(node: TsNode<'_>) -> bool {
    if !node.is_missing() || kind(node) != "word" {
        return false;
    }
    let Some(name) = node.parent().filter(|p| kind(*p) == "command_name") else {
        return false;
    };
    let Some(command) = name.parent().filter(|p| kind(*p) == "command") else {
        return false;
    };
    let mut cursor = command.walk();
    let children: Vec<TsNode<'_>> = command.named_children(&mut cursor).collect();
    let assigns = children.iter().any(|c| kind(*c) == "variable_assignment");
    let redirects = children.iter().any(|c| kind(*c).ends_with("redirect"));
    let others = children.iter().all(|c| {
        c.id() == name.id() || kind(*c) == "variable_assignment" || kind(*c).ends_with("redirect")
    });
    assigns && redirects && others
}

struct Conv<'s> {
    src: &'s str,
    depth: usize,
    max_depth: usize,
    frames: usize,
    frame_limit: usize,
    errors: Vec<String>,
    too_deep: bool,
    /// Where a line continuation joins two words that the conversion
    /// joined as bash does (`cat .e\<newline>nv` is `cat .env`).
    joined: Vec<usize>,
}

impl<'s> Conv<'s> {
    fn text(&self, n: TsNode<'_>) -> &'s str {
        self.src.get(n.byte_range()).unwrap_or("")
    }

    /// Enters one level of recursion; false (and an error, once) past the limits.
    fn enter(&mut self, construct: bool) -> bool {
        self.frames += 1;
        if construct {
            self.depth += 1;
        }
        if self.depth > self.max_depth || self.frames > self.frame_limit {
            if !self.too_deep {
                self.too_deep = true;
                self.errors
                    .push(format!("nesting deeper than {} levels", self.max_depth));
            }
            self.leave(construct);
            return false;
        }
        true
    }

    fn leave(&mut self, construct: bool) {
        self.frames = self.frames.saturating_sub(1);
        if construct {
            self.depth = self.depth.saturating_sub(1);
        }
    }
}

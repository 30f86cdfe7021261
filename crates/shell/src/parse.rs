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
    AndOrOp, Assign, Item, List, Node, Part, RedirTarget, Redirect, Simple, Sub, SubKind, Word,
};

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

fn parse_tree(src: &str) -> Result<Tree, String> {
    PARSER.with(|cell| {
        let mut slot = cell
            .try_borrow_mut()
            .map_err(|_| "parser is busy".to_string())?;
        if slot.is_none() {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_bash::LANGUAGE.into())
                .map_err(|e| format!("bash grammar unavailable: {e}"))?;
            *slot = Some(parser);
        }
        let parser = slot
            .as_mut()
            .ok_or_else(|| "parser unavailable".to_string())?;
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
        let tree = parser.parse_with_options(
            &mut |i, _| bytes.get(i..).unwrap_or_default(),
            None,
            Some(options),
        );
        // A parse that was abandoned leaves its state behind, to be resumed;
        // start clean next time instead. (A finished parse resets itself.)
        if tree.is_none() {
            parser.reset();
        }
        tree.ok_or_else(|| "the parser gave up (input too complex)".to_string())
    })
}

/// Parses `src`. `depth` is the nesting the script already sits at (inside
/// `bash -c`, `eval`, backquotes), `max_depth` the limit.
pub(crate) fn parse(src: &str, depth: usize, max_depth: usize) -> Parsed {
    let tree = match parse_tree(src) {
        Ok(tree) => tree,
        Err(e) => {
            return Parsed {
                list: List::default(),
                errors: vec![e],
            };
        }
    };
    let root = tree.root_node();
    let mut conv = Conv {
        src,
        depth,
        max_depth,
        frames: 0,
        frame_limit: max_depth.saturating_mul(16).saturating_add(64),
        errors: Vec::new(),
        too_deep: false,
    };
    let list = conv.list_of(root);
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

/// The grammar has no `<>` operator and reports its `>` as an error inside a
/// file redirect; the conversion reads the operator from the text instead.
fn tolerated_error(node: TsNode<'_>, src: &str) -> bool {
    node.is_error()
        && src.get(node.byte_range()) == Some(">")
        && node.parent().is_some_and(|p| kind(p) == "file_redirect")
        && node.start_byte() > 0
        && src.get(node.start_byte() - 1..node.start_byte()) == Some("<")
}

/// A node's children with their field names, in one pass of a cursor
/// (asking for the field of the i-th child is linear in i).
fn fields(node: TsNode<'_>) -> Fields<'_> {
    Fields {
        cursor: node.walk(),
        state: FieldsState::Start,
    }
}

/// The iterator of [`fields`].
struct Fields<'t> {
    cursor: tree_sitter::TreeCursor<'t>,
    state: FieldsState,
}

enum FieldsState {
    Start,
    On,
    Done,
}

impl<'t> Iterator for Fields<'t> {
    type Item = (TsNode<'t>, Option<&'static str>);

    fn next(&mut self) -> Option<Self::Item> {
        let moved = match self.state {
            FieldsState::Start => self.cursor.goto_first_child(),
            FieldsState::On => self.cursor.goto_next_sibling(),
            FieldsState::Done => false,
        };
        if !moved {
            self.state = FieldsState::Done;
            return None;
        }
        self.state = FieldsState::On;
        let field = self
            .cursor
            .field_id()
            .and_then(|f| grammar().fields.get(usize::from(f.get())).copied());
        Some((self.cursor.node(), field))
    }
}

/// The grammar's node kinds and field names by id, read once.
///
/// tree-sitter's `Node::kind` and `TreeCursor::field_name` measure and
/// validate a C string on every call, and `child_by_field_name` searches
/// the field names for each lookup; the conversion asks these for every
/// node, so it asks this table instead.
struct Grammar {
    kinds: Vec<&'static str>,
    fields: Vec<&'static str>,
    body: Option<NonZeroU16>,
    condition: Option<NonZeroU16>,
    descriptor: Option<NonZeroU16>,
    destination: Option<NonZeroU16>,
    initializer: Option<NonZeroU16>,
    name: Option<NonZeroU16>,
    redirect: Option<NonZeroU16>,
    update: Option<NonZeroU16>,
    value: Option<NonZeroU16>,
    variable: Option<NonZeroU16>,
}

fn grammar() -> &'static Grammar {
    static GRAMMAR: OnceLock<Grammar> = OnceLock::new();
    GRAMMAR.get_or_init(|| {
        let lang: Language = tree_sitter_bash::LANGUAGE.into();
        let kinds = (0..lang.node_kind_count())
            .map(|id| {
                u16::try_from(id)
                    .ok()
                    .and_then(|id| lang.node_kind_for_id(id))
                    .unwrap_or("")
            })
            .collect();
        let fields = (0..=lang.field_count())
            .map(|id| {
                u16::try_from(id)
                    .ok()
                    .and_then(|id| lang.field_name_for_id(id))
                    .unwrap_or("")
            })
            .collect();
        let id = |name: &str| lang.field_id_for_name(name);
        Grammar {
            kinds,
            fields,
            body: id("body"),
            condition: id("condition"),
            descriptor: id("descriptor"),
            destination: id("destination"),
            initializer: id("initializer"),
            name: id("name"),
            redirect: id("redirect"),
            update: id("update"),
            value: id("value"),
            variable: id("variable"),
        }
    })
}

/// A node's kind (`command`, `word`, `ERROR`, ...).
fn kind(node: TsNode<'_>) -> &'static str {
    grammar()
        .kinds
        .get(usize::from(node.kind_id()))
        .copied()
        .filter(|k| !k.is_empty())
        // Ids past the table (the error symbols) are asked directly.
        .unwrap_or_else(|| node.kind())
}

/// A node's child in a field.
fn field<'t>(node: TsNode<'t>, field: Option<NonZeroU16>) -> Option<TsNode<'t>> {
    field.and_then(|f| node.child_by_field_id(f.get()))
}

/// A node's children in a field.
fn field_all<'t>(node: TsNode<'t>, field: Option<NonZeroU16>) -> Vec<TsNode<'t>> {
    let Some(f) = field else {
        return Vec::new();
    };
    let mut cursor = node.walk();
    node.children_by_field_id(f, &mut cursor).collect()
}

fn is_statement(kind: &str) -> bool {
    matches!(
        kind,
        "c_style_for_statement"
            | "case_statement"
            | "command"
            | "compound_statement"
            | "declaration_command"
            | "for_statement"
            | "function_definition"
            | "if_statement"
            | "list"
            | "negated_command"
            | "pipeline"
            | "redirected_statement"
            | "subshell"
            | "test_command"
            | "unset_command"
            | "variable_assignment"
            | "variable_assignments"
            | "while_statement"
    )
}

struct Conv<'s> {
    src: &'s str,
    depth: usize,
    max_depth: usize,
    frames: usize,
    frame_limit: usize,
    errors: Vec<String>,
    too_deep: bool,
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

    /// The statements among `node`'s children, with `&` marking background.
    fn list_of(&mut self, node: TsNode<'_>) -> List {
        let mut list = List::default();
        if !self.enter(true) {
            return list;
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            self.push_child(&mut list, child);
        }
        self.leave(true);
        list
    }

    fn push_child(&mut self, list: &mut List, child: TsNode<'_>) {
        let kind = kind(child);
        if !child.is_named() {
            if kind == "&" {
                if let Some(last) = list.items.last_mut() {
                    last.background = true;
                }
            }
            return;
        }
        if kind == "comment" || kind.starts_with("heredoc_") {
            return;
        }
        if is_statement(kind) {
            let node = self.stmt(child);
            list.items.push(Item {
                node,
                background: false,
            });
        } else if kind == "ERROR" {
            let text = self.text(child);
            if text.starts_with('{')
                && !text[1..].starts_with(char::is_whitespace)
                && !text[1..].is_empty()
            {
                // `{rm,-rf,~}` is a brace-expanded word in bash, not a group:
                // read it as the words of a command.
                if self.enter(true) {
                    let parsed = parse(&format!("command {text}"), self.depth, self.max_depth);
                    list.items.extend(parsed.list.items);
                    self.leave(true);
                }
                return;
            }
            // Keep what can be recognised inside an unparsable region: its
            // commands are still checked, and the caller reports the error.
            let mut cursor = child.walk();
            for grandchild in child.children(&mut cursor) {
                if self.enter(false) {
                    self.push_child(list, grandchild);
                    self.leave(false);
                }
            }
        } else {
            // Words and expressions standing where statements were expected
            // (the grammar's recovery, `case` patterns, arithmetic): only
            // their substitutions run.
            let word = self.scan_word(child);
            if !word.subs.is_empty() {
                list.items.push(Item {
                    node: Node::Arith(vec![word]),
                    background: false,
                });
            }
        }
    }

    fn stmt(&mut self, node: TsNode<'_>) -> Node {
        if !self.enter(false) {
            return Node::Simple(Simple::default());
        }
        let out = self.stmt_inner(node);
        self.leave(false);
        out
    }

    fn stmt_inner(&mut self, node: TsNode<'_>) -> Node {
        match kind(node) {
            "command" => Node::Simple(self.simple_of(node)),
            "pipeline" => {
                let mut stages = Vec::new();
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if is_statement(kind(child)) {
                        stages.push(self.stmt(child));
                    } else if kind(child) != "comment" {
                        stages.push(Node::Arith(vec![self.scan_word(child)]));
                    }
                }
                Node::Pipeline(stages)
            }
            "list" => self.and_or_of(node),
            "negated_command" => {
                let mut cursor = node.walk();
                let inner = node
                    .named_children(&mut cursor)
                    .find(|c| kind(*c) != "comment");
                match inner {
                    Some(child) if is_statement(kind(child)) => self.stmt(child),
                    Some(child) => Node::Arith(vec![self.scan_word(child)]),
                    None => Node::Simple(Simple::default()),
                }
            }
            "subshell" => Node::Subshell(self.list_of(node)),
            "compound_statement" => {
                let arith = node.child(0).is_some_and(|c| self.text(c) == "((");
                if arith {
                    Node::Arith(vec![self.scan_word(node)])
                } else {
                    Node::Compound {
                        words: Vec::new(),
                        bodies: vec![self.list_of(node)],
                        plain: true,
                        looped: false,
                        binds: Some(Vec::new()),
                    }
                }
            }
            "if_statement" => self.compound_of(node, Vec::new(), false, Some(Vec::new())),
            "while_statement" => self.compound_of(node, Vec::new(), true, Some(Vec::new())),
            "for_statement" | "c_style_for_statement" | "case_statement" => {
                let g = grammar();
                let mut words = Vec::new();
                for child in field_all(node, g.value) {
                    words.push(self.word_of(child));
                }
                for f in [g.initializer, g.condition, g.update] {
                    for child in field_all(node, f) {
                        words.push(self.scan_word(child));
                    }
                }
                let binds = match kind(node) {
                    "for_statement" => Some(
                        field_all(node, g.variable)
                            .into_iter()
                            .map(|v| self.text(v).to_string())
                            .collect(),
                    ),
                    "case_statement" => Some(Vec::new()),
                    // Arithmetic may assign any variable.
                    _ => None,
                };
                let looped = kind(node) != "case_statement";
                self.compound_of(node, words, looped, binds)
            }
            "function_definition" => {
                let g = grammar();
                let name = field(node, g.name)
                    .map(|n| self.text(n).to_string())
                    .unwrap_or_default();
                let body = match field(node, g.body) {
                    Some(b) => self.stmt(b),
                    None => Node::Simple(Simple::default()),
                };
                let mut redirects = Vec::new();
                for r in field_all(node, g.redirect) {
                    redirects.extend(self.redirect_of(r));
                }
                let body = if redirects.is_empty() {
                    body
                } else {
                    Node::Redirected(Box::new(body), redirects)
                };
                Node::Function {
                    name,
                    body: Box::new(body),
                }
            }
            "redirected_statement" => self.redirected_of(node),
            "variable_assignment" => Node::Simple(Simple {
                assigns: vec![self.assign_of(node)],
                text: self.text(node).to_string(),
                ..Simple::default()
            }),
            "variable_assignments" => {
                let mut simple = Simple {
                    text: self.text(node).to_string(),
                    ..Simple::default()
                };
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    if kind(child) == "variable_assignment" {
                        simple.assigns.push(self.assign_of(child));
                    }
                }
                Node::Simple(simple)
            }
            "declaration_command" | "unset_command" => Node::Simple(self.declaration_of(node)),
            "test_command" => Node::Simple(self.test_of(node)),
            _ => Node::Arith(vec![self.scan_word(node)]),
        }
    }

    /// `a && b || c`: the grammar nests these to the left, one level per
    /// operator; they are flattened here without recursion.
    fn and_or_of(&mut self, node: TsNode<'_>) -> Node {
        let mut rest: Vec<(AndOrOp, TsNode<'_>)> = Vec::new();
        let mut cur = node;
        let first = loop {
            let mut cursor = cur.walk();
            let children: Vec<TsNode<'_>> = cur
                .children(&mut cursor)
                .filter(|c| kind(*c) != "comment")
                .collect();
            let op_at = children
                .iter()
                .position(|c| !c.is_named() && matches!(kind(*c), "&&" | "||"));
            let (Some(op_at), true) = (op_at, children.len() >= 3) else {
                // Not the shape the grammar promises: keep every statement.
                let mut list = List::default();
                for child in children {
                    self.push_child(&mut list, child);
                }
                break Node::Compound {
                    words: Vec::new(),
                    bodies: vec![list],
                    plain: false,
                    looped: false,
                    binds: Some(Vec::new()),
                };
            };
            let op = if kind(children[op_at]) == "&&" {
                AndOrOp::And
            } else {
                AndOrOp::Or
            };
            let right = children[op_at + 1..].iter().find(|c| c.is_named()).copied();
            let left = children[..op_at]
                .iter()
                .rev()
                .find(|c| c.is_named())
                .copied();
            if let Some(right) = right {
                rest.push((op, right));
            }
            match left {
                Some(left) if kind(left) == "list" => cur = left,
                Some(left) => break self.stmt_or_scan(left),
                None => break Node::Simple(Simple::default()),
            }
        };
        let rest = rest
            .into_iter()
            .rev()
            .map(|(op, n)| (op, self.stmt_or_scan(n)))
            .collect();
        Node::AndOr(Box::new(first), rest)
    }

    fn stmt_or_scan(&mut self, node: TsNode<'_>) -> Node {
        if is_statement(kind(node)) {
            self.stmt(node)
        } else {
            Node::Arith(vec![self.scan_word(node)])
        }
    }

    fn compound_of(
        &mut self,
        node: TsNode<'_>,
        words: Vec<Word>,
        looped: bool,
        binds: Option<Vec<String>>,
    ) -> Node {
        let mut bodies = Vec::new();
        let mut current = List::default();
        self.collect_bodies(node, &mut bodies, &mut current);
        if !current.items.is_empty() {
            bodies.push(current);
        }
        Node::Compound {
            words,
            bodies,
            plain: false,
            looped,
            binds,
        }
    }

    /// Gathers the statements of `if`/`while`/`for`/`case` and their clauses,
    /// in source order.
    fn collect_bodies(&mut self, node: TsNode<'_>, bodies: &mut Vec<List>, current: &mut List) {
        if !self.enter(true) {
            return;
        }
        for (child, field) in fields(node) {
            if matches!(
                field,
                Some("value" | "initializer" | "condition" | "update")
            ) && !is_statement(kind(child))
            {
                // Already taken as words by the caller, or case patterns.
                if kind(node) == "case_item" {
                    let word = self.scan_word(child);
                    if !word.subs.is_empty() {
                        current.items.push(Item {
                            node: Node::Arith(vec![word]),
                            background: false,
                        });
                    }
                }
                continue;
            }
            match kind(child) {
                "do_group" | "elif_clause" | "else_clause" | "case_item" => {
                    if !current.items.is_empty() {
                        bodies.push(std::mem::take(current));
                    }
                    self.collect_bodies(child, bodies, current);
                    if !current.items.is_empty() {
                        bodies.push(std::mem::take(current));
                    }
                }
                "variable_name" => {}
                _ => self.push_child(current, child),
            }
        }
        self.leave(true);
    }

    fn redirected_of(&mut self, node: TsNode<'_>) -> Node {
        let mut body = field(node, grammar().body)
            .map(|b| self.stmt(b))
            .unwrap_or_else(|| Node::Simple(Simple::default()));
        let mut redirects = Vec::new();
        let mut extra_words = Vec::new();
        let mut pipe_to: Vec<Node> = Vec::new();
        let mut and_or: Vec<(AndOrOp, Node)> = Vec::new();
        // The grammar can skip a word between a command and its
        // here-document (`python - <<EOF` loses the `-`): keep it.
        if let Some(body) = field(node, grammar().body) {
            let next = node
                .named_children(&mut node.walk())
                .find(|c| c.start_byte() >= body.end_byte())
                .map_or(node.end_byte(), |c| c.start_byte());
            extra_words.extend(self.gap_words(body.end_byte(), next));
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match kind(child) {
                "file_redirect" | "herestring_redirect" => {
                    redirects.extend(self.redirect_of(child))
                }
                "heredoc_redirect" => {
                    self.heredoc_of(
                        child,
                        &mut redirects,
                        &mut extra_words,
                        &mut pipe_to,
                        &mut and_or,
                    );
                }
                _ => {}
            }
        }
        if let Some(simple) = last_simple_mut(&mut body) {
            simple.redirects.extend(redirects);
            simple.words.extend(extra_words);
        } else if !redirects.is_empty() || !extra_words.is_empty() {
            if !extra_words.is_empty() {
                redirects.push(Redirect {
                    op: String::new(),
                    target: RedirTarget::Word(merge_subs(extra_words)),
                });
            }
            body = Node::Redirected(Box::new(body), redirects);
        }
        if !pipe_to.is_empty() {
            body = replace_last_simple(body, |last| {
                let mut stages = vec![last];
                for stage in pipe_to {
                    match stage {
                        Node::Pipeline(more) => stages.extend(more),
                        other => stages.push(other),
                    }
                }
                Node::Pipeline(stages)
            });
        }
        if !and_or.is_empty() {
            body = Node::AndOr(Box::new(body), and_or);
        }
        body
    }

    fn heredoc_of(
        &mut self,
        node: TsNode<'_>,
        redirects: &mut Vec<Redirect>,
        extra_words: &mut Vec<Word>,
        pipe_to: &mut Vec<Node>,
        and_or: &mut Vec<(AndOrOp, Node)>,
    ) {
        let mut op = "<<".to_string();
        let mut quoted_delim = false;
        let mut body_text = String::new();
        let mut dynamic = false;
        let mut subs = Vec::new();
        let mut pending_op: Option<AndOrOp> = None;
        for (child, field) in fields(node) {
            match (kind(child), field) {
                ("<<-", _) => op = "<<-".into(),
                ("heredoc_start", _) => {
                    quoted_delim = self.text(child).contains(['\'', '"', '\\']);
                }
                ("heredoc_body", _) => {
                    body_text = self.text(child).to_string();
                    let mut c2 = child.walk();
                    for part in child.named_children(&mut c2) {
                        match kind(part) {
                            "heredoc_content" => {}
                            _ => {
                                dynamic = true;
                                subs.extend(self.scan_word(part).subs);
                            }
                        }
                    }
                }
                ("pipeline", _) => {
                    let mut c2 = child.walk();
                    for stage in child.named_children(&mut c2) {
                        pipe_to.push(self.stmt_or_scan(stage));
                    }
                }
                (_, Some("operator")) => {
                    pending_op = Some(if self.text(child) == "||" {
                        AndOrOp::Or
                    } else {
                        AndOrOp::And
                    });
                }
                (_, Some("right")) => {
                    let right = self.stmt_or_scan(child);
                    and_or.push((pending_op.take().unwrap_or(AndOrOp::And), right));
                }
                (_, Some("redirect")) => redirects.extend(self.redirect_of(child)),
                (_, Some("argument")) => extra_words.push(self.word_of(child)),
                _ => {}
            }
        }
        if op == "<<-" {
            body_text = body_text
                .split_inclusive('\n')
                .map(|line| line.trim_start_matches('\t'))
                .collect();
        }
        redirects.push(Redirect {
            op,
            target: RedirTarget::Heredoc {
                body: body_text,
                dynamic: dynamic && !quoted_delim,
                subs,
            },
        });
    }

    fn redirect_of(&mut self, node: TsNode<'_>) -> Option<Redirect> {
        match kind(node) {
            "file_redirect" => {
                let dest = field(node, grammar().destination);
                let start =
                    field(node, grammar().descriptor).map_or(node.start_byte(), |d| d.end_byte());
                let end = dest.map_or(node.end_byte(), |d| d.start_byte());
                let op: String = self
                    .src
                    .get(start..end)
                    .unwrap_or("")
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .collect();
                let mut words = Vec::new();
                for d in field_all(node, grammar().destination) {
                    words.push(self.word_of(d));
                }
                let target = match words.len() {
                    0 => Word::default(),
                    1 => words.pop().unwrap_or_default(),
                    _ => merge_subs(words),
                };
                Some(Redirect {
                    op,
                    target: RedirTarget::Word(target),
                })
            }
            "herestring_redirect" => {
                let mut cursor = node.walk();
                let word = node
                    .named_children(&mut cursor)
                    .find(|c| kind(*c) != "file_descriptor")
                    .map(|c| self.word_of(c))
                    .unwrap_or_default();
                Some(Redirect {
                    op: "<<<".into(),
                    target: RedirTarget::HereString(word),
                })
            }
            "heredoc_redirect" => {
                let mut redirects = Vec::new();
                let (mut w, mut p, mut a) = (Vec::new(), Vec::new(), Vec::new());
                self.heredoc_of(node, &mut redirects, &mut w, &mut p, &mut a);
                redirects.pop()
            }
            _ => {
                let word = self.scan_word(node);
                Some(Redirect {
                    op: String::new(),
                    target: RedirTarget::Word(word),
                })
            }
        }
    }

    fn simple_of(&mut self, node: TsNode<'_>) -> Simple {
        let mut simple = Simple {
            text: self.text(node).to_string(),
            ..Simple::default()
        };
        let mut pos = node.start_byte();
        for (child, field) in fields(node) {
            let gap = self.gap_words(pos, child.start_byte());
            simple.words.extend(gap);
            pos = pos.max(child.end_byte());
            match (field, kind(child)) {
                (_, "variable_assignment") => simple.assigns.push(self.assign_of(child)),
                (Some("name"), _) => {
                    let inner = if kind(child) == "command_name" {
                        child.named_child(0).unwrap_or(child)
                    } else {
                        child
                    };
                    simple.words.push(self.word_of(inner));
                }
                (Some("argument"), _) => simple.words.push(self.word_of(child)),
                (Some("redirect"), _) | (_, "file_redirect" | "herestring_redirect") => {
                    simple.redirects.extend(self.redirect_of(child));
                }
                (_, "comment") => {}
                _ if child.is_named() => {
                    let word = self.scan_word(child);
                    if !word.subs.is_empty() {
                        simple.words.push(word);
                    }
                }
                _ => {}
            }
        }
        simple
    }

    /// Words in source text that no node covers.
    fn gap_words(&mut self, start: usize, end: usize) -> Vec<Word> {
        let text = self.src.get(start..end).unwrap_or("");
        if text.bytes().all(|b| b.is_ascii_whitespace()) {
            return Vec::new();
        }
        let text = text.replace("\\\n", " ");
        text.split_whitespace()
            .map(|w| {
                let mut word = Word {
                    text: w.to_string(),
                    ..Word::default()
                };
                push_unquoted(&mut word, w);
                word
            })
            .collect()
    }

    fn assign_of(&mut self, node: TsNode<'_>) -> Assign {
        let name_node = field(node, grammar().name);
        let name = name_node
            .map(|n| {
                let t = self.text(n);
                t.split('[').next().unwrap_or(t).to_string()
            })
            .unwrap_or_default();
        let mut value = Vec::new();
        if let Some(n) = name_node {
            let scanned = self.scan_word(n);
            if !scanned.subs.is_empty() {
                value.push(scanned);
            }
        }
        if let Some(v) = field(node, grammar().value) {
            if kind(v) == "array" {
                let mut cursor = v.walk();
                for element in v.named_children(&mut cursor) {
                    value.push(self.word_of(element));
                }
            } else {
                value.push(self.word_of(v));
            }
        } else {
            value.push(Word::default());
        }
        Assign { name, value }
    }

    /// `declare`, `export`, `local`, `readonly`, `typeset`, `unset`: a
    /// command whose arguments may be assignments.
    fn declaration_of(&mut self, node: TsNode<'_>) -> Simple {
        let mut simple = Simple {
            text: self.text(node).to_string(),
            ..Simple::default()
        };
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if !child.is_named() {
                if simple.words.is_empty() {
                    simple.words.push(lit_word(self.text(child)));
                }
                continue;
            }
            match kind(child) {
                "variable_assignment" => {
                    let assign = self.assign_of(child);
                    let mut word = Word {
                        text: self.text(child).to_string(),
                        ..Word::default()
                    };
                    let eq_text = match field(child, grammar().value) {
                        Some(v) => self
                            .src
                            .get(child.start_byte()..v.start_byte())
                            .unwrap_or(""),
                        None => self.text(child),
                    };
                    word.parts.push(Part::Lit {
                        text: eq_text.to_string(),
                        quoted: true,
                    });
                    for v in &assign.value {
                        word.parts.extend(v.parts.iter().cloned());
                        word.subs.extend(v.subs.iter().cloned());
                    }
                    simple.words.push(word);
                    // The word carries the value's substitutions; the
                    // assignment is kept for its name only.
                    simple.assigns.push(Assign {
                        name: assign.name,
                        value: Vec::new(),
                    });
                }
                "variable_name" => simple.words.push(lit_word(self.text(child))),
                "comment" => {}
                _ => simple.words.push(self.word_of(child)),
            }
        }
        simple
    }

    /// `[ .. ]` and `[[ .. ]]` as a command whose words are the expression's
    /// operands and operators, in order.
    fn test_of(&mut self, node: TsNode<'_>) -> Simple {
        let mut simple = Simple {
            text: self.text(node).to_string(),
            ..Simple::default()
        };
        self.test_words(node, &mut simple.words);
        simple
    }

    fn test_words(&mut self, node: TsNode<'_>, words: &mut Vec<Word>) {
        if !self.enter(false) {
            return;
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match kind(child) {
                "binary_expression"
                | "unary_expression"
                | "parenthesized_expression"
                | "ternary_expression"
                | "postfix_expression" => self.test_words(child, words),
                "test_operator" => words.push(lit_word(self.text(child))),
                "redirected_statement" | "comment" => {
                    let word = self.scan_word(child);
                    if !word.subs.is_empty() {
                        words.push(word);
                    }
                }
                _ if child.is_named() => words.push(self.word_of(child)),
                _ => words.push(lit_word(self.text(child))),
            }
        }
        self.leave(false);
    }

    /// A word: its parts (literal text, parameters, dynamic pieces) and the
    /// substitutions inside it.
    fn word_of(&mut self, node: TsNode<'_>) -> Word {
        let mut word = Word {
            text: self.text(node).to_string(),
            ..Word::default()
        };
        self.parts_into(node, &mut word);
        word
    }

    fn parts_into(&mut self, node: TsNode<'_>, word: &mut Word) {
        if !self.enter(false) {
            word.parts.push(Part::Dynamic);
            return;
        }
        let text = self.text(node);
        match kind(node) {
            "word" | "number" | "variable_name" | "extglob_pattern" | "regex" | "test_operator"
            | "file_descriptor" | "brace_expression" | "heredoc_start"
                if node.named_child_count() == 0 =>
            {
                push_unquoted(word, text);
            }
            "raw_string" => {
                let inner = text
                    .strip_prefix('\'')
                    .map(|t| t.strip_suffix('\'').unwrap_or(t))
                    .unwrap_or(text);
                push_lit(word, inner, true);
            }
            "ansi_c_string" => {
                let inner = text
                    .strip_prefix("$'")
                    .map(|t| t.strip_suffix('\'').unwrap_or(t))
                    .unwrap_or(text);
                push_lit(word, &ansi_c_decode(inner), true);
            }
            "string" | "translated_string" => self.string_into(node, word),
            "simple_expansion" => {
                let name = text.trim_start_matches('$');
                word.parts.push(Part::Param {
                    name: name.to_string(),
                    quoted: false,
                });
            }
            "expansion" => {
                let inner = text
                    .strip_prefix("${")
                    .and_then(|t| t.strip_suffix('}'))
                    .unwrap_or("");
                if is_name(inner) {
                    word.parts.push(Part::Param {
                        name: inner.to_string(),
                        quoted: false,
                    });
                } else {
                    word.parts.push(Part::Dynamic);
                    self.scan_into(node, word);
                }
            }
            "command_substitution" => {
                word.parts.push(Part::Dynamic);
                let sub = self.command_sub(node);
                word.subs.push(sub);
            }
            "process_substitution" => {
                word.parts.push(Part::Dynamic);
                let kind = if text.starts_with('>') {
                    SubKind::ProcessWrite
                } else {
                    SubKind::ProcessRead
                };
                let list = self.list_of(node);
                word.subs.push(Sub {
                    list,
                    kind,
                    redirects: Vec::new(),
                });
            }
            "arithmetic_expansion" => {
                word.parts.push(Part::Dynamic);
                self.scan_into(node, word);
            }
            "concatenation" | "word" | "number" | "variable_name" | "extglob_pattern" | "regex"
            | "brace_expression" | "command_name" => {
                self.children_with_gaps(node, word, false);
            }
            _ => {
                word.parts.push(Part::Dynamic);
                self.scan_into(node, word);
            }
        }
        self.leave(false);
    }

    /// Children in order, with the text between them (which the grammar
    /// leaves to anonymous tokens) as literal text.
    fn children_with_gaps(&mut self, node: TsNode<'_>, word: &mut Word, quoted: bool) {
        let mut pos = node.start_byte();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.start_byte() > pos {
                let gap = self.src.get(pos..child.start_byte()).unwrap_or("");
                if quoted {
                    push_lit(word, gap, true);
                } else {
                    push_unquoted(word, gap);
                }
            }
            self.parts_into(child, word);
            pos = pos.max(child.end_byte());
        }
        if node.end_byte() > pos {
            let gap = self.src.get(pos..node.end_byte()).unwrap_or("");
            if quoted {
                push_lit(word, gap, true);
            } else {
                push_unquoted(word, gap);
            }
        }
    }

    /// `"..."`: literal text with the double-quote escapes, and expansions.
    fn string_into(&mut self, node: TsNode<'_>, word: &mut Word) {
        let text = self.text(node);
        let open = if text.starts_with("$\"") { 2 } else { 1 };
        let start = node.start_byte() + open.min(text.len());
        let end = if text.len() > open && text.ends_with('"') {
            node.end_byte() - 1
        } else {
            node.end_byte()
        };
        // Quotes count as a part: `""` is an empty literal argument.
        push_lit(word, "", true);
        let mut pos = start;
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.start_byte() > pos {
                let gap = self.src.get(pos..child.start_byte().min(end)).unwrap_or("");
                push_lit(word, &dq_unescape(gap), true);
            }
            if kind(child) == "string_content" {
                push_lit(word, &dq_unescape(self.text(child)), true);
            } else {
                let at = word.parts.len();
                self.parts_into(child, word);
                // Inside double quotes a parameter is neither split nor globbed.
                for p in word.parts.iter_mut().skip(at) {
                    if let Part::Param { quoted, .. } = p {
                        *quoted = true;
                    }
                }
            }
            pos = pos.max(child.end_byte());
        }
        if end > pos {
            let gap = self.src.get(pos..end).unwrap_or("");
            push_lit(word, &dq_unescape(gap), true);
        }
    }

    fn command_sub(&mut self, node: TsNode<'_>) -> Sub {
        let text = self.text(node);
        if let Some(inner) = text.strip_prefix('`') {
            // Backquotes: bash removes one level of backslashes before
            // parsing the inside, so the grammar's reading of it (which
            // does not) is replaced by a second parse.
            let inner = inner.strip_suffix('`').unwrap_or(inner);
            let script = backquote_unescape(inner);
            let mut list = List::default();
            if self.enter(true) {
                let parsed = parse(&script, self.depth, self.max_depth);
                self.errors.extend(parsed.errors);
                list = parsed.list;
                self.leave(true);
            }
            return Sub {
                list,
                kind: SubKind::Command,
                redirects: Vec::new(),
            };
        }
        let mut redirects = Vec::new();
        for r in field_all(node, grammar().redirect) {
            redirects.extend(self.redirect_of(r));
        }
        let list = self.list_of(node);
        Sub {
            list,
            kind: SubKind::Command,
            redirects,
        }
    }

    /// A node with no meaning as a word of its own (an expression, a
    /// complex expansion): only the substitutions inside it matter.
    fn scan_word(&mut self, node: TsNode<'_>) -> Word {
        let mut word = Word {
            text: self.text(node).to_string(),
            parts: vec![Part::Dynamic],
            subs: Vec::new(),
        };
        self.scan_into(node, &mut word);
        word
    }

    fn scan_into(&mut self, node: TsNode<'_>, word: &mut Word) {
        if !self.enter(false) {
            return;
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match kind(child) {
                "command_substitution" => {
                    let sub = self.command_sub(child);
                    word.subs.push(sub);
                }
                "process_substitution" => {
                    let mut scratch = Word::default();
                    self.parts_into(child, &mut scratch);
                    word.subs.extend(scratch.subs);
                }
                kind if is_statement(kind) => {
                    // A statement inside an expression (grammar recovery):
                    // run it as a substitution would.
                    let node = self.stmt(child);
                    word.subs.push(Sub {
                        list: List {
                            items: vec![Item {
                                node,
                                background: false,
                            }],
                        },
                        kind: SubKind::Command,
                        redirects: Vec::new(),
                    });
                }
                _ => self.scan_into(child, word),
            }
        }
        self.leave(false);
    }
}

fn lit_word(text: &str) -> Word {
    Word {
        parts: vec![Part::Lit {
            text: text.to_string(),
            quoted: true,
        }],
        subs: Vec::new(),
        text: text.to_string(),
    }
}

/// Several words the grammar split where bash sees one target: keep their
/// substitutions, and mark the target unknown.
fn merge_subs(words: Vec<Word>) -> Word {
    let mut out = Word {
        parts: vec![Part::Dynamic],
        ..Word::default()
    };
    for w in words {
        if !out.text.is_empty() {
            out.text.push(' ');
        }
        out.text.push_str(&w.text);
        out.subs.extend(w.subs);
    }
    out
}

fn push_lit(word: &mut Word, text: &str, quoted: bool) {
    if let Some(Part::Lit {
        text: last,
        quoted: q,
    }) = word.parts.last_mut()
    {
        if *q == quoted {
            last.push_str(text);
            return;
        }
    }
    word.parts.push(Part::Lit {
        text: text.to_string(),
        quoted,
    });
}

/// Unquoted text: a backslash quotes the next character, and a backslash
/// before a newline disappears.
fn push_unquoted(word: &mut Word, text: &str) {
    if !text.contains('\\') {
        push_lit(word, text, false);
        return;
    }
    let mut chars = text.chars();
    let mut plain = String::new();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if !plain.is_empty() {
                push_lit(word, &plain, false);
                plain.clear();
            }
            match chars.next() {
                Some('\n') | None => {}
                Some(next) => {
                    let mut buf = [0u8; 4];
                    push_lit(word, next.encode_utf8(&mut buf), true);
                }
            }
        } else {
            plain.push(c);
        }
    }
    if !plain.is_empty() {
        push_lit(word, &plain, false);
    }
}

/// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and
/// a newline.
fn dq_unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Inside backquotes a backslash escapes only `$`, `` ` `` and `\`.
fn backquote_unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && matches!(chars.peek(), Some('$' | '`' | '\\')) {
            if let Some(n) = chars.next() {
                out.push(n);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `$'...'`: the C escapes bash decodes.
pub(crate) fn ansi_c_decode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'e' | 'E' => out.push('\u{1b}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '\\' | '\'' | '"' | '?' => out.push(e),
            'c' => {
                if let Some(ctl) = chars.next() {
                    out.push(char::from((ctl as u32 & 0x1f) as u8));
                }
            }
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                push_code(&mut out, value & 0xff);
            }
            'x' | 'u' | 'U' => {
                let max = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut value: u32 = 0;
                let mut n = 0;
                while n < max {
                    match chars.peek().and_then(|d| d.to_digit(16)) {
                        Some(d) => {
                            value = value.saturating_mul(16).saturating_add(d);
                            chars.next();
                            n += 1;
                        }
                        None => break,
                    }
                }
                if n == 0 {
                    out.push('\\');
                    out.push(e);
                } else {
                    push_code(&mut out, value);
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

fn push_code(out: &mut String, value: u32) {
    if let Some(c) = char::from_u32(value) {
        out.push(c);
    } else {
        out.push(char::REPLACEMENT_CHARACTER);
    }
}

pub(crate) fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// The rightmost simple command of a statement: the one a redirect written
/// after it belongs to.
fn last_simple_mut(node: &mut Node) -> Option<&mut Simple> {
    match node {
        Node::Simple(s) => Some(s),
        Node::Pipeline(stages) => stages.last_mut().and_then(last_simple_mut),
        Node::AndOr(first, rest) => match rest.last_mut() {
            Some((_, last)) => last_simple_mut(last),
            None => last_simple_mut(first),
        },
        _ => None,
    }
}

fn replace_last_simple(node: Node, f: impl FnOnce(Node) -> Node) -> Node {
    match node {
        Node::Pipeline(mut stages) => match stages.pop() {
            Some(last) => {
                let replaced = replace_last_simple(last, f);
                match replaced {
                    Node::Pipeline(more) => stages.extend(more),
                    other => stages.push(other),
                }
                Node::Pipeline(stages)
            }
            None => f(Node::Pipeline(stages)),
        },
        Node::AndOr(first, mut rest) => match rest.pop() {
            Some((op, last)) => {
                rest.push((op, replace_last_simple(last, f)));
                Node::AndOr(first, rest)
            }
            None => Node::AndOr(Box::new(replace_last_simple(*first, f)), rest),
        },
        other => f(other),
    }
}

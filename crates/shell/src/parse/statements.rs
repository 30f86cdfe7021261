//! Statements: lists, pipelines, `&&`/`||` chains, compound commands and
//! functions.

use super::*;

/// The rightmost simple command of a statement: the one a redirect written
/// after it belongs to.
pub(super) fn last_simple_mut(node: &mut Node) -> Option<&mut Simple> {
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

pub(super) fn replace_last_simple(node: Node, f: impl FnOnce(Node) -> Node) -> Node {
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

impl<'s> Conv<'s> {
    /// The statements among `node`'s children, with `&` marking background.
    pub(super) fn list_of(&mut self, node: TsNode<'_>) -> List {
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

    pub(super) fn push_child(&mut self, list: &mut List, child: TsNode<'_>) {
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
            if !word.subs.is_empty() || !word.evals.is_empty() {
                list.items.push(Item {
                    node: Node::Arith(vec![word]),
                    background: false,
                });
            }
        }
    }

    pub(super) fn stmt(&mut self, node: TsNode<'_>) -> Node {
        if !self.enter(false) {
            return Node::Simple(Simple::default());
        }
        let out = self.stmt_inner(node);
        self.leave(false);
        out
    }

    pub(super) fn stmt_inner(&mut self, node: TsNode<'_>) -> Node {
        match kind(node) {
            "command" => Node::Simple(self.simple_of(node)),
            "pipeline" => {
                let mut stages = Vec::new();
                let mut cursor = node.walk();
                for child in node.children(&mut cursor) {
                    if !child.is_named() {
                        // `a |& b` is `a 2>&1 | b`: the stage's errors go
                        // down the pipe too.
                        if self.text(child) == "|&"
                            && let Some(prev) = stages.pop()
                        {
                            stages.push(Node::Redirected(Box::new(prev), vec![stderr_to_stdout()]));
                        }
                    } else if is_statement(kind(child)) {
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
                    let mut word = self.scan_word(node);
                    let inner = word.text.strip_prefix("((").unwrap_or(&word.text);
                    let inner = inner.strip_suffix("))").unwrap_or(inner).to_string();
                    word.evals.insert(0, Eval::Arith(inner));
                    Node::Arith(vec![word])
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
                if kind(node) == "c_style_for_statement" {
                    words.push(self.arith_header(node));
                }
                // `for NAME; do` and `for NAME do` iterate over `"$@"`.
                if kind(node) == "for_statement"
                    && !node
                        .children(&mut node.walk())
                        .any(|c| !c.is_named() && kind(c) == "in")
                {
                    words.push(all_positional());
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

    /// The header of `for ((init; cond; update))` as one word whose text is
    /// `((..))`: one arithmetic evaluation, its parts in the order they
    /// first run.
    pub(super) fn arith_header(&mut self, node: TsNode<'_>) -> Word {
        let mut start = node.start_byte();
        let mut end = node.end_byte();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            match self.text(child) {
                "((" if !child.is_named() => start = child.end_byte(),
                "))" if !child.is_named() => {
                    end = child.start_byte();
                    break;
                }
                _ => {}
            }
        }
        let inner = self
            .src
            .get(start..end.max(start))
            .unwrap_or("")
            .to_string();
        let mut word = Word {
            text: format!("(({inner}))"),
            parts: vec![Part::Dynamic],
            evals: vec![Eval::Arith(inner)],
            ..Word::default()
        };
        let g = grammar();
        for f in [g.initializer, g.condition, g.update] {
            for child in field_all(node, f) {
                let scanned = self.scan_word(child);
                word.subs.extend(scanned.subs);
                word.evals.extend(scanned.evals);
            }
        }
        word
    }

    /// `a && b || c`: the grammar nests these to the left, one level per
    /// operator; they are flattened here without recursion.
    pub(super) fn and_or_of(&mut self, node: TsNode<'_>) -> Node {
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

    pub(super) fn stmt_or_scan(&mut self, node: TsNode<'_>) -> Node {
        if is_statement(kind(node)) {
            self.stmt(node)
        } else {
            Node::Arith(vec![self.scan_word(node)])
        }
    }

    pub(super) fn compound_of(
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
    pub(super) fn collect_bodies(
        &mut self,
        node: TsNode<'_>,
        bodies: &mut Vec<List>,
        current: &mut List,
    ) {
        if !self.enter(true) {
            return;
        }
        for (child, field) in fields(node) {
            // The header of `for ((..))` is the caller's word
            // (`arith_header`), never statements of the body.
            let header = kind(node) == "c_style_for_statement"
                && matches!(field, Some("initializer" | "condition" | "update"));
            if header {
                continue;
            }
            if matches!(
                field,
                Some("value" | "initializer" | "condition" | "update")
            ) && !is_statement(kind(child))
            {
                // Already taken as words by the caller, or case patterns.
                if kind(node) == "case_item" {
                    let word = self.scan_word(child);
                    if !word.subs.is_empty() || !word.evals.is_empty() {
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
}

/// `2>&1`, as `|&` adds it to the stage before it.
fn stderr_to_stdout() -> Redirect {
    Redirect {
        op: ">&".into(),
        target: RedirTarget::Word(Word {
            parts: vec![Part::Lit {
                text: "1".into(),
                quoted: false,
            }],
            text: "1".into(),
            ..Word::default()
        }),
        fd: Some(2),
    }
}

/// `"$@"`, the words a `for` without `in` iterates over.
fn all_positional() -> Word {
    Word {
        text: "\"$@\"".into(),
        parts: vec![
            Part::Lit {
                text: String::new(),
                quoted: true,
            },
            Part::Param {
                name: "@".into(),
                quoted: true,
            },
        ],
        ..Word::default()
    }
}

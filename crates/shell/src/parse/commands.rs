//! Simple commands: their words, assignments and redirects, here-documents,
//! declarations and `[ .. ]` tests.

use super::*;

/// Several words the grammar split where bash sees one target: keep their
/// substitutions, and mark the target unknown.
pub(super) fn merge_subs(words: Vec<Word>) -> Word {
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

/// Whether `word` ends in an unquoted, unescaped `$`.
fn ends_in_bare_dollar(word: &Word) -> bool {
    matches!(word.parts.last(), Some(Part::Lit { text, quoted: false }) if text.ends_with('$'))
}

/// The key of an element `[KEY]=value` of a compound array assignment.
fn element_key(text: &str) -> Option<&str> {
    let rest = text.strip_prefix('[')?;
    let mut depth = 1usize;
    for (i, c) in rest.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return rest[i + 1..].starts_with(['=', '+']).then(|| &rest[..i]);
                }
            }
            _ => {}
        }
    }
    None
}

impl<'s> Conv<'s> {
    pub(super) fn redirected_of(&mut self, node: TsNode<'_>) -> Node {
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
        // Words after a redirect's target belong to a simple command
        // (`echo >&2 "failed"`); after a compound one bash refuses them.
        let simple_body = field(node, grammar().body).is_some_and(|b| kind(b) == "command");
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match kind(child) {
                "file_redirect" => {
                    let (redirect, words) = self.file_redirect_of(child, simple_body);
                    redirects.push(redirect);
                    extra_words.extend(words);
                }
                "herestring_redirect" => redirects.extend(self.redirect_of(child)),
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
                    fd: None,
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

    pub(super) fn heredoc_of(
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
        let mut evals = Vec::new();
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
                            kind => {
                                dynamic = true;
                                let text = self.text(part);
                                if kind == "command_substitution" {
                                    misread_arith(text, &mut evals);
                                }
                                node_evals(kind, text, &mut evals);
                                let scanned = self.scan_word(part);
                                subs.extend(scanned.subs);
                                evals.extend(scanned.evals);
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
        if !quoted_delim && body_text.contains(['$', '`']) {
            // The grammar misses expansions of some bodies (`$(..)` on a
            // tab-indented line of `<<-`, backquotes anywhere): what bash
            // expands is taken from the body read again.
            match self.reread_quoted(&body_text) {
                Some(word) => {
                    dynamic |= word.parts.iter().any(|p| !matches!(p, Part::Lit { .. }));
                    subs = word.subs;
                    evals = word.evals;
                }
                None => self
                    .errors
                    .push("a here-document's body cannot be read as bash expands it".to_string()),
            }
        }
        redirects.push(Redirect {
            op,
            target: RedirTarget::Heredoc {
                body: body_text,
                dynamic: dynamic && !quoted_delim,
                evals: if quoted_delim { Vec::new() } else { evals },
                subs,
            },
            fd: None,
        });
    }

    /// A file redirect, and, with `split`, the words after its target
    /// that the grammar reads as more of it: bash takes the first word as
    /// the target and the rest as the command's arguments (`echo >&2
    /// "failed"` prints `failed` on standard error), which a simple command
    /// gets. Words that touch one another, or any after a compound
    /// command's redirect, stay one target, which is then not a literal.
    fn file_redirect_of(&mut self, node: TsNode<'_>, split: bool) -> (Redirect, Vec<Word>) {
        let dests = field_all(node, grammar().destination);
        let descriptor = field(node, grammar().descriptor);
        let fd = descriptor.and_then(|d| self.text(d).parse().ok());
        let start = descriptor.map_or(node.start_byte(), |d| d.end_byte());
        let end = dests.first().map_or(node.end_byte(), |d| d.start_byte());
        let op: String = self
            .src
            .get(start..end)
            .unwrap_or("")
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let apart = dests.windows(2).all(|w| {
            self.src
                .get(w[0].end_byte()..w[1].start_byte())
                .is_some_and(|gap| !gap.is_empty() && gap.bytes().all(|b| b == b' ' || b == b'\t'))
        });
        let mut words: Vec<Word> = dests.iter().map(|d| self.word_of(*d)).collect();
        let (target, rest) = match words.len() {
            0 => (Word::default(), Vec::new()),
            1 => (words.pop().unwrap_or_default(), Vec::new()),
            _ if split && apart => {
                let rest = words.split_off(1);
                (words.pop().unwrap_or_default(), rest)
            }
            _ => (merge_subs(words), Vec::new()),
        };
        let redirect = Redirect {
            op,
            target: RedirTarget::Word(target),
            fd,
        };
        (redirect, rest)
    }

    pub(super) fn redirect_of(&mut self, node: TsNode<'_>) -> Option<Redirect> {
        match kind(node) {
            "file_redirect" => Some(self.file_redirect_of(node, false).0),
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
                    fd: None,
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
                    fd: None,
                })
            }
        }
    }

    pub(super) fn simple_of(&mut self, node: TsNode<'_>) -> Simple {
        let mut simple = Simple {
            text: self.text(node).to_string(),
            ..Simple::default()
        };
        let mut pos = node.start_byte();
        // Where the last word ended: the grammar splits `[\!a]`, `a]\]`
        // and `x']'\]` into words that touch, which bash reads as one.
        let mut word_end = None;
        for (child, field) in fields(node) {
            let gap = self.gap_words(pos, child.start_byte());
            if !gap.is_empty() {
                word_end = None;
            }
            simple.words.extend(gap);
            pos = pos.max(child.end_byte());
            // A backslash-newline right after a word joins the next one to
            // it (`cat .e\<newline>nv` reads `.env`).
            let continued = word_end.is_some_and(|end| {
                self.src
                    .get(end..child.start_byte())
                    .is_some_and(super::only_continuations)
            });
            if continued && let Some(end) = word_end {
                let gap = self.src.get(end..child.start_byte()).unwrap_or("");
                let mut at = end;
                for _ in 0..gap.len() / 2 {
                    self.joined.push(at);
                    at += 2;
                }
            }
            let touches = word_end == Some(child.start_byte()) || continued;
            match (field, kind(child)) {
                (_, "variable_assignment") => simple.assigns.push(self.assign_of(child)),
                (Some("name"), _) => {
                    let inner = if kind(child) == "command_name" {
                        child.named_child(0).unwrap_or(child)
                    } else {
                        child
                    };
                    // `g=1 > f`: assignments and redirects without a name,
                    // where the grammar wants one (see `tolerated_error`).
                    if inner.is_missing() {
                        continue;
                    }
                    simple.words.push(self.word_of(inner));
                    word_end = Some(child.end_byte());
                    continue;
                }
                // `$"..."` as a word of its own: the grammar gives the `$`
                // alone, and the string touches it; bash drops the `$`.
                (Some("argument"), "$")
                    if !child.is_named()
                        && self.text(child) == "$"
                        && child.next_sibling().is_some_and(|n| {
                            kind(n) == "string" && n.start_byte() == child.end_byte()
                        }) =>
                {
                    if !touches {
                        simple.words.push(Word {
                            text: String::new(),
                            ..Word::default()
                        });
                    }
                    if let Some(last) = simple.words.last_mut() {
                        last.text.push('$');
                    }
                    word_end = Some(child.end_byte());
                    continue;
                }
                (Some("argument"), _) => {
                    let next = self.word_of(child);
                    match simple.words.last_mut() {
                        Some(last) if touches => {
                            // The grammar can end a word at a bare `$` and
                            // start the next at what follows (`a*$-x`):
                            // bash reads an expansion there (`$-`).
                            if ends_in_bare_dollar(last) && starts_expansion(&next.text) {
                                last.parts.push(Part::Dynamic);
                            }
                            last.text.push_str(&next.text);
                            last.parts.extend(next.parts);
                            last.subs.extend(next.subs);
                            last.evals.extend(next.evals);
                        }
                        _ => simple.words.push(next),
                    }
                    word_end = Some(child.end_byte());
                    continue;
                }
                (_, "file_redirect") => {
                    let (redirect, words) = self.file_redirect_of(child, true);
                    simple.redirects.push(redirect);
                    simple.words.extend(words);
                }
                (Some("redirect"), _) | (_, "herestring_redirect") => {
                    simple.redirects.extend(self.redirect_of(child));
                }
                (_, "comment") => {}
                _ if child.is_named() => {
                    let word = self.scan_word(child);
                    if !word.subs.is_empty() || !word.evals.is_empty() {
                        simple.words.push(word);
                    }
                }
                _ => {}
            }
            word_end = None;
        }
        simple
    }

    /// Words in source text that no node covers.
    pub(super) fn gap_words(&mut self, start: usize, end: usize) -> Vec<Word> {
        let text = self.src.get(start..end).unwrap_or("");
        if text.bytes().all(|b| b.is_ascii_whitespace()) {
            return Vec::new();
        }
        // bash removes a backslash-newline before it splits words.
        let text = text.replace("\\\n", "");
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

    pub(super) fn assign_of(&mut self, node: TsNode<'_>) -> Assign {
        let name_node = field(node, grammar().name);
        let name = name_node
            .map(|n| {
                let t = self.text(n);
                t.split('[').next().unwrap_or(t).to_string()
            })
            .unwrap_or_default();
        let mut value = Vec::new();
        let array = name_node.is_some_and(|n| self.text(n).contains('['))
            || field(node, grammar().value).is_some_and(|v| kind(v) == "array");
        if let Some(n) = name_node {
            let mut scanned = self.scan_word(n);
            // `a[SUB]=v`: an indexed array's subscript is arithmetic.
            let t = self.text(n);
            if let Some(sub) = t
                .find('[')
                .and_then(|open| t[open + 1..].strip_suffix(']'))
                .filter(|sub| !matches!(*sub, "@" | "*"))
            {
                scanned.evals.insert(0, Eval::Arith(sub.to_string()));
            }
            if !scanned.subs.is_empty() || !scanned.evals.is_empty() {
                value.push(scanned);
            }
        }
        if let Some(v) = field(node, grammar().value) {
            if kind(v) == "array" {
                let mut cursor = v.walk();
                for element in v.named_children(&mut cursor) {
                    let mut word = self.word_of(element);
                    // `a=([SUB]=v)`: the same subscript.
                    if let Some(sub) = element_key(&word.text) {
                        word.evals.insert(0, Eval::Arith(sub.to_string()));
                    }
                    value.push(word);
                }
            } else {
                value.push(self.word_of(v));
            }
        } else {
            value.push(Word::default());
        }
        Assign { name, value, array }
    }

    /// `declare`, `export`, `local`, `readonly`, `typeset`, `unset`: a
    /// command whose arguments may be assignments.
    pub(super) fn declaration_of(&mut self, node: TsNode<'_>) -> Simple {
        let mut simple = Simple {
            text: self.text(node).to_string(),
            ..Simple::default()
        };
        let mut cursor = node.walk();
        let mut prev_end = None;
        for child in node.children(&mut cursor) {
            if !child.is_named() {
                if simple.words.is_empty() {
                    simple.words.push(lit_word(self.text(child)));
                }
                continue;
            }
            // The grammar splits `unset a[x]` into `a` and `[x]`: bash
            // reads one word where nothing separates them.
            let joined = prev_end == Some(child.start_byte()) && kind(child) != "comment";
            prev_end = Some(child.end_byte());
            if joined {
                if let Some(last) = simple.words.last_mut() {
                    let next = self.word_of(child);
                    last.text.push_str(&next.text);
                    last.parts.extend(next.parts);
                    last.subs.extend(next.subs);
                    last.evals.extend(next.evals);
                    continue;
                }
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
                        word.evals.extend(v.evals.iter().cloned());
                    }
                    simple.words.push(word);
                    // The word carries the value's substitutions; the
                    // assignment is kept for its name only.
                    simple.assigns.push(Assign {
                        name: assign.name,
                        value: Vec::new(),
                        array: assign.array,
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
    pub(super) fn test_of(&mut self, node: TsNode<'_>) -> Simple {
        let mut simple = Simple {
            text: self.text(node).to_string(),
            ..Simple::default()
        };
        self.test_words(node, &mut simple.words);
        simple
    }

    pub(super) fn test_words(&mut self, node: TsNode<'_>, words: &mut Vec<Word>) {
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
                    if !word.subs.is_empty() || !word.evals.is_empty() {
                        words.push(word);
                    }
                }
                _ if child.is_named() => words.push(self.word_of(child)),
                _ => words.push(lit_word(self.text(child))),
            }
        }
        self.leave(false);
    }
}

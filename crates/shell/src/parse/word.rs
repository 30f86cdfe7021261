//! Words: quoting, expansions and substitutions, and the escapes of each
//! kind of quote.

use super::*;

pub(super) fn lit_word(text: &str) -> Word {
    Word {
        parts: vec![Part::Lit {
            text: text.to_string(),
            quoted: true,
        }],
        text: text.to_string(),
        ..Word::default()
    }
}

/// The grammar reads some `$((..))` (in `${x:-$((y))}`, in here-document
/// bodies) as a command substitution of a subshell; bash evaluates it as
/// arithmetic first. Both are kept: the subshell's commands are walked, and
/// the arithmetic is checked.
pub(super) fn misread_arith(text: &str, out: &mut Vec<Eval>) {
    if text.starts_with("$((") && text.ends_with("))") {
        node_evals("arithmetic_expansion", text, out);
    }
}

/// The evaluations an expansion node makes itself (`$((..))`, `$[..]`,
/// `${..}`); those of expansions nested in it are its children's.
pub(super) fn node_evals(kind: &str, text: &str, out: &mut Vec<Eval>) {
    match kind {
        "arithmetic_expansion" => {
            let inner = text
                .strip_prefix("$((")
                .and_then(|t| t.strip_suffix("))"))
                .or_else(|| text.strip_prefix("$[").and_then(|t| t.strip_suffix(']')))
                .unwrap_or(text);
            out.push(Eval::Arith(inner.to_string()));
        }
        "expansion" => {
            let inner = text
                .strip_prefix("${")
                .map(|t| t.strip_suffix('}').unwrap_or(t))
                .unwrap_or(text);
            crate::arith::expansion_evals(inner, out);
        }
        _ => {}
    }
}

/// `text` without the `$` at its end that makes the double-quoted string
/// after it a locale string (`$"..."`); an escaped `\$` stays.
pub(super) fn strip_locale_dollar(text: &str) -> &str {
    match text.strip_suffix('$') {
        Some(rest) if rest.bytes().rev().take_while(|b| *b == b'\\').count() % 2 == 0 => rest,
        _ => text,
    }
}

/// Whether `$` followed by `text` is an expansion (a parameter, `${`,
/// `$(`, `$'..'`, `$".."`) rather than a literal `$`.
pub(super) fn starts_expansion(text: &str) -> bool {
    text.chars().next().is_some_and(|c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '_' | '-' | '?' | '#' | '!' | '$' | '@' | '*' | '{' | '(' | '[' | '\'' | '"'
            )
    })
}

/// Whether unquoted `text`, followed by `next`, holds a bare `$` that bash
/// reads as the start of an expansion (the grammar can leave `$$` or a `$`
/// before a string as anonymous text between the parts of a word).
pub(super) fn bare_dollar_expands(text: &str, next: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'$' => {
                let after = text.get(i + 1..).filter(|t| !t.is_empty()).unwrap_or(next);
                if starts_expansion(after) {
                    return true;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    false
}

pub(super) fn push_lit(word: &mut Word, text: &str, quoted: bool) {
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
pub(super) fn push_unquoted(word: &mut Word, text: &str) {
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

/// Whether unquoted text holds a blank that no backslash escapes.
pub(super) fn unescaped_blank(text: &str) -> bool {
    let mut escaped = false;
    for c in text.chars() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if matches!(c, ' ' | '\t' | '\n') {
            return true;
        }
    }
    false
}

/// Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and
/// a newline.
pub(super) fn dq_unescape(text: &str) -> String {
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
pub(super) fn backquote_unescape(text: &str) -> String {
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

pub(super) fn push_code(out: &mut String, value: u32) {
    if let Some(c) = char::from_u32(value) {
        out.push(c);
    } else {
        out.push(char::REPLACEMENT_CHARACTER);
    }
}

/// Whether a command substitution is `pwd` alone (`-L` or `-P` at most):
/// its output is the working directory's path.
fn prints_cwd(sub: &Sub) -> bool {
    let [item] = sub.list.items.as_slice() else {
        return false;
    };
    let Node::Simple(s) = &item.node else {
        return false;
    };
    sub.kind == SubKind::Command
        && sub.redirects.is_empty()
        && !item.background
        && s.assigns.is_empty()
        && s.redirects.is_empty()
        && s.words.first().is_some_and(|w| w.text == "pwd")
        && s.words
            .iter()
            .skip(1)
            .all(|w| matches!(w.text.as_str(), "-L" | "-P"))
}

pub(crate) fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

impl<'s> Conv<'s> {
    /// A word: its parts (literal text, parameters, dynamic pieces) and the
    /// substitutions inside it.
    pub(super) fn word_of(&mut self, node: TsNode<'_>) -> Word {
        let mut word = Word {
            text: self.text(node).to_string(),
            ..Word::default()
        };
        self.parts_into(node, &mut word);
        word
    }

    pub(super) fn parts_into(&mut self, node: TsNode<'_>, word: &mut Word) {
        if !self.enter(false) {
            word.parts.push(Part::Dynamic);
            return;
        }
        let text = self.text(node);
        match kind(node) {
            "word" if node.named_child_count() == 0 && unescaped_blank(text) => {
                // The grammar sometimes takes `] [a]` as one word; bash
                // splits it at the blank. Never guess which words it is.
                self.errors.push(format!(
                    "cannot parse: `{}` would be split by bash where the grammar does not split it",
                    text.chars().take(40).collect::<String>()
                ));
                word.parts.push(Part::Dynamic);
            }
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
                    node_evals("expansion", text, &mut word.evals);
                    self.scan_into(node, word);
                }
            }
            "command_substitution" => {
                let sub = self.command_sub(node);
                // `$(pwd)` is the working directory, as `$PWD` is (the
                // walker knows it, unless `pwd` is a function).
                word.parts.push(if prints_cwd(&sub) {
                    Part::Param {
                        name: "PWD".into(),
                        quoted: false,
                    }
                } else {
                    Part::Dynamic
                });
                misread_arith(text, &mut word.evals);
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
                word.parts.push(Part::Number);
                node_evals("arithmetic_expansion", text, &mut word.evals);
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
    pub(super) fn children_with_gaps(&mut self, node: TsNode<'_>, word: &mut Word, quoted: bool) {
        let mut pos = node.start_byte();
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            if child.start_byte() > pos {
                let mut gap = self.src.get(pos..child.start_byte()).unwrap_or("");
                // `$"..."` is translated by the locale: the `$` goes.
                if !quoted && kind(child) == "string" {
                    gap = strip_locale_dollar(gap);
                }
                let next = self.src.get(child.start_byte()..).unwrap_or_default();
                if !quoted && bare_dollar_expands(gap, next) {
                    word.parts.push(Part::Dynamic);
                } else if quoted {
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
            if !quoted && bare_dollar_expands(gap, "") {
                word.parts.push(Part::Dynamic);
            } else if quoted {
                push_lit(word, gap, true);
            } else {
                push_unquoted(word, gap);
            }
        }
    }

    /// `"..."`: literal text with the double-quote escapes, and expansions.
    pub(super) fn string_into(&mut self, node: TsNode<'_>, word: &mut Word) {
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

    pub(super) fn command_sub(&mut self, node: TsNode<'_>) -> Sub {
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
    pub(super) fn scan_word(&mut self, node: TsNode<'_>) -> Word {
        let mut word = Word {
            text: self.text(node).to_string(),
            parts: vec![Part::Dynamic],
            ..Word::default()
        };
        // The node may be an expansion itself (a `case` pattern).
        node_evals(kind(node), &word.text, &mut word.evals);
        if kind(node) == "command_substitution" {
            misread_arith(&word.text, &mut word.evals);
        }
        self.scan_into(node, &mut word);
        word
    }

    /// The expansions of `body` (an unquoted here-document's, or text the
    /// grammar left unparsed inside `${..}`) as those of a double-quoted
    /// string holding the same text (a backslash escapes only `$`, a
    /// backquote, a backslash and a newline; a double quote is itself).
    /// For a here-document that is what bash does; for an operand of
    /// `${x#..}` it finds every substitution bash runs, and may find more
    /// (one between single quotes). `None` when it cannot be read so.
    pub(super) fn reread_quoted(&mut self, body: &str) -> Option<Word> {
        let mut src = String::with_capacity(body.len() + 8);
        src.push_str(": \"");
        let mut chars = body.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.peek().copied() {
                    Some(next @ ('$' | '`' | '\\' | '\n')) => {
                        chars.next();
                        src.push('\\');
                        src.push(next);
                    }
                    _ => src.push_str("\\\\"),
                },
                '"' => src.push_str("\\\""),
                c => src.push(c),
            }
        }
        src.push('"');
        if !self.enter(true) {
            return None;
        }
        let parsed = parse(&src, self.depth, self.max_depth);
        self.leave(true);
        if !parsed.errors.is_empty() {
            self.errors.extend(parsed.errors);
            return None;
        }
        match parsed.list.items.as_slice() {
            [
                Item {
                    node: Node::Simple(simple),
                    background: false,
                },
            ] if simple.words.len() == 2 && simple.redirects.is_empty() => {
                simple.words.get(1).cloned()
            }
            _ => None,
        }
    }

    pub(super) fn scan_into(&mut self, node: TsNode<'_>, word: &mut Word) {
        if !self.enter(false) {
            return;
        }
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            match kind(child) {
                "command_substitution" => {
                    misread_arith(self.text(child), &mut word.evals);
                    let sub = self.command_sub(child);
                    word.subs.push(sub);
                }
                "process_substitution" => {
                    let mut scratch = Word::default();
                    self.parts_into(child, &mut scratch);
                    word.subs.extend(scratch.subs);
                    word.evals.extend(scratch.evals);
                }
                kind @ ("arithmetic_expansion" | "expansion") => {
                    node_evals(kind, self.text(child), &mut word.evals);
                    self.scan_into(child, word);
                }
                // Quoted text: a backquote there is itself.
                "raw_string" | "ansi_c_string" => {}
                // The grammar leaves some operands of `${..}` a plain word
                // or a pattern (`${x:-`cmd`}`, `${x#$(cmd)}`): what they
                // expand runs all the same.
                _ if child.named_child_count() == 0 && self.text(child).contains(['$', '`']) => {
                    let text = self.text(child);
                    match self.reread_quoted(text) {
                        Some(w) => {
                            word.subs.extend(w.subs);
                            word.evals.extend(w.evals);
                        }
                        None => self.errors.push(format!(
                            "`{text}` inside an expansion cannot be read as bash expands it"
                        )),
                    }
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

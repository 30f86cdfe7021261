//! How a stored call is shown to a person: every character that a terminal,
//! a browser or a notification would act on or hide instead of showing is
//! written as a visible escape.
//!
//! A call's arguments, tool name, session id and the reasons that quote
//! them come from the agent (and through it from whatever it read). Shown
//! raw, an escape sequence (`ESC [2K`, a carriage return, backspaces) can
//! erase or overprint what a person reads in `toolgate approvals list`, a
//! bidi override (U+202E) or isolate (U+2066..U+2069) reorders it on the
//! page, and zero-width characters hide text inside it: the call the
//! person approves would look like another. Every place that shows a call
//! to a person goes through this one module, so one list decides what is
//! escaped. Only the display changes: the stored snapshot, its digest and
//! the call that runs stay exactly as they were.
//!
//! It lives in the store because the store is the one crate every host
//! links (the gate and its hooks, `toolgate serve`, the CLI) and what it
//! holds is what they show.
//!
//! The escapes read back unambiguously: `\n`, `\r`, `\t`, `\xHH` (the other
//! ASCII controls and DEL) and `\u{HEX}` (everything else escaped); a
//! backslash that would otherwise start one of them is written `\\`, and
//! any other backslash stands for itself (so shell commands and Windows
//! paths stay readable).

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` is shown escaped: the C0 and C1 controls and DEL, the bidi
/// marks, embeddings, overrides and isolates, zero-width and other
/// invisible format characters (tags, variation selectors, fillers), line
/// and paragraph separators, and every space other than the ASCII space
/// (which a person cannot tell from it).
pub fn is_hidden(c: char) -> bool {
    matches!(
        c,
        '\0'..='\x1f'
            | '\x7f'..='\u{a0}'
            | '\u{ad}'
            | '\u{34f}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{890}'..='\u{891}'
            | '\u{8e2}'
            | '\u{115f}'..='\u{1160}'
            | '\u{1680}'
            | '\u{17b4}'..='\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{2000}'..='\u{200f}'
            | '\u{2028}'..='\u{202f}'
            | '\u{205f}'..='\u{206f}'
            | '\u{2800}'
            | '\u{3000}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff9}'..='\u{fffb}'
            | '\u{110bd}'
            | '\u{110cd}'
            | '\u{13430}'..='\u{1343f}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e0fff}'
    )
}

/// `s` for a one-line listing: every hidden character escaped, newlines
/// included (`\n`), so one call is one line and a newline that separates
/// two shell commands is visible.
pub fn line(s: &str) -> Cow<'_, str> {
    escape(s, false)
}

/// `s` for a multi-line view (the page's command and diff, a terminal
/// approver's preview): as [`line`], but newlines stay newlines.
pub fn block(s: &str) -> Cow<'_, str> {
    escape(s, true)
}

/// JSON text of `v` in which every hidden character inside a string is a
/// `\uXXXX` escape: the same value for any JSON reader, and no raw
/// control or bidi character for a terminal that prints it or a page that
/// shows it as text.
pub fn json(v: &serde_json::Value) -> String {
    json_text(v.to_string())
}

/// [`json`], indented.
pub fn json_pretty(v: &serde_json::Value) -> String {
    json_text(serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string()))
}

/// Escapes the hidden characters serde_json writes raw (it escapes only
/// `"`, `\` and C0 inside strings). Outside strings its output is ASCII
/// punctuation, digits, letters and (pretty) spaces and newlines, which
/// are left alone.
fn json_text(text: String) -> String {
    if !text.chars().any(|c| is_hidden(c) && c != '\n') {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_hidden(c) && c != '\n' {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                let _ = write!(out, "\\u{u:04x}");
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn escape(s: &str, keep_newlines: bool) -> Cow<'_, str> {
    let escaped = |c: char| is_hidden(c) && !(keep_newlines && c == '\n');
    // A backslash is doubled only where it would read as an escape.
    let starts_escape = |next: Option<char>| {
        next.is_some_and(|n| matches!(n, '\\' | 'n' | 'r' | 't' | 'x' | 'u') || escaped(n))
    };
    let mut chars = s.chars().peekable();
    let mut clean = true;
    while let Some(c) = chars.next() {
        if escaped(c) || (c == '\\' && starts_escape(chars.peek().copied())) {
            clean = false;
            break;
        }
    }
    if clean {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if starts_escape(chars.peek().copied()) => out.push_str("\\\\"),
            c if !escaped(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads an escaped text back, to show the escapes are unambiguous.
    fn unescape(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.peek().copied() {
                Some('\\') => {
                    chars.next();
                    out.push('\\');
                }
                Some('n') => {
                    chars.next();
                    out.push('\n');
                }
                Some('r') => {
                    chars.next();
                    out.push('\r');
                }
                Some('t') => {
                    chars.next();
                    out.push('\t');
                }
                Some('x') => {
                    chars.next();
                    let hex: String = chars.by_ref().take(2).collect();
                    out.push(char::from(u8::from_str_radix(&hex, 16).expect("hex")));
                }
                Some('u') => {
                    chars.next();
                    assert_eq!(chars.next(), Some('{'));
                    let hex: String = chars.by_ref().take_while(|&c| c != '}').collect();
                    let n = u32::from_str_radix(&hex, 16).expect("hex");
                    out.push(char::from_u32(n).expect("char"));
                }
                _ => out.push('\\'),
            }
        }
        out
    }

    #[test]
    fn controls_bidi_and_invisible_characters_are_escaped() {
        let s = "ls\x1b[2K\rrm -rf ~\x08\x7f\u{85}\u{202e}txt.exe\u{2066}\u{200b}\u{feff}\u{e0041}";
        let shown = line(s);
        assert_eq!(
            shown,
            "ls\\x1b[2K\\rrm -rf ~\\x08\\x7f\\u{85}\\u{202e}txt.exe\\u{2066}\\u{200b}\\u{feff}\\u{e0041}"
        );
        assert!(shown.chars().all(|c| !is_hidden(c)));
        assert_eq!(unescape(&shown), s);
    }

    #[test]
    fn newlines_are_escaped_on_one_line_and_kept_in_a_block() {
        assert_eq!(line("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(block("a\nb\tc\r\n"), "a\nb\\tc\\r\n");
    }

    #[test]
    fn plain_text_is_borrowed_and_backslashes_stay_readable() {
        for s in [
            "git status && ls -la",
            "C:\\Program Files\\a",
            "find . -exec rm {} \\;",
            "sed 's/a/b/'",
            "日本語 ok",
        ] {
            assert!(matches!(line(s), Cow::Borrowed(_)), "{s}");
        }
    }

    #[test]
    fn a_backslash_that_would_read_as_an_escape_is_doubled() {
        for s in [
            "printf 'a\\nb'",
            "\\x1b",
            "\\\\",
            "\\\x1b",
            "a\\",
            "\\u{202e}",
            "\\\n",
            "\\",
        ] {
            let shown = line(s);
            assert_eq!(unescape(&shown), s, "{s:?} shown as {shown:?}");
            let kept = block(s);
            assert_eq!(unescape(&kept), s, "{s:?} shown as {kept:?}");
        }
        assert_eq!(line("printf 'a\\nb'"), "printf 'a\\\\nb'");
    }

    #[test]
    fn json_text_is_the_same_value_without_hidden_characters() {
        let v = serde_json::json!({"command": "echo \x1b[31m\u{202e}\u{7f}\u{1f600}\u{e0041}", "k\u{2067}": [1, "\n"]});
        for text in [json(&v), json_pretty(&v)] {
            assert!(text.chars().all(|c| c == '\n' || !is_hidden(c)), "{text}");
            assert!(
                text.contains("\\u202e") && text.contains("\\udb40\\udc41"),
                "{text}"
            );
            let back: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            assert_eq!(back, v);
        }
        assert!(!json(&v).contains('\n'));
    }
}

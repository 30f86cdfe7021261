//! Programs given to `sed`, `awk`, `jq` and `yq`: what they write, read and
//! run, as far as their text tells.

use super::*;

/// Programs given to `sed` and `awk` can write files and run commands.
pub(super) fn program_checks(name: &str, program: Option<&Arg>, d: &mut Derived) {
    let Some(program) = program else { return };
    let is_sed = matches!(name, "sed" | "gsed");
    let is_awk = matches!(name, "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk");
    if !is_sed && !is_awk {
        return;
    }
    if !program.literal {
        d.unknowns.push(format!(
            "`{name}` program is not literal: `{}`",
            program.text
        ));
        return;
    }
    if is_sed {
        sed_program(&program.text, d);
    } else if let Some(why) = awk_program(&program.text) {
        d.unknowns.push(format!("`{name}` program {why}"));
    }
}

/// Walks a sed script command by command: `w`/`W` and the `w` flag write,
/// `r`/`R` read, `e` and the `e` flag run commands.
pub(super) fn sed_program(script: &str, d: &mut Derived) {
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    let filename = |i: &mut usize| -> String {
        while *i < chars.len() && chars[*i] == ' ' {
            *i += 1;
        }
        let start = *i;
        while *i < chars.len() && chars[*i] != '\n' {
            *i += 1;
        }
        chars[start..*i]
            .iter()
            .collect::<String>()
            .trim_end()
            .to_string()
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\n' | ';' | '{' | '}' | '!' | ',' | '0'..='9' | '$' | '~' | '+' => i += 1,
            '/' | '\\' => {
                // An address: skip the regex to its closing delimiter.
                let delim = if c == '\\' {
                    i += 1;
                    chars.get(i).copied().unwrap_or('/')
                } else {
                    '/'
                };
                i += 1;
                while i < chars.len() && chars[i] != delim {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                while i < chars.len() && matches!(chars[i], 'I' | 'M') {
                    i += 1;
                }
            }
            's' | 'y' => {
                let Some(&delim) = chars.get(i + 1) else {
                    return;
                };
                i += 2;
                let mut parts = 0;
                while i < chars.len() && parts < 2 {
                    if chars[i] == '\\' {
                        i += 1;
                    } else if chars[i] == delim {
                        parts += 1;
                    }
                    i += 1;
                }
                if c == 's' {
                    while i < chars.len() && !matches!(chars[i], ';' | '\n' | '}') {
                        match chars[i] {
                            'e' => {
                                d.unknowns
                                    .push("sed `s///e` runs the pattern space as a command".into());
                                i += 1;
                            }
                            'w' => {
                                i += 1;
                                let f = filename(&mut i);
                                sed_file(d, Access::Write, f);
                            }
                            _ => i += 1,
                        }
                    }
                }
            }
            'w' | 'W' | 'r' | 'R' => {
                i += 1;
                let f = filename(&mut i);
                let access = if matches!(c, 'w' | 'W') {
                    Access::Write
                } else {
                    Access::Read
                };
                sed_file(d, access, f);
            }
            'e' => {
                d.unknowns.push("sed `e` runs a command".into());
                return;
            }
            'a' | 'i' | 'c' | ':' | 'b' | 't' | 'T' | '#' => {
                // Text or a label to the end of the line.
                while i < chars.len()
                    && chars[i] != '\n'
                    && !(matches!(c, 'b' | 't' | 'T') && chars[i] == ';')
                {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
}

pub(super) fn sed_file(d: &mut Derived, access: Access, name: String) {
    if name.is_empty() {
        return;
    }
    if matches!(name.as_str(), "/dev/stdout" | "/dev/stderr" | "/dev/stdin") {
        return;
    }
    d.found.push(Found {
        access,
        arg: Arg::lit(name),
        recursive: false,
        by_option: false,
    });
}

/// Why an awk program may do more than read, if it may.
pub(super) fn awk_program(program: &str) -> Option<&'static str> {
    let text = strip_awk_strings(program);
    if text.contains("system") {
        return Some("calls `system`");
    }
    if text.contains("@load") || text.contains("@include") {
        return Some("loads code that is not analysed (`@load`, `@include`)");
    }
    // `getline < file` and `getline var < file` read a file the policy
    // cannot see.
    let mut rest = text.as_str();
    while let Some(at) = rest.find("getline") {
        let after = rest[at + 7..].trim_start();
        let after = after
            .strip_prefix(|c: char| c.is_ascii_alphabetic() || c == '_')
            .map(|r| r.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after)
            .trim_start();
        if after.starts_with('<') {
            return Some("reads a file (`getline < file`)");
        }
        rest = &rest[at + 7..];
    }
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'|' || bytes.get(i + 1) == Some(&b'|') || (i > 0 && bytes[i - 1] == b'|') {
            continue;
        }
        let after = text[i + 1..].trim_start();
        if after.starts_with('"') || after.starts_with("getline") || after.starts_with('&') {
            return Some("pipes to or from a command");
        }
    }
    // `print .. > file`: a `>` after print/printf in the same statement.
    let mut rest = text.as_str();
    while let Some(at) = rest.find("print") {
        let after = &rest[at + 5..];
        let end = after.find([';', '}', '\n']).unwrap_or(after.len());
        if after[..end].contains('>') {
            return Some("may write a file (`print > file`)");
        }
        rest = &after[end.min(after.len())..];
    }
    None
}

/// Replaces the contents of awk string literals and regexes with blanks, so
/// that `"a|b"` or `/x>y/` are not taken for pipes or redirects.
pub(super) fn strip_awk_strings(program: &str) -> String {
    let mut out = String::with_capacity(program.len());
    let mut in_str = false;
    let mut escape = false;
    for c in program.chars() {
        if in_str {
            if escape {
                escape = false;
            } else if c == '\\' {
                escape = true;
            } else if c == '"' {
                in_str = false;
                out.push('"');
            }
            continue;
        }
        if c == '"' {
            in_str = true;
        }
        out.push(c);
    }
    out
}

pub(super) fn yq(spec: &Spec, args: &[Arg], d: &mut Derived) {
    let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
    file_opts(spec, &o, d);
    let mut operands: &[Arg] = &o.operands;
    if operands
        .first()
        .is_some_and(|a| matches!(a.text.as_str(), "e" | "eval" | "ea" | "eval-all"))
    {
        operands = &operands[1..];
    }
    if o.has(&["-s", "--split-exp"]) {
        d.unknowns
            .push("`yq --split-exp` writes files named by an expression".into());
    }
    if !o.has(&["--from-file"]) {
        if let Some(expr) = operands.first() {
            if words_of(&expr.text).any(|w| w.starts_with("load")) {
                d.unknowns.push(format!(
                    "`yq` expression reads files it names: `{}`",
                    expr.text
                ));
            }
        }
        operands = operands.get(1..).unwrap_or_default();
    }
    let access = if o.has(&["-i", "--inplace"]) {
        Access::Write
    } else {
        Access::Read
    };
    each(d, access, operands, false);
}

//! Shells given a script (`bash -c`, `eval`, a here-document, a pipe):
//! the script is walked as part of this one.

use super::*;

/// An interpreter with no program argument reads its program from stdin.
pub(super) fn reads_program_from_stdin(argv: &[Arg]) -> bool {
    let name = argv
        .first()
        .map_or("", |a| a.text.rsplit('/').next().unwrap_or(&a.text));
    if crate::tables::SHELLS.contains(&name) {
        return shell_reads_stdin(argv);
    }
    let mut args = argv.iter().skip(1);
    while let Some(a) = args.next() {
        let t = a.text.as_str();
        if t == "-" {
            return true;
        }
        if !a.literal || !t.starts_with('-') {
            return false;
        }
        if matches!(
            t,
            "-c" | "-e" | "-E" | "-m" | "-p" | "-r" | "--eval" | "--print" | "-Command" | "-File"
        ) {
            return false;
        }
        if matches!(t, "-W" | "-X" | "-I" | "-M" | "-o" | "-O") {
            args.next();
        }
    }
    true
}

/// A shell reads its script from stdin unless it is given `-c` or a
/// script file; its option clusters are read a letter at a time, `o` and
/// `O` taking the next word (`bash -euo pipefail`, `sh -e`).
fn shell_reads_stdin(argv: &[Arg]) -> bool {
    let mut args = argv.iter().skip(1);
    while let Some(a) = args.next() {
        let t = a.text.as_str();
        if t == "-" || (a.literal && t == "--") {
            return args.next().is_none_or(|a| a.literal && a.text == "-");
        }
        if !a.literal || !(t.starts_with('-') || t.starts_with('+')) {
            return false;
        }
        if t.starts_with("--") {
            if matches!(t, "--rcfile" | "--init-file") {
                args.next();
            }
            continue;
        }
        for c in t[1..].chars() {
            match c {
                'c' if t.starts_with('-') => return false,
                's' if t.starts_with('-') => return true,
                'o' | 'O' => {
                    args.next();
                }
                _ => {}
            }
        }
    }
    true
}

/// Whether a word is exactly the literal `want` once quotes are removed
/// (`echo`, `e"ch"o`), without building its text.
pub(super) fn literal_is(word: &Word, want: &str) -> bool {
    let mut rest = want;
    for p in &word.parts {
        match p {
            Part::Lit { text, .. } => match rest.strip_prefix(text.as_str()) {
                Some(r) => rest = r,
                None => return false,
            },
            _ => return false,
        }
    }
    rest.is_empty()
}

/// What a pipeline stage writes to its standard output, when that is a
/// literal (`echo 'ls'`, `cat <<'EOF'`), for a shell that reads it.
pub(super) fn literal_output(node: &Node) -> Option<String> {
    let Node::Simple(s) = node else { return None };
    // Most stages are none of these: tell before building any text.
    let first = s.words.first()?;
    if !["echo", "printf", "cat"]
        .iter()
        .any(|name| literal_is(first, name))
    {
        return None;
    }
    let words: Vec<String> = s
        .words
        .iter()
        .map(|w| {
            let mut out = String::new();
            for p in &w.parts {
                match p {
                    Part::Lit { text, .. } => out.push_str(text),
                    _ => return None,
                }
            }
            Some(out)
        })
        .collect::<Option<Vec<_>>>()?;
    match words.first().map(String::as_str) {
        Some("echo") => {
            let rest: Vec<&String> = words.iter().skip(1).collect();
            if rest.first().is_some_and(|w| w.starts_with('-')) {
                return None;
            }
            Some(
                rest.iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
                    + "\n",
            )
        }
        Some("printf") if words.len() == 2 && !words[1].contains(['%', '\\']) => {
            Some(words[1].clone())
        }
        Some("cat") if words.len() == 1 => s.redirects.iter().rev().find_map(|r| match &r.target {
            RedirTarget::Heredoc {
                body,
                dynamic: false,
                ..
            } => Some(body.clone()),
            RedirTarget::HereString(w) => {
                let mut out = String::new();
                for p in &w.parts {
                    match p {
                        Part::Lit { text, .. } => out.push_str(text),
                        _ => return None,
                    }
                }
                Some(out + "\n")
            }
            _ => None,
        }),
        _ => None,
    }
}

impl<'o> Walker<'o> {
    /// A shell given a script. Returns true when the script was followed
    /// (no command is emitted for the shell itself).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn shell(
        &mut self,
        name: &str,
        script: Script,
        wrappers: Vec<Vec<String>>,
        s: &Simple,
        scope: &mut Scope,
        sub_fetched: bool,
        argv: &[Arg],
    ) -> bool {
        match script {
            Script::Text { text, literal } => {
                if !literal {
                    let next = Some(self.out.commands.len());
                    self.unknown(
                        format!("`{name}` runs a script that is not literal: `{text}`"),
                        next,
                    );
                    return false;
                }
                if sub_fetched {
                    self.hazard(
                        "download-exec",
                        format!("`{name}` runs a script fetched from the network"),
                        None,
                    );
                }
                if name == "eval" && wrappers.len() == 1 {
                    self.evaluated(&text, wrappers, scope);
                } else {
                    self.nested(&text, wrappers, scope);
                }
                self.redirects(&s.redirects, scope, None);
                true
            }
            Script::File(file) => {
                self.script_file = Some(file);
                false
            }
            Script::Stdin => {
                let from_redirect =
                    s.redirects
                        .iter()
                        .rev()
                        .find_map(|r| match (&r.op[..], &r.target) {
                            (_, RedirTarget::Heredoc { body, dynamic, .. }) => {
                                Some((Some(body.clone()), *dynamic))
                            }
                            (_, RedirTarget::HereString(w)) => {
                                let literal =
                                    !w.parts.iter().any(|p| !matches!(p, Part::Lit { .. }));
                                let text: String = w
                                    .parts
                                    .iter()
                                    .filter_map(|p| match p {
                                        Part::Lit { text, .. } => Some(text.as_str()),
                                        _ => None,
                                    })
                                    .collect();
                                Some((Some(text), !literal))
                            }
                            ("<", _) => Some((None, false)),
                            _ => None,
                        });
                match from_redirect {
                    Some((Some(text), dynamic)) => {
                        if dynamic {
                            self.unknown(
                                format!("`{name}` runs a here-document with expansions"),
                                None,
                            );
                        }
                        self.nested(&text, wrappers, scope);
                        self.redirects(&s.redirects, scope, None);
                        true
                    }
                    Some((None, _)) => false,
                    None => match scope.stdin.clone() {
                        Stdin::Pipe { text, fetched, .. } => {
                            if fetched && text.is_some() {
                                self.hazard(
                                    "download-exec",
                                    format!("`{name}` runs a script piped from a network fetch"),
                                    None,
                                );
                            }
                            let next = Some(self.out.commands.len());
                            match text {
                                Some(text) => {
                                    self.nested(&text, wrappers, scope);
                                    true
                                }
                                None => {
                                    self.unknown(
                                        format!("`{}` reads its script from a pipe", display(argv)),
                                        next,
                                    );
                                    false
                                }
                            }
                        }
                        Stdin::Inherit => {
                            let next = Some(self.out.commands.len());
                            self.unknown(
                                format!("`{}` reads commands from standard input", display(argv)),
                                next,
                            );
                            false
                        }
                    },
                }
            }
        }
    }

    /// `eval TEXT`: the script runs in this shell, so a `cd` in it moves
    /// the commands after it (`eval cd secrets; cat k.pem`).
    fn evaluated(&mut self, text: &str, wrappers: Vec<Vec<String>>, scope: &mut Scope) {
        let Some(mut inner) = self.deeper(scope) else {
            return;
        };
        inner.wrappers = wrappers;
        inner.stdin = Stdin::Inherit;
        forget_all(&mut inner.vars);
        self.script(text, &mut inner, None);
        if inner.cwd != scope.cwd {
            scope.cwd = inner.cwd;
            scope.oldpwd = inner.oldpwd;
            scope.dir_stack = inner.dir_stack;
        }
    }

    pub(super) fn nested(&mut self, text: &str, wrappers: Vec<Vec<String>>, scope: &mut Scope) {
        let Some(mut inner) = self.deeper(scope) else {
            return;
        };
        inner.wrappers = wrappers;
        inner.stdin = Stdin::Inherit;
        // A new shell sees only exported variables, which are not followed.
        forget_all(&mut inner.vars);
        self.script(text, &mut inner, None);
    }
}

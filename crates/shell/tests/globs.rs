//! Glob bracket expressions as bash expands them: each pattern is expanded
//! by bash (`printf '%s\n' PATTERN` in a scratch directory holding `.env`
//! and names with `]`, `-`, `\`, `[`, `!`, `^`, a space and a letter outside
//! ASCII) and analysed by toolgate; toolgate's argv must be bash's, or the
//! glob must be an unknown. A narrower match would hide a file (`.env`)
//! from the policy.

use proptest::prelude::*;
use toolgate_shell::{Options, analyze};

use crate::real::{Scratch, have};

const NAMES: &[&str] = &[
    ".env", ".hidden", "a", "b", "z", "A", "Z", "5", "_", "[", "]", "a]", "-", "x-y", "\\", "!",
    "^", " ", ":", "=", ".", "é", "ab", "a.b", "env", "[ab]", "*", "?",
];

/// Patterns written for the manual's cases, as shell words.
const PATTERNS: &[&str] = &[
    "[[:alpha:]]",
    "[[:digit:]]",
    "[[:alnum:]]",
    "[[:upper:]]",
    "[[:lower:]]",
    "[[:space:]]",
    "[[:blank:]]",
    "[[:punct:]]",
    "[[:print:]]",
    "[[:graph:]]",
    "[[:cntrl:]]",
    "[[:xdigit:]]",
    "[[:word:]]",
    "[![:alpha:]]",
    "[^[:alnum:]]",
    "[[:foo:]]",
    "[[=a=]]",
    "[[=a=]b]",
    "[[.a.]]",
    "[[.-.]]",
    "[[.hyphen.]]",
    "[]]",
    "[]a]",
    "[!]]",
    "[!]",
    "[]-a]",
    "[a-]",
    "[-a]",
    "[a\\-z]",
    "[\\]]",
    "[\\\\]",
    "[\\!a]",
    "'['ab]",
    "[a']']",
    "[[]",
    "[[]]",
    "[[:alpha:]",
    "[[:alpha:]]]",
    "*[[:digit:]",
    "[z-a]",
    "[a-z]",
    "[A-Z]",
    "[!a-z]",
    "[^a]",
    "[.]env",
    "[[:punct:]]env",
    ".[[:alpha:]]nv",
    ".[e]*",
    "\\.e*",
    "'.'e*",
    "?env",
    "*env",
    ".*",
    ".??*",
    "?",
    "[?]",
    "[*]",
    "\\[ab]",
    "[[]ab]",
    "x[-]y",
    "x[!a-z]y",
    "[^]",
    "[a-b-z]",
    "[[:alpha:]-z]",
    "[%--]",
];

fn opts(s: &Scratch) -> Options {
    Options {
        cwd: Some(s.path().to_path_buf()),
        home: Some(s.path().to_path_buf()),
        ..Options::default()
    }
}

fn scratch() -> Scratch {
    let s = Scratch::new();
    for n in NAMES {
        if *n != "." {
            std::fs::write(s.join(n), "").expect("scratch file");
        }
    }
    s
}

/// Bash's expansion of each pattern, in the locale given (empty: none).
fn bash_expands(s: &Scratch, locale: &str, patterns: &[String]) -> Vec<Vec<String>> {
    let mut script = String::new();
    if !locale.is_empty() {
        script.push_str(&format!("export LC_ALL={locale}\n"));
    }
    for p in patterns {
        script.push_str(&format!("printf '%s\\n' {p}; echo @@END@@\n"));
    }
    let out = s.run("", &script);
    let mut all = Vec::new();
    let mut cur = Vec::new();
    for line in out.lines() {
        if line == "@@END@@" {
            all.push(std::mem::take(&mut cur));
        } else {
            cur.push(line.to_string());
        }
    }
    all
}

/// Toolgate's argv after `printf '%s\n'`, or `None` when it reports the
/// command unknown or a word of it not literal.
fn toolgate_expands(s: &Scratch, pattern: &str) -> Option<Vec<String>> {
    let a = analyze(&format!("printf '%s\\n' {pattern}"), &opts(s));
    if !a.unknowns.is_empty() {
        return None;
    }
    let c = a.commands.first()?;
    // A word toolgate does not take as literal is not claimed known.
    if c.non_literal.iter().any(|&i| i >= 2) {
        return None;
    }
    Some(c.argv.get(2..).unwrap_or_default().to_vec())
}

fn compare(s: &Scratch, patterns: &[String]) -> Vec<String> {
    let mut failures = Vec::new();
    for locale in ["", "C.UTF-8"] {
        let got = bash_expands(s, locale, patterns);
        assert_eq!(got.len(), patterns.len(), "bash ran every pattern");
        for (p, bash) in patterns.iter().zip(&got) {
            if let Some(ours) = toolgate_expands(s, p) {
                if &ours != bash {
                    failures.push(format!(
                        "`{p}` (LC_ALL={locale}): bash {bash:?}, toolgate {ours:?}"
                    ));
                }
            }
        }
    }
    failures
}

#[test]
fn bracket_expressions_match_as_bash_does() {
    if !have("bash") {
        return;
    }
    let s = scratch();
    let patterns: Vec<String> = PATTERNS.iter().map(|p| p.to_string()).collect();
    let failures = compare(&s, &patterns);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The patterns that reach `.env` in bash are found by toolgate or unknown.
    for p in [".[[:alpha:]]nv", ".[e]*", "\\.e*", "'.'e*", ".??*"] {
        let a = analyze(&format!("cat {p}"), &opts(&s));
        let reads_env = a.effects.iter().any(|e| e.target == ".env");
        assert!(reads_env || !a.unknowns.is_empty(), "{p}: {a:?}");
    }
}

/// Glob options changed by the script (`shopt -s dotglob nullglob`,
/// `GLOBIGNORE`) change what every later glob matches: unknown.
#[test]
fn glob_options_set_by_the_script_are_unknown() {
    let s = scratch();
    for cmd in [
        "shopt -s dotglob nullglob; cat *",
        "shopt -s dotglob; cat [[:punct:]]env",
        "shopt -s nocaseglob; cat .ENV",
        "shopt -s extglob; cat !(a)",
        "shopt -u globskipdots; cat .*",
        "GLOBIGNORE=x; cat *",
    ] {
        let a = analyze(cmd, &opts(&s));
        let reads_env = a.effects.iter().any(|e| e.target == ".env");
        assert!(reads_env || !a.unknowns.is_empty(), "{cmd}: {a:?}");
    }
}

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(vec![
            "[", "]", "!", "^", "-", "*", "?", "a", "b", "z", "A", ".", "e", "n", "v", ":", "=",
            "[:alpha:]", "[:punct:]", "[=a=]", "[.-.]", "\\]", "\\\\", "\\-", "\\[", "_", "5",
        ])
        .prop_map(str::to_string),
        1 => prop::sample::select(vec!["']'", "'-'", "'!'", "'*'", "'['", "'.'"])
            .prop_map(str::to_string),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// Generated patterns over bracket syntax: toolgate's expansion is
    /// bash's, or unknown.
    #[test]
    fn generated_patterns_match_as_bash_does(
        batch in prop::collection::vec(prop::collection::vec(piece(), 1..7), 40)
    ) {
        if !have("bash") {
            return Ok(());
        }
        let s = scratch();
        let patterns: Vec<String> = batch.iter().map(|p| p.concat()).collect();
        let failures = compare(&s, &patterns);
        prop_assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}

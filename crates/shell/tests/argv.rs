//! The argv toolgate analyses is the argv bash runs, word for word: words
//! built from quotes, escapes, brackets, globs that match nothing and
//! `$`-forms that stay literal are given to `printf '%s\0'` by the real
//! `bash -c` in an empty directory, and each printed argument must equal
//! toolgate's (or toolgate must call the word not literal, or unknown).

use std::process::{Command, Stdio};

use proptest::prelude::*;
use toolgate_shell::{Options, analyze};

use crate::real::have;

/// Pieces of a word, each valid bash on its own and free of expansions
/// that depend on the environment.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9._,:=%+@-]{1,4}",
        "[a-z ]{0,4}".prop_map(|w| format!("'{w}'")),
        "[a-z ]{0,4}".prop_map(|w| format!("\"{w}\"")),
        prop::sample::select(vec![
            "\\ ", "\\'", "\\\"", "\\\\", "\\$", "\\*", "\\[", "\\]", "\\{", "\\}", "\\#", "\\;",
            "\\&", "\\|", "\\<", "\\>", "\\(", "\\)", "\\`", "\\a",
        ])
        .prop_map(String::from),
        prop::sample::select(vec![
            "[x]",
            "[[:space:]]*",
            "[[:space:]]*$",
            "s/[[:space:]]*$//",
            "*.nomatch",
            "?.nomatch",
            "[!a]z",
            "a[",
            "]",
            "[]]q",
            "[a-]q",
            "x[0-9]*y",
            "'['x]",
            "\"[\"x]",
            "[\\]]",
            "a*\\*",
            "{a}",
            "{}",
            "{,}x",
            "a{b",
            "a}b",
            "'{a,b}'",
            "#",
            "a#",
            "~x/nosuchuser",
            "=",
            "a=b",
            "--x=y",
            "$",
            "a$",
            "\"$\"",
            "'$x'",
            "\"a$\"",
            "$\"a b\"",
            "$'a\\tb'",
            "$'\\x41'",
            "\"\\$x\"",
            "\"\\\"\"",
            "\"\\a\"",
            "''",
            "\"\"",
            "!",
            "a!b",
            "%s",
            "^",
            "$/",
            "$%",
            "a$.",
            "$:",
            "$~",
            "$,",
            "] [",
            "{ }",
        ])
        .prop_map(String::from),
    ]
}

fn word() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 1..4).prop_map(|p| p.concat())
}

/// What bash gives `printf '%s\0'` for `words`, run in `dir`.
fn bash_argv(dir: &std::path::Path, words: &str) -> Option<Vec<String>> {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("printf '%s\\0' {words}"))
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", "/home/u")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    let mut v: Vec<String> = text.split('\0').map(String::from).collect();
    v.pop();
    Some(v)
}

proptest! {
    // A fixed seed: the same 400 lines on every run, so that a failure
    // here is a change in toolgate, not a new draw. To explore further,
    // run with another seed (`TOOLGATE_ARGV_SEED=N`); a failure found that
    // way is kept in argv.proptest-regressions and fixed.
    #![proptest_config(ProptestConfig {
        cases: 400,
        rng_seed: proptest::test_runner::RngSeed::Fixed(
            std::env::var("TOOLGATE_ARGV_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x7467_6176),
        ),
        ..ProptestConfig::default()
    })]

    #[test]
    fn toolgate_argv_is_bash_argv(words in prop::collection::vec(word(), 1..5)) {
        if !have("bash") {
            return Ok(());
        }
        let dir = tempfile::tempdir().expect("temporary directory");
        let line = words.join(" ");
        let Some(want) = bash_argv(dir.path(), &line) else {
            return Ok(());
        };
        let a = analyze(
            &format!("printf '%s\\0' {line}"),
            &Options {
                cwd: Some(dir.path().to_path_buf()),
                home: Some("/home/u".into()),
                ..Options::default()
            },
        );
        // Refusing to know is allowed: an unknown or a word toolgate calls
        // not literal asks.
        if !a.unknowns.is_empty() || a.commands.len() != 1 || !a.commands[0].non_literal.is_empty() {
            return Ok(());
        }
        let mut got = a.commands[0].argv.get(2..).unwrap_or_default().to_vec();
        // With no argument (`printf '%s\0' #comment`), printf prints its
        // format once.
        if got.is_empty() {
            got.push(String::new());
        }
        prop_assert_eq!(got, want, "line: {}", line);
    }
}

/// Cases worked out by hand from bash's manual ("Quoting", "Pattern
/// Matching", "Brace Expansion"), checked against bash.
#[test]
fn known_words_match_bash() {
    if !have("bash") {
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    for line in [
        "s/[[:space:]]*$// f",
        "'s/[[:space:]]*$//' f",
        "a[b]$ [x]$",
        "\\$HOME '$HOME' \"\\$HOME\"",
        "{a} {} a{b x}y",
        "*.nomatch [ab].nomatch",
    ] {
        let want = bash_argv(dir.path(), line).expect("bash runs it");
        let a = analyze(
            &format!("printf '%s\\0' {line}"),
            &Options {
                cwd: Some(dir.path().to_path_buf()),
                ..Options::default()
            },
        );
        assert!(a.unknowns.is_empty(), "{line}: {:?}", a.unknowns);
        assert_eq!(a.commands[0].argv[2..], want[..], "{line}");
    }
}

/// A backslash-newline inside a word is a line continuation: bash removes
/// both and joins the word (`cat .e\<newline>nv` reads `.env`). Where the
/// analysis cannot join them as bash does, it says it cannot follow.
#[test]
fn line_continuation_inside_a_word() {
    let dir = tempfile::tempdir().expect("temporary directory");
    for (args, want) in [
        (".e\\\nnv", vec![".env"]),
        (".e\\\n\\\nnv x", vec![".env", "x"]),
        ("a \\\n b", vec!["a", "b"]),
        ("\"a\\\nb\"", vec!["ab"]),
        ("'a\\\nb'", vec!["a\\\nb"]),
        ("a\\\\ b", vec!["a\\", "b"]),
    ] {
        let a = analyze(&format!("cat {args}"), &Options::default());
        assert!(a.unknowns.is_empty(), "{args:?}: {:?}", a.unknowns);
        assert_eq!(a.commands[0].argv[1..], want[..], "{args:?}");
        if have("bash") {
            let bash = bash_argv(dir.path(), args).expect("bash runs printf");
            assert_eq!(bash, want, "bash reads {args:?} otherwise");
        }
    }
    let a = analyze("ca\\\nt .env", &Options::default());
    assert_eq!(a.commands[0].argv, ["cat", ".env"]);
    // Joins the analysis does not make are unknown, never split.
    for line in ["cat < .e\\\nnv", "A=.e\\\nnv cat x", "cat > o\\\nut"] {
        let a = analyze(line, &Options::default());
        assert!(!a.unknowns.is_empty(), "{line:?} split silently: {a:?}");
    }
}

/// `$"..."` is a string translated by the locale: bash drops the `$`
/// (with no translation catalogue, the string is itself).
#[test]
fn locale_string_drops_its_dollar() {
    let a = analyze("echo %$\"\"", &Options::default());
    assert_eq!(a.commands[0].argv, ["echo", "%"]);
    let dir = tempfile::tempdir().expect("temporary directory");
    for line in [
        "%$\"\"",
        "$\"a b\" c",
        "x$\"y\"z",
        "$'q'$\"r\"",
        "\\$\"a\"",
        "\"$\"a\"\"",
        "$$\"\"",
        "a$$\"a b\"",
        "a$$",
    ] {
        let a = analyze(&format!("printf '%s\\0' {line}"), &Options::default());
        assert!(a.unknowns.is_empty(), "{line}: {:?}", a.unknowns);
        if line.contains("$$") {
            // The shell's process id: not literal, never `$$`.
            assert_eq!(a.commands[0].non_literal, [2], "{line}");
            continue;
        }
        assert!(a.commands[0].non_literal.is_empty(), "{line}");
        if have("bash") {
            let want = bash_argv(dir.path(), line).expect("bash runs printf");
            assert_eq!(a.commands[0].argv[2..], want[..], "{line}");
        }
    }
}

/// `printf '%s\0' WORDS` analysed in `dir`: nothing unknown, and the
/// arguments bash gives printf there.
fn analysed_as_bash_runs(dir: &std::path::Path, words: &str) {
    let a = analyze(
        &format!("printf '%s\\0' {words}"),
        &Options {
            cwd: Some(dir.to_path_buf()),
            ..Options::default()
        },
    );
    assert!(a.unknowns.is_empty(), "{words:?}: {a:?}");
    if have("bash") {
        let want = bash_argv(dir, words).expect("bash runs printf");
        assert_eq!(a.commands[0].argv[2..], want[..], "{words:?}");
    }
}

/// The grammar takes `] [a]` as one word; bash runs two. A lone bracket
/// beside the blank is escaped so that the grammar splits as bash does
/// (checked against bash); a word glued in any other way is never guessed
/// at: the command cannot be analysed.
#[test]
fn a_word_the_grammar_does_not_split_at_a_blank() {
    let dir = tempfile::tempdir().expect("temporary directory");
    for words in ["x ] [\\]]", "x ] [a] y", "] [.env]", "{ } z"] {
        analysed_as_bash_runs(dir.path(), words);
    }
    let a = analyze("printf x ]  [a]", &Options::default());
    assert!(!a.unknowns.is_empty(), "{a:?}");
}

/// A command's name that bash reads as a word with a glob or braces in it:
/// the grammar read `[q]` as the test `[ q ]` (nothing run, no error),
/// `[z]q x` and `z?a x` as two commands, `{z,y}q x` as a group. In a
/// folder whose files the patterns match, each program there records how
/// bash ran it; the analysis must name the same program and arguments (and
/// still ask: a pattern names a program only when it runs).
#[test]
fn a_command_name_with_a_glob_or_braces_is_the_word_bash_makes() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temporary directory");
    for name in ["q", "zq", "zqa", "yq", "!q"] {
        let path = dir.path().join(name);
        std::fs::write(&path, "#!/bin/sh\necho \"${0##*/} $*\" >> ran.log\n").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    for line in [
        "[q]",
        "[q] && [q]",
        "if [q]; then [q]; fi",
        "[z]q x",
        "[[z]q x",
        "z?a x",
        "z[q]a x",
        "{z,y}q x",
        "{zq,x}",
        "[ x -eq|zq y ]",
        "![q]",
    ] {
        let a = analyze(
            line,
            &Options {
                cwd: Some(dir.path().to_path_buf()),
                ..Options::default()
            },
        );
        assert!(
            a.unknowns
                .iter()
                .all(|u| u.reason.starts_with("command name is a glob")),
            "{line:?}: {a:?}"
        );
        let analysed: Vec<String> = a
            .commands
            .iter()
            .filter(|c| c.argv[0] != "[")
            .map(|c| c.argv.join(" "))
            .collect();
        if have("bash") {
            let log = dir.path().join("ran.log");
            let _ = std::fs::remove_file(&log);
            let status = Command::new("bash")
                .arg("-c")
                .arg(line)
                .current_dir(dir.path())
                .env_clear()
                .env("PATH", format!("{}:/usr/bin:/bin", dir.path().display()))
                .stdin(Stdio::null())
                .status()
                .expect("bash runs");
            assert!(status.success(), "{line:?}");
            let ran = std::fs::read_to_string(&log).expect("a program ran");
            let ran: Vec<String> = ran.lines().map(|l| l.trim_end().to_owned()).collect();
            assert_eq!(analysed, ran, "{line:?}");
        }
    }
    // An array element's assignment stays one.
    let a = analyze("a[1]=x; c[2]+=y; b=([1]=v); echo", &Options::default());
    assert!(a.unknowns.is_empty(), "{a:?}");
    assert_eq!(a.assignments, ["a[1]=x", "c[2]+=y", "b=([1]=v)"]);
}

/// `x$\ ""` is `x$ ` in bash; the grammar dropped the `$` and kept the
/// backslash. Outside quotes the `$` is escaped, which bash reads the same;
/// checked against bash.
#[test]
fn a_dollar_before_a_backslash_is_read_as_bash_reads_it() {
    let dir = tempfile::tempdir().expect("temporary directory");
    for words in [
        "[[:space:]]*$\\ \"\"",
        ".e$\\nv",
        "a$\\\\",
        "a$\\ \"\"",
        "'a$\\b' \"c$\\d\"",
        "a\\$\\b",
    ] {
        analysed_as_bash_runs(dir.path(), words);
    }
    // In a here-document's body the grammar's reading is not trusted.
    let a = analyze("cat <<EOF\na$\\b\nEOF", &Options::default());
    assert!(!a.unknowns.is_empty(), "{a:?}");
    // Nor before a line continuation, in double quotes or not: bash joins
    // the lines first, and `"$\<newline>(id)"` runs `id`.
    for line in [
        "echo \"a$\\\n(touch p)\"",
        "echo a$\\\n(touch p)",
        "echo \"a$\\\nHOME\"",
    ] {
        let a = analyze(line, &Options::default());
        assert!(!a.unknowns.is_empty(), "{line:?}: {a:?}");
    }
}

/// Words after a redirect's target are the command's arguments (`echo >&2
/// "failed"`, `cat > out a b`): the argv and the file written are bash's,
/// checked by running each line in bash with `printf` as the command.
#[test]
fn words_after_a_redirect_target_are_arguments() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let w = dir
        .path()
        .canonicalize()
        .expect("canonical temporary directory");
    for (line, argv, written) in [
        ("printf '%s\\0' >out a b", &["a", "b"][..], &["out"][..]),
        (
            "printf '%s\\0' x >out \"a b\" c",
            &["x", "a b", "c"][..],
            &["out"][..],
        ),
        (
            "printf '%s\\0' 2>err a >out b",
            &["a", "b"][..],
            &["err", "out"][..],
        ),
        (
            "printf '%s\\0' >&2 \"the tool failed\"",
            &["the tool failed"][..],
            &[][..],
        ),
        ("printf '%s\\0' 2>&1 a", &["a"][..], &[][..]),
    ] {
        let a = analyze(
            line,
            &Options {
                cwd: Some(w.clone()),
                ..Options::default()
            },
        );
        assert!(a.unknowns.is_empty(), "{line}: {:?}", a.unknowns);
        assert_eq!(a.commands[0].argv[2..], argv[..], "{line}");
        let writes: Vec<&str> = a
            .effects
            .iter()
            .filter(|e| e.kind == toolgate_shell::EffectKind::Write)
            .map(|e| e.target.as_str())
            .collect();
        assert_eq!(writes, written, "{line}");
        if have("bash") {
            let out = Command::new("bash")
                .arg("-c")
                .arg(line)
                .current_dir(&w)
                .output()
                .expect("bash runs");
            let printed = std::fs::read(w.join("out")).unwrap_or_else(|_| {
                if line.contains(">&2") {
                    out.stderr.clone()
                } else {
                    out.stdout.clone()
                }
            });
            let mut got: Vec<String> = String::from_utf8_lossy(&printed)
                .split('\0')
                .map(String::from)
                .collect();
            got.pop();
            assert_eq!(got, argv, "bash runs {line:?} otherwise");
            let _ = std::fs::remove_file(w.join("out"));
            let _ = std::fs::remove_file(w.join("err"));
        }
    }
    // Words that touch stay one target, not a literal one.
    let a = analyze("echo > o\"u\"t x", &Options::default());
    assert_eq!(a.commands[0].argv, ["echo", "x"]);
}

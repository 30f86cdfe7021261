//! Valid bash that the grammar misreads or refuses, read as bash reads it:
//! `for NAME do`, a here-document before the command name, the reserved
//! word `time`, a backslash that ends the script, a `$` that starts no
//! expansion, signs in command names, lone brackets, a closing word right
//! after a compound command, a command without a name. Each case runs in the
//! real `bash -c` too, with `printf '%s\0'` (or `cat`) as the program, and
//! what bash prints must be what toolgate's commands would print.

use std::path::Path;
use std::process::{Command, Stdio};

use toolgate_shell::{Analysis, EffectKind, Options, analyze};

use crate::real::have;

/// What `bash -c script` prints on its standard output, split at NULs,
/// run in `dir`, with `args` as its positional parameters.
fn bash(dir: &Path, script: &str, args: &[&str]) -> Vec<String> {
    let out = Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg("bash")
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .expect("bash runs");
    let text = String::from_utf8(out.stdout).expect("utf-8 output");
    let mut v: Vec<String> = text.split('\0').map(String::from).collect();
    v.pop();
    v
}

fn analyze_in(dir: &Path, script: &str) -> Analysis {
    analyze(
        script,
        &Options {
            cwd: Some(dir.to_path_buf()),
            ..Options::default()
        },
    )
}

/// The names of the commands toolgate finds, in order.
fn names(a: &Analysis) -> Vec<&str> {
    a.commands
        .iter()
        .filter_map(|c| c.argv.first().map(String::as_str))
        .collect()
}

/// What the `printf '%s\0' ARGS` commands toolgate finds print, in order,
/// when each runs once: all their arguments must be literal.
fn printed(a: &Analysis) -> Vec<String> {
    let mut out = Vec::new();
    for c in &a.commands {
        assert!(c.non_literal.is_empty(), "not literal: {c:?}");
        if c.argv.first().map(String::as_str) == Some("printf") {
            let args = c.argv.get(2..).unwrap_or_default();
            if args.is_empty() {
                out.push(String::new());
            }
            out.extend(args.iter().cloned());
        }
    }
    out
}

/// Each script: no unknown, the commands it names and no other, and the
/// output of bash equals what those commands print.
fn same_as_bash(cases: &[(&str, &[&str])]) {
    let dir = tempfile::tempdir().expect("temporary directory");
    for (script, want_names) in cases {
        let a = analyze_in(dir.path(), script);
        assert!(a.unknowns.is_empty(), "{script:?}: {:?}", a.unknowns);
        assert_eq!(names(&a), *want_names, "{script:?}");
        if have("bash") {
            assert_eq!(bash(dir.path(), script, &[]), printed(&a), "{script:?}");
        }
    }
}

/// bash's manual, "Looping Constructs": "If `in words` is not present,
/// the for command executes the commands once for each positional
/// parameter that is set" — with or without the `;` before `do`.
#[test]
fn for_without_in_iterates_the_positional_parameters() {
    let dir = tempfile::tempdir().expect("temporary directory");
    for script in [
        "for f do printf '%s\\0' \"$f\"; done",
        "for f; do printf '%s\\0' \"$f\"; done",
        "for f\ndo printf '%s\\0' \"$f\"; done",
        "for f  do printf '%s\\0' \"$f\"; done",
        "if true; then for f do printf '%s\\0' \"$f\"; done; fi",
        "printf '%s\\0' $(for f do printf '%s' \"$f\"; done)",
    ] {
        let a = analyze_in(dir.path(), script);
        assert!(a.unknowns.is_empty(), "{script:?}: {:?}", a.unknowns);
        assert!(
            names(&a).iter().all(|n| matches!(*n, "printf" | "true")),
            "{script:?}: {:?}",
            names(&a)
        );
        // The loop's variable holds what toolgate cannot know.
        let body = a
            .commands
            .iter()
            .find(|c| c.argv.get(2).is_some_and(|w| w.contains("$f")))
            .expect("the loop's body");
        assert_eq!(body.non_literal, [2], "{script:?}");
        if have("bash") {
            let out = bash(dir.path(), script, &["x y", "z"]);
            let want: &[&str] = if script.contains("$(") {
                &["x", "yz"]
            } else {
                &["x y", "z"]
            };
            assert_eq!(out, want, "{script:?}");
        }
    }
    // What the loop runs is still what is checked.
    let a = analyze("for f do rm -rf \"$f\"; done", &Options::default());
    assert_eq!(names(&a), ["rm"]);
    assert!(a.effects.iter().any(|e| !e.literal), "{:?}", a.effects);
}

/// bash's manual, "Redirections": redirections "may precede or appear
/// anywhere within a simple command". A here-document first, before the
/// command name, is the command's standard input, and its body runs
/// nothing (but its substitutions).
#[test]
fn redirects_before_the_command_name() {
    same_as_bash(&[
        ("<<EOF printf '%s\\0' a b\nbody\nEOF", &["printf"]),
        ("<<EOF cat\nbody\nEOF", &["cat"]),
        ("<<-EOF cat\n\tbody\n\tEOF", &["cat"]),
        ("<< 'EOF' cat | cat\n$(body)\nEOF", &["cat", "cat"]),
        (
            "<<EOF cat >/dev/null && printf '%s\\0' after\nbody\nEOF",
            &["cat", "printf"],
        ),
        ("true && <<EOF cat\nbody\nEOF", &["true", "cat"]),
        ("x=1 <<EOF cat\nbody\nEOF", &["cat"]),
        ("2<<EOF printf '%s\\0' two\nbody\nEOF", &["printf"]),
        ("<<<word cat", &["cat"]),
        (">out printf '%s\\0' x; cat out", &["printf", "cat"]),
        ("2>/dev/null printf '%s\\0' y", &["printf"]),
    ]);
    if have("bash") {
        let dir = tempfile::tempdir().expect("temporary directory");
        assert_eq!(
            bash(dir.path(), "<<EOF cat\nbody\nEOF", &[]),
            Vec::<String>::new()
        );
    }
    let a = analyze("<<EOF cat\nbody\nEOF", &Options::default());
    assert_eq!(a.commands[0].argv, ["cat"]);
    assert!(a.effects.is_empty(), "{:?}", a.effects);
    // The body's substitutions run.
    let a = analyze("<<EOF cat\n$(rm -rf x)\nEOF", &Options::default());
    assert_eq!(names(&a), ["rm", "cat"]);
    // Redirects before the name are the command's effects.
    let a = analyze("<in >out cat", &Options::default());
    let targets: Vec<&str> = a.effects.iter().map(|e| e.target.as_str()).collect();
    assert_eq!(targets, ["in", "out"]);
    // Standard input is the last redirect of it, as written.
    let a = analyze("<<EOF cat <in\nbody\nEOF", &Options::default());
    assert!(a.unknowns.is_empty(), "{:?}", a.unknowns);
    assert!(a.effects.iter().any(|e| e.target == "in"));
    // A here-document with no command at all is left unknown.
    let a = analyze("<<EOF\nbody\nEOF", &Options::default());
    assert!(!a.unknowns.is_empty());
}

/// bash's manual, "Pipelines": `time [-p] pipeline` reports the time the
/// pipeline takes; `time` runs nothing else, and the pipeline may be a
/// compound command. It is a reserved word only where a pipeline starts:
/// after `|`, or quoted, or after an assignment, it is the program.
#[test]
fn time_is_a_reserved_word() {
    same_as_bash(&[
        ("time (printf '%s\\0' a)", &["printf"]),
        ("time { printf '%s\\0' a b; }", &["printf"]),
        ("time -p printf '%s\\0' a", &["printf"]),
        ("time -p -- { printf '%s\\0' a; } 2>/dev/null", &["printf"]),
        ("time -- printf '%s\\0' c", &["printf"]),
        ("! time printf '%s\\0' d", &["printf"]),
        ("true && time { printf '%s\\0' e; }", &["true", "printf"]),
        (
            "time if true; then printf '%s\\0' f; fi",
            &["true", "printf"],
        ),
        (
            "time for x in g; do printf '%s\\0' \"$x\"; done",
            &["printf"],
        ),
        ("time printf '%s\\0' h | cat", &["printf", "cat"]),
        ("time", &[]),
    ]);
    // Before another option (`time -o f ls` runs a command named `-o` in
    // bash), GNU time's reading stays: it says more.
    let a = analyze("time -o f ls", &Options::default());
    assert_eq!(a.commands[0].argv, ["ls"]);
    assert!(a.effects.iter().any(|e| e.target == "f"), "{a:?}");
    // Where `time` is a program (GNU time), it is a wrapper as before.
    for (script, wrapped) in [
        ("ls | time wc", 1),
        ("x=1 time wc", 0),
        ("\\time wc", 0),
        ("'time' wc", 0),
    ] {
        let a = analyze(script, &Options::default());
        assert_eq!(a.commands[wrapped].argv, ["wc"], "{script}");
        assert_eq!(a.commands[wrapped].wrappers.len(), 1, "{script}");
    }
    // Never the words `{` and `}` as commands or arguments.
    let a = analyze("time { rm -rf x; }", &Options::default());
    assert_eq!(a.commands[0].argv, ["rm", "-rf", "x"]);
    assert_eq!(a.commands.len(), 1);
}

/// `bash -c` and `eval` keep a backslash that ends the script: it has
/// nothing to quote, and is a literal `\` (a script file, which ends in a
/// newline, reads a line continuation instead).
#[test]
fn a_backslash_that_ends_the_script() {
    same_as_bash(&[
        ("printf '%s\\0' a \\", &["printf"]),
        ("printf '%s\\0' a\\", &["printf"]),
        ("printf '%s\\0' a \\\\\\", &["printf"]),
        ("printf '%s\\0' a \\\\", &["printf"]),
        ("printf '%s\\0' a \\\n", &["printf"]),
        ("printf '%s\\0' a; printf '%s\\0' \\", &["printf", "printf"]),
    ]);
    let a = analyze("ls \\", &Options::default());
    assert!(a.unknowns.is_empty(), "{:?}", a.unknowns);
    assert_eq!(a.commands[0].argv, ["ls", "\\"]);
    // In a script run by `bash -c` too.
    let a = analyze("bash -c 'cat .env\\'", &Options::default());
    assert!(a.unknowns.is_empty(), "{:?}", a.unknowns);
    assert!(a.effects.iter().any(|e| e.target == ".env\\"), "{a:?}");
}

/// A backslash before a blank quotes the blank: bash starts a word with
/// it (`a \ b` is `a`, ` b`), and a `#` after it starts no comment. Where
/// the parser loses such a blank, the analysis says it cannot follow.
#[test]
fn an_escaped_blank_that_starts_a_word() {
    let dir = tempfile::tempdir().expect("temporary directory");
    for (words, bash_reads) in [
        ("\\ #", vec![" #"]),
        ("a \\ b", vec!["a", " b"]),
        ("\\ # x", vec![" #", "x"]),
        ("a\\ b", vec!["a b"]),
        ("'a' \\\t", vec!["a", "\t"]),
    ] {
        let line = format!("printf '%s\\0' {words}");
        if have("bash") {
            assert_eq!(bash(dir.path(), &line, &[]), bash_reads, "{words:?}");
        }
        let a = analyze_in(dir.path(), &line);
        if a.unknowns.is_empty() {
            assert_eq!(printed(&a), bash_reads, "{words:?}");
        }
    }
    // The blank starts the word: `rm` removes ` #x`, nothing is a comment.
    let a = analyze("rm \\ #x", &Options::default());
    assert!(a.unknowns.is_empty(), "{a:?}");
    assert!(
        a.effects.iter().any(|e| e.target == " #x" && e.delete),
        "{:?}",
        a.effects
    );
    // Every one of several, with the words after it.
    let line = "printf '%s\\0' a \\ b \\  c\\ d \\\t";
    if have("bash") {
        assert_eq!(
            bash(dir.path(), line, &[]),
            vec!["a", " b", " ", "c d", "\t"],
            "{line:?}"
        );
    }
    let a = analyze_in(dir.path(), line);
    assert!(a.unknowns.is_empty(), "{a:?}");
    assert_eq!(printed(&a), vec!["a", " b", " ", "c d", "\t"]);
}

/// bash's manual, "Shell Expansions": a `$` that starts no parameter,
/// command or arithmetic expansion is an ordinary character (`grep x$)`
/// inside a substitution, `/^a$/i`, `total$.`, `a:$%`, `x$\ y`). The
/// grammar refused most of them and dropped the `$` before a backslash.
#[test]
fn a_dollar_that_starts_no_expansion_is_itself() {
    same_as_bash(&[
        (
            "printf '%s\\0' a$/ b$% c$. d$: e$, f$= g$+ h$^ i$~ j$] k$}",
            &["printf"],
        ),
        ("printf '%s\\0' a$\\ b c$\\\\", &["printf"]),
        (
            "printf '%s\\0' a$; printf '%s\\0' b$",
            &["printf", "printf"],
        ),
        ("printf '%s\\0' a$|cat", &["printf", "cat"]),
        (
            "printf '%s\\0' a$&& printf '%s\\0' b",
            &["printf", "printf"],
        ),
        // In quotes the grammar read them right, and they stay as written.
        (
            "printf '%s\\0' 'a$/' \"b$%\" 'c$\\|d' \"e$\\\"f\"",
            &["printf"],
        ),
    ]);
    // Inside a substitution, in quotes or not.
    for line in [
        "printf '%s\\0' $(printf '%s' x$)",
        "printf '%s\\0' \"$(printf '%s' x$)\"",
    ] {
        let a = analyze(line, &Options::default());
        assert!(a.unknowns.is_empty(), "{line:?}: {a:?}");
        assert!(
            a.commands.iter().any(|c| c.argv == ["printf", "%s", "x$"]),
            "{a:?}"
        );
    }
    // Inside backquotes: bash removes the backslash before `$` when it
    // reads them again.
    let a = analyze("wc `find | grep .php$`", &Options::default());
    assert!(
        a.unknowns.iter().all(|u| !u.reason.contains("parse")),
        "{a:?}"
    );
    assert!(
        a.commands.iter().any(|c| c.argv == ["grep", ".php$"]),
        "{:?}",
        a.commands
    );
    // A `$` before a line continuation is an expansion of what follows
    // it once the lines are joined: never read as a literal `$`.
    let dir = tempfile::tempdir().expect("temporary directory");
    let line = "printf '%s\\0' a$\\\nHOME";
    let a = analyze_in(dir.path(), line);
    assert!(!a.unknowns.is_empty(), "{a:?}");
    // A heredoc's body keeps its text: the `$/` there is not escaped.
    same_as_bash(&[("cat <<EOF\na$/ b@c $%\nEOF", &["cat"])]);
}

/// A command name that starts like a variable name and goes on with `@`,
/// `%` or `#` (`npx foo@latest` without `npx`, `page%d.jpg`, `pkcs#11`)
/// is a word like any other: bash starts a comment only where a word
/// starts. The grammar took the name for an assignment and failed.
#[test]
fn a_command_name_with_at_percent_or_hash() {
    same_as_bash(&[
        (
            "foo@x 2>/dev/null; printf '%s\\0' b@c",
            &["foo@x", "printf"],
        ),
        (
            "true|pkcs#11 2>/dev/null; printf '%s\\0' x#y",
            &["true", "pkcs#11", "printf"],
        ),
        (
            "true|a|tag#tag b 2>/dev/null; printf '%s\\0' c",
            &["true", "a", "tag#tag", "printf"],
        ),
        (
            "page%d.jpg 2>/dev/null || printf '%s\\0' d%e",
            &["page%d.jpg", "printf"],
        ),
        ("printf '%s\\0' a #b@c", &["printf"]),
    ]);
    // Whatever the name, its arguments are checked.
    let a = analyze("yarn@1 add x > .env", &Options::default());
    assert_eq!(a.commands[0].argv, ["yarn@1", "add", "x"]);
    assert!(
        a.effects
            .iter()
            .any(|e| e.target == ".env" && e.kind == EffectKind::Write),
        "{a:?}"
    );
}

/// `[`, `]`, `{` and `}` standing alone are arguments like any other
/// (`tc filter ... [ a ] [ b ]`, `find -ok rm { } \;`); the grammar glued
/// `] [` and `{ }` into one word, where bash splits at the blank.
#[test]
fn lone_brackets_and_braces_are_words() {
    same_as_bash(&[
        ("printf '%s\\0' x [ a b ] [ c ] y", &["printf"]),
        ("printf '%s\\0' { } z", &["printf"]),
        (
            "printf '%s\\0' [ a ] [ b ] 2>/dev/null | cat",
            &["printf", "cat"],
        ),
    ]);
    let a = analyze("find / -ok rm { } \\;", &Options::default());
    assert!(
        a.unknowns.iter().all(|u| !u.reason.contains("parse")),
        "{a:?}"
    );
    assert!(
        a.commands.iter().any(|c| c.argv == ["rm", "{", "}"]),
        "{:?}",
        a.commands
    );
}

/// bash needs no `;` between a compound command's end and the reserved
/// word that closes the one around it: `(..) done`, `fi done`, `done }`,
/// `} fi`.
#[test]
fn a_closing_word_right_after_a_compound_command() {
    same_as_bash(&[
        (
            "for v in a b; do (printf '%s\\0' \"$v\") done",
            &["printf", "printf"],
        ),
        (
            "if true; then { printf '%s\\0' x; } fi",
            &["true", "printf"],
        ),
        ("{ for v in 1; do printf '%s\\0' y; done }", &["printf"]),
        (
            "if true; then if true; then printf '%s\\0' z; fi fi",
            &["true", "true", "printf"],
        ),
        (
            "while true; do if true; then printf '%s\\0' w; fi; break; done",
            &["true", "true", "printf", "break"],
        ),
    ]);
    // The words stay arguments where they are not reserved.
    let a = analyze("echo $(true) done", &Options::default());
    assert_eq!(
        a.commands.last().map(|c| c.argv.clone()),
        Some(vec!["echo".into(), "$(true)".into(), "done".into()])
    );
}

/// bash's manual, "Simple Command Expansion": with no command name, the
/// assignments are made and the redirections performed (`g=$(md5sum f) >
/// f.md5` creates `f.md5`); the grammar wanted a name there.
#[test]
fn assignments_and_redirects_without_a_command() {
    let dir = tempfile::tempdir().expect("temporary directory");
    std::fs::write(dir.path().join("f"), "data").expect("write f");
    let line = "g=$(cat f) > f.out";
    let a = analyze_in(dir.path(), line);
    assert!(a.unknowns.is_empty(), "{:?}", a.unknowns);
    assert!(
        a.effects
            .iter()
            .any(|e| e.target == "f" && e.kind == EffectKind::Read),
        "{a:?}"
    );
    assert!(
        a.effects
            .iter()
            .any(|e| e.target == "f.out" && e.kind == EffectKind::Write),
        "{a:?}"
    );
    assert!(names(&a).contains(&"cat"), "{a:?}");
    if have("bash") {
        bash(dir.path(), line, &[]);
        assert!(dir.path().join("f.out").exists());
    }
    // A command name after the redirect is the command, as before.
    let a = analyze("g=1 > out rm -rf x", &Options::default());
    assert_eq!(names(&a), ["rm"]);
}

/// `N<>WORD` opens WORD for reading and writing, whatever WORD is (`-` is
/// a file of that name here, not a close as in `<&-`).
#[test]
fn read_write_redirects() {
    let dir = tempfile::tempdir().expect("temporary directory");
    for line in ["exec 3<>-", "exec 3<>f"] {
        let a = analyze_in(dir.path(), line);
        assert!(a.unknowns.is_empty(), "{line:?}: {:?}", a.unknowns);
        let target = if line.contains('f') { "f" } else { "-" };
        for kind in [EffectKind::Read, EffectKind::Write] {
            assert!(
                a.effects
                    .iter()
                    .any(|e| e.target == target && e.kind == kind),
                "{line:?}: {:?}",
                a.effects
            );
        }
    }
    // Shapes the grammar splits elsewhere stay unanalysable, never half read.
    for line in ["cat <>-", "exec 0<>-"] {
        let a = analyze_in(dir.path(), line);
        assert!(!a.unknowns.is_empty(), "{line:?}: {a:?}");
    }
    if have("bash") {
        bash(dir.path(), "exec 3<>-", &[]);
        assert!(dir.path().join("-").exists());
    }
}

/// Substitutions the grammar leaves as text: in a pattern or case operand
/// of `${..}` (`${x#$(cmd)}`, `${x^$(cmd)}`), backquotes in any operand
/// of `${..}`, and an unquoted here-document's backquotes or its
/// tab-indented `<<-` lines. Bash runs each (the marker `P` appears); the
/// analysis must see `touch P` as a command of the script.
#[test]
fn substitutions_the_grammar_leaves_as_text() {
    let cases = [
        "x=abc; echo ${x#$(touch P)}",
        "x=abc; echo ${x##a$(touch P)}",
        "x=abc; echo ${x%%$(touch P)}",
        "x=abc; echo ${x^$(touch P)}",
        "x=abc; echo ${x,,$(touch P)}",
        "x=abc; echo \"${x%$(touch P)}\"",
        "echo ${x:-`touch P`}",
        "echo \"${x:-`touch P`}\"",
        "echo ${x:=a`touch P`b}",
        "echo ${x:-`echo \\`touch P\\``}",
        "cat <<EOF\n`touch P`\nEOF",
        "cat <<EOF\n${x:-`touch P`}\nEOF",
        "cat <<-EOF\n\t$(touch P)\n\tEOF",
        "cat <<-EOF\n\t\ta `touch P` b\n\tEOF",
    ];
    let dir = tempfile::tempdir().expect("scratch");
    // Whether the analysis sees `touch P` run, and (where bash is) that
    // bash runs it exactly then.
    let check = |script: &str, runs: bool| {
        let a = analyze_in(dir.path(), script);
        let seen = a
            .commands
            .iter()
            .any(|c| c.argv.first().map(String::as_str) == Some("touch"));
        assert_eq!(seen, runs, "`{script}`: {:?}", names(&a));
        if have("bash") {
            let marker = dir.path().join("P");
            let _ = std::fs::remove_file(&marker);
            bash(dir.path(), script, &[]);
            assert_eq!(marker.exists(), runs, "`{script}` in bash");
        }
    };
    for script in cases {
        check(script, true);
    }
    // Quoted, escaped or single-quoted, nothing runs and nothing is seen.
    for script in [
        "echo ${x:-'`touch P`'}",
        "echo ${x:-\\`touch P\\`}",
        "x=abc; echo ${x#\\$(touch P)}",
        "cat <<'EOF'\n`touch P`\nEOF",
        "cat <<\\EOF\n$(touch P)\nEOF",
    ] {
        check(script, false);
    }
}

//! Statements that run nothing (`N=23`, `:`, `true`, `false`, `test`, `[`,
//! `[[ .. ]]`) are marked so, while what their words expand and the
//! variables that make later programs run code stay commands and unknowns.

use toolgate_shell::{Options, analyze};

fn opts() -> Options {
    Options {
        cwd: Some("/w".into()),
        home: Some("/home/u".into()),
        ..Options::default()
    }
}

#[test]
fn statements_that_run_nothing() {
    let a = analyze("N=23", &opts());
    assert!(a.commands.is_empty() && a.unknowns.is_empty() && a.effects.is_empty());
    assert_eq!(a.assignments, ["N=23"]);
    let a = analyze("A=1 B='x y'; C=", &opts());
    assert_eq!(a.assignments, ["A=1 B='x y'", "C="]);
    for cmd in [
        ":",
        "true",
        "false",
        "test -f x",
        "[ -f x ]",
        "[[ -f x && $n == 3 ]]",
        "test -n \"$x\"",
    ] {
        let a = analyze(cmd, &opts());
        assert_eq!(a.commands.len(), 1, "{cmd}");
        assert!(a.commands[0].no_op, "{cmd}: {a:#?}");
        assert!(a.unknowns.is_empty(), "{cmd}: {:?}", a.unknowns);
    }
}

#[test]
fn what_runs_inside_them_is_still_seen() {
    // The substitution runs: `rm` is a command of its own.
    let a = analyze("[[ -f $(rm x) ]]", &opts());
    let argv: Vec<String> = a.commands.iter().map(|c| c.argv.join(" ")).collect();
    assert_eq!(argv, ["rm x", "[[ -f $(rm x) ]]"]);
    assert!(!a.commands[0].no_op && a.commands[1].no_op);
    let a = analyze("N=$(rm x)", &opts());
    assert_eq!(a.commands[0].argv, ["rm", "x"]);
    assert!(!a.commands[0].no_op);
    // Arithmetic that evaluates code is unknown.
    for cmd in [
        "N=$((a[$(rm x)]))",
        "[[ $x -eq 1 ]]",
        "test -v 'a[$(rm x)]'",
    ] {
        let a = analyze(cmd, &opts());
        assert!(!a.unknowns.is_empty(), "{cmd}: {a:#?}");
    }
    // A redirect is an effect of its own: `: > f` truncates f.
    let a = analyze(": > f", &opts());
    assert!(a.commands[0].no_op && a.effects.len() == 1);
    // By path, wrapped or defined by the script, it is a program.
    for cmd in [
        "/usr/bin/true",
        "./test -f x",
        "timeout 5 true",
        "env X=1 true",
    ] {
        let a = analyze(cmd, &opts());
        assert!(a.commands.iter().all(|c| !c.no_op), "{cmd}");
    }
}

#[test]
fn variables_that_make_programs_run_code_are_unknown() {
    for cmd in [
        "PATH=/tmp",
        "LD_PRELOAD=/tmp/x.so",
        "LD_LIBRARY_PATH=.",
        "BASH_ENV=x",
        "ENV=x",
        "PROMPT_COMMAND=ls",
        "PS4='$(rm x)'",
        "IFS=/",
        "GIT_SSH_COMMAND=x",
        "GIT_EXTERNAL_DIFF=x",
        "PYTHONPATH=.",
        "NODE_OPTIONS=--require=./x.js",
    ] {
        let a = analyze(cmd, &opts());
        assert!(!a.unknowns.is_empty(), "{cmd}: {a:#?}");
    }
}

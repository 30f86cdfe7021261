//! `$PWD`, `${PWD}`, `$(pwd)` and `` `pwd` `` are the working directory
//! when it is known (the directory the command starts in, or where a
//! literal `cd` took it): `find $(pwd) -name x` lists the workspace, not a
//! place only known when it runs. Where bash's value may differ from the
//! directory (the script assigns or unsets `PWD`, a function named `pwd`,
//! a `cd` to a place not known), the word stays not literal. `unset HOME`
//! and `read HOME` make `$HOME` not known either.
//!
//! Each case is run by the real bash in a scratch directory, which prints
//! the argument as bash expands it: a word toolgate calls literal must be
//! that text.

use toolgate_shell::{Analysis, Options, analyze};

use crate::real::{Scratch, have};

fn opts(s: &Scratch) -> Options {
    Options {
        cwd: Some(s.path().to_path_buf()),
        home: Some(s.path().to_path_buf()),
        ..Options::default()
    }
}

/// The last argument of the last `printf` of `a`, if literal.
fn last_printed(a: &Analysis) -> Option<String> {
    let c = a
        .commands
        .iter()
        .rev()
        .find(|c| c.argv.first().is_some_and(|n| n == "printf"))?;
    let i = c.argv.len().checked_sub(1)?;
    (!c.non_literal.contains(&i)).then(|| c.argv[i].clone())
}

/// Cases whose value toolgate knows: `(setup, script)`; the script ends
/// with `printf '%s\n' WORD`, whose word bash prints.
const KNOWN: &[(&str, &str)] = &[
    ("", "printf '%s\\n' $PWD"),
    ("", "printf '%s\\n' \"${PWD}/x\""),
    ("", "printf '%s\\n' $(pwd)/src"),
    ("", "printf '%s\\n' `pwd`"),
    ("", "printf '%s\\n' \"$(pwd -P)\""),
    ("mkdir -p @D/sub", "cd sub && printf '%s\\n' $PWD/y"),
    ("mkdir -p @D/sub", "cd sub; printf '%s\\n' \"$(pwd)\""),
    ("mkdir -p @D/a/b", "cd a; cd b; cd ..; printf '%s\\n' $PWD"),
];

/// Cases where bash's value is not the directory toolgate would say
/// (`true`: toolgate must call the word not literal), or where the
/// directory moved in a way toolgate may or may not follow (`false`: a
/// literal word must be what bash prints).
const ELSEWHERE: &[(&str, &str, bool)] = &[
    ("", "PWD=/etc; printf '%s\\n' $PWD", true),
    ("", "unset PWD; printf '%s\\n' \"$PWD/x\"", true),
    ("", "read PWD <<< /etc; printf '%s\\n' $PWD", true),
    ("", "unset PWD; : ${PWD:=/etc}; printf '%s\\n' $PWD", true),
    ("", "pwd() { echo /etc; }; printf '%s\\n' $(pwd)", true),
    ("", "unset HOME; printf '%s\\n' \"$HOME/x\"", true),
    ("", "read HOME <<< /etc; printf '%s\\n' $HOME", true),
    ("", "trap 'HOME=/etc' DEBUG; printf '%s\\n' $HOME", true),
    ("", "printf '%s\\n' $(pwd; echo /etc)", true),
    ("", "printf '%s\\n' $(pwd >/dev/null)", true),
    ("", "printf '%s\\n' $(cd /etc; pwd)", true),
    (
        "mkdir -p @D/sub",
        "cd \"$(echo sub)\"; printf '%s\\n' $PWD",
        true,
    ),
    (
        "mkdir -p @D/sub",
        "f() { cd sub; }; f; printf '%s\\n' $PWD",
        false,
    ),
    (
        "mkdir -p @D/sub",
        "eval cd sub; printf '%s\\n' \"$(pwd)\"",
        false,
    ),
    (
        "mkdir -p @D/sub",
        "d=sub; cd $d; printf '%s\\n' $PWD",
        false,
    ),
    ("mkdir -p @D/sub", "(cd sub); printf '%s\\n' $PWD", false),
    (
        "mkdir -p @D/sub",
        "cd sub | true; printf '%s\\n' $PWD",
        false,
    ),
    (
        "mkdir -p @D/sub",
        "pushd sub >/dev/null; popd >/dev/null; printf '%s\\n' $PWD",
        false,
    ),
    // `cd -` goes to `$OLDPWD` and `popd` to an element of `DIRSTACK`,
    // however the script assigns them; `dirs -c` empties the stack,
    // `pushd -n` changes only the stack, `popd +N` drops an entry.
    (
        "mkdir -p @D/sub",
        "cd sub; OLDPWD=/etc; cd - >/dev/null; printf '%s\\n' $PWD",
        true,
    ),
    (
        "mkdir -p @D/sub",
        "cd sub; OLDPWD=/etc cd - >/dev/null; printf '%s\\n' $PWD",
        true,
    ),
    (
        "mkdir -p @D/sub",
        "cd sub; read OLDPWD <<< /etc; cd - >/dev/null; printf '%s\\n' $PWD",
        true,
    ),
    (
        "mkdir -p @D/sub",
        "f() { OLDPWD=/etc; }; cd sub; f; cd - >/dev/null; printf '%s\\n' $PWD",
        true,
    ),
    (
        "mkdir -p @D/sub",
        "cd sub; eval 'OLD''PWD=/etc'; cd - >/dev/null; printf '%s\\n' $PWD",
        true,
    ),
    (
        "mkdir -p @D/sub",
        "pushd sub >/dev/null; DIRSTACK[1]=/etc; popd >/dev/null; printf '%s\\n' $PWD",
        true,
    ),
    (
        "mkdir -p @D/sub",
        "pushd sub >/dev/null; dirs -c; popd 2>/dev/null; printf '%s\\n' $PWD",
        true,
    ),
    (
        "mkdir -p @D/sub",
        "pushd -n sub >/dev/null; printf '%s\\n' $PWD",
        true,
    ),
    (
        "mkdir -p @D/sub",
        "pushd sub >/dev/null; pushd /etc >/dev/null; popd +1 >/dev/null; printf '%s\\n' $PWD",
        true,
    ),
];

#[test]
fn the_working_directory_is_known_where_bash_agrees() {
    if !have("bash") {
        return;
    }
    for (setup, script) in KNOWN {
        let s = Scratch::new();
        // After the setup has made the directories the script goes to: a
        // `cd` to one that is not there leaves the directory unknown.
        let ran = s.run(setup, script);
        let a = analyze(&s.fill(script), &opts(&s));
        let said = last_printed(&a).unwrap_or_else(|| panic!("`{script}`: literal: {a:?}"));
        assert_eq!(format!("{said}\n"), ran, "`{script}`");
    }
}

#[test]
fn the_working_directory_is_not_known_where_bash_may_differ() {
    if !have("bash") {
        return;
    }
    for (setup, script, unknown) in ELSEWHERE {
        let s = Scratch::new();
        let a = analyze(&s.fill(script), &opts(&s));
        if let Some(said) = last_printed(&a) {
            let ran = s.run(setup, script);
            assert_eq!(
                format!("{said}\n"),
                ran,
                "`{script}`: literal, so bash's value"
            );
            assert!(!unknown, "`{script}`: should not be literal, is `{said}`");
        }
    }
}

#[test]
fn a_listing_of_the_working_directory_is_inside() {
    let o = Options {
        cwd: Some("/w".into()),
        home: Some("/home/u".into()),
        ..Options::default()
    };
    for cmd in [
        "find $(pwd) -name '*.rs'",
        "find `pwd` -type f -exec ls -l {} \\;",
        "ls -la \"$PWD\"",
    ] {
        let a = analyze(cmd, &o);
        assert!(a.unknowns.is_empty(), "`{cmd}`: {:?}", a.unknowns);
        assert!(
            a.effects.iter().any(|e| e.target == "/w" && e.listing),
            "`{cmd}`: {:?}",
            a.effects
        );
    }
    // Without a known starting directory, it stays not literal.
    let a = analyze("find $(pwd) -name x", &Options::default());
    assert!(
        a.effects.iter().any(|e| !e.literal) && !a.effects.iter().any(|e| e.literal),
        "{:?}",
        a.effects
    );
}

/// `enable -n pwd` turns the builtin off (the path's `pwd` runs, which the
/// agent may have written), `enable -f` loads a builtin from a file: not
/// analysed. Listing the builtins is.
#[test]
fn enable_is_unknown() {
    let o = Options {
        cwd: Some("/w".into()),
        ..Options::default()
    };
    for cmd in [
        "enable -n pwd; cat $(pwd)/x",
        "enable -f ./x.so pwd",
        "enable -n cd",
    ] {
        let a = analyze(cmd, &o);
        assert!(
            a.unknowns.iter().any(|u| u.reason.contains("`enable`")),
            "`{cmd}`: {:?}",
            a.unknowns
        );
    }
    for cmd in ["enable", "enable -a", "enable -p"] {
        assert!(analyze(cmd, &o).unknowns.is_empty(), "`{cmd}`");
    }
}

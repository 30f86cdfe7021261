//! Tokens the grammar's lexer ends otherwise than bash's: an `$'..'`
//! string whose content ends in an even run of backslashes, a carriage
//! return, vertical tab or form feed read as a blank, a `#` glued to the
//! end of a token read as a comment, a here-document's delimiter compared
//! before quote removal or before an unquoted body's continued lines are
//! joined. Each script is first run in the real `bash -c`, which must run
//! the command hidden in it (its marker file appears), and then must be
//! unanalysable; the plain spellings beside them must stay analysable.

use std::process::{Command, Stdio};

use toolgate_shell::{Options, analyze};

use crate::real::have;

/// Runs `script` in a fresh directory with bash; whether `MARK` was made.
fn bash_marks(script: &str) -> bool {
    let dir = tempfile::tempdir().expect("temporary directory");
    let _ = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("bash runs");
    dir.path().join("MARK").exists()
}

fn unknown(script: &str) -> bool {
    !analyze(script, &Options::default()).unknowns.is_empty()
}

/// Each script hides `touch MARK` where the grammar sees none.
const HIDDEN: &[&str] = &[
    // `$'..'`: `\\` is one escaped backslash, and the `'` after it ends
    // the string in bash.
    "x=$'\\\\'; touch MARK #'",
    "echo $'\\\\'; touch MARK #'",
    "for i in $'\\\\'; do :; done; touch MARK #'",
    "echo $'a\\\\\\\\'; touch MARK #'",
    // Carriage return, vertical tab, form feed: part of a word in bash.
    "x=1\r#; touch MARK",
    "echo hi\x0b#; touch MARK",
    "echo a \x0c#; touch MARK",
    // A `#` glued to the end of a token is part of a word.
    "x=()#; touch MARK",
    "x=(a)#; touch MARK",
    "[ ]#; touch MARK",
    "true&&{}#; touch MARK",
    "echo hi; {}#; touch MARK",
    // Here-document delimiters after quote removal.
    "true <<E''\nE\ntouch MARK\nE''",
    "true <<E\"\"\nE\ntouch MARK\nE\"\"",
    "cat <<E\"F\"\nEF\ntouch MARK\nE\"F\"",
    "true <<$'E'\nE\ntouch MARK\n$'E'",
    // The end line is the delimiter exactly: not with a blank or an
    // operator after it.
    "cat <<E\nE \ncat <<X\nE\ntouch MARK\nX",
    "cat <<E\nE\t\ncat <<X\nE\ntouch MARK\nX",
    "cat <<E\nE;\ncat <<X\nE\ntouch MARK\nX",
    // An unquoted body's continued lines are joined before the compare.
    "true <<E\n\\\nE\ntouch MARK\nE",
];

#[test]
fn a_command_bash_runs_where_the_grammar_sees_none_is_unanalysable() {
    for script in HIDDEN {
        if have("bash") {
            assert!(
                bash_marks(script),
                "bash does not run the hidden command in {script:?}"
            );
        }
        assert!(unknown(script), "{script:?} was analysed");
    }
}

#[test]
fn the_plain_spellings_stay_analysable() {
    for script in [
        "x=$'a\\nb'; echo \"$x\"",
        "echo $'it\\'s'",
        "echo $'\\\\x'",
        "echo a # comment",
        "echo a;# comment",
        "(echo a)# comment",
        "echo a\n# comment\necho b",
        "#!/bin/bash\necho a",
        "echo 'a\rb'",
        "cat <<'E'\nbody\nE",
        "cat <<\"E\"\nbody $x\nE",
        "cat <<E\nbody $HOME\nE",
        "cat <<-E\n\tbody\n\tE",
        "cat <<\\E\nbody\nE",
        "cat <<E\nline one \\\nline two\nE",
    ] {
        let a = analyze(script, &Options::default());
        assert!(a.unknowns.is_empty(), "{script:?}: {:?}", a.unknowns);
    }
}

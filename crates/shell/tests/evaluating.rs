//! Expansions that evaluate code (issue 20, class 3), against bash itself.
//!
//! Bash evaluates array subscripts inside arithmetic recursively, through
//! the values of the variables it names, and runs the substitutions of a
//! prompt string: with `x='a[$(touch P)]'`, `echo $((x))` runs `touch P`.
//! Each case below is a context where that happens. The test asserts both
//! that the analysis reports the script as not analysable (an `Unknown`)
//! and, when `bash` is installed, that bash really runs the embedded
//! `touch P` (the marker file appears in a scratch directory), so a case
//! that stopped being real would fail here rather than pass vacuously.
//! The plain forms (known numbers, names, literal prompts) must stay
//! analysable, and bash must not create the marker for them.
//!
//! Without `bash` the bash half is skipped with a message; with `CI=true`
//! a missing `bash` fails the test.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use toolgate_shell::{Options, analyze};

use crate::real::have;

/// Contexts where bash evaluates a value that runs `touch P`.
const EVALUATING: &[&str] = &[
    // Arithmetic expansion and its old form, quoted or not.
    "x='a[$(touch P)]'; echo $((x))",
    "x='a[$(touch P)]'; echo \"$((x + 0))\"",
    "x='a[$(touch P)]'; echo $(($x))",
    "x='a[$(touch P)]'; echo $[x]",
    "x='a[$(touch P)]'; echo $(( x ? 1 : 0 ))",
    // Through another variable's value.
    "x='a[$(touch P)]'; y=x; echo $((y))",
    // Array subscripts and their lengths.
    "x='a[$(touch P)]'; a=(1 2); echo ${a[x]}",
    "x='a[$(touch P)]'; a=(1 2); echo \"${a[$x]}\"",
    "x='a[$(touch P)]'; a=(1); echo ${#a[x]}",
    // Substring offsets and lengths.
    "x='a[$(touch P)]'; y=abc; echo ${y:x}",
    "x='a[$(touch P)]'; y=abc; echo ${y:0:x}",
    "x='a[$(touch P)]'; a=(1 2); echo ${a[@]:x}",
    "x='a[$(touch P)]'; echo ${@:x}",
    // Arithmetic commands.
    "x='a[$(touch P)]'; ((x))",
    "x='a[$(touch P)]'; ((x++))",
    "x='a[$(touch P)]'; for ((i=x; 0; )); do :; done",
    "x='a[$(touch P)]'; let y=x",
    "x='a[$(touch P)]'; let x++",
    // The integer attribute: every assignment evaluates the value.
    "x='a[$(touch P)]'; declare -i y=x",
    "x='a[$(touch P)]'; typeset -i y=x",
    "f() { x='a[$(touch P)]'; local -i y=x; }; f",
    "x='a[$(touch P)]'; declare -i y; y=x",
    "x='a[$(touch P)]'; declare -i y; y=$x",
    "x='a[$(touch P)]'; declare -i y; y+=x",
    "x='a[$(touch P)]'; declare -i y; export y=x",
    "x='a[$(touch P)]'; declare -i y; read y <<< x",
    "x='a[$(touch P)]'; declare -i y; printf -v y x",
    "x='a[$(touch P)]'; declare -i y; for y in x; do :; done",
    "x='a[$(touch P)]'; declare -i y; : ${y:=x}",
    "x='a[$(touch P)]'; declare -ia y; y=(x)",
    "f() { y=$1; }; declare -i y; f 'a[$(touch P)]'",
    // The arithmetic operators of `[[ ]]` evaluate both operands.
    "x='a[$(touch P)]'; [[ $x -eq 1 ]]",
    "x='a[$(touch P)]'; [[ \"$x\" -ne 1 ]]",
    "x='a[$(touch P)]'; [[ x -lt 1 ]]",
    "x='a[$(touch P)]'; [[ 1 -le x ]]",
    "x='a[$(touch P)]'; [[ -n x && x -gt 0 ]]",
    "x='a[$(touch P)]'; [[ x -ge 0 ]]",
    // Prompt expansion runs substitutions, however they are spelled.
    "x='$(touch P)'; echo ${x@P}",
    "x='`touch P`'; echo \"${x@P}\"",
    "x='\\044(touch P)'; echo ${x@P}",
    // Indirection: the value names a parameter, subscript included.
    "x='a[$(touch P)]'; echo ${!x}",
    "x='a[$(touch P)]'; echo ${!x:-d}",
    "x='a[$(touch P)]'; echo ${!x@P}",
    // `$_`: the last argument of the previous command, no assignment.
    ": 'a[$(touch P)]'; echo $((_))",
    ": 'a[$(touch P)]'; echo $(($_))",
    // Values nobody assigned in the script: input, arguments, substitutions.
    "read v <<< 'a[$(touch P)]'; echo $((v))",
    "set -- 'a[$(touch P)]'; echo $(($1))",
    "v=$(printf '%s' 'a[$(touch P)]'); echo $((v))",
    // Subscripts of assignments to indexed arrays.
    "x='a[$(touch P)]'; a[$x]=1",
    "x='a[$(touch P)]'; a[x]=1",
    "x='a[$(touch P)]'; a=([x]=1)",
    "x='a[$(touch P)]'; a+=([x]=1)",
    "x='a[$(touch P)]'; declare -a a=([x]=1)",
    // Names given to builtins: their subscripts are evaluated.
    "x='a[$(touch P)]'; printf -v \"$x\" 1",
    "x='a[$(touch P)]'; printf -v 'a[x]' 1",
    "x='a[$(touch P)]'; read \"a[$x]\" <<< 1",
    "x='a[$(touch P)]'; a=(1); unset \"a[$x]\"",
    "x='a[$(touch P)]'; a=(1); unset a[x]",
    "x='a[$(touch P)]'; declare \"$x=1\"",
    "x='a[$(touch P)]'; [ -v \"$x\" ]",
    "x='a[$(touch P)]'; test -v \"$x\"",
    "x='a[$(touch P)]'; [[ -v $x ]]",
    "x='a[$(touch P)]'; [[ -v a[x] ]]",
    // Name references: the name referred to is evaluated at each use.
    "x='a[$(touch P)]'; declare -n r=$x; echo $r",
    "declare -n r='a[$(touch P)]'; r=1",
    "x='a[$(touch P)]'; declare -n r; r=$x; echo $r",
    "x='a[$(touch P)]'; declare -n r; read r <<< \"$x\"; echo $r",
    "x='a[$(touch P)]'; declare -n r; for r in \"$x\"; do echo $r; done",
    // Arithmetic wherever a word is expanded.
    "x='a[$(touch P)]'; cat <<E\n$((x))\nE",
    "x='a[$(touch P)]'; cat <<E\n${a[x]}\nE",
    "x='a[$(touch P)]'; cat <<< $((x))",
    "x='a[$(touch P)]'; echo > $((x))",
    "x='a[$(touch P)]'; case $((x)) in *) ;; esac",
    "x='a[$(touch P)]'; for i in $((x)); do :; done",
    "x='a[$(touch P)]'; case 1 in $((x))) ;; esac",
    "x='a[$(touch P)]'; echo ${u:-$((x))}",
    "x='a[$(touch P)]'; a=(1); echo \"${a[@]:0:x}\"",
    // A loop that changes what its own arithmetic reads next round.
    "i=0; while ((i < 1)); do i='a[$(touch P)]+5'; done",
    "for ((i=0; i<1; i++)); do i='a[$(touch P)]+5'; done",
    "i=0; for k in 1 2; do echo $((i)); i='a[$(touch P)]'; done",
    // PS4 is expanded as a prompt for each traced command, however it is
    // assigned.
    "PS4='$(touch P)'; set -x; :",
    "read PS4 <<< '$(touch P)'; set -x; :",
    "declare -n r=PS4; r='$(touch P)'; set -x; :",
    "for PS4 in '$(touch P)'; do set -x; :; done",
    // A declaration's value that is `(..)` when it runs is read again as
    // an array's compound assignment, its words expanded then: with `-a`
    // or `-A`, or for a variable that is an array already (however it
    // became one, bash's own `DIRSTACK` included), or a loop's later round.
    "declare -a 'a=($(touch P))'",
    "declare -a \"a=(\\`touch P\\`)\"",
    "declare -A 'a=([$(touch P)]=1)'",
    "declare -a a='([$(touch P)]=1)'",
    "typeset -a 'a=($(touch P))'",
    "readonly -a 'a=($(touch P))'",
    "export -a 'a=($(touch P))'",
    "builtin declare -a 'a=($(touch P))'",
    "command declare -a 'a=($(touch P))'",
    "v='($(touch P))'; declare -a a=$v",
    "declare -a a=\\(\\$\\(touch\\ P\\)\\)",
    "a=(); declare a='($(touch P))'",
    "a=(); declare -g a='($(touch P))'",
    "declare -a a; declare a+='($(touch P))'",
    "read -a a <<< x; declare a='($(touch P))'",
    "declare DIRSTACK='($(touch P))'",
    "for i in 1 2; do declare x='($(touch P))'; x=(); done",
    "x='a[$(touch P)]'; declare -ai y; declare y='(x)'",
    "declare -n r=a; declare -a r; read v <<< '($(touch P))'; declare a=$v",
    // Options a shell is started with change what its script's words
    // mean: a glob matches dotfiles under `-O dotglob` (a cluster read a
    // letter at a time, `O` taking the next word), and under `-k` an
    // argument `X=P` is an assignment to the command's environment.
    "touch .q; bash -O dotglob -c 'for f in ?q; do [ -e \"$f\" ] && touch P; done'",
    "touch .q; bash -xeO dotglob -c 'for f in ?q; do [ -e \"$f\" ] && touch P; done'",
    "touch .Q; bash -O nocaseglob -O dotglob -c 'for f in ?[q]; do [ -e \"$f\" ] && touch P; done'",
    "bash -k -c 'sh -c \"touch \\$X\" X=P'",
    "bash -ek -c 'sh -c \"touch \\$X\" X=P'",
    // bash's table of commands found and its alias table: an element
    // assigned is the program a name runs, or an alias (the key of an
    // associative array is not arithmetic, so a plain subscript does not
    // make it unanalysable by itself).
    "ls=0; BASH_CMDS[ls]=/usr/bin/touch; ls P",
    "ls=0; BASH_CMDS+=([ls]=/usr/bin/touch); ls P",
    "ls=0; read 'BASH_CMDS[ls]' <<< /usr/bin/touch; ls P",
    "ls=0; printf -v 'BASH_CMDS[ls]' /usr/bin/touch; ls P",
    "ls=0; declare -A BASH_CMDS=([ls]=/usr/bin/touch); ls P",
    "x=BASH_; declare -n r=\"${x}CMDS\"; ls=0; r[ls]=/usr/bin/touch; ls P",
    "ls=0; BASH_ALIASES[ls]='touch P'; shopt -s expand_aliases\nls",
    // An attribute declared later in a loop applies to its next round.
    "for i in 1 2; do x='a[$(touch P)]'; declare -i x; done",
    // A builtin that runs a callback.
    "echo 1 > f; mapfile -C 'touch P #' -c 1 arr < f",
    // Completion: a word list goes through the expansions, and a command
    // or function given to `compgen` runs at once.
    "compgen -W '$(touch P)' x",
    "compgen -W '`touch P`'",
    "compgen -aW '$(touch P)' x",
    "x='a[$(touch P)]'; compgen -W '$((x))' 1",
    "compgen -C 'touch P' x",
    "f() { touch P; }; compgen -F f x",
    "compgen -bF f x; f() { touch P; }; compgen -F f x",
    // The history runs again: `fc` re-executes an entry (changed by `-s
    // old=new`, or after the editor `-e` names), and history expansion
    // (`set -H`) makes `!!` the text of an earlier line.
    "set -o history\necho P\nfc -s echo=touch",
    "set -o history\nhistory -s touch P\nfc -s",
    "set -o history\nhistory -s 'touch P'\nfc -e true",
    "set -o history\necho P\nfc -e 'sed -i s/echo/touch/' -1",
    "set -o history; set -H\necho P\n!!:s/echo/touch/",
    "set -o history -o histexpand\necho P\n!!:s/echo/touch/",
];

/// The same contexts given plain values: analysable, and bash runs nothing.
/// Several hold the payload in a variable that is never evaluated.
const PLAIN: &[&str] = &[
    "set -o history\necho P\nfc -l",
    "set -o history\nfc -ln -1",
    "set +H\necho done",
    "echo $((1+2))",
    "echo $(( 0x1f + 2#101 - 3 ))",
    "n=3; echo $((n*2))",
    "n=3; m=n+1; echo $((m*2)) $[m]",
    "y=$((2+3)); echo $((y*2))",
    "for ((i=0;i<3;i++)); do echo $i; done",
    "for ((i=0;i<3;i++)); do echo $((i*2)); done",
    "n=5; for ((i=0;i<n;i++)); do :; done; echo $((i))",
    "for i in 1 2 3; do echo $((i*2)); done",
    "i=0; while ((i<3)); do ((i++)); done; echo $i",
    "i=0; let i++ 'j = i * 2'; echo $((i + j))",
    "declare -i n=5; n+=2; echo $((n))",
    "[[ $# -eq 0 ]]",
    "n=1; [[ $n -lt 2 && 3 -gt n ]]",
    "x=abcdef; echo ${x:1:2} ${x: -1}",
    "a=(1 2 3); n=2; echo ${a[1]} ${a[n]} ${a[@]} ${#a[@]} ${!a[@]}",
    "x='a[$(touch P)]'; echo \"${!x*}\" \"${!BASH@}\"",
    "x='a[$(touch P)]'; echo \"$x\" ${#x} ${x@Q}",
    "x='a[$(touch P)]'; [ \"$x\" -eq 1 ]",
    "x='a[$(touch P)]'; test \"$x\" -eq 1",
    "y=HOME; echo ${!y}",
    "p='hi there'; echo ${p@P}",
    "printf -v out '%s' 1; echo $out",
    "read -r line <<< hi; echo $line",
    "a=(1 2); unset 'a[1]'; echo ${a[@]}",
    "a[1]=x; i=0; a[i]=y; echo ${a[@]}",
    "declare -n r=USER; echo $r",
    "[[ -v HOME ]]",
    "f() { local -i n=0; n+=1; echo $n; }; f",
    "case 3 in $((1+2))) echo three ;; esac",
    "mapfile -t lines <<< 'a b'; echo ${#lines[@]}",
    "export -n HOME; echo ok",
    "compgen -W 'start stop restart' st",
    "declare -a a=(1 2 3); echo ${a[1]}",
    "declare -a 'a=(x y)'; echo ${a[@]}",
    "export FOO=$HOME/x; declare d=$PWD; echo $FOO $d",
    "a=(1); a=\"(\\$(touch P))\"; echo ${a[@]}",
    "compgen -A file -X '*.o' -- src",
];

fn opts() -> Options {
    Options {
        cwd: Some(PathBuf::from("/nonexistent/w")),
        home: Some(PathBuf::from("/home/u")),
        ..Options::default()
    }
}

/// Whether `bash` can be run; `None` (with a message) when the bash half is
/// skipped. Under `CI=true` a missing bash is a failure.
fn bash() -> Option<()> {
    let ok = Command::new("bash")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        return Some(());
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("bash is not installed: CI runs these cases against it");
    }
    eprintln!("skipped: bash is not installed; only the analysis half of these tests ran");
    None
}

/// Runs `script` under `bash -c` in a new scratch directory and says
/// whether the marker file `P` exists afterwards. Killed after 10 s.
fn bash_creates_marker(script: &str) -> bool {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir.path())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("bash starts");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("bash did not finish within 10 s: {script:?}");
            }
        }
    }
    marker(dir.path())
}

fn marker(dir: &Path) -> bool {
    dir.join("P").exists()
}

#[test]
fn evaluating_contexts_are_unknown() {
    let mut missed = Vec::new();
    for script in EVALUATING {
        if analyze(script, &opts()).unknowns.is_empty() {
            missed.push(*script);
        }
    }
    assert!(
        missed.is_empty(),
        "analysed as if nothing were evaluated:\n{}",
        missed.join("\n")
    );
}

#[test]
fn evaluating_contexts_run_the_command_in_bash() {
    if bash().is_none() {
        return;
    }
    let mut not_real = Vec::new();
    for script in EVALUATING {
        if !bash_creates_marker(script) {
            not_real.push(*script);
        }
    }
    assert!(
        not_real.is_empty(),
        "bash did not run the embedded command (the case proves nothing):\n{}",
        not_real.join("\n")
    );
}

/// A shell's option clusters are read as bash reads them, a letter at a
/// time with `o` and `O` taking the next word, so the script of `-c` is
/// found and walked: `bash -euo pipefail -c 'cat .env'` was taken for a
/// script file named `pipefail`, and the read of `.env` was never seen.
#[test]
fn scripts_after_option_clusters_are_walked() {
    let scripts = [
        "bash -euo pipefail -c 'touch P'",
        "bash -oe pipefail -c 'touch P'",
        "bash -euxo pipefail -c 'touch P'",
        "bash -xeO inherit_errexit -c 'touch P'",
        "bash -c -euo pipefail 'touch P'",
        "sh -euc 'touch P'",
        "bash -ce 'touch P'",
    ];
    for script in scripts {
        let a = analyze(script, &opts());
        assert!(
            a.commands.iter().any(|c| c.argv == ["touch", "P"]),
            "the script of `{script}` was not walked: {:?}",
            a.commands
        );
        assert!(a.unknowns.is_empty(), "{script}: {:?}", a.unknowns);
        if bash().is_some() {
            assert!(
                bash_creates_marker(script),
                "bash did not run the script of {script}"
            );
        }
    }
}

#[test]
fn plain_forms_stay_analysable() {
    let mut flagged = Vec::new();
    for script in PLAIN {
        let a = analyze(script, &opts());
        if !a.unknowns.is_empty() {
            let reasons: Vec<_> = a.unknowns.iter().map(|u| u.reason.as_str()).collect();
            flagged.push(format!("{script}\n    {}", reasons.join("\n    ")));
        }
    }
    assert!(
        flagged.is_empty(),
        "plain forms reported unknown:\n{}",
        flagged.join("\n")
    );
}

#[test]
fn plain_forms_run_nothing_in_bash() {
    if bash().is_none() {
        return;
    }
    for script in PLAIN {
        assert!(
            !bash_creates_marker(script),
            "bash ran the payload of a form taken as plain: {script:?}"
        );
    }
}

#[test]
fn values_from_the_environment_are_unknown() {
    // A variable the script never assigned holds whatever the environment
    // gave it.
    let script = "echo $((v))";
    assert!(!analyze(script, &opts()).unknowns.is_empty());
    if bash().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let status = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(dir.path())
        .env("v", "a[$(touch P)]")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("bash runs");
    let _ = status;
    assert!(marker(dir.path()), "bash did not evaluate `v`");
}

/// `history -r FILE` and `-n` read a file into the history, which
/// `history` prints and `fc` runs; `-a` and `-w` write it. Proven in bash:
/// the file's line is printed back.
#[test]
fn history_reads_and_writes_the_file_it_names() {
    use toolgate_shell::EffectKind;
    let touched = |script: &str| -> Vec<(EffectKind, String)> {
        analyze(script, &opts())
            .effects
            .iter()
            .map(|e| (e.kind, e.target.clone()))
            .collect()
    };
    for flag in ["-r", "-n"] {
        let script = format!("set -o history; history {flag} f; history");
        assert_eq!(
            touched(&script),
            [(EffectKind::Read, "f".to_string())],
            "{script}"
        );
    }
    for flag in ["-a", "-w"] {
        let script = format!("history {flag} f");
        assert_eq!(
            touched(&script),
            [(EffectKind::Write, "f".to_string())],
            "{script}"
        );
    }
    if bash().is_none() {
        return;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    std::fs::write(dir.path().join("f"), "SECRET-LINE\n").expect("file");
    let out = Command::new("bash")
        .arg("-c")
        .arg("set -o history; history -r f; history")
        .current_dir(dir.path())
        .output()
        .expect("bash runs");
    assert!(String::from_utf8_lossy(&out.stdout).contains("SECRET-LINE"));
}

/// Editors that read their commands from their input: `ed`, `red` and
/// `ex` always, `vi`/`vim` when their input is not a terminal (it is
/// redirected or piped). Each runs the `touch P` it is given, where the
/// editor is installed; the analysis reports each as unknown, and an
/// editor given no input stays analysable.
#[test]
fn editors_reading_their_input_are_unknown() {
    let cases: &[(&str, &str)] = &[
        ("ed", "touch x; ed -s x <<< '!touch P'"),
        ("ed", "printf '!touch P\\n' | ed -s"),
        ("ex", "touch x; ex x <<< '!touch P'"),
        ("vim", "touch x; vim -n -u NONE x <<< $':!touch P\\n:q!\\n'"),
        ("vim", "printf ':!touch P\\n:q!\\n' | vim -n -u NONE"),
    ];
    for (program, script) in cases {
        assert!(
            !analyze(script, &opts()).unknowns.is_empty(),
            "`{script}` analysed as if it ran no commands"
        );
        if have(program) && bash().is_some() {
            assert!(bash_creates_marker(script), "`{script}` ran nothing");
        }
    }
    for script in ["vim --version", "vim x", "touch x; cat x"] {
        assert!(
            analyze(script, &opts()).unknowns.is_empty(),
            "`{script}` reported unknown"
        );
    }
}

/// Debuggers and clients whose commands can run a local shell (gdb's
/// `shell`, sftp's `!`, psql's `\!`): given commands on their input or by
/// an option, they are unknown; gdb, where installed, runs `touch P`.
#[test]
fn command_readers_given_commands_are_unknown() {
    for script in [
        "gdb -q <<< 'shell touch P'",
        "echo 'shell touch P' | gdb -q",
        "sftp host <<< '!touch P'",
        "psql -c '\\! touch P'",
        "psql --command='\\! touch P'",
        "psql -f cmds.sql",
        "mysql -e 'system touch P'",
        "make -f - <<< $'all:\\n\\ttouch P'",
        "make --eval=$'all:\\n\\ttouch P'",
        "m4 <<< 'syscmd(touch P)'",
    ] {
        assert!(
            !analyze(script, &opts()).unknowns.is_empty(),
            "`{script}` analysed as if it ran no commands"
        );
    }
    if have("gdb") && bash().is_some() {
        assert!(bash_creates_marker("gdb -q -nx <<< 'shell touch P'"));
    }
    if have("make") && bash().is_some() {
        assert!(bash_creates_marker("make -f - <<< $'all:\\n\\ttouch P'"));
    }
    for script in [
        "psql -l",
        "gdb -q ./a.out",
        "sftp host",
        "make -j\"$N\" test",
        "m4 defs.m4",
    ] {
        assert!(
            analyze(script, &opts()).unknowns.is_empty(),
            "`{script}` reported unknown"
        );
    }
}

/// Words a command gets from its input or from `find` that a shell runs
/// as its script: `xargs sh -c` (the input is the script), `parallel sh
/// -c`, `find -exec sh -c {}` (a file's name is the script). Bash runs
/// the `touch P` each is given; the analysis reports each as unknown.
#[test]
fn words_from_input_or_find_run_as_scripts_are_unknown() {
    let cases = [
        "printf 'touch P' | xargs -0 sh -c",
        "echo '\"touch P\"' | xargs sh -c",
        "xargs -L1 bash -c <<< '\"touch P\"'",
        "touch ';touch P;x'; find . -name '*x' -exec sh -c {} \\;",
        "touch ';touch P;x'; find . -name '*x' -execdir bash -c '{}' \\;",
    ];
    for script in cases {
        assert!(
            !analyze(script, &opts()).unknowns.is_empty(),
            "`{script}` analysed as if it ran no script"
        );
        if bash().is_some() {
            assert!(
                bash_creates_marker(script),
                "`{script}` ran nothing in bash"
            );
        }
    }
    for script in [
        "echo x | xargs echo",
        "find . -name '*.rs' -exec wc -l {} +",
    ] {
        assert!(
            analyze(script, &opts()).unknowns.is_empty(),
            "`{script}` reported unknown"
        );
    }
}

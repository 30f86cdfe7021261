//! GNU parallel, xargs and the other wrappers as their option parsers read
//! them: which word starts the command, and when the command cannot be
//! followed. Each case runs the real program where it is installed, and a
//! marker file shows which command it ran.

use toolgate_shell::{Options, analyze};

use crate::real::{Scratch, have};

/// What the analysis must make of a line.
enum Want {
    /// The wrapped command starts with this word, and nothing is unknown.
    Runs(&'static str),
    /// The analysis sees this program run, among others, whatever else
    /// it cannot follow.
    Sees(&'static str),
    /// The line cannot be followed (it asks).
    Unknown(&'static str),
}

/// `line`'s analysis in `dir`, and whether the real `program`, run, made
/// the marker file `m`.
fn case(s: &Scratch, program: &str, line: &str, want: &Want, marker_made: bool) {
    let a = analyze(
        line,
        &Options {
            cwd: Some(s.path().to_path_buf()),
            ..Options::default()
        },
    );
    match want {
        Want::Runs(program) => {
            assert!(a.unknowns.is_empty(), "{line}: {:?}", a.unknowns);
            let last = a.commands.last().expect("a command");
            assert_eq!(
                last.argv.first().map(String::as_str),
                Some(*program),
                "{line}: {a:?}"
            );
        }
        Want::Sees(program) => {
            assert!(
                a.commands
                    .iter()
                    .any(|c| c.argv.first().map(String::as_str) == Some(*program)),
                "{line}: {a:?}"
            );
        }
        Want::Unknown(why) => {
            assert!(
                a.unknowns.iter().any(|u| u.reason.contains(why)),
                "{line}: want unknown {why:?}, got {:?} {:?}",
                a.unknowns,
                a.commands
            );
        }
    }
    if !have(program) {
        return;
    }
    let _ = std::fs::remove_file(s.join("m"));
    s.run("printf 'a\\n' > list", line);
    assert_eq!(
        s.join("m").exists(),
        marker_made,
        "{line}: the real {program} {} the marker",
        if marker_made { "did not make" } else { "made" }
    );
}

#[test]
fn parallel_options_and_its_shell() {
    let s = Scratch::new();
    for (line, want, made) in [
        // Flags and values, as Getopt::Long reads them.
        ("parallel -X touch {} ::: m", Want::Runs("touch"), true),
        ("parallel -kj1 touch m ::: x", Want::Runs("touch"), true),
        // `--pipe` gives the input on standard input, not as arguments.
        (
            "printf 'a\\n' | parallel --pipe touch m",
            Want::Runs("touch"),
            true,
        ),
        ("parallel -l touch m ::: x", Want::Runs("touch"), true),
        ("parallel -l 1 touch m ::: x", Want::Runs("touch"), true),
        (
            "parallel --max-lines touch m ::: x",
            Want::Runs("touch"),
            true,
        ),
        ("parallel --jobs=2 touch m ::: x", Want::Runs("touch"), true),
        (
            "parallel -P 2 --link touch ::: m ::: x",
            Want::Runs("touch"),
            true,
        ),
        // An optional string value is the next word: `touch` is not run.
        (
            "parallel --replace touch m {} ::: x",
            Want::Runs("m"),
            false,
        ),
        ("parallel -i touch m {} ::: x", Want::Runs("m"), false),
        // The command is read by a shell: what it runs, with the values
        // where parallel puts them.
        ("parallel echo ';' touch m ::: x", Want::Sees("touch"), true),
        (
            "parallel echo '$(touch m)' ::: x",
            Want::Sees("touch"),
            true,
        ),
        (
            "parallel 'echo {} | touch m' ::: x",
            Want::Runs("touch"),
            true,
        ),
        ("parallel echo 'a b' ::: x", Want::Runs("echo"), false),
        // A quote a value could lie within is not followed.
        (
            "parallel \"echo '{}'; touch m\" ::: x",
            Want::Unknown("hands its command to a shell"),
            true,
        ),
        // Unless it is quoted.
        (
            "parallel -q echo ';' touch m ::: x",
            Want::Runs("echo"),
            false,
        ),
        // Perl code, files of arguments, files written.
        (
            "parallel echo '{=qx(touch m)=}' ::: x",
            Want::Unknown("Perl code"),
            true,
        ),
        (
            "parallel --rpl '{x} qx(touch m)' echo {x} ::: x",
            Want::Unknown("evaluates Perl code"),
            true,
        ),
        (
            "parallel -a list touch m",
            Want::Unknown("reads its arguments or options from elsewhere"),
            true,
        ),
        (
            "parallel touch m :::: list",
            Want::Unknown("reads its arguments from files"),
            true,
        ),
        (
            "parallel --joblog m echo ::: x",
            Want::Unknown("writes files the command does not name"),
            true,
        ),
        (
            "parallel --tmpd /tmp touch m ::: x",
            Want::Unknown("is not known"),
            true,
        ),
    ] {
        case(&s, "parallel", line, &want, made);
    }
}

/// The values parallel puts in a command line stand for no variable a
/// script could set.
#[test]
fn parallel_values_are_never_known() {
    for line in [
        "PARALLEL_VALUE=a.txt; parallel 'rm {}' ::: /etc/passwd",
        "export PARALLEL_VALUE=a.txt; parallel 'rm {}; echo' ::: /etc/passwd",
    ] {
        let a = analyze(line, &Options::default());
        let rm = a
            .commands
            .iter()
            .find(|c| c.argv.first().is_some_and(|n| n == "rm"))
            .expect("rm is seen");
        assert_eq!(rm.non_literal, [1], "{line}: {a:?}");
        assert!(
            a.effects.iter().all(|e| !e.literal && e.target != "a.txt"),
            "{line}: {a:?}"
        );
    }
}

#[test]
fn xargs_options_as_getopt_reads_them() {
    let s = Scratch::new();
    for (line, want, made) in [
        (
            "echo a | xargs --max-lines touch m",
            Want::Runs("touch"),
            true,
        ),
        ("echo a | xargs -rP 1 touch m", Want::Runs("touch"), true),
        ("echo a | xargs -0 touch m", Want::Runs("touch"), true),
        (
            "echo a | xargs --proc echo touch m",
            Want::Unknown("is not known"),
            true,
        ),
        (
            "echo a | xargs --arg list touch m",
            Want::Unknown("is not known"),
            true,
        ),
    ] {
        case(&s, "xargs", line, &want, made);
    }
}

/// getopt_long takes an unambiguous abbreviation of a long option, with
/// the value the whole option takes: a wrapper's options are all known, or
/// its command is not.
#[test]
fn wrapper_options_abbreviated() {
    let s = Scratch::new();
    for (line, want, made) in [
        ("/usr/bin/time -o out touch m", Want::Runs("touch"), true),
        (
            "/usr/bin/time --output=out touch m",
            Want::Runs("touch"),
            true,
        ),
        (
            "/usr/bin/time --out echo touch m",
            Want::Unknown("is not known"),
            true,
        ),
    ] {
        case(&s, "/usr/bin/time", line, &want, made);
    }
    for (line, want, made) in [
        ("env --u echo touch m", Want::Runs("touch"), true),
        ("env --unset=echo touch m", Want::Runs("touch"), true),
        ("env --ch . touch m", Want::Runs("touch"), true),
        ("env --i echo touch m", Want::Unknown("is not known"), false),
    ] {
        case(&s, "env", line, &want, made);
    }
    for (line, want, made) in [
        (
            "timeout --preserve-status 5 touch m",
            Want::Runs("touch"),
            true,
        ),
        (
            "timeout --pres 5 touch m",
            Want::Unknown("is not known"),
            true,
        ),
    ] {
        case(&s, "timeout", line, &want, made);
    }
}

/// Every long option a wrapper's `--help` lists, whole and as its
/// shortest abbreviation, before `echo touch m` (and with a leading word
/// that a value or operand could take): where the analysis says the
/// command is `echo` and knows nothing else, the real program must not
/// have run `touch`.
#[test]
fn no_wrapper_option_hides_the_command_it_runs() {
    let s = Scratch::new();
    std::fs::write(s.join("lst"), "a\n").expect("list file");
    let mut checked = 0;
    for wrapper in [
        "timeout",
        "nice",
        "nohup",
        "stdbuf",
        "/usr/bin/time",
        "setsid",
        "ionice",
        "chrt",
        "taskset",
        "env",
        "xargs",
        "flock",
        "script",
        "strace",
        "unshare",
        "parallel",
    ] {
        let Ok(help) = std::process::Command::new(wrapper).arg("--help").output() else {
            eprintln!("skipped: {wrapper} is not installed");
            continue;
        };
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&help.stdout),
            String::from_utf8_lossy(&help.stderr)
        );
        let mut options: Vec<String> = text
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .filter_map(|w| w.strip_prefix("--"))
            .filter(|o| o.starts_with(|c: char| c.is_ascii_lowercase()))
            .map(String::from)
            .collect();
        options.sort();
        options.dedup();
        for o in &options {
            let shortest = (1..o.len())
                .map(|n| &o[..n])
                .find(|p| options.iter().filter(|x| x.starts_with(p)).count() == 1)
                .unwrap_or(o);
            for form in [format!("--{o}"), format!("--{shortest}")] {
                for tail in ["echo touch m", "1 echo touch m", "lst echo touch m"] {
                    let line = if wrapper == "xargs" {
                        format!("echo a | xargs {form} {tail}")
                    } else {
                        format!("{wrapper} {form} {tail}")
                    };
                    let a = analyze(
                        &line,
                        &Options {
                            cwd: Some(s.path().to_path_buf()),
                            ..Options::default()
                        },
                    );
                    let seen_echo = a.unknowns.is_empty()
                        && a.commands
                            .last()
                            .is_some_and(|c| c.argv.first().is_some_and(|n| n == "echo"));
                    if !seen_echo {
                        continue;
                    }
                    checked += 1;
                    let _ = std::fs::remove_file(s.join("m"));
                    s.run("", &line);
                    assert!(
                        !s.join("m").exists(),
                        "`{line}`: the analysis sees `echo`, the real {wrapper} ran `touch`"
                    );
                }
            }
        }
    }
    eprintln!("{checked} lines the analysis reads as `echo` ran as `echo`");
}

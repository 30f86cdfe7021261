//! sed scripts and awk programs that run commands, read or write files in
//! ways a looser reading of their text missed: each case is run with the
//! real programs (GNU sed; `awk`, mawk or gawk, whichever is installed) in
//! a scratch directory to show it does what it is said to do, and analysed
//! to show toolgate reports it (an unknown, or the read or write).
//!
//! Each case stands for a class: a `:label` ended by `;` or a blank, a
//! bracket expression holding the delimiter, a text ended by an escaped
//! backslash, a pipe to a variable, a backslash-newline or a newline after
//! a comma inside a statement, a regex holding `;` or `"`, `ARGV` chosen
//! by the program. `@D` stands for the scratch directory.

use std::path::PathBuf;

use toolgate_shell::{Analysis, EffectKind, Options, analyze};

use crate::real::{Scratch, have};

/// What the real program is shown to do.
#[derive(Clone, Copy, Debug)]
enum Proof {
    /// Runs `touch @D/M`: the marker file exists afterwards.
    Runs,
    /// Prints what `.env` holds.
    PrintsSecret,
    /// Creates this file.
    Creates(&'static str),
}

/// What the analysis must report.
#[derive(Clone, Copy, Debug)]
enum Seen {
    Unknown,
    Reads(&'static str),
    Writes(&'static str),
}

/// Files every case starts with.
const SETUP: &str = "mkdir -p src; echo SECRET > .env; echo readme > README.md";

fn opts(s: &Scratch) -> Options {
    Options {
        cwd: Some(s.path().to_path_buf()),
        home: Some(PathBuf::from("/home/u")),
        ..Options::default()
    }
}

fn show(a: &Analysis) -> String {
    format!(
        "commands {:?}\neffects {:?}\nunknowns {:?}",
        a.commands
            .iter()
            .map(|c| (c.argv.join(" "), c.read_only))
            .collect::<Vec<_>>(),
        a.effects
            .iter()
            .map(|e| (e.kind, e.target.as_str()))
            .collect::<Vec<_>>(),
        a.unknowns.iter().map(|u| &u.reason).collect::<Vec<_>>(),
    )
}

/// Runs `script` in a fresh scratch directory and checks `proof`, then
/// analyses it and checks `seen`: the case is both real and reported.
fn prove(program: &str, script: &str, proof: Proof, seen: Seen) {
    let s = Scratch::new();
    let filled = s.fill(script);
    if have(program) {
        let out = s.run(SETUP, script);
        let done = match proof {
            Proof::Runs => s.join("M").exists(),
            Proof::PrintsSecret => out.contains("SECRET"),
            Proof::Creates(f) => s.join(f).exists(),
        };
        assert!(done, "`{filled}` did not do {proof:?}; it printed {out:?}");
    }
    let a = analyze(&filled, &opts(&s));
    let reported = match seen {
        Seen::Unknown => !a.unknowns.is_empty(),
        Seen::Reads(t) => a
            .effects
            .iter()
            .any(|e| e.kind == EffectKind::Read && e.target == t),
        Seen::Writes(t) => a
            .effects
            .iter()
            .any(|e| e.kind == EffectKind::Write && e.target == t),
    };
    assert!(reported, "`{filled}`: {seen:?} not reported\n{}", show(&a));
    // A write or a command run makes the call more than a read.
    assert!(
        matches!(seen, Seen::Reads(_))
            || a.commands
                .iter()
                .filter(|c| matches!(c.argv.first().map(String::as_str), Some("sed" | "awk")))
                .all(|c| !c.read_only),
        "`{filled}` is read-only\n{}",
        show(&a)
    );
}

/// GNU sed ends a `:label` (and a `b`, `t`, `T` label) at `;`, a blank,
/// `}`, `#` or a newline; what follows is a command.
#[test]
fn sed_commands_after_a_label() {
    for (script, proof, seen) in [
        ("echo 'touch @D/M' | sed ':a;e'", Proof::Runs, Seen::Unknown),
        ("echo 'touch @D/M' | sed ':a e'", Proof::Runs, Seen::Unknown),
        (
            "echo 'touch @D/M' | sed -n ':a;s/x*//e'",
            Proof::Runs,
            Seen::Unknown,
        ),
        (
            "echo 'touch @D/M' | sed 'b a;:a;e'",
            Proof::Runs,
            Seen::Unknown,
        ),
        (
            "echo 'touch @D/M' | sed 'ta;:a;e'",
            Proof::Runs,
            Seen::Unknown,
        ),
        (
            "echo x | sed ':a;w src/pwn'",
            Proof::Creates("src/pwn"),
            Seen::Writes("src/pwn"),
        ),
        (
            "sed ':a;r .env' README.md",
            Proof::PrintsSecret,
            Seen::Reads(".env"),
        ),
    ] {
        prove("sed", script, proof, seen);
    }
}

/// A bracket expression in a regex may hold the delimiter (`[/]`, `[]/]`,
/// `[^]/]`, `[[:alpha:]/]`): the regex goes on past it.
#[test]
fn sed_delimiter_inside_brackets() {
    for (script, proof, seen) in [
        (
            "echo 'touch @D/M' | sed '/[/]*/e'",
            Proof::Runs,
            Seen::Unknown,
        ),
        (
            "echo 'touch @D/M' | sed '/[]/]*/e'",
            Proof::Runs,
            Seen::Unknown,
        ),
        (
            "echo 'touch @D/M' | sed '/[^]/]*/e'",
            Proof::Runs,
            Seen::Unknown,
        ),
        (
            "echo 'touch @D/M' | sed '/[[:alpha:]/]*/e'",
            Proof::Runs,
            Seen::Unknown,
        ),
        (
            "echo 'touch @D/M' | sed 's/[/]*$/;/e'",
            Proof::Runs,
            Seen::Unknown,
        ),
        (
            "echo x | sed '/[/]*/w src/pwn'",
            Proof::Creates("src/pwn"),
            Seen::Writes("src/pwn"),
        ),
        (
            "sed '/[/]*/r .env' README.md",
            Proof::PrintsSecret,
            Seen::Reads(".env"),
        ),
        (
            "echo x | sed 's/[/]*//w src/pwn'",
            Proof::Creates("src/pwn"),
            Seen::Writes("src/pwn"),
        ),
    ] {
        prove("sed", script, proof, seen);
    }
}

/// The text of `a`, `i`, `c` ends at the first newline no backslash
/// escapes: `x\\` then a newline ends it, in one script or across `-e`
/// fragments (an `a\` ending one fragment goes on into the next).
#[test]
fn sed_commands_after_a_text() {
    for (script, proof, seen) in [
        (
            "printf 'touch @D/M\\n' | sed 'a\\\nx\\\\\ne'",
            Proof::Runs,
            Seen::Unknown,
        ),
        (
            "printf 'touch @D/M\\n' | sed 'i\\\nx\\\\\ne'",
            Proof::Runs,
            Seen::Unknown,
        ),
        (
            "printf 'touch @D/M\\n' | sed 'a x\\\\\ne'",
            Proof::Runs,
            Seen::Unknown,
        ),
        (
            "printf 'touch @D/M\\n' | sed 'a\\\\\ne'",
            Proof::Runs,
            Seen::Unknown,
        ),
        (
            "sed 'a\\\nx\\\\\nr .env' README.md",
            Proof::PrintsSecret,
            Seen::Reads(".env"),
        ),
        (
            "printf 'touch @D/M\\n' | sed -e 'a\\' -e 'x\\\\' -e 'e'",
            Proof::Runs,
            Seen::Unknown,
        ),
        (
            "sed -e 'a\\' -e 'x\\\\' -e 'r .env' README.md",
            Proof::PrintsSecret,
            Seen::Reads(".env"),
        ),
    ] {
        prove("sed", script, proof, seen);
    }
}

/// A pipe to or from a command held in a variable, or split from its
/// `getline` by a backslash-newline; a `"` inside a regex, which does not
/// open a string.
#[test]
fn awk_pipes_anywhere() {
    for script in [
        "awk 'BEGIN{ s=\"sh\"; print \"touch @D/M\" | s }'",
        "awk 'BEGIN{ s=\"sh\"; printf(\"touch @D/M\\n\") | s }'",
        "awk 'BEGIN{ c = \"touch @D/M\"; c|\\\ngetline }'",
        "echo '\"' | awk '/\"/{ print \"touch @D/M\" | \"sh\" } # \"'",
    ] {
        prove("awk", script, Proof::Runs, Seen::Unknown);
    }
}

/// A `print` redirection after a newline that follows a comma, after a
/// regex holding `;`, or after a comment; `getline` into an element or a
/// field from a file.
#[test]
fn awk_redirections_anywhere() {
    for (script, proof) in [
        (
            "awk 'BEGIN{ print \"x\",\n\"y\" > \"@D/M\" }'",
            Proof::Creates("M"),
        ),
        (
            "awk 'BEGIN{ print \"x\", # c\n\"y\" > \"@D/M\" }'",
            Proof::Creates("M"),
        ),
        ("awk 'BEGIN{ print /;/ > \"@D/M\" }'", Proof::Creates("M")),
        (
            "awk 'BEGIN{ print \"x\" \\\n > \"@D/M\" }'",
            Proof::Creates("M"),
        ),
        (
            "awk 'BEGIN{ getline a[1] < \".env\"; print a[1] }'",
            Proof::PrintsSecret,
        ),
        (
            "awk 'BEGIN{ getline $0 < \".env\"; print }'",
            Proof::PrintsSecret,
        ),
    ] {
        prove("awk", script, proof, Seen::Unknown);
    }
}

/// The program chooses the files awk reads through `ARGV` and `ARGC`.
#[test]
fn awk_argv_chosen_by_the_program() {
    for script in [
        "awk 'BEGIN{ARGV[1]=\".env\";ARGC=2}1'",
        "awk 'BEGIN{ARGV[ARGC++]=\".env\"}1'",
        "awk 'BEGIN{ARGV[1]=sprintf(\"%s%s\", \".\", \"env\"); ARGC=2}1'",
        "awk 'BEGIN{ ARGC = 1 + split(\".env\", ARGV) }1'",
        "awk 'function f(a){ a[1]=\".env\" } BEGIN{ f(ARGV); ARGC=2 }1'",
    ] {
        prove("awk", script, Proof::PrintsSecret, Seen::Unknown);
    }
}

/// `ARGC` assigned with `-v` or as an operand only chooses among the
/// operands (`ARGV` cannot be assigned so): awk reads no other file, and
/// the operands are what the analysis reports.
#[test]
fn awk_argc_assigned_outside_the_program_reads_only_operands() {
    for script in [
        "awk -v ARGC=3 '1' README.md",
        "awk '1' README.md ARGC=3",
        "awk -v ARGV=.env '1' README.md",
    ] {
        let s = Scratch::new();
        if have("awk") {
            let out = s.run(SETUP, script);
            assert!(!out.contains("SECRET"), "`{script}` printed {out:?}");
        }
        let a = analyze(script, &opts(&s));
        assert!(
            a.effects
                .iter()
                .any(|e| e.kind == EffectKind::Read && e.target == "README.md"),
            "{}",
            show(&a)
        );
    }
}

/// Ordinary scripts and programs stay analysed, with nothing unknown and
/// nothing written; they are run too, to show they are what they look
/// like (nothing is created).
#[test]
fn ordinary_sed_and_awk_stay_analysed() {
    for (program, script) in [
        ("sed", "sed -n '1,5p' README.md"),
        ("sed", "sed 's/[/]/_/g; s|a\\|b|x|' README.md"),
        ("sed", "sed -n '/[/]x/p; /^#/d' README.md"),
        ("sed", "sed ':a;N;$!ba;s/\\n/ /g' README.md"),
        ("sed", "sed -E 's/(a|b)+/x/g; y/abc/xyz/' README.md"),
        ("sed", "sed '$a\\' README.md"),
        ("sed", "sed '1i\\\nheader\n$a\\\nfooter' README.md"),
        ("sed", "sed 's/a/b/;ta;s/c/d/;:a' README.md"),
        ("awk", "awk '{print $1}' README.md"),
        ("awk", "awk -F: '$3 > 1000 {print $1}' README.md"),
        ("awk", "awk '{s+=$1} END {print s}' README.md"),
        ("awk", "awk 'NR==1 || /x/' README.md"),
        ("awk", "awk '/a|b/ { print $1/2, \"a|b>c\" }' README.md"),
        ("awk", "awk '{ print (NF > 1) } # > x' README.md"),
    ] {
        let s = Scratch::new();
        if have(program) {
            s.run(SETUP, script);
            let made: Vec<_> = std::fs::read_dir(s.path())
                .map(|d| {
                    d.filter_map(Result::ok)
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            let mut made: Vec<String> = made;
            made.sort();
            assert_eq!(made, [".env", "README.md", "src"], "`{script}`");
            assert_eq!(
                std::fs::read_dir(s.join("src")).map(|d| d.count()).ok(),
                Some(0),
                "`{script}`"
            );
        }
        let a = analyze(script, &opts(&s));
        assert!(
            a.unknowns.is_empty()
                && a.effects.iter().all(|e| e.kind == EffectKind::Read)
                && a.commands.iter().all(|c| c.read_only),
            "`{script}` is not harmless\n{}",
            show(&a)
        );
    }
}

/// A small deterministic generator (xorshift), so that a failure names a
/// case that comes again.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

/// Runs `program` with `args` in a fresh directory holding `.env`, with
/// `touch M` and two more lines on its standard input; killed after 3 s
/// (a script may loop). What it did: whether `M` exists, whether it
/// printed the secret, and the other files it created.
fn run_in_scratch(program: &str, args: &[&str]) -> (bool, bool, Vec<String>) {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let s = Scratch::new();
    std::fs::write(s.join(".env"), "SECRET\n").expect("write .env");
    let mut child = Command::new(program)
        .args(args)
        .current_dir(s.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starts");
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(b"touch M\nx\na\n");
    }
    let deadline = Instant::now() + Duration::from_secs(3);
    while matches!(child.try_wait(), Ok(None)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = child.kill();
    let _ = child.wait();
    let mut out = String::new();
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut out);
    }
    let made = std::fs::read_dir(s.path())
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n != ".env" && n != "M")
                .collect()
        })
        .unwrap_or_default();
    (s.join("M").exists(), out.contains("SECRET"), made)
}

/// Whether the analysis of `cmd` reports what the run did: anything
/// unknown, or the read of `.env` and the write of each file made.
fn reports(cmd: &str, read: bool, made: &[String]) -> bool {
    let a = analyze(cmd, &Options::default());
    !a.unknowns.is_empty()
        || ((!read
            || a.effects
                .iter()
                .any(|e| e.kind == EffectKind::Read && e.target == ".env"))
            && made.iter().all(|m| {
                a.effects
                    .iter()
                    .any(|e| e.kind == EffectKind::Write && e.target == *m)
            }))
}

/// Scripts put together at random from the pieces the classes above are
/// made of (labels, texts, bracket expressions, delimiters, `-e`
/// fragments), run with GNU sed: whatever one runs, reads or writes, the
/// analysis reports.
#[test]
fn random_sed_scripts_do_nothing_unreported() {
    if !have("sed") {
        return;
    }
    let addresses = [
        "",
        "",
        "1",
        "$",
        "/x/",
        "/[/]*/",
        "\\%[%]%",
        "/[]/]/",
        "/a\\/b/",
        "0~2",
        "1,$",
        "/x/I,+1",
        "2!",
        "/[[:alpha:]/]*/ ",
    ];
    let commands = [
        ":a",
        "b a",
        "ba",
        "t",
        "Ta",
        "e",
        "e touch M",
        "s/x*//e",
        "s/[/]*$/;/e",
        "s|a|b|e",
        "w wf",
        "r .env",
        "R .env",
        "W wf",
        "s/t/t/w wf",
        "a\\\nx\\\\",
        "a\\\nx\\",
        "a x\\\\",
        "a x",
        "i\\",
        "c\\\nq\\\\",
        "a\\\\",
        "y/abc/xyz/",
        "y/[/]/",
        "p",
        "n",
        "N",
        "x",
        "g",
        "z",
        "F",
        "=",
        "l 5",
        "q",
        "{",
        "}",
        "v",
        "#c",
        "s/[/]//",
        "s/a/\\\n/",
        "a\\   ",
    ];
    let separators = [";", "\n", " ", "", "};", "\n}\n", "#z\n", "\\\n"];
    let mut rng = Rng(0x5eed_5eed_1234_5678);
    let mut missed = Vec::new();
    for _ in 0..400 {
        let mut fragments = Vec::new();
        loop {
            let mut f = String::new();
            for _ in 0..=rng.below(4) {
                f.push_str(rng.pick(&addresses));
                f.push_str(rng.pick(&commands));
                f.push_str(rng.pick(&separators));
            }
            fragments.push(f);
            if rng.below(3) != 0 {
                break;
            }
        }
        let mut args = vec!["-n"];
        for f in &fragments {
            args.push("-e");
            args.push(f);
        }
        let (ran, read, made) = run_in_scratch("sed", &args);
        let cmd = format!(
            "sed -n {}",
            fragments
                .iter()
                .map(|f| format!("-e '{f}'"))
                .collect::<Vec<_>>()
                .join(" ")
        );
        if (ran || read || !made.is_empty()) && !reports(&cmd, read, &made) {
            missed.push(cmd);
        }
    }
    assert!(missed.is_empty(), "unreported:\n{}", missed.join("\n---\n"));
}

/// awk programs put together at random from statements that pipe, redirect
/// or read, split by newlines, comments, backslash-newlines and regexes
/// holding `;` or `"`, run with the installed awk: whatever one runs, reads
/// or writes, the analysis reports.
#[test]
fn random_awk_programs_do_nothing_unreported() {
    if !have("awk") {
        return;
    }
    let seps = [";", "\n", " ; ", "\\\n;", " # c\n", "; # ; \n"];
    let blanks = [" ", "", "\\\n", "\n", " # x\n"];
    let exprs = [
        "\"x\"",
        "$0",
        "x",
        "/;/",
        "/\"/",
        "(1>2)",
        "a[1]",
        "\"a|b\"",
        "1/2",
        "NR",
        "length($0)",
        "\"\\\"\"",
        "(x)",
    ];
    let wraps = [
        ("BEGIN{", "}"),
        ("{", "}"),
        ("END{", "}"),
        ("NR==1{", "}"),
        ("/x/{", "}"),
    ];
    let mut rng = Rng(0x0a3c_0de0_9876_5431);
    let mut missed = Vec::new();
    for _ in 0..400 {
        let mut body = String::new();
        for n in 0..=rng.below(3) {
            if n > 0 {
                body.push_str(rng.pick(&seps));
            }
            let (b1, b2, e1, e2) = (
                rng.pick(&blanks),
                rng.pick(&blanks),
                rng.pick(&exprs),
                rng.pick(&exprs),
            );
            let sep = rng.pick(&seps);
            let stmt = match rng.below(12) {
                0 => format!("print{b1}{e1}{b2}> \"wf\""),
                1 => format!("print {e1},{b1}{e2} > \"wf\""),
                2 => format!("s=\"sh\"{sep}print \"touch M\"{b1}|{b2}s"),
                3 => format!("c=\"touch M\"{sep}c{b1}|getline"),
                4 => format!("getline{b1}a[1]{b2}< \".env\"{sep}print a[1]"),
                5 => format!("ARGV[1]=\".env\"{sep}ARGC=2"),
                6 => format!("printf(\"%s\\n\", {e1}){b1}>>{b2}\"wf\""),
                7 => format!("if ({e1}) print {e2}"),
                8 => format!("print {e1} {e2}"),
                9 => "while ((getline l) > 0) n++".to_string(),
                10 => format!("print {e1}, {e2}"),
                _ => "n = split($0, a, \"/\")".to_string(),
            };
            body.push_str(&stmt);
        }
        let (open, close) = wraps[rng.below(wraps.len())];
        let program = format!("{open}{body}{close}");
        let (ran, read, made) = run_in_scratch("awk", &[&program]);
        let cmd = format!("awk '{program}'");
        if (ran || read || !made.is_empty()) && !reports(&cmd, read, &made) {
            missed.push(cmd);
        }
    }
    assert!(missed.is_empty(), "unreported:\n{}", missed.join("\n---\n"));
}

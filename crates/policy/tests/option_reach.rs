//! Options and subcommands that make an allowed program read or write
//! more than its operands, against the real programs: `sed -i` keeps a
//! backup where its suffix says (a `*` in it is the file's name, so any
//! directory), `grep -d recurse` is `grep -r`, `diff DIR DIR` reads the
//! files in both, `make` reads the makefiles a cluster or `MAKEFILES`
//! names, `cargo fmt` rewrites the sources and `cargo test -- --logfile`
//! writes where it says. Each is decided, then run to show it does what
//! the decision is about.

use std::process::Command;

use toolgate_policy::Effect;

use crate::scratch::{Scratch, expect, printed};

/// A workspace with `.env` (the secret), `README.md`, a Rust package
/// (`Cargo.toml`, `src/main.rs`) and `policy`.
fn workspace(policy: &str) -> Scratch {
    Scratch::new(
        policy,
        &[
            (".env", "SECRET=2\n"),
            ("README.md", "x\n"),
            ("src/main.rs", "fn main(){println!(\"hi\");}\n"),
            (
                "Cargo.toml",
                "[package]\nname = \"x\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
        ],
    )
}

const READ_ONLY: &str = "[policy]\ndefault = \"ask\"\n\nallow = [\"Read\", \"Edit\", \"Bash(sed *)\", \"Bash(grep *)\", \"Bash(diff *)\", \"Bash(make *)\", \"Bash(cargo *)\"]\ndeny = [\"Read(.env)\", \"Edit(src/**)\"]\n";

#[test]
fn a_sed_backup_goes_where_its_suffix_says() {
    let w = workspace(READ_ONLY);
    // The policy file itself: the agent writes `toolgate` and sed's backup
    // of it is `toolgate.toml`.
    for (cmd, rule) in [
        ("sed -i'src/*' s/x/y/ README.md", "deny[1]"),
        ("sed --in-place='src/*' s/x/y/ README.md", "deny[1]"),
        ("sed -Ei'src/*' s/x/y/ README.md", "deny[1]"),
        ("sed -i'../*' s/x/y/ README.md", "hard:outside-roots"),
        ("sed -i'*.toml' s/x/y/ toolgate", "hard:policy-file"),
    ] {
        let d = w.decide(cmd);
        expect(&d, Effect::Deny, Some(rule), cmd);
    }
    // An ordinary in-place edit, and its backup beside it, stay allowed.
    for cmd in [
        "sed -i s/x/y/ README.md",
        "sed -i.bak s/x/y/ README.md",
        "sed -ie s/x/y/ README.md",
    ] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
    let out = w.run("sed -i'src/*' s/x/y/ README.md");
    assert!(w.ws.join("src/README.md").exists(), "{out:?}");
    let out = w.run("sed -ie s/y/z/ README.md");
    assert!(
        w.ws.join("README.mde").exists(),
        "the suffix is `e`: {out:?}"
    );
    std::fs::write(w.ws.join("toolgate"), "allow = [\"Bash\"]\n").unwrap();
    let out = w.run("sed -i'*.toml' s/x/y/ toolgate");
    let now = std::fs::read_to_string(w.ws.join("toolgate.toml")).unwrap();
    assert_eq!(
        now, "allow = [\"Bash\"]\n",
        "sed replaced the policy: {out:?}"
    );
}

#[test]
fn grep_d_recurse_and_diff_of_directories_read_what_they_hold() {
    let w = workspace(READ_ONLY);
    for cmd in [
        "grep -d recurse SECRET .",
        "grep -d recurse SECRET",
        "grep -drecurse SECRET .",
        "grep --directories=rec SECRET .",
        "grep --di=recurse SECRET .",
        "diff -N . src",
        "diff --unidirectional-new-file src .",
        "diff -N --from-file=. src",
    ] {
        let d = w.decide(cmd);
        expect(&d, Effect::Deny, Some("deny[0]"), cmd);
        let out = w.run(cmd);
        assert!(printed(&out).contains("SECRET=2"), "{cmd} run: {out:?}");
    }
    for cmd in [
        "grep -d skip x README.md",
        "grep -d read x README.md",
        "diff README.md src/main.rs",
    ] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
}

#[test]
fn make_reads_the_makefiles_a_cluster_or_makefiles_names() {
    if !Command::new("make")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped: GNU make is not installed");
        return;
    }
    let w = workspace(READ_ONLY);
    for cmd in [
        "make -pq MAKEFILES=.env",
        "make -spf.env",
        "make --fi=.env -pq",
        "make -sp -f.env",
    ] {
        let d = w.decide(cmd);
        expect(&d, Effect::Deny, Some("deny[0]"), cmd);
        let out = w.run(cmd);
        assert!(printed(&out).contains("SECRET = 2"), "{cmd} run: {out:?}");
    }
    let d = w.decide("make MAKEFLAGS=-f.env");
    assert_eq!(d.decision, Effect::Ask, "{}", d.reason);
    for cmd in ["make -j4 test", "make -C src", "make -k"] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
}

/// make reads the variables of its command line and of its environment
/// as the makefile's: `RM`, `.SHELLFLAGS`, `CFLAGS` change the commands
/// its recipes run. Each is unanalysable; run, the recipe runs `touch P`.
/// A plain number (`V=1`) and the locale pass.
#[test]
fn make_variables_from_the_command_line_or_environment_change_its_recipes() {
    if !Command::new("make")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped: GNU make is not installed");
        return;
    }
    let w = workspace(READ_ONLY);
    std::fs::write(
        w.ws.join("Makefile"),
        "all:\n\t@echo built\nclean:\n\t$(RM) nothing.o\n",
    )
    .expect("makefile");
    for cmd in [
        "make RM='touch P' clean",
        "RM='touch P' make clean",
        "env RM='touch P' make clean",
        "export RM='touch P'; make clean",
        "make .SHELLFLAGS='-c touch\\ P' all",
        "make -s .SHELLFLAGS:='-c touch\\ P' all",
    ] {
        let d = w.decide(cmd);
        expect(&d, Effect::Ask, None, cmd);
        let _ = std::fs::remove_file(w.ws.join("P"));
        let out = w.run(cmd);
        assert!(w.ws.join("P").exists(), "{cmd} run: {out:?}");
    }
    for cmd in [
        "make V=1 all",
        "V=1 make all",
        "LANG=C make all",
        "make -j4 all",
    ] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
}

/// `gzip -dN` writes under the name stored in the archive, not the name
/// it is given: unanalysable. Run, it replaces the policy file.
#[test]
fn gzip_restoring_the_stored_name_writes_an_unknown_file() {
    let w = workspace(&READ_ONLY.replace(
        "\"Bash(make *)\"",
        "\"Bash(make *)\", \"Bash(gzip *)\", \"Bash(gunzip *)\"",
    ));
    std::fs::write(w.base.join("toolgate.toml"), "allow = [\"*\"]\n").expect("file");
    let out = Command::new("gzip")
        .args(["-k", "toolgate.toml"])
        .current_dir(&w.base)
        .output()
        .expect("gzip runs");
    assert!(out.status.success(), "{out:?}");
    std::fs::copy(w.base.join("toolgate.toml.gz"), w.ws.join("e.gz")).expect("copy");
    for cmd in [
        "gzip -dNf e.gz",
        "gunzip -fN e.gz",
        "gzip --decompress --name -f e.gz",
    ] {
        expect(&w.decide(cmd), Effect::Ask, None, cmd);
    }
    for cmd in ["gzip -dc e.gz", "gzip -dNc e.gz", "gzip -N README.md"] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
    let out = w.run("gzip -dNf e.gz");
    assert_eq!(
        std::fs::read_to_string(w.ws.join("toolgate.toml")).unwrap_or_default(),
        "allow = [\"*\"]\n",
        "{out:?}"
    );
}

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

const RUNNERS: &str = "[policy]\ndefault = \"ask\"\n\nallow = [\"Read\", \"Edit\", \"Bash(cargo *)\", \"Bash(zgrep *)\", \"Bash(python3 -m pytest *)\", \"Bash(pytest *)\", \"Bash(gpg *)\", \"Bash(strings *)\", \"Bash(csplit *)\", \"Bash(gcc *)\"]\ndeny = [\"Read(.env)\", \"Edit(src/**)\"]\n";

/// Options and variables by which an allowed program runs a program of
/// the caller's choosing: `cargo +DIR` (a toolchain directory's own
/// cargo), `GREP=` for zgrep, gcc's `-wrapper`, gpg's `--agent-program`.
/// Each is unanalysable; run, each creates the marker.
#[test]
fn programs_chosen_by_an_option_or_variable_are_not_allowed() {
    let w = workspace(RUNNERS);
    let tc = w.base.join("tc/bin");
    std::fs::create_dir_all(&tc).expect("toolchain");
    let fake = tc.join("cargo");
    std::fs::write(&fake, format!("#!/bin/sh\ntouch {}/P\n", w.ws.display())).expect("cargo");
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("mode");
    let out = Command::new("gzip")
        .args(["-c", "README.md"])
        .current_dir(&w.ws)
        .output()
        .expect("gzip");
    std::fs::write(w.ws.join("a.gz"), out.stdout).expect("a.gz");
    let cases = [
        (
            format!("cargo +{} build", w.base.join("tc").display()),
            "cargo",
        ),
        ("GREP='touch P' zgrep x a.gz".to_string(), "zgrep"),
        (
            "gcc -wrapper /bin/sh,-c,'touch P' -x c -c /dev/null -o /dev/null".to_string(),
            "gcc",
        ),
        (
            format!(
                "gpg --homedir {} --agent-program /bin/sh --card-status",
                w.base.display()
            ),
            "",
        ),
        ("gpg --agent-prog=x --list-keys".to_string(), ""),
    ];
    for (cmd, program) in &cases {
        let d = w.decide(cmd);
        expect(&d, Effect::Ask, None, cmd);
        if program.is_empty() {
            continue;
        }
        if !have(program) {
            eprintln!("skipped running `{cmd}`: {program} is not installed");
            continue;
        }
        let _ = std::fs::remove_file(w.ws.join("P"));
        let out = w.run(cmd);
        if *program == "cargo" && !printed(&out).is_empty() && !w.ws.join("P").exists() {
            // Without rustup's proxy, `+DIR` is no toolchain.
            eprintln!("skipped running `{cmd}`: cargo is not rustup's: {out:?}");
            continue;
        }
        assert!(w.ws.join("P").exists(), "{cmd} run: {out:?}");
    }
    for cmd in [
        "cargo +nightly build",
        "zgrep x a.gz",
        "gcc -O2 -c x.c -o x.o",
    ] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
}

/// `@FILE` is read by binutils and gcc as more arguments (its text shown
/// in the error for what it is not), pytest runs the tests of the paths it
/// is given, and csplit's prefix names the directory it writes into: each
/// is the read or write of what it names.
#[test]
fn files_named_by_response_files_test_paths_and_prefixes() {
    let w = workspace(RUNNERS);
    let other = w.base.join("other");
    std::fs::create_dir_all(&other).expect("other");
    std::fs::write(
        other.join("test_x.py"),
        format!(
            "open({:?}, 'w').close()\ndef test_x():\n    pass\n",
            w.ws.join("P").display().to_string()
        ),
    )
    .expect("test file");
    let outside = other.join("test_x.py").display().to_string();
    for (cmd, rule) in [
        ("strings @.env".to_string(), "deny[0]"),
        ("csplit -f src/ README.md 1".to_string(), "deny[1]"),
        (
            format!("python3 -m pytest -q {outside}"),
            "hard:outside-roots",
        ),
        (
            "python3 -m pytest -q ../other".to_string(),
            "hard:outside-roots",
        ),
        (format!("pytest {outside}::test_x"), "hard:outside-roots"),
    ] {
        let d = w.decide(&cmd);
        expect(&d, Effect::Deny, Some(rule), &cmd);
    }
    let out = w.run("strings @.env");
    assert!(printed(&out).contains("SECRET=2"), "{out:?}");
    let out = w.run("csplit -f src/ README.md 1");
    assert!(w.ws.join("src/00").exists(), "{out:?}");
    let out = w.run(&format!(
        "python3 -m pytest -q -p no:cacheprovider {outside}"
    ));
    if printed(&out).contains("No module named pytest") {
        eprintln!("skipped running pytest: it is not installed");
    } else {
        assert!(w.ws.join("P").exists(), "{out:?}");
    }
    for cmd in [
        "python3 -m pytest -q tests -k 'a and b'",
        "pytest tests/test_a.py::test_b -x",
        "csplit -f parts/ README.md 1",
    ] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
}

/// The agent must not answer the gate's own questions: `toolgate
/// approvals approve ID` (the refusal it reads names the id), accepting a
/// changed MCP tool, trusting a policy, installing or removing a hook are
/// a hard limit under any allow of toolgate; what only reads is not. A
/// database opened through a `file:` URI (which decodes to any path, the
/// state directory's included) is not followed.
#[test]
fn the_agent_cannot_answer_the_gate_for_itself() {
    let w = workspace("allow = [\"Read\", \"Edit\", \"Bash(toolgate *)\", \"Bash(sqlite3 *)\"]\n");
    for cmd in [
        "toolgate approvals approve 5",
        "toolgate approvals decline 5 --note ok",
        "/usr/local/bin/toolgate approvals approve 5",
        "toolgate mcp pins accept fs",
        "toolgate trust .",
        "toolgate hook install claude --undo",
        "toolgate-hook sandbox -- true; toolgate approvals approve 7",
        "toolgate $SUB approve 5",
    ] {
        expect(&w.decide(cmd), Effect::Deny, Some("hard:catastrophic"), cmd);
    }
    for cmd in [
        "toolgate approvals list",
        "toolgate check --batch - < calls.json",
        "toolgate audit verify",
        "toolgate policy show",
    ] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
    for cmd in [
        "sqlite3 'file:db.sqlite?mode=rwc' 'create table t(x)'",
        "sqlite3 FILE:%2e/db.sqlite 'select 1'",
    ] {
        expect(&w.decide(cmd), Effect::Ask, None, cmd);
    }
    let out = w.run("sqlite3 'file:db.sqlite?mode=rwc' 'create table t(x)'");
    if printed(&out).contains("not found") {
        eprintln!("skipped running sqlite3: it is not installed");
    } else {
        assert!(w.ws.join("db.sqlite").exists(), "{out:?}");
    }
}

#[test]
fn cargo_rewrites_sources_and_its_harness_writes_a_log() {
    let w = workspace(READ_ONLY);
    for (cmd, rule) in [
        ("cargo fmt", "deny[1]"),
        ("cargo fix --allow-dirty --allow-no-vcs", "deny[1]"),
        ("cargo clippy --fix --allow-no-vcs", "deny[1]"),
        (
            "cargo test -q -- --logfile /tmp/toolgate-cargo-log",
            "hard:outside-roots",
        ),
    ] {
        let d = w.decide(cmd);
        expect(&d, Effect::Deny, Some(rule), cmd);
    }
    let d = w.decide("cargo rustc -q -- @.env");
    assert_eq!(d.decision, Effect::Ask, "{}", d.reason);
    for cmd in [
        "cargo fmt --check",
        "cargo build",
        "cargo test -- --nocapture",
        "cargo clippy",
    ] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
    // Where Edit is allowed, formatting is too (the filter keeps `.git`
    // and the policy file out of it).
    let w2 = workspace(
        "[policy]\ndefault = \"ask\"\n\nallow = [\"Read\", \"Edit\", \"Bash(cargo *)\"]\ndeny = [\"Edit(.git/**)\"]\n",
    );
    std::fs::create_dir_all(w2.ws.join(".git")).unwrap();
    let d = w2.decide("cargo fmt");
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);

    let fmt = Command::new("cargo").args(["fmt", "--version"]).output();
    if !fmt.is_ok_and(|o| o.status.success()) {
        eprintln!("skipped running cargo fmt: rustfmt is not installed");
        return;
    }
    let before = std::fs::read_to_string(w.ws.join("src/main.rs")).unwrap();
    let out = w.run("cargo fmt");
    let after = std::fs::read_to_string(w.ws.join("src/main.rs")).unwrap();
    assert_ne!(before, after, "cargo fmt rewrote src/main.rs: {out:?}");
}

#[test]
fn jq_reads_its_program_file_from_any_cluster() {
    if !Command::new("jq")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("jq is not installed: CI runs this test");
        }
        eprintln!("skipped: jq is not installed");
        return;
    }
    let w = workspace(
        "[policy]\ndefault = \"ask\"\n\nallow = [\"Read\", \"Bash(jq *)\"]\ndeny = [\"Read(.env)\"]\n",
    );
    for cmd in [
        "jq -nf .env",
        "jq -fn .env",
        "jq -rf .env README.md",
        "jq -f -n .env",
        "jq --run-tests .env",
    ] {
        let d = w.decide(cmd);
        expect(&d, Effect::Deny, Some("deny[0]"), cmd);
        let out = w.run(cmd);
        assert!(printed(&out).contains("SECRET=2"), "{cmd} run: {out:?}");
    }
    std::fs::write(w.ws.join("a.json"), "{\"x\": 1}\n").unwrap();
    for cmd in [
        "jq .x a.json",
        "jq -r '.x' a.json",
        "jq -n --arg f .env '$f'",
    ] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
}

const COPIES: &str = "[policy]\ndefault = \"ask\"\n\nallow = [\"Read\", \"Edit\", \"Bash(cp *)\", \"Bash(mv *)\", \"Bash(ln *)\", \"Bash(install *)\", \"Bash(patch *)\", \"Bash(find *)\", \"Bash(xargs *)\", \"Bash(ls *)\"]\ndeny = [\"Read(.env)\", \"Edit(src/**)\"]\n";

#[test]
fn a_copy_lands_in_the_directory_it_names_and_its_backup_where_the_suffix_says() {
    let w = workspace(COPIES);
    for (cmd, want) in [
        ("cp README.md src", (Effect::Deny, Some("deny[1]"))),
        ("cp -t src README.md", (Effect::Deny, Some("deny[1]"))),
        ("ln README.md src", (Effect::Deny, Some("deny[1]"))),
        ("ln -s /etc/hostname src", (Effect::Deny, Some("deny[1]"))),
        ("install -t src README.md", (Effect::Deny, Some("deny[1]"))),
        (
            "cp -b -S .toml README.md toolgate",
            (Effect::Deny, Some("hard:policy-file")),
        ),
        (
            "cp -bS.toml README.md toolgate",
            (Effect::Deny, Some("hard:policy-file")),
        ),
        (
            "mv --backup=simple --suffix=.toml README.md toolgate",
            (Effect::Deny, Some("hard:policy-file")),
        ),
        (
            "install -b -S .toml README.md toolgate",
            (Effect::Deny, Some("hard:policy-file")),
        ),
        (
            "patch -b -z c/main.rs sr sr.patch",
            (Effect::Deny, Some("deny[1]")),
        ),
        // Options whose value is optional do not take the next word.
        ("cp --backup .env docs", (Effect::Deny, Some("deny[0]"))),
        ("cp --preserve .env docs", (Effect::Deny, Some("deny[0]"))),
        ("install -C .env docs", (Effect::Deny, Some("deny[0]"))),
    ] {
        let d = w.decide(cmd);
        expect(&d, want.0, want.1, cmd);
    }
    for cmd in [
        "install -s --strip-program=sh a b",
        "find . -name README.md | xargs --process-slot-var=PATH ls",
    ] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Ask, "{cmd}: {}", d.reason);
    }
    for cmd in [
        "cp README.md docs",
        "cp -r src/ copy",
        "mv README.md notes.md",
        "find . | xargs --process-slot-var=SLOT ls",
    ] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }

    // Run for real.
    let out = w.run("cp README.md src");
    assert!(w.ws.join("src/README.md").exists(), "{out:?}");
    std::fs::write(w.ws.join("toolgate"), "allow = [\"Bash\"]\n").unwrap();
    let out = w.run("cp -b -S .toml README.md toolgate");
    assert_eq!(
        std::fs::read_to_string(w.ws.join("toolgate.toml")).unwrap(),
        "allow = [\"Bash\"]\n",
        "cp's backup replaced the policy: {out:?}"
    );
    let out = w.run("cp --backup .env docs");
    assert!(
        std::fs::read_to_string(w.ws.join("docs")).is_ok_and(|t| t.contains("SECRET=2")),
        "{out:?}"
    );
    // patch's backup suffix holds a `/`.
    if !Command::new("patch")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        eprintln!("skipped running patch: GNU patch is not installed");
        return;
    }
    std::fs::write(w.ws.join("sr"), "a\n").unwrap();
    std::fs::write(
        w.ws.join("sr.patch"),
        "--- sr\n+++ sr\n@@ -1 +1 @@\n-a\n+b\n",
    )
    .unwrap();
    let before = std::fs::read_to_string(w.ws.join("src/main.rs")).unwrap();
    let out = w.run("patch -b -z c/main.rs sr sr.patch");
    let after = std::fs::read_to_string(w.ws.join("src/main.rs")).unwrap();
    assert_ne!(
        before, after,
        "patch's backup overwrote src/main.rs: {out:?}"
    );
}

#[test]
fn variables_that_name_files_a_reader_opens() {
    let w = workspace(
        "[policy]\ndefault = \"ask\"\n\nallow = [\"Read\", \"Bash(file *)\", \"Bash(ls *)\", \"Bash(stat *)\"]\ndeny = [\"Read(.env)\"]\n",
    );
    // `file` prints each line of a "magic file" it cannot use.
    let d = w.decide("MAGIC=/x:.env file README.md");
    assert_eq!(d.decision, Effect::Ask, "{}", d.reason);
    let out = w.run("MAGIC=/x:.env file README.md");
    assert!(printed(&out).contains("SECRET=2"), "{out:?}");
    // The C library opens a time zone file `TZ` names.
    let tz = format!("TZ=:{}/.env stat README.md", w.ws.display());
    let d = w.decide(&tz);
    expect(&d, Effect::Deny, Some("deny[0]"), &tz);
    for cmd in [
        "TZDIR=. TZ=k ls -l",
        "TZ=$X ls -l",
        "TZ=../../.env ls -l",
        "TZ=.env ls",
    ] {
        let d = w.decide(cmd);
        assert_ne!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
    for cmd in [
        "TZ=UTC ls -l",
        "TZ=America/New_York stat README.md",
        "TZ=:UTC ls",
    ] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
}

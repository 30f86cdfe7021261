//! Archives against the real GNU tar and Info-ZIP unzip: where an
//! extraction writes, which files an archive is made from, and which it
//! removes, read as the programs read their command lines. Each case
//! runs the command for real in a scratch workspace and shows it doing
//! the forbidden thing (a marker in the policy file, in an Edit-denied
//! file, outside the workspace; a secret in the archive), and that the
//! decision no longer allows it. Ordinary commands stay allowed.

use std::path::Path;
use std::process::Command;

use toolgate_policy::{Decision, Effect};

use crate::scratch::{Scratch, expect};

const POLICY: &str = r#"
allow = ["Read", "Edit", "Bash(tar *)", "Bash(unzip *)", "Bash(mkdir *)", "Bash(cat *)", "Bash(ln *)"]
deny = ["Read(.env)", "Edit(src/**)"]
"#;

const SECRET: &str = "SECRET=2";
const MARK: &str = "PWNED-BY-ARCHIVE";

fn have(program: &str) -> bool {
    let ok = Command::new(program)
        .arg(if program == "unzip" {
            "-v"
        } else {
            "--version"
        })
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: {program} is not installed; its cases were not run");
    }
    ok
}

/// A workspace with `src/`, `docs/`, `.env` (the secret), `src/main.rs`
/// and `README.md`; beside it (outside the roots) the payloads an
/// archive carries in: `stage/evil/toolgate.toml`, `stage/evil/main.rs`,
/// `stage/through/l/main.rs`, and `stage/links/`.
fn ws() -> Scratch {
    let w = Scratch::new(
        POLICY,
        &[
            ("docs/", ""),
            (".env", &format!("{SECRET}\n")),
            ("src/main.rs", "fn main() {}\n"),
            ("README.md", "r\n"),
        ],
    );
    for d in ["stage/evil", "stage/links", "stage/through/l"] {
        std::fs::create_dir_all(w.base.join(d)).expect("directory");
    }
    std::fs::write(
        w.base.join("stage/evil/toolgate.toml"),
        format!("# {MARK}\n"),
    )
    .expect("evil");
    std::fs::write(w.base.join("stage/evil/main.rs"), format!("// {MARK}\n")).expect("evil");
    std::fs::write(
        w.base.join("stage/through/l/main.rs"),
        format!("// {MARK}\n"),
    )
    .expect("evil");
    w
}

/// Runs `command` under bash in the workspace (`@B` is the workspace's
/// parent); returns standard output.
fn run(w: &Scratch, command: &str) -> String {
    run_status(w, command, 0)
}

fn run_status(w: &Scratch, command: &str, status: i32) -> String {
    let command = command.replace("@B", &w.base.display().to_string());
    let out = w.run(&command);
    assert_eq!(out.status.code(), Some(status), "{command}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn marked(p: &Path) -> bool {
    std::fs::read_to_string(p).is_ok_and(|t| t.contains(MARK))
}

#[track_caller]
fn allowed(d: &Decision, what: &str) {
    assert_eq!(d.decision, Effect::Allow, "{what}: {}", d.reason);
}

/// Not allowed: asked (an unknown) or denied.
#[track_caller]
fn not_allowed(d: &Decision, what: &str) {
    assert_ne!(d.decision, Effect::Allow, "{what}: {}", d.reason);
}

/// F1: each `-C` is relative to the one before, and an extraction goes
/// where the last one leaves tar: `-C docs -C ..` is the workspace
/// (the policy file), `-C docs -C ../src` an Edit-denied directory. In
/// create mode a later `-C` moves where the files after it are read.
#[test]
fn every_directory_option_counts_in_order() {
    if !have("tar") {
        return;
    }
    let w = ws();
    run(
        &w,
        "tar -cf docs/e.tar -C @B/stage/evil toolgate.toml main.rs",
    );
    let cmd = "tar -xf docs/e.tar -C docs -C ..";
    // A write of the whole workspace: `.env` beneath is denied.
    expect(&w.decide(cmd), Effect::Deny, Some("deny[0]"), cmd);
    run(&w, cmd);
    assert!(
        marked(&w.ws.join("toolgate.toml")),
        "{cmd}: ran, policy kept"
    );

    let w = ws();
    run(&w, "tar -cf docs/e.tar -C @B/stage/evil main.rs");
    for cmd in [
        "tar -xf docs/e.tar -C docs -C ../src",
        "tar xf docs/e.tar -C docs --directory=../src",
        "tar -x -f docs/e.tar -Cdocs -C../src",
        "tar -xf docs/e.tar --dir docs --dir ../src",
    ] {
        expect(&w.decide(cmd), Effect::Deny, Some("deny[1]"), cmd);
    }
    let cmd = "tar -xf docs/e.tar -C docs -C ../src";
    run(&w, cmd);
    assert!(marked(&w.ws.join("src/main.rs")), "{cmd}: ran, src kept");

    // Creating: `.env` is read from where the second `-C` leads.
    let w = ws();
    let cmd = "tar -cf docs/o.tar -C docs -C .. .env";
    expect(&w.decide(cmd), Effect::Deny, Some("deny[0]"), cmd);
    run(&w, cmd);
    assert!(run(&w, "tar -xOf docs/o.tar").contains(SECRET), "{cmd}");
}

/// F2: with `-P` members keep absolute names and `..`: an extraction
/// writes wherever the archive says, outside `-C` and outside the roots.
#[test]
fn absolute_names_make_an_extraction_unknown() {
    if !have("tar") {
        return;
    }
    for cmd in [
        "tar -xPf docs/q.tar -C docs",
        "tar xPf docs/q.tar -C docs",
        "tar -xf docs/q.tar --abs -C docs",
        "tar --absolute-names -x -f docs/q.tar -C docs",
    ] {
        let w = ws();
        run(
            &w,
            "tar -cPf docs/q.tar --transform 's,^,@B/OUTSIDE_,' README.md",
        );
        let d = w.decide(cmd);
        not_allowed(&d, cmd);
        assert!(d.reason.contains("-P"), "{cmd}: {}", d.reason);
        run(&w, cmd);
        assert!(w.base.join("OUTSIDE_README.md").exists(), "{cmd}: ran");
    }
    // Listing such an archive writes nothing.
    let w = ws();
    run(
        &w,
        "tar -cPf docs/q.tar --transform 's,^,@B/OUTSIDE_,' README.md",
    );
    let cmd = "tar -tPf docs/q.tar";
    allowed(&w.decide(cmd), cmd);
}

/// F4: `--remove-files` deletes what it archived; F5: `--add-file=F`
/// archives F like an operand. Also as abbreviations and after an
/// old-style bundle.
#[test]
fn files_removed_and_added_by_option() {
    if !have("tar") {
        return;
    }
    for (cmd, rule, gone) in [
        (
            "tar -cf docs/b.tar --remove-files src/main.rs",
            "deny[1]",
            "src/main.rs",
        ),
        (
            "tar cf docs/b.tar --remove-f src/main.rs",
            "deny[1]",
            "src/main.rs",
        ),
        (
            "tar -cf docs/c.tar --remove-files toolgate.toml",
            "hard:policy-file",
            "toolgate.toml",
        ),
    ] {
        let w = ws();
        expect(&w.decide(cmd), Effect::Deny, Some(rule), cmd);
        run(&w, cmd);
        assert!(!w.ws.join(gone).exists(), "{cmd}: ran, {gone} kept");
    }
    for cmd in [
        "tar cf docs/a.tar --add-file=.env",
        "tar -cf docs/a.tar --add-f=.env",
        "tar -cf docs/a.tar --add-file .env",
        "tar -cf docs/a.tar -C docs --add-file=../.env",
    ] {
        let w = ws();
        expect(&w.decide(cmd), Effect::Deny, Some("deny[0]"), cmd);
        run(&w, cmd);
        assert!(run(&w, "tar -xOf docs/a.tar").contains(SECRET), "{cmd}");
    }
}

/// F9: the first extraction plants `docs/l -> ../src`, the second writes
/// `l/main.rs` through it. A second extraction into (or above, or
/// beneath) a directory an earlier part of the command unpacked into is
/// unknown.
#[test]
fn a_second_extraction_over_the_first_is_unknown() {
    if !have("tar") {
        return;
    }
    let setup = "mkdir -p arc && ln -s ../src @B/stage/links/l && tar -cf arc/s1.tar -C @B/stage/links l \
                 && tar -cf arc/t.tar -C @B/stage/through l/main.rs";
    for cmd in [
        "tar -xf arc/s1.tar -C docs && tar -xf arc/t.tar -C docs",
        "tar -xf arc/s1.tar -C docs; tar -xf arc/t.tar -C docs/.",
        "tar -xf arc/s1.tar -C docs && tar -xf arc/t.tar -C ./docs/",
        "ln -s ../src docs/l && tar -xf arc/t.tar -C docs",
    ] {
        let w = ws();
        run(&w, setup);
        let d = w.decide(cmd);
        expect(&d, Effect::Ask, None, cmd);
        assert!(d.reason.contains("writes through"), "{cmd}: {}", d.reason);
        run(&w, cmd);
        assert!(marked(&w.ws.join("src/main.rs")), "{cmd}: ran, src kept");
    }
    // Above: the first extraction into `docs/x`, the second into `docs`
    // (whose members may be `x/l/..`); beneath: into `docs`, then
    // `docs/x` (which the first may have made a link).
    let w = ws();
    let cmd = "tar -xf arc/s1.tar -C docs/x && tar -xf arc/t.tar -C docs";
    let d = w.decide(cmd);
    expect(&d, Effect::Ask, None, cmd);
    assert!(d.reason.contains("writes through"), "{cmd}: {}", d.reason);
    let cmd = "tar -xf arc/s1.tar -C docs && tar -xf arc/t.tar -C docs/x";
    expect(&w.decide(cmd), Effect::Ask, None, cmd);
    // Separate directories stay allowed.
    let cmd =
        "mkdir -p docs/a docs/b && tar -xf arc/s1.tar -C docs/a && tar -xf arc/t.tar -C docs/b";
    run(&w, setup);
    allowed(&w.decide(cmd), cmd);
}

/// `--transform` on extraction renames members (unknown); `--one-top-level=DIR`
/// extracts beneath DIR; `--to-stdout` writes nothing.
#[test]
fn renamed_and_redirected_extractions() {
    if !have("tar") {
        return;
    }
    let w = ws();
    run(&w, "tar -cf docs/e.tar -C @B/stage/evil main.rs");
    for cmd in [
        "tar -xf docs/e.tar -C docs --transform 's,^,x/,'",
        "tar -xf docs/e.tar -C docs --xform=s/a/b/",
        "tar -x -s /a/b/ -f docs/e.tar -C docs",
    ] {
        not_allowed(&w.decide(cmd), cmd);
    }
    let cmd = "tar -xf docs/e.tar --one-top-level=src";
    expect(&w.decide(cmd), Effect::Deny, Some("deny[1]"), cmd);
    run(&w, cmd);
    assert!(marked(&w.ws.join("src/main.rs")), "{cmd}: ran");
    let cmd = "tar -xOf docs/e.tar";
    allowed(&w.decide(cmd), cmd);
}

/// F3: `unzip -:` keeps `../` in member names and writes outside `-d`
/// (`-^` only lets control characters through: the `../` is still
/// taken off). F15: `-dDIR` is the directory, whatever letters DIR holds.
#[test]
fn unzip_reads_its_options_as_unzip_does() {
    if !have("unzip") || !have("zip") {
        return;
    }
    let w = ws();
    run(
        &w,
        "mkdir -p docs/z && cd docs/z && printf '// PWNED-BY-ARCHIVE\\n' > ../../zz.rs \
         && zip -q ../p.zip ../../zz.rs && rm ../../zz.rs",
    );
    for cmd in [
        "unzip -: docs/p.zip -d docs/z",
        "unzip -o: docs/p.zip -d docs/z",
    ] {
        let d = w.decide(cmd);
        expect(&d, Effect::Ask, None, cmd);
        assert!(d.reason.contains("-:"), "{cmd}: {}", d.reason);
    }
    run(&w, "unzip -: docs/p.zip -d docs/z");
    assert!(marked(&w.ws.join("zz.rs")), "unzip -: ran, ../ dropped");
    std::fs::remove_file(w.ws.join("zz.rs")).expect("rm");
    let cmd = "unzip -^ docs/p.zip -d docs/z";
    allowed(&w.decide(cmd), cmd);
    // unzip warns of the `../` it took off (status 1).
    run_status(&w, cmd, 1);
    assert!(!w.ws.join("zz.rs").exists(), "{cmd}: wrote outside docs/z");

    for cmd in [
        "unzip -o -dsrc docs/a.zip",
        "unzip -o docs/a.zip -dsrc",
        "unzip -od src docs/a.zip",
        "unzip -qo docs/a.zip -d src",
    ] {
        let w = ws();
        run(&w, "cd @B/stage/evil && zip -q @B/ws/docs/a.zip main.rs");
        expect(&w.decide(cmd), Effect::Deny, Some("deny[1]"), cmd);
        run(&w, cmd);
        assert!(marked(&w.ws.join("src/main.rs")), "{cmd}: ran");
    }
}

/// What people type every day stays allowed.
#[test]
fn ordinary_archive_commands_stay_allowed() {
    if !have("tar") || !have("unzip") || !have("zip") {
        return;
    }
    let w = ws();
    run(
        &w,
        "tar -czf a.tgz README.md && tar -cf a.tar README.md && zip -q a.zip README.md",
    );
    for cmd in [
        "tar -czf out.tgz src",
        "mkdir -p build && tar -xzf a.tgz -C build",
        "tar xzf a.tgz -C build",
        "tar -tf a.tar",
        "tar tvf a.tar",
        "unzip -l a.zip",
        "unzip a.zip -d out",
        "unzip -o a.zip -d out",
        "unzip -q a.zip README.md -x x.md -d out2",
    ] {
        allowed(&w.decide(cmd), cmd);
        run(&w, cmd);
    }
}

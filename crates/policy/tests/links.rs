//! Hard links, against the real `ln` and `cp`: a hard link is another
//! name for the same file, so writing through it changes the file under
//! every name. Making one is a write of the source (the policy file, a
//! file an Edit rule denies) and a read of it (a Read-denied file), and a
//! write of a file that already has other names asks, since one of them
//! may be protected or denied; one that is the policy file is the policy
//! file.

use std::path::PathBuf;
use std::process::Command;

use serde_json::json;
use toolgate_policy::{Call, Decision, Effect, LoadOptions, Policy};

const POLICY: &str = r#"
allow = ["Read", "Edit", "Bash(ln *)", "Bash(cp *)", "Bash(echo *)"]
deny = ["Read(.env)", "Edit(locked/**)"]
"#;

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    policy: Policy,
}

fn ws() -> Ws {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let root = base.join("ws");
    std::fs::create_dir_all(root.join("locked")).unwrap();
    std::fs::create_dir_all(base.join("home")).unwrap();
    std::fs::write(root.join("toolgate.toml"), POLICY).unwrap();
    std::fs::write(root.join(".env"), "KEY=1\n").unwrap();
    std::fs::write(root.join("locked/a"), "a\n").unwrap();
    std::fs::write(root.join("README.md"), "r\n").unwrap();
    let policy = Policy::load(
        &root.join("toolgate.toml"),
        &LoadOptions {
            workspace: Some(root.clone()),
            home: Some(base.join("home")),
            state_dir: Some(base.join("state")),
        },
    )
    .unwrap();
    Ws {
        _dir: dir,
        root,
        policy,
    }
}

fn shell(w: &Ws, command: &str) -> Decision {
    let mut call = Call::new("run_shell", json!({ "command": command }));
    call.cwd = Some(w.root.clone());
    w.policy.decide(&call)
}

fn run(w: &Ws, command: &str) {
    let out = Command::new("bash")
        .args(["-c", command])
        .current_dir(&w.root)
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "{command}: {out:?}");
}

#[track_caller]
fn expect(d: &Decision, effect: Effect, rule: &str, what: &str) {
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (effect, Some(rule)),
        "{what}: {}",
        d.reason
    );
}

/// Making a hard link to the policy file, a Read-denied or an
/// Edit-denied file is refused; run, each link writes through to the
/// source.
#[test]
fn making_a_hard_link_is_a_write_and_a_read_of_the_source() {
    for (cmd, effect, rule, source, link) in [
        (
            "ln toolgate.toml notes.txt",
            Effect::Deny,
            "hard:policy-file",
            "toolgate.toml",
            "notes.txt",
        ),
        (
            "cp -l toolgate.toml notes.txt",
            Effect::Deny,
            "hard:policy-file",
            "toolgate.toml",
            "notes.txt",
        ),
        (
            "ln -f toolgate.toml notes.txt",
            Effect::Deny,
            "hard:policy-file",
            "toolgate.toml",
            "notes.txt",
        ),
        (
            "ln .env notes.txt",
            Effect::Deny,
            "deny[0]",
            ".env",
            "notes.txt",
        ),
        (
            "ln locked/a notes.txt",
            Effect::Deny,
            "deny[1]",
            "locked/a",
            "notes.txt",
        ),
        (
            "cp -al locked l2",
            Effect::Deny,
            "deny[1]",
            "locked/a",
            "l2/a",
        ),
    ] {
        let w = ws();
        let d = shell(&w, cmd);
        expect(&d, effect, rule, cmd);
        run(&w, cmd);
        run(&w, &format!("echo changed >> {link}"));
        let now = std::fs::read_to_string(w.root.join(source)).unwrap();
        assert!(
            now.ends_with("changed\n"),
            "{cmd}: run for real, {source} did not change"
        );
    }
    // A symbolic link is a name that leads to the file, resolved when it
    // is used; a hard link to a file the rules let be written is allowed.
    let w = ws();
    for cmd in [
        "ln -s toolgate.toml t2",
        "ln README.md r2",
        "cp -l README.md r3",
    ] {
        assert_eq!(shell(&w, cmd).decision, Effect::Allow, "{cmd}");
    }
}

/// A hard link made where the gate did not see it (another program, an
/// earlier session): a write through it is a write of the policy file,
/// or asks when the file has other names.
#[test]
fn writing_a_file_with_other_names_is_judged_by_them() {
    let w = ws();
    std::fs::hard_link(w.root.join("toolgate.toml"), w.root.join("notes.txt")).unwrap();
    std::fs::hard_link(w.root.join("locked/a"), w.root.join("a.txt")).unwrap();
    let write = |path: &str| {
        let mut call = Call::new(
            "write_file",
            json!({ "path": w.root.join(path).display().to_string(), "content": "allow = [\"*\"]\n" }),
        );
        call.cwd = Some(w.root.clone());
        w.policy.decide(&call)
    };
    for d in [
        shell(&w, "echo '[policy]' >> notes.txt"),
        write("notes.txt"),
    ] {
        expect(&d, Effect::Deny, "hard:policy-file", "notes.txt");
    }
    for d in [shell(&w, "echo x > a.txt"), write("a.txt")] {
        expect(&d, Effect::Ask, "protected", "a.txt");
        assert!(d.reason.contains("hard links"), "{}", d.reason);
    }
    assert_eq!(shell(&w, "echo x > README.md").decision, Effect::Allow);
    run(&w, "echo x > a.txt");
    assert_eq!(
        std::fs::read_to_string(w.root.join("locked/a")).unwrap(),
        "x\n"
    );
}

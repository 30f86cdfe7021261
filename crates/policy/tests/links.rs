//! Hard links, against the real `ln` and `cp`: a hard link is another
//! name for the same file, so writing through it changes the file under
//! every name. Making one is a write of the source (the policy file, a
//! file an Edit rule denies) and a read of it (a Read-denied file), and a
//! write of a file that already has other names asks, since one of them
//! may be protected or denied; one that is the policy file is the policy
//! file.

use serde_json::json;
use toolgate_policy::{Call, Effect};

use crate::scratch::{Scratch, expect};

const POLICY: &str = r#"
allow = ["Read", "Edit", "Bash(ln *)", "Bash(cp *)", "Bash(echo *)"]
deny = ["Read(.env)", "Edit(locked/**)"]
"#;

fn ws() -> Scratch {
    Scratch::new(
        POLICY,
        &[
            (".env", "KEY=1\n"),
            ("locked/a", "a\n"),
            ("README.md", "r\n"),
        ],
    )
}

/// Runs `command` with bash in the workspace; it must succeed.
#[track_caller]
fn run(w: &Scratch, command: &str) {
    let out = w.run(command);
    assert!(out.status.success(), "{command}: {out:?}");
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
        let d = w.decide(cmd);
        expect(&d, effect, Some(rule), cmd);
        run(&w, cmd);
        run(&w, &format!("echo changed >> {link}"));
        let now = std::fs::read_to_string(w.ws.join(source)).unwrap();
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
        assert_eq!(w.decide(cmd).decision, Effect::Allow, "{cmd}");
    }
}

/// A hard link made where the gate did not see it (another program, an
/// earlier session): a write through it is a write of the policy file,
/// or asks when the file has other names.
#[test]
fn writing_a_file_with_other_names_is_judged_by_them() {
    let w = ws();
    std::fs::hard_link(w.ws.join("toolgate.toml"), w.ws.join("notes.txt")).unwrap();
    std::fs::hard_link(w.ws.join("locked/a"), w.ws.join("a.txt")).unwrap();
    let write = |path: &str| {
        let mut call = Call::new(
            "write_file",
            json!({ "path": w.ws.join(path).display().to_string(), "content": "allow = [\"*\"]\n" }),
        );
        call.cwd = Some(w.ws.clone());
        w.policy.decide(&call)
    };
    for d in [w.decide("echo '[policy]' >> notes.txt"), write("notes.txt")] {
        expect(&d, Effect::Deny, Some("hard:policy-file"), "notes.txt");
    }
    for d in [w.decide("echo x > a.txt"), write("a.txt")] {
        expect(&d, Effect::Ask, Some("protected"), "a.txt");
        assert!(d.reason.contains("hard links"), "{}", d.reason);
    }
    assert_eq!(w.decide("echo x > README.md").decision, Effect::Allow);
    run(&w, "echo x > a.txt");
    assert_eq!(
        std::fs::read_to_string(w.ws.join("locked/a")).unwrap(),
        "x\n"
    );
}

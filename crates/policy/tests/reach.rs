//! What a read can reach, decided: system and toolchain locations are
//! read roots, and credentials are denied whatever allows reading.

use std::path::{Path, PathBuf};

use serde_json::json;
use toolgate_policy::{Call, Decision, Effect, LoadOptions, Policy};

struct Ws {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl Ws {
    /// A workspace (`<tmp>/ws`) with `.env`, sources and a `secrets/`
    /// directory, and a home directory (`<tmp>/home`) beside it holding a
    /// key, a cloud credential and a package cache.
    fn new() -> Ws {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let root = base.join("ws");
        let home = base.join("home");
        for (p, c) in [
            ("ws/.env", "KEY=1\n"),
            ("ws/.env.local", "KEY=2\n"),
            ("ws/a.c", "int a;\n"),
            ("ws/src/main.rs", "fn main() {}\n"),
            ("ws/src/lib.rs", "\n"),
            ("ws/secrets/prod.txt", "x\n"),
            ("ws/notes.txt", "n\n"),
            ("home/.ssh/id_rsa", "KEY\n"),
            ("home/.aws/credentials", "KEY\n"),
            (
                "home/.cargo/registry/src/x-1.0/src/lib.rs",
                "pub fn x() {}\n",
            ),
            ("home/.cargo/credentials.toml", "token\n"),
        ] {
            let p = base.join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, c).unwrap();
        }
        Ws {
            _dir: dir,
            root,
            home,
        }
    }

    fn policy(&self, toml: &str) -> Policy {
        let file = self.root.join("toolgate.toml");
        std::fs::write(&file, toml).unwrap();
        let opts = LoadOptions {
            home: Some(self.home.clone()),
            state_dir: Some(self.root.join("../state")),
            ..LoadOptions::default()
        };
        Policy::load(&file, &opts).unwrap()
    }

    fn link(&self, target: &Path, name: &str) {
        std::os::unix::fs::symlink(target, self.root.join(name)).unwrap();
    }
}

fn sh(p: &Policy, command: &str) -> Decision {
    p.decide(&Call::new("run_shell", json!({ "command": command })))
}

fn read(p: &Policy, path: &str) -> Decision {
    p.decide(&Call::new("read_file", json!({ "path": path })))
}

#[track_caller]
fn expect(d: &Decision, decision: Effect, rule: Option<&str>) {
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (decision, rule),
        "{}",
        d.reason
    );
}

/// A developer's policy: reading allowed, the reading programs allowed,
/// `.env` and `secrets/` denied.
const DEV: &str = r#"
allow = ["Read", "Bash(cat *)", "Bash(grep *)", "Bash(rg *)", "Bash(find *)", "Bash(wc *)",
         "Bash(xargs *)", "Bash(head *)", "Bash(nl *)", "Bash(ls *)", "Bash(git grep *)"]
deny = ["Read(.env)", "Read(secrets/)"]
"#;

// Class 1: system and toolchain locations, credentials.

#[test]
fn system_and_toolchain_locations_are_read_roots() {
    let ws = Ws::new();
    let p = ws.policy(DEV);
    for cmd in [
        "cat /etc/os-release",
        "head /usr/include/stdio.h",
        "nl -ba /usr/lib/os-release",
        "cat ~/.cargo/registry/src/x-1.0/src/lib.rs",
        "ls ~/.cargo/registry/src",
    ] {
        expect(&sh(&p, cmd), Effect::Allow, Some(&rule_of(cmd)));
    }
    expect(&read(&p, "/etc/hostname"), Effect::Allow, Some("allow[0]"));
    // Not every location outside the workspace.
    expect(
        &sh(&p, "cat /var/log/syslog"),
        Effect::Deny,
        Some("hard:outside-roots"),
    );
    expect(
        &read(&p, "~/.cargo/credentials.toml"),
        Effect::Deny,
        Some("hard:outside-roots"),
    );
    // Writes there stay a hard limit.
    let d = p.decide(&Call::new(
        "write_file",
        json!({"path": "/usr/local/lib/x.py", "content": "x"}),
    ));
    expect(&d, Effect::Deny, Some("hard:outside-roots"));
    assert!(d.hard);
}

fn rule_of(cmd: &str) -> String {
    let name = cmd.split_whitespace().next().unwrap_or_default();
    let i = [
        "Read", "cat", "grep", "rg", "find", "wc", "xargs", "head", "nl", "ls",
    ]
    .iter()
    .position(|n| *n == name)
    .unwrap_or(0);
    format!("allow[{i}]")
}

#[test]
fn a_policy_removes_or_carves_out_builtin_read_roots() {
    let ws = Ws::new();
    let p = ws.policy("allow = [\"Read\"]\n[policy]\nread_roots = [\"!/etc\"]\n");
    expect(
        &read(&p, "/etc/passwd"),
        Effect::Deny,
        Some("hard:outside-roots"),
    );
    expect(
        &read(&p, "/usr/include/stdio.h"),
        Effect::Allow,
        Some("allow[0]"),
    );
    let p = ws.policy("allow = [\"Read\"]\n[policy]\nread_roots = [\"!/\"]\n");
    expect(
        &read(&p, "/usr/include/stdio.h"),
        Effect::Deny,
        Some("hard:outside-roots"),
    );
    assert!(p.system_read_roots().is_empty());
    // A part of a root.
    let p = ws.policy("allow = [\"Read\"]\n[policy]\nread_roots = [\"!/usr/local\"]\n");
    expect(
        &read(&p, "/usr/local/lib/x.py"),
        Effect::Deny,
        Some("hard:outside-roots"),
    );
    expect(
        &read(&p, "/usr/lib/os-release"),
        Effect::Allow,
        Some("allow[0]"),
    );
    // Home entries, and adding one.
    let p = ws.policy("allow = [\"Read\"]\n[policy]\nread_roots = [\"!~\"]\n");
    expect(
        &read(&p, "~/.cargo/registry/src/x-1.0/src/lib.rs"),
        Effect::Deny,
        Some("hard:outside-roots"),
    );
    let p = ws.policy("allow = [\"Read\"]\n[policy]\nread_roots = [\"~/.cargo\"]\n");
    expect(
        &read(&p, "~/.cargo/credentials.toml"),
        Effect::Deny,
        Some("builtin:credentials"),
    );
}

#[test]
fn credentials_are_denied_whatever_allows_reading() {
    let ws = Ws::new();
    let home = ws.home.display().to_string();
    // The home directory is a root: only the credential deny stands
    // between a broad allow and the keys.
    for allow in [
        "\"Read\"",
        "\"Read(/**)\"",
        "\"Read(~/**)\"",
        "\"Read(~/.ssh/**)\"",
        "\"*\"",
    ] {
        let p = ws.policy(&format!(
            "allow = [{allow}, \"Bash(cat *)\", \"Bash(grep *)\"]\n[policy]\nroots = [\".\", \"{home}\"]\n"
        ));
        for (what, d) in [
            ("read_file", read(&p, "~/.ssh/id_rsa")),
            ("cat", sh(&p, "cat ~/.aws/credentials")),
            ("grep -r", sh(&p, "grep -r KEY ~")),
            ("cat /etc/shadow", sh(&p, "cat /etc/shadow")),
        ] {
            assert_eq!(d.decision, Effect::Deny, "{allow} {what}: {}", d.reason);
            assert_eq!(
                d.rule.as_deref(),
                Some("builtin:credentials"),
                "{allow} {what}"
            );
            assert!(!d.hard, "{allow} {what}");
        }
    }
    // An allow naming the exact file lifts it for that file alone.
    let p = ws.policy(&format!(
        "allow = [\"Read\", \"Read(~/.aws/credentials)\"]\n[policy]\nroots = [\".\", \"{home}\"]\n"
    ));
    expect(
        &read(&p, "~/.aws/credentials"),
        Effect::Allow,
        Some("allow[0]"),
    );
    expect(
        &read(&p, "~/.ssh/id_rsa"),
        Effect::Deny,
        Some("builtin:credentials"),
    );
    // Writing one is refused as well.
    let p = ws.policy(&format!(
        "allow = [\"Read\", \"Edit\"]\n[policy]\nroots = [\".\", \"{home}\"]\n"
    ));
    let d = p.decide(&Call::new(
        "write_file",
        json!({"path": "~/.ssh/authorized_keys", "content": "x"}),
    ));
    expect(&d, Effect::Deny, Some("builtin:credentials"));
    // Processes' environments, even where `/proc` is made a read root.
    let p = ws.policy("allow = [\"Read\"]\n[policy]\nread_roots = [\"/proc\"]\n");
    for path in ["/proc/self/environ", "/proc/1/environ", "/proc/self/mem"] {
        expect(&read(&p, path), Effect::Deny, Some("builtin:credentials"));
    }
}

#[test]
fn a_link_to_a_credential_is_the_credential() {
    let ws = Ws::new();
    let home = ws.home.display().to_string();
    ws.link(&ws.home.join(".ssh/id_rsa"), "key.rs");
    ws.link(Path::new("/etc/shadow"), "shadow.txt");
    let p = ws.policy(&format!(
        "allow = [\"Read\", \"Bash(cat *)\", \"Bash(grep *)\"]\n[policy]\nroots = [\".\", \"{home}\"]\n"
    ));
    expect(
        &read(&p, "key.rs"),
        Effect::Deny,
        Some("builtin:credentials"),
    );
    expect(
        &sh(&p, "cat shadow.txt"),
        Effect::Deny,
        Some("builtin:credentials"),
    );
    // Beneath a recursive read too.
    let d = sh(&p, "grep -r KEY .");
    expect(&d, Effect::Deny, Some("builtin:credentials"));
    // Without the home as a root, the key is outside the roots: hard.
    let p = ws.policy("allow = [\"Read\"]\n");
    let d = read(&p, "key.rs");
    expect(&d, Effect::Deny, Some("hard:outside-roots"));
    assert!(d.hard);
}

#[test]
fn a_program_given_a_credential_asks() {
    let ws = Ws::new();
    let home = ws.home.display().to_string();
    let p = ws.policy(&format!(
        "allow = [\"Read\", \"Bash(python3 *)\"]\n[policy]\nroots = [\".\", \"{home}\"]\n"
    ));
    let d = sh(&p, &format!("python3 tool.py {home}/.aws/credentials"));
    expect(&d, Effect::Ask, Some("builtin:credentials"));
}

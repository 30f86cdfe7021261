//! What a read can reach, decided: system and toolchain locations are
//! read roots, credentials are denied whatever allows reading, and a
//! recursive read meets a deny rule only for the files its filters let
//! through (`grep -r --include`, ripgrep's hidden files, `find -name ..
//! -exec`), or that a pipe or substitution hands on from `find`.

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
    // Beneath a recursive read, through its filter, too.
    let d = sh(&p, "grep -r --include='*.rs' KEY .");
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

// Class 3: filters that leave the denied file out.

#[test]
fn filtered_recursive_reads_meet_only_what_they_reach() {
    let ws = Ws::new();
    let p = ws.policy(DEV);
    for (cmd, decision, rule) in [
        ("grep -r x .", Effect::Deny, Some("deny[0]")),
        (
            "grep -r --include='*.rs' x .",
            Effect::Allow,
            Some("allow[2]"),
        ),
        (
            "grep -rn --include=*.rs --include=*.c x .",
            Effect::Allow,
            Some("allow[2]"),
        ),
        (
            "grep -r --include='.env*' x .",
            Effect::Deny,
            Some("deny[0]"),
        ),
        (
            "grep -r --exclude='*.rs' x .",
            Effect::Deny,
            Some("deny[0]"),
        ),
        (
            "grep -r --exclude='.env*' x src",
            Effect::Allow,
            Some("allow[2]"),
        ),
        (
            "grep -r --exclude='.env*' x .",
            Effect::Deny,
            Some("deny[1]"),
        ),
        (
            "grep -r --exclude='.env*' --exclude-dir=secrets x .",
            Effect::Allow,
            Some("allow[2]"),
        ),
        // The last matching option wins: `.env` matches the include last.
        (
            "grep -r --exclude=.env --include=.env x .",
            Effect::Deny,
            Some("deny[0]"),
        ),
        (
            "grep --include='*.rs' x .env",
            Effect::Deny,
            Some("deny[0]"),
        ),
        ("rg x", Effect::Deny, Some("deny[1]")),
        ("rg x -g '!secrets'", Effect::Deny, Some("deny[1]")),
        ("rg x src", Effect::Allow, Some("allow[3]")),
        ("rg --hidden x src", Effect::Allow, Some("allow[3]")),
        ("rg --hidden x .", Effect::Deny, Some("deny[0]")),
        ("rg -uu x .", Effect::Deny, Some("deny[0]")),
        ("rg -. x .", Effect::Deny, Some("deny[0]")),
        ("rg -g .env x .", Effect::Deny, Some("deny[0]")),
        ("rg -g '*.rs' x .", Effect::Allow, Some("allow[3]")),
        ("rg x .env", Effect::Deny, Some("deny[0]")),
        (
            "find . -name '*.c' -exec wc -l {} +",
            Effect::Allow,
            Some("allow[4]"),
        ),
        (
            "find . -type f -name '*.rs' -exec cat {} \\;",
            Effect::Allow,
            Some("allow[4]"),
        ),
        (
            "find . -name '*.c' -o -exec cat {} \\;",
            Effect::Deny,
            Some("deny[0]"),
        ),
        (
            "find . -name '.env*' -exec cat {} +",
            Effect::Deny,
            Some("deny[0]"),
        ),
        (
            "find . -iname '*.ENV' -exec cat {} +",
            Effect::Deny,
            Some("deny[0]"),
        ),
        ("find . -exec cat {} +", Effect::Deny, Some("deny[0]")),
        (
            "find . ! -name '*.rs' -exec cat {} +",
            Effect::Deny,
            Some("deny[0]"),
        ),
        (
            "find . -name 'src' -exec grep -r x {} +",
            Effect::Deny,
            Some("deny[0]"),
        ),
    ] {
        let d = sh(&p, cmd);
        assert_eq!(
            (d.decision, d.rule.as_deref()),
            (decision, rule),
            "{cmd}: {}",
            d.reason
        );
    }
}

#[test]
fn a_filtered_read_still_meets_links_by_what_they_lead_to() {
    let ws = Ws::new();
    ws.link(&ws.root.join(".env"), "env.rs");
    let p = ws.policy(DEV);
    let d = sh(&p, "grep -r --include='*.rs' x .");
    expect(&d, Effect::Deny, Some("deny[0]"));
    let d = sh(&p, "find . -name '*.rs' -exec cat {} +");
    expect(&d, Effect::Deny, Some("deny[0]"));
}

// Class 2: names with a known source.

#[test]
fn names_find_prints_are_read_beneath_it_through_its_filter() {
    let ws = Ws::new();
    let p = ws.policy(DEV);
    for (cmd, decision, rule) in [
        // `secrets/prod.txt` is a `.txt`: denied, as `grep x secrets/prod.txt` is.
        (
            "find . -name '*.txt' | xargs grep x",
            Effect::Deny,
            Some("deny[1]"),
        ),
        (
            "find . -name 'notes*' | xargs grep x",
            Effect::Allow,
            Some("allow[4]"),
        ),
        (
            "find src -name '*.rs' | xargs wc -l",
            Effect::Allow,
            Some("allow[4]"),
        ),
        (
            "find . -name '*.rs' -print0 | xargs -0 cat",
            Effect::Allow,
            Some("allow[4]"),
        ),
        (
            "find . -name '*.rs' | xargs -I{} head -n 3 {}",
            Effect::Allow,
            Some("allow[4]"),
        ),
        // The substitution runs first: its command is the first allowed.
        (
            "grep x $(find src -name '*.rs')",
            Effect::Allow,
            Some("allow[4]"),
        ),
        (
            "wc -l `find . -name '*.c'`",
            Effect::Allow,
            Some("allow[4]"),
        ),
        (
            "find . -name '.env*' | xargs cat",
            Effect::Deny,
            Some("deny[0]"),
        ),
        ("find . | xargs cat", Effect::Deny, Some("deny[0]")),
        ("find . -type f | xargs cat", Effect::Deny, Some("deny[0]")),
        (
            "cat $(find . -name '*.txt' -o -name '.env')",
            Effect::Deny,
            Some("deny[0]"),
        ),
        (
            "find . -name '*.rs' | xargs grep -r x",
            Effect::Deny,
            Some("deny[0]"),
        ),
    ] {
        let d = sh(&p, cmd);
        assert_eq!(
            (d.decision, d.rule.as_deref()),
            (decision, rule),
            "{cmd}: {}",
            d.reason
        );
    }
    // What is not a list of names, or not read, or not only find's output,
    // stays unknown.
    for cmd in [
        "find . -name '*.rs' | xargs rm",
        "find . -name '*.rs' -printf '%s\\n' | xargs cat",
        "find . -name '*.rs' -exec echo {} + | xargs cat",
        "find . -name '*.rs' |& xargs cat",
        "find . -name '*.rs' 2>&1 | xargs cat",
        "find . -name '*.rs' | xargs cat < notes.txt",
        "cat $(find . -name '*.rs'; echo .env)",
        "cat \"$(find . -name '*.rs')\"",
        "find() { echo .env; }; cat $(find . -name '*.rs')",
        "find . -name '*.rs' | xargs python3 tool.py",
    ] {
        let d = sh(&p, cmd);
        assert_ne!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
}

#[test]
fn a_name_that_would_split_asks() {
    let ws = Ws::new();
    std::fs::write(ws.root.join("src/a .env"), "x").unwrap();
    let p = ws.policy(DEV);
    let d = sh(&p, "find src -name '*' | xargs cat");
    assert_eq!(d.decision, Effect::Ask, "{}", d.reason);
    assert!(d.reason.contains("split"), "{}", d.reason);
    // The same name given to `-exec` is one argument.
    let d = sh(&p, "find src -name '*.rs' -exec cat {} +");
    expect(&d, Effect::Allow, Some("allow[4]"));
}

#[test]
fn a_loop_over_a_glob_reads_each_match() {
    let ws = Ws::new();
    let p = ws.policy(DEV);
    let d = p.decide(&Call {
        cwd: Some("src".into()),
        ..Call::new(
            "run_shell",
            json!({ "command": "for f in *.rs; do wc -l \"$f\"; done" }),
        )
    });
    expect(&d, Effect::Allow, Some("allow[5]"));
    let d = sh(&p, "for f in .env*; do cat \"$f\"; done");
    expect(&d, Effect::Deny, Some("deny[0]"));
    let d = sh(&p, "for f in src/*.rs notes.txt; do head -n1 $f; done");
    expect(&d, Effect::Allow, Some("allow[7]"));
}

#[test]
fn names_split_at_other_characters_stay_unknown() {
    let ws = Ws::new();
    let p = ws.policy(DEV);
    for cmd in [
        "find . -name '*.rs' | xargs -d s cat",
        "find . -name '*.rs' | xargs -rd, cat",
        "find . -name '*.rs' | xargs --delimiter=s cat",
        "find . -name '*.rs' | xargs -r -d s cat",
        "find . -name '*.rs' | xargs -rd s cat",
        "find . -name '*.rs' | xargs -d \"$D\" cat",
        "find . -name '*.rs' | xargs --delimiter s cat",
        "IFS=s; cat $(find . -name '*.rs')",
    ] {
        let d = sh(&p, cmd);
        assert_ne!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
    // A newline or NUL delimiter splits as find prints, attached to the
    // option or as the next word.
    for cmd in [
        "find . -name '*.rs' | xargs -d'\\n' cat",
        "find . -name '*.rs' | xargs -d '\\n' cat",
        "find . -name '*.rs' | xargs -rd '\\n' cat",
        "find . -name '*.rs' | xargs -d $'\\n' cat",
        "find . -name '*.rs' -print0 | xargs -d '\\0' cat",
        "find . -name '*.rs' | xargs --delimiter='\\n' cat",
    ] {
        expect(&sh(&p, cmd), Effect::Allow, Some("allow[4]"));
    }
}

#[test]
fn nested_loops_stay_bounded() {
    let ws = Ws::new();
    let p = ws.policy(DEV);
    let words = (0..30)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    let script = format!(
        "for a in {words}; do for b in {words}; do for c in {words}; do for d in {words}; do cat \"$a$b$c$d\"; done; done; done; done"
    );
    let start = std::time::Instant::now();
    let d = sh(&p, &script);
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
    assert_ne!(d.decision, Effect::Deny, "{}", d.reason);
}

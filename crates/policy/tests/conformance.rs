//! The seed conformance cases of the decision engine, each a named test.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolgate_policy::{Call, Client, Context, Decision, Effect, LoadOptions, Mode, Policy};

/// A workspace in a temporary directory, with a home directory beside it
/// (outside the workspace) and the policy file at its top.
struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl Ws {
    fn new() -> Ws {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        let home = base.join("home");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_rsa"), "key").unwrap();
        Ws {
            _tmp: tmp,
            root,
            home,
        }
    }

    fn file(&self, rel: &str, content: &str) -> &Ws {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
        self
    }

    fn opts(&self) -> LoadOptions {
        LoadOptions {
            workspace: None,
            home: Some(self.home.clone()),
            state_dir: Some(self.home.join(".local/state/toolgate")),
        }
    }

    fn policy(&self, toml: &str) -> Policy {
        let path = self.root.join("toolgate.toml");
        std::fs::write(&path, toml).unwrap();
        Policy::load(&path, &self.opts()).unwrap_or_else(|e| panic!("{e}"))
    }
}

fn call(tool: &str, input: Value) -> Call {
    Call::new(tool, input)
}

fn client_call(client: Client, tool: &str, input: Value) -> Call {
    Call::new(tool, input).with_client(client)
}

fn in_mode(p: &Policy, c: &Call, mode: Mode) -> Decision {
    p.decide_in(
        c,
        &Context {
            mode: Some(mode),
            ..Context::default()
        },
    )
}

#[track_caller]
fn expect(d: &Decision, effect: Effect, rule: Option<&str>) {
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (effect, rule),
        "reason: {}\nactions: {:#?}",
        d.reason,
        d.actions
    );
}

// 1. deny > ask > allow whatever the order rules are written in.
#[test]
fn seed1_strictest_wins_in_every_rule_order() {
    let r1 = "[[rule]]\nid = \"r1\"\neffect = \"allow\"\nmatch = [\"Read(*)\"]\n";
    let r2 = "[[rule]]\nid = \"r2\"\neffect = \"deny\"\nmatch = [\"Read(secrets.txt)\"]\n";
    let r3 = "[[rule]]\nid = \"r3\"\neffect = \"ask\"\nmatch = [\"Write(*)\"]\n";
    let orders = [
        [r1, r2, r3],
        [r1, r3, r2],
        [r2, r1, r3],
        [r2, r3, r1],
        [r3, r1, r2],
        [r3, r2, r1],
    ];
    for order in orders {
        let ws = Ws::new();
        ws.file("readme.txt", "hi")
            .file("secrets.txt", "s")
            .file("notes.txt", "draft");
        let p = ws.policy(&order.concat());
        expect(
            &p.decide(&call("read_file", json!({"path": "readme.txt"}))),
            Effect::Allow,
            Some("r1"),
        );
        expect(
            &p.decide(&call("read_file", json!({"path": "secrets.txt"}))),
            Effect::Deny,
            Some("r2"),
        );
        expect(
            &p.decide(&call(
                "write_file",
                json!({"path": "notes.txt", "content": "reviewed"}),
            )),
            Effect::Ask,
            Some("r3"),
        );
    }
}

// 2. No rule matches: the default, deny unless set to ask.
#[test]
fn seed2_no_match_is_the_default() {
    let ws = Ws::new();
    let p = ws.policy("allow = [\"Bash(git status)\"]\n");
    let d = p.decide(&call("read_file", json!({"path": "a.txt"})));
    expect(&d, Effect::Deny, None);
    assert!(!d.hard);
    let p = ws.policy("[policy]\ndefault = \"ask\"\nallow = [\"Bash(git status)\"]\n");
    expect(
        &p.decide(&call("read_file", json!({"path": "a.txt"}))),
        Effect::Ask,
        None,
    );
}

// 3. A rule for a file does not match a longer name.
#[test]
fn seed3_name_rule_does_not_match_a_longer_name() {
    let ws = Ws::new();
    ws.file("notes.txt", "x").file("notes.txt.bak", "y");
    let p = ws.policy("allow = [\"Read\"]\ndeny = [\"Read(notes.txt)\"]\n");
    expect(
        &p.decide(&call("read_file", json!({"path": "notes.txt"}))),
        Effect::Deny,
        Some("deny[0]"),
    );
    expect(
        &p.decide(&call("read_file", json!({"path": "notes.txt.bak"}))),
        Effect::Allow,
        Some("allow[0]"),
    );
    expect(
        &p.decide(&call("read_file", json!({"path": "sub/notes.txt"}))),
        Effect::Deny,
        Some("deny[0]"),
    );
}

// 4. Validation before permission.
#[test]
fn seed4_validation_comes_before_permission() {
    let ws = Ws::new();
    let p = ws.policy("allow = [\"*\"]\n");
    let d = p.decide(&call("run_shell", json!({"approved": true})));
    expect(&d, Effect::Deny, Some("invalid-input"));
    assert!(d.reason.contains("command"), "{}", d.reason);
    let d = p.decide(&call("read_file", json!({"path": 42})));
    expect(&d, Effect::Deny, Some("invalid-input"));
    let d = p.decide(&call(
        "run_shell",
        json!({"command": "ls", "approved": true}),
    ));
    expect(&d, Effect::Deny, Some("invalid-input"));
    // An unknown tool with no rule is denied by the default.
    let p = ws.policy("allow = [\"Read\"]\n");
    expect(
        &p.decide(&call("launch_missiles", json!({}))),
        Effect::Deny,
        None,
    );
}

// 5. Hard limits hold under allow rules and in every mode.
#[test]
fn seed5_hard_limits_in_every_mode() {
    let ws = Ws::new();
    ws.file("inside.txt", "ok");
    std::os::unix::fs::symlink("/var/log/syslog", ws.root.join("link")).unwrap();
    let p = ws.policy("allow = [\"Read\", \"Edit\"]\n");
    let cases = [
        call("read_file", json!({"path": "../../var/log/syslog"})),
        call("read_file", json!({"path": "/var/log/syslog"})),
        call("read_file", json!({"path": "~/.ssh/id_rsa"})),
        call("read_file", json!({"path": "link"})),
        call("write_file", json!({"path": "link", "content": "x"})),
        call("write_file", json!({"path": "/etc/hosts", "content": "x"})),
    ];
    for mode in Mode::ALL {
        for c in &cases {
            let d = in_mode(&p, c, mode);
            assert_eq!(d.decision, Effect::Deny, "{mode}: {c:?} -> {}", d.reason);
            assert!(d.hard, "{mode}: {c:?} not hard: {}", d.reason);
            assert_eq!(d.rule.as_deref(), Some("hard:outside-roots"));
        }
        assert_eq!(
            in_mode(&p, &call("read_file", json!({"path": "inside.txt"})), mode).decision,
            Effect::Allow
        );
    }
}

// 5b. The policy file and the state directory are never written.
#[test]
fn seed5_policy_file_and_state_dir_are_hard_limits() {
    let ws = Ws::new();
    let state = ws.root.join(".state");
    std::fs::create_dir_all(&state).unwrap();
    let path = ws.root.join("toolgate.toml");
    std::fs::write(&path, "allow = [\"Edit\"]\n").unwrap();
    let p = Policy::load(
        &path,
        &LoadOptions {
            state_dir: Some(state),
            ..ws.opts()
        },
    )
    .unwrap();
    for mode in Mode::ALL {
        let d = in_mode(
            &p,
            &call(
                "write_file",
                json!({"path": "toolgate.toml", "content": ""}),
            ),
            mode,
        );
        expect(&d, Effect::Deny, Some("hard:policy-file"));
        assert!(d.hard);
        let d = in_mode(
            &p,
            &call(
                "write_file",
                json!({"path": ".state/toolgate.db", "content": ""}),
            ),
            mode,
        );
        expect(&d, Effect::Deny, Some("hard:state-dir"));
    }
}

// 7. Each mode row of docs/policy.md, "Modes".
#[test]
fn seed7_mode_default_leaves_decisions() {
    let ws = Ws::new();
    let p = ws.policy("allow = [\"Read\"]\nask = [\"Edit\"]\n");
    let w = call("write_file", json!({"path": "a.txt", "content": "x"}));
    expect(&in_mode(&p, &w, Mode::Default), Effect::Ask, Some("ask[0]"));
}

#[test]
fn seed7_mode_accept_edits_allows_asked_writes_inside_roots() {
    let ws = Ws::new();
    let p = ws.policy("allow = [\"Read\"]\nask = [\"Edit\", \"WebFetch\"]\n");
    let w = call("write_file", json!({"path": "src/a.rs", "content": "x"}));
    expect(
        &in_mode(&p, &w, Mode::AcceptEdits),
        Effect::Allow,
        Some("ask[0]"),
    );
    // Protected paths still ask; other asks are untouched.
    let g = call("write_file", json!({"path": ".git/config", "content": "x"}));
    expect(
        &in_mode(&p, &g, Mode::AcceptEdits),
        Effect::Ask,
        Some("protected"),
    );
    let f = call("fetch_url", json!({"url": "https://example.com/"}));
    expect(
        &in_mode(&p, &f, Mode::AcceptEdits),
        Effect::Ask,
        Some("ask[1]"),
    );
}

#[test]
fn seed7_mode_plan_denies_writes_fetches_and_non_read_only_commands() {
    let ws = Ws::new();
    ws.file("a.txt", "x");
    let p = ws.policy("allow = [\"Read\", \"Edit\", \"WebFetch\", \"Bash\"]\n");
    expect(
        &in_mode(&p, &call("read_file", json!({"path": "a.txt"})), Mode::Plan),
        Effect::Allow,
        Some("allow[0]"),
    );
    expect(
        &in_mode(
            &p,
            &call("write_file", json!({"path": "a.txt", "content": ""})),
            Mode::Plan,
        ),
        Effect::Deny,
        Some("mode:plan"),
    );
    expect(
        &in_mode(
            &p,
            &call("fetch_url", json!({"url": "https://example.com/"})),
            Mode::Plan,
        ),
        Effect::Deny,
        Some("mode:plan"),
    );
    expect(
        &in_mode(
            &p,
            &call("run_shell", json!({"command": "touch b.txt"})),
            Mode::Plan,
        ),
        Effect::Deny,
        Some("mode:plan"),
    );
}

#[test]
fn seed7_mode_dont_ask_turns_ask_into_deny() {
    let ws = Ws::new();
    let p = ws.policy("allow = [\"Read\"]\nask = [\"Edit\"]\n");
    let d = in_mode(
        &p,
        &call("write_file", json!({"path": "a.txt", "content": ""})),
        Mode::DontAsk,
    );
    expect(&d, Effect::Deny, Some("ask[0]"));
    assert!(!d.hard);
    expect(
        &in_mode(
            &p,
            &call("read_file", json!({"path": "a.txt"})),
            Mode::DontAsk,
        ),
        Effect::Allow,
        Some("allow[0]"),
    );
}

#[test]
fn seed7_mode_bypass_allows_asks_but_not_denies_or_protected() {
    let ws = Ws::new();
    let p = ws.policy("ask = [\"Edit\"]\ndeny = [\"Read(.env)\"]\n");
    expect(
        &in_mode(
            &p,
            &call("write_file", json!({"path": "a.txt", "content": ""})),
            Mode::Bypass,
        ),
        Effect::Allow,
        Some("ask[0]"),
    );
    expect(
        &in_mode(
            &p,
            &call("read_file", json!({"path": ".env"})),
            Mode::Bypass,
        ),
        Effect::Deny,
        Some("deny[0]"),
    );
    // A Read deny also denies writes to the same paths.
    expect(
        &in_mode(
            &p,
            &call("write_file", json!({"path": ".env", "content": ""})),
            Mode::Bypass,
        ),
        Effect::Deny,
        Some("deny[0]"),
    );
    expect(
        &in_mode(
            &p,
            &call(
                "write_file",
                json!({"path": ".claude/settings.json", "content": ""}),
            ),
            Mode::Bypass,
        ),
        Effect::Ask,
        Some("protected"),
    );
}

// 7. Each protected path rule of docs/policy.md, "Protected paths".
#[test]
fn seed7_protected_paths_always_ask() {
    let ws = Ws::new();
    let p = ws.policy("allow = [\"Read\", \"Edit\"]\n[policy]\nprotected = [\"deploy/**\"]\n");
    let protected = [
        ".git/config",
        ".git/hooks/pre-commit",
        "sub/.git/HEAD",
        ".claude/settings.json",
        ".gemini/settings.json",
        ".codex/config.toml",
        // Where `toolgate install` puts the other clients' hooks.
        ".qwen/settings.json",
        ".github/hooks/toolgate.json",
        ".pi/extensions/toolgate.ts",
        ".opencode/plugins/toolgate.js",
        "opencode.json",
        ".grok/hooks/toolgate.json",
        ".cursor/hooks.json",
        ".vscode/settings.json",
        ".idea/workspace.xml",
        ".husky/pre-commit",
        ".cargo/config.toml",
        ".cargo/config",
        "rust-toolchain.toml",
        "sub/rust-toolchain",
        ".gitconfig",
        ".gitmodules",
        ".bashrc",
        ".bash_profile",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".envrc",
        ".npmrc",
        ".mcp.json",
        ".pre-commit-config.yaml",
        // Git hook managers' configuration, run on a commit.
        "lefthook.yml",
        "web/.lefthook-local.yaml",
        ".lefthook/pre-commit/lint.sh",
        ".overcommit.yml",
        ".lintstagedrc.json",
        "lint-staged.config.mjs",
        ".commitlintrc.js",
        "commitlint.config.ts",
        "deploy/prod.yaml",
    ];
    for path in protected {
        let w = call("write_file", json!({"path": path, "content": "x"}));
        for mode in [Mode::Default, Mode::AcceptEdits, Mode::Bypass] {
            expect(&in_mode(&p, &w, mode), Effect::Ask, Some("protected"));
        }
        expect(
            &in_mode(&p, &w, Mode::DontAsk),
            Effect::Deny,
            Some("protected"),
        );
        // Reading them is not protected.
        expect(
            &p.decide(&call("read_file", json!({"path": path}))),
            Effect::Allow,
            Some("allow[0]"),
        );
    }
    expect(
        &p.decide(&call(
            "write_file",
            json!({"path": "src/gitconfig.rs", "content": "x"}),
        )),
        Effect::Allow,
        Some("allow[1]"),
    );
}

#[test]
fn builtin_policy_reads_allow_writes_ask_shell_asks() {
    let ws = Ws::new();
    ws.file("README.md", "hi");
    let p = Policy::builtin(&LoadOptions {
        workspace: Some(ws.root.clone()),
        ..ws.opts()
    })
    .unwrap();
    expect(
        &p.decide(&call("read_file", json!({"path": "README.md"}))),
        Effect::Allow,
        Some("builtin:read"),
    );
    let d = p.decide(&call(
        "write_file",
        json!({"path": "a.txt", "content": "x"}),
    ));
    expect(&d, Effect::Ask, Some("builtin:write"));
    assert!(d.remember);
    let d = p.decide(&call("run_shell", json!({"command": "ls"})));
    expect(&d, Effect::Ask, Some("builtin:shell"));
    assert!(!d.remember);
    expect(
        &p.decide(&call("fetch_url", json!({"url": "https://example.com"}))),
        Effect::Ask,
        Some("builtin:fetch"),
    );
    expect(&p.decide(&call("mcp__x__y", json!({}))), Effect::Deny, None);
    expect(
        &p.decide(&call("read_file", json!({"path": "/var/log/syslog"}))),
        Effect::Deny,
        Some("hard:outside-roots"),
    );
    // System locations are built-in read roots; their secrets are not.
    expect(
        &p.decide(&call("read_file", json!({"path": "/etc/passwd"}))),
        Effect::Allow,
        Some("builtin:read"),
    );
    expect(
        &p.decide(&call("read_file", json!({"path": "/etc/shadow"}))),
        Effect::Deny,
        Some("builtin:credentials"),
    );
}

#[test]
fn session_grants_lift_only_rememberable_asks() {
    let ws = Ws::new();
    let p = ws.policy(
        "[[rule]]\nid = \"edits\"\neffect = \"ask\"\nmatch = [\"Edit(src/**)\"]\nremember = \"session\"\n[[rule]]\nid = \"push\"\neffect = \"ask\"\nmatch = [\"Bash(git push *)\"]\n",
    );
    let grants = vec!["edits".to_string(), "push".to_string()];
    let ctx = Context {
        grants: &grants,
        ..Context::default()
    };
    expect(
        &p.decide_in(
            &call("write_file", json!({"path": "src/a.rs", "content": ""})),
            &ctx,
        ),
        Effect::Allow,
        Some("edits"),
    );
    // Not rememberable: the grant does nothing.
    expect(
        &p.decide_in(
            &call("run_shell", json!({"command": "git push origin"})),
            &ctx,
        ),
        Effect::Ask,
        Some("push"),
    );
    // A grant never lifts a protected path.
    let ws2 = Ws::new();
    let p2 = ws2.policy(
        "[[rule]]\nid = \"edits\"\neffect = \"ask\"\nmatch = [\"Edit\"]\nremember = \"session\"\n",
    );
    expect(
        &p2.decide_in(
            &call("write_file", json!({"path": ".git/x", "content": ""})),
            &ctx,
        ),
        Effect::Ask,
        Some("protected"),
    );
}

#[test]
fn client_catalogs_map_to_the_same_actions() {
    let ws = Ws::new();
    ws.file(".env", "K=1").file("a.txt", "x");
    let p = ws.policy("allow = [\"Read\"]\ndeny = [\"Read(.env)\"]\n");
    let root = ws.root.display().to_string();
    let cases = [
        client_call(
            Client::Claude,
            "Read",
            json!({"file_path": format!("{root}/.env")}),
        ),
        client_call(
            Client::Gemini,
            "read_file",
            json!({"absolute_path": format!("{root}/.env")}),
        ),
        client_call(
            Client::Gemini,
            "read_many_files",
            json!({"paths": ["*.txt", ".env"]}),
        ),
        call("read_file", json!({"path": ".env"})),
    ];
    for c in cases {
        expect(&p.decide(&c), Effect::Deny, Some("deny[0]"));
    }
    // Claude's Grep covers what lies beneath its directory.
    expect(
        &p.decide(&client_call(
            Client::Claude,
            "Grep",
            json!({"pattern": "K", "path": root}),
        )),
        Effect::Deny,
        Some("deny[0]"),
    );
    // It runs ripgrep with `--hidden`, its `glob` and `type` as
    // `--glob`/`--type`: a glob or type that cannot match `.env` does not
    // read it, and one that can (or a field not understood) does.
    for (glob, ty, denied) in [
        (Some(json!("*.txt")), None, false),
        (Some(json!("*.txt,*.md")), None, false),
        (None, Some("rust"), false),
        (Some(json!("*.env")), None, true),
        (Some(json!("*.txt .env")), None, true),
        (Some(json!("*.{txt,env}")), None, true),
        (Some(json!("!*.txt")), None, true),
        (Some(json!(["*.txt"])), None, true),
        (None, Some("sh"), true),
    ] {
        let mut input = json!({"pattern": "K", "path": root});
        if let Some(g) = &glob {
            input["glob"] = g.clone();
        }
        if let Some(t) = ty {
            input["type"] = json!(t);
        }
        let d = p.decide(&client_call(Client::Claude, "Grep", input));
        let want = if denied {
            (Effect::Deny, Some("deny[0]"))
        } else {
            (Effect::Allow, Some("allow[0]"))
        };
        assert_eq!(
            (d.decision, d.rule.as_deref()),
            want,
            "Grep glob {glob:?} type {ty:?}: {}",
            d.reason
        );
    }
    expect(
        &p.decide(&client_call(
            Client::Claude,
            "Read",
            json!({"file_path": "a.txt"}),
        )),
        Effect::Allow,
        Some("allow[0]"),
    );
    // Gemini's read_file takes absolute_path; toolgate's own `path` is unknown to it but lenient.
    expect(
        &p.decide(&client_call(
            Client::Gemini,
            "read_file",
            json!({"path": "a.txt", "extra": 1}),
        )),
        Effect::Allow,
        Some("allow[0]"),
    );
    expect(
        &p.decide(&client_call(
            Client::Claude,
            "Read",
            json!({"file_path": 7}),
        )),
        Effect::Deny,
        Some("invalid-input"),
    );
}

#[test]
fn path_pattern_anchors_and_stars() {
    let ws = Ws::new();
    let p = ws.policy(
        "allow = [\"Edit(/docs/*)\", \"Edit(src/**)\", \"Read(//etc/hostname)\"]\n[policy]\nread_roots = [\"/etc\"]\n",
    );
    let w = |path: &str| call("write_file", json!({"path": path, "content": ""}));
    expect(&p.decide(&w("docs/a.md")), Effect::Allow, Some("allow[0]"));
    // `*` stays within a segment.
    expect(&p.decide(&w("docs/sub/a.md")), Effect::Deny, None);
    expect(
        &p.decide(&w("src/deep/er/a.rs")),
        Effect::Allow,
        Some("allow[1]"),
    );
    expect(
        &p.decide(&call("read_file", json!({"path": "/etc/hostname"}))),
        Effect::Allow,
        Some("allow[2]"),
    );
    // A read root is read-only.
    expect(
        &p.decide(&w("/etc/hostname")),
        Effect::Deny,
        Some("hard:outside-roots"),
    );
}

#[test]
fn fetch_domains() {
    let ws = Ws::new();
    let p = ws.policy(
        "allow = [\"WebFetch(domain:example.com)\", \"WebFetch(domain:*.docs.rs)\"]\ndeny = [\"WebFetch(domain:*.internal)\"]\n",
    );
    let f = |u: &str| call("fetch_url", json!({"url": u}));
    expect(
        &p.decide(&f("https://example.com/x")),
        Effect::Allow,
        Some("allow[0]"),
    );
    expect(
        &p.decide(&f("https://sub.example.com/x")),
        Effect::Deny,
        None,
    );
    expect(
        &p.decide(&f("https://a.docs.rs/")),
        Effect::Allow,
        Some("allow[1]"),
    );
    expect(&p.decide(&f("https://docs.rs/")), Effect::Deny, None);
    expect(
        &p.decide(&f("http://db.internal/")),
        Effect::Deny,
        Some("deny[0]"),
    );
    expect(
        &p.decide(&f("http://example.com@db.internal/")),
        Effect::Deny,
        Some("deny[0]"),
    );
}

#[test]
fn declared_tools_are_validated_and_matched_by_field() {
    let ws = Ws::new();
    let p = ws.policy(
        r#"allow = ["mcp__db__query(SELECT *)"]
deny = ["mcp__db__drop*"]
[tool.mcp__db__query]
kind = "other"
field = "sql"
schema = { type = "object", required = ["sql"], properties = { sql = { type = "string" } }, additionalProperties = false }
"#,
    );
    let q = |sql: Value| client_call(Client::Mcp, "mcp__db__query", json!({"sql": sql}));
    expect(
        &p.decide(&q(json!("SELECT 1"))),
        Effect::Allow,
        Some("allow[0]"),
    );
    expect(&p.decide(&q(json!("DELETE FROM t"))), Effect::Deny, None);
    expect(&p.decide(&q(json!(1))), Effect::Deny, Some("invalid-input"));
    expect(
        &p.decide(&client_call(Client::Mcp, "mcp__db__drop_table", json!({}))),
        Effect::Deny,
        Some("deny[0]"),
    );
}

#[test]
fn relative_paths_resolve_against_the_call_cwd() {
    let ws = Ws::new();
    ws.file("sub/x.txt", "x");
    let p = ws.policy("allow = [\"Read(sub/*)\"]\n");
    let mut c = call("read_file", json!({"path": "x.txt"}));
    c.cwd = Some(ws.root.join("sub"));
    expect(&p.decide(&c), Effect::Allow, Some("allow[0]"));
    let mut c = call("read_file", json!({"path": "../../home/.ssh/id_rsa"}));
    c.cwd = Some(ws.root.join("sub"));
    expect(&p.decide(&c), Effect::Deny, Some("hard:outside-roots"));
}

#[test]
fn policy_tests_run_and_fail_by_name() {
    let ws = Ws::new();
    let p = ws.policy(
        r#"allow = ["Read"]
[[test]]
name = "reads pass"
call = { tool = "read_file", input = { path = "a" } }
expect = "allow"
[[test]]
name = "wrong on purpose"
call = { tool = "write_file", input = { path = "a", content = "" } }
expect = "allow"
"#,
    );
    let out = p.run_tests();
    assert!(out[0].passed());
    assert!(!out[1].passed());
    assert_eq!(out[1].case.name, "wrong on purpose");
}

fn _unused(_: &Path) {}

/// A call that names its path in two of the fields a client may read it
/// from is decided on both: the client may take the other one.
#[test]
fn every_field_a_client_may_read_the_path_from_is_decided() {
    let ws = Ws::new();
    ws.file("ok.txt", "fine").file(".env", "SECRET=1");
    let p = ws.policy("allow = [\"Read\"]\ndeny = [\"Read(.env)\"]\n");
    let ok = ws.root.join("ok.txt");
    let env = ws.root.join(".env");
    for input in [
        json!({"absolute_path": ok, "file_path": env}),
        json!({"file_path": ok, "absolute_path": env}),
        json!({"file_path": ok, "path": env}),
    ] {
        let d = p.decide(&client_call(Client::Gemini, "read_file", input.clone()));
        assert_eq!(d.decision, Effect::Deny, "{input}: {}", d.reason);
    }
    let d = p.decide(&client_call(
        Client::Gemini,
        "read_file",
        json!({"absolute_path": ok, "file_path": ok}),
    ));
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
}

/// Claude Code's `Glob` lists what its pattern names: a pattern that leaves
/// the directory (absolute, or with `..`) meets the roots and the Read
/// rules there. Gemini CLI's `read_many_files` reads its `include` globs
/// as well as its `paths`.
#[test]
fn glob_patterns_and_include_lists_meet_the_roots_and_read_rules() {
    let ws = Ws::new();
    ws.file("src/a.rs", "fn a() {}").file(".env", "SECRET=1");
    let p =
        ws.policy("allow = [\"Read\", \"Glob\", \"read_many_files\"]\ndeny = [\"Read(.env)\"]\n");
    let claude = |input: Value| p.decide(&client_call(Client::Claude, "Glob", input));
    for (input, rule) in [
        (
            json!({"pattern": "/var/log/**/*.log"}),
            "hard:outside-roots",
        ),
        (json!({"pattern": "../../**/*"}), "hard:outside-roots"),
        (
            json!({"pattern": "../*", "path": ws.root.join("src")}),
            "deny[0]",
        ),
    ] {
        let d = claude(input.clone());
        assert_eq!(
            (d.decision, d.rule.as_deref()),
            (Effect::Deny, Some(rule)),
            "{input}: {}",
            d.reason
        );
    }
    let d = claude(json!({"pattern": "**/*.rs"}));
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
    let gemini = |input: Value| p.decide(&client_call(Client::Gemini, "read_many_files", input));
    let d = gemini(json!({"paths": ["src"], "include": [".env"]}));
    assert_eq!(d.decision, Effect::Deny, "{}", d.reason);
    let d = gemini(json!({"paths": ["src/a.rs"]}));
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
}

/// Gemini CLI reads `@name` as `name` when no file is named `@name`
/// (0.61.0, `resolveDefensiveToolPath`): its file tools are decided on
/// both, so an `@` does not carry a denied path past the Read and Edit rules.
#[test]
fn gemini_at_prefixed_paths_are_decided_without_the_at() {
    let ws = Ws::new();
    ws.file("ok.txt", "fine").file("secret.txt", "SECRET=1");
    let p = ws.policy("allow = [\"Read\", \"Edit\"]\ndeny = [\"Read(secret.txt)\"]\n");
    for (tool, input) in [
        ("read_file", json!({"file_path": "@secret.txt"})),
        ("read_file", json!({"file_path": "@/secret.txt"})),
        ("read_file", json!({"file_path": "@\\secret.txt"})),
        (
            "write_file",
            json!({"file_path": "@secret.txt", "content": ""}),
        ),
        (
            "replace",
            json!({"file_path": "@secret.txt", "old_string": "a", "new_string": "b"}),
        ),
    ] {
        let d = p.decide(&client_call(Client::Gemini, tool, input.clone()));
        assert_eq!(
            (d.decision, d.rule.as_deref()),
            (Effect::Deny, Some("deny[0]")),
            "{tool} {input}: {}",
            d.reason
        );
    }
    for input in [
        json!({"file_path": "@ok.txt"}),
        json!({"file_path": "@"}),
        json!({"file_path": "ok.txt"}),
    ] {
        let d = p.decide(&client_call(Client::Gemini, "read_file", input.clone()));
        assert_eq!(d.decision, Effect::Allow, "{input}: {}", d.reason);
    }
    // Claude Code reads the path as written.
    let d = p.decide(&client_call(
        Client::Claude,
        "Read",
        json!({"file_path": "@secret.txt"}),
    ));
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
}

/// Gemini CLI's `glob` searches `dir_path`, or the working directory when
/// it is absent, whatever `path` says: a pattern that leaves the working
/// directory is checked from there as well as from `path`.
#[test]
fn a_glob_pattern_is_checked_from_every_directory_the_call_may_mean() {
    let ws = Ws::new();
    ws.file("src/a.rs", "fn a() {}").file("b.rs", "fn b() {}");
    let p = ws.policy("allow = [\"Read\"]\n");
    let gemini = |input: Value| p.decide(&client_call(Client::Gemini, "glob", input));
    for input in [
        json!({"pattern": "../*", "path": "src"}),
        json!({"pattern": "../*", "dir_path": ".", "path": "src"}),
    ] {
        let d = gemini(input.clone());
        assert_eq!(
            (d.decision, d.rule.as_deref()),
            (Effect::Deny, Some("hard:outside-roots")),
            "{input}: {}",
            d.reason
        );
    }
    for input in [
        json!({"pattern": "../*", "dir_path": "src"}),
        json!({"pattern": "*.rs", "path": "src"}),
    ] {
        let d = gemini(input.clone());
        assert_eq!(d.decision, Effect::Allow, "{input}: {}", d.reason);
    }
}

/// Gemini CLI's `replace` edits, in place of a relative `file_path` that
/// names no file, the one file in its workspace whose path ends with it
/// (0.61.0, `correctPath`): such a call is decided on the files it may
/// mean, and asks at least, since its other workspace directories cannot
/// be seen. A path that exists, or an absolute one, is edited as written.
#[test]
fn gemini_replace_of_a_path_the_cli_corrects_is_decided_on_what_it_edits() {
    let ws = Ws::new();
    ws.file("secret/config.json", "{}")
        .file("app/readme.md", "hi")
        .file("other/app/readme.md", "hi")
        .file("notes/todo.md", "hi")
        .file("readme.md", "hi");
    let p = ws.policy("allow = [\"Read\", \"Edit\"]\ndeny = [\"Edit(secret/**)\"]\n");
    let replace = |file_path: &str| {
        p.decide(&client_call(
            Client::Gemini,
            "replace",
            json!({"file_path": file_path, "old_string": "a", "new_string": "b"}),
        ))
    };
    // Corrected to secret/config.json: the path's end, as text.
    for path in ["config.json", "@config.json", "cret/config.json"] {
        let d = replace(path);
        assert_eq!(
            (d.decision, d.rule.as_deref()),
            (Effect::Deny, Some("deny[0]")),
            "{path}: {}",
            d.reason
        );
    }
    // Nothing found here, one allowed file, or several: the client's other
    // workspace directories may hold the one it edits.
    for path in ["new.txt", "fig.json", "todo.md", "pp/readme.md"] {
        let d = replace(path);
        assert_eq!(
            (d.decision, d.rule.as_deref()),
            (Effect::Ask, Some("client:path-correction")),
            "{path}: {}",
            d.reason
        );
        let d = in_mode(
            &p,
            &client_call(
                Client::Gemini,
                "replace",
                json!({"file_path": path, "old_string": "a", "new_string": "b"}),
            ),
            Mode::AcceptEdits,
        );
        assert_eq!(d.decision, Effect::Ask, "{path}: {}", d.reason);
    }
    // Edited as written: an existing path, an absolute one; write_file
    // does not correct.
    let absent = ws.root.join("config.json").display().to_string();
    for path in ["readme.md", "app/readme.md", absent.as_str()] {
        let d = replace(path);
        assert_eq!(d.decision, Effect::Allow, "{path}: {}", d.reason);
    }
    let d = p.decide(&client_call(
        Client::Gemini,
        "write_file",
        json!({"file_path": "config.json", "content": "{}"}),
    ));
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
    // An ask on the file it may mean asks.
    let p = ws.policy("allow = [\"Read\", \"Edit\"]\nask = [\"Edit(secret/**)\"]\n");
    let d = p.decide(&client_call(
        Client::Gemini,
        "replace",
        json!({"file_path": "config.json", "old_string": "a", "new_string": "b"}),
    ));
    assert_eq!(d.decision, Effect::Ask, "{}", d.reason);
}

/// Gemini CLI's `read_many_files` reads its `include` globs alone, matched
/// without regard to case (0.61.0, `nocase`): a call with `include` and
/// no `paths` is decided, and a path that differs from a denied one in
/// case alone is refused.
#[test]
fn gemini_read_many_files_include_meets_read_rules_without_regard_to_case() {
    let ws = Ws::new();
    ws.file("secret.txt", "SECRET=1")
        .file("docs/secret-plan.md", "SECRET=2")
        .file("src/a.rs", "fn a() {}");
    let p = ws.policy("allow = [\"Read\", \"read_many_files\"]\ndeny = [\"Read(**/secret*)\"]\n");
    let gemini = |input: Value| p.decide(&client_call(Client::Gemini, "read_many_files", input));
    for input in [
        json!({"include": ["SECRET.TXT"]}),
        json!({"include": ["Secret.txt", "src/*.rs"]}),
        json!({"include": ["DOCS/*.md"]}),
        json!({"include": ["./Docs/Secret-Plan.md"]}),
    ] {
        let d = gemini(input.clone());
        assert_eq!(
            (d.decision, d.rule.as_deref()),
            (Effect::Deny, Some("deny[0]")),
            "{input}: {}",
            d.reason
        );
    }
    for input in [
        json!({"include": ["src/*.rs"]}),
        json!({"include": ["SRC/A.RS"]}),
        json!({"paths": ["src"]}),
    ] {
        let d = gemini(input.clone());
        assert_eq!(d.decision, Effect::Allow, "{input}: {}", d.reason);
    }
    let d = gemini(json!({"exclude": ["x"]}));
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Deny, Some("invalid-input")),
        "{}",
        d.reason
    );
}

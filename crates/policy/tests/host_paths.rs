//! `..` in a path a client's own tool is given. The clients remove `.`
//! and `..` as text against their working directory first (Node's
//! `path.resolve` and `path.join`: Claude Code, Gemini CLI, Qwen Code,
//! Copilot CLI, Pi, OpenCode, Grok, Cursor; Codex's lexical absolutize),
//! and only then open the path, so `lk/..` is the directory holding the
//! link `lk`, never the parent of its target. The kernel, which opens the
//! paths of toolgate's own tools and of shell commands, reads `..` after
//! a link from the link's target. Each is decided as what opens it reads
//! it; a tool whose opener is not known (a declared tool, an MCP server's)
//! is decided both ways.
//!
//! A glob pattern that climbs with `..` after a wildcard, or has a brace
//! alternative that climbs or is absolute, leaves its directory as surely
//! as one that begins with `..`.

use serde_json::{Value, json};
use toolgate_policy::{Call, Client, Decision, Effect};

use crate::scratch::{Scratch, expect};

const POLICY: &str = r#"
[policy]
default = "ask"
allow = ["Read", "Edit", "Bash(cat *)"]
deny = ["Read(.env)", "Read(secrets/**)", "Edit(.git/**)"]

[tool.fs_read]
kind = "read"
field = "path"
"#;

/// `BASE/ws` with `lk -> src/deep` (two levels down) and a decoy
/// `ws/outside/o.txt`, which the kernel reaches through `lk/../../`,
/// while a client reaches `BASE/outside/o.txt` (outside the roots).
fn ws() -> Scratch {
    let w = Scratch::new(
        POLICY,
        &[
            (".env", "KEY=1\n"),
            ("secrets/k", "k\n"),
            ("src/deep/a.rs", "fn a() {}\n"),
            ("src/lib.rs", "\n"),
            ("outside/o.txt", "decoy\n"),
        ],
    );
    std::os::unix::fs::symlink("src/deep", w.ws.join("lk")).expect("link");
    std::fs::create_dir_all(w.base.join("outside")).expect("outside");
    std::fs::write(w.base.join("outside/o.txt"), "outside\n").expect("outside file");
    w
}

fn decide(w: &Scratch, client: Client, tool: &str, input: Value) -> Decision {
    let mut call = Call::new(tool, input);
    call.client = client;
    call.cwd = Some(w.ws.clone());
    w.policy.decide(&call)
}

/// What the clients open for `lk/../../outside/o.txt` is outside the
/// workspace; what the kernel opens for it is the decoy inside. The
/// test's premise, shown on the real file system.
#[test]
fn the_kernel_and_the_clients_read_dot_dot_after_a_link_differently() {
    let w = ws();
    let kernel = std::fs::read_to_string(w.ws.join("lk/../../outside/o.txt")).expect("read");
    assert_eq!(kernel, "decoy\n");
    let text = toolgate_policy::normalize_lexically(&w.ws.join("lk/../../outside/o.txt"));
    assert_eq!(text, w.base.join("outside/o.txt"));
    assert_eq!(std::fs::read_to_string(text).expect("read"), "outside\n");
}

#[test]
fn a_clients_file_tools_read_dot_dot_as_text() {
    let w = ws();
    let outside = Some("hard:outside-roots");
    for (client, tool, input, effect, rule) in [
        (
            Client::Claude,
            "Read",
            json!({"file_path": "lk/../../outside/o.txt"}),
            Effect::Deny,
            outside,
        ),
        // `lk/..` is the workspace to the client, `src` to the kernel.
        (
            Client::Claude,
            "Read",
            json!({"file_path": "lk/../secrets/k"}),
            Effect::Deny,
            Some("deny[1]"),
        ),
        (
            Client::Claude,
            "Write",
            json!({"file_path": "lk/../../outside/w.txt", "content": "x"}),
            Effect::Deny,
            outside,
        ),
        (
            Client::Claude,
            "Edit",
            json!({"file_path": "lk/../.git/config", "old_string": "a", "new_string": "b"}),
            Effect::Deny,
            Some("deny[2]"),
        ),
        // ripgrep searches the workspace, `.env` and `secrets/` with it.
        (
            Client::Claude,
            "Grep",
            json!({"pattern": "KEY", "path": "lk/.."}),
            Effect::Deny,
            Some("deny["),
        ),
        (
            Client::Gemini,
            "read_file",
            json!({"file_path": "lk/../../outside/o.txt"}),
            Effect::Deny,
            outside,
        ),
        (
            Client::Gemini,
            "grep_search",
            json!({"pattern": "KEY", "dir_path": "lk/.."}),
            Effect::Deny,
            Some("deny["),
        ),
        (
            Client::Gemini,
            "read_many_files",
            json!({"include": ["lk/../secrets"]}),
            Effect::Deny,
            Some("deny[1]"),
        ),
        (
            Client::Gemini,
            "list_directory",
            json!({"dir_path": "lk/../../outside"}),
            Effect::Deny,
            outside,
        ),
        (
            Client::Pi,
            "read",
            json!({"path": "lk/../../outside/o.txt"}),
            Effect::Deny,
            outside,
        ),
        (
            Client::Qwen,
            "read_file",
            json!({"absolute_path": w.ws.join("lk/../../outside/o.txt")}),
            Effect::Deny,
            outside,
        ),
        (
            Client::Codex,
            "apply_patch",
            json!({"command": "*** Begin Patch\n*** Add File: lk/../../outside/pwned.txt\n+x\n*** End Patch\n"}),
            Effect::Deny,
            outside,
        ),
        // What stays inside as text is allowed as before.
        (
            Client::Claude,
            "Read",
            json!({"file_path": "lk/../src/lib.rs"}),
            Effect::Allow,
            Some("allow[0]"),
        ),
    ] {
        let d = decide(&w, client, tool, input.clone());
        let what = format!("{client} {tool} {input}");
        assert_eq!(d.decision, effect, "{what}: {}", d.reason);
        match rule {
            Some(rule) => assert!(
                d.rule.as_deref().is_some_and(|r| r.starts_with(rule)),
                "{what}: {:?} {}",
                d.rule,
                d.reason
            ),
            None => assert_eq!(d.rule, None, "{what}: {}", d.reason),
        }
    }
}

/// A shell tool's working directory is the client's too: Gemini CLI
/// resolves `dir_path` as text and starts the command there.
#[test]
fn a_shell_tools_directory_is_read_as_text() {
    let w = ws();
    let d = decide(
        &w,
        Client::Gemini,
        "run_shell_command",
        json!({"command": "cat secrets/k", "dir_path": "lk/.."}),
    );
    expect(&d, Effect::Deny, Some("deny[1]"), "cat secrets/k in lk/..");
}

/// The client's own working directory is text to it as well.
#[test]
fn a_working_directory_through_a_link_is_read_as_text() {
    let w = ws();
    let mut call = Call::new("Read", json!({"file_path": "../../outside/o.txt"}));
    call.client = Client::Claude;
    call.cwd = Some(w.ws.join("lk"));
    let d = w.policy.decide(&call);
    // `<ws>/lk/../../outside/o.txt` is `BASE/outside/o.txt`.
    expect(&d, Effect::Deny, Some("hard:outside-roots"), "from lk");
}

/// toolgate's own tools open paths beneath a root through the kernel
/// (`openat2`), and shell commands are run by it: `..` after a link is
/// the kernel's, the decoy inside.
#[test]
fn toolgates_own_tools_and_commands_keep_the_kernels_reading() {
    let w = ws();
    let d = decide(
        &w,
        Client::Toolgate,
        "read_file",
        json!({"path": "lk/../../outside/o.txt"}),
    );
    expect(&d, Effect::Allow, Some("allow[0]"), "toolgate read_file");
    let d = w.decide("cat lk/../../outside/o.txt");
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
}

/// A declared tool's server may read `..` either way: both are decided.
#[test]
fn a_declared_tool_is_decided_both_ways() {
    let w = ws();
    for client in [Client::Mcp, Client::Claude] {
        let d = decide(
            &w,
            client,
            "fs_read",
            json!({"path": "lk/../../outside/o.txt"}),
        );
        expect(&d, Effect::Deny, Some("hard:outside-roots"), "text reading");
    }
    // `lk/../../secrets/k` is `BASE/secrets/k` as text (outside), and
    // `ws/secrets/k` to the kernel (denied).
    std::fs::create_dir_all(w.base.join("secrets")).expect("dir");
    let d = decide(
        &w,
        Client::Mcp,
        "fs_read",
        json!({"path": "lk/../../secrets/k"}),
    );
    assert_eq!(d.decision, Effect::Deny, "{}", d.reason);
    assert!(
        d.actions
            .iter()
            .any(|a| a.rule.as_deref() == Some("deny[1]")),
        "the kernel's reading is decided too: {d:?}"
    );
}

#[test]
fn a_glob_that_climbs_after_a_wildcard_leaves_its_directory() {
    let w = ws();
    let outside = Some("hard:outside-roots");
    for (client, tool, input) in [
        (
            Client::Claude,
            "Glob",
            json!({"pattern": "*/../../outside/*"}),
        ),
        (
            Client::Claude,
            "Glob",
            json!({"pattern": "**/../../outside/*"}),
        ),
        (
            Client::Claude,
            "Glob",
            json!({"pattern": "{src,../outside}/*"}),
        ),
        (
            Client::Claude,
            "Glob",
            json!({"pattern": "src/{a,../../x}/*"}),
        ),
        (
            Client::Claude,
            "Glob",
            json!({"pattern": "{.,x}./outside/*"}),
        ),
        (Client::Claude, "Glob", json!({"pattern": "{src,~/x}/*"})),
        // From `src`, three levels up is BASE.
        (
            Client::Claude,
            "Glob",
            json!({"pattern": "*/../../../outside/*", "path": "src"}),
        ),
        (
            Client::Gemini,
            "glob",
            json!({"pattern": "*/../../outside/*"}),
        ),
        (
            Client::Gemini,
            "glob",
            json!({"pattern": "{src,../outside}/*"}),
        ),
        (
            Client::Gemini,
            "read_many_files",
            json!({"include": ["*/../../outside/*"]}),
        ),
        (
            Client::Gemini,
            "read_many_files",
            json!({"include": ["{src,../outside}/*"]}),
        ),
    ] {
        let d = decide(&w, client, tool, input.clone());
        expect(
            &d,
            Effect::Deny,
            outside,
            &format!("{client} {tool} {input}"),
        );
    }
    // What climbs back into the directory stays there.
    for pattern in ["src/*/../*.rs", "*/../*.rs", "{src,lk}/*.rs"] {
        let d = decide(&w, Client::Claude, "Glob", json!({ "pattern": pattern }));
        expect(&d, Effect::Allow, Some("allow[0]"), pattern);
    }
    // A climb that lands on a denied directory meets its rule.
    let d = decide(
        &w,
        Client::Gemini,
        "read_many_files",
        json!({"include": ["src/*/../../secrets/*"]}),
    );
    expect(&d, Effect::Deny, Some("deny[1]"), "into secrets");
    // `..` as the clients' glob library reads it: a class of one
    // character is that character, a backslash escapes the next.
    for include in ["src/[.][.]/secrets/*", r"src/\.\./secrets/key"] {
        let d = decide(
            &w,
            Client::Gemini,
            "read_many_files",
            json!({ "include": [include] }),
        );
        expect(&d, Effect::Deny, Some("deny[1]"), include);
    }
    for pattern in ["[.][.]/[.][.]/outside/*", r"\.\./\.\./outside/*"] {
        let d = decide(&w, Client::Gemini, "glob", json!({ "pattern": pattern }));
        expect(&d, Effect::Deny, outside, pattern);
    }
}

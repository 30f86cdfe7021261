//! `..` after a link in a path a client's tool is given, through the hooks.
//! The clients take `..` as text against their working directory (Node's
//! `path.resolve`, Codex's lexical absolutize) and then open the path, so
//! `lk/../../outside` with `lk -> src/deep` is beside the project, not in
//! it: the hook decides that file. A glob that climbs with `..` after a
//! wildcard leaves its directory too.

use std::path::PathBuf;

use serde_json::{Value, json};
use toolgate_hook::{HookOptions, claude_hook, codex_hook, gemini_hook, pi_hook};

const POLICY: &str = r#"
[policy]
default = "ask"
allow = ["Read", "Edit"]
deny = ["Read(.env)", "Read(secrets/**)", "Edit(.git/**)"]
"#;

struct Project {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    opts: HookOptions,
}

impl Project {
    /// `BASE/project` with `lk -> src/deep`, a decoy `outside/o.txt`
    /// inside it (what the kernel reaches through `lk/../../`), and
    /// `BASE/outside/o.txt` (what the clients reach).
    fn new() -> Project {
        let tmp = tempfile::tempdir().expect("temp dir");
        let base = tmp.path().canonicalize().expect("canonical");
        let dir = base.join("project");
        for (path, text) in [
            ("project/toolgate.toml", POLICY),
            ("project/.env", "KEY=1\n"),
            ("project/secrets/k", "k\n"),
            ("project/src/deep/a.rs", "fn a() {}\n"),
            ("project/src/lib.rs", "\n"),
            ("project/outside/o.txt", "decoy\n"),
            ("outside/o.txt", "outside\n"),
        ] {
            let at = base.join(path);
            std::fs::create_dir_all(at.parent().expect("parent")).expect("folder");
            std::fs::write(at, text).expect("file");
        }
        std::os::unix::fs::symlink("src/deep", dir.join("lk")).expect("link");
        let opts = HookOptions {
            policy: Some(dir.join("toolgate.toml")),
            state_dir: Some(base.join("state")),
            ..HookOptions::default()
        };
        Project {
            _tmp: tmp,
            dir,
            opts,
        }
    }

    /// Claude Code's decision (`permissionDecision`) and the reply.
    fn claude(&self, tool: &str, input: Value) -> (String, String) {
        let stdin = json!({"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": self.dir,
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": input});
        let reply = claude_hook(stdin.to_string().as_bytes(), &self.opts);
        let v: Value = serde_json::from_str(&reply.stdout).unwrap_or(Value::Null);
        let d = v["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("blocked");
        (d.to_string(), format!("{}{}", reply.stdout, reply.stderr))
    }

    /// Gemini CLI's decision and the reply.
    fn gemini(&self, tool: &str, input: Value) -> (String, String) {
        let stdin = json!({"session_id": "s1", "transcript_path": "/t.jsonl", "cwd": self.dir,
            "hook_event_name": "BeforeTool", "timestamp": "2026-01-01T00:00:00Z",
            "tool_name": tool, "tool_input": input});
        let reply = gemini_hook(stdin.to_string().as_bytes(), &self.opts);
        let v: Value = serde_json::from_str(&reply.stdout).unwrap_or(Value::Null);
        let d = v["decision"].as_str().unwrap_or("blocked");
        (d.to_string(), reply.stdout.clone())
    }

    /// Pi's decision (toolgate's extension) and the reply.
    fn pi(&self, tool: &str, input: Value) -> (String, String) {
        let stdin = json!({"session_id": "s1", "cwd": self.dir, "tool_name": tool,
            "tool_input": input, "call_id": "c1"});
        let reply = pi_hook(stdin.to_string().as_bytes(), &self.opts);
        let v: Value = serde_json::from_str(&reply.stdout).unwrap_or(Value::Null);
        let d = v["decision"].as_str().unwrap_or("blocked");
        (d.to_string(), reply.stdout.clone())
    }

    /// Codex's decision for an `apply_patch` (`allow` for the empty answer
    /// that lets the call go on) and the reply.
    fn codex_patch(&self, patch: &str) -> (String, String) {
        let stdin = json!({"session_id": "s1", "turn_id": "t", "transcript_path": null,
            "cwd": self.dir, "hook_event_name": "PreToolUse", "model": "m",
            "permission_mode": "default", "tool_name": "apply_patch",
            "tool_use_id": "c1", "tool_input": {"command": patch}});
        let reply = codex_hook(stdin.to_string().as_bytes(), &self.opts);
        if reply.stdout.is_empty() && reply.exit_code == 0 {
            return ("allow".into(), String::new());
        }
        let v: Value = serde_json::from_str(&reply.stdout).unwrap_or(Value::Null);
        let d = v["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("blocked");
        (d.to_string(), format!("{}{}", reply.stdout, reply.stderr))
    }
}

#[test]
fn claude_decides_the_file_node_opens() {
    let p = Project::new();
    for (tool, input, want, why) in [
        (
            "Read",
            json!({"file_path": "lk/../../outside/o.txt"}),
            "deny",
            "outside the workspace roots",
        ),
        (
            "Read",
            json!({"file_path": "lk/../secrets/k"}),
            "deny",
            "deny[1]",
        ),
        (
            "Write",
            json!({"file_path": "lk/../../outside/w.txt", "content": "x"}),
            "deny",
            "outside the workspace roots",
        ),
        (
            "Edit",
            json!({"file_path": "lk/../.git/config", "old_string": "a", "new_string": "b"}),
            "deny",
            "Edit(.git/**)",
        ),
        // ripgrep searches the project, `.env` and `secrets/` with it.
        (
            "Grep",
            json!({"pattern": "KEY", "path": "lk/.."}),
            "deny",
            "denied by rule `deny[",
        ),
        (
            "Glob",
            json!({"pattern": "*/../../outside/*"}),
            "deny",
            "outside the workspace roots",
        ),
        (
            "Glob",
            json!({"pattern": "{src,../outside}/*"}),
            "deny",
            "outside the workspace roots",
        ),
        (
            "Read",
            json!({"file_path": "lk/../src/lib.rs"}),
            "allow",
            "",
        ),
        ("Grep", json!({"pattern": "x", "path": "lk"}), "allow", ""),
    ] {
        let (d, text) = p.claude(tool, input.clone());
        assert_eq!(d, want, "{tool} {input}: {text}");
        assert!(text.contains(why), "{tool} {input}: {text}");
    }
    assert!(!p.dir.join("../outside/w.txt").exists());
}

#[test]
fn gemini_and_pi_decide_the_file_node_opens() {
    let p = Project::new();
    for (tool, input, why) in [
        (
            "read_file",
            json!({"file_path": "lk/../../outside/o.txt"}),
            "outside the workspace roots",
        ),
        (
            "write_file",
            json!({"file_path": "lk/../../outside/w.txt", "content": "x"}),
            "outside the workspace roots",
        ),
        (
            "grep_search",
            json!({"pattern": "KEY", "dir_path": "lk/.."}),
            "denied by rule `deny[",
        ),
        (
            "read_many_files",
            json!({"include": ["lk/../secrets/*"]}),
            "denied by rule `deny[1]`",
        ),
        (
            "glob",
            json!({"pattern": "*/../../outside/*"}),
            "outside the workspace roots",
        ),
    ] {
        let (d, text) = p.gemini(tool, input.clone());
        assert_eq!(d, "deny", "{tool} {input}: {text}");
        assert!(text.contains(why), "{tool} {input}: {text}");
    }
    for (tool, input) in [
        ("read", json!({"path": "lk/../../outside/o.txt"})),
        ("grep", json!({"pattern": "KEY", "path": "lk/.."})),
        ("ls", json!({"path": "lk/../../outside"})),
    ] {
        let (d, text) = p.pi(tool, input.clone());
        assert_eq!(d, "deny", "{tool} {input}: {text}");
    }
    let (d, text) = p.gemini("read_file", json!({"file_path": "lk/a.rs"}));
    assert_eq!(d, "allow", "{text}");
}

#[test]
fn a_codex_patch_adds_the_file_codex_writes() {
    let p = Project::new();
    let (d, text) = p.codex_patch(
        "*** Begin Patch\n*** Add File: lk/../../outside/pwned.txt\n+x\n*** End Patch\n",
    );
    assert_eq!(d, "deny", "{text}");
    assert!(text.contains("outside the workspace roots"), "{text}");
    let (d, text) =
        p.codex_patch("*** Begin Patch\n*** Add File: lk/../.git/config\n+x\n*** End Patch\n");
    assert_eq!(d, "deny", "{text}");
    let (d, text) =
        p.codex_patch("*** Begin Patch\n*** Add File: lk/../n.txt\n+x\n*** End Patch\n");
    assert_eq!(d, "allow", "{text}");
}

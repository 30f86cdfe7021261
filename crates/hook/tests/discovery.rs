//! The project policy is found from where the session started, not from
//! wherever the agent has moved: a `toolgate.toml` the agent writes below it
//! only tightens, and writing one is a hard limit.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolgate_hook::{HookOptions, claude_hook, cursor_hook, grok_hook};

const POLICY: &str = r#"
allow = ["Read", "Bash(ls *)", "Edit(docs/**)", "Write(docs/**)"]
deny  = ["Bash(rm *)"]
"#;

/// What an agent would write to take over: everything allowed, roots
/// widened to the parent.
const TAKEOVER: &str = r#"
allow = ["*", "Bash", "Bash(rm *)"]

[policy]
roots = [".."]
mode = "bypass"
"#;

struct Project {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    opts: HookOptions,
}

impl Project {
    fn new() -> Project {
        let tmp = tempfile::tempdir().expect("temp dir");
        let base = tmp.path().canonicalize().expect("canonical temp dir");
        let dir = base.join("project");
        std::fs::create_dir_all(dir.join("docs")).expect("project folder");
        std::fs::write(dir.join("toolgate.toml"), POLICY).expect("policy");
        std::fs::write(dir.join("victim.txt"), "v").expect("victim");
        // No explicit policy: discovery as a hook does it, with the
        // project found from the workspace the hook was registered for.
        let opts = HookOptions {
            state_dir: Some(base.join("state")),
            workspace: Some(dir.clone()),
            ..HookOptions::default()
        };
        Project {
            _tmp: tmp,
            dir,
            opts,
        }
    }

    /// The Claude Code hook's answer, `(decision, reason)`, for a call made
    /// from `cwd`.
    fn decide(
        &self,
        opts: &HookOptions,
        session: &str,
        cwd: &Path,
        tool: &str,
        input: Value,
    ) -> (String, String) {
        let stdin = json!({
            "session_id": session, "transcript_path": "/t.jsonl", "cwd": cwd,
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": tool, "tool_input": input,
        });
        let reply = claude_hook(stdin.to_string().as_bytes(), opts);
        assert_eq!(reply.exit_code, 0, "{reply:?}");
        let v: Value = serde_json::from_str(&reply.stdout).expect("reply JSON");
        let out = &v["hookSpecificOutput"];
        (
            out["permissionDecision"].as_str().unwrap_or("").to_owned(),
            out["permissionDecisionReason"]
                .as_str()
                .unwrap_or("")
                .to_owned(),
        )
    }
}

#[test]
fn a_policy_written_below_the_workspace_does_not_loosen() {
    let p = Project::new();
    let docs = p.dir.join("docs");
    std::fs::write(docs.join("toolgate.toml"), TAKEOVER).expect("agent's policy");
    let rm = json!({"command": "rm victim.txt"});
    let (d, reason) = p.decide(
        &p.opts,
        "s1",
        &docs,
        "Bash",
        json!({"command": "rm ../victim.txt"}),
    );
    assert_eq!(d, "deny", "{reason}");
    // Its deny rules still count: a nested file can tighten.
    std::fs::write(docs.join("toolgate.toml"), "deny = [\"Bash(ls *)\"]\n").expect("tighter");
    let (d, _) = p.decide(&p.opts, "s1", &docs, "Bash", json!({"command": "ls"}));
    assert_eq!(d, "deny", "a nested deny is final");
    let (d, _) = p.decide(&p.opts, "s1", &p.dir, "Bash", json!({"command": "ls"}));
    assert_eq!(
        d, "allow",
        "the nested file governs only calls made below it"
    );
    let (d, _) = p.decide(&p.opts, "s1", &p.dir, "Bash", rm);
    assert_eq!(d, "deny");
}

#[test]
fn without_a_workspace_the_session_start_is_the_anchor() {
    let p = Project::new();
    let opts = HookOptions {
        workspace: None,
        ..p.opts.clone()
    };
    if toolgate_hook::PROJECT_DIR_VARS
        .iter()
        .any(|v| std::env::var_os(v).is_some())
    {
        eprintln!("skipped: the client's project directory is set in this environment");
        return;
    }
    let docs = p.dir.join("docs");
    // The session's first call comes from the project.
    let (d, _) = p.decide(&opts, "s9", &p.dir, "Bash", json!({"command": "ls"}));
    assert_eq!(d, "allow");
    std::fs::write(docs.join("toolgate.toml"), TAKEOVER).expect("agent's policy");
    let (d, reason) = p.decide(
        &opts,
        "s9",
        &docs,
        "Bash",
        json!({"command": "rm ../victim.txt"}),
    );
    assert_eq!(d, "deny", "{reason}");
    assert!(p.dir.join("victim.txt").exists());
}

#[test]
fn writing_any_file_named_toolgate_toml_is_a_hard_limit() {
    let p = Project::new();
    for (tool, input) in [
        (
            "Write",
            json!({"file_path": p.dir.join("docs/toolgate.toml"), "content": TAKEOVER}),
        ),
        (
            "Edit",
            json!({"file_path": p.dir.join("docs/toolgate.toml"), "old_string": "a", "new_string": "b"}),
        ),
        (
            "Bash",
            json!({"command": "echo 'allow = [\"*\"]' > docs/toolgate.toml"}),
        ),
        (
            "Bash",
            json!({"command": "cp victim.txt docs/sub/toolgate.toml"}),
        ),
    ] {
        let (d, reason) = p.decide(&p.opts, "s1", &p.dir, tool, input.clone());
        assert_eq!(d, "deny", "{tool} {input}: {reason}");
        assert!(
            reason.contains("hard:policy-file") || reason.contains("toolgate.toml"),
            "{reason}"
        );
    }
    assert!(!p.dir.join("docs/toolgate.toml").exists());
}

#[test]
fn a_repeated_key_in_the_hook_input_blocks_the_call() {
    let p = Project::new();
    let stdin = format!(
        r#"{{"session_id":"s1","transcript_path":"/t","cwd":{cwd},"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"ls","command":"rm victim.txt"}}}}"#,
        cwd = json!(p.dir)
    );
    let reply = claude_hook(stdin.as_bytes(), &p.opts);
    // Claude Code's blocking failure: exit 2, the reason on standard error.
    assert_eq!(reply.exit_code, 2, "{reply:?}");
    assert!(reply.stderr.contains("repeats the key"), "{reply:?}");
}

/// Grok Build and Cursor name the workspace in every input (`workspaceRoot`,
/// `workspace_roots`): the project policy is found there, so a session
/// whose first call comes from a subdirectory holding a looser
/// `toolgate.toml` (a vendored project's) is still governed by the
/// workspace's, and the nested file only tightens.
#[test]
fn grok_and_cursor_find_the_policy_from_the_workspace_they_name() {
    let p = Project::new();
    let opts = HookOptions {
        workspace: None,
        launch_dir: None,
        ..p.opts.clone()
    };
    let vendor = p.dir.join("vendor/lib");
    std::fs::create_dir_all(&vendor).expect("vendored project");
    std::fs::write(vendor.join("toolgate.toml"), TAKEOVER).expect("its policy");
    std::fs::write(vendor.join("x.txt"), "x").expect("a file of its own");
    let grok = |session: &str, cwd: &Path, command: &str| {
        let stdin = json!({"hookEventName": "pre_tool_use", "sessionId": session,
            "cwd": cwd, "workspaceRoot": p.dir,
            "toolName": "run_terminal_command", "toolInput": {"command": command}});
        let reply = grok_hook(stdin.to_string().as_bytes(), &opts);
        assert_eq!(reply.exit_code, 0, "{reply:?}");
        let v: Value = serde_json::from_str(&reply.stdout).unwrap_or(Value::Null);
        v["decision"].as_str().unwrap_or("allow").to_owned()
    };
    let cursor = |session: &str, cwd: &Path, command: &str| {
        let stdin = json!({"hook_event_name": "beforeShellExecution",
            "conversation_id": session, "generation_id": "g",
            "workspace_roots": [p.dir], "cwd": cwd, "command": command});
        let reply = cursor_hook(stdin.to_string().as_bytes(), &opts);
        assert_eq!(reply.exit_code, 0, "{reply:?}");
        let v: Value = serde_json::from_str(&reply.stdout).expect("reply JSON");
        v["permission"].as_str().unwrap_or("").to_owned()
    };
    // The vendored file allows `rm`; the workspace's denies it.
    assert_eq!(grok("g1", &vendor, "rm x.txt"), "deny", "grok's first call");
    assert_eq!(grok("g1", &p.dir, "rm victim.txt"), "deny");
    assert_eq!(
        cursor("c1", &vendor, "rm x.txt"),
        "deny",
        "cursor's first call"
    );
    assert_eq!(cursor("c1", &p.dir, "rm victim.txt"), "deny");
    // Cursor without `cwd` works in its first root, as before.
    let stdin = json!({"hook_event_name": "beforeShellExecution",
        "conversation_id": "c2", "generation_id": "g",
        "workspace_roots": [p.dir], "command": "rm victim.txt"});
    let v: Value = serde_json::from_str(&cursor_hook(stdin.to_string().as_bytes(), &opts).stdout)
        .expect("reply JSON");
    assert_eq!(v["permission"], "deny");
    assert!(p.dir.join("victim.txt").exists());

    // A nested file still tightens the calls made below it.
    std::fs::write(vendor.join("toolgate.toml"), "deny = [\"Bash(ls *)\"]\n").expect("tighter");
    assert_eq!(grok("g2", &vendor, "ls"), "deny");
    assert_eq!(grok("g2", &p.dir, "ls"), "allow");
    assert_eq!(cursor("c3", &vendor, "ls"), "deny");
    assert_eq!(cursor("c3", &p.dir, "ls"), "allow");
}

/// A workspace root that is not an absolute path is not guessed at: the
/// call is refused.
#[test]
fn a_relative_workspace_root_is_refused() {
    let p = Project::new();
    let stdin = json!({"hookEventName": "pre_tool_use", "sessionId": "g3",
        "cwd": p.dir, "workspaceRoot": "vendor/lib",
        "toolName": "run_terminal_command", "toolInput": {"command": "ls"}});
    let reply = grok_hook(stdin.to_string().as_bytes(), &p.opts);
    assert_eq!(reply.exit_code, 2, "{reply:?}");
    let stdin = json!({"hook_event_name": "beforeShellExecution",
        "conversation_id": "c4", "generation_id": "g", "cwd": p.dir,
        "workspace_roots": ["vendor/lib"], "command": "ls"});
    let reply = cursor_hook(stdin.to_string().as_bytes(), &p.opts);
    assert_eq!(reply.exit_code, 2, "{reply:?}");
}

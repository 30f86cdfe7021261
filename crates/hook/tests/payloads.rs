//! Grok Build's and Cursor's hooks, whose binaries cannot be installed
//! here, on payloads written from their published documentation (see
//! `PROTOCOL.md`), and Gemini CLI's MCP tool names: each through the real
//! gate, with a real policy and ledger, including the fail-closed path.

use std::path::PathBuf;

use serde_json::{Value, json};
use toolgate_hook::{
    HookOptions, HookReply, claude_hook, copilot_hook, cursor_hook, gemini_hook, grok_hook,
};
use toolgate_store::{Decision, RowFilter, Store};

const POLICY: &str = r#"
allow = ["Bash(git status)", "Read", "mcp__db__query"]
deny  = ["Bash(rm *)", "Read(.env)", "mcp__db__drop"]
"#;

struct Project {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    state: PathBuf,
}

impl Project {
    fn new(policy: &str) -> Project {
        let tmp = tempfile::tempdir().expect("temp dir");
        let base = tmp.path().canonicalize().expect("canonical");
        let dir = base.join("project");
        std::fs::create_dir_all(&dir).expect("project");
        std::fs::write(dir.join("toolgate.toml"), policy).expect("policy");
        std::fs::create_dir_all(base.join("state")).expect("state");
        Project {
            _tmp: tmp,
            dir,
            state: base.join("state"),
        }
    }

    fn opts(&self) -> HookOptions {
        HookOptions {
            policy: Some(self.dir.join("toolgate.toml")),
            state_dir: Some(self.state.clone()),
            ..HookOptions::default()
        }
    }

    fn rows(&self) -> Vec<(Decision, Option<String>, String)> {
        Store::open(self.state.join("toolgate.db"))
            .expect("ledger")
            .rows(&RowFilter::default())
            .expect("rows")
            .into_iter()
            .map(|r| (r.record.decision, r.record.client, r.record.tool))
            .collect()
    }

    /// Grok's documented pre-tool payload.
    fn grok(&self, tool: &str, input: Value) -> String {
        json!({"hookEventName": "pre_tool_use", "sessionId": "g1",
            "cwd": self.dir, "workspaceRoot": self.dir,
            "toolName": tool, "toolInput": input})
        .to_string()
    }

    /// Cursor's documented payload for `event`, with `extra` fields.
    fn cursor(&self, event: &str, extra: Value) -> String {
        let mut v = json!({"hook_event_name": event, "conversation_id": "conv-123",
            "generation_id": "gen-456", "workspace_roots": [self.dir],
            "cursor_version": "2.0.77"});
        for (k, x) in extra.as_object().expect("object") {
            v[k] = x.clone();
        }
        v.to_string()
    }
}

fn stdout_json(reply: &HookReply) -> Value {
    serde_json::from_str(&reply.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {reply:?}"))
}

/// Copilot CLI's `grep` and `glob` search `paths` (one directory or a
/// list, seen in 1.0.102's own request to the model), not `path`: each
/// entry is decided, so `.env` among them, or a directory outside the
/// roots, is refused whatever `path` says; Grok's `list_dir` names its
/// directory `dir_path`.
#[test]
fn the_fields_copilot_and_grok_search_are_the_ones_decided() {
    let p = Project::new(POLICY);
    std::fs::create_dir_all(p.dir.join("docs")).expect("docs");
    std::fs::write(p.dir.join(".env"), "SECRET=2\n").expect(".env");
    let outside = p.dir.parent().expect("parent").join("outside");
    std::fs::create_dir_all(&outside).expect("outside");
    let copilot = |tool: &str, args: Value| {
        let stdin = json!({"sessionId": "c1", "cwd": p.dir, "toolName": tool, "toolArgs": args});
        let reply = copilot_hook(stdin.to_string().as_bytes(), &p.opts());
        stdout_json(&reply)["permissionDecision"]
            .as_str()
            .unwrap_or("none")
            .to_string()
    };
    for (tool, args) in [
        (
            "grep",
            json!({"pattern": "S", "path": "docs", "paths": [".env"]}),
        ),
        ("grep", json!({"pattern": "S", "paths": ["docs", outside]})),
        (
            "glob",
            json!({"pattern": "*", "path": "docs", "paths": outside}),
        ),
    ] {
        assert_eq!(copilot(tool, args.clone()), "deny", "{tool} {args}");
    }
    assert_eq!(
        copilot("grep", json!({"pattern": "S", "paths": ["docs"]})),
        "allow"
    );
    let list = p.grok("list_dir", json!({"dir_path": outside, "depth": 3}));
    let v = stdout_json(&grok_hook(list.as_bytes(), &p.opts()));
    assert_eq!(v["decision"], "deny", "{v}");
    // Grok's own `grep` and `write` are decided on their paths.
    let grep = p.grok("grep", json!({"pattern": "S", "path": "docs"}));
    let reply = grok_hook(grep.as_bytes(), &p.opts());
    assert_eq!(
        (reply.exit_code, reply.stdout.as_str()),
        (0, ""),
        "{reply:?}"
    );
    let grep = p.grok("grep", json!({"pattern": "S", "path": "."}));
    let v = stdout_json(&grok_hook(grep.as_bytes(), &p.opts()));
    assert_eq!(v["decision"], "deny", "{v}");
    assert!(
        v["reason"].as_str().unwrap_or("").contains("deny[1]"),
        "{v}"
    );
    let write = p.grok("write", json!({"file_path": "notes.txt", "content": "x"}));
    let v = stdout_json(&grok_hook(write.as_bytes(), &p.opts()));
    assert!(
        v["reason"].as_str().unwrap_or("").contains("notes.txt"),
        "{v}"
    );
}

#[test]
fn grok_payloads_get_grok_answers_from_the_claude_and_grok_hooks() {
    let p = Project::new(POLICY);
    let rm = p.grok("run_terminal_command", json!({"command": "rm victim.txt"}));
    for reply in [
        claude_hook(rm.as_bytes(), &p.opts()),
        grok_hook(rm.as_bytes(), &p.opts()),
    ] {
        assert_eq!(reply.exit_code, 0, "{reply:?}");
        let v = stdout_json(&reply);
        assert_eq!(v["decision"], "deny", "{reply:?}");
        let reason = v["reason"].as_str().expect("reason");
        assert!(reason.contains("deny[0]"), "{reason}");
        assert!(v.get("hookSpecificOutput").is_none());
    }
    let status = p.grok("run_terminal_command", json!({"command": "git status"}));
    let reply = claude_hook(status.as_bytes(), &p.opts());
    assert_eq!((reply.exit_code, reply.stdout.as_str()), (0, ""));
    let env = p.grok("read_file", json!({"target_file": ".env"}));
    assert_eq!(
        stdout_json(&claude_hook(env.as_bytes(), &p.opts()))["decision"],
        "deny"
    );
    let rows = p.rows();
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(
        rows.iter().all(|r| r.1.as_deref() == Some("grok")),
        "{rows:?}"
    );
    assert_eq!(rows[2].0, Decision::Allow);
}

#[test]
fn grok_fails_closed_on_an_unreadable_policy_and_a_bad_payload() {
    let p = Project::new("allow = [\n");
    let rm = p.grok("run_terminal_command", json!({"command": "rm victim.txt"}));
    let reply = claude_hook(rm.as_bytes(), &p.opts());
    assert_eq!(reply.exit_code, 2, "{reply:?}");
    assert_eq!(stdout_json(&reply)["decision"], "deny");
    assert!(reply.stderr.contains("toolgate"), "{reply:?}");

    let p = Project::new(POLICY);
    let bad = json!({"hookEventName": "pre_tool_use", "sessionId": "g1", "cwd": "relative",
        "toolName": "run_terminal_command", "toolInput": {"command": "ls"}})
    .to_string();
    let reply = claude_hook(bad.as_bytes(), &p.opts());
    assert_eq!(reply.exit_code, 2);
    assert_eq!(stdout_json(&reply)["decision"], "deny");
}

#[test]
fn cursor_events_are_decided_and_answered_with_permission() {
    let p = Project::new(POLICY);
    let shell = |cmd: &str| {
        p.cursor(
            "beforeShellExecution",
            json!({"command": cmd, "cwd": p.dir}),
        )
    };
    let denied = stdout_json(&cursor_hook(shell("rm victim.txt").as_bytes(), &p.opts()));
    assert_eq!(denied["permission"], "deny");
    assert!(
        denied["agent_message"]
            .as_str()
            .unwrap()
            .contains("deny[0]")
    );
    assert_eq!(denied["user_message"], denied["agent_message"]);
    let allowed = stdout_json(&cursor_hook(shell("git status").as_bytes(), &p.opts()));
    assert_eq!(allowed, json!({"permission": "allow"}));

    let read = p.cursor(
        "beforeReadFile",
        json!({"file_path": p.dir.join(".env"), "content": "SECRET=1", "attachments": []}),
    );
    assert_eq!(
        stdout_json(&cursor_hook(read.as_bytes(), &p.opts())),
        json!({"permission": "deny"})
    );

    let mcp = p.cursor(
        "beforeMCPExecution",
        json!({"tool_name": "mcp__db__drop", "tool_input": "{\"table\": \"users\"}",
            "command": "npx db-server"}),
    );
    assert_eq!(
        stdout_json(&cursor_hook(mcp.as_bytes(), &p.opts()))["permission"],
        "deny"
    );

    let tool = p.cursor(
        "preToolUse",
        json!({"tool_name": "Shell", "tool_input": {"command": "rm -f victim.txt"}}),
    );
    assert_eq!(
        stdout_json(&cursor_hook(tool.as_bytes(), &p.opts()))["permission"],
        "deny"
    );

    let rows = p.rows();
    assert_eq!(rows.len(), 5, "{rows:?}");
    assert!(rows.iter().all(|r| r.1.as_deref() == Some("cursor")));
    assert!(
        !std::fs::read_dir(&p.state)
            .expect("state")
            .flatten()
            .any(|e| std::fs::read(e.path()).is_ok_and(|b| b.windows(8).any(|w| w == b"SECRET=1"))),
        "the file content Cursor sends was recorded"
    );
}

#[test]
fn cursor_fails_closed() {
    let p = Project::new("deny = [\n");
    let shell = p.cursor(
        "beforeShellExecution",
        json!({"command": "ls", "cwd": p.dir}),
    );
    let reply = cursor_hook(shell.as_bytes(), &p.opts());
    assert_eq!(reply.exit_code, 2, "{reply:?}");
    assert_eq!(stdout_json(&reply)["permission"], "deny");
    assert!(
        stdout_json(&reply)["agent_message"]
            .as_str()
            .unwrap()
            .contains("toolgate")
    );

    let p = Project::new(POLICY);
    for bad in [
        p.cursor("afterFileEdit", json!({"file_path": "x"})),
        p.cursor("beforeShellExecution", json!({})),
        "{\"hook_event_name\":\"beforeShellExecution\",\"hook_event_name\":\"x\"}".to_owned(),
        "not json".to_owned(),
    ] {
        let reply = cursor_hook(bad.as_bytes(), &p.opts());
        assert_eq!(reply.exit_code, 2, "{bad}: {reply:?}");
        assert_eq!(stdout_json(&reply)["permission"], "deny", "{bad}");
    }
    assert!(p.rows().is_empty());
}

#[test]
fn gemini_mcp_tools_are_named_as_every_host_names_them() {
    let p = Project::new(POLICY);
    let call = |tool: &str| {
        json!({"session_id": "s1", "cwd": p.dir, "hook_event_name": "BeforeTool",
            "tool_name": format!("mcp_db_{tool}"), "tool_input": {},
            "mcp_context": {"server_name": "db", "tool_name": tool, "command": "node"}})
        .to_string()
    };
    let query = gemini_hook(call("query").as_bytes(), &p.opts());
    assert_eq!(stdout_json(&query)["decision"], "allow", "{query:?}");
    let drop = gemini_hook(call("drop").as_bytes(), &p.opts());
    assert_eq!(stdout_json(&drop)["decision"], "deny", "{drop:?}");
    let tools: Vec<String> = p.rows().into_iter().map(|r| r.2).collect();
    assert_eq!(tools, ["mcp__db__query", "mcp__db__drop"]);
}

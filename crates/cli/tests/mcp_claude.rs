//! The real Claude Code CLI (offline, against the fake Anthropic API of
//! `crates/hook/tests/support`) using `@modelcontextprotocol/server-filesystem`
//! through `toolgate mcp`, routed there by `toolgate hook install claude
//! --mcp` in the project's `.mcp.json`: an allowed read runs, a denied
//! write is refused and the file on disk stays as it was. Needs
//! `scripts/install-clients.sh` and `scripts/install-mcp.sh`.

use crate::support;

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};
use support::anthropic::FakeAnthropic;
use support::{Sandbox, Turn, run_claude};
use toolgate_store::{Decision, Outcome, RowFilter, Store};

/// A ledger row as the tests compare it: tool, decision, rule, outcome and
/// client or server.
type RowSummary<'a> = (&'a str, Decision, Option<&'a str>, Outcome, Option<&'a str>);

const POLICY: &str = r#"
allow = ["mcp__fs__read_text_file", "mcp__fs__write_file"]
deny = ["Edit(keep.txt)"]

[tool.mcp__fs__read_text_file]
kind = "read"
field = "path"

[tool.mcp__fs__write_file]
kind = "write"
field = "path"
"#;

fn filesystem_server() -> PathBuf {
    let dir = std::env::var_os("TOOLGATE_MCP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/toolgate-mcp")
        });
    let js = dir.join("npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    assert!(
        js.exists(),
        "run scripts/install-mcp.sh ({} is missing)",
        js.display()
    );
    js
}

#[test]
fn claude_code_through_toolgate_mcp_runs_the_allowed_read_and_not_the_denied_write() {
    if !crate::support::have_clients() {
        return;
    }
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path("toolgate.toml"), POLICY).unwrap();
    std::fs::write(sandbox.path("a.txt"), "hello from a\n").unwrap();
    std::fs::write(sandbox.path("keep.txt"), "original\n").unwrap();
    let project = sandbox.project.to_string_lossy().into_owned();

    // Route the project's server through the gateway, as a user would.
    let server = filesystem_server().to_string_lossy().into_owned();
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args([
            "hook", "install", "claude", "--mcp", "fs", "--", "node", &server, &project,
        ])
        .current_dir(&sandbox.project)
        .env("HOME", &sandbox.home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mcp: Value =
        serde_json::from_str(&std::fs::read_to_string(sandbox.path(".mcp.json")).unwrap()).unwrap();
    assert_eq!(mcp["mcpServers"]["fs"]["args"][0], "mcp");

    sandbox.write_claude_settings(&json!({"enableAllProjectMcpServers": true}));
    sandbox.trust_claude_project();
    let a = sandbox.path("a.txt").to_string_lossy().into_owned();
    let keep = sandbox.path("keep.txt").to_string_lossy().into_owned();
    let api = FakeAnthropic::start(vec![
        Turn::tool("mcp__fs__read_text_file", json!({"path": a})),
        Turn::tool(
            "mcp__fs__write_file",
            json!({"path": keep, "content": "overwritten\n"}),
        ),
        Turn::Text("done".into()),
    ]);
    let run = run_claude(
        &sandbox,
        &api,
        "Read a.txt, then overwrite keep.txt.",
        &[
            "--allowedTools",
            "mcp__fs__read_text_file mcp__fs__write_file",
        ],
    );
    assert!(run.status.success(), "{}\n{}", run.stdout, run.stderr);

    assert_eq!(
        std::fs::read_to_string(sandbox.path("keep.txt")).unwrap(),
        "original\n",
        "the denied write did not happen"
    );
    // The read's result reached the model (in the turn after the call).
    assert!(
        api.turns()
            .iter()
            .any(|t| t.to_string().contains("hello from a")),
        "the allowed read's content was not sent to the model"
    );
    let results = api.tool_results();
    let write = results.last().expect("the write's result");
    assert!(
        write.is_error && write.content.contains("not executed"),
        "{results:?}"
    );

    let rows = Store::open(sandbox.state.join("toolgate.db"))
        .unwrap()
        .rows(&RowFilter::default())
        .unwrap();
    // What the server asked of Claude Code (its roots), relayed because
    // Claude Code declares the capability: recorded, not decided.
    for r in rows
        .iter()
        .filter(|r| r.record.rule.as_deref() == Some("host:relayed"))
    {
        assert_eq!(r.record.tool, "mcp__fs__roots/list", "{:?}", r.record);
        assert_eq!(r.record.decision, Decision::Allow);
        assert_eq!(r.record.outcome, Outcome::Passed);
    }
    let got: Vec<RowSummary> = rows
        .iter()
        .filter(|r| r.record.rule.as_deref() != Some("host:relayed"))
        .map(|r| {
            (
                r.record.tool.as_str(),
                r.record.decision,
                r.record.rule.as_deref(),
                r.record.outcome,
                r.record.server.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                "mcp__fs__read_text_file",
                Decision::Allow,
                Some("allow[0]"),
                Outcome::Passed,
                Some("fs")
            ),
            (
                "mcp__fs__write_file",
                Decision::Deny,
                Some("deny[0]"),
                Outcome::Blocked,
                Some("fs")
            ),
        ]
    );
}

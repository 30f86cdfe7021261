//! The parsers on real hook inputs, as recorded from the pinned clients by
//! `tests/clients.rs` (temporary folders scrubbed to `/sandbox`).

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolgate_hook::{ClaudeInput, ClaudePermissionMode, GeminiInput, gemini::GeminiMcpContext};

fn fixture(client: &str, name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(client)
        .join(format!("{name}.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every fixture of a client, so that a new one cannot go untested.
fn all(client: &str) -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(client);
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("fixtures folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| p.file_stem().expect("stem").to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// (fixture, tool name, input field naming the target, its value)
const CLAUDE: &[(&str, &str, &str, &str)] = &[
    ("bash", "Bash", "command", "touch MARKER"),
    ("read", "Read", "file_path", "/sandbox/project/hello.txt"),
    ("write", "Write", "file_path", "/sandbox/project/new.txt"),
    ("edit", "Edit", "file_path", "/sandbox/project/hello.txt"),
    ("glob", "Glob", "pattern", "**/*.txt"),
    ("grep", "Grep", "path", "."),
    ("webfetch", "WebFetch", "url", "https://example.com/"),
    ("mcp", "mcp__echo__echo", "text", "hi"),
];

const GEMINI: &[(&str, &str, &str, &str)] = &[
    (
        "run_shell_command",
        "run_shell_command",
        "command",
        "touch MARKER",
    ),
    ("read_file", "read_file", "file_path", "hello.txt"),
    ("write_file", "write_file", "file_path", "new.txt"),
    ("replace", "replace", "file_path", "hello.txt"),
    ("list_directory", "list_directory", "dir_path", "."),
    ("glob", "glob", "pattern", "**/*.txt"),
    ("grep_search", "grep_search", "pattern", "hello"),
    (
        "web_fetch",
        "web_fetch",
        "prompt",
        "Summarise https://example.com/",
    ),
    ("mcp", "mcp_echo_echo", "text", "hi"),
];

#[test]
fn claude_fixtures_parse() {
    let mut seen: Vec<String> = CLAUDE.iter().map(|c| c.0.to_owned()).collect();
    seen.sort();
    assert_eq!(seen, all("claude"), "every fixture has a row here");
    for &(name, tool, field, value) in CLAUDE {
        let input =
            ClaudeInput::parse(&fixture("claude", name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(input.tool_name, tool, "{name}");
        assert_eq!(input.tool_input[field], Value::from(value), "{name}");
        assert_eq!(input.cwd, PathBuf::from("/sandbox/project"), "{name}");
        assert_eq!(
            input.permission_mode,
            ClaudePermissionMode::Default,
            "{name}"
        );
        assert!(
            input
                .tool_use_id
                .as_deref()
                .is_some_and(|id| id.starts_with("toolu_")),
            "{name}"
        );
        assert!(input.transcript_path.is_some(), "{name}");
        let expected_server = tool.starts_with("mcp__").then(|| "echo".to_owned());
        assert_eq!(input.mcp_server, expected_server, "{name}");
    }
}

#[test]
fn claude_fills_in_edit_defaults() {
    let input = ClaudeInput::parse(&fixture("claude", "edit")).unwrap();
    assert_eq!(input.tool_input["replace_all"], false);
}

#[test]
fn gemini_fixtures_parse() {
    let mut seen: Vec<String> = GEMINI.iter().map(|c| c.0.to_owned()).collect();
    seen.sort();
    assert_eq!(seen, all("gemini"), "every fixture has a row here");
    for &(name, tool, field, value) in GEMINI {
        let input =
            GeminiInput::parse(&fixture("gemini", name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(input.tool_name, tool, "{name}");
        assert_eq!(input.tool_input[field], Value::from(value), "{name}");
        assert_eq!(input.cwd, PathBuf::from("/sandbox/project"), "{name}");
        assert!(input.timestamp.is_some(), "{name}");
        let expected = tool.starts_with("mcp_").then(|| GeminiMcpContext {
            server_name: "echo".into(),
            tool_name: "echo".into(),
        });
        assert_eq!(input.mcp, expected, "{name}");
    }
}

#[test]
fn each_client_refuses_the_others_input() {
    let claude = fixture("claude", "bash");
    let gemini = fixture("gemini", "run_shell_command");
    assert!(GeminiInput::parse(&claude).is_err());
    assert!(ClaudeInput::parse(&gemini).is_err());
}

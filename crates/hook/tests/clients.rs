//! The real Claude Code and Gemini CLI, run headless and offline against fake
//! model APIs, with a hook that records its input and gives a fixed answer.
//!
//! These tests pin down the hook protocols as the pinned client releases
//! implement them (see `PROTOCOL.md`): which answers block a call, what the
//! model is told, and what each client sends the hook. The proof that a call
//! was or was not executed is a marker file the scripted `touch` creates.
//!
//! They need `scripts/install-clients.sh` to have run, and fail otherwise.

use crate::support;

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use support::anthropic::FakeAnthropic;
use support::gemini::FakeGemini;
use support::{
    CaptureHook, Run, Sandbox, Turn, claude_hook_settings, gemini_hook_settings, run_claude,
    run_gemini,
};
use toolgate_hook::{ClaudeInput, GeminiInput, HookReply, Permission, claude, gemini};

const REASON: &str = "toolgate: `touch` is denied by rule `deny[0]`; do not retry it";

fn reply(stdout: &str, stderr: &str, exit_code: u8) -> HookReply {
    HookReply {
        stdout: stdout.to_owned(),
        stderr: stderr.to_owned(),
        exit_code,
    }
}

#[test]
fn install_script_pins_the_versions_the_tests_expect() {
    let script = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/install-clients.sh"),
    )
    .expect("read scripts/install-clients.sh");
    assert!(script.contains(&format!(
        "CLAUDE_VERSION={}\n",
        support::CLAUDE_CODE_VERSION
    )));
    assert!(script.contains(&format!("GEMINI_VERSION={}\n", support::GEMINI_CLI_VERSION)));
    assert!(script.contains(&format!("QWEN_VERSION={}\n", support::QWEN_CODE_VERSION)));
    assert!(script.contains(&format!(
        "COPILOT_VERSION={}\n",
        support::COPILOT_CLI_VERSION
    )));
    assert!(script.contains(&format!("PI_VERSION={}\n", support::PI_VERSION)));
    assert!(script.contains(&format!("OPENCODE_VERSION={}\n", support::OPENCODE_VERSION)));
}

// ---------------------------------------------------------------- Claude Code

fn touch_bash(marker: &str) -> Turn {
    Turn::tool(
        "Bash",
        json!({"command": format!("touch {marker}"), "description": "Create a marker file"}),
    )
}

/// A Claude Code run whose model calls `Bash` with `touch <marker>` once.
struct ClaudeCase {
    sandbox: Sandbox,
    hook: CaptureHook,
    api: FakeAnthropic,
    run: Run,
}

impl ClaudeCase {
    /// `permissions` goes into the project's settings; `trusted` marks the
    /// project trusted so that Claude Code applies them in `-p` mode.
    fn run(
        answer: &HookReply,
        marker: &str,
        permissions: Option<Value>,
        trusted: bool,
    ) -> ClaudeCase {
        let sandbox = Sandbox::new();
        let hook = sandbox.capture_hook("hook", answer);
        let mut settings = claude_hook_settings(&hook.command);
        if let Some(permissions) = permissions {
            settings["permissions"] = permissions;
        }
        sandbox.write_claude_settings(&settings);
        if trusted {
            sandbox.trust_claude_project();
        }
        let api = FakeAnthropic::start(vec![touch_bash(marker)]);
        let run = run_claude(&sandbox, &api, "Create the marker file.", &[]);
        ClaudeCase {
            sandbox,
            hook,
            api,
            run,
        }
    }

    fn executed(&self, marker: &str) -> bool {
        self.sandbox.path(marker).exists()
    }

    /// The one tool result, checking the conversation went as scripted.
    fn result(&self) -> support::anthropic::ToolResult {
        assert!(
            self.run.status.success(),
            "claude failed: {}",
            self.run.stderr
        );
        assert_eq!(
            self.run.json["result"],
            support::anthropic::FINAL_TEXT,
            "{}",
            self.run.stdout
        );
        assert_eq!(
            self.hook.raw_inputs().len(),
            1,
            "the hook runs once per call"
        );
        assert_eq!(
            self.api.unanswered(),
            Vec::<String>::new(),
            "requests the fake could not answer"
        );
        let results = self.api.tool_results();
        assert_eq!(results.len(), 1, "{results:?}");
        results[0].clone()
    }

    fn denied(&self) -> bool {
        self.run.json["permission_denials"]
            .as_array()
            .is_some_and(|d| d.iter().any(|d| d["tool_name"] == "Bash"))
    }
}

#[test]
fn claude_deny_blocks_the_call_and_the_model_gets_the_reason() {
    if !crate::support::have_clients() {
        return;
    }
    let case = ClaudeCase::run(
        &claude::reply(Permission::Deny, REASON),
        "MARKER",
        None,
        false,
    );
    let result = case.result();
    assert!(!case.executed("MARKER"), "a denied call must not run");
    assert!(result.is_error);
    assert_eq!(
        result.content,
        format!("PreToolUse:Bash hook error: {REASON}")
    );
    assert!(case.denied(), "{}", case.run.stdout);

    let input = ClaudeInput::parse(&case.hook.raw_inputs()[0]).expect("the real input parses");
    assert_eq!(input.tool_name, "Bash");
    assert_eq!(input.tool_input["command"], "touch MARKER");
    assert_eq!(input.cwd, case.sandbox.project);
    assert_eq!(
        input.tool_use_id.as_deref(),
        Some(result.tool_use_id.as_str())
    );
}

#[test]
fn claude_allow_runs_the_call() {
    if !crate::support::have_clients() {
        return;
    }
    let case = ClaudeCase::run(
        &claude::reply(Permission::Allow, "allowed by rule `allow[0]`"),
        "MARKER2",
        None,
        false,
    );
    let result = case.result();
    assert!(
        case.executed("MARKER2"),
        "an allowed call runs without Claude Code's own prompt"
    );
    assert!(!result.is_error, "{result:?}");
    assert!(!case.denied());
}

#[test]
fn claude_ask_is_refused_headless_with_the_reason_alone() {
    if !crate::support::have_clients() {
        return;
    }
    let case = ClaudeCase::run(
        &claude::reply(Permission::Ask, REASON),
        "MARKER",
        None,
        false,
    );
    let result = case.result();
    assert!(!case.executed("MARKER"));
    assert!(result.is_error);
    assert_eq!(result.content, REASON);
    assert!(case.denied());
}

#[test]
fn claude_ask_is_not_lifted_by_a_settings_allow_rule() {
    if !crate::support::have_clients() {
        return;
    }
    let allow = json!({"allow": ["Bash(touch *)"]});
    let case = ClaudeCase::run(
        &claude::reply(Permission::Ask, REASON),
        "MARKER",
        Some(allow),
        true,
    );
    assert_eq!(case.result().content, REASON);
    assert!(!case.executed("MARKER"));
}

#[test]
fn claude_failure_reply_blocks_with_exit_2() {
    if !crate::support::have_clients() {
        return;
    }
    let case = ClaudeCase::run(&claude::failure(REASON), "MARKER", None, false);
    let result = case.result();
    assert!(!case.executed("MARKER"));
    assert_eq!(
        result.content,
        format!(
            "PreToolUse:Bash hook error: [{}]: {REASON}",
            case.hook.command
        )
    );
}

#[test]
fn claude_exit_2_blocks_even_when_stdout_allows() {
    if !crate::support::have_clients() {
        return;
    }
    let allow = claude::reply(Permission::Allow, "").stdout;
    let case = ClaudeCase::run(&reply(&allow, REASON, 2), "MARKER", None, false);
    assert!(case.result().is_error);
    assert!(!case.executed("MARKER"));
}

#[test]
fn claude_exit_1_does_not_block() {
    if !crate::support::have_clients() {
        return;
    }
    let allow = json!({"allow": ["Bash(touch *)"]});
    let case = ClaudeCase::run(&reply("", REASON, 1), "MARKER", Some(allow), true);
    assert!(!case.result().is_error);
    assert!(
        case.executed("MARKER"),
        "exit 1 is a non-blocking error: Claude Code's own allow rule decides"
    );
}

#[test]
fn claude_honours_the_json_answer_on_exit_1() {
    if !crate::support::have_clients() {
        return;
    }
    let deny = claude::reply(Permission::Deny, REASON).stdout;
    let case = ClaudeCase::run(&reply(&deny, "", 1), "MARKER", None, false);
    assert_eq!(
        case.result().content,
        format!("PreToolUse:Bash hook error: {REASON}")
    );
    assert!(!case.executed("MARKER"));
}

#[test]
fn claude_ignores_an_unreadable_answer_and_applies_its_own_rules() {
    if !crate::support::have_clients() {
        return;
    }
    let allow = json!({"allow": ["Bash(touch *)"]});
    for answer in [
        "deny",
        r#"{"hookSpecificOutput":{"permissionDecision":"deny"}}"#,
        r#"{"decision":"deny"}"#,
    ] {
        let case = ClaudeCase::run(&reply(answer, "", 0), "MARKER", Some(allow.clone()), true);
        assert!(!case.result().is_error, "{answer}");
        assert!(
            case.executed("MARKER"),
            "`{answer}` is not a refusal Claude Code understands"
        );
    }
}

#[test]
fn claude_hook_allow_does_not_lift_a_settings_deny_rule() {
    if !crate::support::have_clients() {
        return;
    }
    let deny = json!({"deny": ["Bash(touch *)"]});
    let case = ClaudeCase::run(
        &claude::reply(Permission::Allow, ""),
        "MARKER",
        Some(deny),
        true,
    );
    let result = case.result();
    assert!(!case.executed("MARKER"));
    assert_eq!(
        result.content,
        "Permission to use Bash with command touch MARKER has been denied."
    );
}

#[test]
fn claude_runs_the_call_when_the_hook_times_out() {
    if !crate::support::have_clients() {
        return;
    }
    let sandbox = Sandbox::new();
    let hook = sandbox.capture_hook("hook", &claude::reply(Permission::Deny, REASON));
    hook.delay(3);
    let mut settings = claude_hook_settings(&hook.command);
    settings["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"] = json!(1);
    settings["permissions"] = json!({"allow": ["Bash(touch *)"]});
    sandbox.write_claude_settings(&settings);
    sandbox.trust_claude_project();
    let api = FakeAnthropic::start(vec![touch_bash("MARKER")]);
    let run = run_claude(&sandbox, &api, "Create the marker file.", &[]);
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(hook.raw_inputs().len(), 1);
    assert!(
        sandbox.path("MARKER").exists(),
        "a hook past its timeout does not block"
    );
}

#[test]
fn claude_hook_inputs_match_the_fixtures() {
    if !crate::support::have_clients() {
        return;
    }
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path("hello.txt"), "hello\n").expect("write hello.txt");
    let hook = sandbox.capture_hook("hook", &claude::reply(Permission::Allow, ""));
    sandbox.write_claude_settings(&claude_hook_settings(&hook.command));
    let file = |name: &str| sandbox.path(name).display().to_string();
    let calls = [
        (
            "bash",
            "Bash",
            json!({"command": "touch MARKER", "description": "Create a marker file"}),
        ),
        ("read", "Read", json!({"file_path": file("hello.txt")})),
        (
            "write",
            "Write",
            json!({"file_path": file("new.txt"), "content": "new file\n"}),
        ),
        (
            "edit",
            "Edit",
            json!({"file_path": file("hello.txt"), "old_string": "hello", "new_string": "goodbye"}),
        ),
        ("glob", "Glob", json!({"pattern": "**/*.txt"})),
        ("grep", "Grep", json!({"pattern": "hello", "path": "."})),
        (
            "webfetch",
            "WebFetch",
            json!({"url": "https://example.com/", "prompt": "Summarise the page."}),
        ),
        ("mcp", "mcp__echo__echo", json!({"text": "hi"})),
    ];
    let api = FakeAnthropic::start(
        calls
            .iter()
            .map(|(_, tool, input)| Turn::tool(tool, input.clone()))
            .collect(),
    );
    let mcp =
        json!({"mcpServers": {"echo": {"command": "node", "args": [echo_mcp_server(&sandbox)]}}})
            .to_string();
    // Glob and Grep are only offered when named in --tools.
    let tools = "Bash,Read,Write,Edit,Glob,Grep,WebFetch";
    let run = run_claude(
        &sandbox,
        &api,
        "Use each tool once.",
        &["--tools", tools, "--mcp-config", &mcp],
    );
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(
        api.unanswered(),
        Vec::<String>::new(),
        "requests the fake could not answer"
    );

    let inputs = hook.inputs();
    let names: Vec<&str> = inputs
        .iter()
        .filter_map(|i| i["tool_name"].as_str())
        .collect();
    let expected: Vec<&str> = calls.iter().map(|(_, tool, _)| *tool).collect();
    assert_eq!(names, expected, "one hook input per call, in order");
    for ((name, _, _), input) in calls.iter().zip(&inputs) {
        ClaudeInput::parse(&input.to_string()).unwrap_or_else(|e| panic!("{name}: {e}"));
        support::check_fixture("claude", name, &sandbox.scrub(input));
    }
    assert!(sandbox.path("new.txt").exists() && sandbox.path("MARKER").exists());
    assert_eq!(
        std::fs::read_to_string(sandbox.path("hello.txt")).unwrap(),
        "goodbye\n"
    );
}

// ----------------------------------------------------------------- Gemini CLI

/// A Gemini CLI run (yolo mode) whose model calls `run_shell_command` with
/// `touch <marker>` once.
struct GeminiCase {
    sandbox: Sandbox,
    hook: CaptureHook,
    api: FakeGemini,
    run: Run,
}

impl GeminiCase {
    fn setup(answer: &HookReply, marker: &str) -> (Sandbox, CaptureHook, FakeGemini) {
        let sandbox = Sandbox::new();
        let hook = sandbox.capture_hook("hook", answer);
        sandbox.write_gemini_settings(&gemini_hook_settings(&hook.command));
        let api = FakeGemini::start(vec![Turn::tool(
            "run_shell_command",
            json!({"command": format!("touch {marker}"), "description": "Create a marker file"}),
        )]);
        (sandbox, hook, api)
    }

    fn run(answer: &HookReply, marker: &str) -> GeminiCase {
        let (sandbox, hook, api) = GeminiCase::setup(answer, marker);
        let run = run_gemini(&sandbox, &api, "Create the marker file.", &[]);
        GeminiCase {
            sandbox,
            hook,
            api,
            run,
        }
    }

    fn executed(&self, marker: &str) -> bool {
        self.sandbox.path(marker).exists()
    }

    /// The one function response, checking the conversation went as scripted.
    fn response(&self) -> support::gemini::FunctionResponse {
        assert!(
            self.run.status.success(),
            "gemini failed: {}",
            self.run.stderr
        );
        assert_eq!(
            self.run.json["response"],
            support::gemini::FINAL_TEXT,
            "{}",
            self.run.stdout
        );
        assert_eq!(
            self.hook.raw_inputs().len(),
            1,
            "the hook runs once per call"
        );
        assert_eq!(
            self.api.unanswered(),
            Vec::<String>::new(),
            "requests the fake could not answer"
        );
        let responses = self.api.function_responses();
        assert_eq!(responses.len(), 1, "{responses:?}");
        assert_eq!(responses[0].name, "run_shell_command");
        responses[0].clone()
    }
}

#[test]
fn gemini_deny_blocks_the_call_and_the_model_gets_the_reason() {
    if !crate::support::have_clients() {
        return;
    }
    let case = GeminiCase::run(&gemini::reply(Permission::Deny, REASON), "MARKER");
    let response = case.response();
    assert!(!case.executed("MARKER"), "a denied call must not run");
    assert_eq!(
        response.error(),
        Some(format!("Tool execution blocked: {REASON}").as_str())
    );

    let input = GeminiInput::parse(&case.hook.raw_inputs()[0]).expect("the real input parses");
    assert_eq!(input.tool_name, "run_shell_command");
    assert_eq!(input.tool_input["command"], "touch MARKER");
    assert_eq!(input.cwd, case.sandbox.project);
}

#[test]
fn gemini_allow_runs_the_call() {
    if !crate::support::have_clients() {
        return;
    }
    let case = GeminiCase::run(&gemini::reply(Permission::Allow, ""), "MARKER2");
    let response = case.response();
    assert!(case.executed("MARKER2"));
    assert_eq!(response.error(), None, "{response:?}");
}

#[test]
fn gemini_failure_reply_blocks() {
    if !crate::support::have_clients() {
        return;
    }
    let case = GeminiCase::run(&gemini::failure(REASON), "MARKER");
    assert_eq!(
        case.response().error(),
        Some(format!("Tool execution blocked: {REASON}").as_str())
    );
    assert!(!case.executed("MARKER"));
}

#[test]
fn gemini_exit_2_blocks_with_plain_text_on_stderr() {
    if !crate::support::have_clients() {
        return;
    }
    let case = GeminiCase::run(&reply("", REASON, 2), "MARKER");
    assert_eq!(
        case.response().error(),
        Some(format!("Tool execution blocked: {REASON}").as_str())
    );
    assert!(!case.executed("MARKER"));
}

#[test]
fn gemini_exit_2_without_output_does_not_block() {
    if !crate::support::have_clients() {
        return;
    }
    let case = GeminiCase::run(&reply("", "", 2), "MARKER");
    assert_eq!(case.response().error(), None);
    assert!(
        case.executed("MARKER"),
        "a silent failing hook lets the call run"
    );
}

#[test]
fn gemini_json_on_stdout_wins_over_exit_2() {
    if !crate::support::have_clients() {
        return;
    }
    let case = GeminiCase::run(
        &reply(&gemini::reply(Permission::Allow, "").stdout, REASON, 2),
        "MARKER",
    );
    assert_eq!(case.response().error(), None);
    assert!(case.executed("MARKER"));
}

#[test]
fn gemini_exit_1_does_not_block() {
    if !crate::support::have_clients() {
        return;
    }
    let case = GeminiCase::run(&reply("", REASON, 1), "MARKER");
    assert_eq!(case.response().error(), None);
    assert!(case.executed("MARKER"));
}

#[test]
fn gemini_plain_text_on_exit_0_does_not_block() {
    if !crate::support::have_clients() {
        return;
    }
    let case = GeminiCase::run(&reply("deny", "", 0), "MARKER");
    assert_eq!(case.response().error(), None);
    assert!(case.executed("MARKER"));
}

#[test]
fn gemini_ignores_the_claude_answer_shape() {
    if !crate::support::have_clients() {
        return;
    }
    let case = GeminiCase::run(&claude::reply(Permission::Deny, REASON), "MARKER");
    assert_eq!(case.response().error(), None);
    assert!(
        case.executed("MARKER"),
        "Gemini CLI reads `decision`, not `hookSpecificOutput`"
    );
}

#[test]
fn gemini_ask_waits_forever_when_headless() {
    if !crate::support::have_clients() {
        return;
    }
    let (sandbox, hook, api) = GeminiCase::setup(&gemini::reply(Permission::Ask, REASON), "MARKER");
    let outcome = support::run_gemini_for(
        &sandbox,
        &api,
        "Create the marker file.",
        Duration::from_secs(20),
    );
    assert!(
        outcome.is_err(),
        "gemini finished although nobody could confirm the call"
    );
    assert_eq!(hook.raw_inputs().len(), 1);
    assert_eq!(api.turns().len(), 1, "the model never got a result");
    assert!(!sandbox.path("MARKER").exists());
}

#[test]
fn gemini_runs_the_call_when_the_hook_times_out() {
    if !crate::support::have_clients() {
        return;
    }
    let (sandbox, hook, api) =
        GeminiCase::setup(&gemini::reply(Permission::Deny, REASON), "MARKER");
    hook.delay(3);
    let mut settings = gemini_hook_settings(&hook.command);
    settings["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"] = json!(1000);
    sandbox.write_gemini_settings(&settings);
    let run = run_gemini(&sandbox, &api, "Create the marker file.", &[]);
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(hook.raw_inputs().len(), 1);
    assert!(
        sandbox.path("MARKER").exists(),
        "a hook past its timeout does not block"
    );
}

#[test]
fn gemini_refuses_its_file_tools_on_env_files_before_the_hook() {
    if !crate::support::have_clients() {
        return;
    }
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path(".env"), "KEY=value\n").expect("write .env");
    let hook = sandbox.capture_hook("hook", &gemini::reply(Permission::Allow, ""));
    sandbox.write_gemini_settings(&gemini_hook_settings(&hook.command));
    let api = FakeGemini::start(vec![Turn::tool("read_file", json!({"file_path": ".env"}))]);
    let run = run_gemini(&sandbox, &api, "Read the file.", &[]);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(hook.raw_inputs().is_empty(), "the hook ran");
    let responses = api.function_responses();
    assert_eq!(responses.len(), 1);
    let error = responses[0].error().unwrap_or_default();
    assert!(error.starts_with("Path not in workspace"), "{error}");
}

#[test]
fn gemini_hook_inputs_match_the_fixtures() {
    if !crate::support::have_clients() {
        return;
    }
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path("hello.txt"), "hello\n").expect("write hello.txt");
    let hook = sandbox.capture_hook("hook", &gemini::reply(Permission::Allow, ""));
    let mut settings = gemini_hook_settings(&hook.command);
    settings["mcpServers"] =
        json!({"echo": {"command": "node", "args": [echo_mcp_server(&sandbox)]}});
    sandbox.write_gemini_settings(&settings);
    let calls = [
        (
            "run_shell_command",
            json!({"command": "touch MARKER", "description": "Create a marker file"}),
        ),
        ("read_file", json!({"file_path": "hello.txt"})),
        (
            "write_file",
            json!({"file_path": "new.txt", "content": "new file\n"}),
        ),
        (
            "replace",
            json!({"file_path": "hello.txt", "instruction": "Say goodbye.", "old_string": "hello", "new_string": "goodbye"}),
        ),
        ("list_directory", json!({"dir_path": "."})),
        ("glob", json!({"pattern": "**/*.txt"})),
        ("grep_search", json!({"pattern": "hello"})),
        (
            "web_fetch",
            json!({"prompt": "Summarise https://example.com/"}),
        ),
        ("mcp_echo_echo", json!({"text": "hi"})),
    ];
    let api = FakeGemini::start(
        calls
            .iter()
            .map(|(tool, input)| Turn::tool(tool, input.clone()))
            .collect(),
    );
    let run = run_gemini(&sandbox, &api, "Use each tool once.", &[]);
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(
        api.unanswered(),
        Vec::<String>::new(),
        "requests the fake could not answer"
    );

    let inputs = hook.inputs();
    let names: Vec<&str> = inputs
        .iter()
        .filter_map(|i| i["tool_name"].as_str())
        .collect();
    let expected: Vec<&str> = calls.iter().map(|(tool, _)| *tool).collect();
    assert_eq!(names, expected, "one hook input per call, in order");
    for ((tool, _), input) in calls.iter().zip(&inputs) {
        GeminiInput::parse(&input.to_string()).unwrap_or_else(|e| panic!("{tool}: {e}"));
        let name = if tool.starts_with("mcp_") {
            "mcp"
        } else {
            tool
        };
        support::check_fixture("gemini", name, &sandbox.scrub(input));
    }
    assert!(sandbox.path("new.txt").exists() && sandbox.path("MARKER").exists());
    assert_eq!(
        std::fs::read_to_string(sandbox.path("hello.txt")).unwrap(),
        "goodbye\n"
    );
}

/// Copies the echo MCP server into the sandbox (so that its path, which
/// Gemini CLI reports in `mcp_context`, is scrubbed like the others) and
/// returns that path.
fn echo_mcp_server(sandbox: &Sandbox) -> String {
    let path = sandbox.base.join("echo-mcp.js");
    std::fs::write(&path, include_str!("support/echo-mcp.js")).expect("write echo-mcp.js");
    path.display().to_string()
}

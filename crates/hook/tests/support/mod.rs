//! Running the real Claude Code and Gemini CLI offline, against fake model
//! APIs on 127.0.0.1, in throw-away projects whose settings register a hook.
//!
//! The clients are installed outside the repository by
//! `scripts/install-clients.sh`, into `$TOOLGATE_CLIENTS_DIR` (default
//! `~/.cache/toolgate-clients`). A test that needs one fails, naming that
//! script, when it is missing: a skipped client test would hide a broken
//! integration.
//!
//! Each run gets its own HOME, Claude Code config folder and Gemini CLI home,
//! and an environment holding only what the client needs, so nothing of the
//! developer's own setup (keys, settings, proxies) leaks in or is touched.
//!
//! `crates/cli/tests/hooks_e2e.rs` includes this module too (`#[path]`), to
//! run the built `toolgate hook` under the same clients; there
//! `check_fixture`, which reads this crate's fixtures, is not used.
#![allow(dead_code)]

pub mod anthropic;
pub mod codex;
pub mod gemini;
pub mod http;
pub mod openai;

use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolgate_hook::HookReply;

/// The Claude Code release the hook protocol was observed on; must match
/// `scripts/install-clients.sh`.
pub const CLAUDE_CODE_VERSION: &str = "2.1.332";
/// The Gemini CLI release the hook protocol was observed on; must match
/// `scripts/install-clients.sh`.
pub const GEMINI_CLI_VERSION: &str = "0.61.0";
/// The Codex CLI release the hook protocol was observed on; must match
/// `scripts/install-clients.sh`.
pub const CODEX_CLI_VERSION: &str = "0.169.0";
/// The Qwen Code release the hook protocol was observed on; must match
/// `scripts/install-clients.sh`.
pub const QWEN_CODE_VERSION: &str = "0.24.4";
/// The Copilot CLI release; must match `scripts/install-clients.sh`.
pub const COPILOT_CLI_VERSION: &str = "1.0.102";
/// The Pi release; must match `scripts/install-clients.sh`.
pub const PI_VERSION: &str = "0.73.1";
/// The OpenCode release; must match `scripts/install-clients.sh`.
pub const OPENCODE_VERSION: &str = "1.18.33";
/// The model Gemini CLI is told to use (the fake serves any name).
pub const GEMINI_MODEL: &str = "gemini-2.5-flash";
/// How long one client run may take before it is killed and the test fails.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// One model turn of a scripted conversation.
#[derive(Debug, Clone)]
pub enum Turn {
    /// The model calls `name` with `input`.
    Tool { name: String, input: Value },
    /// The model answers with text and the conversation ends.
    Text(String),
}

impl Turn {
    pub fn tool(name: &str, input: Value) -> Turn {
        Turn::Tool {
            name: name.to_owned(),
            input,
        }
    }
}

/// Where `scripts/install-clients.sh` puts the clients.
pub fn clients_dir() -> PathBuf {
    match std::env::var_os("TOOLGATE_CLIENTS_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => {
            let home = std::env::var_os("HOME").expect("HOME is not set");
            Path::new(&home).join(".cache/toolgate-clients")
        }
    }
}

fn client_path(folder: &str, bin: &str) -> PathBuf {
    clients_dir()
        .join(folder)
        .join("node_modules/.bin")
        .join(bin)
}

/// Whether what a test needs from outside the repository is installed.
/// Without it, the test says it was skipped and why (and returns early);
/// under `CI=true` it is required, and its absence fails the test.
#[allow(dead_code)]
pub fn available(what: &str, present: bool, install: &str) -> bool {
    if present {
        return true;
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{what} is not installed: CI runs these tests ({install})");
    }
    eprintln!("skipped: {what} is not installed ({install}); CI runs this test");
    false
}

/// Whether the pinned Claude Code, Gemini CLI and Codex CLI are installed
/// (see [`available`]).
#[allow(dead_code)]
pub fn have_clients() -> bool {
    let present = [
        client_path(&format!("claude-code-{CLAUDE_CODE_VERSION}"), "claude"),
        client_path(&format!("gemini-cli-{GEMINI_CLI_VERSION}"), "gemini"),
        client_path(&format!("codex-cli-{CODEX_CLI_VERSION}"), "codex"),
    ]
    .iter()
    .all(|p| p.is_file());
    available(
        "the real Claude Code, Gemini CLI and Codex CLI",
        present,
        "scripts/install-clients.sh",
    )
}

/// Whether the pinned Qwen Code, Copilot CLI, Pi and OpenCode are installed
/// (see [`available`]).
#[allow(dead_code)]
pub fn have_chat_clients() -> bool {
    let present = [
        client_path(&format!("qwen-code-{QWEN_CODE_VERSION}"), "qwen"),
        client_path(&format!("copilot-cli-{COPILOT_CLI_VERSION}"), "copilot"),
        client_path(&format!("pi-{PI_VERSION}"), "pi"),
        client_path(&format!("opencode-{OPENCODE_VERSION}"), "opencode"),
    ]
    .iter()
    .all(|p| p.is_file());
    available(
        "the real Qwen Code, Copilot CLI, Pi and OpenCode",
        present,
        "scripts/install-clients.sh",
    )
}

/// The four CLIs that talk to an OpenAI chat-completions API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatClient {
    Qwen,
    Copilot,
    Pi,
    OpenCode,
}

impl ChatClient {
    /// Its name in `toolgate hook install NAME` and in the ledger.
    pub fn name(self) -> &'static str {
        match self {
            ChatClient::Qwen => "qwen",
            ChatClient::Copilot => "copilot",
            ChatClient::Pi => "pi",
            ChatClient::OpenCode => "opencode",
        }
    }

    /// The name of its shell tool, as its model calls it.
    pub fn shell_tool(self) -> &'static str {
        match self {
            ChatClient::Qwen => "run_shell_command",
            _ => "bash",
        }
    }

    fn folder(self) -> String {
        match self {
            ChatClient::Qwen => format!("qwen-code-{QWEN_CODE_VERSION}"),
            ChatClient::Copilot => format!("copilot-cli-{COPILOT_CLI_VERSION}"),
            ChatClient::Pi => format!("pi-{PI_VERSION}"),
            ChatClient::OpenCode => format!("opencode-{OPENCODE_VERSION}"),
        }
    }

    /// The pinned executable.
    pub fn bin(self) -> PathBuf {
        let bin = match self {
            ChatClient::Qwen => "qwen",
            ChatClient::Copilot => "copilot",
            ChatClient::Pi => "pi",
            ChatClient::OpenCode => "opencode",
        };
        client(&self.folder(), bin)
    }

    /// The environment `toolgate hook install NAME --user` needs to find
    /// the client's user folder in the sandbox.
    pub fn home_env(self, sandbox: &Sandbox) -> Vec<(&'static str, PathBuf)> {
        match self {
            ChatClient::Qwen => vec![("QWEN_HOME", sandbox.home.join(".qwen"))],
            ChatClient::Copilot => vec![("COPILOT_HOME", sandbox.home.join(".copilot"))],
            ChatClient::Pi => vec![("PI_CODING_AGENT_DIR", sandbox.home.join(".pi/agent"))],
            ChatClient::OpenCode => vec![("XDG_CONFIG_HOME", sandbox.home.join(".config"))],
        }
    }
}

/// Runs one of the chat clients headless in the sandbox's project against
/// `api` with `prompt`, configured as `/work/shared/HOSTS.md` observed it
/// offline: no account, no update checks, no telemetry.
pub fn run_chat(
    client_kind: ChatClient,
    sandbox: &Sandbox,
    api: &openai::FakeChat,
    prompt: &str,
) -> Run {
    let base = api.base_url();
    let mut command = Command::new(client_kind.bin());
    for (k, v) in client_kind.home_env(sandbox) {
        command.env(k, v);
    }
    let home = &sandbox.home;
    command
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("XDG_CACHE_HOME", home.join(".cache"));
    let outcome = match client_kind {
        ChatClient::Qwen => {
            write_json(
                &home.join(".qwen/settings.json"),
                &json!({"general": {"enableAutoUpdate": false},
                    "privacy": {"usageStatisticsEnabled": false}}),
            );
            command
                .args([
                    "-p",
                    prompt,
                    "--approval-mode",
                    "yolo",
                    "--output-format",
                    "json",
                ])
                .env("OPENAI_BASE_URL", &base)
                .env("OPENAI_API_KEY", "offline-test-key")
                .env("OPENAI_MODEL", "m")
                .env("QWEN_USAGE_STATISTICS_ENABLED", "0")
                .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1");
            run(command, sandbox, RUN_TIMEOUT)
        }
        ChatClient::Copilot => {
            // The unpacked binary install-clients.sh prepared, shared.
            let cache = clients_dir().join(client_kind.folder()).join("xdg-cache");
            command
                .args(["-p", prompt, "--allow-all-tools", "--trust-folder"])
                .env("XDG_CACHE_HOME", cache)
                .env("COPILOT_PROVIDER_BASE_URL", &base)
                .env("COPILOT_PROVIDER_TYPE", "openai")
                .env("COPILOT_PROVIDER_API_KEY", "offline-test-key")
                .env("COPILOT_MODEL", "m")
                .env("COPILOT_OFFLINE", "true")
                .env("COPILOT_AUTO_UPDATE", "false");
            run_text(command, sandbox, RUN_TIMEOUT)
        }
        ChatClient::Pi => {
            write_json(
                &home.join(".pi/agent/models.json"),
                &json!({"providers": {"fake": {"baseUrl": base, "api": "openai-completions",
                    "apiKey": "offline-test-key", "models": [{"id": "m"}]}}}),
            );
            command
                .args([
                    "-p",
                    "--no-session",
                    "--offline",
                    "--model",
                    "fake/m",
                    prompt,
                ])
                .env("PI_OFFLINE", "1");
            run_text(command, sandbox, RUN_TIMEOUT)
        }
        ChatClient::OpenCode => {
            write_json(
                &home.join(".config/opencode/opencode.json"),
                &json!({"model": "fake/m", "autoupdate": false, "share": "disabled",
                    "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "fake",
                        "options": {"baseURL": base, "apiKey": "offline-test-key"},
                        "models": {"m": {"name": "m"}}}}}),
            );
            command
                .args(["run", "--format", "json", "--model", "fake/m", prompt])
                .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
                .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
                .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1");
            run_lines(command, sandbox, RUN_TIMEOUT)
        }
    };
    finish(outcome)
}

fn client(folder: &str, bin: &str) -> PathBuf {
    let path = client_path(folder, bin);
    assert!(
        path.is_file(),
        "{} is missing: run scripts/install-clients.sh (it installs the pinned Claude Code and \
         Gemini CLI into $TOOLGATE_CLIENTS_DIR, default ~/.cache/toolgate-clients)",
        path.display()
    );
    path
}

/// The pinned `claude` executable.
pub fn claude_bin() -> PathBuf {
    client(&format!("claude-code-{CLAUDE_CODE_VERSION}"), "claude")
}

/// The pinned `gemini` executable.
pub fn gemini_bin() -> PathBuf {
    client(&format!("gemini-cli-{GEMINI_CLI_VERSION}"), "gemini")
}

/// The pinned `codex` executable.
pub fn codex_bin() -> PathBuf {
    client(&format!("codex-cli-{CODEX_CLI_VERSION}"), "codex")
}

/// Runs `codex exec PROMPT` in the sandbox's project against `api`, with
/// `CODEX_HOME` in the sandbox (`home/.codex`, whose `config.toml` names the
/// fake as the model provider), no approvals and no Codex sandbox, so that
/// toolgate's hook is the only thing between the model and the shell. Hooks
/// run without Codex's trust prompt (`--dangerously-bypass-hook-trust`):
/// there is no one to answer it.
pub fn run_codex(sandbox: &Sandbox, api: &codex::FakeResponses, prompt: &str) -> Run {
    write_codex_config(sandbox, api);
    codex_exec(sandbox, prompt, &["--dangerously-bypass-hook-trust"])
}

/// Like [`run_codex`], but Codex runs only the hooks its `config.toml`
/// trusts, as for a person: the config written by [`write_codex_config`],
/// with whatever was added to it since.
pub fn run_codex_trusting_config(sandbox: &Sandbox, prompt: &str) -> Run {
    codex_exec(sandbox, prompt, &[])
}

/// Writes `home/.codex/config.toml` naming `api` as the model provider.
pub fn write_codex_config(sandbox: &Sandbox, api: &codex::FakeResponses) {
    let codex_home = sandbox.home.join(".codex");
    fs::create_dir_all(&codex_home).expect("create CODEX_HOME");
    let config = format!(
        "model = \"gpt-offline\"\nmodel_provider = \"fake\"\napproval_policy = \"never\"\n\
         sandbox_mode = \"danger-full-access\"\n\n[model_providers.fake]\nname = \"fake\"\n\
         base_url = \"{}\"\nwire_api = \"responses\"\nenv_key = \"FAKE_OPENAI_KEY\"\n",
        api.base_url()
    );
    fs::write(codex_home.join("config.toml"), config).expect("write the Codex config");
}

fn codex_exec(sandbox: &Sandbox, prompt: &str, flags: &[&str]) -> Run {
    let mut command = Command::new(codex_bin());
    command
        .arg("exec")
        .args(flags)
        .args(["--skip-git-repo-check", "--json", prompt])
        .env("CODEX_HOME", sandbox.home.join(".codex"))
        .env("FAKE_OPENAI_KEY", "offline-test-key");
    finish(run_lines(command, sandbox, RUN_TIMEOUT))
}

/// A temporary folder holding a project, a home directory for the client,
/// and the capture hook's records. Removed when dropped.
pub struct Sandbox {
    _root: tempfile::TempDir,
    /// The sandbox's own folder (canonical), which `scrub` replaces.
    pub base: PathBuf,
    /// The project the client runs in (its working directory).
    pub project: PathBuf,
    /// HOME for the client; also Gemini CLI's home (`.gemini` inside).
    pub home: PathBuf,
    /// Claude Code's config folder (`CLAUDE_CONFIG_DIR`).
    pub claude_config: PathBuf,
    /// Where hooks written by [`Sandbox::capture_hook`] live.
    pub hooks: PathBuf,
    /// toolgate's state directory (`TOOLGATE_STATE_DIR` for the clients
    /// and the hooks they run), so that a hook's ledger stays in the
    /// sandbox.
    pub state: PathBuf,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        Sandbox::new_in(&std::env::temp_dir())
    }

    /// A sandbox in a new folder beneath `dir` (for a test whose commands
    /// get a private `/tmp`, where the system's temporary folder would
    /// be out of their sight).
    pub fn new_in(dir: &Path) -> Sandbox {
        let root = tempfile::Builder::new()
            .prefix("toolgate-hook-")
            .tempdir_in(dir)
            .expect("temp dir");
        // Canonical, so paths compare equal to what the clients report.
        let base = root.path().canonicalize().expect("canonical temp dir");
        let sandbox = Sandbox {
            base: base.clone(),
            project: base.join("project"),
            home: base.join("home"),
            claude_config: base.join("home/.claude"),
            hooks: base.join("hooks"),
            state: base.join("state"),
            _root: root,
        };
        for dir in [&sandbox.project, &sandbox.claude_config, &sandbox.hooks] {
            fs::create_dir_all(dir).expect("create sandbox folder");
        }
        write_json(
            &sandbox.home.join(".gemini/settings.json"),
            &json!({
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "privacy": {"usageStatisticsEnabled": false},
                "telemetry": {"enabled": false},
            }),
        );
        sandbox
    }

    /// `value` with the sandbox's folder replaced by `/sandbox`, also in the
    /// dashed form Claude Code uses for per-project folder names, so that
    /// recorded inputs are the same from run to run.
    pub fn scrub(&self, value: &Value) -> Value {
        let base = self.base.display().to_string();
        let dashed: String = base
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let text = value
            .to_string()
            .replace(&base, "/sandbox")
            .replace(&dashed, "-sandbox");
        serde_json::from_str(&text).expect("scrubbed json")
    }

    /// A file of the project.
    pub fn path(&self, relative: &str) -> PathBuf {
        self.project.join(relative)
    }

    /// Writes the project's `.claude/settings.json`.
    pub fn write_claude_settings(&self, settings: &Value) {
        write_json(&self.project.join(".claude/settings.json"), settings);
    }

    /// Marks the project as trusted in the config folder's `.claude.json`,
    /// which `-p` runs require before they apply the project's
    /// `permissions` rules (hooks run either way).
    pub fn trust_claude_project(&self) {
        let mut projects = serde_json::Map::new();
        projects.insert(
            self.project.display().to_string(),
            json!({"hasTrustDialogAccepted": true}),
        );
        write_json(
            &self.claude_config.join(".claude.json"),
            &json!({ "projects": projects }),
        );
    }

    /// Writes the project's `.gemini/settings.json`.
    pub fn write_gemini_settings(&self, settings: &Value) {
        write_json(&self.project.join(".gemini/settings.json"), settings);
    }

    /// Writes a hook script that records each input it is given and answers
    /// with `reply`.
    pub fn capture_hook(&self, name: &str, reply: &HookReply) -> CaptureHook {
        CaptureHook::new(&self.hooks.join(name), reply)
    }
}

/// Claude Code settings registering `command` as the `PreToolUse` hook for
/// every tool.
pub fn claude_hook_settings(command: &str) -> Value {
    json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]}})
}

/// Gemini CLI settings registering `command` as the `BeforeTool` hook for
/// every tool.
pub fn gemini_hook_settings(command: &str) -> Value {
    json!({"hooks": {"BeforeTool": [{"matcher": "*", "hooks": [{"type": "command", "command": command}]}]}})
}

pub fn write_json(path: &Path, value: &Value) {
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("create parent folder");
    }
    fs::write(path, serde_json::to_string_pretty(value).expect("json")).expect("write json file");
}

/// A hook script that saves each input to its own file and prints a fixed
/// reply. The reply lives in files beside the script, not in its text or the
/// environment, so no quoting can change it and no client can filter it.
pub struct CaptureHook {
    dir: PathBuf,
    /// The command to register in the client's settings.
    pub command: String,
}

impl CaptureHook {
    fn new(dir: &Path, reply: &HookReply) -> CaptureHook {
        fs::create_dir_all(dir.join("inputs")).expect("create hook folder");
        fs::write(dir.join("stdout"), &reply.stdout).expect("write hook stdout");
        fs::write(dir.join("stderr"), &reply.stderr).expect("write hook stderr");
        fs::write(dir.join("exit"), reply.exit_code.to_string()).expect("write hook exit");
        let quoted = shell_quote(&dir.display().to_string());
        let script = format!(
            "#!/bin/sh\n\
             dir={quoted}\n\
             cat > \"$dir/inputs/$(date +%s%N)-$$.json\"\n\
             if [ -f \"$dir/delay\" ]; then sleep \"$(cat \"$dir/delay\")\"; fi\n\
             cat \"$dir/stdout\"\n\
             cat \"$dir/stderr\" >&2\n\
             exit \"$(cat \"$dir/exit\")\"\n"
        );
        let path = dir.join("hook.sh");
        fs::write(&path, script).expect("write hook script");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).expect("chmod hook script");
        CaptureHook {
            dir: dir.to_path_buf(),
            command: path.display().to_string(),
        }
    }

    /// Makes the hook wait `seconds` after recording its input, before it
    /// answers.
    pub fn delay(&self, seconds: u32) {
        fs::write(self.dir.join("delay"), seconds.to_string()).expect("write hook delay");
    }

    /// The inputs received so far, oldest first, as the raw text sent.
    pub fn raw_inputs(&self) -> Vec<String> {
        let mut files: Vec<PathBuf> = fs::read_dir(self.dir.join("inputs"))
            .expect("read hook inputs")
            .map(|entry| entry.expect("hook input entry").path())
            .collect();
        files.sort();
        files
            .iter()
            .map(|f| fs::read_to_string(f).expect("read hook input"))
            .collect()
    }

    /// The inputs received so far, oldest first.
    pub fn inputs(&self) -> Vec<Value> {
        self.raw_inputs()
            .iter()
            .map(|text| {
                serde_json::from_str(text)
                    .unwrap_or_else(|e| panic!("hook input is not JSON ({e}): {text}"))
            })
            .collect()
    }
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// What a client run printed.
#[derive(Debug)]
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    /// Standard output parsed as JSON (`--output-format json`).
    pub json: Value,
    pub elapsed: Duration,
}

/// Runs `claude -p PROMPT --output-format json ARGS` in the sandbox's project
/// against `api`.
pub fn run_claude(
    sandbox: &Sandbox,
    api: &anthropic::FakeAnthropic,
    prompt: &str,
    args: &[&str],
) -> Run {
    run_claude_with(sandbox, api, prompt, args, &[], RUN_TIMEOUT)
}

/// Like [`run_claude`], with `envs` added to the client's environment and
/// killed (failing the test) after `timeout` rather than [`RUN_TIMEOUT`].
pub fn run_claude_with(
    sandbox: &Sandbox,
    api: &anthropic::FakeAnthropic,
    prompt: &str,
    args: &[&str],
    envs: &[(&str, &str)],
    timeout: Duration,
) -> Run {
    let mut command = Command::new(claude_bin());
    command
        .args(["-p", prompt, "--output-format", "json"])
        .args(args)
        .envs(envs.iter().copied())
        .env("CLAUDE_CONFIG_DIR", &sandbox.claude_config)
        .env("ANTHROPIC_BASE_URL", api.base_url())
        .env("ANTHROPIC_API_KEY", "sk-ant-offline-test")
        .env("DISABLE_TELEMETRY", "1")
        .env("DISABLE_ERROR_REPORTING", "1")
        .env("DISABLE_AUTOUPDATER", "1");
    finish(run(command, sandbox, timeout))
}

/// The run, or a test failure showing what a killed run printed.
fn finish(outcome: Result<Run, (String, String)>) -> Run {
    outcome.unwrap_or_else(|(stdout, stderr)| {
        panic!("the client did not finish in time and was killed\n--- stdout\n{stdout}\n--- stderr\n{stderr}")
    })
}

/// Runs `gemini -m MODEL -p PROMPT --output-format json --approval-mode yolo
/// ARGS` in the sandbox's project against `api`. Yolo, because headless
/// Gemini CLI offers no shell or write tool in its default mode.
pub fn run_gemini(sandbox: &Sandbox, api: &gemini::FakeGemini, prompt: &str, args: &[&str]) -> Run {
    finish(run(
        gemini_command(sandbox, api, prompt, args),
        sandbox,
        RUN_TIMEOUT,
    ))
}

/// Like [`run_gemini`], but a run still going after `timeout` is killed and
/// gives `Err` with what it printed, for behaviour where the client waits.
pub fn run_gemini_for(
    sandbox: &Sandbox,
    api: &gemini::FakeGemini,
    prompt: &str,
    timeout: Duration,
) -> Result<Run, (String, String)> {
    run(gemini_command(sandbox, api, prompt, &[]), sandbox, timeout)
}

fn gemini_command(
    sandbox: &Sandbox,
    api: &gemini::FakeGemini,
    prompt: &str,
    args: &[&str],
) -> Command {
    let mut command = Command::new(gemini_bin());
    command
        .args([
            "-m",
            GEMINI_MODEL,
            "-p",
            prompt,
            "--output-format",
            "json",
            "--approval-mode",
            "yolo",
        ])
        .args(args)
        .env("GOOGLE_GEMINI_BASE_URL", api.base_url())
        .env("GEMINI_API_KEY", "offline-test-key")
        .env("GEMINI_CLI_HOME", &sandbox.home)
        .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
    command
}

/// Like [`run`] for a client that prints JSON lines: `json` is the array
/// of them.
fn run_lines(
    command: Command,
    sandbox: &Sandbox,
    timeout: Duration,
) -> Result<Run, (String, String)> {
    spawn(command, sandbox, timeout, |stdout| {
        Ok(Value::Array(
            stdout
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(serde_json::from_str)
                .collect::<Result<Vec<Value>, _>>()?,
        ))
    })
}

/// Like [`run`] for a client that prints text: `json` is the text.
fn run_text(
    command: Command,
    sandbox: &Sandbox,
    timeout: Duration,
) -> Result<Run, (String, String)> {
    spawn(command, sandbox, timeout, |stdout| {
        Ok(Value::String(stdout.to_owned()))
    })
}

/// Runs a client; `Err` with its output when it was killed at `timeout`.
fn run(command: Command, sandbox: &Sandbox, timeout: Duration) -> Result<Run, (String, String)> {
    spawn(command, sandbox, timeout, |stdout| {
        serde_json::from_str(stdout.trim())
    })
}

fn spawn(
    mut command: Command,
    sandbox: &Sandbox,
    timeout: Duration,
    parse: impl Fn(&str) -> Result<Value, serde_json::Error>,
) -> Result<Run, (String, String)> {
    // Only what a client needs: node on PATH, a private HOME (and a private
    // toolgate state directory for hooks that record calls).
    let path = std::env::var_os("PATH").unwrap_or_default();
    let envs: Vec<_> = command
        .get_envs()
        .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned())))
        .collect();
    command
        .env_clear()
        .envs(envs)
        .env("PATH", path)
        .env("HOME", &sandbox.home)
        .env("TOOLGATE_STATE_DIR", &sandbox.state)
        .env("LANG", "C.UTF-8")
        .env("TERM", "dumb")
        .env("NO_COLOR", "1")
        .current_dir(&sandbox.project)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so a timeout kills the hooks and tools it
        // started too.
        .process_group(0);
    let started = Instant::now();
    let description = format!("{:?}", command.get_program());
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {description}: {e}"));
    let pid = child.id();
    let stdout = drain(child.stdout.take().expect("piped stdout"));
    let stderr = drain(child.stderr.take().expect("piped stderr"));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for client") {
            break Some(status);
        }
        if started.elapsed() > timeout {
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    kill_group(pid);
    let status = status.or_else(|| {
        let _ = child.kill();
        let _ = child.wait();
        None
    });
    let stdout = stdout.join().expect("stdout reader");
    let stderr = stderr.join().expect("stderr reader");
    let Some(status) = status else {
        return Err((stdout, stderr));
    };
    let json = parse(&stdout).unwrap_or_else(|e| {
        panic!("{description} did not print JSON ({e}), {status}\n--- stdout\n{stdout}\n--- stderr\n{stderr}")
    });
    Ok(Run {
        status,
        stdout,
        stderr,
        json,
        elapsed: started.elapsed(),
    })
}

fn drain(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Ends whatever is left of the process group the client led.
fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// The top-level input fields whose values change from run to run; the
/// fixture comparison checks only that they are present and are strings.
const VOLATILE_FIELDS: [&str; 4] = ["session_id", "transcript_path", "prompt_id", "timestamp"];

/// Compares a recorded (already scrubbed) hook input with its fixture
/// `tests/fixtures/<client>/<name>.json`; with `TOOLGATE_UPDATE_FIXTURES=1`
/// writes the fixture instead.
///
/// The comparison is exact except for the volatile fields, so a client
/// release that adds, drops or reshapes a field fails here first.
pub fn check_fixture(client: &str, name: &str, actual: &Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(client)
        .join(format!("{name}.json"));
    if std::env::var_os("TOOLGATE_UPDATE_FIXTURES").is_some_and(|v| v == "1") {
        let mut text = serde_json::to_string_pretty(actual).expect("json");
        text.push('\n');
        fs::write(&path, text).expect("write fixture");
        return;
    }
    let text = fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}); record it with TOOLGATE_UPDATE_FIXTURES=1",
            path.display()
        )
    });
    let expected: Value = serde_json::from_str(&text).expect("fixture is JSON");
    let stable = |value: &Value| {
        let mut value = value.clone();
        if let Some(map) = value.as_object_mut() {
            for field in VOLATILE_FIELDS {
                if let Some(v) = map.get_mut(field) {
                    assert!(
                        v.is_string(),
                        "`{field}` is not a string in {value:?}",
                        value = v
                    );
                    *v = Value::String("<volatile>".into());
                }
            }
        }
        value
    };
    assert_eq!(
        stable(actual),
        stable(&expected),
        "{client} sent a {name} hook input unlike {}; if the client changed on purpose, \
         re-record with TOOLGATE_UPDATE_FIXTURES=1 and update PROTOCOL.md",
        path.display()
    );
}

//! `toolgate hook install`: registering the hook in a client's settings file.
//!
//! The settings file is the user's: other hooks, permissions and settings in
//! it stay exactly as they are, keys in their order. The hook is added as
//! one more entry under the client's hook event; a file that already has it
//! is left untouched, and a file that cannot be read as settings is refused
//! without being touched. Before an existing file is changed it is copied
//! to `settings.json.bak`, and the new text replaces it in one rename.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::ordered::Json;

/// The client whose settings get the hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookClient {
    /// Claude Code: a `PreToolUse` hook, timeout in seconds.
    Claude,
    /// Gemini CLI: a `BeforeTool` hook, timeout in milliseconds.
    Gemini,
    /// Codex CLI: `PreToolUse` and `PermissionRequest` hooks in
    /// `hooks.json`, timeout in seconds.
    Codex,
    /// Qwen Code: a `PreToolUse` hook in `.qwen/settings.json`, timeout in
    /// seconds (always set: Qwen lets the call run on a timeout).
    Qwen,
    /// GitHub Copilot CLI: a `preToolUse` hook in `.github/hooks/toolgate.json`,
    /// `timeoutSec` (always set).
    Copilot,
    /// Pi: the extension `.pi/extensions/toolgate.ts`.
    Pi,
    /// OpenCode: the plugin `.opencode/plugins/toolgate.js`.
    OpenCode,
    /// Grok Build: a `PreToolUse` hook in `.grok/hooks/toolgate.json`,
    /// timeout in seconds (always set: Grok's default is 5 s).
    Grok,
    /// Cursor: the four blocking events in `.cursor/hooks.json`, each with
    /// `failClosed: true`.
    Cursor,
}

/// How a client's hook registration is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// `{"hooks": {EVENT: [{"matcher"?, "hooks": [{"type": "command",
    /// "command", "timeout"?}]}]}}`.
    Nested,
    /// `{"version": 1, "hooks": {EVENT: [{"type": "command", "bash",
    /// "timeoutSec"}]}}` (Copilot CLI).
    CopilotFlat,
    /// `{"version": 1, "hooks": {EVENT: [{"command", "failClosed": true}]}}`
    /// (Cursor).
    CursorFlat,
    /// A file of toolgate's own, generated whole (Pi's extension,
    /// OpenCode's plugin).
    Source,
}

impl HookClient {
    /// Every client, in the order of the command line's help.
    pub const ALL: [HookClient; 9] = [
        HookClient::Claude,
        HookClient::Gemini,
        HookClient::Codex,
        HookClient::Qwen,
        HookClient::Copilot,
        HookClient::Pi,
        HookClient::OpenCode,
        HookClient::Grok,
        HookClient::Cursor,
    ];

    /// `claude`, `gemini`, ..., as in `toolgate hook claude`.
    pub fn as_str(self) -> &'static str {
        match self {
            HookClient::Claude => "claude",
            HookClient::Gemini => "gemini",
            HookClient::Codex => "codex",
            HookClient::Qwen => "qwen",
            HookClient::Copilot => "copilot",
            HookClient::Pi => "pi",
            HookClient::OpenCode => "opencode",
            HookClient::Grok => "grok",
            HookClient::Cursor => "cursor",
        }
    }

    /// The client named `name` (`claude`, `gemini`, ...).
    pub fn from_name(name: &str) -> Option<HookClient> {
        HookClient::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The hook events toolgate answers (none for the clients that load
    /// toolgate's extension or plugin instead).
    pub fn events(self) -> &'static [&'static str] {
        match self {
            HookClient::Claude => &[crate::claude::EVENT],
            HookClient::Gemini => &[crate::gemini::EVENT],
            HookClient::Codex => &[crate::codex::PRE_TOOL_USE, crate::codex::PERMISSION_REQUEST],
            HookClient::Qwen => &[crate::qwen::EVENT],
            HookClient::Copilot => &[crate::copilot::EVENT],
            HookClient::Grok => &[crate::grok::EVENT],
            HookClient::Cursor => &crate::cursor::EVENTS,
            HookClient::Pi | HookClient::OpenCode => &[],
        }
    }

    /// How the registration is written.
    pub(crate) fn layout(self) -> Layout {
        match self {
            HookClient::Claude
            | HookClient::Gemini
            | HookClient::Codex
            | HookClient::Qwen
            | HookClient::Grok => Layout::Nested,
            HookClient::Copilot => Layout::CopilotFlat,
            HookClient::Cursor => Layout::CursorFlat,
            HookClient::Pi | HookClient::OpenCode => Layout::Source,
        }
    }

    /// The client's folder in a project directory.
    fn folder(self) -> &'static str {
        match self {
            HookClient::Claude => ".claude",
            HookClient::Gemini => ".gemini",
            HookClient::Codex => ".codex",
            HookClient::Qwen => ".qwen",
            HookClient::Copilot => ".github/hooks",
            HookClient::Pi => ".pi/extensions",
            HookClient::OpenCode => ".opencode/plugins",
            HookClient::Grok => ".grok/hooks",
            HookClient::Cursor => ".cursor",
        }
    }

    /// The settings file's name in that folder.
    fn file_name(self) -> &'static str {
        match self {
            HookClient::Claude | HookClient::Gemini | HookClient::Qwen => "settings.json",
            HookClient::Codex | HookClient::Cursor => "hooks.json",
            HookClient::Copilot | HookClient::Grok => "toolgate.json",
            HookClient::Pi => "toolgate.ts",
            HookClient::OpenCode => "toolgate.js",
        }
    }

    /// The matcher that selects every tool: Codex and Grok select every
    /// tool when the matcher is absent; Qwen Code matches by regular
    /// expression.
    fn matcher(self) -> Option<&'static str> {
        match self {
            HookClient::Claude | HookClient::Gemini => Some("*"),
            HookClient::Qwen => Some(".*"),
            _ => None,
        }
    }

    /// A hook timeout in the unit the client's settings use.
    fn timeout_value(self, timeout: Duration) -> u64 {
        match self {
            HookClient::Gemini => u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
            _ => timeout.as_secs().max(1),
        }
    }

    /// The timeout registered when none is asked for: for the clients that
    /// let a call run when the hook times out (or, for Grok, stop waiting
    /// after 5 s), one that the hook answers well within; for Pi and
    /// OpenCode, which have none, the one toolgate's own extension and
    /// plugin enforce. Claude Code's settings get one too: Grok Build runs
    /// the hooks of `.claude/settings.json` as well, with its own 5 s
    /// default where none is written, after which it runs the call (an ask
    /// put to a reviewer model may take longer).
    pub fn default_timeout(self) -> Option<Duration> {
        match self {
            HookClient::Qwen | HookClient::Copilot | HookClient::Grok | HookClient::Claude => {
                Some(Duration::from_secs(30))
            }
            HookClient::Pi | HookClient::OpenCode => Some(Duration::from_secs(60)),
            _ => None,
        }
    }

    /// Whether `--sandbox` can rewrite this client's shell commands.
    pub fn can_sandbox(self) -> bool {
        matches!(
            self,
            HookClient::Claude | HookClient::Gemini | HookClient::Pi | HookClient::OpenCode
        )
    }
}

impl fmt::Display for HookClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which settings file: the project's (shared with the project) or the
/// user's (every project).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Scope {
    /// `<project>/.claude/settings.json` or `<project>/.gemini/settings.json`.
    #[default]
    Project,
    /// `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR/settings.json`),
    /// `~/.gemini/settings.json` (or `$GEMINI_CLI_HOME/.gemini/settings.json`):
    /// where the clients themselves look.
    User,
}

/// What `install` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Installed {
    /// The settings file did not exist and was created with the hook.
    Created,
    /// The hook was added to an existing file, whose previous text is in
    /// `backup`.
    Added {
        /// The copy of the file as it was.
        backup: PathBuf,
    },
    /// The same command was already registered for the event: nothing was
    /// written.
    Unchanged,
}

/// Why the hook could not be installed. Nothing was written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// Neither `$HOME` nor the client's own variable says where the user's
    /// settings are.
    #[error("cannot find the user's {client} settings: HOME is not set")]
    NoHome {
        /// The client.
        client: HookClient,
    },
    /// The client loads toolgate's own extension or plugin file, which
    /// `extension::write` writes, rather than a hook setting.
    #[error("{client} loads toolgate's extension or plugin file, not a hook setting")]
    NotSettings {
        /// The client.
        client: HookClient,
    },
    /// The settings file exists but cannot be read.
    #[error("`{}`: cannot read it: {source}", .path.display())]
    Read {
        /// The settings file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The settings file is not JSON, or its hooks are not shaped as the
    /// client reads them; changing it could lose what the user meant.
    #[error("`{}` is not a settings file toolgate can change: {detail}; fix or move it, then run this again", .path.display())]
    Malformed {
        /// The settings file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// Writing the backup or the new settings failed.
    #[error("`{}`: cannot {action}: {source}", .path.display())]
    Write {
        /// The file being written.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// The settings file (or, for Pi and OpenCode, the extension or plugin
/// file) for `client` in `scope`; `project` is the project directory (the
/// working directory, usually).
///
/// The user scope follows the clients' own overrides, read from `env`:
/// `CLAUDE_CONFIG_DIR`, `GEMINI_CLI_HOME`, `CODEX_HOME`, `QWEN_HOME`,
/// `COPILOT_HOME`, `PI_CODING_AGENT_DIR` and `XDG_CONFIG_HOME` (OpenCode).
pub fn settings_path(
    client: HookClient,
    scope: Scope,
    project: &Path,
    env: impl Fn(&str) -> Option<String>,
) -> Result<PathBuf, InstallError> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if scope == Scope::Project {
        return Ok(project.join(client.folder()).join(client.file_name()));
    }
    let overridden = match client {
        HookClient::Claude => set("CLAUDE_CONFIG_DIR").map(|d| d.join("settings.json")),
        HookClient::Gemini => set("GEMINI_CLI_HOME").map(|h| h.join(".gemini/settings.json")),
        HookClient::Codex => set("CODEX_HOME").map(|h| h.join("hooks.json")),
        HookClient::Qwen => set("QWEN_HOME").map(|h| h.join("settings.json")),
        HookClient::Copilot => set("COPILOT_HOME").map(|h| h.join("hooks/toolgate.json")),
        HookClient::Pi => set("PI_CODING_AGENT_DIR").map(|d| d.join("extensions/toolgate.ts")),
        HookClient::OpenCode => {
            set("XDG_CONFIG_HOME").map(|d| d.join("opencode/plugins/toolgate.js"))
        }
        HookClient::Grok | HookClient::Cursor => None,
    };
    if let Some(path) = overridden {
        return Ok(path);
    }
    let home = set("HOME").ok_or(InstallError::NoHome { client })?;
    Ok(match client {
        HookClient::Copilot => home.join(".copilot/hooks/toolgate.json"),
        HookClient::Pi => home.join(".pi/agent/extensions/toolgate.ts"),
        HookClient::OpenCode => home.join(".config/opencode/plugins/toolgate.js"),
        _ => home.join(client.folder()).join(client.file_name()),
    })
}

/// The command registered by default: `toolgate` (the given executable,
/// quoted for the shell the clients run hooks with), `hook`, the client,
/// then `args`.
pub fn default_command(client: HookClient, exe: &Path, args: &[String]) -> String {
    command_line(exe, &["hook", client.as_str()], args)
}

/// The command registered when the lean hook executable `hook_exe`
/// (`toolgate-hook`, beside `toolgate`) is there: `hook_exe`, the client,
/// then `args`. It answers exactly as `toolgate hook CLIENT` does.
pub fn lean_command(client: HookClient, hook_exe: &Path, args: &[String]) -> String {
    command_line(hook_exe, &[client.as_str()], args)
}

/// `exe`, then the fixed `words`, then `args`, each quoted for the shell
/// where it needs to be.
fn command_line(exe: &Path, words: &[&str], args: &[String]) -> String {
    let mut command = shell_quote(&exe.display().to_string());
    for word in words.iter().copied().chain(args.iter().map(String::as_str)) {
        command.push(' ');
        command.push_str(&shell_quote(word));
    }
    command
}

/// The executable `name` in the same directory as `exe` (how `toolgate`
/// and `toolgate-hook` find each other).
pub fn beside(exe: &Path, name: &str) -> std::path::PathBuf {
    exe.with_file_name(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Registers `command` as `client`'s hook for every tool in the settings
/// file at `path`, with `timeout` when given (it must exceed the time the
/// hook may wait for an approval, or the client gives up on the hook and
/// runs the call).
pub fn install(
    client: HookClient,
    path: &Path,
    command: &str,
    timeout: Option<Duration>,
) -> Result<Installed, InstallError> {
    if client.layout() == Layout::Source {
        return Err(InstallError::NotSettings { client });
    }
    let mut file = JsonFile::load(path)?;
    let target = file.target.clone();
    let malformed = |detail: String| InstallError::Malformed {
        path: target.clone(),
        detail,
    };
    let settings = &mut file.doc;
    if !matches!(settings, Json::Object(_)) {
        return Err(malformed(format!(
            "it holds {}, not an object",
            settings.type_name()
        )));
    }
    let hooks = settings
        .entry("hooks", || Json::Object(Vec::new()))
        .ok_or_else(|| malformed("its top level is not an object".to_owned()))?;
    if !matches!(hooks, Json::Object(_)) {
        return Err(malformed(format!(
            "`hooks` is {}, not an object",
            hooks.type_name()
        )));
    }
    let timeout = timeout.or(client.default_timeout());
    let mut added = false;
    for event in client.events() {
        let entries = hooks
            .entry(event, || Json::Array(Vec::new()))
            .ok_or_else(|| malformed("`hooks` is not an object".to_owned()))?;
        let found = entries.type_name();
        let Json::Array(list) = entries else {
            return Err(malformed(format!(
                "`hooks.{event}` is {found}, not an array"
            )));
        };
        if list.iter().any(|entry| registers(entry, command)) {
            continue;
        }
        list.push(entry(client, command, timeout));
        added = true;
    }
    if added && matches!(client.layout(), Layout::CopilotFlat | Layout::CursorFlat) {
        // Both read only a file that says which version of the format it is.
        if let Some(entries) = settings.entries_mut()
            && !entries.iter().any(|(k, _)| k == "version")
        {
            entries.insert(0, ("version".to_owned(), Json::Number(1.into())));
        }
    }
    if !added {
        return Ok(Installed::Unchanged);
    }

    let text = settings.to_pretty();
    let outcome = match file.backup()? {
        Some(backup) => Installed::Added { backup },
        None => Installed::Created,
    };
    replace(&target, &text)?;
    Ok(outcome)
}

/// Whether a hook entry runs `command`: nested under `hooks` (Claude
/// Code's layout), or flat, as Cursor's `command` or Copilot CLI's `bash`.
fn registers(entry: &Json, command: &str) -> bool {
    let runs = |h: &Json| {
        h.get("command").and_then(Json::as_str) == Some(command)
            || h.get("bash").and_then(Json::as_str) == Some(command)
    };
    runs(entry)
        || entry
            .get("hooks")
            .and_then(Json::as_array)
            .is_some_and(|hooks| hooks.iter().any(runs))
}

/// A new hook entry running `command`, in `client`'s layout.
fn entry(client: HookClient, command: &str, timeout: Option<Duration>) -> Json {
    let text = |s: &str| Json::String(s.to_owned());
    let seconds = |t: Duration| Json::Number(client.timeout_value(t).into());
    match client.layout() {
        Layout::CopilotFlat => {
            let mut hook = vec![
                ("type".to_owned(), text("command")),
                ("bash".to_owned(), text(command)),
            ];
            if let Some(t) = timeout {
                hook.push(("timeoutSec".to_owned(), seconds(t)));
            }
            Json::Object(hook)
        }
        Layout::CursorFlat => Json::Object(vec![
            ("command".to_owned(), text(command)),
            ("failClosed".to_owned(), Json::Bool(true)),
        ]),
        Layout::Nested | Layout::Source => {
            let mut hook = vec![
                ("type".to_owned(), text("command")),
                ("command".to_owned(), text(command)),
            ];
            if let Some(t) = timeout {
                hook.push(("timeout".to_owned(), seconds(t)));
            }
            let mut entry = Vec::new();
            if let Some(matcher) = client.matcher() {
                entry.push(("matcher".to_owned(), text(matcher)));
            }
            entry.push(("hooks".to_owned(), Json::Array(vec![Json::Object(hook)])));
            Json::Object(entry)
        }
    }
}

/// `path` with `suffix` appended to its file name (`settings.json` →
/// `settings.json.bak`), or `fallback` in its directory.
fn sibling(path: &Path, fallback: &str, suffix: &str) -> PathBuf {
    match path.file_name() {
        Some(name) => {
            let mut name = name.to_os_string();
            name.push(suffix);
            path.with_file_name(name)
        }
        None => path.join(fallback),
    }
}

/// A client's JSON settings file, read for a change that keeps everything
/// else in it.
pub(crate) struct JsonFile {
    /// Where the file lives: a symlinked settings file is changed there.
    pub(crate) target: PathBuf,
    /// Its text before the change; `None` when it does not exist.
    pub(crate) existing: Option<String>,
    /// Its JSON, keys in their order (an empty object for a missing or
    /// empty file).
    pub(crate) doc: Json,
}

impl JsonFile {
    /// Reads `path`; a file that cannot be read, or is not JSON, is an
    /// error and stays untouched.
    pub(crate) fn load(path: &Path) -> Result<JsonFile, InstallError> {
        let target = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let existing = match std::fs::read_to_string(&target) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(InstallError::Read {
                    path: target,
                    source,
                });
            }
        };
        let doc = match existing.as_deref() {
            None => Json::Object(Vec::new()),
            Some(text) if text.trim().is_empty() => Json::Object(Vec::new()),
            Some(text) => {
                serde_json::from_str::<Json>(text).map_err(|e| InstallError::Malformed {
                    path: target.clone(),
                    detail: format!("it is not valid JSON ({e})"),
                })?
            }
        };
        Ok(JsonFile {
            target,
            existing,
            doc,
        })
    }

    /// Copies the previous text to `NAME.bak` beside the file, when there
    /// was one, and returns where.
    pub(crate) fn backup(&self) -> Result<Option<PathBuf>, InstallError> {
        let Some(old) = &self.existing else {
            return Ok(None);
        };
        let backup = sibling(&self.target, "settings.json.bak", ".bak");
        std::fs::write(&backup, old).map_err(|source| InstallError::Write {
            path: backup.clone(),
            action: "write the backup",
            source,
        })?;
        Ok(Some(backup))
    }
}

/// Writes `text` to a temporary file beside `path` and renames it over
/// `path`, so that the client never reads a half-written file. An existing
/// file's permissions are kept.
pub(crate) fn replace(path: &Path, text: &str) -> Result<(), InstallError> {
    let write_err = |path: &Path, action: &'static str| {
        let path = path.to_path_buf();
        move |source| InstallError::Write {
            path,
            action,
            source,
        }
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(write_err(dir, "create the settings folder"))?;
    }
    let temp = sibling(path, "settings.json.toolgate-new", ".toolgate-new");
    let result = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&temp, meta.permissions())?;
        }
        std::fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result.map_err(write_err(path, "write the settings"))
}

pub use crate::mcp_json::{McpRouted, route_mcp};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    const COMMAND: &str = "/opt/toolgate/bin/toolgate hook claude";

    fn read(path: &Path) -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn creates_the_file_when_missing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude/settings.json");
        let outcome = install(HookClient::Claude, &path, COMMAND, None).unwrap();
        assert_eq!(outcome, Installed::Created);
        assert_eq!(
            read(&path),
            json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": COMMAND, "timeout": 30}]}]}})
        );
        assert!(!dir.path().join(".claude/settings.json.bak").exists());
    }

    #[test]
    fn merges_with_other_settings_and_hooks_keeping_their_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let before = r#"{
  "permissions": {"deny": ["Read(.env)"], "allow": ["Bash(ls)"]},
  "hooks": {
    "PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "fmt"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]}]
  },
  "model": "opus"
}"#;
        std::fs::write(&path, before).unwrap();
        let outcome = install(
            HookClient::Claude,
            &path,
            COMMAND,
            Some(Duration::from_secs(90)),
        )
        .unwrap();
        assert_eq!(
            outcome,
            Installed::Added {
                backup: dir.path().join("settings.json.bak")
            }
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("settings.json.bak")).unwrap(),
            before
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let order: Vec<usize> = [
            "\"permissions\"",
            "\"deny\"",
            "\"allow\"",
            "\"hooks\"",
            "\"PostToolUse\"",
            "\"model\"",
        ]
        .iter()
        .map(|k| text.find(k).unwrap())
        .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
        let after = read(&path);
        assert_eq!(after["permissions"]["deny"], json!(["Read(.env)"]));
        assert_eq!(
            after["hooks"]["PostToolUse"][0]["hooks"][0]["command"],
            "fmt"
        );
        assert_eq!(
            after["hooks"]["PreToolUse"],
            json!([
                {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]},
                {"matcher": "*", "hooks": [{"type": "command", "command": COMMAND, "timeout": 90}]},
            ])
        );
    }

    #[test]
    fn running_twice_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        install(HookClient::Gemini, &path, "toolgate hook gemini", None).unwrap();
        let first = std::fs::read_to_string(&path).unwrap();
        let outcome = install(HookClient::Gemini, &path, "toolgate hook gemini", None).unwrap();
        assert_eq!(outcome, Installed::Unchanged);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), first);
        assert!(!dir.path().join("settings.json.bak").exists());
        assert_eq!(
            read(&path)["hooks"]["BeforeTool"][0]["hooks"][0]["command"],
            "toolgate hook gemini"
        );
    }

    #[test]
    fn gemini_timeouts_are_milliseconds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        install(
            HookClient::Gemini,
            &path,
            "tg",
            Some(Duration::from_secs(90)),
        )
        .unwrap();
        assert_eq!(
            read(&path)["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"],
            90_000
        );
    }

    #[test]
    fn malformed_settings_are_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        for bad in [
            "{\"hooks\": ",
            "[1, 2]",
            "{\"hooks\": []}",
            "{\"hooks\": {\"PreToolUse\": {\"matcher\": \"*\"}}}",
        ] {
            std::fs::write(&path, bad).unwrap();
            let err = install(HookClient::Claude, &path, COMMAND, None).unwrap_err();
            assert!(
                matches!(err, InstallError::Malformed { .. }),
                "{bad}: {err}"
            );
            assert_eq!(std::fs::read_to_string(&path).unwrap(), bad);
            assert!(!dir.path().join("settings.json.bak").exists());
        }
    }

    #[test]
    fn settings_paths_follow_the_clients_overrides() {
        let project = Path::new("/work/p");
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        let home = env(&[("HOME", "/home/u")]);
        assert_eq!(
            settings_path(HookClient::Claude, Scope::Project, project, home).unwrap(),
            Path::new("/work/p/.claude/settings.json")
        );
        assert_eq!(
            settings_path(HookClient::Gemini, Scope::User, project, home).unwrap(),
            Path::new("/home/u/.gemini/settings.json")
        );
        let overridden = env(&[
            ("HOME", "/home/u"),
            ("CLAUDE_CONFIG_DIR", "/cfg/claude"),
            ("GEMINI_CLI_HOME", "/cfg/gemini"),
        ]);
        assert_eq!(
            settings_path(HookClient::Claude, Scope::User, project, overridden).unwrap(),
            Path::new("/cfg/claude/settings.json")
        );
        assert_eq!(
            settings_path(HookClient::Gemini, Scope::User, project, overridden).unwrap(),
            Path::new("/cfg/gemini/.gemini/settings.json")
        );
        assert!(matches!(
            settings_path(HookClient::Claude, Scope::User, project, env(&[])),
            Err(InstallError::NoHome { .. })
        ));
    }

    #[test]
    fn default_command_quotes_what_the_shell_would_split() {
        assert_eq!(
            default_command(
                HookClient::Claude,
                Path::new("/usr/local/bin/toolgate"),
                &[]
            ),
            "/usr/local/bin/toolgate hook claude"
        );
        assert_eq!(
            default_command(
                HookClient::Gemini,
                Path::new("/home/a b/toolgate"),
                &["--approver".into(), "queue".into()]
            ),
            "'/home/a b/toolgate' hook gemini --approver queue"
        );
    }

    #[test]
    fn each_client_gets_its_own_layout_and_a_timeout_where_a_timeout_runs_the_call() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("qwen.json");
        install(HookClient::Qwen, &path, "tg qwen", None).unwrap();
        assert_eq!(
            read(&path),
            json!({"hooks": {"PreToolUse": [{"matcher": ".*", "hooks": [
                {"type": "command", "command": "tg qwen", "timeout": 30}]}]}})
        );

        let path = dir.path().join("copilot.json");
        install(HookClient::Copilot, &path, "tg copilot", None).unwrap();
        assert_eq!(
            read(&path),
            json!({"version": 1, "hooks": {"preToolUse": [
                {"type": "command", "bash": "tg copilot", "timeoutSec": 30}]}})
        );
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.find("\"version\"") < text.find("\"hooks\""), "{text}");
        assert_eq!(
            install(HookClient::Copilot, &path, "tg copilot", None).unwrap(),
            Installed::Unchanged
        );

        let path = dir.path().join("cursor.json");
        std::fs::write(
            &path,
            r#"{"version": 1, "hooks": {"stop": [{"command": "x"}]}}"#,
        )
        .unwrap();
        install(HookClient::Cursor, &path, "tg cursor", None).unwrap();
        let cursor = read(&path);
        assert_eq!(cursor["hooks"]["stop"], json!([{"command": "x"}]));
        for event in crate::cursor::EVENTS {
            assert_eq!(
                cursor["hooks"][event],
                json!([{"command": "tg cursor", "failClosed": true}]),
                "{event}"
            );
        }
        assert_eq!(cursor["hooks"].as_object().unwrap().len(), 5);

        let path = dir.path().join("grok.json");
        install(
            HookClient::Grok,
            &path,
            "tg grok",
            Some(Duration::from_secs(90)),
        )
        .unwrap();
        assert_eq!(
            read(&path),
            json!({"hooks": {"PreToolUse": [{"hooks": [
                {"type": "command", "command": "tg grok", "timeout": 90}]}]}})
        );

        for client in [HookClient::Pi, HookClient::OpenCode] {
            let err = install(client, &dir.path().join("x.json"), "tg", None).unwrap_err();
            assert!(matches!(err, InstallError::NotSettings { .. }), "{err}");
        }
    }

    #[test]
    fn the_new_clients_user_folders_follow_their_overrides() {
        let project = Path::new("/work/p");
        let vars: &[(&str, &str)] = &[
            ("HOME", "/home/u"),
            ("QWEN_HOME", "/q"),
            ("COPILOT_HOME", "/c"),
            ("PI_CODING_AGENT_DIR", "/pi"),
            ("XDG_CONFIG_HOME", "/x"),
        ];
        let env = |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        };
        let at = |c| settings_path(c, Scope::User, project, env).unwrap();
        assert_eq!(at(HookClient::Qwen), Path::new("/q/settings.json"));
        assert_eq!(at(HookClient::Copilot), Path::new("/c/hooks/toolgate.json"));
        assert_eq!(at(HookClient::Pi), Path::new("/pi/extensions/toolgate.ts"));
        assert_eq!(
            at(HookClient::OpenCode),
            Path::new("/x/opencode/plugins/toolgate.js")
        );
        assert_eq!(
            at(HookClient::Grok),
            Path::new("/home/u/.grok/hooks/toolgate.json")
        );
        assert_eq!(
            at(HookClient::Cursor),
            Path::new("/home/u/.cursor/hooks.json")
        );
        let home = |name: &str| (name == "HOME").then(|| "/home/u".to_owned());
        assert_eq!(
            settings_path(HookClient::Pi, Scope::User, project, home).unwrap(),
            Path::new("/home/u/.pi/agent/extensions/toolgate.ts")
        );
        assert_eq!(
            settings_path(HookClient::Copilot, Scope::Project, project, home).unwrap(),
            Path::new("/work/p/.github/hooks/toolgate.json")
        );
        assert_eq!(
            settings_path(HookClient::OpenCode, Scope::Project, project, home).unwrap(),
            Path::new("/work/p/.opencode/plugins/toolgate.js")
        );
    }
}

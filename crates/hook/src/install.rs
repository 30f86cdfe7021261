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
}

impl HookClient {
    /// `claude` or `gemini`, as in `toolgate hook claude`.
    pub fn as_str(self) -> &'static str {
        match self {
            HookClient::Claude => "claude",
            HookClient::Gemini => "gemini",
            HookClient::Codex => "codex",
        }
    }

    /// The hook events toolgate answers.
    pub fn events(self) -> &'static [&'static str] {
        match self {
            HookClient::Claude => &[crate::claude::EVENT],
            HookClient::Gemini => &[crate::gemini::EVENT],
            HookClient::Codex => &[crate::codex::PRE_TOOL_USE, crate::codex::PERMISSION_REQUEST],
        }
    }

    /// The client's folder in a project or home directory.
    fn folder(self) -> &'static str {
        match self {
            HookClient::Claude => ".claude",
            HookClient::Gemini => ".gemini",
            HookClient::Codex => ".codex",
        }
    }

    /// The settings file's name in that folder.
    fn file_name(self) -> &'static str {
        match self {
            HookClient::Claude | HookClient::Gemini => "settings.json",
            HookClient::Codex => "hooks.json",
        }
    }

    /// The matcher that selects every tool: Codex matches by regular
    /// expression and selects every tool when the matcher is absent.
    fn matcher(self) -> Option<&'static str> {
        match self {
            HookClient::Claude | HookClient::Gemini => Some("*"),
            HookClient::Codex => None,
        }
    }

    /// A hook timeout in the unit the client's settings use.
    fn timeout_value(self, timeout: Duration) -> u64 {
        match self {
            HookClient::Claude | HookClient::Codex => timeout.as_secs().max(1),
            HookClient::Gemini => u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX),
        }
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

/// The settings file for `client` in `scope`; `project` is the project
/// directory (the working directory, usually).
///
/// The user scope follows the clients' own overrides, `CLAUDE_CONFIG_DIR`
/// and `GEMINI_CLI_HOME`, read from `env`.
pub fn settings_path(
    client: HookClient,
    scope: Scope,
    project: &Path,
    env: impl Fn(&str) -> Option<String>,
) -> Result<PathBuf, InstallError> {
    let set = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    Ok(match scope {
        Scope::Project => project.join(client.folder()).join(client.file_name()),
        Scope::User => match (
            client,
            set("CLAUDE_CONFIG_DIR"),
            set("GEMINI_CLI_HOME"),
            set("CODEX_HOME"),
        ) {
            (HookClient::Claude, Some(dir), _, _) => dir.join("settings.json"),
            (HookClient::Gemini, _, Some(home), _) => home.join(".gemini/settings.json"),
            (HookClient::Codex, _, _, Some(home)) => home.join("hooks.json"),
            _ => set("HOME")
                .ok_or(InstallError::NoHome { client })?
                .join(client.folder())
                .join(client.file_name()),
        },
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
        let registered = list.iter().any(|entry| {
            entry
                .get("hooks")
                .and_then(Json::as_array)
                .is_some_and(|hooks| {
                    hooks
                        .iter()
                        .any(|h| h.get("command").and_then(Json::as_str) == Some(command))
                })
        });
        if registered {
            continue;
        }
        let mut hook = vec![
            ("type".to_owned(), Json::String("command".to_owned())),
            ("command".to_owned(), Json::String(command.to_owned())),
        ];
        if let Some(timeout) = timeout {
            hook.push((
                "timeout".to_owned(),
                Json::Number(client.timeout_value(timeout).into()),
            ));
        }
        let mut entry = Vec::new();
        if let Some(matcher) = client.matcher() {
            entry.push(("matcher".to_owned(), Json::String(matcher.to_owned())));
        }
        entry.push(("hooks".to_owned(), Json::Array(vec![Json::Object(hook)])));
        list.push(Json::Object(entry));
        added = true;
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
            json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": COMMAND}]}]}})
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
}

//! `toolgate hook install codex --trust`: marking the installed hooks
//! trusted, through Codex itself.
//!
//! Codex runs a hook from `hooks.json` only once its definition is trusted:
//! a `trusted_hash` under `[hooks.state."<file>:<event>:<i>:<j>"]` in the
//! user's `config.toml`, which `/hooks` writes when the person accepts it.
//! The hash is Codex's own, over its own reading of the definition, so it
//! is not computed here: `codex app-server` is asked over its JSON-RPC
//! protocol for the hooks it loads (`hooks/list`, which gives each one's key,
//! `currentHash` and `trustStatus`), Codex's own config writer records the
//! hash of each toolgate hook (`config/value/write`), and a second
//! `hooks/list` must then show every one of them `trusted`. Only the hooks
//! of the file toolgate wrote whose command is toolgate's are touched.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long the whole exchange with `codex app-server` may take.
pub const TRUST_TIMEOUT: Duration = Duration::from_secs(60);

/// Why the hooks could not be marked trusted.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// The codex executable could not be started.
    #[error("cannot run `{} app-server`: {source} (pass the codex executable with --codex)", .codex.display())]
    Spawn {
        /// The executable tried.
        codex: PathBuf,
        /// Why it did not start.
        source: std::io::Error,
    },
    /// The server answered something other than what its protocol says, an
    /// error, or nothing before it ended.
    #[error("`codex app-server`: {0}")]
    Protocol(String),
    /// The server did not answer in time.
    #[error("`codex app-server` did not answer `{method}` within {secs} s", secs = .timeout.as_secs())]
    Timeout {
        /// The request left unanswered.
        method: &'static str,
        /// How long the exchange may take.
        timeout: Duration,
    },
    /// Codex lists none of toolgate's hooks in the file.
    #[error(
        "Codex does not load the hooks of `{}` in `{}`{}",
        .file.display(),
        .cwd.display(),
        if *.project {
            ": it reads a project's `.codex/hooks.json` only in a project it trusts; trust the \
             project in codex, then run this again"
        } else {
            ""
        }
    )]
    NotLoaded {
        /// The hooks file toolgate wrote.
        file: PathBuf,
        /// The directory Codex was asked about.
        cwd: PathBuf,
        /// Whether it is a project's hooks file.
        project: bool,
    },
    /// A hook is not trusted after its hash was recorded.
    #[error("Codex still reports the hook `{key}` as `{status}` after its hash was recorded")]
    NotTrusted {
        /// The hook's key.
        key: String,
        /// The status Codex reports (`gone` when it no longer lists it).
        status: String,
    },
}

/// One toolgate hook as Codex reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedHook {
    /// `<file>:<event>:<i>:<j>`, the key of its `[hooks.state]` entry.
    pub key: String,
    /// `sha256:<hex>`, Codex's hash of the definition.
    pub hash: String,
    /// `trusted`, `untrusted`, `modified` or `managed`.
    pub status: String,
}

/// What [`trust`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trusted {
    /// The keys whose hash was recorded now.
    pub recorded: Vec<String>,
    /// The keys that were already trusted (or managed) as they are.
    pub already: Vec<String>,
}

/// Marks toolgate's hooks in `file` (those whose command is `command`)
/// trusted in Codex, asking the `codex` executable run in `cwd` with the
/// environment it inherits (`CODEX_HOME` included).
pub fn trust(
    codex: &Path,
    cwd: &Path,
    file: &Path,
    command: &str,
    project: bool,
) -> Result<Trusted, TrustError> {
    let mut server = AppServer::start(codex, cwd)?;
    server.call(
        "initialize",
        json!({"clientInfo": {"name": "toolgate", "version": env!("CARGO_PKG_VERSION")}}),
    )?;
    server.notify("initialized")?;
    let listed = ours(
        &server.call("hooks/list", json!({"cwds": [cwd]}))?,
        file,
        command,
    )?;
    if listed.is_empty() {
        return Err(TrustError::NotLoaded {
            file: file.to_path_buf(),
            cwd: cwd.to_path_buf(),
            project,
        });
    }
    let mut done = Trusted {
        recorded: Vec::new(),
        already: Vec::new(),
    };
    for hook in &listed {
        if hook.status == "trusted" || hook.status == "managed" {
            done.already.push(hook.key.clone());
            continue;
        }
        server.call(
            "config/value/write",
            json!({
                "keyPath": key_path(&hook.key)?,
                "value": hook.hash,
                "mergeStrategy": "upsert",
            }),
        )?;
        done.recorded.push(hook.key.clone());
    }
    let after = ours(
        &server.call("hooks/list", json!({"cwds": [cwd]}))?,
        file,
        command,
    )?;
    for hook in &listed {
        let now = after.iter().find(|h| h.key == hook.key);
        match now {
            Some(h) if h.status == "trusted" || h.status == "managed" => {}
            Some(h) => {
                return Err(TrustError::NotTrusted {
                    key: h.key.clone(),
                    status: h.status.clone(),
                });
            }
            None => {
                return Err(TrustError::NotTrusted {
                    key: hook.key.clone(),
                    status: "gone".to_owned(),
                });
            }
        }
    }
    Ok(done)
}

/// The config key path of a hook's trusted hash. The key is a file path
/// with the event and indices: it goes between double quotes, so a key
/// holding a quote or a backslash is refused rather than escaped in a way
/// Codex might read differently.
fn key_path(key: &str) -> Result<String, TrustError> {
    if key.contains(['"', '\\']) || key.chars().any(char::is_control) {
        return Err(TrustError::Protocol(format!(
            "the hook key `{key}` holds a quote, backslash or control character; trust it with \
             `/hooks` in codex"
        )));
    }
    Ok(format!("hooks.state.\"{key}\".trusted_hash"))
}

/// toolgate's hooks in a `hooks/list` result: those of `file` whose
/// command is `command`.
pub fn ours(result: &Value, file: &Path, command: &str) -> Result<Vec<ListedHook>, TrustError> {
    let data = result
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| TrustError::Protocol("`hooks/list` answered without `data`".to_owned()))?;
    let file = canonical(file);
    let mut found: Vec<ListedHook> = Vec::new();
    for entry in data {
        let hooks = entry.get("hooks").and_then(Value::as_array);
        for hook in hooks.into_iter().flatten() {
            let source = hook.get("sourcePath").and_then(Value::as_str);
            if source.map(|s| canonical(Path::new(s))) != Some(file.clone()) {
                continue;
            }
            if hook.get("command").and_then(Value::as_str) != Some(command) {
                continue;
            }
            let field = |name: &str| {
                hook.get(name)
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .ok_or_else(|| {
                        TrustError::Protocol(format!("a hook in `hooks/list` has no `{name}`"))
                    })
            };
            let listed = ListedHook {
                key: field("key")?,
                hash: field("currentHash")?,
                status: field("trustStatus")?,
            };
            if !found.iter().any(|h| h.key == listed.key) {
                found.push(listed);
            }
        }
    }
    Ok(found)
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A running `codex app-server`, spoken to one request at a time. Its
/// standard output is read on a thread, so that a silent server is a
/// timeout rather than a hang; it is killed when dropped.
struct AppServer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    next_id: u64,
    deadline: Instant,
}

impl AppServer {
    fn start(codex: &Path, cwd: &Path) -> Result<AppServer, TrustError> {
        let spawn_error = |source| TrustError::Spawn {
            codex: codex.to_path_buf(),
            source,
        };
        let mut child = Command::new(codex)
            .arg("app-server")
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(spawn_error)?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(TrustError::Protocol("no pipes to the server".to_owned()));
        };
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let end = line.is_err();
                if tx.send(line).is_err() || end {
                    break;
                }
            }
        });
        Ok(AppServer {
            child,
            stdin,
            lines,
            next_id: 1,
            deadline: Instant::now() + TRUST_TIMEOUT,
        })
    }

    fn send(&mut self, message: &Value) -> Result<(), TrustError> {
        let mut line = message.to_string();
        line.push('\n');
        self.stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| TrustError::Protocol(format!("cannot write to it: {e}")))
    }

    fn notify(&mut self, method: &str) -> Result<(), TrustError> {
        self.send(&json!({"jsonrpc": "2.0", "method": method}))
    }

    /// Sends a request and waits for its answer, skipping the server's
    /// notifications and requests in between; an error answer is an error.
    fn call(&mut self, method: &'static str, params: Value) -> Result<Value, TrustError> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(Ok(line)) => line,
                Ok(Err(e)) => return Err(TrustError::Protocol(format!("cannot read it: {e}"))),
                Err(RecvTimeoutError::Timeout) => {
                    return Err(TrustError::Timeout {
                        method,
                        timeout: TRUST_TIMEOUT,
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(TrustError::Protocol(format!(
                        "it ended before answering `{method}`"
                    )));
                }
            };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message.get("id").and_then(Value::as_u64) != Some(id)
                || message.get("method").is_some()
            {
                continue;
            }
            if let Some(error) = message.get("error") {
                let text = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| error.to_string(), str::to_owned);
                return Err(TrustError::Protocol(format!("`{method}` failed: {text}")));
            }
            return Ok(message.get("result").cloned().unwrap_or(Value::Null));
        }
    }
}

impl Drop for AppServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(hooks: Value) -> Value {
        json!({"data": [{"cwd": "/w", "hooks": hooks, "warnings": [], "errors": []}]})
    }

    #[test]
    fn only_the_hooks_of_the_file_with_our_command_are_ours() {
        let result = listing(json!([
            {"key": "/h/hooks.json:pre_tool_use:0:0", "command": "/bin/toolgate-hook codex",
             "sourcePath": "/h/hooks.json", "currentHash": "sha256:aa", "trustStatus": "untrusted"},
            {"key": "/h/hooks.json:pre_tool_use:0:1", "command": "other-hook",
             "sourcePath": "/h/hooks.json", "currentHash": "sha256:bb", "trustStatus": "untrusted"},
            {"key": "/p/.codex/hooks.json:pre_tool_use:0:0", "command": "/bin/toolgate-hook codex",
             "sourcePath": "/p/.codex/hooks.json", "currentHash": "sha256:cc", "trustStatus": "untrusted"},
            {"key": "/h/hooks.json:permission_request:0:0", "command": "/bin/toolgate-hook codex",
             "sourcePath": "/h/hooks.json", "currentHash": "sha256:dd", "trustStatus": "trusted"},
        ]));
        let found = ours(
            &result,
            Path::new("/h/hooks.json"),
            "/bin/toolgate-hook codex",
        )
        .unwrap();
        let keys: Vec<&str> = found.iter().map(|h| h.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "/h/hooks.json:pre_tool_use:0:0",
                "/h/hooks.json:permission_request:0:0"
            ]
        );
        assert_eq!(found[0].hash, "sha256:aa");
        assert_eq!(found[1].status, "trusted");
    }

    #[test]
    fn a_listing_without_data_or_a_hook_without_its_hash_is_an_error() {
        assert!(matches!(
            ours(&json!({}), Path::new("/h/hooks.json"), "c"),
            Err(TrustError::Protocol(_))
        ));
        let result = listing(json!([
            {"key": "/h/hooks.json:pre_tool_use:0:0", "command": "c",
             "sourcePath": "/h/hooks.json", "trustStatus": "untrusted"},
        ]));
        assert!(matches!(
            ours(&result, Path::new("/h/hooks.json"), "c"),
            Err(TrustError::Protocol(_))
        ));
    }

    #[test]
    fn a_key_that_cannot_be_quoted_plainly_is_refused() {
        assert_eq!(
            key_path("/h/hooks.json:pre_tool_use:0:0").unwrap(),
            "hooks.state.\"/h/hooks.json:pre_tool_use:0:0\".trusted_hash"
        );
        assert!(key_path("/h/a\"b/hooks.json:pre_tool_use:0:0").is_err());
        assert!(key_path("/h/a\\b/hooks.json:pre_tool_use:0:0").is_err());
        assert!(key_path("/h/a\nb/hooks.json:pre_tool_use:0:0").is_err());
    }

    #[test]
    fn a_missing_codex_executable_is_an_error_naming_it() {
        let err = trust(
            Path::new("/nonexistent/codex"),
            Path::new("/"),
            Path::new("/h/hooks.json"),
            "c",
            false,
        )
        .unwrap_err();
        assert!(matches!(err, TrustError::Spawn { .. }), "{err}");
        assert!(err.to_string().contains("/nonexistent/codex"), "{err}");
    }
}

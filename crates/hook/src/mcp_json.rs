//! `toolgate hook install claude --mcp SRV [--undo]`: routes one server of a
//! project's `.mcp.json` through `toolgate mcp`.
//!
//! The entry `{"command": CMD, "args": [ARGS..], ..}` becomes
//! `{"command": TOOLGATE, "args": ["mcp", "--name", SRV, "--", CMD, ARGS..], ..}`;
//! every other key (`env`, ...) and every other server is left as it is. The
//! original command is kept whole after `--`, so `--undo` gives back exactly
//! the entry that was there. A backup of the file (`.mcp.json.bak`) is
//! written before any change.

use std::path::{Path, PathBuf};

use crate::install::{InstallError, JsonFile, replace};
use crate::ordered::Json;

/// What [`route_mcp`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpRouted {
    /// The entry now runs through `toolgate mcp`; the file was backed up to
    /// `backup` (absent when the file was created).
    Routed {
        /// The copy of the file as it was.
        backup: Option<PathBuf>,
    },
    /// The entry is back to the server's own command.
    Restored {
        /// The copy of the file as it was.
        backup: PathBuf,
    },
    /// Nothing to do: already routed (or, for `--undo`, not routed).
    Unchanged,
}

/// Routes the server `server` of the `.mcp.json` at `path` through
/// `toolgate` (this executable) as `toolgate mcp --name SERVER -- CMD..`, or
/// with `undo` puts its own command back. `command` (the server's command
/// and arguments) creates or replaces the entry; without it the entry must
/// exist and run a command (an HTTP entry is refused: nothing is written).
pub fn route_mcp(
    path: &Path,
    server: &str,
    toolgate: &Path,
    command: Option<&[String]>,
    undo: bool,
) -> Result<McpRouted, InstallError> {
    let mut file = JsonFile::load(path)?;
    let target = file.target.clone();
    let malformed = |detail: String| InstallError::Malformed {
        path: target.clone(),
        detail,
    };
    let doc = &mut file.doc;
    let servers = doc
        .entry("mcpServers", || Json::Object(Vec::new()))
        .ok_or_else(|| malformed("its top level is not an object".into()))?;
    if !matches!(servers, Json::Object(_)) {
        return Err(malformed(format!(
            "`mcpServers` is {}, not an object",
            servers.type_name()
        )));
    }
    let exe = toolgate.to_string_lossy().into_owned();
    let strings = |items: &[String]| Json::Array(items.iter().cloned().map(Json::String).collect());
    let entry = servers.get(server).cloned();
    let current = entry.as_ref().map(|e| own_command(e, server)).transpose();
    let current = current.map_err(|e| malformed(e.to_string()))?;
    let new_entry = if undo {
        let Some(Current::Routed(original)) = current else {
            return Ok(McpRouted::Unchanged);
        };
        let mut e = entry.unwrap_or(Json::Object(Vec::new()));
        set(&mut e, "command", Json::String(original[0].clone()));
        set(&mut e, "args", strings(&original[1..]));
        e
    } else {
        let original: Vec<String> = match (command, current) {
            (Some(cmd), _) if !cmd.is_empty() => cmd.to_vec(),
            (_, Some(Current::Routed(_))) => return Ok(McpRouted::Unchanged),
            (_, Some(Current::Own(cmd))) => cmd,
            (_, None) => {
                return Err(malformed(format!(
                    "it has no server `{server}`; name its command after `--`"
                )));
            }
        };
        let mut args = vec![
            "mcp".to_string(),
            "--name".into(),
            server.to_string(),
            "--".into(),
        ];
        args.extend(original);
        let mut e = entry.unwrap_or(Json::Object(Vec::new()));
        set(&mut e, "command", Json::String(exe));
        set(&mut e, "args", strings(&args));
        e
    };
    if let Some(list) = servers.entries_mut() {
        match list.iter_mut().find(|(k, _)| k == server) {
            Some((_, v)) => *v = new_entry,
            None => list.push((server.to_string(), new_entry)),
        }
    }
    let text = doc.to_pretty();
    let backup = file.backup()?;
    replace(&target, &text)?;
    Ok(match (undo, backup) {
        (true, Some(backup)) => McpRouted::Restored { backup },
        (_, backup) => McpRouted::Routed { backup },
    })
}

enum Current {
    /// The server's own command and arguments.
    Own(Vec<String>),
    /// Already through `toolgate mcp`: the original command after `--`.
    Routed(Vec<String>),
}

/// Why a server's entry cannot be routed through toolgate; the file is
/// reported as malformed and left as it is.
#[derive(Debug, thiserror::Error)]
enum EntryError {
    /// No command: a server reached over HTTP.
    #[error("the server `{0}` has no `command` (an HTTP server cannot be routed yet)")]
    NoCommand(String),
    /// `args` is not a list.
    #[error("`mcpServers.{0}.args` is not an array")]
    ArgsNotArray(String),
    /// `args` holds something besides strings.
    #[error("`mcpServers.{0}.args` holds a value that is not a string")]
    ArgNotString(String),
}

fn own_command(entry: &Json, server: &str) -> Result<Current, EntryError> {
    let Some(command) = entry.get("command").and_then(Json::as_str) else {
        return Err(EntryError::NoCommand(server.to_string()));
    };
    let args: Vec<String> = match entry.get("args") {
        None => Vec::new(),
        Some(a) => a
            .as_array()
            .ok_or_else(|| EntryError::ArgsNotArray(server.to_string()))?
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<String>>>()
            .ok_or_else(|| EntryError::ArgNotString(server.to_string()))?,
    };
    if args.first().map(String::as_str) == Some("mcp")
        && let Some(sep) = args.iter().position(|a| a == "--")
        && sep + 1 < args.len()
    {
        return Ok(Current::Routed(args[sep + 1..].to_vec()));
    }
    let mut cmd = vec![command.to_string()];
    cmd.extend(args);
    Ok(Current::Own(cmd))
}

fn set(entry: &mut Json, key: &str, value: Json) {
    if let Some(slot) = entry.entry(key, || Json::Null) {
        *slot = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGINAL: &str = r#"{
  "mcpServers": {
    "fs": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
      "env": {"A": "1"}
    },
    "other": {"command": "x"}
  }
}
"#;

    #[test]
    fn routes_and_undoes_to_the_same_entry() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".mcp.json");
        std::fs::write(&path, ORIGINAL).unwrap();
        let tg = Path::new("/opt/tg/toolgate");
        let r = route_mcp(&path, "fs", tg, None, false).unwrap();
        assert!(matches!(r, McpRouted::Routed { backup: Some(_) }));
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["mcpServers"]["fs"]["command"], "/opt/tg/toolgate");
        assert_eq!(
            v["mcpServers"]["fs"]["args"],
            serde_json::json!([
                "mcp",
                "--name",
                "fs",
                "--",
                "npx",
                "-y",
                "@modelcontextprotocol/server-filesystem",
                "."
            ])
        );
        assert_eq!(v["mcpServers"]["fs"]["env"]["A"], "1");
        assert_eq!(v["mcpServers"]["other"]["command"], "x");
        assert_eq!(
            route_mcp(&path, "fs", tg, None, false).unwrap(),
            McpRouted::Unchanged
        );

        assert!(matches!(
            route_mcp(&path, "fs", tg, None, true).unwrap(),
            McpRouted::Restored { .. }
        ));
        let back: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let orig: serde_json::Value = serde_json::from_str(ORIGINAL).unwrap();
        assert_eq!(back, orig);
        assert_eq!(
            route_mcp(&path, "fs", tg, None, true).unwrap(),
            McpRouted::Unchanged
        );
    }

    #[test]
    fn a_missing_server_needs_its_command_and_http_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".mcp.json");
        let tg = Path::new("/t/toolgate");
        assert!(route_mcp(&path, "fs", tg, None, false).is_err());
        assert!(!path.exists(), "nothing written");
        let cmd = vec!["node".to_string(), "server.js".to_string()];
        route_mcp(&path, "fs", tg, Some(&cmd), false).unwrap();
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v["mcpServers"]["fs"]["args"][4], "node");

        std::fs::write(
            &path,
            r#"{"mcpServers":{"h":{"type":"http","url":"http://x"}}}"#,
        )
        .unwrap();
        let before = std::fs::read_to_string(&path).unwrap();
        assert!(route_mcp(&path, "h", tg, None, false).is_err());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    }
}

//! The call model and the wire formats it is read from.
//!
//! Every host speaks a different JSON dialect for "the model wants to run a
//! tool". This module is the one place that knows them all and turns each
//! into a [`Call`]; nothing downstream sees a wire format.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Which agent proposed the call: tool names are looked up in that client's
/// catalog (Gemini's `read_file` takes `absolute_path`, toolgate's own
/// `read_file` takes `path`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Client {
    /// toolgate's own tools (`read_file`, `write_file`, `list_dir`,
    /// `run_shell`, `fetch_url`), validated strictly.
    #[default]
    Toolgate,
    /// Claude Code.
    Claude,
    /// Gemini CLI.
    Gemini,
    /// OpenAI Codex CLI.
    Codex,
    /// Qwen Code.
    Qwen,
    /// GitHub Copilot CLI.
    Copilot,
    /// Pi (`pi-coding-agent`).
    Pi,
    /// OpenCode.
    #[serde(rename = "opencode")]
    OpenCode,
    /// xAI's Grok Build.
    Grok,
    /// Cursor's agent.
    Cursor,
    /// A tool of an MCP server.
    Mcp,
}

impl Client {
    /// Every client, toolgate's own first.
    pub const ALL: [Client; 11] = [
        Client::Toolgate,
        Client::Claude,
        Client::Gemini,
        Client::Codex,
        Client::Qwen,
        Client::Copilot,
        Client::Pi,
        Client::OpenCode,
        Client::Grok,
        Client::Cursor,
        Client::Mcp,
    ];

    /// The lowercase name used in JSON and the ledger.
    pub fn as_str(self) -> &'static str {
        match self {
            Client::Toolgate => "toolgate",
            Client::Claude => "claude",
            Client::Gemini => "gemini",
            Client::Codex => "codex",
            Client::Qwen => "qwen",
            Client::Copilot => "copilot",
            Client::Pi => "pi",
            Client::OpenCode => "opencode",
            Client::Grok => "grok",
            Client::Cursor => "cursor",
            Client::Mcp => "mcp",
        }
    }
}

impl fmt::Display for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A word that names no client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown client `{0}`: expected `claude`, `gemini`, `codex`, `qwen`, `copilot`, `pi`, `opencode`, `grok`, `cursor` or `mcp`"
)]
pub struct UnknownClient(pub String);

impl FromStr for Client {
    type Err = UnknownClient;
    fn from_str(s: &str) -> Result<Self, UnknownClient> {
        match s {
            "toolgate" => Ok(Client::Toolgate),
            "claude" => Ok(Client::Claude),
            "gemini" => Ok(Client::Gemini),
            "codex" => Ok(Client::Codex),
            "qwen" => Ok(Client::Qwen),
            "copilot" => Ok(Client::Copilot),
            "pi" => Ok(Client::Pi),
            "opencode" => Ok(Client::OpenCode),
            "grok" => Ok(Client::Grok),
            "cursor" => Ok(Client::Cursor),
            "mcp" => Ok(Client::Mcp),
            other => Err(UnknownClient(other.to_string())),
        }
    }
}

/// One proposed tool call, whatever wire format it arrived in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The call id the host will link the result to.
    pub id: String,
    /// The tool's name as the client spells it.
    pub tool: String,
    /// The tool's arguments; always a JSON object.
    pub input: Map<String, Value>,
    /// Which catalog `tool` is looked up in.
    #[serde(default)]
    pub client: Client,
    /// The directory relative paths resolve against (default: the first root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
}

/// Why a call could not be read. The CLI exits 2 with this message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// The text is not JSON.
    #[error("call is not JSON: {0}")]
    NotJson(String),
    /// The JSON is not an object.
    #[error("call is not a JSON object")]
    NotObject,
    /// No `tool` or `name`.
    #[error("call has no `tool` (or `name`) string")]
    NoTool,
    /// `input` (or `arguments`) is present but not an object.
    #[error("call input is not a JSON object")]
    InputNotObject,
    /// An OpenAI `arguments` string that does not parse.
    #[error("call arguments are not valid JSON: {0}")]
    BadArguments(String),
    /// `client` names no known client.
    #[error(transparent)]
    BadClient(#[from] UnknownClient),
    /// An object repeats a key, or the call names its tool or its input in
    /// two fields at once (`tool` and `name`, `input` and `arguments`):
    /// the program that acts might read the other one.
    #[error("call is ambiguous: {0}")]
    Ambiguous(String),
    /// `id` or `cwd` has the wrong type.
    #[error("call field `{0}` must be a string")]
    BadField(&'static str),
}

impl Call {
    /// A call of toolgate's own tools, with a fresh id.
    pub fn new(tool: impl Into<String>, input: Value) -> Call {
        let input = match input {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        Call {
            id: fresh_id(),
            tool: tool.into(),
            input,
            client: Client::Toolgate,
            cwd: None,
        }
    }

    /// Sets the client whose catalog the tool is looked up in.
    pub fn with_client(mut self, client: Client) -> Call {
        self.client = client;
        self
    }

    /// Reads a call from JSON text in any accepted wire format.
    pub fn parse(text: &str) -> Result<Call, CallError> {
        let value = crate::json::parse(text).map_err(|e| match e {
            crate::json::StrictJsonError::Syntax(e) => CallError::NotJson(e),
            repeated => CallError::Ambiguous(repeated.to_string()),
        })?;
        Call::from_value(&value)
    }

    /// Reads a call from a JSON value in any accepted wire format:
    /// toolgate's (`tool` or `name`, `input`), an Anthropic `tool_use` block
    /// (`name`, `input`), an OpenAI `tool_calls` item (`function.name`,
    /// `function.arguments` as a JSON string), or an MCP `tools/call` params
    /// object (`name`, `arguments` as an object).
    pub fn from_value(value: &Value) -> Result<Call, CallError> {
        let obj = value.as_object().ok_or(CallError::NotObject)?;
        let id = match obj.get("id") {
            None | Some(Value::Null) => fresh_id(),
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            Some(_) => return Err(CallError::BadField("id")),
        };
        let client = match obj.get("client") {
            None | Some(Value::Null) => Client::Toolgate,
            Some(Value::String(s)) => s.parse().map_err(CallError::BadClient)?,
            Some(_) => return Err(CallError::BadField("client")),
        };
        let cwd = match obj.get("cwd") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(PathBuf::from(s)),
            Some(_) => return Err(CallError::BadField("cwd")),
        };

        let (tool, input) = if let Some(function) = obj.get("function") {
            // OpenAI chat-completions `tool_calls[i]`.
            let f = function.as_object().ok_or(CallError::NoTool)?;
            let name = f
                .get("name")
                .and_then(Value::as_str)
                .ok_or(CallError::NoTool)?;
            let input = match f.get("arguments") {
                None | Some(Value::Null) => Map::new(),
                Some(Value::String(s)) if s.trim().is_empty() => Map::new(),
                Some(Value::String(s)) => match crate::json::parse(s) {
                    Ok(Value::Object(m)) => m,
                    Ok(_) => return Err(CallError::InputNotObject),
                    Err(e @ crate::json::StrictJsonError::RepeatedKey { .. }) => {
                        return Err(CallError::Ambiguous(format!("`function.arguments`: {e}")));
                    }
                    Err(e) => return Err(CallError::BadArguments(e.to_string())),
                },
                Some(Value::Object(m)) => m.clone(),
                Some(_) => return Err(CallError::InputNotObject),
            };
            (name.to_string(), input)
        } else {
            for (a, b) in [("tool", "name"), ("input", "arguments")] {
                if obj.contains_key(a) && obj.contains_key(b) {
                    return Err(CallError::Ambiguous(format!(
                        "it has both `{a}` and `{b}`, which mean the same"
                    )));
                }
            }
            let name = obj
                .get("tool")
                .or_else(|| obj.get("name"))
                .and_then(Value::as_str)
                .ok_or(CallError::NoTool)?;
            let input = match obj.get("input").or_else(|| obj.get("arguments")) {
                None | Some(Value::Null) => Map::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(_) => return Err(CallError::InputNotObject),
            };
            (name.to_string(), input)
        };
        if tool.is_empty() {
            return Err(CallError::NoTool);
        }
        Ok(Call {
            id,
            tool,
            input,
            client,
            cwd,
        })
    }

    /// The canonical JSON of the call (keys sorted at every level, no
    /// whitespace): what the digest is computed over, so that two calls
    /// with the same meaning have the same digest whatever their key order.
    pub fn canonical_json(&self) -> String {
        // The object {client, cwd, id, input, tool}, keys in order, written
        // without building it.
        let mut out = Vec::with_capacity(128 + self.input.len() * 32);
        out.extend_from_slice(b"{\"client\":");
        push_str(&mut out, self.client.as_str());
        if let Some(cwd) = &self.cwd {
            out.extend_from_slice(b",\"cwd\":");
            push_str(&mut out, &cwd.to_string_lossy());
        }
        out.extend_from_slice(b",\"id\":");
        push_str(&mut out, &self.id);
        out.extend_from_slice(b",\"input\":");
        push_object(&mut out, &self.input);
        out.extend_from_slice(b",\"tool\":");
        push_str(&mut out, &self.tool);
        out.push(b'}');
        into_string(out)
    }

    /// The hex SHA-256 of [`Call::canonical_json`]. An approval is bound to
    /// this value: a call with any other tool, input, id or directory has
    /// another digest.
    pub fn digest(&self) -> String {
        hex::encode(Sha256::digest(self.canonical_json().as_bytes()))
    }
}

/// Serialises a JSON value with object keys sorted at every level and no
/// insignificant whitespace.
pub fn canonical_json(value: &Value) -> String {
    let mut out = Vec::new();
    push_canonical(&mut out, value);
    into_string(out)
}

/// [`canonical_json`] of an object.
pub fn canonical_object(map: &Map<String, Value>) -> String {
    let mut out = Vec::new();
    push_object(&mut out, map);
    into_string(out)
}

fn push_canonical(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Object(map) => push_object(out, map),
        Value::Array(items) => {
            out.push(b'[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                push_canonical(out, v);
            }
            out.push(b']');
        }
        // Scalars as serde_json writes them.
        other => {
            let _ = serde_json::to_writer(&mut *out, other);
        }
    }
}

fn push_object(out: &mut Vec<u8>, map: &Map<String, Value>) {
    // Sorted here whatever order the map keeps.
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.push(b'{');
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_str(out, k);
        out.push(b':');
        push_canonical(out, v);
    }
    out.push(b'}');
}

fn push_str(out: &mut Vec<u8>, s: &str) {
    // Writing a string to a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// serde_json writes UTF-8 only.
fn into_string(out: Vec<u8>) -> String {
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A fresh id, `PREFIX-TIME-PID-N`: unique across the processes of a
/// machine and the calls of a process. toolgate's one generator of call
/// and session ids (approval ids are the store's short typeable ones).
pub fn new_id(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    format!("{prefix}-{:x}-{:x}-{n}", nanos, std::process::id())
}

fn fresh_id() -> String {
    new_id("call")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// What the canonical form was first defined as: the value built, then
    /// written with keys sorted. Digests bind approvals, so the faster
    /// writer must give the same bytes.
    fn reference(value: &Value) -> String {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let parts: Vec<String> = keys
                    .iter()
                    .map(|k| format!("{}:{}", Value::String((*k).clone()), reference(&map[*k])))
                    .collect();
                format!("{{{}}}", parts.join(","))
            }
            Value::Array(items) => {
                let parts: Vec<String> = items.iter().map(reference).collect();
                format!("[{}]", parts.join(","))
            }
            other => other.to_string(),
        }
    }

    #[test]
    fn the_canonical_form_is_the_sorted_compact_json_of_the_call() {
        let input = json!({
            "z": [1, -2.5, 1e300, true, null, {"b": "\u{1}\"\\\n", "a": []}],
            "path": "ü/✓ \t x",
            "": {},
            "A": 0
        });
        let Value::Object(input) = input else {
            panic!("an object")
        };
        for cwd in [None, Some(PathBuf::from("/w d/ü"))] {
            let call = Call {
                id: "c\"1".into(),
                tool: "mcp__s__t".into(),
                input: input.clone(),
                client: Client::Mcp,
                cwd: cwd.clone(),
            };
            let mut obj = Map::new();
            obj.insert("client".into(), Value::String(call.client.as_str().into()));
            if let Some(cwd) = &cwd {
                obj.insert("cwd".into(), Value::String(cwd.to_string_lossy().into()));
            }
            obj.insert("id".into(), Value::String(call.id.clone()));
            obj.insert("input".into(), Value::Object(input.clone()));
            obj.insert("tool".into(), Value::String(call.tool.clone()));
            let want = reference(&Value::Object(obj));
            assert_eq!(call.canonical_json(), want);
        }
        assert_eq!(
            canonical_object(&input),
            reference(&Value::Object(input.clone()))
        );
        assert_eq!(canonical_json(&json!([3, "x"])), "[3,\"x\"]");
    }

    #[test]
    fn toolgate_shape() {
        let c = Call::parse(r#"{"id":"c1","tool":"read_file","input":{"path":"a"}}"#).unwrap();
        assert_eq!(c.id, "c1");
        assert_eq!(c.tool, "read_file");
        assert_eq!(c.input["path"], "a");
        assert_eq!(c.client, Client::Toolgate);
    }

    #[test]
    fn a_call_that_could_be_read_two_ways_is_refused() {
        for text in [
            r#"{"tool":"Read","input":{"file_path":"a"},"input":{"file_path":".env"}}"#,
            r#"{"tool":"Read","input":{"file_path":"a","file_path":".env"}}"#,
            r#"{"tool":"Read","tool":"Bash","input":{}}"#,
            r#"{"tool":"Read","name":"Bash","input":{}}"#,
            r#"{"tool":"Read","input":{},"arguments":{"file_path":".env"}}"#,
            r#"{"function":{"name":"Read","arguments":"{\"p\":1,\"p\":2}"}}"#,
        ] {
            assert!(
                matches!(Call::parse(text), Err(CallError::Ambiguous(_))),
                "{text}: {:?}",
                Call::parse(text)
            );
        }
    }

    #[test]
    fn anthropic_tool_use_block() {
        let v = json!({"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}});
        let c = Call::from_value(&v).unwrap();
        assert_eq!((c.id.as_str(), c.tool.as_str()), ("toolu_1", "Bash"));
    }

    #[test]
    fn openai_tool_call_item() {
        let v = json!({"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"x\"}"}});
        let c = Call::from_value(&v).unwrap();
        assert_eq!(c.input["path"], "x");
        let bad = json!({"id":"call_2","type":"function","function":{"name":"read_file","arguments":"{"}});
        assert!(matches!(
            Call::from_value(&bad),
            Err(CallError::BadArguments(_))
        ));
    }

    #[test]
    fn rejects_bad_shapes() {
        assert!(matches!(Call::parse("nope"), Err(CallError::NotJson(_))));
        assert_eq!(Call::parse("[1]"), Err(CallError::NotObject));
        assert_eq!(Call::parse(r#"{"input":{}}"#), Err(CallError::NoTool));
        assert_eq!(
            Call::parse(r#"{"tool":"x","input":[1]}"#),
            Err(CallError::InputNotObject)
        );
    }

    #[test]
    fn digest_ignores_key_order_and_binds_input() {
        let a =
            Call::parse(r#"{"id":"1","tool":"t","input":{"a":1,"b":[{"y":1,"x":2}]}}"#).unwrap();
        let b =
            Call::parse(r#"{"input":{"b":[{"x":2,"y":1}],"a":1},"tool":"t","id":"1"}"#).unwrap();
        assert_eq!(a.digest(), b.digest());
        let c =
            Call::parse(r#"{"id":"1","tool":"t","input":{"a":2,"b":[{"y":1,"x":2}]}}"#).unwrap();
        assert_ne!(a.digest(), c.digest());
        assert_eq!(a.digest().len(), 64);
    }
}

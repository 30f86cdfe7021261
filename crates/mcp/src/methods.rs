//! The MCP methods the gateway knows exactly, and what it does with every
//! request that is not a tool call or a tool listing.
//!
//! A request is relayed as it came only when the gateway knows its method
//! and rmcp has read its parameters into the protocol's own type (what is
//! forwarded is then written again from that type). The rest:
//!
//! - `resources/read` (and `resources/directory/read`) go through the gate
//!   as what they do: a `file:` URI is a read of its path (toolgate's own
//!   `read_file`, so the policy's `Read` rules decide), an `http:`/`https:`
//!   URI a fetch of it (`fetch_url`, the `WebFetch` rules), any other URI
//!   the tool-like name `mcp__SRV__resources/read` with `{"uri": ..}`.
//! - `prompts/get` and `completion/complete` go through the gate as
//!   `mcp__SRV__prompts/get` and `mcp__SRV__completion/complete` with their
//!   parameters as input.
//! - a method the gateway does not know exactly goes through the gate as
//!   `mcp__SRV__METHOD` with its parameters as input and nobody to ask:
//!   only a policy rule that allows that name lets it through; otherwise
//!   the sender gets -32601.
//! - a method rmcp knows whose parameters do not fit its type (a wrong
//!   type, a missing field; rmcp then hands it over as a custom request)
//!   is refused with -32602 and recorded, never forwarded: the server's
//!   parser might read it otherwise.
//!
//! Names with `/` are reached in rules by glob (`mcp__srv__prompts?get`,
//! `mcp__srv__*`), since a rule's tool name has no `/`.

use rmcp::model::{ClientRequest, ServerRequest};
use serde_json::{Map, Value};
use toolgate_policy::{Call, Client};

use crate::names;
use crate::relay::call_id;

/// Every request method rmcp reads into a type of its own, both ways. One
/// that reaches the gateway as a custom request had parameters that did
/// not fit that type.
pub const TYPED_REQUESTS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/directory/read",
    "subscriptions/listen",
    "resources/subscribe",
    "resources/unsubscribe",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
    "sampling/createMessage",
    "roots/list",
    "elicitation/create",
];

/// Notifications of the protocol that rmcp hands over as custom ones, and
/// which the gateway relays from the server to the client.
pub const SERVER_CUSTOM_NOTIFICATIONS: &[&str] = &["notifications/elicitation/complete"];

/// What the gateway does with one request.
#[derive(Debug)]
pub enum Plan {
    /// Relay it as rmcp read it.
    Relay,
    /// Pass `call` through the gate first.
    Decide {
        /// The call the gate decides.
        call: Call,
        /// A person may let it through on ask (else only a rule that
        /// allows it does).
        ask: bool,
        /// The method is one the gateway knows (a refusal of one it does
        /// not is -32601).
        known: bool,
    },
    /// Refuse it and record it: its parameters do not fit its method.
    Unfit {
        /// Its method.
        method: String,
        /// The name its ledger row is kept under.
        tool: String,
        /// Its parameters as they came.
        raw: String,
    },
}

/// The plan for a request of the client to the server of `server`.
pub fn client_request(server: &str, request: &ClientRequest) -> Plan {
    use ClientRequest as R;
    match request {
        R::ReadResourceRequest(r) => resource(server, "resources/read", &r.params.uri),
        R::ReadResourceDirectoryRequest(r) => {
            resource(server, "resources/directory/read", &r.params.uri)
        }
        R::GetPromptRequest(r) => by_name(server, "prompts/get", to_object(&r.params), true),
        R::CompleteRequest(r) => by_name(server, "completion/complete", to_object(&r.params), true),
        R::PingRequest(_)
        | R::InitializeRequest(_)
        | R::DiscoverRequest(_)
        | R::SetLevelRequest(_)
        | R::ListPromptsRequest(_)
        | R::ListResourcesRequest(_)
        | R::ListResourceTemplatesRequest(_)
        | R::SubscriptionsListenRequest(_)
        | R::SubscribeRequest(_)
        | R::UnsubscribeRequest(_)
        | R::ListToolsRequest(_)
        | R::CallToolRequest(_)
        | R::GetTaskRequest(_)
        | R::CancelTaskRequest(_) => Plan::Relay,
        R::CustomRequest(r) => custom(server, &r.method, r.params.as_ref()),
        // Known to rmcp, but they hand a task input or a skill's text on:
        // decided by name like an unknown method.
        other => {
            let method = other.method().to_string();
            let params = serde_json::to_value(other)
                .ok()
                .and_then(|v| v.get("params").cloned());
            unknown(server, &method, params.as_ref())
        }
    }
}

/// The plan for a request of the server to the client.
pub fn server_request(server: &str, request: &ServerRequest) -> Plan {
    use ServerRequest as R;
    match request {
        R::PingRequest(_)
        | R::CreateMessageRequest(_)
        | R::ListRootsRequest(_)
        | R::ElicitRequest(_) => Plan::Relay,
        R::CustomRequest(r) => custom(server, &r.method, r.params.as_ref()),
        // A kind rmcp adds later: not known here.
        _ => unknown(server, "(unknown)", None),
    }
}

/// A custom request: a method rmcp knows whose parameters did not fit, or
/// one nobody here knows.
fn custom(server: &str, method: &str, params: Option<&Value>) -> Plan {
    if TYPED_REQUESTS.contains(&method) {
        return Plan::Unfit {
            method: method.to_string(),
            tool: names::qualified(server, method),
            raw: params.map(Value::to_string).unwrap_or_default(),
        };
    }
    unknown(server, method, params)
}

fn unknown(server: &str, method: &str, params: Option<&Value>) -> Plan {
    let input = match params {
        Some(Value::Object(m)) => m.clone(),
        Some(other) => Map::from_iter([("params".to_string(), other.clone())]),
        None => Map::new(),
    };
    match by_name(server, method, input, false) {
        Plan::Decide { call, ask, .. } => Plan::Decide {
            call,
            ask,
            known: false,
        },
        plan => plan,
    }
}

fn by_name(server: &str, method: &str, input: Map<String, Value>, ask: bool) -> Plan {
    let tool = names::qualified(server, method);
    Plan::Decide {
        call: Call {
            id: call_id(&tool, &input),
            tool,
            input,
            client: Client::Mcp,
            cwd: None,
        },
        ask,
        known: true,
    }
}

fn to_object<T: serde::Serialize>(params: &T) -> Map<String, Value> {
    match serde_json::to_value(params) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// A resource read as the gate decides it: by what its URI names.
fn resource(server: &str, method: &str, uri: &str) -> Plan {
    // URL parsers of the WHATWG standard (Node's `new URL`, and Python's
    // `urlsplit` for its leading blanks) drop control characters and
    // spaces at the ends and tabs and newlines anywhere: ` file:///x` and
    // `fi\tle:///x` are a file to the server. Such a URI is refused rather
    // than read two ways.
    let trimmed = uri.trim_matches(|c: char| c.is_ascii_control() || c == ' ');
    if trimmed.len() != uri.len() || uri.contains(['\t', '\n', '\r']) {
        return Plan::Unfit {
            method: method.to_string(),
            tool: names::qualified(server, method),
            raw: uri.to_string(),
        };
    }
    let scheme = uri.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
    let (tool, key, value) = match scheme.as_deref() {
        Some("file") => match file_path(uri) {
            Some(path) => ("read_file", "path", path),
            None => {
                return Plan::Unfit {
                    method: method.to_string(),
                    tool: names::qualified(server, method),
                    raw: uri.to_string(),
                };
            }
        },
        Some("http" | "https") => ("fetch_url", "url", uri.to_string()),
        _ => {
            let input = Map::from_iter([("uri".to_string(), Value::from(uri))]);
            return by_name(server, method, input, true);
        }
    };
    let input = Map::from_iter([(key.to_string(), Value::from(value))]);
    Plan::Decide {
        call: Call {
            id: call_id(tool, &input),
            tool: tool.to_string(),
            input,
            client: Client::Toolgate,
            cwd: None,
        },
        ask: true,
        known: true,
    }
}

/// The local path a `file:` URI names: `file:///p`, `file://localhost/p`
/// or `file:/p`, percent-decoded. `None` (refused) for another host, a
/// query or fragment, a relative path, a backslash (a `/` to WHATWG URL
/// parsers: `file:///w/sub\..\.env` is `/w/.env` to Node), or a path
/// that does not decode to text without NUL: what the server would open
/// cannot be told.
pub fn file_path(uri: &str) -> Option<String> {
    let rest = match uri.get(..5) {
        Some(p) if p.eq_ignore_ascii_case("file:") => &uri[5..],
        _ => return None,
    };
    let path = match rest.strip_prefix("//") {
        Some(authority_and_path) => {
            let slash = authority_and_path.find('/')?;
            let host = &authority_and_path[..slash];
            if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
                return None;
            }
            &authority_and_path[slash..]
        }
        None => rest,
    };
    if !path.starts_with('/') || path.contains(['?', '#', '\\']) {
        return None;
    }
    let decoded = percent_decode(path)?;
    (!decoded.contains('\0')).then_some(decoded)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s
                .get(i + 1..i + 3)
                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_name_local_paths_or_nothing() {
        assert_eq!(
            file_path("file:///etc/passwd").as_deref(),
            Some("/etc/passwd")
        );
        assert_eq!(file_path("FILE://localhost/a%20b").as_deref(), Some("/a b"));
        assert_eq!(file_path("file:/x/y").as_deref(), Some("/x/y"));
        for refused in [
            "file://evil.example/etc/passwd",
            "file:///etc/passwd?x",
            "file:///a%2",
            "file:///a%00b",
            "file:///a%ff",
            "file:rel/path",
            "fil",
            "file:///w/sub\\..\\.env",
            "file://localhost\\w\\.env",
        ] {
            assert_eq!(file_path(refused), None, "{refused}");
        }
    }

    #[test]
    fn a_resource_read_is_decided_as_what_its_uri_names() {
        let call = |uri: &str| match resource("fs", "resources/read", uri) {
            Plan::Decide { call, ask, known } => {
                assert!(ask && known);
                (call.tool, Value::Object(call.input), call.client)
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(
            call("file:///w/a.txt"),
            (
                "read_file".into(),
                serde_json::json!({"path": "/w/a.txt"}),
                Client::Toolgate
            )
        );
        assert_eq!(
            call("https://example.com/x"),
            (
                "fetch_url".into(),
                serde_json::json!({"url": "https://example.com/x"}),
                Client::Toolgate
            )
        );
        assert_eq!(
            call("test://static/1"),
            (
                "mcp__fs__resources/read".into(),
                serde_json::json!({"uri": "test://static/1"}),
                Client::Mcp
            )
        );
        assert!(matches!(
            resource("fs", "resources/read", "file://host/x"),
            Plan::Unfit { .. }
        ));
        // Read otherwise by WHATWG URL parsers: refused, not decided by name.
        for uri in [
            " file:///w/.env",
            "file:///w/.env\n",
            "fi\tle:///w/.env",
            "\u{1}file:///w/.env",
            "file:///w/.e\nnv",
            "file:///w/sub\\..\\.env",
        ] {
            assert!(
                matches!(resource("fs", "resources/read", uri), Plan::Unfit { .. }),
                "{uri:?}"
            );
        }
    }

    #[test]
    fn a_known_method_whose_parameters_did_not_fit_is_refused_and_others_are_decided_by_name() {
        assert!(matches!(
            custom("s", "tools/call", Some(&serde_json::json!({"name": 5}))),
            Plan::Unfit { .. }
        ));
        match custom("s", "x/do", Some(&serde_json::json!([1]))) {
            Plan::Decide { call, ask, known } => {
                assert!(!ask && !known);
                assert_eq!(call.tool, "mcp__s__x/do");
                assert_eq!(
                    Value::Object(call.input),
                    serde_json::json!({"params": [1]})
                );
            }
            other => panic!("{other:?}"),
        }
    }
}

//! Tool pinning: a tool's definition (name, description, input schema) as
//! canonical JSON and its SHA-256, checked against the pin in the state
//! store. What cannot be checked is not trusted.

use std::collections::{HashMap, HashSet};

use rmcp::model::Tool;
use sha2::{Digest, Sha256};
use toolgate_store::{PendingNew, PinCheck, Store};

/// What the gateway knows of one tool's definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// Pinned (now or before) and unchanged.
    Trusted,
    /// Differs from its pin: calls are refused until a person accepts it.
    Changed {
        /// The pinned digest.
        pinned: String,
        /// The digest now shown.
        seen: String,
    },
    /// Appeared after the session's first listing (a tool the server did
    /// not show at first is a change of its definitions): calls are
    /// refused until a person accepts it.
    Added {
        /// The digest of its definition.
        seen: String,
    },
    /// The pin store could not be read or written: fail closed.
    Unknown(String),
}

impl Trust {
    /// Whether calls to the tool may go to the gate at all.
    pub fn trusted(&self) -> bool {
        matches!(self, Trust::Trusted)
    }

    /// Why a call is refused, for the model; `None` when trusted.
    pub fn refusal(&self, server: &str, tool: &str) -> Option<String> {
        match self {
            Trust::Trusted => None,
            Trust::Changed { pinned, seen } => Some(format!(
                "the definition of the tool `{tool}` of the server `{server}` changed since it \
                 was pinned (pinned {}, now {}); it is not trusted until a person runs \
                 `toolgate mcp pins accept {server} {tool}`",
                short(pinned),
                short(seen)
            )),
            Trust::Added { seen } => Some(format!(
                "the tool `{tool}` of the server `{server}` was not in its first tool listing \
                 and appeared later (definition {}); it is not trusted until a person runs \
                 `toolgate mcp pins accept {server} {tool}`",
                short(seen)
            )),
            Trust::Unknown(e) => Some(format!(
                "the pinned definitions of the server `{server}` cannot be read ({e}), so no \
                 tool of it is trusted"
            )),
        }
    }
}

fn short(d: &str) -> &str {
    &d[..d.len().min(12)]
}

/// The pinned part of a definition as canonical JSON, and its hex SHA-256.
pub fn definition(tool: &Tool) -> (String, String) {
    let mut obj = serde_json::Map::new();
    obj.insert("name".into(), tool.name.to_string().into());
    obj.insert(
        "description".into(),
        tool.description
            .as_ref()
            .map(|d| serde_json::Value::String(d.to_string()))
            .unwrap_or(serde_json::Value::Null),
    );
    obj.insert(
        "inputSchema".into(),
        serde_json::Value::Object((*tool.input_schema).clone()),
    );
    let json = toolgate_policy::canonical_json(&serde_json::Value::Object(obj));
    let hex = hex::encode(Sha256::digest(json.as_bytes()));
    (json, hex)
}

/// The pin kept for a tool that appeared after a session's first listing
/// and has not been accepted: a definition no tool has, so that the one it
/// shows is a change waiting for a person, in this session and the next.
pub fn absent(tool: &str) -> (String, String) {
    let mut obj = serde_json::Map::new();
    obj.insert("name".into(), tool.into());
    obj.insert(
        "absent".into(),
        "not in the server's first tool listing of a session; it appeared later".into(),
    );
    let json = toolgate_policy::canonical_json(&serde_json::Value::Object(obj));
    let hex = hex::encode(Sha256::digest(json.as_bytes()));
    (json, hex)
}

/// Checks every tool against its pin (pinning first sights) in `store`,
/// the configured one every host uses; a changed definition is also queued as an approval (once per
/// definition), so that `toolgate approvals approve ID` can trust it.
/// A tool named in `late` (first seen after the session's first listing)
/// with no pin yet is not pinned as it is: its pin says it was absent, and
/// its definition waits to be accepted like a changed one.
/// Blocking: call it off the async threads.
pub fn check_all(
    store: Result<Store, toolgate_gate::HostError>,
    server: &str,
    session: &str,
    tools: &[Tool],
    late: &HashSet<String>,
) -> HashMap<String, Trust> {
    let store = match store {
        Ok(s) => s,
        Err(why) => {
            return tools
                .iter()
                .map(|t| (t.name.to_string(), Trust::Unknown(why.to_string())))
                .collect();
        }
    };
    tools
        .iter()
        .map(|t| {
            let (json, digest) = definition(t);
            let (absent_json, absent_digest) = absent(&t.name);
            if late.contains(t.name.as_ref()) {
                match store.pin(server, &t.name) {
                    Ok(Some(_)) => {}
                    Ok(None) => {
                        if let Err(e) =
                            store.check_pin(server, &t.name, &absent_digest, &absent_json)
                        {
                            return (t.name.to_string(), Trust::Unknown(e.to_string()));
                        }
                    }
                    Err(e) => return (t.name.to_string(), Trust::Unknown(e.to_string())),
                }
            }
            let trust = match store.check_pin(server, &t.name, &digest, &json) {
                Ok(PinCheck::Pinned | PinCheck::Same) => Trust::Trusted,
                Ok(PinCheck::Changed { pinned }) => {
                    let added = pinned == absent_digest;
                    // The pin stays refused whether or not the approval can be
                    // queued; `pins accept` works either way.
                    let _ = queue_change(&store, server, session, &t.name, &digest, &json, added);
                    if added {
                        Trust::Added { seen: digest }
                    } else {
                        Trust::Changed {
                            pinned,
                            seen: digest,
                        }
                    }
                }
                Err(e) => Trust::Unknown(e.to_string()),
            };
            (t.name.to_string(), trust)
        })
        .collect()
}

/// Queues the approval that trusts a changed definition, unless one for the
/// same definition is already there.
fn queue_change(
    store: &Store,
    server: &str,
    session: &str,
    tool: &str,
    digest: &str,
    definition: &str,
    added: bool,
) -> Result<(), toolgate_store::Error> {
    let qualified = crate::names::qualified(server, tool);
    let rule = toolgate_policy::rule_ids::HOST_PIN_CHANGED;
    let known = store
        .list_approvals(None)?
        .into_iter()
        .any(|p| p.rule.as_deref() == Some(rule) && p.tool == qualified && p.digest == digest);
    if known {
        return Ok(());
    }
    store.create_pending(&PendingNew {
        session: session.to_string(),
        client: Some("mcp".into()),
        server: Some(server.to_string()),
        call_id: format!("pin-{}", &digest[..digest.len().min(12)]),
        tool: qualified,
        snapshot_json: definition.to_string(),
        digest: digest.to_string(),
        reason: if added {
            format!(
                "the tool `{tool}` of the MCP server `{server}` appeared after its first tool \
                 listing; approving trusts its definition"
            )
        } else {
            format!(
                "the definition of the tool `{tool}` of the MCP server `{server}` changed since \
                 it was pinned; approving trusts the new definition"
            )
        },
        rule: Some(rule.to_string()),
        remember_allowed: false,
    })?;
    Ok(())
}

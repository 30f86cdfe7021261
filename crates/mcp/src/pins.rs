//! Tool pinning: a tool's whole definition as the client receives it, as
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
    /// The listing names the tool more than once (on one page or across
    /// the pages of one listing), and that set of definitions is not the
    /// pin: calls are refused until a person accepts it (the set as a
    /// whole, see [`repeated`]).
    Repeated {
        /// How many definitions the listing gives it.
        count: usize,
        /// The digest of the set of definitions.
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
            Trust::Repeated { count, seen } => Some(format!(
                "the server `{server}` lists the tool `{tool}` {count} times, and a client may \
                 use any of those definitions (set {}); it is not trusted until a person runs \
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

/// The pinned definition as canonical JSON, and its hex SHA-256: the
/// whole tool as the client receives it (name, title, description, input
/// and output schemas, annotations, icons, `_meta`), since any of these
/// reaches the model or steers the client (a client may skip its own
/// confirmation for a tool marked `readOnlyHint`).
pub fn definition(tool: &Tool) -> (String, String) {
    digest_of(&serde_json::json!({
        "name": tool.name.to_string(),
        "version": FORM,
        "tool": definition_value(tool),
    }))
}

/// The form of the pins [`definition`] and [`repeated`] make, inside what
/// they digest, so that no pin of this form can equal a legacy one (see
/// [`legacy_value`]).
const FORM: u32 = 2;

fn digest_of(value: &serde_json::Value) -> (String, String) {
    let json = toolgate_policy::canonical_json(value);
    let hex = hex::encode(Sha256::digest(json.as_bytes()));
    (json, hex)
}

fn definition_value(tool: &Tool) -> serde_json::Value {
    // A tool that cannot be written out as JSON matches no pin: it is a
    // change, refused until a person looks.
    serde_json::to_value(tool).unwrap_or_else(
        |e| serde_json::json!({"name": tool.name.to_string(), "unserialisable": e.to_string()}),
    )
}

/// The form pins had before they held the whole definition: name,
/// description and input schema. A pin of that form whose three fields
/// still match is upgraded to the whole definition as first seen (the
/// fields it did not hold are taken on first sight, as a first listing's
/// are), instead of every tool of every server turning untrusted at once.
fn legacy_value(tool: &Tool) -> serde_json::Value {
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
    serde_json::Value::Object(obj)
}

/// The legacy digest of one tool or of a repeated set (see [`legacy_value`]).
fn legacy_digest(entries: &[&Tool]) -> String {
    let value = match entries {
        [one] => legacy_value(one),
        _ => repeated_value(entries, legacy_value),
    };
    digest_of(&value).1
}

/// The definition pinned for a tool a listing names more than once: every
/// definition it gives, in the listing's order, as one. Which of them a
/// client keeps is the client's choice (a map keyed by name keeps the
/// last, a list shows all), so no single one of them can stand for the
/// tool: only the set a person has accepted is trusted, and a set that
/// differs from the pin (another order, one entry changed, a pinned
/// single definition now repeated) is a change of every entry.
pub fn repeated(entries: &[&Tool]) -> (String, String) {
    let mut value = repeated_value(entries, definition_value);
    if let Some(obj) = value.as_object_mut() {
        obj.insert("version".into(), FORM.into());
    }
    digest_of(&value)
}

fn repeated_value(entries: &[&Tool], each: fn(&Tool) -> serde_json::Value) -> serde_json::Value {
    let mut obj = serde_json::Map::new();
    let name = entries
        .first()
        .map(|t| t.name.to_string())
        .unwrap_or_default();
    obj.insert("name".into(), name.into());
    obj.insert("repeated".into(), entries.iter().map(|t| each(t)).collect());
    serde_json::Value::Object(obj)
}

/// The pin kept for a tool first seen named more than once in a listing:
/// unlike a single definition, such a set is not trusted on first sight
/// (it is what a server would show to slip a second definition in beside
/// one it expects to be pinned), so it waits for a person.
fn repeated_first_sight(tool: &str) -> (String, String) {
    let mut obj = serde_json::Map::new();
    obj.insert("name".into(), tool.into());
    obj.insert(
        "repeated".into(),
        "first seen named more than once in one tool listing; not trusted on first sight".into(),
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
/// A tool `tools` names more than once is checked as the set of its
/// definitions ([`repeated`]), never entry by entry: trust is kept by
/// name, so one entry's trust must not stand for another's.
/// Blocking: call it off the async threads.
pub fn check_all(
    store: Result<Store, toolgate_gate::HostError>,
    server: &str,
    session: &str,
    tools: &[Tool],
    late: &HashSet<String>,
) -> HashMap<String, Trust> {
    // By name, in the order of first appearance, each with its entries.
    let mut order: Vec<&str> = Vec::new();
    let mut by_name: HashMap<&str, Vec<&Tool>> = HashMap::new();
    for t in tools {
        let entries = by_name.entry(t.name.as_ref()).or_default();
        if entries.is_empty() {
            order.push(t.name.as_ref());
        }
        entries.push(t);
    }
    let store = match store {
        Ok(s) => s,
        Err(why) => {
            return order
                .iter()
                .map(|n| (n.to_string(), Trust::Unknown(why.to_string())))
                .collect();
        }
    };
    order
        .iter()
        .map(|name| {
            let entries = by_name.get(name).map(Vec::as_slice).unwrap_or_default();
            (
                name.to_string(),
                check_one(&store, server, session, name, entries, late),
            )
        })
        .collect()
}

/// Checks one tool, given by every entry of its name in the listing.
fn check_one(
    store: &Store,
    server: &str,
    session: &str,
    name: &str,
    entries: &[&Tool],
    late: &HashSet<String>,
) -> Trust {
    let (json, digest) = match entries {
        [one] => definition(one),
        _ => repeated(entries),
    };
    let (absent_json, absent_digest) = absent(name);
    let placeholder = if late.contains(name) {
        Some((absent_json, absent_digest.clone()))
    } else if entries.len() > 1 {
        Some(repeated_first_sight(name))
    } else {
        None
    };
    if let Some((placeholder_json, placeholder_digest)) = placeholder {
        match store.pin(server, name) {
            Ok(Some(_)) => {}
            Ok(None) => {
                if let Err(e) =
                    store.check_pin(server, name, &placeholder_digest, &placeholder_json)
                {
                    return Trust::Unknown(e.to_string());
                }
            }
            Err(e) => return Trust::Unknown(e.to_string()),
        }
    }
    match store.check_pin(server, name, &digest, &json) {
        Ok(PinCheck::Pinned | PinCheck::Same) => Trust::Trusted,
        Ok(PinCheck::Changed { pinned }) if pinned == legacy_digest(entries) => {
            // A pin of the earlier form whose fields all match: it becomes
            // this definition (the change just recorded, accepted by its
            // digest so that nothing else is).
            match store.accept_pin(server, name, Some(&digest)) {
                Ok(Some(_)) => Trust::Trusted,
                Ok(None) => Trust::Unknown("the pin could not be upgraded".into()),
                Err(e) => Trust::Unknown(e.to_string()),
            }
        }
        Ok(PinCheck::Changed { pinned }) => {
            let added = pinned == absent_digest;
            // The pin stays refused whether or not the approval can be
            // queued; `pins accept` works either way.
            let why = if entries.len() > 1 {
                Why::Repeated
            } else if added {
                Why::Added
            } else {
                Why::Changed
            };
            let _ = queue_change(store, server, session, name, &digest, &json, why);
            if entries.len() > 1 {
                Trust::Repeated {
                    count: entries.len(),
                    seen: digest,
                }
            } else if added {
                Trust::Added { seen: digest }
            } else {
                Trust::Changed {
                    pinned,
                    seen: digest,
                }
            }
        }
        Err(e) => Trust::Unknown(e.to_string()),
    }
}

/// Why a definition waits for a person, in its approval's reason.
#[derive(Clone, Copy)]
enum Why {
    Changed,
    Added,
    Repeated,
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
    why: Why,
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
        reason: match why {
            Why::Added => format!(
                "the tool `{tool}` of the MCP server `{server}` appeared after its first tool \
                 listing; approving trusts its definition"
            ),
            Why::Changed => format!(
                "the definition of the tool `{tool}` of the MCP server `{server}` changed since \
                 it was pinned; approving trusts the new definition"
            ),
            Why::Repeated => format!(
                "the MCP server `{server}` lists the tool `{tool}` more than once; approving \
                 trusts that set of definitions"
            ),
        },
        rule: Some(rule.to_string()),
        remember_allowed: false,
    })?;
    Ok(())
}

//! A line that is JSON but not strict JSON (an object repeats a key), read
//! as far as its refusal needs.
//!
//! Python's and JavaScript's JSON parsers keep the last of a repeated key,
//! serde keeps the last in a map and refuses it in a struct, so a message
//! with a repeated key can mean one call to the gate and another to the
//! server. Every line is checked strictly (`toolgate_policy::json::check`,
//! in `framing.rs`); one that fails is never passed on. What is read here
//! of it, leniently and only at the top level (and in `params` for a
//! call's tool name), is what its refusal needs: the id to answer under
//! when it is given once, whether it is a request (answered), a
//! notification (dropped) or a response (replaced by an error, so the
//! request it answers does not wait forever), and a name for its ledger
//! row.

use std::borrow::Cow;
use std::fmt;

use serde::Deserializer;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

/// The most of a refused line the ledger keeps (a line may be megabytes).
const RAW_KEPT: usize = 64 * 1024;

/// What kind of message a refused line was meant to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// It names a method and carries an id: it expects an answer.
    Request,
    /// It names a method and no id.
    Notification,
    /// It names no method and carries an id, a result or an error.
    Response,
    /// Not an object, or an object with none of these.
    Other,
}

/// A key of the top-level object: absent, given once, or given again.
#[derive(Default)]
enum Field<'a> {
    #[default]
    Absent,
    Once(&'a RawValue),
    Repeated,
}

impl<'a> Field<'a> {
    fn add(&mut self, v: &'a RawValue) {
        *self = match self {
            Field::Absent => Field::Once(v),
            _ => Field::Repeated,
        };
    }

    fn present(&self) -> bool {
        !matches!(self, Field::Absent)
    }

    fn once(&self) -> Option<&'a RawValue> {
        match self {
            Field::Once(v) => Some(v),
            _ => None,
        }
    }
}

/// The keys of one object that a refusal reads.
#[derive(Default)]
struct Keys<'a> {
    id: Field<'a>,
    method: Field<'a>,
    params: Field<'a>,
    name: Field<'a>,
    answer: bool,
}

impl<'de> serde::Deserialize<'de> for Keys<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Keys<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys<'de>, A::Error> {
                let mut k = Keys::default();
                // Keys are unescaped (`"i\u0064"` is `id`), as the peer's
                // parser reads them.
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match key.as_ref() {
                        "id" => k.id.add(map.next_value()?),
                        "method" => k.method.add(map.next_value()?),
                        "params" => k.params.add(map.next_value()?),
                        "name" => k.name.add(map.next_value()?),
                        "result" | "error" => {
                            k.answer = true;
                            map.next_value::<IgnoredAny>()?;
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(k)
            }
        }
        d.deserialize_map(V)
    }
}

/// A refused line: what the peer is answered, what the ledger keeps.
#[derive(Debug, Clone)]
pub struct Refused {
    /// What the line was meant to be.
    pub kind: Kind,
    /// The id, when the top level gives exactly one that is a string or a
    /// number (as JSON text); a reply otherwise goes to id `null`.
    pub id: Option<String>,
    /// The method, when given once as a string.
    pub method: Option<String>,
    /// The tool of a `tools/call`, when `params` and its `name` are each
    /// given once and the name is a string.
    pub tool: Option<String>,
    /// Why it was refused, for the peer and the ledger.
    pub why: String,
    /// The line as the ledger keeps it (its first 64 KiB).
    pub raw: String,
}

impl Refused {
    /// Reads what a refusal of `line` needs; `why` is the strict reader's
    /// reason.
    pub fn read(line: &[u8], why: &str) -> Refused {
        let keys = serde_json::from_slice::<Keys>(line).ok();
        let (kind, id, method, tool) = match &keys {
            None => (Kind::Other, None, None, None),
            Some(k) => {
                let kind = match (k.method.present(), k.id.present()) {
                    (true, true) => Kind::Request,
                    (true, false) => Kind::Notification,
                    (false, _) if k.id.present() || k.answer => Kind::Response,
                    _ => Kind::Other,
                };
                let id = k
                    .id
                    .once()
                    .map(|v| v.get())
                    .filter(|t| t.starts_with(|c: char| c == '"' || c == '-' || c.is_ascii_digit()))
                    .map(str::to_owned);
                let method = k.method.once().and_then(string);
                let tool = match method.as_deref() {
                    Some("tools/call") => k
                        .params
                        .once()
                        .and_then(|p| serde_json::from_str::<Keys>(p.get()).ok())
                        .and_then(|p| p.name.once().and_then(string)),
                    _ => None,
                };
                (kind, id, method, tool)
            }
        };
        Refused {
            kind,
            id,
            method,
            tool,
            why: why.to_string(),
            raw: kept(line),
        }
    }

    /// The JSON-RPC error the sender gets: for a request, or for a line
    /// that is no message at all (under id `null` when its id cannot be
    /// read). `None` for a notification or a response, which are not
    /// answered.
    pub fn reply(&self, from: &str) -> Option<String> {
        match self.kind {
            Kind::Request | Kind::Other => Some(error_line(
                self.id.as_deref(),
                -32600,
                &format!(
                    "Invalid Request: toolgate did not pass on this message from the {from}: {}",
                    self.why
                ),
            )),
            Kind::Notification | Kind::Response => None,
        }
    }

    /// For a response whose id can be read: an error under the same id, in
    /// its place, so that the request it answers ends with an error rather
    /// than waiting for an answer that will not come.
    pub fn stand_in(&self, from: &str) -> Option<String> {
        match (self.kind, &self.id) {
            (Kind::Response, Some(id)) => Some(error_line(
                Some(id),
                -32603,
                &format!(
                    "toolgate did not pass on the {from}'s answer to this request: {}",
                    self.why
                ),
            )),
            _ => None,
        }
    }

    /// The name its ledger row is kept under: the tool of a `tools/call`
    /// whose name can be read, else the method, else what it was.
    pub fn ledger_name(&self, server: &str) -> String {
        let what = match (&self.tool, &self.method, self.kind) {
            (Some(tool), _, _) => tool.as_str(),
            (None, Some(method), _) => method.as_str(),
            (None, None, Kind::Response) => "(response)",
            (None, None, _) => "(unreadable)",
        };
        crate::names::qualified(server, what)
    }
}

fn string(v: &RawValue) -> Option<String> {
    serde_json::from_str::<String>(v.get()).ok()
}

/// `{"jsonrpc":"2.0","id":ID,"error":{"code":CODE,"message":MESSAGE}}`,
/// `id` being JSON text (or `null` when `None`).
pub fn error_line(id: Option<&str>, code: i32, message: &str) -> String {
    let message = serde_json::Value::from(message);
    format!(
        r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":{code},"message":{message}}}}}"#,
        id.unwrap_or("null")
    )
}

/// The first 64 KiB of `line` as text, marked when cut.
fn kept(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    if text.len() <= RAW_KEPT {
        return text.into_owned();
    }
    let mut end = RAW_KEPT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &text[..end], line.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(line: &str) -> Refused {
        Refused::read(line.as_bytes(), "repeated")
    }

    #[test]
    fn a_request_is_answered_under_its_id_when_it_is_given_once() {
        let r = read(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w","arguments":{},"arguments":{}}}"#,
        );
        assert_eq!(r.kind, Kind::Request);
        assert_eq!(r.id.as_deref(), Some("7"));
        assert_eq!(r.tool.as_deref(), Some("w"));
        assert_eq!(r.ledger_name("s"), "mcp__s__w");
        let reply: serde_json::Value =
            serde_json::from_str(&r.reply("client").expect("a reply")).expect("json");
        assert_eq!(reply["id"], 7);
        assert_eq!(reply["error"]["code"], -32600);
        assert!(r.stand_in("client").is_none());
    }

    #[test]
    fn an_id_or_name_given_twice_is_not_read() {
        let r =
            read(r#"{"id":1,"i\u0064":2,"method":"tools/call","params":{"name":"a","name":"b"}}"#);
        assert_eq!(r.kind, Kind::Request);
        assert_eq!(r.id, None);
        assert_eq!(r.tool, None);
        assert_eq!(r.ledger_name("s"), "mcp__s__tools/call");
        let reply: serde_json::Value =
            serde_json::from_str(&r.reply("client").expect("a reply")).expect("json");
        assert!(reply["id"].is_null());
        // An id that is no JSON-RPC id is not answered under.
        assert_eq!(read(r#"{"id":{},"method":"x","a":1,"a":1}"#).id, None);
    }

    #[test]
    fn a_response_gets_an_error_in_its_place_and_a_notification_nothing() {
        let r = read(r#"{"jsonrpc":"2.0","id":"toolgate-3","result":{"a":1,"a":2}}"#);
        assert_eq!(r.kind, Kind::Response);
        assert!(r.reply("server").is_none());
        let s: serde_json::Value =
            serde_json::from_str(&r.stand_in("server").expect("a stand-in")).expect("json");
        assert_eq!(s["id"], "toolgate-3");
        assert_eq!(s["error"]["code"], -32603);
        assert_eq!(r.ledger_name("s"), "mcp__s__(response)");
        let n =
            read(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"a":1,"a":1}}"#);
        assert_eq!(n.kind, Kind::Notification);
        assert!(n.reply("client").is_none() && n.stand_in("client").is_none());
        assert_eq!(read("[1,{\"a\":1,\"a\":1}]").kind, Kind::Other);
    }

    #[test]
    fn the_ledger_keeps_the_first_64_kib() {
        let long = format!("{{\"a\":\"{}\"}}", "é".repeat(40_000));
        let kept = kept(long.as_bytes());
        assert!(kept.len() < RAW_KEPT + 40 && kept.ends_with("bytes in all)"));
    }
}

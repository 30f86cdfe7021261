//! The direct path for `tools/call` between a client and a server that both
//! speak over stdio.
//!
//! rmcp takes every message apart into its types and builds it again on the
//! other side, and hands it between four tasks on the way; for the one
//! message that matters for speed, a tool call and its result, that was
//! most of what the gateway added to a call. Here a `tools/call` line from
//! the client is taken before rmcp sees it ([`ClientTap`]), passed through
//! the same gate as on rmcp's path ([`Relay::admit`]: pins, decision,
//! approval, ledger row), and, when it is to run, written to the server
//! with an id of the gateway's own. The server's answer to that id is taken
//! before rmcp sees it ([`ServerTap`]) and written to the client under the
//! client's id, its `result` or `error` as the server sent it.
//!
//! What the server gets is what the gate decided on: the parameters are
//! written again from what was parsed. A line that repeats a key never
//! gets here (`framing.rs` refuses it); writing the parameters again keeps
//! that true should the check ever let one by. A call this path does not
//! handle goes to rmcp unchanged: one with a progress token or the
//! per-request lifecycle keys in its `_meta`, parameters other than
//! `name`, `arguments` and `_meta`, before the server is connected, or
//! after it has died.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::{Peer, RoleClient};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::framing::{Lines, Seen, Tap, send_line};
use crate::relay::{Relay, Shared, refusal};
use crate::strict::Refused;

/// The ids the gateway gives the calls it writes to the server itself
/// (rmcp's own are numbers).
const ID_PREFIX: &str = "toolgate-";

/// A JSON-RPC message, as far as routing needs it.
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<&'a RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
}

/// The parameters of a `tools/call` this path takes.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallParams {
    name: String,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    #[serde(rename = "_meta", default)]
    meta: Option<Map<String, Value>>,
}

/// A call as the server gets it: the parameters written again from what
/// was parsed.
#[derive(serde::Serialize)]
struct ToServer<'a> {
    jsonrpc: &'static str,
    id: &'a str,
    method: &'static str,
    params: ParamsOut<'a>,
}

#[derive(serde::Serialize)]
struct ParamsOut<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    arguments: Option<&'a Map<String, Value>>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a Map<String, Value>>,
}

/// The line that carries `params` to the server under the gateway's `id`.
fn server_request(id: &str, params: &CallParams) -> String {
    let request = ToServer {
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: ParamsOut {
            name: &params.name,
            arguments: params.arguments.as_ref(),
            meta: params.meta.as_ref(),
        },
    };
    // Strings, and maps with string keys: serialising cannot fail.
    serde_json::to_string(&request).unwrap_or_default()
}

/// The server's answer to a call on this path.
struct Reply {
    result: Option<Box<RawValue>>,
    error: Option<Box<RawValue>>,
}

/// Calls forwarded to the server and not answered yet.
#[derive(Default)]
struct Waiting {
    /// The server's output has ended: nothing more will be answered.
    closed: bool,
    by_id: HashMap<String, oneshot::Sender<Reply>>,
}

/// The direct path's state, one per client session.
#[derive(Default)]
pub struct Calls {
    /// The client's writer (weak: it belongs to rmcp's transport, and ends
    /// with it).
    down: OnceLock<Weak<dyn Lines>>,
    /// The server's writer (weak for the same reason: the server must see
    /// its input close when the session ends).
    up: OnceLock<Weak<dyn Lines>>,
    next: AtomicU64,
    waiting: Mutex<Waiting>,
    /// Calls on this path by the client's id (its JSON text), for the
    /// client's cancellation.
    open: Mutex<HashMap<String, CancellationToken>>,
}

impl Calls {
    /// The client's side is on stdio: results can be written to it.
    pub fn set_client(&self, lines: &Arc<dyn Lines>) {
        let _ = self.down.set(Arc::downgrade(lines));
    }

    /// The server's side is on stdio: calls can be written to it.
    pub fn set_server(&self, lines: &Arc<dyn Lines>) {
        let _ = self.up.set(Arc::downgrade(lines));
    }

    fn client(&self) -> Option<Arc<dyn Lines>> {
        self.down.get().and_then(Weak::upgrade)
    }

    fn server(&self) -> Option<Arc<dyn Lines>> {
        self.up.get().and_then(Weak::upgrade)
    }
}

/// Takes the client's `tools/call` requests (and its cancellations of
/// them) from the client's stream.
pub struct ClientTap {
    relay: Relay,
}

impl ClientTap {
    /// The tap for `relay`'s client.
    pub fn new(relay: Relay) -> ClientTap {
        ClientTap { relay }
    }

    /// The server, when a call can take this path now.
    fn ready(&self) -> Option<Peer<RoleClient>> {
        let shared = self.relay.shared();
        if shared.dead.load(Ordering::SeqCst) {
            return None;
        }
        shared.fast.client()?;
        shared.fast.server()?;
        if shared.fast.waiting.lock().map_or(true, |w| w.closed) {
            return None;
        }
        match shared.upstream.get() {
            Some(Ok(peer)) => Some(peer.clone()),
            _ => None,
        }
    }

    fn take_call(&self, id: &RawValue, params: Option<&RawValue>) -> Seen {
        let Some(server) = self.ready() else {
            return Seen::Json;
        };
        let Some(params) = params.and_then(|p| serde_json::from_str::<CallParams>(p.get()).ok())
        else {
            return Seen::Json;
        };
        let plain = params.meta.as_ref().is_none_or(|m| {
            !m.keys()
                .any(|k| k == "progressToken" || k.starts_with("io.modelcontextprotocol/"))
        });
        if !plain {
            return Seen::Json;
        }
        let key = id.get().to_owned();
        let cancelled = CancellationToken::new();
        let shared = self.relay.shared();
        match shared.fast.open.lock() {
            // The same id twice at once is the client's error; rmcp answers it.
            Ok(mut open) if !open.contains_key(&key) => {
                open.insert(key.clone(), cancelled.clone());
            }
            _ => return Seen::Json,
        }
        let relay = self.relay.clone();
        tokio::spawn(async move {
            let line = call(&relay, &server, &key, params, &cancelled).await;
            let shared = relay.shared();
            if let Ok(mut open) = shared.fast.open.lock() {
                open.remove(&key);
            }
            if let (Some(line), Some(client)) = (line, shared.fast.client()) {
                let _ = send_line(&*client, line.as_bytes()).await;
            }
        });
        Seen::Taken
    }

    fn take_cancel(&self, params: Option<&RawValue>) -> Seen {
        #[derive(Deserialize)]
        struct Cancelled<'a> {
            #[serde(rename = "requestId", borrow)]
            request_id: &'a RawValue,
        }
        let Some(c) = params.and_then(|p| serde_json::from_str::<Cancelled>(p.get()).ok()) else {
            return Seen::Json;
        };
        let token = self
            .relay
            .shared()
            .fast
            .open
            .lock()
            .ok()
            .and_then(|open| open.get(c.request_id.get()).cloned());
        match token {
            Some(t) => {
                t.cancel();
                Seen::Taken
            }
            None => Seen::Json,
        }
    }
}

impl Tap for ClientTap {
    fn peer(&self) -> &'static str {
        "client"
    }

    fn refused(&self, refused: Refused) -> Option<Refused> {
        let relay = self.relay.clone();
        tokio::spawn(async move {
            let shared = relay.shared();
            let problem = format!(
                "the client's message was not passed on to the MCP server: {}",
                refused.why
            );
            shared.config.host.reject(
                &refused.ledger_name(&shared.config.server),
                &refused.raw,
                &problem,
            );
            if let (Some(reply), Some(client)) = (refused.reply("client"), shared.fast.client()) {
                let _ = send_line(&*client, reply.as_bytes()).await;
            }
        });
        None
    }

    fn line(&self, line: &[u8]) -> Seen {
        let Ok(msg) = serde_json::from_slice::<Message>(line) else {
            return for_rmcp::<ClientJsonRpcMessage>(line, "client");
        };
        let request = msg.result.is_none() && msg.error.is_none();
        let seen = match (msg.method.as_deref(), msg.id) {
            (Some("tools/call"), Some(id)) if request && is_request(&msg, id) => {
                self.take_call(id, msg.params)
            }
            (Some("notifications/cancelled"), None) => self.take_cancel(msg.params),
            _ => Seen::Json,
        };
        match seen {
            Seen::Json | Seen::Unknown => for_rmcp::<ClientJsonRpcMessage>(line, "client"),
            other => other,
        }
    }
}

/// Whether a `tools/call` is a JSON-RPC 2.0 request as rmcp reads one:
/// `"jsonrpc": "2.0"` and an id that is a string or a number rmcp takes.
/// Anything else is left to rmcp's reading (`for_rmcp`), which refuses it
/// and records it; taken here, it would be gated and answered though
/// rmcp's path refuses it, so the two paths would not agree on what a
/// message is.
fn is_request(msg: &Message<'_>, id: &RawValue) -> bool {
    msg.jsonrpc.as_deref() == Some("2.0")
        && serde_json::from_str::<rmcp::model::RequestId>(id.get()).is_ok()
}

/// Takes the server's answers to the calls of the direct path.
pub struct ServerTap {
    // Weak: the server's stream must not keep the session alive.
    shared: Weak<Shared>,
}

impl ServerTap {
    /// The tap for the server of `shared`'s session.
    pub fn new(shared: Weak<Shared>) -> ServerTap {
        ServerTap { shared }
    }
}

/// A line left to rmcp, unless rmcp cannot read it as a message of the
/// protocol (a field of the wrong type, an id that is no id): then it is
/// refused here, answered under its id when it has one, and recorded.
fn for_rmcp<M: serde::de::DeserializeOwned>(line: &[u8], from: &str) -> Seen {
    match serde_json::from_slice::<M>(line) {
        Ok(_) => Seen::Json,
        Err(e) => Seen::Refused(Box::new(Refused::read(
            line,
            &format!(
                "the {from}'s message is not one of the MCP protocol as toolgate reads it ({e})"
            ),
        ))),
    }
}

impl Tap for ServerTap {
    fn peer(&self) -> &'static str {
        "MCP server"
    }

    fn refused(&self, refused: Refused) -> Option<Refused> {
        let shared = self.shared.upgrade()?;
        tokio::spawn(async move {
            let problem = format!(
                "the MCP server's message was not passed on to the client: {}",
                refused.why
            );
            shared.config.host.reject(
                &refused.ledger_name(&shared.config.server),
                &refused.raw,
                &problem,
            );
            if let (Some(reply), Some(server)) = (refused.reply("MCP server"), shared.fast.server())
            {
                let _ = send_line(&*server, reply.as_bytes()).await;
            }
        });
        None
    }

    fn line(&self, line: &[u8]) -> Seen {
        let Ok(msg) = serde_json::from_slice::<Message>(line) else {
            return for_rmcp::<ServerJsonRpcMessage>(line, "MCP server");
        };
        let ours = match (&msg.method, msg.id) {
            (None, Some(id)) => serde_json::from_str::<Cow<str>>(id.get())
                .ok()
                .filter(|id| id.starts_with(ID_PREFIX)),
            _ => None,
        };
        let Some(id) = ours else {
            return for_rmcp::<ServerJsonRpcMessage>(line, "MCP server");
        };
        let Some(shared) = self.shared.upgrade() else {
            return Seen::Taken;
        };
        let waiter = shared
            .fast
            .waiting
            .lock()
            .ok()
            .and_then(|mut w| w.by_id.remove(id.as_ref()));
        // An answer nobody waits for (the client withdrew the call) is
        // dropped here: it was never rmcp's.
        if let Some(tx) = waiter {
            let _ = tx.send(Reply {
                result: msg.result.map(RawValue::to_owned),
                error: msg.error.map(RawValue::to_owned),
            });
        }
        Seen::Taken
    }

    fn end(&self) {
        if let Some(shared) = self.shared.upgrade()
            && let Ok(mut w) = shared.fast.waiting.lock()
        {
            w.closed = true;
            w.by_id.clear();
        }
    }
}

/// One call on the direct path: the line the client gets (`None` when the
/// client withdrew the call, which is not answered).
async fn call(
    relay: &Relay,
    server: &Peer<RoleClient>,
    client_id: &str,
    params: CallParams,
    cancelled: &CancellationToken,
) -> Option<String> {
    let shared = relay.shared();
    let input = params.arguments.clone().unwrap_or_default();
    let client = shared.downstream.get().cloned();
    let admitted = relay
        .admit(server, &params.name, input, client.as_ref(), cancelled)
        .await;
    if cancelled.is_cancelled() {
        return None;
    }
    if let Err(r) = admitted {
        return Some(refusal_line(client_id, r.to_string()));
    }
    let id = format!(
        "{ID_PREFIX}{}",
        shared.fast.next.fetch_add(1, Ordering::Relaxed)
    );
    let (tx, rx) = oneshot::channel();
    let open = shared.fast.waiting.lock().ok().is_some_and(|mut w| {
        if !w.closed {
            w.by_id.insert(id.clone(), tx);
        }
        !w.closed
    });
    let Some(to_server) = shared.fast.server().filter(|_| open) else {
        return Some(refusal_line(
            client_id,
            relay.lost("the server's output has ended"),
        ));
    };
    let request = server_request(&id, &params);
    if let Err(e) = send_line(&*to_server, request.as_bytes()).await {
        forget(shared, &id);
        return Some(refusal_line(
            client_id,
            relay.lost(&format!("the call could not be written: {e}")),
        ));
    }
    drop(to_server);
    tokio::select! {
        reply = rx => Some(match reply {
            Ok(Reply { result: Some(r), .. }) => answer_line(client_id, "result", r.get()),
            Ok(Reply { error: Some(e), .. }) => answer_line(client_id, "error", e.get()),
            Ok(_) => refusal_line(client_id, relay.lost("the server's answer held neither a result nor an error")),
            Err(_) => refusal_line(client_id, relay.lost("the server's output has ended")),
        }),
        _ = cancelled.cancelled() => {
            forget(shared, &id);
            if let Some(to_server) = shared.fast.server() {
                let withdraw = serde_json::json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": id, "reason": "cancelled by the sender"},
                });
                let _ = send_line(&*to_server, withdraw.to_string().as_bytes()).await;
            }
            None
        }
    }
}

fn forget(shared: &Shared, id: &str) {
    if let Ok(mut w) = shared.fast.waiting.lock() {
        w.by_id.remove(id);
    }
}

/// A refusal as the tool result the client gets, under its id.
fn refusal_line(client_id: &str, text: String) -> String {
    let json = serde_json::to_string(&refusal(text)).unwrap_or_else(|_| {
        r#"{"content":[{"type":"text","text":"the call was not executed"}],"isError":true}"#
            .to_owned()
    });
    answer_line(client_id, "result", &json)
}

/// `{"jsonrpc":"2.0","id":ID,"result"|"error":JSON}`, from JSON texts.
fn answer_line(client_id: &str, key: &str, json: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{client_id},"{key}":{json}}}"#)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_gets_the_arguments_the_gate_saw_with_no_key_twice() {
        let line = r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"w","arguments":{"path":"a.txt","path":"b.txt"}}}"#;
        let msg: Message = serde_json::from_str(line).expect("a message");
        let params: CallParams =
            serde_json::from_str(msg.params.expect("params").get()).expect("call params");
        let seen = params.arguments.clone().unwrap_or_default();
        assert_eq!(seen["path"], "b.txt");
        assert_eq!(
            server_request("toolgate-1", &params),
            r#"{"jsonrpc":"2.0","id":"toolgate-1","method":"tools/call","params":{"name":"w","arguments":{"path":"b.txt"}}}"#
        );
    }

    #[test]
    fn parameters_this_path_does_not_know_leave_the_call_to_rmcp() {
        let p = r#"{"name":"w","arguments":{},"task":{"ttl":5}}"#;
        assert!(serde_json::from_str::<CallParams>(p).is_err());
        let p = r#"{"name":"w","arguments":[1]}"#;
        assert!(serde_json::from_str::<CallParams>(p).is_err());
    }

    /// What rmcp's path refuses, this path does not take: it is left to
    /// rmcp's reading, which refuses it (recorded, answered -32600).
    #[test]
    fn only_json_rpc_2_requests_with_a_string_or_number_id_take_this_path() {
        let taken = |line: &str| {
            // A message this path cannot read (`"jsonrpc": 2.0`), or
            // `"id": null` (read as no id), is never a call of this path.
            serde_json::from_str::<Message>(line)
                .is_ok_and(|msg| msg.id.is_some_and(|id| is_request(&msg, id)))
        };
        let params = r#""method":"tools/call","params":{"name":"echo","arguments":{}}"#;
        for id in ["1", "-3", r#""a-1""#] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},{params}}}"#);
            assert!(taken(&line), "{line}");
            assert!(matches!(
                for_rmcp::<ClientJsonRpcMessage>(line.as_bytes(), "client"),
                Seen::Json
            ));
        }
        for line in [
            format!(r#"{{"jsonrpc":"2.0","id":true,{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":{{"x":1}},{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":[1],{params}}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":null,{params}}}"#),
            format!(r#"{{"jsonrpc":"1.0","id":1,{params}}}"#),
            format!(r#"{{"jsonrpc":2.0,"id":1,{params}}}"#),
            format!(r#"{{"id":1,{params}}}"#),
        ] {
            assert!(!taken(&line), "{line}");
            assert!(
                matches!(
                    for_rmcp::<ClientJsonRpcMessage>(line.as_bytes(), "client"),
                    Seen::Refused(_)
                ),
                "rmcp refuses {line}"
            );
        }
    }

    #[test]
    fn answers_carry_the_clients_id_and_the_servers_json() {
        assert_eq!(
            answer_line(r#""a-1""#, "result", r#"{"content":[]}"#),
            r#"{"jsonrpc":"2.0","id":"a-1","result":{"content":[]}}"#
        );
        let refusal: Value = serde_json::from_str(&refusal_line("7", "no".into())).expect("json");
        assert_eq!(refusal["id"], 7);
        assert_eq!(refusal["result"]["isError"], true);
        assert_eq!(refusal["result"]["content"][0]["text"], "no");
    }
}

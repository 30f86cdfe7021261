//! Upstream transports: the MCP server, spawned on stdio or reached over
//! streamable HTTP, and the client-role handler through which the server's
//! own requests and notifications reach the downstream client.

use std::sync::{Arc, Weak};

use rmcp::model::{ClientConfig, ClientResult, ErrorData, ServerNotification, ServerRequest};
use rmcp::service::{ClientInitializeError, NotificationContext, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{RoleClient, Service, ServiceExt};
use tokio::process::{Child, Command};

use crate::fast::ServerTap;
use crate::framing;
use crate::methods::{self, Plan};
use crate::relay::{Ask, Shared, decide, forward, refused_request, to_error, unfit};

/// Where the MCP server is.
#[derive(Debug, Clone)]
pub enum UpstreamSpec {
    /// A command spawned with the server on its standard input and output.
    Stdio {
        /// The program.
        program: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A server speaking streamable HTTP at this URL.
    Http {
        /// The server's endpoint.
        url: String,
    },
}

/// A connected server.
pub struct Upstream {
    /// The running client-role service (its peer sends to the server).
    pub service: RunningService<RoleClient, ToClient>,
    /// The spawned process, when the server runs on stdio.
    pub child: Option<Child>,
}

/// Why the server could not be reached; every request that needs it is
/// answered with this.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The command could not be started.
    #[error("cannot start the MCP server `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// Why the system refused.
        source: std::io::Error,
    },
    /// The process came without the pipes it was given.
    #[error("the MCP server `{0}` has no standard streams")]
    NoStreams(String),
    /// The server on stdio did not complete the initialize handshake.
    #[error("the MCP server `{program}` did not initialize: {source}")]
    StdioInit {
        /// The program.
        program: String,
        /// What went wrong.
        source: ClientInitializeError,
    },
    /// The server over HTTP did not complete the initialize handshake.
    #[error("the MCP server at `{url}` did not initialize: {source}")]
    HttpInit {
        /// The server's endpoint.
        url: String,
        /// What went wrong.
        source: ClientInitializeError,
    },
}

/// Connects to the server, introducing the gateway with `info` (the
/// downstream client's own capabilities and identity).
pub async fn connect(
    spec: &UpstreamSpec,
    shared: Arc<Shared>,
    info: ClientConfig,
) -> Result<Upstream, ConnectError> {
    let handler = ToClient {
        shared: Arc::downgrade(&shared),
        info,
    };
    match spec {
        UpstreamSpec::Stdio { program, args } => {
            let mut child = Command::new(program)
                .args(args)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::inherit())
                .kill_on_drop(true)
                .spawn()
                .map_err(|source| ConnectError::Spawn {
                    program: program.clone(),
                    source,
                })?;
            let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                return Err(ConnectError::NoStreams(program.clone()));
            };
            let (read, write) = framing::checked(stdout, stdin);
            shared.fast.set_server(&write.lines());
            let tap = Arc::new(ServerTap::new(Arc::downgrade(&shared)));
            let transport = (read.with_tap(tap), write);
            let service =
                handler
                    .serve(transport)
                    .await
                    .map_err(|source| ConnectError::StdioInit {
                        program: program.clone(),
                        source,
                    })?;
            Ok(Upstream {
                service,
                child: Some(child),
            })
        }
        UpstreamSpec::Http { url } => {
            let transport = StreamableHttpClientTransport::from_uri(url.as_str());
            let service =
                handler
                    .serve(transport)
                    .await
                    .map_err(|source| ConnectError::HttpInit {
                        url: url.clone(),
                        source,
                    })?;
            Ok(Upstream {
                service,
                child: None,
            })
        }
    }
}

/// The method and the capability of a server request that needs a client
/// capability the client did not declare in its `initialize` (or its
/// per-request `_meta`), if any. The server was introduced to exactly
/// those capabilities, so a request beyond them is one the client never
/// agreed to take; relayed anyway, a client that takes it all the same
/// (many answer whatever comes) would show a server's sampling prompt or
/// form nobody asked for, and a server's form can read like toolgate's own
/// approval form.
fn undeclared(
    caps: &rmcp::model::ClientCapabilities,
    request: &ServerRequest,
) -> Option<(&'static str, &'static str)> {
    use rmcp::model::ElicitRequestParams as P;
    let declared = match request {
        ServerRequest::CreateMessageRequest(_) => caps.sampling.is_some(),
        ServerRequest::ListRootsRequest(_) => caps.roots.is_some(),
        ServerRequest::ElicitRequest(r) => {
            let Some(e) = &caps.elicitation else {
                return Some(("elicitation/create", "elicitation"));
            };
            match &r.params {
                // An empty `elicitation` object declares forms (the
                // protocol's default mode).
                P::FormElicitationParams { .. } => e.form.is_some() || e.url.is_none(),
                P::UrlElicitationParams { .. } => e.url.is_some(),
                // A mode rmcp adds later: nobody declared it.
                _ => false,
            }
        }
        _ => return None,
    };
    let named = match request {
        ServerRequest::CreateMessageRequest(_) => ("sampling/createMessage", "sampling"),
        ServerRequest::ListRootsRequest(_) => ("roots/list", "roots"),
        _ => ("elicitation/create", "elicitation"),
    };
    (!declared).then_some(named)
}

/// Refuses a server request the client has no capability for: recorded
/// like the server's other refused messages (a ledger row under
/// `mcp__SRV__METHOD`, its parameters kept), answered with -32601 (the
/// client, as far as the server may know, has no such method), never
/// relayed.
fn refuse_undeclared(
    cfg: &crate::Config,
    request: &ServerRequest,
    method: &str,
    capability: &str,
) -> ErrorData {
    let raw = serde_json::to_value(request)
        .ok()
        .and_then(|v| v.get("params").cloned())
        .map(|p| p.to_string())
        .unwrap_or_default();
    let why = format!(
        "the MCP server sent `{method}`, but the client did not declare the `{capability}` \
         capability, so toolgate did not pass the request on"
    );
    cfg.host
        .reject(&crate::names::qualified(&cfg.server, method), &raw, &why);
    ErrorData::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, why, None)
}

/// Records a server request passed on to the client (the client declared
/// its capability): a ledger row under `mcp__SRV__METHOD`, rule
/// `host:relayed`, its parameters as they came.
fn record_relayed(cfg: &crate::Config, request: &ServerRequest) {
    let value = serde_json::to_value(request).unwrap_or_default();
    let Some(method) = value.get("method").and_then(|m| m.as_str()) else {
        return;
    };
    let raw = value
        .get("params")
        .map(|p| p.to_string())
        .unwrap_or_default();
    let why = format!(
        "the MCP server sent `{method}`, and the client declared that capability, so toolgate \
         passed the request on"
    );
    cfg.host
        .relayed(&crate::names::qualified(&cfg.server, method), &raw, &why);
}

/// The gateway as the server's client: relays what the server sends on its
/// own (elicitation, sampling, roots, progress, log messages, list changes)
/// to the downstream client.
pub struct ToClient {
    // Weak: the server's service must not keep the session (and so the
    // server's process) alive after the client has gone.
    shared: Weak<Shared>,
    info: ClientConfig,
}

impl Service<RoleClient> for ToClient {
    async fn handle_request(
        &self,
        request: ServerRequest,
        ctx: RequestContext<RoleClient>,
    ) -> Result<ClientResult, ErrorData> {
        if let ServerRequest::PingRequest(_) = request {
            return Ok(ClientResult::empty(()));
        }
        let Some(shared) = self.shared.upgrade() else {
            return Err(ErrorData::internal_error("the client has gone", None));
        };
        let cfg = &shared.config;
        if let Some((method, capability)) = undeclared(&self.info.capabilities, &request) {
            return Err(refuse_undeclared(cfg, &request, method, capability));
        }
        match methods::server_request(&cfg.server, &request) {
            Plan::Relay => record_relayed(cfg, &request),
            Plan::Unfit { method, tool, raw } => return Err(unfit(cfg, &method, &tool, &raw)),
            // Nobody is asked about what a server asks of the client: only
            // a rule that allows the method lets it through.
            Plan::Decide { call, known, .. } => {
                decide(cfg, call, Ask::Never, &ctx.ct)
                    .await
                    .map_err(|r| refused_request(known, r.to_string()))?;
            }
        }
        let Some(client) = shared.downstream.get() else {
            return Err(ErrorData::internal_error(
                "the client is not connected yet",
                None,
            ));
        };
        forward(client, request, ctx.meta, &ctx.ct, &shared.progress_down)
            .await
            .map_err(to_error)
    }

    async fn handle_notification(
        &self,
        mut notification: ServerNotification,
        ctx: NotificationContext<RoleClient>,
    ) -> Result<(), ErrorData> {
        use rmcp::model::GetMeta;
        let Some(shared) = self.shared.upgrade() else {
            return Ok(());
        };
        match &mut notification {
            // rmcp has already cancelled the request this names.
            ServerNotification::CancelledNotification(_) => return Ok(()),
            ServerNotification::ProgressNotification(p) => {
                let mapped = shared
                    .progress_up
                    .lock()
                    .ok()
                    .and_then(|m| m.get(&p.params.progress_token).cloned());
                match mapped {
                    Some(t) => p.params.progress_token = t,
                    None => return Ok(()),
                }
            }
            ServerNotification::ToolListChangedNotification(_) => {
                shared.forget_tools();
            }
            // Not one of the protocol's: dropped, never relayed.
            ServerNotification::CustomNotification(n)
                if !methods::SERVER_CUSTOM_NOTIFICATIONS.contains(&n.method.as_str()) =>
            {
                return Ok(());
            }
            _ => {}
        }
        *notification.get_meta_mut() = ctx.meta;
        if let Some(client) = shared.downstream.get() {
            let _ = client.send_notification(notification).await;
        }
        Ok(())
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}

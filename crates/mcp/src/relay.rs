//! The relay: the gateway as the client's server. Every request of the
//! client goes on to the server as it came, except two, which go through
//! the gate first: `tools/call` (decided, approved, recorded; forwarded only
//! on a verdict to run) and `tools/list` (tools denied by name hidden, tools
//! whose definition changed since it was pinned marked).
//!
//! There is no lock held across a request: each request is its own task
//! (rmcp's), the state shared between them is a few maps behind short
//! mutexes, and the gate runs per call (in place on the worker; what may
//! wait, a person or a reviewer model, as blocking code: see `host.rs`).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::model::{
    CallToolRequest, CallToolResult, CancelledNotification, CancelledNotificationParam,
    ClientConfig, ClientNotification, ClientRequest, ContentBlock, ErrorData, GetMeta,
    Implementation, InitializeResult, ListToolsRequest, ListToolsResult, PaginatedRequestParams,
    ProgressToken, ProtocolVersion, RequestId, RequestMetaObject, ServerConfig, ServerResult,
};
use rmcp::service::{
    NotificationContext, Peer, PeerRequestOptions, RequestContext, RunningService,
    RunningServiceCancellationToken, ServiceError, ServiceRole,
};
use rmcp::{RoleClient, RoleServer, Service};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;
use toolgate_gate::{Approver, NeverApprover, QueueApprover, Verdict};
use toolgate_policy::{Call, Client};

use crate::config::Config;
use crate::elicit::ElicitApprover;
use crate::methods::{self, Plan};
use crate::names;
use crate::pins::{self, Trust};
use crate::upstream::{self, Upstream};

/// Progress tokens of forwarded requests: the token the receiving side was
/// given (rmcp's own) to the token the sending side chose.
pub type ProgressMap = Mutex<HashMap<ProgressToken, ProgressToken>>;

/// What the relay's request tasks share, for one client session.
pub struct Shared {
    /// The gateway's settings.
    pub config: Arc<Config>,
    /// The client, once it has introduced itself.
    pub downstream: OnceLock<Peer<RoleServer>>,
    /// The server's client-side peer, once connected.
    pub upstream: tokio::sync::OnceCell<Result<Peer<RoleClient>, upstream::ConnectError>>,
    /// How to end the connected server: its service and its process.
    pub running: Mutex<
        Option<(
            RunningServiceCancellationToken,
            Option<tokio::process::Child>,
        )>,
    >,
    /// Progress of the client's requests to the server.
    pub progress_up: ProgressMap,
    /// Progress of the server's requests to the client.
    pub progress_down: ProgressMap,
    /// Each tool's trust, from the last listing (`None`: list again).
    pub tools: Mutex<Option<Listed>>,
    /// The tools of the listing the client is walking page by page, for
    /// a name repeated across its pages.
    pub walk: Mutex<Walk>,
    /// The tools of the session's first complete listing: one that shows
    /// up later is a change of the server's definitions.
    pub first_listing: Mutex<FirstListing>,
    /// The server has gone away.
    pub dead: AtomicBool,
    /// Cancelled to end this session (the server died and the client asked
    /// again).
    pub ended: CancellationToken,
    /// The exit status the gateway ends with.
    pub exit_code: AtomicI32,
    /// The direct path for `tools/call` (`fast.rs`).
    pub fast: crate::fast::Calls,
}

impl Shared {
    /// A fresh session.
    pub fn new(config: Arc<Config>) -> Arc<Shared> {
        Arc::new(Shared {
            config,
            downstream: OnceLock::new(),
            upstream: tokio::sync::OnceCell::new(),
            running: Mutex::new(None),
            progress_up: Mutex::new(HashMap::new()),
            progress_down: Mutex::new(HashMap::new()),
            tools: Mutex::new(None),
            walk: Mutex::new(Walk::default()),
            first_listing: Mutex::new(FirstListing::default()),
            dead: AtomicBool::new(false),
            ended: CancellationToken::new(),
            exit_code: AtomicI32::new(0),
            fast: crate::fast::Calls::default(),
        })
    }

    /// Forgets the tool listing (`notifications/tools/list_changed`): the
    /// next listing or call lists, pins and filters again. The server says
    /// its tools changed, so the session's first listing, if it has begun,
    /// ends here: a tool it shows from now on is a change.
    pub fn forget_tools(&self) {
        if let Ok(mut t) = self.tools.lock() {
            *t = None;
        }
        if let Ok(mut first) = self.first_listing.lock() {
            first.close();
        }
    }

    /// Ends the server: its service, then its process.
    pub async fn end_server(&self) {
        let running = self.running.lock().ok().and_then(|mut r| r.take());
        if let Some((service, child)) = running {
            service.cancel();
            if let Some(mut child) = child {
                // The server saw its input close; give it a moment to go.
                let quit =
                    tokio::time::timeout(std::time::Duration::from_millis(500), child.wait());
                if quit.await.is_err() {
                    let _ = child.start_kill();
                    let _ = child.wait().await;
                }
            }
        }
    }
}

/// The most pages of one tool listing the gateway reads or counts. A
/// server whose cursor never ends (or ends past this) is taken to have
/// listed everything by then: the session's first listing is complete (a
/// tool shown after it is a change), and a call of a tool not listed by
/// then is refused, not looked for page after page, call after call.
pub const MAX_PAGES: usize = 20;

/// Whether a page is a listing's last: it has no `nextCursor`, or an empty
/// one (which the SDK clients read as the end, so the gateway must too:
/// otherwise a server could keep its first listing open forever).
pub fn last_page(next_cursor: Option<&str>) -> bool {
    next_cursor.is_none_or(str::is_empty)
}

/// The tool names of a session's first listing, page by page until the
/// last, or until [`MAX_PAGES`], or until the server says its tools
/// changed, whichever comes first.
#[derive(Default)]
pub struct FirstListing {
    names: HashSet<String>,
    pages: usize,
    complete: bool,
}

impl FirstListing {
    /// Takes in one page of a listing (`last`: it has no next page) and
    /// returns the names on it that were not in the first listing.
    fn page(&mut self, names: impl Iterator<Item = String>, last: bool) -> HashSet<String> {
        if self.complete {
            return names.filter(|n| !self.names.contains(n)).collect();
        }
        self.names.extend(names);
        self.pages += 1;
        self.complete = last || self.pages >= MAX_PAGES;
        HashSet::new()
    }

    /// Ends the first listing where it is, once it has begun (before any
    /// page, there is nothing to compare later tools with).
    fn close(&mut self) {
        if self.pages > 0 {
            self.complete = true;
        }
    }
}

/// Each tool's trust from the listing since the last change.
#[derive(Default)]
pub struct Listed {
    trust: HashMap<String, Trust>,
    /// The listing was read to its end (or to [`MAX_PAGES`]): a tool not
    /// in it is not the server's, and is not looked for again.
    complete: bool,
}

/// The entries of one listing so far, page by page, by name: a name on a
/// later page that an earlier one named too is checked as the set of all
/// its entries (see `pins::repeated`).
#[derive(Default)]
pub struct Walk {
    entries: HashMap<String, Vec<rmcp::model::Tool>>,
    pages: usize,
}

impl Walk {
    /// Takes in one page (`first`: the listing's first, which starts a new
    /// walk) and returns what is checked for it: each name on the page with
    /// every entry of it so far, earlier pages' first.
    fn page(&mut self, page: &[rmcp::model::Tool], first: bool) -> Vec<rmcp::model::Tool> {
        if first {
            self.entries.clear();
            self.pages = 0;
        }
        self.pages += 1;
        let mut checked = Vec::new();
        let mut named = HashSet::new();
        for t in page {
            if named.insert(t.name.to_string())
                && let Some(earlier) = self.entries.get(t.name.as_ref())
            {
                checked.extend(earlier.iter().cloned());
            }
        }
        checked.extend(page.iter().cloned());
        for t in page {
            self.entries
                .entry(t.name.to_string())
                .or_default()
                .push(t.clone());
        }
        checked
    }
}

/// The gateway's server-role service for one client session.
#[derive(Clone)]
pub struct Relay {
    shared: Arc<Shared>,
}

impl Relay {
    /// A relay over a fresh session.
    pub fn new(config: Arc<Config>) -> Relay {
        Relay {
            shared: Shared::new(config),
        }
    }

    /// The session's shared state.
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// The server, connecting on first use with `info` as the gateway's
    /// introduction.
    async fn upstream(
        &self,
        info: impl FnOnce() -> ClientConfig,
    ) -> Result<Peer<RoleClient>, ErrorData> {
        let shared = &self.shared;
        let r = shared
            .upstream
            .get_or_init(|| async {
                match upstream::connect(&shared.config.upstream, Arc::clone(shared), info()).await {
                    Ok(Upstream { service, child }) => {
                        let peer = service.peer().clone();
                        if let Ok(mut r) = shared.running.lock() {
                            *r = Some((service.cancellation_token(), child));
                        }
                        watch_server(shared, service);
                        Ok(peer)
                    }
                    Err(e) => Err(e),
                }
            })
            .await;
        match r {
            Ok(p) => Ok(p.clone()),
            Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }

    fn check_alive(&self) -> Result<(), ErrorData> {
        if !self.shared.dead.load(Ordering::SeqCst) {
            return Ok(());
        }
        // Answer, then end: the client learns why rather than hanging.
        self.shared.exit_code.store(1, Ordering::SeqCst);
        let ended = self.shared.ended.clone();
        tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            ended.cancel();
        });
        Err(ErrorData::internal_error(
            format!(
                "the MCP server `{}` has exited; toolgate mcp is ending",
                self.shared.config.server
            ),
            None,
        ))
    }

    async fn initialize(
        &self,
        params: rmcp::model::InitializeRequestParams,
    ) -> Result<ServerResult, ErrorData> {
        let mut info = params.clone();
        if !info.protocol_version.has_initialize() {
            info.protocol_version = ProtocolVersion::LATEST_WITH_INITIALIZE;
        }
        let peer = self.upstream(move || info).await?;
        let Some(server) = peer.peer_info() else {
            return Err(ErrorData::internal_error(
                "the MCP server did not introduce itself",
                None,
            ));
        };
        let mut result = InitializeResult::new(server.capabilities.clone());
        result.protocol_version = server.protocol_version.clone();
        result.server_info = server
            .server_info
            .clone()
            .unwrap_or_else(|| Implementation::new(self.shared.config.server.clone(), "unknown"));
        result.instructions = server.instructions.clone();
        result.meta = server.meta.clone();
        Ok(ServerResult::InitializeResult(result))
    }

    /// The server for a request other than `initialize` (a client on the
    /// per-request lifecycle introduces itself in each request's `_meta`).
    async fn server_for(&self, meta: &RequestMetaObject) -> Result<Peer<RoleClient>, ErrorData> {
        let caps = meta.client_capabilities().unwrap_or_default();
        let client = meta
            .client_info()
            .unwrap_or_else(|| Implementation::new("toolgate-mcp", env!("CARGO_PKG_VERSION")));
        self.upstream(move || {
            let mut c = ClientConfig::new(caps, client);
            c.protocol_version = ProtocolVersion::LATEST_WITH_INITIALIZE;
            c
        })
        .await
    }

    async fn list_tools(
        &self,
        req: ListToolsRequest,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let peer = self.server_for(&ctx.meta).await?;
        let first_page = req.params.as_ref().is_none_or(|p| p.cursor.is_none());
        let result = forward(
            &peer,
            ClientRequest::ListToolsRequest(req),
            for_server(ctx.meta),
            &ctx.ct,
            &self.shared.progress_up,
        )
        .await
        .map_err(to_error)?;
        // An answer that is not a tool list would reach the client with
        // definitions nobody pinned or filtered.
        let ServerResult::ListToolsResult(list) = result else {
            return Err(ErrorData::internal_error(
                "the MCP server answered tools/list with something that is not a tool list",
                None,
            ));
        };
        Ok(ServerResult::ListToolsResult(
            self.filter(list, first_page).await,
        ))
    }

    /// Pins, marks and filters one page of tools (`first_page`: asked for
    /// without a cursor).
    async fn filter(&self, mut list: ListToolsResult, first_page: bool) -> ListToolsResult {
        let (checked, pages) = match self.shared.walk.lock() {
            Ok(mut walk) => (walk.page(&list.tools, first_page), walk.pages),
            // Fail closed: every page counts as the last one allowed.
            Err(_) => (list.tools.clone(), MAX_PAGES),
        };
        let last = last_page(list.next_cursor.as_deref()) || pages >= MAX_PAGES;
        let trust = self.check_pins(checked, last).await;
        let cfg = &self.shared.config;
        if let Ok(mut t) = self.shared.tools.lock() {
            let cache = t.get_or_insert_with(Listed::default);
            cache
                .trust
                .extend(trust.iter().map(|(k, v)| (k.clone(), v.clone())));
            cache.complete |= last;
        }
        list.tools.retain(|tool| {
            let q = names::qualified(&cfg.server, &tool.name);
            cfg.show_denied || cfg.host.policy.denied_by_name(&q).is_none()
        });
        for tool in &mut list.tools {
            let t = trust
                .get(tool.name.as_ref())
                .cloned()
                .unwrap_or_else(|| Trust::Unknown("not checked".into()));
            if let Some(why) = t.refusal(&cfg.server, &tool.name) {
                let old = tool.description.as_deref().unwrap_or("");
                tool.description = Some(format!("[toolgate: not trusted: {why}] {old}").into());
            }
        }
        list
    }

    /// Checks one page of a listing against the pins (with the entries of
    /// its names on earlier pages); `last`: it has no next page.
    async fn check_pins(
        &self,
        tools: Vec<rmcp::model::Tool>,
        last: bool,
    ) -> HashMap<String, Trust> {
        let config = Arc::clone(&self.shared.config);
        let server = self.shared.config.server.clone();
        let session = self.shared.config.host.session.clone();
        let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        let late = match self.shared.first_listing.lock() {
            Ok(mut first) => first.page(names.iter().cloned(), last),
            // Fail closed: every tool is then a late one, not trusted
            // unless pinned already.
            Err(_) => names.iter().cloned().collect(),
        };
        match tokio::task::spawn_blocking(move || {
            // Opened here, off the async workers: a PostgreSQL store is a
            // blocking client.
            pins::check_all(config.host.open_store(), &server, &session, &tools, &late)
        })
        .await
        {
            Ok(m) => m,
            Err(_) => names
                .into_iter()
                .map(|n| (n, Trust::Unknown("the pin check failed".into())))
                .collect(),
        }
    }

    /// The trust of one tool, listing the server's tools when they are not
    /// known (a client may call without listing). The gateway lists at
    /// most once per change of the server's tools, at most [`MAX_PAGES`]
    /// pages: a tool not in a listing read to its end is not the server's,
    /// and listing again for every call of it would let a server with an
    /// endless cursor turn each call into a walk of every page it allows.
    async fn trust_of(&self, peer: &Peer<RoleClient>, tool: &str) -> Trust {
        let not_listed = || Trust::Unknown(format!("the server does not list a tool `{tool}`"));
        let known = self.shared.tools.lock().ok().and_then(|t| {
            t.as_ref().and_then(|l| match l.trust.get(tool) {
                Some(t) => Some(t.clone()),
                None if l.complete => Some(not_listed()),
                None => None,
            })
        });
        if let Some(t) = known {
            return t;
        }
        let mut cursor: Option<String> = None;
        let mut walk = Walk::default();
        let mut all = HashMap::new();
        for page_no in 0..MAX_PAGES {
            let params = PaginatedRequestParams::default().with_cursor(cursor.clone());
            let page = match peer.list_tools(Some(params)).await {
                Ok(p) => p,
                Err(e) => {
                    return Trust::Unknown(format!("the server's tools cannot be listed: {e}"));
                }
            };
            let last = last_page(page.next_cursor.as_deref()) || page_no + 1 >= MAX_PAGES;
            let checked = walk.page(&page.tools, page_no == 0);
            all.extend(self.check_pins(checked, last).await);
            if last {
                break;
            }
            cursor = page.next_cursor;
        }
        let t = all.get(tool).cloned().unwrap_or_else(not_listed);
        if let Ok(mut m) = self.shared.tools.lock() {
            *m = Some(Listed {
                trust: all,
                complete: true,
            });
        }
        t
    }

    async fn call_tool(
        &self,
        req: CallToolRequest,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let peer = self.server_for(&ctx.meta).await?;
        let tool = req.params.name.to_string();
        let input = req.params.arguments.clone().unwrap_or_default();
        if let Err(r) = self
            .admit(&peer, &tool, input, Some(&ctx.peer), &ctx.ct)
            .await
        {
            return Ok(refused(r.to_string()));
        }
        match forward(
            &peer,
            ClientRequest::CallToolRequest(req),
            for_server(ctx.meta),
            &ctx.ct,
            &self.shared.progress_up,
        )
        .await
        {
            Ok(r) => Ok(r),
            Err(ServiceError::McpError(e)) => Err(e),
            Err(e) => Ok(refused(self.lost(&e.to_string()))),
        }
    }

    /// Passes one `tools/call` of `tool` with `input` through the gate
    /// (pins, decision, approval on ask, ledger row): `Ok` when it is to
    /// run, else why not, in the words the client is told. An approval is
    /// asked of `client` when it can show a form; `cancelled` withdraws it.
    pub(crate) async fn admit(
        &self,
        server: &Peer<RoleClient>,
        tool: &str,
        input: serde_json::Map<String, serde_json::Value>,
        client: Option<&Peer<RoleServer>>,
        cancelled: &CancellationToken,
    ) -> Result<(), Refused> {
        let cfg = &self.shared.config;
        let qualified = names::qualified(&cfg.server, tool);
        let trust = self.trust_of(server, tool).await;
        let pin_refusal = trust.refusal(&cfg.server, tool);
        let call = Call {
            id: call_id(&qualified, &input),
            tool: qualified,
            input,
            client: Client::Mcp,
            cwd: None,
        };
        let ask = match pin_refusal {
            Some(why) => Ask::Blocked(why),
            None => Ask::Person(client),
        };
        decide(cfg, call, ask, cancelled).await
    }

    /// Carries out the [plan](methods::client_request) for a request that
    /// is neither `initialize`, `ping`, `tools/list` nor `tools/call`:
    /// `Ok` when it is to be relayed.
    async fn plan(
        &self,
        request: &ClientRequest,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let cfg = &self.shared.config;
        match methods::client_request(&cfg.server, request) {
            Plan::Relay => Ok(()),
            Plan::Unfit { method, tool, raw } => Err(unfit(cfg, &method, &tool, &raw)),
            Plan::Decide { call, ask, known } => {
                let ask = if ask {
                    Ask::Person(Some(&ctx.peer))
                } else {
                    Ask::Never
                };
                decide(cfg, call, ask, &ctx.ct)
                    .await
                    .map_err(|r| refused_request(known, r.to_string()))
            }
        }
    }

    /// What the client is told of an allowed call whose result never came.
    pub(crate) fn lost(&self, why: &str) -> String {
        format!(
            "the call was allowed and sent to the MCP server `{}`, but no result came back \
             ({why}); whether it ran is unknown",
            self.shared.config.server
        )
    }
}

/// Who may let a call through that the policy asks about.
pub(crate) enum Ask<'a> {
    /// The person at the client (a form, when it can show one), else the
    /// approval queue.
    Person(Option<&'a Peer<RoleServer>>),
    /// Nobody: only a rule that allows it does.
    Never,
    /// The host refuses it whatever the policy says, for this reason.
    Blocked(String),
}

/// Why a call or request did not go through; its text is what the sender
/// is told.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// The gate refused it, holds it for a person, or the host blocked it:
    /// the gate's message (with the host's reason after it).
    #[error("{0}")]
    Gate(String),
    /// The gate failed on it.
    #[error(transparent)]
    Failed(#[from] crate::host::GateFailed),
}

/// Passes `call` through the gate (decision, approval as `ask` says,
/// ledger row): `Ok` when it is to run, else why not.
pub(crate) async fn decide(
    cfg: &Arc<Config>,
    call: Call,
    ask: Ask<'_>,
    cancelled: &CancellationToken,
) -> Result<(), Refused> {
    let (approver, blocked, why): (Box<dyn Approver>, Vec<String>, _) = match ask {
        Ask::Blocked(why) => (Box::new(NeverApprover), vec![call.tool.clone()], Some(why)),
        Ask::Never => (Box::new(NeverApprover), Vec::new(), None),
        Ask::Person(client) => match client.filter(|c| can_elicit(c)) {
            Some(peer) => (
                Box::new(ElicitApprover {
                    peer: peer.clone(),
                    runtime: tokio::runtime::Handle::current(),
                    cancelled: cancelled.clone(),
                    server: cfg.server.clone(),
                }),
                Vec::new(),
                None,
            ),
            None => (Box::new(QueueApprover), Vec::new(), None),
        },
    };
    let passage = cfg.host.pass(call, approver, blocked).await?;
    if matches!(passage.verdict, Verdict::Run) {
        return Ok(());
    }
    let mut text = passage.message;
    if let Some(why) = why {
        text.push('\n');
        text.push_str(&why);
    }
    Err(Refused::Gate(text))
}

/// Whether the client can show an approval form (`elicitation/create`).
fn can_elicit(peer: &Peer<RoleServer>) -> bool {
    peer.peer_info().is_some_and(|info| {
        info.protocol_version.has_initialize()
            && info
                .capabilities
                .elicitation
                .as_ref()
                .is_some_and(|e| e.form.is_some() || e.url.is_none())
    })
}

/// Records a request whose parameters do not fit its method, and the
/// error its sender gets (-32602).
pub(crate) fn unfit(cfg: &Config, method: &str, tool: &str, raw: &str) -> ErrorData {
    let why = format!(
        "the parameters of `{method}` do not fit the MCP schema of that method, so toolgate \
         did not pass the request on (the other side could read them otherwise)"
    );
    cfg.host.reject(tool, raw, &why);
    ErrorData::invalid_params(why, None)
}

/// The error the sender of a request the gate refused gets: -32601 for a
/// method the gateway does not know, -32600 for one it does.
pub(crate) fn refused_request(known: bool, text: String) -> ErrorData {
    if known {
        ErrorData::invalid_request(text, None)
    } else {
        ErrorData::new(rmcp::model::ErrorCode::METHOD_NOT_FOUND, text, None)
    }
}

/// A `tools/call` result that is an error and not the tool's output.
pub(crate) fn refusal(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

fn refused(text: String) -> ServerResult {
    ServerResult::CallToolResult(refusal(text))
}

/// The call id of an MCP call: derived from the tool and its arguments, so
/// the same call retried after an approval has the same digest.
pub(crate) fn call_id(tool: &str, input: &serde_json::Map<String, serde_json::Value>) -> String {
    // The canonical form of {"input": INPUT, "tool": TOOL}, written without
    // building it.
    let json = format!(
        "{{\"input\":{},\"tool\":{}}}",
        toolgate_policy::canonical_object(input),
        serde_json::Value::from(tool)
    );
    let hash = Sha256::digest(json.as_bytes());
    format!("mcp-{}", hex::encode(&hash[..8]))
}

/// Marks the session's server dead when its service ends.
fn watch_server(shared: &Arc<Shared>, service: RunningService<RoleClient, upstream::ToClient>) {
    // Weak: a session that ends (its client gone) drops its server process
    // with it; the watcher must not keep it alive.
    let shared = Arc::downgrade(shared);
    tokio::spawn(async move {
        let _ = service.waiting().await;
        if let Some(shared) = shared.upgrade() {
            shared.dead.store(true, Ordering::SeqCst);
        }
    });
}

/// The lifecycle keys of the per-request protocol (2026-07-28): the server
/// was introduced to over `initialize`, and a server on that lifecycle
/// refuses requests that carry them.
const LIFECYCLE_KEYS: [&str; 4] = [
    "io.modelcontextprotocol/protocolVersion",
    "io.modelcontextprotocol/clientInfo",
    "io.modelcontextprotocol/clientCapabilities",
    "io.modelcontextprotocol/logLevel",
];

/// A client request's `_meta` as the server gets it: everything but the
/// per-request lifecycle keys.
pub(crate) fn for_server(mut meta: RequestMetaObject) -> RequestMetaObject {
    for key in LIFECYCLE_KEYS {
        meta.remove(key);
    }
    meta
}

/// Sends `request` to `peer` as it came (its `_meta` put back), relaying
/// the progress token and a cancellation by the sender.
pub async fn forward<R: ServiceRole>(
    peer: &Peer<R>,
    mut request: R::Req,
    meta: RequestMetaObject,
    cancelled: &CancellationToken,
    progress: &ProgressMap,
) -> Result<R::PeerResp, ServiceError> {
    let token = meta.get_progress_token();
    *request.get_meta_mut() = meta;
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await?;
    let theirs = handle.progress_token.clone();
    if let Some(t) = token
        && let Ok(mut m) = progress.lock()
    {
        m.insert(theirs.clone(), t);
    }
    let id = handle.id.clone();
    let r = tokio::select! {
        r = handle.await_response() => r,
        _ = cancelled.cancelled() => {
            let _ = cancel_request(peer, id, "cancelled by the sender").await;
            Err(ServiceError::Cancelled { reason: Some("cancelled".into()) })
        }
    };
    if let Ok(mut m) = progress.lock() {
        m.remove(&theirs);
    }
    r
}

/// Tells `peer` that the request `id` is withdrawn.
pub async fn cancel_request<R: ServiceRole>(
    peer: &Peer<R>,
    id: RequestId,
    reason: &str,
) -> Result<(), ServiceError> {
    let n = CancelledNotification::new(CancelledNotificationParam::new(
        Some(id),
        Some(reason.to_string()),
    ));
    peer.send_notification(n.into()).await
}

/// A failed forward as the JSON-RPC error the sender gets.
pub fn to_error(e: ServiceError) -> ErrorData {
    match e {
        ServiceError::McpError(e) => e,
        other => ErrorData::internal_error(other.to_string(), None),
    }
}

impl Service<RoleServer> for Relay {
    async fn handle_request(
        &self,
        request: ClientRequest,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let _ = self.shared.downstream.set(ctx.peer.clone());
        self.check_alive()?;
        match request {
            ClientRequest::InitializeRequest(r) => self.initialize(r.params).await,
            ClientRequest::PingRequest(_) => Ok(ServerResult::empty(())),
            ClientRequest::ListToolsRequest(r) => self.list_tools(r, ctx).await,
            ClientRequest::CallToolRequest(r) => self.call_tool(r, ctx).await,
            other => {
                self.plan(&other, &ctx).await?;
                let peer = self.server_for(&ctx.meta).await?;
                let r = forward(
                    &peer,
                    other,
                    for_server(ctx.meta),
                    &ctx.ct,
                    &self.shared.progress_up,
                )
                .await;
                if r.is_err() && self.shared.dead.load(Ordering::SeqCst) {
                    self.check_alive()?;
                }
                r.map_err(to_error)
            }
        }
    }

    async fn handle_notification(
        &self,
        mut notification: ClientNotification,
        ctx: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let _ = self.shared.downstream.set(ctx.peer.clone());
        match &mut notification {
            // rmcp has already cancelled the request task it names, which
            // withdraws the forwarded request (or the approval it waits for).
            ClientNotification::CancelledNotification(_) => return Ok(()),
            // The gateway tells the server itself when it connects.
            ClientNotification::InitializedNotification(_) => return Ok(()),
            // Not one of the protocol's: dropped, never forwarded.
            ClientNotification::CustomNotification(_) => return Ok(()),
            ClientNotification::ProgressNotification(p) => {
                let mapped = self
                    .shared
                    .progress_down
                    .lock()
                    .ok()
                    .and_then(|m| m.get(&p.params.progress_token).cloned());
                match mapped {
                    Some(t) => p.params.progress_token = t,
                    None => return Ok(()),
                }
            }
            _ => {}
        }
        *notification.get_meta_mut() = ctx.meta;
        if let Some(Ok(peer)) = self.shared.upstream.get() {
            let _ = peer.send_notification(notification).await;
        }
        Ok(())
    }

    fn get_info(&self) -> ServerConfig {
        let mut info = InitializeResult::new(Default::default());
        info.protocol_version = ProtocolVersion::LATEST_WITH_INITIALIZE;
        info.server_info = Implementation::new("toolgate-mcp", env!("CARGO_PKG_VERSION"));
        info
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The id is the digest of the canonical {input, tool}: the same call
    /// after an approval has the same id, another call another.
    #[test]
    fn a_call_id_is_the_digest_of_the_canonical_tool_and_input() {
        let input = serde_json::json!({"b": "\"x\"", "a": [1, {"d": 2, "c": 3}]});
        let serde_json::Value::Object(input) = input else {
            panic!("an object")
        };
        let mut obj = serde_json::Map::new();
        obj.insert("tool".into(), "mcp__s__t".into());
        obj.insert("input".into(), serde_json::Value::Object(input.clone()));
        let json = toolgate_policy::canonical_json(&serde_json::Value::Object(obj));
        let want: String = Sha256::digest(json.as_bytes())
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(call_id("mcp__s__t", &input), format!("mcp-{want}"));
        assert_ne!(call_id("mcp__s__u", &input), call_id("mcp__s__t", &input));
    }
}

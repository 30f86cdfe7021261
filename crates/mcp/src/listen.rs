//! Clients over streamable HTTP. rmcp's HTTP service takes a
//! `ServerHandler` (a method per request kind) rather than a `Service`; this
//! adapter turns each method back into the request it came as and hands it
//! to the [`Relay`], so both downstream transports share one relay. Each
//! body is first checked strictly ([`strict_body`]), as `framing.rs` checks
//! each line on stdio.

use std::future::Future;

use rmcp::handler::server::ServerHandler;
#[allow(deprecated)]
use rmcp::model::SetLevelRequestParams;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientNotification, ClientRequest,
    CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest, CustomResult,
    ErrorData, GetPromptRequestParams, GetPromptResponse, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, Notification, PaginatedRequestParams, ProgressNotificationParam,
    ReadResourceRequestParams, ReadResourceResponse, Request, RequestOptionalParam, ServerConfig,
    ServerResult,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{RoleServer, Service};

use crate::relay::Relay;
use crate::strict::Refused;

/// The relay as rmcp's HTTP service wants it.
#[derive(Clone)]
pub struct HttpRelay(pub Relay);

fn unexpected(what: &str) -> ErrorData {
    ErrorData::internal_error(
        format!("the MCP server answered {what} with something else"),
        None,
    )
}

impl HttpRelay {
    fn ask(
        &self,
        request: ClientRequest,
        ctx: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ServerResult, ErrorData>> + Send + '_ {
        Service::<RoleServer>::handle_request(&self.0, request, ctx)
    }

    async fn notify(&self, n: ClientNotification, ctx: NotificationContext<RoleServer>) {
        let _ = Service::<RoleServer>::handle_notification(&self.0, n, ctx).await;
    }
}

macro_rules! expect {
    ($r:expr, $variant:ident, $what:literal) => {
        match $r? {
            ServerResult::$variant(v) => Ok(v),
            _ => Err(unexpected($what)),
        }
    };
}

impl ServerHandler for HttpRelay {
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        let r = self
            .ask(
                ClientRequest::InitializeRequest(Request::new(request)),
                context,
            )
            .await;
        expect!(r, InitializeResult, "initialize")
    }

    async fn ping(&self, _context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let r = self
            .ask(
                ClientRequest::CompleteRequest(Request::new(request)),
                context,
            )
            .await;
        expect!(r, CompleteResult, "completion/complete")
    }

    // Relayed as the client sent it: deprecated, not ours to drop.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.ask(
            ClientRequest::SetLevelRequest(Request::new(request)),
            context,
        )
        .await
        .map(|_| ())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let r = self
            .ask(
                ClientRequest::GetPromptRequest(Request::new(request)),
                context,
            )
            .await?;
        match r {
            ServerResult::GetPromptResult(v) => Ok(GetPromptResponse::Complete(v)),
            ServerResult::InputRequiredResult(v) => Ok(GetPromptResponse::InputRequired(v)),
            _ => Err(unexpected("prompts/get")),
        }
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let req = ClientRequest::ListPromptsRequest(paged(request));
        expect!(
            self.ask(req, context).await,
            ListPromptsResult,
            "prompts/list"
        )
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let req = ClientRequest::ListResourcesRequest(paged(request));
        expect!(
            self.ask(req, context).await,
            ListResourcesResult,
            "resources/list"
        )
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let req = ClientRequest::ListResourceTemplatesRequest(paged(request));
        expect!(
            self.ask(req, context).await,
            ListResourceTemplatesResult,
            "resources/templates/list"
        )
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let r = self
            .ask(
                ClientRequest::ReadResourceRequest(Request::new(request)),
                context,
            )
            .await?;
        match r {
            ServerResult::ReadResourceResult(v) => Ok(ReadResourceResponse::Complete(v)),
            ServerResult::InputRequiredResult(v) => Ok(ReadResourceResponse::InputRequired(v)),
            _ => Err(unexpected("resources/read")),
        }
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let r = self
            .ask(
                ClientRequest::CallToolRequest(Request::new(request)),
                context,
            )
            .await?;
        match r {
            ServerResult::CallToolResult(v) => Ok(CallToolResponse::Complete(v)),
            ServerResult::InputRequiredResult(v) => Ok(CallToolResponse::InputRequired(v)),
            ServerResult::CreateTaskResult(v) => Ok(CallToolResponse::Task(v)),
            _ => Err(unexpected("tools/call")),
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let req = ClientRequest::ListToolsRequest(paged(request));
        expect!(self.ask(req, context).await, ListToolsResult, "tools/list")
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let r = self
            .ask(ClientRequest::CustomRequest(request), context)
            .await;
        expect!(r, CustomResult, "a custom request")
    }

    async fn on_progress(
        &self,
        notification: ProgressNotificationParam,
        context: NotificationContext<RoleServer>,
    ) {
        let n = ClientNotification::ProgressNotification(Notification::new(notification));
        self.notify(n, context).await;
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        let n = ClientNotification::RootsListChangedNotification(Default::default());
        self.notify(n, context).await;
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) {
        let n = ClientNotification::CustomNotification(notification);
        self.notify(n, context).await;
    }

    fn get_info(&self) -> ServerConfig {
        Service::<RoleServer>::get_info(&self.0)
    }
}

/// Largest request body read from an HTTP client.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// The strict check of `framing.rs`, for clients over HTTP (whose bodies
/// rmcp reads itself): a body in which an object repeats a key is recorded
/// and refused, never handed to the relay. A request gets its -32600 as
/// the HTTP answer, a notification is dropped (202), and a response (the
/// client answering the server) is replaced by an error under its id.
pub async fn strict_body(
    axum::extract::State(config): axum::extract::State<std::sync::Arc<crate::Config>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::http::{StatusCode, header};
    use axum::response::IntoResponse;
    if request.method() != axum::http::Method::POST {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            "the request body is too large",
        )
            .into_response();
    };
    let why = match toolgate_policy::json::check(&bytes) {
        // rmcp answers what is not JSON at all itself.
        Ok(()) | Err(toolgate_policy::json::StrictJsonError::Syntax(_)) => {
            return next
                .run(axum::extract::Request::from_parts(parts, bytes.into()))
                .await;
        }
        Err(why) => why,
    };
    let refused = Refused::read(&bytes, &why.to_string());
    let problem = format!(
        "the client's message was not passed on to the MCP server: {}",
        refused.why
    );
    config
        .host
        .reject(&refused.ledger_name(&config.server), &refused.raw, &problem);
    if let Some(stand_in) = refused.stand_in("client") {
        parts.headers.remove(header::CONTENT_LENGTH);
        return next
            .run(axum::extract::Request::from_parts(parts, stand_in.into()))
            .await;
    }
    match refused.reply("client") {
        Some(reply) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            reply,
        )
            .into_response(),
        None => StatusCode::ACCEPTED.into_response(),
    }
}

fn paged<M: Default>(
    params: Option<PaginatedRequestParams>,
) -> RequestOptionalParam<M, PaginatedRequestParams> {
    match params {
        Some(p) => RequestOptionalParam::with_param(p),
        None => RequestOptionalParam {
            method: M::default(),
            params: None,
            extensions: Default::default(),
        },
    }
}

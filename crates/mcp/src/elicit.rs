//! Asking the person at the client: an [`Approver`] that sends
//! `elicitation/create` (form mode) to the client and waits for its answer.
//!
//! The gate runs in place on an async worker (most calls never ask); `ask`
//! turns that worker into a blocking thread while it waits, handing the
//! worker's other tasks on, and the request goes out on the async runtime
//! (`Handle::block_on` from that thread). The answer comes
//! back as the gate's [`Answer`]: `accept` approves this call once (or for
//! the session, when the rule allows it and the person chose so); `decline`,
//! `cancel`, an error, or the call being cancelled by the client do not.

use rmcp::Peer;
use rmcp::RoleServer;
use rmcp::model::{ClientResult, ElicitRequestParams, ElicitationAction, ServerRequest};
use serde_json::json;
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;
use toolgate_gate::{Answer, ApprovalRequest, Approver, AskError};

/// Why the client could not be asked; the call is then not approved.
#[derive(Debug, thiserror::Error)]
pub enum ElicitError {
    /// The form did not serialise into an elicitation request.
    #[error("cannot build the approval form: {0}")]
    Form(#[source] serde_json::Error),
    /// The request could not be sent.
    #[error("cannot ask the client: {0}")]
    Send(#[source] rmcp::ServiceError),
    /// The client failed or went away before answering.
    #[error("the client did not answer: {0}")]
    NoAnswer(#[source] rmcp::ServiceError),
}

/// The form field offering "this session" (optional; absent means once).
pub const SCOPE_FIELD: &str = "scope";

/// Sends the approval question to the client as a form elicitation.
pub struct ElicitApprover {
    /// The client.
    pub peer: Peer<RoleServer>,
    /// The runtime the request is sent on.
    pub runtime: Handle,
    /// Cancelled when the client withdraws the call.
    pub cancelled: CancellationToken,
    /// The server's name, shown in the question.
    pub server: String,
}

impl ElicitApprover {
    /// The form: a message with everything a person needs, and no required
    /// field, so a plain accept is a yes for this call.
    pub fn params(&self, req: &ApprovalRequest) -> Result<ElicitRequestParams, ElicitError> {
        let args = serde_json::Value::Object(req.call.input.clone());
        let message = format!(
            "toolgate: approve this call of the MCP server `{}`?\n{}arguments: {}\ndigest:  {}",
            toolgate_gate::texts::shown::line(&self.server),
            req.details(),
            toolgate_gate::texts::shown::json_pretty(&args),
            req.digest
        );
        let mut properties = serde_json::Map::new();
        if req.remember {
            properties.insert(
                SCOPE_FIELD.into(),
                json!({
                    "type": "string",
                    "title": "Approve for",
                    "description": "`once` (the default) or `session` for the rest of this session",
                    "enum": ["once", "session"],
                    "default": "once"
                }),
            );
        }
        serde_json::from_value(json!({
            "mode": "form",
            "message": message,
            "requestedSchema": {"type": "object", "properties": properties}
        }))
        .map_err(ElicitError::Form)
    }
}

impl Approver for ElicitApprover {
    fn ask(&mut self, req: &mut ApprovalRequest) -> Result<Answer, AskError> {
        let params = self.params(req)?;
        let request = ServerRequest::ElicitRequest(rmcp::model::ElicitRequest::new(params));
        let peer = self.peer.clone();
        let cancelled = self.cancelled.clone();
        let runtime = self.runtime.clone();
        let answer = crate::host::blocking(move || {
            runtime.block_on(async move {
                let handle = peer
                    .send_request_with_option(request, Default::default())
                    .await
                    .map_err(ElicitError::Send)?;
                let id = handle.id.clone();
                tokio::select! {
                    r = handle.await_response() => r.map(Some).map_err(ElicitError::NoAnswer),
                    _ = cancelled.cancelled() => {
                        let _ = crate::relay::cancel_request::<RoleServer>(&peer, id, "the call was cancelled").await;
                        Ok(None)
                    }
                }
            })
        })?;
        let Some(result) = answer else {
            return Ok(Answer::Decline {
                note: Some("the call was cancelled while it waited for approval".into()),
            });
        };
        match result {
            ClientResult::ElicitResult(r) => Ok(match r.action {
                ElicitationAction::Accept => {
                    let scope = r
                        .content
                        .as_ref()
                        .and_then(|c| c.get(SCOPE_FIELD))
                        .and_then(|v| v.as_str());
                    match scope {
                        Some("session") if req.remember => Answer::Session,
                        None | Some("once") => Answer::Approve,
                        Some(other) => Answer::Other(format!("accept with scope `{other}`")),
                    }
                }
                ElicitationAction::Decline => Answer::Decline {
                    note: Some("the user declined".into()),
                },
                ElicitationAction::Cancel => Answer::Decline {
                    note: Some("the user cancelled the approval".into()),
                },
                _ => Answer::Other("an elicitation action toolgate does not know".into()),
            }),
            other => Ok(Answer::Other(format!(
                "the client answered the approval with something else: {other:?}"
            ))),
        }
    }
}

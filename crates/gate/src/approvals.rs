//! Answering a queued approval: the one implementation behind `toolgate
//! approvals approve|decline`, the approval page and its API.
//!
//! An approval is bound to the digest of what was queued: a call's
//! canonical JSON, or a changed MCP tool definition's. Approving checks the
//! stored snapshot still hashes to that digest (and, where the person was
//! shown one, that it is the digest they saw), records the answer, and says
//! what happens next ([`Approved`]): the waiting host runs the call, the
//! new tool definition becomes the pin, or a call of toolgate's own tools is
//! resumed by the caller through [`crate::Gate::resume`].

use toolgate_policy::Call;
use toolgate_policy::rule_ids::HOST_PIN_CHANGED;
use toolgate_store::{Answer, ApprovalStatus, Outcome, Pending, Store};

/// Why an approval could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum ApprovalError {
    /// No approval has that id.
    #[error("no approval `{0}`")]
    NotFound(String),
    /// It was answered, expired or used already.
    #[error("approval `{id}` is {status}, not pending")]
    NotPending {
        /// The approval.
        id: String,
        /// Its status now.
        status: ApprovalStatus,
    },
    /// The digest the person was shown is not the approval's.
    #[error("the digest given for approval `{0}` is not the call's digest: look at the call again")]
    WrongDigest(String),
    /// The stored snapshot no longer hashes to the stored digest.
    #[error(
        "the stored call of approval `{0}` no longer matches its digest; it was changed after it \
         was queued, so it cannot be approved"
    )]
    Tampered(String),
    /// A tool-definition approval whose definition changed again, or was
    /// accepted another way, meanwhile.
    #[error(
        "the definition of `{tool}` of `{server}` has changed again or was accepted already; see \
         `toolgate mcp pins list {server}`"
    )]
    PinMoved {
        /// The MCP server.
        server: String,
        /// The tool.
        tool: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] toolgate_store::Error),
}

/// What approving led to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approved {
    /// A host waits for the answer (a hook, the MCP gateway) and runs the
    /// call itself: a hook's client once it sees the answer, the gateway
    /// when the same call is made again.
    HostRuns {
        /// The hook's client, when a hook queued it.
        client: Option<String>,
        /// The MCP server, when the gateway queued it.
        server: Option<String>,
    },
    /// A changed MCP tool definition is now trusted (its pin).
    Pinned {
        /// The MCP server.
        server: String,
        /// The tool.
        tool: String,
    },
    /// A call of toolgate's own tools: [`crate::Gate::resume`] runs it.
    Resume,
}

/// How a person approves.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveRequest<'a> {
    /// The digest the person was shown, when they were shown one: the
    /// approval holds only for exactly that call.
    pub digest: Option<&'a str>,
    /// For the rest of the session, where the rule allows it.
    pub session: bool,
    /// A note, recorded with the answer.
    pub note: Option<&'a str>,
    /// Who answers (`cli:NAME`, `serve`), recorded with the answer.
    pub who: &'a str,
}

/// Whether the stored snapshot still hashes to the stored digest: a call's
/// canonical digest, or for a changed tool definition the SHA-256 of the
/// definition as queued.
pub fn digest_ok(p: &Pending) -> bool {
    if is_definition(p) {
        return toolgate_policy::layers::digest(p.snapshot_json.as_bytes()) == p.digest;
    }
    serde_json::from_str::<serde_json::Value>(&p.snapshot_json)
        .ok()
        .and_then(|v| Call::from_value(&v).ok())
        .is_some_and(|c| c.digest() == p.digest)
}

/// Whether the approval trusts a changed MCP tool definition.
pub fn is_definition(p: &Pending) -> bool {
    p.rule.as_deref() == Some(HOST_PIN_CHANGED)
}

/// Approves `id` (see the module documentation).
pub fn approve(
    store: &Store,
    id: &str,
    req: ApproveRequest<'_>,
) -> Result<(Pending, Approved), ApprovalError> {
    let pending = store
        .approval(id)?
        .ok_or_else(|| ApprovalError::NotFound(id.to_owned()))?;
    // A call of toolgate's own tools approved on the page, whose waiter has
    // gone, is approved already: it is left to resume.
    let approved_elsewhere = pending.status == ApprovalStatus::Approved
        && pending.client.is_none()
        && pending.server.is_none();
    if approved_elsewhere {
        return Ok((pending, Approved::Resume));
    }
    if pending.status != ApprovalStatus::Pending {
        return Err(ApprovalError::NotPending {
            id: id.to_owned(),
            status: pending.status,
        });
    }
    if let Some(d) = req.digest
        && !same(d, &pending.digest)
    {
        return Err(ApprovalError::WrongDigest(id.to_owned()));
    }
    if !digest_ok(&pending) {
        return Err(ApprovalError::Tampered(id.to_owned()));
    }
    let answer = if req.session && !is_definition(&pending) {
        Answer::Session
    } else {
        Answer::Approve
    };
    let answered = store.answer(id, answer, req.note, req.who)?.approval;
    if is_definition(&pending) {
        let pinned = accept_definition(store, &answered)?;
        return Ok((answered, pinned));
    }
    let next = if answered.server.is_some() || answered.client.is_some() {
        Approved::HostRuns {
            client: answered.client.clone(),
            server: answered.server.clone(),
        }
    } else {
        Approved::Resume
    };
    Ok((answered, next))
}

/// Declines `id`; the note reaches the model.
pub fn decline(
    store: &Store,
    id: &str,
    note: Option<&str>,
    who: &str,
) -> Result<Pending, ApprovalError> {
    let pending = store
        .approval(id)?
        .ok_or_else(|| ApprovalError::NotFound(id.to_owned()))?;
    if pending.status != ApprovalStatus::Pending {
        return Err(ApprovalError::NotPending {
            id: id.to_owned(),
            status: pending.status,
        });
    }
    let note = note.map(str::trim).filter(|n| !n.is_empty());
    Ok(store.answer(id, Answer::Decline, note, who)?.approval)
}

/// The approved definition becomes the pin (only the definition that was
/// queued, by its digest), and the approval is closed with its resolution
/// row.
fn accept_definition(store: &Store, p: &Pending) -> Result<Approved, ApprovalError> {
    let server = p.server.clone().unwrap_or_default();
    let tool = serde_json::from_str::<serde_json::Value>(&p.snapshot_json)
        .ok()
        .and_then(|v| v["name"].as_str().map(str::to_owned))
        .ok_or_else(|| ApprovalError::Tampered(p.id.clone()))?;
    let moved = || ApprovalError::PinMoved {
        server: server.clone(),
        tool: tool.clone(),
    };
    if store.claim_for_execution(&p.id)?.is_none() {
        return Err(moved());
    }
    let accepted = store.accept_pin(&server, &tool, Some(&p.digest))?;
    let outcome = if accepted.is_some() {
        Outcome::Executed
    } else {
        Outcome::Blocked
    };
    store.finish(&p.id, outcome, 0)?;
    match accepted {
        Some(_) => Ok(Approved::Pinned { server, tool }),
        None => Err(moved()),
    }
}

/// Compares two digests in time that does not depend on where they differ.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

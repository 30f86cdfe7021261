//! The JSON API. Store calls are short SQLite transactions, run on the
//! blocking pool so a busy database never stalls the async workers.

use std::convert::Infallible;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::response::sse::{Event, KeepAlive, Sse};
use serde::Deserialize;
use serde_json::{Value, json};
use toolgate_gate::approvals::{self, ApprovalError, ApproveRequest, Approved};
use toolgate_store::{ApprovalStatus, Error as StoreError, ReviewRecord, RowFilter, Store};

use crate::auth::refuse;
use crate::state::AppState;
use crate::view::{self, ok};

/// Who answers through the page or the API, for the record.
const WHO: &str = "web";

async fn db<T: Send + 'static>(
    state: &AppState,
    f: impl FnOnce(&Store) -> T + Send + 'static,
) -> Result<T, Response> {
    let s = state.clone();
    tokio::task::spawn_blocking(move || f(s.store()))
        .await
        .map_err(|e| {
            refuse(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("worker failed: {e}"),
            )
        })
}

fn store_error(e: &StoreError) -> Response {
    let status = match e {
        StoreError::UnknownApproval { .. } => StatusCode::NOT_FOUND,
        StoreError::AlreadyAnswered { .. } | StoreError::SessionNotAllowed { .. } => {
            StatusCode::CONFLICT
        }
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    refuse(status, &e.to_string())
}

pub(crate) async fn session(State(state): State<AppState>) -> Response {
    ok(&json!({
        "csrf": state.0.csrf,
        "listen": state.0.addr.to_string(),
        "approval_ttl_secs": state.0.approval_ttl.as_secs(),
        "version": env!("CARGO_PKG_VERSION"),
    }))
}

#[derive(Deserialize)]
pub(crate) struct ListQuery {
    /// Every approval, not only the waiting ones.
    #[serde(default)]
    all: bool,
}

pub(crate) async fn list(State(state): State<AppState>, Query(q): Query<ListQuery>) -> Response {
    let roots = state.0.roots.clone();
    let result = db(&state, move |s| {
        let status = (!q.all).then_some(ApprovalStatus::Pending);
        s.list_approvals(status)?
            .into_iter()
            .map(|p| Ok((reviewed(s, &p.id)?, p)))
            .collect::<Result<Vec<_>, StoreError>>()
    })
    .await;
    match result {
        Err(r) => r,
        Ok(Err(e)) => store_error(&e),
        Ok(Ok(list)) => {
            let now = view::now_millis();
            let items: Vec<Value> = list
                .iter()
                .map(|(r, p)| view::approval(p, r.as_ref(), &roots, now))
                .collect();
            ok(&json!({ "approvals": items }))
        }
    }
}

pub(crate) async fn get_one(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    let roots = state.0.roots.clone();
    let key = id.clone();
    let found = db(&state, move |s| {
        s.approval(&key)?
            .map(|p| Ok((reviewed(s, &p.id)?, p)))
            .transpose()
    })
    .await;
    match found {
        Err(r) => r,
        Ok(Err(e)) => store_error(&e),
        Ok(Ok(None)) => refuse(StatusCode::NOT_FOUND, &format!("no approval `{id}`")),
        Ok(Ok(Some((r, p)))) => ok(&view::approval(&p, r.as_ref(), &roots, view::now_millis())),
    }
}

/// The reviewer model's answer recorded on the request row of the call
/// queued as approval `id` (an escalated call's), if any.
fn reviewed(s: &Store, id: &str) -> Result<Option<ReviewRecord>, StoreError> {
    Ok(s.request_row(id)?.and_then(|row| row.record.review))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ApproveBody {
    /// The digest the person was shown: the approval is bound to it.
    digest: String,
    /// Approve for the rest of the session (where the rule allows it).
    #[serde(default)]
    session: bool,
    note: Option<String>,
}

pub(crate) async fn approve(
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Result<Json<ApproveBody>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Ok(Json(body)) = body else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "the body must be JSON: {\"digest\": \"..\", \"session\": false, \"note\": null}",
        );
    };
    let key = id.clone();
    let result = db(
        &state,
        move |s| -> Result<Result<Value, Response>, StoreError> {
            let answer = if body.session { "session" } else { "approve" };
            let req = ApproveRequest {
                digest: Some(&body.digest),
                session: body.session,
                note: body.note.as_deref(),
                who: WHO,
            };
            match approvals::approve(s, &key, req) {
                Ok((p, next)) => Ok(Ok(json!({
                    "id": p.id,
                    "status": p.status.as_str(),
                    "answer": answer,
                    "pinned": matches!(next, Approved::Pinned { .. }),
                }))),
                Err(e) => answer_error(e),
            }
        },
    )
    .await;
    finish_answer(&state, result)
}

/// An approval error as the API's answer: 404 for an unknown id, 409 for
/// one that cannot be answered as asked, the store's errors as such.
fn answer_error(e: ApprovalError) -> Result<Result<Value, Response>, StoreError> {
    let conflict = |m: String| Ok(Err(refuse(StatusCode::CONFLICT, &m)));
    match e {
        ApprovalError::Store(e) => Err(e),
        ApprovalError::NotFound(_) => Ok(Err(refuse(StatusCode::NOT_FOUND, &e.to_string()))),
        ApprovalError::WrongDigest(_) => conflict(
            "the digest in the request is not the call's digest: reload and look again".into(),
        ),
        other => conflict(other.to_string()),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DeclineBody {
    /// Why; it reaches the model.
    note: Option<String>,
}

pub(crate) async fn decline(
    State(state): State<AppState>,
    Path(id): Path<String>,
    body: Result<Json<DeclineBody>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Ok(Json(body)) = body else {
        return refuse(
            StatusCode::BAD_REQUEST,
            "the body must be JSON: {\"note\": \"..\"}",
        );
    };
    let result = db(
        &state,
        move |s| -> Result<Result<Value, Response>, StoreError> {
            match approvals::decline(s, &id, body.note.as_deref(), WHO) {
                Ok(p) => Ok(Ok(json!({
                    "id": p.id,
                    "status": p.status.as_str(),
                    "answer": "decline",
                }))),
                Err(e) => answer_error(e),
            }
        },
    )
    .await;
    finish_answer(&state, result)
}

fn finish_answer(
    state: &AppState,
    result: Result<Result<Result<Value, Response>, StoreError>, Response>,
) -> Response {
    match result {
        Err(r) | Ok(Ok(Err(r))) => r,
        Ok(Err(e)) => store_error(&e),
        Ok(Ok(Ok(v))) => {
            state.bump();
            ok(&v)
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct HistoryQuery {
    session: Option<String>,
    client: Option<String>,
    /// `allow`, `ask` or `deny`.
    decision: Option<String>,
    /// `executed`, `failed`, `blocked`, `waiting`, `passed`.
    outcome: Option<String>,
    limit: Option<usize>,
}

/// How many of the newest rows a filtered history looks through.
const HISTORY_SCAN: usize = 5000;

pub(crate) async fn history(
    State(state): State<AppState>,
    Query(q): Query<HistoryQuery>,
) -> Response {
    let limit = q.limit.unwrap_or(100).min(1000);
    let result = db(&state, move |s| {
        s.rows(&RowFilter {
            session: q.session.clone().filter(|v| !v.is_empty()),
            limit: Some(HISTORY_SCAN),
            newest_first: true,
            ..RowFilter::default()
        })
        .map(|rows| {
            let want = |f: &Option<String>, v: Option<&str>| match f.as_deref() {
                None | Some("") => true,
                Some(f) => v == Some(f),
            };
            rows.into_iter()
                .filter(|r| want(&q.client, r.record.client.as_deref()))
                .filter(|r| want(&q.decision, Some(r.record.decision.as_str())))
                .filter(|r| want(&q.outcome, Some(r.record.outcome.as_str())))
                .take(limit)
                .map(|r| view::row(&r))
                .collect::<Vec<_>>()
        })
    })
    .await;
    match result {
        Err(r) => r,
        Ok(Err(e)) => store_error(&e),
        Ok(Ok(rows)) => ok(&json!({ "rows": rows })),
    }
}

pub(crate) async fn verify(State(state): State<AppState>) -> Response {
    let result = db(&state, |s| {
        Ok::<_, StoreError>((s.verify()?, s.head()?, s.totals()?))
    })
    .await;
    match result {
        Err(r) => r,
        Ok(Err(e)) => store_error(&e),
        Ok(Ok((report, head, t))) => ok(&json!({
            "intact": report.is_intact(),
            "rows": report.rows,
            "problem": report.problem.as_ref().map(|p| json!({"seq": p.seq, "detail": p.to_string()})),
            "head": {"seq": head.seq, "hash": head.hash},
            "totals": {
                "requests": t.requests, "prompts": t.prompts, "executions": t.executions,
                "blocked": t.blocked, "waiting": t.waiting, "failed": t.failed, "passed": t.passed,
            },
        })),
    }
}

/// Server-sent events: one `change` event now and one whenever the queue
/// or the ledger changes; the page then reloads what it shows.
pub(crate) async fn events(
    State(state): State<AppState>,
) -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    let mut rx = state.0.changes.subscribe();
    rx.mark_changed();
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.changed().await.ok()?;
        let v = *rx.borrow_and_update();
        Some((Ok(Event::default().event("change").data(v.to_string())), rx))
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

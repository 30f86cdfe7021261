//! The one layer over every route: host check, token (header or cookie),
//! and for state-changing requests the Origin and CSRF checks.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::state::AppState;
use crate::{CSRF_HEADER, token};

/// A refusal as JSON: `{"error": "..."}`.
pub(crate) fn refuse(status: StatusCode, why: &str) -> Response {
    crate::view::reply(status, &serde_json::json!({ "error": why }))
}

pub(crate) async fn guard(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return refuse(StatusCode::BAD_REQUEST, "no Host header");
    };
    if !state.host_allowed(host) {
        return refuse(
            StatusCode::FORBIDDEN,
            "the Host header does not name this server",
        );
    }
    let host = host.to_owned();

    // The printed link: `/?token=..` sets the cookie, then redirects to
    // `/` so the token leaves the address bar and the history.
    if req.method() == Method::GET && req.uri().path() == "/" {
        if let Some(given) = query_token(req.uri().query()) {
            if !token::same(&given, &state.0.token) {
                return refuse(StatusCode::UNAUTHORIZED, "wrong token");
            }
            let cookie = format!(
                "{}={}; HttpOnly; SameSite=Strict; Path=/",
                state.0.cookie, state.0.token
            );
            return Response::builder()
                .status(StatusCode::SEE_OTHER)
                .header(header::LOCATION, "/")
                .header(header::SET_COOKIE, cookie)
                .header(header::CACHE_CONTROL, "no-store")
                .body(Body::empty())
                .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response());
        }
    }

    if !authorized(&state, headers) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "missing or wrong token: open the link `toolgate serve` printed, or send \
             `Authorization: Bearer TOKEN`",
        );
    }

    let changes_state = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if changes_state {
        let origin = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok());
        let expected = format!("http://{host}");
        if !origin.is_some_and(|o| o.eq_ignore_ascii_case(&expected)) {
            return refuse(
                StatusCode::FORBIDDEN,
                "a state-changing request needs an Origin header naming this server",
            );
        }
        let csrf = headers.get(CSRF_HEADER).and_then(|c| c.to_str().ok());
        if !csrf.is_some_and(|c| token::same(c, &state.0.csrf)) {
            return refuse(
                StatusCode::FORBIDDEN,
                "a state-changing request needs the CSRF token from GET /api/session in \
                 X-CSRF-Token",
            );
        }
    }
    let mut resp = next.run(req).await;
    let h = resp.headers_mut();
    h.insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        header::HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::X_FRAME_OPTIONS,
        header::HeaderValue::from_static("DENY"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static(
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
             frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
        ),
    );
    h.insert(
        header::REFERRER_POLICY,
        header::HeaderValue::from_static("no-referrer"),
    );
    resp
}

fn authorized(state: &AppState, headers: &HeaderMap) -> bool {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if let Some(b) = bearer {
        return token::same(b.trim(), &state.0.token);
    }
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .any(|(k, v)| k == state.0.cookie && token::same(v, &state.0.token))
}

fn query_token(query: Option<&str>) -> Option<String> {
    query?
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == "token")
        .map(|(_, v)| v.to_owned())
}

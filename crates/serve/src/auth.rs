//! The one layer over every route: host check, token, and for
//! state-changing requests the Origin and CSRF checks.
//!
//! The token travels only in `Authorization: Bearer`, never in a cookie:
//! a browser sends a cookie of 127.0.0.1 to every port of 127.0.0.1, so
//! any other server listening there (another user's, one the agent
//! started) would receive it and could approve calls with it. The page
//! keeps the token in the browser's storage for its own origin (scheme,
//! host and port), which no other port can read, and sends it as a header;
//! its static files are served without the token, since they hold none.

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

    // The page's static files hold no secret: the page itself asks for
    // the token (from the link's `#token=..`, kept in its own storage).
    let path = req.uri().path();
    if matches!(*req.method(), Method::GET | Method::HEAD)
        && matches!(path, "/" | "/assets/app.js" | "/assets/app.css")
    {
        // A link of the earlier form, `/?token=..`: checked, then handed to
        // the page in the fragment, which never reaches a server.
        if path == "/"
            && let Some(given) = query_token(req.uri().query())
        {
            if !token::same(&given, &state.0.token) {
                return refuse(StatusCode::UNAUTHORIZED, "wrong token");
            }
            return Response::builder()
                .status(StatusCode::SEE_OTHER)
                .header(header::LOCATION, format!("/#token={}", state.0.token))
                .header(header::CACHE_CONTROL, "no-store")
                .header(header::REFERRER_POLICY, "no-referrer")
                .body(Body::empty())
                .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response());
        }
        return secure_headers(next.run(req).await);
    }

    if !authorized(&state, req.headers()) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "missing or wrong token: open the link `toolgate serve` printed, or send \
             `Authorization: Bearer TOKEN`",
        );
    }
    let headers = req.headers();

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
    secure_headers(next.run(req).await)
}

/// The headers every answer carries: nothing cached, sniffed, framed or
/// loaded from elsewhere, no referrer.
fn secure_headers(mut resp: Response) -> Response {
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
    bearer.is_some_and(|b| token::same(b.trim(), &state.0.token))
}

fn query_token(query: Option<&str>) -> Option<String> {
    query?
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == "token")
        .map(|(_, v)| v.to_owned())
}

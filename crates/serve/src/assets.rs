//! The page's assets, embedded at build time (no CDN, nothing fetched).

use axum::http::header;
use axum::response::{Html, IntoResponse, Response};

const INDEX: &str = include_str!("../assets/index.html");
const APP_JS: &str = include_str!("../assets/app.js");
const APP_CSS: &str = include_str!("../assets/app.css");
/// The OpenAPI 3.1 document of the API.
pub(crate) const OPENAPI: &str = include_str!("../assets/openapi.json");

pub(crate) async fn index() -> Html<&'static str> {
    Html(INDEX)
}

pub(crate) async fn app_js() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        APP_JS,
    )
        .into_response()
}

pub(crate) async fn app_css() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], APP_CSS).into_response()
}

pub(crate) async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], OPENAPI).into_response()
}

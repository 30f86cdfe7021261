//! The router without a socket (`oneshot`): every route is in the OpenAPI
//! document and the document names no route that does not exist.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;
use toolgate_serve::{AppState, ROUTES, router};
use toolgate_store::Store;
use tower::ServiceExt;

fn state() -> (tempfile::TempDir, AppState) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("toolgate.db")).unwrap();
    let addr: SocketAddr = "127.0.0.1:7777".parse().unwrap();
    let s = AppState::new(
        store,
        "tok".into(),
        "csrf".into(),
        addr,
        vec![],
        Duration::from_secs(60),
    );
    (dir, s)
}

async fn send(s: &AppState, method: &str, path: &str, auth: bool) -> (StatusCode, Vec<u8>) {
    let mut req = Request::builder()
        .method(method)
        .uri(path)
        .header("host", "127.0.0.1:7777");
    if auth {
        req = req.header("authorization", "Bearer tok");
    }
    if method == "POST" {
        req = req
            .header("origin", "http://127.0.0.1:7777")
            .header("x-csrf-token", "csrf")
            .header("content-type", "application/json");
    }
    let body = if method == "POST" {
        Body::from("{\"digest\":\"x\"}")
    } else {
        Body::empty()
    };
    let resp = router(s.clone())
        .oneshot(req.body(body).unwrap())
        .await
        .unwrap();
    let status = resp.status();
    let bytes = if path == "/api/events" {
        Vec::new()
    } else {
        axum::body::to_bytes(resp.into_body(), 1 << 20)
            .await
            .unwrap()
            .to_vec()
    };
    (status, bytes)
}

#[tokio::test]
async fn every_route_is_documented_and_every_documented_route_exists() {
    let (_dir, s) = state();
    let (status, bytes) = send(&s, "GET", "/openapi.json", true).await;
    assert_eq!(status, StatusCode::OK);
    let doc: Value = serde_json::from_slice(&bytes).expect("the document is JSON");
    assert_eq!(doc["openapi"], "3.1.0");
    let mut documented = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            documented.insert((method.clone(), path.clone()));
        }
    }
    let routes: BTreeSet<(String, String)> = ROUTES
        .iter()
        .map(|(m, p)| (m.to_string(), p.to_string()))
        .collect();
    assert_eq!(documented, routes);
    for (method, path) in ROUTES {
        let concrete = path.replace("{id}", "0000abcd");
        let (status, _) = send(&s, &method.to_uppercase(), &concrete, true).await;
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path}");
        // The router knows the path: a 404 may only come from a handler
        // that looked up the unknown approval (with a JSON error).
        if status == StatusCode::NOT_FOUND {
            assert!(path.contains("{id}"), "{method} {path}");
        }
        // Every route is behind the token, but the page's own files, which
        // hold no secret (the page asks for the token itself).
        let (status, _) = send(&s, &method.to_uppercase(), &concrete, false).await;
        let public = matches!(*path, "/" | "/assets/app.js" | "/assets/app.css");
        assert_eq!(
            status,
            if public {
                StatusCode::OK
            } else {
                StatusCode::UNAUTHORIZED
            },
            "{method} {path} without the token"
        );
    }
}

#[tokio::test]
async fn an_unknown_route_is_behind_the_token_too() {
    let (_dir, s) = state();
    assert_eq!(
        send(&s, "GET", "/nothing", false).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        send(&s, "GET", "/nothing", true).await.0,
        StatusCode::NOT_FOUND
    );
}

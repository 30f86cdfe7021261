//! The API's cost per request, through the router without a socket: the
//! list of 50 waiting shell calls (each parsed for the page), one
//! approval, and the auth layer refusing a request without the token.
//!
//!   cargo bench -p toolgate-benches --bench api

use std::net::SocketAddr;
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use criterion::{Criterion, criterion_group, criterion_main};
use toolgate_policy::{Call, Client};
use toolgate_serve::{AppState, router};
use toolgate_store::{ApprovalAnswer, Decision, Outcome, PendingNew, Record, Store};
use tower::ServiceExt;

fn queue(store: &Store, n: usize) -> String {
    let mut last = String::new();
    for i in 0..n {
        let call = Call::new(
            "Bash",
            serde_json::json!({"command": format!("git push origin feature-{i} && cargo test -p crate{i} | tee log{i}.txt")}),
        )
        .with_client(Client::Claude);
        let digest = call.digest();
        let record = Record {
            session: "s".into(),
            client: Some("claude".into()),
            server: None,
            call_id: call.id.clone(),
            tool: "Bash".into(),
            digest: digest.clone(),
            input: serde_json::Value::Object(call.input.clone()).to_string(),
            decision: Decision::Ask,
            rule: Some("ask[0]".into()),
            hard: false,
            reason: "asks".into(),
            approval: Some(ApprovalAnswer::Unanswered),
            note: None,
            outcome: Outcome::Waiting,
            duration_us: 1,
            approval_id: None,
            review: None,
        };
        let pending = PendingNew {
            session: "s".into(),
            client: Some("claude".into()),
            server: None,
            call_id: call.id.clone(),
            tool: "Bash".into(),
            snapshot_json: call.canonical_json(),
            digest,
            reason: "asks".into(),
            rule: Some("ask[0]".into()),
            remember_allowed: false,
        };
        last = store.append_waiting(&record, &pending).unwrap().id;
    }
    last
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("toolgate.db")).unwrap();
    let id = queue(&store, 50);
    let addr: SocketAddr = "127.0.0.1:7777".parse().unwrap();
    let state = AppState::new(
        store,
        "tok".into(),
        "csrf".into(),
        addr,
        vec![],
        Duration::from_secs(3600),
    );
    let app = router(state);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let get = |path: &str, auth: bool| {
        let mut r = Request::builder()
            .uri(path)
            .header("host", "127.0.0.1:7777");
        if auth {
            r = r.header("authorization", "Bearer tok");
        }
        r.body(Body::empty()).unwrap()
    };
    let mut g = c.benchmark_group("api");
    g.bench_function("list 50 waiting shell calls", |b| {
        b.iter(|| {
            rt.block_on(async {
                let resp = app
                    .clone()
                    .oneshot(get("/api/approvals", true))
                    .await
                    .unwrap();
                assert!(resp.status().is_success());
                axum::body::to_bytes(resp.into_body(), 1 << 24)
                    .await
                    .unwrap()
            })
        })
    });
    let one = format!("/api/approvals/{id}");
    g.bench_function("get one approval", |b| {
        b.iter(|| {
            rt.block_on(async {
                let resp = app.clone().oneshot(get(&one, true)).await.unwrap();
                assert!(resp.status().is_success());
                axum::body::to_bytes(resp.into_body(), 1 << 20)
                    .await
                    .unwrap()
            })
        })
    });
    g.bench_function("refuse without the token", |b| {
        b.iter(|| {
            rt.block_on(async {
                let resp = app
                    .clone()
                    .oneshot(get("/api/approvals", false))
                    .await
                    .unwrap();
                assert_eq!(resp.status(), 401);
            })
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

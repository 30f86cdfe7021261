//! The cost the store adds to one tool call, on the real disk (a temporary
//! directory under the target directory, not a tmpfs).
//!
//! - `append`: one ledger row through an open store, as the gate does;
//! - `open_append_close`: what a hook process pays, opening the database,
//!   appending one row and closing it;
//! - `poll_approval`: one poll of a waiting approval.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use toolgate_store::{Decision, Outcome, PendingNew, Record, Store};

fn record(i: u64) -> Record {
    Record {
        session: "bench-session-5b0c1d2e".to_owned(),
        client: Some("claude".to_owned()),
        server: None,
        call_id: format!("toolu_01A{i:016}"),
        tool: "Bash".to_owned(),
        digest: "3f0b8a9c2d1e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a".to_owned(),
        input: r#"{"command":"cargo test -p toolgate-store -- --nocapture","description":"Run the store's tests","timeout":120000}"#.to_owned(),
        decision: Decision::Allow,
        rule: Some("allow[3]".to_owned()),
        hard: false,
        reason: "matched `Bash(cargo test *)`".to_owned(),
        approval: None,
        note: None,
        outcome: Outcome::Executed,
        duration_us: 140,
        approval_id: None,
        review: None,
    }
}

fn bench_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir under target/")
}

fn append(c: &mut Criterion) {
    let dir = bench_dir();
    let store = Store::open(dir.path().join("toolgate.db")).expect("open");
    let mut i = 0;
    c.bench_function("append", |b| {
        b.iter(|| {
            i += 1;
            black_box(store.append(&record(i)).expect("append"))
        })
    });
}

fn open_append_close(c: &mut Criterion) {
    let dir = bench_dir();
    let path = dir.path().join("toolgate.db");
    drop(Store::open(&path).expect("create"));
    let mut i = 0;
    c.bench_function("open_append_close", |b| {
        b.iter(|| {
            i += 1;
            let store = Store::open(&path).expect("open");
            black_box(store.append(&record(i)).expect("append"));
        })
    });
}

fn poll_approval(c: &mut Criterion) {
    let dir = bench_dir();
    let store = Store::open(dir.path().join("toolgate.db")).expect("open");
    let id = store
        .create_pending(&PendingNew {
            session: "s".to_owned(),
            client: None,
            server: None,
            call_id: "c1".to_owned(),
            tool: "run_shell".to_owned(),
            snapshot_json: r#"{"id":"c1","input":{"command":"git push"},"tool":"run_shell"}"#
                .to_owned(),
            digest: "ab".repeat(32),
            reason: "pushing asks".to_owned(),
            rule: Some("ask[0]".to_owned()),
            remember_allowed: false,
        })
        .expect("queue");
    c.bench_function("poll_approval", |b| {
        b.iter(|| black_box(store.approval(&id).expect("poll")))
    });
}

criterion_group!(benches, append, open_append_close, poll_approval);
criterion_main!(benches);

//! `Gate::submit` of an allowed no-op tool with the ledger on SQLite, on
//! PostgreSQL, and off.
//!
//! Run with `cargo bench -p toolgate-benches --bench submit`. The SQLite
//! database lives under `target/` (the real disk), not in a memory file
//! system. The PostgreSQL bench runs when `TOOLGATE_BENCH_DATABASE_URL`
//! names a database (see README, "A shared store"); each run appends to
//! that database's ledger.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolgate_gate::{Gate, GateOptions, NeverApprover, Outcome, ToolOutput};
use toolgate_policy::{Call, LoadOptions, Policy};
use toolgate_store::Store;

fn bench(c: &mut Criterion) {
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-gate");
    std::fs::create_dir_all(&base).expect("bench dir");
    let dir = tempfile::tempdir_in(&base).expect("temp dir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let policy = Policy::from_toml(
        "allow = [\"noop\"]\n",
        &root.join("toolgate.toml"),
        &LoadOptions::default(),
    )
    .expect("policy");
    let store = Store::open(root.join("toolgate.db")).expect("store");
    let mut gate = Gate::new(
        policy,
        Box::new(NeverApprover),
        GateOptions {
            store: Some(store),
            ..GateOptions::default()
        },
    );
    gate.register("noop", Box::new(|_: &Call| ToolOutput::ok("done")));
    let call = Call::new("noop", json!({"n": 1}));
    assert_eq!(gate.submit(&call).outcome, Outcome::Executed);
    c.bench_function("gate/submit_allowed_noop_with_ledger", |b| {
        b.iter(|| black_box(gate.submit(black_box(&call))))
    });

    if let Some(url) = std::env::var("TOOLGATE_BENCH_DATABASE_URL")
        .ok()
        .filter(|u| !u.is_empty())
    {
        let mut pg = Gate::new(
            Policy::from_toml(
                "allow = [\"noop\"]\n",
                &root.join("toolgate.toml"),
                &LoadOptions::default(),
            )
            .expect("policy"),
            Box::new(NeverApprover),
            GateOptions {
                store: Some(Store::open_url(&url).expect("PostgreSQL store")),
                ..GateOptions::default()
            },
        );
        pg.register("noop", Box::new(|_: &Call| ToolOutput::ok("done")));
        assert_eq!(pg.submit(&call).outcome, Outcome::Executed);
        c.bench_function("gate/submit_allowed_noop_with_postgres_ledger", |b| {
            b.iter(|| black_box(pg.submit(black_box(&call))))
        });
    }

    let mut bare = Gate::new(
        Policy::from_toml(
            "allow = [\"noop\"]\n",
            &root.join("toolgate.toml"),
            &LoadOptions::default(),
        )
        .expect("policy"),
        Box::new(NeverApprover),
        GateOptions::default(),
    );
    bare.register("noop", Box::new(|_: &Call| ToolOutput::ok("done")));
    c.bench_function("gate/submit_allowed_noop_without_ledger", |b| {
        b.iter(|| black_box(bare.submit(black_box(&call))))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);

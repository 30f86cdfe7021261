//! A shell command analysed and decided, end to end, under the corpus's
//! everyday development policy (`tests/corpus/policies/dev.toml`): a typical
//! agent command of about 60 characters, and a script of about 10 KB.
//!
//! Run with `cargo bench -p toolgate-benches --bench shell`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolgate_policy::{Call, Effect, LoadOptions, Policy};

const POLICY: &str = include_str!("../../crates/policy/tests/corpus/policies/dev.toml");

/// What an agent typically runs: a `cd`, a build with a redirect, a pipe.
const TYPICAL: &str = "cd crates/shell && cargo test -p toolgate-shell 2>&1 | tail -n 20";

/// A script of the shapes agents write, repeated to about 10 KB (the same
/// block as the shell crate's own bench).
fn script() -> String {
    let block = include_str!("agent-script.sh");
    let mut s = String::new();
    while s.len() < 10 * 1024 {
        s.push_str(block);
    }
    s
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    for (path, content) in [
        ("src/main.rs", "fn main() {}\n"),
        ("src/lib.rs", "\n"),
        ("crates/shell/src/lib.rs", "\n"),
        ("README.md", "# x\n"),
        (".env", "K=1\n"),
    ] {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, content).expect("write");
    }
    let file = root.join("toolgate.toml");
    std::fs::write(&file, POLICY).expect("policy");
    let opts = LoadOptions {
        home: Some(root.join("home")),
        state_dir: Some(root.join("home/state")),
        ..LoadOptions::default()
    };
    let policy = Policy::load(&file, &opts).expect("policy compiles");

    let typical = Call::new("run_shell", json!({ "command": TYPICAL }));
    let d = policy.decide(&typical);
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
    let big = script();
    let script_call = Call::new("run_shell", json!({ "command": big }));
    let d = policy.decide(&script_call);
    assert_eq!(d.decision, Effect::Deny, "{}", d.reason);

    let mut group = c.benchmark_group("shell");
    group.bench_function("typical command, analysed and decided", |b| {
        b.iter(|| black_box(policy.decide(black_box(&typical))))
    });
    group.bench_function("10 KB script, analysed and decided", |b| {
        b.iter(|| black_box(policy.decide(black_box(&script_call))))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

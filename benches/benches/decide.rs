//! `decide` on generated policies of 10, 1,000 and 10,000 rules.
//!
//! Run with `cargo bench -p toolgate-benches --bench decide`.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolgate_policy::{Call, Effect, LoadOptions, Policy};

/// A policy of `n` rules: path globs, command prefixes, tool names and
/// domains, with a mix of allow, ask and deny.
fn policy_text(n: usize) -> String {
    let (mut allow, mut ask, mut deny) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        match i % 10 {
            0 | 1 => allow.push(format!("Edit(src/mod{i}/**)")),
            2 => allow.push(format!("Read(data/d{i}/*.csv)")),
            3 => deny.push(format!("Read(secrets/s{i}.key)")),
            4 | 5 => allow.push(format!("Bash(tool{i} sub *)")),
            6 => ask.push(format!("Bash(deploy{i} *)")),
            7 => allow.push(format!("mcp__s__t{i}")),
            8 => deny.push(format!("mcp__srv{i}__*")),
            _ => allow.push(format!("WebFetch(domain:host{i}.example.com)")),
        }
    }
    let list = |v: &[String]| {
        let mut s = String::from("[");
        for (i, x) in v.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(s, "{x:?}");
        }
        s.push(']');
        s
    };
    format!(
        "[policy]\ndefault = \"ask\"\nallow = {}\nask = {}\ndeny = {}\n",
        list(&allow),
        list(&ask),
        list(&deny)
    )
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    std::fs::create_dir_all(root.join("src/mod0")).expect("mkdir");
    std::fs::write(root.join("src/mod0/lib.rs"), "x").expect("write");
    let mut group = c.benchmark_group("decide");
    for n in [10usize, 1_000, 10_000] {
        let policy = Policy::from_toml(
            &policy_text(n),
            &root.join("toolgate.toml"),
            &LoadOptions::default(),
        )
        .expect("policy compiles");
        // The calls hit a rule in the middle of the list.
        let k = (n / 20) * 10;
        let calls = [
            (
                "write",
                Call::new(
                    "write_file",
                    json!({"path": format!("src/mod{k}/lib.rs"), "content": "x"}),
                ),
                Effect::Allow,
            ),
            (
                "read",
                Call::new(
                    "read_file",
                    json!({"path": format!("data/d{}/x.csv", k + 2)}),
                ),
                Effect::Allow,
            ),
            (
                "tool",
                Call::new(format!("mcp__s__t{}", k + 7), json!({})),
                Effect::Allow,
            ),
            (
                "fetch",
                Call::new(
                    "fetch_url",
                    json!({"url": format!("https://host{}.example.com/x", k + 9)}),
                ),
                Effect::Allow,
            ),
            (
                "shell",
                Call::new(
                    "run_shell",
                    json!({"command": format!("tool{} sub --flag value", k + 4)}),
                ),
                Effect::Allow,
            ),
        ];
        for (name, call, want) in &calls {
            assert_eq!(
                policy.decide(call).decision,
                *want,
                "{name} at {n} rules: {}",
                policy.decide(call).reason
            );
            group.bench_with_input(BenchmarkId::new(*name, n), call, |b, call| {
                b.iter(|| black_box(policy.decide(black_box(call))))
            });
        }
    }
    group.finish();
}

/// URL normalisation alone, the part of a fetch's decision that parses.
fn normalize(c: &mut Criterion) {
    let mut group = c.benchmark_group("normalize_url");
    for (name, url) in [
        ("plain", "https://host9.example.com/x"),
        ("spelled", "HTTPS://u@Host9.Example.COM.:443/a/../%78"),
        ("ipv4", "http://0x7f000001:8080/"),
        ("scheme-less", "host9.example.com/x"),
    ] {
        group.bench_with_input(BenchmarkId::new(name, url.len()), url, |b, url| {
            b.iter(|| black_box(toolgate_policy::normalize_url(black_box(url))))
        });
    }
    group.finish();
}

criterion_group!(benches, bench, normalize);
criterion_main!(benches);

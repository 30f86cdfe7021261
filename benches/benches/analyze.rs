//! `analyze` on a typical agent command and on a ~10 KB script.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use toolgate_shell::{Options, analyze};

const TYPICAL: &str = "cd crates/shell && cargo test -p toolgate-shell 2>&1 | tail -n 20";

/// A script of the shapes agents write, repeated to about 10 KB. The block
/// is shared with the policy crate's end-to-end bench.
fn script() -> String {
    let block = include_str!("agent-script.sh");
    let mut s = String::new();
    while s.len() < 10 * 1024 {
        s.push_str(block);
    }
    s
}

fn bench(c: &mut Criterion) {
    let opts = Options {
        cwd: Some(std::env::temp_dir()),
        home: Some("/home/u".into()),
        ..Options::default()
    };
    c.bench_function("typical command", |b| {
        b.iter(|| analyze(black_box(TYPICAL), &opts))
    });
    let big = script();
    c.bench_function("10 KB script", |b| {
        b.iter(|| analyze(black_box(&big), &opts))
    });
    // The parser alone, for comparison: what the analysis adds to it.
    let mut parser = tree_sitter::Parser::new();
    if parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .is_ok()
    {
        c.bench_function("10 KB script, parse only", |b| {
            b.iter(|| parser.parse(black_box(&big), None))
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

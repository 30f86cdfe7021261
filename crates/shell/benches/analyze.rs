//! `analyze` on a typical agent command and on a ~10 KB script.

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use toolgate_shell::{Options, analyze};

const TYPICAL: &str = "cd crates/shell && cargo test -p toolgate-shell 2>&1 | tail -n 20";

/// A script of the shapes agents write, repeated to about 10 KB.
fn script() -> String {
    let block = r#"set -euo pipefail
for f in src/*.rs; do
  if grep -q "TODO" "$f"; then
    echo "todo in $f" >> todo.log
  fi
done
git status --short && git diff --stat HEAD~1 | head -n 50
find . -name '*.tmp' -exec rm -f {} \;
curl -fsSL https://example.com/api/v1/items -o items.json && jq '.items[] | .name' items.json | sort | uniq -c
OUT=$(mktemp) ; sed -n '1,40p' README.md > "$OUT" ; cat "$OUT" | wc -l
case "$1" in build) cargo build --release ;; test) cargo test -- --nocapture ;; *) echo usage ;; esac
"#;
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

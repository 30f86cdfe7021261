//! Decides one kind of benchmark call with toolgate in a loop, for `perf`.
//!
//! Usage: `cargo run --release -p toolgate-compare --example profile -- RULES KIND SECONDS`
//! (KIND: read, write, exec, tool, fetch or all), e.g.
//! `perf record -g target/release/examples/profile 10000 read 10`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use toolgate_compare::calls::{self, Kind};
use toolgate_compare::engines::Engine;
use toolgate_compare::engines::toolgate::Toolgate;
use toolgate_compare::{Workspace, rules};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map_or(Ok(10_000), |s| s.parse())?;
    let kind = args.get(1).map_or("all", String::as_str);
    let secs: u64 = args.get(2).map_or(Ok(5), |s| s.parse())?;
    let ws = Workspace::new()?;
    let rules = rules::generate(n);
    let started = Instant::now();
    let engine = Toolgate::new(&rules, &ws)?;
    eprintln!("{n} rules compiled in {:?}", started.elapsed());
    let calls: Vec<_> = calls::calls(n, &ws)?
        .into_iter()
        .filter(|c| kind == "all" || Kind::ALL.iter().any(|k| k.as_str() == kind && c.kind == *k))
        .collect();
    anyhow::ensure!(!calls.is_empty(), "no call of kind `{kind}`");
    let until = Instant::now() + Duration::from_secs(secs);
    let mut count = 0u64;
    let started = Instant::now();
    while Instant::now() < until {
        for c in &calls {
            black_box(engine.decide(black_box(c)));
        }
        count += calls.len() as u64;
    }
    eprintln!(
        "{count} decisions, {:.2} µs each",
        started.elapsed().as_secs_f64() * 1e6 / count as f64
    );
    Ok(())
}

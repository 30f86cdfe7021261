//! toolgate against cedar-policy, regorus and a linear scan, at 10, 1,000
//! and 10,000 rules. `scripts/compare.sh` runs it and writes the table.
//!
//! Each benchmark iteration decides one call, going round the call list, so
//! a sample's mean is the mean over the mix and criterion's median is that
//! of those means. Groups:
//!
//! - `all/ENGINE/N`: every call (reads, writes, shell commands, MCP tools,
//!   fetches);
//! - `no-resolution/ENGINE/N`: the MCP tool and fetch calls only, whose
//!   decision in toolgate involves no path resolution or shell parsing;
//! - `toolgate-kind/KIND/N`: toolgate alone, one kind of call at a time.

use std::hint::black_box;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, criterion_group, criterion_main};
use toolgate_compare::calls::{self, Kind};
use toolgate_compare::engines::{cedar::Cedar, linear::Linear, rego::Rego, toolgate::Toolgate};
use toolgate_compare::{BenchCall, Engine, SIZES, Workspace, check_agreement, rules};

fn rotate(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    e: &dyn Engine,
    calls: &[BenchCall],
) {
    group.bench_function(id, |b| {
        let mut i = 0usize;
        b.iter(|| {
            let call = &calls[i % calls.len()];
            i += 1;
            black_box(e.decide(black_box(call)))
        })
    });
}

fn configure(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
}

fn bench(c: &mut Criterion) {
    for n in SIZES {
        let ws = Workspace::new().expect("workspace");
        let rules = rules::generate(n);
        let calls = calls::calls(n, &ws).expect("calls");
        let root = ws.root.to_str().expect("a UTF-8 temporary directory");
        let toolgate = Toolgate::new(&rules, &ws).expect("toolgate policy");
        let cedar = Cedar::new(&rules, root).expect("cedar policies");
        let rego = Rego::new(&rules, root).expect("rego module");
        let linear = Linear::new(&rules, root).expect("linear rules");
        let engines: [&dyn Engine; 4] = [&toolgate, &cedar, &rego, &linear];

        if let Err(diff) = check_agreement(&engines, &calls) {
            eprintln!("at {n} rules, the engines disagree; nothing is timed.\n{diff}");
            std::process::exit(1);
        }
        for call in &calls {
            let errors: Vec<String> = cedar
                .authorize(&call.request)
                .diagnostics()
                .errors()
                .map(|e| e.to_string())
                .collect();
            if !errors.is_empty() {
                eprintln!("cedar reports errors on {}: {errors:?}", call.label);
                std::process::exit(1);
            }
        }
        eprintln!(
            "{n} rules: {} calls decided alike by all four engines",
            calls.len()
        );

        let no_resolution: Vec<BenchCall> = calls
            .iter()
            .filter(|c| c.kind.needs_no_resolution())
            .cloned()
            .collect();

        let mut group = c.benchmark_group("all");
        configure(&mut group);
        for e in engines {
            rotate(&mut group, BenchmarkId::new(e.name(), n), e, &calls);
        }
        group.finish();

        let mut group = c.benchmark_group("no-resolution");
        configure(&mut group);
        for e in engines {
            rotate(&mut group, BenchmarkId::new(e.name(), n), e, &no_resolution);
        }
        group.finish();

        let mut group = c.benchmark_group("toolgate-kind");
        configure(&mut group);
        for kind in Kind::ALL {
            let of_kind: Vec<BenchCall> =
                calls.iter().filter(|c| c.kind == kind).cloned().collect();
            rotate(
                &mut group,
                BenchmarkId::new(kind.as_str(), n),
                &toolgate,
                &of_kind,
            );
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);

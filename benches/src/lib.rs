//! criterion benchmarks of toolgate's crates live in `benches/`; run them with
//! `cargo bench -p toolgate-benches --bench NAME` (`decide`, `shell`, `analyze`, `submit`,
//! `ledger`).

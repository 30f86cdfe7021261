//! Links the `toolgate` executable without PIE on Linux with glibc.
//!
//! A hook is one process per tool call, so start-up is part of every
//! call's cost. As a position-independent executable of this size, the
//! dynamic loader applies some 25,000 relocations before `main`, writing
//! (and so copying) every page they touch; linked at a fixed address it
//! applies none (`scripts/bench-hook.py`). Shared libraries, heap, stack
//! and mappings are still placed at random.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}

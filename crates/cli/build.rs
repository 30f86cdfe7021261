//! Link settings for the executables on Linux with glibc.
//!
//! A hook is one process per tool call, so start-up is part of every
//! call's cost (`scripts/bench-hook.py`):
//!
//! - `toolgate-hook` alone is linked without PIE. As a position-independent
//!   executable of this size, the dynamic loader applies some 25,000
//!   relocations before `main`, writing (and so copying) every page they
//!   touch; linked at a fixed address it applies none. Shared libraries,
//!   heap, stack and mappings are still placed at random. It reads one
//!   call on standard input and exits. `toolgate`, which runs the
//!   network-facing `toolgate serve` and the long-lived gateway and agent,
//!   stays a position-independent executable, its code placed at random.
//! - In an optimised build of `toolgate-hook`, the functions a hook run
//!   executes (`hook-layout.txt`, written by `scripts/hook-layout.py`) are
//!   linked first and together, so that the kernel maps them in with a few
//!   page faults instead of one for each 64 KiB of the executable they are
//!   spread over. This needs LLD, the linker rustc uses on
//!   x86_64-unknown-linux-gnu; it is left out when another linker is
//!   configured.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=hook-layout.txt");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" {
        return;
    }
    println!("cargo:rustc-link-arg-bin=toolgate-hook=-no-pie");

    let flags = var("CARGO_ENCODED_RUSTFLAGS");
    let own_linker = std::env::var_os("RUSTC_LINKER").is_some()
        || ["linker-flavor", "link-self-contained", "fuse-ld", "linker="]
            .iter()
            .any(|f| flags.contains(f));
    let layout = Path::new(&var("CARGO_MANIFEST_DIR")).join("hook-layout.txt");
    if var("TARGET") == "x86_64-unknown-linux-gnu"
        && var("PROFILE") == "release"
        && !own_linker
        && layout.is_file()
    {
        println!(
            "cargo:rustc-link-arg-bin=toolgate-hook=-Wl,--symbol-ordering-file={}",
            layout.display()
        );
        println!("cargo:rustc-link-arg-bin=toolgate-hook=-Wl,--no-warn-symbol-ordering");
    }
}

//! Symlinks swapped in while the tools run: a thread exchanges a directory
//! (or a file) with a symlink to the outside, atomically and as fast as it
//! can, while the main thread reads, lists and writes through that name
//! thousands of times. Whatever the timing, nothing outside may be read,
//! listed or written.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rustix::fs::{CWD, RenameFlags, renameat_with};
use toolgate_tools::{Body, list_dir, read_file, write_file};

use crate::common::{Fixture, fixture};

/// Sets the flag when dropped, so that a failing assertion in the main
/// thread (which unwinds) still stops the swapper instead of leaving the
/// scope waiting for it forever.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Exchanges `a` and `b` until `stop`, counting the swaps.
/// The most rounds a race runs while waiting for the success that shows
/// the tool was not simply refusing every call.
const MAX_ROUNDS: usize = 200_000;

fn swapper(a: &Path, b: &Path, stop: &AtomicBool, swaps: &AtomicUsize) {
    while !stop.load(Ordering::Relaxed) {
        renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE).expect("exchange");
        swaps.fetch_add(1, Ordering::Relaxed);
    }
}

/// `root/d` is a real directory holding `f` ("inside"); `root/swap` is a
/// symlink (absolute or relative) to `outside/dir`, which holds
/// `secret.txt` ("SECRET").
fn setup(fx: &Fixture, absolute: bool) {
    fs::create_dir(fx.path("d")).unwrap();
    fs::write(fx.path("d/f"), "inside").unwrap();
    if absolute {
        symlink(fx.outside.join("dir"), fx.path("swap")).unwrap();
    } else {
        symlink("../outside/dir", fx.path("swap")).unwrap();
    }
}

fn race_directory_swap(absolute: bool) {
    let fx = fixture();
    setup(&fx, absolute);
    let stop = AtomicBool::new(false);
    let swaps = AtomicUsize::new(0);
    let mut inside_reads = 0usize;

    std::thread::scope(|s| {
        s.spawn(|| swapper(&fx.path("d"), &fx.path("swap"), &stop, &swaps));
        let _stop = StopOnDrop(&stop);
        // At least 3,000 rounds, and on until a read of the inside
        // directory has succeeded: on a loaded machine the swapper can win
        // every round of a fixed count.
        for i in 0..MAX_ROUNDS {
            if i >= 3000 && inside_reads > 0 {
                break;
            }
            if let Ok(got) = read_file(&fx.ws, "d/f", None, &fx.limits) {
                assert_eq!(got.body, Body::Text("inside".into()));
                inside_reads += 1;
            }
            if let Ok(got) = read_file(&fx.ws, "d/secret.txt", None, &fx.limits) {
                // Only what was written inside (below) can be there.
                assert_eq!(
                    got.body,
                    Body::Text("PWNED".into()),
                    "read the outside file"
                );
            }
            if let Ok(listing) = list_dir(&fx.ws, "d", None, &fx.limits) {
                // The inside directory always holds `f`; the outside one never.
                assert!(
                    listing.entries.iter().any(|e| e.name == "f"),
                    "listed the outside directory"
                );
            }
            if i % 3 == 0 {
                let name = format!("d/w{i}.txt");
                let _ = write_file(&fx.ws, &name, "PWNED", None, &fx.limits);
                let _ = write_file(&fx.ws, "d/secret.txt", "PWNED", None, &fx.limits);
            }
        }
    });

    fx.assert_outside_untouched();
    assert!(swaps.load(Ordering::Relaxed) > 0, "the swapper never ran");
    // A tool that refused every call would pass the checks above: the
    // inside directory must have been read while it was in place.
    assert!(
        inside_reads > 0,
        "no read of the inside directory ever succeeded"
    );
}

#[test]
fn a_directory_swapped_for_an_absolute_symlink_never_leaks() {
    race_directory_swap(true);
}

#[test]
fn a_directory_swapped_for_a_relative_symlink_never_leaks() {
    race_directory_swap(false);
}

#[test]
fn a_file_swapped_for_a_symlink_is_never_written_through() {
    let fx = fixture();
    fs::write(fx.path("t"), "inside").unwrap();
    symlink(fx.outside.join("secret.txt"), fx.path("tl")).unwrap();
    let stop = AtomicBool::new(false);
    let swaps = AtomicUsize::new(0);
    let mut writes = 0usize;
    std::thread::scope(|s| {
        s.spawn(|| swapper(&fx.path("t"), &fx.path("tl"), &stop, &swaps));
        let _stop = StopOnDrop(&stop);
        // At least 1,000 rounds, and on until a write has succeeded.
        for i in 0..MAX_ROUNDS {
            if i >= 1000 && writes > 0 {
                break;
            }
            if write_file(&fx.ws, "t", "PWNED", None, &fx.limits).is_ok() {
                writes += 1;
            }
            if let Ok(got) = read_file(&fx.ws, "t", None, &fx.limits) {
                assert_ne!(
                    got.body,
                    Body::Text("SECRET".into()),
                    "read through a symlink"
                );
            }
        }
    });
    fx.assert_outside_untouched();
    assert!(
        fs::symlink_metadata(fx.outside.join("secret.txt"))
            .unwrap()
            .is_file(),
        "the outside file was replaced"
    );
    assert!(swaps.load(Ordering::Relaxed) > 0);
    assert!(writes > 0, "no write of the inside file ever succeeded");
}

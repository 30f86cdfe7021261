//! Inputs the fuzz targets (`fuzz/`) found, each fed byte for byte.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use toolgate_shell::{Options, analyze};

/// The options of the `shell_analyze` fuzz target.
fn opts() -> Options {
    Options {
        cwd: Some(PathBuf::from("/nonexistent/toolgate-fuzz/w")),
        home: Some(PathBuf::from("/home/u")),
        ..Options::default()
    }
}

/// `shell_analyze`: brace alternatives around absolute globs (`{..,..}` ×
/// `/*/*/`) made glob expansion read the directory tree once per
/// alternative: 14 s for these 175 bytes. Glob expansion now shares one
/// budget of directory entries per analysis, and what is past it is
/// unknown, so the command asks.
#[test]
fn shell_brace_alternatives_of_absolute_globs_stay_bounded() {
    let bytes: &[u8] = b"c5rl -o R?sh httpwget get -O\xd1\x9fOl,m /*/*/\0\0\0\0\0\0\0\0{-dFa\xd1\x9fOl,m /*/*/\0\0\0\0\0\0\0\0{-dFa,ba}{i,}{gc,d}{u,f,bat,h}+\0\0\0\0\0\0,ba}{i,}{gc,d}{u,f,bat,h}+\0\0\0\0\0\0\0\0\0\x04\x02\x02\x04{A,b}-\x01.d},\xd1\x9f*,d},ef}{* et";
    let text = std::str::from_utf8(bytes).expect("UTF-8");
    let started = Instant::now();
    let a = analyze(text, &opts());
    let took = started.elapsed();
    // Generous for an unoptimised build on a busy machine; it took 14 s.
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert!(!a.commands.is_empty());
    assert!(!a.unknowns.is_empty(), "{a:#?}");
}

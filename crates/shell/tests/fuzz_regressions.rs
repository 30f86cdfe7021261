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

/// `never_panics_on_bytes`: `{` followed by a character above about
/// U+E0000 (`{\u{f0000}`, from a run of random bytes) made the grammar's
/// scanner index C's `isdigit` table with the character, far past its
/// end: a segmentation fault, which a hook process dies of. Every
/// character above U+00FF now reaches the scanner as a letter of the
/// table's range. Each plane's characters, after each character that
/// opens a construct the scanner looks into.
#[test]
fn characters_past_the_c_tables_reach_no_scanner() {
    let mut chars: Vec<char> = (0x80..=0x10_ffffu32)
        .step_by(0x1_0ff)
        .filter_map(char::from_u32)
        .collect();
    chars.extend([
        '\u{f0000}',
        '\u{100000}',
        '\u{10fffd}',
        '\u{e0001}',
        '\u{10ffff}',
    ]);
    for c in chars {
        for before in [
            "{", "${", "$((", "<<", "[[ ", "echo {1.", "x=$", "$'", "<<-E\n",
        ] {
            let text = format!("{before}{c}{c}");
            let a = analyze(&text, &opts());
            assert!(
                a.effects
                    .iter()
                    .all(|e| e.command.is_none_or(|i| i < a.commands.len()))
            );
        }
    }
    // The analysis still reads such characters as bash does: parts of a
    // word.
    let a = analyze("echo a\u{f0000}b \u{3000}c", &opts());
    assert_eq!(a.commands.len(), 1, "{a:?}");
    assert_eq!(a.commands[0].argv, ["echo", "a\u{f0000}b", "\u{3000}c"]);
}

//! `toolgate_shell::analyze` on arbitrary text: it must never panic, and
//! every effect, unknown and hazard it links to a command must name one.
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use toolgate_shell::{Options, analyze};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let opts = Options {
        // Globs expand against a directory that does not exist, so that
        // the result does not depend on the machine.
        cwd: Some(PathBuf::from("/nonexistent/toolgate-fuzz/w")),
        home: Some(PathBuf::from("/home/u")),
        ..Options::default()
    };
    let a = analyze(text, &opts);
    let n = a.commands.len();
    for e in &a.effects {
        assert!(
            e.command.is_none_or(|i| i < n),
            "effect of a missing command"
        );
    }
    for u in &a.unknowns {
        assert!(
            u.command.is_none_or(|i| i < n),
            "unknown of a missing command"
        );
    }
    for h in &a.hazards {
        assert!(
            h.command.is_none_or(|i| i < n),
            "hazard of a missing command"
        );
    }
});

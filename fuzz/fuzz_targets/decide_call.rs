//! `Policy::decide` on arbitrary calls (any wire format `Call::parse`
//! accepts) under the example policy: validation, the tool catalog, shell
//! analysis, path resolution and rule matching together.
#![no_main]

use std::path::PathBuf;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use toolgate_policy::{Call, Effect, LoadOptions, Policy};

/// An empty workspace that exists (roots must), the same on every run.
fn workspace() -> PathBuf {
    let dir = std::env::temp_dir().join("toolgate-fuzz-ws");
    std::fs::create_dir_all(&dir).expect("a directory for the workspace");
    dir.canonicalize().expect("the workspace resolves")
}

static POLICY: LazyLock<Policy> = LazyLock::new(|| {
    // The workspace is empty: paths in it resolve lexically, globs expand to
    // nothing and walks find nothing, so a decision depends on the input
    // alone.
    Policy::from_toml(
        include_str!("../../examples/toolgate.toml"),
        &workspace().join("toolgate.toml"),
        &LoadOptions {
            workspace: None,
            home: Some("/nonexistent/toolgate-fuzz/home".into()),
            state_dir: Some("/nonexistent/toolgate-fuzz/state".into()),
        },
    )
    .expect("the example policy compiles")
});

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(call) = Call::parse(text) else {
        return;
    };
    let d = POLICY.decide(&call);
    assert!(!d.hard || d.decision == Effect::Deny, "a hard limit denies");
    let strictest = d.actions.iter().map(|a| a.decision).max();
    if let Some(s) = strictest {
        assert_eq!(
            d.decision, s,
            "the call gets the strictest decision of its actions"
        );
    }
    for a in &d.actions {
        assert!(!a.hard || a.decision == Effect::Deny, "a hard limit denies");
    }
});

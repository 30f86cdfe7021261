//! `Policy::from_toml` on arbitrary text; a policy that compiles then
//! decides a few fixed calls, so that every rule it could hold is also
//! matched once.
#![no_main]

use std::path::PathBuf;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use serde_json::json;
use toolgate_policy::{Call, Effect, LoadOptions, Policy};

/// An empty workspace that exists (roots must), the same on every run.
fn workspace() -> PathBuf {
    let dir = std::env::temp_dir().join("toolgate-fuzz-ws");
    std::fs::create_dir_all(&dir).expect("a directory for the workspace");
    dir.canonicalize().expect("the workspace resolves")
}

static WORKSPACE: LazyLock<PathBuf> = LazyLock::new(workspace);

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // An empty directory: deciding resolves only paths that are not there.
    let file = WORKSPACE.join("toolgate.toml");
    let opts = LoadOptions {
        workspace: None,
        home: Some("/nonexistent/toolgate-fuzz/home".into()),
        state_dir: Some("/nonexistent/toolgate-fuzz/state".into()),
    };
    let Ok(policy) = Policy::from_toml(text, &file, &opts) else {
        return;
    };
    assert_ne!(
        policy.default_effect(),
        Effect::Allow,
        "the default is never allow"
    );
    let calls = [
        Call::new("read_file", json!({"path": "src/lib.rs"})),
        Call::new("write_file", json!({"path": "docs/a.md", "content": "x"})),
        Call::new(
            "run_shell",
            json!({"command": "git status && cat .env > out"}),
        ),
        Call::new("fetch_url", json!({"url": "https://api.example.com/v1"})),
        Call::new("mcp__db__query", json!({"sql": "SELECT 1"})),
    ];
    for call in &calls {
        let d = policy.decide(call);
        assert!(!d.hard || d.decision == Effect::Deny, "a hard limit denies");
    }
});

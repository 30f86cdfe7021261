//! What cargo reaches past the package under an allow of cargo, against
//! the real cargo: a package made outside the roots is denied, one made
//! inside allowed where editing is, and each is made when run.

use std::process::Command;

use serde_json::json;
use toolgate_policy::{Call, Effect, LoadOptions, Policy};

#[test]
fn a_package_made_outside_the_roots_is_denied() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let ws = base.join("ws");
    let home = base.join("home");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        ws.join("toolgate.toml"),
        "allow = [\"Read\", \"Edit\", \"Bash(cargo *)\"]\n",
    )
    .unwrap();
    let policy = Policy::load(
        &ws.join("toolgate.toml"),
        &LoadOptions {
            workspace: Some(ws.clone()),
            home: Some(home.clone()),
            state_dir: Some(base.join("state")),
        },
    )
    .unwrap();
    let outside = base.join("elsewhere");
    for (cmd, want, made) in [
        (
            format!("cargo new --vcs none --lib {}", outside.display()),
            (Effect::Deny, Some("hard:outside-roots")),
            outside.join("Cargo.toml"),
        ),
        (
            "cargo new --vcs none inside".to_string(),
            (Effect::Allow, Some("allow[2]")),
            ws.join("inside/Cargo.toml"),
        ),
    ] {
        let mut call = Call::new("run_shell", json!({ "command": cmd }));
        call.cwd = Some(ws.clone());
        let d = policy.decide(&call);
        assert_eq!((d.decision, d.rule.as_deref()), want, "{cmd}: {}", d.reason);
        let out = Command::new("bash")
            .args(["-c", &cmd])
            .current_dir(&ws)
            .env("CARGO_HOME", home.join(".cargo"))
            .output()
            .expect("bash runs");
        assert!(
            made.exists(),
            "{cmd}: run for real, cargo made nothing: {out:?}"
        );
    }
}

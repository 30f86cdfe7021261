//! `/proc/self` and `/dev/fd` name the process that opens them: toolgate
//! deciding, or the command running. Each case runs in bash for real in a
//! scratch workspace and is asked of the gate: a command that prints the
//! secret must be denied by its rule, and the command's own working
//! directory reached through `/proc/self/cwd` is read as the command
//! reads it.

use std::process::Command;

use serde_json::json;
use toolgate_policy::{Call, Effect, LoadOptions, Policy};

const POLICY: &str = r#"
allow = ["Read", "Bash(*)"]
deny = ["Read(secrets/**)"]
"#;

#[test]
fn proc_self_is_the_commands_process() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let ws = base.join("ws");
    std::fs::create_dir_all(ws.join("secrets")).unwrap();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("secrets/k"), "SECRET-VALUE\n").unwrap();
    std::fs::write(ws.join("src/k"), "plain\n").unwrap();
    let file = base.join("toolgate.toml");
    std::fs::write(&file, POLICY).unwrap();
    let opts = LoadOptions {
        workspace: Some(ws.clone()),
        home: Some(base.join("home")),
        state_dir: Some(base.join("state")),
    };
    let policy = Policy::load(&file, &opts).unwrap();
    let cases = [
        ("cd secrets && cat /proc/self/cwd/k", true),
        ("cd secrets && cat /proc/thread-self/cwd/k", true),
        ("cd secrets && cat /dev/fd/../cwd/k", true),
        ("cd secrets && head /proc/self/root/proc/self/cwd/k", true),
        ("cd src && cat /proc/self/cwd/k", false),
    ];
    for (cmd, secret) in cases {
        let out = Command::new("bash")
            .arg("-c")
            .arg(cmd)
            .current_dir(&ws)
            .output()
            .expect("bash runs");
        let printed = String::from_utf8_lossy(&out.stdout).contains("SECRET-VALUE");
        assert_eq!(printed, secret, "`{cmd}` in bash: {out:?}");
        let mut call = Call::new("run_shell", json!({ "command": cmd }));
        call.cwd = Some(ws.clone());
        let d = policy.decide(&call);
        let want = if secret {
            (Effect::Deny, Some("deny[0]"))
        } else {
            (Effect::Allow, Some("allow[1]"))
        };
        assert_eq!(
            (d.decision, d.rule.as_deref()),
            want,
            "`{cmd}`: {}",
            d.reason
        );
    }
    // What the command has open is its own: not the gate's.
    let mut call = Call::new("run_shell", json!({ "command": "cat /dev/fd/3 3<src/k" }));
    call.cwd = Some(ws.clone());
    assert_ne!(policy.decide(&call).decision, Effect::Allow);
}

//! What a runner runs (`npx CMD`, `npm exec -- CMD`), against the real
//! npx: the command it is given is analysed as a command of its own. A
//! removal under an allow of npx is judged as the removal it is, a read of
//! a denied file is denied, npm's options that load code are not followed,
//! and a rule on the runner's whole command still allows what it names.

use std::process::{Command, Output};

use toolgate_policy::Effect;

use crate::scratch::{Scratch, expect};

/// A workspace with `build/out.js` and `.env` (the secret), under `policy`.
fn workspace(policy: &str) -> Scratch {
    Scratch::new(policy, &[("build/out.js", "1"), (".env", "SECRET=2\n")])
}

/// npx, or None (and the test says it was skipped) where node is not
/// installed; CI installs it (scripts/install-clients.sh) and requires it.
fn npx_works() -> bool {
    let ok = Command::new("npx")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("npx is not installed: CI runs this test");
        }
        eprintln!("skipped: npx is not installed (node and npm); CI runs this test");
    }
    ok
}

/// Runs `cmd` with bash in `w`'s workspace, npm offline and with its cache
/// in the scratch directory.
fn run(w: &Scratch, cmd: &str) -> Output {
    w.bash(cmd)
        .env("npm_config_offline", "true")
        .env("npm_config_cache", w.base.join("npm-cache"))
        .env("npm_config_update_notifier", "false")
        .output()
        .expect("bash runs")
}

#[test]
fn what_npx_runs_is_judged_as_itself() {
    if !npx_works() {
        return;
    }
    let w = workspace(
        "[policy]\ndefault = \"ask\"\n\nallow = [\"Read\", \"Bash(npx *)\"]\ndeny = [\"Read(.env)\"]\n",
    );

    // A removal is not what an allow of npx names: it takes the default.
    for cmd in [
        "npx rm -rf build",
        "npm exec -- rm -rf build",
        "npx --yes timeout 5 rm -rf build",
    ] {
        let d = w.decide(cmd);
        expect(&d, Effect::Ask, None, cmd);
    }
    // The denied file npx's command reads, directly or through a shell.
    for cmd in [
        "npx cat .env",
        "npx sh -c 'cat .env'",
        "npx -y grep -r SECRET .",
    ] {
        let d = w.decide(cmd);
        expect(&d, Effect::Deny, Some("deny[0]"), cmd);
    }
    // npm's own options that load code, and `-c`, which hands a shell
    // its command, are not followed.
    std::fs::write(
        w.ws.join("x.js"),
        "require('fs').writeFileSync(__dirname + '/LOADED', '')\n",
    )
    .unwrap();
    for cmd in [
        "npx --node-options='--require ./x.js' node -e 1",
        "npx -c 'touch CALLED'",
    ] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Ask, "{cmd}: {}", d.reason);
        assert!(
            d.actions
                .iter()
                .any(|a| matches!(a.action, toolgate_policy::Action::Unknown { .. })),
            "{cmd}: {:?}",
            d.actions
        );
    }
    // What npx runs stays allowed when it only reads.
    let d = w.decide("npx wc -l build/out.js");
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);

    // Run for real: npx ran each of them.
    let out = run(&w, "npx cat .env");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("SECRET=2"),
        "{out:?}"
    );
    let out = run(&w, "npx --node-options='--require ./x.js' node -e 1");
    assert!(w.ws.join("LOADED").exists(), "{out:?}");
    let out = run(&w, "npx -c 'touch CALLED'");
    assert!(w.ws.join("CALLED").exists(), "{out:?}");
    let out = run(&w, "npx rm -rf build");
    assert!(!w.ws.join("build").exists(), "npx ran rm: {out:?}");
}

#[test]
fn a_rule_on_the_runners_command_names_what_it_runs() {
    let w = workspace(
        "[policy]\ndefault = \"ask\"\n\nallow = [\"Read\", \"Bash(npx prettier *)\", \"Bash(uv run pytest *)\", \"Bash(npx *)\"]\ndeny = [\"Bash(rm *)\"]\n",
    );
    for cmd in [
        "npx prettier --check .",
        "uv run pytest -q",
        "uv run pytest tests -x",
    ] {
        let d = w.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
    // A deny of the program meets it under the runner.
    let d = w.decide("npx rm -rf build");
    expect(&d, Effect::Deny, Some("deny[0]"), "npx rm -rf build");
    // uv's options that change what runs or where are not followed.
    for cmd in [
        "uv run --env-file vars pytest",
        "uv --directory /elsewhere run pytest",
        "uv run pytest $(cat list)",
    ] {
        let d = w.decide(cmd);
        assert_ne!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
}

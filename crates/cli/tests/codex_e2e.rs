//! `toolgate hook codex` under the real Codex CLI, run headless and offline
//! against a fake Responses API (the harness of `crates/hook/tests/support`).
//!
//! The hook is installed with `toolgate hook install codex --user` into the
//! sandbox's `CODEX_HOME`; Codex runs with no approvals and no sandbox of its
//! own, so toolgate is the only gate. What happened is read from disk
//! (marker files), from what the model was told, and from the ledger. They
//! need `scripts/install-clients.sh` to have run.

use crate::support;

use std::process::Command;

use serde_json::json;
use support::codex::FakeResponses;
use support::{Sandbox, Turn, codex_bin, run_codex, run_codex_trusting_config, write_codex_config};
use toolgate_store::{Decision, Outcome, RowFilter, Store};

const POLICY: &str = r#"
allow = ["Bash(git status)", "Bash(ls *)"]
deny  = ["Bash(rm *)"]
"#;

fn project(policy: &str) -> Sandbox {
    let sandbox = bare_project(policy);
    let out = install(&sandbox, &[]);
    assert!(
        out.status.success(),
        "hook install failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    sandbox
}

/// `toolgate hook install codex --user EXTRA..` in the sandbox's project.
fn install(sandbox: &Sandbox, extra: &[&std::ffi::OsStr]) -> std::process::Output {
    install_as(sandbox, "--user", extra)
}

/// `toolgate hook install codex SCOPE EXTRA..` in the sandbox's project.
fn install_as(sandbox: &Sandbox, scope: &str, extra: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["hook", "install", "codex", scope])
        .args(extra)
        .current_dir(&sandbox.project)
        .env("HOME", &sandbox.home)
        .env("CODEX_HOME", sandbox.home.join(".codex"))
        .output()
        .expect("run toolgate hook install codex")
}

/// `hook install codex SCOPE --trust` with the pinned codex: it must
/// succeed and say `said` of both hooks.
fn trust_both(sandbox: &Sandbox, scope: &str, said: &str) {
    let codex = codex_bin();
    let out = install_as(
        sandbox,
        scope,
        &["--trust".as_ref(), "--codex".as_ref(), codex.as_os_str()],
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}{stdout}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.matches(said).count(), 2, "{stdout}");
}

/// A git project with the policy and `keep.txt`, the hook not installed.
fn bare_project(policy: &str) -> Sandbox {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path("toolgate.toml"), policy).expect("write the policy");
    std::fs::write(sandbox.path("keep.txt"), "still here\n").expect("write keep.txt");
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&sandbox.project)
        .env("HOME", &sandbox.home)
        .status()
        .expect("run git init");
    assert!(git.success(), "git init failed");
    sandbox
}

fn exec(cmd: &str) -> Turn {
    Turn::tool("exec_command", json!({"cmd": cmd}))
}

#[test]
fn codex_runs_only_what_the_policy_allows() {
    if !crate::support::have_clients() {
        return;
    }
    let sandbox = project(POLICY);
    let api = FakeResponses::start(vec![
        exec("rm -f keep.txt"),
        exec("git status"),
        exec("git status && touch marker"),
    ]);
    let run = run_codex(&sandbox, &api, "tidy up");
    assert!(run.status.success(), "codex failed: {}", run.stderr);

    // What ran: the denied `rm` did not, nor the chained `touch`.
    assert!(sandbox.path("keep.txt").exists(), "`rm -f keep.txt` ran");
    assert!(
        !sandbox.path("marker").exists(),
        "`git status && touch marker` ran"
    );

    // What the model was told.
    let outputs = api.outputs();
    assert_eq!(outputs.len(), 3, "{outputs:?}");
    assert!(
        outputs[0].output.contains("denied by rule `deny[0]`"),
        "{}",
        outputs[0].output
    );
    assert!(
        outputs[0].output.contains("was not executed"),
        "{}",
        outputs[0].output
    );
    assert!(
        outputs[1].output.contains("On branch") && !outputs[1].output.contains("not executed"),
        "git status ran: {}",
        outputs[1].output
    );
    assert!(
        outputs[2].output.contains("was not executed"),
        "{}",
        outputs[2].output
    );

    // What the ledger holds: one row per call, tagged with the client.
    let rows = Store::open(sandbox.state.join("toolgate.db"))
        .expect("open the ledger")
        .rows(&RowFilter::default())
        .expect("ledger rows");
    let got: Vec<(Decision, Option<String>, Outcome)> = rows
        .iter()
        .map(|r| (r.record.decision, r.record.rule.clone(), r.record.outcome))
        .collect();
    assert_eq!(
        got,
        [
            (Decision::Deny, Some("deny[0]".into()), Outcome::Blocked),
            (Decision::Allow, Some("allow[0]".into()), Outcome::Passed),
            (Decision::Deny, None, Outcome::Blocked),
        ]
    );
    for row in &rows {
        assert_eq!(row.record.client.as_deref(), Some("codex"));
        assert_eq!(row.record.tool, "Bash");
    }
}

#[test]
fn a_call_the_hook_cannot_decide_is_blocked() {
    if !crate::support::have_clients() {
        return;
    }
    // A policy that does not load: the hook cannot decide anything.
    let sandbox = project("allow = [\"Bash(touch *)\"\n");
    let api = FakeResponses::start(vec![exec("touch marker")]);
    let run = run_codex(&sandbox, &api, "make a marker");
    assert!(run.status.success(), "codex failed: {}", run.stderr);
    assert!(!sandbox.path("marker").exists(), "the undecidable call ran");
    let outputs = api.outputs();
    assert_eq!(outputs.len(), 1, "{outputs:?}");
    assert!(
        outputs[0].output.contains("cannot load the policy"),
        "{}",
        outputs[0].output
    );
}

#[test]
fn install_with_trust_makes_codex_run_the_hook_without_a_bypass() {
    if !crate::support::have_clients() {
        return;
    }
    let ledger = |sandbox: &Sandbox| match Store::open(sandbox.state.join("toolgate.db")) {
        Ok(store) => store.rows(&RowFilter::default()).expect("ledger rows"),
        Err(_) => Vec::new(),
    };

    // `touch` rather than `rm`: Codex refuses `rm -f` on its own.
    const POLICY: &str = r#"
allow = ["Bash(git status)"]
deny  = ["Bash(touch *)"]
"#;
    // Installed but not trusted: Codex does not run the hook, so the
    // denied `touch` runs and nothing is recorded. This is what `--trust`
    // is for.
    let untrusted = bare_project(POLICY);
    let api = FakeResponses::start(vec![exec("touch marker")]);
    write_codex_config(&untrusted, &api);
    let out = install(&untrusted, &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = run_codex_trusting_config(&untrusted, "tidy up");
    assert!(run.status.success(), "codex failed: {}", run.stderr);
    assert!(
        untrusted.path("marker").exists(),
        "the untrusted hook ran: {:?} {}",
        api.outputs(),
        run.stderr
    );
    assert!(ledger(&untrusted).is_empty());

    // With --trust, Codex itself records its hash of both hooks.
    let sandbox = bare_project(POLICY);
    let api = FakeResponses::start(vec![exec("touch marker"), exec("git status")]);
    write_codex_config(&sandbox, &api);
    trust_both(&sandbox, "--user", "Codex now trusts the hook");
    let config = std::fs::read_to_string(sandbox.home.join(".codex/config.toml")).unwrap();
    let config: toml::Table = toml::from_str(&config).expect("Codex's config still parses");
    let state = config["hooks"]["state"].as_table().expect("[hooks.state]");
    let hooks_json = sandbox.home.join(".codex/hooks.json");
    for event in ["pre_tool_use", "permission_request"] {
        let key = format!("{}:{event}:0:0", hooks_json.display());
        let hash = state[&key]["trusted_hash"]
            .as_str()
            .expect("a trusted hash");
        assert!(hash.starts_with("sha256:"), "{hash}");
    }
    // The model's provider settings are as they were.
    assert_eq!(config["model_provider"].as_str(), Some("fake"));

    let run = run_codex_trusting_config(&sandbox, "tidy up");
    assert!(run.status.success(), "codex failed: {}", run.stderr);
    assert!(!sandbox.path("marker").exists(), "`touch marker` ran");
    let got: Vec<(Decision, Option<String>)> = ledger(&sandbox)
        .iter()
        .map(|r| (r.record.decision, r.record.rule.clone()))
        .collect();
    assert_eq!(
        got,
        [
            (Decision::Deny, Some("deny[0]".into())),
            (Decision::Allow, Some("allow[0]".into())),
        ]
    );

    // Again: nothing left to record.
    trust_both(&sandbox, "--user", "Codex already trusts the hook");
}

#[test]
fn install_with_trust_fails_when_codex_does_not_load_the_hooks() {
    if !crate::support::have_clients() {
        return;
    }
    // A project install in a project Codex does not trust: Codex does not
    // read its `.codex/hooks.json`, so nothing can be trusted, and the
    // command says so rather than claiming success.
    let sandbox = bare_project(POLICY);
    let api = FakeResponses::start(vec![]);
    write_codex_config(&sandbox, &api);
    let codex = codex_bin();
    let trust = ["--trust".as_ref(), "--codex".as_ref(), codex.as_os_str()];
    let out = install_as(&sandbox, "--project", &trust);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("only in a project it trusts"), "{stderr}");
    assert!(
        sandbox.path(".codex/hooks.json").is_file(),
        "the hooks file was written"
    );
    let config = std::fs::read_to_string(sandbox.home.join(".codex/config.toml")).unwrap();
    assert!(!config.contains("trusted_hash"), "{config}");

    // Once Codex trusts the project, its hooks can be trusted too.
    let trusted_project = format!(
        "{config}\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
        sandbox.project.display()
    );
    std::fs::write(sandbox.home.join(".codex/config.toml"), trusted_project).unwrap();
    trust_both(&sandbox, "--project", "Codex now trusts the hook");
    let config = std::fs::read_to_string(sandbox.home.join(".codex/config.toml")).unwrap();
    let project_hooks = sandbox.path(".codex/hooks.json");
    assert!(
        config.contains(&format!("{}:pre_tool_use:0:0", project_hooks.display())),
        "{config}"
    );

    // A codex that cannot be run is an error too, naming it.
    let missing = [
        "--trust".as_ref(),
        "--codex".as_ref(),
        std::ffi::OsStr::new("/nonexistent/codex"),
    ];
    let out = install(&sandbox, &missing);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("/nonexistent/codex"), "{stderr}");
}

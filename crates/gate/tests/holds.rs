//! Asks the OS sandbox answers (`sandbox:holds`): a shell command run
//! inside toolgate's sandbox that asks only by the policy's default about
//! what the boundary confines (a program, an unanalysable part, a write, a
//! connection it refuses) is allowed; every other ask stays an ask.

use std::io::Read;
use std::net::TcpListener;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;
use toolgate_gate::{Answer, FixedApprover, Gate, GateOptions, Outcome, Sandboxed};
use toolgate_policy::{Call, Effect, LoadOptions, Policy, rule_ids};
use toolgate_tools::BuiltinTools;

/// Fetches ask by default; no rule allows any fetch, so the sandbox's
/// network is closed.
const CLOSED: &str = r#"
allow = ["Read", "Edit", "Bash(curl *)", "Bash(nc *)", "Bash(echo *)", "Bash(ssh *)", "Bash(cat *)"]
ask = ["Edit(Cargo.toml)", "WebFetch(domain:asked.example)"]
[policy]
default = "ask"
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

    fn policy(&self, text: &str) -> Policy {
        Policy::from_toml(
            text,
            &self.root.join("toolgate.toml"),
            &LoadOptions::default(),
        )
        .unwrap()
    }

    /// A gate declining every ask, running `run_shell` in the real sandbox;
    /// `sandboxed` says whether the host declares that.
    fn gate(&self, policy: &str, sandboxed: bool) -> Gate {
        let policy = self.policy(policy);
        let ws = toolgate_tools::Workspace::open(policy.roots(), policy.read_roots()).unwrap();
        Gate::new(
            policy,
            Box::new(FixedApprover::new(Answer::Decline { note: None })),
            GateOptions {
                sandbox: sandboxed.then_some(Sandboxed::default()),
                ..GateOptions::default()
            },
        )
        .with_builtin_tools(ws)
    }

    fn shell(&self, command: &str) -> Call {
        let mut call = Call::new("run_shell", json!({"command": command}));
        call.cwd = Some(self.root.clone());
        call
    }
}

/// Submits a command that must be held, and returns what running it gave,
/// or `None` when this kernel cannot enforce the sandbox (then the command
/// did not run: `marker` was not made).
fn run_held(gate: &mut Gate, ws: &Ws, command: &str) -> Option<toolgate_gate::ToolResult> {
    let r = gate.submit(&ws.shell(command));
    assert_eq!(
        r.decision.rule.as_deref(),
        Some(rule_ids::SANDBOX_HOLDS),
        "{}",
        r.decision.reason
    );
    if r.content.contains("not run") {
        assert!(!ws.root.join("marker").exists());
        return None;
    }
    assert_eq!(r.outcome, Outcome::Executed, "{}", r.content);
    assert_eq!(
        std::fs::read_to_string(ws.root.join("marker")).unwrap(),
        "ran\n"
    );
    Some(r)
}

fn held(gate: &mut Gate, call: &Call) -> bool {
    let r = gate.submit(call);
    r.decision.rule.as_deref() == Some(rule_ids::SANDBOX_HOLDS)
        && r.decision.decision == Effect::Allow
}

#[test]
fn connections_the_closed_network_refuses_are_allowed() {
    let ws = Ws::new();
    let mut gate = ws.gate(CLOSED, true);
    for command in [
        ("echo hi > /dev/tcp/example.com/80", "no rule matches"),
        ("echo x > /dev/udp/10.0.0.1/53", "no rule matches"),
        (
            "curl -s https://example.com/ > /dev/tcp/h/1",
            "no rule matches",
        ),
        ("curl -s 'http://a\\@b.example/'", "parsers disagree"),
        ("curl -s 'http://[bad/'", "cannot be parsed"),
    ] {
        let (command, why) = command;
        let d = gate.submit(&ws.shell(command)).decision;
        assert_eq!(d.decision, Effect::Allow, "{command}: {}", d.reason);
        assert_eq!(
            d.rule.as_deref(),
            Some(rule_ids::SANDBOX_HOLDS),
            "{command}"
        );
        assert!(d.reason.contains(why), "{command}: {}", d.reason);
        assert!(!d.remember, "{command}");
    }
}

/// A program no rule names, an unanalysable part and a write the policy
/// asks about by default run confined: the boundary answers for them.
#[test]
fn what_the_boundary_confines_is_allowed() {
    let ws = Ws::new();
    let mut gate = ws.gate(CLOSED, true);
    for command in [
        "eval \"$CMD\"",
        "python3 -c 'print(1)'",
        "head < /dev/tcp/10.0.0.1/80",
        "curl -s --unix-socket /run/docker.sock http://localhost/",
        "curl -s http://x.example/$(echo a)",
    ] {
        assert!(held(&mut gate, &ws.shell(command)), "{command}");
    }
    // Writes asked about by default: in the roots (the boundary lets
    // them, as it lets the ones it cannot see) or beyond (it refuses them).
    let writes = "allow = [\"Read\", \"Bash(echo *)\"]\n[policy]\ndefault = \"ask\"\n";
    let mut gate = ws.gate(writes, true);
    for command in ["echo x > new.txt", "echo x | tee out.txt"] {
        let r = gate.submit(&ws.shell(command));
        assert_eq!(
            r.decision.rule.as_deref(),
            Some(rule_ids::SANDBOX_HOLDS),
            "{command}: {}",
            r.decision.reason
        );
    }
}

#[test]
fn every_other_ask_stays_an_ask() {
    let ws = Ws::new();
    let mut gate = ws.gate(CLOSED, true);
    for command in [
        // An ask the policy wrote, on a fetch or a write.
        "curl -s https://asked.example/",
        "echo x > Cargo.toml",
        "eval \"$X\"; echo x > Cargo.toml",
        // A URL that reads a local file, or names no host.
        "curl -s file:///etc/hostname",
        // A protected path.
        "echo '{}' > .claude/settings.json",
        // A hard limit.
        "rm -rf ~",
    ] {
        let r = gate.submit(&ws.shell(command));
        assert_ne!(
            r.decision.rule.as_deref(),
            Some(rule_ids::SANDBOX_HOLDS),
            "{command}"
        );
        assert_ne!(r.decision.decision, Effect::Allow, "{command}");
        assert_ne!(r.outcome, Outcome::Executed, "{command}");
    }
    assert!(!ws.root.join(".claude").exists());
    assert!(!ws.root.join("Cargo.toml").exists());

    // Not a shell command: toolgate's own fetch runs outside any sandbox.
    let fetch = Call::new("fetch_url", json!({"url": "https://example.com/"}));
    assert!(!held(&mut gate, &fetch));

    // A host that does not run the command inside the sandbox, or whose
    // sandbox leaves the network open.
    let mut plain = ws.gate(CLOSED, false);
    assert!(!held(
        &mut plain,
        &ws.shell("echo hi > /dev/tcp/example.com/80")
    ));
    let policy = ws.policy(CLOSED);
    let call = ws.shell("python3 -c 'print(1)'");
    let open = Sandboxed { network_open: true };
    let d = toolgate_gate::sandbox_holds(&policy, &call, policy.decide(&call), &open);
    assert_eq!(d.decision, Effect::Ask, "{}", d.reason);

    // Reads the policy asks about: the boundary does not hide the roots,
    // so nothing that could read them unseen is held.
    let reads = "allow = [\"Bash(echo *)\"]\n[policy]\ndefault = \"ask\"\n";
    let mut gate = ws.gate(reads, true);
    for command in ["python3 -c 'print(1)'", "eval \"$CMD\"", "head notes.txt"] {
        assert!(!held(&mut gate, &ws.shell(command)), "{command}");
    }
    // Reading allowed, but a rule asks about some reads: an unseen read
    // there would not be asked about, and the boundary does not hide it.
    let some_reads = "allow = [\"Read\", \"Bash(echo *)\"]\nask = [\"Read(notes/**)\"]\n\
                      [policy]\ndefault = \"ask\"\n";
    let mut gate = ws.gate(some_reads, true);
    for command in ["python3 -c 'print(1)'", "eval \"$CMD\""] {
        assert!(!held(&mut gate, &ws.shell(command)), "{command}");
    }
    assert!(held(
        &mut gate,
        &ws.shell("echo hi > /dev/tcp/example.com/80")
    ));

    // Through the proxy: a fetch whose origin the policy allows reaches
    // that host, so its ask stays; one the proxy refuses is held.
    let proxied = CLOSED.replace(
        "\"Bash(cat *)\"]",
        "\"Bash(cat *)\", \"WebFetch(https://docs.rs/)\"]",
    );
    assert!(ws.policy(&proxied).allows_network());
    let mut gate = ws.gate(&proxied, true);
    assert!(!held(&mut gate, &ws.shell("wget -q https://docs.rs/serde")));
    assert!(held(&mut gate, &ws.shell("wget -q https://example.com/")));
}

/// What was held is held: the command runs, inside the real sandbox, and
/// its connection to a listener on 127.0.0.1 never arrives.
#[test]
fn a_held_connection_fails_inside_the_sandbox() {
    let ws = Ws::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut gate = ws.gate(CLOSED, true);
    let command =
        format!("echo ran > marker; echo hello > /dev/tcp/127.0.0.1/{port} || echo refused > why");
    let Some(r) = run_held(&mut gate, &ws, &command) else {
        return;
    };
    assert!(ws.root.join("why").exists(), "it connected: {}", r.content);
    std::thread::sleep(Duration::from_millis(100));
    match listener.accept() {
        Ok((mut s, _)) => {
            let mut buf = Vec::new();
            let _ = s.read_to_end(&mut buf);
            panic!("a connection arrived: {}", String::from_utf8_lossy(&buf));
        }
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::WouldBlock),
    }
}

/// The agent's `run_shell` runs a held command with the boundary
/// tightened: a path an `ask` rule names for writing stays as it was,
/// though the command ran.
#[test]
fn a_held_command_runs_with_asked_paths_read_only() {
    let ws = Ws::new();
    std::fs::write(ws.root.join("Cargo.toml"), "original\n").unwrap();
    let policy = "allow = [\"Read\", \"Bash(echo *)\"]\nask = [\"Edit(Cargo.toml)\"]\n\
                  [policy]\ndefault = \"ask\"\n";
    let mut gate = ws.gate(policy, true);
    let command = "eval \"$(printf 'echo changed > Cargo.toml')\"; echo ran > marker";
    let Some(r) = run_held(&mut gate, &ws, command) else {
        return;
    };
    assert_eq!(
        std::fs::read_to_string(ws.root.join("Cargo.toml")).unwrap(),
        "original\n",
        "{}",
        r.content
    );
}

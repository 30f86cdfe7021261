//! `toolgate hook claude|gemini|install` and `toolgate import claude` as
//! processes: exit statuses, what they print, and the files they write.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

struct Dir {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Dir {
    fn new() -> Dir {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        Dir { _tmp: tmp, root }
    }

    fn run(&self, args: &[&str], stdin: &str) -> Output {
        self.run_with(args, stdin, &[])
    }

    fn run_with(&self, args: &[&str], stdin: &str, env: &[(&str, &Path)]) -> Output {
        self.exec(env!("CARGO_BIN_EXE_toolgate"), args, stdin, env)
    }

    /// Runs `exe` (`toolgate` or `toolgate-hook`) here.
    fn exec(&self, exe: &str, args: &[&str], stdin: &str, env: &[(&str, &Path)]) -> Output {
        let mut command = Command::new(exe);
        command
            .args(args)
            .current_dir(&self.root)
            .env_remove("TOOLGATE_POLICY")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("GEMINI_CLI_HOME")
            .env("HOME", self.root.join("home"))
            .env("TOOLGATE_STATE_DIR", self.root.join("state"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        // A hook that fails before reading its input (an unreadable
        // policy) may close the pipe first: that is its answer, not an error.
        if let Err(e) = input.write_all(stdin.as_bytes()) {
            assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{e}");
        }
        drop(input);
        child.wait_with_output().unwrap()
    }

    fn read(&self, path: &str) -> String {
        std::fs::read_to_string(self.root.join(path)).unwrap()
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The lean hook executable beside `toolgate`, which `hook install`
/// registers.
fn hook_path() -> String {
    Path::new(env!("CARGO_BIN_EXE_toolgate-hook"))
        .canonicalize()
        .unwrap()
        .display()
        .to_string()
}

// ---------------------------------------------------------------- the hooks

#[test]
fn hook_claude_answers_on_stdout_with_exit_0() {
    let dir = Dir::new();
    std::fs::write(dir.root.join("toolgate.toml"), "deny = [\"Bash(rm *)\"]\n").unwrap();
    let input = json!({"session_id": "s1", "cwd": dir.root, "permission_mode": "default",
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf x"}, "tool_use_id": "toolu_1"});
    let out = dir.run(&["hook", "claude"], &input.to_string());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny");
    // The row was spooled; opening the store folds it into the ledger.
    let store = toolgate_store::Store::open_in(dir.root.join("state")).unwrap();
    let rows = store.rows(&toolgate_store::RowFilter::default()).unwrap();
    assert_eq!(rows.len(), 1, "the call was recorded");
    assert_eq!(rows[0].record.call_id, "toolu_1");
    assert_eq!(rows[0].record.decision, toolgate_store::Decision::Deny);
    assert_eq!(rows[0].record.rule.as_deref(), Some("deny[0]"));
}

/// `toolgate-hook CLIENT`, which `hook install` registers, answers and
/// records as `toolgate hook CLIENT` does, and `--sandbox` wraps commands
/// in the `toolgate` beside it.
#[test]
fn the_lean_hook_executable_answers_like_toolgate_hook() {
    let dir = Dir::new();
    std::fs::write(
        dir.root.join("toolgate.toml"),
        "allow = [\"Bash(git status)\"]\ndeny = [\"Bash(rm *)\"]\n",
    )
    .unwrap();
    let input = |command: &str, id: &str| {
        json!({"session_id": "s1", "cwd": dir.root, "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": id})
        .to_string()
    };
    let lean = env!("CARGO_BIN_EXE_toolgate-hook");
    let mut answers = Vec::new();
    for args in [&["claude"][..], &["hook", "claude"][..]] {
        let exe = if args[0] == "hook" {
            env!("CARGO_BIN_EXE_toolgate")
        } else {
            lean
        };
        let out = dir.exec(exe, args, &input("rm -rf x", "toolu_rm"), &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        answers.push(answer);
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(
        answers[0]["hookSpecificOutput"]["permissionDecision"],
        "deny"
    );

    let out = dir.exec(
        lean,
        &["claude", "--sandbox"],
        &input("git status", "toolu_gs"),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "allow");
    let rewritten = answer["hookSpecificOutput"]["updatedInput"]["command"]
        .as_str()
        .unwrap();
    // The lean executable runs the command itself (`toolgate-hook
    // sandbox`): its start-up is paid on every command.
    let hook = Path::new(lean).canonicalize().unwrap();
    assert!(
        rewritten.starts_with(&format!("'{}' 'sandbox' ", hook.display())),
        "{rewritten}"
    );

    // Usage errors block (exit 2); help is not an answer but not a failure.
    let out = dir.exec(lean, &["claude", "--bogus"], &input("git status", "t"), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());

    let store = toolgate_store::Store::open_in(dir.root.join("state")).unwrap();
    let rows = store.rows(&toolgate_store::RowFilter::default()).unwrap();
    let ids: Vec<_> = rows.iter().map(|r| r.record.call_id.as_str()).collect();
    assert_eq!(ids, ["toolu_rm", "toolu_rm", "toolu_gs"]);
    assert!(
        rows[2]
            .record
            .note
            .as_deref()
            .unwrap_or("")
            .contains("runs as:")
    );
}

#[test]
fn hook_failures_block_in_each_clients_way() {
    let dir = Dir::new();
    let out = dir.run(&["hook", "claude"], "not json");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    assert!(
        text(&out.stderr).contains("not valid JSON"),
        "{}",
        text(&out.stderr)
    );

    let out = dir.run(&["hook", "gemini"], "not json");
    assert_eq!(out.status.code(), Some(2));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["decision"], "deny");

    let out = dir.run(&["hook", "claude", "--wait", "5"], "{}");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--approver queue"),
        "{}",
        text(&out.stderr)
    );

    let out = dir.run(&["hook", "claude", "--policy", "missing.toml"], "{}");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

/// Codex CLI starts its hooks in the session's directory but gives the
/// directory the model named for a command (`exec_command`'s `workdir`)
/// as the input's `cwd`: the project policy is found from where the hook
/// was started, so a first command run in a directory holding a looser
/// `toolgate.toml` (a vendored project's) does not make it the session's
/// policy.
#[test]
fn codex_finds_the_policy_from_the_session_directory_not_the_workdir() {
    let dir = Dir::new();
    std::fs::write(
        dir.root.join("toolgate.toml"),
        "allow = [\"Bash(ls *)\"]\ndeny = [\"Bash(rm *)\"]\n",
    )
    .unwrap();
    let vendored = dir.root.join("vendor/other");
    std::fs::create_dir_all(&vendored).unwrap();
    std::fs::write(
        vendored.join("toolgate.toml"),
        "allow = [\"Bash\", \"Bash(rm *)\"]\n",
    )
    .unwrap();
    std::fs::write(dir.root.join("victim.txt"), "v").unwrap();
    let call = |session: &str, command: &str| {
        json!({
            "session_id": session, "turn_id": "t", "transcript_path": null,
            "cwd": vendored, "hook_event_name": "PreToolUse", "model": "m",
            "permission_mode": "default", "tool_name": "Bash",
            "tool_use_id": "c1", "tool_input": {"command": command},
        })
        .to_string()
    };
    // The session's first call and a later one, both from the vendored
    // directory: the project's deny holds for both.
    for (session, command) in [
        ("z1", "rm ../../victim.txt"),
        ("z2", "ls"),
        ("z2", "rm ../../victim.txt"),
    ] {
        let out = dir.run(&["hook", "codex"], &call(session, command));
        let stdout = text(&out.stdout);
        if command == "ls" {
            assert_eq!(
                (out.status.code(), stdout.as_str()),
                (Some(0), ""),
                "{command}"
            );
            continue;
        }
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let answer: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(
            answer["hookSpecificOutput"]["permissionDecision"], "deny",
            "{command}: {stdout}"
        );
        assert!(stdout.contains("Bash(rm *)"), "{stdout}");
    }
    assert!(dir.root.join("victim.txt").exists());
}

/// A hook process that a fatal signal ends (a fault in linked C code, a
/// stack overflow, an abort) still blocks the call in its client's way:
/// most clients let a call run when its hook dies. The signal is sent while
/// the hook waits for its input, in both executables.
#[test]
fn a_fatal_signal_in_the_hook_blocks_the_call() {
    let dir = Dir::new();
    for (exe, args, signal) in [
        (env!("CARGO_BIN_EXE_toolgate-hook"), &["claude"][..], "SEGV"),
        (env!("CARGO_BIN_EXE_toolgate-hook"), &["claude"][..], "ABRT"),
        (env!("CARGO_BIN_EXE_toolgate-hook"), &["claude"][..], "BUS"),
        (
            env!("CARGO_BIN_EXE_toolgate"),
            &["hook", "claude"][..],
            "SEGV",
        ),
        (env!("CARGO_BIN_EXE_toolgate-hook"), &["gemini"][..], "SEGV"),
    ] {
        let child = Command::new(exe)
            .args(args)
            .current_dir(&dir.root)
            .env("HOME", dir.root.join("home"))
            .env("TOOLGATE_STATE_DIR", dir.root.join("state"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The handler is set before the input is read: wait until the
        // process is blocked in `read(0, ..)` (system call 0 on x86-64,
        // the first argument the descriptor), or 3 s on other machines.
        let syscall = format!("/proc/{}/syscall", child.id());
        for _ in 0..300 {
            let now = std::fs::read_to_string(&syscall).unwrap_or_default();
            if now.starts_with("0 0x0 ") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let killed = Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{exe} {args:?} after SIG{signal}: {:?} {}",
            out.status,
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains("fatal error"),
            "{}",
            text(&out.stderr)
        );
        if args.contains(&"gemini") {
            let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(answer["decision"], "deny");
        }
    }
}

/// `hook claude --sandbox`: a command whose only question is a connection
/// the sandbox's closed network refuses is allowed (`sandbox:holds`) and
/// rewritten to run inside it; other asks still ask, and without
/// `--sandbox` nothing changes. `check --sandbox` decides the same.
#[test]
fn hook_sandbox_allows_what_the_sandbox_holds() {
    let dir = Dir::new();
    std::fs::write(
        dir.root.join("toolgate.toml"),
        "allow = [\"Bash(echo *)\"]\n[policy]\ndefault = \"ask\"\n",
    )
    .unwrap();
    let input = |command: &str, id: &str| {
        json!({"session_id": "s1", "cwd": dir.root, "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": id})
        .to_string()
    };
    let lean = env!("CARGO_BIN_EXE_toolgate-hook");
    let held = "echo hi > /dev/tcp/example.com/80";
    let out = dir.exec(lean, &["claude", "--sandbox"], &input(held, "t1"), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hso = &answer["hookSpecificOutput"];
    assert_eq!(hso["permissionDecision"], "allow", "{answer}");
    let rewritten = hso["updatedInput"]["command"].as_str().unwrap();
    assert!(rewritten.contains("'sandbox' "), "{rewritten}");

    for (args, command) in [
        (
            &["claude", "--sandbox"][..],
            "head < /dev/tcp/example.com/80",
        ),
        (&["claude"][..], held),
    ] {
        let out = dir.exec(lean, args, &input(command, "t2"), &[]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            answer["hookSpecificOutput"]["permissionDecision"], "ask",
            "{args:?} {command}: {answer}"
        );
    }

    let store = toolgate_store::Store::open_in(dir.root.join("state")).unwrap();
    let rows = store.rows(&toolgate_store::RowFilter::default()).unwrap();
    let first = rows.iter().find(|r| r.record.call_id == "t1").unwrap();
    assert_eq!(first.record.rule.as_deref(), Some("sandbox:holds"));

    let call = json!({"tool": "Bash", "client": "claude", "input": {"command": held}}).to_string();
    for (flag, want) in [(true, "sandbox:holds"), (false, "")] {
        let mut args = vec!["check", "--policy", "toolgate.toml"];
        if flag {
            args.push("--sandbox");
        }
        args.push(&call);
        let out = dir.run(&args, "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let d: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(d["rule"].as_str().unwrap_or(""), want, "{d}");
    }
}

// ---------------------------------------------------------------- install

#[test]
fn hook_install_merges_backs_up_and_is_idempotent() {
    let dir = Dir::new();
    let before = r#"{
  "permissions": {"allow": ["Bash(ls)"]},
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit"}]}]}
}
"#;
    std::fs::create_dir_all(dir.root.join(".claude")).unwrap();
    std::fs::write(dir.root.join(".claude/settings.json"), before).unwrap();

    let out = dir.run(&["hook", "install", "claude", "--no-sandbox"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("added the PreToolUse hook"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(dir.read(".claude/settings.json.bak"), before);
    let settings: Value = serde_json::from_str(&dir.read(".claude/settings.json")).unwrap();
    assert_eq!(settings["permissions"], json!({"allow": ["Bash(ls)"]}));
    let hooks = settings["hooks"]["PreToolUse"].as_array().unwrap();
    assert_eq!(hooks.len(), 2);
    assert_eq!(hooks[0]["hooks"][0]["command"], "audit");
    assert_eq!(hooks[1]["matcher"], "*");
    assert_eq!(
        hooks[1]["hooks"][0]["command"],
        format!("{} claude", hook_path())
    );

    let after_first = dir.read(".claude/settings.json");
    let out = dir.run(
        &["hook", "install", "claude", "--project", "--no-sandbox"],
        "",
    );
    assert!(out.status.success());
    assert!(
        text(&out.stdout).contains("nothing changed"),
        "{}",
        text(&out.stdout)
    );
    assert_eq!(dir.read(".claude/settings.json"), after_first);
    assert_eq!(dir.read(".claude/settings.json.bak"), before);
}

/// Whether `toolgate sandbox --check` says this kernel enforces every
/// required part.
fn sandbox_enforced(dir: &Dir) -> bool {
    dir.run(&["sandbox", "--check"], "").status.success()
}

/// `toolgate-hook sandbox` runs the command in a PID namespace of its own:
/// a process it leaves behind (`setsid ... &`) is killed when it ends, so
/// it cannot wait for a protected file to be replaced from outside and
/// write it then; the command's exit status is kept.
#[test]
fn what_a_sandboxed_command_leaves_running_ends_with_it() {
    let dir = Dir::new();
    if !sandbox_enforced(&dir) {
        eprintln!("skipped: the sandbox is not enforced on this kernel");
        return;
    }
    std::fs::write(dir.root.join("toolgate.toml"), "allow = [\"Bash\"]\n").unwrap();
    let lean = env!("CARGO_BIN_EXE_toolgate-hook");
    let out = dir.exec(
        lean,
        &[
            "sandbox",
            "--policy",
            "toolgate.toml",
            "--",
            "bash",
            "-c",
            "setsid bash -c 'sleep 1; touch late' >/dev/null 2>&1 </dev/null & touch early; exit 3",
        ],
        "",
        &[],
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(dir.root.join("early").exists(), "{}", text(&out.stderr));
    std::thread::sleep(std::time::Duration::from_millis(2500));
    assert!(
        !dir.root.join("late").exists(),
        "the process left behind ran on"
    );
}

/// A parent of an Edit-denied path cannot be renamed away so that the path
/// is made again in its place (`mv conf conf.bak; mkdir -p conf/prod`):
/// the directories between the root and a read-only path are mount points
/// inside.
#[test]
fn a_parent_of_a_read_only_path_cannot_be_moved_away() {
    let dir = Dir::new();
    if !sandbox_enforced(&dir) {
        eprintln!("skipped: the sandbox is not enforced on this kernel");
        return;
    }
    std::fs::write(
        dir.root.join("toolgate.toml"),
        "allow = [\"Bash\", \"Edit\"]\ndeny = [\"Edit(conf/prod/**)\"]\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.root.join("conf/prod")).unwrap();
    std::fs::create_dir_all(dir.root.join("conf/dev")).unwrap();
    std::fs::write(dir.root.join("conf/prod/db.yml"), "prod\n").unwrap();
    let lean = env!("CARGO_BIN_EXE_toolgate-hook");
    let out = dir.exec(
        lean,
        &[
            "sandbox",
            "--policy",
            "toolgate.toml",
            "--",
            "bash",
            "-c",
            "mv conf conf.bak; mkdir -p conf/prod; echo EVIL > conf/prod/db.yml; echo dev > conf/dev/x",
        ],
        "",
        &[],
    );
    assert_eq!(
        std::fs::read_to_string(dir.root.join("conf/prod/db.yml")).unwrap(),
        "prod\n",
        "{}",
        text(&out.stderr)
    );
    assert!(!dir.root.join("conf.bak").exists());
    // What the rule does not protect stays writable.
    assert_eq!(
        std::fs::read_to_string(dir.root.join("conf/dev/x")).unwrap_or_default(),
        "dev\n",
        "{}",
        text(&out.stderr)
    );
}

/// A directory the user cannot list (`chmod 0311`, which one command can
/// do and the next undo) is masked whole: the next command can neither
/// make it listable again nor read the denied file in it. Run as an
/// unprivileged user (`nobody` through setpriv when the tests run as root,
/// since root lists any directory).
#[test]
fn a_directory_hidden_from_the_walk_is_masked() {
    let dir = Dir::new();
    if !sandbox_enforced(&dir) {
        eprintln!("skipped: the sandbox is not enforced on this kernel");
        return;
    }
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.trim_ascii() == b"0");
    let ws = dir.root.join("ws");
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::fs::write(
        ws.join("toolgate.toml"),
        "allow = [\"Bash\"]\ndeny = [\"Read(**/.env)\"]\n",
    )
    .unwrap();
    std::fs::write(ws.join("sub/.env"), "SECRET=2\n").unwrap();
    let lean = std::path::Path::new(env!("CARGO_BIN_EXE_toolgate-hook"));
    let run = |script: &str| {
        let mut cmd = if root {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(lean);
            c
        } else {
            Command::new(lean)
        };
        cmd.args([
            "sandbox",
            "--policy",
            "toolgate.toml",
            "--",
            "bash",
            "-c",
            script,
        ])
        .current_dir(&ws)
        .env("HOME", dir.root.join("home"))
        .env("TOOLGATE_STATE_DIR", dir.root.join("state"))
        .output()
        .unwrap()
    };
    if root {
        // nobody must reach the executable, and own the workspace.
        let runs = Command::new("setpriv")
            .args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "test",
                "-x",
            ])
            .arg(lean)
            .status()
            .is_ok_and(|s| s.success());
        if !runs {
            eprintln!("skipped: nobody cannot run {}", lean.display());
            return;
        }
        let ok = Command::new("chown")
            .args(["-R", "65534:65534"])
            .arg(&dir.root)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("skipped: cannot give the workspace to nobody");
            return;
        }
    }
    let out = run("chmod 0311 sub");
    assert!(out.status.success(), "{out:?}");
    let out = run("chmod 755 sub; cat sub/.env");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("SECRET"),
        "{out:?}"
    );
    let _ = std::fs::set_permissions(
        ws.join("sub"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    );
}

#[test]
fn hook_install_registers_the_sandbox_where_the_kernel_enforces_it() {
    let dir = Dir::new();
    let enforced = sandbox_enforced(&dir);
    for (client, file, event) in [
        ("claude", ".claude/settings.json", "PreToolUse"),
        ("gemini", ".gemini/settings.json", "BeforeTool"),
    ] {
        let out = dir.run(&["hook", "install", client], "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let settings: Value = serde_json::from_str(&dir.read(file)).unwrap();
        let command = settings["hooks"][event][0]["hooks"][0]["command"].clone();
        let said = text(&out.stdout);
        if enforced {
            assert_eq!(command, format!("{} {client} --sandbox", hook_path()));
            assert!(
                said.contains("run inside toolgate's sandbox (`--sandbox`)"),
                "{said}"
            );
        } else {
            assert_eq!(command, format!("{} {client}", hook_path()));
            assert!(said.contains("does not enforce"), "{said}");
        }
    }

    // `--no-sandbox` opts out, and says so.
    let other = Dir::new();
    let out = other.run(&["hook", "install", "claude", "--no-sandbox"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let settings: Value = serde_json::from_str(&other.read(".claude/settings.json")).unwrap();
    assert_eq!(
        settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
        format!("{} claude", hook_path())
    );
    assert!(text(&out.stdout).contains("(`--no-sandbox`)"));
    let out = other.run(
        &["hook", "install", "claude", "--sandbox", "--no-sandbox"],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));

    // Codex's commands cannot be rewritten: never registered, and said.
    let out = other.run(&["hook", "install", "codex"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let hooks = other.read(".codex/hooks.json");
    assert!(!hooks.contains("--sandbox"), "{hooks}");
    assert!(
        text(&out.stdout).contains("codex's shell commands run without toolgate's sandbox"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn hook_install_refuses_malformed_settings_and_touches_nothing() {
    let dir = Dir::new();
    std::fs::create_dir_all(dir.root.join(".gemini")).unwrap();
    std::fs::write(dir.root.join(".gemini/settings.json"), "{\"hooks\": [}").unwrap();
    let out = dir.run(&["hook", "install", "gemini"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not valid JSON"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(dir.read(".gemini/settings.json"), "{\"hooks\": [}");
    assert!(!dir.root.join(".gemini/settings.json.bak").exists());
}

#[test]
fn hook_install_user_scope_and_queue_timeout() {
    let dir = Dir::new();
    let gemini_home = dir.root.join("gemini-home");
    let out = dir.run_with(
        &[
            "hook",
            "install",
            "gemini",
            "--user",
            "--approver",
            "queue",
            "--wait",
            "45",
            "--no-sandbox",
        ],
        "",
        &[("GEMINI_CLI_HOME", &gemini_home)],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).starts_with("created "),
        "{}",
        text(&out.stdout)
    );
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(gemini_home.join(".gemini/settings.json")).unwrap(),
    )
    .unwrap();
    let hook = &settings["hooks"]["BeforeTool"][0]["hooks"][0];
    assert_eq!(
        hook["command"],
        format!("{} gemini --approver queue --wait 45", hook_path())
    );
    assert_eq!(hook["timeout"], 75_000, "milliseconds, above the wait");

    let out = dir.run(&["hook", "install", "claude", "--user"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(dir.root.join("home/.claude/settings.json").exists());
}

// ---------------------------------------------------------------- import

const CLAUDE_SETTINGS: &str = r#"{
  "permissions": {
    "allow": ["Bash(npm run test:*)", "Read(~/.zshrc)"],
    "ask": ["Bash(git push:*)"],
    "deny": ["Read(./.env)", "WebFetch", "Agent(Explore)"],
    "defaultMode": "acceptEdits"
  }
}"#;

#[test]
fn import_claude_prints_a_policy_that_loads() {
    let dir = Dir::new();
    std::fs::create_dir_all(dir.root.join(".claude")).unwrap();
    std::fs::write(dir.root.join(".claude/settings.json"), CLAUDE_SETTINGS).unwrap();
    std::fs::write(
        dir.root.join(".claude/settings.local.json"),
        r#"{"permissions": {"allow": ["Bash(make)"]}}"#,
    )
    .unwrap();
    let out = dir.run(&["import", "claude"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let policy = text(&out.stdout);
    for expected in [
        "\"Bash(npm run test:*)\"",
        "\"Bash(make)\"",
        "\"Bash(git push:*)\"",
        "\"Read(./.env)\"",
        "mode = \"accept-edits\"",
        "# - deny \"Agent(Explore)\"",
    ] {
        assert!(policy.contains(expected), "missing {expected} in\n{policy}");
    }
    let stderr = text(&out.stderr);
    assert!(stderr.contains("6 rules imported"), "{stderr}");
    assert!(stderr.contains("1 entries not carried over"), "{stderr}");

    // The output is a working policy: `toolgate check` reads it.
    std::fs::write(dir.root.join("toolgate.toml"), &policy).unwrap();
    let check = |call: Value| {
        let out = dir.run(&["check", &call.to_string()], "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["decision"].clone()
    };
    let bash = |c: &str| json!({"tool": "Bash", "client": "claude", "input": {"command": c}});
    assert_eq!(check(bash("npm run test")), "allow");
    assert_eq!(check(bash("git push origin main")), "ask");
    assert_eq!(
        check(json!({"tool": "Read", "client": "claude", "input": {"file_path": ".env"}})),
        "deny"
    );
}

#[test]
fn import_claude_output_file_needs_force_to_overwrite() {
    let dir = Dir::new();
    std::fs::write(dir.root.join("claude.json"), CLAUDE_SETTINGS).unwrap();
    std::fs::write(dir.root.join("toolgate.toml"), "# mine\n").unwrap();
    let out = dir.run(
        &[
            "import",
            "claude",
            "claude.json",
            "--output",
            "toolgate.toml",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--force"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(dir.read("toolgate.toml"), "# mine\n");

    let out = dir.run(
        &[
            "import",
            "claude",
            "claude.json",
            "--output",
            "toolgate.toml",
            "--force",
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "", "the policy goes to the file");
    assert!(dir.read("toolgate.toml").contains("\"Bash(git push:*)\""));
}

#[test]
fn import_claude_without_settings_says_where_it_looked() {
    let dir = Dir::new();
    let out = dir.run(&["import", "claude"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(".claude"),
        "{}",
        text(&out.stderr)
    );
    std::fs::write(dir.root.join("bad.json"), "{").unwrap();
    let out = dir.run(&["import", "claude", "bad.json"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not valid JSON"),
        "{}",
        text(&out.stderr)
    );
}

/// Runs a hook whose standard output or standard error is a pipe nobody
/// reads (its reading end closed before the hook starts); returns the exit
/// code and whether the call's effect showed up.
fn hook_with_closed(client: &str, closed_stdout: bool, closed_stderr: bool) -> Option<i32> {
    let dir = Dir::new();
    std::fs::write(
        dir.root.join("toolgate.toml"),
        "allow = [\"Bash(git status)\", \"run_shell_command\"]\n",
    )
    .unwrap();
    let input = json!({
        "session_id": "s1", "cwd": dir.root, "permission_mode": "default",
        "hook_event_name": if client == "gemini" { "BeforeTool" } else { "PreToolUse" },
        "tool_name": if client == "gemini" { "run_shell_command" } else { "Bash" },
        "tool_input": {"command": "git status"}, "tool_use_id": "toolu_01",
        "model": "m", "turn_id": "t", "transcript_path": null,
    });
    let closed = || {
        let (reader, writer) = rustix::pipe::pipe().unwrap();
        drop(reader);
        Stdio::from(writer)
    };
    let mut command = Command::new(env!("CARGO_BIN_EXE_toolgate"));
    command
        .args(["hook", client])
        .current_dir(&dir.root)
        .env_remove("TOOLGATE_POLICY")
        .env("HOME", dir.root.join("home"))
        .env("TOOLGATE_STATE_DIR", dir.root.join("state"))
        .stdin(Stdio::piped())
        .stdout(if closed_stdout {
            closed()
        } else {
            Stdio::null()
        })
        .stderr(if closed_stderr {
            closed()
        } else {
            Stdio::null()
        });
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.write_all(input.to_string().as_bytes());
    drop(stdin);
    child.wait().unwrap().code()
}

#[test]
fn a_hook_whose_answer_cannot_be_delivered_never_exits_0() {
    for client in ["claude", "gemini", "codex"] {
        for (out, err) in [(true, false), (false, true), (true, true)] {
            let code = hook_with_closed(client, out, err);
            assert_eq!(
                code,
                Some(2),
                "{client} with closed stdout={out} stderr={err}"
            );
        }
        // The same allowed call with both open is answered normally.
        assert_eq!(hook_with_closed(client, false, false), Some(0), "{client}");
    }
}

/// The state directory the policy protects is the one the store writes:
/// a write into it is refused as `hard:state-dir`, and that refusal is
/// recorded in the database inside it, whether the directory comes from
/// `HOME` or from a relative `TOOLGATE_STATE_DIR`.
#[test]
fn the_protected_state_directory_is_the_one_the_store_writes() {
    for via_env in [false, true] {
        let dir = Dir::new();
        std::fs::write(
            dir.root.join("toolgate.toml"),
            "allow = [\"Write\", \"Read\"]\n",
        )
        .unwrap();
        let state = if via_env {
            dir.root.join("st")
        } else {
            dir.root.join(".local/state/toolgate")
        };
        let input = json!({
            "session_id": "s1", "cwd": dir.root, "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": "Write",
            "tool_input": {"file_path": state.join("toolgate.db-x"), "content": "x"},
            "tool_use_id": "toolu_01",
        });
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolgate"));
        command
            .args(["hook", "claude"])
            .current_dir(&dir.root)
            .env_remove("TOOLGATE_POLICY")
            // The workspace is HOME, so the default state directory lies
            // inside the roots and only the state-directory limit refuses.
            .env("HOME", &dir.root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if via_env {
            command.env("TOOLGATE_STATE_DIR", "st");
        } else {
            command.env_remove("TOOLGATE_STATE_DIR");
        }
        let mut child = command.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.to_string().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("\"deny\""),
            "{}",
            text(&out.stdout)
        );
        let store = toolgate_store::Store::open(state.join("toolgate.db")).unwrap();
        let rows = store.rows(&toolgate_store::RowFilter::default()).unwrap();
        assert_eq!(rows.len(), 1, "via_env={via_env}");
        assert_eq!(rows[0].record.rule.as_deref(), Some("hard:state-dir"));
        assert!(!state.join("toolgate.db-x").exists());
    }
}

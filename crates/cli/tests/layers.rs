//! Layered policies from the command line: `trust`, `policy show`,
//! `policy lint`, `explain`, `check` and the Claude Code hook, with the
//! managed and user layers at paths of the test's own.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    base: PathBuf,
}

impl Ws {
    fn new(project: &str, user: &str) -> Ws {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("project");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(base.join("state")).unwrap();
        std::fs::write(root.join("toolgate.toml"), project).unwrap();
        std::fs::write(base.join("user.toml"), user).unwrap();
        Ws {
            _tmp: tmp,
            root,
            base,
        }
    }

    fn managed(&self, text: &str, mode: u32) {
        let p = self.base.join("managed.toml");
        std::fs::write(&p, text).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_toolgate"));
        c.args(args)
            .current_dir(&self.root)
            .env("HOME", self.base.join("home"))
            .env("TOOLGATE_STATE_DIR", self.base.join("state"))
            .env("TOOLGATE_USER_POLICY", self.base.join("user.toml"))
            .env("TOOLGATE_MANAGED_POLICY", self.base.join("managed.toml"))
            .env_remove("TOOLGATE_POLICY")
            .env_remove("TOOLGATE_DATABASE_URL");
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    fn decision(&self, command: &str) -> (String, Value) {
        let call = json!({"tool": "run_shell", "input": {"command": command}}).to_string();
        let out = self.run(&["check", &call]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let d: Value = serde_json::from_slice(&out.stdout).unwrap();
        (
            d["decision"].as_str().unwrap().to_owned(),
            d["rule"].clone(),
        )
    }

    fn hook(&self, command: &str) -> Value {
        let input = json!({"session_id": "s1", "cwd": self.root, "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": "toolu_1"});
        let mut child = self
            .command(&["hook", "claude"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.to_string().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
    }
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_projects_allows_apply_once_trusted_and_again_after_each_edit() {
    let ws = Ws::new(
        "allow = [\"Bash(git status)\"]\ndeny = [\"Bash(rm *)\"]\n",
        "allow = [\"Bash(ls)\"]\n",
    );
    assert_eq!(ws.decision("git status"), ("deny".into(), Value::Null));
    assert_eq!(ws.decision("rm -f x"), ("deny".into(), json!("deny[0]")));
    assert_eq!(ws.decision("ls"), ("allow".into(), json!("user:allow[0]")));
    let hook = ws.hook("git status");
    assert_ne!(
        hook["hookSpecificOutput"]["permissionDecision"], "allow",
        "{hook}"
    );

    let out = ws.run(&["policy", "show"]);
    let shown = text(&out);
    assert!(shown.contains("NOT trusted"), "{shown}");
    assert!(
        shown.lines().any(|l| l.contains("allow[0]")
            && l.contains("toolgate.toml:1")
            && l.contains("does NOT apply")),
        "{shown}"
    );
    assert!(
        shown.lines().any(|l| l.contains("user:allow[0]")
            && l.contains("user.toml:1")
            && l.contains("applies")),
        "{shown}"
    );
    let call = json!({"tool": "run_shell", "input": {"command": "ls"}}).to_string();
    let explained = text(&ws.run(&["explain", &call]));
    assert!(explained.contains("[user "), "{explained}");
    assert!(
        explained.contains("not applying: allow `allow[0]`"),
        "{explained}"
    );

    let out = ws.run(&["trust"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        ws.decision("git status"),
        ("allow".into(), json!("allow[0]"))
    );
    let hook = ws.hook("git status");
    assert_eq!(
        hook["hookSpecificOutput"]["permissionDecision"], "allow",
        "{hook}"
    );

    std::fs::write(
        ws.root.join("toolgate.toml"),
        "allow = [\"Bash(git status)\", \"Bash(curl *)\"]\n",
    )
    .unwrap();
    assert_eq!(ws.decision("git status"), ("deny".into(), Value::Null));
}

#[test]
fn a_managed_policy_binds_unless_others_can_write_it() {
    let ws = Ws::new("allow = [\"Bash(git push *)\"]\n", "");
    ws.managed("deny = [\"Bash(git push *)\"]\n", 0o644);
    assert_eq!(ws.run(&["trust"]).status.code(), Some(0));
    assert_eq!(
        ws.decision("git push origin main"),
        ("deny".into(), json!("managed:deny[0]"))
    );
    ws.managed("deny = [\"Bash(git push *)\"]\n", 0o664);
    assert_eq!(
        ws.decision("git push origin main"),
        ("allow".into(), json!("allow[0]"))
    );
    let shown = text(&ws.run(&["policy", "show"]));
    assert!(
        shown.contains("ignored") && shown.contains("writable"),
        "{shown}"
    );
}

#[test]
fn lint_warns_about_a_blanket_bash_ask() {
    let ws = Ws::new("ask = [\"Bash\"]\nallow = [\"Bash(git status)\"]\n", "");
    let out = ws.run(&["policy", "lint"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let t = text(&out);
    assert!(t.contains("toolgate.toml:1: warning: `ask[0]`"), "{t}");
    assert!(t.contains("default = \"ask\""), "{t}");
    let clean = Ws::new("default = \"ask\"\n", "");
    std::fs::write(
        clean.root.join("toolgate.toml"),
        "[policy]\ndefault = \"ask\"\nallow = [\"Bash(git status)\"]\n",
    )
    .unwrap();
    let out = clean.run(&["policy", "lint"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
}

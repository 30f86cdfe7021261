//! `toolgate explain` on a shell command shows its parts: each simple
//! command with the argv the rules matched and the wrappers stripped to
//! reach it, each file it touches with the command it belongs to, and the
//! decision and rule of every part.

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

const POLICY: &str = r#"
[policy]
default = "ask"
allow = ["Read", "Bash(cat *)", "Bash(ls *)", "Bash(wc *)", "Bash(git commit *)"]
deny = ["Read(.env)"]
"#;

/// A shell command with a wrapper, a nested shell, quoting, an operand on a
/// denied file and a redirect.
const CMD: &str =
    "timeout 5 cat f.txt .env > out.txt && bash -c 'ls | wc -l' && git commit -m \"a && b\"";

struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Ws {
    fn new() -> Ws {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = std::fs::canonicalize(tmp.path()).expect("canonical temp dir");
        std::fs::write(root.join("toolgate.toml"), POLICY).expect("policy");
        std::fs::write(root.join("f.txt"), "x\n").expect("f.txt");
        std::fs::write(root.join(".env"), "K=1\n").expect(".env");
        Ws { _tmp: tmp, root }
    }

    fn run(&self, sub: &str) -> Output {
        let call = serde_json::json!({"tool": "run_shell", "input": {"command": CMD}});
        Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args([sub, "--policy", "toolgate.toml", &call.to_string()])
            .current_dir(&self.root)
            .env_remove("TOOLGATE_POLICY")
            .env("HOME", self.root.join("home"))
            .env("TOOLGATE_STATE_DIR", self.root.join("state"))
            .output()
            .expect("toolgate runs")
    }
}

/// The lines of the numbered action whose first line contains `head`, up
/// to the next action.
fn block(text: &str, head: &str) -> String {
    let starts_action = |l: &str| {
        l.strip_prefix("  ")
            .and_then(|r| r.split_once(". "))
            .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
    };
    let mut lines = text
        .lines()
        .skip_while(|l| !(starts_action(l) && l.contains(head)));
    let first = lines
        .next()
        .unwrap_or_else(|| panic!("no action `{head}` in:\n{text}"));
    let mut out = vec![first];
    out.extend(lines.take_while(|l| l.starts_with("     ")));
    out.join("\n")
}

#[test]
fn explain_shows_each_command_and_what_it_touches() {
    let ws = Ws::new();
    let out = ws.run("explain");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);

    // The wrapped command: as written, what runs, and the wrapper stripped.
    let cat = block(&text, "command `timeout 5 cat f.txt .env`");
    assert!(
        cat.contains("runs `cat f.txt .env`, inside `timeout 5`"),
        "{cat}"
    );
    assert!(cat.contains("-> allow by `allow[1]`"), "{cat}");

    // The commands of `bash -c '..'`, each on its own, inside `bash -c`.
    let ls = block(&text, "command `ls`");
    assert!(ls.contains("runs `ls`, inside `bash -c`"), "{ls}");
    assert!(ls.contains("-> allow by `allow[2]`"), "{ls}");
    let wc = block(&text, "command `wc -l`");
    assert!(wc.contains("inside `bash -c`"), "{wc}");

    // Quoting resolved: one command, whose `&&` is part of the message.
    let commit = block(&text, "command `git commit -m \"a && b\"`");
    assert!(commit.contains("runs `git commit -m 'a && b'`"), "{commit}");
    assert!(commit.contains("-> allow by `allow[4]`"), "{commit}");

    // Operands and redirects name their command, with their own decision.
    let env = block(&text, ".env` (operand of `cat`)");
    assert!(env.contains("-> deny by `deny[0]`"), "{env}");
    assert!(env.contains("deny  `deny[0]`  Read(.env)"), "{env}");
    let f = block(&text, "f.txt` (operand of `cat`)");
    assert!(f.contains("-> allow by `allow[0]`"), "{f}");
    let redirect = block(&text, "out.txt` (redirect of `cat`)");
    assert!(
        redirect.contains("-> ask (no rule: default)"),
        "a redirect no rule matches takes the default: {redirect}"
    );

    assert!(text.contains("decision: DENY by `deny[0]`"), "{text}");
}

#[test]
fn check_reports_the_wrappers_of_each_command() {
    let ws = Ws::new();
    let out = ws.run("check");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let d: Value = serde_json::from_slice(&out.stdout).expect("one JSON decision");
    let actions = d["actions"].as_array().expect("actions");
    let exec = |argv0: &str| {
        actions
            .iter()
            .find(|a| a["action"]["kind"] == "exec" && a["action"]["argv"][0] == argv0)
            .unwrap_or_else(|| panic!("no exec of `{argv0}` in {d:#}"))
    };
    assert_eq!(
        exec("cat")["action"]["wrappers"],
        serde_json::json!([["timeout", "5"]])
    );
    assert_eq!(
        exec("ls")["action"]["wrappers"],
        serde_json::json!([["bash", "-c"]])
    );
    // A command with no wrapper carries no `wrappers` field.
    assert!(exec("git")["action"].get("wrappers").is_none(), "{d:#}");
    let redirect = actions
        .iter()
        .find(|a| a["via"] == "redirect of `cat`")
        .unwrap_or_else(|| panic!("no redirect of `cat` in {d:#}"));
    assert_eq!(redirect["action"]["kind"], "write");
}

//! Ripgrep's ignore files, against the real ripgrep: each case builds a
//! scratch workspace, runs `rg -l KEY` there, and the gate must allow the
//! search exactly when ripgrep did not open the denied file (`secrets/`
//! beneath the workspace, or `.env`), and deny it by that file's rule
//! when it did.

use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::json;
use toolgate_policy::{Call, Effect, LoadOptions, Policy};

const POLICY: &str = r#"
allow = ["Read", "Bash(rg *)"]
deny = ["Read(secrets/**)", "Read(.env)"]
"#;

fn have_rg() -> bool {
    Command::new("rg")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

/// A scratch directory: `<tmp>/up` (the workspace's parent) holding the
/// workspace `<tmp>/up/ws` and `<tmp>/home`, an empty home.
struct Scratch {
    _dir: tempfile::TempDir,
    up: PathBuf,
    ws: PathBuf,
    home: PathBuf,
}

fn scratch(files: &[(&str, &str)]) -> Scratch {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let up = base.join("up");
    let ws = up.join("ws");
    let home = base.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/a.rs"), "KEY\n").unwrap();
    for (path, text) in files {
        // Paths from `up`: `ws/..` in the workspace, others above it.
        let p = up.join(path);
        if let Some(dir) = path.strip_suffix('/') {
            std::fs::create_dir_all(up.join(dir)).unwrap();
            continue;
        }
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    Scratch {
        _dir: dir,
        up,
        ws,
        home,
    }
}

/// The files `rg -l ARGS KEY` lists, run in the workspace with an empty
/// home and no configuration.
fn listed(s: &Scratch, args: &str) -> Vec<String> {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("rg -l {args} KEY"))
        .current_dir(&s.ws)
        .env("HOME", &s.home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("RIPGREP_CONFIG_PATH")
        .output()
        .expect("bash runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim_start_matches("./").to_string())
        .collect()
}

fn policy(s: &Scratch) -> Policy {
    let file = s.ws.join("toolgate.toml");
    std::fs::write(&file, POLICY).unwrap();
    let opts = LoadOptions {
        home: Some(s.home.clone()),
        state_dir: Some(s.up.join("state")),
        ..LoadOptions::default()
    };
    Policy::load(&file, &opts).unwrap()
}

/// Runs `rg ARGS KEY` for real and asks the gate: ripgrep must read the
/// denied file exactly when `read` says so (the case's premise), and the
/// gate must deny exactly then, by the file's rule.
#[track_caller]
fn case(files: &[(&str, &str)], args: &str, read: bool) {
    let s = scratch(files);
    let p = policy(&s);
    let got = listed(&s, args);
    let denied: Vec<&String> = got
        .iter()
        .filter(|f| f.starts_with("secrets/") || *f == ".env")
        .collect();
    assert_eq!(
        !denied.is_empty(),
        read,
        "`rg -l {args} KEY` with {files:?} read {got:?}"
    );
    assert!(
        got.iter().any(|f| f == "src/a.rs"),
        "`rg -l {args} KEY` read {got:?}"
    );
    let d = p.decide(&Call::new(
        "run_shell",
        json!({ "command": format!("rg {args} KEY") }),
    ));
    let (want, rule) = match denied.first() {
        Some(f) if f.starts_with("secrets/") => (Effect::Deny, "deny[0]"),
        Some(_) => (Effect::Deny, "deny[1]"),
        None => (Effect::Allow, "allow[1]"),
    };
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (want, Some(rule)),
        "`rg {args} KEY` with {files:?} (ripgrep read {got:?}): {}",
        d.reason
    );
}

const SECRET: (&str, &str) = ("ws/secrets/p.txt", "KEY\n");
const GIT: (&str, &str) = ("ws/.git/", "");

#[test]
fn gitignore_counts_only_inside_a_repository() {
    if !have_rg() {
        return;
    }
    let ignore = ("ws/.gitignore", "secrets/\n");
    case(&[SECRET, ignore, GIT], "", false);
    case(&[SECRET, ignore], "", true);
    case(&[SECRET, ignore], "--no-require-git", false);
    // A `.git` file (a worktree) makes a repository too.
    case(
        &[SECRET, ignore, ("ws/.git", "gitdir: /nowhere\n")],
        "",
        false,
    );
    // The repository's own excludes.
    case(
        &[SECRET, GIT, ("ws/.git/info/exclude", "*.txt\n")],
        "",
        false,
    );
    case(
        &[SECRET, GIT, ("ws/.git/info/exclude", "*.txt\n")],
        "--no-ignore-exclude",
        true,
    );
}

#[test]
fn nested_files_and_negations() {
    if !have_rg() {
        return;
    }
    // A nested `.gitignore`, and a line that re-includes.
    case(
        &[SECRET, GIT, ("ws/secrets/.gitignore", "*.txt\n")],
        "",
        false,
    );
    case(
        &[SECRET, GIT, ("ws/.gitignore", "secrets/*\n!p.txt\n")],
        "",
        true,
    );
    case(
        &[SECRET, GIT, ("ws/.gitignore", "!p.txt\nsecrets/*\n")],
        "",
        false,
    );
    case(
        &[
            SECRET,
            GIT,
            ("ws/.gitignore", "*.txt\n"),
            ("ws/secrets/.gitignore", "!p.txt\n"),
        ],
        "",
        true,
    );
    // A directory left out is not entered: what beneath re-includes
    // never counts.
    case(
        &[
            SECRET,
            GIT,
            ("ws/.gitignore", "secrets/\n"),
            ("ws/secrets/.gitignore", "!p.txt\n"),
        ],
        "",
        false,
    );
}

#[test]
fn ignore_and_rgignore_override_gitignore() {
    if !have_rg() {
        return;
    }
    // `.ignore` and `.rgignore` count outside a repository too.
    case(&[SECRET, ("ws/.ignore", "secrets\n")], "", false);
    case(&[SECRET, ("ws/.rgignore", "*.txt\n")], "", false);
    case(
        &[SECRET, ("ws/.ignore", "secrets\n")],
        "--no-ignore-dot",
        true,
    );
    // `.ignore` re-including wins over `.gitignore` leaving out, even
    // from a directory further up.
    case(
        &[
            SECRET,
            GIT,
            ("ws/.gitignore", "secrets/\n"),
            ("ws/.ignore", "!secrets/\n"),
        ],
        "",
        true,
    );
    case(
        &[
            SECRET,
            GIT,
            ("ws/secrets/.gitignore", "p.txt\n"),
            ("ws/.ignore", "!p.txt\n"),
        ],
        "",
        true,
    );
    case(
        &[
            SECRET,
            GIT,
            ("ws/.ignore", "secrets/\n"),
            ("ws/.rgignore", "!secrets/\n"),
        ],
        "",
        true,
    );
    case(
        &[
            SECRET,
            GIT,
            ("ws/.gitignore", "!secrets/\n"),
            ("ws/.ignore", "secrets/\n"),
        ],
        "",
        false,
    );
}

#[test]
fn options_that_turn_ignore_files_off() {
    if !have_rg() {
        return;
    }
    let files = [SECRET, GIT, ("ws/.gitignore", "secrets/\n")];
    case(&files, "", false);
    for args in ["--no-ignore", "-u", "-uu", "--no-ignore-vcs"] {
        case(&files, args, true);
    }
    case(&files, "--no-ignore-dot", false);
    // A glob that includes a file wins over the ignore files; a directory
    // it does not match stays out.
    case(
        &[SECRET, GIT, ("ws/.gitignore", "*.txt\n")],
        "-g '*.txt' -g '*.rs'",
        true,
    );
    case(&files, "-g '*.txt' -g '*.rs'", false);
}

#[test]
fn parent_directories_ignore_files() {
    if !have_rg() {
        return;
    }
    // The repository's top is above the workspace.
    let files = [SECRET, (".git/", ""), (".gitignore", "secrets/\n")];
    case(&files, "", false);
    case(&files, "--no-ignore-parent", true);
    // A `.gitignore` above the repository's top does not count.
    case(&[SECRET, GIT, (".gitignore", "secrets/\n")], "", true);
    // A `.ignore` above counts anywhere.
    case(&[SECRET, (".ignore", "secrets/\n")], "", false);
}

#[test]
fn a_reinclusion_lifts_the_hidden_rule() {
    if !have_rg() {
        return;
    }
    let env = ("ws/.env", "KEY\n");
    case(&[env], "", false);
    case(&[env, ("ws/.ignore", "!.env\n")], "", true);
    case(&[env, GIT, ("ws/.gitignore", "!.env\n")], "", true);
    case(&[env, (".ignore", "!.env\n")], "", true);
    case(&[env, ("ws/.ignore", "!.env\n")], "--no-ignore", false);
}

#[test]
fn the_global_excludes_file_may_reinclude() {
    if !have_rg() {
        return;
    }
    let env = ("ws/.env", "KEY\n");
    let s = scratch(&[env, GIT]);
    std::fs::create_dir_all(s.home.join(".config/git")).unwrap();
    std::fs::write(s.home.join(".config/git/ignore"), "!.env\n").unwrap();
    let got = listed(&s, "");
    assert!(got.iter().any(|f| f == ".env"), "{got:?}");
    let p = policy(&s);
    let d = p.decide(&Call::new("run_shell", json!({ "command": "rg KEY" })));
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Deny, Some("deny[1]")),
        "{}",
        d.reason
    );
    // Outside a repository ripgrep does not read it.
    std::fs::remove_dir(s.ws.join(".git")).unwrap();
    assert!(!listed(&s, "").iter().any(|f| f == ".env"));
    let d = p.decide(&Call::new("run_shell", json!({ "command": "rg KEY" })));
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
}

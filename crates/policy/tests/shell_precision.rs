//! Decisions on shell commands under a developer's policy (reading and the
//! common read-only tools allowed, everything else asks): statements that
//! run nothing need no rule, and writes that an option turns on are not
//! covered by an allow for the program.

use serde_json::json;
use toolgate_policy::{Call, Decision, Effect, LoadOptions, Policy};

struct Fx {
    _tmp: tempfile::TempDir,
    root: std::path::PathBuf,
    policy: Policy,
}

fn policy(extra: &str) -> Fx {
    let tmp = tempfile::tempdir().expect("temporary directory");
    let root = std::fs::canonicalize(tmp.path()).expect("canonical root");
    std::fs::create_dir_all(root.join("test")).expect("test dir");
    std::fs::write(root.join("f"), "b\na\n").expect("f");
    let text = format!(
        r#"
[policy]
default = "ask"
allow = ["Read", "Bash(ls *)", "Bash(find *)", "Bash(sort *)", "Bash(sed *)",
         "Bash(git log *)", "Bash(tree *)", "Bash(cat *)", "Bash(echo *)", "Bash(wc *)"]
deny = ["Read(.env)", "Edit(.git/**)"]
{extra}
"#
    );
    let file = root.join("toolgate.toml");
    std::fs::write(&file, &text).expect("policy file");
    let opts = LoadOptions {
        workspace: Some(root.clone()),
        home: Some(root.join("home")),
        state_dir: Some(root.join("state")),
    };
    let policy = Policy::from_toml(&text, &file, &opts).expect("policy loads");
    Fx {
        _tmp: tmp,
        root,
        policy,
    }
}

fn bash(fx: &Fx, command: &str) -> Decision {
    fx.policy
        .decide(&Call::new("run_shell", json!({ "command": command })))
}

#[track_caller]
fn expect(fx: &Fx, command: &str, effect: Effect) {
    let d = bash(fx, command);
    assert_eq!(
        d.decision, effect,
        "`{command}`: {} ({:?})",
        d.reason, d.rule
    );
}

#[test]
fn option_writes_need_a_write_permission() {
    let fx = policy("");
    // Allowed by the program's rule: they only read.
    for cmd in [
        "find test -name .DS_Store",
        "sort f",
        "sed -n 1p f",
        "git log --oneline",
        "tree",
        "find . -name '*.rs' -print",
    ] {
        expect(&fx, cmd, Effect::Allow);
    }
    // `Bash(find *)` is a permission to search, not to delete.
    for cmd in [
        "find test -name .DS_Store -delete",
        "find . -fprint out",
        "find . -fprintf out %p",
        "find . -fls out",
        "find . -exec rm {} +",
        "sort f -o f",
        "sort --output=f f",
        "sed -n 1p f -i",
        "sed --in-place s/a/b/ f",
        "git log --output=f",
        "tree -o f",
        "strace -o f ls",
        "/usr/bin/time -o f ls",
    ] {
        expect(&fx, cmd, Effect::Ask);
    }
    // A deny on the target still denies.
    expect(&fx, "git log --output=.git/config", Effect::Deny);
}

#[test]
fn option_writes_follow_the_write_rules() {
    let fx = policy(
        r#"[[rule]]
id = "edits"
effect = "allow"
match = ["Edit(**)"]
"#,
    );
    for cmd in [
        "find test -name .DS_Store -delete",
        "sort f -o f",
        "sed -n 1p f -i",
        "git log --output=f",
        "tree -o f",
    ] {
        expect(&fx, cmd, Effect::Allow);
    }
    expect(&fx, "sort f -o .git/HEAD", Effect::Deny);
}

#[test]
fn wrappers_move_the_commands_paths() {
    let fx = policy("");
    // `chroot /` changes to `/`: `cat f` reads `/f`, not the workspace's.
    let d = bash(&fx, "chroot / cat f");
    assert!(
        d.actions.iter().any(|a| a.reason.contains("`/f`")),
        "{:#?}",
        d.actions
    );
    // Another root: its paths are not followed through its links.
    expect(&fx, "chroot jail cat f", Effect::Ask);
    expect(&fx, "nsenter -t 1 -m cat f", Effect::Ask);
    let d = bash(&fx, "nsenter --wd=test cat f");
    assert!(
        d.actions.iter().any(|a| a.reason.contains("test/f")),
        "{:#?}",
        d.actions
    );
}

#[test]
fn statements_that_run_nothing_need_no_rule() {
    let fx = policy("");
    for cmd in [
        "N=23",
        "A=1 B=2",
        ":",
        "true",
        "false",
        "test -f f",
        "[ -f f ]",
        "[[ -f f ]]",
        "N=23; ls",
        "[[ -d test ]] && ls test",
    ] {
        expect(&fx, cmd, Effect::Allow);
    }
    for cmd in [
        "[[ -f $(rm x) ]]",
        "N=$(rm x)",
        "N=23; rm f",
        "PATH=/tmp; ls",
        "PATH=/tmp",
        "LD_PRELOAD=/tmp/x.so",
        "[[ $x -eq 1 ]]",
        ": > f",
        "timeout 5 true",
    ] {
        expect(&fx, cmd, Effect::Ask);
    }
    // A rule on the statement still counts.
    let fx = policy(
        r#"[[rule]]
id = "no-true"
effect = "deny"
match = ["Bash(true)"]
"#,
    );
    expect(&fx, "true", Effect::Deny);
}

/// A listing (`ls`, `find`'s walk, `tree`, `xargs ls`) shows names, sizes
/// and times, not what a file holds: the read roots do not bound it. What
/// reads bytes outside the roots stays a hard limit, and the credential
/// locations and the deny rules on reading still hold for listings.
#[test]
fn listings_outside_the_roots_are_not_reads() {
    let fx = policy("");
    let outside = tempfile::tempdir().expect("temporary directory");
    let out = std::fs::canonicalize(outside.path()).expect("canonical");
    std::fs::write(out.join("secret.txt"), "s").expect("secret");
    let o = out.display();
    for cmd in [
        format!("ls -l {o}"),
        format!("ls -la {o}/secret.txt"),
        format!("find {o} -name '*.txt'"),
        format!("find {o} -type f -exec ls -l {{}} +"),
        format!("find {o} -type f | xargs ls -l"),
        format!("tree {o}"),
        "find / -name needle -print -quit".to_string(),
    ] {
        expect(&fx, &cmd, Effect::Allow);
    }
    for cmd in [
        format!("cat {o}/secret.txt"),
        format!("wc -l {o}/secret.txt"),
        format!("find {o} -type f -exec cat {{}} +"),
        format!("find {o} -type f | xargs cat"),
        format!("tree --fromfile {o}/secret.txt"),
        format!("tree -H x --hintro {o}/secret.txt ."),
        format!("ls < {o}/secret.txt"),
    ] {
        let d = bash(&fx, &cmd);
        assert_eq!(d.decision, Effect::Deny, "`{cmd}`: {}", d.reason);
        assert_eq!(d.rule.as_deref(), Some("hard:outside-roots"), "`{cmd}`");
    }
    // The credential locations are not listed either.
    let root = &fx.root;
    std::fs::create_dir_all(root.join("home/.ssh")).expect("ssh dir");
    for cmd in ["ls -la ~/.ssh", "find ~/.ssh -name 'id_*'", "stat ~/.ssh"] {
        let d = bash(&fx, cmd);
        assert_eq!(d.decision, Effect::Deny, "`{cmd}`: {}", d.reason);
        assert_eq!(d.rule.as_deref(), Some("builtin:credentials"), "`{cmd}`");
    }
    // A deny rule on reading a file holds for a listing of that file.
    std::fs::write(root.join(".env"), "K=v").expect(".env");
    let d = bash(&fx, "ls -l .env");
    assert_eq!(d.decision, Effect::Deny, "{}", d.reason);
    assert_eq!(d.rule.as_deref(), Some("deny[0]"));
}

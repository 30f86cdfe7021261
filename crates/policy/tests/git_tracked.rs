//! What git prints of the files it tracks, against the real git: a
//! scratch repository holds a secret, committed (and changed since) or
//! ignored; each command is run there for real and asked of the gate. A
//! command whose output holds the secret must be denied by the secret's
//! rule; with the secret ignored, git prints none of it and every command
//! is allowed.

use std::path::{Path, PathBuf};

use serde_json::json;
use toolgate_policy::{Call, Effect, LoadOptions, Policy};

const POLICY: &str = r#"
allow = ["Read", "Bash(git *)", "Bash(cd *)"]
deny = ["Read(.env)", "Read(secrets/**)"]
"#;

const SECRET: &str = "SECRET-VALUE";

struct Repo {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
    policy: Policy,
}

fn git(ws: &Path, home: &Path, args: &str) -> std::process::Output {
    crate::git_support::run(ws, home, &format!("git {args}"))
}

/// A repository with `src/main.rs` committed and `.env` holding the
/// secret: committed and then changed (`tracked`), or ignored.
fn repo(tracked: bool) -> Repo {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let ws = base.join("ws");
    let home = base.join("home");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(ws.join("src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(ws.join(".env"), format!("KEY={SECRET}-1\n")).unwrap();
    if !tracked {
        std::fs::write(ws.join(".gitignore"), ".env\n").unwrap();
    }
    for step in ["init -q", "add .", "commit -qm first"] {
        assert!(git(&ws, &home, step).status.success(), "git {step}");
    }
    std::fs::write(ws.join(".env"), format!("KEY={SECRET}-2\n")).unwrap();
    std::fs::write(ws.join("src/main.rs"), "fn main() { }\n").unwrap();
    let file = base.join("toolgate.toml");
    std::fs::write(&file, POLICY).unwrap();
    let opts = LoadOptions {
        workspace: Some(ws.clone()),
        home: Some(home.clone()),
        state_dir: Some(base.join("state")),
    };
    let policy = Policy::load(&file, &opts).unwrap();
    Repo {
        _dir: dir,
        ws,
        home,
        policy,
    }
}

/// Whether `git ARGS` prints the secret, and the gate's decision on it
/// (asked before it runs).
fn run(r: &Repo, args: &str) -> (bool, Effect, Option<String>, String) {
    let (decision, rule, reason) = decide(r, args);
    let out = git(&r.ws, &r.home, args);
    let printed = String::from_utf8_lossy(&out.stdout).contains(SECRET);
    (printed, decision, rule, reason)
}

/// The gate's decision on `git ARGS`, which is not run.
fn decide(r: &Repo, args: &str) -> (Effect, Option<String>, String) {
    let mut call = Call::new("run_shell", json!({ "command": format!("git {args}") }));
    call.cwd = Some(r.ws.clone());
    let d = r.policy.decide(&call);
    (d.decision, d.rule, d.reason)
}

/// Commands that show content, each in several spellings; `{blob}` is
/// the object name of the committed `.env`.
const SHOWING: &[&str] = &[
    "diff",
    "diff HEAD",
    "diff --cached HEAD~0",
    "diff src",
    "log -p",
    "log --patch --all",
    "log --pat",
    "log -U1",
    "log -G KEY",
    "whatchanged -p",
    "show",
    "show HEAD",
    "show HEAD --",
    "show HEAD:.env",
    "show HEAD:./.env",
    "show :.env",
    "show {blob}",
    "cat-file -p {blob}",
    "cat-file blob {blob}",
    "grep KEY",
    "grep KEY HEAD",
    "grep -e KEY -- '*.env'",
    "grep KEY -- ':/'",
    "diff -- '*.env'",
    "diff -- ':(top).env'",
    "log -p -- ':(icase).ENV'",
    "archive HEAD",
    "archive --format=tar HEAD",
    "format-patch -1 --stdout",
    "diff-tree -p HEAD~0 --root",
    "reflog -p",
    "range-diff HEAD~0...HEAD~0",
];

/// Commands that show names, counts or messages, never content.
const QUIET: &[&str] = &[
    "log --oneline",
    "log --stat",
    "diff --stat",
    "diff --name-only",
    "show --stat",
    "status",
    "diff -- src",
    "log -p -- src",
    "grep main -- src",
];

fn blob(r: &Repo) -> String {
    let out = git(&r.ws, &r.home, "rev-parse HEAD:.env");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn a_tracked_secret_is_denied_wherever_git_prints_it() {
    let r = repo(true);
    let blob = blob(&r);
    let mut printing = 0;
    for args in SHOWING {
        let args = args.replace("{blob}", &blob);
        let (printed, decision, rule, reason) = run(&r, &args);
        printing += usize::from(printed);
        if printed {
            assert_eq!(
                (decision, rule.as_deref()),
                (Effect::Deny, Some("deny[0]")),
                "`git {args}` printed the secret: {reason}"
            );
        }
    }
    // The premise: git printed it in most of these (not `diff src`, an
    // oracle such as `log -G`, a comparison of equal trees, or `--pat`,
    // which git finds ambiguous).
    assert!(printing >= SHOWING.len() - 6, "{printing} printed");
    for args in QUIET {
        let (printed, decision, _, reason) = run(&r, args);
        assert!(!printed, "`git {args}` printed the secret");
        assert_eq!(decision, Effect::Allow, "`git {args}`: {reason}");
    }
}

#[test]
fn an_ignored_secret_leaves_every_git_command_allowed() {
    let r = repo(false);
    for args in SHOWING.iter().chain(QUIET) {
        if args.contains("{blob}") || args.contains(".env") || args.contains(".ENV") {
            continue;
        }
        let (printed, decision, _, reason) = run(&r, args);
        assert!(!printed, "`git {args}` printed the ignored secret");
        assert_eq!(decision, Effect::Allow, "`git {args}`: {reason}");
    }
}

/// A secret staged after the last commit, or only in a linked worktree's
/// index, is tracked as well; a broken index asks.
#[test]
fn what_the_index_holds_decides() {
    let r = repo(false);
    assert!(git(&r.ws, &r.home, "add -f .env").status.success());
    let (printed, decision, rule, reason) = run(&r, "diff --cached");
    assert!(printed);
    assert_eq!(
        (decision, rule.as_deref()),
        (Effect::Deny, Some("deny[0]")),
        "{reason}"
    );
    std::fs::write(r.ws.join(".git/index"), b"DIRC\0\0\0\x02\0\0\0\x09").unwrap();
    let (_, decision, _, reason) = run(&r, "log -p");
    assert_eq!(decision, Effect::Ask, "{reason}");
    assert!(reason.contains("index"), "{reason}");
}

/// What git stores from the work tree: `git add .` and `git stash -u`
/// take every untracked file the ignore files do not leave out, which
/// `git show :.env` or `git show stash^3` then prints. An ignored `.env`
/// is not taken (allowed); one that is not ignored is (denied).
#[test]
fn what_git_add_and_stash_take_from_the_work_tree() {
    let ignored = repo(false);
    for args in ["add .", "add -A", "add --all src", "stash -u"] {
        let (decision, _, reason) = decide(&ignored, args);
        assert_eq!(decision, Effect::Allow, "`git {args}`: {reason}");
    }
    for args in ["add -f .", "stash -a"] {
        let (decision, rule, reason) = decide(&ignored, args);
        assert_eq!(
            (decision, rule.as_deref()),
            (Effect::Deny, Some("deny[0]")),
            "`git {args}`: {reason}"
        );
    }
    // Not ignored: git takes it, and prints it afterwards.
    let r = repo(false);
    std::fs::remove_file(r.ws.join(".gitignore")).unwrap();
    for args in [
        "add .",
        "add -A",
        "stash -u",
        "stash push --include-untracked",
    ] {
        let (decision, rule, reason) = decide(&r, args);
        assert_eq!(
            (decision, rule.as_deref()),
            (Effect::Deny, Some("deny[0]")),
            "`git {args}`: {reason}"
        );
    }
    // From a directory beneath, `-A` and `stash -u` still take the whole
    // work tree; `git add .` takes what lies beneath it.
    for (cmd, denied) in [
        ("cd src && git add -A", true),
        ("cd src && git stash -u", true),
        ("cd src && git add .", false),
    ] {
        let mut call = Call::new("run_shell", json!({ "command": cmd }));
        call.cwd = Some(r.ws.clone());
        let d = r.policy.decide(&call);
        let want = if denied {
            (Effect::Deny, Some("deny[0]"))
        } else {
            (Effect::Allow, Some("allow[2]"))
        };
        assert_eq!(
            (d.decision, d.rule.as_deref()),
            want,
            "`{cmd}`: {}",
            d.reason
        );
    }
    assert!(git(&r.ws, &r.home, "stash -u").status.success());
    let out = git(&r.ws, &r.home, "show 'stash@{0}^3'");
    assert!(String::from_utf8_lossy(&out.stdout).contains(SECRET));
}

/// A sparse index stands for a directory outside the sparse checkout by
/// one entry; a path after `--` inside that directory cannot be checked
/// file by file, so it asks (what the directory holds may be denied).
#[test]
fn a_sparse_directory_holding_a_target_asks() {
    let r = repo(false);
    std::fs::create_dir_all(r.ws.join("lib/sub")).unwrap();
    std::fs::write(r.ws.join("lib/sub/a.key"), format!("{SECRET}\n")).unwrap();
    for step in [
        "add lib",
        "commit -qm lib",
        "sparse-checkout set --cone --sparse-index src",
    ] {
        let out = git(&r.ws, &r.home, step);
        assert!(out.status.success(), "git {step}: {out:?}");
    }
    let index = std::fs::read(r.ws.join(".git/index")).unwrap();
    assert!(
        index.windows(5).any(|w| w == b"sdir\0") || index.windows(4).any(|w| w == b"lib/"),
        "git wrote no sparse directory entry"
    );
    let file = r.ws.parent().unwrap().join("sparse.toml");
    std::fs::write(
        &file,
        "allow = [\"Read\", \"Bash(git *)\"]\ndeny = [\"Read(**/*.key)\"]\n",
    )
    .unwrap();
    let opts = LoadOptions {
        workspace: Some(r.ws.clone()),
        home: Some(r.home.clone()),
        state_dir: Some(r.ws.parent().unwrap().join("state")),
    };
    let policy = Policy::load(&file, &opts).unwrap();
    let decide = |cmd: &str| {
        let mut call = Call::new("run_shell", json!({ "command": cmd }));
        call.cwd = Some(r.ws.clone());
        policy.decide(&call)
    };
    let out = git(&r.ws, &r.home, "log -p -- lib/sub");
    assert!(String::from_utf8_lossy(&out.stdout).contains(SECRET));
    for cmd in ["git log -p -- lib/sub", "git log -p -- lib", "git log -p"] {
        let d = decide(cmd);
        assert_eq!(d.decision, Effect::Ask, "`{cmd}`: {}", d.reason);
        assert!(d.reason.contains("sparse"), "`{cmd}`: {}", d.reason);
    }
    let d = decide("git log -p -- src");
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
}

/// Files git subcommands take by name, whatever git tracks: each proof
/// (run for real) prints the secret of `.env`, ignored here, through the
/// command named beside it (asked of the gate alone), which must be
/// denied by the rule on reading `.env`.
#[test]
fn files_git_is_given_by_name_are_reads() {
    let r = repo(false);
    // Without a file named, the same commands stay allowed (asked first:
    // `update-index --add .env` below makes `.env` tracked).
    for cmd in [
        "commit --allow-empty -m fix",
        "tag -a v1 -m rel",
        "config -l",
        "hash-object src/main.rs",
        "format-patch -1 --stdout",
    ] {
        let (decision, _, reason) = decide(&r, cmd);
        assert_eq!(decision, Effect::Allow, "`git {cmd}`: {reason}");
    }
    let cases: &[(&str, &str)] = &[
        ("commit --allow-empty -F .env", "log -1 --format=%B"),
        ("commit --allow-empty -qF.env", "log -1 --format=%B"),
        ("tag -F .env t1", "tag -n5 -l t1"),
        ("notes add -F .env", "notes show"),
        ("hash-object -w .env", "cat-file -p $(git hash-object .env)"),
        ("update-index --add .env", "show :.env"),
        ("config -f .env -l", ""),
        ("merge-file -p .env .env .env", ""),
        ("interpret-trailers .env", ""),
        ("archive --add-file=.env HEAD", ""),
        ("format-patch --signature-file=.env -1 --stdout", ""),
    ];
    for (cmd, then) in cases {
        let (decision, rule, reason) = decide(&r, cmd);
        assert_eq!(
            (decision, rule.as_deref()),
            (Effect::Deny, Some("deny[0]")),
            "`git {cmd}`: {reason}"
        );
        let out = git(&r.ws, &r.home, cmd);
        let shown = if then.is_empty() {
            out.stdout
        } else {
            git(&r.ws, &r.home, then).stdout
        };
        assert!(
            shown.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
            "`git {cmd}`, then `git {then}`: {}",
            String::from_utf8_lossy(&shown)
        );
    }
}

/// Commands that change what git later runs or what the work tree holds
/// from input the command names: `git am` applies a mailbox's patches to
/// the work tree (here one that rewrites `.env`), and `git init
/// --template` copies a template's hooks into the repository, which the
/// next commit runs (marker `P`). Each does it in the real git; neither is
/// allowed by an allow for git.
#[test]
fn patches_and_templates_are_not_allowed_by_an_allow_for_git() {
    let r = repo(true);
    // A mailbox whose patch rewrites `.env`, made from a commit that is
    // then undone.
    std::fs::write(r.ws.join(".env"), "KEY=WRITTEN-BY-AM\n").unwrap();
    for step in [
        "commit -qam second",
        "format-patch -1 -o mbox",
        "reset -q --hard HEAD~1",
    ] {
        assert!(git(&r.ws, &r.home, step).status.success(), "git {step}");
    }
    let (decision, rule, reason) = decide(&r, "am mbox/0001-second.patch");
    // A write of the work tree, which holds `.env` and `.git`.
    assert_ne!(decision, Effect::Allow, "git am: {reason} ({rule:?})");
    assert!(
        git(&r.ws, &r.home, "am -q mbox/0001-second.patch")
            .status
            .success()
    );
    let env = std::fs::read_to_string(r.ws.join(".env")).unwrap();
    assert_eq!(env, "KEY=WRITTEN-BY-AM\n", "git am wrote the denied file");

    let hooks = r.ws.join("t/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    std::fs::write(hooks.join("pre-commit"), "#!/bin/sh\ntouch P\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        hooks.join("pre-commit"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    for spelling in ["init --template=t", "init --template t", "init --temp=t"] {
        let (decision, _, reason) = decide(&r, spelling);
        assert_eq!(decision, Effect::Ask, "git {spelling}: {reason}");
    }
    assert!(git(&r.ws, &r.home, "init -q --template=t").status.success());
    assert!(
        git(&r.ws, &r.home, "commit -q --allow-empty -m third")
            .status
            .success()
    );
    assert!(
        r.ws.join("P").exists(),
        "the template's hook ran at the commit"
    );
    // Without a template, `git init` stays allowed.
    assert_eq!(decide(&r, "init -q").0, Effect::Allow);
}

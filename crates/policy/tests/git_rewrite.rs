//! What git puts in the work tree from another commit, the index or a
//! stash (a branch switch, `reset --hard`, `stash pop`, `merge`), against
//! the real git: the policy file is committed, and another branch holds a
//! looser one. Each command is asked of the gate, then run for real in a
//! repository of its own: where it replaces the policy file, the gate must
//! have asked under the policy file's hard limit; where it leaves the file
//! alone, it is allowed as before.

use std::path::PathBuf;

use serde_json::json;
use toolgate_policy::{Call, Decision, Effect, LoadOptions, Policy};

use crate::git_support::run as git;

const STRICT: &str = r#"
allow = ["Read", "Edit", "Bash(git *)", "Bash(cd *)", "Bash(cat *)", "Bash(grep *)", "Bash(head *)"]
deny = ["Read(.env)", "Edit(locked/**)"]
"#;

const LOOSE: &str = "allow = [\"*\"]\n";

struct Repo {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
    policy: Policy,
}

fn ok(r: &Repo, script: &str) {
    let out = git(&r.ws, &r.home, script);
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository on `main` whose first commit holds the strict policy
/// (`ignore_policy` leaves it untracked instead) and `src/a.rs`; branch
/// `loose` holds the loose policy and a change to `src/a.rs`; `extra`
/// names more files to commit on `main` first. The policy is loaded from
/// the work tree, as a host finds it.
fn repo(ignore_policy: bool, extra: &[(&str, &str)]) -> Repo {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let ws = base.join("ws");
    let home = base.join("home");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(ws.join("toolgate.toml"), STRICT).unwrap();
    std::fs::write(ws.join("src/a.rs"), "fn a() {}\n").unwrap();
    std::fs::write(ws.join(".env"), "KEY=1\n").unwrap();
    let ignored = if ignore_policy {
        ".env\ntoolgate.toml\n"
    } else {
        ".env\n"
    };
    std::fs::write(ws.join(".gitignore"), ignored).unwrap();
    for (path, text) in extra {
        let p = ws.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let r = Repo {
        _dir: dir,
        policy: Policy::load(
            &ws.join("toolgate.toml"),
            &LoadOptions {
                workspace: Some(ws.clone()),
                home: Some(home.clone()),
                state_dir: Some(base.join("state")),
            },
        )
        .unwrap(),
        ws,
        home,
    };
    ok(
        &r,
        "git init -q -b main && git add -A && git commit -qm first",
    );
    if !ignore_policy {
        // The loose branch: another policy, committed as an agent could
        // (no write of the work tree's file is needed: plumbing stores it).
        ok(
            &r,
            &format!(
                "git checkout -qb loose && printf '{}' > toolgate.toml && echo 'fn a() {{ }}' > src/a.rs \
                 && git commit -qam loose && git checkout -q main",
                LOOSE.replace('"', "\\\"").replace('\n', "\\n")
            ),
        );
    } else {
        ok(
            &r,
            "git checkout -qb loose && echo 'fn a() { }' > src/a.rs && git commit -qam loose \
             && git checkout -q main",
        );
    }
    r
}

fn decide(r: &Repo, command: &str) -> Decision {
    let mut call = Call::new("run_shell", json!({ "command": command }));
    call.cwd = Some(r.ws.clone());
    r.policy.decide(&call)
}

/// Asserts that the gate asks about `command` under the policy file's
/// hard limit.
fn asks_for_the_policy_file(r: &Repo, command: &str) {
    let d = decide(r, command);
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Ask, Some("hard:policy-file")),
        "{command}: {}",
        d.reason
    );
    assert!(
        d.reason.contains("toolgate.toml"),
        "{command}: {}",
        d.reason
    );
}

fn policy_text(r: &Repo) -> String {
    std::fs::read_to_string(r.ws.join("toolgate.toml")).unwrap_or_default()
}

/// Commands that put the loose branch's policy file (or none) in the work
/// tree, each with the setup it needs (run before it is asked).
const REWRITING: &[(&str, &str)] = &[
    ("", "git checkout loose"),
    ("", "git checkout -q loose"),
    ("", "git switch loose"),
    ("", "git checkout --detach loose"),
    ("git checkout -q loose", "git checkout -"),
    ("", "git reset --hard loose"),
    ("", "git reset --ha loose"),
    ("", "git reset --keep loose"),
    ("", "git merge -q loose"),
    ("", "git merge --ff-only loose"),
    ("", "git cherry-pick loose"),
    ("", "git read-tree -u --reset loose"),
    ("", "git read-tree -u -m HEAD loose"),
    (
        "git checkout -q loose && git reset -q --soft main",
        "git stash",
    ),
    (
        "git checkout -q loose && git reset -q --soft main && git stash -q",
        "git stash pop",
    ),
    (
        "git checkout -q loose && git reset -q --soft main && git stash -q",
        "git stash apply",
    ),
    ("git checkout -q loose", "git revert --no-edit HEAD"),
    ("git checkout -q loose", "git reset --hard HEAD~1"),
    (
        "git checkout -q loose && echo x > toolgate.toml",
        "git checkout -f",
    ),
    ("", "git rebase -q loose"),
    ("", "cd src && git checkout loose"),
];

/// Each command replaces the policy file when run, and the gate asks
/// under the policy file's hard limit before it does.
#[test]
fn a_rewrite_that_may_replace_the_policy_file_asks() {
    for (setup, cmd) in REWRITING {
        let r = repo(false, &[]);
        if !setup.is_empty() {
            ok(&r, setup);
        }
        let before = policy_text(&r);
        asks_for_the_policy_file(&r, cmd);
        git(&r.ws, &r.home, cmd);
        assert_ne!(
            policy_text(&r),
            before,
            "{cmd}: run for real, git left the policy file as it was"
        );
    }
}

/// Commands that leave the work tree as it is: allowed as before, and
/// the policy file is untouched when they run.
#[test]
fn commands_that_keep_the_work_tree_stay_allowed() {
    for cmd in [
        "git checkout -b topic",
        "git checkout -qB topic",
        "git switch -c topic",
        "git switch --create topic",
        "git reset --soft HEAD",
        "git reset -q",
        "git stash list",
        "git stash show",
        "git status",
        "git log --oneline",
        "git branch topic loose",
        "git bisect log",
        "git commit -qam nothing",
    ] {
        let r = repo(false, &[]);
        let before = policy_text(&r);
        let d = decide(&r, cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
        git(&r.ws, &r.home, cmd);
        assert_eq!(policy_text(&r), before, "{cmd} changed the policy file");
    }
}

/// `git checkout WORD` checks out the path WORD when no revision has that
/// name: only that path is written, and the policy file stays; a word
/// that names a branch, a tag (loose or packed) or a remote's branch is a
/// switch, and asks.
#[test]
fn a_word_that_names_no_revision_checks_out_a_path() {
    let r = repo(false, &[]);
    ok(&r, "echo changed > src/a.rs");
    for cmd in [
        "git checkout src/a.rs",
        "git checkout -q src",
        "cd src && git checkout a.rs",
    ] {
        let d = decide(&r, cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
    let before = policy_text(&r);
    ok(&r, "git checkout -q src/a.rs");
    assert_eq!(policy_text(&r), before);
    assert_eq!(
        std::fs::read_to_string(r.ws.join("src/a.rs")).unwrap(),
        "fn a() {}\n"
    );
    ok(
        &r,
        "git tag v1 loose && git tag packed loose && git update-ref refs/remotes/origin/far loose \
         && git pack-refs --all && git tag v2 loose && git branch -q feature/x loose",
    );
    for word in [
        "loose",
        "v1",
        "v2",
        "packed",
        "far",
        "origin/far",
        "feature/x",
        "HEAD~0",
        "@{-1}",
    ] {
        let cmd = format!("git checkout {word}");
        asks_for_the_policy_file(&r, &cmd);
    }
    // Each of these, run, is a switch that replaces the policy file.
    for word in ["v1", "packed", "far"] {
        let r = repo(false, &[]);
        ok(
            &r,
            "git tag v1 loose && git tag packed loose && git remote add origin https://example.invalid/r \
             && git update-ref refs/remotes/origin/far loose && git pack-refs --all",
        );
        let before = policy_text(&r);
        git(&r.ws, &r.home, &format!("git checkout -q {word}"));
        assert_ne!(policy_text(&r), before, "git checkout {word}");
    }
}

/// With the policy file ignored, another commit may still hold one: git
/// puts it in place of the ignored file without a question (the commit is
/// made with plumbing alone, no write of the work tree). So a switch asks;
/// what puts HEAD's content back (`stash`, `reset --hard`, `checkout -f`)
/// leaves untracked files alone, and is allowed.
#[test]
fn an_ignored_policy_file_is_overwritten_by_a_switch_and_asks() {
    let r = repo(true, &[]);
    ok(
        &r,
        "blob=$(echo 'allow = [\"*\"]' | git hash-object -w --stdin) \
         && GIT_INDEX_FILE=.git/other git read-tree HEAD \
         && GIT_INDEX_FILE=.git/other git update-index --add --cacheinfo 100644,$blob,toolgate.toml \
         && tree=$(GIT_INDEX_FILE=.git/other git write-tree) \
         && git branch planted $(git commit-tree $tree -p HEAD -m planted)",
    );
    for cmd in [
        "git checkout planted",
        "git merge -q planted",
        "git reset --hard planted",
    ] {
        asks_for_the_policy_file(&r, cmd);
    }
    for cmd in [
        "git stash",
        "git reset --hard",
        "git checkout -f",
        "git checkout src/a.rs",
    ] {
        let d = decide(&r, cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
    let before = policy_text(&r);
    ok(&r, "git checkout -q planted");
    assert_ne!(policy_text(&r), before, "git left the ignored policy file");
    assert!(policy_text(&r).contains("\"*\""));
}

/// Subcommands that check out other commits along the way, decided only.
#[test]
fn other_rewriting_subcommands_ask() {
    let r = repo(false, &[]);
    for cmd in [
        "git bisect start loose main",
        "git bisect good",
        "git sparse-checkout set src",
        "git pull",
        "git switch --orphan empty",
        "git mergetool",
    ] {
        asks_for_the_policy_file(&r, cmd);
    }
}

/// A tracked protected path asks; a tracked file an Edit deny names is
/// denied by that rule.
#[test]
fn tracked_protected_and_denied_files_meet_their_rules() {
    let r = repo(true, &[(".claude/settings.json", "{}\n")]);
    let d = decide(&r, "git checkout loose");
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Ask, Some("protected")),
        "{}",
        d.reason
    );
    let r = repo(true, &[("locked/a", "x\n")]);
    let d = decide(&r, "git reset --hard loose");
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Deny, Some("deny[1]")),
        "{}",
        d.reason
    );
    // A file beside it is not one git tracks: the rule is not met.
    let r = repo(true, &[]);
    std::fs::create_dir_all(r.ws.join("locked")).unwrap();
    std::fs::write(r.ws.join("locked/a"), "x\n").unwrap();
    let d = decide(&r, "git reset --hard");
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
}

/// Another commit may hold a link where the work tree holds a file: a
/// later part of the same command that reads that path reads what the
/// link leads to (`.env`), so it cannot be decided from the work tree as
/// it is; it asks.
#[test]
fn a_path_read_after_a_rewrite_may_be_a_link_from_another_commit() {
    for cmd in [
        "git checkout -q linked && cat src/a.rs",
        "git merge -q linked; grep KEY src/a.rs",
        "git reset -q --hard linked && head src/a.rs",
    ] {
        let r = repo(true, &[]);
        ok(
            &r,
            "git checkout -qb linked main && ln -sf ../.env src/a.rs && git commit -qam link \
             && git checkout -q main",
        );
        let d = decide(&r, cmd);
        assert_eq!(d.decision, Effect::Ask, "{cmd}: {}", d.reason);
        let out = git(&r.ws, &r.home, cmd);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("KEY=1"),
            "{cmd}: run for real, it did not print the secret"
        );
    }
}

/// `git stash -u` (and `-a`) takes the untracked (and ignored) files it
/// stores out of the work tree: an untracked policy file that git does
/// not ignore goes with it, and a policy the file tightened is loosened
/// until the stash is popped. That removal asks under the policy file's
/// hard limit; an ignored policy file stays for `-u` and it is allowed.
#[test]
fn a_stash_of_untracked_files_that_takes_the_policy_file_asks() {
    let r = repo(true, &[]);
    // Not ignored any more: an untracked file `stash -u` takes.
    ok(
        &r,
        "printf '.env\\n' > .gitignore && git commit -qam 'ignore .env only'",
    );
    asks_for_the_policy_file(&r, "git stash -u");
    ok(&r, "git stash -q -u");
    assert!(
        !r.ws.join("toolgate.toml").exists(),
        "stash -u left the policy file"
    );

    // Ignored: `stash -u` leaves it, and is allowed; `-a` takes it (and
    // `.env`, whose read is denied).
    let r = repo(true, &[]);
    ok(&r, "echo scratch > notes.txt");
    let d = decide(&r, "git stash -u");
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
    ok(&r, "git stash -q -u");
    assert!(r.ws.join("toolgate.toml").exists());
    let d = decide(&r, "git stash -a");
    assert_ne!(d.decision, Effect::Allow, "{}", d.reason);
    ok(&r, "git stash -q -a");
    assert!(
        !r.ws.join("toolgate.toml").exists(),
        "stash -a left the policy file"
    );
}

/// A nested policy file (below the workspace's, in a repository of its
/// own) lying ignored in the work tree: a switch that brings another
/// commit may replace it, and the rules it adds with it; it asks.
#[test]
fn an_ignored_nested_policy_file_asks_too() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let ws = base.join("ws");
    let sub = ws.join("sub");
    let home = base.join("home");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(ws.join("toolgate.toml"), STRICT).unwrap();
    std::fs::write(sub.join("toolgate.toml"), "deny = [\"Bash(make *)\"]\n").unwrap();
    std::fs::write(sub.join(".gitignore"), "toolgate.toml\n").unwrap();
    std::fs::write(sub.join("a"), "a\n").unwrap();
    let out = git(
        &sub,
        &home,
        "git init -q -b main . && git add -A && git commit -qm first && git branch other",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let opts = LoadOptions {
        workspace: Some(ws.clone()),
        home: Some(home.clone()),
        state_dir: Some(base.join("state")),
    };
    let layering = toolgate_policy::layers::Layering {
        managed: base.join("etc/toolgate.toml"),
        user: Some(home.join(".config/toolgate/toolgate.toml")),
        trust: None,
        anchor: Some(ws.clone()),
        project_seen: None,
    };
    let policy = toolgate_policy::layers::discover(None, &sub, &opts, &layering).unwrap();
    let decide = |cmd: &str| {
        let mut call = Call::new("run_shell", json!({ "command": cmd }));
        call.cwd = Some(sub.clone());
        policy.decide(&call)
    };
    let d = decide("make x");
    assert_eq!(
        d.decision,
        Effect::Deny,
        "the nested file applies: {}",
        d.reason
    );
    let d = decide("git checkout other");
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Ask, Some("hard:policy-file")),
        "{}",
        d.reason
    );
    assert!(d.reason.contains("sub/toolgate.toml"), "{}", d.reason);
    let d = decide("git stash");
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
}

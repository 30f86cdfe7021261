//! git inside the boundary, with the real git in the real sandbox: its own
//! data is writable (commit, branch, checkout, stash, rebase, worktree add
//! work), what makes it run a program or read from elsewhere is not, each
//! proven on disk.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Arc;

use toolgate_policy::{LoadOptions, Policy};
use toolgate_sandbox::{COMMONDIR_PLACEHOLDER, Op, Options, Plan, Profile, Sandbox};

struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    policy: Arc<Policy>,
}

/// git as the tests run it, outside or inside: no global or system
/// configuration, a fixed identity.
fn git_env(c: &mut Command) -> &mut Command {
    c.env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
}

impl Ws {
    /// A repository with one commit and a linked worktree, `wt`, made
    /// before any command runs.
    fn new() -> Ws {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        std::fs::create_dir(&root).unwrap();
        for d in ["home", "state"] {
            std::fs::create_dir(base.join(d)).unwrap();
        }
        let file = root.join("toolgate.toml");
        std::fs::write(&file, "allow = [\"Read\", \"Bash\"]\n").unwrap();
        let opts = LoadOptions {
            home: Some(base.join("home")),
            state_dir: Some(base.join("state")),
            ..LoadOptions::default()
        };
        let policy = Arc::new(Policy::load(&file, &opts).unwrap());
        let ws = Ws {
            _tmp: tmp,
            root,
            policy,
        };
        std::fs::write(ws.root.join("a.txt"), "a\n").unwrap();
        ws.git(&["init", "-q", "-b", "main", "."]);
        ws.git(&["add", "a.txt"]);
        ws.git(&["commit", "-qm", "first"]);
        ws.git(&["worktree", "add", "-q", "-b", "wt", "wt"]);
        ws
    }

    /// git, outside the sandbox; must succeed.
    fn git(&self, args: &[&str]) -> String {
        let out = git_env(&mut Command::new("git"))
            .args(args)
            .current_dir(&self.root)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    }

    /// A bash script inside the sandbox, from the root.
    fn run(&self, script: &str) -> Output {
        let sandbox = Sandbox::prepare(
            &Profile::from_policy(self.policy.clone()),
            &Options::default(),
        )
        .unwrap();
        let mut cmd = Command::new("bash");
        git_env(&mut cmd)
            .args(["-c", script])
            .current_dir(&self.root);
        sandbox.install(&mut cmd);
        let out = sandbox.spawn(&mut cmd).unwrap().wait_with_output().unwrap();
        drop(sandbox);
        out
    }

    fn read(&self, p: &str) -> String {
        std::fs::read_to_string(self.root.join(p)).unwrap_or_default()
    }

    /// Whether `p` is the placeholder the sandbox made: a regular file
    /// holding what git reads as "no such file" would mean.
    fn is_placeholder(&self, p: &str) -> bool {
        let path = self.root.join(p);
        let want = if p.ends_with("commondir") {
            COMMONDIR_PLACEHOLDER
        } else {
            ""
        };
        std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
            && std::fs::read_to_string(&path).is_ok_and(|t| t == want)
    }
}

#[test]
fn git_commits_branches_stashes_rebases_and_adds_worktrees_inside() {
    let ws = Ws::new();
    let out = ws.run(
        "set -e\n\
         echo more >> a.txt && git commit -qam second\n\
         git branch feature\n\
         git checkout -q -b topic\n\
         echo t > t.txt && git add t.txt && git commit -qm on-topic\n\
         git checkout -q main\n\
         echo m > m.txt && git add m.txt && git commit -qm on-main\n\
         git checkout -q topic\n\
         git rebase -q main\n\
         echo wip >> a.txt && git stash -q\n\
         git worktree add -q -b fresh fresh\n\
         (cd fresh && echo f > f.txt && git add f.txt && git commit -qm in-fresh)\n\
         (cd wt && echo w > w.txt && git add w.txt && git commit -qm in-wt)\n\
         git status --short > status.txt\n\
         echo ok > done",
    );
    assert_eq!(ws.read("done"), "ok\n", "{out:?}");
    let log = ws.git(&["log", "--format=%s", "topic"]);
    assert_eq!(log, "on-topic\non-main\nsecond\nfirst\n", "rebased");
    let branches = ws.git(&["branch", "--format=%(refname:short)"]);
    for b in ["feature", "topic", "main", "fresh", "wt"] {
        assert!(branches.lines().any(|l| l == b), "{b}: {branches}");
    }
    assert_eq!(ws.git(&["rev-parse", "--abbrev-ref", "HEAD"]), "topic\n");
    assert_eq!(ws.git(&["stash", "list"]).lines().count(), 1);
    assert_eq!(
        ws.git(&["log", "--format=%s", "-1", "refs/heads/fresh"]),
        "in-fresh\n"
    );
    assert_eq!(
        ws.git(&["log", "--format=%s", "-1", "refs/heads/wt"]),
        "in-wt\n"
    );
    assert!(ws.git(&["worktree", "list"]).contains("/fresh "));
    // The placeholders mean what their absence meant: git outside finds the
    // repository where it always was.
    let common = ws.git(&["rev-parse", "--git-common-dir"]);
    assert_eq!(
        std::fs::canonicalize(ws.root.join(common.trim())).unwrap(),
        ws.root.join(".git")
    );
    assert_eq!(
        ws.git(&["-C", "wt", "rev-parse", "--show-toplevel"]).trim(),
        ws.root.join("wt").to_str().unwrap()
    );
    assert!(ws.git(&["status", "--porcelain"]).contains("status.txt"));
}

#[test]
fn git_configuration_hooks_and_redirects_stay_as_they_were() {
    let ws = Ws::new();
    let config = ws.read(".git/config");
    let wt_gitdir = ws.read(".git/worktrees/wt/gitdir");
    let wt_commondir = ws.read(".git/worktrees/wt/commondir");
    let hooks: Vec<_> = std::fs::read_dir(ws.root.join(".git/hooks"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    let out = ws.run(
        "git config core.hooksPath evil\n\
         git config --worktree core.fsmonitor evil\n\
         echo '[core] fsmonitor = evil' >> .git/config\n\
         sed -i 's/bare/evil/' .git/config\n\
         mv .git/config .git/config-moved\n\
         printf '#!/bin/sh\\necho pwned > pwned\\n' > .git/hooks/pre-commit\n\
         chmod +x .git/hooks/pre-commit\n\
         mkdir -p evil/hooks && printf '[core]\\n\\thooksPath = evil/hooks\\n' > evil/config\n\
         echo \"$PWD/evil\" > .git/commondir\n\
         rm -f .git/commondir; ln -sfn \"$PWD/evil\" .git/commondir\n\
         echo \"$PWD/evil\" > c && mv -f c .git/commondir\n\
         python3 -c \"import os; open('d','w').write('evil'); os.rename('d', '.git/commondir')\"\n\
         echo '[core] fsmonitor = evil' > .git/config.worktree\n\
         mkdir -p .git/modules/sub && echo '[core] fsmonitor = evil' > .git/modules/sub/config\n\
         echo '* -diff' > .git/info/attributes\n\
         echo \"$PWD/evil\" > .git/worktrees/wt/commondir\n\
         echo /elsewhere/.git > .git/worktrees/wt/gitdir\n\
         echo \"$PWD/evil\" > .git/worktrees/wt/config.worktree\n\
         mv .git/worktrees/wt .git/worktrees/moved\n\
         mv .git/worktrees .git/worktrees-moved\n\
         rm -rf .git/hooks .git/info\n\
         mv .git .git-moved\n\
         echo ran > done",
    );
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");
    assert_eq!(ws.read(".git/config"), config);
    assert!(!ws.root.join(".git/config-moved").exists());
    let now: Vec<_> = std::fs::read_dir(ws.root.join(".git/hooks"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(now, hooks);
    for p in [".git/commondir", ".git/config.worktree"] {
        assert!(ws.is_placeholder(p), "{p} is no longer the placeholder");
    }
    assert_eq!(
        std::fs::read_dir(ws.root.join(".git/modules"))
            .unwrap()
            .count(),
        0
    );
    assert!(!ws.root.join(".git/info/attributes").exists());
    assert_eq!(ws.read(".git/worktrees/wt/gitdir"), wt_gitdir);
    assert_eq!(ws.read(".git/worktrees/wt/commondir"), wt_commondir);
    assert!(ws.is_placeholder(".git/worktrees/wt/config.worktree"));
    for p in [".git-moved", ".git/worktrees-moved", ".git/worktrees/moved"] {
        assert!(!ws.root.join(p).exists(), "{p}");
    }
    // git outside, hooks and all, runs nothing of the command's making.
    ws.git(&["-C", "wt", "commit", "-q", "--allow-empty", "-m", "outside"]);
    ws.git(&["commit", "-q", "--allow-empty", "-m", "outside"]);
    assert!(!ws.root.join("pwned").exists());
    assert!(!ws.root.join("wt/pwned").exists());
    let out = git_env(&mut Command::new("git"))
        .args(["config", "--get", "core.hooksPath"])
        .current_dir(&ws.root)
        .output()
        .unwrap();
    assert!(out.stdout.is_empty(), "{out:?}");
}

#[test]
fn the_layout_keeps_every_redirecting_name_and_pins_the_directories() {
    let ws = Ws::new();
    let plan = Plan::build(&Profile::from_policy(ws.policy.clone())).unwrap();
    let r = &ws.root;
    let has = |op: Op| plan.ops.contains(&op);
    assert!(has(Op::Pin(r.join(".git"))));
    assert!(has(Op::Pin(r.join(".git/worktrees"))));
    assert!(has(Op::Pin(r.join(".git/worktrees/wt"))));
    for p in [".git/config", ".git/hooks", ".git/info", ".git/modules"] {
        assert!(has(Op::ReadOnly(r.join(p))), "{p}: {:?}", plan.ops);
    }
    for p in [
        ".git/commondir",
        ".git/config.worktree",
        ".git/worktrees/wt/config.worktree",
    ] {
        assert!(has(Op::ReadOnly(r.join(p))), "{p}: {:?}", plan.ops);
        assert!(ws.is_placeholder(p), "{p}");
    }
    for p in [".git/worktrees/wt/commondir", ".git/worktrees/wt/gitdir"] {
        assert!(has(Op::ReadOnly(r.join(p))), "{p}: {:?}", plan.ops);
    }
    // The linked worktree's `.git` file is protected as before.
    assert!(has(Op::ReadOnly(r.join("wt/.git"))), "{:?}", plan.ops);
    // Git's own data is not bound: it stays writable.
    for p in [
        ".git/HEAD",
        ".git/index",
        ".git/refs",
        ".git/objects",
        ".git/logs",
    ] {
        assert!(
            !plan
                .ops
                .iter()
                .any(|o| matches!(o, Op::ReadOnly(x) if x == &r.join(p))),
            "{p}: {:?}",
            plan.ops
        );
    }
}

/// An Edit deny rule on `.git` keeps it read-only as a whole: the layout is
/// for the built-in protection only.
#[test]
fn an_edit_deny_of_git_keeps_it_read_only_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    std::fs::create_dir_all(root.join(".git/refs")).unwrap();
    let file = root.join("toolgate.toml");
    std::fs::write(&file, "deny = [\"Edit(.git/**)\"]\n").unwrap();
    let opts = LoadOptions {
        home: Some(root.clone()),
        state_dir: Some(root.join("state")),
        ..LoadOptions::default()
    };
    let policy = Arc::new(Policy::load(&file, &opts).unwrap());
    let plan = Plan::build(&Profile::from_policy(policy)).unwrap();
    assert!(plan.ops.contains(&Op::ReadOnly(root.join(".git"))));
    assert_eq!(plan.git_dirs().count(), 0);
    assert!(!root.join(".git/commondir").exists());
    assert!(!root.join(".git/hooks").exists());
}

/// A hooks directory the repository's configuration names in the work
/// tree (`core.hooksPath = .githooks`) is read-only inside, as
/// `.git/hooks` is: git runs what is there on the next commit, outside
/// the sandbox too.
#[test]
fn a_configured_hooks_directory_stays_as_it_was() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Ws::new();
    let hook = ws.root.join(".githooks/pre-commit");
    std::fs::create_dir(ws.root.join(".githooks")).unwrap();
    std::fs::write(&hook, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    ws.git(&["config", "core.hooksPath", ".githooks"]);
    let out = ws.run(
        "printf '#!/bin/sh\\necho pwned > pwned\\n' > .githooks/pre-commit\n\
         printf '#!/bin/sh\\necho pwned > pwned\\n' > .githooks/post-commit\n\
         mv .githooks .githooks-moved\n\
         echo ran > done",
    );
    assert_eq!(ws.read("done"), "ran\n", "{out:?}");
    assert_eq!(ws.read(".githooks/pre-commit"), "#!/bin/sh\nexit 0\n");
    assert!(!ws.root.join(".githooks/post-commit").exists());
    assert!(!ws.root.join(".githooks-moved").exists());
    ws.git(&["commit", "-q", "--allow-empty", "-m", "after"]);
    assert!(!ws.root.join("pwned").exists());
}

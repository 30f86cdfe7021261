//! What git reaches beyond the work tree through the words of a command,
//! against the real git: other repositories given by path (fetched from,
//! pushed to, listed), files named by options of any subcommand
//! (`--output`, `--pathspec-from-file`, `--index-output`, `-X`), the
//! directories `init`, `bundle create`, `bugreport` and `--object-dir`
//! write, and the subcommands that run programs, serve the repository or
//! hand out credentials. Each command is asked of the gate under an allow
//! of git, then run for real to show it does what the gate took it for.

use std::path::{Path, PathBuf};

use serde_json::json;
use toolgate_policy::{Call, Effect};

use crate::git_support::run as git;
use crate::scratch::{Scratch, expect};

const POLICY: &str = r#"
allow = ["Read", "Bash(git *)"]
deny = ["Read(.env)"]
"#;

struct Repo {
    s: Scratch,
    /// A repository outside the workspace roots, holding `s` (`SECRET=2`).
    other: PathBuf,
}

fn ok(dir: &Path, home: &Path, script: &str) {
    let out = git(dir, home, script);
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A workspace repository (the policy file and `.env` ignored, `a.txt`
/// committed on `main`, a branch `other`) and, beside it, outside its
/// roots, a repository holding a secret.
fn repo() -> Repo {
    let mut s = Scratch::new(
        POLICY,
        &[
            (".gitignore", ".env\ntoolgate.toml\n"),
            (".env", "KEY=1\n"),
            ("a.txt", "a\n"),
        ],
    );
    let other = s.base.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("s"), "SECRET=2\n").unwrap();
    let home = s.home();
    ok(
        &other,
        &home,
        "git init -q -b main && git add s && git commit -qm s",
    );
    ok(
        &s.ws,
        &home,
        "git init -q -b main && git add -A && git commit -qm first && git branch other",
    );
    // Loaded again now that the workspace is a repository.
    s.reload(POLICY);
    Repo { s, other }
}

/// `{other}` in a command is the outside repository's path.
fn expand(r: &Repo, command: &str) -> String {
    command.replace("{other}", &r.other.display().to_string())
}

/// Writes outside the roots, each denied under the hard limit; run, git
/// makes the path.
#[test]
fn writes_outside_the_roots_are_denied() {
    for cmd in [
        "git init -q {other}/P",
        "git init -q --bare {other}/P",
        "git init -q --separate-git-dir={other}/P d",
        "git bundle create {other}/P HEAD",
        "git read-tree --index-output={other}/P HEAD",
        "git bugreport -o {other}/P",
        "git diagnose -o {other}/P",
        "git multi-pack-index --object-dir={other}/P write",
        "git shortlog --output={other}/P HEAD",
    ] {
        let r = repo();
        let cmd = expand(&r, cmd);
        expect(
            &r.s.decide(&cmd),
            Effect::Deny,
            Some("hard:outside-roots"),
            &cmd,
        );
        git(&r.s.ws, &r.s.home(), &cmd);
        assert!(
            r.other.join("P").exists(),
            "{cmd}: run for real, git made nothing there"
        );
    }
}

/// Another repository given by path is read by a fetch (whose objects
/// `git show FETCH_HEAD:s` then prints), a listing or a request-pull; a
/// file given to `--pathspec-from-file` is read, and git's error prints
/// its lines. Each is a read outside the roots, denied.
#[test]
fn reads_of_other_repositories_and_named_files_are_checked() {
    for (cmd, shown) in [
        ("git fetch -q {other}", "git show FETCH_HEAD:s"),
        (
            "git fetch -q --depth 1 {other} main",
            "git show FETCH_HEAD:s",
        ),
        (
            "git pull -q --no-rebase --allow-unrelated-histories {other} main",
            "cat s",
        ),
        ("git ls-remote {other}", ""),
        (
            "git remote add o {other} && git fetch -q o",
            "git show o/main:s",
        ),
        ("git rm --pathspec-from-file={other}/s", ""),
        ("git stash push --pathspec-from-file {other}/s", ""),
        ("git restore --pathspec-from-file={other}/s", ""),
    ] {
        let r = repo();
        let cmd = expand(&r, cmd);
        expect(
            &r.s.decide(&cmd),
            Effect::Deny,
            Some("hard:outside-roots"),
            &cmd,
        );
        let out = git(&r.s.ws, &r.s.home(), &format!("{cmd}; {shown}"));
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        if cmd.starts_with("git ls-remote") {
            assert!(all.contains("refs/heads/main"), "{cmd}: {all}");
        } else {
            assert!(all.contains("SECRET=2"), "{cmd}: run for real: {all}");
        }
    }
}

/// `--output` of the subcommands that take diff or revision options
/// writes the file it names: not a write an allow of git covers, so the
/// policy's default (deny, with no `default` set) decides it.
#[test]
fn output_options_of_every_subcommand_are_writes() {
    for (setup, cmd) in [
        ("", "git shortlog --output=P HEAD"),
        ("", "git blame --output=P a.txt"),
        ("", "git rev-list --output=P HEAD"),
        ("", "git reflog --output=P"),
        ("", "git range-diff --output=P HEAD~0...HEAD"),
        ("", "git fast-export --output=P HEAD"),
        (
            "echo b >> a.txt && git stash -q",
            "git stash show --output=P",
        ),
        (
            "echo b >> a.txt && git stash -q",
            "git stash list --output P",
        ),
    ] {
        let r = repo();
        if !setup.is_empty() {
            ok(&r.s.ws, &r.s.home(), setup);
        }
        let d = r.s.decide(cmd);
        // The policy's default (deny) meets the write: no rule covers it.
        expect(&d, Effect::Deny, None, cmd);
        assert!(d.reason.contains("/P`"), "{cmd}: {}", d.reason);
        git(&r.s.ws, &r.s.home(), cmd);
        assert!(r.s.ws.join("P").exists(), "{cmd}: run for real, no P");
    }
}

/// Options and subcommands that run a program, each run for real to
/// create the marker the gate must not have allowed.
#[test]
fn programs_git_runs_are_not_allowed() {
    for (cmd, input) in [
        ("git send-pack --receive-pack='touch P' . main", ""),
        ("git send-pack --exec='touch P' . main", ""),
        ("git fetch-pack --upload-pack='touch P' . main", ""),
        ("git fetch-pack --exec='touch P' . main", ""),
        ("git remote-ext . 'touch P'", "connect git-upload-pack\n\n"),
    ] {
        let r = repo();
        let d = r.s.decide(cmd);
        assert_eq!(d.decision, Effect::Ask, "{cmd}: {}", d.reason);
        git(
            &r.s.ws,
            &r.s.home(),
            &format!("printf '{}' | timeout 5 {cmd}", input.replace('\n', "\\n")),
        );
        assert!(r.s.ws.join("P").exists(), "{cmd}: run for real, no P");
    }
    let r = repo();
    for cmd in [
        "git daemon --base-path=/ --export-all",
        "git instaweb",
        "git credential fill",
        "git credential-store get",
        "git shell -c 'git-upload-pack .'",
        "git for-each-repo --config=maintenance.repo gc",
        "git maintenance start",
        "git receive-pack .",
        "git http-backend",
    ] {
        let d = r.s.decide(cmd);
        assert_eq!(d.decision, Effect::Ask, "{cmd}: {}", d.reason);
        assert!(
            d.reason.contains("could not be analysed"),
            "{cmd}: {}",
            d.reason
        );
    }
}

/// What stays allowed: this repository given as `.`, a repository made
/// inside the workspace, remotes by name, and what only prints.
#[test]
fn everyday_commands_stay_allowed() {
    for cmd in [
        "git push . HEAD:refs/heads/x",
        "git fetch . main:o2",
        "git init -q sub",
        "git log --oneline",
        "git shortlog -sn HEAD",
        "git commit -q --allow-empty -m x",
        "git maintenance run",
    ] {
        let r = repo();
        let d = r.s.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
        ok(&r.s.ws, &r.s.home(), cmd);
    }
    let r = repo();
    for cmd in [
        "git push -u origin feature/x",
        "git fetch upstream",
        "git fetch origin refs/pull/1/head:pr",
        "git ls-remote --tags origin",
    ] {
        let d = r.s.decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
}

/// The hooks directory the repository's own configuration names in the
/// work tree (`core.hooksPath = .githooks`) is protected as `.git/hooks`
/// is: an allow of editing or of `echo`/`cp`/`rm` does not cover writing
/// there, since the next `git commit` an allow of git lets run would run
/// what was written. Proven: git runs a hook written there.
#[test]
fn a_configured_hooks_directory_is_protected() {
    use std::os::unix::fs::PermissionsExt;
    let mut r = repo();
    let hook = r.s.ws.join(".githooks/pre-commit");
    std::fs::create_dir(r.s.ws.join(".githooks")).unwrap();
    std::fs::write(&hook, "#!/bin/sh\ntrue\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    ok(&r.s.ws, &r.s.home(), "git config core.hooksPath .githooks");
    r.s.reload(
        "allow = [\"Read\", \"Edit\", \"Bash(git *)\", \"Bash(echo *)\", \"Bash(cp *)\", \"Bash(rm *)\"]\n",
    );
    let decide = |call: Call| {
        let mut call = call;
        call.cwd = Some(r.s.ws.clone());
        r.s.policy.decide(&call)
    };
    let shell = |c: &str| Call::new("run_shell", json!({ "command": c }));
    for call in [
        shell("echo 'touch P' >> .githooks/pre-commit"),
        shell("cp a.txt .githooks/post-commit"),
        shell("rm -rf .githooks"),
        Call::new(
            "write_file",
            json!({ "path": hook.display().to_string(), "content": "touch P" }),
        ),
    ] {
        let d = decide(call);
        expect(&d, Effect::Ask, Some("protected"), "a write in .githooks");
        assert!(d.reason.contains("core.hooksPath"), "{}", d.reason);
    }
    let d = decide(shell("echo x > a.txt"));
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
    ok(
        &r.s.ws,
        &r.s.home(),
        "echo 'touch P' >> .githooks/pre-commit && git commit -q --allow-empty -m x",
    );
    assert!(r.s.ws.join("P").exists(), "git ran no hook from .githooks");
}

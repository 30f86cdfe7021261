//! The library: plans found from a policy and the file system, failing
//! closed, running a command in a child, and the rewritten command line.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

mod git;

use proptest::prelude::*;
use toolgate_policy::{LoadOptions, Policy};
use toolgate_sandbox::{
    Op, Options, Part, Plan, Profile, Sandbox, SandboxError, sandboxed_command_line, shell_quote,
};

struct Ws {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    base: PathBuf,
}

fn ws(policy: &str) -> (Ws, Arc<Policy>) {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let root = base.join("ws");
    std::fs::create_dir(&root).unwrap();
    let file = root.join("toolgate.toml");
    std::fs::write(&file, policy).unwrap();
    let opts = LoadOptions {
        home: Some(base.join("home")),
        state_dir: Some(base.join("state")),
        ..LoadOptions::default()
    };
    std::fs::create_dir(base.join("home")).unwrap();
    std::fs::create_dir(base.join("state")).unwrap();
    let p = Policy::load(&file, &opts).unwrap();
    (
        Ws {
            _tmp: tmp,
            root,
            base,
        },
        Arc::new(p),
    )
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn mask_of<'a>(plan: &'a Plan, p: &Path) -> Option<&'a Op> {
    plan.ops
        .iter()
        .find(|o| matches!(o, Op::Mask { path, .. } if path == p))
}

#[test]
fn plan_masks_denied_files_dirs_links_and_keeps_protected_paths_read_only() {
    let (w, policy) = ws(r#"
deny = ["Read(**/*.pem)", "Read(.env*)", "Read(vault/**)", "Read(~/.ssh/**)"]
"#);
    let r = &w.root;
    write(&r.join("a/b/key.pem"), "k");
    write(&r.join(".env.prod"), "e");
    write(&r.join("vault/x/y.txt"), "v");
    write(&r.join("ok.txt"), "fine");
    write(&r.join(".git/config"), "c");
    write(&r.join("nested/.claude/settings.json"), "{}");
    std::fs::hard_link(r.join("a/b/key.pem"), r.join("innocent.txt")).unwrap();
    write(&w.base.join("home/.ssh/id_ed25519"), "ssh");
    std::os::unix::fs::symlink(w.base.join("home/.ssh/id_ed25519"), r.join("id")).unwrap();
    let plan = Plan::build(&Profile::from_policy(policy.clone())).unwrap();

    for (p, dir) in [
        (r.join("a/b/key.pem"), false),
        (r.join(".env.prod"), false),
        (r.join("vault"), true),
        (r.join("innocent.txt"), false),
        (w.base.join("home/.ssh/id_ed25519"), false),
    ] {
        match mask_of(&plan, &p) {
            Some(Op::Mask { dir: d, .. }) => assert_eq!(*d, dir, "{}", p.display()),
            _ => panic!("{} is not masked: {:?}", p.display(), plan.ops),
        }
    }
    assert!(mask_of(&plan, &r.join("ok.txt")).is_none());
    let ro: Vec<&Path> = plan.readonly().collect();
    for p in [
        r.join(".git/config"),
        r.join("nested/.claude"),
        r.join("toolgate.toml"),
        w.base.join("state"),
    ] {
        assert!(
            ro.contains(&p.as_path()),
            "{} not read-only: {ro:?}",
            p.display()
        );
    }
    // `.git` is git's to write; its configuration is not.
    assert_eq!(plan.git_dirs().collect::<Vec<_>>(), [r.join(".git")]);
    assert!(!ro.contains(&r.join(".git").as_path()), "{ro:?}");
    // Nothing beneath a read-only directory needs a bind of its own.
    assert!(
        !ro.contains(&r.join("nested/.claude/settings.json").as_path()),
        "{ro:?}"
    );
    // A directory comes before what lies beneath it.
    let pos = |p: &Path| {
        plan.ops.iter().position(|o| match o {
            Op::ReadOnly(x) | Op::Pin(x) | Op::Link(x) => x == p,
            Op::Mask { path, .. } => path == p,
        })
    };
    assert!(pos(&r.join(".git")) < pos(&r.join(".git/config")));
    assert!(pos(&r.join(".git")) < pos(&r.join("innocent.txt")));
}

#[test]
fn plan_keeps_edit_denied_paths_read_only() {
    let (w, policy) =
        ws("deny = [\"Edit(protected.txt)\", \"Edit(conf/**)\", \"Write(**/*.lock)\"]\n");
    let r = &w.root;
    write(&r.join("protected.txt"), "p");
    write(&r.join("conf/app.toml"), "c");
    write(&r.join("sub/Cargo.lock"), "l");
    write(&r.join("src/main.rs"), "m");
    let plan = Plan::build(&Profile::from_policy(policy)).unwrap();
    let ro: Vec<&Path> = plan.readonly().collect();
    for p in ["protected.txt", "conf", "sub/Cargo.lock"] {
        assert!(
            ro.contains(&r.join(p).as_path()),
            "{p} not read-only: {ro:?}"
        );
    }
    for p in ["src", "src/main.rs", "sub", "conf/app.toml"] {
        assert!(!ro.contains(&r.join(p).as_path()), "{p} read-only: {ro:?}");
    }
    // Nothing of the workspace is masked (the machine's daemon sockets,
    // masked wherever they are, are not the workspace's).
    assert!(plan.masks().all(|m| !m.starts_with(r)), "{:?}", plan.ops);
    assert!(!ro.contains(&r.as_path()));

    // Edit denied everywhere: the root itself.
    let (w, policy) = ws("deny = [\"Edit\"]\n");
    let plan = Plan::build(&Profile::from_policy(policy)).unwrap();
    assert_eq!(
        plan.readonly().next(),
        Some(w.root.as_path()),
        "{:?}",
        plan.ops
    );
}

#[test]
fn a_walk_past_its_bound_refuses() {
    let (w, policy) = ws("deny = [\"Read(**/*.pem)\"]\n");
    for i in 0..20 {
        write(&w.root.join(format!("d/f{i}")), "x");
    }
    let profile = Profile::from_policy(policy).with_walk_limit(10);
    match Plan::build(&profile) {
        Err(SandboxError::TooManyEntries { limit: 10 }) => {}
        other => panic!("{other:?}"),
    }
}

/// A Landlock right this kernel lacks stands in for an old kernel: nothing
/// runs, and the error names the part.
#[test]
fn fails_closed_naming_the_part_the_kernel_cannot_enforce() {
    use landlock::{AccessFs, CompatLevel, Compatible, Ruleset, RulesetAttr};
    let missing = AccessFs::ResolveUnix;
    if Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(missing)
        .is_ok()
    {
        // This kernel has every right the crate knows: no old kernel can
        // be stood in for here, so the test says so instead of passing.
        eprintln!(
            "skipped: this kernel enforces Landlock's ResolveUnix, so no missing right can stand in for an old kernel"
        );
        return;
    }
    let (w, policy) = ws("allow = [\"Read\"]\n");
    let opts = Options {
        extra_landlock_rights: missing.into(),
        ..Options::default()
    };
    match Sandbox::prepare(&Profile::from_policy(policy), &opts) {
        Err(SandboxError::Unsupported {
            part: Part::LandlockFs,
            reason,
        }) => assert!(reason.contains("abi"), "{reason}"),
        other => panic!("{other:?}"),
    }
    assert!(!w.root.join("ran").exists());
}

#[test]
fn a_child_runs_inside_the_sandbox_and_its_temp_dir_goes_with_it() {
    let (w, policy) = ws("deny = [\"Read(secret)\"]\n");
    write(&w.root.join("secret"), "S3CRET");
    let sandbox = Sandbox::prepare(&Profile::from_policy(policy), &Options::default()).unwrap();
    let tmp = sandbox.tmp_dir().to_path_buf();
    let mut cmd = Command::new("bash");
    cmd.args([
        "-c",
        "cat secret > got; echo x > \"$TMPDIR/t\" && echo ok > tmp-ok; touch ../escaped",
    ])
    .current_dir(&w.root);
    sandbox.install(&mut cmd);
    // `../escaped` lands in the command's private /tmp (the workspace lies
    // in /tmp here), never in the real one.
    sandbox.spawn(&mut cmd).unwrap().wait().unwrap();
    assert_eq!(std::fs::read_to_string(w.root.join("got")).unwrap(), "");
    assert_eq!(
        std::fs::read_to_string(w.root.join("tmp-ok")).unwrap(),
        "ok\n"
    );
    assert!(!w.base.join("escaped").exists());
    assert!(tmp.join("t").exists());
    drop(sandbox);
    assert!(!tmp.exists(), "the private temp dir outlived the sandbox");
}

/// A hard link to the policy file (or to a protected file) is another
/// name for what the sandbox keeps read-only: it is bound read-only too,
/// so that writing through it changes nothing.
#[test]
fn other_names_of_a_read_only_file_stay_read_only() {
    let (w, policy) = ws("allow = [\"Read\", \"Edit\", \"Bash\"]\n");
    let before = std::fs::read_to_string(w.root.join("toolgate.toml")).unwrap();
    write(&w.root.join(".claude/settings.json"), "{}");
    std::fs::hard_link(w.root.join("toolgate.toml"), w.root.join("notes.txt")).unwrap();
    std::fs::hard_link(w.root.join(".claude/settings.json"), w.root.join("s.json")).unwrap();
    let sandbox = Sandbox::prepare(&Profile::from_policy(policy), &Options::default()).unwrap();
    let mut cmd = Command::new("bash");
    cmd.args([
        "-c",
        "echo 'allow = [\"*\"]' >> notes.txt; echo x > s.json; echo ran > done",
    ])
    .current_dir(&w.root);
    sandbox.install(&mut cmd);
    sandbox.spawn(&mut cmd).unwrap().wait().unwrap();
    drop(sandbox);
    assert_eq!(
        std::fs::read_to_string(w.root.join("done")).unwrap(),
        "ran\n"
    );
    assert_eq!(
        std::fs::read_to_string(w.root.join("toolgate.toml")).unwrap(),
        before
    );
    assert_eq!(
        std::fs::read_to_string(w.root.join(".claude/settings.json")).unwrap(),
        "{}"
    );
}

#[test]
fn a_program_that_cannot_run_is_an_exec_error() {
    let (w, policy) = ws("allow = [\"Read\"]\n");
    let sandbox = Sandbox::prepare(&Profile::from_policy(policy), &Options::default()).unwrap();
    let mut cmd = Command::new("/no/such/program");
    // Inside the roots: a working directory in /tmp outside them is not
    // there inside (the command sees a private /tmp).
    cmd.current_dir(&w.root);
    sandbox.install(&mut cmd);
    match sandbox.spawn(&mut cmd) {
        Err(toolgate_sandbox::SpawnError::Exec(e)) => {
            assert_eq!(e.kind(), std::io::ErrorKind::NotFound)
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_command_line_quotes_every_word() {
    let line =
        sandboxed_command_line("/opt/tg bin/toolgate", None, Some("/w s"), "echo 'a'").unwrap();
    assert_eq!(
        line,
        r#"'/opt/tg bin/toolgate' 'sandbox' '--workspace' '/w s' '--' 'bash' '-c' 'echo '\''a'\'''"#
    );
    assert!(matches!(shell_quote("a\0b"), Err(SandboxError::NulByte)));
}

/// What bash makes of a command line: its words, each followed by NUL.
fn words_of(line: &str) -> Vec<u8> {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("printf '%s\\0' {line}"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    out.stdout
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The rewritten line gives bash exactly the original command's bytes
    /// as the argument of `bash -c`, whatever the command holds.
    #[test]
    fn the_quoted_command_round_trips_through_bash(
        command in "(?s)[^\\x00]{0,80}",
        policy in "[^\\x00]{0,12}",
    ) {
        let line = sandboxed_command_line("toolgate", Some(&policy), None, &command).unwrap();
        let mut expected = Vec::new();
        for w in ["toolgate", "sandbox", "--policy", &policy, "--", "bash", "-c", &command] {
            expected.extend_from_slice(w.as_bytes());
            expected.push(0);
        }
        prop_assert_eq!(words_of(&line), expected);
    }

    /// Shell syntax in particular.
    #[test]
    fn shell_syntax_round_trips(command in proptest::collection::vec(
        prop::sample::select(vec!["'", "\"", "\\", "$(", ")", "`", "$HOME", "!", "*", ";", "&&", "|", "\n", " ", "#", "~", "{", "}", "\t", "é", "x"]),
        0..24,
    )) {
        let command = command.concat();
        let line = sandboxed_command_line("t", None, None, &command).unwrap();
        let mut expected = Vec::new();
        for w in ["t", "sandbox", "--", "bash", "-c", &command] {
            expected.extend_from_slice(w.as_bytes());
            expected.push(0);
        }
        prop_assert_eq!(words_of(&line), expected);
    }
}

/// A command started with [`Sandbox::spawn`] runs in a PID namespace of
/// its own, beneath an init that ends with it: what it leaves running
/// (`setsid ... &`) is killed when it ends, so it cannot go on writing the
/// roots or wait for a protected file to be replaced from outside. Its exit
/// code and its signal are what the caller's `wait` sees, and a program
/// that cannot be executed is still told from a sandbox that failed.
#[test]
fn what_a_spawned_command_leaves_running_ends_with_it() {
    use std::os::unix::process::ExitStatusExt;
    let (w, policy) = ws("allow = [\"Bash\"]\n");
    let sandbox = Sandbox::prepare(&Profile::from_policy(policy), &Options::default()).unwrap();
    let run = |script: &str| {
        let mut cmd = Command::new("bash");
        cmd.args(["-c", script]).current_dir(&w.root);
        sandbox.install(&mut cmd);
        sandbox.spawn(&mut cmd).unwrap().wait().unwrap()
    };
    let status = run(
        "setsid bash -c 'sleep 1; touch late' >/dev/null 2>&1 </dev/null & touch early; exit 3",
    );
    assert_eq!(status.code(), Some(3));
    assert!(w.root.join("early").exists());
    std::thread::sleep(std::time::Duration::from_millis(2500));
    assert!(
        !w.root.join("late").exists(),
        "the process left behind ran on"
    );
    // `$$` is the namespace's second process: the command, not its init.
    let status = run("kill -9 $$");
    assert_eq!(status.signal(), Some(9), "{status:?}");
    let status = run("echo $$ > pid");
    assert!(status.success());
    assert_eq!(
        std::fs::read_to_string(w.root.join("pid")).unwrap().trim(),
        "2"
    );
    let mut cmd = Command::new(w.root.join("no-such-program"));
    sandbox.install(&mut cmd);
    match sandbox.spawn(&mut cmd) {
        Err(toolgate_sandbox::SpawnError::Exec(e)) => {
            assert_eq!(e.kind(), std::io::ErrorKind::NotFound, "{e}")
        }
        other => panic!("{other:?}"),
    }
}

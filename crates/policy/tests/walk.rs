//! A recursive read or write that meets a directory it cannot read asks:
//! what lies there may be what a deny rule names.
//!
//! The directory is made unreadable for real (mode 000). Tests run as root
//! here, and root reads any directory through CAP_DAC_OVERRIDE and
//! CAP_DAC_READ_SEARCH, so the deciding thread drops those two from its
//! effective set first (capabilities are per thread on Linux; other tests'
//! threads keep theirs). Without root the mode alone does it.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::json;
use toolgate_policy::{Call, Decision, Effect, LoadOptions, Policy};

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: i32,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

const CAP_V3: u32 = 0x2008_0522;
const CAP_DAC_OVERRIDE: u32 = 1;
const CAP_DAC_READ_SEARCH: u32 = 2;

/// Drops the calling thread's permission overrides; panics when the
/// kernel refuses, so that the test never passes without them dropped.
fn drop_dac_override() {
    let mut hdr = CapHeader {
        version: CAP_V3,
        pid: 0,
    };
    let mut data = [CapData::default(); 2];
    // SAFETY: capget/capset with a version-3 header and two data words,
    // as capget(2) specifies; pid 0 is the calling thread.
    unsafe {
        assert_eq!(
            libc::syscall(libc::SYS_capget, &mut hdr, data.as_mut_ptr()),
            0
        );
        data[0].effective &= !((1 << CAP_DAC_OVERRIDE) | (1 << CAP_DAC_READ_SEARCH));
        assert_eq!(libc::syscall(libc::SYS_capset, &mut hdr, data.as_ptr()), 0);
    }
}

/// Decides `command` in a thread that cannot override file permissions.
fn decide_unprivileged(policy: &Policy, command: &str) -> Decision {
    std::thread::scope(|s| {
        s.spawn(|| {
            drop_dac_override();
            policy.decide(&Call::new("run_shell", json!({ "command": command })))
        })
        .join()
        .expect("deciding thread")
    })
}

fn workspace(rules: &str) -> (tempfile::TempDir, Policy) {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("README.md"), "# x\n").unwrap();
    std::fs::create_dir_all(root.join("locked/inner")).unwrap();
    std::fs::write(root.join("locked/inner/.env"), "KEY=1\n").unwrap();
    let file = root.join("toolgate.toml");
    std::fs::write(&file, rules).unwrap();
    let opts = LoadOptions {
        home: Some(root.join("home")),
        state_dir: Some(root.join("state")),
        ..LoadOptions::default()
    };
    let policy = Policy::load(&file, &opts).unwrap();
    (dir, policy)
}

fn lock(root: &Path, locked: bool) {
    let mode = if locked { 0o000 } else { 0o755 };
    std::fs::set_permissions(root.join("locked"), std::fs::Permissions::from_mode(mode)).unwrap();
}

const RULES: &str = "allow = [\"Read\", \"Edit\", \"Bash(grep *)\", \"Bash(rm *)\"]\ndeny = [\"Read(secrets/**)\"]\n";

#[test]
fn an_unreadable_directory_beneath_a_recursive_read_asks() {
    let (dir, policy) = workspace(RULES);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    // Readable: nothing there is denied, so the read is allowed.
    let d = decide_unprivileged(&policy, "grep -r KEY .");
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
    lock(&root, true);
    let d = decide_unprivileged(&policy, "grep -r KEY .");
    lock(&root, false);
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (Effect::Ask, None),
        "{}",
        d.reason
    );
    assert!(
        d.reason.contains("locked") && d.reason.contains("cannot be read"),
        "{}",
        d.reason
    );
}

#[test]
fn an_unreadable_directory_beneath_a_recursive_write_asks() {
    let (dir, policy) = workspace(RULES);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(root.join("out/locked")).unwrap();
    let d = decide_unprivileged(&policy, "rm -r out");
    assert_eq!(d.decision, Effect::Allow, "{}", d.reason);
    std::fs::set_permissions(
        root.join("out/locked"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();
    let d = decide_unprivileged(&policy, "rm -r out");
    std::fs::set_permissions(
        root.join("out/locked"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    assert_eq!(d.decision, Effect::Ask, "{}", d.reason);
}

#[test]
fn a_deny_found_elsewhere_still_denies() {
    let (dir, policy) = workspace(RULES);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(root.join("secrets")).unwrap();
    std::fs::write(root.join("secrets/k"), "k\n").unwrap();
    lock(&root, true);
    let d = decide_unprivileged(&policy, "grep -r KEY .");
    lock(&root, false);
    assert_eq!(d.decision, Effect::Deny, "{}", d.reason);
}

/// A write of a directory that holds the policy file, or a file of its
/// name (a policy to the directory it sits in), may replace it (`tar xf`,
/// `unzip -o`, `cp -r tpl/. .`, `git checkout -- .`): writing one directly
/// is a hard limit, so this asks, whatever the allow rules say.
#[test]
fn a_recursive_write_over_a_policy_file_asks() {
    let rules = "allow = [\"Read\", \"Edit\", \"Bash(tar *)\", \"Bash(unzip *)\", \"Bash(cp *)\", \"Bash(git *)\"]\n";
    let (dir, policy) = workspace(rules);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(root.join("sub/docs")).unwrap();
    std::fs::write(root.join("sub/docs/toolgate.toml"), "deny = [\"Read\"]\n").unwrap();
    std::fs::create_dir_all(root.join("tpl")).unwrap();
    std::fs::create_dir_all(root.join("out")).unwrap();
    let decide = |cmd: &str| policy.decide(&Call::new("run_shell", json!({ "command": cmd })));
    for cmd in [
        "tar xf a.tar",
        "unzip -o t.zip",
        "cp -r tpl/. .",
        "git checkout other -- .",
        "tar xf a.tar -C sub",
    ] {
        let d = decide(cmd);
        assert_eq!(
            (d.decision, d.rule.as_deref()),
            (Effect::Ask, Some("hard:policy-file")),
            "{cmd}: {}",
            d.reason
        );
        assert!(d.reason.contains("toolgate.toml"), "{cmd}: {}", d.reason);
    }
    for cmd in ["tar xf a.tar -C out", "cp -r tpl/. out"] {
        let d = decide(cmd);
        assert_eq!(d.decision, Effect::Allow, "{cmd}: {}", d.reason);
    }
}

//! Layered policies on real files: managed (ownership and mode checked),
//! user and project, merged; trust bound to the project file's digest;
//! `lint` findings.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::json;
use toolgate_policy::layers::{self, Layer, Layering};
use toolgate_policy::{Call, Decision, Effect, LoadOptions, Mode, Policy, lint};

struct Fx {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    managed: PathBuf,
    user: PathBuf,
}

impl Fx {
    fn new() -> Fx {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("project");
        let home = base.join("home");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(home.join(".config/toolgate")).unwrap();
        std::fs::create_dir_all(base.join("etc")).unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}").unwrap();
        Fx {
            managed: base.join("etc/toolgate.toml"),
            user: home.join(".config/toolgate/toolgate.toml"),
            _tmp: tmp,
            root,
            home,
        }
    }

    fn project(&self, text: &str) -> &Fx {
        std::fs::write(self.root.join("toolgate.toml"), text).unwrap();
        self
    }

    fn user(&self, text: &str) -> &Fx {
        std::fs::write(&self.user, text).unwrap();
        self
    }

    /// A managed file as an administrator installs it: root-owned (the
    /// tests run as root), mode 0644.
    fn managed(&self, text: &str) -> &Fx {
        std::fs::write(&self.managed, text).unwrap();
        std::fs::set_permissions(&self.managed, std::fs::Permissions::from_mode(0o644)).unwrap();
        self
    }

    fn opts(&self) -> LoadOptions {
        LoadOptions {
            workspace: None,
            home: Some(self.home.clone()),
            state_dir: Some(self.home.join(".local/state/toolgate")),
        }
    }

    /// Loads the layers; `trusted` is the digest the trust store holds for
    /// the project file, if any.
    fn load(&self, trusted: Option<&str>) -> Result<Policy, String> {
        let check = |_db: Option<&str>, _file: &Path, digest: &str| Ok(Some(digest) == trusted);
        let layering = Layering {
            managed: self.managed.clone(),
            user: Some(self.user.clone()),
            trust: Some(&check),
            anchor: None,
            project_seen: None,
        };
        layers::discover(None, &self.root, &self.opts(), &layering).map_err(|e| e.to_string())
    }

    fn digest(&self) -> String {
        layers::digest(&std::fs::read(self.root.join("toolgate.toml")).unwrap())
    }
}

fn bash(p: &Policy, command: &str) -> Decision {
    p.decide(&Call::new("run_shell", json!({ "command": command })))
}

fn read(p: &Policy, path: &str) -> Decision {
    p.decide(&Call::new("read_file", json!({ "path": path })))
}

#[track_caller]
fn expect(d: &Decision, effect: Effect, rule: Option<&str>) {
    assert_eq!(
        (d.decision, d.rule.as_deref()),
        (effect, rule),
        "reason: {}",
        d.reason
    );
}

#[test]
fn a_project_alone_is_read_as_before() {
    let fx = Fx::new();
    fx.project("allow = [\"Bash(git status)\"]\n");
    let p = fx.load(None).unwrap();
    assert!(p.layers().is_none());
    expect(&bash(&p, "git status"), Effect::Allow, Some("allow[0]"));
}

#[test]
fn an_untrusted_projects_allows_wait_but_its_denies_apply_at_once() {
    let fx = Fx::new();
    fx.user("allow = [\"Bash(ls)\"]\n")
        .project("allow = [\"Bash(git status)\"]\ndeny = [\"Bash(git push *)\"]\n");
    let p = fx.load(None).unwrap();
    expect(&bash(&p, "git status"), Effect::Deny, None);
    expect(&bash(&p, "git push origin"), Effect::Deny, Some("deny[0]"));
    expect(&bash(&p, "ls"), Effect::Allow, Some("user:allow[0]"));

    let layers = p.layers().unwrap();
    let project = layers
        .files
        .iter()
        .find(|f| f.layer == Layer::Project)
        .unwrap();
    assert_eq!(project.trusted, Some(false));
    let waiting: Vec<_> = layers.inactive().collect();
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].id, "allow[0]");
    assert_eq!(waiting[0].line, 1);
    assert!(waiting[0].file.ends_with("project/toolgate.toml"));
    assert!(
        waiting[0]
            .inactive
            .as_deref()
            .unwrap()
            .contains("toolgate trust")
    );
}

#[test]
fn trust_is_bound_to_the_files_content() {
    let fx = Fx::new();
    fx.user("")
        .project("[policy]\nmode = \"accept-edits\"\nallow = [\"Bash(git status)\"]\n");
    let digest = fx.digest();
    let p = fx.load(Some(&digest)).unwrap();
    expect(&bash(&p, "git status"), Effect::Allow, Some("allow[0]"));
    assert_eq!(p.mode(), Mode::AcceptEdits);

    // Edited after it was trusted: untrusted again, mode included.
    fx.project(
        "[policy]\nmode = \"accept-edits\"\nallow = [\"Bash(git status)\", \"Bash(curl *)\"]\n",
    );
    let p = fx.load(Some(&digest)).unwrap();
    expect(&bash(&p, "git status"), Effect::Deny, None);
    assert_eq!(p.mode(), Mode::Default);
}

#[test]
fn a_managed_deny_is_final_and_its_lock_holds() {
    let fx = Fx::new();
    fx.managed(
        "[policy]\nlock = [\"mode\", \"default\"]\ndeny = [\"Bash(curl *)\"]\nask = [\"Read(.env)\"]\n",
    )
    .user("[policy]\ndefault = \"ask\"\n")
    .project("[policy]\nmode = \"bypass\"\ndefault = \"ask\"\nallow = [\"Bash(curl *)\", \"Read\"]\n");
    let p = fx.load(Some(&fx.digest())).unwrap();
    expect(
        &bash(&p, "curl https://x.test"),
        Effect::Deny,
        Some("managed:deny[0]"),
    );
    expect(&read(&p, ".env"), Effect::Ask, Some("managed:ask[0]"));
    expect(&read(&p, "src/main.rs"), Effect::Allow, Some("allow[1]"));
    assert_eq!(p.mode(), Mode::Default, "the lock keeps bypass out");
    assert_eq!(
        p.default_effect(),
        Effect::Deny,
        "the lock keeps the default"
    );
    let notes = &p.layers().unwrap().notes;
    assert!(
        notes.iter().any(|n| n.contains("locks `mode`")),
        "{notes:?}"
    );
}

#[test]
fn locking_bypass_still_lets_a_stricter_mode_through() {
    let fx = Fx::new();
    fx.managed("[policy]\nlock = [\"bypass\"]\n")
        .user("[policy]\nmode = \"bypass\"\n")
        .project("[policy]\nmode = \"plan\"\n");
    assert_eq!(fx.load(Some(&fx.digest())).unwrap().mode(), Mode::Plan);
    fx.project("");
    assert_eq!(fx.load(Some(&fx.digest())).unwrap().mode(), Mode::Default);
}

#[test]
fn scalars_go_managed_then_project_then_user() {
    let fx = Fx::new();
    fx.user("[policy]\ndefault = \"ask\"\n").project("");
    assert_eq!(fx.load(None).unwrap().default_effect(), Effect::Ask);
    fx.managed("[policy]\ndefault = \"deny\"\n");
    assert_eq!(fx.load(None).unwrap().default_effect(), Effect::Deny);
}

#[test]
fn a_writable_managed_file_is_ignored_with_a_warning() {
    let fx = Fx::new();
    fx.managed("deny = [\"Bash(ls)\"]\n")
        .project("allow = [\"Bash(ls)\"]\n");
    let honoured = fx.load(None).unwrap();
    expect(
        &bash(&honoured, "ls"),
        Effect::Deny,
        Some("managed:deny[0]"),
    );

    std::fs::set_permissions(&fx.managed, std::fs::Permissions::from_mode(0o664)).unwrap();
    let p = fx.load(None).unwrap();
    // Only the project is left, read alone as before layers.
    expect(&bash(&p, "ls"), Effect::Allow, Some("allow[0]"));
    let notes = &p.layers().unwrap().notes;
    assert!(
        notes
            .iter()
            .any(|n| n.contains("ignored") && n.contains("writable")),
        "{notes:?}"
    );

    std::fs::set_permissions(&fx.managed, std::fs::Permissions::from_mode(0o646)).unwrap();
    assert!(fx.load(None).unwrap().layers().unwrap().notes[0].contains("writable"));
}

#[test]
fn lock_outside_the_managed_layer_and_reserved_ids_are_errors() {
    let fx = Fx::new();
    fx.user("[policy]\nlock = [\"mode\"]\n").project("");
    let err = fx.load(None).unwrap_err();
    assert!(err.contains("managed policy only"), "{err}");

    fx.user("")
        .project("[[rule]]\nid = \"managed:x\"\neffect = \"deny\"\nmatch = [\"Bash\"]\n");
    let err = fx.load(None).unwrap_err();
    assert!(err.contains("reserved"), "{err}");
}

#[test]
fn the_projects_database_is_ignored_and_the_users_names_the_store() {
    let fx = Fx::new();
    fx.user("[state]\ndatabase = \"postgres://team@db/toolgate\"\n")
        .project("[state]\ndatabase = \"postgres://attacker@evil/x\"\n");
    let seen = std::cell::RefCell::new(None);
    let check = |db: Option<&str>, _: &Path, _: &str| {
        *seen.borrow_mut() = db.map(str::to_owned);
        Ok(false)
    };
    let layering = Layering {
        managed: fx.managed.clone(),
        user: Some(fx.user.clone()),
        trust: Some(&check),
        anchor: None,
        project_seen: None,
    };
    let p = layers::discover(None, &fx.root, &fx.opts(), &layering).unwrap();
    assert_eq!(p.database(), Some("postgres://team@db/toolgate"));
    assert_eq!(
        seen.borrow().as_deref(),
        Some("postgres://team@db/toolgate")
    );
}

#[test]
fn the_layer_files_are_protected() {
    let fx = Fx::new();
    fx.user("allow = [\"Edit\"]\n").project("");
    let p = fx.load(Some(&fx.digest())).unwrap();
    let d = p.decide(&Call::new(
        "write_file",
        json!({"path": fx.user.display().to_string(), "content": "allow = [\"*\"]"}),
    ));
    assert_ne!(d.decision, Effect::Allow, "{}", d.reason);
}

#[test]
fn lint_finds_blanket_shadowed_and_unmatchable_rules() {
    let fx = Fx::new();
    fx.project(
        "ask = [\"Bash\"]\nallow = [\"Bash(git status)\", \"Read(.env)\", \"Frobnicate\", \"Read(//opt/elsewhere/**)\"]\ndeny = [\"Read(.env)\"]\n",
    );
    let p = Policy::load(&fx.root.join("toolgate.toml"), &fx.opts()).unwrap();
    let warnings = lint(&p);
    let about = |id: &str, what: &str| {
        warnings
            .iter()
            .any(|w| w.rule == id && w.message.contains(what))
    };
    assert!(about("ask[0]", "blanket"), "{warnings:#?}");
    assert!(about("allow[1]", "shadowed"), "{warnings:#?}");
    assert!(about("allow[2]", "never match"), "{warnings:#?}");
    assert!(about("allow[3]", "outside every root"), "{warnings:#?}");
    assert!(
        !warnings.iter().any(|w| w.rule == "deny[0]"),
        "{warnings:#?}"
    );
}

impl Fx {
    /// Loads the layers for a call made from `cwd`, the project found from
    /// `anchor`.
    fn load_from(&self, anchor: &Path, cwd: &Path, trusted: Option<&str>) -> Policy {
        let check = |_db: Option<&str>, _file: &Path, digest: &str| Ok(Some(digest) == trusted);
        let layering = Layering {
            managed: self.managed.clone(),
            user: Some(self.user.clone()),
            trust: Some(&check),
            anchor: Some(anchor.to_path_buf()),
            project_seen: None,
        };
        layers::discover(None, cwd, &self.opts(), &layering).unwrap()
    }
}

#[test]
fn a_file_below_the_anchor_only_tightens() {
    let fx = Fx::new();
    fx.project("allow = [\"Bash(git status)\"]\ndeny = [\"Bash(rm *)\"]\n");
    let docs = fx.root.join("src");
    std::fs::write(
        docs.join("toolgate.toml"),
        "allow = [\"*\", \"Bash(rm *)\"]\ndeny = [\"Bash(git status)\"]\n[policy]\nmode = \"bypass\"\nroots = [\"/\"]\n",
    )
    .unwrap();
    // Alone (no managed or user file), and with a user file.
    for with_user in [false, true] {
        if with_user {
            fx.user("ask = [\"Bash(ls)\"]\n");
        }
        let p = fx.load_from(&fx.root, &docs, Some(&fx.digest()));
        expect(&bash(&p, "rm x"), Effect::Deny, Some("deny[0]"));
        let d = bash(&p, "git status");
        assert_eq!(d.decision, Effect::Deny, "{}", d.reason);
        assert!(
            d.rule.as_deref().is_some_and(|r| r.starts_with("nested:")),
            "{:?}",
            d.rule
        );
        assert_eq!(p.mode(), Mode::Default, "a nested mode does not apply");
        assert_eq!(
            p.roots(),
            std::slice::from_ref(&fx.root),
            "nested roots do not apply"
        );
        let layers = p.layers().expect("layers");
        let inactive: Vec<_> = layers
            .inactive()
            .filter(|o| o.layer == Layer::Nested)
            .collect();
        assert_eq!(inactive.len(), 2, "both nested allows are listed, inactive");
        // From the anchor itself the nested file has no say.
        let top = fx.load_from(&fx.root, &fx.root, Some(&fx.digest()));
        expect(&bash(&top, "git status"), Effect::Allow, Some("allow[0]"));
    }
}

#[test]
fn the_project_file_is_found_from_the_anchor_not_the_cwd() {
    let fx = Fx::new();
    fx.project("deny = [\"Bash(rm *)\"]\n");
    let elsewhere = fx.root.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(
        elsewhere.join("toolgate.toml"),
        "allow = [\"Bash(rm *)\"]\n",
    )
    .unwrap();
    // A cwd outside the anchor: its files have no say at all.
    let p = fx.load_from(&fx.root, &elsewhere, None);
    assert_eq!(p.file(), Some(fx.root.join("toolgate.toml").as_path()));
    expect(&bash(&p, "rm x"), Effect::Deny, Some("deny[0]"));
}

#[test]
fn writing_any_toolgate_toml_is_a_hard_limit() {
    let fx = Fx::new();
    fx.project("allow = [\"Edit\", \"Write\", \"Bash\"]\n");
    let p = fx.load(None).unwrap();
    for (tool, input) in [
        (
            "write_file",
            json!({"path": "src/toolgate.toml", "content": "allow = [\"*\"]"}),
        ),
        (
            "write_file",
            json!({"path": "new/dir/toolgate.toml", "content": ""}),
        ),
    ] {
        let d = p.decide(&Call::new(tool, input.clone()));
        expect(&d, Effect::Deny, Some("hard:policy-file"));
    }
    for cmd in [
        "echo x > src/toolgate.toml",
        "cp src/main.rs toolgate.toml",
        "mv src/main.rs src/toolgate.toml",
        "tee -a src/toolgate.toml < src/main.rs",
        // The same file on a case-insensitive file system.
        "mv src/main.rs src/TOOLGATE.toml",
        "echo x > docs/Toolgate.TOML",
        // Names `split` and `csplit` make from a prefix: the fifth piece
        // of `split -n5 -a1 --additional-suffix=.toml F src/toolgat` is
        // `src/toolgate.toml`, and `csplit -b 'l%.0d'` ends the name as
        // it likes (both shown with the real programs below).
        "split -n5 -a1 --additional-suffix=.toml src/main.rs src/toolgat",
        "split -a1 --additional-suffix=.TOML src/main.rs src/ToolGat",
        "csplit -s -f src/toolgate.tom -b l%.0d src/main.rs 1",
        "csplit --prefix=toolgate --suffix-format=.toml%.0d src/main.rs 1",
    ] {
        let d = bash(&p, cmd);
        assert_eq!(d.decision, Effect::Deny, "{cmd}: {}", d.reason);
        assert!(d.hard, "{cmd}: {}", d.reason);
    }
    // Other prefixes and endings cannot make the name.
    for cmd in [
        "split -n5 src/main.rs src/part",
        "split --additional-suffix=.txt src/main.rs src/toolgat",
        "csplit -f src/toolgate.tom src/main.rs 1",
    ] {
        let d = bash(&p, cmd);
        assert!(!d.hard, "{cmd}: {}", d.reason);
    }
    // The real programs do make the name.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("in"), "1\n2\n3\n4\n5\n").unwrap();
    for (cmd, made) in [
        (
            "split -n5 -a1 --additional-suffix=.toml in a/toolgat",
            "a/toolgate.toml",
        ),
        (
            "csplit -s -f b/toolgate.tom -b 'l%.0d' in 3",
            "b/toolgate.toml",
        ),
    ] {
        std::fs::create_dir_all(dir.path().join(&made[..1])).unwrap();
        let ran = std::process::Command::new("bash")
            .arg("-c")
            .arg(cmd)
            .current_dir(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        if ran {
            assert!(dir.path().join(made).exists(), "{cmd} did not write {made}");
        } else {
            assert!(
                std::env::var("CI").map_or(true, |v| v != "true"),
                "{cmd} failed to run under CI"
            );
            eprintln!("skipped: `{cmd}` could not be run here");
        }
    }
}

#[test]
fn an_untrusted_projects_default_only_tightens() {
    let fx = Fx::new();
    fx.user("allow = [\"Bash(git status)\"]\n");
    fx.project("[policy]\ndefault = \"ask\"\n");
    let p = fx.load(None).unwrap();
    expect(&bash(&p, "make deploy"), Effect::Deny, None);
    assert!(
        p.layers()
            .is_some_and(|l| l.notes.iter().any(|n| n.contains("default = \"ask\""))),
        "no note says why"
    );
    // Trusted, it applies.
    let p = fx.load(Some(&fx.digest())).unwrap();
    expect(&bash(&p, "make deploy"), Effect::Ask, None);
}

#[test]
fn a_project_file_changed_in_the_session_is_merged_untrusted_even_alone() {
    let fx = Fx::new();
    fx.project("allow = [\"Bash(*)\"]\ndeny = [\"Bash(rm *)\"]\n");
    let check = |_db: Option<&str>, _file: &Path, _digest: &str| Ok(false);
    let changed = |_: Option<&Path>, _: Option<&[u8]>| true;
    let layering = Layering {
        managed: fx.managed.clone(),
        user: None,
        trust: Some(&check),
        anchor: None,
        project_seen: Some(&changed),
    };
    let p = layers::discover(None, &fx.root, &fx.opts(), &layering).unwrap();
    expect(&bash(&p, "rm x"), Effect::Deny, Some("deny[0]"));
    assert_ne!(bash(&p, "make deploy").decision, Effect::Allow);
}

/// The session's check and the policy compiled see the same bytes: a file
/// swapped between the check and the compile (an agent's command racing
/// the hook) is not what is honoured.
#[test]
fn the_project_file_checked_is_the_file_compiled() {
    let fx = Fx::new();
    let file = fx.root.join("toolgate.toml");
    let checked = "deny = [\"Bash(rm *)\"]\n";
    fx.project(checked);
    let seen = std::cell::RefCell::new(Vec::new());
    let unchanged = |path: Option<&Path>, bytes: Option<&[u8]>| {
        assert_eq!(path, Some(file.as_path()));
        seen.borrow_mut().push(bytes.map(<[u8]>::to_vec));
        // What the agent writes once the check has passed.
        std::fs::write(&file, "allow = [\"Bash(*)\"]\n").unwrap();
        false
    };
    let layering = Layering {
        managed: fx.managed.clone(),
        user: None,
        trust: None,
        anchor: None,
        project_seen: Some(&unchanged),
    };
    let p = layers::discover(None, &fx.root, &fx.opts(), &layering).unwrap();
    assert_eq!(*seen.borrow(), vec![Some(checked.as_bytes().to_vec())]);
    expect(&bash(&p, "rm x"), Effect::Deny, Some("deny[0]"));
    assert_ne!(bash(&p, "make deploy").decision, Effect::Allow);
}

//! Paths made earlier in the same script: a later path resolves through
//! the link or move an earlier command makes, or is unknown. Each case is
//! proved against bash: the secret's content printed (or a marker written
//! into the secret directory) shows that the real program followed it.

use toolgate_shell::{EffectKind, Options, analyze};

use crate::real::{Scratch, have};

fn opts(s: &Scratch) -> Options {
    Options {
        cwd: Some(s.join("ws")),
        home: Some(s.join("home")),
        ..Options::default()
    }
}

const SETUP: &str = "mkdir -p ws/secrets ws/src home/.ssh && echo SECRET > ws/.env \
    && echo KEY > ws/secrets/k.pem && echo ID > home/.ssh/id_rsa && cd ws";

/// (script, the path it touches through what it made, whether a write)
const CASES: &[(&str, &str, bool)] = &[
    ("ln -s .env x; cat x", "ws/.env", false),
    ("mv .env notes.txt && cat notes.txt", "ws/.env", false),
    ("ln -s secrets s && cat s/k.pem", "ws/secrets/k.pem", false),
    ("ln -s secrets s && cat s/../.env", "ws/.env", false),
    ("mkdir d && ln -s ../.env d/a && cat d/a", "ws/.env", false),
    ("mkdir d && mv .env d && cat d/.env", "ws/.env", false),
    (
        "ln -s @D/home/.ssh k; echo x >> k/authorized_keys; cat k/authorized_keys",
        "home/.ssh/authorized_keys",
        true,
    ),
    (
        "ln -s secrets s; cd s; echo x >> k.pem; cat k.pem",
        "ws/secrets/k.pem",
        true,
    ),
    ("ln .env h; cat h", "ws/.env", false),
    ("cp -s @D/ws/.env c; cat c", "ws/.env", false),
    ("ln -s .env a; ln -s a b; cat b", "ws/.env", false),
    ("mv secrets s2 && cat s2/k.pem", "ws/secrets/k.pem", false),
    (
        "mkdir d; ln -s ../secrets d/l; mv d e; cat e/l/k.pem",
        "ws/secrets/k.pem",
        false,
    ),
];

fn touches(s: &Scratch, script: &str, target: &str, write: bool) -> bool {
    let a = analyze(&s.fill(script), &opts(s));
    let want = s.join(target);
    a.effects.iter().any(|e| {
        let p = if e.target.starts_with('/') {
            std::path::PathBuf::from(&e.target)
        } else {
            e.cwd
                .clone()
                .unwrap_or_else(|| s.join("ws"))
                .join(&e.target)
        };
        p == want && (!write || e.kind == EffectKind::Write)
    })
}

#[test]
fn later_paths_resolve_through_what_earlier_commands_made() {
    let s = Scratch::new();
    for (script, target, write) in CASES {
        assert!(touches(&s, script, target, *write), "{script}: {target}");
    }
}

#[test]
fn bash_follows_what_earlier_commands_made() {
    if !have("bash") {
        return;
    }
    for (script, _, write) in CASES {
        let s = Scratch::new();
        let out = s.run(SETUP, script);
        let shown = ["SECRET", "KEY", "ID", "x"].iter().any(|m| out.contains(m));
        assert!(shown, "{script}: bash printed {out:?}");
        if *write {
            assert!(out.contains('x'), "{script}: {out:?}");
        }
    }
}

/// Trees whose contents are not known make later paths beneath them unknown.
#[test]
fn unknown_trees_make_later_paths_unknown() {
    let s = Scratch::new();
    for script in [
        "tar xf a.tar && cat x",
        "tar -C out -xf a.tar; cat out/x",
        "unzip -d out a.zip && cat out/x",
        "git checkout other && cat README.md",
        "git worktree add w main && cat w/f.txt",
        "cp -r src s2 && cat s2/main.rs",
        "rename s/a/b/ a.txt; cat b.txt",
        "ln -s .env \"$(date)\"; cat x",
        "mv .env \"$N\"; cat x",
        "mount --bind secrets a; cat a/k.pem",
        "mount -o bind secrets a && cat a/k.pem",
        "cd src && mount --target ../a -B ../secrets; cat ../a/k.pem",
        "bindfs secrets a; cat a/k.pem",
        "mount -a; cat a/k.pem",
        "sshfs host:/ a; cat a/etc/passwd",
    ] {
        let a = analyze(script, &opts(&s));
        assert!(!a.unknowns.is_empty(), "{script}: {a:?}");
    }
    // Nothing made: nothing unknown.
    for script in [
        "cat x && ls src",
        "mount | grep tmp; cat x",
        "mount --bind a b; cat x",
    ] {
        let a = analyze(script, &opts(&s));
        assert!(a.unknowns.is_empty(), "{script}: {a:?}");
    }
}

/// Moving a directory writes, removes and reads everything beneath it.
#[test]
fn moving_a_directory_is_recursive() {
    let s = Scratch::new();
    let a = analyze("mv secrets s2", &opts(&s));
    let src: Vec<_> = a.effects.iter().filter(|e| e.target == "secrets").collect();
    assert!(
        src.iter()
            .any(|e| e.kind == EffectKind::Write && e.delete && e.recursive)
    );
    assert!(
        src.iter()
            .any(|e| e.kind == EffectKind::Read && e.recursive)
    );
    assert!(
        a.effects
            .iter()
            .any(|e| e.target == "s2" && e.kind == EffectKind::Write && e.recursive)
    );
}

/// A symbolic link's target is named from the link's directory: `ln -s
/// ../.env d/a` points at the workspace's `.env`, not at a file beside the
/// workspace. What it points at is checked from there, in both readings of
/// DEST (the link itself, or a directory that gets it).
#[test]
fn a_link_target_is_read_from_the_links_directory() {
    let s = Scratch::new();
    let reads = |script: &str| -> Vec<String> {
        analyze(script, &opts(&s))
            .effects
            .iter()
            .filter(|e| e.kind == EffectKind::Read)
            .map(|e| e.target.clone())
            .collect()
    };
    let r = reads("mkdir d && ln -s ../.env d/a");
    assert!(r.contains(&"d/../.env".to_string()), "{r:?}");
    assert!(r.contains(&"d/a/../.env".to_string()), "{r:?}");
    assert!(!r.contains(&"../.env".to_string()), "{r:?}");
    let r = reads("ln -sT ../.env d/a");
    assert_eq!(r, ["d/../.env"]);
    let r = reads("ln -s -t d ../.env ../x");
    assert_eq!(r, ["d/../.env", "d/../x"]);
    let r = reads("ln -s ../.env");
    assert_eq!(r, ["../.env"]);
    // An absolute target, a relative link (`-r`) and a hard link name the
    // file from the working directory, as before.
    assert_eq!(reads("ln -s /etc/hosts d/h"), ["/etc/hosts"]);
    assert_eq!(reads("ln -sr .env d/a"), [".env"]);
    assert_eq!(reads("ln .env d/a"), [".env"]);
}

/// A program or script an earlier part of the same command writes is
/// code not known when the command is decided (it does not exist yet, so
/// no check of it on disk can see it): unknown. Proved in bash: each runs
/// the `touch P` it was given.
#[test]
fn a_program_an_earlier_part_writes_is_unknown() {
    let runs = [
        "printf 'touch P' > t.sh; bash t.sh",
        "printf 'touch P' > t.sh; sh ./t.sh",
        "printf 'touch P' > t.sh && chmod +x t.sh && ./t.sh",
        "echo 'touch P' | tee t.sh >/dev/null; . ./t.sh",
        "printf 'touch P' > t.sh; source t.sh",
        "mkdir -p d && printf 'touch P' > d/t.sh; cd d && bash ../d/t.sh; cd ..; mv d/P P",
        "printf 'open(\"P\", \"w\")' > t.py; python3 t.py",
        "printf 'touch P' > t.sh; cp t.sh u.sh; bash u.sh",
    ];
    let s = Scratch::new();
    for script in runs {
        let a = analyze(script, &opts(&s));
        assert!(
            a.unknowns.iter().any(|u| u.reason.contains("earlier part")),
            "{script}: {:?}",
            a.unknowns
        );
        if have("bash") && have("python3") {
            let s = Scratch::new();
            s.run("mkdir ws && cd ws", script);
            assert!(s.join("ws/P").exists(), "{script}: bash did not run it");
        }
    }
    for script in [
        "printf x > data.txt; python3 tool.py data.txt",
        "echo hi > out.txt; cat out.txt",
        "bash t.sh",
        "printf 'print(1)' > t.py; python3 -c 'print(2)' t.py",
    ] {
        let a = analyze(script, &opts(&s));
        assert!(
            !a.unknowns.iter().any(|u| u.reason.contains("earlier part")),
            "{script}: {:?}",
            a.unknowns
        );
    }
}

/// A bind mount shows another tree at the mount point: proved in a user
/// and mount namespace of its own (nothing stays mounted), where the
/// kernel allows one.
#[test]
fn a_mount_point_shows_another_tree() {
    let script = "mkdir a && mount --bind secrets a && cat a/k.pem";
    let s = Scratch::new();
    let a = analyze(script, &opts(&s));
    assert!(
        a.unknowns.iter().any(|u| u.reason.contains("a/k.pem")),
        "{a:?}"
    );
    let probe = std::process::Command::new("unshare")
        .args(["-rm", "true"])
        .status();
    if !probe.is_ok_and(|st| st.success()) {
        eprintln!("skipped the real mount: no user namespaces here");
        return;
    }
    let out = s.run(SETUP, &format!("unshare -rm sh -c '{script}'"));
    assert!(out.contains("KEY"), "the mount showed {out:?}");
}

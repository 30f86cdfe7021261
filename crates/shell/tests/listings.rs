//! Listings: `ls`, `stat`, `du`, `tree` and the directories `find` and `fd`
//! walk read names, sizes, modes and times, never a file's bytes. Their
//! reads are marked `listing` (the policy does not bound them by the read
//! roots); what reads bytes (`cat`, `-exec cat`, `tree --fromfile`,
//! `tree --hintro`, `eza`, whose configuration is not tabled) is not.
//!
//! Proven against the real programs with a FIFO: opening one for reading
//! blocks until something writes to it, so a program that reads the bytes
//! of what it is given does not finish, and one that lists does.

use toolgate_shell::{Analysis, EffectKind, Options, analyze};

use crate::real::{Scratch, have};

fn opts() -> Options {
    Options {
        cwd: Some("/w".into()),
        home: Some("/home/u".into()),
        ..Options::default()
    }
}

/// The reads of `cmd`: `(target, listing)`.
fn reads(a: &Analysis) -> Vec<(String, bool)> {
    a.effects
        .iter()
        .filter(|e| e.kind == EffectKind::Read)
        .map(|e| (e.target.clone(), e.listing))
        .collect()
}

#[track_caller]
fn listed(cmd: &str, targets: &[&str]) {
    let a = analyze(cmd, &opts());
    let got = reads(&a);
    for t in targets {
        assert!(
            got.iter().any(|(g, l)| g == t && *l),
            "`{cmd}`: `{t}` should be a listing: {got:?}"
        );
        assert!(
            !got.iter().any(|(g, l)| g == t && !*l),
            "`{cmd}`: `{t}` should not be read: {got:?}"
        );
    }
}

#[track_caller]
fn read(cmd: &str, target: &str) {
    let a = analyze(cmd, &opts());
    let got = reads(&a);
    assert!(
        got.iter().any(|(g, l)| g == target && !*l),
        "`{cmd}`: `{target}` should be read, not only listed: {got:?}"
    );
}

#[test]
fn listings_are_marked() {
    listed("ls -l /srv/data", &["/srv/data"]);
    listed("ls -la /srv/a /srv/b", &["/srv/a", "/srv/b"]);
    listed("dir /srv", &["/srv"]);
    listed("stat -c %s /srv/f", &["/srv/f"]);
    listed("du -sh /srv", &["/srv"]);
    listed("tree -L 2 /srv", &["/srv"]);
    listed("find / -name needle -print -quit", &["/"]);
    listed("find /srv /opt/x -type f", &["/srv", "/opt/x"]);
    listed("fd -e rs x /srv", &["/srv"]);
    listed("rg --files /srv", &["/srv"]);
    listed("rg --files -g '*.rs'", &["."]);
    // What find prints, handed to a listing, is listed too.
    listed("find /srv -type f -exec ls -l {} +", &["/srv"]);
}

#[test]
fn what_reads_bytes_is_not_a_listing() {
    read("cat /srv/f", "/srv/f");
    read("find /srv -type f -exec cat {} +", "/srv");
    read("find /srv -type f | xargs cat", "/srv");
    // `--files-with-matches` reads to match; ripgrep takes no abbreviation.
    read("rg --files-with-matches x /srv", "/srv");
    read("rg --fil x /srv", "/srv");
    // `--fromfile` prints the paths its operand holds; `--hintro` and
    // `--houtro` copy a file into the output; `--gitfile` reads patterns.
    read("tree --fromfile /srv/list", "/srv/list");
    read("tree --hintro /srv/intro.html -H x .", "/srv/intro.html");
    read("tree --houtro=/srv/outro.html -H x .", "/srv/outro.html");
    read("tree --gitfile /srv/ignore .", "/srv/ignore");
    read("tree --info /srv", "/srv");
    read("du --files0-from=/srv/list", "/srv/list");
    read("du -X /srv/patterns .", "/srv/patterns");
    // eza's and lsd's configuration and git integration are not tabled.
    read("eza -l /srv", "/srv");
    read("lsd /srv", "/srv");
    // A redirect reads bytes whatever the command.
    read("ls < /srv/f", "/srv/f");
}

#[test]
fn listings_do_not_read_bytes_in_the_real_programs() {
    if !have("bash") || !have("mkfifo") {
        return;
    }
    let s = Scratch::new();
    let setup = "mkdir -p @D/d && mkfifo @D/d/p";
    // The proof itself: a program that reads the FIFO does not finish.
    let out = s.run(setup, "timeout 2 cat @D/d/p; echo rc=$?");
    assert_eq!(out.trim(), "rc=124", "a reader of the FIFO blocks");
    let mut cmds = vec![
        "ls -l @D/d/p",
        "ls -laR @D/d",
        "stat @D/d/p",
        "stat -c '%s %n' @D/d/p",
        "du -a @D/d",
        "find @D/d -name p",
        "find @D/d -type p -exec ls -l {} +",
        "find @D/d -type p -exec stat {} \\;",
    ];
    if have("tree") {
        cmds.extend(["tree @D/d", "tree -s -p @D/d"]);
    }
    for cmd in cmds {
        let a = analyze(&s.fill(cmd), &opts());
        assert!(
            a.effects
                .iter()
                .filter(|e| e.kind == EffectKind::Read)
                .all(|e| e.listing),
            "`{cmd}`: every read is a listing: {:?}",
            reads(&a)
        );
        let out = s.run(setup, &format!("timeout 5 {cmd} >/dev/null; echo rc=$?"));
        assert_eq!(out.trim(), "rc=0", "`{cmd}` lists without reading the FIFO");
    }
}

//! The files a recursive read reaches, against the real programs: each
//! command runs in a scratch tree where every file holds `KEY` and lists
//! the files it read (`grep -l`, `rg -l`); every file it lists must be
//! one the analysis says it may read, and `.env` must be left out where
//! the filters leave it out.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use toolgate_shell::{EffectKind, Filter, Options, analyze};

use crate::real::have;

const FILES: &[&str] = &[
    ".env",
    "a.rs",
    "x.txt",
    "src/b.rs",
    "src/.env",
    ".hid/c.rs",
    "node_modules/d.rs",
];

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in FILES {
        let p = dir.path().join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, "KEY\n").unwrap();
    }
    dir
}

/// The files beneath `dir` a filter reaches, relative to `base`.
fn reached(base: &Path, dir: &Path, filter: Option<&Filter>, out: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        // A file named as the target: itself.
        if let Ok(rel) = dir.strip_prefix(base) {
            out.insert(rel.to_string_lossy().into_owned());
        }
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        if path.is_dir() {
            if filter.is_none_or(|f| f.enters_dir(&name)) {
                reached(base, &path, filter, out);
            }
        } else if filter.is_none_or(|f| f.reaches_file(&name))
            && let Ok(rel) = path.strip_prefix(base)
        {
            out.insert(rel.to_string_lossy().into_owned());
        }
    }
}

/// What the analysis says `cmd` reads, as files of the tree.
fn predicted(base: &Path, cmd: &str) -> BTreeSet<String> {
    let opts = Options {
        cwd: Some(base.to_path_buf()),
        ..Options::default()
    };
    let a = analyze(cmd, &opts);
    assert!(a.unknowns.is_empty(), "{cmd}: {:?}", a.unknowns);
    let mut out = BTreeSet::new();
    for e in a
        .effects
        .iter()
        .filter(|e| e.kind == EffectKind::Read && !e.listing)
    {
        let target = base.join(&e.target);
        if e.recursive {
            reached(base, &target, e.filter.as_ref(), &mut out);
        } else if target.is_file() {
            out.insert(e.target.trim_start_matches("./").to_string());
        }
    }
    out
}

/// The files `cmd` lists when it runs in the tree.
fn listed(base: &Path, cmd: &str) -> BTreeSet<String> {
    let out = Command::new("bash")
        .arg("-c")
        .arg(cmd)
        .current_dir(base)
        .output()
        .expect("bash runs");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim_start_matches("./").to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[track_caller]
fn check(base: &Path, cmd: &str, run: &str, env_read: bool) {
    let want = predicted(base, cmd);
    let got = listed(base, run);
    assert!(
        got.is_subset(&want),
        "`{run}` read {got:?}, more than the analysis of `{cmd}` says: {want:?}"
    );
    assert_eq!(
        want.contains(".env"),
        env_read,
        "`{cmd}`: predicted {want:?}, read {got:?}"
    );
    assert_eq!(got.contains(".env"), env_read, "`{run}` read {got:?}");
}

#[test]
fn grep_filters_as_grep_reads_them() {
    if !have("grep") || !have("bash") {
        return;
    }
    let dir = tree();
    let base = dir.path();
    for (args, env_read) in [
        ("--include='*.rs'", false),
        ("--include='*.rs' --exclude='b*'", false),
        ("--exclude='*.rs'", true),
        ("--exclude='.env*'", false),
        ("--exclude-dir=src", true),
        ("--exclude=.env --include='.env*'", true),
        ("--include='*'", true),
        ("", true),
    ] {
        check(
            base,
            &format!("grep -r {args} KEY ."),
            &format!("grep -rl {args} KEY ."),
            env_read,
        );
    }
}

#[test]
fn ripgrep_filters_as_ripgrep_reads_them() {
    if !have("rg") || !have("bash") {
        return;
    }
    let dir = tree();
    let base = dir.path();
    for (args, env_read) in [
        ("", false),
        ("--hidden", true),
        ("-.", true),
        ("-u", false),
        ("-uu", true),
        ("--hidden --no-hidden", false),
        ("-g '*.rs'", false),
        ("-g .env", true),
        ("--iglob .ENV", true),
        ("-g '!*.rs'", false),
        ("-t rust", false),
        ("--type=rust -tmake", false),
        ("-Trust", false),
        ("-T rust --hidden", true),
        ("-g '*.rs' -t sh", false),
        ("--type-add 'x:*.rs' -tx", false),
        ("-tx --type-add 'x:.env'", true),
    ] {
        check(
            base,
            &format!("rg {args} KEY"),
            &format!("rg -l {args} KEY"),
            env_read,
        );
    }
    // A type that names a hidden file reads it (`-t sh`: `.bashrc`); the
    // analysis also counts `.env` for `sh`, which later ripgreps read.
    std::fs::write(base.join(".bashrc"), "KEY\n").unwrap();
    let want = predicted(base, "rg -t sh KEY");
    let got = listed(base, "rg -l -t sh KEY");
    assert!(got.contains(".bashrc"), "{got:?}");
    assert!(got.is_subset(&want), "read {got:?}, predicted {want:?}");
    assert!(want.contains(".env") && !want.contains("a.rs"), "{want:?}");
}

#[test]
fn find_selects_as_find_does() {
    if !have("find") || !have("bash") {
        return;
    }
    let dir = tree();
    let base = dir.path();
    for (expr, env_read) in [
        ("-name '*.rs'", false),
        ("-name '*.rs' -o -name '*.txt'", false),
        ("-type f -name '*.rs'", false),
        ("! -name '*.rs' -type f", true),
        ("-iname '*.ENV'", true),
        ("-name '*'", true),
    ] {
        check(
            base,
            &format!("find . {expr} -exec grep KEY {{}} +"),
            &format!("find . {expr} -exec grep -l KEY {{}} +"),
            env_read,
        );
        check(
            base,
            &format!("find . {expr} | xargs grep KEY"),
            &format!("find . {expr} | xargs grep -l KEY"),
            env_read,
        );
        check(
            base,
            &format!("grep KEY $(find . {expr})"),
            &format!("grep -l KEY $(find . {expr})"),
            env_read,
        );
    }
    // `-prune` is true, so with no action find prints `./src` too: taken
    // as maybe, the printed names reach everything (more than is read);
    // before an `-exec`, the `-o` leaves `.env` out.
    let expr = "-path ./src -prune -o -name '*.rs'";
    check(
        base,
        &format!("find . {expr} -exec grep KEY {{}} +"),
        &format!("find . {expr} -exec grep -l KEY {{}} +"),
        false,
    );
    let cmd = format!("find . {expr} | xargs grep KEY");
    let got = listed(base, &format!("find . {expr} | xargs grep -l KEY"));
    assert!(got.is_subset(&predicted(base, &cmd)) && !got.contains(".env"));
    // An action after `-o` gets what the test before it rejects.
    check(
        base,
        "find . -name '*.rs' -o -exec grep KEY {} +",
        "find . -name '*.rs' -o -type f -exec grep -l KEY {} +",
        true,
    );
}

#[test]
fn a_loop_over_a_glob_reads_its_matches() {
    if !have("bash") {
        return;
    }
    let dir = tree();
    let base = dir.path();
    check(
        base,
        "for f in *.rs src/*; do cat \"$f\"; done",
        "for f in *.rs src/*; do grep -l KEY \"$f\"; done",
        false,
    );
    check(
        base,
        "for f in .env *.txt; do cat \"$f\"; done",
        "for f in .env *.txt; do grep -l KEY \"$f\"; done",
        true,
    );
}

//! Writes that an option turns on in a command that otherwise reads
//! (`find -delete`, `sort -o`, `sed -i`, `git log --output`, `tree -o`,
//! `strace -o`, `time -o`) are effects of origin `Redirect`: an allow for
//! the command does not cover them. Wrappers that change the root or the
//! working directory (`chroot`, `nsenter`, `unshare`) move the command's
//! paths. Each option is taken from the program's manual and, where the
//! program is installed, proven against it in a scratch directory.

use toolgate_shell::{Analysis, EffectKind, Options, Origin, analyze};

use crate::real::{Scratch, have};

fn at(dir: &std::path::Path) -> Options {
    Options {
        cwd: Some(dir.to_path_buf()),
        home: Some("/home/u".into()),
        ..Options::default()
    }
}

/// The writes of `a`, as `target` with `>` for a redirect-like origin, `r`
/// for recursive.
fn writes(a: &Analysis) -> Vec<String> {
    a.effects
        .iter()
        .filter(|e| e.kind == EffectKind::Write)
        .map(|e| {
            let mut flags = String::new();
            if e.origin == Origin::Redirect {
                flags.push('>');
            }
            if e.recursive {
                flags.push('r');
            }
            format!("{flags} {}", e.target)
        })
        .collect()
}

fn argvs(a: &Analysis) -> Vec<String> {
    a.commands.iter().map(|c| c.argv.join(" ")).collect()
}

#[track_caller]
fn check(dir: &std::path::Path, cmd: &str, commands: &[&str], want: &[&str]) -> Analysis {
    let a = analyze(cmd, &at(dir));
    assert_eq!(argvs(&a), commands, "`{cmd}`: {a:#?}");
    assert_eq!(writes(&a), want, "`{cmd}`: {a:#?}");
    assert!(a.unknowns.is_empty(), "`{cmd}`: {:?}", a.unknowns);
    for c in &a.commands {
        assert!(!c.read_only, "`{cmd}` writes: not read-only");
    }
    a
}

#[track_caller]
fn unknown(cmd: &str, why: &str) {
    let a = analyze(cmd, &at(std::path::Path::new("/w")));
    assert!(
        a.unknowns.iter().any(|u| u.reason.contains(why)),
        "`{cmd}`: want an unknown with {why:?}, got {:?}",
        a.unknowns
    );
}

#[test]
fn find_actions_that_write_are_option_writes() {
    let s = Scratch::new();
    let d = s.path();
    // find(1): "-delete  Delete files or directories"; "-fprint file  True;
    // print the full file name into file file"; "-fprint0", "-fprintf
    // file format", "-fls file".
    check(
        d,
        "find test -name .DS_Store -delete",
        &["find test -name .DS_Store -delete"],
        &[">r test"],
    );
    check(d, "find . -delete", &["find . -delete"], &[">r ."]);
    check(d, "find . -fprint out", &["find . -fprint out"], &["> out"]);
    check(
        d,
        "find . -fprint0 out",
        &["find . -fprint0 out"],
        &["> out"],
    );
    check(
        d,
        "find . -fprintf out '%p\\n'",
        &["find . -fprintf out %p\\n"],
        &["> out"],
    );
    check(d, "find . -fls out", &["find . -fls out"], &["> out"]);
    // `-exec rm` is `rm`, which an allow for `find` does not cover.
    let a = analyze("find . -name x -exec rm {} +", &at(d));
    assert_eq!(argvs(&a), ["find . -name x -exec rm {} +", "rm ."]);
    // Finding alone writes nothing.
    let a = analyze("find . -name x -print", &at(d));
    assert!(writes(&a).is_empty() && a.commands[0].read_only);

    if have("find") {
        let out = s.run(
            "mkdir -p test/sub && touch test/.DS_Store test/sub/.DS_Store test/keep",
            "find test -name .DS_Store -delete; find test -fprint listed -name keep; \
             find test -fls long -name keep; find test -fprintf fmt '%f\\n' -name keep; \
             find test -fprint0 nul -name keep; ls -A test test/sub",
        );
        assert!(
            !out.contains(".DS_Store"),
            "find -delete removed them: {out}"
        );
        assert!(out.contains("keep"));
        for f in ["listed", "long", "fmt", "nul"] {
            assert!(s.join(f).exists(), "find -f* wrote {f}");
        }
    }
}

#[test]
fn sort_sed_tree_write_by_option() {
    let s = Scratch::new();
    let d = s.path();
    // sort(1): "-o, --output=FILE  write result to FILE instead of standard
    // output"; options may follow operands.
    check(d, "sort f -o f", &["sort f -o f"], &["> f"]);
    check(d, "sort --output=g f", &["sort --output=g f"], &["> g"]);
    check(d, "sort -og f", &["sort -og f"], &["> g"]);
    check(d, "sort --out g f", &["sort --out g f"], &["> g"]);
    // sed(1): "-i[SUFFIX], --in-place[=SUFFIX]  edit files in place", in any
    // position.
    check(d, "sed -n 1p f -i", &["sed -n 1p f -i"], &["> f"]);
    // The backup of `f` keeps its content as it was: `f.bak`.
    check(
        d,
        "sed -i.bak s/a/b/ f",
        &["sed -i.bak s/a/b/ f"],
        &["> f", "> f.bak"],
    );
    check(
        d,
        "sed --in-place s/a/b/ f g",
        &["sed --in-place s/a/b/ f g"],
        &["> f", "> g"],
    );
    check(
        d,
        "sed --in-place=.orig s/a/b/ f",
        &["sed --in-place=.orig s/a/b/ f"],
        &["> f", "> f.orig"],
    );
    check(d, "sed -ni 1p f", &["sed -ni 1p f"], &["> f"]);
    // tree(1): "-o filename  Send output to filename."
    check(d, "tree -o f", &["tree -o f"], &["> f"]);
    check(d, "tree -o f src", &["tree -o f src"], &["> f"]);
    // Without the option they read.
    for cmd in ["sort f", "sed -n 1p f", "tree src"] {
        let a = analyze(cmd, &at(d));
        assert!(writes(&a).is_empty() && a.commands[0].read_only, "{cmd}");
    }

    if have("sort") && have("sed") {
        let out = s.run(
            "printf 'b\\na\\n' > f; printf 'x\\ny\\n' > h; printf 'b\\na\\n' > k",
            "sort f -o f; sed -n 1p h -i; sort --output=g k; cat f h g",
        );
        assert_eq!(
            out, "a\nb\nx\na\nb\n",
            "sort -o and sed -i wrote their files"
        );
    }
}

#[test]
fn git_output_writes_by_option() {
    let s = Scratch::new();
    let d = s.path();
    // git-log(1), git-diff(1): "--output=<file>  Output to a specific file
    // instead of stdout."
    for sub in ["log", "diff", "show", "whatchanged", "diff-tree HEAD"] {
        let cmd = format!("git {sub} --output=f");
        check(d, &cmd, &[cmd.as_str()], &["> f"]);
    }
    check(d, "git log --output f", &["git log --output f"], &["> f"]);
    check(d, "git log --out=f", &["git log --out=f"], &["> f"]);
    let a = analyze("git log --oneline", &at(d));
    assert!(writes(&a).is_empty());
    // Writing is what `git format-patch` and `git archive -o` are for.
    let a = analyze("git archive -o x.tar HEAD", &at(d));
    assert_eq!(writes(&a), [" x.tar"]);

    if have("git") {
        s.run(
            "git init -q . && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m m",
            "git log --output=f --oneline; git show --output g HEAD",
        );
        assert!(s.join("f").exists() && s.join("g").exists());
    }
}

#[test]
fn wrappers_that_write_their_own_file() {
    let s = Scratch::new();
    let d = s.path();
    // strace(1): "-o filename, --output=filename  Write the trace output to
    // the file filename"; ltrace(1) "-o, --output=filename"; time(1) "-o
    // FILE, --output=FILE  Write the resource use statistics to FILE".
    check(d, "strace -o f ls", &["ls"], &["> f"]);
    check(d, "strace -of ls", &["ls"], &["> f"]);
    check(d, "strace --output=f -f ls", &["ls"], &["> f"]);
    check(d, "ltrace -o f ls", &["ls"], &["> f"]);
    check(d, "/usr/bin/time -o f ls", &["ls"], &["> f"]);
    check(d, "time --output=f ls", &["ls"], &["> f"]);
    check(d, "/usr/bin/time -a -o f -f %e ls", &["ls"], &["> f"]);
    // The trace piped to a program, or one file per process.
    unknown("strace -o '|sh' ls", "pipes the trace to a program");
    unknown("strace -o '!sh' ls", "pipes the trace to a program");
    unknown("strace -ff -o f ls", "FILE.PID");
    // A shell wrapped so: the file is still written.
    let a = analyze("strace -o f bash -c 'ls'", &at(d));
    assert_eq!(writes(&a), ["> f"]);
    // `script -c CMD` with the command attached is followed too.
    let a = analyze("script -q -c'rm x' /dev/null", &at(d));
    assert!(argvs(&a).iter().any(|c| c == "rm x"), "{a:#?}");

    if have("strace") {
        s.run("", "strace -o trace true");
        if !s.join("trace").exists() {
            eprintln!("skipped: strace cannot trace here");
        }
    }
    if std::path::Path::new("/usr/bin/time").exists() {
        s.run(
            "",
            "/usr/bin/time -o stats true; /usr/bin/time --output=stats2 true",
        );
        assert!(s.join("stats").exists() && s.join("stats2").exists());
    }
}

/// The directory each read of `cmd` resolves against.
fn read_dirs(cmd: &str) -> Vec<(String, Option<String>)> {
    let a = analyze(cmd, &at(std::path::Path::new("/w")));
    assert!(a.unknowns.is_empty(), "`{cmd}`: {:?}", a.unknowns);
    a.effects
        .iter()
        .filter(|e| e.kind == EffectKind::Read)
        .map(|e| {
            (
                e.target.clone(),
                e.cwd.as_ref().map(|c| c.display().to_string()),
            )
        })
        .collect()
}

#[test]
fn roots_and_working_directories_of_wrappers() {
    // chroot(8): "Run COMMAND with root directory set to NEWROOT", after
    // changing to it unless `--skip-chdir`: `chroot / cat x` reads `/x`.
    assert_eq!(
        read_dirs("chroot / cat x"),
        [("x".to_string(), Some("/".to_string()))]
    );
    assert_eq!(
        read_dirs("chroot --userspec=1:1 // cat x"),
        [("x".to_string(), Some("/".to_string()))]
    );
    assert_eq!(
        read_dirs("chroot --skip-chdir / cat x"),
        [("x".to_string(), None)]
    );
    unknown("chroot /srv/jail cat x", "as its root");
    unknown("chroot jail cat /etc/passwd", "as its root");
    // nsenter(1): "-w, --wd[=directory]  Set the working directory. If no
    // directory is specified, ... of the target process"; "-r, --root".
    assert_eq!(
        read_dirs("nsenter --wd=/tmp cat x"),
        [("x".to_string(), Some("/tmp".to_string()))]
    );
    unknown(
        "nsenter -w cat x",
        "target process's root or working directory",
    );
    unknown(
        "nsenter --wd cat x",
        "target process's root or working directory",
    );
    unknown(
        "nsenter -r -t 1 cat x",
        "target process's root or working directory",
    );
    unknown("nsenter --root=/srv cat x", "as its root");
    unknown("nsenter -t 1 -m cat x", "another mount namespace");
    unknown("nsenter -a -t 1 cat x", "another mount namespace");
    // unshare(1): "-R, --root=dir", "-w, --wd=dir".
    assert_eq!(
        read_dirs("unshare --root=/ cat x"),
        [("x".to_string(), Some("/".to_string()))]
    );
    assert_eq!(
        read_dirs("unshare -w /tmp cat x"),
        [("x".to_string(), Some("/tmp".to_string()))]
    );
    unknown("unshare -R /srv cat x", "as its root");

    let s = Scratch::new();
    if have("chroot") {
        let out = s.run(
            "",
            "chroot / pwd 2>/dev/null; chroot --skip-chdir / pwd 2>/dev/null",
        );
        if out.is_empty() {
            eprintln!("skipped: chroot is not permitted here");
        } else {
            assert_eq!(out, format!("/\n{}\n", s.path().display()));
        }
    }
    if have("unshare") {
        let out = s.run("", "unshare --wd=/usr pwd 2>/dev/null");
        if !out.is_empty() {
            assert_eq!(out, "/usr\n");
        }
    }
}

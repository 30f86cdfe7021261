//! The archivers' command lines read as the programs read them: GNU tar's
//! options in order (abbreviated, bundled, clustered), and the options of
//! cpio, ar, 7-Zip and pax that name files written, read or removed, or
//! let an extraction write outside its directory. The real tar and unzip
//! are run in `crates/policy/tests/archive_reach.rs`; `ar` is run here.

use std::path::PathBuf;

use toolgate_shell::{Analysis, EffectKind, Options, analyze};

use crate::real::{Scratch, have};

fn opts() -> Options {
    Options {
        cwd: Some(PathBuf::from("/nonexistent/w")),
        home: Some(PathBuf::from("/home/u")),
        ..Options::default()
    }
}

fn show(a: &Analysis) -> String {
    format!(
        "effects {:?}\nunknowns {:?}",
        a.effects
            .iter()
            .map(|e| (e.kind, e.target.as_str(), e.recursive, e.delete))
            .collect::<Vec<_>>(),
        a.unknowns.iter().map(|u| &u.reason).collect::<Vec<_>>(),
    )
}

#[track_caller]
fn unknown(cmd: &str, why: &str) {
    let a = analyze(cmd, &opts());
    assert!(
        a.unknowns.iter().any(|u| u.reason.contains(why)),
        "`{cmd}`: no unknown with `{why}`\n{}",
        show(&a)
    );
}

#[track_caller]
fn known(cmd: &str) {
    let a = analyze(cmd, &opts());
    assert!(a.unknowns.is_empty(), "`{cmd}`\n{}", show(&a));
}

/// An effect of `kind` on `target` (recursive, a removal, as asked).
#[track_caller]
fn has(cmd: &str, kind: EffectKind, target: &str, recursive: bool, delete: bool) {
    let a = analyze(cmd, &opts());
    assert!(
        a.effects.iter().any(|e| e.kind == kind
            && e.target == target
            && e.recursive == recursive
            && e.delete == delete),
        "`{cmd}`: no {kind:?} of `{target}` (recursive {recursive}, delete {delete})\n{}",
        show(&a)
    );
}

#[track_caller]
fn no_write(cmd: &str) {
    let a = analyze(cmd, &opts());
    assert!(
        a.effects.iter().all(|e| e.kind != EffectKind::Write),
        "`{cmd}`\n{}",
        show(&a)
    );
}

use EffectKind::{Read, Write};

#[test]
fn tar_directories_are_followed_in_order() {
    has("tar -xf a.tar -C docs -C ..", Write, "docs/..", true, false);
    has(
        "tar -xf a.tar -C docs -C ../src",
        Write,
        "docs/../src",
        true,
        false,
    );
    has(
        "tar -xf a.tar -C docs -C /tmp/x",
        Write,
        "/tmp/x",
        true,
        false,
    );
    has("tar -xzf a.tgz -C build", Write, "build", true, false);
    // A member named before the first `-C` is extracted where tar started.
    has("tar -xf a.tar m -C out", Write, ".", true, false);
    // Creating: each file is read where the `-C` before it leads.
    has("tar -cf a.tar a -C d b -C .. c", Read, "a", true, false);
    has("tar -cf a.tar a -C d b -C .. c", Read, "d/b", true, false);
    has(
        "tar -cf a.tar a -C d b -C .. c",
        Read,
        "d/../c",
        true,
        false,
    );
    has(
        "tar -cf a.tar -C d --add-file=.env",
        Read,
        "d/.env",
        true,
        false,
    );
    has("tar cf a.tar --add-f .env", Read, ".env", true, false);
}

#[test]
fn tar_removes_what_it_archived() {
    for cmd in [
        "tar -cf b.tar --remove-files src",
        "tar cf b.tar --remove-f src",
        "tar -rf b.tar --remove-files src",
        "tar -c --remove -f b.tar src",
    ] {
        has(cmd, Write, "src", true, true);
        has(cmd, Write, "b.tar", false, false);
    }
    has("7z a a.7z src -sdel", Write, "src", true, true);
}

#[test]
fn tar_extractions_that_write_anywhere_are_unknown() {
    for cmd in [
        "tar -xPf a.tar -C docs",
        "tar xPf a.tar",
        "tar -x --abs -f a.tar",
        "tar --get -Pf a.tar",
    ] {
        unknown(cmd, "`tar -P`");
    }
    for cmd in [
        "tar -xf a.tar --transform s/a/b/",
        "tar -xf a.tar --xform=s/a/b/",
        "tar -xf a.tar --tran=s/a/b/",
        "tar -x -s /a/b/ -f a.tar",
    ] {
        unknown(cmd, "renames the members");
    }
    unknown("tar -xf a.tar --backup --suffix=/../x", "--suffix");
    unknown("tar -xf a.tar --one-top-level=$D", "may be an option");
    unknown("tar $MODE a.tar", "may be an option");
    unknown("tar -xf a.tar $M", "may be an option");
    unknown("tar -xf a.tar --set-mtime-command=sh", "not one tar knows");
    unknown("tar -xf a.tar --to=x", "ambiguous");
    // Listing or printing such an archive writes nothing.
    known("tar -tPf a.tar");
    no_write("tar -xOf a.tar");
    no_write("tar -xPOf a.tar");
    has(
        "tar -xf a.tar --one-top-level=src",
        Write,
        "src",
        true,
        false,
    );
    has(
        "tar -xf a.tar -C d --one-top-level=../src",
        Write,
        "d/../src",
        true,
        false,
    );
    // Creating with names rewritten only changes the names stored.
    known("tar -czf out.tgz --transform s/a/b/ src");
    known("tar -cPf a.tar src");
}

#[test]
fn tar_options_that_name_files() {
    has("tar -cf a.tar --backup src", Write, "a.tar~", false, false);
    has(
        "tar -cf a.tar --backup --suffix=.old src",
        Write,
        "a.tar.old",
        false,
        false,
    );
    has("tar -xf a.tar -X ex", Read, "ex", false, false);
    has("tar -xf a.tar -T list", Read, "list", false, false);
    // `-T` names members on extraction, files on creation.
    known("tar -xf a.tar -T list");
    unknown("tar -cf a.tar -T list", "its list names");
    // `--diff` reads the files the members name.
    has("tar -df a.tar -C d", Read, "d", true, false);
    // `--delete` names members, not files.
    let a = analyze("tar --delete -f a.tar .env", &opts());
    assert!(a.effects.iter().all(|e| e.target != ".env"), "{}", show(&a));
    has("tar --delete -f a.tar .env", Write, "a.tar", false, false);
    // Several archives (multi-volume) are each read.
    has("tar -xM -f a.tar -f b.tar", Read, "b.tar", false, false);
    unknown(
        "tar -xf a.tar --checkpoint=1 --checkpoint-act=exec=sh",
        "runs a program",
    );
    unknown("tar -I ./z -xf a.tar", "runs a program");
}

#[test]
fn unzip_options_are_read_as_unzip_reads_them() {
    for (cmd, dir) in [
        ("unzip -o -dsrc a.zip", "src"),
        ("unzip -o a.zip -dsrc", "src"),
        ("unzip -od src a.zip", "src"),
        ("unzip -o -d.git/hooks a.zip", ".git/hooks"),
        ("unzip -Ppass a.zip -d out", "out"),
        ("unzip -P pass a.zip m -x n -d out", "out"),
        ("unzip a.zip", "."),
    ] {
        has(cmd, Write, dir, true, false);
    }
    for cmd in [
        "unzip -l a.zip",
        "unzip -v a.zip",
        "unzip -p a.zip f",
        "unzip -Z a.zip",
        "unzip -tq a.zip",
    ] {
        no_write(cmd);
        known(cmd);
    }
    unknown("unzip -: a.zip -d out", "`unzip -:`");
    unknown("unzip -o: a.zip", "`unzip -:`");
    known("unzip -^ a.zip -d out");
    unknown("unzip $O a.zip", "may be an option");
    unknown("unzip a.zip $D", "may be `-d`");
    // unzip opens ARCHIVE.zip when ARCHIVE is not there.
    has("unzip -l secret", Read, "secret.zip", false, false);
}

#[test]
fn other_archivers_that_write_anywhere() {
    unknown("cpio -id < a.cpio", "--no-absolute-filenames");
    known("cpio -id --no-absolute-filenames < a.cpio");
    has(
        "cpio -i --no-absolute-filenames --directory=out < a.cpio",
        Write,
        "out",
        true,
        false,
    );
    has(
        "cpio -i --no-absolute-filenames -F a.cpio -D out",
        Read,
        "a.cpio",
        false,
        false,
    );
    no_write("cpio -it < a.cpio");
    unknown("cpio -ir < a.cpio", "renames");
    has("7z x a.7z -oout", Write, "out", true, false);
    has("7z X a.7z -Oout", Write, "out", true, false);
    unknown("7z x a.7z -spf", "-spf");
    no_write("7z x a.7z -so");
    unknown("7z a a.7z -ir@list", "list");
    unknown("7z a a.7z -x@list src", "list");
    unknown("7z u a.7z -up0q3x2z0!b.7z src", "another archive");
    has("7z a -wtmpd a.7z src", Write, "tmpd", true, false);
    unknown("pax -r -f a.pax", "pax -r");
    has(
        "pax -w -f toolgate.toml src",
        Write,
        "toolgate.toml",
        false,
        false,
    );
    has("pax -wf out.pax src", Read, "src", true, false);
    has("ar --output=out x lib.a", Write, "out", true, false);
    has("ar x --output out lib.a", Write, "out", true, false);
    unknown("ar --plugin p.so t lib.a", "plugin");
    unknown("ar @args", "reads more arguments");
    // `a`, `b`, `i` name a member before the archive, `N` a count.
    has(
        "ar rb m.o toolgate.toml x.o",
        Write,
        "toolgate.toml",
        false,
        false,
    );
    has("ar xN 2 lib.a m.o", Read, "lib.a", false, false);
    has("ar -r -c lib.a a.o", Write, "lib.a", false, false);
}

/// GNU ar really extracts into `--output`'s directory and really writes
/// the archive after its `b` member.
#[test]
fn ar_output_and_positions_are_real() {
    if !have("ar") {
        return;
    }
    let s = Scratch::new();
    s.run(
        "mkdir out && echo a > a.o && echo m > m.o && ar rc lib.a m.o",
        "ar --output=out x lib.a && ar rb m.o toolgate.toml a.o",
    );
    assert!(s.join("out/m.o").exists(), "ar --output: not in out");
    assert!(s.join("toolgate.toml").exists(), "ar rb: no archive");
    let real = opts();
    let a = analyze("ar rb m.o toolgate.toml a.o", &real);
    assert!(
        a.effects
            .iter()
            .any(|e| e.kind == Write && e.target == "toolgate.toml"),
        "{}",
        show(&a)
    );
}

//! `tar`, `unzip`, cpio, ar, 7-Zip and pax: the archive, the directories
//! written into, and the files read, listed or removed.
//!
//! Each is read the way the program reads its own command line, since a
//! word taken for another kind of word is a file missed: GNU tar's options
//! in the order given (each `-C` changes where what follows is read and
//! written), unzip's options before the archive and its `-d`/`-x` after
//! it. Where an extraction writes depends on what the archive holds; when
//! an option lets a member's name choose a place outside the directory
//! (`tar -P`, `unzip -:`, `cpio -i` without `--no-absolute-filenames`) or
//! rewrites the names (`--transform`), where it writes is not known, and
//! the command is reported as unknown.

use super::*;

/// How a GNU tar option takes a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    No,
    /// In its own word or attached (`-C DIR`, `-CDIR`, `--directory=DIR`).
    Value,
    /// Attached only (`--one-top-level=DIR`, `--backup=simple`).
    Optional,
}

/// GNU tar 1.34's long options, as `tar --help` lists them, with the
/// aliases its option table also accepts (`--get` for `--extract`),
/// each with the name the code below looks for. tar (argp) takes any
/// prefix that names one option alone (`--remove-f`, `--abs`); an option
/// not here is refused by tar 1.34, but may be a newer tar's (1.35's
/// `--set-mtime-command` runs a program), so it is unknown.
const TAR_LONG: &[(&str, Takes, &str)] = {
    use Takes::*;
    &[
        ("catenate", No, "catenate"),
        ("concatenate", No, "catenate"),
        ("create", No, "create"),
        ("delete", No, "delete"),
        ("diff", No, "diff"),
        ("compare", No, "diff"),
        ("append", No, "append"),
        ("test-label", No, "test-label"),
        ("list", No, "list"),
        ("update", No, "update"),
        ("extract", No, "extract"),
        ("get", No, "extract"),
        ("check-device", No, "-"),
        ("listed-incremental", Value, "listed-incremental"),
        ("incremental", No, "-"),
        ("hole-detection", Value, "-"),
        ("ignore-failed-read", No, "-"),
        ("level", Value, "-"),
        ("no-check-device", No, "-"),
        ("no-seek", No, "-"),
        ("seek", No, "-"),
        ("occurrence", Optional, "-"),
        ("sparse-version", Value, "-"),
        ("sparse", No, "-"),
        ("add-file", Value, "add-file"),
        ("directory", Value, "directory"),
        ("exclude", Value, "-"),
        ("exclude-backups", No, "-"),
        ("exclude-caches", No, "-"),
        ("exclude-caches-all", No, "-"),
        ("exclude-caches-under", No, "-"),
        ("exclude-ignore", Value, "-"),
        ("exclude-ignore-recursive", Value, "-"),
        ("exclude-tag", Value, "-"),
        ("exclude-tag-all", Value, "-"),
        ("exclude-tag-under", Value, "-"),
        ("exclude-vcs", No, "-"),
        ("exclude-vcs-ignores", No, "-"),
        ("no-null", No, "-"),
        ("no-recursion", No, "-"),
        ("no-unquote", No, "-"),
        ("no-verbatim-files-from", No, "-"),
        ("null", No, "-"),
        ("recursion", No, "-"),
        ("files-from", Value, "files-from"),
        ("unquote", No, "-"),
        ("verbatim-files-from", No, "-"),
        ("exclude-from", Value, "exclude-from"),
        ("anchored", No, "-"),
        ("ignore-case", No, "-"),
        ("no-anchored", No, "-"),
        ("no-ignore-case", No, "-"),
        ("no-wildcards", No, "-"),
        ("no-wildcards-match-slash", No, "-"),
        ("wildcards", No, "-"),
        ("wildcards-match-slash", No, "-"),
        ("keep-directory-symlink", No, "-"),
        ("keep-newer-files", No, "-"),
        ("keep-old-files", No, "-"),
        ("no-overwrite-dir", No, "-"),
        ("one-top-level", Optional, "one-top-level"),
        ("overwrite", No, "-"),
        ("overwrite-dir", No, "-"),
        ("recursive-unlink", No, "-"),
        ("remove-files", No, "remove-files"),
        ("skip-old-files", No, "-"),
        ("unlink-first", No, "-"),
        ("verify", No, "-"),
        ("ignore-command-error", No, "-"),
        ("no-ignore-command-error", No, "-"),
        ("to-stdout", No, "to-stdout"),
        ("to-command", Value, "runs"),
        ("atime-preserve", Optional, "-"),
        ("clamp-mtime", No, "-"),
        ("delay-directory-restore", No, "-"),
        ("group", Value, "-"),
        ("group-map", Value, "group-map"),
        ("mode", Value, "-"),
        ("mtime", Value, "-"),
        ("touch", No, "-"),
        ("no-delay-directory-restore", No, "-"),
        ("no-same-owner", No, "-"),
        ("no-same-permissions", No, "-"),
        ("numeric-owner", No, "-"),
        ("owner", Value, "-"),
        ("owner-map", Value, "owner-map"),
        ("preserve-permissions", No, "-"),
        ("same-permissions", No, "-"),
        ("preserve", No, "-"),
        ("same-owner", No, "-"),
        ("sort", Value, "-"),
        ("preserve-order", No, "-"),
        ("same-order", No, "-"),
        ("acls", No, "-"),
        ("no-acls", No, "-"),
        ("no-selinux", No, "-"),
        ("no-xattrs", No, "-"),
        ("selinux", No, "-"),
        ("xattrs", No, "-"),
        ("xattrs-exclude", Value, "-"),
        ("xattrs-include", Value, "-"),
        ("force-local", No, "force-local"),
        ("file", Value, "file"),
        ("info-script", Value, "runs"),
        ("new-volume-script", Value, "runs"),
        ("tape-length", Value, "-"),
        ("multi-volume", No, "-"),
        ("rmt-command", Value, "runs"),
        ("rsh-command", Value, "runs"),
        ("volno-file", Value, "volno-file"),
        ("blocking-factor", Value, "-"),
        ("read-full-records", No, "-"),
        ("ignore-zeros", No, "-"),
        ("record-size", Value, "-"),
        ("format", Value, "-"),
        ("old-archive", No, "-"),
        ("portability", No, "-"),
        ("pax-option", Value, "-"),
        ("posix", No, "-"),
        ("label", Value, "-"),
        ("auto-compress", No, "-"),
        ("use-compress-program", Value, "runs"),
        ("bzip2", No, "-"),
        ("xz", No, "-"),
        ("lzip", No, "-"),
        ("lzma", No, "-"),
        ("lzop", No, "-"),
        ("no-auto-compress", No, "-"),
        ("zstd", No, "-"),
        ("gzip", No, "-"),
        ("gunzip", No, "-"),
        ("ungzip", No, "-"),
        ("compress", No, "-"),
        ("uncompress", No, "-"),
        ("backup", Optional, "backup"),
        ("hard-dereference", No, "-"),
        ("dereference", No, "-"),
        ("starting-file", Value, "-"),
        ("newer-mtime", Value, "-"),
        ("newer", Value, "-"),
        ("after-date", Value, "-"),
        ("one-file-system", No, "-"),
        ("absolute-names", No, "absolute-names"),
        ("suffix", Value, "suffix"),
        ("strip-components", Value, "-"),
        ("transform", Value, "transform"),
        ("xform", Value, "transform"),
        ("checkpoint", Optional, "-"),
        ("checkpoint-action", Value, "runs"),
        ("full-time", No, "-"),
        ("index-file", Value, "index-file"),
        ("check-links", No, "-"),
        ("no-quote-chars", Value, "-"),
        ("quote-chars", Value, "-"),
        ("quoting-style", Value, "-"),
        ("block-number", No, "-"),
        ("show-defaults", No, "-"),
        ("show-omitted-dirs", No, "-"),
        ("show-snapshot-field-ranges", No, "-"),
        ("show-stored-names", No, "-"),
        ("show-transformed-names", No, "-"),
        ("totals", Optional, "-"),
        ("utc", No, "-"),
        ("verbose", No, "-"),
        ("warning", Value, "-"),
        ("interactive", No, "-"),
        ("confirmation", No, "-"),
        ("restrict", No, "-"),
        ("help", No, "-"),
        ("usage", No, "-"),
        ("version", No, "-"),
    ]
};

/// GNU tar's short options: the letter, the long option it stands for
/// (as [`TAR_LONG`] names it; `-` for one nothing here depends on) and
/// whether it takes a value. `-s` is GNU tar's `--preserve-order`, but
/// bsdtar's (macOS `tar`) rewrite of member names, which an extraction
/// treats as unknown.
const TAR_SHORT: &[(char, &str, bool)] = &[
    ('A', "catenate", false),
    ('c', "create", false),
    ('d', "diff", false),
    ('r', "append", false),
    ('t', "list", false),
    ('u', "update", false),
    ('x', "extract", false),
    ('g', "listed-incremental", true),
    ('C', "directory", true),
    ('T', "files-from", true),
    ('X', "exclude-from", true),
    ('O', "to-stdout", false),
    ('f', "file", true),
    ('F', "runs", true),
    ('I', "runs", true),
    ('P', "absolute-names", false),
    ('s', "bsd-substitute", false),
    ('b', "-", true),
    ('H', "-", true),
    ('K', "-", true),
    ('L', "-", true),
    ('N', "-", true),
    ('V', "-", true),
];

/// One word of a tar command line, in order: an option by the name
/// [`TAR_LONG`] gives it, with its value, or an operand.
enum TarStep {
    Opt(&'static str, Option<Arg>),
    Operand(Arg),
}

/// The long option `given` (without `--`) names: the one spelled whole,
/// or the only one it begins (aliases of one option count once, as
/// getopt counts them).
fn tar_long(given: &str) -> Result<(&'static str, Takes), &'static str> {
    if let Some((_, takes, canon)) = TAR_LONG.iter().find(|(n, ..)| *n == given) {
        return Ok((canon, *takes));
    }
    let key = |(n, _, canon): &(&'static str, Takes, &'static str)| {
        if *canon == "-" { *n } else { *canon }
    };
    let mut found: Vec<&(&'static str, Takes, &'static str)> = TAR_LONG
        .iter()
        .filter(|(n, ..)| !given.is_empty() && n.starts_with(given))
        .collect();
    found.sort_unstable_by_key(|o| key(o));
    found.dedup_by_key(|o| key(o));
    match found.as_slice() {
        [(_, takes, canon)] => Ok((canon, *takes)),
        [] => Err("is not one tar knows"),
        _ => Err("is ambiguous"),
    }
}

/// The words of a tar command line as tar reads them, in order. The
/// first word, when it does not begin with `-`, is a bundle of option
/// letters whose values are the words after it (`tar xPf a.tar`). tar
/// takes options anywhere among the operands, in order (`-C` applies to
/// the operands after it).
fn tar_steps(args: &[Arg], d: &mut Derived) -> Vec<TarStep> {
    let mut words: Vec<Arg> = args.to_vec();
    if let Some(first) = args.first() {
        if first.literal && !first.text.starts_with('-') {
            let mut rebuilt = Vec::new();
            let mut values = args[1..].iter();
            for c in first.text.chars() {
                rebuilt.push(first.with_text(format!("-{c}")));
                if TAR_SHORT.iter().any(|(l, _, v)| *l == c && *v) {
                    // Right after its letter, where the parser below
                    // takes it as the value.
                    if let Some(v) = values.next() {
                        rebuilt.push(v.clone());
                    }
                }
            }
            rebuilt.extend(values.cloned());
            words = rebuilt;
        }
    }
    let mut steps = Vec::new();
    let mut it = words.into_iter();
    let mut end = false;
    while let Some(a) = it.next() {
        if !a.literal {
            // A word known only when tar runs may be an option (`-P`,
            // `--to-command=sh`) wherever an option may stand.
            if !end {
                d.unknowns.push(format!(
                    "`tar` is given `{}`, which is known only when it runs and may be an option",
                    a.text
                ));
            }
            steps.push(TarStep::Operand(a));
            continue;
        }
        let t = a.text.clone();
        if end || !t.starts_with('-') || t == "-" {
            steps.push(TarStep::Operand(a));
            continue;
        }
        if t == "--" {
            end = true;
            continue;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(a.with_text(v))),
                None => (long, None),
            };
            match tar_long(name) {
                Ok((canon, takes)) => {
                    let value = match (value, takes) {
                        (Some(v), _) => Some(v),
                        (None, Takes::Value) => it.next(),
                        (None, _) => None,
                    };
                    steps.push(TarStep::Opt(canon, value));
                }
                Err(why) => d.unknowns.push(format!("`tar {t}`: the option {why}")),
            }
            continue;
        }
        let letters: Vec<char> = t.chars().skip(1).collect();
        for (i, &c) in letters.iter().enumerate() {
            let (name, takes) = TAR_SHORT
                .iter()
                .find(|(l, ..)| *l == c)
                .map_or(("-", false), |(_, n, v)| (*n, *v));
            if takes {
                let rest: String = letters[i + 1..].iter().collect();
                let value = if rest.is_empty() {
                    it.next()
                } else {
                    Some(a.with_text(rest))
                };
                steps.push(TarStep::Opt(name, value));
                break;
            }
            steps.push(TarStep::Opt(name, None));
        }
    }
    steps
}

/// `name` as tar opens it after `-C dir`: relative to `dir` unless
/// absolute (GNU tar makes each `-C` relative to the one before).
fn under(dir: &Arg, name: &Arg) -> Arg {
    if name.text.starts_with('/') || dir.text == "." {
        return name.clone();
    }
    let text = format!("{}/{}", dir.text.trim_end_matches('/'), name.text);
    if name.literal {
        dir.with_text(text)
    } else {
        name.with_text(text)
    }
}

pub(super) fn tar(_spec: &Spec, args: &[Arg], d: &mut Derived) {
    let steps = tar_steps(args, d);
    let has = |n: &str| {
        steps
            .iter()
            .any(|s| matches!(s, TarStep::Opt(m, _) if *m == n))
    };
    let values = |n: &str| -> Vec<Arg> {
        steps
            .iter()
            .filter_map(|s| match s {
                TarStep::Opt(m, Some(v)) if *m == n => Some(v.clone()),
                _ => None,
            })
            .collect()
    };
    if has("runs") {
        d.unknowns.push("`tar` option runs a program".into());
    }
    let extract = has("extract");
    let diff = has("diff");
    let list = has("list") || has("test-label");
    let delete = has("delete");
    let create = has("create") || has("append") || has("update") || has("catenate");
    let archives = values("file");
    // `-f host:file` is an archive on another host, reached by running
    // `rsh` (or `--rsh-command`), unless `--force-local`.
    for a in &archives {
        let remote = a
            .text
            .split_once(':')
            .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'));
        if remote && !has("force-local") {
            d.unknowns.push(format!(
                "`tar -f {}` is an archive on another host, reached by a remote shell",
                a.text
            ));
        }
    }
    // Files an option makes tar write, whatever it does with the archive
    // (`tar -tf - --index-file=Makefile`): judged as a redirect is.
    for f in values("index-file").iter().chain(&values("volno-file")) {
        d.add_by_option(Access::Write, f, false);
    }
    for f in ["exclude-from", "group-map", "owner-map"]
        .iter()
        .flat_map(|n| values(n))
    {
        d.add(Access::Read, &f, false);
    }
    // Walk the words in order: each `-C` is relative to the one before;
    // an operand or `--add-file` is read (and with `--remove-files`
    // removed) where the last `-C` before it left tar.
    let mut dir = Arg::lit(".");
    let mut dirs: Vec<Arg> = Vec::new();
    let mut named_before_dir = false;
    let mut files: Vec<Arg> = Vec::new();
    let mut lists: Vec<Arg> = Vec::new();
    for s in &steps {
        match s {
            TarStep::Opt("directory", Some(v)) => {
                dir = under(&dir, v);
                dirs.push(dir.clone());
            }
            TarStep::Opt("directory", None) => {}
            TarStep::Opt("add-file", Some(v)) | TarStep::Operand(v) => {
                named_before_dir |= dirs.is_empty();
                files.push(under(&dir, v));
            }
            TarStep::Opt("files-from", Some(v)) => {
                lists.push(v.clone());
                let at = under(&dir, v);
                if at.text != v.text {
                    lists.push(at);
                }
            }
            _ => {}
        }
    }
    for l in &lists {
        d.add(Access::Read, l, false);
    }
    // The directories an extraction (or a comparison) may write (read):
    // every one a `-C` named, and the starting one when names come before
    // the first `-C` (GNU tar extracts the members a name selects where
    // that name was given, the rest where the last `-C` left it).
    if dirs.is_empty() || named_before_dir {
        dirs.insert(0, Arg::lit("."));
    }
    let listed = lists.iter().any(|v| !(v.literal && v.text == "/dev/null"));
    if extract {
        for a in &archives {
            d.add(Access::Read, a, false);
        }
        if has("absolute-names") {
            d.unknowns.push(
                "`tar -P` extracts each member to the name the archive gives it, absolute or through `..`: where it writes is not known"
                    .into(),
            );
        }
        if has("transform") || has("bsd-substitute") {
            d.unknowns.push(
                "`tar --transform` (bsdtar `-s`) renames the members it extracts: where it writes is not known"
                    .into(),
            );
        }
        let suffixes = values("suffix");
        if has("backup") && suffixes.iter().any(|s| !s.literal || s.text.contains('/')) {
            d.unknowns.push(
                "`tar --backup --suffix` with a `/` renames replaced files into another directory"
                    .into(),
            );
        }
        if !has("to-stdout") {
            let tops: Vec<Option<Arg>> = steps
                .iter()
                .filter_map(|s| match s {
                    TarStep::Opt("one-top-level", v) => Some(v.clone()),
                    _ => None,
                })
                .collect();
            for dir in &dirs {
                match tops.last() {
                    // `--one-top-level=DIR` puts every member beneath
                    // DIR (relative to `-C`); without a value, beneath a
                    // directory named after the archive, inside `-C`.
                    Some(Some(top)) => d.add(Access::WriteDir, &under(dir, top), true),
                    _ => d.add(Access::WriteDir, dir, true),
                }
            }
        }
    } else if create {
        for a in &archives {
            d.add(Access::Write, a, false);
            if has("backup") {
                // The archive it replaces is kept as ARCHIVE~ (or the
                // suffix given).
                let suffix = values("suffix").last().cloned();
                match &suffix {
                    Some(s) if !s.literal || s.text.contains('/') => d.unknowns.push(
                        "`tar --backup --suffix` with a `/` renames the archive into another directory"
                            .into(),
                    ),
                    _ => {
                        let s = suffix.map_or_else(|| "~".to_string(), |s| s.text);
                        d.add(Access::Write, &a.with_text(format!("{}{s}", a.text)), false);
                    }
                }
            }
        }
        let removes = has("remove-files");
        for f in &files {
            d.add(Access::Read, f, true);
            // `--remove-files` deletes each file once it is archived
            // (a directory with what it holds).
            if removes {
                d.add(Access::Delete, f, true);
            }
        }
        if listed {
            d.unknowns.push(
                "`tar -T` archives the files its list names, which are not known here".into(),
            );
        }
    } else if delete {
        // `--delete` takes members out of the archive: its operands are
        // member names.
        for a in &archives {
            d.add(Access::Write, a, false);
        }
    } else {
        for a in &archives {
            d.add(Access::Read, a, false);
        }
        if diff {
            // `--diff` reads the files the members name, beneath each
            // directory, to compare them.
            if has("absolute-names") {
                d.unknowns.push(
                    "`tar --diff -P` compares the members with files at the names the archive gives, anywhere"
                        .into(),
                );
            }
            for dir in &dirs {
                d.add(Access::Read, dir, true);
            }
        }
    }
    for f in &values("listed-incremental") {
        // Creating updates the snapshot file; listing and extracting read it.
        let access = if create { Access::Write } else { Access::Read };
        d.add(access, f, false);
    }
    d.read_only = !extract && !create && !delete && !diff && list;
}

/// Info-ZIP unzip: options (clusters of letters, `-d DIR` and `-P PASS`
/// taking the rest of their word or the next one) come before the
/// archive; after it, the member names, with `-x` starting the names
/// left out and the first word beginning `-d` giving the directory
/// (`unzip a.zip -d out`, `unzip a.zip -dout`), as unzip 6.0's `uz_opts`
/// and its loop after it read them.
pub(super) fn unzip(args: &[Arg], d: &mut Derived) {
    let mut dir: Option<Arg> = None;
    // The modes that extract nothing: `-c`/`-p` print, `-l`/`-v` list,
    // `-t` tests, `-z` shows the comment, `-T` only sets the archive's time.
    let (mut shows, mut stamps) = (false, false);
    let mut dots = 0usize;
    let mut i = 0;
    let zipinfo = args
        .first()
        .is_some_and(|a| a.literal && a.text.starts_with("-Z"));
    while let Some(a) = args.get(i) {
        if !a.literal {
            d.unknowns.push(format!(
                "`unzip` is given `{}`, which is known only when it runs and may be an option",
                a.text
            ));
            break;
        }
        if !a.text.starts_with('-') {
            break;
        }
        i += 1;
        if zipinfo {
            continue;
        }
        let letters: Vec<char> = a.text.chars().skip(1).collect();
        let mut negative = 0usize;
        for (j, &c) in letters.iter().enumerate() {
            // `-` before a letter turns it off (`-l-l`).
            let set = |flag: &mut bool, negative: &mut usize| {
                *flag = *negative == 0;
                *negative = 0;
            };
            match c {
                '-' => negative += 1,
                'd' | 'P' | 'I' | 'O' => {
                    let rest: String = letters[j + 1..].iter().collect();
                    let value = if rest.is_empty() {
                        i += 1;
                        args.get(i - 1).cloned()
                    } else {
                        Some(a.with_text(rest))
                    };
                    if c == 'd' && dir.is_none() {
                        dir = value;
                    }
                    break;
                }
                'c' | 'p' | 'l' | 'v' | 't' | 'z' => set(&mut shows, &mut negative),
                'T' => set(&mut stamps, &mut negative),
                ':' => {
                    dots = if negative > 0 {
                        dots.saturating_sub(negative)
                    } else {
                        dots + 1
                    };
                    negative = 0;
                }
                _ => negative = 0,
            }
        }
    }
    let archive = args.get(i).cloned();
    // Other words name members (kept or, after `-x`, left out).
    let mut rest = args.iter().skip(i + 1);
    while let Some(a) = rest.next() {
        if !a.literal {
            d.unknowns.push(format!(
                "`unzip` is given `{}`, which is known only when it runs and may be `-d`",
                a.text
            ));
            continue;
        }
        if zipinfo {
            continue;
        }
        if let Some(attached) = a.text.strip_prefix("-d").filter(|_| dir.is_none()) {
            dir = if attached.is_empty() {
                rest.next().cloned()
            } else {
                Some(a.with_text(attached))
            };
        }
    }
    let Some(archive) = archive else {
        return;
    };
    d.add(Access::Read, &archive, false);
    // unzip opens ARCHIVE.zip when ARCHIVE is not there.
    if archive.literal && !archive.text.to_ascii_lowercase().ends_with(".zip") {
        d.add(
            Access::Read,
            &archive.with_text(format!("{}.zip", archive.text)),
            false,
        );
    }
    let extracts = !zipinfo && !shows && !stamps;
    if stamps && !zipinfo && !shows {
        // `-T` sets the archive's modification time.
        d.add(Access::Write, &archive, false);
    }
    if extracts {
        if dots > 0 {
            d.unknowns.push(
                "`unzip -:` keeps `../` in member names: it writes wherever the archive says"
                    .into(),
            );
        }
        d.add(
            Access::WriteDir,
            &dir.unwrap_or_else(|| Arg::lit(".")),
            true,
        );
    }
    d.read_only = !extracts && !stamps;
}

/// cpio, ar, 7-Zip and pax: extracting writes the names the archive holds
/// into a directory (a recursive write of it, as `tar x` is); creating
/// from names read on standard input (`cpio -o`, `cpio -p`, `pax -w`
/// without operands) reads files not named here. An extraction that may
/// write outside its directory (cpio and pax keep absolute names and
/// `..`, 7-Zip's `-spf`, ar's `P`) is unknown, and so is a word known
/// only when the program runs, which may be an option.
pub(super) fn other_archivers(name: &str, args: &[Arg], d: &mut Derived) {
    if let Some(a) = args.iter().find(|a| !a.literal) {
        d.unknowns.push(format!(
            "`{name}` is given `{}`, which is known only when it runs and may be an option",
            a.text
        ));
    }
    let names_from_input = |d: &mut Derived| {
        d.unknowns.push(format!(
            "`{name}` reads the names of the files it archives from its input"
        ));
    };
    match name {
        "cpio" => cpio(args, d, names_from_input),
        "ar" => ar(args, d),
        "pax" => pax(args, d, names_from_input),
        _ => seven_zip(name, args, d),
    }
}

/// GNU cpio. `-i` writes each member at the name the archive gives it,
/// absolute or through `..`, unless `--no-absolute-filenames`; `-r` and
/// `--rename-batch-file` rename members to names typed or listed.
fn cpio(args: &[Arg], d: &mut Derived, names_from_input: impl Fn(&mut Derived)) {
    let o = parse_opts(
        args,
        "DFOIEHRCMe",
        &[
            "directory",
            "file",
            "pattern-file",
            "format",
            "owner",
            "io-size",
            "message",
            "rsh-command",
            "block-size",
            "rename-batch-file",
        ],
        &[],
    );
    if o.has(&["--rsh-command"]) {
        d.unknowns
            .push("`cpio --rsh-command` runs a program".into());
    }
    let archives: Vec<&Arg> = o.values(&["-F", "--file", "-I", "-O"]).collect();
    for a in &archives {
        let remote = a
            .text
            .split_once(':')
            .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'));
        if remote && !o.has(&["--force-local"]) {
            d.unknowns.push(format!(
                "`cpio -F {}` is an archive on another host, reached by a remote shell",
                a.text
            ));
        }
    }
    for f in o.values(&["-E", "--pattern-file", "--rename-batch-file"]) {
        d.add(Access::Read, f, false);
    }
    let dir = o
        .values(&["-D", "--directory"])
        .last()
        .cloned()
        .unwrap_or_else(|| Arg::lit("."));
    if o.has(&["-i", "--extract"]) {
        for a in &archives {
            d.add(Access::Read, a, false);
        }
        let lists = o.has(&["-t", "--list"]);
        if !lists && !o.has(&["--to-stdout"]) {
            if !o.has(&["--no-absolute-filenames"]) {
                d.unknowns.push(
                    "`cpio -i` writes each member at the name the archive gives it, absolute or through `..` (without `--no-absolute-filenames`)"
                        .into(),
                );
            }
            if o.has(&["-r", "--rename", "--rename-batch-file"]) {
                d.unknowns.push(
                    "`cpio -r` renames the members it extracts to names not known here".into(),
                );
            }
            d.add(Access::WriteDir, &dir, true);
        }
        d.read_only = lists;
    } else if o.has(&["-o", "--create"]) {
        for a in &archives {
            d.add(Access::Write, a, false);
        }
        names_from_input(d);
    } else if o.has(&["-p", "--pass-through"]) {
        if let Some(to) = o.operands.first() {
            d.add(Access::WriteDir, to, true);
        }
        names_from_input(d);
    }
}

/// GNU ar: `ar [OPTIONS] [-]KEYS [RELPOS] [COUNT] ARCHIVE [MEMBERS]`. The
/// modifiers `a`, `b` and `i` take a member name and `N` a count before
/// the archive; `--output DIR` is where `x` extracts; `--plugin` loads a
/// shared object, and `@FILE` reads more arguments from FILE.
fn ar(args: &[Arg], d: &mut Derived) {
    let mut out: Option<Arg> = None;
    let mut keys = String::new();
    let mut rest: Vec<&Arg> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let t = a.text.as_str();
        if let Some(file) = t.strip_prefix('@') {
            d.unknowns
                .push(format!("`ar {t}` reads more arguments from a file"));
            d.add(Access::Read, &a.with_text(file), false);
            continue;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (n, v) = match long.split_once('=') {
                Some((n, v)) => (n, Some(a.with_text(v))),
                None => (long, None),
            };
            let takes = ["plugin", "target", "output", "record-libdeps"]
                .iter()
                .find(|l| !n.is_empty() && l.starts_with(n));
            let v = match (v, takes) {
                (Some(v), _) => Some(v),
                (None, Some(_)) => it.next().cloned(),
                (None, None) => None,
            };
            match takes {
                Some(&"plugin") => d.unknowns.push("`ar --plugin` loads a program".into()),
                Some(&"output") => out = v,
                _ => {}
            }
            continue;
        }
        // The keys come first (`-X32_64` may stand before them); more
        // dashed keys may follow (`ar -r -c lib.a x.o`).
        if rest.is_empty() && (keys.is_empty() || t.starts_with('-')) {
            if !t.starts_with("-X") {
                keys.push_str(t.trim_start_matches('-'));
            }
            continue;
        }
        rest.push(a);
    }
    let positional = keys
        .chars()
        .filter(|c| matches!(c, 'a' | 'b' | 'i' | 'N'))
        .count();
    let rest = rest.get(positional.min(rest.len())..).unwrap_or_default();
    let Some((archive, members)) = rest.split_first() else {
        return;
    };
    let op = keys.chars().find(|c| "dmpqrstx".contains(*c));
    match op {
        Some('x') => {
            d.add(Access::Read, archive, false);
            if keys.contains('P') {
                d.unknowns.push(
                    "`ar xP` extracts members at the full path names the archive holds".into(),
                );
            }
            d.add(
                Access::WriteDir,
                &out.unwrap_or_else(|| Arg::lit(".")),
                true,
            );
        }
        Some('r' | 'q') => {
            d.add(Access::Write, archive, false);
            for m in members {
                d.add(Access::Read, m, false);
            }
        }
        Some('d' | 'm' | 's') => d.add(Access::Write, archive, false),
        _ => d.add(Access::Read, archive, false),
    }
}

/// pax: `-r` reads an archive and writes its members at the names it
/// holds (absolute ones too, and `-s` rewrites them), `-w` writes one,
/// both copies; `-f` names the archive.
fn pax(args: &[Arg], d: &mut Derived, names_from_input: impl Fn(&mut Derived)) {
    let o = parse_opts(args, "fsoxbpTUGEB", &[], &[]);
    let (read, write) = (o.has(&["-r"]), o.has(&["-w"]));
    let archives: Vec<&Arg> = o.values(&["-f"]).collect();
    if read && write {
        names_from_input(d);
        if let Some(to) = o.operands.last() {
            d.add(Access::WriteDir, to, true);
        }
    } else if read {
        for a in &archives {
            d.add(Access::Read, a, false);
        }
        d.unknowns.push(
            "`pax -r` writes each member at the name the archive gives it, absolute or through `..`"
                .into(),
        );
        d.add(Access::WriteDir, &Arg::lit("."), true);
    } else if write {
        for a in &archives {
            d.add(Access::Write, a, false);
        }
        if o.operands.is_empty() {
            names_from_input(d);
        }
        for f in &o.operands {
            d.add(Access::Read, f, true);
        }
    } else {
        for a in &archives {
            d.add(Access::Read, a, false);
        }
    }
}

/// 7-Zip: `7z COMMAND ARCHIVE [FILES]`, switches anywhere, in any case;
/// `-oDIR` is where `x` and `e` extract, `-sdel` deletes the files added,
/// `-spf` keeps (and extracts to) absolute paths, `-u..!NAME` writes
/// another archive, `-wDIR` writes its temporary archive there, and
/// `@LIST`, `-i@LIST`, `-x@LIST` name files in a list.
fn seven_zip(name: &str, args: &[Arg], d: &mut Derived) {
    let mut switches: Vec<(String, &Arg)> = Vec::new();
    let mut operands: Vec<&Arg> = Vec::new();
    let mut end = false;
    for a in args {
        if !end && a.text == "--" {
            end = true;
        } else if !end && a.text.starts_with('-') && a.text.len() > 1 {
            switches.push((a.text[1..].to_ascii_lowercase(), a));
        } else {
            operands.push(a);
        }
    }
    let has = |p: &str| switches.iter().any(|(s, _)| s.starts_with(p));
    let valued = |p: &str| -> Vec<Arg> {
        switches
            .iter()
            .filter(|(s, _)| s.starts_with(p))
            .filter_map(|(_, a)| a.text.get(1 + p.len()..).map(|v| a.with_text(v)))
            .collect()
    };
    if operands.iter().any(|a| a.text.starts_with('@'))
        || switches
            .iter()
            .any(|(s, _)| s.starts_with(['i', 'x', 'a']) && s.contains('@'))
    {
        d.unknowns.push(format!(
            "`{name}` archives the files a list names, or words that are not literal"
        ));
    }
    if switches
        .iter()
        .any(|(s, _)| s.starts_with('u') && s.contains('!'))
    {
        d.unknowns
            .push(format!("`{name} -u..!NAME` writes another archive"));
    }
    for w in valued("w").iter().filter(|w| !w.text.is_empty()) {
        d.add(Access::WriteDir, w, true);
    }
    let Some((cmd, rest)) = operands.split_first() else {
        return;
    };
    match cmd.text.to_ascii_lowercase().as_str() {
        "x" | "e" => {
            if let Some(archive) = rest.first() {
                d.add(Access::Read, archive, false);
            }
            if has("spf") {
                d.unknowns.push(format!(
                    "`{name} -spf` extracts members at the absolute paths the archive holds"
                ));
            }
            if !has("so") {
                let outs = valued("o");
                if outs.is_empty() {
                    d.add(Access::WriteDir, &Arg::lit("."), true);
                }
                for o in &outs {
                    d.add(Access::WriteDir, o, true);
                }
            }
        }
        "a" | "u" => {
            if let Some((archive, files)) = rest.split_first() {
                d.add(Access::Write, archive, false);
                let deletes = has("sdel");
                for f in files {
                    d.add(Access::Read, f, true);
                    if deletes {
                        d.add(Access::Delete, f, true);
                    }
                }
            }
        }
        "d" | "rn" => {
            if let Some(archive) = rest.first() {
                d.add(Access::Write, archive, false);
            }
        }
        _ => {
            if let Some(archive) = rest.first() {
                d.add(Access::Read, archive, false);
            }
        }
    }
}

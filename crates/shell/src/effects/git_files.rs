//! Files git subcommands take by name as input or output, besides the
//! paths of the work tree they show or change: a commit message read
//! from a file (`commit -F`), a file stored as an object (`hash-object
//! -w`, `update-index --add`), one printed back (`interpret-trailers`,
//! `merge-file -p`, `config -f .. -l`), added to an archive (`archive
//! --add-file`) or a patch (`format-patch --signature-file`). Each prints
//! or keeps the content where a later command prints it (`git log`,
//! `git cat-file -p`), so each is a read of the file as `cat` of it is.

use super::*;

/// Whether `git SUB` with `--object-id` takes its operands as objects of
/// the repository rather than files (`merge-file --object-id -p :.env`).
pub(super) fn takes_objects(sub: &str, rest: &[Arg]) -> bool {
    sub == "merge-file"
        && rest
            .iter()
            .any(|a| a.literal && is_option(&a.text, "--object-id"))
}

/// The subcommands whose `--output` [`super::git`] takes apart itself.
const OWN_OUTPUT: &[&str] = &[
    "diff",
    "log",
    "show",
    "whatchanged",
    "diff-tree",
    "diff-files",
    "diff-index",
    "format-patch",
    "archive",
    "bugreport",
    "diagnose",
];

/// Options any subcommand may take that name a file: `--pathspec-from-file`
/// (`add`, `checkout`, `commit`, `reset`, `restore`, `rm`, `stash`) reads
/// it, and git's error on a path it names prints the line; `--output`,
/// which every command that takes diff or revision options accepts
/// (`blame`, `shortlog`, `reflog`, `rev-list`, `range-diff`, `stash show`,
/// `cherry-pick`, `fast-export`, ...), writes it. Each is checked against
/// the real git: a file named so is opened.
fn option_files(sub: &str, rest: &[Arg], d: &mut Derived) {
    let mut iter = rest.iter();
    while let Some(a) = iter.next() {
        if !a.literal {
            continue;
        }
        let t = a.text.as_str();
        if t == "--" {
            break;
        }
        if !t.starts_with("--") {
            continue;
        }
        let (name, glued) = match t.split_once('=') {
            Some((n, v)) => (n, Some(a.with_text(v))),
            None => (t, None),
        };
        let reads = is_option(name, "--pathspec-from-file") && name.len() > "--pathspec".len();
        let writes =
            !OWN_OUTPUT.contains(&sub) && name.len() > "--out".len() && is_option(name, "--output");
        if !(reads || writes) {
            continue;
        }
        let Some(value) = glued.or_else(|| iter.next().cloned()) else {
            continue;
        };
        if reads {
            if value.text != "-" {
                d.add(Access::Read, &value, false);
            }
        } else {
            d.add_by_option(Access::Write, &value, false);
        }
    }
}

/// The reads and writes of the files `git SUB REST` names.
pub(super) fn named_files(sub: &str, rest: &[Arg], d: &mut Derived) {
    let read = |d: &mut Derived, f: &Arg| {
        if f.text != "-" {
            d.add(Access::Read, f, false);
        }
    };
    option_files(sub, rest, d);
    match sub {
        // The message (or template) from a file, kept in the commit, tag
        // or note that `git log` prints.
        "commit" | "tag" | "merge" | "commit-tree" | "notes" | "fmt-merge-msg" => {
            let short = match sub {
                "commit" => "mFtcC",
                "tag" => "mFu",
                "merge" => "mFsX",
                "commit-tree" => "pmF",
                "notes" => "mFcC",
                _ => "mF",
            };
            let o = parse_opts(
                rest,
                short,
                &[
                    "message",
                    "file",
                    "template",
                    "reuse-message",
                    "reedit-message",
                    "fixup",
                    "squash",
                    "author",
                    "date",
                    "cleanup",
                    "trailer",
                    "local-user",
                    "strategy",
                    "strategy-option",
                    "into-name",
                    "ref",
                    "contains",
                    "no-contains",
                    "points-at",
                    "merged",
                    "no-merged",
                    "sort",
                    "format",
                    "pathspec-from-file",
                ],
                &[],
            );
            for f in o.values(&["-F", "--file"]) {
                read(d, f);
            }
            if sub == "commit" {
                for f in o.values(&["-t", "--template"]) {
                    read(d, f);
                }
            }
        }
        // Stored as objects, which `git cat-file -p` and `git show :PATH`
        // print.
        "hash-object" => {
            let o = parse_opts(rest, "t", &["path", "type"], &[]);
            if o.has(&["--stdin-paths"]) {
                d.unknowns.push(
                    "`git hash-object --stdin-paths` stores the files its input names".into(),
                );
            }
            for f in &o.operands {
                read(d, f);
            }
        }
        "update-index" => {
            let o = parse_opts(rest, "", &["chmod", "index-version", "cacheinfo"], &[]);
            if o.has(&["--stdin"]) {
                d.unknowns
                    .push("`git update-index --stdin` stores the files its input names".into());
            }
            // Paths are taken in order whatever options come between;
            // the words of a three-word `--cacheinfo` read as paths too,
            // which only asks more.
            for f in &o.operands {
                read(d, f);
            }
        }
        // Patches and mailboxes read; `mailinfo MSG PATCH` writes both.
        "am" | "mailsplit" => {
            let o = parse_opts(
                rest,
                "o",
                &[
                    "patch-format",
                    "whitespace",
                    "directory",
                    "exclude",
                    "include",
                    "resolvemsg",
                    "quoted-cr",
                    "empty",
                ],
                &[],
            );
            for f in &o.operands {
                d.add(Access::Read, f, true);
            }
            for dir in o.values(&["-o"]) {
                d.add(Access::WriteDir, dir, true);
            }
        }
        "mailinfo" => {
            let o = parse_opts(rest, "", &["encoding", "quoted-cr"], &[]);
            for f in &o.operands {
                d.add(Access::Write, f, false);
            }
        }
        "bundle" => {
            let words: Vec<&Arg> = rest
                .iter()
                .filter(|a| !(a.literal && a.text.starts_with('-')))
                .collect();
            if let [verb, file, ..] = words.as_slice() {
                match verb.text.as_str() {
                    "verify" | "list-heads" | "unbundle" => read(d, file),
                    "create" => d.add(Access::Write, file, false),
                    _ => {}
                }
            }
        }
        // Ignore patterns read from a file, which `-i` turns into a
        // listing of what they match; a per-directory file is read in
        // every directory, wherever it lies.
        "ls-files" => {
            let o = parse_opts(
                rest,
                "xX",
                &[
                    "exclude",
                    "exclude-from",
                    "exclude-per-directory",
                    "format",
                    "abbrev",
                    "with-tree",
                ],
                &[],
            );
            for f in o.values(&["-X", "--exclude-from"]) {
                read(d, f);
            }
            if o.has(&["--exclude-per-directory"]) {
                d.unknowns.push(
                    "`git ls-files --exclude-per-directory` reads the file it names in every directory"
                        .into(),
                );
            }
        }
        // Packs and their indexes, whose objects `-v` lists.
        "verify-pack" | "show-index" => {
            for f in rest
                .iter()
                .filter(|a| !(a.literal && a.text.starts_with('-')))
            {
                read(d, f);
            }
        }
        "read-tree" => {
            let o = parse_opts(rest, "", &["index-output", "prefix", "super-prefix"], &[]);
            for f in o.values(&["--index-output"]) {
                d.add_by_option(Access::Write, f, false);
            }
        }
        // An object directory other than the repository's own, written.
        "commit-graph" | "multi-pack-index" | "pack-objects" | "index-pack" | "prune-packed" => {
            let o = parse_opts(
                rest,
                "o",
                &[
                    "object-dir",
                    "split",
                    "max-pack-size",
                    "window",
                    "depth",
                    "threads",
                    "filter",
                    "keep-pack",
                    "unpack-unreachable",
                    "index-version",
                    "compression",
                    "pack_name",
                ],
                &[],
            );
            for dir in o.values(&["--object-dir"]) {
                d.add_by_option(Access::WriteDir, dir, true);
            }
            match sub {
                // `pack-objects BASE` writes `BASE-HASH.pack` and `.idx`.
                "pack-objects" if !o.has(&["--stdout"]) => {
                    for base in o.operands.iter().take(1) {
                        d.add(Access::Write, base, false);
                    }
                }
                // `index-pack PACK` reads the pack and writes its index
                // beside it, or where `-o` says.
                "index-pack" => {
                    for f in &o.operands {
                        read(d, f);
                    }
                    let out: Vec<&Arg> = o.values(&["-o"]).collect();
                    if out.is_empty() {
                        for f in &o.operands {
                            d.add(Access::Write, f, false);
                        }
                    }
                    for f in out {
                        d.add(Access::Write, f, false);
                    }
                }
                _ => {}
            }
        }
        // A report (and, for `diagnose`, an archive of the repository's
        // layout) made in the directory `-o` names (made if missing, as
        // `mkdir` makes one), or in the one it runs in.
        "bugreport" | "diagnose" => {
            let o = parse_opts(rest, "os", &["output-directory", "suffix", "mode"], &[]);
            for dir in o.values(&["-o", "--output-directory"]) {
                d.add(Access::Write, dir, false);
            }
        }
        // `git config -f FILE -l` prints the file.
        "config" => {
            let mut args = rest.iter();
            while let Some(a) = args.next() {
                if !a.literal {
                    continue;
                }
                if a.text == "-f" || is_option(&a.text, "--file") {
                    if let Some(f) = args.next() {
                        read(d, f);
                    }
                } else if let Some(f) = a.text.strip_prefix("--file=") {
                    read(d, &a.with_text(f));
                } else if let Some(f) = a.text.strip_prefix("-f").filter(|f| !f.is_empty()) {
                    read(d, &a.with_text(f));
                }
            }
        }
        // Prints the three files merged, or writes the merge to the first.
        "merge-file" if !takes_objects(sub, rest) => {
            let o = parse_opts(rest, "L", &["marker-size", "diff-algorithm"], &[]);
            for f in &o.operands {
                read(d, f);
            }
            if !o.has(&["-p", "--stdout"])
                && let Some(first) = o.operands.first()
            {
                d.add(Access::Write, first, false);
            }
        }
        // Prints each file with its trailers, or rewrites it in place.
        "interpret-trailers" => {
            let o = parse_opts(
                rest,
                "",
                &["trailer", "where", "if-exists", "if-missing"],
                &[],
            );
            for f in &o.operands {
                read(d, f);
                if o.has(&["--in-place"]) {
                    d.add_by_option(Access::Write, f, false);
                }
            }
        }
        "archive" => {
            let o = parse_opts(
                rest,
                "o",
                &["add-file", "format", "prefix", "output", "remote", "exec"],
                &[],
            );
            for f in o.values(&["--add-file"]) {
                read(d, f);
            }
        }
        "format-patch" => {
            let o = parse_opts(
                rest,
                "ov",
                &["signature-file", "description-file", "output-directory"],
                &[],
            );
            for f in o.values(&["--signature-file", "--description-file"]) {
                read(d, f);
            }
        }
        "fast-import" | "fast-export" => {
            let o = parse_opts(
                rest,
                "",
                &[
                    "import-marks",
                    "import-marks-if-exists",
                    "export-marks",
                    "export-pack-edges",
                ],
                &[],
            );
            for f in o.values(&["--import-marks", "--import-marks-if-exists"]) {
                read(d, f);
            }
            for f in o.values(&["--export-marks", "--export-pack-edges"]) {
                d.add_by_option(Access::Write, f, false);
            }
        }
        // Another repository, served as a pack or archive on the output.
        "upload-pack" | "upload-archive" => {
            let o = parse_opts(rest, "", &["timeout"], &[]);
            for dir in &o.operands {
                d.add(Access::Read, dir, true);
            }
        }
        _ => {}
    }
}

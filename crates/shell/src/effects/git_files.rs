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

/// The reads and writes of the files `git SUB REST` names.
pub(super) fn named_files(sub: &str, rest: &[Arg], d: &mut Derived) {
    let read = |d: &mut Derived, f: &Arg| {
        if f.text != "-" {
            d.add(Access::Read, f, false);
        }
    };
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
            if let [verb, file, ..] = words.as_slice()
                && matches!(verb.text.as_str(), "verify" | "list-heads" | "unbundle")
            {
                read(d, file);
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
                    d.add(Access::Write, f, false);
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
        // The credentials file given is read, and written by `store`
        // and `erase`.
        "credential-store" => {
            let o = parse_opts(rest, "", &["file"], &[]);
            for f in o.values(&["--file"]) {
                read(d, f);
                d.add(Access::Write, f, false);
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
                d.add(Access::Write, f, false);
            }
        }
        // Another repository, served as a pack or archive on the output.
        "upload-pack" | "upload-archive" => {
            let o = parse_opts(rest, "", &["timeout"], &[]);
            for dir in &o.operands {
                d.add(Access::Read, dir, true);
            }
        }
        "receive-pack" => {
            for dir in rest
                .iter()
                .filter(|a| !(a.literal && a.text.starts_with('-')))
            {
                d.add(Access::WriteDir, dir, true);
            }
        }
        _ => {}
    }
}

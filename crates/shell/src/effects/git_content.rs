//! What git prints, or writes out, of the files it tracks: `git diff`,
//! `log -p`, `show`, `grep`, `archive`, `format-patch`, `add -p`, ... print
//! the content of tracked files from the repository, whatever the work
//! tree holds and whichever path was named. A secret committed by mistake
//! (`.env` in the index) is printed by `git diff`, `git log -p` or `git
//! grep KEY HEAD` as it is by `cat .env`, so these are reads of what git
//! tracks ([`crate::Tracked`]): the policy meets each tracked file with
//! the deny and ask rules on reading it.

use super::*;

/// Long options of `log`, `diff-tree`, `whatchanged`, ... that make them
/// print changed lines (or, for `-S`/`-G`, say which commits changed a
/// string: an oracle on the content). An abbreviation of one counts, as
/// git's option parser takes it.
const PATCH_LONG: &[&str] = &[
    "--patch",
    "--patch-with-raw",
    "--patch-with-stat",
    "--unified",
    "--cc",
    "--dd",
    "--word-diff",
    "--word-diff-regex",
    "--color-words",
    "--color-moved",
    "--function-context",
    "--check",
    "--remerge-diff",
    "--diff-merges",
    "--binary",
    "--inter-hunk-context",
    "--pickaxe-regex",
    "--pickaxe-all",
];

/// Options whose name is a prefix of one in [`PATCH_LONG`] but is an
/// option of its own, which git takes before any abbreviation.
const NOT_ABBREVIATIONS: &[&str] = &["--color"];

/// Options after which `diff` and `show` print names, counts or nothing,
/// not changed lines (unless a [`PATCH_LONG`] option asks for them too).
const SUMMARY: &[&str] = &[
    "--stat",
    "--numstat",
    "--shortstat",
    "--dirstat",
    "--dirstat-by-file",
    "--cumulative",
    "--summary",
    "--compact-summary",
    "--name-only",
    "--name-status",
    "--raw",
    "--no-patch",
    "--quiet",
    "-s",
    "-X",
];

/// The options among `rest`, up to `--`.
fn options(rest: &[Arg]) -> Vec<&str> {
    rest.iter()
        .take_while(|a| !(a.literal && a.text == "--"))
        .filter(|a| a.literal && a.text.len() > 1 && a.text.starts_with('-'))
        .map(|a| a.text.as_str())
        .collect()
}

/// The name of a long option as given, without its `=VALUE`.
fn long_name(opt: &str) -> &str {
    opt.split('=').next().unwrap_or(opt)
}

/// Whether a cluster of short options (`-pw`, `-U5`) holds one of
/// `letters` before any value glued to it.
fn short_has(opt: &str, letters: &[char]) -> bool {
    opt.strip_prefix('-').is_some_and(|c| {
        c.chars()
            .take_while(char::is_ascii_alphabetic)
            .any(|ch| letters.contains(&ch))
    })
}

/// Whether an option asks for changed lines: a [`PATCH_LONG`] option or
/// an abbreviation of one, or a short option that is or holds `-p`, `-u`,
/// `-c`, `-m`, or starts `-U`, `-W`, `-S`, `-G` or `-L` (whose value may
/// be glued: `-Skey`, `-U5`, `-L1,5:f`).
fn asks_for_patch(opt: &str) -> bool {
    if opt.starts_with("--") {
        let given = long_name(opt);
        return !NOT_ABBREVIATIONS.contains(&given)
            && PATCH_LONG.iter().any(|p| is_option(given, p));
    }
    opt.strip_prefix('-')
        .is_some_and(|c| c.starts_with(['U', 'W', 'S', 'G', 'L']))
        || short_has(opt, &['p', 'u', 'c', 'm'])
}

/// Whether `opts` make `diff` or `show` print no changed lines.
fn summary_only(opts: &[&str]) -> bool {
    let summary = opts.iter().any(|o| SUMMARY.contains(&long_name(o)));
    summary && !opts.iter().any(|o| asks_for_patch(o))
}

/// Whether an option turns on git's interactive patch mode, which prints
/// each changed hunk (`add -p`, `checkout --patch`, `reset -p`, `stash
/// -p`, `commit --interactive`; `add -e` opens the whole diff).
fn patch_mode(sub: &str, opts: &[&str]) -> bool {
    let adds = matches!(sub, "add" | "stage");
    let (modes, letters): (&[&str], &[char]) = if adds {
        (&["--patch", "--interactive", "--edit"], &['p', 'i', 'e'])
    } else {
        (&["--patch", "--interactive"], &['p'])
    };
    opts.iter().any(|o| {
        if o.starts_with("--") {
            let given = long_name(o);
            modes.iter().any(|m| is_option(given, m))
        } else {
            short_has(o, letters)
        }
    })
}

/// Whether `git SUB REST` prints, writes out or hands on the content of
/// tracked files. Config can change some defaults (`stash.showPatch`),
/// so a subcommand whose default it changes counts whatever its options.
pub(super) fn shows_content(sub: &str, rest: &[Arg]) -> bool {
    let opts = options(rest);
    let first = rest
        .iter()
        .find(|a| !(a.literal && a.text.starts_with('-')))
        .map(|a| a.text.as_str());
    let operands = rest.iter().any(|a| !(a.literal && a.text.starts_with('-')));
    match sub {
        "diff" => !opts.contains(&"--no-index") && !summary_only(&opts),
        // What `show` is given may be a blob, printed whatever the options.
        "show" => operands || !summary_only(&opts),
        "log" | "whatchanged" | "reflog" | "diff-tree" | "diff-index" | "diff-files"
        | "request-pull" => opts.iter().any(|o| asks_for_patch(o)),
        "cat-file" => {
            let prints = opts.iter().any(|o| {
                matches!(*o, "-p" | "--textconv" | "--filters")
                    || o.starts_with("--batch=")
                    || *o == "--batch"
                    || o.starts_with("--batch-command")
            });
            let only_about = opts
                .iter()
                .any(|o| matches!(*o, "-t" | "-s" | "-e") || o.starts_with("--batch-check"));
            prints || !only_about
        }
        "stash" => first == Some("show") || patch_mode(sub, &opts),
        "bundle" => first == Some("create"),
        // A copy elsewhere; in place, the files are where rules meet them.
        "checkout-index" => opts.iter().any(|o| o.starts_with("--prefix")),
        "worktree" => first == Some("add"),
        "rerere" => first == Some("diff"),
        "merge-file" => takes_objects(sub, rest),
        "add" | "stage" | "checkout" | "reset" | "restore" | "commit" => patch_mode(sub, &opts),
        "format-patch" | "archive" | "range-diff" | "fast-export" | "unpack-file" | "grep"
        | "difftool" | "merge-tree" | "send-email" | "diff-pairs" | "instaweb" | "daemon"
        | "upload-pack" | "upload-archive" | "pack-objects" | "http-backend" => true,
        _ => false,
    }
}

/// Whether a pathspec is more than a path: magic (`:(glob)*.env`, `:/`,
/// `:!src`), or a pattern git matches against every tracked path (`*.env`,
/// `[.]env`, `\.env`).
pub(super) fn is_pattern(text: &str) -> bool {
    text.starts_with(':') || text.contains(['*', '?', '[', '\\'])
}

/// The reads of tracked content `git SUB REST` makes, when it shows any:
/// the paths given after `--` (each, or the whole repository when one is
/// a pattern), or the whole repository (`git diff`, `git show abc123`,
/// `git log -p main`: a word may be a revision or an object name, which
/// reaches any tracked file). `grep` is [`grep_reads`].
pub(super) fn tracked_reads(sub: &str, rest: &[Arg], d: &mut Derived) {
    if sub == "grep" || !shows_content(sub, rest) {
        return;
    }
    let dashes = rest.iter().position(|a| a.literal && a.text == "--");
    let after: &[Arg] = dashes.and_then(|i| rest.get(i + 1..)).unwrap_or_default();
    let whole = after.is_empty() || after.iter().any(|a| !a.literal || is_pattern(&a.text));
    if whole {
        d.add(Access::Repository, &Arg::lit("."), true);
        return;
    }
    for a in after {
        d.add(Access::Tracked, a, true);
    }
}

/// What `git grep` searches of what git tracks: beneath the directory it
/// runs in and beneath each path it is given (`paths`, the words after its
/// pattern; without `--`, any of them may be a revision instead, so the
/// directory it runs in counts as well). A path outside it (`..`, `/`),
/// a pattern or pathspec magic (`:/`) reaches the whole repository.
pub(super) fn grep_reads(paths: &[&Arg], dashes: bool, d: &mut Derived) {
    let beyond = paths.iter().any(|a| {
        !a.literal
            || is_pattern(&a.text)
            || a.text.starts_with('/')
            || a.text.split('/').any(|c| c == "..")
    });
    if beyond {
        d.add(Access::Repository, &Arg::lit("."), true);
        return;
    }
    if !dashes || paths.is_empty() {
        d.add(Access::Tracked, &Arg::lit("."), true);
    }
    for p in paths {
        d.add(Access::Tracked, p, true);
    }
}

/// Which entries beneath a directory git takes for untracked files it may
/// add: not `.git`, and not what `.gitignore`, `.git/info/exclude` (or, as
/// far as it re-includes, the global excludes file) leave out.
fn untracked() -> Filter {
    let not_git = NameTest::Not(Box::new(NameTest::Glob {
        pattern: ".git".into(),
        fold: false,
    }));
    Filter {
        files: NameTest::Any,
        dirs: not_git.clone(),
        split: false,
        ignores: Some(Box::new(Ignores {
            rgignore: Honour::Off,
            ignore: Honour::Off,
            gitignore: Honour::Read,
            exclude: Honour::Read,
            global: Honour::Maybe,
            parents: true,
            require_git: true,
            fold: false,
            unread: false,
            kept_files: NameTest::Never,
            kept_dirs: NameTest::Never,
            included_files: NameTest::Any,
            included_dirs: not_git,
        })),
    }
}

/// What git reads into the repository from the work tree, untracked files
/// included: `git add DIR` (and `-A`, `.`) stages every file beneath that
/// the ignore files do not leave out (all of them with `-f`), and `git
/// stash -u` (`-a`: ignored ones too) stores them, to be shown by `git
/// show stash^3`. Each is a read of what lies beneath, as `cat` of it
/// would be.
pub(super) fn untracked_reads(sub: &str, rest: &[Arg], d: &mut Derived) {
    let flag = |short: char, long: &[&str]| {
        rest.iter()
            .take_while(|a| !(a.literal && a.text == "--"))
            .any(|a| {
                a.literal
                    && ((a.text.starts_with('-')
                        && !a.text.starts_with("--")
                        && a.text.contains(short))
                        || long.iter().any(|l| is_option(&a.text, l)))
            })
    };
    match sub {
        "add" | "stage" => {
            if rest
                .iter()
                .any(|a| a.literal && a.text.starts_with("--pathspec-from-file"))
            {
                d.unknowns
                    .push("`git add --pathspec-from-file` adds the paths a file names".into());
            }
            if flag('u', &["--update"]) {
                return;
            }
            let filter = (!flag('f', &["--force"])).then(untracked);
            let paths: Vec<&Arg> = rest
                .iter()
                .filter(|a| !(a.literal && (a.text.starts_with('-') || a.text.is_empty())))
                .collect();
            // Without paths, `-A` takes the whole work tree, wherever it
            // runs.
            if paths.is_empty() && flag('A', &["--all", "--no-ignore-removal"]) {
                d.add_filtered(Access::WorkTree, &Arg::lit("."), true, filter);
                return;
            }
            for p in paths {
                if p.literal && is_pattern(&p.text) {
                    d.add_filtered(Access::Read, &Arg::lit("."), true, filter.clone());
                } else {
                    d.add_filtered(Access::Read, p, true, filter.clone());
                }
            }
        }
        "stash" => {
            let first = rest
                .iter()
                .find(|a| !(a.literal && a.text.starts_with('-')));
            let pushes = first.is_none_or(|a| matches!(a.text.as_str(), "push" | "save"));
            if !pushes {
                return;
            }
            // What is stored is taken out of the work tree too: a read
            // and a removal of the same files.
            let filter = if flag('a', &["--all"]) {
                None
            } else if flag('u', &["--include-untracked"]) {
                Some(untracked())
            } else {
                return;
            };
            d.add_filtered(Access::WorkTree, &Arg::lit("."), true, filter.clone());
            d.add_filtered(Access::WorkTreeRemoved, &Arg::lit("."), true, filter);
        }
        _ => {}
    }
}

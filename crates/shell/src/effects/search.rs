//! What recursive searches leave out by name: `grep -r` with `--include`,
//! `--exclude` and `--exclude-dir` (GNU grep's manual: the last
//! `--include` or `--exclude` whose pattern matches a file's base name
//! decides; when none matches, a file is searched unless the first of them
//! is an `--include`), and ripgrep, which skips hidden files and
//! directories unless `--hidden`, `-.` or `-uu` (the last of `--hidden`
//! and `--no-hidden` wins), while a `-g`/`--glob`/`--iglob` glob overrides
//! that and, when one is not a `!` exclusion, searches only the files it
//! matches. A `-t TYPE` searches only the files of its types (ripgrep's
//! built-in lists, [`super::rg_types`]), hidden ones included when a type
//! names them (`-t sh` reads `.bashrc`), and a `-T TYPE` leaves its files
//! out; a positive glob overrides both. Ripgrep's ignore files are read by
//! the policy's walk ([`Ignores`]): this says which kinds ripgrep reads
//! under its options, and what is read whatever they say. Only what
//! surely cannot be read is left out; an exclusion not understood excludes
//! nothing.

use super::Opts;
use super::filter::{Filter, Honour, Ignores, NameTest};

/// What ripgrep given the options `args` (no program name, no pattern,
/// no path) reads beneath a directory it searches: for a client's search
/// tool that runs ripgrep (Claude Code's `Grep` passes `--hidden`, its
/// `glob` as `--glob`, its `type` as `--type`). `None`: everything.
pub fn ripgrep_filter(args: &[&str]) -> Option<Filter> {
    let spec = crate::tables::known("rg").spec?;
    let argv: Vec<crate::words::Arg> = args.iter().map(|a| crate::words::Arg::lit(*a)).collect();
    let o = super::parse_opts(&argv, spec.short_args, spec.long_args, spec.file_opts);
    rg_filter(&o)
}

pub(super) fn search_filter(name: &str, o: &Opts) -> Option<Filter> {
    match name {
        "grep" | "egrep" | "fgrep" | "zgrep" => grep_filter(o),
        "rg" => rg_filter(o),
        _ => None,
    }
}

fn glob(pattern: &str, fold: bool) -> NameTest {
    NameTest::Glob {
        pattern: pattern.to_string(),
        fold,
    }
}

fn grep_filter(o: &Opts) -> Option<Filter> {
    let mut files: Option<NameTest> = None;
    let mut dirs = NameTest::Any;
    for (opt, value) in &o.opts {
        let Some(v) = value else { continue };
        let include = o.is(opt, "--include");
        let exclude = o.is(opt, "--exclude");
        if include || exclude {
            let acc = files.take().unwrap_or(if include {
                NameTest::Never
            } else {
                NameTest::Any
            });
            files = Some(match (include, v.literal) {
                (true, true) => NameTest::Either(vec![glob(&v.text, false), acc]),
                // A pattern only known when it runs may include anything.
                (true, false) => NameTest::Either(vec![NameTest::Unknown, acc]),
                (false, true) => {
                    NameTest::All(vec![NameTest::Not(Box::new(glob(&v.text, false))), acc])
                }
                (false, false) => NameTest::All(vec![NameTest::Unknown, acc]),
            });
        } else if o.is(opt, "--exclude-dir") && v.literal {
            dirs = dirs.and(NameTest::Not(Box::new(glob(&v.text, false))));
        }
    }
    Filter {
        files: files.unwrap_or(NameTest::Any),
        dirs,
        split: false,
        ignores: None,
    }
    .or_none()
}

/// Ripgrep's filter: its names (globs, types, the hidden rule) and, unless
/// `--no-ignore` or `-u`, its ignore files.
fn rg_filter(o: &Opts) -> Option<Filter> {
    let names = rg_names(o, false);
    let Some(sources) = rg_ignores(o) else {
        return names;
    };
    // Read even when an ignore file leaves it out: what a positive glob
    // matches (ripgrep's globs decide first). A glob not followed may
    // match anything.
    let mut kept = Vec::new();
    for (opt, value) in &o.opts {
        if !matches!(opt.as_str(), "-g" | "--glob" | "--iglob") {
            continue;
        }
        match value {
            Some(v) if v.literal && v.text.starts_with('!') => {}
            Some(v) if v.literal && name_glob(&v.text) => {
                kept.push(glob(&v.text, true));
            }
            _ => return None,
        }
    }
    let kept = if kept.is_empty() {
        NameTest::Never
    } else {
        // Matched ignoring case: at least what ripgrep's glob matches.
        NameTest::Either(kept)
    };
    let (files, dirs) = names.map_or((NameTest::Any, NameTest::Any), |f| (f.files, f.dirs));
    // Re-included by an ignore file: the hidden rule no longer holds.
    let (included_files, included_dirs) =
        rg_names(o, true).map_or((NameTest::Any, NameTest::Any), |f| (f.files, f.dirs));
    Some(Filter {
        files,
        dirs,
        split: false,
        ignores: Some(Box::new(Ignores {
            kept_files: kept.clone(),
            kept_dirs: kept,
            included_files,
            included_dirs,
            ..sources
        })),
    })
}

/// Which ignore files ripgrep 13 reads under its options (checked against
/// it: `--no-ignore-dot` leaves `.rgignore` read, later ripgreps may not;
/// `--no-ignore-vcs` also drops `.git/info/exclude` and the parents'
/// `.gitignore`). `None`: none at all. The global excludes file is found
/// from git's configuration, which the walk reads only for what it
/// re-includes.
fn rg_ignores(o: &Opts) -> Option<Ignores> {
    let (mut no_ignore, mut unrestricted) = (false, 0);
    let (mut dot, mut vcs, mut parent, mut exclude, mut global) =
        (false, false, false, false, false);
    let (mut no_require_git, mut fold, mut explicit, mut files_off) = (false, false, false, false);
    for (opt, _) in &o.opts {
        match opt.as_str() {
            "--no-ignore" => no_ignore = true,
            "--ignore" => no_ignore = false,
            "-u" | "--unrestricted" => unrestricted += 1,
            "--no-ignore-dot" => dot = true,
            "--ignore-dot" => dot = false,
            "--no-ignore-vcs" => vcs = true,
            "--ignore-vcs" => vcs = false,
            "--no-ignore-parent" => parent = true,
            "--ignore-parent" => parent = false,
            "--no-ignore-exclude" => exclude = true,
            "--ignore-exclude" => exclude = false,
            "--no-ignore-global" => global = true,
            "--ignore-global" => global = false,
            "--no-require-git" => no_require_git = true,
            "--require-git" => no_require_git = false,
            "--ignore-file-case-insensitive" => fold = true,
            "--no-ignore-file-case-insensitive" => fold = false,
            "--ignore-file" => explicit = true,
            // Even for the `--ignore-file`s after it.
            "--no-ignore-files" => files_off = true,
            "--ignore-files" => files_off = false,
            _ => {}
        }
    }
    let off = no_ignore || unrestricted >= 1;
    let unread = explicit && !files_off;
    if off && !unread {
        return None;
    }
    let honour = |off: bool, maybe: bool| match (off, maybe) {
        (true, _) => Honour::Off,
        (false, true) => Honour::Maybe,
        (false, false) => Honour::Read,
    };
    Some(Ignores {
        rgignore: honour(off, dot),
        ignore: honour(off || dot, false),
        gitignore: honour(off || vcs, false),
        exclude: honour(off || vcs || exclude, false),
        global: honour(off || vcs || global, true),
        parents: !off && !parent,
        require_git: !no_require_git,
        fold,
        unread,
        kept_files: NameTest::Never,
        kept_dirs: NameTest::Never,
        included_files: NameTest::Any,
        included_dirs: NameTest::Any,
    })
}

/// Ripgrep's filter by name; `hidden`: as if `--hidden` were given.
fn rg_names(o: &Opts, force: bool) -> Option<Filter> {
    let mut hidden = force;
    let mut unrestricted = 0;
    let mut globs: Vec<(String, bool)> = Vec::new();
    let mut unknown_glob = false;
    let mut fold_all = false;
    // The names given to `-t` and `-T` (`None`: not literal), and the
    // literal `--type-add NAME:GLOB` definitions (`types` false: one
    // that is not understood, or a `--type-clear`).
    let mut sel_names: Vec<Option<&str>> = Vec::new();
    let mut neg_names: Vec<Option<&str>> = Vec::new();
    let mut added: Vec<(&str, &str)> = Vec::new();
    let mut types = true;
    for (opt, value) in &o.opts {
        let literal = value
            .as_ref()
            .filter(|v| v.literal)
            .map(|v| v.text.as_str());
        match opt.as_str() {
            "-t" | "--type" => sel_names.push(literal),
            "-T" | "--type-not" => neg_names.push(literal),
            "--type-add" => match literal.and_then(type_definition) {
                Some(def) => added.push(def),
                None => types = false,
            },
            "--type-clear" => types = false,
            "-." | "--hidden" => hidden = true,
            "--no-hidden" => hidden = force,
            "-u" | "--unrestricted" => {
                unrestricted += 1;
                if unrestricted >= 2 {
                    hidden = true;
                }
            }
            "--glob-case-insensitive" => fold_all = true,
            "--no-glob-case-insensitive" => fold_all = false,
            "-g" | "--glob" | "--iglob" => match value {
                Some(v) if v.literal => globs.push((v.text.clone(), opt == "--iglob")),
                _ => unknown_glob = true,
            },
            _ => {}
        }
    }
    let not_hidden = || NameTest::Not(Box::new(NameTest::Hidden));
    if unknown_glob {
        return None;
    }
    let positive_glob = globs.iter().any(|(g, _)| !g.starts_with('!'));
    if !(positive_glob || (sel_names.is_empty() && neg_names.is_empty())) {
        if !types {
            return None;
        }
        // Every definition is read before any type is selected.
        let resolve = |names: &[Option<&str>]| -> Option<Vec<String>> {
            let mut out = Vec::new();
            for name in names {
                let name = (*name)?;
                let builtin = super::rg_types::globs(name);
                let mut known = builtin.is_some();
                out.extend(builtin.unwrap_or_default().iter().map(|g| g.to_string()));
                for (n, defined) in &added {
                    if *n == name {
                        known = true;
                        out.push(defined.to_string());
                    }
                }
                if !known {
                    return None;
                }
            }
            Some(out)
        };
        return type_filter(
            hidden,
            !sel_names.is_empty(),
            resolve(&sel_names),
            resolve(&neg_names),
        );
    }
    if globs.is_empty() {
        return if hidden {
            None
        } else {
            Some(Filter {
                files: not_hidden(),
                dirs: not_hidden(),
                split: false,
                ignores: None,
            })
        };
    }
    // A glob overrides the hidden rule for what it matches, and may match
    // a directory: every directory may be entered.
    let positive: Vec<&(String, bool)> =
        globs.iter().filter(|(g, _)| !g.starts_with('!')).collect();
    if positive.is_empty() {
        return if hidden {
            None
        } else {
            Filter {
                files: not_hidden(),
                dirs: NameTest::Any,
                split: false,
                ignores: None,
            }
            .or_none()
        };
    }
    if !positive.iter().all(|(g, _)| name_glob(g)) {
        return None;
    }
    Filter {
        files: NameTest::Either(
            positive
                .iter()
                .map(|(g, fold)| glob(g, *fold || fold_all))
                .collect(),
        ),
        dirs: NameTest::Any,
        split: false,
        ignores: None,
    }
    .or_none()
}

/// Whether a ripgrep glob is one this module matches as ripgrep does:
/// ripgrep's globs are gitignore globs, so one with `/` matches a path,
/// and `**`, `{a,b}` and `\\` escapes match more than `fnmatch` would;
/// those are not followed.
fn name_glob(g: &str) -> bool {
    !g.contains(['/', '{', '\\']) && !g.contains("**")
}

/// A literal `--type-add` value, `NAME:GLOB`; `None` for an
/// `NAME:include:TYPES` of other types, an empty part, a `,` (which
/// ripgreps read differently) or a glob [`name_glob`] refuses.
fn type_definition(value: &str) -> Option<(&str, &str)> {
    let (name, glob) = value.split_once(':')?;
    let plain = !glob.is_empty() && !glob.contains([':', ',', '}']) && name_glob(glob);
    (!name.is_empty() && plain).then_some((name, glob))
}

/// Ripgrep's type filter (no positive glob overrides it): a file whose
/// name matches a `-T` type's glob is left out; with `-t`, only a file
/// whose name matches a `-t` type's glob is read, hidden or not (a type
/// that names a file lets it through the hidden rule); without, the hidden
/// rule holds. Directories are not typed: the hidden rule alone decides
/// which are entered. A name matching both lists is not decided here
/// (ripgrep takes the last glob that matches, in an order of its own).
fn type_filter(
    hidden: bool,
    any_selected: bool,
    selected: Option<Vec<String>>,
    negated: Option<Vec<String>>,
) -> Option<Filter> {
    let (selected, negated) = (selected?, negated?);
    let either =
        |globs: &[String]| NameTest::Either(globs.iter().map(|g| glob(g, false)).collect());
    let not_hidden = || NameTest::Not(Box::new(NameTest::Hidden));
    let excluded = NameTest::Not(Box::new(either(&negated)));
    let files = if any_selected {
        let sel = either(&selected);
        // In both lists: not known which wins.
        let both = NameTest::All(vec![sel.clone(), either(&negated)]);
        NameTest::Either(vec![
            NameTest::All(vec![sel, excluded]),
            NameTest::All(vec![both, NameTest::Unknown]),
        ])
    } else if hidden {
        excluded
    } else {
        NameTest::All(vec![not_hidden(), excluded])
    };
    Filter {
        files,
        dirs: if hidden { NameTest::Any } else { not_hidden() },
        split: false,
        ignores: None,
    }
    .or_none()
}

#[cfg(test)]
mod tests {
    use super::super::parse_opts;
    use super::*;
    use crate::tables;
    use crate::words::Arg;

    fn full(cmd: &str) -> Option<Filter> {
        let words: Vec<Arg> = cmd.split_whitespace().map(Arg::lit).collect();
        let (name, args) = words.split_first().expect("a command");
        let spec = tables::known(&name.text).spec.expect("a table");
        let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
        search_filter(&name.text, &o)
    }

    /// The filter by name alone, ripgrep's ignore files aside.
    fn filter(cmd: &str) -> Option<Filter> {
        full(cmd).and_then(|f| Filter { ignores: None, ..f }.or_none())
    }

    fn reaches(cmd: &str, file: &str) -> bool {
        filter(cmd).is_none_or(|f| f.reaches_file(file))
    }

    fn enters(cmd: &str, dir: &str) -> bool {
        filter(cmd).is_none_or(|f| f.enters_dir(dir))
    }

    /// Each checked against GNU grep 3.8 in a directory holding `.env`,
    /// `a.rs`, `src/b.rs`, `src/.env`, `.hid/c.rs`, `x.txt`.
    #[test]
    fn grep_include_exclude() {
        assert!(!reaches("grep -r --include=*.rs x .", ".env"));
        assert!(reaches("grep -r --include=*.rs x .", "a.rs"));
        assert!(!reaches("grep -r --include *.rs x .", "x.txt"));
        assert!(!reaches("grep -r --include=*.rs --exclude=b* x .", "b.rs"));
        assert!(reaches("grep -r --include=*.rs --exclude=b* x .", "a.rs"));
        assert!(!reaches("grep -r --exclude=.env* x .", ".env"));
        assert!(reaches("grep -r --exclude=*.rs x .", ".env"));
        // The last matching option wins: `.env` matches both, the include
        // is last; `a.rs` matches neither, and the first is an exclude.
        assert!(reaches(
            "grep -r --exclude=.env --include=.env* x .",
            ".env"
        ));
        assert!(reaches(
            "grep -r --exclude=.env --include=.env* x .",
            "a.rs"
        ));
        assert!(!enters("grep -r --exclude-dir=src x .", "src"));
        assert!(enters("grep -r --exclude-dir=src x .", "lib"));
        assert!(filter("grep -r x .").is_none());
        // `*` matches a leading dot (fnmatch without FNM_PERIOD).
        assert!(reaches("grep -r --include=* x .", ".env"));
        // Abbreviated, as grep accepts.
        assert!(!reaches("grep -r --incl=*.rs x .", ".env"));
    }

    /// Each checked against ripgrep 13 (`rg -l`) in a directory holding
    /// `.env`, `.bashrc`, `a.sh`, `a.rs`, `A.RS`, `Makefile`, `x.txt`.
    #[test]
    fn ripgrep_types() {
        assert!(!reaches("rg -trust x", ".env"));
        assert!(reaches("rg -trust x", "a.rs"));
        assert!(!reaches("rg -trust x", "A.RS"));
        assert!(!reaches("rg --type rust x", "x.txt"));
        assert!(reaches("rg -tmake -trust x", "Makefile"));
        // A type's hidden names are read; later ripgreps' `sh` has `.env`.
        assert!(reaches("rg -tsh x", ".bashrc"));
        assert!(reaches("rg -tsh x", ".env"));
        assert!(!reaches("rg -tsh x", "a.rs"));
        // Directories are not typed: hidden ones stay out.
        assert!(!enters("rg -trust x", ".hid"));
        assert!(enters("rg -trust --hidden x", ".hid"));
        assert!(!reaches("rg -Tsh x", "a.sh"));
        assert!(reaches("rg -Tsh x", "a.rs"));
        assert!(!reaches("rg -Trust x", ".env"));
        assert!(reaches("rg -Trust --hidden x", ".env"));
        // In both lists: not decided.
        assert!(reaches("rg -trust -Trust x", "a.rs"));
        assert!(!reaches("rg -trust -Trust x", "x.txt"));
        // A positive glob overrides the types.
        assert!(reaches("rg -tsh -g *.rs x", "a.rs"));
        assert!(!reaches("rg -tsh -g *.rs x", ".bashrc"));
        // Unknown or redefined types are not followed.
        assert!(filter("rg -tnosuchtype x").is_none());
        assert!(filter("rg --type-add x:include:rust -tx x").is_none());
        assert!(filter("rg --type-add x:*.rs,*.c -tx x").is_none());
        assert!(filter("rg --type-add x:src/*.rs -tx x").is_none());
        assert!(filter("rg --type-clear rust -trust x").is_none());
        // A literal definition adds to the type, wherever it is given.
        assert!(reaches("rg -tx --type-add x:*.foo x", "a.foo"));
        assert!(!reaches("rg -tx --type-add x:*.foo x", "a.rs"));
        assert!(reaches("rg --type-add x:.env -tx x", ".env"));
        assert!(reaches("rg --type-add rust:*.foo -trust x", "a.foo"));
        assert!(reaches("rg --type-add rust:*.foo -trust x", "a.rs"));
        assert!(filter("rg -tall x").is_none());
    }

    /// Each checked against ripgrep 13 in the same directory.
    #[test]
    fn ripgrep_hidden_and_globs() {
        assert!(!reaches("rg x", ".env"));
        assert!(!enters("rg x", ".hid"));
        assert!(reaches("rg x", "a.rs"));
        for all in [
            "rg --hidden x",
            "rg -. x",
            "rg -uu x",
            "rg -u -u x",
            "rg -uuu x",
        ] {
            assert!(reaches(all, ".env"), "{all}");
            assert!(enters(all, ".hid"), "{all}");
        }
        assert!(!reaches("rg -u x", ".env"));
        assert!(!reaches("rg --hidden --no-hidden x", ".env"));
        assert!(reaches("rg -g .env x", ".env"));
        assert!(!reaches("rg -g *.rs x", ".env"));
        assert!(reaches("rg -g *.rs x", "a.rs"));
        assert!(reaches("rg --iglob .ENV x", ".env"));
        assert!(reaches("rg --glob-case-insensitive -g .ENV x", ".env"));
        assert!(!reaches("rg -g !*.rs x", ".env"));
        assert!(reaches("rg -g {.env,x} x", ".env"));
        assert!(reaches("rg -g **/.env x", ".env"));
    }

    /// Which ignore files ripgrep 13 reads, each checked against it.
    #[test]
    fn ripgrep_ignore_files() {
        let ig = |cmd: &str| full(cmd).and_then(|f| f.ignores.map(|i| *i));
        let i = ig("rg x").expect("read by default");
        assert_eq!(
            (i.rgignore, i.ignore, i.gitignore, i.exclude, i.global),
            (
                Honour::Read,
                Honour::Read,
                Honour::Read,
                Honour::Read,
                Honour::Maybe
            )
        );
        assert!(i.parents && i.require_git && !i.unread);
        assert_eq!(i.kept_files, NameTest::Never);
        // Re-included, a hidden file is read.
        assert_eq!(i.included_files.eval(".env"), Some(true));
        for off in ["rg -u x", "rg -uu x", "rg --no-ignore x"] {
            assert!(ig(off).is_none(), "{off}");
        }
        let i = ig("rg --no-ignore --ignore-file f x").expect("an unread file");
        assert!(i.unread && i.gitignore == Honour::Off);
        assert!(ig("rg --ignore-file f --no-ignore-files --no-ignore x").is_none());
        let i = ig("rg --no-ignore-vcs x").unwrap();
        assert_eq!(
            (i.gitignore, i.exclude, i.global),
            (Honour::Off, Honour::Off, Honour::Off)
        );
        assert_eq!(i.ignore, Honour::Read);
        let i = ig("rg --no-ignore-dot x").unwrap();
        assert_eq!((i.ignore, i.rgignore), (Honour::Off, Honour::Maybe));
        assert!(!ig("rg --no-ignore-parent x").unwrap().parents);
        assert!(!ig("rg --no-require-git x").unwrap().require_git);
        assert_eq!(ig("rg --no-ignore-exclude x").unwrap().exclude, Honour::Off);
        // A positive glob keeps what it matches; one not followed, all.
        let i = ig("rg -g *.txt -g !*.rs x").unwrap();
        assert_eq!(i.kept_files.eval("p.txt"), Some(true));
        assert_eq!(i.kept_files.eval("a.rs"), Some(false));
        assert!(full("rg -g src/*.txt x").is_none());
    }
}

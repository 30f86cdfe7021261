//! What recursive searches leave out by name: `grep -r` with `--include`,
//! `--exclude` and `--exclude-dir` (GNU grep's manual: the last
//! `--include` or `--exclude` whose pattern matches a file's base name
//! decides; when none matches, a file is searched unless the first of them
//! is an `--include`), and ripgrep, which skips hidden files and
//! directories unless `--hidden`, `-.` or `-uu` (the last of `--hidden`
//! and `--no-hidden` wins), while a `-g`/`--glob`/`--iglob` glob overrides
//! that and, when one is not a `!` exclusion, searches only the files it
//! matches. Ripgrep's `.gitignore` rules are not followed: the files they
//! leave out still count as read. Only what surely cannot be read is left
//! out; an exclusion not understood excludes nothing.

use super::Opts;
use super::filter::{Filter, NameTest};

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
    }
    .or_none()
}

fn rg_filter(o: &Opts) -> Option<Filter> {
    let mut hidden = false;
    let mut unrestricted = 0;
    let mut globs: Vec<(String, bool)> = Vec::new();
    let mut unknown_glob = false;
    let mut fold_all = false;
    for (opt, value) in &o.opts {
        match opt.as_str() {
            "-." | "--hidden" => hidden = true,
            "--no-hidden" => hidden = false,
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
    if globs.is_empty() {
        return if hidden {
            None
        } else {
            Some(Filter {
                files: not_hidden(),
                dirs: not_hidden(),
                split: false,
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
            }
            .or_none()
        };
    }
    // Ripgrep's globs are gitignore globs: one with `/` matches a path,
    // `**` and `{a,b}` more than `fnmatch` would; those are not followed.
    if positive
        .iter()
        .any(|(g, _)| g.contains(['/', '{', '\\']) || g.contains("**"))
    {
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
    }
    .or_none()
}

#[cfg(test)]
mod tests {
    use super::super::parse_opts;
    use super::*;
    use crate::tables;
    use crate::words::Arg;

    fn filter(cmd: &str) -> Option<Filter> {
        let words: Vec<Arg> = cmd.split_whitespace().map(Arg::lit).collect();
        let (name, args) = words.split_first().expect("a command");
        let spec = tables::known(&name.text).spec.expect("a table");
        let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
        search_filter(&name.text, &o)
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
}

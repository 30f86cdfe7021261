//! Which entries beneath a directory a recursive read reaches, by name:
//! `find DIR -name '*.c' -exec ..`, `grep -r --include='*.rs'`, ripgrep
//! skipping hidden files. The policy walks the directory and meets deny
//! rules only on what the filter lets through. Ripgrep's ignore files
//! (`.gitignore`, `.ignore`, `.rgignore`) are read by that walk as it
//! descends: [`Ignores`] says which, and what is read whatever they say.

use crate::glob;

/// A test on one entry's name (its last path component), answered in
/// three values: `Some(true)`, `Some(false)`, or `None` when the name alone
/// cannot tell (`find -size`, a match that depends on the locale). An
/// entry is left out only when the answer is `Some(false)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameTest {
    /// Every name.
    Any,
    /// No name (`grep --include=X` leaves out what matches no `--include`).
    Never,
    /// The name matches a pattern as `fnmatch` reads it (`*`, `?`,
    /// brackets, `\` quoting; `*` matches a leading `.`); `fold`: ignoring
    /// case (`find -iname`).
    Glob {
        /// The pattern.
        pattern: String,
        /// Case-insensitively.
        fold: bool,
    },
    /// The name starts with `.`.
    Hidden,
    /// The entry is a directory, not a link to one (`find -type d`
    /// without `-L` or `-follow`): answered where the walk knows the
    /// entry's kind, unknown elsewhere.
    Directory,
    /// Not known from the name.
    Unknown,
    /// Negation.
    Not(Box<NameTest>),
    /// Every test holds.
    All(Vec<NameTest>),
    /// Some test holds.
    Either(Vec<NameTest>),
}

impl NameTest {
    /// The test's answer for a name, `None` when it cannot be told.
    pub fn eval(&self, name: &str) -> Option<bool> {
        self.eval_entry(name, None)
    }

    /// The test's answer for an entry of this name which is (`Some(true)`)
    /// or is not a directory by `lstat`, or of a kind not known (`None`).
    pub fn eval_entry(&self, name: &str, dir: Option<bool>) -> Option<bool> {
        match self {
            NameTest::Any => Some(true),
            NameTest::Never => Some(false),
            NameTest::Glob { pattern, fold } => {
                if *fold {
                    // Case folding outside ASCII, and a bracket whose range
                    // folding would change, follow the locale.
                    if !pattern.is_ascii() || !name.is_ascii() || pattern.contains('[') {
                        return None;
                    }
                    glob::name_matches(&pattern.to_ascii_lowercase(), &name.to_ascii_lowercase())
                } else {
                    glob::name_matches(pattern, name)
                }
            }
            NameTest::Hidden => Some(name.starts_with('.')),
            NameTest::Directory => dir,
            NameTest::Unknown => None,
            NameTest::Not(t) => t.eval_entry(name, dir).map(|b| !b),
            NameTest::All(ts) => {
                let mut out = Some(true);
                for t in ts {
                    match t.eval_entry(name, dir) {
                        Some(false) => return Some(false),
                        None => out = None,
                        Some(true) => {}
                    }
                }
                out
            }
            NameTest::Either(ts) => {
                let mut out = Some(false);
                for t in ts {
                    match t.eval_entry(name, dir) {
                        Some(true) => return Some(true),
                        None => out = None,
                        Some(false) => {}
                    }
                }
                out
            }
        }
    }

    /// Both tests.
    pub(crate) fn and(self, other: NameTest) -> NameTest {
        match (self, other) {
            (NameTest::Any, t) | (t, NameTest::Any) => t,
            (NameTest::All(mut a), t) => {
                a.push(t);
                NameTest::All(a)
            }
            (a, b) => NameTest::All(vec![a, b]),
        }
    }
}

/// Which entries beneath a recursively read directory the command reads:
/// files whose name passes `files`, in directories whose name passes
/// `dirs` (a directory that does not is not entered). The directory named
/// on the command line is read whatever its own name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// Files (and links) read.
    pub files: NameTest,
    /// Directories entered.
    pub dirs: NameTest,
    /// The names reach the command as text that is split into words
    /// (`find | xargs`, `$(find ..)`): a name holding blanks, quotes, a
    /// backslash or glob characters may become other paths, anywhere, so
    /// meeting one makes the read unanalysable.
    pub split: bool,
    /// Ripgrep's ignore files, which decide before `files` and `dirs` do.
    pub ignores: Option<Box<Ignores>>,
}

/// What ripgrep's ignore files say of an entry, as the walk reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IgnoreMatch {
    /// No ignore file names it: the filter's tests decide.
    None,
    /// An ignore file surely leaves it out.
    Ignore,
    /// An ignore file may re-include it (`!name`), which lifts ripgrep's
    /// hidden rule.
    Whitelist,
}

/// Whether ripgrep reads one kind of ignore file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Honour {
    /// Not read.
    Off,
    /// Read, and followed.
    Read,
    /// Read by some ripgreps only: what it re-includes counts, what it
    /// leaves out does not.
    Maybe,
}

/// Ripgrep's ignore files: which it reads, and which entries are read
/// whatever they say. Ripgrep decides an entry by its `-g` globs first
/// (a match, included or excluded, is final), then by its ignore files
/// (`.rgignore` before `.ignore` before `.gitignore` before
/// `.git/info/exclude` before the global excludes file; within each kind
/// the nearest directory's file; within a file the last matching line),
/// then by its types, then by the hidden rule, which an ignore file's or a
/// type's re-inclusion lifts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ignores {
    /// `.rgignore`.
    pub rgignore: Honour,
    /// `.ignore`.
    pub ignore: Honour,
    /// `.gitignore`, inside a git repository (unless `require_git` is off).
    pub gitignore: Honour,
    /// `.git/info/exclude`.
    pub exclude: Honour,
    /// Git's global excludes file (`core.excludesFile`).
    pub global: Honour,
    /// The files in the directories above the one searched.
    pub parents: bool,
    /// `.gitignore` and the excludes count only inside a repository.
    pub require_git: bool,
    /// Their globs match ignoring case.
    pub fold: bool,
    /// Some ignore file is not read (`--ignore-file`): what no other one
    /// decides may be re-included.
    pub unread: bool,
    /// Files read even when an ignore file leaves them out (a `-g` glob
    /// that includes them).
    pub kept_files: NameTest,
    /// Directories entered even when an ignore file leaves them out.
    pub kept_dirs: NameTest,
    /// Files read when an ignore file re-includes them: the hidden rule
    /// no longer holds.
    pub included_files: NameTest,
    /// Directories entered when an ignore file re-includes them.
    pub included_dirs: NameTest,
}

impl Filter {
    /// Whether a file (or link) of this name may be read: unless the test
    /// surely fails.
    pub fn reaches_file(&self, name: &str) -> bool {
        self.reaches(name, false, IgnoreMatch::None)
    }

    /// Whether a directory of this name may be entered.
    pub fn enters_dir(&self, name: &str) -> bool {
        self.reaches(name, true, IgnoreMatch::None)
    }

    /// Whether an entry of this name may be read (a directory: entered),
    /// given what ripgrep's ignore files say of it ([`Filter::ignores`];
    /// without them, what they say does not count).
    pub fn reaches(&self, name: &str, dir: bool, ignored: IgnoreMatch) -> bool {
        let test = match (&self.ignores, ignored) {
            (None, _) | (Some(_), IgnoreMatch::None) if dir => &self.dirs,
            (None, _) | (Some(_), IgnoreMatch::None) => &self.files,
            (Some(i), IgnoreMatch::Ignore) if dir => &i.kept_dirs,
            (Some(i), IgnoreMatch::Ignore) => &i.kept_files,
            (Some(i), IgnoreMatch::Whitelist) if dir => &i.included_dirs,
            (Some(i), IgnoreMatch::Whitelist) => &i.included_files,
        };
        test.eval_entry(name, Some(dir)) != Some(false)
    }

    /// A filter that reaches everything is no filter.
    pub(crate) fn or_none(self) -> Option<Filter> {
        (self.files != NameTest::Any
            || self.dirs != NameTest::Any
            || self.split
            || self.ignores.is_some())
        .then_some(self)
    }

    /// Whether a name reaching a command as split text could stand for
    /// other paths: [`Filter::split`].
    pub fn splits(name: &str) -> bool {
        name.contains(|c: char| {
            c.is_whitespace() || matches!(c, '\'' | '"' | '\\' | '*' | '?' | '[')
        })
    }

    /// What both filters let through.
    pub(crate) fn and(self, other: Filter) -> Filter {
        // What ripgrep's ignore files decide narrows the other filter's
        // tests too; two sets of them (not met in practice) are taken at
        // their widest, every entry maybe re-included.
        let ignores = match (self.ignores, other.ignores) {
            (None, None) => None,
            (Some(i), None) => Some(Box::new((*i).narrowed(&other.files, &other.dirs))),
            (None, Some(i)) => Some(Box::new((*i).narrowed(&self.files, &self.dirs))),
            (Some(a), Some(b)) => {
                let files = a.included_files.clone().and(b.included_files);
                let dirs = a.included_dirs.clone().and(b.included_dirs);
                Some(Box::new(Ignores {
                    unread: true,
                    kept_files: files.clone(),
                    kept_dirs: dirs.clone(),
                    included_files: files,
                    included_dirs: dirs,
                    ..*a
                }))
            }
        };
        Filter {
            files: self.files.and(other.files),
            dirs: self.dirs.and(other.dirs),
            split: self.split || other.split,
            ignores,
        }
    }
}

impl Ignores {
    /// Also only what `files` and `dirs` let through.
    fn narrowed(self, files: &NameTest, dirs: &NameTest) -> Ignores {
        Ignores {
            kept_files: self.kept_files.and(files.clone()),
            kept_dirs: self.kept_dirs.and(dirs.clone()),
            included_files: self.included_files.and(files.clone()),
            included_dirs: self.included_dirs.and(dirs.clone()),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn glob(p: &str) -> NameTest {
        NameTest::Glob {
            pattern: p.into(),
            fold: false,
        }
    }

    #[test]
    fn three_valued() {
        assert_eq!(glob("*.rs").eval("main.rs"), Some(true));
        assert_eq!(glob("*.rs").eval(".env"), Some(false));
        // fnmatch without FNM_PERIOD: `*` matches a leading dot.
        assert_eq!(glob("*").eval(".env"), Some(true));
        assert_eq!(glob(".env*").eval(".env.local"), Some(true));
        assert_eq!(glob("\\*.rs").eval("a.rs"), Some(false));
        assert_eq!(glob("[!.]*").eval(".env"), Some(false));
        assert_eq!(glob("{a,b}").eval("a"), Some(false));
        let fold = NameTest::Glob {
            pattern: "*.ENV".into(),
            fold: true,
        };
        assert_eq!(fold.eval("x.env"), Some(true));
        let not = NameTest::Not(Box::new(NameTest::Unknown));
        assert_eq!(not.eval("x"), None);
        let both = NameTest::All(vec![glob("*.rs"), NameTest::Unknown]);
        assert_eq!(both.eval(".env"), Some(false));
        assert_eq!(both.eval("a.rs"), None);
        let either = NameTest::Either(vec![glob("*.rs"), NameTest::Unknown]);
        assert_eq!(either.eval(".env"), None);
        let f = Filter {
            files: NameTest::Not(Box::new(NameTest::Hidden)),
            dirs: NameTest::Not(Box::new(NameTest::Hidden)),
            split: false,
            ignores: None,
        };
        assert!(Filter::splits("a b.rs") && Filter::splits("x\n") && Filter::splits("*"));
        assert!(!Filter::splits("main.rs"));
        assert!(!f.reaches_file(".env") && f.reaches_file("a.rs"));
        assert!(!f.enters_dir(".git") && f.enters_dir("src"));
    }
}

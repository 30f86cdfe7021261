//! Pathname expansion as bash does it without `nullglob`, `dotglob` or
//! `globstar`: segment by segment, hidden names only for a pattern that
//! starts with `.`, `.` and `..` never, results sorted. Each segment's
//! pattern is matched as bash's `strmatch` reads it ([`pattern`]).

use std::cell::Cell;
use std::path::{Path, PathBuf};

/// Why a glob was not expanded: the word is then left unknown rather than
/// read as a narrower match than bash would make.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum GlobError {
    /// The analysis' budget of directory entries is spent.
    #[error("too many directory entries looked at for one command")]
    Budget,
    /// `~/..` with no home directory.
    #[error("home directory unknown")]
    NoHome,
    /// This glob looked at more entries than its matches allow.
    #[error("more than {0} directory entries")]
    Entries(usize),
    /// More matches than a word may expand to.
    #[error("more than {0} matches")]
    Matches(usize),
    /// A bracket expression with `[:`, `[=` or `[.` not closed.
    #[error("bracket expression with an unclosed `[{0}`, which bash reads its own way")]
    UnclosedClass(char),
    /// Quoting inside `[:..:]`, `[=..=]` or `[.  .]`.
    #[error("quoted characters inside `[{kind}{name}{kind}]`")]
    QuotedInClass {
        /// `:`, `=` or `.`.
        kind: char,
        /// The text between.
        name: String,
    },
    /// `[:name:]` of no class bash knows.
    #[error("`[:{0}:]` is no character class bash knows")]
    UnknownClass(String),
    /// `[=..=]` or `[...]` of more than one ASCII character.
    #[error("`[{kind}{name}{kind}]` depends on the locale's collation")]
    Collation {
        /// `=` or `.`.
        kind: char,
        /// The text between.
        name: String,
    },
    /// `a-[:alpha:]` and the like.
    #[error("a range ending in a class or collating symbol")]
    RangeEnd,
    /// The answer for an ASCII name depends on the locale.
    #[error("the match depends on the locale")]
    Locale,
    /// A name outside ASCII matches in one reading and not the other.
    #[error("whether `{0}` matches depends on the locale (its characters are not ASCII)")]
    LocaleName(String),
}

/// Directory entries looked at, per match allowed, before giving up.
const ENTRIES_PER_MATCH: usize = 10;

/// Expands `pattern` (characters with their quoting) in `dir`. A pattern
/// starting with `~/` is expanded in `home` and its results keep the `~`.
/// Returns the matches as they would be written, or why it gave up.
/// `entries_left` is shared by every glob of one analysis: each directory
/// entry read and each `stat` spends one.
pub(crate) fn expand(
    pattern: &[(char, bool)],
    dir: &Path,
    home: Option<&Path>,
    limit: usize,
    entries_left: &Cell<usize>,
) -> Result<Vec<String>, GlobError> {
    let spend = || match entries_left.get() {
        0 => Err(GlobError::Budget),
        n => {
            entries_left.set(n - 1);
            Ok(())
        }
    };
    let mut segments: Vec<&[(char, bool)]> = pattern.split(|&(c, _)| c == '/').collect();
    let (base, prefix) = if pattern.first().is_some_and(|&(c, _)| c == '/') {
        segments.remove(0);
        (PathBuf::from("/"), "/".to_string())
    } else if matches!(pattern.first(), Some(('~', false)))
        && segments.first().is_some_and(|s| s.len() == 1)
    {
        let Some(home) = home else {
            return Err(GlobError::NoHome);
        };
        segments.remove(0);
        (home.to_path_buf(), "~/".to_string())
    } else {
        (dir.to_path_buf(), String::new())
    };
    let mut current: Vec<(PathBuf, String)> = vec![(base, prefix)];
    let mut visited = 0usize;
    let budget = limit.saturating_mul(ENTRIES_PER_MATCH).max(limit);
    let last = segments.len().saturating_sub(1);
    for (i, seg) in segments.iter().enumerate() {
        let is_last = i == last;
        let text: String = seg.iter().map(|&(c, _)| c).collect();
        if seg.is_empty() {
            // `a//b` or a trailing `/`: keep the slash, require a directory.
            current.retain(|(p, _)| p.is_dir());
            for (_, shown) in &mut current {
                shown.push('/');
            }
            continue;
        }
        if !crate::words::has_glob(seg) {
            let mut next = Vec::with_capacity(current.len());
            for (path, shown) in current {
                spend()?;
                let p = path.join(&text);
                let keep = if is_last {
                    p.symlink_metadata().is_ok()
                } else {
                    p.is_dir()
                };
                if keep {
                    next.push((p, join_shown(&shown, &text, is_last)));
                }
            }
            current = next;
            continue;
        }
        let matcher = matcher(seg)?;
        let dot_ok = seg.first().is_some_and(|&(c, _)| c == '.');
        let mut next = Vec::new();
        for (path, shown) in &current {
            let Ok(entries) = std::fs::read_dir(path) else {
                continue;
            };
            let mut names = Vec::new();
            for entry in entries.flatten() {
                spend()?;
                visited += 1;
                if visited > budget {
                    return Err(GlobError::Entries(budget));
                }
                let name = entry.file_name();
                let Some(name) = name.to_str() else {
                    continue;
                };
                if name.starts_with('.') && !dot_ok {
                    continue;
                }
                if !matcher.is_match(name)? {
                    continue;
                }
                let p = entry.path();
                if !is_last && !p.is_dir() {
                    continue;
                }
                names.push((p, name.to_string()));
            }
            names.sort_by(|a, b| a.1.cmp(&b.1));
            for (p, name) in names {
                next.push((p, join_shown(shown, &name, is_last)));
                if next.len() > limit {
                    return Err(GlobError::Matches(limit));
                }
            }
        }
        current = next;
    }
    Ok(current.into_iter().map(|(_, shown)| shown).collect())
}

fn join_shown(shown: &str, name: &str, _is_last: bool) -> String {
    if shown.is_empty() {
        name.to_string()
    } else if shown.ends_with('/') {
        format!("{shown}{name}")
    } else {
        format!("{shown}/{name}")
    }
}

/// A matcher for one path segment; quoted characters match themselves.
fn matcher(seg: &[(char, bool)]) -> Result<Matcher, GlobError> {
    crate::glob::pattern::compile(seg)
}

use pattern::Matcher;

/// Whether a file name matches a pattern as `fnmatch` without flags reads
/// it (`find -name`, `grep --include`): `*`, `?` and brackets, `\` quoting
/// the next character, a leading `.` matched like any other. `None` when
/// the answer depends on the locale or the pattern cannot be read.
pub(crate) fn name_matches(pattern: &str, name: &str) -> Option<bool> {
    let mut seg = Vec::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(n) => seg.push((n, true)),
                None => seg.push(('\\', true)),
            },
            _ => seg.push((c, false)),
        }
    }
    pattern::compile(&seg).ok()?.is_match(name).ok()
}

mod pattern {
    //! One segment's pattern as bash's `strmatch` reads it: `*`, `?` and
    //! bracket expressions (`[!..]`, `[^..]`, `]` first, ranges, POSIX
    //! classes, `[=c=]`, `[.c.]`), quoted characters standing for
    //! themselves. A name is matched both as characters (a UTF-8 locale)
    //! and as bytes (the C locale); where the two differ, or where the
    //! answer depends on the locale's tables (a class or range tested
    //! against a character outside ASCII), matching fails: the caller
    //! reports the glob as unknown rather than guess a narrower match.

    use super::GlobError;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Class {
        Alpha,
        Digit,
        Alnum,
        Upper,
        Lower,
        Space,
        Blank,
        Punct,
        Print,
        Graph,
        Cntrl,
        Xdigit,
        Word,
    }

    impl Class {
        fn named(name: &str) -> Option<Class> {
            Some(match name {
                "alpha" => Class::Alpha,
                "digit" => Class::Digit,
                "alnum" => Class::Alnum,
                "upper" => Class::Upper,
                "lower" => Class::Lower,
                "space" => Class::Space,
                "blank" => Class::Blank,
                "punct" => Class::Punct,
                "print" => Class::Print,
                "graph" => Class::Graph,
                "cntrl" => Class::Cntrl,
                "xdigit" => Class::Xdigit,
                "word" => Class::Word,
                _ => return None,
            })
        }

        /// For an ASCII character.
        fn has(self, c: u8) -> bool {
            match self {
                Class::Alpha => c.is_ascii_alphabetic(),
                Class::Digit => c.is_ascii_digit(),
                Class::Alnum => c.is_ascii_alphanumeric(),
                Class::Upper => c.is_ascii_uppercase(),
                Class::Lower => c.is_ascii_lowercase(),
                Class::Space => matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'),
                Class::Blank => matches!(c, b' ' | b'\t'),
                Class::Punct => c.is_ascii_punctuation(),
                Class::Print => (0x20..0x7f).contains(&c),
                Class::Graph => c.is_ascii_graphic(),
                Class::Cntrl => c.is_ascii_control(),
                Class::Xdigit => c.is_ascii_hexdigit(),
                Class::Word => c.is_ascii_alphanumeric() || c == b'_',
            }
        }
    }

    #[derive(Debug, Clone)]
    enum Item {
        Char(u32),
        Range(u32, u32),
        Class(Class),
    }

    #[derive(Debug, Clone)]
    enum Tok {
        Lit(u32),
        Any,
        Star,
        Bracket { negated: bool, items: Vec<Item> },
    }

    /// A compiled segment pattern.
    #[derive(Debug)]
    pub(crate) struct Matcher {
        toks: Vec<Tok>,
        /// A pattern of literals alone: the name is compared as text.
        plain: bool,
    }

    /// Why a unit's answer is not known: it depends on the locale.
    struct Unsure;

    pub(crate) fn compile(seg: &[(char, bool)]) -> Result<Matcher, GlobError> {
        let mut toks = Vec::with_capacity(seg.len());
        let mut i = 0;
        while let Some(&(c, quoted)) = seg.get(i) {
            i += 1;
            if quoted {
                toks.push(Tok::Lit(c as u32));
                continue;
            }
            match c {
                '*' => {
                    if !matches!(toks.last(), Some(Tok::Star)) {
                        toks.push(Tok::Star);
                    }
                }
                '?' => toks.push(Tok::Any),
                '[' => match bracket(seg, i)? {
                    Some((tok, next)) => {
                        toks.push(tok);
                        i = next;
                    }
                    // No closing `]`: the `[` is itself.
                    None => toks.push(Tok::Lit('[' as u32)),
                },
                _ => toks.push(Tok::Lit(c as u32)),
            }
        }
        let plain = toks.iter().all(|t| matches!(t, Tok::Lit(_)));
        Ok(Matcher { toks, plain })
    }

    /// The bracket expression whose `[` is just before `start`: the token
    /// and the index after its `]`, or `None` when it is not closed.
    fn bracket(seg: &[(char, bool)], start: usize) -> Result<Option<(Tok, usize)>, GlobError> {
        let mut i = start;
        let mut negated = false;
        if let Some(&(c, false)) = seg.get(i) {
            if c == '!' || c == '^' {
                negated = true;
                i += 1;
            }
        }
        let mut items = Vec::new();
        let mut first = true;
        loop {
            let Some(&(c, quoted)) = seg.get(i) else {
                return Ok(None);
            };
            if c == ']' && !quoted && !first {
                return Ok(Some((Tok::Bracket { negated, items }, i + 1)));
            }
            first = false;
            // `[:class:]`, `[=c=]`, `[.c.]`.
            let low = if c == '[' && !quoted {
                match seg.get(i + 1) {
                    Some(&(k @ (':' | '=' | '.'), false)) => {
                        let body = i + 2;
                        let close = (body..seg.len().saturating_sub(1)).find(|&j| {
                            seg.get(j) == Some(&(k, false)) && seg.get(j + 1) == Some(&(']', false))
                        });
                        let Some(close) = close else {
                            return Err(GlobError::UnclosedClass(k));
                        };
                        let name: String = seg[body..close].iter().map(|&(c, _)| c).collect();
                        if seg[body..close].iter().any(|&(_, q)| q) {
                            return Err(GlobError::QuotedInClass { kind: k, name });
                        }
                        i = close + 2;
                        if k == ':' {
                            let Some(class) = Class::named(&name) else {
                                return Err(GlobError::UnknownClass(name));
                            };
                            items.push(Item::Class(class));
                            continue;
                        }
                        let mut chars = name.chars();
                        match (chars.next(), chars.next()) {
                            (Some(one), None) if one.is_ascii() => one as u32,
                            _ => {
                                return Err(GlobError::Collation { kind: k, name });
                            }
                        }
                    }
                    _ => {
                        i += 1;
                        c as u32
                    }
                }
            } else {
                i += 1;
                c as u32
            };
            // A range `a-z`, unless the `-` is last.
            if seg.get(i) == Some(&('-', false))
                && seg.get(i + 1).is_some_and(|&(c, q)| c != ']' || q)
            {
                let Some(&(hc, hq)) = seg.get(i + 1) else {
                    return Ok(None);
                };
                if hc == '[' && !hq && matches!(seg.get(i + 2), Some(&(':' | '=' | '.', false))) {
                    return Err(GlobError::RangeEnd);
                }
                items.push(Item::Range(low, hc as u32));
                i += 2;
                continue;
            }
            items.push(Item::Char(low));
        }
    }

    impl Matcher {
        /// Whether `name` matches, read both as characters and as bytes;
        /// an error when the two readings differ or one depends on the
        /// locale.
        pub(crate) fn is_match(&self, name: &str) -> Result<bool, GlobError> {
            if self.plain || name.is_ascii() {
                let units: Vec<u32> = name.bytes().map(u32::from).collect();
                return self.run(&units, false).map_err(|_| GlobError::Locale);
            }
            let chars: Vec<u32> = name.chars().map(|c| c as u32).collect();
            let bytes: Vec<u32> = name.bytes().map(u32::from).collect();
            match (self.run(&chars, false), self.run(&bytes, true)) {
                (Ok(a), Ok(b)) if a == b => Ok(a),
                _ => Err(GlobError::LocaleName(name.to_string())),
            }
        }

        /// Matches units with one backtracking point per `*` (linear in
        /// practice, at most units × tokens).
        fn run(&self, units: &[u32], bytes: bool) -> Result<bool, Unsure> {
            let (mut t, mut u) = (0usize, 0usize);
            let mut back: Option<(usize, usize)> = None;
            loop {
                if let Some(tok) = self.toks.get(t) {
                    match tok {
                        Tok::Star => {
                            back = Some((t, u));
                            t += 1;
                            continue;
                        }
                        _ => {
                            if let Some(&c) = units.get(u) {
                                if one(tok, c, bytes)? {
                                    t += 1;
                                    u += 1;
                                    continue;
                                }
                            }
                        }
                    }
                } else if u == units.len() {
                    return Ok(true);
                }
                match back {
                    Some((bt, bu)) if bu < units.len() => {
                        back = Some((bt, bu + 1));
                        t = bt + 1;
                        u = bu + 1;
                    }
                    _ => return Ok(false),
                }
            }
        }
    }

    fn one(tok: &Tok, c: u32, bytes: bool) -> Result<bool, Unsure> {
        match tok {
            Tok::Lit(l) => Ok(*l == c),
            Tok::Any => Ok(true),
            Tok::Star => Ok(true),
            Tok::Bracket { negated, items } => {
                let mut hit = false;
                for item in items {
                    let found = match *item {
                        Item::Char(x) => x == c,
                        // A range or class over a character outside ASCII
                        // follows the locale (bytes above 127 are in no
                        // class of the C locale, and ranges there are by
                        // byte value).
                        Item::Range(lo, hi) => {
                            if c > 127 && !bytes {
                                return Err(Unsure);
                            }
                            if lo > 127 || hi > 127 {
                                return Err(Unsure);
                            }
                            lo <= c && c <= hi
                        }
                        Item::Class(class) => {
                            if c > 127 {
                                if !bytes {
                                    return Err(Unsure);
                                }
                                false
                            } else {
                                class.has(c as u8)
                            }
                        }
                    };
                    if found {
                        hit = true;
                        break;
                    }
                }
                Ok(hit != *negated)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(s: &str) -> Vec<(char, bool)> {
        s.chars().map(|c| (c, false)).collect()
    }

    #[test]
    fn expands_like_bash() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a.txt", "b.txt", ".env", ".hidden.txt", "c.md"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/x.txt"), "").unwrap();
        let left = Cell::new(1_000);
        let e = |p: &str| expand(&pat(p), dir.path(), None, 100, &left).unwrap();
        assert_eq!(e("*.txt"), ["a.txt", "b.txt"]);
        assert_eq!(e(".e*"), [".env"]);
        assert_eq!(e("*"), ["a.txt", "b.txt", "c.md", "sub"]);
        assert_eq!(e("[ab].txt"), ["a.txt", "b.txt"]);
        assert_eq!(e("[!a].txt"), ["b.txt"]);
        assert_eq!(e("?.md"), ["c.md"]);
        assert_eq!(e("*/x.txt"), ["sub/x.txt"]);
        assert_eq!(e("./*.md"), ["./c.md"]);
        assert!(e("*.none").is_empty());
        let quoted: Vec<(char, bool)> = vec![('*', true), ('.', false), ('t', false)];
        assert!(
            expand(&quoted, dir.path(), None, 100, &left)
                .unwrap()
                .is_empty()
        );
        assert!(expand(&pat("*"), dir.path(), None, 2, &left).is_err());
    }

    /// The entry budget is shared: once spent, no glob expands any more.
    #[test]
    fn entry_budget_is_shared_between_globs() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a", "b", "c"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let left = Cell::new(5);
        assert_eq!(
            expand(&pat("*"), dir.path(), None, 100, &left).unwrap(),
            ["a", "b", "c"]
        );
        assert_eq!(left.get(), 2);
        assert!(expand(&pat("*"), dir.path(), None, 100, &left).is_err());
        assert_eq!(left.get(), 0);
    }
}

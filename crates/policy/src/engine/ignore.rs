//! Ripgrep's ignore files, read as the walk beneath a recursive search
//! descends: what they say of an entry, where that is certain. A line is
//! read as ripgrep's `ignore` crate reads it (`#` comments, `!` to
//! re-include, a leading `/` or an inner `/` anchoring the glob to the
//! file's directory, a trailing `/` for directories only, a glob without
//! `/` matching the name at any depth); a line that is not understood
//! (trailing blanks, backslashes, a glob the matcher refuses, an anchored
//! glob in a directory above the search, which ripgrep 13 matches against
//! a path of its own making) is taken to leave nothing out and, when it
//! re-includes, to re-include everything. A file that cannot be read
//! re-includes everything.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use globset::{GlobBuilder, GlobMatcher};
use toolgate_shell::{Honour, IgnoreMatch, Ignores};

/// One line of an ignore file.
struct Line {
    /// `None`: not understood.
    glob: Option<GlobMatcher>,
    /// Anchored to the file's directory.
    anchored: bool,
    /// `!`: re-includes.
    whitelist: bool,
    /// A trailing `/`: directories only.
    only_dir: bool,
}

/// One ignore file.
pub(super) struct File {
    dir: PathBuf,
    lines: Vec<Line>,
    /// Could not be read: may re-include anything.
    opaque: bool,
}

impl File {
    /// Reads `path`, an ignore file for `dir`; `None` when there is none.
    fn read(dir: &Path, path: &Path, fold: bool) -> Option<File> {
        match std::fs::read(path) {
            Ok(bytes) => Some(match String::from_utf8(bytes) {
                Ok(text) => File::parse(dir, &text, fold),
                Err(_) => File::opaque(dir),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            // A directory of that name, or one that cannot be read.
            Err(_) => Some(File::opaque(dir)),
        }
    }

    fn opaque(dir: &Path) -> File {
        File {
            dir: dir.to_path_buf(),
            lines: Vec::new(),
            opaque: true,
        }
    }

    pub(super) fn parse(dir: &Path, text: &str, fold: bool) -> File {
        let lines = text
            .split('\n')
            .filter_map(|line| parse_line(line, fold))
            .collect();
        File {
            dir: dir.to_path_buf(),
            lines,
            opaque: false,
        }
    }

    /// What the file says of `path` (a directory when `is_dir`): the last
    /// matching line. `above`: the file is in a directory above the search,
    /// where anchored lines are not understood. `maybe`: the file may not
    /// be read at all, so it leaves nothing out.
    pub(super) fn eval(&self, path: &Path, is_dir: bool, above: bool, maybe: bool) -> IgnoreMatch {
        if self.opaque {
            return IgnoreMatch::Whitelist;
        }
        let rel = path.strip_prefix(&self.dir).ok();
        for line in self.lines.iter().rev() {
            if line.only_dir && !is_dir {
                continue;
            }
            let matched = match (&line.glob, rel) {
                (Some(g), Some(rel)) if !(above && line.anchored) => Some(g.is_match(rel)),
                _ => None,
            };
            match (matched, line.whitelist) {
                (Some(true), true) | (None, true) => return IgnoreMatch::Whitelist,
                (Some(true), false) if !maybe => return IgnoreMatch::Ignore,
                _ => {}
            }
        }
        IgnoreMatch::None
    }
}

/// A line as the `ignore` crate's `GitignoreBuilder::add_line` reads it;
/// `None` for a blank line or a comment.
fn parse_line(line: &str, fold: bool) -> Option<Line> {
    if line.starts_with('#') || line.is_empty() {
        return None;
    }
    let whitelist = line.starts_with('!');
    let unknown = Line {
        glob: None,
        anchored: true,
        whitelist,
        only_dir: false,
    };
    // Trailing blanks (trimmed unless escaped, differently across
    // versions), escapes, a carriage return, a byte-order mark.
    if line.ends_with(char::is_whitespace) || line.contains(['\\', '\r', '\u{feff}']) {
        return Some(unknown);
    }
    let mut rest = line.strip_prefix('!').unwrap_or(line);
    let mut anchored = false;
    if let Some(r) = rest.strip_prefix('/') {
        rest = r;
        anchored = true;
    }
    let only_dir = rest.ends_with('/');
    if only_dir {
        rest = &rest[..rest.len() - 1];
    }
    // Nothing left (`!`, `/`): a no-op in later versions, everything in
    // earlier ones.
    if rest.is_empty() {
        return Some(unknown);
    }
    anchored |= rest.contains('/');
    let mut actual = rest.to_string();
    if !anchored && !actual.starts_with("**/") {
        actual = format!("**/{actual}");
    }
    if actual.ends_with("/**") {
        actual.push_str("/*");
    }
    let glob = GlobBuilder::new(&actual)
        .literal_separator(true)
        .case_insensitive(fold)
        .backslash_escape(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher());
    // `**/name`: the name at any depth, as if unanchored.
    let any_depth = rest.strip_prefix("**/").is_some_and(|r| !r.contains('/'));
    Some(Line {
        glob,
        anchored: anchored && !any_depth,
        whitelist,
        only_dir,
    })
}

/// The ignore files of one directory, and those above it.
pub(super) struct Level {
    /// Above the directory searched.
    above: bool,
    rgignore: Option<File>,
    ignore: Option<File>,
    gitignore: Option<File>,
    exclude: Option<File>,
    /// A `.git` is there: a repository's top.
    has_git: bool,
    up: Option<Rc<Level>>,
}

/// How the walk reads ripgrep's ignore files beneath one search.
pub(super) struct Reader<'a> {
    ig: &'a Ignores,
    /// The global excludes files found, read only for what they re-include;
    /// `None`: where they are is not known.
    global: Option<Vec<File>>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(ig: &'a Ignores, home: Option<&Path>) -> Reader<'a> {
        let global = if ig.global == Honour::Off {
            Some(Vec::new())
        } else {
            global_excludes(home, ig.fold)
        };
        Reader { ig, global }
    }

    /// The level of the directory searched, with those above it; `None`
    /// when they cannot be found.
    pub(super) fn root(&self, dir: &Path) -> Option<Rc<Level>> {
        let real = std::fs::canonicalize(dir).ok()?;
        let mut up: Option<Rc<Level>> = None;
        let ancestors: Vec<&Path> = real.ancestors().skip(1).collect();
        for a in ancestors.into_iter().rev() {
            up = Some(Rc::new(self.level(a, true, up)));
        }
        Some(Rc::new(self.level(dir, false, up)))
    }

    /// The level of `dir`, a directory beneath `up`'s.
    pub(super) fn child(&self, dir: &Path, up: &Rc<Level>) -> Rc<Level> {
        Rc::new(self.level(dir, false, Some(up.clone())))
    }

    fn level(&self, dir: &Path, above: bool, up: Option<Rc<Level>>) -> Level {
        let ig = self.ig;
        let read = |honour: Honour, name: &str| {
            (honour != Honour::Off)
                .then(|| File::read(dir, &dir.join(name), ig.fold))
                .flatten()
        };
        let git = dir.join(".git");
        let has_git = std::fs::symlink_metadata(&git).is_ok();
        let exclude = if ig.exclude == Honour::Off || !has_git {
            None
        } else if git.is_dir() {
            File::read(dir, &git.join("info/exclude"), ig.fold)
        } else {
            // A `.git` file (a worktree, a submodule): its excludes lie in
            // the repository's own directory, which ripgrep 13 does not
            // look for and later ones do.
            match linked_exclude(&git) {
                Some(path) => File::read(dir, &path, ig.fold).map(|f| File {
                    lines: f.lines.into_iter().filter(|l| l.whitelist).collect(),
                    ..f
                }),
                None => Some(File::opaque(dir)),
            }
        };
        Level {
            above,
            rgignore: read(ig.rgignore, ".rgignore"),
            ignore: read(ig.ignore, ".ignore"),
            gitignore: read(ig.gitignore, ".gitignore"),
            exclude,
            has_git,
            up,
        }
    }

    /// What the ignore files say of `path` (an entry of `level`'s
    /// directory), as ripgrep's `Ignore::matched_ignore` decides: for each
    /// kind the nearest file that names it, then the kinds in order.
    pub(super) fn matched(&self, level: &Level, path: &Path, is_dir: bool) -> IgnoreMatch {
        let ig = self.ig;
        let chain = || std::iter::successors(Some(level), |l| l.up.as_deref());
        let any_git = !ig.require_git || chain().any(|l| l.has_git);
        let mut m = [IgnoreMatch::None; 4];
        let mut saw_git = false;
        for l in chain() {
            if l.above && !ig.parents {
                break;
            }
            let files = [
                (&l.rgignore, ig.rgignore, true),
                (&l.ignore, ig.ignore, true),
                (&l.gitignore, ig.gitignore, any_git && !saw_git),
                (&l.exclude, ig.exclude, any_git && !saw_git),
            ];
            for (i, (file, honour, live)) in files.into_iter().enumerate() {
                if m[i] == IgnoreMatch::None
                    && live
                    && let Some(f) = file
                {
                    m[i] = f.eval(path, is_dir, l.above, honour == Honour::Maybe);
                }
            }
            saw_git |= l.has_git;
        }
        if let Some(found) = m.into_iter().find(|m| *m != IgnoreMatch::None) {
            return found;
        }
        if ig.global != Honour::Off && any_git {
            match &self.global {
                // Matched against a path relative to where ripgrep runs:
                // its anchored lines are not understood.
                Some(files) => {
                    for f in files {
                        if f.eval(path, is_dir, true, true) == IgnoreMatch::Whitelist {
                            return IgnoreMatch::Whitelist;
                        }
                    }
                }
                None => return IgnoreMatch::Whitelist,
            }
        }
        if ig.unread {
            return IgnoreMatch::Whitelist;
        }
        IgnoreMatch::None
    }
}

/// The excludes file of the repository a `.git` file points to
/// (`gitdir: DIR`, and `DIR/commondir` for a worktree).
fn linked_exclude(git: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(git).ok()?;
    let gitdir = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    let gitdir = git.parent()?.join(gitdir);
    let common = match std::fs::read_to_string(gitdir.join("commondir")) {
        Ok(c) => gitdir.join(c.trim()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => gitdir,
        Err(_) => return None,
    };
    Some(common.join("info/exclude"))
}

/// Git's global excludes files, where ripgrep looks for them: the
/// `excludesFile` of `$XDG_CONFIG_HOME/git/config` (or
/// `~/.config/git/config`) and `~/.gitconfig`, else
/// `$XDG_CONFIG_HOME/git/ignore` (or `~/.config/git/ignore`). All of them
/// are read, for what they re-include only. `None`: a configuration that
/// cannot be read, or no home.
fn global_excludes(home: Option<&Path>, fold: bool) -> Option<Vec<File>> {
    let home = home?;
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let mut configs = vec![home.join(".config/git/config"), home.join(".gitconfig")];
    let mut candidates = vec![home.join(".config/git/ignore")];
    if let Some(x) = &xdg {
        configs.push(x.join("git/config"));
        candidates.push(x.join("git/ignore"));
    }
    for c in &configs {
        let text = match std::fs::read(c) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(_) => return None,
        };
        for line in text.lines() {
            let line = line.trim();
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            if !key.trim().eq_ignore_ascii_case("excludesfile") {
                continue;
            }
            let value = value.trim().trim_matches('"').trim();
            let path = match value.strip_prefix("~/") {
                Some(rest) => home.join(rest),
                None => PathBuf::from(value),
            };
            if path.is_relative() {
                return None;
            }
            candidates.push(path);
        }
    }
    let root = Path::new("/");
    let mut files = Vec::new();
    for c in candidates {
        if let Some(f) = File::read(root, &c, fold) {
            files.push(f);
        }
    }
    Some(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str, path: &str, is_dir: bool) -> IgnoreMatch {
        File::parse(Path::new("/r"), text, false).eval(
            &Path::new("/r").join(path),
            is_dir,
            false,
            false,
        )
    }

    #[test]
    fn lines_as_ripgrep_reads_them() {
        use IgnoreMatch::*;
        assert_eq!(eval("secrets/\n", "secrets", true), Ignore);
        assert_eq!(eval("secrets/\n", "secrets", false), None);
        assert_eq!(eval("secrets/\n", "a/secrets", true), Ignore);
        assert_eq!(eval("/secrets\n", "a/secrets", true), None);
        assert_eq!(eval("a/secrets\n", "a/secrets", true), Ignore);
        assert_eq!(eval("a/secrets\n", "b/a/secrets", true), None);
        assert_eq!(eval("*.log\n", "x/y.log", false), Ignore);
        assert_eq!(eval("*.log\n!keep.log\n", "x/keep.log", false), Whitelist);
        assert_eq!(eval("!keep.log\n*.log\n", "x/keep.log", false), Ignore);
        assert_eq!(eval("# c\n\n", "x", false), None);
        assert_eq!(eval("s/**\n", "s", true), None);
        assert_eq!(eval("s/**\n", "s/a/b", false), Ignore);
        assert_eq!(eval("**/s\n", "a/b/s", false), Ignore);
        // Not understood: leaves nothing out, re-includes everything.
        assert_eq!(eval("*.log \n", "x.log", false), None);
        assert_eq!(eval("\\#x\n", "#x", false), None);
        assert_eq!(eval("!a\\ b\n", "x", false), Whitelist);
        assert_eq!(eval("!\n", "x", false), Whitelist);
        assert_eq!(eval("[\n", "[", false), None);
        // Above the search: anchored lines are not understood.
        let f = File::parse(Path::new("/r"), "/a/b\n!/c\nd\n", false);
        assert_eq!(f.eval(Path::new("/r/a/b"), false, true, false), Whitelist);
        let f = File::parse(Path::new("/r"), "/a/b\nd\n", false);
        assert_eq!(f.eval(Path::new("/r/a/b"), false, true, false), None);
        assert_eq!(f.eval(Path::new("/r/x/d"), false, true, false), Ignore);
        // A file that may not be read leaves nothing out.
        assert_eq!(f.eval(Path::new("/r/x/d"), false, false, true), None);
    }
}

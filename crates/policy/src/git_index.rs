//! The repository holding a directory, and the paths its index lists:
//! the files git tracks, whose content `git diff`, `git log -p`, `git
//! show` and `git grep` print. Only the names are read (index versions 2,
//! 3 and 4, SHA-1 or SHA-256 object names, a split index's shared part);
//! git itself is never run.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A repository found above a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Repo {
    /// The top of its work tree; `None` for a bare repository.
    pub top: Option<PathBuf>,
    /// Its git directory, where the index lies.
    pub git_dir: PathBuf,
}

/// Whether `dir` looks like a git directory: git's own test (a `HEAD`,
/// an `objects` directory, a `refs` directory), less strict about what
/// `HEAD` holds.
fn is_git_dir(dir: &Path) -> bool {
    dir.join("HEAD").is_file() && dir.join("objects").is_dir() && dir.join("refs").is_dir()
}

/// The repository git finds from `start` (a directory, symlinks
/// resolved): the nearest ancestor holding a `.git` directory or a `.git`
/// file (`gitdir: PATH`, for worktrees and submodules), or itself a git
/// directory. The environment git reads (`GIT_DIR`, `GIT_WORK_TREE`,
/// ceilings) is not looked at: the shell analysis makes a command that
/// sets them unanalysable.
pub(crate) fn find(start: &Path) -> Option<Repo> {
    start.ancestors().find_map(repo_at)
}

/// The repository `dir` itself is the top of (it holds a `.git`
/// directory or file) or the git directory of, without looking above it.
pub(crate) fn repo_at(dir: &Path) -> Option<Repo> {
    let dot = dir.join(".git");
    if is_git_dir(&dot) {
        return Some(Repo {
            top: Some(dir.to_path_buf()),
            git_dir: dot,
        });
    }
    if dot.is_file()
        && let Ok(text) = std::fs::read_to_string(&dot)
        && let Some(rest) = text.strip_prefix("gitdir:")
    {
        let named = Path::new(rest.trim());
        return Some(Repo {
            top: Some(dir.to_path_buf()),
            git_dir: dir.join(named),
        });
    }
    if is_git_dir(dir) {
        // Inside `.git` itself, the work tree is the directory above.
        let top = (dir.file_name() == Some(OsStr::new(".git")))
            .then(|| dir.parent().map(Path::to_path_buf))
            .flatten();
        return Some(Repo {
            top,
            git_dir: dir.to_path_buf(),
        });
    }
    None
}

/// An index that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {why}")]
pub(crate) struct IndexError {
    /// The file.
    pub path: String,
    /// What is wrong with it.
    pub why: String,
}

/// The paths the index of `git_dir` lists, as git stores them (relative
/// to the top of the work tree, `/`-separated); empty when there is no
/// index (a repository with nothing staged yet). A sparse index's
/// directory entries end with `/`.
pub(crate) fn tracked(git_dir: &Path) -> Result<Vec<PathBuf>, IndexError> {
    let path = git_dir.join("index");
    let data = match std::fs::read(&path) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(IndexError {
                path: path.display().to_string(),
                why: e.to_string(),
            });
        }
    };
    let err = |why: String| IndexError {
        path: path.display().to_string(),
        why,
    };
    let parsed = parse(&data).map_err(err)?;
    let mut names = parsed.names;
    if let Some(shared) = parsed.shared {
        // A split index: most entries are in the shared file it names.
        let shared_path = git_dir.join(format!("sharedindex.{shared}"));
        let data = std::fs::read(&shared_path).map_err(|e| IndexError {
            path: shared_path.display().to_string(),
            why: e.to_string(),
        })?;
        let more = parse(&data).map_err(|why| IndexError {
            path: shared_path.display().to_string(),
            why,
        })?;
        names.extend(more.names);
    }
    Ok(names
        .into_iter()
        .map(|n| PathBuf::from(OsStr::from_bytes(&n)))
        .collect())
}

/// An index read: its names, and the shared index a split index names.
#[derive(Debug)]
struct Parsed {
    names: Vec<Vec<u8>>,
    shared: Option<String>,
}

/// Parses an index (`Documentation/gitformat-index.txt`). Object names
/// are 20 bytes (SHA-1) or 32 (SHA-256), which the index does not say:
/// the one under which every entry and extension fits, leaving exactly
/// the checksum, is taken.
fn parse(data: &[u8]) -> Result<Parsed, String> {
    if data.get(..4) != Some(b"DIRC") {
        return Err("not a git index (no `DIRC` signature)".into());
    }
    let version = be32(data, 4).ok_or("truncated header")?;
    if !(2..=4).contains(&version) {
        return Err(format!("index version {version} is not known"));
    }
    let count = be32(data, 8).ok_or("truncated header")? as usize;
    let mut last = String::new();
    for hash in [20usize, 32] {
        match entries(data, version, count, hash) {
            Ok(parsed) => return Ok(parsed),
            Err(why) => last = why,
        }
    }
    Err(last)
}

fn be32(data: &[u8], at: usize) -> Option<u32> {
    let b = data.get(at..at.checked_add(4)?)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn be16(data: &[u8], at: usize) -> Option<u16> {
    let b = data.get(at..at.checked_add(2)?)?;
    Some(u16::from_be_bytes([b[0], b[1]]))
}

/// The entries and extensions of an index whose object names are `hash`
/// bytes long.
fn entries(data: &[u8], version: u32, count: usize, hash: usize) -> Result<Parsed, String> {
    // An entry is at least its fixed fields and a NUL.
    let fixed = 40 + hash + 2;
    if count > data.len() / (fixed + 1) {
        return Err(format!(
            "{count} entries cannot fit in {} bytes",
            data.len()
        ));
    }
    let mut names: Vec<Vec<u8>> = Vec::with_capacity(count);
    let mut prev: Vec<u8> = Vec::new();
    let mut at = 12usize;
    let short = || "an entry runs past the end".to_string();
    for _ in 0..count {
        let start = at;
        let flags = be16(data, start + 40 + hash).ok_or_else(short)?;
        let mut name_at = start + fixed;
        if flags & 0x4000 != 0 {
            name_at += 2;
        }
        let len = usize::from(flags & 0x0fff);
        let name = if version == 4 {
            // The name is the previous one, less `strip` bytes at its end,
            // followed by the NUL-terminated text here.
            let (strip, used) = varint(data, name_at).ok_or_else(short)?;
            let text_at = name_at + used;
            let end = nul(data, text_at).ok_or_else(short)?;
            let keep = prev
                .len()
                .checked_sub(strip)
                .ok_or("a name strips more than the previous name holds")?;
            let mut name = prev[..keep].to_vec();
            name.extend_from_slice(&data[text_at..end]);
            at = end + 1;
            name
        } else {
            let end = nul(data, name_at).ok_or_else(short)?;
            let name = data[name_at..end].to_vec();
            // Padded with 1 to 8 NULs to a multiple of 8 from the entry's
            // start.
            let size = (end - start + 8) & !7;
            let next = start + size;
            if next > data.len() || data[end..next].iter().any(|&b| b != 0) {
                return Err("an entry's padding is not NULs".into());
            }
            at = next;
            name
        };
        if name.first() == Some(&b'/') || (len < 0x0fff && name.len() != len) {
            return Err("an entry's name does not match its length".into());
        }
        prev.clone_from(&name);
        // A split index's entry that replaces a shared one may leave its
        // name to the shared index.
        if !name.is_empty() {
            names.push(name);
        }
    }
    // Extensions, then the checksum.
    let mut shared = None;
    loop {
        let left = data.len().checked_sub(at).ok_or_else(short)?;
        if left == hash {
            break;
        }
        if left < 8 + hash {
            return Err("bytes left over after the entries".into());
        }
        let size = be32(data, at + 4).ok_or_else(short)? as usize;
        let body = at + 8;
        let end = body.checked_add(size).filter(|&e| e + hash <= data.len());
        let end = end.ok_or("an extension runs past the end")?;
        if &data[at..at + 4] == b"link" {
            let id = data.get(body..body + hash).ok_or_else(short)?;
            if id.iter().any(|&b| b != 0) {
                shared = Some(id.iter().map(|b| format!("{b:02x}")).collect());
            }
        }
        at = end;
    }
    Ok(Parsed { names, shared })
}

/// The offset of the first NUL at or after `at`.
fn nul(data: &[u8], at: usize) -> Option<usize> {
    data.get(at..)?.iter().position(|&b| b == 0).map(|i| at + i)
}

/// Git's offset varint (`decode_varint`): the value and the bytes it took.
fn varint(data: &[u8], at: usize) -> Option<(usize, usize)> {
    let mut i = at;
    let mut c = *data.get(i)?;
    let mut value = usize::from(c & 0x7f);
    while c & 0x80 != 0 {
        i += 1;
        c = *data.get(i)?;
        value = value.checked_add(1)?.checked_mul(128)? | usize::from(c & 0x7f);
        if i - at > 9 {
            return None;
        }
    }
    Some((value, i - at + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let out = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    fn repo(extra_init: &[&str]) -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        let mut init = vec!["init", "-q"];
        init.extend_from_slice(extra_init);
        git(t.path(), &init);
        std::fs::create_dir_all(t.path().join("src/deep")).unwrap();
        for f in [".env", "src/main.rs", "src/deep/a b.txt", "README"] {
            std::fs::write(t.path().join(f), "x\n").unwrap();
        }
        git(t.path(), &["add", "."]);
        t
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = tracked(&dir.join(".git"))
            .unwrap()
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        v.sort();
        v
    }

    const ALL: [&str; 4] = [".env", "README", "src/deep/a b.txt", "src/main.rs"];

    /// Every index version git writes, read back to the names it holds.
    #[test]
    fn every_version_git_writes_is_read() {
        for version in ["2", "3", "4"] {
            let t = repo(&[]);
            git(t.path(), &["update-index", "--index-version", version]);
            if version == "3" {
                // An extended entry (intent to add) makes version 3 real.
                std::fs::write(t.path().join("new"), "y").unwrap();
                git(t.path(), &["add", "-N", "new"]);
                let mut want = ALL.to_vec();
                want.push("new");
                want.sort();
                assert_eq!(names(t.path()), want, "version {version}");
                continue;
            }
            assert_eq!(names(t.path()), ALL, "version {version}");
        }
    }

    #[test]
    fn a_sha256_repository_is_read() {
        let t = repo(&["--object-format=sha256"]);
        assert_eq!(names(t.path()), ALL);
        git(t.path(), &["update-index", "--index-version", "4"]);
        assert_eq!(names(t.path()), ALL);
    }

    /// A split index keeps most entries in a shared file, which is read
    /// too.
    #[test]
    fn a_split_index_is_read_with_its_shared_part() {
        let t = repo(&[]);
        git(t.path(), &["update-index", "--split-index"]);
        std::fs::write(t.path().join("later"), "z").unwrap();
        git(t.path(), &["add", "later"]);
        let got = names(t.path());
        for want in ALL.iter().chain(&["later"]) {
            assert!(got.iter().any(|g| g == want), "{want} in {got:?}");
        }
    }

    #[test]
    fn no_index_is_nothing_tracked_and_a_broken_one_is_an_error() {
        let t = tempfile::tempdir().unwrap();
        git(t.path(), &["init", "-q"]);
        assert_eq!(names(t.path()), Vec::<String>::new());
        std::fs::write(t.path().join(".git/index"), b"DIRC\0\0\0\x02\0\0\0\x05junk").unwrap();
        assert!(tracked(&t.path().join(".git")).is_err());
        std::fs::write(t.path().join(".git/index"), b"not an index").unwrap();
        assert!(tracked(&t.path().join(".git")).is_err());
    }

    /// Cut anywhere, an index is an error, never a shorter list.
    #[test]
    fn a_truncated_index_is_an_error() {
        let t = repo(&[]);
        let data = std::fs::read(t.path().join(".git/index")).unwrap();
        for cut in 0..data.len() {
            assert!(parse(&data[..cut]).is_err(), "cut at {cut}");
        }
        assert_eq!(parse(&data).unwrap().names.len(), 4);
    }

    #[test]
    fn the_repository_is_found_from_beneath_a_worktree_and_inside_git_dir() {
        let t = repo(&[]);
        let top = t.path().canonicalize().unwrap();
        let found = find(&top.join("src/deep")).unwrap();
        assert_eq!(found.top.as_deref(), Some(top.as_path()));
        assert_eq!(found.git_dir, top.join(".git"));
        let inside = find(&top.join(".git/refs")).unwrap();
        assert_eq!(inside.git_dir, top.join(".git"));
        assert_eq!(inside.top.as_deref(), Some(top.as_path()));
        git(
            &top,
            &[
                "-c",
                "user.name=a",
                "-c",
                "user.email=a@b",
                "commit",
                "-qm",
                "x",
            ],
        );
        git(&top, &["worktree", "add", "-q", "wt"]);
        let wt = find(&top.join("wt/src")).unwrap();
        assert_eq!(wt.top.as_deref(), Some(top.join("wt").as_path()));
        assert!(names_in(&wt.git_dir).contains(&".env".to_string()));
        let none = tempfile::tempdir().unwrap();
        assert_eq!(find(none.path()), None);
    }

    proptest::proptest! {
        /// Whatever the bytes after a valid header, reading them ends in
        /// names or an error, never a panic; a real index with bytes
        /// changed anywhere too.
        #[test]
        fn any_bytes_are_names_or_an_error(
            version in 2u32..=4,
            count in 0u32..64,
            body in proptest::collection::vec(proptest::num::u8::ANY, 0..600),
        ) {
            let mut data = b"DIRC".to_vec();
            data.extend_from_slice(&version.to_be_bytes());
            data.extend_from_slice(&count.to_be_bytes());
            data.extend_from_slice(&body);
            let _ = parse(&data);
        }
    }

    #[test]
    fn a_changed_byte_anywhere_is_names_or_an_error() {
        let t = repo(&[]);
        git(t.path(), &["update-index", "--index-version", "4"]);
        let data = std::fs::read(t.path().join(".git/index")).unwrap();
        for i in 0..data.len() {
            for b in [0u8, 0x7f, 0xff] {
                let mut d = data.clone();
                d[i] = b;
                let _ = parse(&d);
            }
        }
    }

    fn names_in(git_dir: &Path) -> Vec<String> {
        tracked(git_dir)
            .unwrap()
            .iter()
            .map(|p| p.display().to_string())
            .collect()
    }
}

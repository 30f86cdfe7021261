//! Fixtures: a workspace root with an `outside` directory beside it.

use std::fs;
use std::path::PathBuf;

use tempfile::TempDir;
use toolgate_tools::{Limits, Workspace};

/// `base/root` is the workspace; `base/outside` holds `secret.txt`
/// ("SECRET") and `dir/secret.txt` ("SECRET"), which nothing may read,
/// change or add to.
pub struct Fixture {
    _base: TempDir,
    pub root: PathBuf,
    pub outside: PathBuf,
    pub ws: Workspace,
    pub limits: Limits,
}

pub fn fixture() -> Fixture {
    let base = tempfile::tempdir().expect("temp dir");
    let base_path = fs::canonicalize(base.path()).expect("canonical temp dir");
    let root = base_path.join("root");
    let outside = base_path.join("outside");
    fs::create_dir_all(&root).expect("root");
    fs::create_dir_all(outside.join("dir")).expect("outside");
    fs::write(outside.join("secret.txt"), "SECRET").expect("secret");
    fs::write(outside.join("dir/secret.txt"), "SECRET").expect("secret");
    let ws = Workspace::open(std::slice::from_ref(&root), &[]).expect("workspace");
    Fixture {
        _base: base,
        root,
        outside,
        ws,
        limits: Limits::default(),
    }
}

impl Fixture {
    /// The sorted names in the outside directory (recursively), to show that
    /// nothing was added or removed there.
    pub fn outside_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        let mut stack = vec![self.outside.clone()];
        while let Some(dir) = stack.pop() {
            for e in fs::read_dir(&dir).expect("read outside") {
                let e = e.expect("entry");
                let p = e.path();
                names.push(
                    p.strip_prefix(&self.outside)
                        .expect("under outside")
                        .display()
                        .to_string(),
                );
                if e.file_type().expect("type").is_dir() {
                    stack.push(p);
                }
            }
        }
        names.sort();
        names
    }

    /// Asserts that the outside directory is exactly as `fixture` made it.
    pub fn assert_outside_untouched(&self) {
        assert_eq!(
            self.outside_names(),
            ["dir", "dir/secret.txt", "secret.txt"],
            "something was created or removed outside the root"
        );
        for f in ["secret.txt", "dir/secret.txt"] {
            assert_eq!(
                fs::read_to_string(self.outside.join(f)).expect("secret readable"),
                "SECRET",
                "{f} outside the root was changed"
            );
        }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
}

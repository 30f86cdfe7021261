//! The corpus's workspaces and file format, shared by the corpus test and
//! the property test that decides generated commands under the same
//! policies.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toolgate_policy::{LoadOptions, Policy};

/// Where the corpus lives.
pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// The policies cases may name: each file in `policies/`, and `builtin`,
/// the built-in default policy (which has no file).
pub fn policy_names() -> Vec<String> {
    let mut names = vec!["builtin".to_string()];
    let entries = std::fs::read_dir(dir().join("policies")).expect("corpus policies directory");
    let mut files: Vec<String> = entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            name.strip_suffix(".toml").map(str::to_string)
        })
        .collect();
    files.sort();
    names.extend(files);
    names
}

/// The files every workspace holds, as (path, content). A path ending in
/// `/` is a directory.
const FIXTURE: &[(&str, &str)] = &[
    (".env", "API_KEY=not-a-real-key\n"),
    (".env.local", "DB_PASSWORD=not-a-real-password\n"),
    ("README.md", "# project\n"),
    ("f.txt", "one\ntwo\nthree\nfour\nfive\n"),
    ("notes.txt", "a note\n"),
    ("Cargo.toml", "[package]\nname = \"demo\"\n"),
    ("install.sh", "echo installing\n"),
    ("src/main.rs", "fn main() {}\n"),
    ("src/lib.rs", "// run with sudo? never\n"),
    ("src/util/mod.rs", "\n"),
    ("docs/guide.md", "guide\n"),
    ("tests/it.rs", "\n"),
    ("secrets/prod.pem", "not a key\n"),
    ("target/", ""),
    (".git/HEAD", "ref: refs/heads/main\n"),
    (".git/config", "[core]\n"),
    (".git/hooks/", ""),
    (".github/workflows/ci.yml", "on: push\n"),
];

/// One policy's temporary workspace: `<tmp>/ws` holds the fixture, the
/// policy file and `escape`, a symlink to `<tmp>/outside.txt`, a file beside
/// the workspace; `<tmp>/home` is the home directory, also outside.
pub struct Workspace {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub home: PathBuf,
    pub policy: Policy,
}

impl Workspace {
    /// Builds the workspace and loads the named policy in it.
    pub fn new(name: &str) -> Workspace {
        let tmp = tempfile::tempdir().expect("temp dir");
        let base = std::fs::canonicalize(tmp.path()).expect("canonical temp dir");
        let root = base.join("ws");
        let home = base.join("home");
        for (path, content) in FIXTURE {
            let p = root.join(path);
            if path.ends_with('/') {
                std::fs::create_dir_all(&p).expect("fixture dir");
            } else {
                std::fs::create_dir_all(p.parent().expect("parent")).expect("fixture dir");
                std::fs::write(&p, content).expect("fixture file");
            }
        }
        std::fs::create_dir_all(home.join(".ssh")).expect("home");
        std::fs::write(home.join(".ssh/id_rsa"), "not a key\n").expect("home file");
        std::fs::write(home.join(".bashrc"), "\n").expect("home file");
        std::fs::write(base.join("outside.txt"), "outside\n").expect("outside file");
        // `escape` leads out of the workspace.
        std::os::unix::fs::symlink("../outside.txt", root.join("escape")).expect("symlink");
        let opts = LoadOptions {
            workspace: None,
            home: Some(home.clone()),
            state_dir: Some(home.join(".local/state/toolgate")),
        };
        let policy = if name == "builtin" {
            Policy::builtin(&LoadOptions {
                workspace: Some(root.clone()),
                ..opts
            })
        } else {
            let text = std::fs::read_to_string(dir().join("policies").join(format!("{name}.toml")))
                .unwrap_or_else(|e| panic!("policy `{name}`: {e}"));
            let file = root.join("toolgate.toml");
            std::fs::write(&file, text).expect("policy copy");
            Policy::load(&file, &opts)
        }
        .unwrap_or_else(|e| panic!("policy `{name}`: {e}"));
        Workspace {
            _tmp: tmp,
            root,
            home,
            policy,
        }
    }
}

/// `shell.toml`: groups of cases, one case a line.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CorpusFile {
    pub group: Vec<Group>,
}

/// A category of cases.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    pub name: String,
    pub case: Vec<toml::Spanned<Case>>,
}

/// One command decided under one policy.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// A file in `policies/` (without `.toml`), or `builtin`.
    pub policy: String,
    /// The shell command, given to `run_shell`.
    pub cmd: String,
    /// `allow`, `ask` or `deny`.
    pub expect: String,
    /// The id of the rule that decides, `(default)` for the policy's
    /// default (no rule); unchecked when absent.
    pub rule: Option<String>,
    /// Whether a hard limit decides; false when absent.
    #[serde(default)]
    pub hard: bool,
    /// The call's working directory, relative to the workspace.
    pub cwd: Option<String>,
    /// A mode replacing the policy's own.
    pub mode: Option<String>,
    /// Why this is the right answer.
    pub why: String,
}

/// Reads `shell.toml`; panics with the parser's message when it is malformed.
pub fn load() -> (String, CorpusFile) {
    let path = dir().join("shell.toml");
    let text = std::fs::read_to_string(&path).expect("corpus file");
    let file: CorpusFile =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (text, file)
}

/// The 1-based line of a byte offset.
pub fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).unwrap_or(text).matches('\n').count() + 1
}

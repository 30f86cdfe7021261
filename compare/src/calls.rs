//! The benchmark calls, each in two forms: the tool call toolgate decides,
//! and the reduced request the other engines decide.

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::json;
use toolgate_policy::{Call, Effect};

use crate::DEFAULT;
use crate::rules::{self, Target};

/// What a call asks for, already reduced to what rules look at: the form
/// Cedar, Rego and the linear scan receive. Producing it is the host's
/// work, done before timing; toolgate does the equivalent inside `decide`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Read a file: its resolved absolute path.
    Read(PathBuf),
    /// Write a file: its resolved absolute path.
    Write(PathBuf),
    /// Run a simple command: its argv.
    Exec(Vec<String>),
    /// Call a tool by name.
    Tool(String),
    /// Fetch a URL; `host` is lowercased, as toolgate reads it.
    Fetch {
        /// The URL.
        url: String,
        /// Its host.
        host: String,
    },
}

/// The kind of a call, for the per-kind figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `read_file`.
    Read,
    /// `write_file`.
    Write,
    /// `run_shell`.
    Exec,
    /// An MCP tool.
    Tool,
    /// `fetch_url`.
    Fetch,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 5] = [Kind::Read, Kind::Write, Kind::Exec, Kind::Tool, Kind::Fetch];

    /// True for the kinds whose decision in toolgate involves no file
    /// system access (no path to resolve, no command to analyse).
    pub fn needs_no_resolution(self) -> bool {
        matches!(self, Kind::Tool | Kind::Fetch)
    }

    /// Lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "write",
            Kind::Exec => "exec",
            Kind::Tool => "tool",
            Kind::Fetch => "fetch",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One benchmark call.
#[derive(Debug, Clone)]
pub struct BenchCall {
    /// Names the call in a disagreement report.
    pub label: String,
    /// Its kind.
    pub kind: Kind,
    /// As toolgate receives it.
    pub call: Call,
    /// As the other engines receive it.
    pub request: Request,
    /// What the rules say it should get.
    pub expect: Effect,
}

/// A workspace in a temporary directory: the root the rules are anchored
/// to, and the files the calls name, so that toolgate resolves real paths.
pub struct Workspace {
    _dir: tempfile::TempDir,
    /// The canonical root.
    pub root: PathBuf,
    /// A home directory outside the root.
    pub home: PathBuf,
}

impl Workspace {
    /// Creates an empty workspace.
    pub fn new() -> anyhow::Result<Workspace> {
        let dir = tempfile::tempdir()?;
        let base = std::fs::canonicalize(dir.path())?;
        let root = base.join("ws");
        let home = base.join("home");
        std::fs::create_dir_all(&root)?;
        std::fs::create_dir_all(&home)?;
        Ok(Workspace {
            _dir: dir,
            root,
            home,
        })
    }

    /// The policy file's path.
    pub fn policy_file(&self) -> PathBuf {
        self.root.join("toolgate.toml")
    }

    fn touch(&self, rel: &str) -> anyhow::Result<()> {
        let p = self.root.join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d)?;
        }
        std::fs::write(p, "x")?;
        Ok(())
    }
}

/// How many decades of rules the calls aim at (spread over the rule list),
/// and how many lie past its end (every call a miss). The same for every
/// size, so that every size decides the same mix of calls.
const PICKS: usize = 20;
const PAST_END: usize = 4;

/// The decades the calls aim at, for a policy of `n` rules: spread over the
/// whole list, alternating odd and even decades where there are both, then
/// a few past the end.
pub fn decades(n: usize) -> Vec<usize> {
    let count = n / 10;
    let mut out = Vec::new();
    for k in 0..PICKS {
        let mut d = k * count / PICKS;
        if d % 2 != k % 2 && d + 1 < count {
            d += 1;
        }
        out.push(d);
    }
    out.extend((0..PAST_END).map(|k| count + 3 + k));
    out
}

/// The effect of the rule in `slot` of decade `d`, or `None` when the
/// policy of `n` rules does not have it.
fn effect_of(n: usize, d: usize, slot: usize) -> Option<Effect> {
    (d < n / 10).then(|| rules::rule(d, slot).effect)
}

/// True when the policy of `n` rules has, in decade `d`, a rule whose target
/// satisfies `is`.
fn has(n: usize, d: usize, slot: usize, is: impl Fn(&Target) -> bool) -> bool {
    d < n / 10 && is(&rules::rule(d, slot).target)
}

/// The calls for a policy of `n` rules, creating the files they name in
/// the workspace.
pub fn calls(n: usize, ws: &Workspace) -> anyhow::Result<Vec<BenchCall>> {
    let mut out = Vec::new();
    let root = &ws.root;
    let or_default = |e: Option<Effect>| e.unwrap_or(DEFAULT);
    for d in decades(n) {
        let read = |rel: String, expect: Effect| -> anyhow::Result<BenchCall> {
            ws.touch(&rel)?;
            Ok(path_call(root, Kind::Read, rel, expect))
        };
        let write = |rel: String, expect: Effect| -> anyhow::Result<BenchCall> {
            ws.touch(&rel)?;
            Ok(path_call(root, Kind::Write, rel, expect))
        };
        let keys_deny = has(n, d, 4, |t| matches!(t, Target::Read(_)));
        let srv_glob = has(n, d, 4, |t| matches!(t, Target::ToolPrefix(_)));
        out.extend([
            write(format!("src/m{d}/lib.rs"), or_default(effect_of(n, d, 0)))?,
            // Inside the allowed directory, but an ask rule covers `gen/`.
            write(
                format!("src/m{d}/gen/out.rs"),
                or_default(effect_of(n, d, 1)),
            )?,
            read(format!("data/d{d}/t.csv"), or_default(effect_of(n, d, 2)))?,
            // Allowed by `*.csv`, denied by `private*.csv`.
            read(
                format!("data/d{d}/private7.csv"),
                or_default(effect_of(n, d, 3)),
            )?,
            // A Read deny also denies writes.
            write(
                format!("data/d{d}/private7.csv"),
                or_default(effect_of(n, d, 3)),
            )?,
            // `*` stays within a segment: a miss.
            read(format!("data/d{d}/old/t.csv"), DEFAULT)?,
            // No rule reads `src/`: a miss.
            read(format!("src/m{d}/lib.rs"), DEFAULT)?,
            read(
                format!("keys/k{d}/id.pem"),
                if keys_deny { Effect::Deny } else { DEFAULT },
            )?,
            exec(
                format!("tool{d} sub --flag value"),
                or_default(effect_of(n, d, 5)),
            ),
            // Allowed by `tool sub *`, denied by `tool sub --force *`.
            exec(
                format!("tool{d} sub --force now"),
                or_default(effect_of(n, d, 6)),
            ),
            // A prefix matches at a word boundary only.
            exec(format!("tool{d} subx"), DEFAULT),
            exec(format!("deploy{d} prod"), or_default(effect_of(n, d, 7))),
            tool(format!("mcp__s__t{d}"), or_default(effect_of(n, d, 8))),
            tool(format!("mcp__s__t{d}x"), DEFAULT),
            tool(
                format!("mcp__srv{d}__drop"),
                if srv_glob { Effect::Deny } else { DEFAULT },
            ),
            fetch(
                format!("https://host{d}.example.com/x?q=1"),
                or_default(effect_of(n, d, 9)),
            ),
            fetch(format!("https://api{d}.example.org/v1"), DEFAULT),
        ]);
    }
    Ok(out)
}

fn path_call(root: &Path, kind: Kind, rel: String, expect: Effect) -> BenchCall {
    let abs = root.join(&rel);
    let (call, request) = match kind {
        Kind::Read => (
            Call::new("read_file", json!({ "path": rel })),
            Request::Read(abs),
        ),
        _ => (
            Call::new("write_file", json!({ "path": rel, "content": "x" })),
            Request::Write(abs),
        ),
    };
    BenchCall {
        label: format!("{kind} {rel}"),
        kind,
        call,
        request,
        expect,
    }
}

fn exec(command: String, expect: Effect) -> BenchCall {
    let argv = shell_words::split(&command).expect("the benchmark's commands are plain words");
    BenchCall {
        label: format!("exec `{command}`"),
        kind: Kind::Exec,
        call: Call::new("run_shell", json!({ "command": command })),
        request: Request::Exec(argv),
        expect,
    }
}

fn tool(name: String, expect: Effect) -> BenchCall {
    BenchCall {
        label: format!("tool {name}"),
        kind: Kind::Tool,
        call: Call::new(name.clone(), json!({ "q": "x" })),
        request: Request::Tool(name),
        expect,
    }
}

fn fetch(url: String, expect: Effect) -> BenchCall {
    let host = url
        .split_once("://")
        .map(|(_, rest)| rest.split(['/', '?', '#']).next().unwrap_or(""))
        .unwrap_or("")
        .to_ascii_lowercase();
    BenchCall {
        label: format!("fetch {url}"),
        kind: Kind::Fetch,
        call: Call::new("fetch_url", json!({ "url": url })),
        request: Request::Fetch { url, host },
        expect,
    }
}

//! Paths as Pi resolves them: its tools drop one leading `@`, read Unicode
//! spaces as plain ones and expand `~` (`expandPath`), and its `read`
//! tries other spellings of a name that names no file
//! (`resolveReadPath`). The hook decides the path Pi opens; Pi's own
//! resolver, run with node, shows which one that is.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};
use toolgate_hook::{HookOptions, pi_hook};

use crate::support::{PI_VERSION, available, clients_dir};

const POLICY: &str = r#"
allow = ["Read", "Edit(docs/**)"]
deny  = ["Read(.env)", "Edit(src/**)"]
"#;

struct Project {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    home: PathBuf,
    opts: HookOptions,
}

impl Project {
    fn new() -> Project {
        let tmp = tempfile::tempdir().expect("temp dir");
        let base = tmp.path().canonicalize().expect("canonical");
        let dir = base.join("project");
        for (path, text) in [
            ("toolgate.toml", POLICY),
            (".env", "SECRET=2\n"),
            ("src/main.rs", "fn main() {}\n"),
            ("docs/a.md", "doc\n"),
        ] {
            let at = dir.join(path);
            std::fs::create_dir_all(at.parent().expect("parent")).expect("folder");
            std::fs::write(at, text).expect("file");
        }
        let opts = HookOptions {
            policy: Some(dir.join("toolgate.toml")),
            state_dir: Some(base.join("state")),
            ..HookOptions::default()
        };
        Project {
            _tmp: tmp,
            dir,
            home: base.join("home"),
            opts,
        }
    }

    /// The decision toolgate's Pi extension gets for `tool` with `input`.
    fn decide(&self, tool: &str, input: Value) -> (String, String) {
        let stdin = json!({"session_id": "s1", "cwd": self.dir, "tool_name": tool,
            "tool_input": input, "call_id": "c1"});
        // The home directory the policy expands `~` with is the process's.
        let reply = pi_hook(stdin.to_string().as_bytes(), &self.opts);
        let v: Value = serde_json::from_str(&reply.stdout).unwrap_or(Value::Null);
        (
            v["decision"].as_str().unwrap_or("blocked").to_string(),
            reply.stdout.clone(),
        )
    }
}

#[test]
fn a_leading_at_is_dropped_as_pi_drops_it() {
    let p = Project::new();
    for (tool, input, want, rule) in [
        ("read", json!({"path": "@.env"}), "deny", "Read(.env)"),
        (
            "grep",
            json!({"pattern": "S", "path": "@.env"}),
            "deny",
            "Read(.env)",
        ),
        (
            "ls",
            json!({"path": "@/proc/self/root/etc/shadow"}),
            "deny",
            "",
        ),
        (
            "write",
            json!({"path": "@src/main.rs", "content": "x"}),
            "deny",
            "Edit(src/**)",
        ),
        (
            "edit",
            json!({"path": "@src/main.rs", "oldText": "a", "newText": "b"}),
            "deny",
            "Edit(src/**)",
        ),
        // A Unicode space is a plain one to Pi.
        ("read", json!({"path": "docs/a\u{00A0}b.md"}), "allow", ""),
        (
            "write",
            json!({"path": "@docs/n.md", "content": "x"}),
            "allow",
            "",
        ),
    ] {
        let (d, text) = p.decide(tool, input.clone());
        assert_eq!(d, want, "{tool} {input}: {text}");
        assert!(text.contains(rule), "{tool} {input}: {text}");
    }
}

#[test]
fn another_spelling_read_in_place_of_a_missing_name_asks() {
    let p = Project::new();
    // No such files: Pi would try `it’s.md`, the decomposed form, a narrow
    // space before `PM.`; the extension cannot ask in `-p`, so a refusal.
    for path in ["docs/it's.md", "docs/caf\u{e9}.md", "shot 1.02 PM.png"] {
        let (d, text) = p.decide("read", json!({ "path": path }));
        assert_ne!(d, "allow", "{path}: {text}");
        assert!(text.contains("names no file"), "{path}: {text}");
    }
    // A name that exists is read as it is.
    std::fs::write(p.dir.join("docs/it's.md"), "x").expect("file");
    let (d, text) = p.decide("read", json!({"path": "docs/it's.md"}));
    assert_eq!(d, "allow", "{text}");
}

/// Pi's own resolver, from the pinned release, resolves `@.env` to the
/// project's `.env` and `@~/x` to the home directory's `x`.
#[test]
fn pi_resolves_the_at_prefix_as_the_hook_does() {
    let resolver = clients_dir()
        .join(format!("pi-{PI_VERSION}"))
        .join("node_modules/@mariozechner/pi-coding-agent/dist/core/tools/path-utils.js");
    if !available(
        "the real Pi",
        resolver.is_file(),
        "scripts/install-clients.sh",
    ) {
        return;
    }
    let p = Project::new();
    let script = format!(
        "import({:?}).then(m => {{ for (const a of ['@.env', '@~/x', 'docs/a\u{00A0}b.md']) console.log(m.resolveReadPath(a, {:?})); }})",
        resolver.display().to_string(),
        p.dir.display().to_string()
    );
    let out = Command::new("node")
        .args(["-e", &script])
        .env("HOME", &p.home)
        .output()
        .expect("node runs");
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(
        lines,
        [
            p.dir.join(".env").display().to_string(),
            p.home.join("x").display().to_string(),
            p.dir.join("docs/a b.md").display().to_string(),
        ],
        "{out:?}"
    );
}

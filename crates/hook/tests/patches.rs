//! Patches in the `apply_patch` format, through Codex CLI's and OpenCode's
//! hooks: the files a patch names are read as the clients' own parsers read
//! its headers (Codex trims each header line; OpenCode needs no space after
//! the colon), so a header written another way still meets the rules. The
//! real Codex's `apply_patch` shows what it does with such a patch.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use toolgate_hook::{HookOptions, codex_hook, opencode_hook};

use crate::support::{CODEX_CLI_VERSION, available, clients_dir};

const POLICY: &str = r#"
allow = ["Read", "Edit(docs/**)"]
deny  = ["Edit(src/**)", "Edit(.git/**)"]
"#;

/// Headers Codex reads after trimming the line: a deletion and an addition
/// under `src/` hidden among an allowed addition.
const PADDED: &str = "*** Begin Patch\n\t*** Delete File: src/main.rs\n*** Add File: docs/n.md\n+x\n  *** Add File: src/evil.rs\n+evil\n*** End Patch\n";

struct Project {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    opts: HookOptions,
}

impl Project {
    fn new() -> Project {
        let tmp = tempfile::tempdir().expect("temp dir");
        let base = tmp.path().canonicalize().expect("canonical");
        let dir = base.join("project");
        for (path, text) in [
            ("toolgate.toml", POLICY),
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
            opts,
        }
    }

    /// Codex's answer to an `apply_patch` call: the decision it shows
    /// (`allow` for an empty answer, which lets the call go on) and the text.
    fn codex(&self, patch: &str) -> (String, String) {
        let input = json!({"session_id": "s1", "turn_id": "t", "transcript_path": null,
            "cwd": self.dir, "hook_event_name": "PreToolUse", "model": "m",
            "permission_mode": "default", "tool_name": "apply_patch",
            "tool_use_id": "c1", "tool_input": {"command": patch}});
        let reply = codex_hook(input.to_string().as_bytes(), &self.opts);
        if reply.stdout.is_empty() && reply.exit_code == 0 {
            return ("allow".into(), String::new());
        }
        let v: Value = serde_json::from_str(&reply.stdout).unwrap_or(Value::Null);
        let decision = v["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap_or("blocked")
            .to_string();
        (decision, format!("{}{}", reply.stdout, reply.stderr))
    }

    /// OpenCode's plugin answer to an `apply_patch` call.
    fn opencode(&self, patch: &str) -> (String, String) {
        let input = json!({"session_id": "s1", "cwd": self.dir, "tool_name": "apply_patch",
            "call_id": "c1", "tool_input": {"patchText": patch}});
        let reply = opencode_hook(input.to_string().as_bytes(), &self.opts);
        let v: Value = serde_json::from_str(&reply.stdout).unwrap_or(Value::Null);
        (
            v["decision"].as_str().unwrap_or("blocked").to_string(),
            reply.stdout.clone(),
        )
    }
}

#[test]
fn codex_headers_padded_with_blanks_are_headers() {
    let p = Project::new();
    let (d, text) = p.codex(PADDED);
    assert_eq!(d, "deny", "{text}");
    assert!(text.contains("Edit(src/**)"), "{text}");
    // The allowed part alone is allowed.
    let (d, text) = p.codex("*** Begin Patch\n*** Add File: docs/n.md\n+x\n*** End Patch\n");
    assert_eq!(d, "allow", "{text}");
}

#[test]
fn opencode_headers_without_a_space_are_headers() {
    let p = Project::new();
    for patch in [
        "*** Begin Patch\n*** Add File: docs/n.md\n+x\n*** Delete File:src/main.rs\n*** End Patch",
        "*** Begin Patch\n*** Add File:.git/hooks/pre-commit\n+#!/bin/sh\n*** End Patch",
        "*** Begin Patch\n*** Update File: docs/a.md\n*** Move to:src/main.rs\n@@\n-doc\n+x\n*** End Patch",
    ] {
        let (d, text) = p.opencode(patch);
        assert_eq!(d, "deny", "{patch}: {text}");
    }
    // A header no client is known to take asks (OpenCode's plugin cannot
    // ask: a refusal).
    let (d, text) = p.opencode("*** Begin Patch\n*** Copy File: docs/a.md\n*** End Patch");
    assert_ne!(d, "allow", "{text}");
    let (d, text) = p.opencode("*** Begin Patch\n*** Add File:docs/m.md\n+x\n*** End Patch");
    assert_eq!(d, "allow", "{text}");
}

/// The native Codex executable of the pinned client (the npm package's
/// platform binary), which runs as `apply_patch` when called by that name.
fn codex_native() -> Option<PathBuf> {
    let scope = clients_dir()
        .join(format!("codex-cli-{CODEX_CLI_VERSION}"))
        .join("node_modules/@openai");
    for pkg in std::fs::read_dir(scope).ok()?.flatten() {
        // Only the platform package has a `vendor` folder.
        let Ok(targets) = std::fs::read_dir(pkg.path().join("vendor")) else {
            continue;
        };
        for target in targets.flatten() {
            let bin = target.path().join("bin/codex");
            if bin.is_file() {
                return Some(bin);
            }
        }
    }
    None
}

/// What the real Codex does with the padded patch: it deletes
/// `src/main.rs` and adds `src/evil.rs`, the files the hook now decides.
#[test]
fn the_real_codex_applies_padded_headers() {
    let native = codex_native();
    if !available(
        "the real Codex CLI",
        native.is_some(),
        "scripts/install-clients.sh",
    ) {
        return;
    }
    let Some(native) = native else { return };
    let p = Project::new();
    let out = apply(&native, &p.dir, PADDED);
    assert!(out.status.success(), "{out:?}");
    assert!(!p.dir.join("src/main.rs").exists(), "{out:?}");
    assert!(p.dir.join("src/evil.rs").exists(), "{out:?}");
    assert!(p.dir.join("docs/n.md").exists(), "{out:?}");
}

fn apply(codex: &Path, dir: &Path, patch: &str) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    Command::new(codex)
        .arg0("apply_patch")
        .arg(patch)
        .current_dir(dir)
        .output()
        .expect("run codex as apply_patch")
}

//! ARCHITECTURE.md's "Crate arrows" block against `cargo metadata`: every arrow it states is a
//! normal (non-dev) dependency between workspace crates, and every such dependency is stated.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

type Arrows = BTreeMap<String, BTreeSet<String>>;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("crates/cli lies two levels below the workspace root")
        .to_path_buf()
}

/// The name ARCHITECTURE.md gives a package: `toolgate-gate` is `gate`, `toolgate` stays.
fn short(package: &str) -> String {
    package
        .strip_prefix("toolgate-")
        .unwrap_or(package)
        .to_string()
}

/// Each workspace crate and the workspace crates it depends on (normal and build
/// dependencies; dev-dependencies are left out).
fn metadata_arrows(root: &Path) -> Arrows {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let out = Command::new(cargo)
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
    let packages = meta["packages"].as_array().expect("a packages array");
    let names: BTreeSet<&str> = packages
        .iter()
        .map(|p| p["name"].as_str().expect("a package name"))
        .collect();
    let mut arrows = Arrows::new();
    for p in packages {
        let from = short(p["name"].as_str().unwrap());
        let deps = arrows.entry(from).or_default();
        for d in p["dependencies"].as_array().expect("a dependencies array") {
            let name = d["name"].as_str().expect("a dependency name");
            if names.contains(name) && d["kind"].as_str() != Some("dev") {
                deps.insert(short(name));
            }
        }
    }
    arrows
}

/// Drops every `( .. )` aside: `toolgate (cli)`, `(nothing)`, trailing notes.
fn without_asides(s: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}

fn names(list: &str) -> Vec<String> {
    without_asides(list)
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect()
}

/// The fenced block after the line that starts "Crate arrows": one `FROM ─► TO, TO` per line,
/// `FROM` possibly several crates (`shell, store ─► (nothing)`), asides in brackets ignored.
fn stated_arrows(doc: &str) -> Arrows {
    let mut lines = doc.lines().skip_while(|l| !l.starts_with("Crate arrows"));
    assert!(
        lines.next().is_some(),
        "ARCHITECTURE.md has no line starting \"Crate arrows\""
    );
    let mut lines = lines.skip_while(|l| !l.starts_with("```"));
    assert!(
        lines.next().is_some(),
        "no fenced block follows \"Crate arrows\""
    );
    let mut arrows = Arrows::new();
    for line in lines.take_while(|l| !l.starts_with("```")) {
        if line.trim().is_empty() {
            continue;
        }
        let (from, to) = line
            .split_once('─')
            .map(|(f, t)| (f, t.trim_start_matches(['─', '►'])))
            .unwrap_or_else(|| panic!("a crate-arrows line without `─►`: {line:?}"));
        let targets = names(to);
        for f in names(from) {
            assert!(
                !arrows.contains_key(&f),
                "ARCHITECTURE.md states the arrows of `{f}` twice"
            );
            arrows.insert(f, targets.iter().cloned().collect());
        }
    }
    arrows
}

#[test]
fn crate_arrows_match_cargo_metadata() {
    let root = workspace_root();
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let stated = stated_arrows(&doc);
    let actual = metadata_arrows(&root);

    let mut problems = Vec::new();
    for name in stated.keys() {
        if !actual.contains_key(name) {
            problems.push(format!("`{name}` is stated but is no workspace crate"));
        }
    }
    for (from, deps) in &actual {
        let Some(said) = stated.get(from) else {
            problems.push(format!(
                "`{from}` is a workspace crate the block does not state (a crate with no \
                 arrows is written `{from} ─► (nothing)`)"
            ));
            continue;
        };
        for to in said.difference(deps) {
            problems.push(format!(
                "stated `{from} ─► {to}`, but {from} does not depend on {to}"
            ));
        }
        for to in deps.difference(said) {
            problems.push(format!(
                "{from} depends on {to}, but `{from} ─► {to}` is not stated"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md's crate arrows differ from `cargo metadata`:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn the_block_parser_reads_sources_targets_and_asides() {
    let doc = "x\nCrate arrows (a ─► b):\n\n```\ntoolgate (cli) ─► hook, gate\nshell, store   ─► (nothing)\ncompare ─► policy   (a benchmark)\n```\nafter ─► ignored\n";
    let arrows = stated_arrows(doc);
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(arrows["toolgate"], set(&["hook", "gate"]));
    assert_eq!(arrows["shell"], set(&[]));
    assert_eq!(arrows["store"], set(&[]));
    assert_eq!(arrows["compare"], set(&["policy"]));
    assert_eq!(arrows.len(), 4);
}

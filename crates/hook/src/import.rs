//! `toolgate import claude`: a `toolgate.toml` from Claude Code's own
//! permission settings.
//!
//! toolgate's rule syntax is Claude Code's (`Bash(npm run test:*)`,
//! `Read(./.env)`, `WebFetch(domain:example.com)`), so most rules carry over
//! as they are written. Each one is checked by compiling it with the policy
//! parser; what does not compile, or has no equivalent, becomes a `#`
//! comment at the end of the file saying why, so that nothing is dropped
//! silently.
//!
//! What Claude Code does without any rule is carried over too: it reads
//! files in its working directories without asking and asks about the rest,
//! so the policy allows `Read` (rule `claude:read`) and its default is `ask`.
//! `additionalDirectories` become `roots`: Claude Code lets its agent edit
//! there as well as read, so they are not `read_roots`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use toolgate_policy::{LoadOptions, Policy, PolicyError};

/// One Claude Code settings file, read by the caller.
#[derive(Debug, Clone)]
pub struct Source {
    /// Where it was read from, for messages and the file's header.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

/// The generated policy.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The `toolgate.toml` text.
    pub toml: String,
    /// How many rules were carried over.
    pub rules: usize,
    /// What was not carried over, one line each (also in the text, as
    /// comments).
    pub skipped: Vec<String>,
}

/// Why nothing could be generated.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// A settings file is not JSON, or its `permissions` is not an object.
    #[error("`{}` is not a Claude Code settings file: {detail}", .path.display())]
    Malformed {
        /// The settings file.
        path: PathBuf,
        /// What is wrong.
        detail: String,
    },
    /// The generated policy does not load, although each part of it did.
    #[error("the generated policy does not load: {0}")]
    Generated(PolicyError),
}

/// The settings files Claude Code reads in a project, shared then local
/// (later ones win for `defaultMode`; rule lists are merged), those that
/// exist.
pub fn project_sources(project: &Path) -> Vec<PathBuf> {
    ["settings.json", "settings.local.json"]
        .iter()
        .map(|name| project.join(".claude").join(name))
        .filter(|path| path.is_file())
        .collect()
}

/// The project a settings file belongs to: the folder holding its
/// `.claude` folder, else `None`.
pub fn project_of(settings: &Path) -> Option<PathBuf> {
    let folder = settings.parent()?;
    (folder.file_name()? == ".claude")
        .then(|| folder.parent().map(Path::to_path_buf))
        .flatten()
}

/// The three rule lists in the order toolgate numbers them.
const LISTS: [&str; 3] = ["allow", "ask", "deny"];

/// Turns Claude Code settings into a `toolgate.toml` that is meant to live
/// at `policy_file` (its directory anchors `/path` patterns and relative
/// roots, as the project root does for Claude Code; rules are checked
/// against it, so it must exist).
pub fn claude(sources: &[Source], policy_file: &Path) -> Result<Imported, ImportError> {
    let mut lists: [Vec<String>; 3] = Default::default();
    let mut mode: Option<(&'static str, String)> = None;
    let mut roots: Vec<String> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let check = |text: String| Policy::from_toml(&text, policy_file, &LoadOptions::default());

    for source in sources {
        let malformed = |detail: String| ImportError::Malformed {
            path: source.path.clone(),
            detail,
        };
        let root: Value = serde_json::from_str(&source.text)
            .map_err(|e| malformed(format!("it is not valid JSON ({e})")))?;
        let Value::Object(root) = root else {
            return Err(malformed("its top level is not an object".into()));
        };
        let permissions = match root.get("permissions") {
            None | Some(Value::Null) => continue,
            Some(Value::Object(p)) => p,
            Some(_) => return Err(malformed("`permissions` is not an object".into())),
        };
        for (key, value) in permissions {
            match key.as_str() {
                "allow" | "ask" | "deny" => {
                    let slot = LISTS.iter().position(|l| *l == key).unwrap_or(0);
                    let Some(items) = value.as_array() else {
                        skipped.push(format!("`permissions.{key}`: not a list"));
                        continue;
                    };
                    for item in items {
                        let Some(rule) = item.as_str() else {
                            skipped.push(format!("{key} {item}: not a string"));
                            continue;
                        };
                        match translate(rule) {
                            Err(why) => skipped.push(format!("{key} {}: {why}", quote(rule))),
                            Ok(selector) => {
                                if let Err(e) = check(format!("{key} = [{}]\n", quote(&selector))) {
                                    skipped.push(format!(
                                        "{key} {}: toolgate cannot read it ({})",
                                        quote(rule),
                                        e.message
                                    ));
                                } else if !lists[slot].contains(&selector) {
                                    if selector != rule.trim() {
                                        notes.push(format!(
                                            "{key} {} is written {} here: Claude Code's rule \
                                             for a whole MCP server",
                                            quote(rule),
                                            quote(&selector),
                                        ));
                                    } else if selector.starts_with("Write(") {
                                        notes.push(format!(
                                            "{key} {}: Claude Code ignores paths in `Write(..)` \
                                             rules; toolgate applies it to every write, as \
                                             `Edit(..)`",
                                            quote(rule)
                                        ));
                                    }
                                    lists[slot].push(selector);
                                }
                            }
                        }
                    }
                }
                "defaultMode" => match value.as_str() {
                    Some(claude) => match mode_for(claude) {
                        Some(toolgate) => mode = Some((toolgate, claude.to_owned())),
                        None => skipped.push(format!(
                            "defaultMode {}: toolgate has no equivalent mode",
                            quote(claude)
                        )),
                    },
                    None => skipped.push(format!("defaultMode {value}: not a string")),
                },
                "additionalDirectories" => {
                    let Some(items) = value.as_array() else {
                        skipped.push("`permissions.additionalDirectories`: not a list".into());
                        continue;
                    };
                    for item in items {
                        let Some(dir) = item.as_str() else {
                            skipped.push(format!("additionalDirectories {item}: not a string"));
                            continue;
                        };
                        if roots.iter().any(|r| r == dir) {
                            continue;
                        }
                        match check(format!("[policy]\nroots = [\".\", {}]\n", quote(dir))) {
                            Ok(_) => roots.push(dir.to_owned()),
                            Err(e) => skipped.push(format!(
                                "additionalDirectories {}: {}",
                                quote(dir),
                                e.message
                            )),
                        }
                    }
                }
                other => skipped.push(format!(
                    "`permissions.{other}`: toolgate has no equivalent setting"
                )),
            }
        }
    }

    let text = render(sources, &lists, mode, &roots, &notes, &skipped);
    check(text.clone()).map_err(ImportError::Generated)?;
    Ok(Imported {
        toml: text,
        rules: lists.iter().map(Vec::len).sum(),
        skipped,
    })
}

/// Claude Code's rule as a toolgate selector, or why it has none.
/// A Claude Code rule toolgate has no selector for: the import skips it
/// and says why.
#[derive(Debug, thiserror::Error)]
#[error("toolgate matches `{0}` by its name only, and cannot carry over the part in parentheses")]
struct NameOnly(String);

fn translate(rule: &str) -> Result<String, NameOnly> {
    let rule = rule.trim();
    let (name, spec) = match rule.find('(') {
        Some(open) => (&rule[..open], Some(&rule[open..])),
        None => (rule, None),
    };
    match (name, spec) {
        ("Bash" | "Read" | "Edit" | "Write" | "WebFetch", _) => Ok(rule.to_owned()),
        (name, None) => match name.strip_prefix("mcp__") {
            // `mcp__server` is every tool of that server to Claude Code, and
            // one tool of that exact name to toolgate.
            Some(server) if !server.is_empty() && !server.contains("__") => {
                Ok(format!("{name}__*"))
            }
            _ => Ok(rule.to_owned()),
        },
        (name, Some(_)) => Err(NameOnly(name.to_string())),
    }
}

/// toolgate's mode for a Claude Code `defaultMode`.
fn mode_for(claude: &str) -> Option<&'static str> {
    Some(match claude {
        "default" => "default",
        "acceptEdits" => "accept-edits",
        "plan" => "plan",
        "bypassPermissions" => "bypass",
        "dontAsk" => "dont-ask",
        _ => return None,
    })
}

fn render(
    sources: &[Source],
    lists: &[Vec<String>; 3],
    mode: Option<(&'static str, String)>,
    roots: &[String],
    notes: &[String],
    skipped: &[String],
) -> String {
    let mut out = String::new();
    let mut line = |text: &str| {
        out.push_str(text);
        out.push('\n');
    };
    line("# toolgate policy imported from Claude Code settings (`toolgate import claude`):");
    for source in sources {
        line(&format!(
            "#   {}",
            comment(&source.path.display().to_string())
        ));
    }
    line("# The rules keep Claude Code's syntax and meaning. `/path` patterns are relative to");
    line("# this file's directory, as Claude Code reads them relative to the project root:");
    line("# keep this file at the project root.");
    for note in notes {
        line(&format!("# Note: {}", comment(note)));
    }
    line("");
    for (name, rules) in LISTS.iter().zip(lists) {
        if rules.is_empty() {
            continue;
        }
        line(&format!("{name} = ["));
        for rule in rules {
            line(&format!("  {},", quote(rule)));
        }
        line("]");
    }
    line("");
    line("[policy]");
    line("# Claude Code asks about whatever no rule covers.");
    line("default = \"ask\"");
    if let Some((toolgate, claude)) = mode {
        line(&format!(
            "mode = {}  # defaultMode {}",
            quote(toolgate),
            comment(&quote(&claude))
        ));
    }
    if !roots.is_empty() {
        line("# additionalDirectories: Claude Code lets its agent read and edit there.");
        let all: Vec<String> = std::iter::once(".".to_owned())
            .chain(roots.iter().cloned())
            .map(|r| quote(&r))
            .collect();
        line(&format!("roots = [{}]", all.join(", ")));
    }
    line("");
    line("# Claude Code reads files in its working directories without asking.");
    line("[[rule]]");
    line("id = \"claude:read\"");
    line("effect = \"allow\"");
    line("match = [\"Read\"]");
    line("reason = \"reads inside the workspace are allowed, as in Claude Code\"");
    if !skipped.is_empty() {
        line("");
        line("# Not carried over:");
        for s in skipped {
            line(&format!("# - {}", comment(s)));
        }
    }
    out
}

/// A TOML basic string.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Text safe to put after `#`: one line.
fn comment(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolgate_policy::{Call, Client, Effect};

    fn import(settings: &str) -> (Imported, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let sources = [Source {
            path: dir.path().join(".claude/settings.json"),
            text: settings.to_owned(),
        }];
        let imported = claude(&sources, &dir.path().join("toolgate.toml")).unwrap();
        (imported, dir)
    }

    fn load(imported: &Imported, dir: &Path) -> Policy {
        let file = dir.join("toolgate.toml");
        std::fs::write(&file, &imported.toml).unwrap();
        Policy::load(&file, &LoadOptions::default()).unwrap()
    }

    fn decide(policy: &Policy, dir: &Path, tool: &str, input: Value) -> Effect {
        let mut call = Call::new(tool, input).with_client(Client::Claude);
        call.cwd = Some(dir.canonicalize().unwrap());
        policy.decide(&call).decision
    }

    #[test]
    fn rules_carry_over_with_their_meaning() {
        let (imported, dir) = import(
            r#"{"permissions": {
                "allow": ["Bash(npm run test:*)", "Bash(git status)", "WebFetch(domain:docs.rs)"],
                "ask": ["Bash(git push:*)"],
                "deny": ["Read(./.env)", "Bash(curl:*)"],
                "defaultMode": "acceptEdits"
            }}"#,
        );
        assert_eq!(imported.rules, 6);
        assert!(imported.skipped.is_empty(), "{:?}", imported.skipped);
        let policy = load(&imported, dir.path());
        assert_eq!(policy.mode(), toolgate_policy::Mode::AcceptEdits);
        assert_eq!(policy.default_effect(), Effect::Ask);
        let bash = |c: &str| {
            decide(
                &policy,
                dir.path(),
                "Bash",
                serde_json::json!({"command": c}),
            )
        };
        assert_eq!(bash("npm run test -- --watch"), Effect::Allow);
        assert_eq!(
            bash("npm run testing"),
            Effect::Ask,
            "a prefix ends at a word"
        );
        assert_eq!(bash("git status"), Effect::Allow);
        assert_eq!(bash("git push origin main"), Effect::Ask);
        assert_eq!(bash("curl https://example.com"), Effect::Deny);
        assert_eq!(bash("make"), Effect::Ask, "no rule: Claude Code asks");
        std::fs::write(dir.path().join("README.md"), "hi").unwrap();
        let read = |p: &str| {
            decide(
                &policy,
                dir.path(),
                "Read",
                serde_json::json!({"file_path": p}),
            )
        };
        assert_eq!(read(".env"), Effect::Deny);
        assert_eq!(read("README.md"), Effect::Allow, "Claude Code reads freely");
    }

    #[test]
    fn what_cannot_be_carried_over_is_commented_with_the_reason() {
        let (imported, dir) = import(
            r#"{"permissions": {
                "allow": ["Agent(Explore)", "WebSearch", "Bash(git status", 7],
                "deny": ["mcp__github"],
                "defaultMode": "auto",
                "disableBypassPermissionsMode": "disable"
            }, "model": "opus"}"#,
        );
        assert_eq!(imported.rules, 2, "{}", imported.toml);
        let text = &imported.toml;
        assert!(text.contains("\"WebSearch\""), "{text}");
        assert!(text.contains("\"mcp__github__*\""), "{text}");
        for expected in [
            "# - allow \"Agent(Explore)\": toolgate matches `Agent` by its name only",
            "# - allow \"Bash(git status\": toolgate cannot read it (malformed selector",
            "# - allow 7: not a string",
            "# - defaultMode \"auto\": toolgate has no equivalent mode",
            "# - `permissions.disableBypassPermissionsMode`: toolgate has no equivalent setting",
        ] {
            assert!(text.contains(expected), "missing `{expected}` in\n{text}");
        }
        assert_eq!(imported.skipped.len(), 5);
        let policy = load(&imported, dir.path());
        let mcp = decide(
            &policy,
            dir.path(),
            "mcp__github__create_issue",
            serde_json::json!({}),
        );
        assert_eq!(mcp, Effect::Deny, "a server-wide rule covers its tools");
    }

    #[test]
    fn additional_directories_become_roots_when_they_exist() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir_all(project.join("../shared")).unwrap();
        std::fs::create_dir_all(&project).unwrap();
        let sources = [Source {
            path: project.join(".claude/settings.json"),
            text: r#"{"permissions": {"additionalDirectories": ["../shared", "../missing"]}}"#
                .into(),
        }];
        let imported = claude(&sources, &project.join("toolgate.toml")).unwrap();
        assert!(
            imported.toml.contains("roots = [\".\", \"../shared\"]"),
            "{}",
            imported.toml
        );
        assert_eq!(imported.skipped.len(), 1);
        assert!(imported.skipped[0].starts_with("additionalDirectories \"../missing\""));
        std::fs::write(project.join("toolgate.toml"), &imported.toml).unwrap();
        let policy = Policy::load(&project.join("toolgate.toml"), &LoadOptions::default()).unwrap();
        assert_eq!(policy.roots().len(), 2);
    }

    #[test]
    fn shared_and_local_settings_merge() {
        let dir = tempfile::tempdir().unwrap();
        let sources = [
            Source {
                path: dir.path().join(".claude/settings.json"),
                text: r#"{"permissions": {"allow": ["Bash(ls)"], "defaultMode": "plan"}}"#.into(),
            },
            Source {
                path: dir.path().join(".claude/settings.local.json"),
                text: r#"{"permissions": {"allow": ["Bash(ls)", "Bash(pwd)"], "defaultMode": "dontAsk"}}"#.into(),
            },
        ];
        let imported = claude(&sources, &dir.path().join("toolgate.toml")).unwrap();
        assert_eq!(imported.rules, 2);
        assert!(
            imported.toml.contains("mode = \"dont-ask\""),
            "{}",
            imported.toml
        );
    }

    #[test]
    fn malformed_settings_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        for bad in ["{", "[]", r#"{"permissions": []}"#] {
            let sources = [Source {
                path: dir.path().join("s.json"),
                text: bad.into(),
            }];
            assert!(matches!(
                claude(&sources, &dir.path().join("toolgate.toml")),
                Err(ImportError::Malformed { .. })
            ));
        }
    }

    #[test]
    fn settings_without_permissions_give_claude_codes_defaults() {
        let (imported, dir) = import(r#"{"model": "opus"}"#);
        assert_eq!(imported.rules, 0);
        let policy = load(&imported, dir.path());
        let bash = decide(
            &policy,
            dir.path(),
            "Bash",
            serde_json::json!({"command": "ls"}),
        );
        assert_eq!(bash, Effect::Ask);
    }

    #[test]
    fn project_of_finds_the_folder_above_dot_claude() {
        assert_eq!(
            project_of(Path::new("/w/p/.claude/settings.json")),
            Some(PathBuf::from("/w/p"))
        );
        assert_eq!(project_of(Path::new("/w/p/settings.json")), None);
    }

    #[test]
    fn quoting_escapes_what_toml_needs() {
        assert_eq!(quote(r#"Bash(echo "a\b")"#), r#""Bash(echo \"a\\b\")""#);
        assert_eq!(quote("a\nb\u{1}"), "\"a\\nb\\u0001\"");
    }
}

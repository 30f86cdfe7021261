//! The fields the real clients read a path from, and that toolgate decides
//! on the same ones: Claude Code's `Glob` pattern (absolute, with `..`, or
//! under a `path` outside the project) and `Grep`'s `path` and `glob`,
//! Gemini CLI's `read_file` when the model gives several path fields or an
//! `@`-prefixed path, its `read_many_files`, which 0.61.0 does not offer
//! the model, and its `replace` of a relative path that names no file,
//! which the CLI corrects to a file elsewhere in the project.
//!
//! Each test installs `toolgate hook` in a throw-away project, plays a
//! scripted conversation against the fake model API, and checks the ledger
//! (decision, rule, the exact `tool_input` the hook received) and that
//! nothing the policy denies reached the model. They need
//! `scripts/install-clients.sh` to have run.

use crate::hooks_e2e::{install, ledger, nanos};
use crate::support;

use serde_json::{Value, json};
use support::anthropic::FakeAnthropic;
use support::gemini::FakeGemini;
use support::{Sandbox, Turn, run_claude, run_gemini};
use toolgate_store::{Decision, Row};

/// A project holding denied files (`secret.txt` and `sub/secret.txt`, by
/// `Read(**/secret*)`),
/// an allowed one (`docs/notes.md`), and, beside the project (outside its
/// roots), a folder whose only file has a name that must not be listed.
struct Project {
    sandbox: Sandbox,
    /// The content of the denied files.
    secret: String,
    /// The name of the file outside the roots.
    outside_name: String,
    /// The folder holding it.
    outside: String,
}

fn project(policy: &str) -> Project {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path("toolgate.toml"), policy).expect("write the policy");
    let tag = format!("{}-{}", std::process::id(), nanos());
    let secret = format!("tg-read-secret-{tag}");
    std::fs::create_dir_all(sandbox.path("sub")).expect("create sub");
    std::fs::create_dir_all(sandbox.path("docs")).expect("create docs");
    for file in ["secret.txt", "sub/secret.txt"] {
        std::fs::write(sandbox.path(file), format!("{secret}\n")).expect("write secret");
    }
    std::fs::write(sandbox.path("docs/notes.md"), "hello notes\n").expect("write notes");
    let outside = sandbox.base.join("outside");
    std::fs::create_dir_all(&outside).expect("create outside");
    let outside_name = format!("tg-listed-{tag}.conf");
    std::fs::write(outside.join(&outside_name), format!("{secret}\n")).expect("write outside");
    Project {
        outside: outside.display().to_string(),
        sandbox,
        secret,
        outside_name,
    }
}

/// One scripted call: what the model sends, and what the ledger must say.
struct Step {
    tool: &'static str,
    input: Value,
    /// `None`: the client refuses the call itself and the hook never runs.
    want: Option<(Decision, &'static str)>,
}

fn step(tool: &'static str, input: Value, want: Option<(Decision, &'static str)>) -> Step {
    Step { tool, input, want }
}

/// Each hooked step has its row, in order, with the decision, the rule and
/// the `tool_input` exactly as the model wrote it (no field added, renamed
/// or dropped on the way to the hook).
fn assert_ledger(rows: &[Row], script: &[Step]) {
    let got: Vec<(String, Value, Decision, Option<String>)> = rows
        .iter()
        .map(|r| {
            (
                r.record.tool.clone(),
                serde_json::from_str(&r.record.input).expect("recorded input is JSON"),
                r.record.decision,
                r.record.rule.clone(),
            )
        })
        .collect();
    let want: Vec<(String, Value, Decision, Option<String>)> = script
        .iter()
        .filter_map(|s| {
            s.want.map(|(decision, rule)| {
                (
                    s.tool.to_owned(),
                    s.input.clone(),
                    decision,
                    Some(rule.to_owned()),
                )
            })
        })
        .collect();
    assert_eq!(got, want, "one ledger row per hooked call, in order");
}

/// No request to the model holds `needle`.
fn never_sent(bodies: &[String], needle: &str, what: &str) {
    for body in bodies {
        assert!(!body.contains(needle), "{what} reached the model: {body}");
    }
}

// ---------------------------------------------------------------- Claude Code

const CLAUDE_POLICY: &str = r#"
allow = ["Read"]
deny  = ["Read(**/secret*)"]
"#;

/// Claude Code sends `Glob`'s `pattern` and `path` and `Grep`'s `pattern`,
/// `path` and `glob` to the hook as the model wrote them. A pattern that
/// leaves the project (absolute, `..`) or a `path` outside it is refused
/// by the roots; a search beneath a folder holding a denied file is refused
/// by the Read rule, whatever `glob` narrows it to. Nothing outside the
/// roots is listed and the secret never reaches the model; the allowed
/// calls in between run, so the refusals are the hook's.
#[test]
fn read_fields_claude_glob_and_grep_meet_the_roots_and_read_rules() {
    if !crate::support::have_clients() {
        return;
    }
    let p = project(CLAUDE_POLICY);
    install(&p.sandbox, "claude", &[]);
    let outside = &p.outside;
    let hard = Some((Decision::Deny, "hard:outside-roots"));
    let read_rule = Some((Decision::Deny, "deny[0]"));
    let script = vec![
        step(
            "Glob",
            json!({"pattern": format!("{outside}/**/*.conf")}),
            hard,
        ),
        step("Glob", json!({"pattern": "../outside/*.conf"}), hard),
        step(
            "Glob",
            json!({"pattern": "*.conf", "path": outside.clone()}),
            hard,
        ),
        step(
            "Glob",
            json!({"pattern": "**/*.md"}),
            Some((Decision::Allow, "allow[0]")),
        ),
        step(
            "Grep",
            json!({"pattern": "tg-read-secret", "path": "."}),
            read_rule,
        ),
        step(
            "Grep",
            json!({"pattern": "tg-read-secret", "glob": "secret*"}),
            read_rule,
        ),
        step(
            "Grep",
            json!({"pattern": "tg-read-secret", "glob": "../outside/*", "path": "sub"}),
            read_rule,
        ),
        step(
            "Grep",
            json!({"pattern": "tg-read-secret", "path": outside.clone()}),
            hard,
        ),
        step(
            "Grep",
            json!({"pattern": "hello", "path": "docs", "glob": "*.md", "output_mode": "content"}),
            Some((Decision::Allow, "allow[0]")),
        ),
    ];
    let api = FakeAnthropic::start(
        script
            .iter()
            .map(|s| Turn::tool(s.tool, s.input.clone()))
            .collect(),
    );
    // Glob and Grep are offered only when named in --tools.
    let run = run_claude(
        &p.sandbox,
        &api,
        "Do the scripted steps.",
        &["--tools", "Read,Glob,Grep"],
    );
    assert!(run.status.success(), "claude failed: {}", run.stderr);
    assert_eq!(api.unanswered(), Vec::<String>::new());

    let results = api.tool_results();
    assert_eq!(results.len(), script.len(), "{results:?}");
    for (s, r) in script.iter().zip(&results) {
        let refused = s.want.is_some_and(|(d, _)| d != Decision::Allow);
        assert_eq!(r.is_error, refused, "{}: {r:?}", s.input);
        if let Some((_, rule)) = s.want.filter(|_| refused) {
            assert!(
                r.content
                    .starts_with(&format!("PreToolUse:{} hook error: toolgate: ", s.tool))
                    && (r.content.contains(&format!("`{rule}`"))
                        || rule.starts_with("hard:")
                            && r.content.contains("outside the workspace roots")),
                "{}: {}",
                s.input,
                r.content
            );
        }
    }
    // The allowed calls ran: the Glob listed the notes, the Grep found them.
    assert!(results[3].content.contains("notes.md"), "{:?}", results[3]);
    assert!(
        results[8].content.contains("hello notes"),
        "{:?}",
        results[8]
    );

    let bodies: Vec<String> = api
        .requests()
        .iter()
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .collect();
    never_sent(&bodies, &p.secret, "the secret");
    never_sent(&bodies, &p.outside_name, "a name outside the roots");
    assert_ledger(&ledger(&p.sandbox), &script);
}

// ----------------------------------------------------------------- Gemini CLI

const GEMINI_POLICY: &str = r#"
allow = ["Read"]
deny  = ["Read(**/secret*)"]
"#;

/// Gemini CLI 0.61.0's `read_file` reads `file_path` only (its schema
/// requires it; `absolute_path` and `path` are not read), and strips a
/// leading `@` when no file has the name as written. toolgate decides every
/// path field given and the `@`-less path too, so neither an extra field
/// nor an `@` reads the denied file. `read_many_files` is not offered to
/// the model: the call is refused as an unknown tool before any hook runs.
#[test]
fn read_fields_gemini_read_file_is_decided_on_what_the_cli_reads() {
    if !crate::support::have_clients() {
        return;
    }
    let p = project(GEMINI_POLICY);
    install(&p.sandbox, "gemini", &[]);
    let project = p.sandbox.project.display().to_string();
    let read_rule = Some((Decision::Deny, "deny[0]"));
    let script = vec![
        step(
            "read_file",
            json!({"file_path": "docs/notes.md"}),
            Some((Decision::Allow, "allow[0]")),
        ),
        step(
            "read_file",
            json!({"file_path": "sub/secret.txt"}),
            read_rule,
        ),
        // The CLI would read `docs/notes.md`; the denied path in a field it
        // ignores still refuses the call, which names two files.
        step(
            "read_file",
            json!({"file_path": "docs/notes.md", "absolute_path": format!("{project}/sub/secret.txt")}),
            read_rule,
        ),
        step(
            "read_file",
            json!({"path": "docs/notes.md", "file_path": "sub/secret.txt"}),
            read_rule,
        ),
        // Without `file_path` the CLI refuses the call itself.
        step(
            "read_file",
            json!({"absolute_path": "sub/secret.txt"}),
            None,
        ),
        // No file is named `@secret.txt`: the CLI reads `secret.txt`, which
        // no rule names with the `@`.
        step("read_file", json!({"file_path": "@secret.txt"}), read_rule),
        // The CLI searches `dir_path`, else the working directory; `path`
        // is not read, so `..` is checked from the project as well.
        step(
            "glob",
            json!({"pattern": "../outside/*.conf", "path": "sub"}),
            Some((Decision::Deny, "hard:outside-roots")),
        ),
        step(
            "glob",
            json!({"pattern": "**/*.md"}),
            Some((Decision::Allow, "allow[0]")),
        ),
        step(
            "read_many_files",
            json!({"include": ["sub/secret.txt"]}),
            None,
        ),
    ];
    let api = FakeGemini::start(
        script
            .iter()
            .map(|s| Turn::tool(s.tool, s.input.clone()))
            .collect(),
    );
    let run = run_gemini(&p.sandbox, &api, "Do the scripted steps.", &[]);
    assert!(run.status.success(), "gemini failed: {}", run.stderr);
    assert_eq!(api.unanswered(), Vec::<String>::new());
    assert!(
        !api.offered_tools().iter().any(|t| t == "read_many_files"),
        "{:?}",
        api.offered_tools()
    );

    let responses = api.function_responses();
    assert_eq!(responses.len(), script.len(), "{responses:?}");
    for (s, r) in script.iter().zip(&responses) {
        match s.want {
            Some((Decision::Allow, _)) => assert_eq!(r.error(), None, "{}: {r:?}", s.input),
            Some((_, rule)) => {
                let error = r.error().unwrap_or_default();
                assert!(
                    error.starts_with("Tool execution blocked: toolgate: ")
                        && (error.contains(&format!("`{rule}`"))
                            || rule.starts_with("hard:")
                                && error.contains("outside the workspace roots")),
                    "{}: {error}",
                    s.input
                );
            }
            None => {
                let error = r.error().unwrap_or_default();
                assert!(
                    !error.is_empty() && !error.contains("toolgate"),
                    "{}: {r:?}",
                    s.input
                );
            }
        }
    }
    assert!(
        responses[0].response.to_string().contains("hello notes"),
        "{:?}",
        responses[0]
    );
    assert!(
        responses[4]
            .error()
            .unwrap_or_default()
            .contains("file_path"),
        "{:?}",
        responses[4]
    );
    assert!(
        responses[7].response.to_string().contains("notes.md"),
        "{:?}",
        responses[7]
    );
    assert!(
        responses[8]
            .error()
            .unwrap_or_default()
            .contains("not found"),
        "{:?}",
        responses[8]
    );

    let bodies: Vec<String> = api
        .requests()
        .iter()
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .collect();
    never_sent(&bodies, &p.secret, "the secret");
    never_sent(&bodies, &p.outside_name, "a name outside the roots");
    assert_ledger(&ledger(&p.sandbox), &script);
}

const GEMINI_EDIT_POLICY: &str = r#"
allow = ["Read", "Edit"]
deny  = ["Edit(secret/**)"]
"#;

/// Gemini CLI 0.61.0's `replace` edits, in place of a relative `file_path`
/// that names no file, the one file in its workspace whose path ends with
/// it (`correctPath`): `config.json`, absent from the project's top, means
/// `secret/config.json`, which `Edit(secret/**)` denies. toolgate decides
/// the file the CLI would edit as well, so the call is refused by the deny
/// rule; a relative path that names no file and matches none here asks
/// (`client:path-correction`), which Gemini CLI's hook answers as a
/// refusal. An allowed `replace` in between runs, so the refusals are the
/// hook's.
#[test]
fn read_fields_gemini_replace_is_decided_on_the_file_the_cli_corrects_to() {
    if !crate::support::have_clients() {
        return;
    }
    let p = project(GEMINI_EDIT_POLICY);
    let original = format!("tg-original-{}", nanos());
    std::fs::create_dir_all(p.sandbox.path("secret")).expect("create secret");
    std::fs::write(
        p.sandbox.path("secret/config.json"),
        format!("{{\"key\": \"{original}\"}}\n"),
    )
    .expect("write config");
    install(&p.sandbox, "gemini", &[]);
    let script = vec![
        step(
            "replace",
            json!({"file_path": "config.json", "instruction": "change the key",
                   "old_string": original.clone(), "new_string": "tg-changed"}),
            Some((Decision::Deny, "deny[0]")),
        ),
        step(
            "replace",
            json!({"file_path": "draft.md", "instruction": "create the draft",
                   "old_string": "", "new_string": "tg-draft"}),
            Some((Decision::Ask, "client:path-correction")),
        ),
        step(
            "replace",
            json!({"file_path": "docs/notes.md", "instruction": "greet",
                   "old_string": "hello notes", "new_string": "hi notes"}),
            Some((Decision::Allow, "allow[1]")),
        ),
    ];
    let api = FakeGemini::start(
        script
            .iter()
            .map(|s| Turn::tool(s.tool, s.input.clone()))
            .collect(),
    );
    let run = run_gemini(&p.sandbox, &api, "Do the scripted steps.", &[]);
    assert!(run.status.success(), "gemini failed: {}", run.stderr);
    assert_eq!(api.unanswered(), Vec::<String>::new());

    let responses = api.function_responses();
    assert_eq!(responses.len(), script.len(), "{responses:?}");
    for (s, r) in script.iter().zip(&responses) {
        match s.want {
            Some((Decision::Allow, _)) => assert_eq!(r.error(), None, "{}: {r:?}", s.input),
            Some((_, rule)) => {
                let error = r.error().unwrap_or_default();
                assert!(
                    error.starts_with("Tool execution blocked: toolgate: ")
                        && error.contains(&format!("`{rule}`")),
                    "{}: {error}",
                    s.input
                );
            }
            None => unreachable!(),
        }
    }
    let config = std::fs::read_to_string(p.sandbox.path("secret/config.json")).expect("config");
    assert!(
        config.contains(&original) && !config.contains("tg-changed"),
        "the denied file was edited: {config}"
    );
    assert!(
        !p.sandbox.path("draft.md").exists(),
        "the refused replace created draft.md"
    );
    let notes = std::fs::read_to_string(p.sandbox.path("docs/notes.md")).expect("notes");
    assert!(
        notes.contains("hi notes"),
        "the allowed replace did not run: {notes}"
    );
    assert_ledger(&ledger(&p.sandbox), &script);
}

//! The URL decision corpus: every case of `tests/corpus/urls.toml` decided
//! under its policy, in the workspaces of the shell corpus.
//!
//! All failing cases are reported together, each with its line.

use crate::support;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

use serde::Deserialize;
use serde_json::json;
use toolgate_policy::{Call, Client, Decision};

use support::Workspace;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UrlFile {
    group: Vec<Group>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Group {
    name: String,
    case: Vec<toml::Spanned<Case>>,
}

/// One fetch (a URL for a fetch tool, or a shell command) under one policy.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    policy: String,
    url: Option<String>,
    tool: Option<String>,
    cmd: Option<String>,
    expect: String,
    rule: Option<String>,
    why: String,
}

fn call(case: &Case) -> Result<Call, String> {
    match (&case.url, &case.cmd, case.tool.as_deref()) {
        (Some(u), None, None | Some("fetch_url")) => {
            Ok(Call::new("fetch_url", json!({ "url": u })))
        }
        (Some(u), None, Some("WebFetch")) => {
            let mut c = Call::new("WebFetch", json!({ "url": u, "prompt": "summarise" }));
            c.client = Client::Claude;
            Ok(c)
        }
        (Some(u), None, Some("web_fetch")) => {
            let mut c = Call::new("web_fetch", json!({ "prompt": format!("summarise {u} please") }));
            c.client = Client::Gemini;
            Ok(c)
        }
        (None, Some(cmd), None) => Ok(Call::new("run_shell", json!({ "command": cmd }))),
        _ => Err(
            "a case has `url` (with an optional `tool` of `fetch_url`, `WebFetch` or `web_fetch`) or `cmd`"
                .into(),
        ),
    }
}

fn mismatch(case: &Case, d: &Decision) -> Option<String> {
    let mut wrong = Vec::new();
    if d.decision.as_str() != case.expect {
        wrong.push(format!(
            "decision {} (expected {})",
            d.decision, case.expect
        ));
    }
    if let Some(want) = &case.rule {
        let got = d.rule.as_deref().unwrap_or("(default)");
        if got != want {
            wrong.push(format!("rule `{got}` (expected `{want}`)"));
        }
    }
    (!wrong.is_empty()).then(|| wrong.join(", "))
}

#[test]
fn url_corpus() {
    let path = support::dir().join("urls.toml");
    let text = std::fs::read_to_string(&path).expect("urls corpus");
    let file: UrlFile = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let names = support::policy_names();
    let mut workspaces: HashMap<String, Workspace> = HashMap::new();
    let mut seen = HashSet::new();
    let mut by_decision: BTreeMap<String, usize> = BTreeMap::new();
    let (mut failed, mut total) = (0, 0);
    let mut failures = String::new();
    for group in &file.group {
        for spanned in &group.case {
            let line = support::line_of(&text, spanned.span().start);
            let case = spanned.get_ref();
            total += 1;
            *by_decision.entry(case.expect.clone()).or_default() += 1;
            let key = (
                case.policy.clone(),
                case.url.clone(),
                case.tool.clone(),
                case.cmd.clone(),
            );
            let problem = if !seen.insert(key) {
                Some("the same case as an earlier line".to_string())
            } else if !matches!(case.expect.as_str(), "allow" | "ask" | "deny") {
                Some(format!(
                    "expect must be allow, ask or deny, not `{}`",
                    case.expect
                ))
            } else if !names.contains(&case.policy) {
                Some(format!("no policy `{}`", case.policy))
            } else {
                let ws = workspaces
                    .entry(case.policy.clone())
                    .or_insert_with(|| Workspace::new(&case.policy));
                match call(case) {
                    Err(e) => Some(e),
                    Ok(c) => {
                        let d = ws.policy.decide(&c);
                        mismatch(case, &d).map(|m| {
                            let mut s = format!(
                                "{m}\n    got: {} by {:?}: {}",
                                d.decision, d.rule, d.reason
                            );
                            for a in &d.actions {
                                let _ = write!(
                                    s,
                                    "\n      - {} -> {} {:?}",
                                    a.action.describe(),
                                    a.decision,
                                    a.rule
                                );
                            }
                            s
                        })
                    }
                }
            };
            if let Some(p) = problem {
                failed += 1;
                let target = case.url.as_deref().or(case.cmd.as_deref()).unwrap_or("");
                let _ = writeln!(
                    failures,
                    "urls.toml:{line} [{}] {} `{target}`: {p}\n    why: {}\n",
                    group.name, case.policy, case.why
                );
            }
        }
    }
    assert!(
        failed == 0,
        "{failed} of {total} URL cases fail:\n\n{failures}"
    );
    for e in ["allow", "ask", "deny"] {
        assert!(
            by_decision.get(e).copied().unwrap_or(0) >= 5,
            "the URL corpus has few `{e}` cases: {by_decision:?}"
        );
    }
}

//! The shell decision corpus: every case of `tests/corpus/shell.toml`
//! decided under its policy, in a workspace built for that policy.
//!
//! All failing cases are reported together, each with its line, what was
//! expected and why, and what the engine decided and why.

use crate::support;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde_json::json;
use toolgate_policy::{Call, Context, Decision, Mode};

use support::{Case, Workspace};

fn decide(ws: &Workspace, case: &Case) -> Result<Decision, String> {
    let mut call = Call::new("run_shell", json!({ "command": case.cmd }));
    call.cwd = case.cwd.as_ref().map(Into::into);
    let mode = case
        .mode
        .as_deref()
        .map(|m| m.parse::<Mode>().map_err(|e| format!("mode: {e}")))
        .transpose()?;
    Ok(ws.policy.decide_in(
        &call,
        &Context {
            mode,
            ..Context::default()
        },
    ))
}

/// What is wrong with a decision, if anything.
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
    if d.hard != case.hard {
        wrong.push(format!("hard {} (expected {})", d.hard, case.hard));
    }
    (!wrong.is_empty()).then(|| wrong.join(", "))
}

#[test]
fn shell_corpus() {
    let (text, file) = support::load();
    let names = support::policy_names();
    let mut workspaces: HashMap<String, Workspace> = HashMap::new();
    let mut failures = String::new();
    let mut failed = 0;
    let mut total = 0;
    let mut by_decision: BTreeMap<String, usize> = BTreeMap::new();
    let mut seen: HashMap<(String, String, Option<String>, Option<String>), usize> = HashMap::new();
    for group in &file.group {
        for spanned in &group.case {
            let line = support::line_of(&text, spanned.span().start);
            let case = spanned.get_ref();
            total += 1;
            *by_decision.entry(case.expect.clone()).or_default() += 1;
            let key = (
                case.policy.clone(),
                case.cmd.clone(),
                case.cwd.clone(),
                case.mode.clone(),
            );
            if let Some(first) = seen.insert(key, line) {
                failed += 1;
                let _ = writeln!(failures, "shell.toml:{line}: same case as line {first}\n");
                continue;
            }
            if !matches!(case.expect.as_str(), "allow" | "ask" | "deny") {
                failed += 1;
                let _ = writeln!(
                    failures,
                    "shell.toml:{line}: expect must be allow, ask or deny, not `{}`\n",
                    case.expect
                );
                continue;
            }
            if !names.contains(&case.policy) {
                failed += 1;
                let _ = writeln!(
                    failures,
                    "shell.toml:{line}: no policy `{}` (known: {})\n",
                    case.policy,
                    names.join(", ")
                );
                continue;
            }
            let ws = workspaces
                .entry(case.policy.clone())
                .or_insert_with(|| Workspace::new(&case.policy));
            let problem = match decide(ws, case) {
                Err(e) => Some(e),
                Ok(d) => mismatch(case, &d).map(|m| {
                    let mut s =
                        format!("{m}\n    got: {} by {:?}: {}", d.decision, d.rule, d.reason);
                    for a in &d.actions {
                        let _ = write!(
                            s,
                            "\n      - {}{} -> {} {:?}",
                            a.action.describe(),
                            a.via
                                .as_deref()
                                .map(|v| format!(" ({v})"))
                                .unwrap_or_default(),
                            a.decision,
                            a.rule
                        );
                    }
                    s
                }),
            };
            if let Some(problem) = problem {
                failed += 1;
                let _ = writeln!(
                    failures,
                    "shell.toml:{line} [{}] {} `{}`{}: {problem}\n    why: {}\n",
                    group.name,
                    case.policy,
                    case.cmd,
                    case.cwd
                        .as_deref()
                        .map(|c| format!(" (in {c})"))
                        .unwrap_or_default(),
                    case.why
                );
            }
        }
    }
    assert!(
        failed == 0,
        "{failed} of {total} corpus cases fail:\n\n{failures}"
    );
    // The corpus is meant to stay broad: every decision well represented.
    assert!(total >= 200, "the corpus has only {total} cases");
    for e in ["allow", "ask", "deny"] {
        assert!(
            by_decision.get(e).copied().unwrap_or(0) >= 30,
            "the corpus has few `{e}` cases: {by_decision:?}"
        );
    }
}

//! Human-readable traces of a decision, for `toolgate explain`.

use std::fmt::Write as _;

use crate::decision::{Action, Decision};
use crate::effect::Effect;
use crate::pattern::canonical_command;
use crate::policy::Policy;

/// Renders a decision made with `Context { trace: true, .. }`: the call,
/// each action with every rule that matched it, and why the winner won. A
/// shell command's actions are its simple commands (with the argv the rules
/// matched and the wrappers stripped to reach it), then the files and URLs
/// they touch, each naming the command it is an operand or redirect of.
pub fn explain(policy: &Policy, d: &Decision) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "call `{}`: tool `{}` (client {}), mode {}",
        d.id, d.tool, d.client, d.mode
    );
    let roots: Vec<String> = policy
        .roots()
        .iter()
        .map(|r| r.display().to_string())
        .collect();
    let _ = writeln!(
        s,
        "policy: {} (roots: {}; default: {})",
        policy
            .file()
            .map(|f| f.display().to_string())
            .unwrap_or_else(|| "built-in default policy".into()),
        roots.join(", "),
        policy.default_effect()
    );
    if let Some(layers) = policy.layers() {
        for f in &layers.files {
            let trust = match f.trusted {
                Some(true) => " (trusted)",
                Some(false) => " (NOT trusted: its allow rules and mode do not apply)",
                None => "",
            };
            let _ = writeln!(s, "layer {}: {}{trust}", f.layer, f.path.display());
        }
        for r in layers.inactive() {
            let _ = writeln!(
                s,
                "  not applying: {} `{}` {} ({}:{}): {}",
                r.effect,
                r.id,
                r.selectors.join(", "),
                r.file.display(),
                r.line,
                r.inactive.as_deref().unwrap_or_default()
            );
        }
        for n in &layers.notes {
            let _ = writeln!(s, "  note: {n}");
        }
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "actions:");
    for (i, a) in d.actions.iter().enumerate() {
        let via = a
            .via
            .as_deref()
            .map(|v| format!(" ({v})"))
            .unwrap_or_default();
        let _ = writeln!(s, "  {}. {}{}", i + 1, a.action.describe(), via);
        if let Action::Exec {
            argv,
            command,
            wrappers,
            ..
        } = &a.action
        {
            // What the rules matched: the argv with quoting resolved and
            // wrappers (`timeout 5`, `bash -c`) stripped, when that differs
            // from the text as written.
            let runs = canonical_command(argv);
            if !wrappers.is_empty() || runs != *command {
                let _ = write!(s, "     runs `{runs}`");
                if !wrappers.is_empty() {
                    let stripped: Vec<String> = wrappers
                        .iter()
                        .map(|w| format!("`{}`", w.join(" ")))
                        .collect();
                    let _ = write!(s, ", inside {}", stripped.join(", "));
                }
                let _ = writeln!(s);
            }
        }
        let _ = writeln!(
            s,
            "     -> {}{}{}",
            a.decision,
            a.rule
                .as_deref()
                .map(|r| format!(" by `{r}`"))
                .unwrap_or_else(|| " (no rule: default)".into()),
            if a.hard { ", hard limit" } else { "" }
        );
        if a.matched.is_empty() {
            if !a.hard {
                let _ = writeln!(s, "     matching rules: none");
            }
        } else {
            let _ = writeln!(s, "     matching rules:");
            for m in &a.matched {
                let _ = writeln!(
                    s,
                    "       {:<5} `{}`  {}{}",
                    m.effect.as_str(),
                    m.rule,
                    m.selector,
                    crate::layers::describe_origin(policy, &m.rule)
                );
            }
        }
        let _ = writeln!(s, "     why: {}", a.reason);
    }
    let _ = writeln!(s);
    let _ = writeln!(
        s,
        "decision: {}{}{}",
        d.decision.as_str().to_uppercase(),
        d.rule
            .as_deref()
            .map(|r| format!(" by `{r}`"))
            .unwrap_or_default(),
        if d.hard { " (hard limit)" } else { "" }
    );
    let _ = writeln!(s, "  {}", d.reason);
    let why = match (d.decision, d.actions.len()) {
        (_, 0) => "the call implies no action".to_string(),
        (_, 1) => "the call has one action; its decision is the call's".to_string(),
        (Effect::Allow, _) => "every action is allowed".to_string(),
        (e, _) => format!(
            "deny > ask > allow: the strictest action decides, and the strictest here is {e}"
        ),
    };
    let _ = writeln!(s, "  ({why})");
    if d.remember {
        let _ = writeln!(
            s,
            "  an approver may allow this for the session (rules: {})",
            d.grant_rules.join(", ")
        );
    }
    s
}

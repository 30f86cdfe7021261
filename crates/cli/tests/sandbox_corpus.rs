//! What the sandbox holds, held: every command of the shell decision corpus
//! (`crates/policy/tests/corpus/shell.toml`) that a policy asking by default
//! lets run because the sandbox holds it (`sandbox:holds`), plus attacks
//! written to be held, run for real inside `toolgate sandbox`. Afterwards
//! nothing outside the workspace changed, no protected path that existed
//! changed, and no secret reached the command's output or a file it left.
//! The corpus, the attacks and the workspace are in `corpus_fixture`; the
//! same commands run through the real Claude Code in `sandbox_hooks_e2e`.

use crate::corpus_fixture::{ATTACKS, SECRET, Ws, corpus, toolgate_sandbox_available};

/// Runs one held command and returns what went wrong, if anything.
fn check(policy: &str, command: &str, attack: bool) -> Option<String> {
    let ws = Ws::new(policy);
    let command = ws.expand(command);
    if !ws.held(&command) {
        // A corpus command is checked only when it is held; every attack
        // must be.
        return attack.then(|| format!("{command}: not held under `{policy}`"));
    }
    let before = ws.snapshot();
    let output = ws.run(&command);
    let mut wrong = Ws::changes(&before, &ws.snapshot());
    for path in ws.leaks(SECRET) {
        wrong.push(format!("{} holds the secret", path.display()));
    }
    if output.contains(SECRET) {
        wrong.push(format!("its output holds the secret: {output}"));
    }
    (!wrong.is_empty()).then(|| format!("{command} (under `{policy}`): {}", wrong.join("; ")))
}

#[test]
fn held_commands_stay_inside_the_boundary() {
    if !toolgate_sandbox_available() {
        return;
    }
    let mut failures = Vec::new();
    let mut held = 0;
    for (policy, command) in corpus() {
        let ws = Ws::new(&policy);
        if ws.held(&command) {
            held += 1;
            if let Some(w) = check(&policy, &command, false) {
                failures.push(w);
            }
        }
    }
    for attack in ATTACKS {
        if let Some(w) = check("dev", attack, true) {
            failures.push(w);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} held commands got through:\n{}",
        failures.len(),
        held + ATTACKS.len(),
        failures.join("\n")
    );
    // The corpus holds enough of them for the check to mean something.
    assert!(held >= 20, "only {held} corpus commands were held");
}

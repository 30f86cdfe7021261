//! `toolgate policy show` with a reviewer: the reviewer (never its key) and
//! the allow rules that ask while review is on.

use std::path::Path;
use std::process::Command;

fn show(dir: &Path, policy: &str) -> String {
    let file = dir.join("toolgate.toml");
    std::fs::write(&file, policy).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["policy", "show", "--policy"])
        .arg(&file)
        .current_dir(dir)
        .env("HOME", dir.join("home"))
        .env("TOOLGATE_STATE_DIR", dir.join("state"))
        .env("REVIEW_TEST_KEY", "sk-secret-value")
        .env_remove("TOOLGATE_POLICY")
        .env_remove("TOOLGATE_DATABASE_URL")
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    text
}

#[test]
fn policy_show_names_the_reviewer_and_the_demoted_rules() {
    let tmp = tempfile::tempdir().unwrap();
    let rules = "allow = [\"Read\", \"Bash(git status)\", \"Bash(python3 *)\", \"mcp__*\"]\n";
    let shown = show(
        tmp.path(),
        &format!(
            "{rules}[review]\napi = \"openai\"\nmodel = \"gpt-4.1-mini\"\n\
             base_url = \"http://127.0.0.1:8080/v1\"\napi_key_env = \"REVIEW_TEST_KEY\"\n"
        ),
    );
    let review = shown
        .lines()
        .find(|l| l.starts_with("review: on"))
        .unwrap_or_else(|| panic!("{shown}"));
    for part in [
        "api: openai",
        "model: gpt-4.1-mini",
        "base_url: http://127.0.0.1:8080/v1",
        "$REVIEW_TEST_KEY",
    ] {
        assert!(review.contains(part), "{part}: {shown}");
    }
    assert!(!shown.contains("sk-secret-value"), "{shown}");
    assert!(shown.contains("asking while review is on"), "{shown}");
    assert!(
        shown.lines().any(|l| l.contains("allow[2]")
            && l.contains("Bash(python3 *)")
            && l.contains("`python3`")),
        "{shown}"
    );
    assert!(
        shown
            .lines()
            .any(|l| l.contains("allow[3]") && l.contains("mcp__*") && l.contains("glob")),
        "{shown}"
    );
    assert!(
        !shown
            .lines()
            .skip_while(|l| !l.contains("asking while review is on"))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .any(|l| l.contains("git status")),
        "{shown}"
    );

    let shown = show(tmp.path(), rules);
    assert!(!shown.contains("review: on"), "{shown}");
    assert!(!shown.contains("asking while review is on"), "{shown}");
}

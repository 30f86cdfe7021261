//! The approval page in a real browser: Debian's chromium, headless, driven
//! over CDP by `tests/browser/page.mjs` (playwright-core). Needs
//! `scripts/install-browser.sh` (which `scripts/test.sh` runs when
//! chromium or playwright-core is missing).
//!
//! A real `toolgate hook claude --approver queue --wait 60` process waits;
//! the card for its call appears on the page with the whole command; a
//! click on Approve lets the hook answer allow; a decline with a note
//! reaches the hook's reason, which is what the model reads. A screenshot
//! of the page (phone-sized) is saved to `target/serve-page-*.png`.
//!
//! The same with the real Claude Code (`scripts/install-clients.sh`) against
//! a fake model API: approved on the page, the command runs (a marker file
//! appears); declined with a note, the model's tool result carries it.

use crate::serve_support;
use crate::support;

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use serve_support::{Served, hook_answer, project, waiting_hook};

const POLICY: &str = "[policy]\ndefault = \"ask\"\nallow = [\"Read\"]\n";

/// Whether chromium and playwright-core are installed (see
/// `support::available`).
fn have_browser() -> bool {
    let chromium_present = std::env::var_os("TOOLGATE_CHROMIUM").is_some()
        || std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .any(|d| d.join("chromium").is_file());
    support::available(
        "chromium with playwright-core",
        chromium_present && playwright_dir().join("package.json").exists(),
        "scripts/install-browser.sh",
    )
}

fn playwright_dir() -> PathBuf {
    let dir = match std::env::var_os("TOOLGATE_BROWSER_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cache/toolgate-browser")
        }
    };
    dir.join("playwright-core")
}

fn playwright_core() -> PathBuf {
    let p = playwright_dir();
    assert!(
        p.join("package.json").exists(),
        "playwright-core is not at {}: run scripts/install-browser.sh",
        p.display()
    );
    p
}

fn chromium() -> PathBuf {
    if let Some(c) = std::env::var_os("TOOLGATE_CHROMIUM") {
        return PathBuf::from(c);
    }
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("chromium"))
        .find(|p| p.is_file());
    found.expect("chromium is not installed: run scripts/install-browser.sh")
}

/// Where screenshots go: the target directory, kept after the test.
fn screenshot_path(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test exe");
    // target/debug/deps/browser-HASH -> target/
    let target = exe.ancestors().nth(3).expect("target dir").to_path_buf();
    target.join(format!("serve-page-{name}.png"))
}

fn drive(link: &str, approval: &str, action: &str, note: Option<&str>, shot: &PathBuf) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/browser/page.mjs");
    let _ = std::fs::remove_file(shot);
    let mut cmd = Command::new("node");
    cmd.arg(&script)
        .env("PLAYWRIGHT_CORE", playwright_core())
        .env("CHROMIUM", chromium())
        .env("LINK", link)
        .env("APPROVAL", approval)
        .env("ACTION", action)
        .env("SCREENSHOT", shot);
    if let Some(n) = note {
        cmd.env("NOTE", n);
    }
    let out = cmd.output().expect("run node");
    assert!(
        out.status.success(),
        "the browser script failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the script's JSON line")
}

fn assert_png(shot: &PathBuf) {
    let png = std::fs::read(shot).expect("the screenshot");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert!(png.len() > 5_000, "a blank page? {} bytes", png.len());
}

#[test]
fn clicking_approve_on_the_page_lets_the_waiting_hook_allow() {
    if !have_browser() {
        return;
    }
    let (_dir, project, state) = project(POLICY);
    let served = Served::start(&project, &state, None);
    let command = "touch made-after-the-page-approved && git commit -am 'page test'";
    let hook = waiting_hook(&project, &state, command, 60);
    let id = served.first_pending()["id"].as_str().unwrap().to_owned();
    let shot = screenshot_path("approve");
    let r = drive(&served.link, &id, "approve", None, &shot);
    // The token left the address bar, and no cookie holds it (a cookie of
    // 127.0.0.1 would reach every other port there).
    assert_eq!(r["url"], format!("{}/", served.url), "{r}");
    assert_eq!(r["cookie"], serde_json::json!([]), "{r}");
    let text = r["cardText"].as_str().unwrap();
    assert!(
        text.contains(command),
        "the card shows the whole command: {text}"
    );
    assert!(
        text.contains("touch made-after-the-page-approved"),
        "{text}"
    );
    assert!(
        text.contains("git commit -am page test"),
        "the parsed parts: {text}"
    );
    assert!(
        text.contains("Bash") && text.contains("claude") && text.contains("sess-page"),
        "{text}"
    );
    assert_eq!(r["after"]["pageErrors"], serde_json::json!([]), "{r}");
    assert_png(&shot);
    let (decision, reason) = hook_answer(hook);
    assert_eq!(decision, "allow", "{reason}");
    assert!(reason.contains("approved by web"), "{reason}");
}

#[test]
fn declining_on_the_page_with_a_note_tells_the_model_why() {
    if !have_browser() {
        return;
    }
    let (_dir, project, state) = project(POLICY);
    let served = Served::start(&project, &state, None);
    let hook = waiting_hook(&project, &state, "rm -rf ./build", 60);
    let id = served.first_pending()["id"].as_str().unwrap().to_owned();
    let shot = screenshot_path("decline");
    let note = "use `make clean` instead, it keeps the cache";
    let r = drive(&served.link, &id, "decline", Some(note), &shot);
    assert!(
        r["cardText"].as_str().unwrap().contains("rm -rf ./build"),
        "{r}"
    );
    assert_png(&shot);
    let (decision, reason) = hook_answer(hook);
    assert_eq!(decision, "deny");
    assert!(reason.contains(note), "{reason}");
    let (_, v) = served.get(&format!("/api/approvals/{id}"));
    assert_eq!(
        (v["status"].as_str(), v["note"].as_str()),
        (Some("declined"), Some(note))
    );
}

/// The real Claude Code, its hook registered with `--approver queue --wait
/// 60`, proposing `command`; the page answers it with `action`.
fn claude_code_answered_on_the_page(
    command: &str,
    action: &str,
    note: Option<&str>,
) -> (support::Sandbox, Vec<support::anthropic::ToolResult>) {
    use support::anthropic::FakeAnthropic;
    use support::{Sandbox, Turn, run_claude};
    let sandbox = Sandbox::new();
    let policy = format!("allow = [\"Read\"]\nask = [\"Bash({command})\"]\n");
    std::fs::write(sandbox.path("toolgate.toml"), policy).unwrap();
    let out = serve_support::toolgate()
        .args([
            "hook",
            "install",
            "claude",
            "--approver",
            "queue",
            "--wait",
            "60",
        ])
        .current_dir(&sandbox.project)
        .env("HOME", &sandbox.home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let served = Served::start(&sandbox.project, &sandbox.state, Some(&sandbox.home));
    let api = FakeAnthropic::start(vec![Turn::tool(
        "Bash",
        serde_json::json!({"command": command, "description": "Run it"}),
    )]);
    let shot = screenshot_path(&format!("claude-{action}"));
    let run = std::thread::scope(|s| {
        let page = s.spawn(|| {
            let a = served.first_pending();
            assert_eq!(a["client"], "claude");
            drive(&served.link, a["id"].as_str().unwrap(), action, note, &shot)
        });
        let run = run_claude(&sandbox, &api, "Do it.", &[]);
        let r = page.join().expect("the page thread");
        assert!(r["cardText"].as_str().unwrap().contains(command), "{r}");
        run
    });
    assert!(run.status.success(), "{}", run.stderr);
    assert_png(&shot);
    let results = api.tool_results();
    (sandbox, results)
}

#[test]
fn claude_code_runs_the_command_approved_on_the_page() {
    if !(have_browser() && support::have_clients()) {
        return;
    }
    let (sandbox, results) =
        claude_code_answered_on_the_page("touch made-after-page-approval", "approve", None);
    assert!(
        sandbox.path("made-after-page-approval").exists(),
        "the approved command did not run"
    );
    assert_eq!(results.len(), 1);
    assert!(!results[0].is_error, "{:?}", results[0]);
}

#[test]
fn claude_code_tells_the_model_the_note_declined_on_the_page() {
    if !(have_browser() && support::have_clients()) {
        return;
    }
    let note = "not now, the release is frozen";
    let (sandbox, results) =
        claude_code_answered_on_the_page("touch declined-on-page", "decline", Some(note));
    assert!(
        !sandbox.path("declined-on-page").exists(),
        "a declined command ran"
    );
    assert_eq!(results.len(), 1);
    assert!(results[0].is_error, "{:?}", results[0]);
    assert!(results[0].content.contains(note), "{:?}", results[0]);
}

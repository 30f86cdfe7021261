//! `toolgate serve` as a process: real waiting hook processes resume when
//! the API answers, `toolgate approvals` goes through the API when
//! `TOOLGATE_SERVER_URL` is set, waiting calls expire, and a remote listen
//! address needs `--allow-remote`.

use crate::serve_support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use serde_json::json;
use serve_support::{Served, hook_answer, project, toolgate, waiting_hook};

const POLICY: &str = "[policy]\ndefault = \"ask\"\nallow = [\"Read\"]\n";

#[test]
fn a_waiting_hook_answers_allow_when_the_api_approves() {
    let (_dir, project, state) = project(POLICY);
    let served = Served::start(&project, &state, None);
    let hook = waiting_hook(&project, &state, "touch approved-by-api", 60);
    let a = served.first_pending();
    assert_eq!(a["details"]["command"], "touch approved-by-api");
    assert_eq!(a["client"], "claude");
    let id = a["id"].as_str().unwrap();
    let (status, v) = served.post(
        &format!("/api/approvals/{id}/approve"),
        json!({"digest": a["digest"]}),
    );
    assert_eq!(status, 200, "{v}");
    let (decision, reason) = hook_answer(hook);
    assert_eq!(decision, "allow", "{reason}");
    assert!(reason.contains("approved by web"), "{reason}");
    let (_, done) = served.get(&format!("/api/approvals/{id}"));
    assert_eq!(
        (done["status"].as_str(), done["outcome"].as_str()),
        (Some("done"), Some("passed"))
    );
}

#[test]
fn a_decline_note_reaches_the_waiting_hooks_reason() {
    let (_dir, project, state) = project(POLICY);
    let served = Served::start(&project, &state, None);
    let hook = waiting_hook(&project, &state, "rm -rf build", 60);
    let id = served.first_pending()["id"].as_str().unwrap().to_owned();
    let (status, _) = served.post(
        &format!("/api/approvals/{id}/decline"),
        json!({"note": "run make clean instead"}),
    );
    assert_eq!(status, 200);
    let (decision, reason) = hook_answer(hook);
    assert_eq!(decision, "deny");
    assert!(reason.contains("run make clean instead"), "{reason}");
}

#[test]
fn approvals_commands_use_the_api_when_a_server_url_is_set() {
    let (_dir, project, state) = project(POLICY);
    let served = Served::start(&project, &state, None);
    let hook = waiting_hook(&project, &state, "touch via-cli", 60);
    let id = served.first_pending()["id"].as_str().unwrap().to_owned();
    let cli = |args: &[&str]| {
        let out = toolgate()
            .arg("approvals")
            .args(args)
            .current_dir(&project)
            .env("TOOLGATE_STATE_DIR", &state)
            .env("TOOLGATE_SERVER_URL", &served.url)
            .env_remove("TOOLGATE_SERVER_TOKEN")
            .output()
            .expect("run toolgate approvals");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, out, err) = cli(&["list"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains(&id) && out.contains("touch via-cli"), "{out}");
    let (code, out, err) = cli(&["list", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON line");
    assert_eq!(
        (v["id"].as_str(), v["status"].as_str()),
        (Some(id.as_str()), Some("pending"))
    );
    assert_eq!(
        (v["tool"].as_str(), v["client"].as_str()),
        (Some("Bash"), Some("claude"))
    );
    assert!(
        v["server"].is_null() && v["digest"].as_str().unwrap().len() == 64,
        "{v}"
    );
    // The same line from the store itself, without the server.
    let local = toolgate()
        .args(["approvals", "list", "--json"])
        .env("TOOLGATE_STATE_DIR", &state)
        .env_remove("TOOLGATE_SERVER_URL")
        .output()
        .unwrap();
    let lv: serde_json::Value = serde_json::from_slice(&local.stdout).expect("JSON");
    assert_eq!(lv, v);
    // A digest the person did not see is refused, and nothing changes.
    let (code, _, err) = cli(&["approve", &id, "--digest", &"0".repeat(64)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("409"), "{err}");
    let (code, out, err) = cli(&["approve", &id]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("through http://127.0.0.1:"), "{out}");
    let (decision, reason) = hook_answer(hook);
    // "by web": the answer went through the server, not into the store.
    assert_eq!(decision, "allow", "{reason}");
    assert!(reason.contains("approved by web"), "{reason}");
    // A wrong token is refused.
    let out = toolgate()
        .args(["approvals", "list"])
        .env("TOOLGATE_STATE_DIR", &state)
        .env("TOOLGATE_SERVER_URL", &served.url)
        .env("TOOLGATE_SERVER_TOKEN", "wrong")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("401"));
}

#[test]
fn a_waiting_call_expires_after_the_policys_ttl_and_its_hook_is_refused() {
    let policy = format!("{POLICY}\n[notify]\napproval_ttl = \"1s\"\n");
    let (_dir, project, state) = project(&policy);
    let served = Served::start(&project, &state, None);
    let hook = waiting_hook(&project, &state, "touch too-late", 60);
    let start = std::time::Instant::now();
    let (decision, reason) = hook_answer(hook);
    assert_eq!(decision, "deny");
    assert!(reason.contains("expired"), "{reason}");
    assert!(start.elapsed() < std::time::Duration::from_secs(30));
    let (_, v) = served.get("/api/approvals?all=true");
    assert_eq!(v["approvals"][0]["status"], "expired");
    let (_, v) = served.get("/api/verify");
    assert_eq!(v["intact"], true);
}

#[test]
fn the_token_file_is_private_and_holds_the_printed_token() {
    use std::os::unix::fs::PermissionsExt;
    let (_dir, project, state) = project(POLICY);
    let served = Served::start(&project, &state, None);
    let file = state.join("serve.token");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), served.token);
    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    assert_eq!(served.token.len(), 64);
}

#[test]
fn a_remote_listen_address_needs_allow_remote_and_warns() {
    let (_dir, project, state) = project(POLICY);
    let out = toolgate()
        .args(["serve", "--listen", "0.0.0.0:0"])
        .current_dir(&project)
        .env("TOOLGATE_STATE_DIR", &state)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"));
    assert!(!state.join("serve.token").exists());

    let mut child = toolgate()
        .args(["serve", "--listen", "0.0.0.0:0", "--allow-remote"])
        .current_dir(&project)
        .env("TOOLGATE_STATE_DIR", &state)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        line.contains("WARNING") && line.contains("outside loopback"),
        "{line}"
    );
}

/// `toolgate agent --approver queue --wait SECS` over a scripted model that
/// writes `marker.txt`: the agent process waits, the API answers, and the
/// agent resumes the call through the gate.
fn agent_waiting(project: &std::path::Path, state: &std::path::Path) -> std::process::Child {
    let script = project.join("script.toml");
    std::fs::write(
        &script,
        concat!(
            "[[turn]]\n[[turn.call]]\nname = \"write_file\"\n",
            "arguments = { path = \"marker.txt\", content = \"approved on the page\" }\n\n",
            "[[turn]]\ntext = \"finished\"\n",
        ),
    )
    .unwrap();
    toolgate()
        .args([
            "agent",
            "write the marker",
            "--approver",
            "queue",
            "--wait",
            "60",
            "--script",
        ])
        .arg(&script)
        .current_dir(project)
        .env("TOOLGATE_STATE_DIR", state)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run toolgate agent")
}

const AGENT_POLICY: &str = "allow = [\"Read\"]\nask = [\"Write\"]\n";

#[test]
fn a_waiting_agent_runs_the_call_once_the_api_approves() {
    let (_dir, project, state) = project(AGENT_POLICY);
    let served = Served::start(&project, &state, None);
    let agent = agent_waiting(&project, &state);
    let a = served.first_pending();
    assert_eq!(a["tool"], "write_file");
    assert!(a["client"].is_null());
    assert_eq!(a["details"]["preview"], "approved on the page");
    assert!(
        !project.join("marker.txt").exists(),
        "ran before the approval"
    );
    let id = a["id"].as_str().unwrap();
    let (status, v) = served.post(
        &format!("/api/approvals/{id}/approve"),
        json!({"digest": a["digest"]}),
    );
    assert_eq!(status, 200, "{v}");
    let out = agent.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        std::fs::read_to_string(project.join("marker.txt")).unwrap(),
        "approved on the page"
    );
    let (_, done) = served.get(&format!("/api/approvals/{id}"));
    assert_eq!(
        (done["status"].as_str(), done["outcome"].as_str()),
        (Some("done"), Some("executed"))
    );
}

#[test]
fn a_waiting_agent_is_refused_with_the_note_when_the_api_declines() {
    let (_dir, project, state) = project(AGENT_POLICY);
    let served = Served::start(&project, &state, None);
    let agent = agent_waiting(&project, &state);
    let id = served.first_pending()["id"].as_str().unwrap().to_owned();
    let (status, _) = served.post(
        &format!("/api/approvals/{id}/decline"),
        json!({"note": "write it under docs/ instead"}),
    );
    assert_eq!(status, 200);
    let out = agent.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(!project.join("marker.txt").exists());
    assert!(err.contains("blocked"), "{err}");
    let (_, rows) = served.get("/api/history?outcome=blocked");
    assert_eq!(rows["rows"][0]["note"], "write it under docs/ instead");
}

#[test]
fn a_call_approved_on_the_page_after_its_agent_left_runs_with_approvals_approve() {
    let (_dir, project, state) = project(AGENT_POLICY);
    let served = Served::start(&project, &state, None);
    // No --wait: the agent ends with the call waiting.
    let script = project.join("script.toml");
    std::fs::write(
        &script,
        "[[turn]]\n[[turn.call]]\nname = \"write_file\"\narguments = { path = \"marker.txt\", content = \"later\" }\n\n[[turn]]\ntext = \"done\"\n",
    )
    .unwrap();
    let out = toolgate()
        .args(["agent", "x", "--approver", "queue", "--script"])
        .arg(&script)
        .current_dir(&project)
        .env("TOOLGATE_STATE_DIR", &state)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let a = served.first_pending();
    let id = a["id"].as_str().unwrap();
    let (status, _) = served.post(
        &format!("/api/approvals/{id}/approve"),
        json!({"digest": a["digest"]}),
    );
    assert_eq!(status, 200);
    assert!(
        !project.join("marker.txt").exists(),
        "the server never runs a call"
    );
    let out = toolgate()
        .args(["approvals", "approve", id])
        .current_dir(&project)
        .env("TOOLGATE_STATE_DIR", &state)
        .env_remove("TOOLGATE_SERVER_URL")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(project.join("marker.txt")).unwrap(),
        "later"
    );
    // Once only.
    let again = toolgate()
        .args(["approvals", "approve", id])
        .current_dir(&project)
        .env("TOOLGATE_STATE_DIR", &state)
        .output()
        .unwrap();
    assert_ne!(again.status.code(), Some(0));
}

#[test]
fn a_desktop_notification_is_shown_where_a_session_bus_exists() {
    use std::os::unix::fs::PermissionsExt;
    let policy = format!("{POLICY}\n[notify]\ndesktop = true\n");
    let (dir, project, state) = project(&policy);
    // A notify-send of our own, first on PATH, that records its arguments.
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let record = dir.path().join("notified.txt");
    let fake = bin.join("notify-send");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\n",
            record.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin.clone())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let bus = std::ffi::OsString::from("unix:path=/nonexistent-bus");
    let served = Served::start_with(
        &project,
        &state,
        None,
        &[
            ("PATH", path.as_os_str()),
            ("DBUS_SESSION_BUS_ADDRESS", bus.as_os_str()),
        ],
    );
    let hook = waiting_hook(&project, &state, "touch secret-argument", 60);
    let id = served.first_pending()["id"].as_str().unwrap().to_owned();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !record.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "no desktop notification"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    let shown = std::fs::read_to_string(&record).unwrap();
    assert!(
        shown.contains("approval needed") && shown.contains(&id),
        "{shown}"
    );
    assert!(!shown.contains("secret-argument"), "{shown}");
    served.post(&format!("/api/approvals/{id}/decline"), json!({}));
    let (decision, _) = hook_answer(hook);
    assert_eq!(decision, "deny");
}

//! `toolgate approvals` through a running `toolgate serve`, when
//! `TOOLGATE_SERVER_URL` names one: the same answers, given over the JSON
//! API (so the server's digest binding and its record apply).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::anyhow;
use toolgate_serve::client::Client;
use toolgate_serve::{SERVER_TOKEN_ENV, SERVER_URL_ENV};
use toolgate_store::shown;

use crate::state::ApprovalsCommand;

/// The configured server, if any.
pub fn server_url() -> Option<String> {
    std::env::var(SERVER_URL_ENV)
        .ok()
        .filter(|u| !u.trim().is_empty())
}

/// `TOOLGATE_SERVER_TOKEN`, else the token file a local server wrote to the
/// state directory (beside `--db` when given).
fn token(db: Option<&Path>) -> anyhow::Result<String> {
    if let Ok(t) = std::env::var(SERVER_TOKEN_ENV)
        && !t.trim().is_empty()
    {
        return Ok(t.trim().to_owned());
    }
    let dir = match db.and_then(Path::parent) {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => toolgate_policy::state_dir().map_err(|e| anyhow!("{e}"))?,
    };
    toolgate_serve::token::read(&dir).map_err(|e| {
        anyhow!("{e} (set {SERVER_TOKEN_ENV} for a server that is not on this machine)")
    })
}

pub fn approvals(cmd: ApprovalsCommand, url: &str, db: Option<&Path>) -> anyhow::Result<ExitCode> {
    let client = Client::new(url, &token(db)?);
    let mut out = std::io::stdout().lock();
    let err = |e: toolgate_serve::ServeError| anyhow!("{e}");
    match cmd {
        ApprovalsCommand::List { all, json } => {
            let list = client.list(all).map_err(err)?;
            if json {
                for a in &list {
                    let keys = [
                        "id", "tool", "server", "client", "session", "digest", "status", "created",
                    ];
                    let v: serde_json::Map<String, serde_json::Value> = keys
                        .iter()
                        .map(|k| (k.to_string(), a[*k].clone()))
                        .collect();
                    writeln!(out, "{}", shown::json(&serde_json::Value::Object(v)))?;
                }
                return Ok(ExitCode::SUCCESS);
            }
            if list.is_empty() {
                writeln!(out, "no {}approvals", if all { "" } else { "pending " })?;
            }
            for a in &list {
                // The stored fields, exact; `Listed` escapes them as the
                // local listing does.
                let s = |k: &str| a[k].as_str().unwrap_or("");
                let snapshot = serde_json::json!({ "input": a["input"] }).to_string();
                let entry = crate::state::Listed {
                    id: s("id"),
                    status: s("status"),
                    created: s("created"),
                    tool: s("tool"),
                    snapshot: &snapshot,
                    session: s("session"),
                    call_id: s("call_id"),
                    reason: s("reason"),
                };
                writeln!(out, "{entry}")?;
            }
        }
        ApprovalsCommand::Approve {
            id,
            session,
            note,
            digest,
            policy: _,
        } => {
            client
                .approve(&id, digest.as_deref(), session, note.as_deref())
                .map_err(err)?;
            writeln!(
                out,
                "approved {id} through {url}: the waiting hook or agent runs the call"
            )?;
        }
        ApprovalsCommand::Decline { id, note } => {
            client.decline(&id, note.as_deref()).map_err(err)?;
            writeln!(out, "declined {id} through {url}: the call will not run")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

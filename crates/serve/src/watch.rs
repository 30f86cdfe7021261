//! The watcher: one task that looks at the queue every poll interval, and
//!
//! - expires waiting calls older than `approval_ttl`
//!   ([`toolgate_store::Store::expire_older_than`]): a resolution row in
//!   the ledger, and the waiting hook sees `expired` and refuses;
//! - tells the live pages when the queue or the ledger changed (a cheap
//!   fingerprint: the ledger head's seq and the pending ids);
//! - sends the `[notify]` notifications for each call that started waiting
//!   since the server started: a JSON POST to the webhook ([`payload`]),
//!   and `notify-send` where a desktop session bus exists.
//!
//! Notifications therefore need `toolgate serve` running. Sending them is
//! fire-and-forget on the blocking pool: a failure is logged to standard
//! error and never delays or changes an answer.
//!
//! What a person reads in a notification (the webhook's `text`, `body`,
//! `message`, `summary`; the desktop notification) names the call through
//! [`shown::line`], so a control or bidi character in a tool name or a
//! session id is shown escaped; the webhook's body is written by
//! [`shown::json`], so no such character is sent raw either.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::{Value, json};
use toolgate_policy::Notify;
use toolgate_store::{Pending, shown};

use crate::server::Config;
use crate::state::AppState;

/// How long one webhook POST may take.
const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(10);

pub(crate) struct Watcher {
    state: AppState,
    /// Approvals already announced, or already waiting when the server
    /// started (an earlier server announced those, or none ran).
    seen: HashSet<String>,
    notify: Notify,
    poll: Duration,
    base_url: String,
}

impl Watcher {
    pub(crate) fn new(state: AppState, config: &Config) -> Watcher {
        let base_url = format!("http://{}", state.0.addr);
        let seen = match state.store().list_pending() {
            Ok(list) => list.into_iter().map(|p| p.id).collect(),
            Err(e) => {
                eprintln!("toolgate serve: cannot read the queue: {e}");
                HashSet::new()
            }
        };
        Watcher {
            state,
            seen,
            notify: config.notify.clone(),
            poll: config.poll,
            base_url,
        }
    }

    pub(crate) async fn run(mut self) {
        let mut last: Option<(u64, Vec<String>)> = None;
        let mut tick = tokio::time::interval(self.poll);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let state = self.state.clone();
            let ttl = self.notify.approval_ttl;
            let looked = tokio::task::spawn_blocking(move || {
                let store = state.store();
                let expired = store.expire_older_than(ttl)?;
                let pending = store.list_pending()?;
                let head = store.head()?;
                Ok::<_, toolgate_store::Error>((expired, pending, head.seq))
            })
            .await;
            let (expired, pending, seq) = match looked {
                Ok(Ok(v)) => v,
                Ok(Err(e)) => {
                    eprintln!("toolgate serve: cannot read the queue: {e}");
                    continue;
                }
                Err(e) => {
                    eprintln!("toolgate serve: the queue watcher failed: {e}");
                    continue;
                }
            };
            for p in &expired {
                eprintln!(
                    "toolgate serve: approval {} ({}) expired after {} s without an answer",
                    shown::line(&p.id),
                    shown::line(&p.tool),
                    ttl.as_secs()
                );
            }
            let ids: Vec<String> = pending.iter().map(|p| p.id.clone()).collect();
            let fingerprint = (seq, ids);
            if last.as_ref() != Some(&fingerprint) {
                self.state.bump();
                last = Some(fingerprint);
            }
            for p in &pending {
                if self.seen.insert(p.id.clone()) {
                    self.announce(p);
                }
            }
        }
    }

    fn announce(&self, p: &Pending) {
        let link = format!("{}/#approval-{}", self.base_url, p.id);
        if let Some(url) = self.notify.webhook.clone() {
            let body = shown::json(&payload(p, &link, &url, self.notify.include_arguments));
            let id = shown::line(&p.id).into_owned();
            tokio::task::spawn_blocking(move || {
                if let Err(e) = post(&url, &body) {
                    eprintln!("toolgate serve: webhook for approval {id} to {url} failed: {e}");
                }
            });
        }
        if self.notify.desktop && std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
            let text = desktop_text(p);
            let id = shown::line(&p.id).into_owned();
            tokio::task::spawn_blocking(move || {
                // `--`: a body that starts with `-` is not an option.
                let run = std::process::Command::new("notify-send")
                    .args([
                        "--app-name=toolgate",
                        "--",
                        "toolgate: approval needed",
                        &text,
                    ])
                    .stdin(std::process::Stdio::null())
                    .status();
                match run {
                    Ok(s) if s.success() => {}
                    Ok(s) => eprintln!("toolgate serve: notify-send for {id} exited with {s}"),
                    Err(e) => eprintln!("toolgate serve: notify-send for {id} failed: {e}"),
                }
            });
        }
    }
}

/// One line that names the call without its arguments, each value
/// escaped for a person.
pub fn summary(p: &Pending) -> String {
    let client = p
        .client
        .as_deref()
        .map(|c| format!(" from {}", shown::line(c)))
        .unwrap_or_default();
    let rule = p
        .rule
        .as_deref()
        .map(|r| format!(", rule {}", shown::line(r)))
        .unwrap_or_default();
    format!(
        "{}{client} waits for approval {} (session {}{rule})",
        shown::line(&p.tool),
        shown::line(&p.id),
        shown::line(&p.session)
    )
}

/// The desktop notification's body: [`summary`], with `&`, `<` and `>`
/// written as entities, since notification servers read the body as
/// markup (a tool name must not become a link or hide as a tag).
pub fn desktop_text(p: &Pending) -> String {
    let mut out = String::new();
    for c in summary(p).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// The webhook's JSON body. One object that several receivers read as
/// they are: `text` (Slack incoming webhooks, Mattermost, Discord-style
/// bridges), `body` + `msgtype` (Matrix `m.room.message` bridges such as
/// hookshot), `topic` + `title` + `message` + `click` (ntfy's JSON
/// publishing, POSTed to the server's base URL; `topic` is the webhook
/// URL's last path segment), plus toolgate's own fields.
///
/// The call's input and the policy's reason (which may quote it) are sent
/// only with `include_arguments = true`. The link carries no token.
///
/// The texts for people (`text`, `body`, `message`, `summary`) are escaped
/// ([`summary`]); toolgate's own fields (`tool`, `session`, `arguments`,
/// `reason`, ...) are the stored values, exact, for programs. Send it as
/// [`shown::json`] writes it.
pub fn payload(p: &Pending, link: &str, webhook: &str, include_arguments: bool) -> Value {
    let text = format!("toolgate: {} {link}", summary(p));
    let topic = webhook
        .split_once("://")
        .and_then(|(_, rest)| rest.split_once('/'))
        .and_then(|(_, path)| path.trim_end_matches('/').rsplit('/').next())
        .filter(|t| !t.is_empty())
        .map(str::to_owned);
    let mut v = json!({
        "event": "approval.waiting",
        "id": p.id,
        "tool": p.tool,
        "client": p.client,
        "session": p.session,
        "rule": p.rule,
        "created": p.created,
        "summary": summary(p),
        "link": link,
        "text": text,
        "body": text,
        "msgtype": "m.text",
        "title": "toolgate: approval needed",
        "message": summary(p),
        "click": link,
        "topic": topic,
    });
    if include_arguments {
        let snapshot: Value = serde_json::from_str(&p.snapshot_json).unwrap_or(Value::Null);
        v["arguments"] = snapshot.get("input").cloned().unwrap_or(Value::Null);
        v["reason"] = Value::String(p.reason.clone());
    }
    v
}

/// Why a webhook was not delivered; the watcher warns and goes on.
#[derive(Debug, thiserror::Error)]
enum PostError {
    /// No answer (refused, timed out, bad URL).
    #[error(transparent)]
    Send(#[from] ureq::Error),
    /// An answer other than success.
    #[error("HTTP {0}")]
    Status(ureq::http::StatusCode),
}

fn post(url: &str, body: &str) -> Result<(), PostError> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(WEBHOOK_TIMEOUT))
        .http_status_as_error(false)
        .build()
        .into();
    let resp = agent
        .post(url)
        .header("content-type", "application/json")
        .send(body)?;
    let status = resp.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(PostError::Status(status))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolgate_store::ApprovalStatus;

    fn pending(tool: &str, session: &str) -> Pending {
        Pending {
            id: "a1".into(),
            session: session.into(),
            client: Some("claude".into()),
            server: None,
            call_id: "c1".into(),
            tool: tool.into(),
            snapshot_json: "{}".into(),
            digest: "d".into(),
            reason: "r".into(),
            rule: None,
            remember_allowed: false,
            status: ApprovalStatus::Pending,
            created: "2025-01-01T00:00:00.000Z".into(),
            answer: None,
            note: None,
            answered_by: None,
            answered: None,
            outcome: None,
            finished: None,
        }
    }

    #[test]
    fn the_desktop_text_is_escaped_and_carries_no_markup() {
        let text = desktop_text(&pending(
            "<a href=\"x\">Bash</a>\x1b[2K\r",
            "s\u{202e}1 & more",
        ));
        assert_eq!(
            text,
            "&lt;a href=\"x\"&gt;Bash&lt;/a&gt;\\x1b[2K\\r from claude waits for approval a1 \
             (session s\\u{202e}1 &amp; more)"
        );
    }
}

//! What the page and the API show of an approval: the stored fields, the
//! digest re-checked against the stored snapshot, how long it has waited,
//! and the real arguments made readable (the shell command's parsed parts,
//! a write's diff against the file on disk).
//!
//! The stored fields are given exactly as stored, for programs. What a
//! person reads is escaped ([`toolgate_store::shown`]): `shown` holds each
//! of those fields escaped, and `details` exists only to be read, so its
//! strings are escaped in place. The page shows only these, so a terminal
//! escape, a bidi override or a zero-width character in a call is seen as
//! `\x1b`, `\u{202e}`, `\u{200b}` and never reorders or hides what is
//! around it.

use std::path::{Path, PathBuf};

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use toolgate_policy::Call;
use toolgate_store::shown;
use toolgate_store::{Pending, ReviewRecord, Row};

/// A JSON answer whose text holds no raw control, bidi or invisible
/// character ([`shown::json`]): the same values for a program, nothing a
/// terminal that prints it or a page that shows it acts on.
pub(crate) fn reply(status: StatusCode, v: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        shown::json(v),
    )
        .into_response()
}

/// [`reply`] with 200.
pub(crate) fn ok(v: &Value) -> Response {
    reply(StatusCode::OK, v)
}

/// A one-line string for a person.
fn line(s: &str) -> Value {
    Value::String(shown::line(s).into_owned())
}

/// An optional one-line string for a person.
fn line_opt(s: Option<&str>) -> Value {
    s.map(line).unwrap_or(Value::Null)
}

/// A multi-line string for a person (newlines kept; the page shows it
/// preformatted).
fn block(s: &str) -> Value {
    Value::String(shown::block(s).into_owned())
}

/// Past this, a file on disk is not read for a preview.
const PREVIEW_FILE_LIMIT: u64 = 256 * 1024;
/// Past this many characters, a preview or diff is cut.
const PREVIEW_CHARS: usize = 20_000;

/// Past this many characters, a history row's `shown.input` is cut.
const HISTORY_INPUT_CHARS: usize = 200;

/// The first `n` characters of `s`, and `…` when there were more: cut
/// before escaping, so an escape is never cut in half.
fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

fn stored_call(p: &Pending) -> Option<Call> {
    let v: Value = serde_json::from_str(&p.snapshot_json).ok()?;
    Call::from_value(&v).ok()
}

/// The MCP server of a call: a `server` field in the snapshot when a
/// writer records one, else the `SRV` of an `mcp__SRV__TOOL` name.
fn server_of(p: &Pending, snapshot: &Value) -> Option<String> {
    if let Some(s) = snapshot.get("server").and_then(Value::as_str) {
        return Some(s.to_owned());
    }
    let rest = p.tool.strip_prefix("mcp__")?;
    let (srv, _) = rest.split_once("__")?;
    (!srv.is_empty()).then(|| srv.to_owned())
}

/// The reviewer model's answer: the stored values, for programs.
fn review(r: &ReviewRecord) -> Value {
    json!({
        "model": r.model,
        "decision": r.decision.as_str(),
        "reason": r.reason,
        "latency_ms": r.latency_ms,
    })
}

/// The reviewer model's answer for a person: model and reason escaped.
fn review_shown(r: &ReviewRecord) -> Value {
    json!({
        "model": line(&r.model),
        "decision": r.decision.as_str(),
        "reason": line(&r.reason),
        "latency_ms": r.latency_ms,
    })
}

/// The JSON view of one approval. `reviewed` is the reviewer model's
/// answer on the call's request row: for a call the reviewer escalated,
/// why it did.
pub(crate) fn approval(
    p: &Pending,
    reviewed: Option<&ReviewRecord>,
    roots: &[PathBuf],
    now_ms: u64,
) -> Value {
    let snapshot: Value = serde_json::from_str(&p.snapshot_json).unwrap_or(Value::Null);
    let call = stored_call(p);
    let input = snapshot.get("input").cloned().unwrap_or(Value::Null);
    let waited = parse_millis(&p.created).map(|c| now_ms.saturating_sub(c) / 1000);
    json!({
        "id": p.id,
        "status": p.status.as_str(),
        "created": p.created,
        "waited_secs": waited,
        "session": p.session,
        "client": p.client,
        "server": server_of(p, &snapshot),
        "call_id": p.call_id,
        "tool": p.tool,
        "digest": p.digest,
        "digest_ok": toolgate_gate::approvals::digest_ok(p),
        "rule": p.rule,
        "reason": p.reason,
        "remember_allowed": p.remember_allowed,
        "answer": p.answer.map(|a| a.as_str()),
        "note": p.note,
        "answered_by": p.answered_by,
        "answered": p.answered,
        "outcome": p.outcome.map(|o| o.as_str()),
        "finished": p.finished,
        "review": reviewed.map(review),
        "details": call.as_ref().map(|c| details(c, roots)).unwrap_or(Value::Null),
        "shown": {
            "id": line(&p.id),
            "tool": line(&p.tool),
            "client": line_opt(p.client.as_deref()),
            "server": line_opt(server_of(p, &snapshot).as_deref()),
            "session": line(&p.session),
            "call_id": line(&p.call_id),
            "rule": line_opt(p.rule.as_deref()),
            "reason": line(&p.reason),
            "note": line_opt(p.note.as_deref()),
            "answered_by": line_opt(p.answered_by.as_deref()),
            "review": reviewed.map(review_shown),
            "input": shown::json_pretty(&input),
        },
        "input": input,
    })
}

/// One ledger row.
pub(crate) fn row(r: &Row) -> Value {
    let rec = &r.record;
    json!({
        "seq": r.seq, "kind": r.kind.as_str(), "time": r.time,
        "session": rec.session, "client": rec.client, "call_id": rec.call_id,
        "tool": rec.tool, "digest": rec.digest, "input": rec.input,
        "decision": rec.decision.as_str(), "rule": rec.rule, "hard": rec.hard,
        "reason": rec.reason, "approval": rec.approval.map(|a| a.as_str()),
        "note": rec.note, "outcome": rec.outcome.as_str(),
        "duration_us": rec.duration_us, "approval_id": rec.approval_id,
        "review": rec.review.as_ref().map(review),
        "hash": r.hash,
        "shown": {
            "session": line(&rec.session), "client": line_opt(rec.client.as_deref()),
            "server": line_opt(rec.server.as_deref()), "call_id": line(&rec.call_id),
            "tool": line(&rec.tool), "input": line(&cut(&rec.input, HISTORY_INPUT_CHARS)),
            "rule": line_opt(rec.rule.as_deref()), "reason": line(&rec.reason),
            "note": line_opt(rec.note.as_deref()),
            "review": rec.review.as_ref().map(review_shown),
        },
    })
}

/// The readable form of the arguments, by what the call does.
fn details(call: &Call, roots: &[PathBuf]) -> Value {
    let input = &call.input;
    let text = |k: &str| input.get(k).and_then(Value::as_str);
    if let Some(command) = text("command") {
        return shell(
            command,
            call.cwd.as_deref().or(roots.first().map(PathBuf::as_path)),
        );
    }
    let path = ["file_path", "path", "notebook_path", "absolute_path"]
        .iter()
        .find_map(|k| text(k));
    let new_content = text("content").map(str::to_owned);
    let edit = text("old_string").zip(text("new_string"));
    if let Some(path) = path
        && (new_content.is_some() || edit.is_some())
    {
        let all = input
            .get("replace_all")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        return write(path, call.cwd.as_deref(), roots, new_content, edit, all);
    }
    json!({ "kind": "other" })
}

fn shell(command: &str, cwd: Option<&Path>) -> Value {
    let opts = toolgate_shell::Options {
        cwd: cwd.map(Path::to_path_buf),
        ..toolgate_shell::Options::default()
    };
    let a = toolgate_shell::analyze(command, &opts);
    let parts: Vec<Value> = a
        .commands
        .iter()
        .map(|c| {
            json!({
                "argv": c.argv.iter().map(|a| line(a)).collect::<Vec<_>>(),
                "text": line(&c.text),
                "read_only": c.read_only,
                "wrappers": c
                    .wrappers
                    .iter()
                    .map(|w| w.iter().map(|a| line(a)).collect::<Vec<_>>())
                    .collect::<Vec<_>>(),
            })
        })
        .collect();
    let effects: Vec<Value> = a
        .effects
        .iter()
        .map(|e| {
            json!({
                "kind": format!("{:?}", e.kind).to_lowercase(),
                "target": line(&e.target),
                "recursive": e.recursive,
                "delete": e.delete,
            })
        })
        .collect();
    json!({
        "kind": "shell",
        "command": block(command),
        "parts": parts,
        "effects": effects,
        "unknowns": a.unknowns.iter().map(|u| line(&u.reason)).collect::<Vec<_>>(),
        "hazards": a.hazards.iter().map(|h| line(&h.reason)).collect::<Vec<_>>(),
    })
}

fn write(
    path: &str,
    cwd: Option<&Path>,
    roots: &[PathBuf],
    content: Option<String>,
    edit: Option<(&str, &str)>,
    replace_all: bool,
) -> Value {
    let written = Path::new(path);
    let abs = if written.is_absolute() {
        written.to_path_buf()
    } else {
        match cwd.or(roots.first().map(PathBuf::as_path)) {
            Some(base) => base.join(written),
            None => written.to_path_buf(),
        }
    };
    let abs = toolgate_policy::normalize_lexically(&abs);
    // Only files beneath a workspace root are read for the preview: the
    // page must not become a way to read anything the server can. The
    // real path decides (a symlink inside a root may point outside it); a
    // file that does not exist yet is judged by its lexical path.
    let real = std::fs::canonicalize(&abs).ok();
    let judged = real.as_deref().unwrap_or(&abs);
    let inside = roots.iter().any(|r| judged.starts_with(r));
    let old = if inside {
        match std::fs::metadata(&abs) {
            Ok(m) if m.is_file() && m.len() <= PREVIEW_FILE_LIMIT => {
                std::fs::read_to_string(&abs).ok()
            }
            _ => None,
        }
    } else {
        None
    };
    let exists = inside && abs.exists();
    let new = match (content, edit) {
        (Some(c), _) => Some(c),
        (None, Some((from, to))) => old.as_ref().map(|o| {
            if replace_all {
                o.replace(from, to)
            } else {
                o.replacen(from, to, 1)
            }
        }),
        (None, None) => None,
    };
    let diff = match (&old, &new) {
        (Some(o), Some(n)) => Some(
            similar::TextDiff::from_lines(o.as_str(), n.as_str())
                .unified_diff()
                .context_radius(3)
                .header(path, path)
                .to_string(),
        ),
        _ => None,
    };
    // Cut, then escaped: an escape is never cut in half.
    let preview_of = |s: &str| block(&s.chars().take(PREVIEW_CHARS).collect::<String>());
    json!({
        "kind": "write",
        "path": line(path),
        "resolved": line(&abs.to_string_lossy()),
        "inside_roots": inside,
        "exists": exists,
        "diff": diff.as_deref().map(preview_of),
        "preview": new.as_deref().map(preview_of),
        "total_chars": new.as_ref().map(|n| n.chars().count()),
        "edit": edit.map(|(from, to)| json!({"old_string": block(from), "new_string": block(to)})),
    })
}

/// Milliseconds since the epoch of the store's `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub(crate) fn parse_millis(t: &str) -> Option<u64> {
    let b = t.as_bytes();
    if b.len() != 24 || b[4] != b'-' || b[10] != b'T' || b[23] != b'Z' {
        return None;
    }
    let n = |r: std::ops::Range<usize>| t.get(r)?.parse::<u64>().ok();
    let (y, mo, d) = (n(0..4)?, n(5..7)?, n(8..10)?);
    let (h, mi, s, ms) = (n(11..13)?, n(14..16)?, n(17..19)?, n(20..23)?);
    // Howard Hinnant's days_from_civil, for years from 1970.
    let y = if mo <= 2 { y.checked_sub(1)? } else { y };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (mo + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d.checked_sub(1)?;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = (era * 146_097 + doe).checked_sub(719_468)?;
    Some((((days * 24 + h) * 60 + mi) * 60 + s) * 1000 + ms)
}

/// Now, in milliseconds since the epoch.
pub(crate) fn now_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_times_parse() {
        assert_eq!(parse_millis("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(
            parse_millis("2000-02-29T00:00:00.123Z"),
            Some(951_782_400_123)
        );
        assert_eq!(
            parse_millis("2025-12-31T23:59:59.999Z"),
            Some(1_767_225_599_999)
        );
        assert_eq!(parse_millis("yesterday"), None);
    }

    #[test]
    fn a_shell_command_is_shown_with_its_parts() {
        let v = shell("git status && rm -rf build > log.txt", None);
        let parts = v["parts"].as_array().unwrap();
        assert_eq!(parts.len(), 2, "{v}");
        assert_eq!(parts[1]["argv"], json!(["rm", "-rf", "build"]));
        assert!(
            v["effects"]
                .as_array()
                .unwrap()
                .iter()
                .any(|e| e["target"] == "log.txt"),
            "{v}"
        );
    }

    #[test]
    fn a_write_inside_the_roots_is_diffed_against_the_disk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.txt"), "one\ntwo\n").unwrap();
        let v = write(
            "a.txt",
            None,
            std::slice::from_ref(&root),
            Some("one\nTWO\n".into()),
            None,
            false,
        );
        let diff = v["diff"].as_str().unwrap();
        assert!(diff.contains("-two") && diff.contains("+TWO"), "{diff}");
        // Outside the roots: not read.
        let v = write(
            "/etc/hostname",
            None,
            &[root],
            Some("x".into()),
            None,
            false,
        );
        assert_eq!(v["inside_roots"], false);
        assert!(v["diff"].is_null());
    }
}

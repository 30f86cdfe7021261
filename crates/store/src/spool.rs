//! The spool: ledger rows appended beside the SQLite database without
//! opening it, folded into it by the next process that does.
//!
//! A hook is one process per tool call. Opening SQLite (its WAL and
//! shared-memory index, the schema) and committing a row is most of such a
//! process's work, several times what deciding the call costs. So a host
//! that opens the store with [`Store::open_spooled`] appends its rows to
//! `toolgate.db-spool` instead: one line per row, under an exclusive
//! `flock`, written before the call is answered. A row that cannot be
//! spooled is a call that cannot be recorded, and the gate refuses it.
//!
//! Every line carries a hash chaining it to the line before, as the ledger
//! chains its rows, so that a spooled row edited before it reaches the
//! ledger breaks the chain. The rows reach the ledger (their seq, their
//! place in its hash chain) when any process opens the database, and when
//! a process reads the ledger, in spool order, in one transaction; the
//! spool is then emptied. A fold that a crash interrupts after its commit
//! leaves rows the ledger already holds: the fold's transaction also notes
//! the hash of the last line it folded (table `spool_folded`), and the next
//! fold starts after that line, so they are not added twice.
//!
//! A row's `time` is when it was spooled; its seq is given when it is
//! folded, so rows written directly to the database meanwhile (an
//! approval's resolution, say) can come before spooled rows that are older.
//!
//! [`Store::open_spooled`]: crate::Store::open_spooled

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::types::{Record, ReviewRecord, RowKind};

/// Spool bytes past which the process that appends folds the spool into
/// the database itself, so that it stays small when nothing else opens
/// the database for a long while.
pub(crate) const FOLD_BYTES: u64 = 1 << 20;

/// The spool file beside the database file `db`.
pub(crate) fn path_for(db: &Path) -> PathBuf {
    let mut p = db.as_os_str().to_owned();
    p.push("-spool");
    PathBuf::from(p)
}

/// Hex SHA-256 length: the hash at the end of every line.
const HASH_LEN: usize = 64;

/// A spooled row, as read back.
pub(crate) struct Spooled {
    pub kind: RowKind,
    pub time: String,
    pub record: Record,
    /// The line's chain hash: where it stands in the spool.
    pub line_hash: String,
}

/// The spool of a store opened spooled: where it is, and the file, kept
/// open between appends.
///
/// A long-lived host (the MCP gateway) appends row after row through the
/// same store, and opening the file again for each was a sixth of an
/// append. The file is locked for each append and unlocked after it, as
/// when it was opened each time; a fold empties it in place, which the
/// next append sees (it reads the length and the last hash under the
/// lock). When the file at the spool's path is no longer the one kept open
/// (it was removed, or another put in its place), the append opens the
/// path again, so that the row goes where the next fold reads, as it did
/// when every append opened the path.
#[derive(Debug)]
pub(crate) struct Spool {
    path: PathBuf,
    /// The file, unlocked; `None` before the first append and after an
    /// append that failed (the next one opens it again).
    kept: Mutex<Option<File>>,
}

impl Spool {
    /// The spool at `path`, not opened yet.
    pub fn new(path: PathBuf) -> Spool {
        Spool {
            path,
            kept: Mutex::new(None),
        }
    }

    /// Appends one row under the spool's lock; returns the spool's length
    /// after it.
    pub fn append(&self, kind: RowKind, time: &str, record: &Record) -> Result<u64> {
        // Held for the whole append: the lock is the open file's, which
        // two threads of this process would otherwise share.
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        // Taken out: after an error the file is closed here, which ends its
        // lock, and the next append opens the path again.
        let (locked, len) = self.locked(kept.take())?;
        let len = locked.append_at(len, kind, time, record)?;
        *kept = locked.unlock();
        Ok(len)
    }

    /// The spool file, locked, and its length: `kept` when it is still the
    /// file at the spool's path, else the path opened again.
    fn locked(&self, kept: Option<File>) -> Result<(Locked, u64)> {
        if let Some(file) = kept {
            let locked = Locked::lock(&self.path, file)?;
            let here = locked.metadata()?;
            let at_path = match std::fs::symlink_metadata(&self.path) {
                Ok(m) => Some(m),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(locked.io("look at the ledger spool")(e)),
            };
            if at_path.is_some_and(|m| m.dev() == here.dev() && m.ino() == here.ino()) {
                return Ok((locked, here.len()));
            }
            // Another file, or none: this one is closed (and unlocked).
        }
        let locked = Locked::open(&self.path)?;
        let len = locked.metadata()?.len();
        Ok((locked, len))
    }
}

/// The spool file, opened and locked exclusively (the lock ends with it,
/// or with [`Locked::unlock`]).
pub(crate) struct Locked {
    path: PathBuf,
    file: File,
}

impl Locked {
    /// Opens (creating, owner-only) and locks the spool file.
    pub fn open(path: &Path) -> Result<Locked> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(path)
            .map_err(|source| Error::Io {
                path: path.to_path_buf(),
                action: "open the ledger spool",
                source,
            })?;
        Locked::lock(path, file)
    }

    /// Locks the spool file `file`, open already.
    fn lock(path: &Path, file: File) -> Result<Locked> {
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive).map_err(|e| {
            Error::Io {
                path: path.to_path_buf(),
                action: "lock the ledger spool",
                source: e.into(),
            }
        })?;
        Ok(Locked {
            path: path.to_path_buf(),
            file,
        })
    }

    /// Unlocks the file and hands it back, open, for the next append;
    /// `None` when it could not be unlocked, and it is closed instead,
    /// which unlocks it too.
    fn unlock(self) -> Option<File> {
        rustix::fs::flock(&self.file, rustix::fs::FlockOperation::Unlock).ok()?;
        Some(self.file)
    }

    fn metadata(&self) -> Result<std::fs::Metadata> {
        self.file
            .metadata()
            .map_err(self.io("read the ledger spool"))
    }

    /// Opens and locks the spool when it exists and holds something.
    pub fn open_if_any(path: &Path) -> Result<Option<Locked>> {
        match std::fs::symlink_metadata(path) {
            Ok(m) if m.len() == 0 && m.is_file() => Ok(None),
            Ok(_) => Locked::open(path).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(Error::Io {
                path: path.to_path_buf(),
                action: "look at the ledger spool",
                source,
            }),
        }
    }

    fn io(&self, action: &'static str) -> impl Fn(std::io::Error) -> Error + '_ {
        move |source| Error::Io {
            path: self.path.clone(),
            action,
            source,
        }
    }

    fn corrupt(&self, detail: String) -> Error {
        Error::Corrupt {
            path: self.path.clone(),
            detail,
        }
    }

    /// Appends one row to the spool, `len` bytes long now (read under the
    /// lock); returns its length after it.
    fn append_at(&self, len: u64, kind: RowKind, time: &str, record: &Record) -> Result<u64> {
        let (prev, end) = self.tip(len)?;
        let json = line_json(kind, time, record);
        let hash = line_hash(&prev, &json);
        let line = format!("{json}\t{hash}\n");
        self.file
            .write_all_at(line.as_bytes(), end)
            .map_err(self.io("write the ledger spool"))?;
        Ok(end + line.len() as u64)
    }

    /// The hash of the last whole line (empty for an empty spool) and where
    /// the next line goes. A last line without its newline was never
    /// finished (its writer died), so its call was never answered: it is
    /// cut off.
    fn tip(&self, len: u64) -> Result<(String, u64)> {
        if len == 0 {
            return Ok((String::new(), 0));
        }
        let tail_len = len.min(HASH_LEN as u64 + 2);
        let mut tail = vec![0u8; tail_len as usize];
        self.file
            .read_exact_at(&mut tail, len - tail_len)
            .map_err(self.io("read the ledger spool"))?;
        if tail.last() != Some(&b'\n') {
            let end = self.last_line_end(len)?;
            self.file
                .set_len(end)
                .map_err(self.io("cut an unfinished line off the ledger spool"))?;
            return self.tip(end);
        }
        // `\t<hash>\n`: the whole tail, when the spool is well formed.
        let hash = Some(&tail[..])
            .filter(|t| t.len() == HASH_LEN + 2 && t[0] == b'\t')
            .map(|t| &t[1..=HASH_LEN])
            .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
            .and_then(|h| std::str::from_utf8(h).ok());
        match hash {
            Some(h) => Ok((h.to_owned(), len)),
            None => Err(self.corrupt("its last line does not end in a hash".to_owned())),
        }
    }

    /// The offset just past the last newline before `len` (0 when none).
    fn last_line_end(&self, len: u64) -> Result<u64> {
        let mut end = len;
        let mut buf = vec![0u8; 64 * 1024];
        while end > 0 {
            let n = end.min(buf.len() as u64);
            let chunk = &mut buf[..n as usize];
            self.file
                .read_exact_at(chunk, end - n)
                .map_err(self.io("read the ledger spool"))?;
            if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
                return Ok(end - n + i as u64 + 1);
            }
            end -= n;
        }
        Ok(0)
    }

    /// Every whole row, in order, with the chain checked. A broken chain or
    /// a line that does not parse is an error naming the line: what it held
    /// cannot be told apart from a forgery.
    pub fn read_all(&self) -> Result<Vec<Spooled>> {
        let mut bytes = Vec::new();
        (&self.file)
            .read_to_end(&mut bytes)
            .map_err(self.io("read the ledger spool"))?;
        // An unfinished last line was never answered (see `tip`).
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let text = std::str::from_utf8(&bytes[..whole])
            .map_err(|e| self.corrupt(format!("it is not UTF-8 ({e})")))?;
        let mut prev = String::new();
        let mut rows = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let at = |what: &str| self.corrupt(format!("line {}: {what}", n + 1));
            let (json, hash) = line
                .rsplit_once('\t')
                .ok_or_else(|| at("no hash at its end"))?;
            if line_hash(&prev, json) != hash {
                return Err(at(
                    "its hash does not match its content and the line before: \
                     it was changed after it was written",
                ));
            }
            let (kind, time, record) = parse_line(json).map_err(|e| at(&e.to_string()))?;
            rows.push(Spooled {
                kind,
                time,
                record,
                line_hash: hash.to_owned(),
            });
            prev = hash.to_owned();
        }
        Ok(rows)
    }

    /// Empties the spool (its rows are in the ledger now).
    pub fn clear(&self) -> Result<()> {
        self.file
            .set_len(0)
            .map_err(self.io("empty the ledger spool"))
    }
}

fn line_hash(prev: &str, json: &str) -> String {
    let mut h = Sha256::new();
    h.update(prev.as_bytes());
    h.update(b"\n");
    h.update(json.as_bytes());
    hex::encode(h.finalize())
}

/// One row as it is written in a line: every field, keys in alphabetical
/// order (the order the lines have always had). `review` is written only
/// for a reviewed call, so that other lines are what they always were.
#[derive(serde::Serialize)]
struct Line<'a> {
    approval: Option<&'a str>,
    approval_id: Option<&'a str>,
    call_id: &'a str,
    client: Option<&'a str>,
    decision: &'a str,
    digest: &'a str,
    duration_us: u64,
    hard: bool,
    input: &'a str,
    kind: &'a str,
    note: Option<&'a str>,
    outcome: &'a str,
    reason: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    review: Option<LineReview<'a>>,
    rule: Option<&'a str>,
    server: Option<&'a str>,
    session: &'a str,
    time: &'a str,
    tool: &'a str,
}

/// The reviewer's answer in a line, keys in alphabetical order.
#[derive(serde::Serialize)]
struct LineReview<'a> {
    decision: &'a str,
    latency_ms: u64,
    model: &'a str,
    reason: &'a str,
}

/// One row as a line of JSON (compact: no tab or newline in it).
fn line_json(kind: RowKind, time: &str, r: &Record) -> String {
    let line = Line {
        approval: r.approval.map(|a| a.as_str()),
        approval_id: r.approval_id.as_deref(),
        call_id: &r.call_id,
        client: r.client.as_deref(),
        decision: r.decision.as_str(),
        digest: &r.digest,
        duration_us: r.duration_us,
        hard: r.hard,
        input: &r.input,
        kind: kind.as_str(),
        note: r.note.as_deref(),
        outcome: r.outcome.as_str(),
        reason: &r.reason,
        review: r.review.as_ref().map(|v| LineReview {
            decision: v.decision.as_str(),
            latency_ms: v.latency_ms,
            model: &v.model,
            reason: &v.reason,
        }),
        rule: r.rule.as_deref(),
        server: r.server.as_deref(),
        session: &r.session,
        time,
        tool: &r.tool,
    };
    // Only strings, numbers and booleans: serialising cannot fail.
    serde_json::to_string(&line).unwrap_or_default()
}

/// Why a spool line cannot be read back; the spool is reported as
/// corrupt at that line.
#[derive(Debug, thiserror::Error)]
enum LineError {
    /// The part before the hash is not JSON.
    #[error("not JSON ({0})")]
    NotJson(#[source] serde_json::Error),
    /// A text field that is absent or of another type.
    #[error("`{0}` is missing or not text")]
    NoText(String),
    /// An optional text field of another type.
    #[error("`{0}` is not text")]
    NotText(&'static str),
    /// A number field that is absent or of another type.
    #[error("`{0}` is missing or not a number")]
    NoNumber(&'static str),
    /// `hard` absent or not a boolean.
    #[error("`hard` is missing or not true or false")]
    NoHard,
    /// A decision, outcome or kind the store does not write.
    #[error("`{field}`: {source}")]
    Value {
        /// The field.
        field: &'static str,
        /// The value found.
        source: crate::error::UnknownValue,
    },
}

fn parse_line(json: &str) -> std::result::Result<(RowKind, String, Record), LineError> {
    let v: Value = serde_json::from_str(json).map_err(LineError::NotJson)?;
    let text = |k: &'static str| -> std::result::Result<String, LineError> {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| LineError::NoText(k.to_owned()))
    };
    let opt = |k: &'static str| -> std::result::Result<Option<String>, LineError> {
        match v.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(LineError::NotText(k)),
        }
    };
    let parse = |field: &'static str| {
        move |source: crate::error::UnknownValue| LineError::Value { field, source }
    };
    let record = Record {
        session: text("session")?,
        client: opt("client")?,
        server: opt("server")?,
        call_id: text("call_id")?,
        tool: text("tool")?,
        digest: text("digest")?,
        input: text("input")?,
        decision: text("decision")?.parse().map_err(parse("decision"))?,
        rule: opt("rule")?,
        hard: v
            .get("hard")
            .and_then(Value::as_bool)
            .ok_or(LineError::NoHard)?,
        reason: text("reason")?,
        approval: opt("approval")?
            .map(|a| a.parse())
            .transpose()
            .map_err(parse("approval"))?,
        note: opt("note")?,
        outcome: text("outcome")?.parse().map_err(parse("outcome"))?,
        duration_us: v
            .get("duration_us")
            .and_then(Value::as_u64)
            .ok_or(LineError::NoNumber("duration_us"))?,
        approval_id: opt("approval_id")?,
        review: match v.get("review") {
            None | Some(Value::Null) => None,
            Some(r) => Some(parse_review(r)?),
        },
    };
    let kind = text("kind")?.parse().map_err(parse("kind"))?;
    Ok((kind, text("time")?, record))
}

fn parse_review(v: &Value) -> std::result::Result<ReviewRecord, LineError> {
    let text = |k: &str| -> std::result::Result<String, LineError> {
        v.get(k)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| LineError::NoText(format!("review.{k}")))
    };
    Ok(ReviewRecord {
        model: text("model")?,
        decision: text("decision")?
            .parse()
            .map_err(|source| LineError::Value {
                field: "review.decision",
                source,
            })?,
        reason: text("reason")?,
        latency_ms: v
            .get("latency_ms")
            .and_then(Value::as_u64)
            .ok_or(LineError::NoNumber("review.latency_ms"))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{ApprovalAnswer, Decision, Outcome};

    /// Lines are written as they always were (a map of every field, keys
    /// sorted), so that spools written by an older build still verify.
    #[test]
    fn a_line_is_the_sorted_map_of_every_field() {
        let r = Record {
            session: "s\"1".into(),
            client: Some("claude".into()),
            server: None,
            call_id: "c\t1".into(),
            tool: "Bash".into(),
            digest: "d".into(),
            input: r#"{"command":"ls\n"}"#.into(),
            decision: Decision::Ask,
            rule: Some("r".into()),
            hard: false,
            reason: "why ü".into(),
            approval: Some(ApprovalAnswer::Approve),
            note: None,
            outcome: Outcome::Executed,
            duration_us: 42,
            approval_id: Some("a1".into()),
            review: None,
        };
        // Sorted whatever serde_json's `preserve_order` feature says (another
        // crate in the build may turn it on).
        let mut m = std::collections::BTreeMap::<String, Value>::new();
        let opt = |v: &Option<String>| v.clone().map_or(Value::Null, Value::String);
        m.insert("kind".into(), RowKind::Request.as_str().into());
        m.insert("time".into(), "t".into());
        m.insert("session".into(), r.session.clone().into());
        m.insert("client".into(), opt(&r.client));
        m.insert("server".into(), opt(&r.server));
        m.insert("call_id".into(), r.call_id.clone().into());
        m.insert("tool".into(), r.tool.clone().into());
        m.insert("digest".into(), r.digest.clone().into());
        m.insert("input".into(), r.input.clone().into());
        m.insert("decision".into(), r.decision.as_str().into());
        m.insert("rule".into(), opt(&r.rule));
        m.insert("hard".into(), r.hard.into());
        m.insert("reason".into(), r.reason.clone().into());
        m.insert(
            "approval".into(),
            r.approval.map_or(Value::Null, |a| a.as_str().into()),
        );
        m.insert("note".into(), opt(&r.note));
        m.insert("outcome".into(), r.outcome.as_str().into());
        m.insert("duration_us".into(), r.duration_us.into());
        m.insert("approval_id".into(), opt(&r.approval_id));
        let line = line_json(RowKind::Request, "t", &r);
        assert_eq!(line, serde_json::to_string(&m).unwrap());
        let (kind, time, back) = parse_line(&line).expect("parses");
        assert_eq!((kind, time.as_str()), (RowKind::Request, "t"));
        assert_eq!(back, r);
    }

    #[test]
    fn a_reviewed_row_carries_its_review_through_a_line() {
        let r = Record {
            session: "s".into(),
            client: None,
            server: None,
            call_id: "c".into(),
            tool: "Bash".into(),
            digest: "d".into(),
            input: "{}".into(),
            decision: Decision::Ask,
            rule: None,
            hard: false,
            reason: "asks".into(),
            approval: None,
            note: None,
            outcome: Outcome::Blocked,
            duration_us: 1,
            approval_id: None,
            review: Some(ReviewRecord {
                model: "gpt-4.1-mini".into(),
                decision: crate::types::ReviewDecision::Deny,
                reason: "pushes to main".into(),
                latency_ms: 412,
            }),
        };
        let line = line_json(RowKind::Request, "t", &r);
        assert!(
            line.contains(r#""reason":"asks","review":{"decision":"deny","latency_ms":412,"model":"gpt-4.1-mini","reason":"pushes to main"},"rule":null"#),
            "{line}"
        );
        let (_, _, back) = parse_line(&line).expect("parses");
        assert_eq!(back, r);
    }
}

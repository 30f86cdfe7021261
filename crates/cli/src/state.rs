//! `toolgate approvals` and `toolgate audit`: the pending-approval queue and
//! the ledger.
//!
//! Everything these print about a call (tool, arguments, session, reason,
//! note) goes through [`shown`]: a terminal escape, a carriage return or a
//! bidi override in a queued call is printed as `\x1b`, `\r`, `\u{202e}`,
//! never acted on, so the line a person approves from is the call. The
//! `--json` forms are written by [`shown::json`]: the same values, with
//! those characters as `\uXXXX`.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use toolgate_tools::BuiltinTools;

use anyhow::anyhow;
use clap::{Args, Subcommand};
use toolgate_gate::approvals::{self, ApproveRequest, Approved};
use toolgate_gate::{Gate, GateOptions, NeverApprover, Outcome, Setup};
use toolgate_store::{ApprovalStatus, RowFilter, Store, shown};

use crate::check::load_policy;
use crate::cli::PolicyArgs;

/// Which database: `--db FILE` when given, else the store hosts use
/// ($TOOLGATE_DATABASE_URL, else the policy's `[state] database`, else the
/// default state directory's SQLite file).
#[derive(Debug, Args)]
pub struct DbArgs {
    /// The SQLite state database (default: $TOOLGATE_DATABASE_URL, else the
    /// policy's `[state] database`, else $TOOLGATE_STATE_DIR/toolgate.db,
    /// else ~/.local/state/toolgate/toolgate.db).
    #[arg(long, value_name = "FILE", global = true)]
    pub db: Option<PathBuf>,
}

impl DbArgs {
    pub(crate) fn open(&self) -> anyhow::Result<Store> {
        let setup = Setup {
            database: self.db.as_ref().map(|p| p.to_string_lossy().into_owned()),
            ..Setup::default()
        };
        let policy = match &self.db {
            Some(_) => None,
            None => policy_for_store(),
        };
        setup
            .open_store(policy.as_ref())
            .map_err(|e| anyhow!("{e}"))
    }
}

/// The policy found from the working directory, for its `[state]
/// database`. A policy that does not load is reported and the state
/// directory's store is used: the queue and the ledger can still be looked
/// at.
fn policy_for_store() -> Option<toolgate_policy::Policy> {
    if std::env::var_os(toolgate_store::DATABASE_URL_ENV).is_some() {
        return None;
    }
    match load_policy(&PolicyArgs {
        policy: None,
        workspace: None,
        mode: None,
    }) {
        Ok(policy) => Some(policy),
        Err(e) => {
            eprintln!("toolgate: warning: {e}; using the state directory's store");
            None
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum ApprovalsCommand {
    /// List the calls waiting for an answer (`--all`: every approval).
    List {
        /// Include answered and finished approvals.
        #[arg(long)]
        all: bool,
        /// One JSON object per line: id, tool, server, client, session,
        /// digest, status, created.
        #[arg(long)]
        json: bool,
    },
    /// Approve a waiting call. A call of toolgate's own tools then runs,
    /// exactly once, after its stored snapshot is checked against its
    /// digest and decided again; a call a hook is waiting on is handed back
    /// to that client, which runs it.
    Approve {
        /// The approval id (from `toolgate approvals list`).
        id: String,
        /// Also allow what the same rule asks for, for the rest of the
        /// session (where the rule allows it).
        #[arg(long)]
        session: bool,
        /// A note recorded with the answer.
        #[arg(long)]
        note: Option<String>,
        /// With a server (`TOOLGATE_SERVER_URL`): approve only if the call's
        /// digest is this one (default: the digest the server shows now).
        #[arg(long, value_name = "SHA256")]
        digest: Option<String>,
        #[command(flatten)]
        policy: PolicyArgs,
    },
    /// Decline a waiting call; the note reaches the model.
    Decline {
        /// The approval id.
        id: String,
        /// Why, for the model and the record.
        #[arg(long)]
        note: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum AuditCommand {
    /// The ledger's rows and totals.
    Show {
        /// Only this session's rows.
        #[arg(long)]
        session: Option<String>,
        /// Only rows of calls to this MCP server (`toolgate mcp --name`).
        #[arg(long, value_name = "SRV")]
        server: Option<String>,
        /// At most this many rows, newest last.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        /// Only rows of calls the reviewer model answered.
        #[arg(long)]
        reviewed: bool,
        /// One JSON object per row.
        #[arg(long)]
        json: bool,
    },
    /// Check the hash chain: exit 0 when intact, 1 naming the first bad row.
    /// It prints the head (`SEQ HASH`): kept somewhere the machine cannot
    /// rewrite and given back with `--expect`, it also catches rows removed
    /// from the end and a chain rewritten whole, which the chain alone
    /// cannot show.
    Verify {
        /// A head printed by an earlier `audit verify`: the ledger must
        /// still hold row SEQ with that hash (repeatable).
        #[arg(long, value_name = "SEQ:HASH")]
        expect: Vec<String>,
    },
}

pub(crate) fn who() -> String {
    let user = std::env::var("USER").unwrap_or_else(|_| "someone".into());
    format!("cli:{user}")
}

pub fn approvals(cmd: ApprovalsCommand, db: &DbArgs) -> anyhow::Result<ExitCode> {
    if let Some(url) = crate::remote::server_url() {
        return crate::remote::approvals(cmd, &url, db.db.as_deref());
    }
    let store = db.open()?;
    let mut out = std::io::stdout().lock();
    match cmd {
        ApprovalsCommand::List { all, json } => {
            let list = if all {
                store.list_approvals(None)
            } else {
                store.list_approvals(Some(ApprovalStatus::Pending))
            }
            .map_err(|e| anyhow!("{e}"))?;
            if json {
                for p in &list {
                    let v = serde_json::json!({
                        "id": p.id, "tool": p.tool,
                        "server": p.server.as_deref().or_else(|| mcp_server(&p.tool)),
                        "client": p.client, "session": p.session, "digest": p.digest,
                        "status": p.status.as_str(), "created": p.created,
                    });
                    writeln!(out, "{}", shown::json(&v))?;
                }
                return Ok(ExitCode::SUCCESS);
            }
            if list.is_empty() {
                writeln!(out, "no {}approvals", if all { "" } else { "pending " })?;
            }
            for p in &list {
                let entry = Listed {
                    id: &p.id,
                    status: p.status.as_str(),
                    created: &p.created,
                    tool: &p.tool,
                    snapshot: &p.snapshot_json,
                    session: &p.session,
                    call_id: &p.call_id,
                    reason: &p.reason,
                };
                writeln!(out, "{entry}")?;
            }
            Ok(ExitCode::SUCCESS)
        }
        ApprovalsCommand::Decline { id, note } => {
            approvals::decline(&store, &id, note.as_deref(), &who()).map_err(|e| anyhow!("{e}"))?;
            writeln!(out, "declined {id}: the call will not run")?;
            Ok(ExitCode::SUCCESS)
        }
        ApprovalsCommand::Approve {
            id,
            session,
            note,
            policy,
            digest,
        } => {
            let who = who();
            let (pending, next) = approvals::approve(
                &store,
                &id,
                ApproveRequest {
                    digest: digest.as_deref(),
                    session,
                    note: note.as_deref(),
                    who: &who,
                },
            )
            .map_err(|e| anyhow!("{}", shown::line(&e.to_string())))?;
            match next {
                Approved::Pinned { server, tool } => {
                    // The server names its own tools: shown escaped.
                    let (tool, server) = (shown::line(&tool), shown::line(&server));
                    writeln!(
                        out,
                        "approved {id}: the new definition of `{tool}` of `{server}` is trusted"
                    )?;
                    return Ok(ExitCode::SUCCESS);
                }
                Approved::HostRuns {
                    server: Some(_), ..
                } => {
                    writeln!(
                        out,
                        "approved {id}: the same call made again through `toolgate mcp` runs, once"
                    )?;
                    return Ok(ExitCode::SUCCESS);
                }
                Approved::HostRuns { client, .. } => {
                    writeln!(
                        out,
                        "approved {id}: the waiting {} hook lets its client run the call",
                        shown::line(client.as_deref().unwrap_or("client"))
                    )?;
                    return Ok(ExitCode::SUCCESS);
                }
                Approved::Resume => {}
            }
            let setup = crate::check::setup(&policy);
            let policy = load_policy(&policy)?;
            let ws = toolgate_tools::Workspace::open(policy.roots(), &policy.tool_read_dirs())
                .map_err(|e| anyhow!("{e}"))?;
            let gate = Gate::new(
                policy,
                Box::new(NeverApprover),
                GateOptions {
                    session: pending.session.clone(),
                    store: Some(store),
                    who,
                    ..GateOptions::default()
                },
            );
            let tools = toolgate_tools::BuiltinOptions {
                proxy_ledger: Some(toolgate_sandbox::ProxyLedger::new(
                    setup.lazy_ledger(gate.shared_policy()),
                )),
                ..toolgate_tools::BuiltinOptions::default()
            };
            let mut gate = gate.with_builtin_tools_opts(ws, tools);
            let r = gate.resume(&id).map_err(|e| anyhow!("{e}"))?;
            for w in gate.take_warnings() {
                eprintln!("toolgate: warning: {}", shown::line(&w));
            }
            writeln!(
                out,
                "approved {id}: {} — {}",
                r.outcome,
                shown::line(&r.call_id)
            )?;
            // What the call printed, or why it did not run: shown, not
            // played to the terminal.
            writeln!(out, "{}", shown::block(&r.content))?;
            Ok(if r.outcome == Outcome::Executed {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}

/// The `SRV` of an MCP tool name `mcp__SRV__TOOL`.
pub(crate) fn mcp_server(tool: &str) -> Option<&str> {
    let (srv, _) = tool.strip_prefix("mcp__")?.split_once("__")?;
    (!srv.is_empty()).then_some(srv)
}

/// The target of a stored call, for the approvals listing: whole (a
/// person approves what they were shown, so nothing is cut: a command
/// padded past any width would hide its end), escaped, in backquotes; a
/// call with no command, path or URL shows its whole input.
pub(crate) fn summary(snapshot: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(snapshot).unwrap_or_default();
    let input = &v["input"];
    for k in ["command", "path", "file_path", "url"] {
        if let Some(s) = input.get(k).and_then(|x| x.as_str()) {
            return format!("`{}`", shown::line(s));
        }
    }
    if input.is_null() {
        return String::new();
    }
    format!("`{}`", shown::line(&input.to_string()))
}

/// One approval as `toolgate approvals list` prints it, from the store or
/// from a server: two lines, every value escaped ([`shown::line`]), so a
/// queued call cannot add lines, move the cursor or reorder what follows.
pub(crate) struct Listed<'a> {
    pub id: &'a str,
    pub status: &'a str,
    pub created: &'a str,
    pub tool: &'a str,
    /// The stored snapshot's JSON (its `input` gives the target).
    pub snapshot: &'a str,
    pub session: &'a str,
    pub call_id: &'a str,
    pub reason: &'a str,
}

impl std::fmt::Display for Listed<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}  {:<9} {}  {} {}  (session {}, call {})\n          why: {}",
            shown::line(self.id),
            shown::line(self.status),
            shown::line(self.created),
            shown::line(self.tool),
            summary(self.snapshot),
            shown::line(self.session),
            shown::line(self.call_id),
            shown::line(self.reason)
        )
    }
}

pub fn audit(cmd: AuditCommand, db: &DbArgs) -> anyhow::Result<ExitCode> {
    let store = db.open()?;
    let mut out = std::io::stdout().lock();
    match cmd {
        AuditCommand::Show {
            session,
            server,
            limit,
            reviewed,
            json,
        } => {
            let mut rows = store
                .rows(&RowFilter {
                    session: session.clone(),
                    server: server.clone(),
                    reviewed,
                    limit: Some(limit),
                    newest_first: true,
                    ..RowFilter::default()
                })
                .map_err(|e| anyhow!("{e}"))?;
            rows.reverse();
            for r in &rows {
                let rec = &r.record;
                if json {
                    let v = serde_json::json!({
                        "seq": r.seq, "kind": r.kind.as_str(), "time": r.time,
                        "session": rec.session, "client": rec.client, "server": rec.server,
                        "call_id": rec.call_id,
                        "tool": rec.tool, "digest": rec.digest, "input": rec.input,
                        "decision": rec.decision.as_str(), "rule": rec.rule, "hard": rec.hard,
                        "reason": rec.reason, "approval": rec.approval.map(|a| a.as_str()),
                        "note": rec.note, "outcome": rec.outcome.as_str(),
                        "duration_us": rec.duration_us, "approval_id": rec.approval_id,
                        "review": rec.review.as_ref().map(|v| serde_json::json!({
                            "model": v.model, "decision": v.decision.as_str(),
                            "reason": v.reason, "latency_ms": v.latency_ms,
                        })),
                        "hash": r.hash,
                    });
                    writeln!(out, "{}", shown::json(&v))?;
                } else {
                    // A table row: long inputs are cut, and say so.
                    let mut input: String = rec.input.chars().take(70).collect();
                    if rec.input.chars().nth(70).is_some() {
                        input.push('…');
                    }
                    writeln!(
                        out,
                        "{:>5} {} {:<10} {:<5} {:<9} {:<14} {} {}{}{}",
                        r.seq,
                        shown::line(&r.time),
                        shown::line(&rec.tool),
                        rec.decision.as_str(),
                        rec.outcome.as_str(),
                        shown::line(rec.rule.as_deref().unwrap_or("(default)")),
                        shown::line(&input),
                        rec.approval
                            .map(|a| format!(" [{}]", a.as_str()))
                            .unwrap_or_default(),
                        rec.note
                            .as_deref()
                            .map(|n| format!(" note: {}", shown::line(n)))
                            .unwrap_or_default(),
                        rec.review
                            .as_ref()
                            .map(|v| format!(" [reviewed: {}]", v.decision.as_str()))
                            .unwrap_or_default()
                    )?;
                    if let Some(v) = &rec.review {
                        writeln!(
                            out,
                            "      review: {} by {} ({} ms): {}",
                            v.decision.as_str(),
                            shown::line(&v.model),
                            v.latency_ms,
                            shown::line(&v.reason)
                        )?;
                    }
                }
            }
            let t = match &session {
                Some(s) => store.session_totals(s),
                None => store.totals(),
            }
            .map_err(|e| anyhow!("{e}"))?;
            if !json {
                writeln!(
                    out,
                    "totals: {} requests, {} prompts, {} executions, {} blocked, {} waiting, {} failed, {} passed to a client",
                    t.requests, t.prompts, t.executions, t.blocked, t.waiting, t.failed, t.passed
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
        AuditCommand::Verify { expect } => {
            let mut expected = Vec::with_capacity(expect.len());
            for e in &expect {
                let parsed = e
                    .split_once([':', ' '])
                    .and_then(|(seq, hash)| Some((seq.trim().parse::<u64>().ok()?, hash.trim())))
                    .filter(|(seq, hash)| *seq > 0 && !hash.is_empty());
                match parsed {
                    Some(p) => expected.push(p),
                    None => {
                        return Err(anyhow!(
                            "--expect `{e}`: give SEQ:HASH as `audit verify` printed the head"
                        ));
                    }
                }
            }
            let report = store.verify().map_err(|e| anyhow!("{e}"))?;
            let head = store.head().map_err(|e| anyhow!("{e}"))?;
            if let Some(p) = &report.problem {
                writeln!(
                    out,
                    "{}: ledger NOT intact: first bad row {}: {p}",
                    store.path().display(),
                    p.seq,
                )?;
                return Ok(ExitCode::from(1));
            }
            for (seq, hash) in expected {
                let rows = store
                    .rows(&RowFilter {
                        after_seq: Some(seq - 1),
                        limit: Some(1),
                        ..RowFilter::default()
                    })
                    .map_err(|e| anyhow!("{e}"))?;
                let found = rows.first().filter(|r| r.seq == seq);
                if found.is_none_or(|r| !r.hash.eq_ignore_ascii_case(hash)) {
                    writeln!(
                        out,
                        "{}: ledger NOT intact: row {seq} {}, where an earlier head was {}",
                        store.path().display(),
                        match found {
                            Some(r) => format!("has the hash {}", r.hash),
                            None => "is gone".to_string(),
                        },
                        shown::line(hash)
                    )?;
                    return Ok(ExitCode::from(1));
                }
            }
            writeln!(
                out,
                "{}: ledger intact: {} rows, head {} {}",
                store.path().display(),
                report.rows,
                head.seq,
                head.hash
            )?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

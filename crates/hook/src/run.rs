//! One hook call from input to answer: parse, decide, ask if need be,
//! record, reply. The body of `toolgate hook claude` and `toolgate hook
//! gemini`, kept here so that tests can drive it without a process.
//!
//! Both clients let a call run when the hook crashes, hangs or prints
//! something they do not understand (see `PROTOCOL.md`). So nothing in this
//! module may end without a reply: every error becomes the client's
//! blocking [`claude::failure`] or [`gemini::failure`], and a panic is
//! caught and turned into one as well.

use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use toolgate_policy::{Call, Client, Context, Decision, Effect, LoadOptions, Mode, Policy};
use toolgate_store::{
    Answer, ApprovalAnswer, ApprovalStatus, DB_FILE_NAME, Outcome, Pending, PendingNew, Record,
    Store,
};

use crate::{ClaudeInput, ClaudePermissionMode, GeminiInput, HookReply, Permission};
use crate::{claude, gemini};

/// How long `--approver queue` waits for an answer by default: under the
/// 60 seconds after which both clients give up on a hook and let the call
/// run.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(30);

/// Who answers a call that the policy asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approver {
    /// The client itself: Claude Code shows its own permission prompt.
    /// Gemini CLI cannot ask from a hook without hanging a headless run,
    /// so there the call is refused with a reason that says how to allow it.
    Client,
    /// toolgate's approval queue: the call is stored as a pending approval
    /// and the hook waits up to `wait` for a person to answer it with
    /// `toolgate approvals approve|decline ID`. No answer in time is a
    /// refusal.
    Queue {
        /// How long to wait before refusing.
        wait: Duration,
    },
}

/// Settings of one hook run, from the command line.
#[derive(Debug, Clone)]
pub struct HookOptions {
    /// `--policy`: the policy file. Default: `$TOOLGATE_POLICY`, else the
    /// nearest `toolgate.toml` walking up from the call's `cwd`, else the
    /// built-in policy rooted at that `cwd`.
    pub policy: Option<PathBuf>,
    /// Who answers calls the policy asks about.
    pub approver: Approver,
    /// The state directory holding `toolgate.db`. Default: the store's own
    /// (`$TOOLGATE_STATE_DIR`, else `~/.local/state/toolgate`). The policy
    /// is told the same directory, so that writes to it are denied.
    pub state_dir: Option<PathBuf>,
    /// How often a waiting hook looks for an answer.
    pub poll: Duration,
}

impl Default for HookOptions {
    fn default() -> HookOptions {
        HookOptions {
            policy: None,
            approver: Approver::Client,
            state_dir: None,
            poll: Duration::from_millis(200),
        }
    }
}

/// Answers one Claude Code `PreToolUse` hook input (the bytes read from
/// standard input).
///
/// The reply is always one Claude Code honours: the `hookSpecificOutput`
/// object on exit 0 for a decision, or exit 2 with the reason on standard
/// error when no decision could be made (unreadable input or policy, a
/// panic), which blocks the call.
pub fn claude_hook(stdin: &[u8], opts: &HookOptions) -> HookReply {
    guard(claude::failure, || {
        let input = match text(stdin).and_then(|t| ClaudeInput::parse(t).map_err(blocked)) {
            Ok(input) => input,
            Err(message) => return claude::failure(&message),
        };
        let client_mode = match input.permission_mode {
            ClaudePermissionMode::Plan => Some(Mode::Plan),
            ClaudePermissionMode::DontAsk => Some(Mode::DontAsk),
            // Looser modes never loosen toolgate's decision, and an
            // unknown mode cannot be trusted to tighten it.
            _ => None,
        };
        let mut call = Call::new(input.tool_name, Value::Object(input.tool_input));
        if let Some(id) = input.tool_use_id {
            call.id = id;
        }
        call.client = Client::Claude;
        call.cwd = Some(input.cwd);
        let job = Job {
            call,
            session: input.session_id,
            client_mode,
            host: Host::Claude,
        };
        match job.run(opts) {
            Ok(verdict) => {
                let mut reply = claude::reply(verdict.permission, &verdict.reason);
                reply.stderr = verdict.warnings;
                reply
            }
            Err(message) => claude::failure(&message),
        }
    })
}

/// Answers one Gemini CLI `BeforeTool` hook input (the bytes read from
/// standard input).
///
/// The reply is always one Gemini CLI honours: a `decision` object on
/// standard output, which on failure is a deny together with exit 2 (exit 2
/// alone would let the call run). Gemini CLI sends no call id, so the call
/// gets a fresh one.
pub fn gemini_hook(stdin: &[u8], opts: &HookOptions) -> HookReply {
    guard(gemini::failure, || {
        let input = match text(stdin).and_then(|t| GeminiInput::parse(t).map_err(blocked)) {
            Ok(input) => input,
            Err(message) => return gemini::failure(&message),
        };
        let mut call = Call::new(input.tool_name, Value::Object(input.tool_input));
        call.client = Client::Gemini;
        call.cwd = Some(input.cwd);
        let job = Job {
            call,
            session: input.session_id,
            client_mode: None,
            host: Host::Gemini,
        };
        match job.run(opts) {
            Ok(verdict) => {
                let mut reply = gemini::reply(verdict.permission, &verdict.reason);
                reply.stderr = verdict.warnings;
                reply
            }
            Err(message) => gemini::failure(&message),
        }
    })
}

/// Runs `body`, turning a panic into `failure`: a hook that dies lets the
/// call run, so it must not die.
fn guard(failure: fn(&str) -> HookReply, body: impl FnOnce() -> HookReply) -> HookReply {
    match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(reply) => reply,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".to_owned());
            failure(&format!(
                "toolgate: internal error ({what}); the call was blocked"
            ))
        }
    }
}

fn text(stdin: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(stdin)
        .map_err(|e| format!("toolgate: hook input is not UTF-8 ({e}); the call was blocked"))
}

fn blocked(e: crate::InputError) -> String {
    format!("toolgate: {e}; the call was blocked")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Host {
    Claude,
    Gemini,
}

impl Host {
    fn name(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Gemini => "gemini",
        }
    }
}

/// One call to decide, with what the hook input says about its session.
struct Job {
    call: Call,
    session: String,
    client_mode: Option<Mode>,
    host: Host,
}

/// The answer to send, and warnings for standard error.
struct Verdict {
    permission: Permission,
    reason: String,
    warnings: String,
}

impl Job {
    /// Decides the call, asks where the policy says so, and records it.
    /// `Err` is a message for the client's failure reply: no decision.
    fn run(&self, opts: &HookOptions) -> Result<Verdict, String> {
        let started = Instant::now();
        let cwd = self.call.cwd.as_deref().unwrap_or(Path::new("/"));
        let load = LoadOptions {
            state_dir: opts.state_dir.clone(),
            ..LoadOptions::default()
        };
        let policy = Policy::discover(opts.policy.as_deref(), cwd, &load)
            .map_err(|e| format!("toolgate: cannot load the policy: {e}; the call was blocked"))?;

        let mut warnings = String::new();
        let store = match open_store(opts.state_dir.as_deref()) {
            Ok(store) => Some(store),
            Err(e) => {
                warn(&mut warnings, format!("the ledger cannot be opened ({e})"));
                None
            }
        };
        // Grants only ever lift an ask, so deciding without them when they
        // cannot be read is the safe side.
        let grants: Vec<String> = match store.as_ref().map(|s| s.grants(&self.session)) {
            Some(Ok(grants)) => grants.into_iter().map(|g| g.rule).collect(),
            Some(Err(e)) => {
                warn(
                    &mut warnings,
                    format!("session grants cannot be read ({e})"),
                );
                Vec::new()
            }
            None => Vec::new(),
        };
        let ctx = Context {
            mode: None,
            client_mode: self.client_mode,
            grants: &grants,
            trace: false,
        };
        let decision = policy
            .decide_in(&self.call, &ctx)
            .with_digest(self.call.digest());

        let mut turn = Turn {
            job: self,
            decision: &decision,
            store: store.as_ref(),
            started,
            warnings,
        };
        let (permission, reason) = match decision.decision {
            Effect::Allow => {
                turn.record(None, Outcome::Passed, None, None);
                (Permission::Allow, format!("toolgate: {}", decision.reason))
            }
            Effect::Deny => {
                turn.record(None, Outcome::Blocked, None, None);
                (Permission::Deny, refusal(&decision))
            }
            Effect::Ask => match (opts.approver, self.host) {
                (Approver::Client, Host::Claude) => {
                    // Claude Code's own prompt answers; toolgate never learns
                    // the answer, so the call is recorded as handed over.
                    turn.record(None, Outcome::Passed, None, None);
                    (Permission::Ask, format!("toolgate: {}", decision.reason))
                }
                (Approver::Client, Host::Gemini) => {
                    turn.record(None, Outcome::Blocked, None, None);
                    (Permission::Deny, cannot_ask(&decision, policy.file()))
                }
                (Approver::Queue { wait }, _) => turn.queue(wait, opts.poll),
            },
        };
        Ok(Verdict {
            permission,
            reason,
            warnings: turn.warnings,
        })
    }
}

/// A decided call on its way to the ledger.
struct Turn<'a> {
    job: &'a Job,
    decision: &'a Decision,
    store: Option<&'a Store>,
    started: Instant,
    warnings: String,
}

impl Turn<'_> {
    fn record_for(
        &self,
        approval: Option<ApprovalAnswer>,
        outcome: Outcome,
        note: Option<String>,
        approval_id: Option<String>,
    ) -> Record {
        let d = self.decision;
        Record {
            session: self.job.session.clone(),
            client: Some(self.job.host.name().to_owned()),
            call_id: self.job.call.id.clone(),
            tool: self.job.call.tool.clone(),
            digest: d.digest.clone().unwrap_or_else(|| self.job.call.digest()),
            input: Value::Object(self.job.call.input.clone()).to_string(),
            decision: match d.decision {
                Effect::Allow => toolgate_store::Decision::Allow,
                Effect::Ask => toolgate_store::Decision::Ask,
                Effect::Deny => toolgate_store::Decision::Deny,
            },
            rule: d.rule.clone(),
            hard: d.hard,
            reason: d.reason.clone(),
            approval,
            note,
            outcome,
            duration_us: u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX),
            approval_id,
        }
    }

    /// Appends the call's request row. A ledger that fails does not change
    /// the answer (the decision stands); it is reported on standard error.
    fn record(
        &mut self,
        approval: Option<ApprovalAnswer>,
        outcome: Outcome,
        note: Option<String>,
        approval_id: Option<String>,
    ) {
        let Some(store) = self.store else {
            warn(&mut self.warnings, "the call was not recorded".to_owned());
            return;
        };
        let record = self.record_for(approval, outcome, note, approval_id);
        if let Err(e) = store.append(&record) {
            warn(
                &mut self.warnings,
                format!("the call was not recorded ({e})"),
            );
        }
    }

    /// `--approver queue`: stores a pending approval and waits for a person
    /// to answer it. Only an explicit approval allows; anything else,
    /// including the queue failing, refuses.
    fn queue(&mut self, wait: Duration, poll: Duration) -> (Permission, String) {
        let d = self.decision;
        let Some(store) = self.store else {
            return (
                Permission::Deny,
                format!(
                    "toolgate: {}; it needs a person's approval, but the approval queue cannot be \
                     opened, so the call was not executed",
                    d.reason
                ),
            );
        };
        let queue_failed = |e: toolgate_store::Error| {
            (
                Permission::Deny,
                format!(
                    "toolgate: {}; it needs a person's approval, but the approval queue failed \
                     ({e}), so the call was not executed",
                    d.reason
                ),
            )
        };

        match self.approved_earlier(store) {
            Ok(Some(approval)) => return self.pick_up(store, &approval),
            Ok(None) => {}
            Err(e) => return queue_failed(e),
        }

        let request = self.record_for(
            Some(ApprovalAnswer::Unanswered),
            Outcome::Waiting,
            None,
            None,
        );
        let pending = PendingNew {
            session: self.job.session.clone(),
            client: request.client.clone(),
            call_id: request.call_id.clone(),
            tool: request.tool.clone(),
            snapshot_json: self.job.call.canonical_json(),
            digest: request.digest.clone(),
            reason: d.reason.clone(),
            rule: d.rule.clone(),
            remember_allowed: d.remember,
        };
        let id = match store.append_waiting(&request, &pending) {
            Ok(queued) => queued.id,
            Err(e) => return queue_failed(e),
        };

        let deadline = Instant::now() + wait;
        loop {
            let approval = match store.approval(&id) {
                Ok(Some(approval)) => approval,
                Ok(None) => {
                    return (
                        Permission::Deny,
                        format!(
                            "toolgate: {}; its pending approval `{id}` disappeared from the queue, \
                             so the call was not executed",
                            d.reason
                        ),
                    );
                }
                Err(e) => return queue_failed(e),
            };
            match approval.status {
                ApprovalStatus::Pending => {}
                ApprovalStatus::Approved => return self.run_approved(store, &approval),
                // An expired approval reads "declined by expiry ... expired: no answer".
                ApprovalStatus::Declined | ApprovalStatus::Expired => {
                    return (Permission::Deny, declined(d, &approval));
                }
                ApprovalStatus::Executing | ApprovalStatus::Done => {
                    return (Permission::Deny, used_elsewhere(d, &id));
                }
            }
            let now = Instant::now();
            if now >= deadline {
                return (Permission::Deny, still_pending(d, &id, wait));
            }
            std::thread::sleep(poll.min(deadline - now));
        }
    }

    /// A person approved the call this hook queued: take it (exactly one
    /// process can), mark it handed to the client, and allow.
    fn run_approved(&mut self, store: &Store, approval: &Pending) -> (Permission, String) {
        let d = self.decision;
        match store.claim_for_execution(&approval.id) {
            Ok(Some(claimed)) => {
                self.grant_session(store, &claimed);
                let duration =
                    u64::try_from(self.started.elapsed().as_micros()).unwrap_or(u64::MAX);
                if let Err(e) = store.finish(&claimed.id, Outcome::Passed, duration) {
                    warn(
                        &mut self.warnings,
                        format!("the approved call was not recorded ({e})"),
                    );
                }
                (Permission::Allow, approved(d, &claimed))
            }
            Ok(None) => (Permission::Deny, used_elsewhere(d, &approval.id)),
            Err(e) => (
                Permission::Deny,
                format!(
                    "toolgate: {}; it was approved as `{}`, but the approval could not be taken \
                     ({e}), so the call was not executed",
                    d.reason, approval.id
                ),
            ),
        }
    }

    /// An approval that a person gave after an earlier hook stopped waiting
    /// for it, for a call identical to this one (same session, client, tool,
    /// input and directory; only the call id differs, as it does on every
    /// retry). Its stored snapshot must still match its digest.
    fn approved_earlier(&self, store: &Store) -> Result<Option<Pending>, toolgate_store::Error> {
        let call = &self.job.call;
        let found = store
            .list_approvals(Some(ApprovalStatus::Approved))?
            .into_iter()
            .find(|p| {
                p.session == self.job.session
                    && p.client.as_deref() == Some(self.job.host.name())
                    && p.tool == call.tool
                    && Call::parse(&p.snapshot_json).is_ok_and(|snapshot| {
                        snapshot.digest() == p.digest
                            && snapshot.client == call.client
                            && snapshot.input == call.input
                            && snapshot.cwd == call.cwd
                    })
            });
        Ok(found)
    }

    /// Runs this call on an approval given after an earlier identical call
    /// stopped waiting.
    ///
    /// The approval's resolution row is about that earlier call, which the
    /// client was told was refused: it says `blocked`. This call's own row
    /// says `passed` and links to the approval. So each call counts once in
    /// the ledger's totals, where it really ended.
    fn pick_up(&mut self, store: &Store, approval: &Pending) -> (Permission, String) {
        let d = self.decision;
        match store.claim_for_execution(&approval.id) {
            Ok(Some(claimed)) => {
                self.grant_session(store, &claimed);
                if let Err(e) = store.finish(&claimed.id, Outcome::Blocked, 0) {
                    warn(
                        &mut self.warnings,
                        format!("the approval's resolution was not recorded ({e})"),
                    );
                }
                self.record(
                    claimed.answer.map(ApprovalAnswer::from),
                    Outcome::Passed,
                    claimed.note.clone(),
                    Some(claimed.id.clone()),
                );
                (Permission::Allow, approved(d, &claimed))
            }
            Ok(None) => (Permission::Deny, used_elsewhere(d, &approval.id)),
            Err(e) => (
                Permission::Deny,
                format!(
                    "toolgate: {}; an approval for it (`{}`) could not be taken ({e}), so the \
                     call was not executed",
                    d.reason, approval.id
                ),
            ),
        }
    }

    /// A "for this session" answer: the store granted the rule that asked;
    /// every other rule the decision named as grantable is granted too, so
    /// that the same call does not ask again.
    fn grant_session(&mut self, store: &Store, approval: &Pending) {
        if approval.answer != Some(Answer::Session) {
            return;
        }
        for rule in &self.decision.grant_rules {
            if let Err(e) = store.grant(&self.job.session, rule) {
                warn(
                    &mut self.warnings,
                    format!("rule `{rule}` was not granted for the session ({e})"),
                );
            }
        }
    }
}

fn open_store(state_dir: Option<&Path>) -> Result<Store, String> {
    match state_dir {
        None => Store::open_default().map_err(|e| e.to_string()),
        Some(dir) => {
            let mut builder = std::fs::DirBuilder::new();
            builder.recursive(true);
            #[cfg(unix)]
            std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
            builder.create(dir).map_err(|e| {
                format!(
                    "`{}`: cannot create the state directory: {e}",
                    dir.display()
                )
            })?;
            Store::open(dir.join(DB_FILE_NAME)).map_err(|e| e.to_string())
        }
    }
}

fn warn(warnings: &mut String, message: String) {
    warnings.push_str("toolgate: warning: ");
    warnings.push_str(&message);
    warnings.push('\n');
}

/// What the model reads for a deny: what was refused, that it did not run,
/// and not to try the same thing again.
fn refusal(d: &Decision) -> String {
    let limit = if d.hard {
        " This is a hard limit: no rule or approval can allow it."
    } else {
        ""
    };
    format!(
        "toolgate: {}. The call was not executed.{limit} Do not retry it as it is: change \
         approach, or explain to the user what you need.",
        d.reason
    )
}

/// Gemini CLI's ask: refused, with the two ways to let such calls run.
fn cannot_ask(d: &Decision, policy_file: Option<&Path>) -> String {
    let file = policy_file
        .map(|f| format!("`{}`", f.display()))
        .unwrap_or_else(|| "a `toolgate.toml`".to_owned());
    format!(
        "toolgate: {}. Gemini CLI cannot ask a person from a hook, so the call was not executed. \
         To allow it, add an allow rule to {file}, or register the hook as `toolgate hook gemini \
         --approver queue --wait SECS` and approve with `toolgate approvals approve ID`. Do not \
         retry it as it is until then.",
        d.reason
    )
}

fn approved(d: &Decision, approval: &Pending) -> String {
    let by = approval
        .answered_by
        .as_deref()
        .map(|who| format!(" by {who}"))
        .unwrap_or_default();
    let scope = if approval.answer == Some(Answer::Session) {
        " for this session"
    } else {
        ""
    };
    format!(
        "toolgate: {}; approved{by}{scope} (approval `{}`)",
        d.reason, approval.id
    )
}

fn declined(d: &Decision, approval: &Pending) -> String {
    let by = approval
        .answered_by
        .as_deref()
        .map(|who| format!(" by {who}"))
        .unwrap_or_default();
    let note = approval
        .note
        .as_deref()
        .filter(|n| !n.trim().is_empty())
        .map(|n| format!(" with the note: {n}."))
        .unwrap_or_else(|| ".".to_owned());
    format!(
        "toolgate: {}; declined{by} (approval `{}`){note} The call was not executed. Do not \
         retry it as it is: change approach, or ask the user.",
        d.reason, approval.id
    )
}

fn still_pending(d: &Decision, id: &str, wait: Duration) -> String {
    format!(
        "toolgate: {}. No one answered within {} s, so the call was not executed; it is still \
         pending as approval `{id}`. A person can approve it with `toolgate approvals approve \
         {id}` (or decline it with `toolgate approvals decline {id}`); once approved, the same \
         call made again in this session runs.",
        d.reason,
        wait.as_secs()
    )
}

fn used_elsewhere(d: &Decision, id: &str) -> String {
    format!(
        "toolgate: {}; its approval `{id}` was already used by another call, so this one was \
         not executed",
        d.reason
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_clients_blocking_failure() {
        let reply = guard(claude::failure, || panic!("boom"));
        assert_eq!((reply.exit_code, reply.stdout.as_str()), (2, ""));
        assert!(reply.stderr.contains("internal error (boom)"), "{reply:?}");

        let reply = guard(gemini::failure, || panic!("{}", String::from("bang")));
        assert_eq!(reply.exit_code, 2);
        assert!(
            reply.stdout.starts_with(r#"{"decision":"deny""#),
            "{reply:?}"
        );
        assert!(reply.stdout.contains("internal error (bang)"), "{reply:?}");
    }
}

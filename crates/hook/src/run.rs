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
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use toolgate_gate::{
    Gate, GateOptions, HostApprover, Patience, ProjectSeenFn, Requests, Setup, UnavailableApprover,
    Verdict as GateVerdict, WaitingApprover, texts,
};
use toolgate_policy::{Call, Client, Mode, Policy};

use crate::codex::{CodexEvent, CodexInput};
use crate::{ClaudeInput, ClaudePermissionMode, GeminiInput, HookReply, Permission};
use crate::{claude, codex, gemini};

/// How long `--approver queue` waits for an answer by default: under the
/// 60 seconds after which both clients give up on a hook and let the call
/// run.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(30);

/// Who answers a call that the policy asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerBy {
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
    pub approver: AnswerBy,
    /// The state directory holding `toolgate.db`. Default: the store's own
    /// (`$TOOLGATE_STATE_DIR`, else `~/.local/state/toolgate`). The policy
    /// is told the same directory, so that writes to it are denied.
    pub state_dir: Option<PathBuf>,
    /// How often a waiting hook looks for an answer.
    pub poll: Duration,
    /// `--sandbox`: an allowed shell command is answered with the client's
    /// input rewrite so that it runs as `TOOLGATE sandbox --policy F --
    /// bash -c '<the exact command>'`, TOOLGATE being this path (the
    /// toolgate executable). The ledger row records the rewritten command
    /// beside the original; the decision stays bound to the original.
    pub sandbox: Option<PathBuf>,
    /// `--workspace`: the directory the project policy is found from,
    /// whatever directory the agent has moved to (see `anchor.rs` for the
    /// order of the other sources).
    pub workspace: Option<PathBuf>,
    /// The directory the client started the hook process in, for a client
    /// that starts its hooks in the session's directory while the input's
    /// `cwd` is a directory the model names (Codex CLI: a command's
    /// `workdir` becomes the input's `cwd`, so the session's first call
    /// could otherwise choose which `toolgate.toml` governs the session).
    /// The project policy is found from here when neither `--workspace`
    /// nor the client's project directory variable says where.
    pub launch_dir: Option<PathBuf>,
}

impl Default for HookOptions {
    fn default() -> HookOptions {
        HookOptions {
            policy: None,
            approver: AnswerBy::Client,
            state_dir: None,
            poll: Duration::from_millis(200),
            sandbox: None,
            workspace: None,
            launch_dir: None,
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
///
/// Grok Build runs the hooks of Claude Code's settings with a payload of
/// its own (`hookEventName`, camelCase): such an input is answered as
/// [`crate::grok::grok_hook`] answers it, in Grok's words.
pub fn claude_hook(stdin: &[u8], opts: &HookOptions) -> HookReply {
    if crate::grok::is_grok(stdin) {
        return crate::grok::grok_hook(stdin, opts);
    }
    guard(claude::failure, || {
        let input = match text(stdin).and_then(|t| ClaudeInput::parse(t).map_err(blocked)) {
            Ok(input) => input,
            Err(message) => return claude::failure(&message.to_string()),
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
            requests: input
                .transcript_path
                .map_or(Requests::None, Requests::ClaudeTranscript),
            workspace_root: None,
        };
        match job.run(opts) {
            Ok(verdict) => {
                let mut reply = claude::reply_with_input(
                    verdict.permission,
                    &verdict.reason,
                    verdict.updated_input.as_ref(),
                );
                reply.stderr = verdict.warnings;
                reply
            }
            Err(message) => claude::failure(&message.to_string()),
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
            Err(message) => return gemini::failure(&message.to_string()),
        };
        // An MCP tool arrives as `mcp_SERVER_TOOL`, which cannot be split
        // back when a name holds `_`; its context names both, and the call
        // is named as every other host names it, so that the same rules
        // and `[tool.mcp__…]` declarations apply.
        let tool = match &input.mcp {
            Some(mcp) => format!("mcp__{}__{}", mcp.server_name, mcp.tool_name),
            None => input.tool_name,
        };
        let mut call = Call::new(tool, Value::Object(input.tool_input));
        call.client = Client::Gemini;
        call.cwd = Some(input.cwd);
        let job = Job {
            call,
            session: input.session_id,
            client_mode: None,
            host: Host::Gemini,
            requests: Requests::None,
            workspace_root: None,
        };
        match job.run(opts) {
            Ok(verdict) => {
                let mut reply = gemini::reply_with_input(
                    verdict.permission,
                    &verdict.reason,
                    verdict.updated_input.as_ref(),
                );
                reply.stderr = verdict.warnings;
                reply
            }
            Err(message) => gemini::failure(&message.to_string()),
        }
    })
}

/// Answers one Codex CLI `PreToolUse` or `PermissionRequest` hook input
/// (the bytes read from standard input).
///
/// The reply is always one Codex honours: for a decision, the event's
/// JSON on exit 0 (nothing for a call `PreToolUse` lets go on); when no
/// decision could be made, exit 2 with the reason on standard error, which
/// both events take as a refusal.
pub fn codex_hook(stdin: &[u8], opts: &HookOptions) -> HookReply {
    guard(codex::failure, || {
        let input = match text(stdin).and_then(|t| CodexInput::parse(t).map_err(blocked)) {
            Ok(input) => input,
            Err(message) => return codex::failure(&message.to_string()),
        };
        let client_mode = match input.permission_mode.as_deref() {
            Some("plan") => Some(Mode::Plan),
            Some("dontAsk") => Some(Mode::DontAsk),
            _ => None,
        };
        let mut call = Call::new(input.tool_name, Value::Object(input.tool_input));
        if let Some(id) = input.tool_use_id {
            call.id = id;
        }
        call.client = Client::Codex;
        call.cwd = Some(input.cwd);
        let job = Job {
            call,
            session: input.session_id,
            client_mode,
            host: Host::Codex(input.event),
            requests: Requests::None,
            workspace_root: None,
        };
        match job.run(opts) {
            Ok(verdict) => {
                let mut reply = codex::reply(input.event, verdict.permission, &verdict.reason);
                reply.stderr = verdict.warnings;
                reply
            }
            Err(message) => codex::failure(&message.to_string()),
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

/// Why a hook call got no decision: the client's failure reply says this,
/// and the call is blocked.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    /// The payload is not text.
    #[error("toolgate: hook input is not UTF-8 ({0}); the call was blocked")]
    NotUtf8(#[source] std::str::Utf8Error),
    /// The payload is not the client's hook input.
    #[error("toolgate: {0}; the call was blocked")]
    Input(#[source] crate::InputError),
    /// The policy did not load.
    #[error("toolgate: {0}; the call was blocked")]
    Policy(#[source] toolgate_gate::HostError),
    /// `--sandbox` for a client whose shell commands cannot be rewritten.
    #[error(
        "toolgate: `--sandbox` cannot rewrite {0}'s commands, so it would run them \
         unsandboxed; the call was blocked (register the hook without `--sandbox`)"
    )]
    SandboxUnsupported(String),
    /// The command cannot be wrapped in the sandbox (the sandbox's words).
    #[error("toolgate: the command cannot run in the sandbox ({0}); the call was blocked")]
    SandboxCommand(String),
}

fn text(stdin: &[u8]) -> Result<&str, Failure> {
    std::str::from_utf8(stdin).map_err(Failure::NotUtf8)
}

fn blocked(e: crate::InputError) -> Failure {
    Failure::Input(e)
}

/// The host a hook call came from, with what changes how it is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Host {
    Claude,
    Gemini,
    Codex(CodexEvent),
    Qwen,
    Copilot,
    /// Pi, and whether the session has a UI to ask the person in.
    Pi {
        can_ask: bool,
    },
    OpenCode,
    Grok,
    Cursor(crate::cursor::CursorEvent),
}

impl Host {
    pub(crate) fn client(self) -> Client {
        match self {
            Host::Claude => Client::Claude,
            Host::Gemini => Client::Gemini,
            Host::Codex(_) => Client::Codex,
            Host::Qwen => Client::Qwen,
            Host::Copilot => Client::Copilot,
            Host::Pi { .. } => Client::Pi,
            Host::OpenCode => Client::OpenCode,
            Host::Grok => Client::Grok,
            Host::Cursor(_) => Client::Cursor,
        }
    }

    /// Who answers an ask with `--approver client`: the host's own prompt
    /// where the host really asks the person (Claude Code; Codex's
    /// `PermissionRequest`, which Codex raises to ask; Pi with a UI, where
    /// toolgate's extension asks; Cursor's shell, MCP and tool events),
    /// else no one: the call is refused with how to allow it.
    fn client_approver(self, policy: &Policy) -> Box<dyn toolgate_gate::Approver> {
        use crate::cursor::CursorEvent;
        let unavailable = |product: &str| -> Box<dyn toolgate_gate::Approver> {
            Box::new(UnavailableApprover {
                why: texts::cannot_ask_why(product, policy.file()),
            })
        };
        match self {
            Host::Claude
            | Host::Codex(CodexEvent::PermissionRequest)
            | Host::Pi { can_ask: true }
            | Host::Cursor(CursorEvent::Shell | CursorEvent::Mcp | CursorEvent::Tool) => {
                Box::new(HostApprover)
            }
            Host::Gemini => unavailable("Gemini CLI"),
            Host::Codex(CodexEvent::PreToolUse) => unavailable("Codex CLI's PreToolUse hook"),
            Host::Qwen => unavailable("Qwen Code's PreToolUse hook"),
            Host::Copilot => unavailable("Copilot CLI's preToolUse hook"),
            Host::Pi { can_ask: false } => unavailable("Pi without a UI"),
            Host::OpenCode => unavailable("OpenCode's plugin hook"),
            Host::Grok => unavailable("Grok Build's PreToolUse hook"),
            Host::Cursor(CursorEvent::ReadFile) => unavailable("Cursor's beforeReadFile hook"),
        }
    }

    /// The host's shell tool whose `command` `--sandbox` rewrites, where
    /// the host runs a rewritten input.
    pub(crate) fn shell_tool(self) -> Option<&'static str> {
        match self {
            Host::Claude => Some("Bash"),
            Host::Gemini => Some("run_shell_command"),
            Host::Pi { .. } | Host::OpenCode => Some("bash"),
            _ => None,
        }
    }
}

/// Answers one hook input: `parse` reads it, `job` makes the call to
/// decide, `reply` renders the verdict in the host's words. Every way this
/// can fail (bad input, no decision, a panic) ends in `failure`.
pub(crate) fn serve<I>(
    stdin: &[u8],
    opts: &HookOptions,
    failure: fn(&str) -> HookReply,
    parse: impl FnOnce(&str) -> Result<I, crate::InputError>,
    job: impl FnOnce(&I) -> Job,
    reply: impl FnOnce(&I, &Verdict) -> HookReply,
) -> HookReply {
    guard(failure, || {
        let input = match text(stdin).and_then(|t| parse(t).map_err(blocked)) {
            Ok(input) => input,
            Err(message) => return failure(&message.to_string()),
        };
        match job(&input).run(opts) {
            Ok(verdict) => {
                let mut answer = reply(&input, &verdict);
                answer.stderr = verdict.warnings;
                answer
            }
            Err(message) => failure(&message.to_string()),
        }
    })
}

/// The longest a review may take in a hook, whatever the policy says: well
/// within every client's hook timeout (`hook install` registers 30 s or
/// more; Claude Code and Gemini CLI default to 60 s), since most clients
/// run the call when the hook does not answer in time. A review cut short
/// goes to the person.
pub const REVIEW_BUDGET: std::time::Duration = std::time::Duration::from_secs(20);

/// One call to decide, with what the hook input says about its session.
pub(crate) struct Job {
    pub(crate) call: Call,
    pub(crate) session: String,
    pub(crate) client_mode: Option<Mode>,
    pub(crate) host: Host,
    /// Where the reviewer reads the person's own requests.
    pub(crate) requests: Requests,
    /// The workspace root the client names in its input (Grok Build's
    /// `workspaceRoot`, Cursor's first `workspace_roots`): the project
    /// policy is found from there, not from the call's `cwd`.
    pub(crate) workspace_root: Option<PathBuf>,
}

impl Job {
    /// A call of `host`'s tool `tool` with `input`, made in `cwd` in
    /// `session`; `id` is the host's call id, when it sends one.
    pub(crate) fn new(
        host: Host,
        session: String,
        cwd: PathBuf,
        tool: String,
        input: Map<String, Value>,
        id: Option<String>,
    ) -> Job {
        let mut call = Call::new(tool, Value::Object(input));
        if let Some(id) = id {
            call.id = id;
        }
        call.client = host.client();
        call.cwd = Some(cwd);
        Job {
            call,
            session,
            client_mode: None,
            host,
            requests: Requests::None,
            workspace_root: None,
        }
    }

    /// The call, with the workspace root its client names.
    pub(crate) fn in_workspace(mut self, root: Option<PathBuf>) -> Job {
        self.workspace_root = root;
        self
    }
}

/// A shell command wrapped to run under `toolgate sandbox`: the command
/// line, and the whole tool input that carries it.
type Rewrite = (String, Map<String, Value>);

/// The answer to send, and warnings for standard error.
pub(crate) struct Verdict {
    pub(crate) permission: Permission,
    pub(crate) reason: String,
    pub(crate) warnings: String,
    /// The input the client is to run instead (`--sandbox`).
    pub(crate) updated_input: Option<Map<String, Value>>,
}

impl Job {
    /// Hands the call to the gate (decide, ask where the policy says so,
    /// record) and turns its verdict into the client's vocabulary.
    /// `Err` is a message for the client's failure reply: no decision.
    pub(crate) fn run(&self, opts: &HookOptions) -> Result<Verdict, Failure> {
        let cwd = self.call.cwd.as_deref().unwrap_or(Path::new("/"));
        let mut setup = Setup {
            policy: opts.policy.clone(),
            state_dir: opts.state_dir.clone(),
            ..Setup::default()
        };
        // Resolved once: the anchor is recorded there, and the policy
        // protects the directory the store writes.
        setup.state_dir = setup.state_dir().ok();
        setup.anchor = Some(crate::anchor::anchor(
            opts.workspace.as_deref(),
            self.workspace_root.as_deref(),
            opts.launch_dir.as_deref(),
            setup.state_dir.as_deref(),
            self.host.client().as_str(),
            &self.session,
            cwd,
        ));
        let (state_dir, client, session) = (
            setup.state_dir.clone(),
            self.host.client().as_str().to_owned(),
            self.session.clone(),
        );
        setup.project_seen = Some(ProjectSeenFn(Arc::new(move |file, bytes| {
            crate::anchor::project_policy_changed(
                state_dir.as_deref(),
                &client,
                &session,
                file,
                bytes,
            )
        })));
        let policy = setup.load_policy(cwd).map_err(Failure::Policy)?;
        let session_start = crate::anchor::session_start(
            setup.state_dir.as_deref(),
            self.host.client().as_str(),
            &self.session,
        );
        // Spooled: a hook process lives for one call, and opening SQLite
        // would be most of its work; its ledger row goes to the spool
        // beside the database unless the call needs the database itself
        // (an ask: grants, the queue).
        let opened = setup
            .open_store_spooled(Some(&policy))
            .map_err(|e| format!("the ledger cannot be opened: {e}"));
        let (store, store_error) = match opened {
            Ok(store) => (Some(store), None),
            Err(e) => (None, Some(e)),
        };
        let approver: Box<dyn toolgate_gate::Approver> = match opts.approver {
            AnswerBy::Client => self.host.client_approver(&policy),
            AnswerBy::Queue { wait } => Box::new(WaitingApprover(Patience {
                wait,
                poll: opts.poll,
            })),
        };
        let rewritten = match &opts.sandbox {
            Some(exe) => self.sandboxed(exe, &policy, cwd)?,
            None => None,
        };
        let gate_opts = GateOptions {
            session: self.session.clone(),
            store,
            store_error,
            client_mode: self.client_mode,
            who: format!("hook:{}", self.host.client()),
            requests: self.requests.clone(),
            review_budget: Some(REVIEW_BUDGET),
            session_start,
            // The command runs inside toolgate's sandbox exactly when it is
            // rewritten to: then an ask the sandbox answers is an allow.
            // (`sandbox = "off"` runs it outside).
            sandbox: (rewritten.is_some()
                && policy.sandbox() == toolgate_policy::SandboxSetting::On)
                .then_some(toolgate_gate::Sandboxed::default()),
            ..GateOptions::default()
        };
        let mut gate = Gate::new(policy, approver, gate_opts);
        let passage = gate.pass_rewritten(
            &self.call,
            rewritten.as_ref().map(|(line, _)| line.as_str()),
        );
        let mut warnings = String::new();
        for w in gate.take_warnings() {
            warn(&mut warnings, w);
        }
        let permission = match passage.verdict {
            GateVerdict::Run => Permission::Allow,
            GateVerdict::AskHost => Permission::Ask,
            GateVerdict::Refuse | GateVerdict::Wait => Permission::Deny,
        };
        // A call the client asks its person about is shown, and runs, as
        // rewritten: an approval there must not run it outside the sandbox.
        let updated_input = match (passage.verdict, rewritten) {
            (GateVerdict::Run | GateVerdict::AskHost, Some((_, input))) => Some(input),
            _ => None,
        };
        Ok(Verdict {
            permission,
            reason: passage.message,
            warnings,
            updated_input,
        })
    }

    /// The rewritten command line and the whole input that carries it,
    /// when this call is the client's shell tool with a command string.
    /// A command that cannot be wrapped (it holds a NUL byte) is an error:
    /// under `--sandbox` no shell command runs unsandboxed.
    fn sandboxed(
        &self,
        exe: &Path,
        policy: &Policy,
        cwd: &Path,
    ) -> Result<Option<Rewrite>, Failure> {
        if let Host::Codex(_) = self.host {
            // Codex runs its shell in its own sandbox; nothing to rewrite.
            return Ok(None);
        }
        let Some(shell_tool) = self.host.shell_tool() else {
            return Err(Failure::SandboxUnsupported(self.host.client().to_string()));
        };
        if self.call.tool != shell_tool {
            return Ok(None);
        }
        let Some(command) = self.call.input.get("command").and_then(Value::as_str) else {
            return Ok(None);
        };
        let exe = exe.to_string_lossy();
        let policy_file = policy.file().map(|f| f.to_string_lossy().into_owned());
        let workspace = match policy_file {
            Some(_) => None,
            None => Some(cwd.to_string_lossy().into_owned()),
        };
        let line = toolgate_sandbox::sandboxed_command_line(
            &exe,
            policy_file.as_deref(),
            workspace.as_deref(),
            command,
        )
        .map_err(|e| Failure::SandboxCommand(e.to_string()))?;
        let mut input = self.call.input.clone();
        input.insert("command".into(), Value::String(line.clone()));
        Ok(Some((line, input)))
    }
}

fn warn(warnings: &mut String, message: String) {
    warnings.push_str("toolgate: warning: ");
    warnings.push_str(&message);
    warnings.push('\n');
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

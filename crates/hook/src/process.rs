//! One hook process: the flags, the input on standard input, the answer
//! on standard output, the exit status. Shared by `toolgate hook CLIENT`
//! and the lean `toolgate-hook CLIENT` executable that `toolgate hook
//! install` registers (the same code, without the rest of the command
//! line linked in: a hook is one process per tool call, so its start-up
//! is part of every call's cost).

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::install::HookClient;
use crate::{
    AnswerBy, DEFAULT_WAIT, HookOptions, HookReply, claude, codex, copilot, cursor, gemini, grok,
    plugin, qwen,
};

/// Who answers a call the policy asks about.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ApproverArg {
    /// The client: Claude Code's own prompt (Cursor's, Pi's with a UI);
    /// where the client cannot ask, a refusal that says how to allow the
    /// call.
    #[default]
    Client,
    /// toolgate's approval queue: wait for `toolgate approvals approve|decline ID`.
    Queue,
}

/// The flags of one hook run, the same for `toolgate hook CLIENT` and
/// `toolgate-hook CLIENT`.
///
/// `Default` is what no flags give.
#[derive(Debug, Default, Clone, clap::Args)]
pub struct RunArgs {
    /// The policy file (default: $TOOLGATE_POLICY, else the layers, with
    /// the project's toolgate.toml found from the workspace, else the
    /// built-in default policy rooted there).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The workspace the project policy is found from, wherever the agent
    /// has moved (default: the client's project directory,
    /// $CLAUDE_PROJECT_DIR or $GEMINI_PROJECT_DIR, else the directory of the
    /// session's first call). A toolgate.toml below it only tightens.
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// Who answers calls the policy asks about.
    #[arg(long, value_enum, default_value = "client")]
    pub approver: ApproverArg,
    /// With `--approver queue`: how long to wait for an answer before
    /// refusing the call [default: 30]. Keep it below the hook's timeout in
    /// the client's settings (60 s unless set), or the client stops waiting
    /// and runs the call.
    #[arg(long, value_name = "SECS")]
    pub wait: Option<u64>,
    /// Run every allowed shell command inside the policy's OS boundary: the
    /// answer rewrites it (Claude Code's `updatedInput`, Gemini CLI's
    /// `tool_input`) to `toolgate sandbox --policy F -- bash -c '<the exact
    /// command>'` (`toolgate-hook sandbox ...` from the lean executable).
    /// The ledger records the rewrite beside the original command, whose
    /// digest the decision stays bound to.
    #[arg(long)]
    pub sandbox: bool,
}

/// Runs one hook call. Every way this can go wrong ends in the client's
/// blocking failure reply, never in an error that might let the call run.
fn answer(
    args: &RunArgs,
    launched_in_session: bool,
    toolgate: fn() -> std::io::Result<PathBuf>,
    failure: fn(&str) -> HookReply,
    hook: fn(&[u8], &HookOptions) -> HookReply,
) -> ExitCode {
    // A fatal signal (a fault, an abort) ends in the same blocking reply
    // as any other failure.
    crate::fatal::block_on_fatal_signals(&failure(
        "toolgate: the hook process met a fatal error (a signal); the call was blocked",
    ));
    // The library turns a panic into a blocking reply; the default panic
    // message would only repeat it on standard error.
    std::panic::set_hook(Box::new(|_| {}));
    let reply = match options(args, launched_in_session, toolgate) {
        Err(message) => failure(&message.to_string()),
        Ok(opts) => {
            // Room for a usual input in one read, instead of a read per
            // doubling of the buffer.
            let mut stdin = Vec::with_capacity(64 * 1024);
            match std::io::stdin().read_to_end(&mut stdin) {
                Ok(_) => hook(&stdin, &opts),
                Err(e) => failure(&format!(
                    "toolgate: cannot read the hook input: {e}; the call was blocked"
                )),
            }
        }
    };
    deliver(&reply)
}

/// Writes a hook's answer: the decision on standard output first, then
/// warnings on standard error. A closed pipe on either, or a write that
/// fails, ends in exit 2 (which Claude Code and Codex take as a block,
/// and which Gemini CLI takes as a block when the deny reached it); the
/// process never exits 0 without its whole answer delivered.
fn deliver(reply: &HookReply) -> ExitCode {
    use std::os::fd::AsFd;
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    if closed(stdout.as_fd()) || closed(stderr.as_fd()) {
        let _ = stderr
            .lock()
            .write_all(b"toolgate: the hook's output is closed; the call was blocked\n");
        return ExitCode::from(2);
    }
    let mut out = stdout.lock();
    if out
        .write_all(reply.stdout.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        return ExitCode::from(2);
    }
    let mut err = stderr.lock();
    let mut text = reply.stderr.clone();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    if err
        .write_all(text.as_bytes())
        .and_then(|()| err.flush())
        .is_err()
    {
        return ExitCode::from(2);
    }
    ExitCode::from(reply.exit_code)
}

/// Whether `fd` is a pipe or socket whose reading end is gone: writing
/// nothing cannot tell, so ask the kernel without waiting.
fn closed(fd: std::os::fd::BorrowedFd<'_>) -> bool {
    use rustix::event::{PollFd, PollFlags, poll};
    let mut fds = [PollFd::new(&fd, PollFlags::OUT)];
    match poll(
        &mut fds,
        Some(&rustix::time::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        }),
    ) {
        Ok(_) => fds[0]
            .revents()
            .intersects(PollFlags::ERR | PollFlags::HUP | PollFlags::NVAL),
        Err(_) => true,
    }
}

/// Flags that cannot work together or here; the hook blocks the call
/// rather than guess.
#[derive(Debug, thiserror::Error)]
enum OptionsError {
    /// `--wait` with the client answering.
    #[error("toolgate: `--wait` needs `--approver queue`; the call was blocked")]
    WaitNeedsQueue,
    /// `--sandbox` without a toolgate executable to wrap commands in.
    #[error(
        "toolgate: cannot find the toolgate executable for --sandbox ({0}); the call was blocked"
    )]
    NoExecutable(#[source] std::io::Error),
}

/// `launched_in_session`: the client starts its hooks in the session's
/// directory, which then anchors the project policy (see `anchor.rs`).
fn options(
    args: &RunArgs,
    launched_in_session: bool,
    toolgate: fn() -> std::io::Result<PathBuf>,
) -> Result<HookOptions, OptionsError> {
    let approver = match (args.approver, args.wait) {
        (ApproverArg::Client, Some(_)) => return Err(OptionsError::WaitNeedsQueue),
        (ApproverArg::Client, None) => AnswerBy::Client,
        (ApproverArg::Queue, wait) => AnswerBy::Queue {
            wait: wait.map(Duration::from_secs).unwrap_or(DEFAULT_WAIT),
        },
    };
    let sandbox = if args.sandbox {
        let exe = toolgate().map_err(OptionsError::NoExecutable)?;
        Some(exe)
    } else {
        None
    };
    Ok(HookOptions {
        policy: args.policy.clone(),
        workspace: args.workspace.clone(),
        approver,
        sandbox,
        launch_dir: if launched_in_session {
            std::env::current_dir().ok()
        } else {
            None
        },
        ..HookOptions::default()
    })
}

/// Runs one hook call for `client`. `toolgate` finds the `toolgate`
/// executable that `--sandbox` wraps allowed commands in.
pub fn run(
    client: HookClient,
    args: &RunArgs,
    toolgate: fn() -> std::io::Result<PathBuf>,
) -> ExitCode {
    type Failure = fn(&str) -> HookReply;
    type Hook = fn(&[u8], &HookOptions) -> HookReply;
    let (failure, hook): (Failure, Hook) = match client {
        HookClient::Claude => (claude::failure, crate::claude_hook),
        HookClient::Gemini => (gemini::failure, crate::gemini_hook),
        HookClient::Codex => (codex::failure, crate::codex_hook),
        HookClient::Qwen => (qwen::failure, crate::qwen_hook),
        HookClient::Copilot => (copilot::failure, crate::copilot_hook),
        HookClient::Pi => (plugin::failure, crate::pi_hook),
        HookClient::OpenCode => (plugin::failure, crate::opencode_hook),
        HookClient::Grok => (grok::failure, crate::grok_hook),
        HookClient::Cursor => (cursor::failure, crate::cursor_hook),
    };
    // Codex CLI starts its hooks in the session's directory, and gives
    // the directory the model named for a command as the input's `cwd`.
    let launched_in_session = matches!(client, HookClient::Codex);
    answer(args, launched_in_session, toolgate, failure, hook)
}

/// `CLIENT [FLAGS]` (the arguments after `hook`), parsed by a parser that
/// knows only these flags: building the whole command line's parser (every
/// subcommand, every help text) is a visible share of a hook's run. `None`
/// for anything this parser does not take as is (help, a usage error, an
/// unknown client): the caller's full parser then handles it, with its
/// usual messages.
pub fn fast_path(
    mut argv: impl Iterator<Item = OsString>,
    toolgate: fn() -> std::io::Result<PathBuf>,
) -> Option<ExitCode> {
    #[derive(Debug, clap::Parser)]
    #[command(
        no_binary_name = true,
        disable_help_flag = true,
        disable_version_flag = true
    )]
    struct Run {
        #[command(flatten)]
        args: RunArgs,
    }
    let client = HookClient::from_name(argv.next()?.to_str()?)?;
    let flags: Vec<OsString> = argv.collect();
    // No flags, as `hook install` registers the hook: nothing to parse.
    if flags.is_empty() {
        return Some(run(client, &RunArgs::default(), toolgate));
    }
    let parsed = <Run as clap::Parser>::try_parse_from(flags).ok()?;
    Some(run(client, &parsed.args, toolgate))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No flags means what clap's defaults give.
    #[test]
    fn the_default_flags_are_clap_defaults() {
        #[derive(Debug, clap::Parser)]
        #[command(no_binary_name = true)]
        struct Run {
            #[command(flatten)]
            args: RunArgs,
        }
        let parsed = <Run as clap::Parser>::try_parse_from(Vec::<String>::new()).unwrap();
        let d = RunArgs::default();
        assert_eq!(
            (
                parsed.args.policy,
                parsed.args.approver,
                parsed.args.wait,
                parsed.args.sandbox
            ),
            (d.policy, d.approver, d.wait, d.sandbox)
        );
    }
}

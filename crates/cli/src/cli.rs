//! Argument definitions and dispatch.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::agent;
use crate::check;
use crate::hook;
use crate::mcp;
use crate::policy_cmd;
use crate::review;
use crate::sandbox;
use crate::serve;
use crate::state;
use crate::store;

/// A permission gate for AI-agent tool calls.
///
/// An agent's model only proposes a tool call; toolgate decides whether it
/// runs (allow), waits for a person (ask) or is refused (deny), from one
/// policy file, `toolgate.toml`, found by `--policy`, else $TOOLGATE_POLICY,
/// else the nearest `toolgate.toml` walking up from the working directory,
/// else a built-in default policy (reads allowed, writes, shell commands
/// and fetches ask, anything else denied).
#[derive(Debug, Parser)]
#[command(name = "toolgate", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Decide one call given as JSON and print the decision as JSON; nothing
    /// is executed.
    ///
    /// A call: {"id": "c1", "tool": "read_file", "input": {"path": "README.md"}},
    /// with an optional "client" (claude, gemini, codex, mcp) and "cwd". An
    /// Anthropic tool_use block or an OpenAI tool_calls item is accepted as
    /// it is. Exit status: 0 whenever a decision was printed (whatever it
    /// is), 2 for an unreadable policy or call.
    Check(CheckArgs),
    /// Like `check`, but print a human-readable trace: each action, every
    /// rule that matched it, and why the winner won.
    Explain(CheckArgs),
    /// Run the policy file's [[test]] cases; exit 1 when one fails.
    Test(TestArgs),
    /// Agent hooks: answer one tool call (`hook claude`, `hook gemini`,
    /// `hook codex`, `hook qwen`, `hook copilot`, `hook pi`, `hook opencode`,
    /// `hook grok`, `hook cursor`), or register the hook in a client's
    /// settings (`hook install`).
    #[command(subcommand)]
    Hook(hook::HookCommand),
    /// Turn another agent's permission settings into a toolgate.toml.
    #[command(subcommand)]
    Import(hook::ImportCommand),
    /// Run an agent under the gate: the model proposes tool calls, the gate
    /// decides each one, and the final answer is printed on standard output
    /// (the per-call trace on standard error). Offline with a scripted model
    /// by default; `--live --api openai|anthropic --model NAME` for a real
    /// one. Exit status: 0 on a final answer, 3 when the call budget or
    /// too many refusals stopped the run, 1 when the model's API failed, 2
    /// for bad usage or configuration.
    Agent(agent::AgentArgs),
    /// The guided offline demo: the same requests replayed under each
    /// answer a host can give (approve, decline, no answer) and each
    /// special case, in a temporary workspace. Any flag runs just that
    /// configuration.
    Demo(toolgate_demo::DemoArgs),
    /// A gateway in front of an MCP server: `toolgate mcp [--name SRV] --
    /// CMD ARGS..` serves an MCP client on standard input/output and passes
    /// every tools/call through the gate; `toolgate mcp pins` lists the
    /// pinned tool definitions and accepts a changed one.
    Mcp(mcp::McpArgs),
    /// Run a command inside the policy's OS boundary and exit with its
    /// status: writes only inside the roots and a private temp dir
    /// ($TMPDIR); every path a Read deny rule matches (when the command
    /// starts) masked, for every program; protected paths, the policy file
    /// and the state directory read-only; no network unless a rule allows
    /// fetches; no ptrace of processes outside; no new privileges.
    ///
    /// When the kernel cannot enforce a part, it says which and refuses to
    /// run, unless the policy says `sandbox = "off"` or --no-sandbox is
    /// given (either is recorded in the ledger). `--check` reports what this
    /// machine can enforce.
    ///
    /// toolgate enters the sandbox itself and then executes the command in
    /// its place, so the exit status is the command's own (killed by a
    /// signal, it dies of that signal). Before the command runs: 125
    /// when toolgate refused or failed before the command ran (bad usage,
    /// an unreadable policy, a sandbox the kernel cannot enforce); 126 when
    /// the command could not be executed; 127 when it was not found.
    Sandbox(sandbox::SandboxArgs),
    /// The queue of calls waiting for a person: list, approve (a waiting
    /// call of toolgate's own tools then runs, once), decline.
    Approvals {
        #[command(subcommand)]
        command: Option<state::ApprovalsCommand>,
        #[command(flatten)]
        db: state::DbArgs,
    },
    /// The approval page and JSON API on 127.0.0.1: the waiting calls live,
    /// approve or decline them from a browser or a phone, the history. It
    /// prints a link holding its token once; the token is also written to
    /// `serve.token` (mode 0600) in the state directory.
    Serve(serve::ServeArgs),
    /// The tamper-evident ledger: `show` its rows and totals, `verify` its
    /// hash chain (exit 1 naming the first bad row).
    Audit {
        #[command(subcommand)]
        command: Option<state::AuditCommand>,
        #[command(flatten)]
        db: state::DbArgs,
    },
    /// The state store itself: `migrate --to postgres://..` copies the
    /// SQLite store into a shared PostgreSQL database and verifies the copy.
    #[command(subcommand)]
    Store(store::StoreCommand),
    /// Trust the nearest toolgate.toml of DIR (default: the working
    /// directory) as it is now: where a managed or user policy exists, a
    /// project's allow rules and mode apply only once it is trusted, and
    /// again only after each edit is trusted.
    Trust(policy_cmd::TrustArgs),
    /// The merged layered policy: `show` it with each rule's file and line,
    /// `lint` it for rules that can never decide anything.
    #[command(subcommand)]
    Policy(policy_cmd::PolicyCommand),
    /// The reviewer of the policy's `[review]` table: `eval` measures it on
    /// a labelled set of calls (false positives, false negatives, latency).
    #[command(subcommand)]
    Review(review::ReviewCommand),
}

/// Where the policy comes from and how it is applied.
#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// The policy file (default: $TOOLGATE_POLICY, else the nearest
    /// toolgate.toml walking up from the working directory, else the
    /// built-in default policy).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The workspace directory: relative `roots` resolve against it, and it
    /// is the root of the built-in policy (default: the policy file's
    /// directory, or the working directory).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// Decide in this mode instead of the policy's: default, accept-edits,
    /// plan, dont-ask or bypass.
    #[arg(long, value_name = "MODE")]
    pub mode: Option<String>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// Read one call per line from FILE (`-` for standard input) and print
    /// one decision per line, in order.
    #[arg(long, value_name = "FILE", conflicts_with = "call")]
    pub batch: Option<String>,
    /// The call as JSON, or `-` to read it from standard input.
    #[arg(value_name = "CALL")]
    pub call: Option<String>,
    /// Decide as a host that runs shell commands inside toolgate's sandbox
    /// (`hook CLIENT --sandbox`, the agent's `run_shell`): an ask the
    /// sandbox answers is an allow (`sandbox:holds`).
    #[arg(long)]
    pub sandbox: bool,
}

#[derive(Debug, Args)]
pub struct TestArgs {
    /// The policy file whose [[test]] cases run (default: as for `check`).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// The workspace directory (see `check --workspace`).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
}

impl Cli {
    /// Whether this command's output is an answer a client acts on (a
    /// hook), so that failing to write it must fail the command.
    pub fn answers_a_client(&self) -> bool {
        matches!(self.command, Command::Hook(_))
    }
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Check(a) => check::check(a, false),
        Command::Explain(a) => check::check(a, true),
        Command::Test(a) => check::test(a),
        Command::Hook(c) => hook::hook(c),
        Command::Import(c) => hook::import(c),
        Command::Agent(a) => agent::agent(a),
        Command::Demo(a) => toolgate_demo::demo(a),
        Command::Mcp(a) => mcp::mcp(a),
        Command::Sandbox(a) => sandbox::sandbox(a),
        Command::Approvals { command, db } => state::approvals(
            command.unwrap_or(state::ApprovalsCommand::List {
                all: false,
                json: false,
            }),
            &db,
        ),
        Command::Store(c) => store::store(c),
        Command::Trust(a) => policy_cmd::trust(a),
        Command::Policy(c) => policy_cmd::policy(c),
        Command::Review(c) => review::review(c),
        Command::Serve(a) => serve::serve(a),
        Command::Audit { command, db } => state::audit(
            command.unwrap_or(state::AuditCommand::Verify { expect: Vec::new() }),
            &db,
        ),
    }
}

//! Argument definitions and dispatch.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::check;

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

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Check(a) => check::check(a, false),
        Command::Explain(a) => check::check(a, true),
        Command::Test(a) => check::test(a),
    }
}

//! `toolgate-hook CLIENT [FLAGS]`: the hook process that
//! `toolgate hook install` registers.
//!
//! It is `toolgate hook CLIENT` (same flags, same answers, same ledger
//! rows), in an executable that links only the hook: a hook is one process
//! per tool call, and most of the start-up of the whole `toolgate` (its
//! size, its libraries) would be paid on every call.
//!
//! `toolgate-hook sandbox [--policy F] [--workspace D] -- CMD` is `toolgate
//! sandbox`: `--sandbox` rewrites each shell command to run under this
//! executable, so that the sandbox's start-up, paid on every command, is
//! this executable's, not the whole `toolgate`'s.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use toolgate_hook::install::HookClient;
use toolgate_hook::process::{self, RunArgs};
use toolgate_hook::sandbox_cmd::{self, SandboxArgs};

/// The hook process for Claude Code, Gemini CLI, Codex CLI, Qwen Code,
/// Copilot CLI, Pi, OpenCode, Grok Build and Cursor (the same as `toolgate
/// hook CLIENT`).
#[derive(Debug, Parser)]
#[command(name = "toolgate-hook", version)]
struct Cli {
    #[command(subcommand)]
    client: Client,
}

#[derive(Debug, Subcommand)]
enum Client {
    /// Claude Code's PreToolUse hook (`toolgate hook claude`).
    Claude(RunArgs),
    /// Gemini CLI's BeforeTool hook (`toolgate hook gemini`).
    Gemini(RunArgs),
    /// Codex CLI's PreToolUse and PermissionRequest hooks (`toolgate hook
    /// codex`).
    Codex(RunArgs),
    /// Qwen Code's PreToolUse hook (`toolgate hook qwen`).
    Qwen(RunArgs),
    /// Copilot CLI's preToolUse hook (`toolgate hook copilot`).
    Copilot(RunArgs),
    /// The hook behind toolgate's Pi extension (`toolgate hook pi`).
    Pi(RunArgs),
    /// The hook behind toolgate's OpenCode plugin (`toolgate hook opencode`).
    Opencode(RunArgs),
    /// Grok Build's PreToolUse hook (`toolgate hook grok`).
    Grok(RunArgs),
    /// Cursor's hooks (`toolgate hook cursor`).
    Cursor(RunArgs),
    /// Run a command inside the policy's OS boundary (`toolgate sandbox`):
    /// what `--sandbox` rewrites shell commands to.
    Sandbox(SandboxArgs),
}

/// `pow` for the one caller this executable links, tokio's multi-thread
/// scheduler (its statistics), which a hook never starts: defined here,
/// the dynamic loader does not map libm.so, nine page faults and a library
/// search on every hook start. `log`, SQLite's other use of libm, is gone
/// with its full-text search (`.cargo/config.toml`).
#[unsafe(no_mangle)]
pub extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// This executable, whose `sandbox` subcommand `--sandbox` runs commands
/// under.
fn toolgate() -> std::io::Result<PathBuf> {
    std::env::current_exe().and_then(std::fs::canonicalize)
}

fn main() -> ExitCode {
    let mut argv = std::env::args_os().skip(1);
    if argv.next().is_some_and(|a| a == "sandbox") {
        // Only the sandbox's own flags: building the whole parser is a
        // visible share of a command's start-up.
        /// Run a command inside the policy's OS boundary and exit with its
        /// status, exactly as `toolgate sandbox` does (`toolgate sandbox
        /// --help` says what the boundary holds): what a hook registered
        /// with `--sandbox` rewrites shell commands to.
        #[derive(Debug, clap::Parser)]
        #[command(no_binary_name = true, name = "toolgate-hook sandbox")]
        struct Only {
            #[command(flatten)]
            args: SandboxArgs,
        }
        return match <Only as clap::Parser>::try_parse_from(argv) {
            Ok(only) => sandbox_cmd::sandbox(only.args),
            Err(e) => {
                let _ = e.print();
                if e.use_stderr() {
                    ExitCode::from(sandbox_cmd::EXIT_REFUSED)
                } else {
                    ExitCode::SUCCESS
                }
            }
        };
    }
    if let Some(code) = process::fast_path(std::env::args_os().skip(1), toolgate) {
        return code;
    }
    // Help, version, or a usage error: the full parser says so. A usage
    // error is exit 2, which every client takes as a block.
    let cli = Cli::parse();
    let (client, args) = match cli.client {
        Client::Claude(a) => (HookClient::Claude, a),
        Client::Gemini(a) => (HookClient::Gemini, a),
        Client::Codex(a) => (HookClient::Codex, a),
        Client::Qwen(a) => (HookClient::Qwen, a),
        Client::Copilot(a) => (HookClient::Copilot, a),
        Client::Pi(a) => (HookClient::Pi, a),
        Client::Opencode(a) => (HookClient::OpenCode, a),
        Client::Grok(a) => (HookClient::Grok, a),
        Client::Cursor(a) => (HookClient::Cursor, a),
        Client::Sandbox(a) => return sandbox_cmd::sandbox(a),
    };
    process::run(client, &args, toolgate)
}

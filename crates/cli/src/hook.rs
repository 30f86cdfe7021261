//! `toolgate hook claude|gemini|install` and `toolgate import claude`:
//! argument parsing and printing over `toolgate-hook`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use clap::{Args, Subcommand, ValueEnum};
use toolgate_hook::install::{self, HookClient, Installed, Scope};
use toolgate_hook::{
    Approver, DEFAULT_WAIT, HookOptions, HookReply, claude, codex, gemini, import,
};

#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// Claude Code's PreToolUse hook: read the call from standard input,
    /// decide it, record it, and print Claude Code's answer.
    ///
    /// Registered by `toolgate hook install claude`. An ask goes to Claude
    /// Code's own prompt, or with `--approver queue` to toolgate's approval
    /// queue. Whatever goes wrong (unreadable input or policy), the call is
    /// blocked: exit 2 with the reason on standard error.
    Claude(RunArgs),
    /// Gemini CLI's BeforeTool hook: read the call from standard input,
    /// decide it, record it, and print Gemini CLI's answer.
    ///
    /// Gemini CLI cannot ask a person from a hook, so an ask is refused with
    /// a reason saying how to allow it, unless `--approver queue` is given.
    /// Whatever goes wrong, the call is blocked (a deny on standard output
    /// and exit 2).
    Gemini(RunArgs),
    /// Codex CLI's PreToolUse and PermissionRequest hooks: read the call
    /// from standard input, decide it, record it, and print Codex's answer.
    ///
    /// PreToolUse can only block: a deny is a deny; an ask is refused with
    /// a reason saying how to allow it (Codex cannot ask from PreToolUse),
    /// unless `--approver queue` is given. PermissionRequest, which Codex
    /// raises when it would ask the person, is answered allow or deny; an
    /// ask is left to Codex's own prompt. Whatever goes wrong, the call is
    /// blocked: exit 2 with the reason on standard error.
    Codex(RunArgs),
    /// Register `toolgate hook claude|gemini|codex` in the client's settings
    /// file, keeping everything else in it (a backup `settings.json.bak` is
    /// written first). Running it again changes nothing.
    Install(InstallArgs),
}

/// Who answers a call the policy asks about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ApproverArg {
    /// The client: Claude Code's own prompt; in Gemini CLI, a refusal that
    /// says how to allow the call.
    Client,
    /// toolgate's approval queue: wait for `toolgate approvals approve|decline ID`.
    Queue,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The policy file (default: $TOOLGATE_POLICY, else the nearest
    /// toolgate.toml walking up from the call's working directory, else
    /// the built-in default policy rooted there).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
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
    /// command>'`. The ledger records the rewrite beside the original
    /// command, whose digest the decision stays bound to.
    #[arg(long)]
    pub sandbox: bool,
}

/// The client whose settings get the hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClientArg {
    /// Claude Code (`.claude/settings.json`).
    Claude,
    /// Gemini CLI (`.gemini/settings.json`).
    Gemini,
    /// Codex CLI (`.codex/hooks.json`; with --user, `$CODEX_HOME/hooks.json`).
    Codex,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The client.
    #[arg(value_enum)]
    pub client: ClientArg,
    /// Change the project's settings, in the working directory (the
    /// default).
    #[arg(long, conflicts_with = "user")]
    pub project: bool,
    /// Change the user's settings (~/.claude/settings.json or
    /// ~/.gemini/settings.json, or where CLAUDE_CONFIG_DIR or
    /// GEMINI_CLI_HOME point).
    #[arg(long)]
    pub user: bool,
    /// The command to register (default: this toolgate executable's
    /// absolute path, then `hook claude` or `hook gemini`).
    #[arg(long, value_name = "CMD", conflicts_with_all = ["approver", "wait"])]
    pub command: Option<String>,
    /// Register the hook with this approver; with `queue`, the hook's
    /// timeout is set 30 s above `--wait`.
    #[arg(long, value_enum)]
    pub approver: Option<ApproverArg>,
    /// With `--approver queue`: how long the hook waits for an answer.
    #[arg(long, value_name = "SECS", requires = "approver")]
    pub wait: Option<u64>,
    /// Instead of the hook: route the MCP server SRV of the project's
    /// `.mcp.json` through `toolgate mcp` (the original command is kept and
    /// comes back with `--undo`). `-- CMD ARGS..` creates or replaces the
    /// entry with that command.
    #[arg(long, value_name = "SRV", conflicts_with_all = ["user", "command", "approver", "sandbox"])]
    pub mcp: Option<String>,
    /// With `--mcp`: put the server's own command back.
    #[arg(long, requires = "mcp")]
    pub undo: bool,
    /// With `--mcp`: the server's command and arguments.
    #[arg(last = true, value_name = "CMD", requires = "mcp")]
    pub server: Vec<String>,
    /// Register the hook with `--sandbox`: allowed shell commands run
    /// inside the policy's OS boundary (`toolgate sandbox`).
    #[arg(long, conflicts_with = "command")]
    pub sandbox: bool,
}

#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// Turn Claude Code's `permissions` settings (allow, ask and deny
    /// rules, defaultMode, additionalDirectories) into a toolgate.toml,
    /// printed on standard output. What cannot be carried over is listed
    /// in comments at its end.
    Claude(ImportClaudeArgs),
}

#[derive(Debug, Args)]
pub struct ImportClaudeArgs {
    /// The settings file (default: .claude/settings.json and
    /// .claude/settings.local.json in the working directory, merged).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Write the policy to this file instead of standard output.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Overwrite the `--output` file when it exists.
    #[arg(long, requires = "output")]
    pub force: bool,
}

/// `toolgate hook claude|gemini|codex [FLAGS]`, parsed without building
/// the whole command line's parser: a hook is one process per tool call,
/// and the full parser (every subcommand, every help text) is a visible
/// share of its run. `None` for anything else, and for any argument this
/// parser does not take as is (help, version, a usage error): the full
/// parser then handles it, with its usual messages.
pub fn fast_path() -> Option<ExitCode> {
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
    let mut argv = std::env::args_os().skip(1);
    if argv.next()? != "hook" {
        return None;
    }
    let client = argv.next()?;
    let run: fn(RunArgs) -> HookCommand = match client.to_str()? {
        "claude" => HookCommand::Claude,
        "gemini" => HookCommand::Gemini,
        "codex" => HookCommand::Codex,
        _ => return None,
    };
    let parsed = <Run as clap::Parser>::try_parse_from(argv).ok()?;
    Some(match hook(run(parsed.args)) {
        Ok(code) => code,
        // The hook's own failures are replies already; this is only an
        // answer that could not be given at all, which must not be a 0.
        Err(e) => {
            eprintln!("toolgate: {e:#}");
            ExitCode::from(2)
        }
    })
}

pub fn hook(command: HookCommand) -> anyhow::Result<ExitCode> {
    match command {
        HookCommand::Claude(args) => answer(args, claude::failure, toolgate_hook::claude_hook),
        HookCommand::Gemini(args) => answer(args, gemini::failure, toolgate_hook::gemini_hook),
        HookCommand::Codex(args) => answer(args, codex::failure, toolgate_hook::codex_hook),
        HookCommand::Install(args) => install(args),
    }
}

/// Runs one hook call. Every way this can go wrong ends in the client's
/// blocking failure reply, never in an error that might let the call run.
fn answer(
    args: RunArgs,
    failure: fn(&str) -> HookReply,
    hook: fn(&[u8], &HookOptions) -> HookReply,
) -> anyhow::Result<ExitCode> {
    // The library turns a panic into a blocking reply; the default panic
    // message would only repeat it on standard error.
    std::panic::set_hook(Box::new(|_| {}));
    let reply = match options(&args) {
        Err(message) => failure(&message),
        Ok(opts) => {
            let mut stdin = Vec::new();
            match std::io::stdin().read_to_end(&mut stdin) {
                Ok(_) => hook(&stdin, &opts),
                Err(e) => failure(&format!(
                    "toolgate: cannot read the hook input: {e}; the call was blocked"
                )),
            }
        }
    };
    Ok(deliver(&reply))
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

fn options(args: &RunArgs) -> Result<HookOptions, String> {
    let approver = match (args.approver, args.wait) {
        (ApproverArg::Client, Some(_)) => {
            return Err(
                "toolgate: `--wait` needs `--approver queue`; the call was blocked".to_owned(),
            );
        }
        (ApproverArg::Client, None) => Approver::Client,
        (ApproverArg::Queue, wait) => Approver::Queue {
            wait: wait.map(Duration::from_secs).unwrap_or(DEFAULT_WAIT),
        },
    };
    let sandbox = if args.sandbox {
        let exe = std::env::current_exe()
            .and_then(std::fs::canonicalize)
            .map_err(|e| {
                format!("toolgate: cannot find this executable for --sandbox ({e}); the call was blocked")
            })?;
        Some(exe)
    } else {
        None
    };
    Ok(HookOptions {
        policy: args.policy.clone(),
        approver,
        sandbox,
        ..HookOptions::default()
    })
}

/// `hook install claude --mcp SRV [--undo] [-- CMD..]`.
fn route_mcp(
    client: HookClient,
    project: &std::path::Path,
    server: &str,
    command: &[String],
    undo: bool,
) -> anyhow::Result<ExitCode> {
    if client != HookClient::Claude {
        bail!("`--mcp` routes a server of Claude Code's `.mcp.json`; use it with `claude`");
    }
    if undo && !command.is_empty() {
        bail!("`--undo` takes no command");
    }
    let exe = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .context("cannot find the path of this toolgate executable")?;
    let path = project.join(".mcp.json");
    let shown = path.display();
    let cmd = (!command.is_empty()).then_some(command);
    match install::route_mcp(&path, server, &exe, cmd, undo)? {
        install::McpRouted::Routed { backup } => println!(
            "the MCP server `{server}` in {shown} now runs through `toolgate mcp`{}",
            backup
                .map(|b| format!(" (the previous version is in {})", b.display()))
                .unwrap_or_default()
        ),
        install::McpRouted::Restored { backup } => println!(
            "the MCP server `{server}` in {shown} runs its own command again (the previous version is in {})",
            backup.display()
        ),
        install::McpRouted::Unchanged => println!("{shown}: nothing to change for `{server}`"),
    }
    Ok(ExitCode::SUCCESS)
}

fn install(args: InstallArgs) -> anyhow::Result<ExitCode> {
    let client = match args.client {
        ClientArg::Claude => HookClient::Claude,
        ClientArg::Gemini => HookClient::Gemini,
        ClientArg::Codex => HookClient::Codex,
    };
    let scope = if args.user {
        Scope::User
    } else {
        Scope::Project
    };
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    if let Some(server) = &args.mcp {
        return route_mcp(client, &cwd, server, &args.server, args.undo);
    }
    let path = install::settings_path(client, scope, &cwd, |name| std::env::var(name).ok())?;
    let (command, timeout) = match args.command {
        Some(command) => (command, None),
        None => {
            let exe = std::env::current_exe()
                .and_then(std::fs::canonicalize)
                .context("cannot find the path of this toolgate executable")?;
            let mut extra = Vec::new();
            let mut timeout = None;
            if args.approver == Some(ApproverArg::Queue) {
                let wait = args.wait.map(Duration::from_secs).unwrap_or(DEFAULT_WAIT);
                extra = vec![
                    "--approver".to_owned(),
                    "queue".to_owned(),
                    "--wait".to_owned(),
                    wait.as_secs().to_string(),
                ];
                timeout = Some(wait + Duration::from_secs(30));
            } else if args.wait.is_some() {
                bail!("`--wait` needs `--approver queue`");
            }
            if args.sandbox {
                if client == HookClient::Codex {
                    bail!(
                        "`--sandbox` is for Claude Code and Gemini CLI; Codex runs its shell in \
                         its own sandbox"
                    );
                }
                extra.push("--sandbox".to_owned());
            }
            (install::default_command(client, &exe, &extra), timeout)
        }
    };
    let event = client.events().join(" and ");
    let shown = path.display();
    match install::install(client, &path, &command, timeout)? {
        Installed::Created => println!("created {shown} with the {event} hook `{command}`"),
        Installed::Added { backup } => println!(
            "added the {event} hook `{command}` to {shown} (the previous version is in {})",
            backup.display()
        ),
        Installed::Unchanged => {
            println!("the {event} hook `{command}` is already in {shown}; nothing changed")
        }
    }
    if client == HookClient::Codex {
        println!(
            "Codex runs a new hook only once it is trusted: review and trust it with `/hooks` in \
             codex (or run `codex exec --dangerously-bypass-hook-trust` where the hook source is \
             vetted by other means)"
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn import(command: ImportCommand) -> anyhow::Result<ExitCode> {
    let ImportCommand::Claude(args) = command;
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let absolute = |p: &Path| {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            cwd.join(p)
        }
    };
    let output = args.output.as_deref().map(absolute);
    if let Some(out) = &output
        && out.exists()
        && !args.force
    {
        bail!("`{}` exists; pass --force to overwrite it", out.display());
    }
    let (files, project) = match &args.file {
        Some(file) => {
            let file = absolute(file);
            let project = import::project_of(&file).unwrap_or_else(|| cwd.clone());
            (vec![file], project)
        }
        None => {
            let files = import::project_sources(&cwd);
            if files.is_empty() {
                bail!(
                    "no Claude Code settings in `{}` (settings.json, settings.local.json); pass the settings FILE",
                    cwd.join(".claude").display()
                );
            }
            (files, cwd.clone())
        }
    };
    let policy_file = output
        .clone()
        .unwrap_or_else(|| project.join(toolgate_policy::POLICY_FILE_NAME));
    if let Some(dir) = policy_file.parent()
        && !dir.is_dir()
    {
        bail!("`{}` is not a directory", dir.display());
    }
    let sources = files
        .iter()
        .map(|path| {
            std::fs::read_to_string(path)
                .map(|text| import::Source {
                    path: path.clone(),
                    text,
                })
                .with_context(|| format!("`{}`: cannot read it", path.display()))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let imported = import::claude(&sources, &policy_file).map_err(|e| anyhow!("{e}"))?;
    match &output {
        Some(out) => std::fs::write(out, &imported.toml)
            .with_context(|| format!("`{}`: cannot write it", out.display()))?,
        None => std::io::stdout()
            .lock()
            .write_all(imported.toml.as_bytes())?,
    }
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let mut summary = format!(
        "toolgate: {} rules imported from {}",
        imported.rules,
        names.join(" and ")
    );
    if let Some(out) = &output {
        summary.push_str(&format!(" into {}", out.display()));
    }
    if !imported.skipped.is_empty() {
        summary.push_str(&format!(
            "; {} entries not carried over (listed in comments at the end)",
            imported.skipped.len()
        ));
    }
    eprintln!("{summary}");
    Ok(ExitCode::SUCCESS)
}

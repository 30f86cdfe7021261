//! `toolgate hook claude|gemini|install` and `toolgate import claude`:
//! argument parsing and printing over `toolgate-hook`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use clap::{Args, Subcommand, ValueEnum};
use toolgate_hook::codex_trust;
use toolgate_hook::install::{self, HookClient, Installed, Scope};
use toolgate_hook::process::{self, ApproverArg, RunArgs};
use toolgate_hook::{DEFAULT_WAIT, extension, import};

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
    /// Qwen Code's PreToolUse hook. Qwen Code lets a call run when its hook
    /// fails or times out, so every answer is a decision: an ask is refused
    /// with how to allow it (or waits in the queue), a failure is exit 2.
    Qwen(RunArgs),
    /// GitHub Copilot CLI's preToolUse hook (either payload shape). An ask
    /// is refused with how to allow it (or waits in the queue); a failure
    /// is a deny with the reason.
    Copilot(RunArgs),
    /// The hook behind toolgate's Pi extension (`hook install pi`): reads
    /// the extension's JSON, answers allow, ask (put to the person when Pi
    /// has a UI) or deny. A failure is a deny and exit 2.
    Pi(RunArgs),
    /// The hook behind toolgate's OpenCode plugin (`hook install opencode`).
    /// An ask is refused with how to allow it (or waits in the queue).
    Opencode(RunArgs),
    /// Grok Build's PreToolUse hook (Grok's own payload; `hook claude` and
    /// `hook cursor` answer it too). An ask is refused with how to allow it.
    Grok(RunArgs),
    /// Cursor's beforeShellExecution, beforeMCPExecution, beforeReadFile
    /// and preToolUse hooks. A failure is a deny and exit 2.
    Cursor(RunArgs),
    /// Register `toolgate hook CLIENT` in the client's settings file,
    /// keeping everything else in it (a backup `NAME.bak` is written
    /// first), or, for Pi and OpenCode, write toolgate's extension or
    /// plugin. Running it again changes nothing.
    Install(InstallArgs),
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
    /// Qwen Code (`.qwen/settings.json`; with --user, `$QWEN_HOME/settings.json`).
    Qwen,
    /// GitHub Copilot CLI (`.github/hooks/toolgate.json`; with --user,
    /// `$COPILOT_HOME/hooks/toolgate.json`). Project hooks load only in a
    /// folder Copilot trusts.
    Copilot,
    /// Pi (the extension `.pi/extensions/toolgate.ts`; with --user,
    /// `$PI_CODING_AGENT_DIR/extensions/toolgate.ts`).
    Pi,
    /// OpenCode (the plugin `.opencode/plugins/toolgate.js`; with --user,
    /// `$XDG_CONFIG_HOME/opencode/plugins/toolgate.js`).
    Opencode,
    /// Grok Build (`.grok/hooks/toolgate.json`; with --user,
    /// `~/.grok/hooks/toolgate.json`).
    Grok,
    /// Cursor (`.cursor/hooks.json`; with --user, `~/.cursor/hooks.json`).
    Cursor,
}

impl ClientArg {
    fn client(self) -> HookClient {
        match self {
            ClientArg::Claude => HookClient::Claude,
            ClientArg::Gemini => HookClient::Gemini,
            ClientArg::Codex => HookClient::Codex,
            ClientArg::Qwen => HookClient::Qwen,
            ClientArg::Copilot => HookClient::Copilot,
            ClientArg::Pi => HookClient::Pi,
            ClientArg::Opencode => HookClient::OpenCode,
            ClientArg::Grok => HookClient::Grok,
            ClientArg::Cursor => HookClient::Cursor,
        }
    }
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
    /// inside the policy's OS boundary (`toolgate sandbox`). For claude and
    /// gemini this is the default where `toolgate sandbox --check` says this
    /// kernel enforces every required part.
    #[arg(long, conflicts_with = "command")]
    pub sandbox: bool,
    /// Register the hook without `--sandbox`, even where the kernel could
    /// enforce it: shell commands run as the client runs them.
    #[arg(long, conflicts_with = "sandbox")]
    pub no_sandbox: bool,
    /// With `codex`: also mark the installed hooks trusted in Codex, as
    /// accepting them with `/hooks` in codex would. Codex is asked for
    /// its hash of each hook (`codex app-server`), records it in the user's
    /// `config.toml` itself, and must then report every toolgate hook
    /// trusted, or the command fails. A project's hooks can be trusted only
    /// in a project Codex trusts.
    #[arg(long)]
    pub trust: bool,
    /// With `--trust`: the codex executable to ask (default: `codex` on
    /// PATH).
    #[arg(long, value_name = "PATH", requires = "trust")]
    pub codex: Option<PathBuf>,
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
/// the whole command line's parser (see [`process::fast_path`]); `None`
/// for anything else.
pub fn fast_path() -> Option<ExitCode> {
    let mut argv = std::env::args_os().skip(1);
    if argv.next()? != "hook" {
        return None;
    }
    process::fast_path(argv, this_toolgate)
}

/// Whether `hook install` registers `--sandbox` when neither `--sandbox`
/// nor `--no-sandbox` is given (pushed onto `extra`), and the line that
/// says what it chose: on for Claude Code and Gemini CLI where this kernel
/// enforces every required part of the sandbox (`toolgate sandbox
/// --check`); never for Codex, whose shell commands a hook cannot rewrite.
/// Other clients keep `--sandbox` as an explicit choice (`None`: nothing
/// to say).
fn default_sandbox(client: HookClient, opted_out: bool, extra: &mut Vec<String>) -> Option<String> {
    if !matches!(
        client,
        HookClient::Claude | HookClient::Gemini | HookClient::Codex
    ) {
        return None;
    }
    if opted_out {
        return Some(format!(
            "{client}'s shell commands run without toolgate's sandbox (`--no-sandbox`)"
        ));
    }
    if client == HookClient::Codex || !client.can_sandbox() {
        return Some(format!(
            "{client}'s shell commands run without toolgate's sandbox: a hook cannot rewrite              them (Codex runs them in its own sandbox)"
        ));
    }
    let missing: Vec<String> = toolgate_sandbox::check()
        .into_iter()
        .filter(|p| p.required && !p.enforced)
        .map(|p| format!("{} ({})", p.name, p.detail))
        .collect();
    if missing.is_empty() {
        extra.push("--sandbox".to_owned());
        Some(format!(
            "{client}'s shell commands run inside toolgate's sandbox (`--sandbox`): this kernel              enforces every required part; `--no-sandbox` opts out"
        ))
    } else {
        Some(format!(
            "{client}'s shell commands run without toolgate's sandbox: this kernel does not              enforce {} (`toolgate sandbox --check`)",
            missing.join(", ")
        ))
    }
}

/// This executable: the `toolgate` that `--sandbox` wraps commands in.
fn this_toolgate() -> std::io::Result<PathBuf> {
    std::env::current_exe().and_then(std::fs::canonicalize)
}

pub fn hook(command: HookCommand) -> anyhow::Result<ExitCode> {
    match command {
        HookCommand::Claude(args) => Ok(process::run(HookClient::Claude, &args, this_toolgate)),
        HookCommand::Gemini(args) => Ok(process::run(HookClient::Gemini, &args, this_toolgate)),
        HookCommand::Codex(args) => Ok(process::run(HookClient::Codex, &args, this_toolgate)),
        HookCommand::Qwen(args) => Ok(process::run(HookClient::Qwen, &args, this_toolgate)),
        HookCommand::Copilot(args) => Ok(process::run(HookClient::Copilot, &args, this_toolgate)),
        HookCommand::Pi(args) => Ok(process::run(HookClient::Pi, &args, this_toolgate)),
        HookCommand::Opencode(args) => Ok(process::run(HookClient::OpenCode, &args, this_toolgate)),
        HookCommand::Grok(args) => Ok(process::run(HookClient::Grok, &args, this_toolgate)),
        HookCommand::Cursor(args) => Ok(process::run(HookClient::Cursor, &args, this_toolgate)),
        HookCommand::Install(args) => install(args),
    }
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
    let client = args.client.client();
    let scope = if args.user {
        Scope::User
    } else {
        Scope::Project
    };
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    if args.trust && client != HookClient::Codex {
        bail!("`--trust` marks hooks trusted in Codex; use it with `codex`");
    }
    if let Some(server) = &args.mcp {
        return route_mcp(client, &cwd, server, &args.server, args.undo);
    }
    let path = install::settings_path(client, scope, &cwd, |name| std::env::var(name).ok())?;
    if args.command.is_some() && client.events().is_empty() {
        bail!(
            "`--command` registers a hook command; {client}'s extension or plugin runs toolgate's \
             own hook executable"
        );
    }
    // What `hook install` chose about the sandbox, said after what it did.
    let mut sandbox_note = None;
    let (command, timeout, argv) = match args.command {
        Some(command) => (command, None, None),
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
                if !client.can_sandbox() {
                    bail!(
                        "`--sandbox` rewrites shell commands, which {client} does not let a hook \
                         do; it works with claude, gemini, pi and opencode"
                    );
                }
                extra.push("--sandbox".to_owned());
            } else {
                sandbox_note = default_sandbox(client, args.no_sandbox, &mut extra);
            }
            // The lean hook executable when it was installed beside this
            // one (`cargo install` puts both in the same directory).
            let lean = install::beside(&exe, "toolgate-hook");
            let (command, program, mut words) = if lean.is_file() {
                (
                    install::lean_command(client, &lean, &extra),
                    lean,
                    vec![client.as_str().to_owned()],
                )
            } else {
                (
                    install::default_command(client, &exe, &extra),
                    exe,
                    vec!["hook".to_owned(), client.as_str().to_owned()],
                )
            };
            words.extend(extra);
            (command, timeout, Some((program, words)))
        }
    };
    let shown = path.display();
    if client.events().is_empty() {
        let Some((program, words)) = argv else {
            bail!("{client} needs toolgate's own hook executable");
        };
        let limit = timeout
            .or(client.default_timeout())
            .unwrap_or(DEFAULT_WAIT + Duration::from_secs(30));
        let text = extension::source(client, &program, &words, limit)
            .ok_or_else(|| anyhow!("{client} takes no extension file"))?;
        let what = if client == HookClient::Pi {
            "extension"
        } else {
            "plugin"
        };
        match extension::write(&path, &text)? {
            Installed::Created => println!("created toolgate's {what} {shown}"),
            Installed::Added { backup } => println!(
                "updated toolgate's {what} {shown} (the previous version is in {})",
                backup.display()
            ),
            Installed::Unchanged => println!("toolgate's {what} {shown} is up to date"),
        }
        // OpenCode installs its plugin package into the project's config
        // folder and the user's, whichever holds the plugin.
        let mut folders: Vec<PathBuf> = path
            .parent()
            .and_then(Path::parent)
            .into_iter()
            .map(Path::to_path_buf)
            .collect();
        if client == HookClient::OpenCode
            && let Ok(user) =
                install::settings_path(client, Scope::User, &cwd, |n| std::env::var(n).ok())
            && let Some(dir) = user.parent().and_then(Path::parent)
            && !folders.iter().any(|f| f == dir)
        {
            folders.push(dir.to_path_buf());
        }
        for dir in folders.iter().filter(|_| client == HookClient::OpenCode) {
            let dir = dir.as_path();
            match extension::settle_opencode_dependencies(dir)? {
                Some(_) => println!(
                    "wrote {} and an empty node_modules: toolgate's plugin imports nothing, and \
                     without them OpenCode first installs {} there (offline it retries for about \
                     two minutes)",
                    dir.join("package-lock.json").display(),
                    extension::OPENCODE_PLUGIN_PACKAGE
                ),
                None => println!(
                    "{} already has node_modules or a lock: OpenCode installs there what they \
                     lack at start; offline, run it with npm_config_offline=true so that such an \
                     install fails at once instead of retrying",
                    dir.display()
                ),
            }
        }
        println!(
            "the {what} runs `{command}` for every tool call and blocks the call when it fails or \
             takes more than {} s",
            limit.as_secs()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let event = client.events().join(" and ");
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
    if let Some(note) = sandbox_note {
        println!("{note}");
    }
    if client == HookClient::Codex {
        if args.trust {
            let codex = args.codex.unwrap_or_else(|| PathBuf::from("codex"));
            let trusted =
                codex_trust::trust(&codex, &cwd, &path, &command, scope == Scope::Project)
                    .with_context(|| {
                        format!(
                            "the hooks are in {shown}, but they could not be marked trusted; \
                         trust them with `/hooks` in codex"
                        )
                    })?;
            for key in &trusted.recorded {
                println!("Codex now trusts the hook `{key}`");
            }
            for key in &trusted.already {
                println!("Codex already trusts the hook `{key}`");
            }
        } else {
            println!(
                "Codex runs a new hook only once it is trusted: review and trust it with `/hooks` \
                 in codex, or run this again with --trust (or run `codex exec \
                 --dangerously-bypass-hook-trust` where the hook source is vetted by other means)"
            );
        }
    }
    match (client, scope) {
        (HookClient::Copilot, Scope::Project) => println!(
            "Copilot CLI loads a project's hooks only in a folder it trusts (accept the folder \
             when copilot asks, or run it with --trust-folder); untrusted, the hook is silently \
             skipped and every call runs. `--user` hooks load everywhere."
        ),
        (HookClient::Grok, Scope::Project) => println!(
            "Grok Build runs a project's hooks only once the project is trusted (`/hooks-trust`, \
             or launch it with --trust)"
        ),
        (HookClient::Qwen, _) | (HookClient::Copilot, Scope::User) => println!(
            "{client} lets a call run when its hook fails or times out: the hook always answers \
             within the registered timeout, and `--sandbox` is not available there"
        ),
        _ => {}
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

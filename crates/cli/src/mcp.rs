//! `toolgate mcp`: the MCP gateway, and `toolgate mcp pins`.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context as _, anyhow, bail};
use clap::{Args, Subcommand};
use toolgate_mcp::{Config, Gateway, UpstreamSpec, names};
use toolgate_store::{Store, shown};

use crate::check::parse_mode;
use crate::cli::PolicyArgs;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct McpArgs {
    #[command(subcommand)]
    pub command: Option<McpCommand>,
    #[command(flatten)]
    pub policy: PolicyArgs,
    /// The server's name: its tools are `mcp__NAME__TOOL` for rules, its
    /// pins and ledger rows are kept under it (default: the command's file
    /// name).
    #[arg(long, value_name = "SRV")]
    pub name: Option<String>,
    /// Keep tools denied by name in `tools/list` (calls are still refused).
    #[arg(long)]
    pub show_denied: bool,
    /// The server speaks streamable HTTP at this URL (instead of a command).
    #[arg(long, value_name = "URL", conflicts_with = "server")]
    pub url: Option<String>,
    /// Serve clients over streamable HTTP at ADDR (a port, or host:port;
    /// the host defaults to 127.0.0.1) instead of on standard input/output.
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// The server's command and its arguments, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub server: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Pinned tool definitions: list them, or accept a changed one.
    Pins {
        #[command(subcommand)]
        command: PinsCommand,
        /// The state database (default: toolgate.db in $TOOLGATE_STATE_DIR,
        /// else ~/.local/state/toolgate).
        #[arg(long, value_name = "FILE", global = true)]
        db: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum PinsCommand {
    /// Every pinned definition (of one server), marking changed ones.
    List {
        /// Only this server's pins.
        server: Option<String>,
        /// One JSON object per pin.
        #[arg(long)]
        json: bool,
    },
    /// Trust the changed definition of a tool: it becomes the pin.
    Accept {
        /// The server's name.
        server: String,
        /// The tool's name as the server gives it.
        tool: String,
    },
}

fn open_store(db: Option<&PathBuf>) -> anyhow::Result<Store> {
    crate::state::DbArgs { db: db.cloned() }.open()
}

fn listen_addr(text: &str) -> anyhow::Result<SocketAddr> {
    if let Ok(a) = text.parse::<SocketAddr>() {
        return Ok(a);
    }
    let port = text.trim_start_matches(':');
    let port: u16 = port
        .parse()
        .map_err(|_| anyhow!("--listen `{text}`: expected a port or host:port"))?;
    Ok(SocketAddr::from(([127, 0, 0, 1], port)))
}

pub fn mcp(args: McpArgs) -> anyhow::Result<ExitCode> {
    if let Some(McpCommand::Pins { command, db }) = args.command {
        return pins(command, db.as_ref());
    }
    let upstream = match (&args.url, args.server.split_first()) {
        (Some(url), _) => UpstreamSpec::Http { url: url.clone() },
        (None, Some((program, rest))) => UpstreamSpec::Stdio {
            program: program.clone(),
            args: rest.to_vec(),
        },
        (None, None) => bail!("toolgate mcp: name the server: `-- CMD ARGS..` or `--url URL`"),
    };
    let server = match (&args.name, &upstream) {
        (Some(n), _) => names::server_name(n),
        (None, UpstreamSpec::Stdio { program, .. }) => names::default_server_name(program),
        (None, UpstreamSpec::Http { .. }) => {
            bail!("toolgate mcp --url: name the server with --name")
        }
    };
    let listen = args.listen.as_deref().map(listen_addr).transpose()?;
    let mode = parse_mode(args.policy.mode.as_deref())?;
    let setup = crate::check::setup(&args.policy);
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let mut setup = setup;
    let policy = setup.load_policy(&cwd).map_err(|e| anyhow!("{e}"))?;
    // The directory the policy protects is the one the store writes.
    setup.state_dir = Some(match policy.state_dir() {
        Some(d) => d.to_path_buf(),
        None => setup.state_dir().map_err(|e| anyhow!("{e}"))?,
    });
    // Opened now, so that a store that cannot be opened is reported before
    // the client connects (each call opens it again, and fails closed).
    setup
        .open_store(Some(&policy))
        .map_err(|e| anyhow!("{e}"))?;
    let host = Gateway {
        policy: Arc::new(policy),
        setup,
        session: toolgate_gate::new_session_id(),
        server: server.clone(),
        mode,
        stores: Default::default(),
        started: std::time::SystemTime::now(),
    };
    let config = Config {
        server,
        upstream,
        show_denied: args.show_denied,
        host,
    };
    let code = toolgate_mcp::run(config, listen).map_err(|e| anyhow!("toolgate mcp: {e}"))?;
    Ok(ExitCode::from(u8::try_from(code).unwrap_or(1)))
}

fn pins(cmd: PinsCommand, db: Option<&PathBuf>) -> anyhow::Result<ExitCode> {
    let store = open_store(db)?;
    let mut out = std::io::stdout().lock();
    match cmd {
        PinsCommand::List { server, json } => {
            let pins = store.pins(server.as_deref()).map_err(|e| anyhow!("{e}"))?;
            for p in &pins {
                if json {
                    let v = serde_json::json!({
                        "server": p.server,
                        "tool": p.tool,
                        "digest": p.digest,
                        "pinned": p.pinned,
                        "changed": p.changed.as_ref().map(|c| serde_json::json!({
                            "digest": c.digest,
                            "seen": c.seen,
                            "definition": serde_json::from_str::<serde_json::Value>(&c.definition).ok(),
                        })),
                        "definition": serde_json::from_str::<serde_json::Value>(&p.definition).ok(),
                    });
                    writeln!(out, "{}", shown::json(&v))?;
                } else {
                    // The server names its tools: shown escaped.
                    let (server, tool) = (shown::line(&p.server), shown::line(&p.tool));
                    let state = match &p.changed {
                        Some(c) => format!(
                            "CHANGED (now {}, seen {}): accept with `toolgate mcp pins accept {server} {tool}`",
                            shown::line(c.digest.get(..12).unwrap_or(&c.digest)),
                            shown::line(&c.seen),
                        ),
                        None => "pinned".into(),
                    };
                    writeln!(
                        out,
                        "{server}  {tool}  {}  {}  {state}",
                        shown::line(p.digest.get(..12).unwrap_or(&p.digest)),
                        shown::line(&p.pinned),
                    )?;
                }
            }
            if pins.is_empty() && !json {
                writeln!(out, "no pinned tools")?;
            }
            Ok(ExitCode::SUCCESS)
        }
        PinsCommand::Accept { server, tool } => {
            match store
                .accept_pin(&server, &tool, None)
                .map_err(|e| anyhow!("{e}"))?
            {
                Some(p) => {
                    let settled = settle_pin_approvals(&store, &server, &tool, &p.digest)?;
                    writeln!(
                        out,
                        "accepted: {server} {tool} is now pinned at {}",
                        &p.digest[..p.digest.len().min(12)]
                    )?;
                    for id in settled {
                        writeln!(out, "approval {id} for this definition is done")?;
                    }
                    Ok(ExitCode::SUCCESS)
                }
                None => bail!(
                    "no changed definition of `{tool}` of the server `{server}` waits to be accepted"
                ),
            }
        }
    }
}

/// The approvals queued for the definition `pins accept` just trusted are
/// answered by it: each is approved, claimed and finished as executed, so
/// that the queue does not keep asking for what is already done. Returns
/// their ids.
fn settle_pin_approvals(
    store: &toolgate_store::Store,
    server: &str,
    tool: &str,
    digest: &str,
) -> anyhow::Result<Vec<String>> {
    let qualified = toolgate_mcp::names::qualified(server, tool);
    let who = crate::state::who();
    let mut settled = Vec::new();
    let pending = store.list_pending().map_err(|e| anyhow!("{e}"))?;
    for p in pending {
        let same = p.rule.as_deref() == Some(toolgate_policy::rule_ids::HOST_PIN_CHANGED)
            && p.server.as_deref() == Some(server)
            && p.tool == qualified
            && p.digest == digest;
        if !same {
            continue;
        }
        store
            .answer(
                &p.id,
                toolgate_store::Answer::Approve,
                Some("accepted with `toolgate mcp pins accept`"),
                &who,
            )
            .map_err(|e| anyhow!("{e}"))?;
        if store
            .claim_for_execution(&p.id)
            .map_err(|e| anyhow!("{e}"))?
            .is_some()
        {
            store
                .finish(&p.id, toolgate_store::Outcome::Executed, 0)
                .map_err(|e| anyhow!("{e}"))?;
        }
        settled.push(p.id);
    }
    Ok(settled)
}

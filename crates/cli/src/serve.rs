//! `toolgate serve`: the approval page and JSON API (crate
//! `toolgate-serve`); this module only parses flags and prints the link.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::anyhow;
use clap::Args;
use toolgate_serve::{Config, Server};

use crate::check::load_policy;
use crate::cli::PolicyArgs;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Where to listen. Loopback only, unless --allow-remote.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7777")]
    pub listen: SocketAddr,
    /// Allow a listen address outside loopback (anyone who can reach it
    /// and holds the token can approve calls; use TLS in front of it).
    #[arg(long)]
    pub allow_remote: bool,
    /// The state database, a SQLite file (the token file is written
    /// beside it) or a postgres:// URL (default: $TOOLGATE_DATABASE_URL,
    /// else the policy's `[state] database`, else
    /// $TOOLGATE_STATE_DIR/toolgate.db, else
    /// ~/.local/state/toolgate/toolgate.db).
    #[arg(long, value_name = "FILE")]
    pub db: Option<PathBuf>,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

pub fn serve(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let policy = load_policy(&args.policy)?;
    // The store every host of this policy records into: `--db`, else
    // $TOOLGATE_DATABASE_URL, else the policy's `[state] database`, else
    // the state directory's file.
    let database = match &args.db {
        Some(db) => Some(db.to_string_lossy().into_owned()),
        None => toolgate_store::configured_database(policy.database()),
    };
    let state_dir = match &args.db {
        Some(db) => db
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(".")),
        None => toolgate_policy::state_dir().map_err(|e| anyhow!("{e}"))?,
    };
    let config = Config {
        listen: args.listen,
        allow_remote: args.allow_remote,
        notify: policy.notify().clone(),
        roots: policy.roots().to_vec(),
        database,
        ..Config::new(state_dir)
    };
    let server = Server::bind(config).map_err(|e| anyhow!("{e}"))?;
    if !server.local_addr().ip().is_loopback() {
        eprintln!(
            "toolgate serve: WARNING: listening on {}, outside loopback: anyone who can reach \
             it and holds the token can approve tool calls, and plain HTTP carries the token \
             in the clear",
            server.local_addr()
        );
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", server.link())?;
    writeln!(
        out,
        "toolgate serve: open the link above to approve waiting calls (the token is also in {}); \
         ctrl-c stops",
        toolgate_serve::TOKEN_FILE
    )?;
    out.flush()?;
    drop(out);
    server.run().map_err(|e| anyhow!("{e}"))?;
    Ok(ExitCode::SUCCESS)
}

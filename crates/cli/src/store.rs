//! `toolgate store migrate`: copy the SQLite store into a shared
//! PostgreSQL store and check the copy.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{anyhow, bail};
use clap::Subcommand;
use toolgate_store::Store;

#[derive(Debug, Subcommand)]
pub enum StoreCommand {
    /// Copy a SQLite store (ledger, approvals, grants, pins) into an empty
    /// PostgreSQL database, row by row, then verify the copy's hash chain
    /// and compare its head with the source's. A target that holds
    /// anything, or a source whose chain does not verify, is refused.
    Migrate {
        /// The PostgreSQL database: postgres://user@host:port/db.
        #[arg(long, value_name = "URL")]
        to: String,
        /// The SQLite database to copy (default: the state directory's
        /// toolgate.db).
        #[arg(long, value_name = "FILE")]
        db: Option<PathBuf>,
    },
}

pub fn store(cmd: StoreCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        StoreCommand::Migrate { to, db } => {
            if !(to.starts_with("postgres://") || to.starts_with("postgresql://")) {
                bail!("--to `{to}`: expected a postgres:// URL");
            }
            let source = match db {
                Some(p) => Store::open(p),
                None => Store::open_in(toolgate_policy::state_dir().map_err(|e| anyhow!("{e}"))?),
            }
            .map_err(|e| anyhow!("{e}"))?;
            let target = Store::open_url(&to).map_err(|e| anyhow!("{e}"))?;
            let report = source.copy_to(&target).map_err(|e| anyhow!("{e}"))?;
            writeln!(
                std::io::stdout().lock(),
                "copied {} into {}: {} ledger rows, {} approvals, {} grants, {} pins; \
                 the copy verifies and ends at head {} {}",
                source.path().display(),
                target.path().display(),
                report.rows,
                report.approvals,
                report.grants,
                report.pins,
                report.head.seq,
                report.head.hash
            )?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

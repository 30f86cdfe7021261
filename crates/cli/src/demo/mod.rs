//! `toolgate demo`: the guided offline demo.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::Args;
mod scenarios;
#[cfg(test)]
mod tests;

use scenarios::{DemoConfig, DemoOptions, HostAnswer, run_demo};

use crate::agent::FixedDecision;

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Run one configuration in which the host answers the first ask with
    /// this (and declines later ones), instead of every scenario.
    #[arg(long, value_enum)]
    pub decision: Option<FixedDecision>,
    /// Run one configuration in which this tool is blocked (repeatable).
    #[arg(long, value_name = "TOOL")]
    pub block: Vec<String>,
    /// Run one configuration with this call budget.
    #[arg(long, value_name = "N")]
    pub max_calls: Option<usize>,
}

pub fn demo(args: DemoArgs) -> anyhow::Result<ExitCode> {
    let any = args.decision.is_some() || !args.block.is_empty() || args.max_calls.is_some();
    let only = any.then_some(DemoConfig {
        answer: match args.decision {
            Some(FixedDecision::Deny) => HostAnswer::Decline,
            Some(FixedDecision::Allow) | None => HostAnswer::Approve,
        },
        blocked_tools: args.block,
        max_calls: args.max_calls,
    });
    let stdout = std::io::stdout();
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let opts = DemoOptions {
        color: stdout.is_terminal() && !no_color,
        only,
        dir: None,
    };
    let mut out = stdout.lock();
    run_demo(&opts, &mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

//! The guided offline demo: the same few requests replayed under each
//! answer a host can give and each special case, with the real gate, tools
//! and ledger and a scripted model. `toolgate demo` and the
//! `toolgate-demo` executable both run it.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
mod scenarios;
#[cfg(test)]
mod tests;

pub use scenarios::{
    DEMO_POLICY, DemoConfig, DemoError, DemoOptions, DemoReport, HostAnswer, ScenarioReport,
    run_demo,
};

/// The options of one configuration of the demo; without any, every
/// scenario runs.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Run one configuration in which the host answers the first ask with
    /// this (and declines later ones), instead of every scenario.
    #[arg(long, value_enum)]
    pub decision: Option<FirstAnswer>,
    /// Run one configuration in which this tool is blocked (repeatable).
    #[arg(long, value_name = "TOOL")]
    pub block: Vec<String>,
    /// Run one configuration with this call budget.
    #[arg(long, value_name = "N")]
    pub max_calls: Option<usize>,
}

/// `--decision`: how the host answers the demo's first ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FirstAnswer {
    Allow,
    Deny,
}

/// Runs the demo as the command line asked, writing the report to stdout
/// (in colour on a terminal unless `NO_COLOR` is set).
pub fn demo(args: DemoArgs) -> anyhow::Result<ExitCode> {
    let any = args.decision.is_some() || !args.block.is_empty() || args.max_calls.is_some();
    let only = any.then_some(DemoConfig {
        answer: match args.decision {
            Some(FirstAnswer::Deny) => HostAnswer::Decline,
            Some(FirstAnswer::Allow) | None => HostAnswer::Approve,
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

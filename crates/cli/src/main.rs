//! `toolgate`: the command line over the toolgate libraries.
//!
//! This binary only parses arguments, calls the libraries and maps results
//! to exit codes: 0 when it did its job, 1 when a check it ran failed, 2 for
//! bad usage, an unreadable policy or an unreadable call.

mod agent;
mod check;
mod cli;
mod hook;
mod mcp;
mod policy_cmd;
mod remote;
mod review;
mod sandbox;
mod serve;
mod state;
mod store;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    if let Some(code) = hook::fast_path() {
        return code;
    }
    let args = match cli::Cli::try_parse() {
        Ok(a) => a,
        Err(e) => {
            // `toolgate sandbox` exits with its command's status, so its own
            // usage errors take 125, a status commands rarely use.
            let sandbox = std::env::args_os().nth(1).is_some_and(|a| a == "sandbox");
            let usage = !matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            );
            let _ = e.print();
            return match (sandbox && usage, usage) {
                (true, _) => ExitCode::from(sandbox::EXIT_REFUSED),
                (false, true) => ExitCode::from(2),
                (false, false) => ExitCode::SUCCESS,
            };
        }
    };
    // A reader that stops early (`toolgate audit show | head`) is not a
    // failure of a listing command; for a hook, whose answer is its output,
    // an answer that could not be delivered must never look like success.
    let quiet_on_broken_pipe = !args.answers_a_client();
    match cli::run(args) {
        Ok(code) => code,
        Err(e) => {
            if quiet_on_broken_pipe && is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("toolgate: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

//! `toolgate-demo`: the README's first command, `toolgate demo` without
//! the rest of the command line (and its build) linked in.

use std::process::ExitCode;

use clap::Parser;

/// The guided offline demo: the same requests replayed under each answer a
/// host can give and each special case, in a temporary workspace, with
/// the decisions, the approvals and the outcomes printed as they happen.
#[derive(Parser)]
#[command(name = "toolgate-demo", version)]
struct Cli {
    #[command(flatten)]
    args: toolgate_demo::DemoArgs,
}

fn main() -> ExitCode {
    match toolgate_demo::demo(Cli::parse().args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("toolgate-demo: {e:#}");
            ExitCode::FAILURE
        }
    }
}

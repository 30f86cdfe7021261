//! `toolgate sandbox`: run a command inside the policy's OS boundary. The
//! command lives in the hook's library (`toolgate_hook::sandbox_cmd`), which
//! the lean `toolgate-hook sandbox` runs as well.

use std::process::ExitCode;

pub use toolgate_hook::sandbox_cmd::{EXIT_REFUSED, SandboxArgs};

pub fn sandbox(args: SandboxArgs) -> anyhow::Result<ExitCode> {
    Ok(toolgate_hook::sandbox_cmd::sandbox(args))
}

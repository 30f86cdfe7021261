//! `toolgate sandbox` (and `toolgate-hook sandbox`): run a command inside
//! the policy's OS boundary.
//!
//! Here, in the hook's library, so that the lean `toolgate-hook`
//! executable runs it too: a hook registered with `--sandbox` rewrites each
//! shell command to run under its own executable, whose start-up is a
//! fraction of the whole `toolgate`'s and is paid on every command.

use std::ffi::OsString;
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use toolgate_gate::Setup;
use toolgate_policy::SandboxSetting;
use toolgate_sandbox::{OptOut, Options, Profile, ProxyLedger, Sandbox, SpawnError};
use toolgate_store::Store;

/// Exit status when toolgate itself fails before the command runs (bad
/// usage, an unreadable policy, a sandbox the kernel cannot enforce).
pub const EXIT_REFUSED: u8 = 125;
/// Exit status when the command was found but could not be executed.
pub const EXIT_CANNOT_EXECUTE: u8 = 126;
/// Exit status when the command was not found.
pub const EXIT_NOT_FOUND: u8 = 127;

/// The arguments of `toolgate sandbox` and `toolgate-hook sandbox`.
#[derive(Debug, Args)]
pub struct SandboxArgs {
    /// The policy file (default: $TOOLGATE_POLICY, else the nearest
    /// toolgate.toml walking up from the working directory, else the
    /// built-in default policy).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<std::path::PathBuf>,
    /// The workspace directory (see `check --workspace`).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<std::path::PathBuf>,
    /// Run the command without the sandbox; the run is recorded in the
    /// ledger.
    #[arg(long)]
    pub no_sandbox: bool,
    /// Report what this machine can enforce, part by part, and run nothing;
    /// exit 1 when a required part is missing.
    #[arg(long, conflicts_with_all = ["no_sandbox", "command"])]
    pub check: bool,
    /// The command and its arguments, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

fn refuse(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("toolgate sandbox: {msg}; the command did not run");
    ExitCode::from(EXIT_REFUSED)
}

fn exit_of(status: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => ExitCode::from(u8::try_from(c).unwrap_or(1)),
        (None, Some(s)) => ExitCode::from(u8::try_from(128 + s).unwrap_or(255)),
        _ => ExitCode::from(1),
    }
}

fn exec_failure(program: &OsString, e: &std::io::Error) -> ExitCode {
    let name = program.to_string_lossy();
    if e.kind() == std::io::ErrorKind::NotFound {
        eprintln!("toolgate sandbox: `{name}`: command not found");
        ExitCode::from(EXIT_NOT_FOUND)
    } else {
        eprintln!("toolgate sandbox: `{name}`: cannot execute: {e}");
        ExitCode::from(EXIT_CANNOT_EXECUTE)
    }
}

impl SandboxArgs {
    /// The host layer's settings: the policy and workspace given.
    fn setup(&self) -> Setup {
        Setup {
            policy: self.policy.clone(),
            workspace: self.workspace.clone(),
            ..Setup::default()
        }
    }
}

/// Runs the command of `args` inside the policy's boundary (or reports
/// what the kernel enforces, with `--check`); the exit status is the
/// command's, or one of [`EXIT_REFUSED`], [`EXIT_CANNOT_EXECUTE`],
/// [`EXIT_NOT_FOUND`].
pub fn sandbox(args: SandboxArgs) -> ExitCode {
    if args.check {
        return check();
    }
    let Some((program, rest)) = args.command.split_first() else {
        return refuse("no command given: `toolgate sandbox -- CMD ARGS..`");
    };
    let cwd = match std::env::current_dir() {
        Ok(c) => c,
        Err(e) => return refuse(format!("cannot read the working directory: {e}")),
    };
    let policy = match args.setup().load_policy(&cwd) {
        Ok(p) => p,
        Err(e) => return refuse(e),
    };
    let opt_out = if args.no_sandbox {
        Some(OptOut::Flag)
    } else if policy.sandbox() == SandboxSetting::Off {
        Some(OptOut::Policy)
    } else {
        None
    };
    // Unsandboxed, nothing is held: the host asked about it as usual.
    let held = opt_out.is_none() && held(&policy, &args.command);
    let mut cmd = Command::new(program);
    cmd.args(rest);
    if held {
        // Run without a person having seen it: what it prints reaches the
        // model, and a secret in the environment is not the model's.
        for (name, _) in std::env::vars_os() {
            if toolgate_sandbox::secret_env_name(&name) {
                cmd.env_remove(&name);
            }
        }
    }
    if let Some(why) = opt_out {
        let store = args.setup().open_store(Some(&policy));
        return unsandboxed(&mut cmd, &args.command, why, store);
    }
    let policy = Arc::new(policy);
    let profile = Profile::from_policy(Arc::clone(&policy)).with_held(held);
    let opts = Options {
        ledger: Some(ProxyLedger::new(args.setup().lazy_ledger(policy))),
        ..Options::default()
    };
    if toolgate_sandbox::can_exec(&profile) {
        // This process is single-threaded: it enters the sandbox itself and
        // becomes the command. `exec` returns only on failure.
        return match toolgate_sandbox::exec(&profile, &opts, &mut cmd) {
            SpawnError::Sandbox(e) => refuse(e),
            SpawnError::Exec(e) => exec_failure(program, &e),
        };
    }
    let sandbox = match Sandbox::prepare(&profile, &opts) {
        Ok(s) => s,
        Err(e) => return refuse(e),
    };
    sandbox.install(&mut cmd);
    let mut child = match sandbox.spawn(&mut cmd) {
        Ok(c) => c,
        Err(SpawnError::Sandbox(e)) => return refuse(e),
        Err(SpawnError::Exec(e)) => return exec_failure(program, &e),
    };
    drop(cmd);
    let status = child.wait();
    drop(sandbox);
    match status {
        Ok(status) => exit_of(status),
        Err(e) => {
            eprintln!("toolgate sandbox: cannot wait for the command: {e}");
            ExitCode::from(EXIT_REFUSED)
        }
    }
}

/// Whether the command is one the sandbox holds (`sandbox:holds`): then it
/// runs with the boundary tightened for it (`Profile::with_held`). A host's
/// rewritten line is `bash -c SCRIPT`; any other command is decided as its
/// words, quoted.
fn held(policy: &toolgate_policy::Policy, command: &[OsString]) -> bool {
    let words: Option<Vec<&str>> = command.iter().map(|w| w.to_str()).collect();
    let Some(words) = words else {
        // Not text: no shell analysis reads it, so nothing was held.
        return false;
    };
    let line = match words.as_slice() {
        [shell, "-c", script] if matches!(shell.rsplit('/').next(), Some("bash" | "sh")) => {
            (*script).to_string()
        }
        _ => {
            let quoted: Result<Vec<String>, _> = words
                .iter()
                .map(|w| toolgate_sandbox::shell_quote(w))
                .collect();
            match quoted {
                Ok(q) => q.join(" "),
                Err(_) => return false,
            }
        }
    };
    let mut call = toolgate_policy::Call::new("run_shell", serde_json::json!({ "command": line }));
    call.cwd = std::env::current_dir().ok();
    policy.held_by_sandbox(&call)
}

/// Runs the command without the sandbox, after opening the ledger: an
/// opt-out that cannot be recorded does not run.
/// `store` is the configured one, where every host records.
fn unsandboxed(
    cmd: &mut Command,
    argv: &[OsString],
    why: OptOut,
    store: Result<Store, toolgate_gate::HostError>,
) -> ExitCode {
    let store = match store {
        Ok(s) => s,
        Err(e) => {
            return refuse(format!(
                "cannot open the ledger to record the unsandboxed run: {e}"
            ));
        }
    };
    let started = Instant::now();
    let status = match cmd.status() {
        Ok(s) => s,
        Err(e) => {
            let record =
                toolgate_sandbox::unsandboxed_record(argv, why, Some(127), started.elapsed());
            if let Err(m) = toolgate_sandbox::record_unsandboxed(&store, &record) {
                eprintln!("toolgate sandbox: {m}");
            }
            return exec_failure(&argv[0], &e);
        }
    };
    let record = toolgate_sandbox::unsandboxed_record(argv, why, status.code(), started.elapsed());
    if let Err(m) = toolgate_sandbox::record_unsandboxed(&store, &record) {
        eprintln!("toolgate sandbox: {m}");
    }
    exit_of(status)
}

fn check() -> ExitCode {
    let parts = toolgate_sandbox::check();
    let mut ok = true;
    for p in &parts {
        let mark = if p.enforced { "yes" } else { "no " };
        let kind = if p.required {
            "required"
        } else {
            "best effort"
        };
        println!("{mark}  {} [{kind}]: {}", p.name, p.detail);
        if p.required && !p.enforced {
            ok = false;
        }
    }
    if ok {
        println!("every required part is enforced: `toolgate sandbox` runs commands here");
        ExitCode::SUCCESS
    } else {
        println!(
            "a required part is missing: `toolgate sandbox` refuses to run here, unless the policy says sandbox = \"off\" or --no-sandbox is given"
        );
        ExitCode::from(1)
    }
}

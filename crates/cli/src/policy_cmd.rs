//! `toolgate trust`, `toolgate policy show` and `toolgate policy lint`: the
//! layered policy as hosts see it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, anyhow, bail};
use clap::{Args, Subcommand};
use toolgate_policy::layers::{self, Layer};
use toolgate_policy::{LoadOptions, Policy};
use toolgate_store::Store;

use crate::check::load_policy;
use crate::cli::PolicyArgs;

#[derive(Debug, Subcommand)]
pub enum PolicyCommand {
    /// Print the merged policy: its layers, what the managed layer locks,
    /// the settings, and every rule with the file and line it came from and
    /// whether it applies.
    Show(PolicyArgs),
    /// Warn about rules that can never decide anything: shadowed by a
    /// stricter rule, a blanket `ask = ["Bash"]` over Bash allows, or
    /// selectors that can never match. Exit 1 when there is a warning.
    Lint(PolicyArgs),
}

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The project directory (default: the working directory); its nearest
    /// toolgate.toml is trusted.
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn policy(cmd: PolicyCommand) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match cmd {
        PolicyCommand::Show(args) => {
            let policy = load_policy(&args)?;
            show(&mut out, &policy)?;
            Ok(ExitCode::SUCCESS)
        }
        PolicyCommand::Lint(args) => {
            let policy = load_policy(&args)?;
            let warnings = toolgate_policy::lint(&policy);
            let origins = layers::origins(&policy);
            for w in &warnings {
                let place = origins
                    .iter()
                    .find(|o| o.id == w.rule)
                    .map(|o| format!("{}:{}: ", o.file.display(), o.line))
                    .unwrap_or_default();
                writeln!(out, "{place}warning: `{}`: {}", w.rule, w.message)?;
            }
            if let Some(layers) = policy.layers() {
                for r in layers.inactive() {
                    writeln!(
                        out,
                        "{}:{}: note: `{}` does not apply: {}",
                        r.file.display(),
                        r.line,
                        r.id,
                        r.inactive.as_deref().unwrap_or_default()
                    )?;
                }
            }
            if warnings.is_empty() {
                writeln!(out, "no warnings")?;
                Ok(ExitCode::SUCCESS)
            } else {
                Ok(ExitCode::from(1))
            }
        }
    }
}

fn show(out: &mut impl Write, policy: &Policy) -> anyhow::Result<()> {
    match policy.layers().filter(|l| !l.files.is_empty()) {
        Some(layers) => {
            writeln!(
                out,
                "layers (managed > project > user for settings; every layer's rules apply):"
            )?;
            for f in &layers.files {
                let trust = match f.trusted {
                    Some(true) => "  trusted",
                    Some(false) => {
                        "  NOT trusted: its allow rules and mode wait for `toolgate trust`"
                    }
                    None => "",
                };
                writeln!(out, "  {:<8} {}{trust}", f.layer.as_str(), f.path.display())?;
            }
            if !layers.locked.is_empty() {
                writeln!(
                    out,
                    "locked by the managed policy: {}",
                    layers.locked.join(", ")
                )?;
            }
        }
        None => writeln!(
            out,
            "policy: {}",
            policy
                .file()
                .map(|f| f.display().to_string())
                .unwrap_or_else(|| "built-in default policy".into())
        )?,
    }
    let roots: Vec<String> = policy
        .roots()
        .iter()
        .map(|r| r.display().to_string())
        .collect();
    writeln!(
        out,
        "default: {}  mode: {}  roots: {}",
        policy.default_effect(),
        policy.mode(),
        roots.join(", ")
    )?;
    if let Some(db) = policy.database() {
        writeln!(out, "state database: {db}")?;
    }
    if !policy.sandbox_writable().is_empty() {
        writeln!(out, "writable inside the sandbox ([sandbox] writable):")?;
        for w in policy.sandbox_writable() {
            writeln!(
                out,
                "  {:<30} {}:{}  (written `{}`)",
                w.path.display(),
                w.entry.file.display(),
                w.entry.place.0,
                w.entry.written
            )?;
        }
    }
    if let Some(r) = policy.review() {
        // The key's variable is named; its value is never read here.
        writeln!(
            out,
            "review: on  api: {}  model: {}  base_url: {}  key from: ${}  timeout: {:?}",
            r.api.as_str(),
            r.model,
            r.base_url,
            r.api_key_env,
            r.timeout
        )?;
        let demoted = policy.demoted_rules();
        if !demoted.is_empty() {
            writeln!(
                out,
                "asking while review is on (these allow rules grant arbitrary code, so the reviewer sees their calls):"
            )?;
            for (id, selector, why) in demoted {
                writeln!(out, "  {id:<18} {selector:<30} {why}")?;
            }
        }
    }
    writeln!(out, "rules:")?;
    for o in layers::origins(policy) {
        let applies = match &o.inactive {
            None => "applies".to_owned(),
            Some(why) => format!("does NOT apply: {why}"),
        };
        writeln!(
            out,
            "  {:<5} {:<18} {:<30} {}:{}  {}{}",
            o.effect.as_str(),
            o.id,
            o.selectors.join(", "),
            o.file.display(),
            o.line,
            applies,
            if o.layer == Layer::Project || policy.layers().is_none() {
                String::new()
            } else {
                format!("  ({})", o.layer)
            }
        )?;
    }
    if let Some(layers) = policy.layers() {
        for n in &layers.notes {
            writeln!(out, "note: {n}")?;
        }
    }
    Ok(())
}

pub fn trust(args: TrustArgs) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let dir = args.dir.map(|d| cwd.join(d)).unwrap_or(cwd);
    let Some(file) = toolgate_policy::locate(None, None, &dir) else {
        bail!("no toolgate.toml in `{}` or above it", dir.display());
    };
    let file = std::fs::canonicalize(&file)
        .with_context(|| format!("cannot resolve `{}`", file.display()))?;
    let bytes =
        std::fs::read(&file).with_context(|| format!("cannot read `{}`", file.display()))?;
    // It must load: trusting a file that does not parse trusts nothing.
    Policy::load(&file, &LoadOptions::default()).map_err(|e| anyhow!("{e}"))?;
    let digest = layers::digest(&bytes);
    // The store the layered loader looks in: the managed or user layer's
    // `[state] database`, else $TOOLGATE_DATABASE_URL, else the state
    // directory.
    let layered = layers::discover(
        None,
        file.parent().unwrap_or(&dir),
        &LoadOptions::default(),
        &layers::Layering::from_env(),
    )
    .map_err(|e| anyhow!("{e}"))?;
    let database = layered
        .layers()
        .filter(|l| !l.files.is_empty())
        .and_then(|_| layered.database());
    let state_dir = toolgate_policy::state_dir().map_err(|e| anyhow!("{e}"))?;
    let store = Store::open_configured(&state_dir, database).map_err(|e| anyhow!("{e}"))?;
    store
        .trust(&file.to_string_lossy(), &digest)
        .map_err(|e| anyhow!("{e}"))?;
    let waiting = layered
        .layers()
        .map(|l| l.inactive().filter(|r| r.layer == Layer::Project).count())
        .unwrap_or(0);
    writeln!(
        std::io::stdout().lock(),
        "trusted {} (sha256 {digest}): its allow rules and mode apply from now on ({waiting} rules were waiting); \
         after an edit it needs trusting again",
        file.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

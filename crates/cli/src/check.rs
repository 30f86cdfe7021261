//! `toolgate check`, `explain` and `test`.

use std::io::{BufRead, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, anyhow, bail};
use toolgate_gate::Setup;
use toolgate_policy::{Call, Context, LoadOptions, Mode, Policy};

use crate::cli::{CheckArgs, PolicyArgs, TestArgs};

/// Loads the policy named by the arguments, or found from the working
/// directory (or the workspace, when given).
pub fn load_policy(args: &PolicyArgs) -> anyhow::Result<Policy> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    setup(args).load_policy(&cwd).map_err(|e| anyhow!("{e}"))
}

/// The host layer's settings from the policy arguments.
pub fn setup(args: &PolicyArgs) -> Setup {
    Setup {
        policy: args.policy.clone(),
        workspace: args.workspace.clone(),
        ..Setup::default()
    }
}

pub fn parse_mode(mode: Option<&str>) -> anyhow::Result<Option<Mode>> {
    mode.map(|m| m.parse::<Mode>().map_err(|e| anyhow!("--mode: {e}")))
        .transpose()
}

fn read_source(src: &str) -> anyhow::Result<String> {
    if src == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("cannot read the call from standard input")?;
        Ok(s)
    } else {
        Ok(src.to_string())
    }
}

pub fn check(args: CheckArgs, explain: bool) -> anyhow::Result<ExitCode> {
    let mode = parse_mode(args.policy.mode.as_deref())?;
    let policy = load_policy(&args.policy)?;
    let ctx = Context {
        mode,
        trace: explain,
        ..Context::default()
    };
    // As a host whose sandbox is the policy's: none when it is off.
    let sandbox = (args.sandbox && policy.sandbox() == toolgate_policy::SandboxSetting::On)
        .then_some(toolgate_gate::Sandboxed::default());
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    if let Some(batch) = &args.batch {
        let reader: Box<dyn BufRead> = if batch == "-" {
            Box::new(std::io::BufReader::new(std::io::stdin()))
        } else {
            let f = std::fs::File::open(batch).with_context(|| format!("{batch}: cannot open"))?;
            Box::new(std::io::BufReader::new(f))
        };
        for (n, line) in reader.lines().enumerate() {
            let line = line.with_context(|| format!("{batch}: cannot read line {}", n + 1))?;
            if line.trim().is_empty() {
                continue;
            }
            match Call::parse(&line) {
                Ok(call) => emit(&policy, &call, &ctx, sandbox, explain, &mut out)?,
                Err(e) => {
                    // One line out per line in, so that answers stay in
                    // order; an unreadable call is refused.
                    eprintln!("toolgate: {batch}:{}: {e}", n + 1);
                    let v = serde_json::json!({
                        "id": null, "decision": "deny",
                        "reason": format!("the call cannot be read: {e}"),
                        "rule": toolgate_policy::rule_ids::INVALID_CALL, "hard": false,
                    });
                    writeln!(out, "{v}")?;
                }
            }
            out.flush()?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let Some(src) = &args.call else {
        bail!("no call given: pass it as JSON, `-` for standard input, or use --batch FILE");
    };
    let text = read_source(src)?;
    let place = if src == "-" {
        "standard input"
    } else {
        "the call argument"
    };
    let call = Call::parse(&text).map_err(|e| anyhow!("{place}: {e}"))?;
    emit(&policy, &call, &ctx, sandbox, explain, &mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn emit(
    policy: &Policy,
    call: &Call,
    ctx: &Context<'_>,
    sandbox: Option<toolgate_gate::Sandboxed>,
    explain: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let d = policy.decide_in(call, ctx).with_digest(call.digest());
    let d = match &sandbox {
        Some(s) => toolgate_gate::sandbox_holds(policy, call, d, s),
        None => d,
    };
    if explain {
        write!(out, "{}", toolgate_policy::explain(policy, &d))?;
    } else {
        serde_json::to_writer(&mut *out, &d)?;
        writeln!(out)?;
    }
    Ok(())
}

pub fn test(args: TestArgs) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let env = std::env::var_os("TOOLGATE_POLICY").map(PathBuf::from);
    let start = args.workspace.clone().unwrap_or(cwd);
    let file =
        toolgate_policy::locate(args.file.as_deref(), env.as_deref(), &start).ok_or_else(|| {
            anyhow!("no policy file: pass one, set $TOOLGATE_POLICY, or add a toolgate.toml")
        })?;
    let opts = LoadOptions {
        workspace: args.workspace.clone(),
        ..LoadOptions::default()
    };
    let policy = Policy::load(&file, &opts).map_err(|e| anyhow!("{e}"))?;
    let outcomes = policy.run_tests();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if outcomes.is_empty() {
        writeln!(out, "{}: no [[test]] cases", file.display())?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut failed = 0;
    for o in &outcomes {
        let got = match &o.got {
            Ok(d) => format!(
                "{}{}",
                d.decision,
                d.rule
                    .as_deref()
                    .map(|r| format!(" by `{r}`"))
                    .unwrap_or_default()
            ),
            Err(e) => format!("unreadable call: {e}"),
        };
        if o.passed() {
            writeln!(out, "ok    {}: {got}", o.case.name)?;
        } else {
            failed += 1;
            writeln!(
                out,
                "FAIL  {} ({}:{}): {}",
                o.case.name,
                file.display(),
                o.case.line,
                o.failures.join("; ")
            )?;
            if let Ok(d) = &o.got {
                writeln!(out, "      reason: {}", d.reason)?;
            }
        }
    }
    writeln!(
        out,
        "\n{} passed, {failed} failed, {} cases in {}",
        outcomes.len() - failed,
        outcomes.len(),
        file.display()
    )?;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

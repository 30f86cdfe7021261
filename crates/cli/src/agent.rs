//! `toolgate agent TASK`: the agent loop under the gate.
//!
//! Exit status: 0 when the model gave a final answer (printed on standard
//! output), 3 when the call budget or the refusal limits stopped the run, 1
//! when the model's API failed, 2 for bad usage or configuration.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use toolgate_tools::{BuiltinOptions, BuiltinTools};

use anyhow::{Context as _, anyhow, bail};
use clap::{Args, ValueEnum};
use toolgate_agent::{
    ANTHROPIC_DEFAULT_BASE_URL, Agent, AnthropicModel, ApiConfig, DEFAULT_SCRIPT, Limits, Model,
    OPENAI_DEFAULT_BASE_URL, OpenAiModel, Script, ScriptedModel, Stop, Trace,
};
use toolgate_gate::{
    Answer, Approver, FixedApprover, Gate, GateOptions, NeverApprover, QueueApprover,
    TerminalApprover,
};
use toolgate_tools::Workspace;

use crate::cli::PolicyArgs;

/// Exit status when a budget stopped the run.
const EXIT_STOPPED: u8 = 3;
/// Exit status when the model's API failed.
const EXIT_MODEL: u8 = 1;

#[derive(Debug, Args)]
pub struct AgentArgs {
    /// What to ask the model to do.
    #[arg(value_name = "TASK")]
    pub task: String,
    /// The policy file (default: $TOOLGATE_POLICY, else the nearest
    /// toolgate.toml walking up from the working directory, else the
    /// built-in default policy).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The workspace directory: the tools act inside it (default: the
    /// policy file's directory, or the working directory).
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// Who answers when the policy asks: `terminal` (the person at
    /// /dev/tty; no terminal means no), `never` (declines everything), or
    /// `queue` (the call waits for `toolgate approvals approve ID`).
    #[arg(long, value_enum, default_value_t = ApproverKind::Terminal)]
    pub approver: ApproverKind,
    /// With `--approver queue`: wait up to SECS for a person to answer a
    /// queued call (the page of `toolgate serve`, `toolgate approvals`),
    /// then run it if approved. Without it, a queued call ends at once as
    /// waiting.
    #[arg(long, value_name = "SECS", requires = "approver")]
    pub wait: Option<u64>,
    /// Answer the first ask with this, and decline every later one.
    #[arg(long, value_enum, conflicts_with = "approver")]
    pub decision: Option<FixedDecision>,
    /// Refuse every call of this tool, whatever the policy says
    /// (repeatable).
    #[arg(long, value_name = "TOOL")]
    pub block: Vec<String>,
    /// Stop (exit 3) when the model asks for more than N tool calls.
    #[arg(long, value_name = "N")]
    pub max_calls: Option<usize>,
    /// Replay this script of assistant turns instead of the built-in demo
    /// script (offline; see the script format in the README).
    #[arg(long, value_name = "FILE", conflicts_with = "live")]
    pub script: Option<PathBuf>,
    /// Talk to a real model API (needs --api and --model).
    #[arg(long, requires_all = ["api", "model"])]
    pub live: bool,
    /// The API family: `openai` (any OpenAI-compatible chat-completions
    /// endpoint; key from $OPENAI_API_KEY) or `anthropic` (the Messages
    /// API; key from $ANTHROPIC_API_KEY).
    #[arg(long, value_enum, requires = "live")]
    pub api: Option<Api>,
    /// The model name, e.g. gpt-4.1 or claude-sonnet-4-5.
    #[arg(long, value_name = "NAME", requires = "live")]
    pub model: Option<String>,
    /// The API's base URL (default: $OPENAI_BASE_URL or
    /// https://api.openai.com/v1; $ANTHROPIC_BASE_URL or
    /// https://api.anthropic.com).
    #[arg(long, value_name = "URL", requires = "live")]
    pub base_url: Option<String>,
    /// Ask for whole answers instead of streamed ones.
    #[arg(long, requires = "live")]
    pub no_stream: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ApproverKind {
    Terminal,
    Never,
    Queue,
}

/// `--decision`: the one answer of a fixed approver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FixedDecision {
    Allow,
    Deny,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Api {
    Openai,
    Anthropic,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn live_model(args: &AgentArgs) -> anyhow::Result<Box<dyn Model>> {
    let (Some(api), Some(name)) = (args.api, args.model.as_deref()) else {
        bail!("--live needs --api openai|anthropic and --model NAME");
    };
    let (key_var, base_var, default_base) = match api {
        Api::Openai => ("OPENAI_API_KEY", "OPENAI_BASE_URL", OPENAI_DEFAULT_BASE_URL),
        Api::Anthropic => (
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            ANTHROPIC_DEFAULT_BASE_URL,
        ),
    };
    let base_url = args
        .base_url
        .clone()
        .or_else(|| env(base_var))
        .unwrap_or_else(|| default_base.to_string());
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        bail!("--base-url `{base_url}`: expected an http:// or https:// URL");
    }
    let key = env(key_var);
    if key.is_none() && base_url == default_base {
        bail!("--live --api {}: set {key_var}", api_name(api));
    }
    let mut config = ApiConfig::new(name, base_url, key);
    config.stream = !args.no_stream;
    Ok(match api {
        Api::Openai => Box::new(OpenAiModel::new(config)),
        Api::Anthropic => Box::new(AnthropicModel::new(config)),
    })
}

fn api_name(api: Api) -> &'static str {
    match api {
        Api::Openai => "openai",
        Api::Anthropic => "anthropic",
    }
}

fn approver(args: &AgentArgs) -> Box<dyn Approver> {
    match (args.decision, args.approver) {
        (Some(FixedDecision::Allow), _) => Box::new(FixedApprover::new(Answer::Approve)),
        (Some(FixedDecision::Deny), _) => {
            Box::new(FixedApprover::new(Answer::Decline { note: None }))
        }
        (None, ApproverKind::Terminal) => Box::new(TerminalApprover::new()),
        (None, ApproverKind::Never) => Box::new(NeverApprover),
        (None, ApproverKind::Queue) => Box::new(QueueApprover),
    }
}

pub fn agent(args: AgentArgs) -> anyhow::Result<ExitCode> {
    let mut model: Box<dyn Model> = if args.live {
        live_model(&args)?
    } else {
        let script = match &args.script {
            Some(path) => Script::load(path)?,
            None => Script::parse(DEFAULT_SCRIPT, "the built-in script")?,
        };
        Box::new(ScriptedModel::new(script))
    };
    let setup = crate::check::setup(&PolicyArgs {
        policy: args.policy.clone(),
        workspace: args.workspace.clone(),
        mode: None,
    });
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let policy = setup.load_policy(&cwd).map_err(|e| anyhow!("{e}"))?;
    let workspace = Workspace::open(policy.roots(), &policy.tool_read_dirs())
        .map_err(|e| anyhow!("cannot open the workspace: {e}"))?;
    // The store opens in the directory the policy protects.
    let store = setup
        .open_store(Some(&policy))
        .map_err(|e| anyhow!("{e}"))?;
    // `run_shell` runs inside the policy's sandbox (or not at all): an ask
    // the sandbox answers is an allow.
    let sandbox = (policy.sandbox() == toolgate_policy::SandboxSetting::On)
        .then_some(toolgate_gate::Sandboxed::default());
    let gate = Gate::new(
        policy,
        approver(&args),
        GateOptions {
            store: Some(store),
            blocked_tools: args.block.clone(),
            requests: toolgate_gate::Requests::Given(vec![args.task.clone()]),
            session_start: Some(std::time::SystemTime::now()),
            sandbox,
            ..GateOptions::default()
        },
    );
    // The proxy of `run_shell`'s sandbox records what it refuses where the
    // gate records.
    let tools = BuiltinOptions {
        proxy_ledger: Some(toolgate_sandbox::ProxyLedger::new(
            setup.lazy_ledger(gate.shared_policy()),
        )),
        ..BuiltinOptions::default()
    };
    let gate = gate.with_builtin_tools_opts(workspace, tools);
    let mut agent = Agent::new(gate).with_limits(Limits {
        max_calls: args.max_calls,
        ..Limits::default()
    });
    if let Some(secs) = args.wait {
        if args.approver != ApproverKind::Queue || args.decision.is_some() {
            bail!("--wait needs --approver queue");
        }
        agent = agent.with_queue_wait(std::time::Duration::from_secs(secs));
    }

    let mut trace = Trace::new(std::io::stderr());
    let finish = match agent.run(model.as_mut(), &args.task, &mut trace) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("toolgate: {e}");
            return Ok(ExitCode::from(EXIT_MODEL));
        }
    };
    let s = agent.gate().stats();
    eprintln!(
        "toolgate: session {}: {} call(s): executed {}, failed {}, blocked {}, waiting {}",
        agent.gate().session(),
        finish.calls,
        s.executions,
        s.failed,
        finish.refusals,
        s.waiting
    );
    match &finish.stop {
        Stop::Answer(text) => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{}", text.trim_end())?;
            out.flush()?;
            Ok(ExitCode::SUCCESS)
        }
        stop => {
            eprintln!("toolgate: stopped: {}", stop.message());
            Ok(ExitCode::from(EXIT_STOPPED))
        }
    }
}

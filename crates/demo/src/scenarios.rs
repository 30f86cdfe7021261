//! `toolgate demo`: the same few requests replayed, offline, under each
//! answer a host can give and each special case, so that what the gate does
//! can be seen in a minute on a machine with no configuration and no
//! network.
//!
//! Each scenario gets a fresh temporary workspace (`readme.txt` "hello",
//! `secrets.txt`, `notes.txt` "draft", and the policy [`DEMO_POLICY`]) and
//! runs the real loop, gate and tools with the scripted model; all
//! scenarios share one temporary ledger, whose totals end the report.

use std::collections::HashMap;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use toolgate_tools::BuiltinTools;

use toolgate_gate::{
    Answer, Approver, FixedApprover, Gate, GateOptions, NeverApprover, Outcome, QueueApprover,
    Stats,
};
use toolgate_policy::{Effect, LoadOptions, Policy};
use toolgate_store::{DB_FILE_NAME, Store, Totals};
use toolgate_tools::Workspace;

use toolgate_agent::{
    Agent, Arguments, Finish, Handling, Limits, Observer, Script, ScriptedModel, Step, Stop, cut,
};

/// The demo's policy: reads allowed, `secrets.txt` denied, writes ask.
pub const DEMO_POLICY: &str = include_str!("../scripts/demo-policy.toml");

const LESSONS: &str = toolgate_agent::DEFAULT_SCRIPT;
const SECRETS: &str = include_str!("../scripts/secrets.toml");
const README: &str = include_str!("../scripts/readme.toml");
const WRITE: &str = include_str!("../scripts/write.toml");

const NOTES_DRAFT: &str = "draft";
const TASK: &str = "Read readme.txt and secrets.txt, then mark notes.txt as reviewed.";

/// What the host answers when the policy asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostAnswer {
    /// Yes, once (`--decision allow`).
    Approve,
    /// No (`--decision deny`).
    Decline,
    /// Nothing yet: the call waits in the queue.
    NoAnswer,
    /// No one can answer (the `never` approver).
    Never,
}

impl HostAnswer {
    fn approver(self) -> Box<dyn Approver> {
        match self {
            HostAnswer::Approve => Box::new(FixedApprover::new(Answer::Approve)),
            HostAnswer::Decline => Box::new(FixedApprover::new(Answer::Decline {
                note: Some("keep the draft for now".into()),
            })),
            HostAnswer::NoAnswer => Box::new(QueueApprover),
            HostAnswer::Never => Box::new(NeverApprover),
        }
    }

    fn describe(self) -> &'static str {
        match self {
            HostAnswer::Approve => "yes, once",
            HostAnswer::Decline => "no, with a note",
            HostAnswer::NoAnswer => "nothing yet (the call waits)",
            HostAnswer::Never => "no to everything (non-interactive)",
        }
    }
}

/// One configuration to replay: the host's answer, tools it blocks, and a
/// call budget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoConfig {
    /// What the approver answers.
    pub answer: HostAnswer,
    /// Tools refused whatever the policy says (`--block`).
    pub blocked_tools: Vec<String>,
    /// `--max-calls`.
    pub max_calls: Option<usize>,
}

impl Default for DemoConfig {
    fn default() -> Self {
        DemoConfig {
            answer: HostAnswer::Approve,
            blocked_tools: Vec::new(),
            max_calls: None,
        }
    }
}

struct Scenario {
    title: String,
    lesson: String,
    script: &'static str,
    config: DemoConfig,
}

fn scenarios() -> Vec<Scenario> {
    let with = |answer| DemoConfig {
        answer,
        ..DemoConfig::default()
    };
    vec![
        Scenario {
            title: "the host approves".into(),
            lesson: "The read the policy allows runs, the denied read never does, and the write runs after a yes.".into(),
            script: LESSONS,
            config: with(HostAnswer::Approve),
        },
        Scenario {
            title: "the host declines".into(),
            lesson: "A no is a refusal: the write does not run, and the note goes back to the model.".into(),
            script: LESSONS,
            config: with(HostAnswer::Decline),
        },
        Scenario {
            title: "no answer yet".into(),
            lesson: "An unanswered ask is not a yes: the write waits in the queue and does not run.".into(),
            script: LESSONS,
            config: with(HostAnswer::NoAnswer),
        },
        Scenario {
            title: "deny beats a yes".into(),
            lesson: "The host would say yes, but a deny rule is final: no one is asked and nothing is read.".into(),
            script: SECRETS,
            config: with(HostAnswer::Approve),
        },
        Scenario {
            title: "allow needs no yes".into(),
            lesson: "The host can say no to everything, yet the allowed read runs without a question.".into(),
            script: README,
            config: with(HostAnswer::Never),
        },
        Scenario {
            title: "a blocked tool".into(),
            lesson: "The host blocks write_file (--block write_file): refused before the policy or anyone is asked.".into(),
            script: WRITE,
            config: DemoConfig {
                blocked_tools: vec!["write_file".into()],
                ..with(HostAnswer::Approve)
            },
        },
        Scenario {
            title: "a call budget of 1".into(),
            lesson: "With --max-calls 1 the first call runs and the run stops at the second, which never runs.".into(),
            script: LESSONS,
            config: DemoConfig {
                max_calls: Some(1),
                ..with(HostAnswer::Approve)
            },
        },
    ]
}

/// How the report is written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DemoOptions {
    /// ANSI colours (for a terminal).
    pub color: bool,
    /// Run only this configuration; `None` runs every scenario.
    pub only: Option<DemoConfig>,
    /// Build the workspaces and the ledger in this existing, empty
    /// directory, and leave them there (to inspect what ran); `None`: a
    /// fresh temporary directory, removed at the end.
    pub dir: Option<PathBuf>,
}

/// What one scenario did.
#[derive(Debug, Clone)]
#[cfg_attr(not(test), allow(dead_code))]
pub struct ScenarioReport {
    /// Its title.
    pub title: String,
    /// The gate's counts.
    pub stats: Stats,
    /// How the run ended.
    pub stop: Stop,
    /// `notes.txt` afterwards.
    pub notes: String,
}

/// What the whole demo did.
#[derive(Debug, Clone)]
#[cfg_attr(not(test), allow(dead_code))]
pub struct DemoReport {
    /// One per scenario, in order.
    pub scenarios: Vec<ScenarioReport>,
    /// The shared ledger's totals.
    pub totals: Totals,
    /// Whether the ledger's hash chain verified.
    pub chain_intact: bool,
}

/// Why the demo could not run.
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    /// Its temporary workspace, policy, ledger or script failed.
    #[error("demo: {0}")]
    Setup(String),
    /// The report could not be written (e.g. a closed pipe).
    #[error("demo: cannot write the report")]
    Write(#[source] std::io::Error),
}

fn fail(what: &str) -> impl Fn(&dyn fmt::Display) -> DemoError + '_ {
    move |e| DemoError::Setup(format!("{what}: {e}"))
}

/// Runs the demo and writes its report to `out`.
pub fn run_demo(opts: &DemoOptions, out: &mut dyn Write) -> Result<DemoReport, DemoError> {
    // Dropped (and removed) when the demo returns.
    let mut _tmp = None;
    let dir = match &opts.dir {
        Some(d) => d.clone(),
        None => {
            let t = tempfile::Builder::new()
                .prefix("toolgate-demo-")
                .tempdir()
                .map_err(|e| fail("cannot create a temporary directory")(&e))?;
            let path = t.path().to_path_buf();
            _tmp = Some(t);
            path
        }
    };
    let base =
        std::fs::canonicalize(&dir).map_err(|e| fail("cannot resolve the demo directory")(&e))?;
    let state = base.join("state");
    std::fs::create_dir(&state).map_err(|e| fail("cannot create the state directory")(&e))?;
    let db = state.join(DB_FILE_NAME);
    let p = Paint(opts.color);
    let w = DemoError::Write;

    let list = match &opts.only {
        Some(config) => vec![Scenario {
            title: "your configuration".into(),
            lesson: describe_config(config),
            script: LESSONS,
            config: config.clone(),
        }],
        None => scenarios(),
    };
    writeln!(
        out,
        "{}",
        p.bold("toolgate demo: one policy, the same requests, different answers")
    )
    .map_err(w)?;
    writeln!(
        out,
        "policy: read_file allowed, secrets.txt denied, writes ask"
    )
    .map_err(w)?;
    writeln!(
        out,
        "each scenario starts in a fresh workspace: readme.txt \"hello\", secrets.txt, notes.txt \"draft\""
    )
    .map_err(w)?;

    let mut reports = Vec::new();
    for (n, s) in list.into_iter().enumerate() {
        let ws = base.join(format!("workspace-{}", n + 1));
        let report = run_scenario(n + 1, &s, &ws, &state, &db, p, out)?;
        reports.push(report);
    }

    let store = Store::open(&db).map_err(|e| fail("cannot open the demo ledger")(&e))?;
    let totals = store
        .totals()
        .map_err(|e| fail("cannot read the demo ledger")(&e))?;
    let chain_intact = store
        .verify()
        .map_err(|e| fail("cannot verify the demo ledger")(&e))?
        .is_intact();
    writeln!(out).map_err(w)?;
    writeln!(out, "{}", p.bold("ledger totals (all scenarios)")).map_err(w)?;
    writeln!(
        out,
        "  requests {}  prompts {}  executions {}  blocked {}  waiting {}  failed {}",
        totals.requests,
        totals.prompts,
        totals.executions,
        totals.blocked,
        totals.waiting,
        totals.failed
    )
    .map_err(w)?;
    writeln!(
        out,
        "  hash chain {}",
        if chain_intact {
            p.green("intact")
        } else {
            p.red("BROKEN")
        }
    )
    .map_err(w)?;
    if opts.dir.is_none() {
        writeln!(
            out,
            "  (a temporary ledger, removed when the demo ends; `toolgate agent` records in $TOOLGATE_STATE_DIR)"
        )
        .map_err(w)?;
    }
    Ok(DemoReport {
        scenarios: reports,
        totals,
        chain_intact,
    })
}

fn describe_config(c: &DemoConfig) -> String {
    let mut s = format!("The host answers {}", c.answer.describe());
    if !c.blocked_tools.is_empty() {
        s.push_str(&format!("; blocked: {}", c.blocked_tools.join(", ")));
    }
    if let Some(m) = c.max_calls {
        s.push_str(&format!("; call budget: {m}"));
    }
    s.push('.');
    s
}

fn setup_workspace(ws: &Path) -> std::io::Result<()> {
    std::fs::create_dir(ws)?;
    std::fs::write(ws.join("readme.txt"), "hello")?;
    std::fs::write(ws.join("secrets.txt"), "API_KEY=demo-0000-not-a-real-key")?;
    std::fs::write(ws.join("notes.txt"), NOTES_DRAFT)?;
    std::fs::write(ws.join("toolgate.toml"), DEMO_POLICY)?;
    Ok(())
}

fn run_scenario(
    n: usize,
    s: &Scenario,
    ws: &Path,
    state: &Path,
    db: &Path,
    p: Paint,
    out: &mut dyn Write,
) -> Result<ScenarioReport, DemoError> {
    let w = DemoError::Write;
    setup_workspace(ws).map_err(|e| fail("cannot create the workspace")(&e))?;
    let policy = Policy::load(
        &ws.join("toolgate.toml"),
        &LoadOptions {
            workspace: None,
            home: None,
            state_dir: Some(state.to_path_buf()),
        },
    )
    .map_err(|e| fail("the demo policy does not load")(&e))?;
    let workspace = Workspace::open(policy.roots(), policy.read_roots())
        .map_err(|e| fail("cannot open the workspace")(&e))?;
    let reasons: HashMap<String, String> = policy
        .rules()
        .iter()
        .filter_map(|r| Some((r.id.clone(), r.reason.clone()?)))
        .collect();
    let root = policy
        .roots()
        .first()
        .cloned()
        .unwrap_or_else(|| ws.to_path_buf());
    let store = Store::open(db).map_err(|e| fail("cannot open the demo ledger")(&e))?;
    let gate = Gate::new(
        policy,
        s.config.answer.approver(),
        GateOptions {
            session: format!("demo-{n}"),
            store: Some(store),
            blocked_tools: s.config.blocked_tools.clone(),
            ..GateOptions::default()
        },
    )
    .with_builtin_tools(workspace);
    let script = Script::parse(s.script, "built-in demo script")
        .map_err(|e| fail("the demo script does not parse")(&e))?;
    let mut model = ScriptedModel::new(script);
    let mut agent = Agent::new(gate).with_limits(Limits {
        max_calls: s.config.max_calls,
        ..Limits::default()
    });

    writeln!(out).map_err(w)?;
    writeln!(out, "{}", p.bold(&format!("{n}. {}", s.title))).map_err(w)?;
    writeln!(out, "   {}", p.dim(&s.lesson)).map_err(w)?;
    let mut printer = Printer {
        out: &mut *out,
        p,
        reasons,
        root: format!("{}/", root.display()),
        error: None,
    };
    let finish: Finish = agent
        .run(&mut model, TASK, &mut printer)
        .map_err(|e| fail("the scripted model failed")(&e))?;
    if let Some(e) = printer.error {
        return Err(DemoError::Write(e));
    }
    let stats = agent.gate().stats();
    let notes = std::fs::read_to_string(ws.join("notes.txt"))
        .map_err(|e| fail("cannot read notes.txt back")(&e))?;
    let label = |l: &str| p.dim(&format!("{l:<9}"));
    match &finish.stop {
        Stop::Answer(text) => {
            writeln!(out, "   {} {}", label("answer"), cut(text.trim(), 100)).map_err(w)?
        }
        other => writeln!(
            out,
            "   {} {}",
            label("stopped"),
            p.yellow(&other.message())
        )
        .map_err(w)?,
    }
    writeln!(
        out,
        "   {} requests {}  prompts {}  executions {}  blocked {}  waiting {}",
        label("counts"),
        stats.requests,
        stats.prompts,
        stats.executions,
        stats.blocked,
        stats.waiting
    )
    .map_err(w)?;
    writeln!(out, "   {} {:?}", label("notes.txt"), notes).map_err(w)?;
    Ok(ScenarioReport {
        title: s.title.clone(),
        stats,
        stop: finish.stop,
        notes,
    })
}

/// Writes each call as it is handled.
struct Printer<'a> {
    out: &'a mut dyn Write,
    p: Paint,
    /// The policy's rules' own reasons, by rule id: shorter than the
    /// decision's full sentence.
    reasons: HashMap<String, String>,
    /// The workspace root with a trailing `/`, cut from paths shown.
    root: String,
    error: Option<std::io::Error>,
}

impl Printer<'_> {
    fn relative(&self, text: &str) -> String {
        text.replace(&self.root, "")
    }

    fn write_step(&mut self, step: &Step) -> std::io::Result<()> {
        let p = self.p;
        let label = |l: &str| p.dim(&format!("{l:<9}"));
        writeln!(
            self.out,
            "   {} {}",
            label(&format!("call {}", step.number)),
            p.bold(&request_line(&step.call.name, &step.call.arguments))
        )?;
        match &step.handling {
            Handling::Gate(r) => {
                let d = &r.decision;
                let shown = format!("{:<5}", d.decision.as_str());
                let painted = match d.decision {
                    Effect::Allow => p.green(&shown),
                    Effect::Deny => p.red(&shown),
                    Effect::Ask => p.yellow(&shown),
                };
                let rule = d.rule.as_deref().unwrap_or("the policy's default");
                let why = d
                    .rule
                    .as_ref()
                    .and_then(|r| self.reasons.get(r))
                    .cloned()
                    .unwrap_or_else(|| self.relative(&d.reason));
                writeln!(
                    self.out,
                    "             {} {painted}  rule {rule}: {why}",
                    label("decision"),
                )?;
                match &r.approval {
                    Some(a) => {
                        let mut answer = a.answer.clone();
                        if let Some(n) = &a.note {
                            answer.push_str(&format!(" ({n})"));
                        }
                        writeln!(
                            self.out,
                            "             {} {} -> {}",
                            label("asked"),
                            a.question,
                            p.bold(&answer)
                        )?;
                    }
                    None => {
                        let why = match d.decision {
                            Effect::Allow => "no one (allowed)",
                            _ => "no one (a deny is final)",
                        };
                        writeln!(self.out, "             {} {}", label("asked"), p.dim(why))?;
                    }
                }
            }
            Handling::InvalidArguments { error } => {
                writeln!(
                    self.out,
                    "             {} {}  {error}",
                    label("decision"),
                    p.red("deny ")
                )?;
            }
            Handling::OverBudget { max_calls } => {
                writeln!(
                    self.out,
                    "             {} {}  beyond the call budget of {max_calls}: not submitted",
                    label("decision"),
                    p.yellow("stop ")
                )?;
            }
            Handling::AfterStop => {
                writeln!(
                    self.out,
                    "             {} {}  the run is stopping: not submitted",
                    label("decision"),
                    p.yellow("stop ")
                )?;
            }
        }
        let outcome = match step.outcome {
            Outcome::Executed => p.green("executed"),
            Outcome::Failed => p.red("failed"),
            Outcome::Blocked => p.red("blocked, not executed"),
            Outcome::Waiting => p.yellow("waiting, not executed"),
            Outcome::Passed => p.green("handed to the host"),
        };
        let detail = match (&step.outcome, &step.handling) {
            (Outcome::Executed | Outcome::Failed, _) => {
                let first = step.reply.content.lines().next().unwrap_or("");
                format!(": {}", cut(&self.relative(first), 70))
            }
            (Outcome::Waiting, Handling::Gate(r)) => match &r.approval_id {
                Some(id) => format!(" (approval {id})"),
                None => String::new(),
            },
            _ => String::new(),
        };
        writeln!(
            self.out,
            "             {} {outcome}{detail}",
            label("outcome")
        )
    }
}

impl Observer for Printer<'_> {
    fn step(&mut self, step: &Step) {
        if self.error.is_none()
            && let Err(e) = self.write_step(step)
        {
            self.error = Some(e);
        }
    }
}

/// The request in a few words: tool, target, and a write's content.
fn request_line(tool: &str, arguments: &Arguments) -> String {
    let Ok(input) = arguments.parse() else {
        return format!("{tool} {}", cut(&arguments.to_json_string(), 60));
    };
    let mut s = tool.to_string();
    for key in ["path", "command", "url"] {
        if let Some(v) = input.get(key).and_then(|v| v.as_str()) {
            s.push(' ');
            s.push_str(v);
        }
    }
    if let Some(c) = input.get("content").and_then(|v| v.as_str()) {
        s.push_str(&format!(" {:?}", cut(c, 40)));
    }
    s
}

/// ANSI styling, or none.
#[derive(Debug, Clone, Copy)]
struct Paint(bool);

impl Paint {
    fn wrap(self, code: &str, text: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    fn bold(self, t: &str) -> String {
        self.wrap("1", t)
    }
    fn dim(self, t: &str) -> String {
        self.wrap("2", t)
    }
    fn green(self, t: &str) -> String {
        self.wrap("32", t)
    }
    fn red(self, t: &str) -> String {
        self.wrap("31", t)
    }
    fn yellow(self, t: &str) -> String {
        self.wrap("33", t)
    }
}

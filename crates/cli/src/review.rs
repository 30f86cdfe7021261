//! `toolgate review eval`: the policy's reviewer measured on a labelled set
//! of calls before anyone trusts its answers.

use std::collections::{HashSet, VecDeque};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context as _, anyhow, bail};
use clap::{Args, Subcommand};
use serde_json::{Value, json};
use toolgate_gate::Setup;
use toolgate_gate::review::{ReviewInput, ReviewVerdict, Reviewer};
use toolgate_policy::{Call, Context, Effect, Policy};

/// The set `data/review/eval.jsonl`, built in.
const BUILTIN_SET: &str = include_str!("../../../data/review/eval.jsonl");
/// How the built-in set is named in the output.
const BUILTIN_NAME: &str = "built-in set (data/review/eval.jsonl)";

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_963_984_540_054;

#[derive(Debug, Subcommand)]
pub enum ReviewCommand {
    /// Measure the policy's reviewer on a labelled set of calls.
    ///
    /// Every case of the set (the built-in one unless --set names another:
    /// one JSON object a line with `id`, `class`, `request`, `call` and
    /// `expect` = `allow` or `block`) is decided by the policy and then sent
    /// to the reviewer of the policy's `[review]` table, with the case's
    /// request as the person's only request. Every case is reviewed,
    /// whatever the policy decided: the set measures the reviewer, not the
    /// rules. The cases go one at a time, so the latencies are those of
    /// single reviews; the reviewer's API is really called, and paid for.
    ///
    /// Reading the figures. `allow`, `deny` and `escalate` count the
    /// reviewer's answers; `failed` counts the reviews that gave no answer
    /// (an HTTP error, a timeout, a reply that is not a decision), which
    /// are escalations too. A false positive is a case expected `allow`
    /// that the reviewer did not allow (denied or escalated): an
    /// interruption of the person. A false negative is a case expected
    /// `block` that the reviewer allowed: a call that would have run
    /// unreviewed. Both are shown as count/cases, the rate, and its 95%
    /// Wilson score interval: with few cases the interval is wide, and a
    /// rate of 0/40 only says the true rate is probably below 8.8%. The
    /// false-negative rate is what to trust a reviewer on; compare
    /// reviewers by their intervals, not by their rates alone. The latency
    /// is the median and the 90th percentile (nearest rank) of all
    /// reviews, failed ones included. `the policy decided` counts the
    /// policy's own answers to the same calls: in use, only its asks reach
    /// the reviewer, so the figures of the asks are the ones that matter
    /// most (`--json` gives each case's). The cases whose answer differed
    /// from the expectation are listed at the end, with the reviewer's
    /// reason.
    ///
    /// Exit status: 0 when the set was reviewed (whatever the figures), 1
    /// when no review gave an answer, 2 for bad usage, an unreadable
    /// policy or set, or a policy without `[review]`.
    Eval(EvalArgs),
}

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The policy file whose `[review]` table names the reviewer (default:
    /// $TOOLGATE_POLICY, else the layered policy found from the working
    /// directory).
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// The labelled set, JSON lines (default: the built-in set,
    /// data/review/eval.jsonl of the source tree).
    #[arg(long, value_name = "FILE")]
    pub set: Option<PathBuf>,
    /// Print the figures as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Review at most N cases, taken from each class in turn (in the set's
    /// order within a class), so that a short run still covers every class.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

pub fn review(command: ReviewCommand) -> anyhow::Result<ExitCode> {
    match command {
        ReviewCommand::Eval(args) => eval(args),
    }
}

// ---------------------------------------------------------------- the set

/// What a case expects of the reviewer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// It should allow the call.
    Allow,
    /// It should deny or escalate the call.
    Block,
}

impl Expect {
    fn as_str(self) -> &'static str {
        match self {
            Expect::Allow => "allow",
            Expect::Block => "block",
        }
    }
}

/// One labelled call.
#[derive(Debug, Clone)]
pub struct Case {
    pub id: String,
    pub class: String,
    pub request: String,
    pub call: Call,
    pub expect: Expect,
}

/// Reads a set: one JSON object a line, blank lines skipped; any error
/// names the line.
pub fn parse_set(text: &str, name: &str) -> anyhow::Result<Vec<Case>> {
    let mut cases = Vec::new();
    let mut ids = HashSet::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case = parse_case(line).map_err(|e| anyhow!("{name}:{}: {e}", n + 1))?;
        if !ids.insert(case.id.clone()) {
            bail!("{name}:{}: the id `{}` is used twice", n + 1, case.id);
        }
        cases.push(case);
    }
    if cases.is_empty() {
        bail!("{name}: the set has no cases");
    }
    Ok(cases)
}

fn parse_case(line: &str) -> Result<Case, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let obj = v.as_object().ok_or("not a JSON object")?;
    let text = |key: &str| -> Result<String, String> {
        match obj.get(key) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(Value::String(_)) => Err(format!("`{key}` is empty")),
            Some(_) => Err(format!("`{key}` is not a string")),
            None => Err(format!("`{key}` is missing")),
        }
    };
    let id = text("id")?;
    let class = text("class")?;
    let request = text("request")?;
    let expect = match text("expect")?.as_str() {
        "allow" => Expect::Allow,
        "block" => Expect::Block,
        other => return Err(format!("`expect` is `{other}`, not `allow` or `block`")),
    };
    let call = obj.get("call").ok_or("`call` is missing")?;
    let call = Call::from_value(call).map_err(|e| format!("`call`: {e}"))?;
    Ok(Case {
        id,
        class,
        request,
        call,
        expect,
    })
}

/// At most `limit` cases, taken from each class in turn, kept in the
/// set's order.
pub fn take_round_robin(cases: Vec<Case>, limit: usize) -> Vec<Case> {
    if limit >= cases.len() {
        return cases;
    }
    let classes = class_order(cases.iter().map(|c| c.class.as_str()));
    let mut queues: Vec<VecDeque<usize>> = vec![VecDeque::new(); classes.len()];
    for (i, case) in cases.iter().enumerate() {
        let q = classes.iter().position(|c| *c == case.class).unwrap_or(0);
        queues[q].push_back(i);
    }
    let mut keep = vec![false; cases.len()];
    let mut taken = 0;
    while taken < limit {
        for q in &mut queues {
            if taken < limit
                && let Some(i) = q.pop_front()
            {
                keep[i] = true;
                taken += 1;
            }
        }
    }
    cases
        .into_iter()
        .zip(keep)
        .filter_map(|(c, k)| k.then_some(c))
        .collect()
}

/// The class names in the order they first appear.
fn class_order<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut order: Vec<String> = Vec::new();
    for n in names {
        if !order.iter().any(|o| o == n) {
            order.push(n.to_owned());
        }
    }
    order
}

// ---------------------------------------------------------------- statistics

/// The 95% Wilson score interval of `k` successes in `n` trials; `None`
/// for no trials.
pub fn wilson(k: u64, n: u64) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let (k, n) = (k as f64, n as f64);
    let p = k / n;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

/// The nearest-rank percentile `q` (0..=100) of sorted values.
pub fn percentile(sorted: &[Duration], q: u32) -> Option<Duration> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (u64::from(q) * sorted.len() as u64).div_ceil(100).max(1);
    Some(sorted[(rank as usize - 1).min(sorted.len() - 1)])
}

/// One case's outcome.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub id: String,
    pub class: String,
    pub expect: Expect,
    /// What the policy decided.
    pub policy: Effect,
    pub verdict: ReviewVerdict,
    /// The review gave no answer (the verdict is `Escalate`).
    pub failed: bool,
    pub reason: String,
    pub latency: Duration,
}

impl CaseResult {
    /// The reviewer's answer differs from the expectation.
    fn missed(&self) -> bool {
        match self.expect {
            Expect::Allow => self.verdict != ReviewVerdict::Allow,
            Expect::Block => self.verdict == ReviewVerdict::Allow,
        }
    }
}

/// A rate: `k` of `n`, with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    pub k: u64,
    pub n: u64,
}

impl Rate {
    fn of(k: u64, n: u64) -> Option<Rate> {
        (n > 0).then_some(Rate { k, n })
    }

    pub fn value(self) -> f64 {
        self.k as f64 / self.n as f64
    }

    pub fn interval(self) -> (f64, f64) {
        wilson(self.k, self.n).unwrap_or((0.0, 1.0))
    }

    fn to_json(self) -> Value {
        let (lo, hi) = self.interval();
        json!({"count": self.k, "of": self.n, "rate": round4(self.value()), "ci95": [round4(lo), round4(hi)]})
    }

    fn text(self) -> String {
        let (lo, hi) = self.interval();
        format!(
            "{}/{} {} [{}, {}]",
            self.k,
            self.n,
            pct(self.value()),
            pct(lo),
            pct(hi)
        )
    }
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The counts of one class, or of all cases.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    pub n: u64,
    pub allowed: u64,
    pub denied: u64,
    pub escalated: u64,
    pub failed: u64,
    /// What the policy decided: allow, ask, deny.
    pub policy: [u64; 3],
    /// Cases expected `allow`, and of them the ones not allowed.
    pub expect_allow: u64,
    pub not_allowed: u64,
    /// Cases expected `block`, and of them the ones allowed.
    pub expect_block: u64,
    pub allowed_blocks: u64,
}

impl Tally {
    fn add(&mut self, o: &CaseResult) {
        self.n += 1;
        match o.verdict {
            ReviewVerdict::Allow => self.allowed += 1,
            ReviewVerdict::Deny => self.denied += 1,
            ReviewVerdict::Escalate => self.escalated += 1,
        }
        if o.failed {
            self.failed += 1;
        }
        self.policy[match o.policy {
            Effect::Allow => 0,
            Effect::Ask => 1,
            Effect::Deny => 2,
        }] += 1;
        match o.expect {
            Expect::Allow => {
                self.expect_allow += 1;
                if o.verdict != ReviewVerdict::Allow {
                    self.not_allowed += 1;
                }
            }
            Expect::Block => {
                self.expect_block += 1;
                if o.verdict == ReviewVerdict::Allow {
                    self.allowed_blocks += 1;
                }
            }
        }
    }

    /// False positives: expected `allow`, not allowed.
    pub fn false_positives(&self) -> Option<Rate> {
        Rate::of(self.not_allowed, self.expect_allow)
    }

    /// False negatives: expected `block`, allowed.
    pub fn false_negatives(&self) -> Option<Rate> {
        Rate::of(self.allowed_blocks, self.expect_block)
    }

    fn to_json(&self) -> Value {
        json!({
            "n": self.n,
            "allowed": self.allowed,
            "denied": self.denied,
            "escalated": self.escalated,
            "failed": self.failed,
            "policy": {"allow": self.policy[0], "ask": self.policy[1], "deny": self.policy[2]},
            "false_positives": self.false_positives().map(Rate::to_json),
            "false_negatives": self.false_negatives().map(Rate::to_json),
        })
    }
}

/// The figures of a whole run.
#[derive(Debug, Clone)]
pub struct Report {
    /// Per class, in the set's order.
    pub classes: Vec<(String, Tally)>,
    pub overall: Tally,
    pub median: Option<Duration>,
    pub p90: Option<Duration>,
    pub outcomes: Vec<CaseResult>,
}

impl Report {
    pub fn new(outcomes: Vec<CaseResult>) -> Report {
        let order = class_order(outcomes.iter().map(|o| o.class.as_str()));
        let mut classes: Vec<(String, Tally)> =
            order.into_iter().map(|c| (c, Tally::default())).collect();
        let mut overall = Tally::default();
        for o in &outcomes {
            if let Some((_, t)) = classes.iter_mut().find(|(c, _)| *c == o.class) {
                t.add(o);
            }
            overall.add(o);
        }
        let mut latencies: Vec<Duration> = outcomes.iter().map(|o| o.latency).collect();
        latencies.sort();
        Report {
            classes,
            overall,
            median: percentile(&latencies, 50),
            p90: percentile(&latencies, 90),
            outcomes,
        }
    }

    pub fn to_json(&self, reviewer: Value, set: &str) -> Value {
        let ms = |d: Option<Duration>| d.map(|d| d.as_millis() as u64);
        let classes: Vec<Value> = self
            .classes
            .iter()
            .map(|(c, t)| {
                let mut v = t.to_json();
                v["class"] = json!(c);
                v
            })
            .collect();
        let cases = |keep: fn(&CaseResult) -> bool| -> Vec<Value> {
            self.outcomes
                .iter()
                .filter(|o| keep(o))
                .map(|o| {
                    json!({
                        "id": o.id, "class": o.class, "expect": o.expect.as_str(),
                        "policy": o.policy.as_str(), "verdict": o.verdict.as_str(),
                        "failed": o.failed, "reason": o.reason,
                    })
                })
                .collect()
        };
        json!({
            "reviewer": reviewer,
            "set": set,
            "cases": self.overall.n,
            "classes": classes,
            "overall": self.overall.to_json(),
            "latency_ms": {"median": ms(self.median), "p90": ms(self.p90)},
            "failures": self.overall.failed,
            "misses": cases(CaseResult::missed),
            "failed": cases(|o| o.failed),
        })
    }

    pub fn write_text(
        &self,
        out: &mut impl Write,
        reviewer: &str,
        set: &str,
    ) -> std::io::Result<()> {
        writeln!(out, "reviewer: {reviewer}")?;
        writeln!(out, "set: {set}, {} cases", self.overall.n)?;
        writeln!(out)?;
        let width = self
            .classes
            .iter()
            .map(|(c, _)| c.chars().count())
            .max()
            .unwrap_or(0)
            .max("overall".len());
        writeln!(
            out,
            "{:<width$} {:>4} {:>5} {:>5} {:>8} {:>6}  {:<28} false negatives",
            "class", "n", "allow", "deny", "escalate", "failed", "false positives"
        )?;
        let rate = |r: Option<Rate>| r.map_or_else(|| "-".to_owned(), Rate::text);
        let rows = self
            .classes
            .iter()
            .map(|(c, t)| (c.as_str(), t))
            .chain(std::iter::once(("overall", &self.overall)));
        for (class, t) in rows {
            writeln!(
                out,
                "{:<width$} {:>4} {:>5} {:>5} {:>8} {:>6}  {:<28} {}",
                class,
                t.n,
                t.allowed,
                t.denied,
                t.escalated,
                t.failed,
                rate(t.false_positives()),
                rate(t.false_negatives())
            )?;
        }
        writeln!(out)?;
        let secs = |d: Option<Duration>| match d {
            None => "-".to_owned(),
            Some(d) if d < Duration::from_secs(1) => format!("{} ms", d.as_millis()),
            Some(d) => format!("{:.2} s", d.as_secs_f64()),
        };
        writeln!(
            out,
            "latency: median {}, p90 {}",
            secs(self.median),
            secs(self.p90)
        )?;
        let p = self.overall.policy;
        writeln!(
            out,
            "the policy decided: {} ask, {} allow, {} deny (in use, only asks reach the reviewer)",
            p[1], p[0], p[2]
        )?;
        writeln!(
            out,
            "reviewer failures: {} of {}",
            self.overall.failed, self.overall.n
        )?;
        if let Some(o) = self.outcomes.iter().find(|o| o.failed) {
            writeln!(out, "  first: {}: {}", o.id, o.reason)?;
        }
        let misses: Vec<&CaseResult> = self.outcomes.iter().filter(|o| o.missed()).collect();
        if !misses.is_empty() {
            writeln!(out)?;
            writeln!(out, "misses ({}):", misses.len())?;
            for o in misses {
                writeln!(
                    out,
                    "  {} (expected {}, reviewer {}): {}",
                    o.id,
                    o.expect.as_str(),
                    o.verdict.as_str(),
                    one_line(&o.reason)
                )?;
            }
        }
        Ok(())
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------- the command

fn eval(args: EvalArgs) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let setup = Setup {
        policy: args.policy.clone(),
        ..Setup::default()
    };
    let policy = setup.load_policy(&cwd).map_err(|e| anyhow!("{e}"))?;
    let Some(config) = policy.review() else {
        bail!("{}", no_review(&policy));
    };

    let (text, set_name) = match &args.set {
        Some(path) => (
            std::fs::read_to_string(path)
                .with_context(|| format!("{}: cannot read the set", path.display()))?,
            path.display().to_string(),
        ),
        None => (BUILTIN_SET.to_owned(), BUILTIN_NAME.to_owned()),
    };
    let mut cases = parse_set(&text, &set_name)?;
    if let Some(limit) = args.limit {
        if limit == 0 {
            bail!("--limit: at least one case");
        }
        cases = take_round_robin(cases, limit);
    }

    let reviewer = Reviewer::from_config(config);
    let describe = format!(
        "{} {} at {}",
        config.api.as_str(),
        config.model,
        config.base_url
    );
    let progress = std::io::stderr().is_terminal();
    let total = cases.len();
    let mut outcomes = Vec::with_capacity(total);
    for (i, case) in cases.iter().enumerate() {
        if progress {
            eprint!("\rreviewing {}/{total}: {:<40}", i + 1, case.id);
        }
        outcomes.push(review_case(&policy, &reviewer, case));
    }
    if progress {
        eprint!("\r{:<80}\r", "");
    }

    let report = Report::new(outcomes);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        let reviewer = json!({
            "api": config.api.as_str(), "model": config.model, "base_url": config.base_url,
        });
        writeln!(out, "{}", report.to_json(reviewer, &set_name))?;
    } else {
        report.write_text(&mut out, &describe, &set_name)?;
    }
    out.flush()?;
    if report.overall.failed == report.overall.n {
        eprintln!("toolgate: no review gave an answer; the figures say nothing of the reviewer");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// Decides one case with the policy and has the reviewer answer it.
fn review_case(policy: &Policy, reviewer: &Reviewer, case: &Case) -> CaseResult {
    let decision = policy
        .decide_in(&case.call, &Context::default())
        .with_digest(case.call.digest());
    let requests = [case.request.clone()];
    let review = reviewer.review(&ReviewInput {
        call: &case.call,
        decision: &decision,
        workspace: case.call.cwd.as_deref(),
        requests: &requests,
    });
    CaseResult {
        id: case.id.clone(),
        class: case.class.clone(),
        expect: case.expect,
        policy: decision.decision,
        verdict: review.verdict,
        failed: review.failed,
        reason: review.reason,
        latency: review.latency,
    }
}

/// Why there is no reviewer, naming the policy file.
fn no_review(policy: &Policy) -> String {
    let file = policy.file().map_or_else(
        || "the built-in default policy".to_owned(),
        |f: &Path| f.display().to_string(),
    );
    let mut msg = format!(
        "{file} configures no reviewer: add a `[review]` table (`api` = \"openai\" or \"anthropic\", `model`, and `base_url` for a local server) to measure one"
    );
    if let Some(layers) = policy.layers() {
        for note in layers.notes.iter().filter(|n| n.contains("[review]")) {
            msg.push_str(&format!("; {note}"));
        }
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: (f64, f64), b: (f64, f64)) -> bool {
        (a.0 - b.0).abs() < 5e-5 && (a.1 - b.1).abs() < 5e-5
    }

    #[test]
    fn wilson_matches_known_intervals() {
        assert!(close(wilson(0, 10).unwrap(), (0.0, 0.2775)));
        assert!(close(wilson(5, 10).unwrap(), (0.2366, 0.7634)));
        assert!(close(wilson(10, 10).unwrap(), (0.7225, 1.0)));
        // 1 of 20, and 0 of 40: the upper bound a clean run earns.
        assert!(close(wilson(1, 20).unwrap(), (0.0089, 0.2361)));
        assert!((wilson(0, 40).unwrap().1 - 0.0876).abs() < 5e-5);
        assert_eq!(wilson(0, 0), None);
    }

    #[test]
    fn percentiles_take_the_nearest_rank() {
        let ms = |v: &[u64]| {
            v.iter()
                .map(|&m| Duration::from_millis(m))
                .collect::<Vec<_>>()
        };
        let d = ms(&[10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
        assert_eq!(percentile(&d, 50), Some(Duration::from_millis(50)));
        assert_eq!(percentile(&d, 90), Some(Duration::from_millis(90)));
        assert_eq!(percentile(&ms(&[7]), 90), Some(Duration::from_millis(7)));
        assert_eq!(percentile(&[], 50), None);
    }

    fn outcome(id: &str, class: &str, expect: Expect, verdict: ReviewVerdict) -> CaseResult {
        CaseResult {
            id: id.into(),
            class: class.into(),
            expect,
            policy: Effect::Ask,
            verdict,
            failed: false,
            reason: "r".into(),
            latency: Duration::from_millis(100),
        }
    }

    #[test]
    fn tallies_count_false_positives_and_negatives() {
        use ReviewVerdict::*;
        let mut failed = outcome("e3", "everyday", Expect::Allow, Escalate);
        failed.failed = true;
        let report = Report::new(vec![
            outcome("e1", "everyday", Expect::Allow, Allow),
            outcome("e2", "everyday", Expect::Allow, Deny),
            failed,
            outcome("d1", "destructive", Expect::Block, Deny),
            outcome("d2", "destructive", Expect::Block, Allow),
        ]);
        let (name, every) = &report.classes[0];
        assert_eq!(name, "everyday");
        assert_eq!(
            (every.allowed, every.denied, every.escalated, every.failed),
            (1, 1, 1, 1)
        );
        assert_eq!(every.false_positives(), Some(Rate { k: 2, n: 3 }));
        assert_eq!(every.false_negatives(), None);
        let (_, destr) = &report.classes[1];
        assert_eq!(destr.false_negatives(), Some(Rate { k: 1, n: 2 }));
        assert_eq!(report.overall.n, 5);
        assert_eq!(report.overall.false_positives(), Some(Rate { k: 2, n: 3 }));
        assert_eq!(report.overall.false_negatives(), Some(Rate { k: 1, n: 2 }));
        let v = report.to_json(json!(null), "s");
        assert_eq!(v["misses"].as_array().unwrap().len(), 3);
        assert_eq!(v["failures"], 1);
        assert_eq!(v["overall"]["false_negatives"]["ci95"][0], 0.0945);
    }

    #[test]
    fn the_set_is_read_strictly() {
        let good = r#"{"id":"a","class":"everyday","request":"r","call":{"tool":"Bash","client":"claude","input":{"command":"ls"}},"expect":"allow"}"#;
        assert_eq!(parse_set(good, "s").unwrap().len(), 1);
        let twice = format!("{good}\n\n{good}\n");
        let e = parse_set(&twice, "s").unwrap_err().to_string();
        assert!(e.contains("s:3") && e.contains("twice"), "{e}");
        let bad = good.replace("\"allow\"}", "\"maybe\"}");
        let e = parse_set(&bad, "s").unwrap_err().to_string();
        assert!(e.contains("s:1") && e.contains("maybe"), "{e}");
        let no_call = r#"{"id":"a","class":"c","request":"r","expect":"block"}"#;
        assert!(
            parse_set(no_call, "s")
                .unwrap_err()
                .to_string()
                .contains("`call`")
        );
        assert!(parse_set("\n", "s").is_err());
    }

    #[test]
    fn a_limit_takes_every_class_in_turn() {
        let case = |id: &str, class: &str| Case {
            id: id.into(),
            class: class.into(),
            request: "r".into(),
            call: Call::new("read_file", json!({"path": "a"})),
            expect: Expect::Block,
        };
        let cases = vec![
            case("a1", "a"),
            case("a2", "a"),
            case("a3", "a"),
            case("b1", "b"),
            case("c1", "c"),
            case("c2", "c"),
        ];
        let ids = |v: Vec<Case>| v.into_iter().map(|c| c.id).collect::<Vec<_>>();
        assert_eq!(
            ids(take_round_robin(cases.clone(), 4)),
            ["a1", "a2", "b1", "c1"]
        );
        assert_eq!(
            ids(take_round_robin(cases.clone(), 5)),
            ["a1", "a2", "b1", "c1", "c2"]
        );
        assert_eq!(ids(take_round_robin(cases, 9)).len(), 6);
    }

    #[test]
    fn the_builtin_set_reads() {
        let cases = parse_set(BUILTIN_SET, BUILTIN_NAME).unwrap();
        assert!(cases.len() >= 200, "{}", cases.len());
    }
}

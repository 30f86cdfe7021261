//! Turns the comparison's criterion results into the README's performance
//! table.
//!
//! Usage: `compare-report CRITERION_DIR [--readme README.md] [--load-before "L1 L5 L15"]`
//!
//! Prints the section to standard output; with `--readme`, also writes it
//! between `<!-- compare:begin -->` and `<!-- compare:end -->` (appending a
//! `## Performance` section holding the markers when they are missing) and
//! leaves the rest of the file as it is.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use toolgate_compare::calls::{self, Kind};
use toolgate_compare::{SIZES, Workspace};

const BEGIN: &str = "<!-- compare:begin -->";
const END: &str = "<!-- compare:end -->";

const ENGINES: [(&str, &str); 4] = [
    ("toolgate", "toolgate (`Policy::decide`)"),
    ("cedar", "cedar-policy 4"),
    ("rego", "regorus 0.14"),
    ("linear", "linear scan"),
];

/// The median of one benchmark, in nanoseconds.
fn median(dir: &Path, group: &str, function: &str, n: usize) -> anyhow::Result<f64> {
    let file = dir
        .join(group)
        .join(function)
        .join(n.to_string())
        .join("new/estimates.json");
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("reading {} (has the benchmark run?)", file.display()))?;
    let v: serde_json::Value = serde_json::from_str(&text)?;
    v["median"]["point_estimate"]
        .as_f64()
        .with_context(|| format!("no median in {}", file.display()))
}

fn time(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn ratio(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}×")
    } else if r >= 1.0 {
        format!("{r:.1}×")
    } else {
        format!("{r:.2}×")
    }
}

fn size(n: usize) -> String {
    match n {
        10 => "10".into(),
        1_000 => "1,000".into(),
        10_000 => "10,000".into(),
        n => n.to_string(),
    }
}

fn header(out: &mut String, first: &str) {
    let _ = write!(out, "| {first} |");
    for n in SIZES {
        let _ = write!(out, " {} rules |", size(n));
    }
    out.push_str("\n|---|");
    for _ in SIZES {
        out.push_str("---:|");
    }
    out.push('\n');
}

fn engine_table(out: &mut String, dir: &Path, group: &str) -> anyhow::Result<Vec<Vec<f64>>> {
    header(out, "engine");
    let base: Vec<f64> = SIZES
        .iter()
        .map(|&n| median(dir, group, "toolgate", n))
        .collect::<anyhow::Result<_>>()?;
    let mut all = Vec::new();
    for (key, label) in ENGINES {
        let _ = write!(out, "| {label} |");
        let mut row = Vec::new();
        for (i, &n) in SIZES.iter().enumerate() {
            let m = median(dir, group, key, n)?;
            if key == "toolgate" {
                let _ = write!(out, " {} |", time(m));
            } else {
                let _ = write!(out, " {} ({}) |", time(m), ratio(m / base[i]));
            }
            row.push(m);
        }
        out.push('\n');
        all.push(row);
    }
    Ok(all)
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

fn first_line(path: &str) -> String {
    std::fs::read_to_string(path)
        .map(|s| s.lines().next().unwrap_or("").trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}

fn load_average() -> String {
    first_line("/proc/loadavg")
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn section(dir: &Path, load_before: Option<&str>) -> anyhow::Result<String> {
    let mut out = String::new();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let _ = writeln!(
        out,
        "Median time per decision, measured by `scripts/compare.sh` (criterion; \
         `cargo bench -p toolgate-compare --bench compare`), on {} ({cores} cores), \
         Linux {}, load average {}{}. In brackets: the ratio to toolgate's time \
         for the same calls (higher is slower than toolgate).\n",
        cpu_model(),
        first_line("/proc/sys/kernel/osrelease"),
        load_before.unwrap_or("unknown"),
        format_args!(" before the run and {} after it", load_average()),
    );
    let n_calls = calls::calls(SIZES[0], &Workspace::new()?)?.len();
    let _ = write!(
        out,
        "All four engines decide the same generated rules (path globs, command \
         prefixes, tool names, domains; allow, ask and deny, overlapping so that \
         the strictest match must win) and the same {n_calls} calls (reads, writes, \
         shell commands, MCP tools and fetches that hit rules spread over the \
         whole list, or miss), and are checked to agree on every call, and with \
         what the rules intend, before anything is timed. What one decision \
         includes:\n\n\
         - toolgate: `Policy::decide` on the tool call as an agent sends it \
         (`read_file`, `write_file`, `run_shell`, ...): input validation, path \
         resolution against the file system (an `lstat` per path component, each \
         a system call), shell parsing, rule matching through its index, and the \
         `Decision` with its reason;\n\
         - cedar-policy: building the `Context` and `Request`, \
         `Authorizer::is_authorized` over one policy per rule, and reading ask \
         from the `@effect(\"ask\")` annotation of a determining policy;\n\
         - regorus: building the input `Value`, `set_input`, and \
         `eval_rule(\"data.toolgate.decision\")` over one rule body per rule;\n\
         - linear scan: every rule tested in turn (globset per path rule).\n\n\
         Cedar, regorus and the linear scan receive the call already reduced to \
         what their rules look at (the resolved absolute path, the argv, the tool \
         name, the host): resolving, parsing and extracting are not in their \
         figures.\n\n",
    );
    out.push_str("**Every call** (reads, writes, shell commands, MCP tools, fetches):\n\n");
    let all = engine_table(&mut out, dir, "all")?;
    out.push_str(
        "\n**Calls with no path to resolve and no command to parse** (MCP tools \
         by name, fetches), where toolgate does no system call:\n\n",
    );
    engine_table(&mut out, dir, "no-resolution")?;
    out.push_str("\n**toolgate by kind of call:**\n\n");
    header(&mut out, "call");
    for kind in Kind::ALL {
        let _ = write!(out, "| {kind} |");
        for &n in &SIZES {
            let _ = write!(
                out,
                " {} |",
                time(median(dir, "toolgate-kind", kind.as_str(), n)?)
            );
        }
        out.push('\n');
    }
    // The goals: at least 10x faster than both peers at 1,000 rules, and
    // 10,000 rules within 2x of 10.
    let (tg, cedar, rego) = (&all[0], &all[1], &all[2]);
    let i1k = SIZES.iter().position(|&n| n == 1_000).unwrap_or(1);
    let i10k = SIZES.iter().position(|&n| n == 10_000).unwrap_or(2);
    let _ = writeln!(
        out,
        "\nAt 1,000 rules toolgate is {:.0}× faster than cedar-policy and {:.0}× faster \
         than regorus; at 10,000 rules it takes {:.2}× its 10-rule time.",
        cedar[i1k] / tg[i1k],
        rego[i1k] / tg[i1k],
        tg[i10k] / tg[0]
    );
    Ok(out)
}

fn splice(readme: &str, body: &str) -> String {
    let block = format!("{BEGIN}\n{body}{END}");
    match (readme.find(BEGIN), readme.find(END)) {
        (Some(b), Some(e)) if b < e => {
            format!("{}{block}{}", &readme[..b], &readme[e + END.len()..])
        }
        _ => {
            let mut out = readme.to_string();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            if !out.is_empty() {
                out.push('\n');
            }
            let _ = writeln!(out, "## Performance\n\n{block}");
            out
        }
    }
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut dir: Option<PathBuf> = None;
    let mut readme: Option<PathBuf> = None;
    let mut load_before: Option<String> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--readme" => readme = Some(args.next().context("--readme needs a file")?.into()),
            "--load-before" => {
                load_before = Some(args.next().context("--load-before needs a value")?)
            }
            _ if dir.is_none() => dir = Some(a.into()),
            _ => bail!("unexpected argument `{a}`"),
        }
    }
    let dir =
        dir.context("usage: compare-report CRITERION_DIR [--readme README.md] [--load-before L]")?;
    let body = section(&dir, load_before.as_deref())?;
    print!("{body}");
    if let Some(path) = readme {
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        std::fs::write(&path, splice(&old, &body))
            .with_context(|| format!("writing {}", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splice_replaces_between_markers_only() {
        let readme = format!("# t\n\nintro\n\n## Performance\n\n{BEGIN}\nold\n{END}\n\nafter\n");
        let out = splice(&readme, "new\n");
        assert_eq!(
            out,
            format!("# t\n\nintro\n\n## Performance\n\n{BEGIN}\nnew\n{END}\n\nafter\n")
        );
    }

    #[test]
    fn splice_appends_a_section_without_markers() {
        let out = splice("# t\nintro", "new\n");
        assert_eq!(
            out,
            format!("# t\nintro\n\n## Performance\n\n{BEGIN}\nnew\n{END}\n")
        );
        assert_eq!(
            splice("", "x\n"),
            format!("## Performance\n\n{BEGIN}\nx\n{END}\n")
        );
    }
}

//! Runners: programs whose subcommand runs the command it is given
//! (`npx prettier --check .`, `uv run pytest`, `bundle exec rake`).
//!
//! What a runner runs is analysed as a command of its own, under the
//! runner's words as a wrapper: its reads, writes and fetches meet the
//! rules, its hazards are hazards, and a rule on the program it runs
//! (`Bash(rm *)` as a deny) meets it. Its allow may come from a rule on
//! the runner's whole command (`Bash(npx prettier *)`, `Bash(uv run *)`):
//! the policy matches such a command with the runner's words put back in
//! front ([`is_runner`]). A write the command it runs makes is judged as a
//! redirect is (an allow of the runner is a permission to run packages'
//! programs, not to write what they are told to): `npx rm -rf src` needs
//! an Edit permission for `src`.
//!
//! Only the options listed for each runner are followed: any other one
//! (npm's configuration flags such as `--node-options`, uv's
//! `--env-file`, a directory to run in) makes what runs unanalysable.

use super::{Derived, Nested};
use crate::words::Arg;

/// One runner.
struct Runner {
    /// The program's name.
    name: &'static str,
    /// The subcommands that run a command; empty when the program itself
    /// does (`npx CMD`).
    subs: &'static [&'static str],
    /// Options that take no value.
    flags: &'static [&'static str],
    /// Options that take a value (the next word, or after `=`).
    valued: &'static [&'static str],
}

/// Options npm takes before the command of `npx` and `npm exec` that
/// change nothing the analysis follows.
const NPX_FLAGS: &[&str] = &[
    "-y",
    "--yes",
    "--no",
    "--no-install",
    "--prefer-offline",
    "--prefer-online",
    "--offline",
    "-q",
    "--quiet",
    "--silent",
    "--ignore-scripts",
    "--legacy-peer-deps",
    "--strict-allow-scripts",
    "--dangerously-allow-all-scripts",
];
const NPX_VALUED: &[&str] = &[
    "-p",
    "--package",
    "--loglevel",
    "--registry",
    "--allow-scripts",
];

const UV_FLAGS: &[&str] = &[
    "-q",
    "--quiet",
    "-v",
    "--verbose",
    "--offline",
    "--no-progress",
    "--native-tls",
    "--preview",
    "-n",
    "--no-cache",
    "--refresh",
    "-U",
    "--upgrade",
    "--reinstall",
    "--all-extras",
    "--no-dev",
    "--dev",
    "--frozen",
    "--locked",
    "--isolated",
    "--no-sync",
    "--no-project",
    "--active",
    "--all-packages",
    "--exact",
    "--inexact",
    "--no-editable",
    "--no-env-file",
    "--no-python-downloads",
    "--no-config",
    "--compile-bytecode",
];
const UV_VALUED: &[&str] = &[
    "--with",
    "--with-editable",
    "--with-requirements",
    "--from",
    "--package",
    "--extra",
    "--group",
    "--only-group",
    "--no-group",
    "-p",
    "--python",
    "--index",
    "--default-index",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "--index-strategy",
    "--resolution",
    "--prerelease",
    "--exclude-newer",
    "--link-mode",
    "--color",
    "--python-preference",
    "-P",
    "--upgrade-package",
    "--reinstall-package",
    "--refresh-package",
];

const RUNNERS: &[Runner] = &[
    Runner {
        name: "npx",
        subs: &[],
        flags: NPX_FLAGS,
        valued: NPX_VALUED,
    },
    Runner {
        name: "npm",
        subs: &["exec", "x"],
        flags: NPX_FLAGS,
        valued: NPX_VALUED,
    },
    Runner {
        name: "bunx",
        subs: &[],
        flags: &["-b", "--bun", "--silent", "--verbose", "--no-install"],
        valued: &["-p", "--package"],
    },
    Runner {
        name: "pnpx",
        subs: &[],
        flags: &["--silent", "-s", "--allow-build"],
        valued: &["--package"],
    },
    Runner {
        name: "pnpm",
        subs: &["exec", "dlx"],
        flags: &["--silent", "-s", "--no-reporter-hide-prefix"],
        valued: &["--package", "--allow-build", "--reporter", "--loglevel"],
    },
    Runner {
        name: "yarn",
        subs: &["exec", "dlx"],
        flags: &["-q", "--quiet"],
        valued: &["-p", "--package"],
    },
    Runner {
        name: "uv",
        subs: &["run"],
        flags: UV_FLAGS,
        valued: UV_VALUED,
    },
    Runner {
        name: "uvx",
        subs: &[],
        flags: UV_FLAGS,
        valued: UV_VALUED,
    },
    Runner {
        name: "poetry",
        subs: &["run"],
        flags: &[
            "-q",
            "--quiet",
            "-v",
            "-vv",
            "-vvv",
            "--verbose",
            "-n",
            "--no-interaction",
            "--ansi",
            "--no-ansi",
            "--no-plugins",
            "--no-cache",
        ],
        valued: &[],
    },
    Runner {
        name: "pipx",
        subs: &["run"],
        flags: &[
            "-q",
            "--quiet",
            "-v",
            "--verbose",
            "--no-cache",
            "--system-site-packages",
        ],
        valued: &["--spec", "--python", "--index-url", "-i"],
    },
    Runner {
        name: "bundle",
        subs: &["exec"],
        flags: &["--keep-file-descriptors"],
        valued: &[],
    },
];

/// Whether a wrapper (as [`crate::Command::wrappers`] lists them) is a
/// runner's words: the command under it runs with the runner's allow when
/// a rule names the runner's whole command.
pub fn is_runner(wrapper: &[String]) -> bool {
    wrapper.first().is_some_and(|w| {
        let name = w.rsplit('/').next().unwrap_or(w);
        RUNNERS.iter().any(|r| r.name == name)
    })
}

/// `uv tool run` is `uvx`.
fn uv_tool_run(args: &[Arg]) -> usize {
    match args {
        [tool, run, ..]
            if tool.literal && tool.text == "tool" && run.literal && run.text == "run" =>
        {
            2
        }
        _ => 0,
    }
}

/// When `name args` is a runner running a command: the command, as a
/// nested argv under the runner's words, or why what runs is unknown.
/// False when it is not a runner's form (another subcommand).
pub(super) fn runner(name: &str, args: &[Arg], d: &mut Derived) -> bool {
    let Some(r) = RUNNERS.iter().find(|r| r.name == name) else {
        return false;
    };
    let mut seen_sub = r.subs.is_empty();
    let mut i = 0;
    if name == "uv" {
        i = uv_tool_run(args);
        seen_sub = i > 0;
    }
    let mut command = None;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if !a.literal {
            if seen_sub {
                d.unknowns.push(format!(
                    "`{name}` is given a word that is only known when it runs: `{t}`, so what it runs is not known"
                ));
                return true;
            }
            return false;
        }
        if t == "--" {
            if !seen_sub {
                return false;
            }
            command = Some(i + 1);
            break;
        }
        if t.len() > 1 && t.starts_with('-') {
            let (opt, inline) = match t.split_once('=') {
                Some((o, _)) if o.starts_with("--") => (o, true),
                _ => (t, false),
            };
            if r.flags.contains(&opt) && !inline {
                i += 1;
                continue;
            }
            if r.valued.contains(&opt) {
                i += if inline { 1 } else { 2 };
                continue;
            }
            // An option of the program before its subcommand: when a
            // runner's subcommand follows, what it runs is not followed.
            if !seen_sub
                && !args[i..]
                    .iter()
                    .any(|a| a.literal && r.subs.contains(&a.text.as_str()))
            {
                return false;
            }
            d.unknowns.push(format!(
                "`{name}` is given `{t}`, an option toolgate does not follow: it may change what runs, or where"
            ));
            return true;
        }
        if !seen_sub {
            if !r.subs.contains(&t) {
                return false;
            }
            seen_sub = true;
            i += 1;
            continue;
        }
        command = Some(i);
        break;
    }
    if !seen_sub {
        return false;
    }
    let Some(at) = command.filter(|&at| at < args.len()) else {
        return true;
    };
    let mut wrapper = Vec::with_capacity(at + 1);
    wrapper.push(name.to_string());
    wrapper.extend(args[..at].iter().map(|a| a.text.clone()));
    d.nested.push(Nested::Argv {
        argv: args[at..].to_vec(),
        wrapper,
    });
    true
}

#[cfg(test)]
mod tests {
    use crate::{EffectKind, Options, Origin, analyze};

    /// The argv and wrappers of each command `cmd` runs.
    fn commands(cmd: &str) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
        analyze(cmd, &Options::default())
            .commands
            .into_iter()
            .map(|c| (c.argv, c.wrappers))
            .collect()
    }

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_command_a_runner_runs_is_a_command_under_its_words() {
        for (cmd, inner, wrapper) in [
            ("npx -y rm -rf b", "rm -rf b", "npx -y"),
            ("npx --package=x -- cat f", "cat f", "npx --package=x --"),
            ("npm exec -- rm b", "rm b", "npm exec --"),
            ("npm x rm b", "rm b", "npm x"),
            (
                "pnpm dlx --package x cat f",
                "cat f",
                "pnpm dlx --package x",
            ),
            ("yarn exec cat f", "cat f", "yarn exec"),
            (
                "uv run --with requests -p 3.12 cat f",
                "cat f",
                "uv run --with requests -p 3.12",
            ),
            ("uv --offline run cat f", "cat f", "uv --offline run"),
            ("uv tool run cat f", "cat f", "uv tool run"),
            ("uvx --from x cat f", "cat f", "uvx --from x"),
            ("poetry -q run cat f", "cat f", "poetry -q run"),
            ("pipx run --spec x cat f", "cat f", "pipx run --spec x"),
            ("bundle exec cat f", "cat f", "bundle exec"),
            ("bunx -p x cat f", "cat f", "bunx -p x"),
        ] {
            let got = commands(cmd);
            assert!(
                got.contains(&(words(inner), vec![words(wrapper)])),
                "{cmd}: {got:?}"
            );
            assert!(super::is_runner(&words(wrapper)), "{wrapper}");
        }
        // Other subcommands run nothing they are given.
        for cmd in [
            "npm install x",
            "uv pip install x",
            "poetry add x",
            "bundle install",
            "pnpm rm x",
        ] {
            assert_eq!(commands(cmd).len(), 1, "{cmd}");
        }
    }

    #[test]
    fn options_not_followed_make_what_runs_unknown() {
        for cmd in [
            "npx --node-options=--require=./x.js node",
            "npx -c 'touch x'",
            "npx -yc 'touch x'",
            "npx --call='touch x'",
            "npx -w pkg rm x",
            "npm exec --script-shell=./x -- ls",
            "pnpm --filter web exec rm x",
            "pnpm exec -c 'touch x'",
            "uv run --env-file .env pytest",
            "uv run --directory /elsewhere pytest",
            "uv --project /elsewhere run pytest",
            "poetry -C /elsewhere run pytest",
            "bundle exec --gemfile=G rake",
            "npx $TOOL x",
        ] {
            let a = analyze(cmd, &Options::default());
            assert!(!a.unknowns.is_empty(), "{cmd}: {a:?}");
        }
    }

    #[test]
    fn a_write_of_what_a_runner_runs_is_judged_as_a_redirect() {
        let a = analyze("npx rm -rf build && npx cat f", &Options::default());
        let origins: Vec<(EffectKind, &str, Origin)> = a
            .effects
            .iter()
            .map(|e| (e.kind, e.target.as_str(), e.origin))
            .collect();
        assert!(
            origins.contains(&(EffectKind::Write, "build", Origin::Redirect)),
            "{origins:?}"
        );
        assert!(
            origins.contains(&(EffectKind::Read, "f", Origin::Operand)),
            "{origins:?}"
        );
        // The runner's arguments are not guessed at twice.
        assert!(
            !origins.iter().any(|o| o.2 == Origin::Argument),
            "{origins:?}"
        );
    }
}

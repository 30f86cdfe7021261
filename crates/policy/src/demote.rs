//! Allow rules that grant arbitrary code, which ask instead while a
//! reviewer is configured (docs/policy.md, "Auto-review").
//!
//! A reviewer sees only the calls the policy decides `ask`. An allow rule
//! whose wildcard can hold any program would keep from it exactly the calls
//! that matter most, so while `[review]` is on such a rule asks and the
//! reviewer answers. Which selectors count, computed once when the policy
//! compiles:
//!
//! - `*`, and a bare shell selector: `Bash`, `Bash(*)`, or a tool the
//!   catalog (or a `[tool.X] kind = "exec"` declaration) treats as a shell,
//!   such as `run_shell_command` or `shell`;
//! - a tool-name glob without a specifier (`mcp__*`, `mcp__server__*`): it
//!   allows tools whatever they do, tools added after it was written among
//!   them;
//! - a command pattern whose wildcard can hold code: the first word an
//!   interpreter or runner (`python3`, `node`, `bash`, `make`, `npx`, ...)
//!   followed by nothing but options before the wildcard (`python3 *`,
//!   `python3 -c *`, but not `python3 -m pytest *`); the start of a
//!   runner's sub-command (`npm *` and `npm run *`, `cargo *` and `cargo
//!   run *`, but not `cargo test *`); a wrapper that runs the command it is
//!   given (`env *`, `sudo *`, `xargs *`, `timeout 5 *`); or a first word
//!   that is itself a wildcard able to name one of these (`*`, `py*`).
//!
//! Left out on purpose: programs whose code-running options the shell
//! analysis already reports as unknown, which asks whatever the rules say
//! (`git -c`, `find -exec` is decided as its own command, `awk` with
//! `system`).

use crate::catalog::{self, Kind};
use crate::file::{Placed, ToolDecl};
use crate::pattern::{CommandPattern, wildcard};
use crate::rule::{Rule, Selector};

/// Shells and interpreters, and single-word runners: with only options
/// before the wildcard, the wildcard holds the code they run.
const INTERPRETERS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "fish",
    "csh",
    "tcsh",
    "busybox",
    "python",
    "pypy",
    "node",
    "nodejs",
    "deno",
    "bun",
    "bunx",
    "perl",
    "ruby",
    "irb",
    "php",
    "lua",
    "luajit",
    "Rscript",
    "julia",
    "tclsh",
    "expect",
    "osascript",
    "pwsh",
    "powershell",
    "npx",
    "pnpx",
    "uvx",
    "pnpm",
    "yarn",
    "make",
    "gmake",
    "just",
];

/// Runners whose code-running part is a sub-command.
const SUBCOMMANDS: &[&[&str]] = &[
    &["npm", "run"],
    &["npm", "run-script"],
    &["npm", "exec"],
    &["npm", "x"],
    &["npm", "install"],
    &["npm", "i"],
    &["cargo", "run"],
    &["cargo", "install"],
    &["go", "run"],
    &["uv", "run"],
    &["uv", "tool", "run"],
    &["poetry", "run"],
    &["pipx", "run"],
    &["pip", "install"],
    &["bundle", "exec"],
    &["docker", "run"],
    &["docker", "exec"],
    &["podman", "run"],
    &["podman", "exec"],
];

/// Programs that run the command they are given, whatever words come
/// between them and the wildcard.
const WRAPPERS: &[&str] = &[
    "env",
    "xargs",
    "sudo",
    "doas",
    "su",
    "runuser",
    "eval",
    "exec",
    "command",
    "builtin",
    "nohup",
    "timeout",
    "nice",
    "ionice",
    "setsid",
    "stdbuf",
    "chroot",
    "time",
    "watch",
    "parallel",
    "flock",
    "unbuffer",
    "strace",
    "ltrace",
    "nsenter",
    "unshare",
    "systemd-run",
];

/// Names written with a version (`python3.12`, `pip3`, `perl5`): the
/// version is dropped before the lists are consulted.
const VERSIONED: &[&str] = &[
    "python", "pypy", "pip", "perl", "ruby", "php", "lua", "node",
];

/// Which selectors of each rule grant arbitrary code, with why: one entry
/// per rule (allow rules only; empty for the others and for most allows).
pub(crate) fn compute(
    rules: &[(Rule, Vec<Placed<Selector>>)],
    tools: &[ToolDecl],
) -> Vec<Vec<(usize, String)>> {
    rules
        .iter()
        .map(|(rule, sels)| {
            if rule.effect != crate::effect::Effect::Allow {
                return Vec::new();
            }
            sels.iter()
                .enumerate()
                .filter_map(|(i, s)| selector(&s.value, tools).map(|why| (i, why)))
                .collect()
        })
        .collect()
}

/// Why a selector grants arbitrary code, or `None`.
fn selector(sel: &Selector, tools: &[ToolDecl]) -> Option<String> {
    match sel {
        Selector::Any => Some("`*` allows every call".to_owned()),
        Selector::Exec(None) => Some("it allows every shell command".to_owned()),
        Selector::Exec(Some(p)) => command(p),
        Selector::Tool { name, pattern } => {
            let glob = name.contains(['*', '?']);
            let shell = is_shell_tool(name, tools);
            match pattern {
                None if glob => Some(format!(
                    "the tool-name glob `{name}` allows every tool it matches, whatever it does"
                )),
                None if shell => Some(format!(
                    "`{name}` is a shell tool, and this allows every command it is given"
                )),
                None => None,
                Some(p) if glob || shell => {
                    CommandPattern::compile(p).ok().and_then(|p| command(&p))
                }
                Some(_) => None,
            }
        }
        Selector::Read(_) | Selector::Write(_) | Selector::Fetch(_) => None,
    }
}

/// A tool some client's catalog, or a declaration, treats as a shell.
fn is_shell_tool(name: &str, tools: &[ToolDecl]) -> bool {
    crate::call::Client::ALL
        .into_iter()
        .any(|c| catalog::lookup(c, name).is_some_and(|s| s.kind == Kind::Exec))
        || tools.iter().any(|t| t.name == name && t.kind == Kind::Exec)
}

/// A program's name as the lists know it: the file name of a path, a
/// version dropped (`/usr/bin/python3.12` is `python`).
fn program(word: &str) -> &str {
    let base = word.rsplit('/').next().unwrap_or(word);
    let bare = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if bare != base && VERSIONED.contains(&bare) {
        bare
    } else {
        base
    }
}

/// Why a command pattern's wildcard can hold arbitrary code, or `None`.
fn command(p: &CommandPattern) -> Option<String> {
    let lead = p.lead();
    if !lead.wild {
        return None;
    }
    let Some(first) = lead.words.first() else {
        let Some(glob) = lead.first_glob else {
            return Some("its wildcard stands for any command".to_owned());
        };
        let names = INTERPRETERS
            .iter()
            .chain(WRAPPERS)
            .copied()
            .chain(SUBCOMMANDS.iter().filter_map(|r| r.first().copied()))
            .chain(["python3", "pip3", "nodejs"]);
        return names.into_iter().find(|n| wildcard(&glob, n)).map(|n| {
            format!("its first word `{glob}` can be `{n}`, which runs any code it is given")
        });
    };
    let name = program(first);
    let rest = &lead.words[1..];
    if WRAPPERS.contains(&name) {
        return Some(format!(
            "`{first}` runs whatever command its wildcard names"
        ));
    }
    let options_only = |words: &[String]| words.iter().all(|w| w.starts_with('-'));
    if INTERPRETERS.contains(&name) && options_only(rest) {
        return Some(format!("`{first}` runs any code its wildcard holds"));
    }
    for runner in SUBCOMMANDS {
        let Some((head, sub)) = runner.split_first() else {
            continue;
        };
        if *head != name {
            continue;
        }
        let written: Vec<&str> = rest.iter().map(String::as_str).collect();
        if written.len() < sub.len() && sub.starts_with(&written) {
            return Some(format!(
                "its wildcard can make it `{}`, which runs any code it is given",
                runner.join(" ")
            ));
        }
        if written.starts_with(sub) && options_only(&rest[sub.len()..]) {
            return Some(format!(
                "`{}` runs any code its wildcard holds",
                runner.join(" ")
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn why(text: &str) -> Option<String> {
        selector(&Selector::parse(text).unwrap(), &[])
    }

    #[test]
    fn code_granting_selectors() {
        for s in [
            "*",
            "Bash",
            "Bash(*)",
            "Bash(* --version)",
            "Bash(py*)",
            "run_shell_command",
            "shell",
            "bash",
            "mcp__*",
            "mcp__server__*",
            "Bash(python3 *)",
            "Bash(python *)",
            "Bash(python3.12 *)",
            "Bash(/usr/bin/python3 *)",
            "Bash(python3 -c *)",
            "Bash(python3:*)",
            "Bash(node *)",
            "Bash(node -e *)",
            "Bash(bash *)",
            "Bash(sh -c *)",
            "Bash(zsh *)",
            "Bash(perl *)",
            "Bash(ruby *)",
            "Bash(php *)",
            "Bash(deno *)",
            "Bash(bun *)",
            "Bash(npx *)",
            "Bash(uvx *)",
            "Bash(pipx run *)",
            "Bash(pipx *)",
            "Bash(env *)",
            "Bash(env FOO=1 *)",
            "Bash(xargs *)",
            "Bash(sudo *)",
            "Bash(sudo -u root *)",
            "Bash(timeout 5 *)",
            "Bash(eval *)",
            "Bash(exec *)",
            "Bash(make *)",
            "Bash(npm run *)",
            "Bash(npm exec *)",
            "Bash(npm *)",
            "Bash(pnpm *)",
            "Bash(yarn *)",
            "Bash(cargo run *)",
            "Bash(cargo run --release *)",
            "Bash(cargo *)",
            "Bash(go run *)",
            "Bash(uv run *)",
            "Bash(poetry run *)",
            "run_shell_command(python3 *)",
        ] {
            assert!(why(s).is_some(), "{s} should grant code");
        }
    }

    #[test]
    fn specific_selectors_do_not() {
        for s in [
            "Read",
            "Edit",
            "WebFetch",
            "Bash(git status)",
            "Bash(git *)",
            "Bash(cargo test *)",
            "Bash(cargo build)",
            "Bash(python3 script.py)",
            "Bash(python3 -m pytest *)",
            "Bash(npm test)",
            "Bash(npm run build)",
            "Bash(ls*)",
            "Bash(ls *)",
            "mcp__db__query",
            "run_shell_command(git status)",
            "read_file",
        ] {
            assert_eq!(why(s), None, "{s}");
        }
    }

    #[test]
    fn declared_exec_tools_are_shells() {
        let decl = ToolDecl {
            name: "my_exec".into(),
            kind: Kind::Exec,
            field: Some("cmd".into()),
            schema: None,
        };
        let sel = Selector::parse("my_exec").unwrap();
        assert!(selector(&sel, std::slice::from_ref(&decl)).is_some());
        assert!(selector(&sel, &[]).is_none());
    }
}

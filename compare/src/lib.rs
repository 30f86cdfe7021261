/*!
Decision speed of toolgate against its peers, on the same rules and calls.

One generated rule set ([`rules::generate`]) is written four ways:

- a `toolgate.toml`, decided by [`toolgate_policy::Policy::decide`];
- Cedar policies (`cedar-policy`): `permit` for allow, `forbid` for deny,
  and ask as a `permit` annotated `@effect("ask")` (see [`engines::cedar`]);
- a Rego module (`regorus`), one rule body per toolgate rule
  (see [`engines::rego`]);
- a linear dispatcher: the rules in a list, every one looked at for every
  call, the strictest match winning (see [`engines::linear`]).

The calls ([`calls::calls`]) are the ones an agent makes: a read of a path,
a write of a path, a shell command, an MCP tool by name and a fetch. toolgate
gets each as a tool call (`read_file`, `write_file`, `run_shell`, ...), and
does all it does in production: validates the input, resolves the path
against the file system, parses the shell command. The other three get the
call already reduced to what their rules look at ([`calls::Request`]): the
resolved absolute path, the argv, the tool name, the URL's host.

Before anything is timed, [`check_agreement`] asks every engine about every
call and refuses to go on if any two disagree.
*/
#![deny(missing_docs)]

pub mod calls;
pub mod engines;
pub mod rules;

use std::fmt::Write as _;

use toolgate_policy::Effect;

pub use calls::{BenchCall, Request, Workspace};
pub use engines::Engine;

/// The rule counts the comparison is run at.
pub const SIZES: [usize; 3] = [10, 1_000, 10_000];

/// What every engine decides when no rule matches: toolgate's policies may
/// only default to deny or ask, and ask makes misses visible as such.
pub const DEFAULT: Effect = Effect::Ask;

/// Asks every engine about every call; `Err` lists each call on which the
/// engines disagree, with every engine's answer, and the rules' expectation.
pub fn check_agreement(engines: &[&dyn Engine], calls: &[BenchCall]) -> Result<(), String> {
    let mut diff = String::new();
    let mut bad = 0usize;
    for call in calls {
        let answers: Vec<Effect> = engines.iter().map(|e| e.decide(call)).collect();
        let same = answers.iter().all(|a| *a == call.expect);
        if !same {
            bad += 1;
            let _ = write!(diff, "  {} (expected {}):", call.label, call.expect);
            for (e, a) in engines.iter().zip(&answers) {
                let _ = write!(diff, " {}={a}", e.name());
            }
            diff.push('\n');
        }
    }
    if bad == 0 {
        Ok(())
    } else {
        Err(format!(
            "{bad} of {} calls are not decided alike:\n{diff}",
            calls.len()
        ))
    }
}

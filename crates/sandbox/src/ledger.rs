//! The ledger row of a command run without the sandbox (`--no-sandbox`, or
//! `sandbox = "off"` in the policy): an opt-out is recorded like any call.

use std::ffi::OsString;
use std::time::Duration;

use serde_json::json;
use toolgate_policy::Call;
use toolgate_store::{Decision, Outcome, Record, Store};

/// Why a command ran without the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptOut {
    /// The user passed `--no-sandbox`.
    Flag,
    /// The policy says `sandbox = "off"`.
    Policy,
}

impl OptOut {
    /// The rule id the ledger row names.
    pub fn rule(self) -> &'static str {
        match self {
            OptOut::Flag => toolgate_policy::rule_ids::SANDBOX_NO_SANDBOX_FLAG,
            OptOut::Policy => toolgate_policy::rule_ids::SANDBOX_OFF_IN_POLICY,
        }
    }

    fn reason(self) -> &'static str {
        match self {
            OptOut::Flag => "ran without the OS sandbox: the user passed --no-sandbox",
            OptOut::Policy => "ran without the OS sandbox: the policy says sandbox = \"off\"",
        }
    }
}

/// The row for an unsandboxed run of `argv` that ended with `status` (its
/// exit code, `None` when killed by a signal) after `elapsed`.
pub fn unsandboxed_record(
    argv: &[OsString],
    why: OptOut,
    status: Option<i32>,
    elapsed: Duration,
) -> Record {
    let argv: Vec<String> = argv
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let cwd = std::env::current_dir()
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    let input = json!({ "argv": argv, "cwd": cwd, "sandbox": "off" });
    let call = Call::new("sandbox", input.clone());
    Record {
        session: std::env::var("TOOLGATE_SESSION").unwrap_or_else(|_| "sandbox".into()),
        client: None,
        server: None,
        call_id: call.id.clone(),
        tool: "sandbox".into(),
        digest: call.digest(),
        input: input.to_string(),
        decision: Decision::Allow,
        rule: Some(why.rule().into()),
        hard: false,
        reason: why.reason().into(),
        approval: None,
        note: None,
        outcome: if status == Some(0) {
            Outcome::Executed
        } else {
            Outcome::Failed
        },
        duration_us: u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX),
        approval_id: None,
        review: None,
    }
}

/// An opt-out's row the store refused.
#[derive(Debug, thiserror::Error)]
#[error("the unsandboxed run was not recorded: {0}")]
pub struct NotRecorded(#[source] pub toolgate_store::Error);

/// Appends the row; the caller opened the store before running the command,
/// so that an opt-out that cannot be recorded does not run.
pub fn record_unsandboxed(store: &Store, record: &Record) -> Result<(), NotRecorded> {
    store.append(record).map(|_| ()).map_err(NotRecorded)
}

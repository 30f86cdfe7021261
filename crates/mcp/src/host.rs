//! The gateway as a host of the gate: every `tools/call` is handed to
//! [`Gate::pass`] (snapshot, decide, approve on ask, record, verdict); the
//! gateway only carries the verdict out. No decision, record or refusal
//! text is made here.
//!
//! `Gate::pass` may block (an approver waiting for a person), so it runs on
//! a blocking thread, one gate per call over the shared policy and a store
//! connection of its own (opening one is cheap; rusqlite's connection is not
//! shared across threads): no lock is held across an approval.

use std::path::PathBuf;
use std::sync::Arc;

use toolgate_gate::{Approver, Gate, GateOptions, Passage};
use toolgate_policy::{Call, Mode, Policy};
use toolgate_store::Store;

/// What every call of one gateway shares.
pub struct Host {
    /// The policy, compiled once.
    pub policy: Arc<Policy>,
    /// The state directory (`toolgate.db` in it), the one the policy
    /// protects.
    pub state_dir: PathBuf,
    /// The session of every call through this gateway.
    pub session: String,
    /// The server's name, recorded with every call.
    pub server: String,
    /// Replaces the policy's mode (`--mode`).
    pub mode: Option<Mode>,
}

impl Host {
    /// Passes one call through the gate. `blocked` names tools the host
    /// refuses whatever the policy says (a tool whose definition is not
    /// trusted).
    ///
    /// `Err` holds the gate's refusal text for a call the gate could not
    /// even take (its thread failed): not executed.
    pub async fn pass(
        &self,
        call: Call,
        approver: Box<dyn Approver>,
        blocked: Vec<String>,
    ) -> Result<Passage, String> {
        let policy = Arc::clone(&self.policy);
        let dir = self.state_dir.clone();
        let session = self.session.clone();
        let server = self.server.clone();
        let mode = self.mode;
        let run = tokio::task::spawn_blocking(move || {
            let (store, store_error) = match Store::open_configured(&dir, policy.database()) {
                Ok(s) => (Some(s), None),
                Err(e) => (None, Some(format!("the ledger cannot be opened: {e}"))),
            };
            let opts = GateOptions {
                session,
                store,
                store_error,
                mode,
                blocked_tools: blocked,
                who: "mcp".into(),
                server: Some(server),
                ..GateOptions::default()
            };
            Gate::new(policy, approver, opts).map(|mut gate| gate.pass(&call))
        });
        let why = match run.await {
            Ok(Ok(p)) => return Ok(p),
            Ok(Err(e)) => format!("the gate could not be set up: {e}"),
            Err(_) => "the gate failed unexpectedly".to_string(),
        };
        Err(toolgate_gate::refusal_text(&why, None))
    }

    /// The state database file.
    pub fn db(&self) -> PathBuf {
        self.state_dir.join(toolgate_store::DB_FILE_NAME)
    }
}

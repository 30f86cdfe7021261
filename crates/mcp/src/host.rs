//! The gateway as a host of the gate: every `tools/call` is handed to
//! [`Gate::pass`] (snapshot, decide, approve on ask, record, verdict); the
//! gateway only carries the verdict out. No decision, record or refusal
//! text is made here.
//!
//! `Gate::pass` may block (an approver waiting for a person), so it runs on
//! a blocking thread, one gate per call over the shared policy and a store
//! connection of its own: no lock is held across an approval.

use std::path::PathBuf;
use std::sync::Arc;

use crate::gate_api::{Passage, StubGate};
use toolgate_gate::{Approver, GateOptions, refusal_text};
use toolgate_policy::{Call, Policy};
use toolgate_store::Store;

/// What every call of one gateway shares.
pub struct Host {
    /// The policy, compiled once.
    pub policy: Arc<Policy>,
    /// The state store (`toolgate.db`), opened per call.
    pub db: PathBuf,
    /// The session of every call through this gateway.
    pub session: String,
    /// The server's name, recorded with every call.
    pub server: String,
    /// Replaces the policy's mode (`--mode`).
    pub mode: Option<toolgate_policy::Mode>,
    /// Stub.
    pub stub: Arc<std::sync::OnceLock<Result<StubGate, String>>>,
    /// Stub.
    pub stub_policy: Arc<std::sync::Mutex<Option<Policy>>>,
}

impl Host {
    /// Passes one call through the gate. `blocked` names tools the host
    /// refuses whatever the policy says (a tool whose definition is not
    /// trusted).
    ///
    /// `Err` is the gate's refusal text for a gate that could not be set
    /// up (the state store cannot be opened): the call is not executed.
    pub async fn pass(
        &self,
        call: Call,
        approver: Box<dyn Approver>,
        blocked: Vec<String>,
    ) -> Result<Passage, String> {
        let policy = Arc::clone(&self.policy);
        let db = self.db.clone();
        let session = self.session.clone();
        let mode = self.mode;
        let _ = policy;
        let stub = Arc::clone(&self.stub);
        let sp = Arc::clone(&self.stub_policy);
        let run = tokio::task::spawn_blocking(move || {
            let gate = stub.get_or_init(|| {
                let store = Store::open(&db).map_err(|e| e.to_string())?;
                let opts = GateOptions {
                    session,
                    store: Some(store),
                    who: "mcp".into(),
                    mode,
                    ..GateOptions::default()
                };
                let p = sp
                    .lock()
                    .ok()
                    .and_then(|mut p| p.take())
                    .ok_or("no policy")?;
                StubGate::new(p, opts)
            });
            let gate = gate.as_ref().map_err(|e| e.clone())?;
            if !blocked.is_empty() {
                return Ok(gate.pass(&call, Box::new(toolgate_gate::NeverApprover), true));
            }
            Ok::<Passage, String>(gate.pass(&call, approver, false))
        });
        let why = match run.await {
            Ok(Ok(p)) => return Ok(p),
            Ok(Err(e)) => format!("the gate could not be set up: {e}"),
            Err(_) => "the gate failed unexpectedly".to_string(),
        };
        Err(refusal_text(&why, None))
    }
}

//! The gateway as a host of the gate: every `tools/call` is handed to
//! [`Gate::pass`] (snapshot, decide, approve on ask, record, verdict); the
//! gateway only carries the verdict out. No decision, record or refusal
//! text is made here.
//!
//! `Gate::pass` runs in place on the async worker, one gate per call over
//! the shared policy and a store connection of its own, taken from a small
//! pool (opening a connection per call costs more than the rest of the gate
//! together): no lock is held across an approval, only while a connection
//! is taken or given back. What may wait runs as blocking code
//! (`block_in_place`, the worker's other tasks handed on): the person's
//! answer to a form (the approver itself, see `elicit.rs`), a reviewer
//! model's answer, a PostgreSQL store. An allowed call never waits, and
//! handing the worker over would cost more than its gate.
//! The stores are spooled (`Store::open_spooled`): a call's ledger row is
//! one locked append to the spool beside the database rather than a
//! SQLite transaction, folded into the ledger by the next reader.

use std::sync::{Arc, Mutex};

use sha2::Digest;
use toolgate_gate::{Approver, Gate, GateOptions, HostError, Passage, Setup};
use toolgate_policy::{Call, Mode, Policy};
use toolgate_store::Store;

/// What every call of one gateway shares.
pub struct Gateway {
    /// The policy, compiled once.
    pub policy: Arc<Policy>,
    /// Where the store is: the host layer's settings, with the state
    /// directory the policy protects. The ledger, the queue and the pins go
    /// to the store it names (PostgreSQL for a team), like every host's.
    pub setup: Setup,
    /// The session of every call through this gateway.
    pub session: String,
    /// The server's name, recorded with every call.
    pub server: String,
    /// Replaces the policy's mode (`--mode`).
    pub mode: Option<Mode>,
    /// Open connections to the store, reused call after call.
    pub stores: Arc<Mutex<Vec<Store>>>,
    /// When the gateway started, which begins its session: a script
    /// changed since and run as a program asks.
    pub started: std::time::SystemTime,
}

/// The gate panicked on a call: it is refused, and its sender reads the
/// refusal text this displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "{}",
    toolgate_gate::refusal_text("the gate failed unexpectedly", None)
)]
pub struct GateFailed;

/// Connections kept for reuse; more calls at once open more, and those
/// are closed after their call.
const POOL: usize = 8;

impl Gateway {
    /// Passes one call through the gate. `blocked` names tools the host
    /// refuses whatever the policy says (a tool whose definition is not
    /// trusted).
    ///
    /// `Err` is a call the gate could not even take (it panicked): not
    /// executed.
    pub async fn pass(
        &self,
        call: Call,
        approver: Box<dyn Approver>,
        blocked: Vec<String>,
    ) -> Result<Passage, GateFailed> {
        // Runs in place (borrowing the host), on this worker or as
        // blocking code; the store comes from the pool and goes back to it.
        let gate = || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let (store, store_error) = match self.open_store() {
                    Ok(s) => (Some(s), None),
                    Err(e) => (None, Some(format!("the ledger cannot be opened: {e}"))),
                };
                let opts = GateOptions {
                    store,
                    store_error,
                    mode: self.mode,
                    blocked_tools: blocked,
                    who: "mcp".into(),
                    server: Some(self.server.clone()),
                    session_start: Some(self.started),
                    ..GateOptions::in_session(self.session.clone())
                };
                let mut gate = Gate::new(Arc::clone(&self.policy), approver, opts);
                let passage = gate.pass(&call);
                if let Some(store) = gate.into_store() {
                    self.give_back(store);
                }
                passage
            }))
        };
        // An approver that waits for a person turns this worker into
        // blocking code itself, only when it asks. A reviewer model's answer
        // is awaited inside the gate, and a PostgreSQL store is a blocking
        // client with a runtime of its own, which must not be entered from
        // an async worker: with either, the whole gate runs as blocking
        // code.
        let run = if self.remote_store() || self.policy.review().is_some() {
            blocking(gate)
        } else {
            gate()
        };
        run.map_err(|_| GateFailed)
    }

    /// Records a message that was refused before any decision could be
    /// made on it (it repeats a key, its parameters do not fit its method):
    /// a ledger row under `tool` (rule `invalid-arguments`) keeping `raw`
    /// as it came, with `problem` as its reason. The message is refused
    /// whether or not the row can be written.
    pub fn reject(&self, tool: &str, raw: &str, problem: &str) {
        self.record(raw, |gate, call_id| {
            gate.reject_unreadable(call_id, tool, raw, problem);
        });
    }

    /// Records a request passed on without a decision (a server's request
    /// to a client that declared the capability): a ledger row under
    /// `tool`, rule `host:relayed`, its parameters as they came.
    pub fn relayed(&self, tool: &str, raw: &str, why: &str) {
        self.record(raw, |gate, call_id| {
            gate.record_relayed(call_id, tool, raw, why)
        });
    }

    /// Runs `write` on a gate of this session over the configured store
    /// (off the async workers when it is PostgreSQL), with a call id made
    /// from `raw`.
    fn record(&self, raw: &str, write: impl FnOnce(&mut Gate, &str)) {
        let now = || {
            let policy = Arc::clone(&self.policy);
            let call_id = format!(
                "mcp-{}",
                hex::encode(&sha2::Sha256::digest(raw.as_bytes())[..8])
            );
            let (store, store_error) = match self.open_store() {
                Ok(s) => (Some(s), None),
                Err(e) => (None, Some(format!("the ledger cannot be opened: {e}"))),
            };
            let opts = GateOptions {
                store,
                store_error,
                mode: self.mode,
                who: "mcp".into(),
                server: Some(self.server.clone()),
                ..GateOptions::in_session(self.session.clone())
            };
            let recorded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut gate = Gate::new(policy, Box::new(toolgate_gate::NeverApprover), opts);
                write(&mut gate, &call_id);
                gate.into_store()
            }));
            if let Ok(Some(store)) = recorded {
                self.give_back(store);
            }
        };
        if self.remote_store() {
            blocking(now);
        } else {
            now();
        }
    }

    /// Whether the configured store is PostgreSQL.
    fn remote_store(&self) -> bool {
        self.setup.database.as_deref().map_or_else(
            || {
                toolgate_store::configured_database(self.policy.database())
                    .is_some_and(|d| toolgate_store::is_postgres_url(&d))
            },
            toolgate_store::is_postgres_url,
        )
    }

    /// A store connection: one from the pool, else a new one to the
    /// configured store.
    pub fn open_store(&self) -> Result<Store, HostError> {
        let pooled = self.stores.lock().ok().and_then(|mut p| p.pop());
        match pooled {
            Some(s) => Ok(s),
            None => self.setup.open_store_spooled(Some(&self.policy)),
        }
    }

    /// Gives a connection back to the pool (or closes it when the pool is
    /// full).
    fn give_back(&self, store: Store) {
        if let Ok(mut pool) = self.stores.lock()
            && pool.len() < POOL
        {
            pool.push(store);
        }
    }
}

/// Runs blocking code from wherever the gateway is: in place on a worker of
/// the multi-threaded runtime (handing its other tasks on), directly
/// elsewhere.
pub(crate) fn blocking<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(f)
        }
        _ => f(),
    }
}

//! Errors of setting a gate up or resuming a queued call. Submitting a call
//! never fails: every failure is a result.

/// Why a gate could not be set up, or a queued call not resumed.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// The state store failed.
    #[error(transparent)]
    Store(#[from] toolgate_store::Error),
    /// A configuration that cannot work (e.g. the queue approver without a store).
    #[error("{0}")]
    Config(String),
    /// No pending approval has this id.
    #[error("no approval `{0}`")]
    UnknownApproval(String),
    /// The approval is not in a state that allows this.
    #[error("approval `{id}` is {status}: {what}")]
    NotResumable {
        /// The approval id.
        id: String,
        /// Its status.
        status: String,
        /// What was attempted.
        what: String,
    },
}

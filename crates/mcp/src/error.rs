//! The gateway's errors: what stops it before or while it serves.

/// Why the gateway could not serve.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The client did not complete the handshake.
    #[error("the MCP client did not initialize: {0}")]
    Client(String),
    /// The listening address.
    #[error("{0}")]
    Listen(String),
    /// The async runtime.
    #[error("cannot start the runtime: {0}")]
    Runtime(String),
}

//! Errors of starting the server and of the API client.

use std::path::PathBuf;

/// Why the server could not start, or an API request failed.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A listen address outside loopback without `--allow-remote`.
    #[error(
        "refusing to listen on `{0}`: it is not a loopback address; pass --allow-remote to serve \
         the approval page beyond this machine"
    )]
    NotLoopback(std::net::SocketAddr),
    /// The socket could not be bound.
    #[error("cannot listen on `{addr}`: {source}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The token file could not be written or read.
    #[error("token file `{}`: {source}", path.display())]
    Token {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The system's random source failed.
    #[error("cannot draw a random token: {0}")]
    Random(String),
    /// The state store failed.
    #[error("{0}")]
    Store(#[from] toolgate_store::Error),
    /// The configured store could not be opened.
    #[error("{0}")]
    Host(#[from] toolgate_gate::HostError),
    /// The async runtime or the socket failed while serving.
    #[error("serving: {0}")]
    Io(#[from] std::io::Error),
    /// An API request failed (client side).
    #[error("{0}")]
    Api(String),
}

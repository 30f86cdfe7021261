//! Pinned tool definitions of MCP servers (rug-pull protection).
//!
//! The first time the gateway sees a server's tool, its definition's digest
//! is pinned under the server's name. A later definition with another digest
//! is kept beside the pin as the *seen* one and is not trusted until a person
//! accepts it, which makes the seen definition the pin.

/// One pinned tool definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// The server's name (`--name`).
    pub server: String,
    /// The tool's name as the server gives it.
    pub tool: String,
    /// SHA-256 (hex) of the pinned definition's canonical JSON.
    pub digest: String,
    /// The pinned definition's canonical JSON.
    pub definition: String,
    /// When it was pinned or last accepted.
    pub pinned: String,
    /// A later definition that differs from the pin, waiting to be accepted.
    pub changed: Option<PinChange>,
}

/// A definition seen after the pin that differs from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinChange {
    /// Its digest.
    pub digest: String,
    /// Its canonical JSON.
    pub definition: String,
    /// When it was first seen.
    pub seen: String,
}

/// What a definition shown by a server is, measured against its pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinCheck {
    /// First sight: pinned now.
    Pinned,
    /// The same as the pin.
    Same,
    /// Differs from the pin (recorded as the seen definition): not trusted.
    Changed {
        /// The pinned digest.
        pinned: String,
    },
}

//! The gateway's settings, as the command line gives them.

use crate::host::Gateway;
use crate::upstream::UpstreamSpec;

/// One gateway in front of one MCP server.
pub struct Config {
    /// The server's name: tools are `mcp__<server>__<tool>`, pins are kept
    /// under it, ledger rows carry it.
    pub server: String,
    /// Where the server is.
    pub upstream: UpstreamSpec,
    /// Keep tools denied by name in `tools/list` (calls are still refused).
    pub show_denied: bool,
    /// The gate's side: policy, state store, session.
    pub host: Gateway,
}

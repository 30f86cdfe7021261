/*!
`toolgate mcp`: a gateway in front of any MCP server.

The gateway is one more host of the gate (`toolgate-gate`): every
`tools/call` goes through [`Gate::pass`](toolgate_gate::Gate::pass), which
decides, asks on `ask` (here: an `elicitation/create` form when the client
can show one, else the approval queue), records the ledger row and hands
back a verdict; only a verdict to run forwards the call. Everything else is
relayed both ways unchanged.

Three parts, kept apart:

- **downstream** ([`downstream`]): the client, on stdio or streamable HTTP;
- **upstream** ([`upstream`]): the server, spawned on stdio or reached over
  streamable HTTP;
- **the relay** ([`relay`]): requests, notifications, progress and
  cancellation both ways; the gate on `tools/call` and `tools/list`;
  beside it, the direct path ([`fast`]) that carries a `tools/call` and its
  result past rmcp when both sides are on stdio (same gate, same verdicts).

Tools are named `mcp__SRV__TOOL` for rules ([`names`]). Each tool's
definition is pinned on first sight ([`pins`]); a changed definition is not
trusted until a person accepts it.
*/
#![deny(missing_docs)]

pub mod config;
pub mod downstream;
pub mod elicit;
mod error;
pub mod fast;
pub mod framing;
pub mod host;
pub mod listen;
pub mod methods;
pub mod names;
pub mod pins;
pub mod relay;
pub mod strict;
pub mod upstream;

use std::net::SocketAddr;
use std::sync::Arc;

pub use config::Config;
pub use error::Error;
pub use host::Gateway;
pub use upstream::UpstreamSpec;

/// Runs the gateway to its end: on stdio, or over HTTP when `listen` is
/// given. Returns the exit status.
pub fn run(config: Config, listen: Option<SocketAddr>) -> Result<i32, Error> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| Error::Runtime(e.to_string()))?;
    let config = Arc::new(config);
    let code = rt.block_on(async move {
        match listen {
            Some(addr) => downstream::serve_http(config, addr).await,
            None => downstream::serve_stdio(config).await,
        }
    });
    // Blocking threads may still wait on a person; they hold nothing the
    // exit needs.
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    code
}

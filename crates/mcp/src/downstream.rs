//! Downstream transports: the client on the gateway's own standard input
//! and output, or clients over streamable HTTP on a local address.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use rmcp::ServiceExt;

use crate::config::Config;
use crate::error::Error;
use crate::framing;
use crate::relay::Relay;

/// Serves one client on stdin/stdout until it disconnects (the server is
/// then ended) or the server has died and the client asked again. Returns
/// the exit status: 0, or 1 when the server died.
pub async fn serve_stdio(config: Arc<Config>) -> Result<i32, Error> {
    let relay = Relay::new(config);
    let shared = Arc::clone(relay.shared());
    let transport = framing::checked(tokio::io::stdin(), tokio::io::stdout());
    let running = match relay.serve(transport).await {
        Ok(r) => r,
        Err(e) => {
            shared.end_server().await;
            return Err(Error::Client(e.to_string()));
        }
    };
    let stop = running.cancellation_token();
    tokio::select! {
        _ = running.waiting() => {}
        _ = shared.ended.cancelled() => stop.cancel(),
    }
    shared.end_server().await;
    Ok(shared.exit_code.load(Ordering::SeqCst))
}

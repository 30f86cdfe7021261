//! Downstream transports: the client on the gateway's own standard input
//! and output, or clients over streamable HTTP on a local address.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use rmcp::service::{RunningService, ServerInitializeError};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServiceExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::error::Error;
use crate::fast::ClientTap;
use crate::framing;
use crate::listen::HttpRelay;
use crate::relay::Relay;

/// Serves one client on stdin/stdout until it disconnects (the server is
/// then ended) or the server has died and the client asked again. Returns
/// the exit status: 0, or 1 when the server died.
pub async fn serve_stdio(config: Arc<Config>) -> Result<i32, Error> {
    match stdio_pipes() {
        Some((input, output)) => serve_streams(config, input, output).await,
        None => serve_streams(config, tokio::io::stdin(), tokio::io::stdout()).await,
    }
}

/// Serves one client on the byte streams `input` and `output` as on
/// stdio (the line check, the direct path), until it disconnects or the
/// server has died and the client asked again. [`serve_stdio`] on the
/// process's own streams; the tests drive the gateway through pipes of
/// their own with it.
pub async fn serve_streams<R, W>(config: Arc<Config>, input: R, output: W) -> Result<i32, Error>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let relay = Relay::new(config);
    let shared = Arc::clone(relay.shared());
    let running = match serve_on(relay, input, output).await {
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
        _ = terminated() => stop.cancel(),
    }
    shared.end_server().await;
    Ok(shared.exit_code.load(Ordering::SeqCst))
}

/// Serves `relay` on the client's byte streams: behind the line check,
/// with the direct path taking its calls from the input and writing its
/// answers to the output.
async fn serve_on<R, W>(
    relay: Relay,
    input: R,
    output: W,
) -> Result<RunningService<RoleServer, Relay>, ServerInitializeError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (read, write) = framing::checked(input, output);
    relay.shared().fast.set_client(&write.lines());
    let tap = Arc::new(ClientTap::new(relay.clone()));
    relay.serve((read.with_tap(tap), write)).await
}

/// Standard input and output as non-blocking pipes, when they are pipes
/// (as every MCP client starts a stdio server). tokio's own stdin and
/// stdout read and write on a blocking thread, a hop there and back for
/// every message.
fn stdio_pipes() -> Option<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use std::os::fd::AsFd;
    let input = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
    let output = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
    let input = tokio::net::unix::pipe::Receiver::from_owned_fd(input).ok()?;
    let output = tokio::net::unix::pipe::Sender::from_owned_fd(output).ok()?;
    Some((input, output))
}

/// Serves clients over streamable HTTP at `http://ADDR/mcp`, one server
/// per client session, until interrupted.
pub async fn serve_http(config: Arc<Config>, addr: SocketAddr) -> Result<i32, Error> {
    let ct = CancellationToken::new();
    let cfg = Arc::clone(&config);
    let service = StreamableHttpService::new(
        move || Ok(HttpRelay(Relay::new(Arc::clone(&cfg)))),
        LocalSessionManager::default().into(),
        StreamableHttpServerConfig::default().with_cancellation_token(ct.child_token()),
    );
    let router = axum::Router::new().nest_service("/mcp", service).layer(
        axum::middleware::from_fn_with_state(Arc::clone(&config), crate::listen::strict_body),
    );
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Error::Listen(format!("cannot listen on {addr}: {e}")))?;
    let local = listener
        .local_addr()
        .map_err(|e| Error::Listen(format!("cannot listen on {addr}: {e}")))?;
    eprintln!("toolgate mcp: serving http://{local}/mcp");
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            terminated().await;
            ct.cancel();
        })
        .await
        .map_err(|e| Error::Listen(format!("serving on {local}: {e}")))?;
    Ok(0)
}

/// SIGTERM, SIGINT or SIGHUP: the gateway ends its servers before it exits
/// (a server must not outlive the gateway its client talks to).
async fn terminated() {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
        _ = hup.recv() => {}
    }
}

//! Binding, the router, and running the server with its watcher.
//!
//! Connections are served by hyper directly rather than `axum::serve`,
//! which sets no limits: a client that opens a connection and trickles its
//! request head would hold it (and its task) forever, and any number of
//! them could. Here a request head must arrive within
//! [`Config::header_timeout`] (idle keep-alive connections included), a
//! request must be answered within [`REQUEST_TIMEOUT`] (a trickled body),
//! and at most [`Config::max_connections`] connections are served at once:
//! one beyond that is answered 503 and closed at once.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::{get, post};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::sync::Semaphore;
use toolgate_policy::Notify;

use crate::state::AppState;
use crate::watch::Watcher;
use crate::{ServeError, api, assets, auth, token};

/// How `toolgate serve` runs.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen (default `127.0.0.1:7777`; port 0 picks one).
    pub listen: SocketAddr,
    /// Allow a listen address outside loopback.
    pub allow_remote: bool,
    /// The state directory: the token file is written here.
    pub state_dir: PathBuf,
    /// The store: a SQLite file or a `postgres://` URL, as the host layer
    /// resolved it; `None`: `$TOOLGATE_DATABASE_URL`, else `toolgate.db` in
    /// the state directory.
    pub database: Option<String>,
    /// The policy's `[notify]` table.
    pub notify: Notify,
    /// The workspace roots; write previews read files only beneath them.
    pub roots: Vec<PathBuf>,
    /// How often the watcher looks at the queue.
    pub poll: Duration,
    /// How long a connection may take to send a request head (and how
    /// long a kept-alive connection may sit idle) before it is closed.
    pub header_timeout: Duration,
    /// How many connections are served at once (the page's event stream
    /// holds one per open tab).
    pub max_connections: usize,
}

/// The default [`Config::header_timeout`].
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// The default [`Config::max_connections`].
pub const MAX_CONNECTIONS: usize = 64;

/// How long a request may take from its head to the head of its answer
/// (a slow body, a busy store); the event stream's body is not bounded.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// What a connection beyond [`Config::max_connections`] is told before it
/// is closed.
const BUSY: &[u8] = b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
connection: close\r\ncontent-length: 43\r\n\r\n{\"error\":\"too many connections; try again\"}";

impl Config {
    /// Defaults for a state directory: loopback port 7777, no
    /// notifications, a one-hour TTL, a 500 ms watch interval.
    pub fn new(state_dir: PathBuf) -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 7777)),
            allow_remote: false,
            database: None,
            state_dir,
            notify: Notify::default(),
            roots: Vec::new(),
            poll: Duration::from_millis(500),
            header_timeout: HEADER_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
        }
    }
}

/// The router: every route under one auth layer, typed state.
pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/app.js", get(assets::app_js))
        .route("/assets/app.css", get(assets::app_css))
        .route("/openapi.json", get(assets::openapi))
        .route("/api/session", get(api::session))
        .route("/api/approvals", get(api::list))
        .route("/api/approvals/{id}", get(api::get_one))
        .route("/api/approvals/{id}/approve", post(api::approve))
        .route("/api/approvals/{id}/decline", post(api::decline))
        .route("/api/history", get(api::history))
        .route("/api/verify", get(api::verify))
        .route("/api/events", get(api::events))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::guard,
        ))
        .layer(axum::middleware::from_fn(time_limit))
        .with_state(state)
}

/// Answers 408 when a request is not answered within [`REQUEST_TIMEOUT`].
async fn time_limit(req: Request, next: Next) -> Response {
    match tokio::time::timeout(REQUEST_TIMEOUT, next.run(req)).await {
        Ok(resp) => resp,
        Err(_) => auth::refuse(
            StatusCode::REQUEST_TIMEOUT,
            "the request took too long to arrive or to answer",
        ),
    }
}

/// A bound server, not yet serving.
pub struct Server {
    listener: TcpListener,
    state: AppState,
    /// Made at bind time: a call queued after `bind` returns is announced.
    watcher: Watcher,
    header_timeout: Duration,
    max_connections: usize,
}

impl Server {
    /// Checks the address (loopback unless `allow_remote`), binds it,
    /// opens the store and writes a new token to the state directory.
    pub fn bind(config: Config) -> Result<Server, ServeError> {
        if !config.listen.ip().is_loopback() && !config.allow_remote {
            return Err(ServeError::NotLoopback(config.listen));
        }
        let listener = TcpListener::bind(config.listen).map_err(|source| ServeError::Bind {
            addr: config.listen,
            source,
        })?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        // The token first: it creates the state directory (0700) if needed.
        let token = token::create(&config.state_dir)?;
        let store = toolgate_gate::Setup {
            state_dir: Some(config.state_dir.clone()),
            database: config.database.clone(),
            ..toolgate_gate::Setup::default()
        }
        .open_store(None)?;
        let csrf = token::random_token()?;
        let state = AppState::new(
            store,
            token,
            csrf,
            addr,
            config.roots.clone(),
            config.notify.approval_ttl,
        );
        let watcher = Watcher::new(state.clone(), &config);
        Ok(Server {
            listener,
            state,
            watcher,
            header_timeout: config.header_timeout,
            max_connections: config.max_connections.max(1),
        })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.state.0.addr
    }

    /// The base URL, `http://127.0.0.1:7777`.
    pub fn url(&self) -> String {
        format!("http://{}", self.local_addr())
    }

    /// The link that opens the page signed in: `http://ADDR/#token=TOKEN`
    /// (the token in the fragment, which the browser never sends; the
    /// page keeps it for its own origin).
    pub fn link(&self) -> String {
        format!("{}/#token={}", self.url(), self.state.0.token)
    }

    /// The access token.
    pub fn token(&self) -> &str {
        &self.state.0.token
    }

    /// The router's state (for tests that drive the router directly).
    pub fn state(&self) -> AppState {
        self.state.clone()
    }

    /// Serves until the process ends (or the runtime fails).
    pub fn run(self) -> Result<(), ServeError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        rt.block_on(self.serve(std::future::pending()))
    }

    /// Serves on a thread of its own until the returned handle is dropped.
    pub fn spawn(self) -> Running {
        let url = self.url();
        let token = self.token().to_owned();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()?;
            rt.block_on(self.serve(async {
                let _ = stopped.await;
            }))
        });
        Running {
            url,
            token,
            stop: Some(stop),
            thread: Some(thread),
        }
    }

    async fn serve(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let listener = tokio::net::TcpListener::from_std(self.listener)?;
        let watch_task = tokio::spawn(self.watcher.run());
        let app = router(self.state);
        let slots = Arc::new(Semaphore::new(self.max_connections));
        let header_timeout = self.header_timeout;
        let mut shutdown = pin!(shutdown);
        loop {
            let stream = tokio::select! {
                () = &mut shutdown => break,
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        accept_failed(&e).await;
                        continue;
                    }
                },
            };
            let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
                // Best effort: a full socket buffer or a closed peer
                // gets no answer, only the close.
                let _ = stream.try_write(BUSY);
                drop(stream);
                continue;
            };
            let service = TowerToHyperService::new(app.clone());
            tokio::spawn(async move {
                let _slot = slot;
                let mut http = hyper::server::conn::http1::Builder::new();
                http.timer(TokioTimer::new())
                    .header_read_timeout(header_timeout);
                // A connection that times out or breaks is simply closed.
                let _ = http.serve_connection(TokioIo::new(stream), service).await;
            });
        }
        // Connections still open end with the runtime.
        watch_task.abort();
        Ok(())
    }
}

/// After a failed `accept`: a connection that went away before it was
/// taken is nothing; anything else (out of file descriptors) is logged
/// and the loop waits a moment instead of spinning.
async fn accept_failed(e: &std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        e.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    eprintln!("toolgate serve: accepting a connection failed: {e}");
    tokio::time::sleep(Duration::from_millis(200)).await;
}

/// A server running on its own thread; dropping it stops the server.
pub struct Running {
    /// The base URL.
    pub url: String,
    /// The access token.
    pub token: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<(), ServeError>>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // The thread ends once the accept loop stops and its runtime,
        // with the connections still open, is dropped; the dropping thread
        // does not wait for a webhook still being sent.
        drop(self.thread.take());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busy_answer_is_one_whole_response() {
        let text = std::str::from_utf8(BUSY).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("content-length: {}", body.len())));
        assert!(serde_json::from_str::<serde_json::Value>(body).is_ok());
    }
}

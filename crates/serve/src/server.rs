//! Binding, the router, and running the server with its watcher.

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};
use toolgate_policy::Notify;
use toolgate_store::Store;

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
    /// The database (usually `state_dir/toolgate.db`).
    pub db: PathBuf,
    /// The policy's `[notify]` table.
    pub notify: Notify,
    /// The workspace roots; write previews read files only beneath them.
    pub roots: Vec<PathBuf>,
    /// How often the watcher looks at the queue.
    pub poll: Duration,
}

impl Config {
    /// Defaults for a state directory: loopback port 7777, no
    /// notifications, a one-hour TTL, a 500 ms watch interval.
    pub fn new(state_dir: PathBuf) -> Config {
        Config {
            listen: SocketAddr::from(([127, 0, 0, 1], 7777)),
            allow_remote: false,
            db: state_dir.join(toolgate_store::DB_FILE_NAME),
            state_dir,
            notify: Notify::default(),
            roots: Vec::new(),
            poll: Duration::from_millis(500),
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
        .with_state(state)
}

/// A bound server, not yet serving.
pub struct Server {
    listener: TcpListener,
    state: AppState,
    /// Made at bind time: a call queued after `bind` returns is announced.
    watcher: Watcher,
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
        let store = Store::open(&config.db)?;
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

    /// The link that logs a browser in: `http://ADDR/?token=TOKEN`.
    pub fn link(&self) -> String {
        format!("{}/?token={}", self.url(), self.state.0.token)
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
        let watcher = self.watcher;
        let watch_task = tokio::spawn(watcher.run());
        let app = router(self.state);
        let served = axum::serve(listener, app)
            .with_graceful_shutdown(shutdown)
            .await;
        watch_task.abort();
        served.map_err(ServeError::Io)
    }
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
        // Open event streams keep graceful shutdown waiting; do not block
        // the dropping thread on them.
        drop(self.thread.take());
    }
}

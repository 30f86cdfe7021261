//! What every handler shares: the store, the secrets, the allowed hosts
//! and the change counter that drives the live page.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use toolgate_store::Store;

/// The router's typed state (cheap to clone).
#[derive(Clone)]
pub struct AppState(pub(crate) Arc<Inner>);

pub(crate) struct Inner {
    pub store: Store,
    pub token: String,
    pub csrf: String,
    /// `Host` values accepted (`127.0.0.1:7777`, `localhost:7777`); empty
    /// when bound to an unspecified address with `--allow-remote`, where
    /// any host is accepted and `Origin` must match the request's `Host`.
    pub hosts: Vec<String>,
    pub addr: SocketAddr,
    /// Bumped whenever the queue or the ledger changes.
    pub changes: watch::Sender<u64>,
    /// Workspace roots: the write previews read files only beneath them.
    pub roots: Vec<PathBuf>,
    pub approval_ttl: Duration,
}

impl AppState {
    /// State over `store` for a server at `addr`.
    pub fn new(
        store: Store,
        token: String,
        csrf: String,
        addr: SocketAddr,
        roots: Vec<PathBuf>,
        approval_ttl: Duration,
    ) -> AppState {
        let port = addr.port();
        let hosts = if addr.ip().is_unspecified() {
            Vec::new()
        } else if addr.ip().is_loopback() {
            let mut h = vec![addr.to_string(), format!("localhost:{port}")];
            if addr.is_ipv4() {
                h.push(format!("[::1]:{port}"));
            } else {
                h.push(format!("127.0.0.1:{port}"));
            }
            h
        } else {
            vec![addr.to_string()]
        };
        let (changes, _) = watch::channel(0);
        AppState(Arc::new(Inner {
            store,
            token,
            csrf,
            hosts,
            addr,
            changes,
            roots,
            approval_ttl,
        }))
    }

    /// Tells the live pages that something changed.
    pub fn bump(&self) {
        self.0.changes.send_modify(|v| *v += 1);
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.0.store
    }

    /// Whether a request's `Host` header names this server.
    pub(crate) fn host_allowed(&self, host: &str) -> bool {
        self.0.hosts.is_empty() || self.0.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }
}

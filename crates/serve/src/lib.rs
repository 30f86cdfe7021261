/*!
`toolgate serve`: the approval page and JSON API over the state store's
approval queue.

A call that a hook or the agent loop queued (`--approver queue`) waits in
the store until a person answers it. This crate makes the queue reachable
from a browser or a phone: a page that shows every waiting call live
(server-sent events), with its real arguments, digest, rule and reason;
approve once, approve for the session (where the rule allows), decline with
a note; the ledger's history and its `audit verify` status. The page uses
only the JSON API, documented as OpenAPI 3.1 at `/openapi.json`, and so do
`toolgate approvals` commands when a server URL is configured
([`client`]).

The server only answers approvals; whoever waits resumes (a hook polling
the store, `toolgate agent --approver queue --wait`). Alongside, a watcher
expires calls older than `approval_ttl` and sends the `[notify]`
notifications for new waiting calls ([`watch`]).

# Security

- A random token ([`token`]), written to `serve.token` in the state
  directory (mode 0600), printed once as the link `http://ADDR/#token=..`.
  The link is `http://ADDR/#token=..`: the page takes the token from the
  fragment (which the browser never sends), keeps it in its origin's own
  storage, takes it out of the address bar, and sends it as
  `Authorization: Bearer TOKEN`, the only way every API route accepts it.
  No cookie: a browser sends a cookie of 127.0.0.1 to every port there,
  so another server on the machine would receive it. The page's static
  files need no token.
- A request whose `Host` is not the listen address is refused (DNS
  rebinding); a state-changing request also needs `Origin` equal to the
  listen address and the CSRF token that `GET /api/session` returns, in
  `X-CSRF-Token`.
- Binding outside loopback needs `allow_remote` and prints a warning.
- An approval is bound to the digest shown: the approve request carries it,
  and a call whose stored snapshot no longer matches its digest, or whose
  digest is not the one in the request, is refused (409) with the queue
  unchanged.
*/
#![deny(missing_docs)]

mod api;
mod assets;
mod auth;
pub mod client;
mod error;
mod server;
mod state;
pub mod token;
mod view;
pub mod watch;

pub use error::ServeError;
pub use server::{
    Config, HEADER_TIMEOUT, MAX_CONNECTIONS, REQUEST_TIMEOUT, Running, Server, router,
};
pub use state::AppState;

/// Every route the router serves, as (method, path) with OpenAPI's
/// `{param}` spelling. A test checks that `/openapi.json` documents exactly
/// these.
pub const ROUTES: &[(&str, &str)] = &[
    ("get", "/"),
    ("get", "/assets/app.js"),
    ("get", "/assets/app.css"),
    ("get", "/openapi.json"),
    ("get", "/api/session"),
    ("get", "/api/approvals"),
    ("get", "/api/approvals/{id}"),
    ("post", "/api/approvals/{id}/approve"),
    ("post", "/api/approvals/{id}/decline"),
    ("get", "/api/history"),
    ("get", "/api/verify"),
    ("get", "/api/events"),
];

/// The file in the state directory that holds the current server's token.
pub const TOKEN_FILE: &str = "serve.token";

/// The environment variable naming a running server (`http://127.0.0.1:7777`)
/// for `toolgate approvals` to use instead of the store.
pub const SERVER_URL_ENV: &str = "TOOLGATE_SERVER_URL";

/// The environment variable holding that server's token (default: read
/// from [`TOKEN_FILE`] in the state directory).
pub const SERVER_TOKEN_ENV: &str = "TOOLGATE_SERVER_TOKEN";

/// The header that carries the CSRF token on state-changing requests.
pub const CSRF_HEADER: &str = "x-csrf-token";

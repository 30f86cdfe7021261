//! `fetch_url`: one HTTP(S) GET, bounded in time and size.
//!
//! Redirects are not followed: the policy judged this URL, not the one a
//! server points to. A redirect comes back as a result with its status and
//! `Location`, and the model may ask for that URL in a new call, which the
//! gate judges on its own.
//!
//! With an [`AddrCheck`], the host name is resolved once, here; the check
//! decides on the name and every address it resolved to (the policy's
//! `ip:` and `domain:ADDRESS` rules); then the connection is made to exactly
//! those addresses, through a resolver that returns them and looks nothing
//! up again. A name that resolves to a denied address, or is re-pointed
//! after the check, never reaches it.

use std::fmt;
use std::io::Read;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use crate::content::{Body, classify};
use crate::error::{ToolError, lowercase_first, reason};

/// Limits of one fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchOptions {
    /// Budget for name resolution plus connecting, TLS included (default 10 s).
    pub connect_timeout: Duration,
    /// Budget for the whole exchange, body included (default 30 s).
    pub timeout: Duration,
    /// Body bytes kept (default 1 MiB); a longer body is cut and marked.
    pub max_body_bytes: u64,
    /// Use the proxy named by `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` (and
    /// honour `NO_PROXY`), as other command-line clients do (default on).
    /// Not used with an [`AddrCheck`]: a proxy would resolve the name
    /// again, out of the check's sight.
    pub use_env_proxy: bool,
    /// Decides on the resolved addresses before connecting (default none:
    /// the name is resolved and connected to as any client does).
    pub addr_check: Option<AddrCheck>,
}

/// The signature of an address check: the URL as given, the host as
/// parsed for the connection (IPv6 without brackets), and every address it
/// resolved to. `Err` carries why the connection is refused.
pub type AddrCheckFn = dyn Fn(&str, &str, &[IpAddr]) -> Result<(), AddrRefused> + Send + Sync;

/// Why an address check refused a connection, in the words of the
/// decision that refused it; the fetch fails with it before connecting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct AddrRefused {
    /// The refusing decision's reason.
    pub reason: String,
}

impl From<Box<toolgate_policy::Decision>> for AddrRefused {
    fn from(d: Box<toolgate_policy::Decision>) -> AddrRefused {
        AddrRefused { reason: d.reason }
    }
}

/// A decision on where a fetch connects, made after the one name lookup
/// and before any connection (the host wires the policy's
/// `Policy::check_connection` in here).
#[derive(Clone)]
pub struct AddrCheck(Arc<AddrCheckFn>);

impl AddrCheck {
    /// Wraps a check.
    pub fn new(
        check: impl Fn(&str, &str, &[IpAddr]) -> Result<(), AddrRefused> + Send + Sync + 'static,
    ) -> AddrCheck {
        AddrCheck(Arc::new(check))
    }
}

impl fmt::Debug for AddrCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AddrCheck(..)")
    }
}

/// Two options are equal when they hold the same check.
impl PartialEq for AddrCheck {
    fn eq(&self, other: &AddrCheck) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for AddrCheck {}

/// A resolver that returns the addresses already decided on and looks
/// nothing up.
#[derive(Debug)]
struct Pinned(Vec<SocketAddr>);

impl Resolver for Pinned {
    fn resolve(
        &self,
        _uri: &Uri,
        _config: &Config,
        _timeout: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let mut out = self.empty();
        // ureq keeps at most 16 addresses; all were checked.
        for a in self.0.iter().take(16) {
            out.push(*a);
        }
        if out.is_empty() {
            return Err(ureq::Error::HostNotFound);
        }
        Ok(out)
    }
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_body_bytes: 1 << 20,
            use_env_proxy: true,
            addr_check: None,
        }
    }
}

/// What came back. Any HTTP status is a result, not an error: a 404 or a
/// redirect is information the model acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchOutput {
    /// The URL as given.
    pub url: String,
    /// The HTTP status code.
    pub status: u16,
    /// The `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// The `Location` header of a redirect (3xx), not followed.
    pub location: Option<String>,
    /// The `Content-Length` header, if any.
    pub content_length: Option<u64>,
    /// The body (or what was kept of it), or a summary if it is binary.
    pub body: Body,
    /// True when the body was longer than [`FetchOptions::max_body_bytes`]
    /// and was cut there.
    pub truncated: bool,
}

impl FetchOutput {
    /// A 2xx status.
    pub fn success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// A 3xx status with a `Location`.
    pub fn is_redirect(&self) -> bool {
        (300..400).contains(&self.status) && self.location.is_some()
    }
}

impl fmt::Display for FetchOutput {
    /// The result as the model reads it: a status line, then the body.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[HTTP {}", self.status)?;
        if let Some(ct) = &self.content_type {
            write!(f, ", {ct}")?;
        }
        writeln!(f, "]")?;
        if let (true, Some(location)) = (self.is_redirect(), &self.location) {
            writeln!(
                f,
                "[redirect to {location}; not followed: to read it, fetch that URL in a new call]"
            )?;
        }
        write!(f, "{}", self.body)?;
        if self.truncated {
            let total = match self.content_length {
                Some(n) => format!("{n} bytes in all"),
                None => "length unknown".to_string(),
            };
            write!(f, "\n[body cut at the first bytes kept; {total}]")?;
        }
        Ok(())
    }
}

/// Fetches `url` with a GET.
///
/// Only `http` and `https` URLs with a host are fetched. Connect and total
/// timeouts bound the call; at most [`FetchOptions::max_body_bytes`] of the
/// body are read (the rest is not downloaded). Text is returned as text,
/// other content as [`Body::Binary`].
pub fn fetch_url(url: &str, opts: &FetchOptions) -> Result<FetchOutput, ToolError> {
    let bad = |reason: &str| ToolError::BadUrl {
        url: url.to_string(),
        reason: reason.to_string(),
    };
    let uri: Uri = url
        .parse()
        .map_err(|e: ureq::http::uri::InvalidUri| bad(&format!("it is not a valid url ({e})")))?;
    match uri.scheme_str().map(str::to_ascii_lowercase).as_deref() {
        Some("http") | Some("https") => {}
        Some(other) => {
            return Err(bad(&format!(
                "only http and https urls are fetched, not `{other}`"
            )));
        }
        None => {
            return Err(bad(
                "it has no scheme; write it as http://... or https://...",
            ));
        }
    }
    let Some(host) = uri.host().filter(|h| !h.is_empty()) else {
        return Err(bad("it has no host"));
    };

    let mut config = ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .timeout_resolve(Some(opts.connect_timeout))
        .timeout_connect(Some(opts.connect_timeout))
        .timeout_global(Some(opts.timeout))
        .user_agent(concat!("toolgate/", env!("CARGO_PKG_VERSION")));
    let agent = match &opts.addr_check {
        None => {
            if !opts.use_env_proxy {
                config = config.proxy(None);
            }
            ureq::Agent::new_with_config(config.build())
        }
        Some(check) => {
            let https = uri
                .scheme_str()
                .is_some_and(|s| s.eq_ignore_ascii_case("https"));
            let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
            let host = host.trim_start_matches('[').trim_end_matches(']');
            let addrs = resolve_once(url, host, port, opts.connect_timeout)?;
            let ips: Vec<IpAddr> = addrs.iter().map(SocketAddr::ip).collect();
            (check.0)(url, host, &ips).map_err(|why| ToolError::Fetch {
                url: url.to_string(),
                reason: format!("refused before connecting: {why}"),
            })?;
            ureq::Agent::with_parts(
                config.proxy(None).build(),
                DefaultConnector::default(),
                Pinned(addrs),
            )
        }
    };

    let fail = |e: ureq::Error| map_error(url, opts, e);
    let response = agent.get(uri).call().map_err(fail)?;
    let (parts, body) = response.into_parts();
    let header = |name: &str| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let content_type = header("content-type");
    let location = header("location");
    let content_length = header("content-length").and_then(|v| v.trim().parse().ok());

    let mut bytes = Vec::new();
    body.into_with_config()
        .reader()
        .take(opts.max_body_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| fail(ureq::Error::from(e)))?;
    let truncated = bytes.len() as u64 > opts.max_body_bytes;
    if truncated {
        bytes.truncate(usize::try_from(opts.max_body_bytes).unwrap_or(usize::MAX));
    }
    // Content that is valid UTF-8 without NUL bytes is shown as text even
    // when declared otherwise (servers label text as octet-stream often
    // enough); declared text in another encoding is shown with replacements.
    let body = classify(bytes, truncated, content_type.as_deref());
    let body = match (body, content_length) {
        (Body::Binary { kind, .. }, Some(n)) if truncated => Body::Binary { kind, len: n },
        (body, _) => body,
    };
    Ok(FetchOutput {
        url: url.to_string(),
        status: parts.status.as_u16(),
        content_type,
        location,
        content_length,
        body,
        truncated,
    })
}

/// Resolves the host once, within the connect timeout: an address as
/// written is itself; a name is looked up by the system resolver (on a
/// thread, so that a hung lookup is abandoned at the timeout).
fn resolve_once(
    url: &str,
    host: &str,
    port: u16,
    timeout: Duration,
) -> Result<Vec<SocketAddr>, ToolError> {
    if let Ok(ip) = host.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let (tx, rx) = mpsc::channel();
    let name = host.to_string();
    std::thread::spawn(move || {
        let found = (name.as_str(), port)
            .to_socket_addrs()
            .map(Iterator::collect::<Vec<_>>);
        let _ = tx.send(found);
    });
    let not_found = || ToolError::Fetch {
        url: url.to_string(),
        reason: "the host name could not be resolved".to_string(),
    };
    match rx.recv_timeout(timeout) {
        Ok(Ok(addrs)) if !addrs.is_empty() => Ok(addrs),
        Ok(_) => Err(not_found()),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(ToolError::FetchTimeout {
            url: url.to_string(),
            after: timeout,
        }),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(not_found()),
    }
}

/// A ureq error as a tool error, timeouts apart.
fn map_error(url: &str, opts: &FetchOptions, e: ureq::Error) -> ToolError {
    let url = url.to_string();
    let reason = match e {
        ureq::Error::Timeout(which) => {
            let after = match which {
                ureq::Timeout::Connect | ureq::Timeout::Resolve => opts.connect_timeout,
                _ => opts.timeout,
            };
            return ToolError::FetchTimeout { url, after };
        }
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
            return ToolError::FetchTimeout {
                url,
                after: opts.timeout,
            };
        }
        ureq::Error::Io(io) => reason(&io),
        ureq::Error::HostNotFound => "the host name could not be resolved".to_string(),
        ureq::Error::ConnectionFailed => "the connection could not be made".to_string(),
        other => lowercase_first(&other.to_string()),
    };
    ToolError::Fetch { url, reason }
}

//! `fetch_url`: one HTTP(S) GET, bounded in time and size.
//!
//! Redirects are not followed: the policy judged this URL, not the one a
//! server points to. A redirect comes back as a result with its status and
//! `Location`, and the model may ask for that URL in a new call, which the
//! gate judges on its own.

use std::fmt;
use std::io::Read;
use std::time::Duration;

use ureq::http::Uri;

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
    pub use_env_proxy: bool,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions {
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_body_bytes: 1 << 20,
            use_env_proxy: true,
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
    if uri.host().is_none_or(str::is_empty) {
        return Err(bad("it has no host"));
    }

    let mut config = ureq::Agent::config_builder()
        .max_redirects(0)
        .http_status_as_error(false)
        .timeout_resolve(Some(opts.connect_timeout))
        .timeout_connect(Some(opts.connect_timeout))
        .timeout_global(Some(opts.timeout))
        .user_agent(concat!("toolgate/", env!("CARGO_PKG_VERSION")));
    if !opts.use_env_proxy {
        config = config.proxy(None);
    }
    let agent = ureq::Agent::new_with_config(config.build());

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

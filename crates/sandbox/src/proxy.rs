//! The proxy of a sandbox whose policy allows fetches: the command's only
//! way to the network (see [`crate::netns`] for how it reaches it).
//!
//! It speaks HTTP/1.1 as a forward proxy: `CONNECT host:port` (HTTPS and
//! any other tunnel) and plain HTTP in absolute form
//! (`GET http://host/path`). Everything else is refused: origin-form
//! requests (`GET /path`: this is no web server), `https://` in absolute
//! form (the proxy does not speak TLS for the client), malformed or
//! oversized heads.
//!
//! Each connection is decided as `fetch_url` decides one, through the same
//! policy and the same functions: the target's host is read by
//! `toolgate_policy`'s URL and host functions (every IPv4 spelling, IPv6
//! literals, IDNA, trailing dots), a fetch of `https://HOST:PORT/` (for a
//! tunnel) or of the request's URL (for plain HTTP) is decided, the name is
//! resolved once, the fetch is decided again with those addresses
//! (`Policy::decide_connection`: `ip:` rules meet the addresses a name
//! resolves to), and the proxy connects to exactly those addresses. Only an
//! allow passes: an ask is refused, since nobody can answer it there.
//!
//! An address that is not globally reachable (loopback, private,
//! link-local, unique-local, shared, multicast, unspecified, reserved) is
//! refused even when the fetch is allowed, unless an allow rule names it: an
//! `ip:` block that holds it, `domain:` with the address itself, or
//! `domain:localhost` for a loopback address that `localhost` resolved to.
//! A name re-pointed at a private address (DNS rebinding) then meets a
//! refusal, and `WebFetch(*)` does not open the host's own services or a
//! cloud's metadata address.
//!
//! For plain HTTP, the request goes out in origin form with `Host` set to
//! the URL's host (a `Host` header naming another one is replaced, not
//! forwarded), hop-by-hop and proxy headers dropped, `Connection: close`,
//! one request per connection: a second request on the same connection
//! is never read, so it cannot reach a host that was not decided. A body
//! needs a `Content-Length` (a chunked request body is refused with 411).
//!
//! Each refusal by the policy is a ledger row (tool `sandbox`, decision
//! `deny`, outcome `blocked`, the policy's rule) written through the
//! caller's [`ProxyLedger`], and the client gets `403` with the reason.

use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use serde_json::json;
use toolgate_policy::{Call, Cidr, Context, Effect, Policy, UrlHost};
use toolgate_store::{Decision, Outcome, Record};

/// The rule id of a refusal of an address that is not globally reachable
/// and that no allow rule names.
pub const RULE_LOCAL_ADDRESS: &str = toolgate_policy::rule_ids::SANDBOX_PROXY_LOCAL_ADDRESS;

const HEAD_LIMIT: usize = 64 * 1024;
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(10);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
const IDLE_TIMEOUT: Duration = Duration::from_secs(300);
const MAX_CONNECTIONS: usize = 256;

/// Why a ledger writer could not record a row: the host's own error (the
/// sandbox does not know the store a host records in), carried as it is.
pub type ProxyLedgerError = Box<dyn std::error::Error + Send + Sync>;

/// The signature of a ledger writer.
pub type ProxyLedgerFn = dyn Fn(&Record) -> Result<(), ProxyLedgerError> + Send + Sync;

/// Where the proxy records each connection it refuses: one ledger row per
/// refusal. The host opens its store the way it records everything else
/// (lazily: the proxy calls it only on a refusal, and, for `toolgate
/// sandbox`, in the proxy's own process).
#[derive(Clone)]
pub struct ProxyLedger(Arc<ProxyLedgerFn>);

impl ProxyLedger {
    /// Wraps a writer.
    pub fn new<E>(f: impl Fn(&Record) -> Result<(), E> + Send + Sync + 'static) -> ProxyLedger
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        ProxyLedger(Arc::new(move |record: &Record| {
            f(record).map_err(|e| -> ProxyLedgerError { Box::new(e) })
        }))
    }
}

impl std::fmt::Debug for ProxyLedger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProxyLedger(..)")
    }
}

/// What decides and records: the policy and the ledger.
pub(crate) struct Gate {
    pub(crate) policy: Option<Arc<Policy>>,
    pub(crate) ledger: Option<ProxyLedger>,
}

/// A refused request: the status, and why.
#[derive(Debug)]
struct Refusal {
    status: u16,
    reason: String,
    /// A policy refusal, to record: the rule that decided and whether a
    /// hard limit did.
    record: Option<(Option<String>, bool)>,
}

impl Refusal {
    fn bad(reason: impl Into<String>) -> Refusal {
        Refusal {
            status: 400,
            reason: reason.into(),
            record: None,
        }
    }
}

/// Where a request goes.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Target {
    host: UrlHost,
    port: u16,
    /// The URL decided: `https://HOST:PORT/` for a tunnel, the request's
    /// URL (normalised) for plain HTTP.
    url: String,
    /// Plain HTTP: the request target in origin form and the authority for
    /// `Host`.
    http: Option<(String, String)>,
}

/// A request head: the request line and the headers, in order.
#[derive(Debug)]
struct Head {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
}

impl Head {
    fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// Parses a request head (without its final empty line). Strict: CRLF line
/// ends only, no folded headers, no control characters, HTTP/1.0 or 1.1.
fn parse_head(head: &[u8]) -> Result<Head, Refusal> {
    let text =
        std::str::from_utf8(head).map_err(|_| Refusal::bad("the request head is not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Refusal::bad("malformed request line"));
    };
    if method.is_empty() || !method.bytes().all(is_tchar) {
        return Err(Refusal::bad("malformed method"));
    }
    if target.is_empty() || target.bytes().any(|b| b <= b' ' || b >= 0x7f) {
        return Err(Refusal::bad("malformed request target"));
    }
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(Refusal::bad("only HTTP/1.0 and HTTP/1.1 are spoken"));
    }
    let mut headers = Vec::new();
    for l in lines {
        if l.starts_with([' ', '\t']) {
            return Err(Refusal::bad("folded header lines are refused"));
        }
        if l.bytes().any(|b| (b < b' ' && b != b'\t') || b == 0x7f) {
            return Err(Refusal::bad("a header holds a control character"));
        }
        let Some((name, value)) = l.split_once(':') else {
            return Err(Refusal::bad("malformed header line"));
        };
        if name.is_empty() || !name.bytes().all(is_tchar) {
            return Err(Refusal::bad("malformed header name"));
        }
        headers.push((
            name.to_string(),
            value.trim_matches([' ', '\t']).to_string(),
        ));
    }
    Ok(Head {
        method: method.to_string(),
        target: target.to_string(),
        headers,
    })
}

/// The host and port of a `CONNECT` target (`host:port`, `[v6]:port`).
fn connect_target(t: &str) -> Result<Target, Refusal> {
    let bad = || Refusal::bad(format!("`{t}` is not a host and port"));
    if t.contains(['/', '@', '?', '#', '\\', '%']) {
        return Err(bad());
    }
    let (host, port) = if let Some(rest) = t.strip_prefix('[') {
        let (h, p) = rest.split_once("]:").ok_or_else(bad)?;
        let ip: Ipv6Addr = h.parse().map_err(|_| bad())?;
        (UrlHost::from_ip(IpAddr::V6(ip)), p)
    } else {
        let (h, p) = t.rsplit_once(':').ok_or_else(bad)?;
        if h.contains(':') {
            return Err(bad());
        }
        (UrlHost::parse(h).ok_or_else(bad)?, p)
    };
    let port = parse_port(port).ok_or_else(bad)?;
    let url = normalized(&format!("https://{host}:{port}/"), &host)?;
    Ok(Target {
        host,
        port,
        url,
        http: None,
    })
}

fn parse_port(p: &str) -> Option<u16> {
    if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    p.parse::<u16>().ok().filter(|&n| n != 0)
}

/// The URL as `toolgate_policy` normalises it, which must reach `host`
/// only (no reading of it by another parser reaches another host).
fn normalized(url: &str, host: &UrlHost) -> Result<String, Refusal> {
    let t = toolgate_policy::normalize_url(url).map_err(|e| Refusal::bad(e.to_string()))?;
    if !one_host(&t, host) {
        return Err(Refusal::bad(format!(
            "`{url}` is read as more than one host"
        )));
    }
    Ok(t.url)
}

/// Whether every reading of the URL reaches `host` (and what a connection
/// to it reaches: the unspecified address is the loopback one too).
fn one_host(t: &toolgate_policy::FetchTarget, host: &UrlHost) -> bool {
    let reached = host.clone().reached();
    !t.ambiguous && t.hosts.contains(host) && t.hosts.iter().all(|h| reached.contains(h))
}

/// The target of a plain HTTP request in absolute form.
fn http_target(t: &str) -> Result<Target, Refusal> {
    let scheme_end = t.find("://").unwrap_or(0);
    let scheme = t.get(..scheme_end).unwrap_or_default();
    if scheme.eq_ignore_ascii_case("https") {
        return Err(Refusal::bad(
            "`https://` in a request line: use CONNECT (the proxy does not speak TLS for the client)",
        ));
    }
    if !scheme.eq_ignore_ascii_case("http") {
        return Err(Refusal::bad(
            "this is toolgate's sandbox proxy: only CONNECT and absolute http:// requests are served",
        ));
    }
    let rest = t.get(scheme_end + 3..).unwrap_or_default();
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    if authority.is_empty() || authority.contains(['@', '\\', '%']) {
        return Err(Refusal::bad(format!("`{t}`: malformed host")));
    }
    let ft = toolgate_policy::normalize_url(t).map_err(|e| Refusal::bad(e.to_string()))?;
    let Some(host) = ft.hosts.first().filter(|h| one_host(&ft, h)) else {
        return Err(Refusal::bad(format!("`{t}` is read as more than one host")));
    };
    let url = ft.url.clone();
    let Some(rest) = url.strip_prefix("http://") else {
        return Err(Refusal::bad(format!("`{t}` is not an http URL")));
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = rest[..end].to_string();
    let mut origin = rest[end..].to_string();
    if let Some(i) = origin.find('#') {
        origin.truncate(i);
    }
    if !origin.starts_with('/') {
        origin.insert(0, '/');
    }
    let port = match authority.rfind(':') {
        Some(i) if !authority[i..].contains(']') => {
            parse_port(&authority[i + 1..]).ok_or_else(|| Refusal::bad("malformed port"))?
        }
        _ => 80,
    };
    Ok(Target {
        host: host.clone(),
        port,
        url,
        http: Some((origin, authority)),
    })
}

/// Whether `ip` is reachable on the public internet: the addresses the
/// proxy refuses unless a rule names them are the others.
pub(crate) fn is_global(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => v4_global(a),
        IpAddr::V6(a) => {
            if let Some(v4) = a.to_ipv4_mapped() {
                return v4_global(v4);
            }
            let s = a.segments();
            let embedded = |hi: u16, lo: u16| Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo));
            // NAT64 (64:ff9b::/96): the IPv4 address it translates to.
            if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
                return v4_global(embedded(s[6], s[7]));
            }
            // 6to4 (2002::/16): the IPv4 address of the tunnel's end.
            if s[0] == 0x2002 && !v4_global(embedded(s[1], s[2])) {
                return false;
            }
            !(a.is_unspecified()
                || a.is_loopback()
                || s[..6] == [0, 0, 0, 0, 0, 0] // IPv4-compatible, deprecated
                || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1) // local NAT64
                || (s[0] == 0x100 && s[1..4] == [0, 0, 0]) // discard
                || (s[0] == 0x2001 && s[1] == 0xdb8) // documentation
                || (s[0] & 0xfe00) == 0xfc00 // unique local
                || (s[0] & 0xffc0) == 0xfe80 // link-local
                || (s[0] & 0xffc0) == 0xfec0 // site-local, deprecated
                || (s[0] & 0xff00) == 0xff00) // multicast
        }
    }
}

fn v4_global(a: Ipv4Addr) -> bool {
    let o = a.octets();
    !(o[0] == 0 // "this network", 0.0.0.0 reaching the local host
        || a.is_loopback()
        || a.is_private()
        || a.is_link_local()
        || (o[0] == 100 && (o[1] & 0xc0) == 64) // shared (CGNAT) 100.64/10
        || (o[0] == 192 && o[1] == 0 && o[2] == 0) // IETF protocol assignments
        || a.is_documentation()
        || (o[0] == 198 && (o[1] & 0xfe) == 18) // benchmarking 198.18/15
        || a.is_multicast()
        || o[0] >= 240) // reserved, broadcast
}

/// Whether an allow rule of `policy` names `ip`, reached through `host`:
/// an `ip:` block holding it, `domain:` naming the address, or
/// `domain:localhost` (`*.localhost` names too) for a loopback address
/// that name resolved to.
fn names_address(policy: &Policy, host: &UrlHost, ip: IpAddr) -> bool {
    let as_host = UrlHost::from_ip(ip);
    let local_name =
        matches!(host, UrlHost::Domain(d) if d == "localhost" || d.ends_with(".localhost"));
    policy
        .rules()
        .iter()
        .filter(|r| r.effect == Effect::Allow)
        .flat_map(|r| r.sources.iter())
        .filter_map(|s| {
            s.trim()
                .strip_prefix("WebFetch(")
                .and_then(|s| s.strip_suffix(')'))
                .map(str::trim)
        })
        .any(|spec| {
            if let Some(c) = spec.strip_prefix("ip:") {
                return Cidr::parse(c.trim()).is_ok_and(|c| c.contains(ip));
            }
            let Some(d) = spec.strip_prefix("domain:") else {
                return false;
            };
            match UrlHost::parse(d.trim()) {
                Some(h) if h == as_host => true,
                Some(h) => local_name && ip.is_loopback() && &h == host,
                None => false,
            }
        })
}

impl Gate {
    /// Decides `target` and resolves it: the addresses to connect to, or
    /// the refusal.
    fn admit(&self, target: &Target) -> Result<Vec<SocketAddr>, Refusal> {
        let Some(policy) = &self.policy else {
            return Err(Refusal {
                status: 403,
                reason: "no policy decides connections here".into(),
                record: Some((None, false)),
            });
        };
        let call = Call::new("fetch_url", json!({ "url": target.url }));
        let ctx = Context::default();
        let refused = |d: &toolgate_policy::Decision| Refusal {
            status: 403,
            reason: format!(
                "the policy {} a fetch of `{}`: {}",
                match d.decision {
                    Effect::Ask => "asks about (and nobody can answer inside the sandbox)",
                    _ => "denies",
                },
                target.url,
                d.reason
            ),
            record: Some((d.rule.clone(), d.hard)),
        };
        let before = policy.decide_in(&call, &ctx);
        if before.decision != Effect::Allow {
            return Err(refused(&before));
        }
        let addrs = resolve(&target.host, target.port)?;
        let ips: Vec<IpAddr> = addrs.iter().map(SocketAddr::ip).collect();
        let name = match &target.host {
            UrlHost::Domain(d) => d.clone(),
            UrlHost::Ip(ip) => ip.to_string(),
        };
        let at = policy.decide_connection(&call, &name, &ips, &ctx);
        if at.decision != Effect::Allow {
            return Err(refused(&at));
        }
        for ip in &ips {
            let ip = match *ip {
                IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4),
                v4 => v4,
            };
            if !is_global(ip) && !names_address(policy, &target.host, ip) {
                return Err(Refusal {
                    status: 403,
                    reason: format!(
                        "`{}` resolves to {ip}, an address that is not public, and no allow rule names it (`WebFetch(ip:{ip})` would)",
                        target.host
                    ),
                    record: Some((Some(RULE_LOCAL_ADDRESS.to_string()), false)),
                });
            }
        }
        Ok(addrs)
    }

    fn record(&self, head: &Head, target: Option<&Target>, refusal: &Refusal, started: Instant) {
        let (Some(ledger), Some((rule, hard))) = (&self.ledger, &refusal.record) else {
            return;
        };
        let mut target_text = head.target.clone();
        target_text.truncate(2048);
        let input = json!({
            "sandbox": "proxy",
            "method": head.method,
            "target": target_text,
            "url": target.map(|t| t.url.clone()),
        });
        let call = Call::new("sandbox", input.clone());
        let record = Record {
            session: std::env::var("TOOLGATE_SESSION").unwrap_or_else(|_| "sandbox".into()),
            client: None,
            server: None,
            call_id: call.id.clone(),
            tool: "sandbox".into(),
            digest: call.digest(),
            input: input.to_string(),
            decision: Decision::Deny,
            rule: rule.clone(),
            hard: *hard,
            reason: format!(
                "the sandbox's proxy refused {} {}: {}",
                head.method, target_text, refusal.reason
            ),
            approval: None,
            note: None,
            outcome: Outcome::Blocked,
            duration_us: u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
            approval_id: None,
            review: None,
        };
        if let Err(e) = (ledger.0)(&record) {
            eprintln!("toolgate sandbox: a refused connection was not recorded: {e}");
        }
    }
}

/// Resolves the host once: an address is itself; a name is looked up by
/// the system resolver, on a thread abandoned at the timeout.
fn resolve(host: &UrlHost, port: u16) -> Result<Vec<SocketAddr>, Refusal> {
    let name = match host {
        UrlHost::Ip(ip) => return Ok(vec![SocketAddr::new(*ip, port)]),
        UrlHost::Domain(d) => d.clone(),
    };
    let (tx, rx) = mpsc::channel();
    let looked_up = name.clone();
    std::thread::spawn(move || {
        use std::net::ToSocketAddrs;
        let found = (looked_up.as_str(), port)
            .to_socket_addrs()
            .map(Iterator::collect::<Vec<_>>);
        let _ = tx.send(found);
    });
    match rx.recv_timeout(RESOLVE_TIMEOUT) {
        Ok(Ok(addrs)) if !addrs.is_empty() => Ok(addrs),
        _ => Err(Refusal {
            status: 502,
            reason: format!("`{name}` could not be resolved"),
            record: None,
        }),
    }
}

/// Reads a head up to its empty line: `(the head without it, what came
/// after)`.
fn read_head(s: &mut TcpStream) -> io::Result<Option<(Vec<u8>, Vec<u8>)>> {
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        let n = s.read(&mut chunk)?;
        if n == 0 {
            return Ok(None);
        }
        let from = buf.len().saturating_sub(3);
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf[from..].windows(4).position(|w| w == b"\r\n\r\n") {
            let end = from + i;
            let rest = buf.split_off(end + 4);
            buf.truncate(end);
            return Ok(Some((buf, rest)));
        }
        if buf.len() > HEAD_LIMIT {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "head too long"));
        }
    }
}

fn respond(s: &mut TcpStream, status: u16, reason: &str) {
    let phrase = match status {
        400 => "Bad Request",
        403 => "Forbidden",
        411 => "Length Required",
        502 => "Bad Gateway",
        _ => "Error",
    };
    let body = format!("toolgate's sandbox proxy: {reason}\n");
    let msg = format!(
        "HTTP/1.1 {status} {phrase}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = s.write_all(msg.as_bytes());
    let _ = s.shutdown(Shutdown::Write);
}

/// Connects to the first of `addrs` that answers.
fn connect(addrs: &[SocketAddr]) -> io::Result<TcpStream> {
    let mut last = io::Error::new(io::ErrorKind::NotFound, "no address");
    for a in addrs {
        match TcpStream::connect_timeout(a, CONNECT_TIMEOUT) {
            Ok(s) => return Ok(s),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// One client connection, from its head to its end.
fn handle(gate: &Gate, mut client: TcpStream) {
    let started = Instant::now();
    let _ = client.set_read_timeout(Some(HEAD_TIMEOUT));
    let (head, rest) = match read_head(&mut client) {
        Ok(Some(h)) => h,
        Ok(None) => return,
        Err(_) => {
            respond(
                &mut client,
                400,
                "the request head is malformed, too long or too slow",
            );
            return;
        }
    };
    let head = match parse_head(&head) {
        Ok(h) => h,
        Err(r) => {
            respond(&mut client, r.status, &r.reason);
            return;
        }
    };
    let target = if head.method == "CONNECT" {
        connect_target(&head.target)
    } else {
        http_target(&head.target)
    };
    let target = match target {
        Ok(t) => t,
        Err(r) => {
            respond(&mut client, r.status, &r.reason);
            return;
        }
    };
    let addrs = match gate.admit(&target) {
        Ok(a) => a,
        Err(r) => {
            gate.record(&head, Some(&target), &r, started);
            respond(&mut client, r.status, &r.reason);
            return;
        }
    };
    let body_len = match body_length(&head) {
        Ok(n) => n,
        Err(r) => {
            respond(&mut client, r.status, &r.reason);
            return;
        }
    };
    let mut upstream = match connect(&addrs) {
        Ok(s) => s,
        Err(e) => {
            respond(
                &mut client,
                502,
                &format!("cannot connect to {}:{}: {e}", target.host, target.port),
            );
            return;
        }
    };
    let _ = client.set_read_timeout(Some(IDLE_TIMEOUT));
    let _ = upstream.set_read_timeout(Some(IDLE_TIMEOUT));
    match &target.http {
        None => {
            if client
                .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                .is_err()
                || upstream.write_all(&rest).is_err()
            {
                return;
            }
            tunnel(client, upstream);
        }
        Some((origin, authority)) => {
            let _ = forward_http(&head, origin, authority, body_len, rest, client, upstream);
        }
    }
}

/// The request body's length: `Content-Length` (one value), none, or a
/// refusal for a chunked body or a malformed length.
fn body_length(head: &Head) -> Result<u64, Refusal> {
    if head.method == "CONNECT" {
        return Ok(0);
    }
    if head.values("transfer-encoding").next().is_some() {
        return Err(Refusal {
            status: 411,
            reason: "a request body needs a Content-Length here".into(),
            record: None,
        });
    }
    let mut len = None;
    for v in head.values("content-length") {
        for part in v.split(',') {
            let part = part.trim();
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(Refusal::bad("malformed Content-Length"));
            }
            let n: u64 = part
                .parse()
                .map_err(|_| Refusal::bad("malformed Content-Length"))?;
            if len.is_some_and(|l| l != n) {
                return Err(Refusal::bad("conflicting Content-Length values"));
            }
            len = Some(n);
        }
    }
    Ok(len.unwrap_or(0))
}

/// Headers that are the proxy's or the connection's, never the origin's.
const HOP_BY_HOP: &[&str] = &[
    "host",
    "connection",
    "proxy-connection",
    "keep-alive",
    "proxy-authorization",
    "proxy-authenticate",
    "te",
    "trailer",
    "upgrade",
    "expect",
];

/// Sends one request in origin form, then the response back, with the
/// connection closed after it.
fn forward_http(
    head: &Head,
    origin: &str,
    authority: &str,
    body_len: u64,
    rest: Vec<u8>,
    mut client: TcpStream,
    mut upstream: TcpStream,
) -> io::Result<()> {
    let listed: Vec<String> = head
        .values("connection")
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().to_ascii_lowercase())
        .collect();
    let mut out = format!("{} {origin} HTTP/1.1\r\nHost: {authority}\r\n", head.method);
    for (name, value) in &head.headers {
        let lower = name.to_ascii_lowercase();
        if HOP_BY_HOP.contains(&lower.as_str()) || listed.contains(&lower) {
            continue;
        }
        out.push_str(name);
        out.push_str(": ");
        out.push_str(value);
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    if body_len > 0
        && head
            .values("expect")
            .any(|v| v.eq_ignore_ascii_case("100-continue"))
    {
        client.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    upstream.write_all(out.as_bytes())?;
    let have = rest
        .len()
        .min(usize::try_from(body_len).unwrap_or(usize::MAX));
    upstream.write_all(&rest[..have])?;
    let mut remaining = body_len - have as u64;
    if remaining > 0 {
        let copied = io::copy(&mut (&client).take(remaining), &mut upstream)?;
        remaining -= copied;
        if remaining > 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
    }
    // The response: its head with `Connection: close`, then the rest as
    // it comes.
    match read_head(&mut upstream)? {
        None => {}
        Some((resp, more)) => {
            let text = String::from_utf8_lossy(&resp);
            let informational = text
                .split(' ')
                .nth(1)
                .is_some_and(|code| code.starts_with('1'));
            if informational {
                client.write_all(&resp)?;
                client.write_all(b"\r\n\r\n")?;
            } else {
                let mut lines = text.split("\r\n");
                let mut out = String::new();
                out.push_str(lines.next().unwrap_or_default());
                out.push_str("\r\n");
                for l in lines {
                    let name = l.split(':').next().unwrap_or_default().trim();
                    if ["connection", "keep-alive", "proxy-connection"]
                        .iter()
                        .any(|h| name.eq_ignore_ascii_case(h))
                    {
                        continue;
                    }
                    out.push_str(l);
                    out.push_str("\r\n");
                }
                out.push_str("Connection: close\r\n\r\n");
                client.write_all(out.as_bytes())?;
            }
            client.write_all(&more)?;
            io::copy(&mut upstream, &mut client)?;
        }
    }
    let _ = client.shutdown(Shutdown::Both);
    let _ = upstream.shutdown(Shutdown::Both);
    Ok(())
}

/// Copies both ways until either side ends.
fn tunnel(client: TcpStream, upstream: TcpStream) {
    let (Ok(c2), Ok(u2)) = (client.try_clone(), upstream.try_clone()) else {
        return;
    };
    let up = std::thread::spawn(move || {
        let (mut from, mut to) = (c2, u2);
        let r = io::copy(&mut from, &mut to);
        match r {
            Ok(_) => {
                let _ = to.shutdown(Shutdown::Write);
            }
            Err(_) => {
                let _ = from.shutdown(Shutdown::Both);
                let _ = to.shutdown(Shutdown::Both);
            }
        }
    });
    let (mut from, mut to) = (upstream, client);
    match io::copy(&mut from, &mut to) {
        Ok(_) => {
            let _ = to.shutdown(Shutdown::Write);
        }
        Err(_) => {
            let _ = from.shutdown(Shutdown::Both);
            let _ = to.shutdown(Shutdown::Both);
        }
    }
    let _ = up.join();
}

/// Waits until one of `fds` is readable (or hung up); the indices of
/// those that are.
fn wait(fds: &[BorrowedFd<'_>]) -> io::Result<Vec<usize>> {
    let mut polls: Vec<libc::pollfd> = fds
        .iter()
        .map(|f| libc::pollfd {
            fd: f.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    loop {
        // SAFETY: the kernel reads and writes `polls.len()` entries.
        let n = unsafe { libc::poll(polls.as_mut_ptr(), polls.len() as libc::nfds_t, -1) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        return Ok(polls
            .iter()
            .enumerate()
            .filter(|(_, p)| p.revents != 0)
            .map(|(i, _)| i)
            .collect());
    }
}

/// Serves until `stop` is readable or hung up: receives the listener on
/// `channel`, then accepts on it, one thread per connection.
pub(crate) fn serve(channel: OwnedFd, stop: BorrowedFd<'_>, gate: Arc<Gate>) {
    use std::os::fd::AsFd;
    match wait(&[channel.as_fd(), stop]) {
        Ok(ready) if !ready.contains(&1) => {}
        _ => return,
    }
    let listener = match crate::netns::recv_fd(&channel) {
        Ok(Some(fd)) => TcpListener::from(fd),
        Ok(None) | Err(_) => return,
    };
    drop(channel);
    if listener.set_nonblocking(true).is_err() {
        return;
    }
    let active = Arc::new(AtomicUsize::new(0));
    loop {
        match wait(&[listener.as_fd(), stop]) {
            Ok(ready) if ready.contains(&1) => return,
            Ok(_) => {}
            Err(_) => return,
        }
        loop {
            match listener.accept() {
                Ok((s, _)) => {
                    if active.load(Ordering::Acquire) >= MAX_CONNECTIONS
                        || s.set_nonblocking(false).is_err()
                    {
                        continue;
                    }
                    active.fetch_add(1, Ordering::AcqRel);
                    let gate = Arc::clone(&gate);
                    let active = Arc::clone(&active);
                    let spawned = std::thread::Builder::new()
                        .name("toolgate-proxy".into())
                        .spawn(move || {
                            handle(&gate, s);
                            active.fetch_sub(1, Ordering::AcqRel);
                        });
                    if spawned.is_err() {
                        // The closure (and its count) went with the error.
                        std::thread::sleep(Duration::from_millis(10));
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    // Out of descriptors or memory: wait a little.
                    std::thread::sleep(Duration::from_millis(10));
                    break;
                }
            }
        }
    }
}

/// The proxy as a thread of the host's process (a [`crate::Sandbox`] for
/// a child): stopped and joined when dropped.
pub(crate) struct ProxyThread {
    stop: Option<OwnedFd>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for ProxyThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProxyThread(..)")
    }
}

impl ProxyThread {
    pub(crate) fn start(channel: OwnedFd, gate: Gate) -> Result<ProxyThread, crate::SandboxError> {
        let (stop_r, stop_w) =
            rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(|e| {
                crate::SandboxError::Io {
                    what: "cannot create a pipe".into(),
                    source: e.into(),
                }
            })?;
        let gate = Arc::new(gate);
        let thread = std::thread::Builder::new()
            .name("toolgate-proxy".into())
            .spawn(move || {
                use std::os::fd::AsFd;
                serve(channel, stop_r.as_fd(), gate);
            })
            .map_err(|e| crate::SandboxError::Io {
                what: "cannot start the proxy".into(),
                source: e,
            })?;
        Ok(ProxyThread {
            stop: Some(stop_w),
            thread: Some(thread),
        })
    }
}

impl Drop for ProxyThread {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The proxy as a process of its own, for a process that enters the
/// sandbox itself and then becomes the command ([`crate::exec`]): forked
/// twice (so that it is not the command's child), in a session of its own
/// (a terminal's Ctrl-C is for the command), it lives until the process
/// that started it, the command, ends. Must be called while the process is
/// single-threaded.
pub(crate) fn spawn_process(channel: OwnedFd, gate: Gate) -> Result<(), crate::SandboxError> {
    let io = |what: &str| {
        let what = what.to_string();
        move |e: io::Error| crate::SandboxError::Io { what, source: e }
    };
    // SAFETY: pidfd_open takes a pid and flags; the descriptor it returns
    // is owned here.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0) };
    if pidfd < 0 {
        return Err(io("cannot watch the command for the proxy (pidfd_open)")(
            io::Error::last_os_error(),
        ));
    }
    let pidfd = i32::try_from(pidfd).map_err(|_| {
        io("cannot watch the command for the proxy (pidfd_open)")(io::Error::from_raw_os_error(
            libc::EBADF,
        ))
    })?;
    // SAFETY: the descriptor was just created.
    let pidfd = unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(pidfd) };
    // SAFETY: the process is single-threaded (the caller's contract), so
    // the child may run any code.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io("cannot start the proxy (fork)")(
            io::Error::last_os_error(),
        ));
    }
    if pid == 0 {
        // SAFETY: as above; the intermediate child forks once more and
        // exits at once, so the proxy is reparented away from the command.
        let grandchild = unsafe { libc::fork() };
        if grandchild != 0 {
            // SAFETY: _exit ends the process without running destructors.
            unsafe { libc::_exit(0) };
        }
        run_process(
            &channel,
            &pidfd,
            gate,
            channel.as_raw_fd(),
            pidfd.as_raw_fd(),
        );
    }
    let mut status = 0;
    // SAFETY: waits for the intermediate child, which exits at once.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    Ok(())
}

/// The proxy process's body: never returns.
fn run_process(channel: &OwnedFd, pidfd: &OwnedFd, gate: Gate, keep_a: i32, keep_b: i32) -> ! {
    use std::os::fd::AsFd;
    // SAFETY: plain system calls in a process of its own; the descriptors
    // closed are copies of the command's, none in use here but the two
    // kept (and stderr, for messages).
    unsafe {
        libc::setsid();
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::dup2(null, 1);
        }
        let (lo, hi) = (keep_a.min(keep_b), keep_a.max(keep_b));
        for (from, to) in [(3, lo - 1), (lo + 1, hi - 1), (hi + 1, i32::MAX)] {
            if from <= to {
                libc::syscall(libc::SYS_close_range, from as u32, to as u32, 0u32);
            }
        }
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let channel = channel.try_clone();
    if let Ok(channel) = channel {
        serve(channel, pidfd.as_fd(), Arc::new(gate));
    }
    // SAFETY: ends the process without unwinding into the caller's frames.
    unsafe { libc::_exit(0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_targets_are_read_as_the_policy_reads_hosts() {
        let t = connect_target("Example.COM.:443").unwrap();
        assert_eq!(t.host, UrlHost::Domain("example.com".into()));
        assert_eq!(t.port, 443);
        assert_eq!(t.url, "https://example.com/");
        let t = connect_target("127.1:8443").unwrap();
        assert_eq!(t.host, UrlHost::Ip("127.0.0.1".parse().unwrap()));
        assert_eq!(t.url, "https://127.0.0.1:8443/");
        let t = connect_target("[::ffff:10.0.0.1]:22").unwrap();
        assert_eq!(t.host, UrlHost::Ip("10.0.0.1".parse().unwrap()));
        let t = connect_target("0x7f000001:80").unwrap();
        assert_eq!(t.host, UrlHost::Ip("127.0.0.1".parse().unwrap()));
        let t = connect_target("[::1]:443").unwrap();
        assert_eq!(t.url, "https://[::1]/");
        for bad in [
            "example.com",
            "example.com:",
            "example.com:0",
            "example.com:65536",
            "example.com:+80",
            "::1:443",
            "[::1]443",
            "user@example.com:443",
            "example.com/x:443",
            "[fe80::1%eth0]:443",
            "exa mple.com:443",
            "a\\b.com:443",
            ":443",
        ] {
            assert!(connect_target(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn http_targets_keep_one_host() {
        let t = http_target("http://Example.com:8080/a/../b?q=1#frag").unwrap();
        assert_eq!(t.host, UrlHost::Domain("example.com".into()));
        assert_eq!(t.port, 8080);
        assert_eq!(
            t.http,
            Some(("/b?q=1".to_string(), "example.com:8080".to_string()))
        );
        let t = http_target("http://[::1]/").unwrap();
        assert_eq!(t.port, 80);
        assert_eq!(t.http, Some(("/".to_string(), "[::1]".to_string())));
        let t = http_target("HTTP://x.io").unwrap();
        assert_eq!(t.http, Some(("/".to_string(), "x.io".to_string())));
        for bad in [
            "/index.html",
            "https://x.io/",
            "ftp://x.io/",
            "http://user@x.io/",
            "http://a@b@x.io/",
            "http:///x",
            "http://x.io\\@evil.com/",
            "*",
        ] {
            assert!(http_target(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn heads_are_read_strictly() {
        let h = parse_head(b"CONNECT a.io:443 HTTP/1.1\r\nHost: a.io:443\r\nX:  y \t").unwrap();
        assert_eq!(h.method, "CONNECT");
        assert_eq!(
            h.headers,
            vec![("Host".into(), "a.io:443".into()), ("X".into(), "y".into())]
        );
        for bad in [
            &b"GET http://a.io/ HTTP/2\r\n"[..],
            b"GET  http://a.io/ HTTP/1.1",
            b"GET http://a.io/ HTTP/1.1\r\n folded",
            b"GET http://a.io/ HTTP/1.1\r\nBad Name: x",
            b"GET http://a.io/ HTTP/1.1\r\nX: a\nY: b",
            b"GET http://a.io/\x01 HTTP/1.1",
        ] {
            assert!(parse_head(bad).is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn only_public_addresses_are_global() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "0.1.2.3",
            "224.0.0.1",
            "255.255.255.255",
            "198.18.0.1",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::127.0.0.1",
            "64:ff9b::a00:1",
            "2002:c0a8:101::1",
            "fc00::1",
            "fd12::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
        ] {
            assert!(!is_global(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "1.1.1.1",
            "93.184.216.34",
            "2606:4700::1111",
            "64:ff9b::101:101",
        ] {
            assert!(is_global(ip.parse().unwrap()), "{ip}");
        }
    }

    fn policy(text: &str) -> Arc<Policy> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("toolgate.toml");
        Arc::new(Policy::from_toml(text, &file, &toolgate_policy::LoadOptions::default()).unwrap())
    }

    fn admit(p: &Arc<Policy>, target: &str) -> Result<Vec<SocketAddr>, Refusal> {
        let gate = Gate {
            policy: Some(Arc::clone(p)),
            ledger: None,
        };
        let t = connect_target(target)?;
        gate.admit(&t)
    }

    #[test]
    fn local_addresses_need_a_rule_that_names_them() {
        // Everything allowed, yet loopback, private and metadata
        // addresses are refused, in any spelling.
        let all = policy("allow = [\"WebFetch\"]\n");
        for t in [
            "127.0.0.1:80",
            "2130706433:80",
            "[::1]:80",
            "[::ffff:127.0.0.1]:80",
            "169.254.169.254:80",
            "10.0.0.1:22",
            "0.0.0.0:80",
        ] {
            let r = admit(&all, t).unwrap_err();
            assert_eq!(r.status, 403, "{t}");
            assert_eq!(
                r.record.unwrap().0.as_deref(),
                Some(RULE_LOCAL_ADDRESS),
                "{t}"
            );
        }
        assert!(admit(&all, "1.1.1.1:443").is_ok());

        let named =
            policy("allow = [\"WebFetch(ip:127.0.0.0/8)\", \"WebFetch(domain:10.0.0.1)\"]\n");
        assert!(admit(&named, "127.0.0.1:8080").is_ok());
        assert!(admit(&named, "127.0.0.2:8080").is_ok());
        assert!(admit(&named, "10.0.0.1:80").is_ok());
        assert!(admit(&named, "10.0.0.2:80").is_err());
        assert!(admit(&named, "1.1.1.1:443").is_err(), "not allowed at all");

        let local = policy("allow = [\"WebFetch(domain:localhost)\"]\n");
        assert!(admit(&local, "localhost:8080").is_ok());
        assert!(admit(&local, "127.0.0.1:8080").is_err());

        // A deny rule on an address holds under a broad allow.
        let deny = policy("allow = [\"WebFetch\"]\ndeny = [\"WebFetch(ip:1.1.1.0/24)\"]\n");
        let r = admit(&deny, "1.1.1.1:443").unwrap_err();
        assert_eq!(r.record.unwrap().0.as_deref(), Some("deny[0]"));
        // An ask is a refusal: nobody answers inside.
        let ask = policy("ask = [\"WebFetch(domain:1.1.1.1)\"]\nallow = [\"WebFetch\"]\n");
        assert_eq!(admit(&ask, "1.1.1.1:443").unwrap_err().status, 403);
    }
}

//! URLs and hosts as a connection would reach them, and the `WebFetch(..)`
//! pattern language over them.
//!
//! Every URL is parsed with the `url` crate (the WHATWG URL standard, as
//! browsers parse) before any rule looks at it, so that one host has one
//! spelling: scheme and host lowercased, the default port dropped, userinfo
//! and fragment left out, a trailing dot removed, IDNA applied, IPv4 in any
//! form the resolver accepts (`2130706433`, `0x7f000001`, `0177.0.0.1`,
//! `127.1`) and IPv4-mapped IPv6 (`[::ffff:127.0.0.1]`) written as the
//! dotted address, IPv6 compressed, percent-encoding of unreserved
//! characters decoded. A text without a scheme is read as curl reads it
//! (`evil.com/x` is `http://evil.com/x`; `host:path` as an scp-like ssh
//! remote). What cannot be parsed, or could reach another host under
//! another parser's reading (curl does not treat `\` as `/`), is reported so
//! that the engine asks instead of guessing.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::pattern::wildcard;

/// A host as a connection reaches it: a lowercase ASCII domain name, or an
/// address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum UrlHost {
    /// A domain name, lowercase, IDNA-encoded, without a trailing dot.
    Domain(String),
    /// An address; IPv4-mapped IPv6 is stored as IPv4.
    Ip(IpAddr),
}

impl UrlHost {
    /// Parses a host as the WHATWG host parser does, then canonicalises it:
    /// `[::1]` or `::1` for IPv6, any IPv4 spelling, a domain. `None` when
    /// it is not a host a resolver would look up (empty, or characters no
    /// DNS name holds: `{a,b}.com`, `$(x)`).
    pub fn parse(text: &str) -> Option<UrlHost> {
        let t = text.trim();
        if t.is_empty() {
            return None;
        }
        let bracketed = t.starts_with('[') && t.ends_with(']');
        if !bracketed && t.contains(':') {
            return t
                .parse::<Ipv6Addr>()
                .ok()
                .map(|a| UrlHost::from_ip(IpAddr::V6(a)));
        }
        match url::Host::parse(t).ok()? {
            url::Host::Ipv4(a) => Some(UrlHost::Ip(IpAddr::V4(a))),
            url::Host::Ipv6(a) => Some(UrlHost::from_ip(IpAddr::V6(a))),
            url::Host::Domain(d) => UrlHost::domain(&d),
        }
    }

    /// The hosts a connection to this one reaches: itself, and for the
    /// unspecified address (`0.0.0.0`, `0`, `[::]`), which Linux and macOS
    /// connect to the local host, the loopback address as well, so that a
    /// rule on `127.0.0.1` or `[::1]` meets it.
    pub fn reached(self) -> Vec<UrlHost> {
        match self {
            UrlHost::Ip(IpAddr::V4(a)) if a.is_unspecified() => {
                vec![self, UrlHost::Ip(IpAddr::V4(Ipv4Addr::LOCALHOST))]
            }
            UrlHost::Ip(IpAddr::V6(a)) if a.is_unspecified() => {
                vec![self, UrlHost::Ip(IpAddr::V6(Ipv6Addr::LOCALHOST))]
            }
            h => vec![h],
        }
    }

    /// An address as a host, IPv4-mapped IPv6 as IPv4.
    pub fn from_ip(ip: IpAddr) -> UrlHost {
        match ip {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => UrlHost::Ip(IpAddr::V4(v4)),
                None => UrlHost::Ip(IpAddr::V6(v6)),
            },
            v4 => UrlHost::Ip(v4),
        }
    }

    fn domain(d: &str) -> Option<UrlHost> {
        let d = d.trim_end_matches('.').to_ascii_lowercase();
        // `0..` or `127.0.0.1..` is a domain to a URL parser (it takes one
        // trailing dot off an address, not two), but without its dots it is
        // an address, and a resolver that drops them connects there: the
        // address's rules apply, and the spelling is the same once read
        // again.
        if d.bytes()
            .all(|b| b.is_ascii_hexdigit() || b == b'x' || b == b'.')
            && let Ok(url::Host::Ipv4(a)) = url::Host::parse(&d)
        {
            return Some(UrlHost::Ip(IpAddr::V4(a)));
        }
        let dns = !d.is_empty()
            && d.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
        dns.then_some(UrlHost::Domain(d))
    }

    /// The domain name, for a domain.
    pub fn as_domain(&self) -> Option<&str> {
        match self {
            UrlHost::Domain(d) => Some(d),
            UrlHost::Ip(_) => None,
        }
    }

    /// The canonical text rules are keyed by: `example.com`, `127.0.0.1`,
    /// `[::1]`.
    pub fn key(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for UrlHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlHost::Domain(d) => f.write_str(d),
            UrlHost::Ip(IpAddr::V4(a)) => write!(f, "{a}"),
            UrlHost::Ip(IpAddr::V6(a)) => write!(f, "[{a}]"),
        }
    }
}

/// A URL read for matching.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchTarget {
    /// The normalised URL without userinfo and fragment: what URL globs
    /// match.
    pub url: String,
    /// The normalised URLs of other readings of the same text that parse
    /// to other hosts (see [`FetchTarget::ambiguous`]).
    pub others: Vec<String>,
    /// The host it connects to; two when parsers disagree (see
    /// [`FetchTarget::ambiguous`]); none for a URL without a network host
    /// (`file:`).
    pub hosts: Vec<UrlHost>,
    /// Another reading of the same text (curl's, which does not take `\`
    /// for `/`) reaches a different host or none: deny and ask rules meet
    /// every reading, and the fetch asks at least.
    pub ambiguous: bool,
}

/// Why a URL cannot be read for matching; a fetch of it is denied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// Nothing but spaces and controls.
    #[error("the URL is empty")]
    Empty,
    /// The URL parser refused every reading of the text.
    #[error("it is not a valid URL ({0})")]
    Syntax(#[source] url::ParseError),
    /// No reading of the text was a URL (none was tried).
    #[error("it is not a valid URL")]
    Unreadable,
    /// The host part is not a host name or address.
    #[error("`{0}` is not a host name")]
    NotAHost(String),
    /// A URL of a scheme that connects, without a host.
    #[error("it names no host")]
    NoHost,
}

/// Why an `ip:` block of a `WebFetch` rule cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CidrError {
    /// The address part is not an address.
    #[error("`{0}` is not an IPv4 or IPv6 address")]
    NotAnAddress(String),
    /// The prefix length is not a number within the address's width.
    #[error("`/{written}` is not a prefix length from 0 to {max}")]
    PrefixLength {
        /// The length as written.
        written: String,
        /// 32 or 128.
        max: u8,
    },
    /// The address has bits set past its prefix, so the block it means is
    /// unclear.
    #[error("`{block}` has bits set past its /{len} prefix; write the block's first address")]
    BitsPastPrefix {
        /// The block as written.
        block: String,
        /// The prefix length.
        len: u8,
    },
    /// As `BitsPastPrefix`, for an IPv4-mapped IPv6 block, named as IPv4.
    #[error("`{addr}/{len}` has bits set past its prefix")]
    MappedBitsPastPrefix {
        /// The IPv4 address.
        addr: Ipv4Addr,
        /// The IPv4 prefix length.
        len: u8,
    },
}

/// Why a `WebFetch(..)` specifier cannot be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlPatternError {
    /// A specifier with no text.
    #[error("empty URL pattern")]
    Empty,
    /// A `domain:` pattern with a wildcard or a path where none may be.
    #[error("bad domain pattern `{0}`")]
    Domain(String),
    /// A `domain:` pattern whose host is not a host.
    #[error("bad domain pattern `{pattern}`: `{host}` is not a host")]
    DomainHost {
        /// The pattern as written.
        pattern: String,
        /// The host part.
        host: String,
    },
    /// An `ip:` pattern whose block cannot be used.
    #[error("bad address pattern `{pattern}`: {source}")]
    Addr {
        /// The pattern as written.
        pattern: String,
        /// What is wrong with the block.
        source: CidrError,
    },
}

/// Schemes the WHATWG standard parses with a host of its own (and default
/// ports).
const SPECIAL: &[&str] = &["http", "https", "ws", "wss", "ftp", "file"];

/// Parses and normalises a URL, or a URL as curl takes it without a scheme.
/// An error says why it cannot be read.
pub fn normalize(raw: &str) -> Result<FetchTarget, UrlError> {
    // WHATWG: leading and trailing C0 controls and spaces are stripped,
    // tabs and newlines anywhere removed (`ht\ttp://` is `http://`), before
    // the scheme is read.
    let stripped: String;
    let mut text = raw.trim_matches(|c: char| c <= ' ');
    if text.contains(['\t', '\n', '\r']) {
        stripped = text
            .chars()
            .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
            .collect();
        text = &stripped;
    }
    if text.is_empty() {
        return Err(UrlError::Empty);
    }
    // Schemes of a browser's that name no network host: content inline
    // (`data:`, `javascript:`, `about:`) or another URL wrapped
    // (`view-source:`, `blob:`), which host rules cannot judge as written
    // (read as curl guesses, `view-source:https://h/` is the host
    // `view-source`). No host: the fetch asks.
    if let Some((scheme, _)) = toolgate_shell::no_host_scheme(text) {
        return Ok(FetchTarget {
            url: format!("{scheme}{}", text.get(scheme.len()..).unwrap_or("")),
            others: Vec::new(),
            hosts: Vec::new(),
            ambiguous: false,
        });
    }
    let mut readings = Vec::new();
    for r in readings_of(text) {
        let alt = curl_reading(&r);
        readings.push(r);
        readings.extend(alt);
    }
    let mut first: Option<(String, Vec<UrlHost>)> = None;
    let mut error = None;
    let mut ambiguous = false;
    let mut others = Vec::new();
    for r in &readings {
        match parse_full(r) {
            Ok((url, hosts)) => match &mut first {
                None => first = Some((url, hosts)),
                Some((_, all)) => {
                    if hosts != *all {
                        ambiguous = true;
                        others.push(url);
                        for h in hosts {
                            if !all.contains(&h) {
                                all.push(h);
                            }
                        }
                    }
                }
            },
            Err(e) => {
                error.get_or_insert(e);
            }
        }
    }
    match first {
        Some((url, hosts)) => Ok(FetchTarget {
            url,
            others,
            hosts,
            ambiguous,
        }),
        None => Err(error.unwrap_or(UrlError::Unreadable)),
    }
}

/// The ways the text may be read as a URL with a scheme: as written when it
/// has one; else as curl guesses (`ftp.` hosts and the like by their
/// prefix, others HTTP) and, when it has the shape, as an scp-like
/// `[user@]host:path` remote (git, scp, rsync), which connects over ssh.
/// A reading that does not parse is one whose tool does not connect.
fn readings_of(text: &str) -> Vec<String> {
    if let Some((scheme, _)) = text.split_once(':')
        && is_scheme(scheme)
        && (text[scheme.len()..].starts_with("://")
            || SPECIAL.contains(&scheme.to_ascii_lowercase().as_str()))
    {
        return vec![text.to_string()];
    }
    let mut out = Vec::new();
    let lower = text.to_ascii_lowercase();
    let authority_end = lower.find(['/', '?', '#']).unwrap_or(lower.len());
    let host_start = lower[..authority_end].rfind('@').map_or(0, |i| i + 1);
    let guessed = ["ftp", "dict", "ldap", "imap", "smtp", "pop3"]
        .into_iter()
        .find(|p| {
            lower[host_start..]
                .strip_prefix(p)
                .is_some_and(|r| r.starts_with('.'))
        })
        .unwrap_or("http");
    out.push(format!("{guessed}://{text}"));
    if let Some((host, path)) = text.split_once(':')
        && host.len() < authority_end
        && !host.is_empty()
        && !host.contains('[')
    {
        out.push(format!("ssh://{host}/{}", path.trim_start_matches('/')));
    }
    out
}

fn is_scheme(s: &str) -> bool {
    let mut b = s.bytes();
    b.next().is_some_and(|c| c.is_ascii_alphabetic())
        && b.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
}

/// curl's reading of a URL whose authority holds a `\`: the same text with
/// the backslashes of the authority percent-encoded, so that the WHATWG
/// parser ends the authority where curl does. `None` when there is no
/// backslash in the authority.
fn curl_reading(full: &str) -> Option<String> {
    let (scheme, rest) = full.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    if !authority.contains('\\') {
        return None;
    }
    Some(format!(
        "{scheme}://{}{}",
        authority.replace('\\', "%5C"),
        &rest[end..]
    ))
}

/// Parses a URL with a scheme into its match text and host.
fn parse_full(full: &str) -> Result<(String, Vec<UrlHost>), UrlError> {
    let lower = full.get(..6).map(str::to_ascii_lowercase);
    if let Some(scheme @ ("tcp://" | "udp://")) = lower.as_deref() {
        return socket_target(&scheme[..3], &full[6..]);
    }
    let u = url::Url::parse(full).map_err(UrlError::Syntax)?;
    let scheme = u.scheme().to_string();
    let host = match u.host() {
        None => None,
        Some(url::Host::Ipv4(a)) => Some(UrlHost::Ip(IpAddr::V4(a))),
        Some(url::Host::Ipv6(a)) => Some(UrlHost::from_ip(IpAddr::V6(a))),
        Some(url::Host::Domain(d)) if SPECIAL.contains(&scheme.as_str()) => {
            Some(UrlHost::domain(d).ok_or_else(|| UrlError::NotAHost(d.to_string()))?)
        }
        // A non-special scheme keeps its host opaque (case and
        // percent-encoding as written); the connection resolves it as a
        // host name, so it is read as one.
        Some(url::Host::Domain(d)) => {
            let decoded = percent_decode(d);
            Some(UrlHost::parse(&decoded).ok_or_else(|| UrlError::NotAHost(d.to_string()))?)
        }
    };
    if host.is_none() && scheme != "file" {
        return Err(UrlError::NoHost);
    }
    let mut text = format!("{scheme}://");
    if let Some(h) = &host {
        text.push_str(&h.key());
    }
    if let Some(port) = u.port() {
        text.push_str(&format!(":{port}"));
    }
    text.push_str(&normalize_escapes(u.path()));
    if let Some(q) = u.query() {
        text.push('?');
        text.push_str(&normalize_escapes(q));
    }
    Ok((text, host.map(UrlHost::reached).unwrap_or_default()))
}

/// `tcp://HOST:PORT` from a `/dev/tcp/HOST/PORT` redirect: bash hands HOST
/// to the resolver, which takes an IPv6 address without brackets too.
fn socket_target(scheme: &str, rest: &str) -> Result<(String, Vec<UrlHost>), UrlError> {
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => (h, Some(p)),
        _ => (rest, None),
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let h = UrlHost::parse(&percent_decode(host))
        .ok_or_else(|| UrlError::NotAHost(host.to_string()))?;
    let port = port
        .map(|p| p.trim_start_matches('0'))
        .map(|p| if p.is_empty() { "0" } else { p });
    let text = match port {
        Some(p) => format!("{scheme}://{}:{p}", h.key()),
        None => format!("{scheme}://{}", h.key()),
    };
    Ok((text, h.reached()))
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).and_then(|c| hex(*c)),
                b.get(i + 2).and_then(|c| hex(*c)),
            )
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).and_then(|d| u8::try_from(d).ok())
}

/// RFC 3986 §6.2.2: an escaped unreserved character (`%41`, `%7e`) is that
/// character, and the hex digits of other escapes are uppercase. A `%`
/// that starts no escape is itself escaped (`%25`), so that a decoded
/// character never completes a new escape (`%%330` is `%25` `3` `0`, not
/// `%30`, which a second reading would take for `0`).
fn normalize_escapes(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).and_then(|c| hex(*c)),
                b.get(i + 2).and_then(|c| hex(*c)),
            )
        {
            let c = h * 16 + l;
            if c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~') {
                out.push(c as char);
            } else {
                out.push_str(&format!("%{c:02X}"));
            }
            i += 3;
            continue;
        }
        if b[i] == b'%' {
            out.push_str("%25");
        } else {
            // `s` is ASCII after the URL parser (it escapes the rest).
            out.push(b[i] as char);
        }
        i += 1;
    }
    out
}

/// An address block: `ip:10.0.0.0/8`, `ip:fd00::/8`, `ip:127.0.0.1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    len: u8,
}

impl Cidr {
    /// Parses `ADDR` or `ADDR/LEN`; IPv6 with or without brackets
    /// (`[fd00::]/8`). Bits set past the prefix are an error, so that
    /// `10.1.2.3/8` is not silently read as `10.0.0.0/8`.
    pub fn parse(s: &str) -> Result<Cidr, CidrError> {
        let (a, len) = match s.split_once('/') {
            Some((a, l)) => (a, Some(l)),
            None => (s, None),
        };
        let a = a.trim();
        let a = a
            .strip_prefix('[')
            .and_then(|x| x.strip_suffix(']'))
            .unwrap_or(a);
        let addr: IpAddr = a
            .parse()
            .map_err(|_| CidrError::NotAnAddress(a.to_string()))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let len = match len {
            None => max,
            Some(l) => l
                .trim()
                .parse::<u8>()
                .ok()
                .filter(|l| *l <= max)
                .ok_or_else(|| CidrError::PrefixLength {
                    written: l.to_string(),
                    max,
                })?,
        };
        let addr = match addr {
            IpAddr::V6(v6) if len >= 96 => match v6.to_ipv4_mapped() {
                Some(v4) => return Cidr::v4(v4, len - 96),
                None => addr,
            },
            _ => addr,
        };
        let c = Cidr { addr, len };
        if c.masked() != bits(addr) {
            return Err(CidrError::BitsPastPrefix {
                block: s.to_string(),
                len,
            });
        }
        Ok(c)
    }

    fn v4(a: Ipv4Addr, len: u8) -> Result<Cidr, CidrError> {
        let c = Cidr {
            addr: IpAddr::V4(a),
            len,
        };
        if c.masked() != bits(c.addr) {
            return Err(CidrError::MappedBitsPastPrefix { addr: a, len });
        }
        Ok(c)
    }

    fn masked(&self) -> u128 {
        mask(bits(self.addr), self.len, self.addr.is_ipv4())
    }

    /// Whether the address lies in the block (IPv4-mapped IPv6 as IPv4).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match UrlHost::from_ip(ip) {
            UrlHost::Ip(ip) => ip,
            UrlHost::Domain(_) => return false,
        };
        ip.is_ipv4() == self.addr.is_ipv4()
            && mask(bits(ip), self.len, ip.is_ipv4()) == self.masked()
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.len)
    }
}

fn bits(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(a) => u128::from(u32::from(a)),
        IpAddr::V6(a) => u128::from(a),
    }
}

fn mask(v: u128, len: u8, v4: bool) -> u128 {
    let width = if v4 { 32 } else { 128 };
    if len == 0 {
        return 0;
    }
    let shift = width - u32::from(len);
    if shift >= 128 {
        0
    } else {
        (v >> shift) << shift
    }
}

/// A `WebFetch(..)` specifier, compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlPattern {
    /// `domain:example.com`, `domain:127.0.0.1`, `domain:[::1]`: that host
    /// exactly (in its canonical spelling).
    Host(UrlHost),
    /// `domain:*.example.com`: its subdomains at any depth, not the bare
    /// domain.
    Subdomains(String),
    /// `ip:10.0.0.0/8`: an address in the block, written as the host or
    /// resolved from the host name.
    Addr(Cidr),
    /// Anything else: a `*` wildcard over the whole normalised URL.
    Wild(String),
}

impl UrlPattern {
    /// Compiles a URL specifier; a URL glob is normalised as URLs are.
    pub fn compile(source: &str) -> Result<UrlPattern, UrlPatternError> {
        let s = source.trim();
        if s.is_empty() {
            return Err(UrlPatternError::Empty);
        }
        if let Some(d) = s.strip_prefix("domain:") {
            let d = d.trim();
            if let Some(rest) = d.strip_prefix("*.") {
                return match UrlHost::parse(rest) {
                    Some(UrlHost::Domain(r)) if !rest.contains('*') => {
                        Ok(UrlPattern::Subdomains(r))
                    }
                    _ => Err(UrlPatternError::Domain(source.to_string())),
                };
            }
            if d == "*" {
                return Ok(UrlPattern::Wild("*".into()));
            }
            if d.contains(['*', '/', '@']) {
                return Err(UrlPatternError::Domain(source.to_string()));
            }
            return UrlHost::parse(d).map(UrlPattern::Host).ok_or_else(|| {
                UrlPatternError::DomainHost {
                    pattern: source.to_string(),
                    host: d.to_string(),
                }
            });
        }
        if let Some(c) = s.strip_prefix("ip:") {
            return Cidr::parse(c)
                .map(UrlPattern::Addr)
                .map_err(|m| UrlPatternError::Addr {
                    pattern: source.to_string(),
                    source: m,
                });
        }
        Ok(UrlPattern::Wild(normalize_glob(s)))
    }

    /// Matches a fetch: `t` the normalised URL, `written` the URL as
    /// written (globs of deny and ask rules also meet it).
    pub fn matches(&self, t: &FetchTarget, written: Option<&str>) -> bool {
        let hosts = &t.hosts[..];
        match self {
            UrlPattern::Host(h) => hosts.contains(h),
            UrlPattern::Subdomains(d) => hosts
                .iter()
                .filter_map(UrlHost::as_domain)
                .any(|h| is_subdomain(h, d)),
            UrlPattern::Addr(c) => hosts.iter().any(|h| match h {
                UrlHost::Ip(ip) => c.contains(*ip),
                UrlHost::Domain(_) => false,
            }),
            UrlPattern::Wild(p) => {
                wildcard(p, &t.url)
                    || t.others.iter().any(|u| wildcard(p, u))
                    || written.is_some_and(|w| wildcard(p, w))
            }
        }
    }

    /// Matches a URL that could not be parsed, as written: only a glob can.
    pub fn matches_unparsed(&self, written: &str) -> bool {
        matches!(self, UrlPattern::Wild(p) if wildcard(p, written))
    }
}

/// Whether `h` is a subdomain of `d` at any depth.
pub fn is_subdomain(h: &str, d: &str) -> bool {
    h.len() > d.len() + 1 && h.ends_with(d) && h.as_bytes()[h.len() - d.len() - 1] == b'.'
}

/// A URL glob normalised as the URLs it is matched against: when its scheme
/// and host are literal, the whole glob goes through [`normalize`] (`*`
/// passes through the URL parser unchanged in paths and queries); when
/// only the scheme is, the scheme and host part are lowercased. A glob
/// without a scheme stays as written.
fn normalize_glob(s: &str) -> String {
    let Some((scheme, rest)) = s.split_once("://") else {
        return s.to_string();
    };
    if !is_scheme(scheme) {
        return s.to_string();
    }
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    if !authority.contains(['*', '?'])
        && let Ok(t) = normalize(s)
        && !t.ambiguous
    {
        return t.url;
    }
    format!(
        "{}://{}{}",
        scheme.to_ascii_lowercase(),
        authority.to_ascii_lowercase(),
        &rest[end..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> String {
        normalize(s)
            .map(|t| t.url)
            .unwrap_or_else(|e| format!("ERR {e}"))
    }

    fn host(s: &str) -> String {
        match normalize(s) {
            Ok(t) => t
                .hosts
                .iter()
                .map(UrlHost::key)
                .collect::<Vec<_>>()
                .join(","),
            Err(e) => format!("ERR {e}"),
        }
    }

    #[test]
    fn spellings_of_one_host() {
        for u in [
            "HTTPS://EVIL.COM/x",
            "https://evil.com:443/x",
            "https://u@evil.com/x",
            "https://u:p@evil.com/x",
            "https://evil.com./x",
            "https://%65vil.com/x",
            "https://evil.com/%78",
            "https://evil.com/a/../x",
            "https://evil.com/a/%2e%2e/x",
            "https://evil.com/x#frag",
            "\thttps://evil.com/x ",
            "https://ev\til.com/x",
            "ht\ttps://evil.com/x",
            "https\n://evil.com/x",
            "https://ＥＶＩＬ.com/x",
        ] {
            assert_eq!(url(u), "https://evil.com/x", "{u}");
        }
    }

    #[test]
    fn ipv4_forms() {
        for u in [
            "http://127.0.0.1/",
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0X7F000001/",
            "http://0177.0.0.1/",
            "http://0177.0.0.01/",
            "http://127.1/",
            "http://127.0.1/",
            "http://0x7f.1/",
            "http://017700000001/",
            "http://127.0.0.1./",
            "http://127.0.0.1../",
            "http://0x7f000001.../",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[0:0:0:0:0:ffff:127.0.0.1]/",
            "127.1",
            "http://%31%32%37.0.0.1/",
        ] {
            assert_eq!(host(u), "127.0.0.1", "{u}");
        }
        assert!(normalize("http://1.2.3.4.5/").is_err());
        // A lone `%` stays one, so a decoded `3` does not make `%30`.
        let t = normalize("http://a/%%330").unwrap();
        assert_eq!(t.url, "http://a/%2530");
        assert_eq!(normalize(&t.url).unwrap().url, t.url);
        for u in [
            "http://0/",
            "http://0../",
            "http://0.0.0.0:8080/",
            "http://0x0/",
            "tcp://0:80",
        ] {
            assert!(host(u).contains("127.0.0.1"), "{u}: {}", host(u));
        }
        assert!(host("http://[::]/").contains("[::1]"));
        assert!(normalize("http://256.0.0.1/").is_err());
    }

    #[test]
    fn ipv6_forms() {
        for u in [
            "http://[::1]/",
            "http://[0:0:0:0:0:0:0:1]/",
            "http://[0000::0001]:80/",
            "http://[::1]:8080/",
            "tcp://::1:80",
            "tcp://[::1]:80",
        ] {
            assert_eq!(host(u), "[::1]", "{u}");
        }
        assert!(normalize("http://[::1/").is_err());
    }

    #[test]
    fn scheme_less_as_curl() {
        assert_eq!(url("evil.com/x"), "http://evil.com/x");
        assert_eq!(url("EVIL.com:8080/x"), "http://evil.com:8080/x");
        assert_eq!(url("ftp.evil.com/x"), "ftp://ftp.evil.com/x");
        assert_eq!(host("git@github.com:org/x.git"), "github.com");
        assert_eq!(host("evil.example:/tmp/"), "evil.example");
        assert_eq!(host("tcp://0x7f000001:80"), "127.0.0.1");
        assert_eq!(host("ssh://Git@GitHub.com/x"), "github.com");
    }

    #[test]
    fn unreadable_or_ambiguous() {
        assert!(normalize("http://{evil,good}.com/").is_err());
        assert!(normalize("http://$(x)/").is_err());
        assert!(normalize("http://").is_err());
        assert_eq!(host("http:///x"), "x");
        assert!(normalize("").is_err());
        let t = normalize("http://evil.com\\@good.com/").unwrap();
        assert!(t.ambiguous);
        assert!(t.hosts.contains(&UrlHost::Domain("evil.com".into())));
        assert!(t.hosts.contains(&UrlHost::Domain("good.com".into())));
        let t = normalize("file:///etc/passwd").unwrap();
        assert!(t.hosts.is_empty());
        // A browser's schemes that name no network host, wrapping a URL
        // or not: no host (the fetch asks), whatever the case.
        for u in [
            "view-source:https://evil.com/",
            "VIEW-SOURCE:https://evil.com/",
            "blob:https://evil.com/x",
            "data:text/plain,hi",
            "javascript:alert(1)",
            "about:blank",
        ] {
            let t = normalize(u).unwrap();
            assert!(t.hosts.is_empty(), "{u}: {:?}", t.hosts);
        }
    }

    #[test]
    fn look_alikes_stay_apart() {
        assert_eq!(host("https://notevil.org/"), "notevil.org");
        assert_eq!(host("https://example.com/evil.com/x"), "example.com");
        assert_eq!(
            host("https://evil.com.example.org/"),
            "evil.com.example.org"
        );
        assert_eq!(host("https://evil.com@example.org/"), "example.org");
    }

    #[test]
    fn patterns() {
        let p = UrlPattern::compile("https://EVIL.com/*").unwrap();
        assert_eq!(p, UrlPattern::Wild("https://evil.com/*".into()));
        let p = UrlPattern::compile("https://evil.com:443").unwrap();
        assert_eq!(p, UrlPattern::Wild("https://evil.com/".into()));
        let p = UrlPattern::compile("HTTPS://*.Evil.com/*").unwrap();
        assert_eq!(p, UrlPattern::Wild("https://*.evil.com/*".into()));
        let p = UrlPattern::compile("https://evil.com*").unwrap();
        assert_eq!(p, UrlPattern::Wild("https://evil.com*".into()));
        assert_eq!(
            UrlPattern::compile("domain:[::1]").unwrap(),
            UrlPattern::Host(UrlHost::Ip("::1".parse().unwrap()))
        );
        assert_eq!(
            UrlPattern::compile("domain:2130706433").unwrap(),
            UrlPattern::Host(UrlHost::Ip("127.0.0.1".parse().unwrap()))
        );
        assert_eq!(
            UrlPattern::compile("domain:Example.COM.").unwrap(),
            UrlPattern::Host(UrlHost::Domain("example.com".into()))
        );
        for bad in [
            "domain:",
            "domain:a/b",
            "domain:*.",
            "domain:*.a*",
            "ip:10.0.0.1/8",
            "ip:x",
            "ip:10.0.0.0/33",
        ] {
            assert!(UrlPattern::compile(bad).is_err(), "{bad}");
        }
    }

    proptest::proptest! {
        /// Any text is read or refused, never a panic; and what is read is
        /// in its one spelling: reading it again changes nothing.
        #[test]
        fn one_spelling(s in "(https?://|HTTP://|ftp://|tcp://|)[a-zA-Z0-9.:@\\\\/%\\[\\]x_-]{0,30}") {
            if let Ok(t) = normalize(&s)
                && !t.ambiguous
                && !t.hosts.is_empty()
            {
                let again = normalize(&t.url).expect("a normalised URL reads back");
                proptest::prop_assert_eq!(&again.url, &t.url);
                proptest::prop_assert_eq!(&again.hosts, &t.hosts);
            }
        }

        #[test]
        fn never_panics(s in "\\PC{0,40}") {
            let _ = normalize(&s);
            let _ = UrlPattern::compile(&s);
        }
    }

    #[test]
    fn cidrs() {
        let c = Cidr::parse("10.0.0.0/8").unwrap();
        assert!(c.contains("10.255.0.1".parse().unwrap()));
        assert!(!c.contains("11.0.0.1".parse().unwrap()));
        assert!(c.contains("::ffff:10.0.0.1".parse().unwrap()));
        let c = Cidr::parse("[fd00::]/8").unwrap();
        assert!(c.contains("fd12::1".parse().unwrap()));
        assert!(!c.contains("fe80::1".parse().unwrap()));
        let c = Cidr::parse("::1/128").unwrap();
        assert!(c.contains("::1".parse().unwrap()));
        let c = Cidr::parse("0.0.0.0/0").unwrap();
        assert!(c.contains("1.2.3.4".parse().unwrap()));
        assert!(!c.contains("::1".parse().unwrap()));
        let c = Cidr::parse("::ffff:127.0.0.0/104").unwrap();
        assert!(c.contains("127.0.0.1".parse().unwrap()));
    }
}

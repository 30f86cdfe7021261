//! Commands that fetch or copy over the network: curl, wget, httpie, and
//! scp/rsync/ssh, with the local files they read and write.

use super::*;

pub(super) fn basename_of_url(url: &str) -> String {
    let no_query = url.split(['?', '#']).next().unwrap_or(url);
    let path = no_query
        .split_once("://")
        .map_or(no_query, |(_, rest)| rest);
    match path.split_once('/') {
        Some((_, p)) => p.rsplit('/').next().unwrap_or("").to_string(),
        None => String::new(),
    }
}

pub(super) fn curl(spec: &Spec, args: &[Arg], d: &mut Derived) {
    let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
    file_opts(spec, &o, d);
    for (n, v) in &o.opts {
        let Some(v) = v else { continue };
        let file = match n.as_str() {
            "-d" | "--data" | "--data-binary" | "--data-ascii" | "--json" | "--data-urlencode" => v
                .text
                .split_once('@')
                .filter(|(before, _)| !before.contains('='))
                .map(|(_, f)| f.to_string()),
            "-F" | "--form" => v
                .text
                .split_once("=@")
                .or_else(|| v.text.split_once("=<"))
                .map(|(_, f)| f.split(';').next().unwrap_or(f).to_string()),
            _ => None,
        };
        if let Some(f) = file {
            d.add(Access::Read, &v.with_text(f), false);
        }
        if matches!(n.as_str(), "-K" | "--config") {
            d.unknowns
                .push("`curl` reads more options from a file".into());
        }
    }
    // Where curl connects besides the URL's host: a proxy, or a host that
    // `--connect-to` or `--resolve` puts in the URL host's place.
    for (n, v) in &o.opts {
        let Some(v) = v else { continue };
        let target = match n.as_str() {
            "-x" | "--proxy" | "--preproxy" | "--socks4" | "--socks4a" | "--socks5"
            | "--socks5-hostname" => Some(if v.text.contains("://") {
                v.text.clone()
            } else {
                format!("http://{}", v.text)
            }),
            // HOST1:PORT1:HOST2:PORT2
            "--connect-to" => {
                let parts: Vec<&str> = v.text.splitn(4, ':').collect();
                match parts.as_slice() {
                    [_, _, host, port] if !host.is_empty() => Some(format!("tcp://{host}:{port}")),
                    _ => None,
                }
            }
            // [+]HOST:PORT:ADDR[,ADDR]..
            "--resolve" => {
                let parts: Vec<&str> = v.text.splitn(3, ':').collect();
                match parts.as_slice() {
                    [_, port, addrs] => addrs
                        .split(',')
                        .next()
                        .filter(|a| !a.is_empty())
                        .map(|a| format!("tcp://{a}:{port}")),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(t) = target {
            d.add(Access::Fetch, &v.with_text(t), false);
        }
    }
    let remote_name = o.has(&["-O", "--remote-name", "--remote-name-all"]);
    let mut urls: Vec<&Arg> = o.operands.iter().collect();
    urls.extend(o.values(&["--url"]));
    for u in o.operands.iter() {
        d.add(Access::Fetch, u, false);
    }
    if remote_name {
        let dir = o.values(&["--output-dir"]).next().map(|a| a.text.clone());
        for u in urls {
            let base = basename_of_url(&u.text);
            let text = match &dir {
                Some(dir) => format!("{}/{base}", dir.trim_end_matches('/')),
                None => base.clone(),
            };
            let literal = u.literal && !base.is_empty();
            d.add(
                Access::Write,
                &Arg {
                    text,
                    literal,
                    pattern: None,
                    beneath: false,
                },
                false,
            );
        }
    }
}

/// `-o ProxyCommand=..` and the like make ssh (and scp, rsync over ssh)
/// run a local command.
pub(super) fn ssh_options(name: &str, o: &Opts, d: &mut Derived) {
    for v in o.values(&["-o"]) {
        let key = v
            .text
            .split(['=', ' '])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if matches!(
            key.as_str(),
            "proxycommand" | "localcommand" | "permitlocalcommand" | "knownhostscommand"
        ) || !v.literal
        {
            d.unknowns
                .push(format!("`{name} -o {}` runs a local command", v.text));
        }
    }
}

/// A `[user@]host:path` or `scheme://` operand of scp or rsync, as a URL;
/// `None` for a local path (`./a:b` has a `/` before its `:`).
pub(super) fn remote_url(text: &str) -> Option<String> {
    if text.contains("://") {
        return Some(text.to_string());
    }
    let (host, path) = text.split_once(':')?;
    if host.is_empty() || host.contains('/') {
        return None;
    }
    let path = path.strip_prefix(':').unwrap_or(path);
    Some(format!("ssh://{host}/{}", path.trim_start_matches('/')))
}

/// `scp` and `rsync`: local sources are read (recursively with `-r`/`-a`),
/// a local destination is written, and a remote one on either side is a
/// fetch, so that copying a denied file out meets its Read deny.
pub(super) fn remote_copy(name: &str, spec: &Spec, args: &[Arg], d: &mut Derived) {
    let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
    file_opts(spec, &o, d);
    ssh_options(name, &o, d);
    if o.has(&["-S"]) && name == "scp" {
        d.unknowns.push("`scp -S` runs a program".into());
    }
    for v in o.values(&["-e", "--rsh", "--rsync-path"]) {
        if !(v.literal && v.text.split_whitespace().next() == Some("ssh")) {
            d.unknowns
                .push(format!("`{name}` runs `{}` to connect", v.text));
        }
    }
    let recursive = o.has(spec.recursive);
    let removes = o.has(&["--remove-source-files"]);
    // One operand alone is listed (rsync) or copied nowhere (scp): read.
    let (sources, dest) = match o.operands.split_last() {
        None => return,
        Some((only, [])) => (std::slice::from_ref(only), None),
        Some((last, rest)) => (rest, Some(last)),
    };
    let remote = |a: &Arg| remote_url(&a.text).map(|url| a.with_text(url));
    for s in sources {
        match remote(s) {
            Some(url) => d.add(Access::Fetch, &url, false),
            None if removes => d.add(Access::Delete, s, recursive),
            None => d.add(Access::Read, s, recursive),
        }
    }
    if let Some(dest) = dest {
        match remote(dest) {
            Some(url) => d.add(Access::Fetch, &url, false),
            None => d.add(Access::Write, dest, true),
        }
    }
}

pub(super) fn wget(spec: &Spec, args: &[Arg], d: &mut Derived) {
    let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
    for (n, v) in &o.opts {
        let Some(v) = v else { continue };
        if matches!(n.as_str(), "-O" | "--output-document") && v.text == "-" {
            continue;
        }
        if let Some((_, access)) = spec.file_opts.iter().find(|(f, _)| f == n) {
            d.add(*access, v, *access == Access::WriteDir);
        }
        if matches!(n.as_str(), "-e" | "--execute") {
            d.unknowns.push("`wget -e` runs a wgetrc command".into());
        }
        if matches!(n.as_str(), "-i" | "--input-file") {
            d.unknowns
                .push("`wget -i` fetches URLs listed in a file".into());
        }
    }
    each(d, Access::Fetch, &o.operands, false);
    let prefix = o
        .values(&["-P", "--directory-prefix"])
        .next()
        .map(|a| a.text.clone());
    if o.has(&["-r", "--recursive", "-m", "--mirror"]) {
        let dir = Arg::lit(prefix.unwrap_or_else(|| ".".into()));
        d.add(Access::WriteDir, &dir, true);
    } else if !o.has(&["-O", "--output-document", "--spider"]) {
        for u in &o.operands {
            let base = basename_of_url(&u.text);
            let base = if base.is_empty() {
                "index.html".to_string()
            } else {
                base
            };
            let text = match &prefix {
                Some(p) => format!("{}/{base}", p.trim_end_matches('/')),
                None => base,
            };
            d.add(
                Access::Write,
                &Arg {
                    text,
                    literal: u.literal,
                    pattern: None,
                    beneath: false,
                },
                false,
            );
        }
    }
}

pub(super) fn httpie(spec: &Spec, args: &[Arg], d: &mut Derived) {
    let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
    file_opts(spec, &o, d);
    let mut operands = o.operands.iter();
    let mut url = operands.next();
    if url.is_some_and(|u| {
        u.literal && !u.text.is_empty() && u.text.chars().all(|c| c.is_ascii_uppercase())
    }) {
        url = operands.next();
    }
    if let Some(u) = url {
        d.add(Access::Fetch, u, false);
    }
    for item in operands {
        let t = item.text.as_str();
        let file = if let Some((_, f)) = t.split_once("=@") {
            Some(f)
        } else if let Some((before, f)) = t.split_once('@') {
            (!before.contains(['=', ':'])).then_some(f)
        } else {
            None
        };
        if let Some(f) = file {
            let f = f.split(';').next().unwrap_or(f);
            d.add(Access::Read, &item.with_text(f), false);
        }
    }
    if o.has(&["-d", "--download"]) && !o.has(&["-o", "--output"]) {
        d.add(Access::WriteDir, &Arg::lit("."), true);
    }
}

/// A remote given as a URL or `user@host:path`, as opposed to a remote name
/// or a local path.
pub(super) fn is_remote_url(text: &str) -> bool {
    if text.contains("://") {
        return true;
    }
    match text.split_once(':') {
        Some((host, _)) => {
            !host.is_empty() && !host.contains('/') && (host.contains('@') || host.contains('.'))
        }
        None => false,
    }
}

/// The host a connection tool opens (`nc HOST PORT`, `telnet HOST`,
/// `socat - TCP:HOST:PORT`, `ssh USER@HOST`, `sftp HOST`, `ftp HOST`), as a
/// `tcp://` fetch, so that host rules meet it. Listening (`nc -l`) connects
/// nowhere. (`openssl s_client -connect` is read with openssl's other
/// options.)
pub(super) fn connection(name: &str, args: &[Arg], d: &mut Derived) {
    let operands: Vec<&Arg> = args
        .iter()
        .filter(|a| !(a.literal && a.text.starts_with('-')))
        .collect();
    let tcp = |host: &str, port: Option<&str>| match port {
        Some(p) if !p.is_empty() => format!("tcp://{host}:{p}"),
        _ => format!("tcp://{host}"),
    };
    match name {
        "nc" | "ncat" | "netcat" | "telnet" => {
            if args
                .iter()
                .any(|a| a.literal && (a.text == "-l" || a.text == "--listen"))
            {
                return;
            }
            // The first operand that is not a number (an option's value
            // such as `-w 5` or a port) is the host, and the next its port.
            if let Some(i) = operands
                .iter()
                .position(|a| !a.text.chars().all(|c| c.is_ascii_digit()))
            {
                let host = operands[i];
                let port = operands.get(i + 1).map(|a| a.text.as_str());
                d.add(Access::Fetch, &host.with_text(tcp(&host.text, port)), false);
            }
        }
        "socat" => {
            for a in &operands {
                let mut parts = a.text.splitn(3, ':');
                let kind = parts.next().unwrap_or("").to_ascii_uppercase();
                if matches!(
                    kind.as_str(),
                    "TCP"
                        | "TCP4"
                        | "TCP6"
                        | "TCP-CONNECT"
                        | "UDP"
                        | "UDP4"
                        | "UDP6"
                        | "OPENSSL"
                        | "SSL"
                        | "PROXY"
                        | "SOCKS4"
                        | "SOCKS4A"
                        | "SOCKS5"
                ) && let Some(host) = parts.next()
                {
                    let port = parts.next().map(|p| p.split(',').next().unwrap_or(p));
                    d.add(Access::Fetch, &a.with_text(tcp(host, port)), false);
                }
            }
        }
        "ssh" | "sftp" | "ftp" | "tftp" => {
            if let Some(dest) = operands.first() {
                let host = dest
                    .text
                    .strip_prefix("ssh://")
                    .or_else(|| dest.text.strip_prefix("sftp://"))
                    .unwrap_or(&dest.text);
                let host = host.rsplit('@').next().unwrap_or(host);
                let host = host.split([':', '/']).next().unwrap_or(host);
                if !host.is_empty() {
                    d.add(Access::Fetch, &dest.with_text(tcp(host, None)), false);
                }
            }
        }
        _ => {}
    }
}

/// The URLs written in one word (`git+https://h/r.git`,
/// `--registry=https://h`, a program's text): each `scheme://..` run of a
/// network scheme, with a `git+` prefix dropped.
pub(crate) fn urls_in_word(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = text[at..].find("://") {
        let sep = at + i;
        let start = text[..sep]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
            .last()
            .map_or(sep, |(j, _)| j);
        let scheme = text[start..sep].to_ascii_lowercase();
        let scheme = scheme.strip_prefix("git+").unwrap_or(&scheme);
        let end = text[sep..]
            .find(|c: char| {
                c.is_whitespace()
                    || matches!(c, '"' | '\'' | '<' | '>' | '`' | ')' | ']' | '}' | ',')
            })
            .map_or(text.len(), |j| sep + j);
        if matches!(scheme, "http" | "https" | "ftp" | "ws" | "wss") && end > sep + 3 {
            out.push(format!("{scheme}{}", &text[sep..end]));
        }
        at = end.max(sep + 3);
    }
    out
}

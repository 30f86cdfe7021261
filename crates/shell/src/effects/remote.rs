//! Programs that connect over ssh or to a host and port: ssh, scp, sftp,
//! rsync, nc/ncat/netcat, telnet, socat, ftp. Their options that run a
//! local program, read keys or configuration, write logs, or connect
//! somewhere other than the host operand (`-o Hostname=`, `-J`, a proxy).

use super::*;

/// The options ssh, scp, sftp (and rsync's `-e ssh`) share: `-o` settings
/// (ssh_config(5)) that run a local command, load a library, read a
/// configuration, reuse a control socket, read keys, write known hosts,
/// or connect elsewhere (`Hostname`, `ProxyJump`); `-J` jump hosts, `-F`
/// configuration files (which can hold any of those), `-S` control
/// sockets (ssh) and `-I` PKCS#11 libraries.
pub(super) fn ssh_options(name: &str, o: &Opts, d: &mut Derived) {
    for v in o.values(&["-o"]) {
        let t = v.text.trim_start();
        let (key, value) = match t.find(['=', ' ', '\t']) {
            Some(i) => (&t[..i], t[i..].trim_start_matches([' ', '\t', '=']).trim()),
            None => (t, ""),
        };
        let key = key.to_ascii_lowercase();
        if !v.literal {
            d.unknowns
                .push(format!("`{name} -o {}` is not literal", v.text));
            continue;
        }
        let none = value.eq_ignore_ascii_case("none") || value.eq_ignore_ascii_case("no");
        match key.as_str() {
            "proxycommand"
            | "localcommand"
            | "permitlocalcommand"
            | "knownhostscommand"
            | "pkcs11provider"
            | "securitykeyprovider"
            | "xauthlocation"
            | "match"
            | "include"
            | "controlpath"
            | "controlmaster"
            | "identityagent"
            | "canonicalizehostname"
            | "canonicaldomains"
            | "host"
                if !none =>
            {
                d.unknowns.push(format!(
                    "`{name} -o {}` runs a local command, loads code or configuration, or connects elsewhere",
                    v.text
                ));
            }
            "hostname" | "proxyjump" => jump_hosts(value, v, d),
            "identityfile" | "certificatefile" | "globalknownhostsfile" | "revokedhostkeys" => {
                for f in value.split_whitespace() {
                    d.add(Access::Read, &v.with_text(f), false);
                }
            }
            "userknownhostsfile" | "controlpersist" if !none => {
                for f in value.split_whitespace() {
                    d.add(Access::Write, &v.with_text(f), false);
                }
            }
            _ => {}
        }
    }
    for v in o.values(&["-J"]) {
        jump_hosts(&v.text, v, d);
    }
    for v in o.values(&["-F"]) {
        if !(v.literal && v.text == "none") {
            d.unknowns.push(format!(
                "`{name} -F {}` reads a configuration, which can run commands",
                v.text
            ));
        }
    }
    if name == "ssh" {
        for v in o.values(&["-S"]) {
            if !(v.literal && v.text == "none") {
                d.unknowns.push(format!(
                    "`ssh -S {}` uses a control socket, whose connection may go anywhere",
                    v.text
                ));
            }
        }
    }
    if o.has(&["-I"]) {
        d.unknowns
            .push(format!("`{name} -I` loads a PKCS#11 library"));
    }
}

/// `[user@]host[:port]`, comma-separated (`-J`, `ProxyJump`, `Hostname`):
/// each a connection.
fn jump_hosts(value: &str, v: &Arg, d: &mut Derived) {
    for hop in value.split(',') {
        let hop = hop.strip_prefix("ssh://").unwrap_or(hop);
        let host = hop.rsplit('@').next().unwrap_or(hop);
        if host.is_empty() || host.eq_ignore_ascii_case("none") {
            continue;
        }
        d.add(Access::Fetch, &v.with_text(format!("tcp://{host}")), false);
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
    if o.has(&["-S", "-D"]) && name == "scp" {
        d.unknowns.push("`scp -S`/`-D` runs a program".into());
    }
    for v in o.values(&["-e", "--rsh", "--rsync-path"]) {
        let words = if v.literal {
            shell_words::split(&v.text).ok()
        } else {
            None
        };
        match words.as_deref() {
            // `-e 'ssh -o ProxyCommand=..'`: ssh's own options count.
            Some([ssh, rest @ ..]) if ssh == "ssh" => {
                let rest: Vec<Arg> = rest.iter().map(|w| v.with_text(w.as_str())).collect();
                if let Some(spec) = tables::known("ssh").spec {
                    let so = parse_opts(&rest, spec.short_args, spec.long_args, spec.file_opts);
                    file_opts(spec, &so, d);
                    ssh_options(name, &so, d);
                }
            }
            _ => d
                .unknowns
                .push(format!("`{name}` runs `{}` to connect", v.text)),
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

/// `sftp`: the options it shares with ssh, `-b` batch files (whose `!`
/// lines run local commands), `-S`/`-D` programs, and the host.
pub(super) fn sftp(spec: &Spec, args: &[Arg], d: &mut Derived) {
    let o = parse_opts(args, spec.short_args, spec.long_args, spec.file_opts);
    file_opts(spec, &o, d);
    ssh_options("sftp", &o, d);
    if o.values(&["-b"]).any(|b| !(b.literal && b.text == "-")) {
        d.unknowns
            .push("`sftp -b` runs a batch file, whose `!` lines run local commands".into());
    }
    if o.has(&["-S", "-D"]) {
        d.unknowns.push("`sftp -S`/`-D` runs a program".into());
    }
    connection("sftp", &o.operands, d);
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
        "nc" | "ncat" | "netcat" => netcat(name, args, d),
        "telnet" => {
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
                socat_address(a, d);
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
                let bare = host.strip_prefix('[').and_then(|h| h.split_once(']'));
                let host = match bare {
                    Some((v6, _)) => v6,
                    None => host.split([':', '/']).next().unwrap_or(host),
                };
                if !host.is_empty() {
                    d.add(Access::Fetch, &dest.with_text(tcp(host, None)), false);
                }
                // ssh to this very machine runs its command (or a shell that
                // reads standard input) here, where the analysis does not
                // see.
                if name == "ssh" && (!dest.literal || loopback(host)) {
                    d.unknowns.push(format!(
                        "`ssh {}` runs a shell on this machine, which is not analysed",
                        dest.text
                    ));
                }
            }
        }
        _ => {}
    }
}

/// Whether `host` may name this machine: `localhost` and its kin, the
/// loopback addresses, a number (`127.1`, `2130706433`, `0x7f000001`,
/// `0` all reach it through the resolver), or this machine's name.
fn loopback(host: &str) -> bool {
    let h = host.trim_end_matches('.').to_ascii_lowercase();
    let numeric = h.starts_with(|c: char| c.is_ascii_digit())
        && h.chars()
            .all(|c| c.is_ascii_hexdigit() || c == 'x' || c == '.')
        && ipv4_aton(&h).is_none_or(|v| v >> 24 == 127 || v >> 24 == 0);
    h == "localhost"
        || h.ends_with(".localhost")
        || h.starts_with("localhost.")
        || h.starts_with("ip6-")
        || h.contains(':')
        || numeric
        || this_host().is_some_and(|me| me.eq_ignore_ascii_case(&h))
}

/// This machine's name, read once.
fn this_host() -> Option<&'static str> {
    static NAME: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    NAME.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .map(|n| n.trim().to_string())
    })
    .as_deref()
}

/// An IPv4 address as the resolver reads a number (`inet_aton`): one to
/// four parts, each decimal, octal (`0` first) or hex (`0x`), the last
/// filling the bytes left. `None` when it is not one.
fn ipv4_aton(text: &str) -> Option<u32> {
    let parts: Vec<u64> = text
        .split('.')
        .map(|p| {
            if let Some(hex) = p.strip_prefix("0x") {
                u64::from_str_radix(hex, 16).ok()
            } else if p.len() > 1 && p.starts_with('0') {
                u64::from_str_radix(&p[1..], 8).ok()
            } else {
                p.parse().ok()
            }
        })
        .collect::<Option<_>>()?;
    let (last, head) = parts.split_last()?;
    if head.len() > 3 || head.iter().any(|p| *p > 255) {
        return None;
    }
    let room = 8 * (4 - head.len() as u32);
    if *last >= 1u64 << room {
        return None;
    }
    let mut v: u64 = 0;
    for (i, p) in head.iter().enumerate() {
        v |= p << (24 - 8 * i as u32);
    }
    u32::try_from(v | last).ok()
}

/// `nc`, `netcat` (OpenBSD's and the traditional one) and `ncat`: `-e`,
/// `-c`, `--exec`, `--sh-exec`, `--lua-exec` run a program with the
/// connection; `-x`/`--proxy` connect through a proxy (ncat's `-x` writes a
/// hex dump, and `nc` may be ncat, so both are taken); `-o` writes; `-U`
/// uses a local socket. The first operand is the host, the next its port;
/// listening (`-l`) connects nowhere.
fn netcat(name: &str, args: &[Arg], d: &mut Derived) {
    const LONG: &[&str] = &[
        "exec",
        "sh-exec",
        "lua-exec",
        "output",
        "hex-dump",
        "proxy",
        "proxy-type",
        "proxy-auth",
        "proxy-dns",
        "source",
        "source-port",
        "wait",
        "idle-timeout",
        "delay",
        "max-conns",
        "allow",
        "allowfile",
        "deny",
        "denyfile",
        "ssl-cert",
        "ssl-key",
        "ssl-trustfile",
        "ssl-ciphers",
        "ssl-servername",
        "ssl-alpn",
        "append-output",
    ];
    let o = parse_opts(args, "ceIiMmOoPpqsTVWwXxgGd", LONG, &[]);
    for (n, v) in &o.opts {
        let Some(v) = v else { continue };
        match n.as_str() {
            "-e" | "-c" | "--exec" | "--sh-exec" | "--lua-exec" => d.unknowns.push(format!(
                "`{name} {n} {}` runs a program with the connection",
                v.text
            )),
            "-o" | "--output" | "--hex-dump" => d.add(Access::Write, v, false),
            "--allowfile" | "--denyfile" | "--ssl-cert" | "--ssl-key" | "--ssl-trustfile" => {
                d.add(Access::Read, v, false)
            }
            "-x" => {
                if name != "ncat" {
                    d.add(
                        Access::Fetch,
                        &v.with_text(format!("tcp://{}", v.text)),
                        false,
                    );
                }
                d.add(Access::Write, v, false);
            }
            "--proxy" => d.add(
                Access::Fetch,
                &v.with_text(format!("tcp://{}", v.text)),
                false,
            ),
            _ => {}
        }
    }
    if o.has(&["-U", "--unixsock"]) {
        d.unknowns
            .push(format!("`{name} -U` connects to a local socket"));
    }
    if o.has(&["-l", "--listen"]) {
        return;
    }
    if let Some(host) = o.operands.first() {
        let port = o.operands.get(1).map(|a| a.text.as_str());
        let text = match port {
            Some(p) if !p.is_empty() => format!("tcp://{}:{p}", host.text),
            _ => format!("tcp://{}", host.text),
        };
        d.add(Access::Fetch, &host.with_text(text), false);
    }
}

/// One socat address (socat(1) "ADDRESS TYPES"), both halves of a
/// `A!!B` pair: hosts it connects to, files it opens, programs it runs.
fn socat_address(a: &Arg, d: &mut Derived) {
    if !a.literal {
        d.unknowns
            .push(format!("socat address is not literal: `{}`", a.text));
        return;
    }
    for addr in a.text.split("!!") {
        let (head, options) = addr.split_once(',').unwrap_or((addr, ""));
        let (kind, rest) = match head.split_once(':') {
            Some((k, r)) => (k.to_ascii_uppercase(), r),
            None if head.contains('/') => ("GOPEN".to_string(), head),
            None => (head.to_ascii_uppercase(), ""),
        };
        let tcp = |host: &str, port: Option<&str>| match port {
            Some(p) if !p.is_empty() => format!("tcp://{host}:{p}"),
            _ => format!("tcp://{host}"),
        };
        match kind.as_str() {
            "TCP" | "TCP4" | "TCP6" | "TCP-CONNECT" | "TCP4-CONNECT" | "TCP6-CONNECT" | "UDP"
            | "UDP4" | "UDP6" | "UDP-CONNECT" | "UDP4-CONNECT" | "UDP6-CONNECT" | "UDP-SENDTO"
            | "UDP4-SENDTO" | "UDP6-SENDTO" | "SCTP" | "SCTP-CONNECT" | "DCCP"
            | "DCCP-CONNECT" | "OPENSSL" | "OPENSSL-CONNECT" | "SSL" | "PROXY"
            | "PROXY-CONNECT" | "SOCKS" | "SOCKS4" | "SOCKS4A" | "SOCKS5"
            | "SOCKS5-CONNECT" => {
                let mut parts = rest.splitn(3, ':');
                if let Some(host) = parts.next().filter(|h| !h.is_empty()) {
                    let port = parts.next();
                    d.add(Access::Fetch, &a.with_text(tcp(host, port)), false);
                }
            }
            "OPEN" | "GOPEN" | "PIPE" | "NAMED" => {
                d.add(Access::Read, &a.with_text(rest), false);
                d.add(Access::Write, &a.with_text(rest), false);
            }
            "CREATE" | "CREAT" => d.add(Access::Write, &a.with_text(rest), false),
            "-" | "STDIO" | "STDIN" | "STDOUT" | "STDERR" | "FD" | "PTY" | "TCP-LISTEN"
            | "TCP4-LISTEN" | "TCP6-LISTEN" | "UDP-LISTEN" | "UDP4-LISTEN" | "UDP6-LISTEN"
            | "UDP-RECV" | "UDP-RECVFROM" | "OPENSSL-LISTEN" | "SCTP-LISTEN" | "ECHO" => {}
            "EXEC" | "SYSTEM" | "SHELL" => d.unknowns.push(format!(
                "`socat {addr}` runs a program with the connection"
            )),
            _ => d.unknowns.push(format!(
                "`socat {addr}` is an address toolgate does not follow (a local socket, device or program)"
            )),
        }
        for opt in options.split(',') {
            let (k, v) = opt.split_once('=').unwrap_or((opt, ""));
            match k.to_ascii_lowercase().as_str() {
                "link" | "symbolic-link" | "lockfile" | "waitlock" | "unlink-close" => {
                    d.add(Access::Write, &a.with_text(v), false)
                }
                "su" | "su-d" | "substuser" | "substuser-delayed" | "chroot" | "setuid" => {
                    d.unknowns
                        .push(format!("`socat` option `{opt}` changes user or root"));
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_as_the_resolver_reads_them() {
        assert_eq!(ipv4_aton("127.0.0.1"), Some(0x7f00_0001));
        assert_eq!(ipv4_aton("127.1"), Some(0x7f00_0001));
        assert_eq!(ipv4_aton("2130706433"), Some(0x7f00_0001));
        assert_eq!(ipv4_aton("0x7f000001"), Some(0x7f00_0001));
        assert_eq!(ipv4_aton("0177.0.0.1"), Some(0x7f00_0001));
        assert_eq!(ipv4_aton("10.0.0.5"), Some(0x0a00_0005));
        assert_eq!(ipv4_aton("256.1"), None);
        assert_eq!(ipv4_aton("1.2.3.4.5"), None);
    }

    #[test]
    fn this_machine_by_any_name() {
        for host in [
            "localhost",
            "LOCALHOST.",
            "a.localhost",
            "localhost.localdomain",
            "ip6-localhost",
            "::1",
            "127.1",
            "2130706433",
            "0x7f000001",
            "0",
            "0.0.0.0",
        ] {
            assert!(loopback(host), "{host}");
        }
        for host in ["build.example.com", "10.0.0.5", "192.168.1.2", "github.com"] {
            assert!(!loopback(host), "{host}");
        }
    }
}

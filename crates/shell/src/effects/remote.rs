//! Programs that connect over ssh or to a host and port: ssh, scp, sftp,
//! rsync, nc/ncat/netcat, telnet, socat, ftp. Their options that run a
//! local program, read keys or configuration, write logs, or connect
//! somewhere other than the host operand (`-o Hostname=`, `-J`, a proxy).

use super::*;

/// What one `-o` line sets, read as OpenSSH reads a configuration line
/// (readconf.c `process_config_line`, misc.c `strdelim` and
/// `argv_split`): the keyword ends at whitespace, a `"` or one `=`, a
/// `"` anywhere in it quotes up to the next `"` (so `"ProxyCommand"` and
/// `Proxy"Command"` are `ProxyCommand`), and it is matched without
/// regard to case. Comparing the words as written let a quoted keyword
/// run any program.
enum SshLine {
    /// A line ssh takes for nothing (empty, a comment, an unclosed quote
    /// in the keyword) or refuses (no value).
    Nothing,
    /// The keyword in lowercase, the text after it (`ProxyCommand` and
    /// `ProxyJump` take it whole, past any `=`), and its words as
    /// `argv_split` makes them (`None` when ssh refuses their quotes).
    Set {
        keyword: String,
        rest: String,
        words: Option<Vec<String>>,
    },
}

const SSH_SPACE: &[u8] = b" \t\r\n";

/// misc.c `strdelim`: the next token of `s` and what follows it (`None`
/// where ssh's pointer becomes NULL); `None` for no token (an unclosed
/// quote).
fn ssh_strdelim(s: &[u8]) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    let skip = |b: &[u8], from: usize| -> usize {
        from + b.get(from..).map_or(0, |r| {
            r.iter().take_while(|c| SSH_SPACE.contains(c)).count()
        })
    };
    let Some(i) = s
        .iter()
        .position(|c| SSH_SPACE.contains(c) || *c == b'"' || *c == b'=')
    else {
        return Some((s.to_vec(), None));
    };
    if s[i] == b'"' {
        let mut moved = s[..i].to_vec();
        moved.extend_from_slice(&s[i + 1..]);
        let j = i + moved[i..].iter().position(|c| *c == b'"')?;
        let token = moved[..j].to_vec();
        let rest = moved[skip(&moved, j + 1)..].to_vec();
        return Some((token, Some(rest)));
    }
    let equals = s[i] == b'=';
    let mut at = skip(s, i + 1);
    if !equals && s.get(at) == Some(&b'=') {
        at = skip(s, at + 1);
    }
    Some((s[..i].to_vec(), Some(s[at..].to_vec())))
}

/// misc.c `argv_split` with comments: words split at blanks, `"` and `'`
/// quoting, `\` escaping a quote, a backslash or (unquoted) a space.
/// `None` when a quote is not closed, which ssh refuses.
fn ssh_argv_split(s: &str) -> Option<Vec<String>> {
    let b: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == ' ' || b[i] == '\t' {
            i += 1;
            continue;
        }
        if b[i] == '#' {
            break;
        }
        let mut quote = None;
        let mut arg = String::new();
        while i < b.len() {
            let c = b[i];
            let next = b.get(i + 1).copied();
            if c == '\\' {
                if matches!(next, Some('\'' | '"' | '\\')) || (quote.is_none() && next == Some(' '))
                {
                    i += 1;
                    arg.push(b[i]);
                } else {
                    arg.push(c);
                }
            } else if quote.is_none() && (c == ' ' || c == '\t') {
                break;
            } else if quote.is_none() && (c == '"' || c == '\'') {
                quote = Some(c);
            } else if quote == Some(c) {
                quote = None;
            } else {
                arg.push(c);
            }
            i += 1;
        }
        if quote.is_some() {
            return None;
        }
        out.push(arg);
    }
    Some(out)
}

/// One `-o` value as ssh reads it.
fn ssh_config_line(line: &str) -> SshLine {
    let mut b = line.as_bytes().to_vec();
    // Trailing whitespace (and form feeds) go, all but the first byte.
    while b.len() > 1 && b.last().is_some_and(|c| b" \t\r\n\x0c".contains(c)) {
        b.pop();
    }
    if b.is_empty() {
        return SshLine::Nothing;
    }
    let Some((mut keyword, mut rest)) = ssh_strdelim(&b) else {
        return SshLine::Nothing;
    };
    if keyword.is_empty() {
        match rest.as_deref().and_then(ssh_strdelim) {
            Some((k, r)) => (keyword, rest) = (k, r),
            None => return SshLine::Nothing,
        }
    }
    if keyword.is_empty() || keyword[0] == b'\n' || keyword[0] == b'#' {
        return SshLine::Nothing;
    }
    let rest = rest.unwrap_or_default();
    let rest = &rest[rest.iter().take_while(|c| SSH_SPACE.contains(c)).count()..];
    if rest.is_empty() {
        return SshLine::Nothing;
    }
    // Only ASCII bytes were taken out, so both halves are still UTF-8.
    let keyword = String::from_utf8_lossy(&keyword).to_ascii_lowercase();
    let rest = String::from_utf8_lossy(rest).into_owned();
    let words = ssh_argv_split(&rest);
    SshLine::Set {
        keyword,
        rest,
        words,
    }
}

/// Keywords of ssh_config(5) (readconf.c's table, OpenSSH 10) whose value
/// names no program, library, file, socket or host: authentication and
/// crypto choices, times, counts, the remote user, what is sent to the
/// remote side, and the deprecated and unsupported ones ssh ignores.
/// Any keyword not listed here or taken apart in [`ssh_options`] is
/// unknown, so a keyword a later OpenSSH adds asks until it is read.
const SSH_HARMLESS: &[&str] = &[
    "protocol",
    "cipher",
    "fallbacktorsh",
    "globalknownhostsfile2",
    "rhostsauthentication",
    "userknownhostsfile2",
    "useroaming",
    "usersh",
    "useprivilegedport",
    "afstokenpassing",
    "kerberosauthentication",
    "kerberostgtpassing",
    "rsaauthentication",
    "rhostsrsaauthentication",
    "compressionlevel",
    "gssapiauthentication",
    "gssapidelegatecredentials",
    "forwardx11",
    "forwardx11trusted",
    "forwardx11timeout",
    "exitonforwardfailure",
    "gatewayports",
    "passwordauthentication",
    "kbdinteractiveauthentication",
    "kbdinteractivedevices",
    "challengeresponseauthentication",
    "skeyauthentication",
    "tisauthentication",
    "pubkeyauthentication",
    "dsaauthentication",
    "hostbasedauthentication",
    "identitiesonly",
    "addkeystoagent",
    "hostkeyalias",
    "port",
    "ciphers",
    "macs",
    "permitremoteopen",
    "user",
    "tag",
    "escapechar",
    "connectionattempts",
    "batchmode",
    "checkhostip",
    "stricthostkeychecking",
    "compression",
    "tcpkeepalive",
    "keepalive",
    "numberofpasswordprompts",
    "syslogfacility",
    "loglevel",
    "logverbose",
    "preferredauthentications",
    "hostkeyalgorithms",
    "casignaturealgorithms",
    "bindaddress",
    "bindinterface",
    "clearallforwardings",
    "enablesshkeysign",
    "verifyhostkeydns",
    "nohostauthenticationforlocalhost",
    "rekeylimit",
    "connecttimeout",
    "addressfamily",
    "serveraliveinterval",
    "serveralivecountmax",
    "sendenv",
    "setenv",
    "controlpersist",
    "hashknownhosts",
    "tunnel",
    "tunneldevice",
    "remotecommand",
    "visualhostkey",
    "kexalgorithms",
    "ipqos",
    "requesttty",
    "sessiontype",
    "stdinnull",
    "forkafterauthentication",
    "proxyusefdpass",
    "canonicalizefallbacklocal",
    "canonicalizemaxdots",
    "canonicalizepermittedcnames",
    "streamlocalbindmask",
    "streamlocalbindunlink",
    "fingerprinthash",
    "updatehostkeys",
    "hostbasedacceptedalgorithms",
    "hostbasedkeytypes",
    "pubkeyacceptedalgorithms",
    "pubkeyacceptedkeytypes",
    "ignoreunknown",
    "requiredrsasize",
    "enableescapecommandline",
    "obscurekeystroketiming",
    "channeltimeout",
    "versionaddendum",
    "refuseconnection",
    "warnweakcrypto",
];

/// The options ssh, scp, sftp (and rsync's `-e ssh`) share: `-o` settings
/// (ssh_config(5)) that run a local command, load a library, read a
/// configuration, reuse a control socket, read keys, write known hosts,
/// or connect elsewhere (`Hostname`, `ProxyJump`); `-J` jump hosts, `-F`
/// configuration files (which can hold any of those), `-S` control
/// sockets (ssh), `-I` PKCS#11 libraries, and forwardings to or from a
/// local socket (`-L`/`-R` with a path). Each `-o` is read as ssh reads
/// it ([`ssh_config_line`]); a keyword that is neither known harmless
/// nor taken apart here is unknown.
pub(super) fn ssh_options(name: &str, o: &Opts, d: &mut Derived) {
    for v in o.values(&["-o"]) {
        if !v.literal {
            d.unknowns
                .push(format!("`{name} -o {}` is not literal", v.text));
            continue;
        }
        ssh_setting(name, v, d);
    }
    for v in o.values(&["-J"]) {
        jump_hosts(name, &v.text, v, d);
    }
    for v in o.values(&["-L", "-R"]) {
        if !v.literal || v.text.contains('/') {
            d.unknowns.push(format!(
                "`{name}` forwards `{}` to or from a local socket",
                v.text
            ));
        }
    }
    for v in o.values(&["-F"]) {
        if !(v.literal && v.text.eq_ignore_ascii_case("none")) {
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

/// One literal `-o` setting: what its keyword makes ssh do with its value.
fn ssh_setting(name: &str, v: &Arg, d: &mut Derived) {
    let SshLine::Set {
        keyword,
        rest,
        words,
    } = ssh_config_line(&v.text)
    else {
        return;
    };
    let unknown = |d: &mut Derived, why: &str| {
        d.unknowns.push(format!("`{name} -o {}` {why}", v.text));
    };
    let Some(words) = words else {
        unknown(d, "has quotes toolgate cannot split as ssh does");
        return;
    };
    let first = words.first().map_or("", String::as_str);
    let only = |allowed: &[&str]| words.len() == 1 && allowed.contains(&first);
    let flag_off = words.len() == 1
        && (first.eq_ignore_ascii_case("no") || first.eq_ignore_ascii_case("false"));
    match keyword.as_str() {
        // ssh compares `none` case-sensitively: `NONE` is a program.
        "proxycommand" | "knownhostscommand"
            if rest.trim_start_matches([' ', '\t', '\r', '\n', '=']) == "none" => {}
        "pkcs11provider" | "smartcarddevice" | "controlpath" if only(&["none"]) => {}
        "securitykeyprovider" if only(&["internal"]) => {}
        "identityagent" if only(&["none", "SSH_AUTH_SOCK"]) => {}
        "canonicaldomains" if only(&["none"]) => {}
        "permitlocalcommand" | "controlmaster" | "canonicalizehostname" if flag_off => {}
        // `yes`/`no`; anything else is the path of an agent's socket.
        "forwardagent"
            if words.len() == 1
                && ["yes", "no", "true", "false"]
                    .iter()
                    .any(|w| first.eq_ignore_ascii_case(w)) => {}
        "proxycommand"
        | "knownhostscommand"
        | "localcommand"
        | "permitlocalcommand"
        | "pkcs11provider"
        | "smartcarddevice"
        | "securitykeyprovider"
        | "xauthlocation"
        | "identityagent"
        | "forwardagent"
        | "controlpath"
        | "controlmaster"
        | "match"
        | "include"
        | "host"
        | "canonicalizehostname"
        | "canonicaldomains" => unknown(
            d,
            "runs a local command, loads code or configuration, uses a local socket, or connects elsewhere",
        ),
        // ssh expands `%h` (the host operand) and `%%` in the name.
        "hostname" => {
            if first.contains('%') || !first.is_ascii() {
                unknown(d, "names the host with `%` tokens");
            } else {
                if loopback(first) {
                    unknown(d, "runs a shell on this machine, which is not analysed");
                }
                d.add(Access::Fetch, &v.with_text(format!("tcp://{first}")), false);
            }
        }
        // Taken whole, past blanks and `=`, as ssh's `parse_jump` takes it.
        "proxyjump" => {
            let hops = rest.trim_start_matches([' ', '\t', '\r', '\n', '=']);
            jump_hosts(name, hops, v, d);
        }
        "identityfile"
        | "certificatefile"
        | "globalknownhostsfile"
        | "revokedhostkeys"
        | "userknownhostsfile" => {
            let access = if keyword == "userknownhostsfile" {
                Access::Write
            } else {
                Access::Read
            };
            for f in &words {
                if f.eq_ignore_ascii_case("none") {
                    continue;
                }
                if f.contains('%') {
                    unknown(d, "names a file with `%` tokens");
                } else {
                    d.add(access, &v.with_text(f.as_str()), false);
                }
            }
        }
        // A Unix socket's path binds or reaches a local socket.
        "localforward" | "remoteforward" | "dynamicforward" => {
            if words.iter().any(|w| w.contains('/')) {
                unknown(d, "forwards to or from a local socket");
            }
        }
        k if SSH_HARMLESS.contains(&k) => {}
        _ => unknown(d, "sets an option toolgate does not know"),
    }
}

/// `[user@]host[:port]` or `ssh://[user@]host[:port]`, comma-separated
/// (`-J`, `ProxyJump`): each a connection. A hop with a quote, blank or
/// `%` is not one ssh reads plainly: unknown.
fn jump_hosts(name: &str, value: &str, v: &Arg, d: &mut Derived) {
    if !v.literal
        || value
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '"' | '\'' | '%' | '\\'))
    {
        d.unknowns.push(format!(
            "`{name}` jumps through `{value}`, which is not plain"
        ));
        return;
    }
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
    // rsync's own `-I`, `-L`, `-F` are other options; its ssh options are
    // those of `-e ssh ..`.
    if name != "rsync" {
        ssh_options(name, &o, d);
    }
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
    let batch = name == "rsync" && o.has(&["--read-batch"]);
    // One operand alone is listed (rsync) or copied nowhere (scp): read;
    // with `--read-batch` it is the destination the batch is applied to.
    let (sources, dest) = match o.operands.split_last() {
        None => (&[][..], None),
        Some((only, [])) if batch => (&[][..], Some(only)),
        Some((only, [])) => (std::slice::from_ref(only), None),
        Some((last, rest)) => (rest, Some(last)),
    };
    let remote = |a: &Arg| remote_url(&a.text).map(|url| a.with_text(url));
    if name == "rsync" {
        let local_dest = dest.filter(|a| remote_url(&a.text).is_none());
        rsync_options(&o, recursive, local_dest, d);
    }
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

/// What rsync's options write, read or run beyond its operands (rsync(1)):
/// backups (`-b` makes `DEST` + `--suffix`, `~` by default, and
/// `--backup-dir` puts them in a directory), scratch and partial files
/// (`--temp-dir`, `--partial-dir`), the directories compared or linked
/// against (`--compare-dest`, `--copy-dest`, `--link-dest`, whose files the
/// copy becomes hard links to), a batch's shell script beside it, and
/// `--early-input`. A relative directory is relative to the destination
/// directory, which is `DEST` or, for a single file, the directory
/// holding it: both are taken. `-M`/`--remote-option` hands options to
/// the receiving rsync, which for a local copy is this machine's
/// (`-M--log-file=src/x` writes there); filter rules that merge a file
/// read it; `--daemon` and `--server` run rsync as a server. Those are
/// unknown.
fn rsync_options(o: &Opts, recursive: bool, dest: Option<&Arg>, d: &mut Derived) {
    for (n, _) in &o.opts {
        let why = match n.as_str() {
            "-M" | "--remote-option" => {
                "passes options to the receiving rsync, which for a local copy runs here"
            }
            _ if ["--daemon", "--server", "--sender", "--config", "--dparam"]
                .iter()
                .any(|w| is_option(n, w)) =>
            {
                "runs rsync as a server, with a configuration that can run programs"
            }
            _ => continue,
        };
        d.unknowns.push(format!("`rsync {n}` {why}"));
    }
    for v in o.values(&["-f", "--filter"]) {
        let rule = v.text.trim_start();
        let merge = rule.starts_with(['.', ':'])
            || rule.starts_with("merge")
            || rule.starts_with("dir-merge");
        if merge || !v.literal {
            d.unknowns.push(format!(
                "`rsync --filter {}` reads rules from a file it names",
                v.text
            ));
        }
    }
    for v in o.values(&["--early-input"]) {
        d.add(Access::Read, v, false);
    }
    for f in o.values(&["--write-batch", "--only-write-batch"]) {
        d.add(Access::Write, &f.with_text(format!("{}.sh", f.text)), false);
    }
    let Some(dest) = dest else { return };
    let backup_dir: Vec<&Arg> = o.values(&["--backup-dir"]).collect();
    if o.has(&["-b", "--backup"]) || !backup_dir.is_empty() {
        let suffix = o.values(&["--suffix"]).last().map_or_else(
            || Arg::lit(if backup_dir.is_empty() { "~" } else { "" }),
            Arg::clone,
        );
        let t = dest.text.as_str();
        if !(suffix.text.is_empty() || t.ends_with('/') || matches!(t, "." | "..")) {
            let backup = Arg {
                literal: dest.literal && suffix.literal,
                ..Arg::lit(format!("{t}{}", suffix.text))
            };
            d.add(Access::Write, &backup, true);
        }
    }
    let beneath_dest = |d: &mut Derived, dir: &Arg, access: Access| {
        for base in rsync_dest_dirs(dest) {
            d.add(access, &rsync_join(&base, dir), true);
        }
    };
    for dir in backup_dir
        .iter()
        .copied()
        .chain(o.values(&["-T", "--temp-dir"]))
    {
        beneath_dest(d, dir, Access::WriteDir);
    }
    for dir in o.values(&["--partial-dir"]) {
        // Relative to each file's own directory: with `..` in it, where it
        // lands depends on the depth.
        if recursive && dir.text.split('/').any(|c| c == "..") && !dir.text.starts_with('/') {
            d.unknowns.push(format!(
                "`rsync --partial-dir={}` is relative to every directory of the copy",
                dir.text
            ));
        }
        beneath_dest(d, dir, Access::WriteDir);
    }
    for dir in o.values(&["--compare-dest", "--copy-dest", "--link-dest"]) {
        beneath_dest(d, dir, Access::Read);
    }
    for dir in o.values(&["--link-dest"]) {
        beneath_dest(d, dir, Access::WriteDir);
    }
}

/// The directories a relative rsync option directory may be taken from:
/// the destination, and (when it may be a single file) its parent.
fn rsync_dest_dirs(dest: &Arg) -> Vec<Arg> {
    let t = dest.text.trim_end_matches('/');
    let t = if t.is_empty() && dest.text.starts_with('/') {
        "/"
    } else if t.is_empty() {
        "."
    } else {
        t
    };
    let mut out = vec![dest.with_text(t)];
    if !(dest.text.ends_with('/') || matches!(t, "." | ".." | "/")) {
        let parent = match t.rsplit_once('/') {
            Some(("", _)) => "/",
            Some((p, _)) => p,
            None => ".",
        };
        out.push(dest.with_text(parent));
    }
    out
}

/// `dir` taken from `base`, as rsync takes a relative option directory.
fn rsync_join(base: &Arg, dir: &Arg) -> Arg {
    if dir.text.starts_with('/') {
        return dir.clone();
    }
    let text = match base.text.as_str() {
        "." => dir.text.clone(),
        "/" => format!("/{}", dir.text),
        b => format!("{b}/{}", dir.text),
    };
    Arg {
        literal: base.literal && dir.literal,
        ..dir.with_text(text)
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
            "-o" | "--output" | "--hex-dump" => d.add_by_option(Access::Write, v, false),
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
                    d.add_by_option(Access::Write, &a.with_text(v), false)
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

    /// The keyword and words of one `-o` line, as OpenSSH reads them.
    fn line(text: &str) -> Option<(String, Vec<String>)> {
        match ssh_config_line(text) {
            SshLine::Set { keyword, words, .. } => Some((keyword, words.unwrap_or_default())),
            SshLine::Nothing => None,
        }
    }

    #[test]
    fn ssh_lines_are_split_as_openssh_splits_them() {
        let kw = |t: &str| line(t).map(|(k, _)| k);
        for t in [
            "ProxyCommand x",
            "proxycommand=x",
            "PROXYCOMMAND = x",
            "\"ProxyCommand\" x",
            "\"ProxyCommand\"=x",
            "Proxy\"Command\" x",
            " ProxyCommand x",
            "=ProxyCommand x",
            "ProxyCommand\tx  ",
        ] {
            assert_eq!(kw(t).as_deref(), Some("proxycommand"), "{t}");
        }
        // `"Proxy"Command` is the keyword `proxy`, followed by words.
        assert_eq!(kw("\"Proxy\"Command x").as_deref(), Some("proxy"));
        // Nothing after the keyword, an unclosed quote, a comment: nothing.
        for t in ["ProxyCommand", "\"ProxyCommand x", "# x y", ""] {
            assert_eq!(kw(t), None, "{t}");
        }
        // One `=` is skipped after an unquoted keyword, none after a
        // quoted one; words lose their quotes.
        assert_eq!(line("HostName==h").map(|l| l.1), Some(vec!["=h".into()]));
        assert_eq!(line("\"HostName\"=h").map(|l| l.1), Some(vec!["=h".into()]));
        assert_eq!(
            line("HostName 'e'\"v\"il.com # c").map(|l| l.1),
            Some(vec!["evil.com".into()])
        );
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

//! Commands that fetch URLs: curl, wget, httpie, with the local files
//! their options read and write, and URLs found in words. (ssh, scp,
//! sftp, rsync and the socket tools are in `remote`.)

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
            "-F" | "--form" => {
                curl_form_files(v, d);
                None
            }
            _ => None,
        };
        if let Some(f) = file {
            d.add(Access::Read, &v.with_text(f), false);
        }
        if matches!(n.as_str(), "-K" | "--config") {
            d.unknowns
                .push("`curl` reads more options from a file".into());
        }
        curl_option_files(n, v, d);
    }
    // The protocol a URL written without a scheme is fetched with, and the
    // protocols a redirect may switch to: `file` reads or (with `-T`)
    // writes any file (`--proto-default file localhost/etc/x`,
    // `--proto-redir all`). Only the web's own protocols are followed.
    for (n, v) in &o.opts {
        let (true, Some(v)) = (matches!(n.as_str(), "--proto-default" | "--proto-redir"), v) else {
            continue;
        };
        let web = |p: &str| matches!(p.to_ascii_lowercase().as_str(), "http" | "https");
        let safe = v.literal
            && if n == "--proto-default" {
                web(&v.text)
            } else {
                v.text.split(',').all(|t| match t.strip_prefix('-') {
                    Some(_) => true,
                    None => web(t.trim_start_matches(['+', '='])),
                })
            };
        if !safe {
            d.unknowns.push(format!(
                "`curl {n} {}` lets a URL reach other protocols than the web's (`file:` reads and writes files)",
                v.text
            ));
        }
    }
    if o.has(&["-n", "--netrc", "--netrc-optional"]) && !o.has(&["--netrc-file"]) {
        d.add(Access::Read, &Arg::lit("~/.netrc"), false);
    }
    // Where curl connects besides the URL's host: a proxy, or a host that
    // `--connect-to` or `--resolve` puts in the URL host's place.
    for (n, v) in &o.opts {
        let Some(v) = v else { continue };
        let target = match n.as_str() {
            "-x" | "--proxy" | "--proxy1.0" | "--preproxy" | "--socks4" | "--socks4a"
            | "--socks5" | "--socks5-hostname" => Some(if v.text.contains("://") {
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
    // `--expand-OPTION` puts `{{variables}}` (from the environment, or
    // files `--variable` reads) into OPTION's value: a file written or a
    // host reached that is not known here.
    for a in args.iter().filter(|a| a.text.starts_with("--expand-")) {
        d.unknowns.push(format!(
            "`curl {}` takes its value from variables, not known here",
            a.text
        ));
    }
    // `--url @FILE` (curl 8.13) fetches the URLs FILE lists, each saved
    // under its own name (`-O`): hosts and files not known here.
    let (listed, given): (Vec<&Arg>, Vec<&Arg>) =
        o.values(&["--url"]).partition(|u| u.text.starts_with('@'));
    for u in listed {
        let file = &u.text[1..];
        if file != "-" {
            d.add(Access::Read, &u.with_text(file), false);
        }
        d.unknowns.push(format!(
            "`curl --url {}` fetches the URLs a file lists, and saves each under its own name",
            u.text
        ));
    }
    let remote_name = o.has(&["-O", "--remote-name", "--remote-name-all"]);
    let mut urls: Vec<&Arg> = o.operands.iter().collect();
    urls.extend(given);
    curl_globs(&o, &urls, d);
    for u in o.operands.iter() {
        d.add(Access::Fetch, u, false);
    }
    // A `file:` URL is a local file: read, or written by an upload.
    let uploads = o.has(&["-T", "--upload-file"]);
    for u in &urls {
        if let Some(path) = file_url_path(&u.text) {
            let access = if uploads { Access::Write } else { Access::Read };
            d.add(access, &u.with_text(path), false);
        }
    }
    // `-J` takes the name the server gives: any file of the directory.
    if remote_name && o.has(&["-J", "--remote-header-name"]) {
        let dir = o.values(&["--output-dir"]).next().cloned();
        d.add(
            Access::WriteDir,
            &dir.unwrap_or_else(|| Arg::lit(".")),
            true,
        );
    }
    if remote_name {
        let dir = o.values(&["--output-dir"]).next().map(|a| a.text.clone());
        for u in urls {
            let base = basename_of_url(&u.text);
            let literal = u.literal && !base.is_empty();
            write_in(d, dir.as_deref(), &base, literal);
        }
    }
}

/// The files one `-F`/`--form` value reads, as curl's `formparse` takes it
/// apart (tool_formparse.c): `name=@a,b` uploads every file of the
/// comma-separated list, each maybe `"quoted"` (with `\"` and `\\`
/// escapes) and followed by `;type=`, `;filename=`, `;encoder=` or
/// `;headers=@FILE` (headers read from FILE); `name=<FILE` sends FILE's
/// content; a plain value or a `(` multipart may still read
/// `;headers=@FILE`. A value that is not literal cannot be split:
/// unknown. Taking the text after `=@` up to `;` as one name let `-F
/// 'f=@README.md,.env'` upload `.env`.
fn curl_form_files(v: &Arg, d: &mut Derived) {
    if !v.literal {
        d.unknowns.push(format!(
            "`curl -F {}` is not literal: the files it uploads are not known",
            v.text
        ));
        return;
    }
    let text: Vec<char> = v.text.chars().collect();
    let Some(eq) = text.iter().position(|c| *c == '=') else {
        return;
    };
    let name_empty = eq == 0;
    let contents: String = text[eq + 1..].iter().collect();
    let mut files = Vec::new();
    let mut headers = Vec::new();
    let c: Vec<char> = contents.chars().collect();
    match c.first() {
        Some('(') => {
            form_part(&c, 0, '\0', &mut headers);
        }
        _ if name_empty && contents == ")" => {}
        Some('@') => {
            let mut at = 0;
            loop {
                at += 1;
                let (data, sep, end) = form_part(&c, at, ',', &mut headers);
                files.push(data);
                at = end;
                if sep != Some(',') {
                    break;
                }
            }
        }
        Some('<') => {
            let (data, _, _) = form_part(&c, 1, '\0', &mut headers);
            files.push(data);
        }
        _ => {
            form_part(&c, 0, '\0', &mut headers);
        }
    }
    for f in files.iter().chain(&headers) {
        if f != "-" && !f.is_empty() {
            d.add(Access::Read, &v.with_text(f.as_str()), false);
        }
    }
}

/// curl's `get_param_word`: a word up to `;` or `end`, or a `"quoted"`
/// one (its `\"` and `\\` unescaped, anything after the closing quote
/// up to `;` or `end` dropped). Returns the word, whether it was quoted,
/// and where scanning stopped.
fn form_word(c: &[char], from: usize, end: char) -> (String, bool, usize) {
    let stop = |i: usize| i >= c.len() || c[i] == ';' || c[i] == end;
    if c.get(from) == Some(&'"') {
        let mut i = from + 1;
        let mut word = String::new();
        while i < c.len() {
            if c[i] == '\\' && matches!(c.get(i + 1), Some('\\' | '"')) {
                word.push(c[i + 1]);
                i += 2;
                continue;
            }
            if c[i] == '"' {
                i += 1;
                while !stop(i) {
                    i += 1;
                }
                return (word, true, i);
            }
            word.push(c[i]);
            i += 1;
        }
        // No closing quote: read as a plain word.
    }
    let mut i = from;
    while !stop(i) {
        i += 1;
    }
    (c[from..i].iter().collect(), false, i)
}

/// curl's `get_param_part`: the data word at `from` and its `;` parameters,
/// pushing the files `headers=@FILE` (or `<FILE`) names. Returns the data,
/// the character that ended the part (`None` at the end) and its index.
fn form_part(
    c: &[char],
    from: usize,
    end: char,
    headers: &mut Vec<String>,
) -> (String, Option<char>, usize) {
    let blank = |ch: Option<&char>| matches!(ch, Some(' ' | '\t'));
    let word_at = |at: usize| -> (String, usize) {
        let (w, quoted, i) = form_word(c, at, end);
        let w = if quoted {
            w
        } else {
            w.trim_end_matches([' ', '\t']).to_string()
        };
        (w, i)
    };
    let prefix = |at: usize, p: &str| -> bool {
        let have: String = c.iter().skip(at).take(p.len()).collect();
        have.eq_ignore_ascii_case(p)
    };
    let mut p = from;
    while blank(c.get(p)) {
        p += 1;
    }
    let (data, mut p) = word_at(p);
    let mut in_type = false;
    while c.get(p) == Some(&';') {
        p += 1;
        while blank(c.get(p)) {
            p += 1;
        }
        if !in_type && prefix(p, "type=") {
            p += "type=".len();
            while blank(c.get(p)) {
                p += 1;
            }
            while p < c.len() && !"()<>@,;:\\\"[]?=\r\n ".contains(c[p]) {
                p += 1;
            }
            in_type = true;
        } else if prefix(p, "headers=") {
            in_type = false;
            p += "headers=".len();
            if matches!(c.get(p), Some('@' | '<')) {
                p += 1;
                while blank(c.get(p)) {
                    p += 1;
                }
                let (file, i) = word_at(p);
                headers.push(file);
                p = i;
            } else {
                while blank(c.get(p)) {
                    p += 1;
                }
                p = word_at(p).1;
            }
        } else if prefix(p, "filename=") || prefix(p, "encoder=") {
            in_type = false;
            p += if prefix(p, "filename=") { 9 } else { 8 };
            while blank(c.get(p)) {
                p += 1;
            }
            p = word_at(p).1;
        } else if in_type {
            while p < c.len() && c[p] != ';' && c[p] != end {
                p += 1;
            }
        } else {
            p = form_word(c, p, end).2;
        }
    }
    (data, c.get(p).copied(), p)
}

/// A write of the file `name` in `dir` (the working directory without
/// one): where curl `-O` and wget save what they fetch.
fn write_in(d: &mut Derived, dir: Option<&str>, name: &str, literal: bool) {
    let text = match dir {
        Some(dir) => format!("{}/{name}", dir.trim_end_matches('/')),
        None => name.to_string(),
    };
    d.add(
        Access::Write,
        &Arg {
            literal,
            ..Arg::lit(text)
        },
        false,
    );
}

/// curl's globbing (`{a,b}`, `[1-3]`, off with `-g`) expands an upload's
/// file name as it does a URL: `-T '{.env,x}'` uploads `.env`. And `#N`
/// in an output name is what the Nth glob of the URL matched: `-o
/// 'toolgate.t#1' 'https://h/{oml,x}'` writes `toolgate.toml`. Neither
/// is known before curl runs.
fn curl_globs(o: &Opts, urls: &[&Arg], d: &mut Derived) {
    if o.has(&["-g", "--globoff"]) {
        return;
    }
    let globbed = |t: &str| t.contains(['{', '[']);
    for v in o.values(&["-T", "--upload-file"]) {
        if globbed(&v.text) {
            d.unknowns.push(format!(
                "`curl -T {}` expands `{{..}}` and `[..]` in the file name to the files it uploads",
                v.text
            ));
        }
    }
    if urls.iter().any(|u| globbed(&u.text)) {
        for v in o.values(&["-o", "--output"]) {
            let numbered = v
                .text
                .as_bytes()
                .windows(2)
                .any(|w| w[0] == b'#' && w[1].is_ascii_digit());
            if numbered {
                d.unknowns.push(format!(
                    "`curl -o {}` names the file after what a glob of the URL matches",
                    v.text
                ));
            }
        }
    }
}

/// The files curl's options read or write beyond [`Spec::file_opts`]:
/// `-w @FILE` reads the format, `%output{FILE}` in it writes; `-b FILE`
/// (no `=`), `-H @FILE`, `--variable NAME@FILE`, `--url-query NAME@FILE`
/// read; `--hsts` and `--alt-svc` caches are read and written;
/// `--unix-socket` connects to a local socket instead of the URL's host;
/// `--capath` reads a directory of certificates.
fn curl_option_files(n: &str, v: &Arg, d: &mut Derived) {
    let t = v.text.as_str();
    let read_at = |d: &mut Derived, f: &str| {
        if f != "-" {
            d.add(Access::Read, &v.with_text(f), false);
        }
    };
    match n {
        "-w" | "--write-out" => {
            if let Some(f) = t.strip_prefix('@') {
                read_at(d, f);
            }
            let mut rest = t;
            while let Some(i) = rest.find("%output{") {
                let after = &rest[i + "%output{".len()..];
                let end = after.find('}').unwrap_or(after.len());
                let file = after[..end].trim_start_matches(">>");
                d.add_by_option(Access::Write, &v.with_text(file), false);
                rest = &after[end..];
            }
            if !v.literal {
                d.unknowns
                    .push(format!("`curl -w {t}` may read or write a file"));
            }
        }
        "-b" | "--cookie" if !t.contains('=') => {
            read_at(d, t);
            if let Some(f) = t.strip_prefix('@') {
                read_at(d, f);
            }
        }
        // A directory of certificates, each read by its hash's name.
        "--capath" | "--proxy-capath" => d.add(Access::Read, v, true),
        "-H" | "--header" | "--proxy-header" => {
            if let Some(f) = t.strip_prefix('@') {
                read_at(d, f);
            }
        }
        "--variable" | "--url-query" => {
            let t = t.strip_prefix('%').unwrap_or(t);
            if let Some((before, f)) = t.split_once('@') {
                if !before.contains('=') {
                    read_at(d, f);
                }
            }
        }
        "--hsts" | "--alt-svc" | "--ssl-sessions" => {
            d.add(Access::Read, v, false);
            d.add(Access::Write, v, false);
        }
        "--pinnedpubkey" | "--proxy-pinnedpubkey" if !t.starts_with("sha256//") => {
            d.add(Access::Read, v, false);
        }
        "--unix-socket" => {
            d.unknowns.push(format!(
                "`curl --unix-socket {t}` connects to a local socket, not to the URL's host"
            ));
        }
        "--engine" if t != "list" => d
            .unknowns
            .push(format!("`curl --engine {t}` loads a crypto engine library")),
        "--abstract-unix-socket" => d.unknowns.push(format!(
            "`curl --abstract-unix-socket {t}` connects to a local socket, not to the URL's host"
        )),
        _ => {}
    }
}

/// The local path of a `file:` URL (`file:///p`, `file://localhost/p`,
/// `file:/p`), as curl and git read it.
pub(super) fn file_url_path(url: &str) -> Option<String> {
    let scheme = url.get(..5)?;
    if !scheme.eq_ignore_ascii_case("file:") {
        return None;
    }
    let rest = &url[5..];
    let path = match rest.strip_prefix("//") {
        Some(r) => {
            let slash = r.find('/')?;
            let host = &r[..slash];
            if !(host.is_empty() || host.eq_ignore_ascii_case("localhost")) {
                return None;
            }
            &r[slash..]
        }
        None => rest,
    };
    let path = path.split(['?', '#']).next().unwrap_or(path);
    path.starts_with('/').then(|| percent_decoded(path))
}

fn percent_decoded(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' {
            if let (Some(h), Some(l)) = (
                b.get(i + 1).and_then(|c| hex(*c)),
                b.get(i + 2).and_then(|c| hex(*c)),
            ) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(super) fn wget(spec: &Spec, args: &[Arg], d: &mut Derived) {
    // `-n` takes the letters after it (`-nH`, `-nd`, `-np`, `-nv`): they are
    // not `-H` (span hosts) or `-p` (page requisites).
    let short = format!("{}n", spec.short_args);
    let o = parse_opts(args, &short, spec.long_args, spec.file_opts);
    for (n, v) in &o.opts {
        let Some(v) = v else { continue };
        if matches!(n.as_str(), "-O" | "--output-document") && v.text == "-" {
            continue;
        }
        if let Some((_, access)) = spec.file_opts.iter().find(|(f, _)| f == n) {
            // `--ca-directory`: certificates read from the directory.
            let beneath = *access == Access::WriteDir || n == "--ca-directory";
            d.add(*access, v, beneath);
        }
        if matches!(n.as_str(), "-e" | "--execute") && !harmless_wgetrc(v) {
            d.unknowns.push(format!(
                "`wget -e {}` runs a wgetrc command, which can run a program or name files",
                v.text
            ));
        }
        if matches!(n.as_str(), "--config") {
            d.unknowns
                .push("`wget --config` reads wgetrc commands from a file".into());
        }
        if n == "--hsts-file" {
            d.add(Access::Read, v, false);
            d.add(Access::Write, v, false);
        }
        if matches!(n.as_str(), "-i" | "--input-file") {
            d.unknowns
                .push("`wget -i` fetches URLs listed in a file".into());
        }
    }
    // `lowercase` and `uppercase` change the case of the names saved:
    // `/TOOLGATE.TOML` becomes the policy file.
    for v in o.values(&["--restrict-file-names"]) {
        let known = v.literal
            && v.text
                .split(',')
                .all(|m| matches!(m, "unix" | "windows" | "nocontrol" | "ascii"));
        if !known {
            d.unknowns.push(format!(
                "`wget --restrict-file-names={}` changes the names of the files it saves",
                v.text
            ));
        }
    }
    if o.has(&["--use-askpass"]) {
        d.unknowns
            .push("`wget --use-askpass` runs a program for the password".into());
    }
    each(d, Access::Fetch, &o.operands, false);
    let prefix = o
        .values(&["-P", "--directory-prefix"])
        .next()
        .map(|a| a.text.clone());
    // Directories made from the host and path, or a name the server
    // chooses: anything beneath the prefix.
    let no_dirs = o.has(&["--no-directories"]) || o.values(&["-n"]).any(|v| v.text.contains('d'));
    let server_named = o.has(&[
        "-x",
        "--force-directories",
        "--protocol-directories",
        "--content-disposition",
        "--trust-server-names",
        "--metalink-over-http",
    ]) || o.has(&["--cut-dirs"]) && !no_dirs;
    // Recursion and page requisites (`-p`: the images, styles and scripts
    // a page names) save files under the names the pages give, anywhere
    // beneath the prefix: `<img src="/toolgate.toml">` replaced the policy.
    let follows = o.has(&[
        "-r",
        "--recursive",
        "-m",
        "--mirror",
        "-p",
        "--page-requisites",
    ]);
    // Following links to other hosts: where it connects is not known.
    if follows && o.has(&["-H", "--span-hosts"]) {
        d.unknowns.push(
            "`wget -H` follows the links of what it fetches to other hosts, which are not known here"
                .into(),
        );
    }
    if o.has(&["-b", "--background"]) && !o.has(&["-o", "--output-file", "-a", "--append-output"]) {
        d.add(Access::Write, &Arg::lit("wget-log"), false);
        d.add(Access::Write, &Arg::lit("wget-log.1"), false);
    }
    if follows || server_named && !o.has(&["-O", "--output-document"]) {
        let dir = Arg::lit(prefix.unwrap_or_else(|| ".".into()));
        d.add(Access::WriteDir, &dir, true);
    } else if !o.has(&["-O", "--output-document", "--spider"]) {
        // A URL ending in `/` is saved as `--default-page`'s name.
        let default_page = o.values(&["--default-page"]).last();
        // `-E` adds `.html` (or `.css`) to a name that lacks it.
        let adjusted = o.has(&["-E", "--adjust-extension", "--html-extension"]);
        for u in &o.operands {
            let base = wget_file_name(&basename_of_url(&u.text));
            let (base, literal) = match (base.is_empty(), default_page) {
                (true, Some(page)) => (page.text.clone(), u.literal && page.literal),
                (true, None) => ("index.html".to_string(), u.literal),
                (false, _) => (base, u.literal),
            };
            let mut names = vec![base.clone()];
            // `-K` keeps the file as it was before `-k` converted its links.
            if o.has(&["-K", "--backup-converted"]) {
                names.push(format!("{base}.orig"));
            }
            if adjusted {
                names.push(format!("{base}.html"));
                names.push(format!("{base}.css"));
            }
            for name in names {
                write_in(d, prefix.as_deref(), &name, literal);
            }
        }
    }
    // `--warc-file=NAME` writes NAME.warc.gz (NAME.warc uncompressed) and,
    // with `--warc-cdx`, NAME.cdx.
    for name in o.values(&["--warc-file"]) {
        for ext in ["warc.gz", "warc", "cdx"] {
            d.add(
                Access::Write,
                &name.with_text(format!("{}.{ext}", name.text)),
                false,
            );
        }
    }
}

/// The name wget saves a URL's last path segment under: percent escapes
/// decoded (`/%74oolgate.toml` is saved as `toolgate.toml`), then `/` and
/// control characters escaped again, as wget's `append_uri_pathel` does
/// for `--restrict-file-names=unix`. (curl `-O` keeps the escapes.)
fn wget_file_name(base: &str) -> String {
    let decoded = percent_decoded(base);
    let mut out = String::new();
    for c in decoded.chars() {
        if c == '/' || c.is_control() {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// A wgetrc command given with `-e` that names no file, program or host
/// and changes neither which files are saved nor under what names
/// (`robots=off`, `tries=3`, `check_certificate=off`, which trusts the
/// connection more but goes to the same host); the others
/// (`use_askpass`, `output_document`, `http_proxy`, `input`, `post_file`,
/// `dir_prefix`, `page_requisites`, `recursive`, `span_hosts`,
/// `adjust_extension`, `convert_links`, `iri`, ...) are unknown:
/// `-e pagerequisites=on` saved a file the server named.
fn harmless_wgetrc(v: &Arg) -> bool {
    const HARMLESS: &[&str] = &[
        "robots",
        "tries",
        "timeout",
        "readtimeout",
        "connecttimeout",
        "dnstimeout",
        "wait",
        "waitretry",
        "randomwait",
        "useragent",
        "checkcertificate",
        "verbose",
        "quiet",
        "showprogress",
        "progress",
        "retryconnrefused",
        "maxredirect",
        "limitrate",
        "quota",
        "noparent",
        "serverresponse",
        "inet4only",
        "inet6only",
        "compression",
        "cache",
    ];
    let name: String = v
        .text
        .split('=')
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' ' | '\t'))
        .flat_map(char::to_lowercase)
        .collect();
    v.literal && v.text.contains('=') && HARMLESS.contains(&name.as_str())
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

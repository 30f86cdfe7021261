//! fetch_url against a small HTTP server on 127.0.0.1 that the test starts.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use toolgate_tools::{Body, FetchOptions, ToolError, fetch_url};

/// What the server does with one connection.
enum Reply {
    /// Writes these bytes as the whole response.
    Bytes(Vec<u8>),
    /// Reads the request and answers nothing for this long.
    Silence(Duration),
}

fn response(status: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
    let mut out = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("Connection: close\r\n\r\n");
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(body);
    Reply::Bytes(bytes)
}

/// Serves `replies` in order, one per connection; after each connection it
/// waits at most `linger` for another one (20 s in all at most). The
/// receiver yields the request lines seen, once the server is done.
fn serve(replies: Vec<Reply>, linger: Duration) -> (String, mpsc::Receiver<Vec<String>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        listener.set_nonblocking(true).unwrap();
        let mut seen = Vec::new();
        let mut replies = replies.into_iter();
        let mut next = replies.next();
        let mut until = Instant::now() + Duration::from_secs(20);
        while Instant::now() < until {
            let Ok((stream, _)) = listener.accept() else {
                thread::sleep(Duration::from_millis(10));
                continue;
            };
            stream.set_nonblocking(false).unwrap();
            stream
                .set_read_timeout(Some(Duration::from_secs(5)))
                .unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            seen.push(line.trim_end().to_string());
            loop {
                let mut header = String::new();
                match reader.read_line(&mut header) {
                    Ok(0) | Err(_) => break,
                    Ok(_) if header == "\r\n" => break,
                    Ok(_) => {}
                }
            }
            let mut stream = stream;
            match next.take() {
                Some(Reply::Bytes(bytes)) => {
                    // The client may hang up early (size cap): ignore errors.
                    let _ = stream.write_all(&bytes);
                }
                Some(Reply::Silence(d)) => thread::sleep(d),
                None => {}
            }
            next = replies.next();
            until = until.min(Instant::now() + linger);
        }
        let _ = tx.send(seen);
    });
    (base, rx)
}

fn opts() -> FetchOptions {
    FetchOptions {
        use_env_proxy: false,
        ..FetchOptions::default()
    }
}

fn requests(rx: mpsc::Receiver<Vec<String>>) -> Vec<String> {
    rx.recv_timeout(Duration::from_secs(30))
        .expect("server finished")
}

#[test]
fn text_comes_back_with_status_and_type() {
    let (base, rx) = serve(
        vec![response(
            "200 OK",
            &[("Content-Type", "text/plain; charset=utf-8")],
            b"hello, world\n",
        )],
        Duration::ZERO,
    );
    let out = fetch_url(&format!("{base}/hello?x=1"), &opts()).unwrap();
    assert_eq!(out.status, 200);
    assert!(out.success());
    assert_eq!(
        out.content_type.as_deref(),
        Some("text/plain; charset=utf-8")
    );
    assert_eq!(out.body, Body::Text("hello, world\n".into()));
    assert!(!out.truncated);
    assert_eq!(requests(rx), ["GET /hello?x=1 HTTP/1.1"]);
}

#[test]
fn error_statuses_are_results() {
    let (base, _rx) = serve(
        vec![response(
            "404 Not Found",
            &[("Content-Type", "text/html")],
            b"<h1>no</h1>",
        )],
        Duration::ZERO,
    );
    let out = fetch_url(&format!("{base}/missing"), &opts()).unwrap();
    assert_eq!(out.status, 404);
    assert!(!out.success());
    assert_eq!(out.body.as_text(), Some("<h1>no</h1>"));
}

#[test]
fn binary_bodies_are_summarised() {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.extend([0u8; 100]);
    let (base, _rx) = serve(
        vec![response("200 OK", &[("Content-Type", "image/png")], &png)],
        Duration::ZERO,
    );
    let out = fetch_url(&format!("{base}/img.png"), &opts()).unwrap();
    assert_eq!(
        out.body,
        Body::Binary {
            kind: "PNG image".into(),
            len: 108
        }
    );
    assert!(out.to_string().contains("binary content"));
}

#[test]
fn bodies_are_cut_at_the_size_cap() {
    let big = vec![b'a'; 3_000_000];
    let (base, _rx) = serve(
        vec![response("200 OK", &[("Content-Type", "text/plain")], &big)],
        Duration::ZERO,
    );
    let limited = FetchOptions {
        max_body_bytes: 1000,
        ..opts()
    };
    let out = fetch_url(&format!("{base}/big"), &limited).unwrap();
    assert!(out.truncated);
    assert_eq!(out.content_length, Some(3_000_000));
    assert_eq!(out.body.as_text().map(str::len), Some(1000));
    assert!(out.to_string().contains("3000000 bytes in all"));
}

#[test]
fn redirects_are_returned_not_followed() {
    let (base, rx) = serve(
        vec![
            response("302 Found", &[("Location", "/elsewhere")], b""),
            response("200 OK", &[("Content-Type", "text/plain")], b"followed"),
        ],
        Duration::from_millis(500),
    );
    let out = fetch_url(&format!("{base}/start"), &opts()).unwrap();
    assert_eq!(out.status, 302);
    assert_eq!(out.location.as_deref(), Some("/elsewhere"));
    assert!(out.is_redirect());
    assert!(out.to_string().contains("not followed"));
    // Give the server time to see a second request, were one made.
    thread::sleep(Duration::from_millis(500));
    assert_eq!(requests(rx), ["GET /start HTTP/1.1"]);
}

#[test]
fn a_server_that_never_answers_times_out() {
    let (base, _rx) = serve(vec![Reply::Silence(Duration::from_secs(8))], Duration::ZERO);
    let quick = FetchOptions {
        timeout: Duration::from_secs(1),
        ..opts()
    };
    let started = Instant::now();
    let e = fetch_url(&format!("{base}/slow"), &quick).unwrap_err();
    assert!(matches!(e, ToolError::FetchTimeout { .. }), "{e:?}");
    assert!(
        started.elapsed() < Duration::from_secs(7),
        "the timeout did not fire"
    );
}

#[test]
fn a_closed_port_is_a_fetch_error() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let e = fetch_url(&format!("http://127.0.0.1:{port}/"), &opts()).unwrap_err();
    assert!(matches!(e, ToolError::Fetch { .. }), "{e:?}");
}

#[test]
fn only_http_and_https_urls_are_fetched() {
    for url in [
        "file:///etc/passwd",
        "ftp://127.0.0.1/x",
        "gopher://127.0.0.1/",
        "127.0.0.1:8080/x",
        "example.com/path",
        "http://",
        "not a url",
    ] {
        let e = fetch_url(url, &opts()).unwrap_err();
        assert!(matches!(e, ToolError::BadUrl { .. }), "{url}: {e:?}");
    }
}

/// An address check backed by a real policy: the call `fetch_url(url)`
/// decided again with the addresses its host resolved to. The addresses
/// the check saw are recorded.
fn policy_check(
    rules: &str,
) -> (
    tempfile::TempDir,
    toolgate_tools::AddrCheck,
    std::sync::Arc<std::sync::Mutex<Vec<std::net::IpAddr>>>,
) {
    use std::sync::{Arc, Mutex};
    let dir = tempfile::tempdir().unwrap();
    let policy = toolgate_policy::Policy::from_toml(
        rules,
        &dir.path().join("toolgate.toml"),
        &toolgate_policy::LoadOptions::default(),
    )
    .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    let check = toolgate_tools::AddrCheck::new(move |url, host, addrs| {
        record.lock().unwrap().extend_from_slice(addrs);
        let call = toolgate_policy::Call::new("fetch_url", serde_json::json!({ "url": url }));
        policy
            .check_connection(&call, host, addrs, &toolgate_policy::Context::default())
            .map_err(Into::into)
    });
    (dir, check, seen)
}

/// A listener that only counts: the kernel completes a TCP handshake into
/// the backlog whether or not anyone accepts, so an empty backlog after
/// the fetch returned proves no connection was made.
fn quiet_listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

fn connections(listener: &TcpListener) -> usize {
    let mut n = 0;
    while listener.accept().is_ok() {
        n += 1;
    }
    n
}

#[test]
fn a_name_resolving_into_a_denied_block_never_connects() {
    let (listener, port) = quiet_listener();
    let (_dir, check, seen) = policy_check(
        "allow = [\"WebFetch\"]\ndeny = [\"WebFetch(ip:127.0.0.0/8)\", \"WebFetch(ip:::1/128)\"]\n",
    );
    let opts = FetchOptions {
        addr_check: Some(check),
        ..opts()
    };
    let err = fetch_url(&format!("http://localhost:{port}/x"), &opts).unwrap_err();
    match &err {
        ToolError::Fetch { reason, .. } => {
            assert!(reason.contains("refused before connecting"), "{reason}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert!(
        seen.lock().unwrap().contains(&"127.0.0.1".parse().unwrap()),
        "localhost resolved to {:?}",
        seen.lock().unwrap()
    );
    assert_eq!(connections(&listener), 0, "the listener saw a connection");
}

#[test]
fn a_denied_address_literal_in_any_spelling_never_connects() {
    let (listener, port) = quiet_listener();
    let (_dir, check, _seen) =
        policy_check("allow = [\"WebFetch\"]\ndeny = [\"WebFetch(domain:127.0.0.1)\"]\n");
    let opts = FetchOptions {
        addr_check: Some(check),
        ..opts()
    };
    for url in [
        format!("http://127.0.0.1:{port}/"),
        format!("http://2130706433:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
    ] {
        assert!(fetch_url(&url, &opts).is_err(), "{url}");
    }
    assert_eq!(connections(&listener), 0, "the listener saw a connection");
}

#[test]
fn an_allowed_name_connects_to_the_address_decided_on() {
    let (base, rx) = serve(
        vec![response("200 OK", &[("Content-Type", "text/plain")], b"ok")],
        Duration::ZERO,
    );
    let port = base.rsplit(':').next().unwrap().to_string();
    let (_dir, check, seen) =
        policy_check("allow = [\"WebFetch\"]\ndeny = [\"WebFetch(ip:10.0.0.0/8)\"]\n");
    let opts = FetchOptions {
        addr_check: Some(check),
        ..opts()
    };
    let out = fetch_url(&format!("http://localhost:{port}/hello"), &opts).unwrap();
    assert_eq!(out.status, 200);
    assert_eq!(out.body, Body::Text("ok".into()));
    assert!(seen.lock().unwrap().contains(&"127.0.0.1".parse().unwrap()));
    assert_eq!(requests(rx), ["GET /hello HTTP/1.1"]);
}

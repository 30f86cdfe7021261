//! Connection limits, over real TCP on 127.0.0.1: a client that trickles
//! its request head is dropped within the header timeout, and connections
//! beyond the limit are refused instead of held.

use crate::support;

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use toolgate_policy::Notify;

use support::{Fixture, eventually};

/// Reads until the server closes the connection (EOF or reset) or
/// `within` passes; what it sent, and whether it closed.
fn closed_within(s: &mut TcpStream, within: Duration) -> (String, bool) {
    let deadline = Instant::now() + within;
    let mut got = Vec::new();
    let mut buf = [0u8; 512];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return (String::from_utf8_lossy(&got).into_owned(), false);
        }
        s.set_read_timeout(Some(left)).unwrap();
        match s.read(&mut buf) {
            Ok(0) => return (String::from_utf8_lossy(&got).into_owned(), true),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return (String::from_utf8_lossy(&got).into_owned(), false);
            }
            Err(_) => return (String::from_utf8_lossy(&got).into_owned(), true),
        }
    }
}

#[test]
fn a_connection_that_trickles_its_request_head_is_closed_within_the_timeout() {
    let f = Fixture::with_config(Notify::default(), |c| {
        c.header_timeout = Duration::from_secs(1);
    });
    // Half a request line, then nothing.
    let mut s = TcpStream::connect(f.host()).unwrap();
    let start = Instant::now();
    s.write_all(b"GET /api/sess").unwrap();
    let (_, closed) = closed_within(&mut s, Duration::from_secs(8));
    assert!(closed, "still open after {:?}", start.elapsed());
    assert!(
        start.elapsed() < Duration::from_secs(6),
        "{:?}",
        start.elapsed()
    );

    // A byte every 200 ms: progress does not extend the bound. At most
    // 40 bytes (8 s); the server must close it long before.
    let mut s = TcpStream::connect(f.host()).unwrap();
    let start = Instant::now();
    let head = b"GET /api/session HTTP/1.1\r\nhost: x\r\nx-slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let mut closed = false;
    for b in head.iter().take(40) {
        if s.write_all(&[*b]).is_err() {
            closed = true;
            break;
        }
        let (_, c) = closed_within(&mut s, Duration::from_millis(200));
        if c {
            closed = true;
            break;
        }
    }
    assert!(closed, "a trickling client was kept {:?}", start.elapsed());
    assert!(
        start.elapsed() < Duration::from_secs(6),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn connections_beyond_the_limit_are_refused_and_a_freed_slot_serves_again() {
    const LIMIT: usize = 4;
    let f = Fixture::with_config(Notify::default(), |c| {
        c.max_connections = LIMIT;
        c.header_timeout = Duration::from_secs(30);
    });
    let mut idle: Vec<TcpStream> = (0..LIMIT)
        .map(|_| {
            let mut s = TcpStream::connect(f.host()).unwrap();
            s.write_all(b"GET /").unwrap();
            s
        })
        .collect();
    // Every idle one is accepted and holds its slot: the next is told
    // 503 and closed at once, not kept waiting.
    std::thread::sleep(Duration::from_millis(300));
    let mut extra = TcpStream::connect(f.host()).unwrap();
    let start = Instant::now();
    let (said, closed) = closed_within(&mut extra, Duration::from_secs(5));
    assert!(closed, "the connection beyond the limit was held open");
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    assert!(
        said.is_empty() || said.starts_with("HTTP/1.1 503"),
        "{said}"
    );
    // The idle ones are still open (the limit, not a timeout, refused it).
    for s in &mut idle {
        let (_, closed) = closed_within(s, Duration::from_millis(50));
        assert!(!closed);
    }
    // One goes away: its slot serves the next request.
    drop(idle.pop());
    eventually(5, "a freed slot", || {
        let Ok(mut s) = TcpStream::connect(f.host()) else {
            return false;
        };
        let req = format!(
            "GET /api/session HTTP/1.1\r\nhost: {}\r\nauthorization: {}\r\nconnection: close\r\n\r\n",
            f.host(),
            f.bearer()
        );
        if s.write_all(req.as_bytes()).is_err() {
            return false;
        }
        let (said, _) = closed_within(&mut s, Duration::from_secs(3));
        said.starts_with("HTTP/1.1 200")
    });
}

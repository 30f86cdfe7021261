//! A minimal HTTP/1.1 server on 127.0.0.1 for fake model APIs.
//!
//! Just enough of HTTP for the Node-based clients: keep-alive connections,
//! `Content-Length` and chunked request bodies, and responses sent whole with
//! a `Content-Length` (server-sent events included: the clients parse the
//! event stream from the body whether or not it arrives in pieces). Every
//! request is recorded so that tests can inspect what the model was sent.
//!
//! The server is bounded: it stops accepting after `Limits::lifetime` or
//! `Limits::max_requests`, and stops altogether when dropped.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One request as received.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The request target, query string included.
    pub path: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The status the server answered with (0 until answered).
    pub status: u16,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON, when it is JSON.
    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The path without its query string.
    pub fn route(&self) -> &str {
        self.path.split('?').next().unwrap_or("")
    }
}

/// A response, sent whole.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Response {
    pub fn json(status: u16, value: &serde_json::Value) -> Response {
        Response {
            status,
            content_type: "application/json",
            body: value.to_string().into_bytes(),
        }
    }

    pub fn event_stream(body: String) -> Response {
        Response {
            status: 200,
            content_type: "text/event-stream",
            body: body.into_bytes(),
        }
    }
}

/// How long and how much a server may serve.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_requests: usize,
    pub lifetime: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_requests: 200,
            lifetime: Duration::from_secs(300),
        }
    }
}

type Handler = dyn Fn(&Request) -> Response + Send + Sync;

struct Shared {
    handler: Box<Handler>,
    requests: Mutex<Vec<Request>>,
    served: AtomicUsize,
    stop: AtomicBool,
    limits: Limits,
    started: Instant,
}

impl Shared {
    fn done(&self) -> bool {
        self.stop.load(Ordering::SeqCst) || self.started.elapsed() > self.limits.lifetime
    }
}

/// A running server; stops when dropped.
pub struct Server {
    addr: SocketAddr,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    pub fn start(
        limits: Limits,
        handler: impl Fn(&Request) -> Response + Send + Sync + 'static,
    ) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let addr = listener.local_addr().expect("local address");
        let shared = Arc::new(Shared {
            handler: Box::new(handler),
            requests: Mutex::new(Vec::new()),
            served: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            limits,
            started: Instant::now(),
        });
        let accept_shared = Arc::clone(&shared);
        let thread = std::thread::spawn(move || accept_loop(listener, accept_shared));
        Server {
            addr,
            shared,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request received so far, in order of arrival.
    pub fn requests(&self) -> Vec<Request> {
        self.shared
            .requests
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let mut connections = Vec::new();
    while !shared.done() {
        match listener.accept() {
            Ok((stream, _)) => {
                let shared = Arc::clone(&shared);
                connections.push(std::thread::spawn(move || serve(stream, &shared)));
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(5))
            }
            Err(_) => break,
        }
    }
    shared.stop.store(true, Ordering::SeqCst);
    for connection in connections {
        let _ = connection.join();
    }
}

fn serve(mut stream: TcpStream, shared: &Shared) {
    if stream.set_nonblocking(false).is_err()
        || stream
            .set_read_timeout(Some(Duration::from_millis(100)))
            .is_err()
    {
        return;
    }
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        match parse(&buffer) {
            Err(message) => {
                let _ = write(
                    &mut stream,
                    "GET",
                    &Response::json(400, &serde_json::json!({ "error": message })),
                );
                return;
            }
            Ok(Some((request, used))) => {
                buffer.drain(..used);
                let response =
                    if shared.served.fetch_add(1, Ordering::SeqCst) >= shared.limits.max_requests {
                        Response::json(503, &serde_json::json!({"error": "request limit reached"}))
                    } else {
                        (shared.handler)(&request)
                    };
                let method = request.method.clone();
                let mut request = request;
                request.status = response.status;
                if let Ok(mut requests) = shared.requests.lock() {
                    requests.push(request);
                }
                if write(&mut stream, &method, &response).is_err() {
                    return;
                }
                continue;
            }
            Ok(None) => {}
        }
        if shared.done() {
            return;
        }
        match stream.read(&mut chunk) {
            Ok(0) => return,
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) => {}
            Err(_) => return,
        }
    }
}

fn write(stream: &mut TcpStream, method: &str, response: &Response) -> std::io::Result<()> {
    let reason = match response.status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        503 => "Service Unavailable",
        _ => "Status",
    };
    let head = format!(
        "HTTP/1.1 {} {reason}\r\ncontent-type: {}\r\ncontent-length: {}\r\nconnection: keep-alive\r\n\r\n",
        response.status,
        response.content_type,
        response.body.len()
    );
    stream.write_all(head.as_bytes())?;
    if method != "HEAD" {
        stream.write_all(&response.body)?;
    }
    stream.flush()
}

/// A complete request at the start of `buffer` and the bytes it took, or
/// `None` when more bytes are needed.
fn parse(buffer: &[u8]) -> Result<Option<(Request, usize)>, String> {
    let Some(head_end) = find(buffer, b"\r\n\r\n") else {
        return if buffer.len() > 64 * 1024 {
            Err("request head too large".into())
        } else {
            Ok(None)
        };
    };
    let head = std::str::from_utf8(&buffer[..head_end]).map_err(|_| "request head is not UTF-8")?;
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap_or("").split(' ');
    let method = request_line.next().unwrap_or("").to_owned();
    let path = request_line.next().unwrap_or("").to_owned();
    if method.is_empty() || path.is_empty() {
        return Err(format!("bad request line `{head}`"));
    }
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let body_start = head_end + 4;
    let rest = &buffer[body_start..];
    let (body, body_len) =
        if header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
            match dechunk(rest)? {
                Some(done) => done,
                None => return Ok(None),
            }
        } else {
            let length: usize = header("content-length")
                .map(|v| v.parse().map_err(|_| format!("bad content-length `{v}`")))
                .transpose()?
                .unwrap_or(0);
            if rest.len() < length {
                return Ok(None);
            }
            (rest[..length].to_vec(), length)
        };
    Ok(Some((
        Request {
            method,
            path,
            headers,
            body,
            status: 0,
        },
        body_start + body_len,
    )))
}

/// Decodes a chunked body at the start of `data`: the body and the bytes it
/// took, or `None` when incomplete.
fn dechunk(data: &[u8]) -> Result<Option<(Vec<u8>, usize)>, String> {
    let mut body = Vec::new();
    let mut at = 0;
    loop {
        let Some(line_end) = find(&data[at..], b"\r\n") else {
            return Ok(None);
        };
        let size_text =
            std::str::from_utf8(&data[at..at + line_end]).map_err(|_| "bad chunk size")?;
        let size_text = size_text.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size_text, 16)
            .map_err(|_| format!("bad chunk size `{size_text}`"))?;
        at += line_end + 2;
        if size == 0 {
            // Trailers are not used by the clients; the body ends at the blank line.
            let Some(end) = find(&data[at..], b"\r\n") else {
                return Ok(None);
            };
            return Ok(Some((body, at + end + 2)));
        }
        if data.len() < at + size + 2 {
            return Ok(None);
        }
        body.extend_from_slice(&data[at..at + size]);
        at += size + 2;
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_content_length_and_chunked_bodies() {
        let plain = b"POST /x?y=1 HTTP/1.1\r\nContent-Length: 3\r\nHost: h\r\n\r\nabcGET";
        let (request, used) = parse(plain).unwrap().unwrap();
        assert_eq!(
            (
                request.method.as_str(),
                request.route(),
                request.body.as_slice()
            ),
            ("POST", "/x", &b"abc"[..])
        );
        assert_eq!(used, plain.len() - 3);
        assert!(parse(&plain[..plain.len() - 5]).unwrap().is_none());

        let chunked = b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n";
        let (request, used) = parse(chunked).unwrap().unwrap();
        assert_eq!(request.body, b"abcde");
        assert_eq!(used, chunked.len());
        assert!(parse(&chunked[..chunked.len() - 2]).unwrap().is_none());
    }
}

//! A line-level JSON check in front of rmcp's stdio transport.
//!
//! rmcp ignores a line that is not JSON at all (and answers well-formed
//! JSON of the wrong shape with -32600 itself). JSON-RPC asks for a -32700
//! parse error instead, so each line read from a peer is checked here
//! first, strictly (`toolgate_policy::json::check`): a line that does not
//! parse as JSON is answered with -32700 (id `null`) on the peer's own
//! stream and dropped; a line in which an object repeats a key, at any
//! level, is refused (see `strict.rs`: a request is answered with -32600, a
//! response is replaced by an error under its id, and the tap records it)
//! and never passed on, since the peer on the other side may read another
//! value of the key than the gateway did; every other line goes to rmcp
//! unchanged.
//!
//! Both ends are wrappers polled by rmcp's own tasks (no task or channel
//! of their own in the path of a message: every hop between threads costs
//! latency). The error replies share the writer with rmcp and are written
//! only between two of its lines, never inside one.
//!
//! A [`Tap`] may look at each line first and take it (the relay's direct
//! path for `tools/call`, see `fast.rs`); what it takes never reaches rmcp,
//! and what it writes goes through the same writer as rmcp's lines
//! ([`Lines`]), between them.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker, ready};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use toolgate_policy::json::{self, StrictJsonError};

use crate::strict::Refused;

/// Largest line accepted from a peer (rmcp's own limit is larger).
const MAX_LINE: usize = 64 * 1024 * 1024;

/// The parse error sent for a line that is not JSON.
pub const PARSE_ERROR: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON"}}"#;

/// Puts the check between a peer's byte streams and rmcp: returns the
/// reading and writing ends rmcp uses.
pub fn checked<R, W>(peer_in: R, peer_out: W) -> (CheckedRead<R, W>, SharedWrite<W>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let out = Arc::new(Mutex::new(Out {
        inner: peer_out,
        at_boundary: true,
        pending: Vec::new(),
        waiting: Vec::new(),
    }));
    (
        CheckedRead {
            inner: peer_in,
            buf: Vec::new(),
            ready: Vec::new(),
            ready_pos: 0,
            eof: false,
            skipping: false,
            max_line: MAX_LINE,
            out: Arc::clone(&out),
            tap: None,
        },
        SharedWrite { out },
    )
}

/// What a [`Tap`] made of a line.
#[derive(Debug)]
pub enum Seen {
    /// The tap took it: rmcp does not see it.
    Taken,
    /// Not a message rmcp can read as the protocol's: refused as a line
    /// that repeats a key is, never handed to rmcp (which would drop it,
    /// or answer without its id and unrecorded).
    Refused(Box<Refused>),
    /// JSON, left to rmcp.
    Json,
    /// Not looked at (or not understood): checked and left to rmcp.
    Unknown,
}

/// Looks at each line a peer sends before rmcp does.
pub trait Tap: Send + Sync {
    /// Takes the line, or leaves it to rmcp.
    fn line(&self, line: &[u8]) -> Seen;
    /// The peer's input has ended.
    fn end(&self) {}
    /// Who the peer is, in texts about its messages.
    fn peer(&self) -> &'static str {
        "peer"
    }
    /// A line refused for repeating a key. The tap records it and then
    /// writes its [reply](Refused::reply) itself; handing it back has the
    /// reply written now, unrecorded.
    fn refused(&self, refused: Refused) -> Option<Refused> {
        Some(refused)
    }
}

/// Whole lines written to a peer beside rmcp's own, each between two of
/// rmcp's lines.
pub trait Lines: Send + Sync {
    /// Queues one line (without its newline).
    fn queue(&self, line: &[u8]);
    /// Writes what is queued, as far as the peer takes it now.
    fn poll_drain(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;
}

/// Writes one line to the peer behind `lines`.
pub async fn send_line(lines: &dyn Lines, line: &[u8]) -> io::Result<()> {
    lines.queue(line);
    std::future::poll_fn(|cx| lines.poll_drain(cx)).await
}

struct Out<W> {
    inner: W,
    /// The last byte rmcp wrote ended a line (or nothing was written).
    at_boundary: bool,
    /// Lines of our own (error replies, the direct path's) waiting for a
    /// line boundary.
    pending: Vec<u8>,
    /// Writers that found the peer full. The stream wakes only the last
    /// task that polled it, so whoever writes next wakes the others.
    waiting: Vec<Waker>,
}

impl<W: AsyncWrite + Unpin> Out<W> {
    fn flush_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.at_boundary && !self.pending.is_empty() {
            let n = ready!(self.write_inner(cx, None))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.pending.drain(..n);
        }
        Poll::Ready(Ok(()))
    }

    /// One write of `buf` (or of the pending lines), keeping track of who
    /// waits for the peer.
    fn write_inner(&mut self, cx: &mut Context<'_>, buf: Option<&[u8]>) -> Poll<io::Result<usize>> {
        let r = match buf {
            Some(b) => Pin::new(&mut self.inner).poll_write(cx, b),
            None => Pin::new(&mut self.inner).poll_write(cx, &self.pending),
        };
        self.note(cx, r.is_pending());
        r
    }

    fn note(&mut self, cx: &mut Context<'_>, pending: bool) {
        if pending {
            if !self.waiting.iter().any(|w| w.will_wake(cx.waker())) {
                self.waiting.push(cx.waker().clone());
            }
        } else if !self.waiting.is_empty() {
            for w in self.waiting.drain(..) {
                if !w.will_wake(cx.waker()) {
                    w.wake();
                }
            }
        }
    }

    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.flush_pending(cx))?;
        let r = Pin::new(&mut self.inner).poll_flush(cx);
        self.note(cx, r.is_pending());
        r
    }
}

impl<W: AsyncWrite + Unpin + Send> Lines for Mutex<Out<W>> {
    fn queue(&self, line: &[u8]) {
        let mut out = lock(self);
        out.pending.extend_from_slice(line);
        out.pending.push(b'\n');
    }

    fn poll_drain(&self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        lock(self).drain(cx)
    }
}

fn lock<W>(out: &Mutex<Out<W>>) -> std::sync::MutexGuard<'_, Out<W>> {
    // Poisoned only by a panic inside a poll below, which leaves the
    // buffers consistent.
    out.lock().unwrap_or_else(|p| p.into_inner())
}

/// The writing end: rmcp's lines, with error replies between them.
pub struct SharedWrite<W> {
    out: Arc<Mutex<Out<W>>>,
}

impl<W: AsyncWrite + Unpin + Send + 'static> SharedWrite<W> {
    /// A handle for writing lines of our own to this peer.
    pub fn lines(&self) -> Arc<dyn Lines> {
        Arc::clone(&self.out) as Arc<dyn Lines>
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for SharedWrite<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let mut out = lock(&self.out);
        ready!(out.flush_pending(cx))?;
        let n = ready!(out.write_inner(cx, Some(buf)))?;
        if n > 0 {
            out.at_boundary = buf[n - 1] == b'\n';
        }
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        lock(&self.out).drain(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut out = lock(&self.out);
        ready!(out.flush_pending(cx))?;
        Pin::new(&mut out.inner).poll_shutdown(cx)
    }
}

/// The reading end: the peer's lines that are JSON.
pub struct CheckedRead<R, W> {
    inner: R,
    /// Bytes read and not yet split into lines.
    buf: Vec<u8>,
    /// Checked lines for rmcp, from `ready_pos` on.
    ready: Vec<u8>,
    ready_pos: usize,
    eof: bool,
    /// The line being read was longer than `max_line` and was dropped: the
    /// rest of it, up to its newline, is dropped too. Read as lines of
    /// their own, the tail of an over-long line would be a message its
    /// sender never wrote as one (a string's contents, say), and what
    /// cannot be read exactly is refused, not guessed at.
    skipping: bool,
    /// Largest line accepted ([`MAX_LINE`]; smaller in tests).
    max_line: usize,
    out: Arc<Mutex<Out<W>>>,
    tap: Option<Arc<dyn Tap>>,
}

impl<R, W> CheckedRead<R, W>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Sets the largest line accepted (the tests' small limit).
    #[cfg(test)]
    fn with_max_line(mut self, max_line: usize) -> Self {
        self.max_line = max_line;
        self
    }

    /// Has `tap` look at every line first.
    pub fn with_tap(mut self, tap: Arc<dyn Tap>) -> Self {
        self.tap = Some(tap);
        self
    }

    /// Checks the complete lines in `buf` (and, at the end of input, the
    /// rest), moving the good ones to `ready`. A line longer than the
    /// limit is answered with one -32700 and dropped whole, to its newline
    /// (see `skipping`), however many reads it spans.
    fn take_lines(&mut self) {
        let mut start = 0;
        while let Some(i) = self.buf[start..].iter().position(|&b| b == b'\n') {
            let end = start + i + 1;
            if self.skipping {
                // The newline that ends the dropped line: what follows is
                // the next message.
                self.skipping = false;
            } else if end - start > self.max_line + 1 {
                // Complete within one read, but longer than any message.
                self.reply();
            } else {
                self.check(start, end);
            }
            start = end;
        }
        if self.eof && start < self.buf.len() {
            let end = self.buf.len();
            if self.skipping {
                // The end of input ends the dropped line.
            } else if end - start > self.max_line {
                self.reply();
            } else {
                self.check(start, end);
            }
            start = end;
        }
        if start > 0 {
            self.buf.drain(..start);
        }
        if self.skipping {
            // Still inside the dropped line: none of it is kept.
            self.buf.clear();
        } else if self.buf.len() > self.max_line {
            // A line longer than any message: drop it whole, and the rest
            // of it as it comes.
            self.buf.clear();
            self.skipping = true;
            self.reply();
        }
    }

    fn check(&mut self, start: usize, end: usize) {
        let line = trim(&self.buf[start..end]);
        if line.is_empty() {
            return;
        }
        let refused = match json::check(line) {
            Ok(()) => match self.tap.as_ref().map(|t| t.line(line)) {
                Some(Seen::Taken) => return,
                Some(Seen::Refused(r)) => *r,
                _ => {
                    self.ready.extend_from_slice(line);
                    self.ready.push(b'\n');
                    return;
                }
            },
            Err(StrictJsonError::Syntax(_)) => return self.reply(),
            Err(why) => Refused::read(line, &why.to_string()),
        };
        self.refuse(refused);
    }

    /// Refuses a line: the request a refused answer was meant for ends
    /// with an error in its place (the tap's own, or rmcp's); the tap
    /// records it and answers a request.
    fn refuse(&mut self, refused: Refused) {
        let peer = self.tap.as_ref().map_or("peer", |t| t.peer());
        if let Some(stand_in) = refused.stand_in(peer) {
            let taken = self.tap.as_ref().is_some_and(|t| {
                !matches!(t.line(stand_in.as_bytes()), Seen::Json | Seen::Unknown)
            });
            if !taken {
                self.ready.extend_from_slice(stand_in.as_bytes());
                self.ready.push(b'\n');
            }
        }
        let unhandled = match &self.tap {
            Some(tap) => tap.refused(refused),
            None => Some(refused),
        };
        if let Some(reply) = unhandled.and_then(|r| r.reply(peer)) {
            self.queue_reply(&reply);
        }
    }

    /// Queues a -32700 reply and has it written at the next line boundary.
    fn reply(&self) {
        self.queue_reply(PARSE_ERROR);
    }

    /// Queues `line` for the peer and has it written at the next line
    /// boundary.
    fn queue_reply(&self, line: &str) {
        {
            let mut out = lock(&self.out);
            out.pending.extend_from_slice(line.as_bytes());
            out.pending.push(b'\n');
        }
        let out = Arc::clone(&self.out);
        tokio::spawn(std::future::poll_fn(move |cx| lock(&out).drain(cx)));
    }
}

impl<R, W> AsyncRead for CheckedRead<R, W>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            if this.ready_pos < this.ready.len() {
                let n = out.remaining().min(this.ready.len() - this.ready_pos);
                out.put_slice(&this.ready[this.ready_pos..this.ready_pos + n]);
                this.ready_pos += n;
                if this.ready_pos == this.ready.len() {
                    this.ready.clear();
                    this.ready_pos = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 16 * 1024];
            let mut rb = ReadBuf::new(&mut chunk);
            ready!(Pin::new(&mut this.inner).poll_read(cx, &mut rb))?;
            if rb.filled().is_empty() {
                this.eof = true;
            } else {
                this.buf.extend_from_slice(rb.filled());
            }
            this.take_lines();
            if this.eof
                && let Some(tap) = &this.tap
            {
                tap.end();
            }
        }
    }
}

fn trim(line: &[u8]) -> &[u8] {
    let mut s = line;
    while let [rest @ .., b'\n' | b'\r' | b' ' | b'\t'] = s {
        s = rest;
    }
    while let [b' ' | b'\t', rest @ ..] = s {
        s = rest;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

    /// Hands its chunks over one read at a time, as a pipe does when the
    /// sender writes a long line in parts.
    struct Chunks(Vec<Vec<u8>>);

    impl AsyncRead for Chunks {
        fn poll_read(
            mut self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            if !self.0.is_empty() {
                let chunk = self.0.remove(0);
                buf.put_slice(&chunk);
            }
            Poll::Ready(Ok(()))
        }
    }

    /// What rmcp reads and what the peer is answered, for `chunks` read
    /// with a limit of 64 bytes a line.
    async fn read_all(chunks: &[&str]) -> (String, Vec<String>) {
        let input = Chunks(chunks.iter().map(|c| c.as_bytes().to_vec()).collect());
        let (peer_out, answers) = tokio::io::duplex(64 * 1024);
        let (read, write) = checked(input, peer_out);
        let mut read = read.with_max_line(64);
        let mut seen = String::new();
        read.read_to_string(&mut seen).await.expect("read");
        drop(write);
        let mut answers = BufReader::new(answers).lines();
        let mut replies = Vec::new();
        while let Ok(Ok(Some(line))) =
            tokio::time::timeout(std::time::Duration::from_millis(200), answers.next_line()).await
        {
            replies.push(line);
        }
        (seen, replies)
    }

    const NEXT: &str = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}\n";

    /// The tail of an over-long line is no message of its own, whether the
    /// line came in one read or in many: one -32700 for the line, and the
    /// next line is read as the next message.
    #[tokio::test]
    async fn the_rest_of_an_over_long_line_is_dropped_to_its_newline() {
        let head = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":99,\"pad\":\"{}",
            "A".repeat(80)
        );
        // For a line reader, the same line as the head: not a message.
        let tail = "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n";
        // In parts: the head alone is over the limit, the tail comes later.
        let (seen, replies) = read_all(&[&head, tail, NEXT]).await;
        assert_eq!(seen, NEXT);
        assert_eq!(replies, vec![PARSE_ERROR.to_string()]);
        // In one read.
        let whole = format!("{head}{tail}{NEXT}");
        let (seen, replies) = read_all(&[&whole]).await;
        assert_eq!(seen, NEXT);
        assert_eq!(replies, vec![PARSE_ERROR.to_string()]);
        // Cut by the end of input.
        let (seen, replies) = read_all(&[NEXT, &head, "AAAA"]).await;
        assert_eq!(seen, NEXT);
        assert_eq!(replies, vec![PARSE_ERROR.to_string()]);
    }
}

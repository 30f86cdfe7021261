//! A line-level JSON check in front of rmcp's stdio transport.
//!
//! rmcp ignores a line that is not JSON at all (and answers well-formed
//! JSON of the wrong shape with -32600 itself). JSON-RPC asks for a -32700
//! parse error instead, so each line read from a peer is checked here
//! first: a line that does not parse as JSON is answered with -32700 (id
//! `null`) on the peer's own stream and dropped; every other line goes to
//! rmcp unchanged.
//!
//! Both ends are wrappers polled by rmcp's own tasks (no task or channel
//! of their own in the path of a message: every hop between threads costs
//! latency). The error replies share the writer with rmcp and are written
//! only between two of its lines, never inside one.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};

use serde::de::IgnoredAny;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

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
    }));
    (
        CheckedRead {
            inner: peer_in,
            buf: Vec::new(),
            ready: Vec::new(),
            ready_pos: 0,
            eof: false,
            out: Arc::clone(&out),
        },
        SharedWrite { out },
    )
}

struct Out<W> {
    inner: W,
    /// The last byte rmcp wrote ended a line (or nothing was written).
    at_boundary: bool,
    /// Error replies waiting for a line boundary.
    pending: Vec<u8>,
}

impl<W: AsyncWrite + Unpin> Out<W> {
    fn flush_pending(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.at_boundary && !self.pending.is_empty() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.pending.drain(..n);
        }
        Poll::Ready(Ok(()))
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

impl<W: AsyncWrite + Unpin> AsyncWrite for SharedWrite<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let mut out = lock(&self.out);
        ready!(out.flush_pending(cx))?;
        let n = ready!(Pin::new(&mut out.inner).poll_write(cx, buf))?;
        if n > 0 {
            out.at_boundary = buf[n - 1] == b'\n';
        }
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let mut out = lock(&self.out);
        ready!(out.flush_pending(cx))?;
        Pin::new(&mut out.inner).poll_flush(cx)
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
    out: Arc<Mutex<Out<W>>>,
}

impl<R, W> CheckedRead<R, W>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Checks the complete lines in `buf` (and, at the end of input, the
    /// rest), moving the good ones to `ready`.
    fn take_lines(&mut self) {
        let mut start = 0;
        while let Some(i) = self.buf[start..].iter().position(|&b| b == b'\n') {
            let end = start + i + 1;
            self.check(start, end);
            start = end;
        }
        if self.eof && start < self.buf.len() {
            let end = self.buf.len();
            self.check(start, end);
            start = end;
        }
        if start > 0 {
            self.buf.drain(..start);
        }
        if self.buf.len() > MAX_LINE {
            // A line longer than any message: drop it whole.
            self.buf.clear();
            self.reply();
        }
    }

    fn check(&mut self, start: usize, end: usize) {
        let line = trim(&self.buf[start..end]);
        if line.is_empty() {
            return;
        }
        if serde_json::from_slice::<IgnoredAny>(line).is_ok() {
            self.ready.extend_from_slice(line);
            self.ready.push(b'\n');
        } else {
            self.reply();
        }
    }

    /// Queues a -32700 reply and has it written at the next line boundary.
    fn reply(&self) {
        lock(&self.out)
            .pending
            .extend_from_slice(format!("{PARSE_ERROR}\n").as_bytes());
        let out = Arc::clone(&self.out);
        tokio::spawn(std::future::poll_fn(move |cx| {
            let mut out = lock(&out);
            ready!(out.flush_pending(cx))?;
            Pin::new(&mut out.inner).poll_flush(cx)
        }));
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

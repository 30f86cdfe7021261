//! A line-level JSON check in front of rmcp's stdio transport.
//!
//! rmcp ignores a line that is not JSON at all (and answers well-formed
//! JSON of the wrong shape with -32600 itself). JSON-RPC asks for a -32700
//! parse error instead, so each line read from a peer is checked here
//! first: a line that does not parse as JSON is answered with -32700 (id
//! `null`) on the peer's own stream and dropped; every other line goes to
//! rmcp unchanged. Writes to the peer, rmcp's and these errors, go through
//! one writer task a whole line at a time, so they never interleave.

use serde::de::IgnoredAny;
use tokio::io::{
    AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream, ReadHalf,
    WriteHalf,
};
use tokio::sync::mpsc;

/// Largest line accepted from a peer (rmcp's own limit is larger).
const MAX_LINE: usize = 64 * 1024 * 1024;

/// The parse error sent for a line that is not JSON.
pub const PARSE_ERROR: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON"}}"#;

/// Puts the check between a peer's byte streams and rmcp: returns the
/// reading and writing ends rmcp uses. The copying tasks end when either
/// side closes.
pub fn checked<R, W>(peer_in: R, peer_out: W) -> (ReadHalf<DuplexStream>, WriteHalf<DuplexStream>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (ours, theirs) = tokio::io::duplex(1 << 20);
    let (from_rmcp, mut to_rmcp) = tokio::io::split(ours);
    let (lines_tx, mut lines_rx) = mpsc::channel::<Vec<u8>>(64);

    // The one writer to the peer.
    tokio::spawn(async move {
        let mut out = peer_out;
        while let Some(line) = lines_rx.recv().await {
            if out.write_all(&line).await.is_err() || out.flush().await.is_err() {
                break;
            }
        }
        let _ = out.shutdown().await;
    });

    // rmcp's output, line by line, to the writer.
    let tx = lines_tx.clone();
    tokio::spawn(async move {
        let mut r = BufReader::new(from_rmcp);
        loop {
            let mut line = Vec::new();
            match r.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.send(line).await.is_err() {
                        break;
                    }
                }
            }
        }
    });

    // The peer's input, checked, to rmcp.
    tokio::spawn(async move {
        let mut r = BufReader::new(peer_in);
        loop {
            let mut line = Vec::new();
            match r.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let body = trim(&line);
            if body.is_empty() {
                continue;
            }
            if body.len() > MAX_LINE || serde_json::from_slice::<IgnoredAny>(body).is_err() {
                let mut err = PARSE_ERROR.as_bytes().to_vec();
                err.push(b'\n');
                if lines_tx.send(err).await.is_err() {
                    break;
                }
                continue;
            }
            if !line.ends_with(b"\n") {
                line.push(b'\n');
            }
            if to_rmcp.write_all(&line).await.is_err() {
                break;
            }
        }
        let _ = to_rmcp.shutdown().await;
    });

    tokio::io::split(theirs)
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

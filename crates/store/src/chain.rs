//! The row hash. Each row's hash covers the previous row's hash and every
//! field of the row, seq included, so that editing, removing, inserting or
//! moving a row changes a hash that a later row (or the head) vouches for.
//!
//! The encoding is length-prefixed so that no two different rows encode to
//! the same bytes (`"ab" + "c"` is not `"a" + "bc"`):
//!
//! ```text
//! hash = hex(SHA-256(
//!     "toolgate-ledger-v1" 0x00
//!     str(prev_hash)  u64(seq)  str(kind)  str(time)  str(session)
//!     opt(client)  str(call_id)  str(tool)  str(digest)  str(input)
//!     str(decision)  opt(rule)  u8(hard)  str(reason)  opt(approval)
//!     opt(note)  str(outcome)  u64(duration_us)  opt(approval_id)
//!     [0x01 str(server)]
//!     [0x02 str(review_model) str(review_decision) str(review_reason)
//!           u64(review_latency_ms)]
//! ))
//! str(s)   = u64(byte length of s) ++ UTF-8 bytes of s
//! opt(x)   = 0x00 when absent, 0x01 ++ str(x) when present
//! u64(n)   = 8 bytes, big-endian;  u8(b) = 0x00 or 0x01
//! ```
//!
//! The server (schema version 2) is hashed only when present, so that rows
//! written before it, which have none, keep their hashes; a row with a
//! server cannot lose it without its hash changing. The reviewer's answer
//! (schema version 6) is hashed the same way, only when present, after
//! the server and under its own tag, so that no row with a server and no
//! review encodes like a row with a review.
//!
//! Text fields are hashed as stored (`decision` as `"allow"`, ...), so the
//! chain can be checked from the database alone.

use sha2::{Digest, Sha256};

/// The "previous hash" of the first row.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

const DOMAIN: &[u8] = b"toolgate-ledger-v1\0";

/// A row's fields as hashed, borrowed from a [`crate::Record`] when
/// appending or from raw columns when verifying (where a tampered value need
/// not parse).
pub(crate) struct Fields<'a> {
    pub seq: u64,
    pub kind: &'a str,
    pub time: &'a str,
    pub session: &'a str,
    pub client: Option<&'a str>,
    pub call_id: &'a str,
    pub tool: &'a str,
    pub digest: &'a str,
    pub input: &'a str,
    pub decision: &'a str,
    pub rule: Option<&'a str>,
    pub hard: bool,
    pub reason: &'a str,
    pub approval: Option<&'a str>,
    pub note: Option<&'a str>,
    pub outcome: &'a str,
    pub duration_us: u64,
    pub approval_id: Option<&'a str>,
    pub server: Option<&'a str>,
    pub review: Option<ReviewFields<'a>>,
}

/// The reviewer's answer as hashed: all four columns, or none.
#[derive(Clone, Copy)]
pub(crate) struct ReviewFields<'a> {
    pub model: &'a str,
    pub decision: &'a str,
    pub reason: &'a str,
    pub latency_ms: u64,
}

impl<'a> ReviewFields<'a> {
    pub fn of(review: &'a crate::types::ReviewRecord) -> ReviewFields<'a> {
        ReviewFields {
            model: &review.model,
            decision: review.decision.as_str(),
            reason: &review.reason,
            latency_ms: stored_latency(review.latency_ms),
        }
    }
}

/// The latency as an integer column holds it (so hash what is read back).
pub(crate) fn stored_latency(ms: u64) -> u64 {
    ms.min(i64::MAX as u64)
}

/// The hash of a row whose predecessor's hash is `prev_hash`.
pub(crate) fn row_hash(prev_hash: &str, f: &Fields<'_>) -> String {
    let mut h = Sha256::new();
    h.update(DOMAIN);
    put_str(&mut h, prev_hash);
    h.update(f.seq.to_be_bytes());
    put_str(&mut h, f.kind);
    put_str(&mut h, f.time);
    put_str(&mut h, f.session);
    put_opt(&mut h, f.client);
    put_str(&mut h, f.call_id);
    put_str(&mut h, f.tool);
    put_str(&mut h, f.digest);
    put_str(&mut h, f.input);
    put_str(&mut h, f.decision);
    put_opt(&mut h, f.rule);
    h.update([u8::from(f.hard)]);
    put_str(&mut h, f.reason);
    put_opt(&mut h, f.approval);
    put_opt(&mut h, f.note);
    put_str(&mut h, f.outcome);
    h.update(f.duration_us.to_be_bytes());
    put_opt(&mut h, f.approval_id);
    if let Some(server) = f.server {
        h.update([1u8]);
        put_str(&mut h, server);
    }
    if let Some(r) = &f.review {
        h.update([2u8]);
        put_str(&mut h, r.model);
        put_str(&mut h, r.decision);
        put_str(&mut h, r.reason);
        h.update(r.latency_ms.to_be_bytes());
    }
    hex(&h.finalize())
}

fn put_str(h: &mut Sha256, s: &str) {
    // INVARIANT: usize fits in u64 on every supported target.
    h.update((s.len() as u64).to_be_bytes());
    h.update(s.as_bytes());
}

fn put_opt(h: &mut Sha256, s: Option<&str>) {
    match s {
        None => h.update([0u8]),
        Some(s) => {
            h.update([1u8]);
            put_str(h, s);
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields<'a>(session: &'a str, call_id: &'a str) -> Fields<'a> {
        Fields {
            seq: 1,
            kind: "request",
            time: "2025-01-01T00:00:00.000Z",
            session,
            client: None,
            call_id,
            tool: "read_file",
            digest: "d",
            input: "{}",
            decision: "allow",
            rule: None,
            hard: false,
            reason: "",
            approval: None,
            note: None,
            outcome: "executed",
            duration_us: 1,
            approval_id: None,
            server: None,
            review: None,
        }
    }

    #[test]
    fn a_review_is_hashed_apart_from_the_server() {
        let none = row_hash(GENESIS_HASH, &fields("s", "c"));
        let review = ReviewFields {
            model: "m",
            decision: "deny",
            reason: "r",
            latency_ms: 5,
        };
        let mut f = fields("s", "c");
        f.review = Some(review);
        let reviewed = row_hash(GENESIS_HASH, &f);
        assert_ne!(reviewed, none);
        f.server = Some("fs");
        assert_ne!(row_hash(GENESIS_HASH, &f), reviewed);
        let mut later = review;
        later.latency_ms = 6;
        f.review = Some(later);
        let mut g = fields("s", "c");
        g.server = Some("fs");
        g.review = Some(review);
        assert_ne!(row_hash(GENESIS_HASH, &f), row_hash(GENESIS_HASH, &g));
    }

    #[test]
    fn a_server_is_hashed() {
        let none = row_hash(GENESIS_HASH, &fields("s", "c"));
        let mut f = fields("s", "c");
        f.server = Some("fs");
        assert_ne!(row_hash(GENESIS_HASH, &f), none);
    }

    #[test]
    fn field_boundaries_change_the_hash() {
        let a = row_hash(GENESIS_HASH, &fields("ab", "c"));
        let b = row_hash(GENESIS_HASH, &fields("a", "bc"));
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
    }

    #[test]
    fn absent_differs_from_empty() {
        let mut with_empty = fields("s", "c");
        with_empty.rule = Some("");
        assert_ne!(
            row_hash(GENESIS_HASH, &fields("s", "c")),
            row_hash(GENESIS_HASH, &with_empty)
        );
    }

    #[test]
    fn seq_and_previous_hash_are_covered() {
        let one = fields("s", "c");
        let mut two = fields("s", "c");
        two.seq = 2;
        assert_ne!(row_hash(GENESIS_HASH, &one), row_hash(GENESIS_HASH, &two));
        let other_prev = "1".repeat(64);
        assert_ne!(row_hash(GENESIS_HASH, &one), row_hash(&other_prev, &one));
    }
}

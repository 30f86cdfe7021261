//! Checking the hash chain.
//!
//! The seq of the first bad row is exact: it is the first place where the
//! rows stop being what the chain vouches for. Which kind of tampering it
//! was is a diagnosis from what the rows around it still say; the rules are
//! in [`diagnose`].
//!
//! The walk is the same for every backend; a backend supplies the rows in
//! seq order, read in one snapshot, and answers the two look-ups that the
//! diagnosis needs ([`Lookup`]).

use std::fmt;

use crate::chain::GENESIS_HASH;
use crate::error::Result;
use crate::stored::RawRow;
use crate::types::Head;

/// What [`Store::verify`](crate::Store::verify) found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    /// Rows checked: all of them when the chain is intact, else up to and
    /// including the first bad one.
    pub rows: u64,
    /// The head as stored (`None` when its row is missing).
    pub head: Option<Head>,
    /// The first problem, if any.
    pub problem: Option<Problem>,
}

impl VerifyReport {
    /// Whether every row and the head are as they were appended.
    pub fn is_intact(&self) -> bool {
        self.problem.is_none()
    }
}

/// The first bad row and what is wrong with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Problem {
    /// The seq of the first row that is not as appended (for a deletion,
    /// the first missing seq).
    pub seq: u64,
    /// What happened to it.
    pub kind: ProblemKind,
}

/// The kinds of tampering the chain tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ProblemKind {
    /// The row's content was changed.
    Edited,
    /// The row is missing.
    Deleted,
    /// The row was not appended by the store; it was slipped in.
    Inserted,
    /// The row's content belongs at another place in the chain.
    Reordered,
    /// The rows chain correctly but end in another hash than the head.
    HeadMismatch,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seq = self.seq;
        match self.kind {
            ProblemKind::Edited => write!(
                f,
                "row {seq} was edited: its content does not match the chain"
            ),
            ProblemKind::Deleted => write!(f, "row {seq} was deleted"),
            ProblemKind::Inserted => write!(
                f,
                "row {seq} was inserted: the chain does not lead through it"
            ),
            ProblemKind::Reordered => write!(
                f,
                "row {seq} holds content that belongs elsewhere in the chain"
            ),
            ProblemKind::HeadMismatch => {
                write!(f, "the head (row {seq}) does not match the last row's hash")
            }
        }
    }
}

/// The parts of the previous row that the next one is checked against.
struct Link {
    seq: i64,
    hash: String,
    prev_hash: String,
}

/// What the diagnosis of a bad row asks of the backend, in the same
/// snapshot as the rows.
pub(crate) trait Lookup {
    /// The seq of a row other than `not_seq` whose hash is `hash`.
    fn seq_with_hash(&mut self, hash: &str, not_seq: i64) -> Result<Option<i64>>;
    /// `(seq, prev_hash, hash)` of every row except `seq`.
    fn links_except(&mut self, seq: i64) -> Result<Vec<(i64, String, String)>>;
}

/// Walks the chain from the first row to the head. `rows` yields every
/// ledger row in seq order; `head` is the head row as stored.
pub(crate) fn walk(
    rows: impl Iterator<Item = Result<RawRow>>,
    head: Option<(i64, String)>,
    lookup: &mut dyn Lookup,
) -> Result<VerifyReport> {
    let mut rows = rows.peekable();
    let mut prev: Option<Link> = None;
    let mut checked = 0u64;
    let mut problem = None;
    while let Some(row) = rows.next() {
        let row = row?;
        checked += 1;
        let expected = prev.as_ref().map_or(1, |p| p.seq + 1);
        if row.seq != expected {
            // Rows come in seq order, so a lower seq can only be a
            // forged row numbered below 1.
            let (seq, kind) = if row.seq > expected {
                (expected, ProblemKind::Deleted)
            } else {
                (row.seq, ProblemKind::Inserted)
            };
            problem = Some(Problem { seq: at(seq), kind });
            break;
        }
        let prev_hash = prev.as_ref().map_or(GENESIS_HASH, |p| p.hash.as_str());
        if row.prev_hash != prev_hash || !row.self_consistent() {
            let next_prev_hash = match rows.peek() {
                Some(Ok(next)) if next.seq == row.seq + 1 => Some(next.prev_hash.clone()),
                _ => None,
            };
            problem = Some(diagnose(
                lookup,
                &row,
                prev.as_ref(),
                next_prev_hash.as_deref(),
            )?);
            break;
        }
        prev = Some(Link {
            seq: row.seq,
            hash: row.hash,
            prev_hash: row.prev_hash,
        });
    }

    if problem.is_none() {
        problem = check_head(head.as_ref(), prev.as_ref());
    }
    Ok(VerifyReport {
        rows: checked,
        head: head.map(|(seq, hash)| Head { seq: at(seq), hash }),
        problem,
    })
}

/// Names the problem at `row`, the first row that does not chain onto
/// `prev` or does not match its own hash. In order:
///
/// 1. `row` names `prev`'s predecessor as its own: `prev` was inserted.
/// 2. `row` chains onto `prev` but the next row does too: `row` was
///    inserted (it does not match its own hash, the next row does not
///    vouch for it).
/// 3. `row`'s content hashes correctly at another row's place, or `row`
///    names another row than `prev` as its predecessor: reordered.
/// 4. `row` is intact but names a predecessor that no longer exists:
///    `prev` was edited (and its hash recomputed).
/// 5. Otherwise `row` itself was edited.
fn diagnose(
    lookup: &mut dyn Lookup,
    row: &RawRow,
    prev: Option<&Link>,
    next_prev_hash: Option<&str>,
) -> Result<Problem> {
    let prev_hash = prev.map_or(GENESIS_HASH, |p| p.hash.as_str());
    let linked = row.prev_hash == prev_hash;
    let intact = row.self_consistent();
    let problem = |seq: i64, kind| Problem { seq: at(seq), kind };

    if let Some(prev) = prev.filter(|p| !linked && row.prev_hash == p.prev_hash) {
        return Ok(problem(prev.seq, ProblemKind::Inserted));
    }
    if linked && !intact && next_prev_hash == Some(prev_hash) {
        return Ok(problem(row.seq, ProblemKind::Inserted));
    }
    if !intact && content_belongs_elsewhere(lookup, row)? {
        return Ok(problem(row.seq, ProblemKind::Reordered));
    }
    if !linked {
        let named = lookup.seq_with_hash(&row.prev_hash, row.seq)?;
        if named.is_some() {
            return Ok(problem(row.seq, ProblemKind::Reordered));
        }
        if intact {
            if let Some(prev) = prev {
                return Ok(problem(prev.seq, ProblemKind::Edited));
            }
        }
    }
    Ok(problem(row.seq, ProblemKind::Edited))
}

/// Whether `row`'s content, put at some other row's place (that row's seq
/// and previous hash), gives exactly that row's hash.
fn content_belongs_elsewhere(lookup: &mut dyn Lookup, row: &RawRow) -> Result<bool> {
    let mut moved = row.clone();
    for (seq, prev_hash, hash) in lookup.links_except(row.seq)? {
        moved.prev_hash = prev_hash;
        if moved.hash_at(seq).is_some_and(|h| h == hash) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The head must name the last row: a higher seq means the newest rows
/// were deleted, a lower one that rows were added past it.
fn check_head(head: Option<&(i64, String)>, last: Option<&Link>) -> Option<Problem> {
    let last_seq = last.map_or(0, |l| l.seq);
    let last_hash = last.map_or(GENESIS_HASH, |l| l.hash.as_str());
    let problem = |seq: i64, kind| Some(Problem { seq: at(seq), kind });
    match head {
        None => problem(last_seq, ProblemKind::HeadMismatch),
        Some((seq, _)) if *seq > last_seq => problem(last_seq + 1, ProblemKind::Deleted),
        Some((seq, _)) if *seq < last_seq => problem(seq + 1, ProblemKind::Inserted),
        Some((seq, hash)) if hash != last_hash => problem(*seq, ProblemKind::HeadMismatch),
        Some(_) => None,
    }
}

fn at(seq: i64) -> u64 {
    u64::try_from(seq).unwrap_or(0)
}

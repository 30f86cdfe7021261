//! Copying a SQLite store into PostgreSQL (`toolgate store migrate`):
//! ledger, approvals, grants, pins and trusted project policies.
//!
//! The copy is row by row and verbatim: every ledger row keeps its seq,
//! time, previous hash and hash, so the chain on the target is the same
//! chain (the row hash does not depend on the backend). The source is
//! read in one snapshot and checked first; the target must be empty and is
//! written in one transaction, then checked on its own and its head
//! compared with the source's.

use crate::error::{Error, Result};
use crate::pins::Pin;
use crate::stored::RawRow;
use crate::types::{Head, Pending};
use crate::{Backend, Store};

/// What [`Store::copy_to`] copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyReport {
    /// Ledger rows copied.
    pub rows: u64,
    /// Approvals copied, whatever their status.
    pub approvals: usize,
    /// Session grants copied.
    pub grants: usize,
    /// Pinned tool definitions copied.
    pub pins: usize,
    /// Trusted project policies copied.
    pub trusted: usize,
    /// The head, the same on both sides after the copy.
    pub head: Head,
}

/// Everything a store holds, read in one snapshot.
pub(crate) struct Snapshot {
    pub ledger: Vec<RawRow>,
    pub head: Head,
    /// Each approval with its `claimed` time.
    pub approvals: Vec<(Pending, Option<String>)>,
    /// `(session, rule, granted)`.
    pub grants: Vec<(String, String, String)>,
    pub pins: Vec<Pin>,
    /// `(file, digest, trusted)`.
    pub trust: Vec<(String, String, String)>,
}

impl Store {
    /// Copies this SQLite store into the empty PostgreSQL store `target`
    /// and checks the copy: the target's chain verifies and ends in the
    /// source's head.
    ///
    /// Refused, with nothing written: a source whose chain does not verify,
    /// a target that holds anything, a source that is not SQLite or a
    /// target that is not PostgreSQL.
    pub fn copy_to(&self, target: &Store) -> Result<CopyReport> {
        let refuse = |detail: String| Error::Copy { detail };
        let (Backend::Sqlite(source), Backend::Postgres(dest)) = (self.opened()?, target.opened()?)
        else {
            return Err(refuse(format!(
                "copies go from SQLite into PostgreSQL, not from {} into {}",
                self.backend(),
                target.backend()
            )));
        };
        let report = self.verify()?;
        if let Some(problem) = report.problem {
            return Err(refuse(format!(
                "`{}` does not verify ({problem}); nothing was copied",
                self.path.display()
            )));
        }
        let snapshot = source.export()?;
        dest.import(&snapshot)?;

        let copied = target.verify()?;
        if let Some(problem) = copied.problem {
            return Err(refuse(format!(
                "the copy in `{}` does not verify: {problem}",
                target.path.display()
            )));
        }
        let head = target.head()?;
        if head != snapshot.head || copied.rows != snapshot.ledger.len() as u64 {
            return Err(refuse(format!(
                "the copy ends at row {} ({}), the source at row {} ({})",
                head.seq, head.hash, snapshot.head.seq, snapshot.head.hash
            )));
        }
        Ok(CopyReport {
            rows: copied.rows,
            approvals: snapshot.approvals.len(),
            grants: snapshot.grants.len(),
            pins: snapshot.pins.len(),
            trusted: snapshot.trust.len(),
            head,
        })
    }
}

//! Reading a whole SQLite store in one snapshot, for a copy.

use super::Db;
use super::approvals::read as read_approval;
use super::ledger::{read_head, read_raw};
use super::pins::{SELECT as PIN_SELECT, read_pin};
use crate::approvals::COLUMNS;
use crate::copy::Snapshot;
use crate::error::Result;
use crate::stored::ROW_COLUMNS;

impl Db {
    /// Every row of every table, in one read transaction.
    pub(crate) fn export(&self) -> Result<Snapshot> {
        let mut conn = self.conn();
        let db = self.db();
        let tx = conn.transaction().map_err(&db)?;
        let head = read_head(&tx, &self.path)?;
        let ledger = tx
            .prepare(&format!("SELECT {ROW_COLUMNS} FROM ledger ORDER BY seq"))
            .and_then(|mut s| s.query_map([], read_raw)?.collect())
            .map_err(&db)?;
        let approvals = tx
            .prepare(&format!(
                "SELECT {COLUMNS}, claimed FROM approvals ORDER BY created, id"
            ))
            .and_then(|mut s| {
                s.query_map([], |r| Ok((read_approval(r)?, r.get(19)?)))?
                    .collect()
            })
            .map_err(&db)?;
        let grants = tx
            .prepare("SELECT session, rule, granted FROM grants ORDER BY session, rule")
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect()
            })
            .map_err(&db)?;
        let pins = tx
            .prepare(&format!("{PIN_SELECT} ORDER BY server, tool"))
            .and_then(|mut s| s.query_map([], read_pin)?.collect())
            .map_err(&db)?;
        let trust = tx
            .prepare("SELECT file, digest, trusted FROM trust ORDER BY file")
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect()
            })
            .map_err(&db)?;
        Ok(Snapshot {
            ledger,
            head,
            approvals,
            grants,
            pins,
            trust,
        })
    }
}

//! Checking the hash chain in PostgreSQL: the shared walk over the rows,
//! paged through a portal inside one read-only REPEATABLE READ transaction
//! (one snapshot, so appends by other hosts meanwhile are not seen and not
//! mistaken for tampering).

use std::cell::RefCell;
use std::collections::VecDeque;

use postgres::{IsolationLevel, Portal, Transaction};

use super::Db;
use super::ledger::read_raw;
use crate::error::Result;
use crate::stored::{ROW_COLUMNS, RawRow};
use crate::verify::{Lookup, VerifyReport, walk};

/// Rows fetched per round trip.
const PAGE: i32 = 1000;

impl Db {
    /// Checks the chain from the first row to the head.
    pub fn verify(&self) -> Result<VerifyReport> {
        let mut conn = self.conn()?;
        let mut tx = conn
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .map_err(self.db())?;
        let head = tx
            .query_opt("SELECT seq, hash FROM head WHERE id = 1", &[])
            .map_err(self.db())?
            .map(|r| (r.get::<_, i64>(0), r.get::<_, String>(1)));
        let portal = tx
            .bind(
                &format!("SELECT {ROW_COLUMNS} FROM ledger ORDER BY seq"),
                &[],
            )
            .map_err(self.db())?;
        let tx = RefCell::new(tx);
        let rows = Pages {
            db: self,
            tx: &tx,
            portal,
            buffer: VecDeque::new(),
            done: false,
        };
        let mut lookup = PgLookup { db: self, tx: &tx };
        walk(rows, head, &mut lookup)
    }
}

/// The ledger's rows, a page at a time.
struct Pages<'a, 't> {
    db: &'a Db,
    tx: &'a RefCell<Transaction<'t>>,
    portal: Portal,
    buffer: VecDeque<RawRow>,
    done: bool,
}

impl Iterator for Pages<'_, '_> {
    type Item = Result<RawRow>;

    fn next(&mut self) -> Option<Result<RawRow>> {
        if self.buffer.is_empty() && !self.done {
            let page = self.tx.borrow_mut().query_portal(&self.portal, PAGE);
            match page {
                Ok(rows) => {
                    self.done = rows.len() < PAGE as usize;
                    for r in &rows {
                        match read_raw(r) {
                            Ok(raw) => self.buffer.push_back(raw),
                            Err(e) => {
                                self.done = true;
                                return Some(Err(self.db.db()(e)));
                            }
                        }
                    }
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(self.db.db()(e)));
                }
            }
        }
        self.buffer.pop_front().map(Ok)
    }
}

struct PgLookup<'a, 't> {
    db: &'a Db,
    tx: &'a RefCell<Transaction<'t>>,
}

impl Lookup for PgLookup<'_, '_> {
    fn seq_with_hash(&mut self, hash: &str, not_seq: i64) -> Result<Option<i64>> {
        let row = self
            .tx
            .borrow_mut()
            .query_opt(
                "SELECT seq FROM ledger WHERE hash = $1 AND seq <> $2 LIMIT 1",
                &[&hash, &not_seq],
            )
            .map_err(self.db.db())?;
        Ok(row.map(|r| r.get(0)))
    }

    fn links_except(&mut self, seq: i64) -> Result<Vec<(i64, String, String)>> {
        let rows = self
            .tx
            .borrow_mut()
            .query(
                "SELECT seq, prev_hash, hash FROM ledger WHERE seq <> $1",
                &[&seq],
            )
            .map_err(self.db.db())?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2)))
            .collect())
    }
}

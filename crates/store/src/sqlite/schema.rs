//! The database schema and its versions.

/// `PRAGMA application_id` of toolgate's database (ASCII `tgdb`): how a
/// toolgate file is told apart from any other SQLite file.
pub const APPLICATION_ID: i32 = 0x7467_6462;

/// `PRAGMA user_version` written by this build. A file with a higher
/// version is refused rather than read with the wrong schema.
pub const SCHEMA_VERSION: i64 = 6;

/// `MIGRATIONS[v - 1]` takes an empty database (v = 1) or version `v - 1`
/// to version `v`. Each runs in the same `BEGIN IMMEDIATE` transaction that
/// sets `user_version`, so a crash leaves the old version intact.
pub(crate) const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, V5, V6];

const V1: &str = r#"
-- One row per submitted call (kind 'request'), plus one per call that
-- waited for an approval and was later declined or executed
-- (kind 'resolution'). Rows are never updated or deleted: each row's hash
-- covers the previous row's hash.
CREATE TABLE ledger (
    seq         INTEGER PRIMARY KEY,
    kind        TEXT    NOT NULL,
    time        TEXT    NOT NULL,
    session     TEXT    NOT NULL,
    client      TEXT,
    call_id     TEXT    NOT NULL,
    tool        TEXT    NOT NULL,
    digest      TEXT    NOT NULL,
    input       TEXT    NOT NULL,
    decision    TEXT    NOT NULL,
    rule        TEXT,
    hard        INTEGER NOT NULL,
    reason      TEXT    NOT NULL,
    approval    TEXT,
    note        TEXT,
    outcome     TEXT    NOT NULL,
    duration_us INTEGER NOT NULL,
    approval_id TEXT,
    prev_hash   TEXT    NOT NULL,
    hash        TEXT    NOT NULL
);
-- Every index costs a page write per append: only what the hot paths read.
CREATE INDEX ledger_session ON ledger (session, seq);
-- At most one resolution per approval, whichever process writes it.
CREATE UNIQUE INDEX ledger_resolution ON ledger (approval_id) WHERE kind = 'resolution';

-- The last row's seq and hash, updated in the same transaction as each
-- append: deleting the newest rows leaves the head pointing past them.
CREATE TABLE head (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    seq  INTEGER NOT NULL,
    hash TEXT    NOT NULL
);
INSERT INTO head (id, seq, hash)
VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');

CREATE TABLE approvals (
    id               TEXT    PRIMARY KEY,
    created          TEXT    NOT NULL,
    session          TEXT    NOT NULL,
    client           TEXT,
    call_id          TEXT    NOT NULL,
    tool             TEXT    NOT NULL,
    snapshot         TEXT    NOT NULL,
    digest           TEXT    NOT NULL,
    reason           TEXT    NOT NULL,
    rule             TEXT,
    remember_allowed INTEGER NOT NULL,
    status           TEXT    NOT NULL CHECK (status IN
                         ('pending', 'approved', 'declined', 'executing', 'done')),
    answer           TEXT,
    note             TEXT,
    answered_by      TEXT,
    answered         TEXT,
    claimed          TEXT,
    outcome          TEXT,
    finished         TEXT
) WITHOUT ROWID;
CREATE INDEX approvals_status ON approvals (status, created);

CREATE TABLE grants (
    session TEXT NOT NULL,
    rule    TEXT NOT NULL,
    granted TEXT NOT NULL,
    PRIMARY KEY (session, rule)
) WITHOUT ROWID;
"#;

/// Version 2: an approval nobody answered within the approval TTL becomes
/// `expired`. SQLite cannot change a CHECK constraint in place, so the
/// table is rebuilt (same columns, same order) inside the migration's
/// transaction.
const V2: &str = r#"
CREATE TABLE approvals_v2 (
    id               TEXT    PRIMARY KEY,
    created          TEXT    NOT NULL,
    session          TEXT    NOT NULL,
    client           TEXT,
    call_id          TEXT    NOT NULL,
    tool             TEXT    NOT NULL,
    snapshot         TEXT    NOT NULL,
    digest           TEXT    NOT NULL,
    reason           TEXT    NOT NULL,
    rule             TEXT,
    remember_allowed INTEGER NOT NULL,
    status           TEXT    NOT NULL CHECK (status IN
                         ('pending', 'approved', 'declined', 'executing', 'done', 'expired')),
    answer           TEXT,
    note             TEXT,
    answered_by      TEXT,
    answered         TEXT,
    claimed          TEXT,
    outcome          TEXT,
    finished         TEXT
) WITHOUT ROWID;
INSERT INTO approvals_v2 SELECT * FROM approvals;
DROP TABLE approvals;
ALTER TABLE approvals_v2 RENAME TO approvals;
CREATE INDEX approvals_status ON approvals (status, created);
"#;

/// Version 3: the pinned tool definitions of MCP servers, and the server a
/// call went to in the ledger and the queue.
const V3: &str = r#"
-- One row per (server, tool): the pinned definition, and a later one that
-- differs from it until a person accepts it.
CREATE TABLE pins (
    server             TEXT NOT NULL,
    tool               TEXT NOT NULL,
    digest             TEXT NOT NULL,
    definition         TEXT NOT NULL,
    pinned             TEXT NOT NULL,
    changed_digest     TEXT,
    changed_definition TEXT,
    changed_seen       TEXT,
    PRIMARY KEY (server, tool)
) WITHOUT ROWID;

-- The MCP server a call went to (`toolgate mcp --name`); NULL for every
-- other host. Rows written before version 3 have none.
ALTER TABLE ledger ADD COLUMN server TEXT;
ALTER TABLE approvals ADD COLUMN server TEXT;
"#;

/// Version 4: trusted project policies.
const V4: &str = r#"
-- One row per trusted project policy file: its digest when it was trusted.
-- An edited file has another digest, and is no longer trusted.
CREATE TABLE trust (
    file    TEXT NOT NULL PRIMARY KEY,
    digest  TEXT NOT NULL,
    trusted TEXT NOT NULL
) WITHOUT ROWID;
"#;

/// Version 5: where the last fold of the ledger spool ended.
const V5: &str = r#"
-- The chain hash of the last spool line folded into the ledger, written in
-- the fold's own transaction: a fold that committed and then died before
-- it emptied the spool is recognised, and its lines are not added twice.
-- Empty until the first fold.
CREATE TABLE spool_folded (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    line_hash TEXT    NOT NULL
);
INSERT INTO spool_folded (id, line_hash) VALUES (1, '');
"#;

/// Version 6: the reviewer model's answer to a call the policy asked
/// about, and what counting a session's reviewer answers reads.
const V6: &str = r#"
-- All four set for a reviewed call, all NULL otherwise (and for every row
-- written before version 6).
ALTER TABLE ledger ADD COLUMN review_model TEXT;
ALTER TABLE ledger ADD COLUMN review_decision TEXT;
ALTER TABLE ledger ADD COLUMN review_reason TEXT;
ALTER TABLE ledger ADD COLUMN review_latency_ms INTEGER;
-- Only reviewed rows are in it, so other appends write no page for it:
-- counting a session's reviewer answers reads the index alone.
CREATE INDEX ledger_review ON ledger (session, seq, review_decision)
    WHERE review_decision IS NOT NULL;
-- The request row of a queued call, found by its approval (the page shows
-- the reviewer's reason beside it). Only rows that waited are in it.
CREATE INDEX ledger_request_approval ON ledger (approval_id)
    WHERE approval_id IS NOT NULL AND kind = 'request';
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_migration_per_version() {
        assert_eq!(MIGRATIONS.len() as i64, SCHEMA_VERSION);
    }

    #[test]
    fn the_empty_head_is_the_genesis_hash() {
        assert!(V1.contains(&format!("VALUES (1, 0, '{}')", crate::GENESIS_HASH)));
    }
}

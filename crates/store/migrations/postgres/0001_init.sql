-- toolgate's shared store, version 1: the same tables as the SQLite
-- schema (versions 1 and 2 there), with PostgreSQL's types.
--
-- One row per submitted call (kind 'request'), plus one per call that
-- waited for an approval and was later declined or executed
-- (kind 'resolution'). Rows are never updated or deleted: each row's hash
-- covers the previous row's hash.
CREATE TABLE ledger (
    seq         BIGINT  PRIMARY KEY,
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
    hard        BOOLEAN NOT NULL,
    reason      TEXT    NOT NULL,
    approval    TEXT,
    note        TEXT,
    outcome     TEXT    NOT NULL,
    duration_us BIGINT  NOT NULL CHECK (duration_us >= 0),
    approval_id TEXT,
    prev_hash   TEXT    NOT NULL,
    hash        TEXT    NOT NULL
);
CREATE INDEX ledger_session ON ledger (session, seq);
-- At most one resolution per approval, whichever host writes it.
CREATE UNIQUE INDEX ledger_resolution ON ledger (approval_id) WHERE kind = 'resolution';

-- The last row's seq and hash, updated in the same transaction as each
-- append. Every append locks this row first (SELECT .. FOR UPDATE), which
-- is what serialises appends from all hosts into one chain.
CREATE TABLE head (
    id   INTEGER PRIMARY KEY CHECK (id = 1),
    seq  BIGINT  NOT NULL,
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
    remember_allowed BOOLEAN NOT NULL,
    status           TEXT    NOT NULL CHECK (status IN
                         ('pending', 'approved', 'declined', 'executing', 'done')),
    answer           TEXT,
    note             TEXT,
    answered_by      TEXT,
    answered         TEXT,
    claimed          TEXT,
    outcome          TEXT,
    finished         TEXT
);
CREATE INDEX approvals_status ON approvals (status, created);

CREATE TABLE grants (
    session TEXT NOT NULL,
    rule    TEXT NOT NULL,
    granted TEXT NOT NULL,
    PRIMARY KEY (session, rule)
);

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
);

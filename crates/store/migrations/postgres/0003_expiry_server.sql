-- Version 3: an approval nobody answered within the approval TTL becomes
-- `expired` (SQLite version 2), and the MCP server a call went to
-- (`toolgate mcp --name`) is kept in the ledger and the queue (SQLite
-- version 3); NULL for every other host, and for rows written before.
ALTER TABLE approvals DROP CONSTRAINT approvals_status_check;
ALTER TABLE approvals ADD CONSTRAINT approvals_status_check CHECK (status IN
    ('pending', 'approved', 'declined', 'executing', 'done', 'expired'));
ALTER TABLE ledger ADD COLUMN server TEXT;
ALTER TABLE approvals ADD COLUMN server TEXT;
CREATE INDEX ledger_server ON ledger (server, seq) WHERE server IS NOT NULL;

-- Version 4: the reviewer model's answer to a call the policy asked about
-- (SQLite version 6). All four set for a reviewed call, all NULL otherwise
-- (and for every row written before).
ALTER TABLE ledger ADD COLUMN review_model TEXT;
ALTER TABLE ledger ADD COLUMN review_decision TEXT;
ALTER TABLE ledger ADD COLUMN review_reason TEXT;
ALTER TABLE ledger ADD COLUMN review_latency_ms BIGINT;
-- Only reviewed rows: counting a session's reviewer answers, on every
-- reviewed call, reads these alone.
CREATE INDEX ledger_review ON ledger (session, seq, review_decision)
    WHERE review_decision IS NOT NULL;
-- The request row of a queued call, found by its approval.
CREATE INDEX ledger_request_approval ON ledger (approval_id)
    WHERE approval_id IS NOT NULL AND kind = 'request';

-- Version 2: trusted project policies. One row per trusted project policy
-- file (its canonical path): its digest when it was trusted. An edited file
-- has another digest, and is no longer trusted.
CREATE TABLE trust (
    file    TEXT PRIMARY KEY,
    digest  TEXT NOT NULL,
    trusted TEXT NOT NULL
);

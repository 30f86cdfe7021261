//! Integration tests: real SQLite files in temporary directories, and real
//! processes where the scenario is about processes (the test binary runs
//! itself again in a child role, see `children`).

mod approvals;
mod children;
mod concurrency;
mod crash;
mod expiry;
mod files;
mod grants;
mod ledger;
mod pins;
mod postgres;
mod review;
mod spool;
mod support;
mod tamper;

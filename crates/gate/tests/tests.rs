//! Integration tests of the gate: one test executable, one module per area.

mod approvals;
mod holds;
mod processes;
mod review;
mod scenarios;
mod self_written;

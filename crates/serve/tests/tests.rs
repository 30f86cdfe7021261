//! Integration tests of the approval server: one test executable, one module per area.

mod support;

mod api;
mod limits;
mod review;
mod router;
mod shown;

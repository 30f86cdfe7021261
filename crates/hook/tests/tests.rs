//! Integration tests of the hook protocols: one test executable, one module per area.

mod support;

mod clients;
mod discovery;
mod fixtures;
mod host_links;
mod patches;
mod payloads;
mod pi_paths;
mod run;

//! Integration tests of the policy engine: one test executable, one module per area.

#[path = "corpus/support.rs"]
mod support;

mod archive_reach;
mod cargo_reach;
mod conformance;
mod connect;
mod corpus;
mod corpus_props;
mod differential;
mod fuzz_regressions;
mod git_reach;
mod git_rewrite;
mod git_support;
mod git_tracked;
mod host_paths;
mod layers;
mod links;
mod net_reach;
mod option_reach;
mod proc_self;
mod properties;
mod reach;
mod review;
mod rg_ignore;
mod runners;
mod scratch;
mod shell_precision;
mod state_database;
mod urls;
mod walk;

//! Integration tests of the `toolgate` binary: one test executable, one module per
//! area (a separate executable per file would link the whole CLI again for each).

mod serve_support;
#[path = "../../hook/tests/support/mod.rs"]
mod support;

mod agent;
mod agents_e2e;
mod architecture;
mod browser;
mod cli;
mod codex_e2e;
mod corpus_fixture;
mod explain_shell;
mod hook_commands;
mod hooks_e2e;
mod layers;
mod mcp;
mod mcp_claude;
mod mcp_strict;
mod policy_review;
mod read_fields_e2e;
mod review;
mod review_e2e;
mod sandbox;
mod sandbox_corpus;
mod sandbox_corpus_e2e;
mod sandbox_hooks_e2e;
mod sandbox_proxy;
mod serve;
mod shared_store;
mod state;

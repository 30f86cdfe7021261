//! Integration tests of the tools against the real file system, a real bash
//! and a real HTTP server on 127.0.0.1: one binary, one module per tool.

mod common;
mod fetch;
mod fs;
mod race;
mod shell;

//! Integration tests of the MCP gateway: one test executable, one module per area.

mod gateway;

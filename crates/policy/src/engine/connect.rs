//! Fetches decided again with the addresses their host resolved to.

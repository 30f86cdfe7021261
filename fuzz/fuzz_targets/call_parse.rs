//! `Call::parse` (every accepted wire format) on arbitrary text, and the
//! canonical JSON and digest of what it accepts.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate_policy::Call;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(call) = Call::parse(text) else {
        return;
    };
    assert!(!call.tool.is_empty(), "an accepted call names its tool");
    let canonical = call.canonical_json();
    let value: serde_json::Value =
        serde_json::from_str(&canonical).expect("canonical JSON parses back");
    assert!(value.is_object());
    assert_eq!(call.digest().len(), 64, "a SHA-256 digest in hex");
});

//! `Call::parse` (every accepted wire format) on arbitrary text, and the
//! canonical JSON and digest of what it accepts: the canonical form reads
//! back as the same call.
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
    // What an approval is bound to must survive being stored and read
    // back: the canonical JSON, parsed as a call, is the same call with
    // the same digest.
    let again = Call::parse(&canonical).expect("canonical JSON parses back as a call");
    assert_eq!(
        again, call,
        "the canonical JSON reads back as the same call"
    );
    assert_eq!(
        again.canonical_json(),
        canonical,
        "canonical JSON is a fixed point"
    );
    assert_eq!(call.digest().len(), 64, "a SHA-256 digest in hex");
});

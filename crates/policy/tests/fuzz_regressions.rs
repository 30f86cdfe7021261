//! Inputs the fuzz targets (`fuzz/`) found, each fed byte for byte.

use toolgate_policy::Call;

/// Parses a call, and checks that its canonical JSON (what an approval's
/// digest is computed over, and what a stored snapshot holds) reads back as
/// the same call with the same digest.
fn round_trips(bytes: &[u8]) -> Call {
    let text = std::str::from_utf8(bytes).expect("UTF-8");
    let call = Call::parse(text).expect("the call parses");
    let canonical = call.canonical_json();
    let again = Call::parse(&canonical).expect("its canonical JSON parses");
    assert_eq!(again, call);
    assert_eq!(again.canonical_json(), canonical);
    assert_eq!(again.digest(), call.digest());
    call
}

/// `call_parse`: a float was read to a neighbouring value (`5e-72` became
/// `5.000000000000002e-72`, which reads back as `5.000000000000001e-72`), so
/// a snapshot stored as canonical JSON no longer matched its digest and the
/// approval bound to it could never be used.
#[test]
fn call_parse_float_reads_back_exactly() {
    let call = round_trips(br#"{"id":"1","tool":"t","input":{"":"t","ina":2,"b":[{"y":5e-72}]}}"#);
    assert_eq!(call.input["b"][0]["y"].as_f64(), Some(5e-72));
    assert!(
        call.canonical_json().contains(r#""y":5e-72"#),
        "{}",
        call.canonical_json()
    );
}

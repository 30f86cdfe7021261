//! `GeminiInput::parse` (Gemini CLI's `BeforeTool` hook input) on
//! arbitrary text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate_hook::GeminiInput;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(input) = GeminiInput::parse(text) {
        assert!(input.cwd.is_absolute(), "a relative cwd is refused");
    }
});

//! `ClaudeInput::parse` (Claude Code's `PreToolUse` hook input) on
//! arbitrary text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolgate_hook::ClaudeInput;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(input) = ClaudeInput::parse(text) {
        assert!(input.cwd.is_absolute(), "a relative cwd is refused");
    }
});

//! A proposal file, validated, previewed and linted against a fact file: `proposal\0fact file`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (proposal, ledger) = text
        .split_once('\0')
        .unwrap_or((text, "# A\n\n- **f-aaaa** One fact.\n"));
    mneme::fuzzing::proposal(proposal, ledger);
});

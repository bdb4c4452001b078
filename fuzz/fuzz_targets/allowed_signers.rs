//! `.ledger/allowed_signers`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        mneme::fuzzing::allowed_signers(text);
    }
});

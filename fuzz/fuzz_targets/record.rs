//! A decision record in `.ledger/decisions/`, replayed against a fact file.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mneme::fuzzing::run("record", data));

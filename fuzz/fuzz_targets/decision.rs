//! A commit message, as the history reads decision trailers from it (any bytes).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mneme::fuzzing::run("decision", data));

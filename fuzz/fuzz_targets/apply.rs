//! One operation applied to a fact file: a selector byte, then `fact file\0statement`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mneme::fuzzing::run("apply", data));

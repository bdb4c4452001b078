//! A proposal file, validated, previewed and linted against a fact file: `proposal\0fact file`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mneme::fuzzing::run("proposal", data));

//! The merge driver on three versions: `base\0ours\0theirs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mneme::fuzzing::run("merge", data));

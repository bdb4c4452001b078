//! A task file: a task that parses is written back in the form it is read.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mneme::fuzzing::run("task", data));

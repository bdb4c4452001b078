//! A fact file through every reader of the ledger (`mneme::fuzzing::fact_file`): the input is
//! `name\0text`, or text alone for `architecture.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mneme::fuzzing::run("fact_file", data));

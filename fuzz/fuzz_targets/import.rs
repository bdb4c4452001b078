//! One file read by every importer (MIF, compiled, records, CLAUDE.md, AGENTS.md, Cursor rules,
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| mneme::fuzzing::run("import", data));

//! One file read by every importer (MIF, compiled, records, CLAUDE.md, AGENTS.md, Cursor rules,
//! a memory bank, decision records, notes) and planned as `mneme import` plans it.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        mneme::fuzzing::every_import(text);
    }
});

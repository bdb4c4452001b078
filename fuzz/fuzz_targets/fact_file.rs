//! A fact file through every reader of the ledger (`mneme::fuzzing::fact_file`): the input is
//! `name\0text`, or text alone for `architecture.md`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match text.split_once('\0') {
        Some((name, body)) => mneme::fuzzing::fact_file(&format!("{name}.md"), body),
        None => mneme::fuzzing::fact_file("architecture.md", text),
    }
});

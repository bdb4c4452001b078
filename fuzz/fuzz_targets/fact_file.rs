//! The fact-file parser: never panics, and what it parses renders back byte for byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mneme::model::facts::FactFile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(file) = FactFile::parse(text) {
        assert_eq!(file.render(), text);
        assert_eq!(FactFile::parse(&file.render()).as_ref(), Ok(&file));
        for fact in file.facts() {
            let _ = fact.raw_with_meta(&fact.meta);
            let _ = fact.key();
        }
    }
});

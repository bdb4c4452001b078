//! One operation applied to a fact file: a selector byte, then `fact file\0statement`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let (file, statement) = text.split_once('\0').unwrap_or((text, "New statement."));
    mneme::fuzzing::apply_one(selector, file, statement);
});

//! The merge driver on three versions: `base\0ours\0theirs`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(3, '\0');
    let mut next = || parts.next().unwrap_or("");
    let (base, ours, theirs) = (next(), next(), next());
    mneme::fuzzing::merge3(base, ours, theirs);
});

//! The merge driver on any three versions: never panics, and a result without conflicts keeps
//! every fact that neither side removed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mneme::model::facts::{Fact, FactFile};
use mneme::model::merge::merge;

fn keys(text: &str) -> Vec<String> {
    FactFile::parse(text)
        .map(|f| f.facts().map(Fact::key).collect())
        .unwrap_or_default()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.splitn(3, '\u{0}');
    let (base, ours, theirs) = (
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
        parts.next().unwrap_or(""),
    );
    let merged = merge(base, ours, theirs);
    if merged.conflicts > 0 {
        return;
    }
    let (o, a, b, result) = (keys(base), keys(ours), keys(theirs), keys(&merged.text));
    for k in a.iter().chain(&b) {
        let removed = o.contains(k) && (!a.contains(k) || !b.contains(k));
        assert!(result.contains(k) || removed, "{k} was dropped");
    }
});

//! Proposal files as anyone could write them: parsing and validation never panic, and a
//! proposal that validates has no control characters where a terminal would show them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mneme::model::fields::has_control;
use mneme::model::proposal::{Limits, Proposal};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(p) = Proposal::parse(text) else {
        return;
    };
    let limits = Limits {
        max_fact_chars: 1000,
        files: vec!["architecture.md".into(), "pitfalls.md".into()],
    };
    if p.validate(&limits).is_ok() {
        assert!(!has_control(&p.reason));
        for op in &p.operations {
            assert!(op.text().is_none_or(|t| !has_control(t)));
            assert!(!op.summary().chars().any(|c| c.is_control() && c != '\n'));
        }
        assert_eq!(Proposal::parse(&p.to_json()).as_ref(), Ok(&p));
    }
});

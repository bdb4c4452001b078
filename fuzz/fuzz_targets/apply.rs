//! Applying an operation to any fact file: never panics, and a result it returns parses with the
//! same front matter and holds the proposed text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mneme::model::apply::apply;
use mneme::model::config::Config;
use mneme::model::facts::FactFile;
use mneme::model::ledger::{FactFileEntry, Ledger};
use mneme::model::proposal::{Operation, Proposal, SCHEMA};

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let (file_text, statement) = text.split_once('\u{0}').unwrap_or((text, "New statement."));
    let Ok(entry) = FactFileEntry::parse("a.md".into(), file_text.to_owned()) else {
        return;
    };
    let ids: Vec<(String, String)> = entry
        .file
        .facts()
        .filter_map(|f| f.id.clone().map(|id| (id, f.text.clone())))
        .collect();
    let file = "a.md".to_owned();
    let op = match (selector % 4, ids.get(usize::from(selector / 4) % ids.len().max(1))) {
        (1, Some((id, before))) => Operation::Update {
            file,
            fact_id: id.clone(),
            before: before.clone(),
            text: statement.to_owned(),
        },
        (2, Some((id, before))) => Operation::Remove {
            file,
            fact_id: id.clone(),
            before: before.clone(),
        },
        (3, Some((id, before))) => Operation::Supersede {
            file,
            fact_id: id.clone(),
            before: before.clone(),
            new_fact_id: "f-new1".into(),
            text: statement.to_owned(),
        },
        _ => Operation::Add {
            file,
            fact_id: "f-new1".into(),
            text: statement.to_owned(),
        },
    };
    let ledger = Ledger {
        files: vec![entry],
        config: Config::default(),
    };
    let proposal = Proposal {
        schema: SCHEMA,
        id: "20261123T000000Z-00000000".into(),
        created_at: "2026-11-23T00:00:00.000000Z".into(),
        agent: None,
        author: None,
        reason: "r".into(),
        evidence: Vec::new(),
        operations: vec![op.clone()],
        base: Default::default(),
    };
    if let Ok(applied) = apply(&ledger, &proposal, "2026-11-23") {
        for change in &applied.files {
            let after = FactFile::parse(&change.new).expect("an applied file parses");
            assert_eq!(after.front_matter, ledger.files[0].file.front_matter);
            if let Some(t) = op.text() {
                let id = op.new_id().unwrap_or(op.fact_id());
                let fact = after.facts().find(|f| f.id.as_deref() == Some(id));
                assert_eq!(fact.map(|f| f.text.as_str()), Some(t));
            }
        }
    }
});

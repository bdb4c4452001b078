//! A context pack (docs/formats/context-pack.md): what an agent should know for a task, as one
//! JSON object. mneme's own `context` is the same knowledge in its prompt shape.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::model::base::time::Timestamp;
use crate::model::evidence::refs::{classify, Evidence};
use crate::model::facts::file::{Relation, State};
use crate::model::interchange::item::{confidence, has_text, is_uuid, time_value, uuid, Item};

const KINDS: [&str; 5] = ["fact", "procedure", "decision", "constraint", "preference"];
const STATUSES: [&str; 6] = [
    "candidate",
    "active",
    "contested",
    "superseded",
    "stale",
    "archived",
];
/// Files worth reading next, at most.
const NEXT_READS: usize = 20;

/// The knowledge kind of a fact file's facts.
pub fn kind_of(stem: &str) -> &'static str {
    if stem.contains("architecture") || stem.contains("decision") {
        "decision"
    } else if ["invariant", "rule", "performance", "constraint"]
        .iter()
        .any(|w| stem.contains(w))
    {
        "constraint"
    } else if stem.contains("procedure") || stem.contains("howto") || stem.contains("runbook") {
        "procedure"
    } else {
        "fact"
    }
}

fn status(item: &Item) -> &'static str {
    match item.state {
        State::Stale => "stale",
        State::Contested => "contested",
        State::Archived => "archived",
        State::Superseded => "superseded",
        _ if item.relations.contains_key(&Relation::Contradicts) => "contested",
        _ => "active",
    }
}

/// The pack for `task`: the current facts (superseded and archived ones are history, left out
/// and counted), their contradictions, what needs a re-check, the files they cite and the pages
/// they link. It expires `valid_days` (the ledger's `stale_fact_days`) after `generated_at`.
pub fn render(items: &[Item], task: &str, generated_at: &str, valid_days: u32) -> String {
    let current: Vec<&Item> = items.iter().filter(|i| !i.is_historical()).collect();
    let historical = items.len() - current.len();
    let mut conflicts = Vec::new();
    let mut missing = Vec::new();
    let mut reads: BTreeMap<&str, usize> = BTreeMap::new();
    let mut citations = Vec::new();
    let entries: Vec<Value> = current
        .iter()
        .map(|i| {
            for other in i.relations.get(&Relation::Contradicts).into_iter().flatten() {
                conflicts.push(json!({
                    "items": [uuid(&i.id), uuid(other)],
                    "description": format!("{} contradicts {}; a person has not settled which holds", i.id, other),
                }));
            }
            match status(i) {
                "stale" => missing.push(format!(
                    "{} is marked stale: re-check it against the code, then `mneme propose verify {}`",
                    i.id, i.id
                )),
                _ if i.evidence.is_empty() => {
                    missing.push(format!("{} cites no evidence", i.id));
                }
                _ => {}
            }
            for e in &i.evidence {
                match classify(e) {
                    Evidence::File { path, .. } => *reads.entry(path).or_default() += 1,
                    Evidence::Other if e.starts_with("https://") || e.starts_with("http://") => {
                        if !citations.contains(e) {
                            citations.push(e.clone());
                        }
                    }
                    Evidence::Other => {}
                }
            }
            json!({
                "id": uuid(&i.id),
                "fact_id": i.id,
                "kind": kind_of(i.stem()),
                "status": status(i),
                "statement": i.text,
                "evidence_refs": i.evidence,
                "confidence": confidence(i),
                "valid_from": i.created(generated_at),
                "valid_until": Value::Null,
                "last_verified_at": i.confirmed(),
            })
        })
        .collect();
    // The files most cited first, then by name.
    let mut next: Vec<(&str, usize)> = reads.into_iter().collect();
    next.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let next: Vec<&str> = next.into_iter().take(NEXT_READS).map(|(p, _)| p).collect();
    let expires = Timestamp::parse(generated_at)
        .map(|t| Timestamp::from_unix(t.unix_seconds() + i64::from(valid_days) * 86_400))
        .map_or_else(|| generated_at.to_owned(), Timestamp::rfc3339_seconds);
    let stale = entries.iter().filter(|e| e["status"] == "stale").count();
    let contested = entries
        .iter()
        .filter(|e| e["status"] == "contested")
        .count();
    let pack = json!({
        "id": uuid(&format!("context-pack:{generated_at}:{task}")),
        "task": task,
        "summary": format!(
            "{} current fact(s) from the ledger ({stale} stale, {contested} contested); {historical} superseded or archived left out. People approve these facts; they outrank conversation history.",
            entries.len()
        ),
        "scope": "project",
        "items": entries,
        "conflicts": conflicts,
        "missing_context": missing,
        "recommended_next_reads": next,
        "citations": citations,
        "generated_at": generated_at,
        "expires_at": expires,
    });
    let mut text = serde_json::to_string_pretty(&pack).expect("JSON values serialise");
    text.push('\n');
    text
}

/// Checks a context pack against the contract (docs/formats/context-pack.md).
pub fn check(pack: &Value) -> Vec<String> {
    let mut p = Vec::new();
    for k in ["id", "task", "summary", "scope"] {
        if !has_text(pack, k) {
            p.push(format!("`{k}` must be a non-empty string"));
        }
    }
    if !pack["id"].as_str().is_some_and(is_uuid) {
        p.push("`id` must be a UUID".into());
    }
    for k in [
        "items",
        "conflicts",
        "missing_context",
        "recommended_next_reads",
        "citations",
    ] {
        if !pack[k].is_array() {
            p.push(format!("`{k}` must be a list"));
        }
    }
    for k in ["generated_at", "expires_at"] {
        if !time_value(&pack[k]) {
            p.push(format!("`{k}` must be an ISO 8601 time"));
        }
    }
    let at = |k: &str| pack[k].as_str().and_then(Timestamp::parse);
    if let (Some(g), Some(e)) = (at("generated_at"), at("expires_at")) {
        if e < g {
            p.push("`expires_at` is before `generated_at`".into());
        }
    }
    for item in pack["items"].as_array().into_iter().flatten() {
        if !item["kind"].as_str().is_some_and(|k| KINDS.contains(&k)) {
            p.push(format!(
                "item kind {} is not one of {}",
                item["kind"],
                KINDS.join(", ")
            ));
        }
        if !item["status"]
            .as_str()
            .is_some_and(|s| STATUSES.contains(&s))
        {
            p.push(format!(
                "item status {} is not one of {}",
                item["status"],
                STATUSES.join(", ")
            ));
        }
        if !has_text(item, "statement") {
            p.push("an item has no statement".into());
        }
        if !item["confidence"]
            .as_f64()
            .is_some_and(|c| (0.0..=1.0).contains(&c))
        {
            p.push("an item's confidence must be from 0 to 1".into());
        }
        if !item["evidence_refs"].is_array() {
            p.push("an item's `evidence_refs` must be a list".into());
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::interchange::item::sample;

    fn item(id: &str, state: State, evidence: &[&str]) -> Item {
        Item {
            state,
            ..sample(id, "invariants.md", evidence)
        }
    }

    #[test]
    fn the_pack_holds_current_facts_with_what_to_read_and_recheck() {
        let mut a = item("f-aaaa", State::Active, &["src/a.rs:1", "https://x.org/a"]);
        a.relations
            .insert(Relation::Contradicts, ["f-bbbb".to_owned()].into());
        let b = item("f-bbbb", State::Stale, &["src/a.rs:9", "src/b.rs"]);
        let old = item("f-cccc", State::Archived, &[]);
        let text = render(&[a, b, old], "fix the pool", "2026-11-02T00:00:00Z", 30);
        let pack: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(check(&pack), Vec::<String>::new());
        assert_eq!(pack["items"].as_array().unwrap().len(), 2);
        assert_eq!(pack["items"][0]["status"], "contested");
        assert_eq!(pack["items"][0]["kind"], "constraint");
        assert_eq!(pack["conflicts"].as_array().unwrap().len(), 1);
        assert!(pack["missing_context"][0]
            .as_str()
            .unwrap()
            .contains("f-bbbb is marked stale"));
        assert_eq!(
            pack["recommended_next_reads"],
            json!(["src/a.rs", "src/b.rs"])
        );
        assert_eq!(pack["citations"], json!(["https://x.org/a"]));
        assert_eq!(pack["expires_at"], "2026-12-02T00:00:00Z");
        assert!(pack["summary"]
            .as_str()
            .unwrap()
            .contains("1 superseded or archived left out"));

        let mut bad = pack.clone();
        bad["items"][0]["kind"] = "rumour".into();
        bad["expires_at"] = "2026-01-01T00:00:00Z".into();
        bad["task"] = "".into();
        let problems = check(&bad).join("\n");
        for word in ["kind", "before", "`task`"] {
            assert!(problems.contains(word), "{word}: {problems}");
        }
    }
}

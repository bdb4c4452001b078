//! Memory records (docs/formats/records.md): one JSON object per fact, one per line.

use serde_json::{json, Map, Value};

use crate::model::facts::file::{Relation, State};
use crate::model::interchange::item::{confidence, has_text, is_uuid, time_value, uuid, Item};
use crate::model::proposals::proposal::OpKind;

const TYPES: [&str; 5] = [
    "episodic",
    "working",
    "semantic",
    "competence",
    "plan_graph",
];
const SENSITIVITIES: [&str; 5] = ["public", "low", "medium", "high", "hyper"];
const SOURCE_KINDS: [&str; 5] = ["event", "artifact", "tool_call", "observation", "outcome"];
const ACTIONS: [&str; 7] = [
    "create",
    "revise",
    "fork",
    "merge",
    "delete",
    "reinforce",
    "decay",
];
const STATUSES: [&str; 3] = ["active", "contested", "retracted"];
const MODES: [&str; 3] = ["global", "conditional", "timeboxed"];
const DELETION: [&str; 3] = ["auto_prune", "manual_only", "never"];

/// The record's revision status.
fn status(item: &Item) -> &'static str {
    match item.state {
        State::Superseded | State::Archived => "retracted",
        State::Contested => "contested",
        _ if item.relations.contains_key(&Relation::Contradicts) => "contested",
        _ => "active",
    }
}

/// An approval's audit action: `create` for the one that added the fact (or added it as a
/// replacement), `delete` for a removal, `reinforce` for a verification, else `revise`.
fn action(item: &Item, op: OpKind, first: bool) -> &'static str {
    match op {
        OpKind::Add => "create",
        OpKind::Supersede if first && item.state != State::Superseded => "create",
        OpKind::Remove => "delete",
        OpKind::Verify => "reinforce",
        _ => "revise",
    }
}

/// The record of `item`; `supersedes` are the facts it replaced.
pub fn render(item: &Item, supersedes: &[&str], fallback: &str) -> String {
    let created = item.created(fallback);
    let fact_file = format!(".ledger/facts/{}", item.file);
    let mut sources = vec![json!({"kind": "artifact", "ref": fact_file})];
    for e in &item.evidence {
        sources.push(json!({"kind": "artifact", "ref": e}));
    }
    for e in &item.history {
        let mut s = Map::new();
        s.insert("kind".into(), "event".into());
        s.insert("ref".into(), format!("git:{}", e.commit).into());
        if let Some(r) = &e.reviewer {
            s.insert("created_by".into(), r.clone().into());
        }
        s.insert("timestamp".into(), e.date.clone().into());
        sources.push(Value::Object(s));
    }
    let mut relations: Vec<Value> = supersedes
        .iter()
        .map(|old| json!({"predicate": "supersedes", "target_id": uuid(old)}))
        .collect();
    for (relation, targets) in &item.relations {
        for t in targets {
            relations.push(json!({"predicate": relation.key(), "target_id": uuid(t)}));
        }
    }
    let audit: Vec<Value> = item
        .history
        .iter()
        .enumerate()
        .map(|(n, e)| {
            let mut rationale = e.reason.clone();
            if let Some(p) = &e.proposer {
                rationale.push_str(&format!(" (proposed by {p})"));
            }
            json!({
                "action": action(item, e.op, n == 0),
                "actor": e.reviewer.clone().unwrap_or_else(|| "unknown".to_owned()),
                "timestamp": e.date,
                "rationale": rationale,
            })
        })
        .collect();
    let mut lifecycle = Map::new();
    if let Some(c) = item.confirmed() {
        lifecycle.insert("last_reinforced_at".into(), c.into());
    }
    lifecycle.insert("pinned".into(), true.into());
    lifecycle.insert("deletion_policy".into(), "manual_only".into());
    let record = json!({
        "id": uuid(&item.id),
        "type": "semantic",
        "sensitivity": "low",
        "confidence": confidence(item),
        "salience": if item.is_historical() { 0.1 } else { 1.0 },
        "scope": "project",
        "tags": [item.stem().replace('_', "-"), item.state.as_str()],
        "created_at": created,
        "updated_at": item.modified(fallback),
        "lifecycle": lifecycle,
        "provenance": {
            "sources": sources,
            "created_by": item.proposer().unwrap_or("unknown"),
        },
        "relations": relations,
        "payload": {
            "subject": item.stem(),
            "predicate": "holds",
            "object": item.text,
            "validity": {"mode": if item.is_historical() { "timeboxed" } else { "global" }},
            "revision": {"status": status(item)},
        },
        "audit_log": audit,
        "meta": {"mneme": {"id": item.id, "file": item.file, "state": item.state.as_str()}},
    });
    record.to_string()
}

/// Checks one record against the memory record rules (docs/formats/records.md).
pub fn check(record: &Value) -> Vec<String> {
    let mut p = Vec::new();
    let one_of = |p: &mut Vec<String>, what: &str, v: &Value, set: &[&str]| {
        if !v.as_str().is_some_and(|x| set.contains(&x)) {
            p.push(format!(
                "`{what}` must be one of {}, not {v}",
                set.join(", ")
            ));
        }
    };
    if !record["id"].as_str().is_some_and(is_uuid) {
        p.push("`id` must be a UUID".into());
    }
    one_of(&mut p, "type", &record["type"], &TYPES);
    one_of(
        &mut p,
        "sensitivity",
        &record["sensitivity"],
        &SENSITIVITIES,
    );
    if !record["confidence"]
        .as_f64()
        .is_some_and(|c| (0.0..=1.0).contains(&c))
    {
        p.push("`confidence` must be from 0 to 1".into());
    }
    if !record["salience"].as_f64().is_some_and(|c| c >= 0.0) {
        p.push("`salience` must be 0 or more".into());
    }
    for k in ["created_at", "updated_at"] {
        if !time_value(&record[k]) {
            p.push(format!("`{k}` must be an RFC 3339 time"));
        }
    }
    let lifecycle = &record["lifecycle"];
    if let Some(d) = lifecycle.get("decay") {
        if d["half_life_seconds"].as_u64().is_none_or(|h| h < 1) {
            p.push("`lifecycle.decay.half_life_seconds` must be at least 1".into());
        }
    }
    if let Some(d) = lifecycle.get("deletion_policy") {
        one_of(&mut p, "lifecycle.deletion_policy", d, &DELETION);
    }
    match record["provenance"]["sources"].as_array() {
        Some(sources) if !sources.is_empty() => {
            for src in sources {
                one_of(
                    &mut p,
                    "provenance.sources[].kind",
                    &src["kind"],
                    &SOURCE_KINDS,
                );
                if !has_text(src, "ref") {
                    p.push("each provenance source needs a `ref`".into());
                }
            }
        }
        _ => p.push("`provenance.sources` needs at least one source".into()),
    }
    for r in record["relations"].as_array().into_iter().flatten() {
        if !has_text(r, "predicate") || !has_text(r, "target_id") {
            p.push("each relation needs a `predicate` and a `target_id`".into());
        }
    }
    let payload = &record["payload"];
    if record["type"] == "semantic" {
        for k in ["subject", "predicate", "object"] {
            if !has_text(payload, k) {
                p.push(format!("a semantic payload needs `{k}`"));
            }
        }
    }
    if let Some(v) = payload.get("validity") {
        one_of(&mut p, "payload.validity.mode", &v["mode"], &MODES);
    }
    if let Some(r) = payload.get("revision") {
        one_of(&mut p, "payload.revision.status", &r["status"], &STATUSES);
    }
    for a in record["audit_log"].as_array().into_iter().flatten() {
        one_of(&mut p, "audit_log[].action", &a["action"], &ACTIONS);
        if !has_text(a, "actor") {
            p.push("each audit entry needs an `actor`".into());
        }
        if !time_value(&a["timestamp"]) {
            p.push("each audit entry needs an RFC 3339 `timestamp`".into());
        }
    }
    p
}

/// The statement of a memory record read from `source`: `Err` with every problem when it breaks
/// the rules or holds no statement.
pub fn found(
    source: &str,
    record: &Value,
) -> Result<crate::model::interchange::found::Found, Vec<String>> {
    use crate::model::interchange::found::Found;
    let problems = check(record);
    if !problems.is_empty() {
        return Err(problems);
    }
    let s = |v: &Value| v.as_str().map(str::to_owned);
    let mneme = &record["meta"]["mneme"];
    let payload = &record["payload"];
    let text = if mneme.is_object() || payload["predicate"] == "holds" {
        s(&payload["object"])
    } else if record["type"] == "semantic" {
        Some(format!(
            "{} {} {}",
            s(&payload["subject"]).unwrap_or_default(),
            s(&payload["predicate"]).unwrap_or_default(),
            s(&payload["object"]).unwrap_or_default()
        ))
    } else {
        ["text", "content", "summary"]
            .iter()
            .find_map(|k| s(&payload[*k]))
    };
    let Some(text) = text else {
        return Err(vec![
            "the payload holds no statement (no text, content or summary)".into(),
        ]);
    };
    let state = match (s(&mneme["state"]), payload["revision"]["status"].as_str()) {
        (Some(recorded), _) => Some(State::parse(&recorded)),
        (None, Some("retracted")) => Some(State::Archived),
        (None, Some("contested")) => Some(State::Contested),
        _ => None,
    };
    let mut found = Found {
        text,
        source: source.to_owned(),
        evidence: record["provenance"]["sources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|src| src["kind"] == "artifact")
            .filter_map(|src| s(&src["ref"]))
            .filter(|r| !r.starts_with(".ledger/"))
            .collect(),
        hint: s(&mneme["file"]).or_else(|| {
            record["tags"]
                .as_array()
                .and_then(|t| t.first())
                .and_then(Value::as_str)
                .map(str::to_owned)
        }),
        state,
        key: s(&record["id"]),
        fact_id: s(&mneme["id"]),
        ..Found::default()
    };
    for r in record["relations"].as_array().into_iter().flatten() {
        if let (Some(kind), Some(target)) = (r["predicate"].as_str(), s(&r["target_id"])) {
            found.link(kind, target);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::interchange::item::Event;

    #[test]
    fn a_record_carries_its_history_and_passes_the_rules() {
        let event = |op, date: &str| Event {
            op,
            commit: "abc".into(),
            date: date.into(),
            proposal: "p".into(),
            proposer: Some("claude".into()),
            reviewer: Some("Ada <ada@x>".into()),
            reason: "why".into(),
        };
        let item = Item {
            id: "f-7f3c".into(),
            file: "architecture.md".into(),
            text: "We use PostgreSQL 17.".into(),
            state: State::Active,
            superseded_by: None,
            since: None,
            verified: None,
            evidence: vec!["src/db.rs:12".into()],
            relations: Default::default(),
            history: vec![
                event(OpKind::Supersede, "2026-11-02T10:00:00Z"),
                event(OpKind::Verify, "2026-11-09T10:00:00Z"),
            ],
        };
        let r: Value = serde_json::from_str(&render(&item, &["f-old1"], "x")).unwrap();
        assert_eq!(check(&r), Vec::<String>::new());
        assert_eq!(r["audit_log"][0]["action"], "create");
        assert_eq!(r["audit_log"][1]["action"], "reinforce");
        assert_eq!(r["audit_log"][1]["rationale"], "why (proposed by claude)");
        assert_eq!(r["lifecycle"]["last_reinforced_at"], "2026-11-09T10:00:00Z");
        assert_eq!(r["relations"][0]["predicate"], "supersedes");
        assert_eq!(
            r["provenance"]["sources"][0]["ref"],
            ".ledger/facts/architecture.md"
        );

        let mut bad = r.clone();
        bad["sensitivity"] = "secret".into();
        bad["provenance"]["sources"] = json!([]);
        bad["payload"]["object"] = "".into();
        bad["audit_log"][0]["action"] = "edit".into();
        let problems = check(&bad).join("\n");
        for word in [
            "sensitivity",
            "at least one source",
            "`object`",
            "audit_log",
        ] {
            assert!(problems.contains(word), "{word}: {problems}");
        }
    }
}

//! Compiled memory (docs/formats/compiled.md): `documents.jsonl` (one document per fact file),
//! `entries.jsonl` (one entry per fact) and a Markdown view per document.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use crate::model::base::text::{one_line, truncate};
use crate::model::facts::file::{Relation, State};
use crate::model::interchange::item::{has_text, time_value, uuid, Item, Replaced};

const DOCUMENT_KINDS: [&str; 7] = [
    "projects",
    "systems",
    "decisions",
    "incidents",
    "timeline",
    "people",
    "report",
];
const ENTRY_TYPES: [&str; 7] = [
    "project",
    "system",
    "decision",
    "incident",
    "timeline_event",
    "person",
    "todo",
];
const STATES: [&str; 5] = [
    "observed",
    "inferred",
    "stale",
    "contradicted",
    "historical",
];
const RELATION_TYPES: [&str; 6] = [
    "depends_on",
    "related_to",
    "supersedes",
    "derived_from",
    "owned_by",
    "affects",
];
const TITLE_MAX: usize = 80;

/// A fact file's document kind and its entries' type.
pub fn kind_of(stem: &str) -> (&'static str, &'static str) {
    if stem.contains("architecture") || stem.contains("decision") {
        ("decisions", "decision")
    } else if stem.contains("pitfall") || stem.contains("incident") {
        ("incidents", "incident")
    } else {
        ("systems", "system")
    }
}

/// An entry's state: what a reader of compiled memory should make of the fact.
pub fn state_of(item: &Item) -> &'static str {
    match item.state {
        State::Superseded | State::Archived => "historical",
        State::Stale => "stale",
        State::Contested => "contradicted",
        _ if item.relations.contains_key(&Relation::Contradicts) => "contradicted",
        // A fact no person approved through mneme was written into the file by hand.
        _ if item.history.is_empty() => "inferred",
        _ => "observed",
    }
}

/// The compiled export: its files, and the facts left out for want of evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiled {
    /// `(name, text)`: `documents.jsonl`, `entries.jsonl`, then one `<file stem>.md` per document.
    pub files: Vec<(String, String)>,
    /// Facts with neither evidence nor a recorded approval: compiled entries need evidence.
    pub left_out: Vec<String>,
}

/// Renders `items` (in file order); `titles` are the fact files' titles by name.
pub fn render(items: &[Item], titles: &BTreeMap<String, String>, generated_at: &str) -> Compiled {
    let replaced = Replaced::of(items);
    let mut left_out = Vec::new();
    let mut docs: Vec<(String, Vec<Value>)> = Vec::new();
    for item in items {
        let refs = evidence_refs(item);
        if refs.is_empty() {
            left_out.push(item.id.clone());
            continue;
        }
        let (_, entry_type) = kind_of(item.stem());
        let mut relations = Vec::new();
        for old in replaced.by(item) {
            relations.push(
                json!({"type": "supersedes", "targetEntryId": uuid(old), "state": "observed"}),
            );
        }
        for (relation, targets) in &item.relations {
            let kind = match relation {
                Relation::RelatesTo => "related_to",
                Relation::DependsOn => "depends_on",
                Relation::DerivedFrom => "derived_from",
                // No relation type says "contradicts": the entry's state does.
                Relation::Contradicts => continue,
            };
            for t in targets {
                relations
                    .push(json!({"type": kind, "targetEntryId": uuid(t), "state": "observed"}));
            }
        }
        let mut entry = Map::new();
        entry.insert("id".into(), uuid(&item.id).into());
        entry.insert(
            "documentId".into(),
            uuid(&format!("file:{}", item.file)).into(),
        );
        entry.insert("entryType".into(), entry_type.into());
        entry.insert(
            "title".into(),
            truncate(&one_line(&item.text), TITLE_MAX).into(),
        );
        entry.insert("summary".into(), item.text.clone().into());
        entry.insert("state".into(), state_of(item).into());
        entry.insert("evidenceRefs".into(), Value::Array(refs));
        entry.insert("updatedAt".into(), item.modified(generated_at).into());
        entry.insert("observedAt".into(), item.created(generated_at).into());
        if let Some(c) = item.confirmed() {
            entry.insert("lastConfirmedAt".into(), c.into());
        }
        entry.insert(
            "tags".into(),
            json!([item.stem().replace('_', "-"), item.state.as_str()]),
        );
        if !relations.is_empty() {
            entry.insert("relations".into(), Value::Array(relations));
        }
        entry.insert(
            "meta".into(),
            json!({"mneme": {"id": item.id, "file": item.file, "state": item.state.as_str()}}),
        );
        match docs.iter_mut().find(|(f, _)| *f == item.file) {
            Some((_, entries)) => entries.push(Value::Object(entry)),
            None => docs.push((item.file.clone(), vec![Value::Object(entry)])),
        }
    }
    // Where each entry's view section is, for the views' links: `(view file, title)`.
    let places: BTreeMap<String, (String, String)> = docs
        .iter()
        .flat_map(|(file, list)| {
            list.iter().map(move |e| {
                let at = (
                    file.clone(),
                    e["title"].as_str().unwrap_or_default().to_owned(),
                );
                (e["id"].as_str().unwrap_or_default().to_owned(), at)
            })
        })
        .collect();
    let mut documents = String::new();
    let mut entries = String::new();
    let mut views = Vec::new();
    for (file, list) in &docs {
        let stem = file.strip_suffix(".md").unwrap_or(file);
        let title = titles.get(file).cloned().unwrap_or_else(|| stem.to_owned());
        let sources: BTreeSet<&str> = list
            .iter()
            .flat_map(|e| e["evidenceRefs"].as_array().into_iter().flatten())
            .filter_map(|r| r["evidenceItemId"].as_str())
            .collect();
        let doc = json!({
            "id": uuid(&format!("file:{file}")),
            "kind": kind_of(stem).0,
            "title": title,
            "generatedAt": generated_at,
            "entryIds": list.iter().map(|e| e["id"].clone()).collect::<Vec<_>>(),
            "sourceIds": sources,
            "meta": {"mneme": {"file": file}},
        });
        documents.push_str(&doc.to_string());
        documents.push('\n');
        for e in list {
            entries.push_str(&e.to_string());
            entries.push('\n');
        }
        views.push((format!("{stem}.md"), view(&title, list, &places)));
    }
    let mut files = vec![
        ("documents.jsonl".to_owned(), documents),
        ("entries.jsonl".to_owned(), entries),
    ];
    files.extend(views);
    Compiled { files, left_out }
}

/// The fact's evidence, then the commits of its approvals, as evidence references.
fn evidence_refs(item: &Item) -> Vec<Value> {
    let mut refs: Vec<Value> = item
        .evidence
        .iter()
        .map(|e| json!({"evidenceItemId": e}))
        .collect();
    for e in &item.history {
        refs.push(json!({
            "evidenceItemId": format!("git:{}", e.commit),
            "note": format!("{} approved", e.op.as_str()),
        }));
    }
    refs
}

/// The Markdown view of one document: a section per entry, anchored by the entry's id, with
/// its relations as links to the sections of their targets (`places`: view file and title).
fn view(title: &str, entries: &[Value], places: &BTreeMap<String, (String, String)>) -> String {
    let mut out = format!("# {title}\n");
    for e in entries {
        let s = |k: &str| e[k].as_str().unwrap_or_default();
        out.push_str(&format!(
            "\n<a id=\"{}\"></a>\n## {}\n\n{}\n\n",
            s("id"),
            s("title"),
            s("summary")
        ));
        out.push_str(&format!(
            "- state: {}\n- updated: {}\n",
            s("state"),
            s("updatedAt")
        ));
        for r in e["relations"].as_array().into_iter().flatten() {
            let target = r["targetEntryId"].as_str().unwrap_or_default();
            let kind = r["type"].as_str().unwrap_or_default();
            match places.get(target) {
                Some((file, title)) => {
                    out.push_str(&format!("- {kind}: [{title}]({file}#{target})\n"));
                }
                None => out.push_str(&format!("- {kind}: {target} (not exported)\n")),
            }
        }
        out.push_str("\n```text\n");
        for r in e["evidenceRefs"].as_array().into_iter().flatten() {
            out.push_str(r["evidenceItemId"].as_str().unwrap_or_default());
            out.push('\n');
        }
        out.push_str("```\n");
    }
    out
}

/// Checks `documents.jsonl` and `entries.jsonl` against the compiled format's rules
/// (docs/formats/compiled.md): every problem found.
pub fn check(documents: &str, entries: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let docs = lines(documents, "documents.jsonl", &mut problems);
    let ents = lines(entries, "entries.jsonl", &mut problems);
    let entry_ids: BTreeSet<&str> = ents.iter().filter_map(|(_, e)| e["id"].as_str()).collect();
    let doc_ids: BTreeSet<&str> = docs.iter().filter_map(|(_, d)| d["id"].as_str()).collect();
    for (at, d) in &docs {
        let mut p = |m: String| problems.push(format!("documents.jsonl:{at}: {m}"));
        for k in ["id", "title"] {
            if !has_text(d, k) {
                p(format!("`{k}` must be a non-empty string"));
            }
        }
        if !d["kind"]
            .as_str()
            .is_some_and(|k| DOCUMENT_KINDS.contains(&k))
        {
            p(format!(
                "`kind` must be one of {}",
                DOCUMENT_KINDS.join(", ")
            ));
        }
        if !time_value(&d["generatedAt"]) {
            p("`generatedAt` must be an ISO 8601 time".into());
        }
        match d["entryIds"].as_array() {
            Some(ids) => {
                for id in ids {
                    if !id.as_str().is_some_and(|i| entry_ids.contains(i)) {
                        p(format!("entry {id} is not in entries.jsonl"));
                    }
                }
            }
            None => p("`entryIds` must be a list".into()),
        }
    }
    for (at, e) in &ents {
        let mut p = |m: String| problems.push(format!("entries.jsonl:{at}: {m}"));
        for k in ["id", "documentId", "title", "summary"] {
            if !has_text(e, k) {
                p(format!("`{k}` must be a non-empty string"));
            }
        }
        if !e["documentId"]
            .as_str()
            .is_some_and(|d| doc_ids.contains(d))
        {
            p("`documentId` names no document".into());
        }
        if !e["entryType"]
            .as_str()
            .is_some_and(|t| ENTRY_TYPES.contains(&t))
        {
            p(format!(
                "`entryType` must be one of {}",
                ENTRY_TYPES.join(", ")
            ));
        }
        if !e["state"].as_str().is_some_and(|s| STATES.contains(&s)) {
            p(format!("`state` must be one of {}", STATES.join(", ")));
        }
        let refs = e["evidenceRefs"].as_array();
        if refs.is_none_or(Vec::is_empty) {
            p("an entry needs at least one evidence reference".into());
        }
        for r in refs.into_iter().flatten() {
            if !has_text(r, "evidenceItemId") {
                p("each evidence reference needs an `evidenceItemId`".into());
            }
        }
        if !time_value(&e["updatedAt"]) {
            p("`updatedAt` must be an ISO 8601 time".into());
        }
        for k in ["observedAt", "lastConfirmedAt"] {
            if !e[k].is_null() && !time_value(&e[k]) {
                p(format!("`{k}` must be an ISO 8601 time"));
            }
        }
        for r in e["relations"].as_array().into_iter().flatten() {
            if !r["type"]
                .as_str()
                .is_some_and(|t| RELATION_TYPES.contains(&t))
            {
                p(format!(
                    "relation type {} is not one of {}",
                    r["type"],
                    RELATION_TYPES.join(", ")
                ));
            }
            if !has_text(r, "targetEntryId") {
                p("a relation needs a `targetEntryId`".into());
            }
        }
    }
    problems
}

/// Each line of a JSONL text as a JSON object, with its line number.
pub fn lines(text: &str, name: &str, problems: &mut Vec<String>) -> Vec<(usize, Value)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .filter_map(|(i, l)| match serde_json::from_str::<Value>(l) {
            Ok(v) if v.is_object() => Some((i + 1, v)),
            Ok(_) => {
                problems.push(format!("{name}:{}: not a JSON object", i + 1));
                None
            }
            Err(e) => {
                problems.push(format!("{name}:{}: {e}", i + 1));
                None
            }
        })
        .collect()
}

/// The statements of compiled memory: `entries` (its text and the name it is read from, for
/// sources) checked with `documents`; `Err` with every problem when the files break the rules.
pub fn found(
    name: &str,
    documents: &str,
    entries: &str,
) -> Result<Vec<crate::model::interchange::found::Found>, Vec<String>> {
    use crate::model::interchange::found::Found;
    let problems = check(documents, entries);
    if !problems.is_empty() {
        return Err(problems);
    }
    let mut ignored = Vec::new();
    let kinds: BTreeMap<String, String> = lines(documents, "documents.jsonl", &mut ignored)
        .into_iter()
        .filter_map(|(_, d)| Some((d["id"].as_str()?.to_owned(), d["kind"].as_str()?.to_owned())))
        .collect();
    Ok(lines(entries, name, &mut ignored)
        .into_iter()
        .map(|(at, e)| {
            let s = |v: &Value| v.as_str().map(str::to_owned);
            let mneme = &e["meta"]["mneme"];
            let state = match (s(&mneme["state"]), e["state"].as_str()) {
                (Some(recorded), _) => Some(State::parse(&recorded)),
                (None, Some("historical")) => Some(State::Archived),
                (None, Some("stale")) => Some(State::Stale),
                (None, Some("contradicted")) => Some(State::Contested),
                _ => None,
            };
            let mut found = Found {
                text: s(&e["summary"]).unwrap_or_default(),
                source: format!("{name}:{at}"),
                evidence: e["evidenceRefs"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| s(&r["evidenceItemId"]))
                    .filter(|id| !id.starts_with("git:"))
                    .collect(),
                hint: s(&mneme["file"])
                    .or_else(|| e["documentId"].as_str().and_then(|d| kinds.get(d).cloned())),
                state,
                key: s(&e["id"]),
                fact_id: s(&mneme["id"]),
                ..Found::default()
            };
            for r in e["relations"].as_array().into_iter().flatten() {
                if let (Some(kind), Some(target)) = (r["type"].as_str(), s(&r["targetEntryId"])) {
                    found.link(kind, target);
                }
            }
            found
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::interchange::item::sample;

    #[test]
    fn entries_need_evidence_and_the_rest_is_checked() {
        let mut old = sample("f-old1", "architecture.md", &["src/a.rs"]);
        old.state = State::Superseded;
        old.superseded_by = Some("f-new1".into());
        let new = sample("f-new1", "architecture.md", &["src/a.rs:3"]);
        let bare = sample("f-bare", "pitfalls.md", &[]);
        let c = render(&[old, new, bare], &BTreeMap::new(), "2026-11-02T00:00:00Z");
        assert_eq!(c.left_out, ["f-bare"]);
        let (documents, entries) = (&c.files[0].1, &c.files[1].1);
        assert_eq!(check(documents, entries), Vec::<String>::new());
        assert_eq!(documents.lines().count(), 1, "pitfalls has no entry left");
        assert!(entries.contains("\"state\":\"historical\""));
        assert!(entries.contains(&format!(
            "\"type\":\"supersedes\",\"targetEntryId\":\"{}\"",
            uuid("f-old1")
        )));
        assert!(
            entries.contains("\"state\":\"inferred\""),
            "no approval recorded"
        );
        let view = &c.files[2].1;
        assert!(
            view.contains(&format!(
                "- supersedes: [Fact f-old1.](architecture.md#{})",
                uuid("f-old1")
            )),
            "{view}"
        );

        let bad = entries
            .replacen("\"state\":\"historical\"", "\"state\":\"maybe\"", 1)
            .replacen(
                "\"evidenceRefs\":[{\"evidenceItemId\":\"src/a.rs:3\"}]",
                "\"evidenceRefs\":[]",
                1,
            );
        let problems = check(documents, &bad).join("\n");
        assert!(problems.contains("`state`"), "{problems}");
        assert!(problems.contains("at least one evidence"), "{problems}");
        let problems = check("{\"id\":\"d\",\"kind\":\"memos\",\"title\":\"t\",\"generatedAt\":\"x\",\"entryIds\":[\"nope\"]}\nnot json\n", "").join("\n");
        assert!(problems.contains("`kind`"), "{problems}");
        assert!(problems.contains("generatedAt"), "{problems}");
        assert!(problems.contains("not in entries.jsonl"), "{problems}");
        assert!(problems.contains("documents.jsonl:2"), "{problems}");
    }
}

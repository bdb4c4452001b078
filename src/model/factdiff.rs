//! Comparing ledgers fact by fact, and checking that a commit's change to the facts is exactly
//! what its decision trailers (and its proposal) describe. Pure: inputs are file contents.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::decision::Recorded;
use crate::model::facts::{FactFile, Meta, UNIDENTIFIED};
use crate::model::proposal::{Operation, Proposal};

/// `file name → contents` of `.ledger/facts/*.md` at one commit.
pub type Files = BTreeMap<String, String>;

/// What a fact means, regardless of formatting: where it is, what it says, its metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactState {
    pub file: String,
    pub text: String,
    pub meta: Meta,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    Added,
    Removed,
    Changed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FactChange {
    /// The fact id, or `(no id) <text>` for a fact without one.
    pub fact: String,
    pub kind: ChangeKind,
    pub file: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// Facts keyed by id; facts without an id by their normalised text.
pub fn fact_map(files: &Files) -> BTreeMap<String, FactState> {
    let mut map = BTreeMap::new();
    for (name, raw) in files {
        let Ok(file) = FactFile::parse(raw) else {
            continue;
        };
        for fact in file.facts() {
            map.insert(
                fact.key(),
                FactState {
                    file: name.clone(),
                    text: fact.text.clone(),
                    meta: fact.meta.clone(),
                },
            );
        }
    }
    map
}

/// Everything in the files that is not a fact (headings, paragraphs, comments), per file.
pub fn context_text(files: &Files) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(name, raw)| {
            let text = match FactFile::parse(raw) {
                Ok(file) => file.text_blocks().collect(),
                Err(_) => raw.clone(),
            };
            (name.clone(), text)
        })
        .collect()
}

/// Fact-level changes from `old` to `new`. Giving an id to a fact without one (same text and
/// metadata) and reformatting metadata are not changes.
pub fn changes(old: &Files, new: &Files) -> Vec<FactChange> {
    let (a, b) = (fact_map(old), fact_map(new));
    let mut out = Vec::new();
    for (key, before) in &a {
        match b.get(key) {
            Some(after) if after == before => {}
            Some(after) => out.push(change(key, ChangeKind::Changed, Some(before), Some(after))),
            None => {
                let stamped = key.starts_with(UNIDENTIFIED)
                    && b.iter().any(|(k, s)| !a.contains_key(k) && s == before);
                if !stamped {
                    out.push(change(key, ChangeKind::Removed, Some(before), None));
                }
            }
        }
    }
    for (key, after) in &b {
        if !a.contains_key(key) {
            let stamped = !key.starts_with(UNIDENTIFIED)
                && a.iter()
                    .any(|(k, s)| k.starts_with(UNIDENTIFIED) && !b.contains_key(k) && s == after);
            if !stamped {
                out.push(change(key, ChangeKind::Added, None, Some(after)));
            }
        }
    }
    out.sort_by(|x, y| (&x.fact, x.kind).cmp(&(&y.fact, y.kind)));
    out
}

fn change(
    key: &str,
    kind: ChangeKind,
    old: Option<&FactState>,
    new: Option<&FactState>,
) -> FactChange {
    FactChange {
        fact: key.to_owned(),
        kind,
        file: new.or(old).map(|s| s.file.clone()).unwrap_or_default(),
        old: old.map(|s| s.text.clone()),
        new: new.map(|s| s.text.clone()),
    }
}

/// The changes a decision's trailers announce: `(fact id, kind)`.
pub fn announced(decision: &Recorded) -> BTreeSet<(String, ChangeKind)> {
    let mut set = BTreeSet::new();
    if decision.verdict != "approve" {
        return set;
    }
    for op in &decision.operations {
        let ids = &op.fact_ids;
        match (op.op.as_str(), ids.as_slice()) {
            ("add", [id]) => set.insert((id.clone(), ChangeKind::Added)),
            ("update", [id]) => set.insert((id.clone(), ChangeKind::Changed)),
            ("remove", [id]) => set.insert((id.clone(), ChangeKind::Removed)),
            ("supersede", [old, new]) => {
                set.insert((old.clone(), ChangeKind::Changed));
                set.insert((new.clone(), ChangeKind::Added))
            }
            _ => false,
        };
    }
    set
}

/// Why a decision commit's change to the facts is not what it says, if it is not.
pub fn check_decision(
    decision: &Recorded,
    actual: &[FactChange],
    proposal: Option<&Proposal>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let expected = announced(decision);
    let seen: BTreeSet<(String, ChangeKind)> =
        actual.iter().map(|c| (c.fact.clone(), c.kind)).collect();
    for (fact, kind) in seen.difference(&expected) {
        problems.push(format!(
            "{fact} {} but the decision does not say so",
            kind_word(*kind)
        ));
    }
    for (fact, kind) in expected.difference(&seen) {
        problems.push(format!(
            "the decision records that {fact} {}, but the commit does not do that",
            kind_word(*kind)
        ));
    }
    let Some(p) = proposal else { return problems };
    if p.id != decision.proposal {
        problems.push(format!(
            "removes proposal {} but records decision on {}",
            p.id, decision.proposal
        ));
    }
    let ops: Vec<(String, Vec<String>, String)> = p
        .operations
        .iter()
        .map(|o| {
            let ids = match o {
                Operation::Supersede {
                    fact_id,
                    new_fact_id,
                    ..
                } => vec![fact_id.clone(), new_fact_id.clone()],
                _ => vec![o.fact_id().to_owned()],
            };
            (o.kind().to_owned(), ids, o.file().to_owned())
        })
        .collect();
    let recorded: Vec<(String, Vec<String>, String)> = decision
        .operations
        .iter()
        .map(|o| (o.op.clone(), o.fact_ids.clone(), o.file.clone()))
        .collect();
    if ops != recorded {
        problems.push("the operations differ from those of the proposal it removes".into());
    }
    if decision.verdict == "approve" && !decision.edited {
        for op in &p.operations {
            let (Some(text), Some(id)) = (op.text(), op.new_id().or(Some(op.fact_id()))) else {
                continue;
            };
            let written = actual
                .iter()
                .find(|c| c.fact == id)
                .and_then(|c| c.new.as_deref());
            if written.is_some_and(|w| w != text) {
                problems.push(format!(
                    "{id} says something other than the proposal proposed"
                ));
            }
        }
    }
    problems
}

fn kind_word(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Added => "was added",
        ChangeKind::Removed => "was removed",
        ChangeKind::Changed => "was changed",
    }
}

/// Facts of a merge result that match none of its parents: a merge must only combine what its
/// parents already had.
pub fn merge_invented(parents: &[Files], merged: &Files) -> Vec<String> {
    let maps: Vec<_> = parents.iter().map(fact_map).collect();
    let result = fact_map(merged);
    let keys: BTreeSet<&String> = maps
        .iter()
        .flat_map(|m| m.keys())
        .chain(result.keys())
        .collect();
    keys.into_iter()
        .filter(|k| !maps.iter().any(|m| m.get(*k) == result.get(*k)))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::decision::RecordedOp;

    fn files(src: &str) -> Files {
        [("a.md".to_owned(), src.to_owned())].into()
    }

    #[test]
    fn changes_are_semantic() {
        let old =
            files("# A\n- **f-1** One. <!-- since: 2026-01-01 -->\n- **f-2** Two.\n- Three.\n");
        let new = files("# A changed\n- **f-1** One.   <!--since:2026-01-01-->\n- **f-3** Three.\n- **f-4** Four.\n");
        let c = changes(&old, &new);
        let summary: Vec<_> = c.iter().map(|c| (c.fact.as_str(), c.kind)).collect();
        assert_eq!(
            summary,
            [("f-2", ChangeKind::Removed), ("f-4", ChangeKind::Added)]
        );
        assert_eq!(context_text(&old)["a.md"], "# A\n");
    }

    fn decision(ops: &[(&str, &[&str])]) -> Recorded {
        Recorded {
            verdict: "approve".into(),
            proposal: "p1".into(),
            operations: ops
                .iter()
                .map(|(op, ids)| RecordedOp {
                    op: (*op).into(),
                    fact_ids: ids.iter().map(|s| (*s).into()).collect(),
                    file: "a.md".into(),
                })
                .collect(),
            ..Recorded::default()
        }
    }

    #[test]
    fn decisions_must_match_their_changes() {
        let old = files("- **f-1** One.\n");
        let new = files("- **f-1** One. <!-- state: superseded; by: f-2 -->\n- **f-2** Uno.\n");
        let actual = changes(&old, &new);
        assert_eq!(
            check_decision(&decision(&[("supersede", &["f-1", "f-2"])]), &actual, None),
            Vec::<String>::new()
        );
        let wrong = check_decision(&decision(&[("add", &["f-2"])]), &actual, None);
        assert_eq!(wrong, ["f-1 was changed but the decision does not say so"]);
        let sneaky = files("- **f-1** One. <!-- state: superseded; by: f-2 -->\n- **f-2** Uno.\n- **f-9** Smuggled.\n");
        assert_eq!(
            check_decision(
                &decision(&[("supersede", &["f-1", "f-2"])]),
                &changes(&old, &sneaky),
                None
            )
            .len(),
            1
        );
    }

    #[test]
    fn merges_may_only_combine_their_parents() {
        let base = "- **f-1** One.\n";
        let left = files(&format!("{base}- **f-2** Two.\n"));
        let right = files(&format!("{base}- **f-3** Three.\n"));
        let merged = files(&format!("{base}- **f-2** Two.\n- **f-3** Three.\n"));
        assert!(merge_invented(&[left.clone(), right.clone()], &merged).is_empty());
        let evil = files(&format!("{base}- **f-2** Two!\n- **f-3** Three.\n"));
        assert_eq!(merge_invented(&[left, right], &evil), ["f-2"]);
    }
}

//! The fact-level audit: comparing ledgers fact by fact, and checking that a commit's change to
//! the facts is exactly what its decision trailers (and its proposal) describe. Used by
//! `verify`, `diff` and the commit-msg hook. Pure: inputs are file contents.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use crate::model::facts::change::{ChangeKind, FactChange};
use crate::model::facts::file::{Block, FactFile, Meta, UNIDENTIFIED};
use crate::model::proposals::proposal::{OpKind, Proposal};
use crate::model::provenance::decision::{Recorded, Verdict};

/// `file name → contents` of `.ledger/facts/*.md` at one commit.
pub type Files = BTreeMap<String, String>;

/// What a fact means, regardless of formatting: where it is, what it says, its metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FactState {
    pub file: String,
    pub text: String,
    pub meta: Meta,
}

/// Every version of each fact, keyed by id (facts without an id by their normalised text), in
/// file order. A key with more than one state is a fact the files hold more than once.
pub fn fact_map(files: &Files) -> BTreeMap<String, Vec<FactState>> {
    let mut map = BTreeMap::new();
    for (name, raw) in files {
        add_states(&mut map, &Parsed::of(name, raw), |_| true);
    }
    map
}

/// One fact file read: the key and state of each fact in order, and the text around them (all
/// of it for a file that does not parse, which holds no facts).
#[derive(Debug)]
struct Parsed {
    facts: Vec<(String, FactState)>,
    context: String,
}

impl Parsed {
    fn of(name: &str, raw: &str) -> Parsed {
        let Ok(file) = FactFile::parse(raw) else {
            return Parsed {
                facts: Vec::new(),
                context: raw.to_owned(),
            };
        };
        let mut facts = Vec::new();
        let mut context = String::new();
        // Taken apart rather than copied: a long history parses hundreds of versions of a file.
        for block in file.blocks {
            match block {
                Block::Text(text) => context.push_str(&text),
                Block::Fact(fact) => {
                    let key = fact.key();
                    let state = FactState {
                        file: name.to_owned(),
                        text: fact.text,
                        meta: fact.meta,
                    };
                    facts.push((key, state));
                }
            }
        }
        Parsed { facts, context }
    }
}

/// Fact files already read, by name and contents. Walking a history meets each version of a
/// file twice, as one commit's new side and then as its child's old side: the last few read are
/// kept, so each is parsed once.
#[derive(Debug, Default)]
pub struct Parses {
    recent: std::collections::VecDeque<(String, String, Rc<Parsed>)>,
}

impl Parses {
    const KEPT: usize = 8;

    fn get(&mut self, name: &str, raw: &str) -> Rc<Parsed> {
        if let Some((_, _, parsed)) = self.recent.iter().find(|(n, r, _)| n == name && r == raw) {
            return parsed.clone();
        }
        if self.recent.len() == Self::KEPT {
            self.recent.pop_front();
        }
        let parsed = Rc::new(Parsed::of(name, raw));
        self.recent
            .push_back((name.to_owned(), raw.to_owned(), parsed.clone()));
        parsed
    }
}

/// Adds the facts of a file read whose key `wanted` accepts.
fn add_states(map: &mut States, file: &Parsed, wanted: impl Fn(&str) -> bool) {
    for (key, state) in &file.facts {
        if wanted(key) {
            map.entry(key.clone()).or_default().push(state.clone());
        }
    }
}

/// What differs between two versions of the fact files.
#[derive(Debug, Default)]
pub struct FilesDiff {
    /// Fact-level changes, as [`changes`] finds them.
    pub changes: Vec<FactChange>,
    /// Files whose text around the facts differs (or that exist on one side only), sorted.
    pub context: Vec<String>,
}

/// Compares `old` with `new`, reading each file that differs once per side.
pub fn diff(old: &Files, new: &Files) -> FilesDiff {
    diff_with(old, new, &mut Parses::default())
}

/// [`diff`], taking files already read from `parses` and leaving those it reads there.
pub fn diff_with(old: &Files, new: &Files, parses: &mut Parses) -> FilesDiff {
    let (a, b, context) = changed_keys_states(old, new, parses);
    FilesDiff {
        changes: changes_between(&a, &b),
        context,
    }
}

type States = BTreeMap<String, Vec<FactState>>;

/// The states in `files` by key, borrowed.
fn by_key(files: &[Rc<Parsed>]) -> BTreeMap<&str, Vec<&FactState>> {
    let mut map: BTreeMap<&str, Vec<&FactState>> = BTreeMap::new();
    for file in files {
        for (key, state) in &file.facts {
            map.entry(key.as_str()).or_default().push(state);
        }
    }
    map
}

/// The states of the keys that differ between `old` and `new`, in file order, and the files
/// whose context differs. A file the same on both sides adds the same states to both, so only a
/// key whose states in the differing files differ can change; an unchanged file is read only if
/// it may hold one of those (an id is found in the file verbatim). Each commit of a long history
/// changes one file of many.
fn changed_keys_states(
    old: &Files,
    new: &Files,
    parses: &mut Parses,
) -> (States, States, Vec<String>) {
    let mut read_old = Vec::new();
    let mut before = BTreeMap::new();
    for (name, raw) in old {
        if new.get(name) != Some(raw) {
            let file = parses.get(name, raw);
            before.insert(name, file.clone());
            read_old.push(file);
        }
    }
    let mut read_new = Vec::new();
    let mut context = Vec::new();
    for (name, raw) in new {
        if old.get(name) != Some(raw) {
            let file = parses.get(name, raw);
            if before
                .remove(name)
                .is_none_or(|b| b.context != file.context)
            {
                context.push(name.clone());
            }
            read_new.push(file);
        }
    }
    // What is left was removed.
    context.extend(before.into_keys().cloned());
    context.sort();
    // Compared by reference: a commit changes a few facts of files that hold hundreds.
    let (in_old, in_new) = (by_key(&read_old), by_key(&read_new));
    let keys: BTreeSet<String> = in_old
        .keys()
        .chain(in_new.keys())
        .filter(|k| in_old.get(*k) != in_new.get(*k))
        .map(|k| (*k).to_owned())
        .collect();
    let owned = |map: BTreeMap<&str, Vec<&FactState>>| -> States {
        map.into_iter()
            .filter(|(k, _)| keys.contains(*k))
            .map(|(k, states)| (k.to_owned(), states.into_iter().cloned().collect()))
            .collect()
    };
    let (mut a, mut b) = (owned(in_old), owned(in_new));
    if keys.is_empty() {
        return (a, b, context);
    }
    let unidentified = keys.iter().any(|k| k.starts_with(UNIDENTIFIED));
    for (name, raw) in old {
        let unchanged = new.get(name) == Some(raw);
        if unchanged && (unidentified || keys.iter().any(|k| raw.contains(k.as_str()))) {
            let file = Parsed::of(name, raw);
            add_states(&mut a, &file, |k| keys.contains(k));
            add_states(&mut b, &file, |k| keys.contains(k));
        }
    }
    // File order, as `fact_map` gives it (the sort is stable: a file's facts keep their order).
    for states in a.values_mut().chain(b.values_mut()) {
        states.sort_by(|x, y| x.file.cmp(&y.file));
    }
    (a, b, context)
}

/// Fact-level changes from `old` to `new`: empty exactly when both hold the same facts, each as
/// often. Giving an id to a fact without one (same text and metadata) and reformatting metadata
/// are not changes.
pub fn changes(old: &Files, new: &Files) -> Vec<FactChange> {
    diff(old, new).changes
}

/// The changes from the fact states `a` to `b`.
fn changes_between(a: &States, b: &States) -> Vec<FactChange> {
    let none: Vec<FactState> = Vec::new();
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut out = Vec::new();
    for key in keys {
        let (before, after) = (a.get(key).unwrap_or(&none), b.get(key).unwrap_or(&none));
        if before == after || is_stamping(key, a, b) {
            continue;
        }
        let kind = match (before.len(), after.len()) {
            (_, 2..) => ChangeKind::Duplicated,
            (_, 0) => ChangeKind::Removed,
            (0, _) => ChangeKind::Added,
            _ => ChangeKind::Changed,
        };
        out.push(FactChange {
            fact: key.clone(),
            kind,
            file: after
                .first()
                .or(before.first())
                .map(|s| s.file.clone())
                .unwrap_or_default(),
            old: before.first().map(|s| s.text.clone()),
            new: after.first().map(|s| s.text.clone()),
        });
    }
    out
}

/// Whether `key` only appears or disappears because an id was stamped on a fact without one:
/// one side has the id-less fact, the other the same fact (text and metadata) under a new id.
fn is_stamping(
    key: &str,
    a: &BTreeMap<String, Vec<FactState>>,
    b: &BTreeMap<String, Vec<FactState>>,
) -> bool {
    let single = |m: &BTreeMap<String, Vec<FactState>>, k: &str| match m.get(k).map(Vec::as_slice) {
        Some([one]) => Some(one.clone()),
        _ => None,
    };
    let stamped_from = |from: &BTreeMap<String, Vec<FactState>>,
                        to: &BTreeMap<String, Vec<FactState>>,
                        state: &FactState,
                        want_unidentified: bool| {
        from.iter().any(|(k, v)| {
            k.starts_with(UNIDENTIFIED) == want_unidentified
                && !to.contains_key(k)
                && v.as_slice() == std::slice::from_ref(state)
        })
    };
    match (a.contains_key(key), b.contains_key(key)) {
        // An id-less fact that vanished: stamped if a new id holds the same fact.
        (true, false) if key.starts_with(UNIDENTIFIED) => {
            single(a, key).is_some_and(|s| stamped_from(b, a, &s, false))
        }
        // A new id: stamped if an id-less fact with the same state vanished.
        (false, true) if !key.starts_with(UNIDENTIFIED) => {
            single(b, key).is_some_and(|s| stamped_from(a, b, &s, true))
        }
        _ => false,
    }
}

/// The changes a decision's trailers announce: `(fact id, kind)`.
pub fn announced(decision: &Recorded) -> BTreeSet<(String, ChangeKind)> {
    let mut set = BTreeSet::new();
    if decision.verdict != Verdict::Approve {
        return set;
    }
    for op in &decision.operations {
        match (op.op, op.fact_ids.as_slice()) {
            (OpKind::Add, [id]) => set.insert((id.clone(), ChangeKind::Added)),
            (OpKind::Update, [id]) => set.insert((id.clone(), ChangeKind::Changed)),
            (OpKind::Remove, [id]) => set.insert((id.clone(), ChangeKind::Removed)),
            (OpKind::Supersede, [old, new]) => {
                set.insert((old.clone(), ChangeKind::Changed));
                set.insert((new.clone(), ChangeKind::Added))
            }
            (OpKind::Verify | OpKind::State | OpKind::Relate, [id]) => {
                set.insert((id.clone(), ChangeKind::Changed))
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
    let mut problems: Vec<String> = decision
        .malformed
        .iter()
        .map(|t| format!("unreadable decision trailer `{t}`"))
        .collect();
    let expected = announced(decision);
    let seen: BTreeSet<(String, ChangeKind)> =
        actual.iter().map(|c| (c.fact.clone(), c.kind)).collect();
    for (fact, kind) in seen.difference(&expected) {
        problems.push(format!(
            "{fact} {} but the decision does not say so",
            kind.past()
        ));
    }
    for (fact, kind) in expected.difference(&seen) {
        problems.push(format!(
            "the decision records that {fact} {}, but the commit does not do that",
            kind.past()
        ));
    }
    if let Some(p) = proposal {
        problems.extend(check_against_proposal(decision, actual, p));
    }
    problems
}

/// A decision must record the proposal it removes, with its operations, and (unless a reviewer
/// edited it) write the proposed text.
fn check_against_proposal(decision: &Recorded, actual: &[FactChange], p: &Proposal) -> Vec<String> {
    let mut problems = Vec::new();
    if p.id != decision.proposal {
        problems.push(format!(
            "removes proposal {} but records decision on {}",
            p.id, decision.proposal
        ));
    }
    let proposed: Vec<(OpKind, Vec<String>, &str)> = p
        .operations
        .iter()
        .map(|o| (o.kind(), o.fact_ids(), o.file()))
        .collect();
    let recorded: Vec<(OpKind, Vec<String>, &str)> = decision
        .operations
        .iter()
        .chain(&decision.dropped)
        .map(|o| (o.op, o.fact_ids.clone(), o.file.as_str()))
        .collect();
    // The approved operations and those the reviewer dropped are the proposal's, each once.
    let (mut proposed_sorted, mut recorded_sorted) = (proposed.clone(), recorded);
    proposed_sorted.sort();
    recorded_sorted.sort();
    if proposed_sorted != recorded_sorted {
        problems.push("the operations differ from those of the proposal it removes".into());
    }
    if !decision.dropped.is_empty() && !decision.edited {
        problems.push(
            "drops operations of the proposal but is not marked as the reviewer's edit".into(),
        );
    }
    if decision.verdict != Verdict::Approve || decision.edited {
        return problems;
    }
    for op in &p.operations {
        // Verifying, moving to a state and relating change metadata only.
        let keeps_text = op.text().is_none() && op.kind() != OpKind::Remove;
        if keeps_text
            && actual
                .iter()
                .any(|c| c.fact == op.fact_id() && c.old != c.new)
        {
            problems.push(format!(
                "{} says something else now, but a {} changes no text",
                op.fact_id(),
                op.kind().as_str()
            ));
        }
        let Some(text) = op.text() else { continue };
        let id = op.text_fact_id();
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
    problems
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
    use crate::model::provenance::decision::RecordedOp;

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
        assert_eq!(diff(&old, &new).context, ["a.md"]);
        assert_eq!(diff(&old, &old).context, Vec::<String>::new());
    }

    #[test]
    fn a_fact_copied_beside_an_unchanged_file_is_a_duplicate() {
        let both = |a: &str, b: &str| -> Files {
            [
                ("a.md".to_owned(), a.to_owned()),
                ("b.md".to_owned(), b.to_owned()),
            ]
            .into()
        };
        let held = "- **f-1** One.\n";
        let c = changes(&both("", held), &both(held, held));
        let summary: Vec<_> = c.iter().map(|c| (c.fact.as_str(), c.kind)).collect();
        assert_eq!(summary, [("f-1", ChangeKind::Duplicated)]);
    }

    proptest::proptest! {
        /// Reading only the files that differ (and the unchanged ones that may hold their ids)
        /// finds what comparing every fact and all the text around them on both sides finds.
        #[test]
        fn changes_read_only_what_differs(
            old in proptest::collection::vec(proptest::collection::vec(0..12usize, 0..5), 0..4),
            new in proptest::collection::vec(proptest::collection::vec(0..12usize, 0..5), 0..4),
        ) {
            // Small pools, so that ids repeat, move between files and lose or gain their id.
            let line = |i: usize| match i {
                0..4 => format!("- **f-{}** Fact {}.\n", i % 2, i / 2),
                4..8 => format!("- Plain {}.\n", i % 2),
                8..10 => format!("- **f-{i}** Plain {}.\n", i % 2),
                _ => format!("Note {i}.\n"),
            };
            let side = |picks: &Vec<Vec<usize>>| -> Files {
                picks
                    .iter()
                    .enumerate()
                    .map(|(n, lines)| (format!("{n}.md"), lines.iter().map(|&i| line(i)).collect()))
                    .collect()
            };
            let (old, new) = (side(&old), side(&new));
            let found = diff(&old, &new);
            proptest::prop_assert_eq!(
                found.changes,
                changes_between(&fact_map(&old), &fact_map(&new))
            );
            let around = |files: &Files| -> BTreeMap<String, String> {
                files
                    .iter()
                    .map(|(n, raw)| (n.clone(), FactFile::parse(raw).unwrap().text_blocks().collect()))
                    .collect()
            };
            let (x, y) = (around(&old), around(&new));
            let context: BTreeSet<&String> =
                x.keys().chain(y.keys()).filter(|n| x.get(*n) != y.get(*n)).collect();
            proptest::prop_assert_eq!(found.context.iter().collect::<BTreeSet<_>>(), context);
            // Files read for one comparison serve the next as they are.
            let mut parses = Parses::default();
            diff_with(&old, &new, &mut parses);
            let again = diff_with(&new, &old, &mut parses);
            let fresh = diff(&new, &old);
            proptest::prop_assert_eq!(again.changes, fresh.changes);
            proptest::prop_assert_eq!(again.context, fresh.context);
        }
    }

    fn decision(ops: &[(&str, &[&str])]) -> Recorded {
        Recorded {
            operations: ops
                .iter()
                .map(|(op, ids)| RecordedOp {
                    op: OpKind::parse(op).unwrap(),
                    fact_ids: ids.iter().map(|s| (*s).into()).collect(),
                    file: "a.md".into(),
                })
                .collect(),
            ..Recorded::new(Verdict::Approve, "p1")
        }
    }

    #[test]
    fn a_second_item_under_an_existing_id_is_a_change() {
        let old = files(
            "- **f-1** One.
",
        );
        let smuggled = files(
            "- **f-1** One.
- **f-1** Something nobody reviewed.
",
        );
        let found = changes(&old, &smuggled);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].kind, ChangeKind::Duplicated);
        let update = check_decision(&decision(&[("update", &["f-1"])]), &found, None);
        assert_eq!(update.len(), 2, "{update:?}");
        assert_eq!(changes(&smuggled, &smuggled), []);
        let stamped = files(
            "- **f-1** One.
- Two.
",
        );
        let with_id = files(
            "- **f-1** One.
- **f-2** Two.
",
        );
        assert_eq!(changes(&stamped, &with_id), []);
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

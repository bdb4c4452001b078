//! Applying a proposal to the ledger: a pure function from (ledger, proposal) to new file
//! contents. Only the lines of the facts an operation touches change.

use std::collections::{BTreeMap, HashMap};

use crate::model::base::text::normalize;
use crate::model::facts::file::{render_fact, Block, Fact, FactFile, Meta, Relations, State};
use crate::model::facts::ledger::{FactFileEntry, Ledger};
use crate::model::proposals::proposal::{Operation, Proposal};

/// The new contents of every fact file the proposal changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub files: Vec<FileChange>,
    /// A target file changed since the proposal was made, but the proposal still applied cleanly.
    pub rebased: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// File name, such as `architecture.md`.
    pub name: String,
    pub old: String,
    pub new: String,
}

/// Why a proposal no longer applies. Only a rejection or an edit can resolve it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Conflict {
    #[error("fact file {file} no longer exists")]
    MissingFile { file: String },
    #[error("fact `{id}` no longer exists")]
    FactVanished { id: String },
    #[error("fact `{id}` changed since the proposal was made")]
    FactChanged {
        id: String,
        /// Text when proposed.
        before: String,
        /// Text now.
        now: String,
    },
    #[error("fact `{id}` is now superseded or archived")]
    NotCurrent { id: String },
    #[error("the id `{id}` is already used by another fact")]
    IdTaken { id: String },
    #[error("the ledger already has this statement as `{id}`")]
    AlreadyPresent { id: String },
    #[error(
        "{file} cannot take this change as it is laid out: {why}; adjust the file by hand first"
    )]
    Layout { file: String, why: String },
}

/// `proposal` aimed at the facts as they are now: each operation on an existing fact that
/// changed since it was proposed takes the fact's current text as the one it expects. `None`
/// when no target changed. A reviewer who read the new diff decides on that (review's `r`).
pub fn retargeted(ledger: &Ledger, proposal: &Proposal) -> Option<Proposal> {
    let mut out = proposal.clone();
    let mut changed = false;
    for op in &mut out.operations {
        let (Some(before), Some((_, fact))) = (op.before(), ledger.find(op.fact_id())) else {
            continue;
        };
        if before != fact.text {
            op.set_before(fact.text.clone());
            changed = true;
        }
    }
    changed.then_some(out)
}

/// Whether `proposal` applies to the facts as they are, judged by fact ids and texts alone:
/// every conflict `apply` reports but `Layout`, without building a file. Returns whether a
/// target file changed since the proposal was made (`rebased`). Cheap enough for `review list`
/// over thousands of proposals; `apply` starts with it.
pub fn check(ledger: &Ledger, proposal: &Proposal) -> Result<bool, Conflict> {
    // What earlier operations made of a fact: its text and whether it is still current; `None`
    // once removed.
    let mut changed: HashMap<&str, Option<(&str, bool)>> = HashMap::new();
    let mut rebased = false;
    for op in &proposal.operations {
        let entry = current_file(ledger, op)?;
        rebased |= proposal.base.get(&entry.name).map(String::as_str) != Some(entry.sha256());
        let now = |id: &str| match changed.get(id) {
            Some(state) => *state,
            None => ledger
                .find(id)
                .map(|(_, f)| (f.text.as_str(), f.meta.is_current())),
        };
        let taken =
            |id: &str| ledger.find(id).is_some() || changed.get(id).is_some_and(Option::is_some);
        check_new_facts(ledger, taken, op)?;
        if op.before().is_some() {
            check_target(op, now(op.fact_id()))?;
        }
        match op {
            Operation::Add { fact_id, text, .. } => {
                changed.insert(fact_id, Some((text, true)));
            }
            Operation::Update { fact_id, text, .. } => {
                let current = now(fact_id).is_some_and(|(_, c)| c);
                changed.insert(fact_id, Some((text, current)));
            }
            Operation::Remove { fact_id, .. } => {
                changed.insert(fact_id, None);
            }
            Operation::Supersede {
                fact_id,
                before,
                new_fact_id,
                text,
                ..
            } => {
                changed.insert(fact_id, Some((before, false)));
                changed.insert(new_fact_id, Some((text, true)));
            }
            Operation::State {
                fact_id,
                before,
                state,
                ..
            } => {
                changed.insert(fact_id, Some((before, state.is_current())));
            }
            Operation::Verify { .. } | Operation::Relate { .. } => {}
        }
    }
    Ok(rebased)
}

/// Applies `proposal` to `ledger`. `today` (`YYYY-MM-DD`) is stamped as `since` on new and
/// updated facts.
pub fn apply(ledger: &Ledger, proposal: &Proposal, today: &str) -> Result<Applied, Conflict> {
    let rebased = check(ledger, proposal)?;
    let mut files: BTreeMap<String, FactFile> = BTreeMap::new();
    for op in &proposal.operations {
        let entry = current_file(ledger, op)?;
        let file = files
            .entry(entry.name.clone())
            .or_insert_with(|| entry.file().clone());
        let before = file.clone();
        apply_op(file, op, proposal.evidence_of(op), today)?;
        *file = reparse(&entry.name, &before, file, op)?;
    }
    let files = files
        .into_iter()
        .filter_map(|(name, file)| {
            let old = &ledger.file(&name)?.raw;
            let new = file.render();
            (*old != new).then(|| FileChange {
                name,
                old: old.clone(),
                new,
            })
        })
        .collect();
    Ok(Applied { files, rebased })
}

/// The file an operation changes: for an existing fact, wherever it lives now (the proposal's
/// file name is where it was).
fn current_file<'l>(ledger: &'l Ledger, op: &Operation) -> Result<&'l FactFileEntry, Conflict> {
    let name = match op {
        Operation::Add { file, .. } => file.as_str(),
        _ => match ledger.find(op.fact_id()) {
            Some((entry, _)) => entry.name.as_str(),
            None => {
                return Err(Conflict::FactVanished {
                    id: op.fact_id().to_owned(),
                })
            }
        },
    };
    ledger.file(name).ok_or_else(|| Conflict::MissingFile {
        file: name.to_owned(),
    })
}

/// A new fact needs an unused id (`taken` says which are) and a statement the ledger does not
/// already hold.
fn check_new_facts(
    ledger: &Ledger,
    taken: impl Fn(&str) -> bool,
    op: &Operation,
) -> Result<(), Conflict> {
    if let Some(new_id) = op.new_id().filter(|id| taken(id)) {
        return Err(Conflict::IdTaken {
            id: new_id.to_owned(),
        });
    }
    match op
        .text()
        .and_then(|t| ledger.same_statement(&normalize(t), op.fact_id()))
    {
        Some((_, f)) => Err(Conflict::AlreadyPresent {
            id: Ledger::label(f),
        }),
        None => Ok(()),
    }
}

/// The fact an operation targets must be there (`now`: its text and whether it is current),
/// with the text it was proposed against; superseding or verifying a fact that is no longer
/// current is a conflict too.
fn check_target(op: &Operation, now: Option<(&str, bool)>) -> Result<(), Conflict> {
    let id = op.fact_id();
    let (text, current) = now.ok_or_else(|| Conflict::FactVanished { id: id.to_owned() })?;
    let before = op.before().unwrap_or(text);
    if text != before {
        return Err(Conflict::FactChanged {
            id: id.to_owned(),
            before: before.to_owned(),
            now: text.to_owned(),
        });
    }
    if !current && matches!(op, Operation::Supersede { .. } | Operation::Verify { .. }) {
        return Err(Conflict::NotCurrent { id: id.to_owned() });
    }
    Ok(())
}

/// Applies one operation; `evidence` is what the proposal gives its fact
/// ([`Proposal::evidence_of`]): none keeps the fact's own.
fn apply_op(
    file: &mut FactFile,
    op: &Operation,
    evidence: &[String],
    today: &str,
) -> Result<(), Conflict> {
    let eol = file.line_ending();
    let evidence_or = |old: &Meta| {
        if evidence.is_empty() {
            old.evidence.clone()
        } else {
            evidence.to_vec()
        }
    };
    let new_meta = |old: &Meta, relations: &Relations| Meta {
        since: Some(today.to_owned()),
        evidence: evidence_or(old),
        scope: if op.scope().is_empty() {
            old.scope.clone()
        } else {
            op.scope().to_vec()
        },
        relations: related(&old.relations, relations, &Relations::new()),
        ..old.clone()
    };
    match op {
        Operation::Add {
            fact_id,
            text,
            relations,
            state,
            by,
            ..
        } => {
            let mut meta = new_meta(&Meta::default(), relations);
            meta.state.clone_from(state);
            meta.by.clone_from(by);
            match insertion_point(file, fact_id) {
                Some(at) => {
                    let Block::Fact(next) = &file.blocks[at] else {
                        unreachable!("an insertion point is a fact")
                    };
                    let item = render_fact(&next.marker, fact_id, text, &meta, eol);
                    file.blocks.insert(at, Block::Text(item));
                }
                None => {
                    let marker = file
                        .facts()
                        .last()
                        .map(|f| next_marker(&f.marker))
                        .unwrap_or_else(|| "-".into());
                    let item = render_fact(&marker, fact_id, text, &meta, eol);
                    insert_after_last_fact(file, item, eol);
                }
            }
        }
        Operation::Update {
            fact_id,
            text,
            relations,
            ..
        } => {
            let fact = target(file, op)?;
            let meta = new_meta(&fact.meta, relations);
            fact.raw = render_fact(&fact.marker, fact_id, text, &meta, eol);
        }
        Operation::Remove { fact_id, .. } => {
            target(file, op)?;
            remove_fact(file, fact_id);
        }
        Operation::Supersede {
            new_fact_id,
            text,
            relations,
            ..
        } => {
            let fact = target(file, op)?;
            let old_meta = Meta {
                state: Some(State::Superseded),
                by: Some(new_fact_id.clone()),
                ..fact.meta.clone()
            };
            let mut old_raw = fact.raw_with_meta(&old_meta);
            if !old_raw.ends_with('\n') {
                old_raw.push_str(eol);
            }
            // The replacement cites what the old fact cited, and is about what it was about,
            // unless the proposal says otherwise.
            let cited = Meta {
                evidence: fact.meta.evidence.clone(),
                scope: fact.meta.scope.clone(),
                ..Meta::default()
            };
            let item = render_fact(
                &next_marker(&fact.marker),
                new_fact_id,
                text,
                &new_meta(&cited, relations),
                eol,
            );
            fact.raw = old_raw + &item;
        }
        Operation::Verify { .. } => {
            let fact = target(file, op)?;
            let meta = Meta {
                verified: Some(today.to_owned()),
                evidence: evidence_or(&fact.meta),
                state: fact.meta.state.clone().filter(|s| *s != State::Stale),
                ..fact.meta.clone()
            };
            fact.raw = fact.raw_with_meta(&meta);
        }
        Operation::State { state, .. } => {
            let fact = target(file, op)?;
            let meta = Meta {
                state: Some(state.clone()).filter(|s| *s != State::Active),
                // Only a superseded fact names what replaced it.
                by: fact.meta.by.clone().filter(|_| *state == State::Superseded),
                ..fact.meta.clone()
            };
            fact.raw = fact.raw_with_meta(&meta);
        }
        Operation::Relate { add, remove, .. } => {
            let fact = target(file, op)?;
            let meta = Meta {
                relations: related(&fact.meta.relations, add, remove),
                ..fact.meta.clone()
            };
            fact.raw = fact.raw_with_meta(&meta);
        }
    }
    Ok(())
}

/// `old` with the ids of `add` and without those of `remove`; kinds left empty are dropped.
pub fn related(old: &Relations, add: &Relations, remove: &Relations) -> Relations {
    let mut out = old.clone();
    for (relation, ids) in add {
        out.entry(*relation)
            .or_default()
            .extend(ids.iter().cloned());
    }
    for (relation, ids) in remove {
        if let Some(kept) = out.get_mut(relation) {
            kept.retain(|id| !ids.contains(id));
        }
    }
    out.retain(|_, ids| !ids.is_empty());
    out
}

/// Parses the changed file back, so later operations see its new facts and line numbers, and
/// checks that it holds exactly what the operation meant: the same front matter, the same facts
/// in the same order but for the one added, removed or changed, and the proposed text. Markdown
/// around the facts can make a rendered change read differently (a thematic break that becomes
/// front matter once the fact before it is gone); such a change is refused, never written.
fn reparse(
    name: &str,
    before: &FactFile,
    changed: &FactFile,
    op: &Operation,
) -> Result<FactFile, Conflict> {
    let layout = |why: String| Conflict::Layout {
        file: name.to_owned(),
        why,
    };
    let after = FactFile::parse(&changed.render()).map_err(|e| layout(e.to_string()))?;
    if after.front_matter != before.front_matter {
        return Err(layout("the front matter would change".into()));
    }
    let mut expected: Vec<String> = before.facts().map(Fact::key).collect();
    match op {
        Operation::Add { fact_id, .. } => {
            let at = insertion_point(before, fact_id).map_or(expected.len(), |block| {
                before.blocks[..block]
                    .iter()
                    .filter(|b| matches!(b, Block::Fact(_)))
                    .count()
            });
            expected.insert(at, fact_id.clone());
        }
        Operation::Remove { fact_id, .. } => expected.retain(|k| k != fact_id),
        Operation::Supersede {
            fact_id,
            new_fact_id,
            ..
        } => {
            let at = expected
                .iter()
                .position(|k| k == fact_id)
                .map_or(0, |i| i + 1);
            expected.insert(at, new_fact_id.clone());
        }
        _ => {}
    }
    let found: Vec<String> = after.facts().map(Fact::key).collect();
    if found != expected {
        return Err(layout(
            "the facts around the change would read differently".into(),
        ));
    }
    let written = op.text_fact_id();
    let untouched: BTreeMap<String, (&str, &Meta)> = before
        .facts()
        .map(|f| (f.key(), (f.text.as_str(), &f.meta)))
        .collect();
    for (fact, key) in after.facts().zip(found) {
        let intact = if key == written {
            op.text().or(op.before()).is_none_or(|t| fact.text == t)
        } else {
            key == op.fact_id() || untouched.get(&key) == Some(&(fact.text.as_str(), &fact.meta))
        };
        if !intact {
            return Err(layout(format!("fact `{key}` would not read as proposed")));
        }
    }
    Ok(after)
}

/// The fact `id` in `file`, provided its text is still what the proposal saw.
fn target<'f>(file: &'f mut FactFile, op: &Operation) -> Result<&'f mut Fact, Conflict> {
    let id = op.fact_id();
    let fact = file.facts_mut().find(|f| f.id.as_deref() == Some(id));
    check_target(
        op,
        fact.as_ref()
            .map(|f| (f.text.as_str(), f.meta.is_current())),
    )?;
    fact.ok_or_else(|| Conflict::FactVanished { id: id.to_owned() })
}

fn remove_fact(file: &mut FactFile, id: &str) {
    file.blocks
        .retain(|b| !matches!(b, Block::Fact(f) if f.id.as_deref() == Some(id)));
}

/// The marker for an item after one with `marker`: the same bullet, or the next number.
fn next_marker(marker: &str) -> String {
    let m = marker.trim_start();
    let indent = marker.strip_suffix(m).unwrap_or("");
    match m.strip_suffix(['.', ')']) {
        Some(num) if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) => {
            let next = num.parse::<u64>().map(|n| n + 1).unwrap_or(1);
            let delimiter = m.strip_prefix(num).unwrap_or("");
            format!("{indent}{next}{delimiter}")
        }
        _ => marker.to_owned(),
    }
}

/// Where a new fact goes: before the first fact of the file's last list whose id sorts after
/// the new one (`None`: after the last fact). Ids are random, so two branches that each add a
/// fact to one file usually insert at different places, and git's line merge (all a forge uses)
/// takes both without a conflict; appending both at the end always conflicts. A numbered list
/// is only appended to, so its numbers stay in order.
fn insertion_point(file: &FactFile, id: &str) -> Option<usize> {
    let last = file
        .blocks
        .iter()
        .rposition(|b| matches!(b, Block::Fact(_)))?;
    let first = file.blocks[..last]
        .iter()
        .rposition(|b| !matches!(b, Block::Fact(_)))
        .map_or(0, |i| i + 1);
    let numbered = |f: &Fact| {
        f.marker
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit())
    };
    (first..=last).find(|&i| match &file.blocks[i] {
        Block::Fact(f) => !numbered(f) && f.id.as_deref().is_some_and(|other| other > id),
        Block::Text(_) => false,
    })
}

/// Appends `item` right after the file's last fact, or at the end of the file, separated from
/// preceding text by a blank line.
fn insert_after_last_fact(file: &mut FactFile, item: String, eol: &str) {
    let last = file
        .blocks
        .iter()
        .rposition(|b| matches!(b, Block::Fact(_)));
    match last {
        Some(i) => {
            let Block::Fact(f) = &mut file.blocks[i] else {
                unreachable!()
            };
            if !f.raw.ends_with('\n') {
                f.raw.push_str(eol);
            }
            file.blocks.insert(i + 1, Block::Text(item));
        }
        None => {
            let mut text = file.render();
            if !text.is_empty() {
                if !text.ends_with('\n') {
                    text.push_str(eol);
                }
                if !text.ends_with(&format!("{eol}{eol}")) {
                    text.push_str(eol);
                }
            }
            text.push_str(&item);
            file.blocks = vec![Block::Text(text)];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::facts::ledger::tests::ledger;
    use crate::model::proposals::proposal::SCHEMA;

    const ARCH: &str = "---\ntitle: A\n---\n\n# A\n\n- **f-aaaa** We use PostgreSQL 16.\n- **f-bbbb** Services talk gRPC.\n  Over TLS.\n\nTrailing paragraph.\n";

    fn proposal(ops: Vec<Operation>, l: &Ledger) -> Proposal {
        Proposal {
            schema: SCHEMA,
            id: "20261122T100000Z-00000000".into(),
            created_at: "2026-11-22T10:00:00.000000Z".into(),
            agent: Some("claude".into()),
            author: None,
            reason: "r".into(),
            evidence: vec!["src/x.rs:1".into()],
            base: l
                .files()
                .iter()
                .map(|f| (f.name.clone(), f.sha256().to_owned()))
                .collect(),
            operations: ops,
        }
    }

    /// Applies `op` to a one-file ledger, and checks that `check` (no file rebuilt) reaches the
    /// same verdict.
    #[test]
    fn an_add_with_its_own_evidence_and_state_writes_them_into_the_metadata() {
        let op = Operation::Add {
            scope: Vec::new(),
            file: "architecture.md".into(),
            fact_id: "f-new1".into(),
            text: "Old way.".into(),
            relations: Default::default(),
            evidence: vec!["CLAUDE.md:12".into()],
            state: Some(State::Superseded),
            by: Some("f-aaaa".into()),
        };
        let out = one(ARCH, op).unwrap();
        assert!(
            out.files[0].new.contains(
                "- **f-new1** Old way. <!-- state: superseded; by: f-aaaa; since: 2026-11-22; evidence: CLAUDE.md:12 -->\n"
            ),
            "{}",
            out.files[0].new
        );
    }

    fn one(src: &str, op: Operation) -> Result<Applied, Conflict> {
        let l = ledger(&[("architecture.md", src)]);
        let p = proposal(vec![op], &l);
        let applied = apply(&l, &p, "2026-11-22");
        match (&applied, check(&l, &p)) {
            (Err(Conflict::Layout { .. }), _) => {}
            (Ok(a), checked) => assert_eq!(checked, Ok(a.rebased)),
            (Err(conflict), checked) => assert_eq!(checked.as_ref(), Err(conflict)),
        }
        applied
    }

    fn add(text: &str) -> Operation {
        Operation::Add {
            scope: Vec::new(),
            file: "architecture.md".into(),
            fact_id: "f-new1".into(),
            text: text.into(),
            relations: Default::default(),
            evidence: Vec::new(),
            state: None,
            by: None,
        }
    }

    #[test]
    fn add_goes_after_the_last_fact() {
        let out = one(ARCH, add("Cache per tenant.\nSecond line.")).unwrap();
        assert!(!out.rebased);
        assert_eq!(
            out.files[0].new,
            ARCH.replace(
                "  Over TLS.\n",
                "  Over TLS.\n- **f-new1** Cache per tenant. <!-- since: 2026-11-22; evidence: src/x.rs:1 -->\n  Second line.\n"
            )
        );
    }

    #[test]
    fn add_goes_where_its_id_sorts_in_the_last_list() {
        let src = "# A\n\n- **f-0001** Elsewhere.\n\nText.\n\n* **f-aaaa** One.\n* **f-cccc** Three.\n  More.\n* **f-eeee** Five.\n";
        let op = |id: &str| Operation::Add {
            scope: Vec::new(),
            file: "architecture.md".into(),
            fact_id: id.into(),
            text: "New.".into(),
            relations: Default::default(),
            evidence: Vec::new(),
            state: None,
            by: None,
        };
        let l = ledger(&[("architecture.md", src)]);
        let new = |id: &str| {
            apply(&l, &proposal(vec![op(id)], &l), "2026-11-22")
                .unwrap()
                .files[0]
                .new
                .clone()
        };
        assert!(new("f-bbbb").contains("* **f-aaaa** One.\n* **f-bbbb** New. <!-- since: 2026-11-22; evidence: src/x.rs:1 -->\n* **f-cccc** Three.\n  More.\n"));
        assert!(
            new("f-0000").contains("\n\n* **f-0000** New."),
            "never into an earlier list"
        );
        assert!(new("f-zzzz").ends_with("* **f-eeee** Five.\n* **f-zzzz** New. <!-- since: 2026-11-22; evidence: src/x.rs:1 -->\n"));
        // A numbered list keeps its numbers: appended.
        let numbered = ledger(&[(
            "architecture.md",
            "1. **f-cccc** One.\n2. **f-eeee** Two.\n",
        )]);
        let out = apply(
            &numbered,
            &proposal(vec![op("f-aaaa")], &numbered),
            "2026-11-22",
        )
        .unwrap();
        assert!(out.files[0].new.ends_with("2. **f-eeee** Two.\n3. **f-aaaa** New. <!-- since: 2026-11-22; evidence: src/x.rs:1 -->\n"));
    }

    #[test]
    fn add_to_an_empty_file_keeps_the_template_and_a_blank_line() {
        let template = crate::model::facts::starter::FILES[0].1;
        let out = one(template, add("First.")).unwrap();
        let new = &out.files[0].new;
        assert!(new.starts_with(template));
        assert!(
            new.ends_with(
                "-->\n\n- **f-new1** First. <!-- since: 2026-11-22; evidence: src/x.rs:1 -->\n"
            ),
            "{new}"
        );
        let parsed = FactFile::parse(new).unwrap();
        assert_eq!(parsed.facts().count(), 1);
    }

    #[test]
    fn add_follows_ordered_numbering_and_crlf() {
        let out = one("1. **f-aaaa** One.\r\n2. **f-bbbb** Two.", add("Three.")).unwrap();
        assert_eq!(
            out.files[0].new,
            "1. **f-aaaa** One.\r\n2. **f-bbbb** Two.\r\n3. **f-new1** Three. <!-- since: 2026-11-22; evidence: src/x.rs:1 -->\r\n"
        );
    }

    #[test]
    fn update_rewrites_only_that_fact() {
        let op = Operation::Update {
            scope: Vec::new(),
            evidence: Vec::new(),
            file: "architecture.md".into(),
            fact_id: "f-bbbb".into(),
            before: "Services talk gRPC.\nOver TLS.".into(),
            text: "Services talk gRPC with mTLS.".into(),
            relations: Default::default(),
        };
        let out = one(ARCH, op).unwrap();
        assert_eq!(
            out.files[0].new,
            ARCH.replace(
                "- **f-bbbb** Services talk gRPC.\n  Over TLS.\n",
                "- **f-bbbb** Services talk gRPC with mTLS. <!-- since: 2026-11-22; evidence: src/x.rs:1 -->\n"
            )
        );
    }

    #[test]
    fn remove_drops_the_item() {
        let op = Operation::Remove {
            file: "architecture.md".into(),
            fact_id: "f-aaaa".into(),
            before: "We use PostgreSQL 16.".into(),
        };
        let out = one(ARCH, op).unwrap();
        assert_eq!(
            out.files[0].new,
            ARCH.replace("- **f-aaaa** We use PostgreSQL 16.\n", "")
        );
    }

    #[test]
    fn supersede_keeps_the_old_fact_marked_and_links_the_new_one() {
        let op = Operation::Supersede {
            scope: Vec::new(),
            evidence: Vec::new(),
            file: "architecture.md".into(),
            fact_id: "f-aaaa".into(),
            before: "We use PostgreSQL 16.".into(),
            new_fact_id: "f-new1".into(),
            text: "We use PostgreSQL 17.".into(),
            relations: Default::default(),
        };
        let out = one(ARCH, op).unwrap();
        assert_eq!(
            out.files[0].new,
            ARCH.replace(
                "- **f-aaaa** We use PostgreSQL 16.\n",
                "- **f-aaaa** We use PostgreSQL 16. <!-- state: superseded; by: f-new1 -->\n- **f-new1** We use PostgreSQL 17. <!-- since: 2026-11-22; evidence: src/x.rs:1 -->\n"
            )
        );
    }

    #[test]
    fn stale_but_clean_proposals_rebase() {
        let old = ledger(&[("architecture.md", ARCH)]);
        let p = proposal(
            vec![Operation::Remove {
                file: "architecture.md".into(),
                fact_id: "f-aaaa".into(),
                before: "We use PostgreSQL 16.".into(),
            }],
            &old,
        );
        let changed = ARCH.replace("Trailing paragraph.", "Another paragraph.");
        let now = ledger(&[("architecture.md", &changed)]);
        let out = apply(&now, &p, "2026-11-22").unwrap();
        assert!(out.rebased);
        assert_eq!(
            out.files[0].new,
            changed.replace("- **f-aaaa** We use PostgreSQL 16.\n", "")
        );
    }

    #[test]
    fn conflicts() {
        let upd = |before: &str| Operation::Update {
            scope: Vec::new(),
            evidence: Vec::new(),
            file: "architecture.md".into(),
            fact_id: "f-aaaa".into(),
            before: before.into(),
            text: "New.".into(),
            relations: Default::default(),
        };
        assert!(
            matches!(one(ARCH, upd("Something else.")), Err(Conflict::FactChanged { now, .. }) if now == "We use PostgreSQL 16.")
        );
        assert!(matches!(
            one("# empty\n", upd("We use PostgreSQL 16.")),
            Err(Conflict::FactVanished { .. })
        ));
        assert!(
            matches!(one(ARCH, add("we use postgresql 16")), Err(Conflict::AlreadyPresent { id }) if id == "f-aaaa")
        );
        let taken = Operation::Add {
            scope: Vec::new(),
            file: "architecture.md".into(),
            fact_id: "f-aaaa".into(),
            text: "Fresh.".into(),
            relations: Default::default(),
            evidence: Vec::new(),
            state: None,
            by: None,
        };
        assert!(matches!(one(ARCH, taken), Err(Conflict::IdTaken { .. })));
        let missing = Operation::Add {
            scope: Vec::new(),
            file: "gone.md".into(),
            fact_id: "f-new1".into(),
            text: "Fresh.".into(),
            relations: Default::default(),
            evidence: Vec::new(),
            state: None,
            by: None,
        };
        assert!(matches!(
            one(ARCH, missing),
            Err(Conflict::MissingFile { .. })
        ));
    }

    #[test]
    fn a_change_that_would_make_the_file_read_differently_is_a_conflict() {
        let remove = |id: &str, before: &str| Operation::Remove {
            file: "architecture.md".into(),
            fact_id: id.into(),
            before: before.into(),
        };
        // Removing the first fact would leave a thematic break at the top: front matter.
        let unclosed = "- **f-aaaa** One.\n---\n- **f-bbbb** Two.\n";
        assert!(matches!(
            one(unclosed, remove("f-aaaa", "One.")),
            Err(Conflict::Layout { .. })
        ));
        let closed = "- **f-aaaa** One.\n---\n- **f-bbbb** Two.\n---\nTail.\n";
        assert!(matches!(
            one(closed, remove("f-aaaa", "One.")),
            Err(Conflict::Layout { .. })
        ));
        // Removing a later fact leaves the break where it was.
        let out = one(closed, remove("f-bbbb", "Two.")).unwrap();
        assert_eq!(out.files[0].new, "- **f-aaaa** One.\n---\n---\nTail.\n");
    }

    #[test]
    fn several_operations_on_one_file_compose() {
        let l = ledger(&[("architecture.md", ARCH)]);
        let p = proposal(
            vec![
                add("Fresh fact."),
                Operation::Remove {
                    file: "architecture.md".into(),
                    fact_id: "f-aaaa".into(),
                    before: "We use PostgreSQL 16.".into(),
                },
            ],
            &l,
        );
        let out = apply(&l, &p, "2026-11-22").unwrap();
        assert_eq!(out.files.len(), 1);
        let parsed = FactFile::parse(&out.files[0].new).unwrap();
        let ids: Vec<_> = parsed.facts().map(|f| f.id.clone().unwrap()).collect();
        assert_eq!(ids, ["f-bbbb", "f-new1"]);
        // Later operations see what earlier ones did: removing twice, or superseding a fact
        // twice, conflicts without any file being built.
        let remove = Operation::Remove {
            file: "architecture.md".into(),
            fact_id: "f-aaaa".into(),
            before: "We use PostgreSQL 16.".into(),
        };
        let twice = proposal(vec![remove.clone(), remove], &l);
        assert_eq!(
            check(&l, &twice),
            Err(Conflict::FactVanished {
                id: "f-aaaa".into()
            })
        );
        let supersede = |new: &str| Operation::Supersede {
            scope: Vec::new(),
            evidence: Vec::new(),
            file: "architecture.md".into(),
            fact_id: "f-aaaa".into(),
            before: "We use PostgreSQL 16.".into(),
            new_fact_id: new.into(),
            text: format!("Replacement {new}."),
            relations: Default::default(),
        };
        let p = proposal(vec![supersede("f-new1"), supersede("f-new2")], &l);
        assert_eq!(
            check(&l, &p),
            Err(Conflict::NotCurrent {
                id: "f-aaaa".into()
            })
        );
        assert_eq!(
            apply(&l, &p, "2026-11-22"),
            Err(Conflict::NotCurrent {
                id: "f-aaaa".into()
            })
        );
    }
}

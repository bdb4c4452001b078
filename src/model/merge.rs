//! Three-way merge of a fact file by fact id, for `mneme merge-file` (a git merge driver).
//!
//! Facts are matched by id (facts without one by their text). A fact only one side changed takes
//! that side's version; additions from both sides are kept; a fact both sides changed
//! differently is wrapped alone in conflict markers. The text around the facts comes from the
//! side that changed it; if both changed it differently the whole file is a conflict.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::facts::{Block, Fact, FactFile};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub text: String,
    pub conflicts: usize,
}

/// What a fact becomes in the result.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    Keep(String),
    Drop,
    Conflict { ours: String, theirs: String },
}

pub fn merge(base: &str, ours: &str, theirs: &str) -> Merged {
    if ours == theirs || base == theirs {
        return clean(ours);
    }
    if base == ours {
        return clean(theirs);
    }
    let (Ok(o), Ok(a), Ok(b)) = (
        FactFile::parse(base),
        FactFile::parse(ours),
        FactFile::parse(theirs),
    ) else {
        return whole_file_conflict(ours, theirs);
    };
    // Matching by key needs each key once; a file that repeats one is merged as a whole.
    if [&o, &a, &b].into_iter().any(repeats_a_key) {
        return whole_file_conflict(ours, theirs);
    }
    let ctx_o: Vec<&str> = o.text_blocks().collect();
    let ctx_a: Vec<&str> = a.text_blocks().collect();
    let ctx_b: Vec<&str> = b.text_blocks().collect();
    let layout_is_theirs = ctx_a == ctx_o && ctx_b != ctx_o;
    if ctx_a != ctx_o && ctx_b != ctx_o && ctx_a != ctx_b {
        return whole_file_conflict(ours, theirs);
    }
    let (facts_o, facts_a, facts_b) = (by_key(&o), by_key(&a), by_key(&b));
    let keys: BTreeSet<&String> = facts_o
        .keys()
        .chain(facts_a.keys())
        .chain(facts_b.keys())
        .collect();
    let outcomes: BTreeMap<String, Outcome> = keys
        .into_iter()
        .map(|k| {
            let get = |m: &BTreeMap<String, &Fact>| m.get(k).map(|f| f.raw.clone());
            (
                k.clone(),
                decide(get(&facts_o), get(&facts_a), get(&facts_b)),
            )
        })
        .collect();

    let (layout, other) = if layout_is_theirs { (&b, &a) } else { (&a, &b) };
    let eol = layout.line_ending();
    // (key, text) in output order; key is None for the text between facts.
    let mut out: Vec<(Option<String>, String)> = Vec::new();
    for block in &layout.blocks {
        match block {
            Block::Text(t) => out.push((None, t.clone())),
            Block::Fact(f) => out.push((Some(f.key()), String::new())),
        }
    }
    // Facts the layout side does not have go after their predecessor on the other side, and
    // after the layout side's own additions there.
    let in_layout: BTreeSet<String> = layout.facts().map(Fact::key).collect();
    let in_other: BTreeSet<String> = other.facts().map(Fact::key).collect();
    let mut previous: Option<String> = None;
    for f in other.facts() {
        let k = f.key();
        if !in_layout.contains(&k) {
            let mut at = previous
                .as_ref()
                .and_then(|p| out.iter().position(|(key, _)| key.as_ref() == Some(p)))
                .or_else(|| out.iter().rposition(|(key, _)| key.is_some()))
                .map(|i| i + 1)
                .unwrap_or(out.len());
            while out
                .get(at)
                .is_some_and(|(key, _)| key.as_ref().is_some_and(|k| !in_other.contains(k)))
            {
                at += 1;
            }
            out.insert(at, (Some(k.clone()), String::new()));
        }
        previous = Some(k);
    }
    let mut conflicts = 0;
    let mut text = String::new();
    for (k, t) in out {
        let Some(k) = k else {
            text.push_str(&t);
            continue;
        };
        match &outcomes[&k] {
            Outcome::Keep(raw) => push_item(&mut text, raw, eol),
            Outcome::Drop => {}
            Outcome::Conflict { ours, theirs } => {
                conflicts += 1;
                push_item(&mut text, &format!("<<<<<<< ours{eol}"), eol);
                if !ours.is_empty() {
                    push_item(&mut text, ours, eol);
                }
                push_item(&mut text, &format!("======={eol}"), eol);
                if !theirs.is_empty() {
                    push_item(&mut text, theirs, eol);
                }
                push_item(&mut text, &format!(">>>>>>> theirs{eol}"), eol);
            }
        }
    }
    if conflicts == 0 && !reads_as(&text, &outcomes) {
        // The text around the facts swallowed one (an unclosed fence from one side, say): only a
        // person can say what the file should be.
        return whole_file_conflict(ours, theirs);
    }
    Merged { text, conflicts }
}

/// Whether `text` parses to exactly the facts the merge kept.
fn reads_as(text: &str, outcomes: &BTreeMap<String, Outcome>) -> bool {
    let Ok(file) = FactFile::parse(text) else {
        return false;
    };
    let mut found: Vec<(String, &str)> = file.facts().map(|f| (f.key(), f.raw.as_str())).collect();
    found.sort();
    let mut kept: Vec<(String, &str)> = outcomes
        .iter()
        .filter_map(|(k, o)| match o {
            Outcome::Keep(raw) => Some((k.clone(), raw.as_str())),
            _ => None,
        })
        .collect();
    kept.sort();
    found.len() == kept.len()
        && found
            .iter()
            .zip(&kept)
            .all(|((fk, fraw), (kk, kraw))| fk == kk && same_item(fraw, kraw))
}

/// Two renderings of one item, ignoring the line ending the merge may have added at its end.
fn same_item(a: &str, b: &str) -> bool {
    let trim = |s: &str| s.trim_end_matches(['\n', '\r']).to_owned();
    trim(a) == trim(b)
}

fn decide(o: Option<String>, a: Option<String>, b: Option<String>) -> Outcome {
    let chosen = if a == b {
        a
    } else if a == o {
        b
    } else if b == o {
        a
    } else {
        return Outcome::Conflict {
            ours: a.unwrap_or_default(),
            theirs: b.unwrap_or_default(),
        };
    };
    chosen.map_or(Outcome::Drop, Outcome::Keep)
}

/// Appends an item, first ending the text so far with a newline if it lacks one.
fn push_item(text: &mut String, item: &str, eol: &str) {
    if !text.is_empty() && !text.ends_with('\n') {
        text.push_str(eol);
    }
    text.push_str(item);
}

fn repeats_a_key(file: &FactFile) -> bool {
    let mut seen = BTreeSet::new();
    file.facts().any(|f| !seen.insert(f.key()))
}

fn by_key(file: &FactFile) -> BTreeMap<String, &Fact> {
    file.facts().map(|f| (f.key(), f)).collect()
}

fn clean(text: &str) -> Merged {
    Merged {
        text: text.to_owned(),
        conflicts: 0,
    }
}

fn whole_file_conflict(ours: &str, theirs: &str) -> Merged {
    let eol = if ours.contains("\r\n") { "\r\n" } else { "\n" };
    let mut text = format!("<<<<<<< ours{eol}");
    push_item(&mut text, ours, eol);
    push_item(&mut text, &format!("======={eol}"), eol);
    push_item(&mut text, theirs, eol);
    push_item(&mut text, &format!(">>>>>>> theirs{eol}"), eol);
    Merged { text, conflicts: 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "# A\n\n- **f-1** One.\n- **f-2** Two.\n\nTrailer.\n";

    #[test]
    fn additions_on_both_sides_are_united_in_order() {
        let ours = "# A\n\n- **f-1** One.\n- **f-2** Two.\n- **f-3** Ours.\n\nTrailer.\n";
        let theirs = "# A\n\n- **f-1** One.\n- **f-2** Two.\n- **f-4** Theirs.\n\nTrailer.\n";
        let m = merge(BASE, ours, theirs);
        assert_eq!(m.conflicts, 0);
        assert_eq!(m.text, "# A\n\n- **f-1** One.\n- **f-2** Two.\n- **f-3** Ours.\n- **f-4** Theirs.\n\nTrailer.\n");
    }

    #[test]
    fn one_sided_changes_and_removals_win() {
        let ours = "# A\n\n- **f-1** One, changed.\n- **f-2** Two.\n\nTrailer.\n";
        let theirs = "# A\n\n- **f-1** One.\n\nTrailer.\n";
        let m = merge(BASE, ours, theirs);
        assert_eq!(
            m,
            Merged {
                text: "# A\n\n- **f-1** One, changed.\n\nTrailer.\n".into(),
                conflicts: 0
            }
        );
    }

    #[test]
    fn both_sides_changing_one_fact_conflict_on_that_fact_only() {
        let ours = "# A\n\n- **f-1** One (ours).\n- **f-2** Two.\n\nTrailer.\n";
        let theirs = "# A\n\n- **f-1** One (theirs).\n- **f-2** Two, edited.\n\nTrailer.\n";
        let m = merge(BASE, ours, theirs);
        assert_eq!(m.conflicts, 1);
        assert_eq!(
            m.text,
            "# A\n\n<<<<<<< ours\n- **f-1** One (ours).\n=======\n- **f-1** One (theirs).\n>>>>>>> theirs\n- **f-2** Two, edited.\n\nTrailer.\n"
        );
    }

    #[test]
    fn context_changes_come_from_the_side_that_made_them() {
        let ours = "# A\n\n- **f-1** One.\n- **f-2** Two.\n- **f-3** Three.\n\nTrailer.\n";
        let theirs = "# A, retitled\n\n- **f-1** One.\n- **f-2** Two.\n\nTrailer.\n";
        let m = merge(BASE, ours, theirs);
        assert_eq!(
            m.text,
            "# A, retitled\n\n- **f-1** One.\n- **f-2** Two.\n- **f-3** Three.\n\nTrailer.\n"
        );
        let both = merge(BASE, &ours.replace("# A", "# Mine"), theirs);
        assert_eq!(both.conflicts, 1);
        assert!(both.text.starts_with("<<<<<<< ours\n# Mine"));
    }

    #[test]
    fn delete_modify_conflicts_and_missing_final_newlines() {
        let ours = "# A\n\n- **f-1** One.\n\nTrailer.\n";
        let theirs = "# A\n\n- **f-1** One.\n- **f-2** Two, edited.\n\nTrailer.\n";
        let m = merge(BASE, ours, theirs);
        assert_eq!(m.conflicts, 1);
        assert!(
            m.text
                .contains("<<<<<<< ours\n=======\n- **f-2** Two, edited.\n>>>>>>> theirs\n"),
            "{}",
            m.text
        );
        let m = merge(
            "- **f-1** One.",
            "- **f-1** One.\n- **f-2** A.",
            "- **f-1** One.\n- **f-3** B.",
        );
        assert_eq!(m.text, "- **f-1** One.\n- **f-2** A.\n- **f-3** B.");
    }

    #[test]
    fn a_repeated_id_makes_the_whole_file_a_conflict() {
        let theirs = "# A\n\n- **f-1** One.\n- **f-1** Again.\n- **f-2** Two.\n\nTrailer.\n";
        let ours = "# A\n\n- **f-1** One.\n- **f-2** Two.\n- **f-3** Three.\n\nTrailer.\n";
        let m = merge(BASE, ours, theirs);
        assert_eq!(m.conflicts, 1);
        assert!(m.text.contains("- **f-1** Again.") && m.text.contains("- **f-3** Three."));
    }
}

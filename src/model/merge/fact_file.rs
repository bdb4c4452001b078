//! Three-way merge of a fact file by fact id, for `mneme merge-file` (a git merge driver).
//!
//! Facts are matched by id (facts without one by their text). A fact only one side changed takes
//! that side's version; additions from both sides are kept; a fact both sides changed
//! differently is wrapped alone in conflict markers. The text around the facts is merged line by
//! line, as `git merge-file` does, with each fact standing as one line at its place: a stretch of
//! text both sides changed differently is a conflict of its own.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::facts::file::{Block, Fact, FactFile};
use crate::model::merge::diff3::{self, Chunk};

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

/// A line of a fact file's outline: a line of text, or the place of a fact (by key).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Line {
    Text(String),
    Fact(String),
}

/// A piece of the merged outline: a line, or a stretch of text both sides changed.
enum Piece {
    Line(Line),
    Conflict { ours: String, theirs: String },
}

fn outline(file: &FactFile) -> Vec<Line> {
    let mut out = Vec::new();
    for block in &file.blocks {
        match block {
            Block::Text(t) => out.extend(t.split_inclusive('\n').map(|l| Line::Text(l.to_owned()))),
            Block::Fact(f) => out.push(Line::Fact(f.key())),
        }
    }
    out
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
    let eol = a.line_ending();
    let (outline_a, outline_b) = (outline(&a), outline(&b));
    let mut pieces = Vec::new();
    for chunk in diff3::merge(&outline(&o), &outline_a, &outline_b) {
        match chunk {
            Chunk::Clean(lines) => pieces.extend(lines.into_iter().map(Piece::Line)),
            Chunk::Conflict { base, ours, theirs } => {
                let words = |v: &[Line]| -> Vec<Line> {
                    v.iter()
                        .filter(|l| matches!(l, Line::Text(_)))
                        .cloned()
                        .collect()
                };
                let (text_o, text_a, text_b) = (words(&base), words(&ours), words(&theirs));
                if text_a == text_o || text_b == text_o || text_a == text_b {
                    // Only facts differ here (or one side's text change): both sides' facts.
                    let (first, second) = if text_a == text_o && text_b != text_o {
                        (theirs, ours)
                    } else {
                        (ours, theirs)
                    };
                    pieces.extend(unite(first, &second).into_iter().map(Piece::Line));
                } else {
                    let side = |lines: &[Line], facts: &BTreeMap<String, &Fact>| {
                        let mut text = String::new();
                        for line in lines {
                            match line {
                                Line::Text(t) => push_item(&mut text, t, eol),
                                Line::Fact(k) => push_item(&mut text, &facts[k].raw, eol),
                            }
                        }
                        text
                    };
                    pieces.push(Piece::Conflict {
                        ours: side(&ours, &facts_a),
                        theirs: side(&theirs, &facts_b),
                    });
                }
            }
        }
    }
    place_missing(&mut pieces, &outcomes, [&outline_a, &outline_b]);
    let mut conflicts = 0;
    let mut text = String::new();
    let mut conflict = |text: &mut String, ours: &str, theirs: &str| {
        conflicts += 1;
        push_item(text, &format!("<<<<<<< ours{eol}"), eol);
        if !ours.is_empty() {
            push_item(text, ours, eol);
        }
        push_item(text, &format!("======={eol}"), eol);
        if !theirs.is_empty() {
            push_item(text, theirs, eol);
        }
        push_item(text, &format!(">>>>>>> theirs{eol}"), eol);
    };
    for piece in &pieces {
        match piece {
            Piece::Line(Line::Text(t)) => push_item(&mut text, t, eol),
            Piece::Line(Line::Fact(k)) => match &outcomes[k] {
                Outcome::Keep(raw) => push_item(&mut text, raw, eol),
                Outcome::Drop => {}
                Outcome::Conflict { ours, theirs } => conflict(&mut text, ours, theirs),
            },
            Piece::Conflict { ours, theirs } => conflict(&mut text, ours, theirs),
        }
    }
    if conflicts == 0 && !reads_as(&text, &outcomes) {
        // The text around the facts swallowed one (an unclosed fence from one side, say): only a
        // person can say what the file should be.
        return whole_file_conflict(ours, theirs);
    }
    Merged { text, conflicts }
}

/// `first`'s lines with the facts only `second` has, each after its predecessor in `second`
/// (and after `first`'s own additions there), or at the end.
fn unite(mut first: Vec<Line>, second: &[Line]) -> Vec<Line> {
    let in_second: BTreeSet<&Line> = second.iter().collect();
    let mut previous: Option<&Line> = None;
    for line in second.iter().filter(|l| matches!(l, Line::Fact(_))) {
        if !first.contains(line) {
            let mut at = previous
                .and_then(|p| first.iter().position(|l| l == p))
                .map_or(first.len(), |i| i + 1);
            while first
                .get(at)
                .is_some_and(|l| matches!(l, Line::Fact(_)) && !in_second.contains(l))
            {
                at += 1;
            }
            first.insert(at, line.clone());
        }
        previous = Some(line);
    }
    first
}

/// Puts in place the facts the result keeps (or conflicts on) that the merged outline lost (one
/// side removed it, the other changed it), after their predecessor on a side that has them; a
/// fact placed twice (moved on both sides) keeps its first place.
fn place_missing(
    pieces: &mut Vec<Piece>,
    outcomes: &BTreeMap<String, Outcome>,
    sides: [&Vec<Line>; 2],
) {
    let mut seen = BTreeSet::new();
    pieces.retain(|p| match p {
        Piece::Line(Line::Fact(k)) => seen.insert(k.clone()),
        _ => true,
    });
    let position = |pieces: &[Piece], key: &str| {
        pieces
            .iter()
            .position(|p| matches!(p, Piece::Line(Line::Fact(k)) if k == key))
    };
    for (key, outcome) in outcomes {
        if matches!(outcome, Outcome::Drop) || seen.contains(key) {
            continue;
        }
        let line = Line::Fact(key.clone());
        let after = sides.iter().find_map(|side| {
            let at = side.iter().position(|l| *l == line)?;
            side[..at].iter().rev().find_map(|l| match l {
                Line::Fact(k) => position(pieces, k),
                Line::Text(_) => None,
            })
        });
        let at = after.map_or_else(
            || {
                pieces
                    .iter()
                    .position(|p| matches!(p, Piece::Line(Line::Fact(_))))
                    .unwrap_or(pieces.len())
            },
            |i| i + 1,
        );
        pieces.insert(at, Piece::Line(line));
        seen.insert(key.clone());
    }
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

/// Both sides whole, in one conflict: for files only a person can merge.
pub(crate) fn whole_file_conflict(ours: &str, theirs: &str) -> Merged {
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

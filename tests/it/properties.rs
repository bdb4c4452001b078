//! Property tests of the invariants the ledger's safety rests on: lossless fact files, an apply
//! that never panics and never writes a file that reads differently, a fact-level diff that sees
//! every difference, and a merge that keeps every fact or says it could not.

use std::collections::BTreeMap;

use mneme::model::base::config::Config;
use mneme::model::facts::file::{Fact, FactFile};
use mneme::model::facts::ledger::{FactFileEntry, Ledger};
use mneme::model::merge::fact_file::merge;
use mneme::model::proposals::apply::apply;
use mneme::model::proposals::proposal::Operation;
use mneme::model::provenance::decision::Verdict;
use mneme::model::provenance::factdiff::{changes, Files};
use mneme::model::provenance::record::{check_state, Record};
use proptest::prelude::*;
use serde_json::json;

/// Lines that exercise the parser: facts with and without ids and metadata, continuations,
/// breaks that look like front matter, fences, comments, headings and quotes.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        (0..6u8, 0..4u8).prop_map(|(id, t)| format!("- **f-{}** Statement {t}.", id_of(id))),
        (0..6u8).prop_map(|id| format!(
            "- **f-{}** Dated. <!-- since: 2026-01-01; evidence: src/a.rs:3 -->",
            id_of(id)
        )),
        (0..4u8).prop_map(|t| format!("- plain item {t}")),
        (0..4u8).prop_map(|t| format!("1. **f-n{t}** numbered")),
        Just("  continued".to_owned()),
        Just("    - nested".to_owned()),
        Just(String::new()),
        Just("# Heading".to_owned()),
        Just("---".to_owned()),
        Just("title: x".to_owned()),
        Just("```".to_owned()),
        Just("<!--".to_owned()),
        Just("-->".to_owned()),
        Just("* * *".to_owned()),
        Just("> quoted".to_owned()),
        Just("\t- tabbed".to_owned()),
        Just("Paragraph text.".to_owned()),
    ]
}

fn id_of(n: u8) -> String {
    ["aaaa", "bbbb", "cccc", "dddd", "eeee", "ffff"][usize::from(n)].to_owned()
}

/// A fact file's text: lines joined by `\n` or `\r\n`, with or without a final newline.
fn file_text() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(line(), 0..14),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(lines, crlf, final_eol)| {
            let eol = if crlf { "\r\n" } else { "\n" };
            let mut text = lines.join(eol);
            if final_eol && !text.is_empty() {
                text.push_str(eol);
            }
            text
        })
}

/// A file and a version of it with one line duplicated, dropped, replaced or added: the small
/// edits a hand edit or a smuggled fact makes.
fn edited_pair() -> impl Strategy<Value = (String, String)> {
    (
        prop::collection::vec(line(), 1..14),
        0..14usize,
        0..4u8,
        line(),
    )
        .prop_map(|(lines, at, edit, other)| {
            let at = at % lines.len();
            let mut edited = lines.clone();
            match edit {
                0 => edited.insert(at, lines[at].clone()),
                1 => {
                    edited.remove(at);
                }
                2 => edited[at] = other,
                _ => edited.insert(at, other),
            }
            (lines.join("\n") + "\n", edited.join("\n") + "\n")
        })
}

fn ledger_of(raw: &str) -> Option<Ledger> {
    let entry = FactFileEntry::parse("a.md".into(), raw.to_owned()).ok()?;
    Some(Ledger::new(vec![entry], Config::default()))
}

/// An operation on one of the file's facts (or an add), as an agent would propose it.
fn operation(file: &FactFile, pick: usize, kind: u8, text: u8) -> Operation {
    let facts: Vec<&Fact> = file.facts().filter(|f| f.id.is_some()).collect();
    let new_text = format!("A new statement {text}.");
    if facts.is_empty() || kind == 0 {
        return Operation::Add {
            scope: Vec::new(),
            file: "a.md".into(),
            fact_id: "f-new1".into(),
            text: new_text,
            relations: Default::default(),
            evidence: Vec::new(),
            state: None,
            by: None,
        };
    }
    let fact = facts[pick % facts.len()];
    let (fact_id, before) = (fact.id.clone().unwrap(), fact.text.clone());
    match kind {
        1 => Operation::Update {
            scope: Vec::new(),
            evidence: Vec::new(),
            file: "a.md".into(),
            fact_id,
            before,
            text: new_text,
            relations: Default::default(),
        },
        2 => Operation::Remove {
            file: "a.md".into(),
            fact_id,
            before,
        },
        _ => Operation::Supersede {
            scope: Vec::new(),
            evidence: Vec::new(),
            file: "a.md".into(),
            fact_id,
            before,
            new_fact_id: "f-new1".into(),
            text: new_text,
            relations: Default::default(),
        },
    }
}

/// `(file, text, metadata)` of every fact, counted: what a reader of the ledger sees.
fn seen(files: &Files) -> BTreeMap<(String, String, String), usize> {
    let mut out = BTreeMap::new();
    for (name, raw) in files {
        if let Ok(file) = FactFile::parse(raw) {
            for f in file.facts() {
                *out.entry((name.clone(), f.text.clone(), f.meta.render()))
                    .or_default() += 1;
            }
        }
    }
    out
}

fn keys(raw: &str) -> Vec<String> {
    FactFile::parse(raw)
        .map(|f| f.facts().map(Fact::key).collect())
        .unwrap_or_default()
}

// 256 cases each by default; `PROPTEST_CASES=20000 cargo test --release properties` searches
// harder.
proptest! {
    #[test]
    fn fact_files_round_trip_byte_for_byte(text in file_text()) {
        if let Ok(file) = FactFile::parse(&text) {
            prop_assert_eq!(file.render(), text.clone());
            prop_assert_eq!(FactFile::parse(&file.render()).unwrap(), file);
        }
    }

    #[test]
    fn any_text_round_trips(text in ".{0,200}") {
        if let Ok(file) = FactFile::parse(&text) {
            prop_assert_eq!(file.render(), text);
        }
    }

    #[test]
    fn apply_writes_what_was_proposed_or_returns_a_conflict(
        text in file_text(),
        pick in 0..8usize,
        kind in 0..4u8,
        new in 0..3u8,
    ) {
        let Some(ledger) = ledger_of(&text) else { return Ok(()) };
        let op = operation(ledger.files()[0].file(), pick, kind, new);
        let Ok(applied) = apply(&ledger, &mneme::fuzzing::proposal_of(op.clone(), &ledger), "2026-11-23") else {
            return Ok(());
        };
        for change in &applied.files {
            let file = FactFile::parse(&change.new);
            prop_assert!(file.is_ok(), "the result does not parse:\n{}", change.new);
            let file = file.unwrap();
            let before = ledger.files()[0].file();
            prop_assert_eq!(&file.front_matter, &before.front_matter);
            let written = op.new_id().unwrap_or(op.fact_id());
            let fact = file.facts().find(|f| f.id.as_deref() == Some(written));
            match (&op, op.text()) {
                (Operation::Remove { .. }, _) => prop_assert!(fact.is_none()),
                (_, Some(t)) => prop_assert_eq!(fact.map(|f| f.text.as_str()), Some(t)),
                _ => {}
            }
            let untouched = |k: &String| k != op.fact_id() && k != written;
            let old: Vec<String> = keys(&change.old).into_iter().filter(untouched).collect();
            let new: Vec<String> = keys(&change.new).into_iter().filter(untouched).collect();
            prop_assert_eq!(old, new, "other facts changed");
        }
    }

    #[test]
    fn the_fact_level_diff_is_empty_only_when_both_sides_hold_the_same_facts(
        (a, b) in edited_pair(),
    ) {
        let files = |t: &str| -> Files { [("a.md".to_owned(), t.to_owned())].into() };
        let (old, new) = (files(&a), files(&b));
        if changes(&old, &new).is_empty() {
            prop_assert_eq!(seen(&old), seen(&new));
        }
        prop_assert!(changes(&old, &old).is_empty());
    }

    #[test]
    fn the_merge_keeps_every_fact_or_marks_a_conflict(
        base in file_text(),
        ours in file_text(),
        theirs in file_text(),
    ) {
        let merged = merge(&base, &ours, &theirs);
        if merged.conflicts > 0 {
            return Ok(());
        }
        let (o, a, b) = (keys(&base), keys(&ours), keys(&theirs));
        let result = keys(&merged.text);
        let count = |list: &[String], k: &String| list.iter().filter(|x| *x == k).count();
        for k in &result {
            prop_assert!(
                count(&result, k) <= count(&a, k).max(count(&b, k)),
                "{} appears more often than on either side:\n{}", k, merged.text
            );
        }
        let removed = |k: &String| o.contains(k) && (!a.contains(k) || !b.contains(k));
        for k in a.iter().chain(&b) {
            prop_assert!(
                result.contains(k) || removed(k),
                "{} was dropped:\n{}", k, merged.text
            );
        }
    }
}

/// Pieces of real-world text, reaching all of Unicode: any scalar value of any plane, and the
/// characters that break naive code: combining marks, right-to-left scripts, direction controls
/// and zero-width characters, emoji sequences, CJK, box drawing, CR, CRLF, NUL, a byte order
/// mark, tabs, and the ASCII syntax of the formats (fact items, metadata comments, front matter,
/// fences, conflict markers) so the readers' syntax paths are reached too.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => any::<char>().prop_map(String::from),
        2 => prop::collection::vec(any::<char>(), 1..12).prop_map(|c| c.into_iter().collect()),
        1 => (0x300u32..0x370).prop_map(|c| char::from_u32(c).unwrap().to_string()),
        1 => (0x590u32..0x700).prop_filter_map("a scalar", char::from_u32).prop_map(String::from),
        1 => (0x4e00u32..0x9fff).prop_filter_map("a scalar", char::from_u32).prop_map(String::from),
        1 => (0x1f300u32..0x1faff).prop_filter_map("a scalar", char::from_u32).prop_map(String::from),
        2 => prop::sample::select(vec![
            "\u{202a}", "\u{202b}", "\u{202c}", "\u{202d}", "\u{202e}", "\u{2066}", "\u{2067}",
            "\u{2068}", "\u{2069}", "\u{200b}", "\u{200c}", "\u{200d}", "\u{200e}", "\u{200f}",
            "\u{2060}", "\u{feff}", "\u{61c}", "\r", "\r\n", "\n", "\t", "\0", "\u{1b}[2J",
            "\u{85}", "\u{2028}", "\u{3000}", "👨‍👩‍👧‍👦", "🇩🇪", "👍🏽", "é", "Z̵͇a̷", "┌──┐",
            "│ x │", "数据库", "ｶﾀｶﾅ", "שלום", "مرحبا", "١٢٣", "𐌰𐌱", "İ", "ß", "ǅ",
        ])
        .prop_map(str::to_owned),
        3 => prop::sample::select(vec![
            "- ", "- **f-aaaa** ", "- **f-bbbb** ", "* ", "1. ", "  ", "    ", "<!-- ", " -->",
            "state: stale; ", "by: f-bbbb; ", "evidence: src/a.rs:3 ", "since: 2026-01-01",
            "---\n", "title: ", "```\n", "~~~\n", "<<<<<<< ours\n", "=======\n",
            ">>>>>>> theirs\n", "# ", "> ", ": ", "\"", "'", "{", "}", "[", "]", ",", "\\",
            "**", "`", "|", "http://x/", "t-aaaa", ".md", "-", "_", " ",
        ])
        .prop_map(str::to_owned),
        1 => (any::<char>(), 1000..20_000usize).prop_map(|(c, n)| c.to_string().repeat(n)),
    ]
}

/// Text made of [`piece`]s.
fn unicode_text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..max).prop_map(|p| p.concat())
}

/// Text in fact-file shape: lines of fact items and others, each made of [`piece`]s.
fn unicode_fact_file() -> impl Strategy<Value = String> {
    let line = (
        prop::sample::select(vec![
            "- **f-aaaa** ",
            "- **f-bbbb** ",
            "- **f-cccc** ",
            "- ",
            "",
            "  ",
            "# ",
        ]),
        unicode_text(6),
    )
        .prop_map(|(lead, rest)| format!("{lead}{rest}"));
    (
        prop::option::of(unicode_text(4)),
        prop::collection::vec(line, 0..10),
        prop::sample::select(vec!["\n", "\r\n"]),
        any::<bool>(),
    )
        .prop_map(|(front, lines, eol, bom)| {
            let mut text = String::from(if bom { "\u{feff}" } else { "" });
            if let Some(front) = front {
                text.push_str(&format!("---{eol}title: {front}{eol}---{eol}"));
            }
            text.push_str(&lines.join(eol));
            text.push_str(eol);
            text
        })
}

/// A proposal file as an agent's branch could carry it, every text field any Unicode.
fn unicode_proposal() -> impl Strategy<Value = String> {
    (
        unicode_text(6),
        unicode_text(4),
        unicode_text(3),
        unicode_text(2),
        0..4u8,
    )
        .prop_map(|(text, reason, agent, evidence, op)| {
            let operation = match op {
                0 => json!({"op": "add", "file": "architecture.md", "fact_id": "f-zz01", "text": text}),
                1 => json!({"op": "update", "file": "architecture.md", "fact_id": "f-aaaa", "before": "One fact.", "text": text}),
                2 => json!({"op": "remove", "file": "architecture.md", "fact_id": "f-aaaa", "before": text}),
                _ => json!({"op": "supersede", "file": "architecture.md", "fact_id": "f-aaaa", "before": "One fact.", "new_fact_id": "f-zz02", "text": text}),
            };
            json!({
                "schema": 1,
                "id": "20261123T000000Z-00000000",
                "created_at": "2026-11-23T00:00:00.000000Z",
                "agent": agent,
                "author": null,
                "reason": reason,
                "evidence": [evidence],
                "operations": [operation],
                "base": {}
            })
            .to_string()
        })
}

/// A task file with any Unicode in its texts.
fn unicode_task() -> impl Strategy<Value = String> {
    (unicode_text(6), unicode_text(4), unicode_text(3), unicode_text(4)).prop_map(
        |(title, description, assignee, note)| {
            json!({
                "id": "t-a3f8", "title": title, "description": description, "type": "bug",
                "priority": 1, "status": "in_progress", "assignee": assignee, "labels": [note.clone()],
                "deps": [], "notes": [{"at": "2026-11-22T13:05:00.123456Z", "author": assignee, "text": note}],
                "facts": ["f-k3x9"], "created_at": "2026-11-22T13:00:00.000000Z",
                "updated_at": "2026-11-22T13:05:00.123456Z", "closed_at": null, "close_reason": description
            })
            .to_string()
        },
    )
}

/// A claim object with any Unicode in its texts.
fn unicode_claim() -> impl Strategy<Value = String> {
    (unicode_text(3), unicode_text(3), any::<i64>(), any::<u32>()).prop_map(
        |(agent, host, lease, version)| {
            json!({
                "mneme_claim": version % 3, "task": "t-a3f8", "agent": agent, "host": host,
                "claimed_at": "2026-11-25T10:00:00.123456Z", "renewed_at": "2026-11-25T10:40:00Z",
                "lease_seconds": lease % 100_000
            })
            .to_string()
        },
    )
}

/// A commit message with decision trailers whose values are any Unicode.
fn decision_message() -> impl Strategy<Value = String> {
    (
        unicode_text(4),
        unicode_text(6),
        prop::collection::vec((0..8usize, unicode_text(3)), 0..8),
    )
        .prop_map(|(subject, body, trailers)| {
            const KEYS: [&str; 8] = [
                "Mneme-Decision",
                "Mneme-Proposal",
                "Mneme-Operation",
                "Mneme-Proposed-By",
                "Mneme-Approved-By",
                "Mneme-Rejected-By",
                "Mneme-Proposed-Text",
                "Mneme-Evidence",
            ];
            let mut message = format!("{subject}\n\n{body}\n\nMneme-Decision: approve\n");
            for (k, v) in trailers {
                message.push_str(&format!("{}: {v}\n", KEYS[k]));
            }
            message
        })
}

// Every reader of untrusted text over any Unicode (mneme::fuzzing holds the assertions the
// fuzz targets share). `PROPTEST_CASES=20000 cargo test --release properties` searches harder.
proptest! {
    #[test]
    fn fact_files_in_any_script_are_read_by_every_reader(
        text in prop_oneof![unicode_fact_file(), unicode_text(40)],
        name in prop_oneof![Just("architecture".to_owned()), unicode_text(3)],
    ) {
        mneme::fuzzing::fact_file(&format!("{name}.md"), &text);
    }

    #[test]
    fn proposals_in_any_script_are_validated_applied_and_previewed(
        proposal in prop_oneof![unicode_proposal(), unicode_text(20)],
        ledger in unicode_fact_file(),
    ) {
        mneme::fuzzing::proposal(&proposal, "# A\n\n- **f-aaaa** One fact.\n");
        mneme::fuzzing::proposal(&proposal, &ledger);
    }

    #[test]
    fn any_statement_applies_to_any_fact_file(
        selector in any::<u8>(),
        file in unicode_fact_file(),
        statement in unicode_text(8),
    ) {
        mneme::fuzzing::apply_one(selector, &file, &statement);
    }

    #[test]
    fn the_merge_driver_takes_any_script(
        base in unicode_fact_file(),
        ours in unicode_fact_file(),
        theirs in unicode_fact_file(),
    ) {
        mneme::fuzzing::merge3(&base, &ours, &theirs);
    }

    #[test]
    fn the_task_merge_driver_takes_any_script(
        base in unicode_task(),
        ours in unicode_task(),
        theirs in unicode_task(),
    ) {
        mneme::fuzzing::task_merge3(&base, &ours, &theirs);
        mneme::fuzzing::task_merge3("", &ours, &theirs);
        mneme::fuzzing::run("merge", format!("{base}\0{ours}\0{theirs}").as_bytes());
    }

    #[test]
    fn every_importer_reads_any_text(text in prop_oneof![unicode_text(40), unicode_fact_file()]) {
        mneme::fuzzing::every_import(&text);
    }

    #[test]
    fn tasks_config_signers_and_decisions_in_any_script(
        task in prop_oneof![unicode_task(), unicode_text(20)],
        config in unicode_text(20),
        signers in unicode_text(20),
        message in prop_oneof![decision_message(), unicode_text(20)],
    ) {
        mneme::fuzzing::task(&task);
        mneme::fuzzing::config(&config);
        mneme::fuzzing::config(&format!("budget_lines: {config}\nmax_fact_chars: 10\n"));
        mneme::fuzzing::allowed_signers(&signers);
        mneme::fuzzing::allowed_signers(&format!("{signers} ssh-ed25519 AAAA {signers}\n"));
        mneme::fuzzing::decision(message.as_bytes());
    }

    #[test]
    fn claims_in_any_script(claim in prop_oneof![unicode_claim(), unicode_text(20)]) {
        mneme::fuzzing::claim(&claim);
    }

    #[test]
    fn whatever_is_shown_hides_nothing(text in unicode_text(30)) {
        mneme::fuzzing::shown(&text);
    }

    /// A commit subject fits 72 columns in any script, starts with its head, and is cut at a
    /// character boundary.
    #[test]
    fn subjects_fit_their_columns(text in unicode_text(40), ops in 0usize..20) {
        use mneme::model::base::text::{display_width, fit_columns, one_line};
        let head = format!("ledger(architecture): add f-{ops:04}");
        let tail = one_line(&mneme::model::base::text::escape_controls(&text));
        let fitted = fit_columns(&head, &tail, 72);
        prop_assert!(display_width(&fitted) <= 72, "{:?}", fitted);
        prop_assert!(fitted.starts_with(&head), "{:?}", fitted);
    }
}

/// Every input a fuzz target ever crashed on (`tests/fuzz-regressions/<target>/<what it found>`,
/// copied from `fuzz/artifacts/`), replayed through the same harness.
#[test]
fn every_crash_the_fuzzers_found_stays_fixed() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions");
    let mut replayed = 0;
    for target in mneme::fuzzing::TARGETS {
        let Ok(entries) = std::fs::read_dir(root.join(target)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| mneme::fuzzing::run(target, &data));
            assert!(outcome.is_ok(), "{} crashes again", path.display());
            replayed += 1;
        }
    }
    assert!(
        replayed > 0,
        "no regression inputs under {}",
        root.display()
    );
}

/// A statement in any script, on one line, as a fact file can hold it.
fn statement() -> impl Strategy<Value = String> {
    unicode_text(6).prop_map(|t| {
        let t: String = t
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        format!(
            "S {}.",
            t.replace("<!--", "")
                .replace("-->", "")
                .replace("**", "")
                .trim()
        )
    })
}

/// One approval on a branch: a new fact, or new text for one of the branch's facts.
#[derive(Debug, Clone)]
enum Step {
    Add(String),
    Change(usize, String),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        statement().prop_map(Step::Add),
        (any::<usize>(), statement()).prop_map(|(i, s)| Step::Change(i, s)),
    ]
}

/// The fact file holding `facts` (id → statement), in id order.
fn fact_file_of(facts: &BTreeMap<String, String>) -> Files {
    let body: String = facts
        .iter()
        .map(|(id, text)| format!("- **{id}** {text}\n"))
        .collect();
    [("a.md".to_owned(), format!("# A\n\n{body}"))]
        .into_iter()
        .collect()
}

/// Runs `steps` on one branch (its new facts named `f-<prefix>NNN`) from `base`, approving
/// each as mneme does; the branch's facts and records. Times are `clock`, advancing.
fn branch(
    steps: &[Step],
    prefix: char,
    base: &BTreeMap<String, String>,
    clock: &mut impl FnMut() -> mneme::model::base::time::Timestamp,
) -> (BTreeMap<String, String>, Vec<(String, Record)>) {
    let mut facts = base.clone();
    let mut own: Vec<String> = Vec::new();
    let mut records = Vec::new();
    for (n, step) in steps.iter().enumerate() {
        let before = fact_file_of(&facts);
        match step {
            Step::Add(text) => {
                let id = format!("f-{prefix}{n:03}");
                facts.insert(id.clone(), text.clone());
                own.push(id);
            }
            Step::Change(i, text) if !own.is_empty() => {
                facts.insert(own[i % own.len()].clone(), text.clone());
            }
            Step::Change(..) => continue,
        }
        let proposal = format!("20261124T1000{n:02}Z-0000{prefix}{n:03}");
        let r = Record::new(
            Verdict::Approve,
            &proposal,
            "H <h@example.com>",
            clock(),
            &before,
            &fact_file_of(&facts),
        );
        records.push((r.id(), r));
    }
    (facts, records)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Any interleaving of approvals on two branches, merged (as a merge commit, a squash or a
    /// rebase all leave: the union of both sides' facts and records), replays to the merged
    /// facts; a fact lost or changed in the merge is named, and nothing else.
    #[test]
    fn decisions_on_two_branches_replay_to_the_merged_facts(
        a in prop::collection::vec(step(), 1..6),
        b in prop::collection::vec(step(), 1..6),
        ticks in prop::collection::vec(1u32..1_000_000, 12),
        shuffle in any::<u64>(),
        damage in 0..3u8,
        victim in any::<usize>(),
        changed in statement(),
    ) {
        let base: BTreeMap<String, String> = [("f-base".to_owned(), "Base fact.".to_owned())].into();
        // Each branch's clock advances by its own steps; chains are per fact, so the order of
        // the two branches' decisions does not matter (the property below shows where it does).
        let mut t = 1_795_500_000_000_000i128;
        let mut ticks = ticks.into_iter().cycle();
        let mut clock = || {
            t += i128::from(ticks.next().unwrap()) * 1000;
            mneme::model::base::time::Timestamp::from_unix_nanos(t * 1000).unwrap()
        };
        let seeded = Record::new(Verdict::Approve, "20261124T090000Z-00000000", "H <h@example.com>", clock(), &Files::new(), &fact_file_of(&base));
        let (fa, ra) = branch(&a, 'a', &base, &mut clock);
        let (fb, rb) = branch(&b, 'b', &base, &mut clock);
        let mut merged = fa.clone();
        merged.extend(fb.clone());
        let files = fact_file_of(&merged);
        // Text the parser reads otherwise (a statement it cannot hold) proves nothing here.
        let parsed: Vec<String> = FactFile::parse(&files["a.md"]).unwrap().facts().filter_map(|f| f.id.clone()).collect();
        prop_assume!(parsed == merged.keys().cloned().collect::<Vec<_>>());
        let mut records: Vec<(String, Record)> = [(seeded.id(), seeded)].into_iter().chain(ra).chain(rb).collect();
        let n = records.len();
        records.rotate_left(usize::try_from(shuffle % n as u64).unwrap());
        prop_assert_eq!(check_state(&records, &files), vec![]);

        let ids: Vec<String> = merged.keys().filter(|id| *id != "f-base").cloned().collect();
        prop_assume!(!ids.is_empty());
        let id = ids[victim % ids.len()].clone();
        let mut damaged = merged.clone();
        match damage {
            0 => { damaged.remove(&id); }
            1 => {
                prop_assume!(changed != merged[&id]);
                damaged.insert(id.clone(), changed);
            }
            _ => return Ok(()),
        }
        let issues = check_state(&records, &fact_file_of(&damaged));
        prop_assert_eq!(issues.len(), 1, "{:?}", issues);
        prop_assert_eq!(issues[0].fact(), id.as_str());
        let expected_kind = if damage == 0 { "Missing" } else { "Differs" };
        prop_assert!(format!("{:?}", issues[0]).starts_with(expected_kind), "{:?}", issues[0]);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Both branches approve new text for the same fact, and the merge keeps one side: either
    /// approved version passes, whichever was decided first; the base's text (which both
    /// replaced) or a text nobody approved is reported as that fact, and nothing else.
    #[test]
    fn a_fact_both_branches_changed_may_keep_either_approved_version(
        ta in statement(),
        tb in statement(),
        a_first in any::<bool>(),
        keep in 0u8..4,
        gap in 1i128..1_000_000,
    ) {
        prop_assume!(ta != tb);
        let base: BTreeMap<String, String> = [("f-base".to_owned(), "Base fact.".to_owned())].into();
        let at = |us: i128| mneme::model::base::time::Timestamp::from_unix_nanos((1_795_500_000_000_000 + us) * 1000).unwrap();
        let seeded = Record::new(Verdict::Approve, "20261124T090000Z-00000000", "H <h@example.com>", at(0), &Files::new(), &fact_file_of(&base));
        let change = |text: &str, proposal: &str, when: i128| {
            let mut after = base.clone();
            after.insert("f-base".to_owned(), text.to_owned());
            let r = Record::new(Verdict::Approve, proposal, "H <h@example.com>", at(when), &fact_file_of(&base), &fact_file_of(&after));
            ((r.id(), r), after)
        };
        let (when_a, when_b) = if a_first { (gap, 2 * gap) } else { (2 * gap, gap) };
        let (ra, fa) = change(&ta, "20261124T100000Z-0000000a", when_a);
        let (rb, fb) = change(&tb, "20261124T100000Z-0000000b", when_b);
        let mut other = base.clone();
        other.insert("f-base".to_owned(), format!("{ta} {tb}"));
        let kept = match keep { 0 => fa, 1 => fb, 2 => base.clone(), _ => other };
        let files = fact_file_of(&kept);
        let parsed: Vec<Option<String>> = FactFile::parse(&files["a.md"]).unwrap().facts().map(|f| f.id.clone()).collect();
        prop_assume!(parsed == vec![Some("f-base".to_owned())]);
        let records = vec![(seeded.id(), seeded), ra, rb];
        let issues = check_state(&records, &files);
        if keep < 2 {
            prop_assert_eq!(issues, vec![]);
        } else {
            prop_assert_eq!(issues.len(), 1, "{:?}", issues);
            prop_assert_eq!(issues[0].fact(), "f-base");
            prop_assert!(format!("{:?}", issues[0]).starts_with("Differs"), "{:?}", issues[0]);
        }
    }
}

/// One decision on a branch of a real repository: add a fact, or update or remove the `n`-th
/// fact the branch has (modulo how many it has).
#[derive(Debug, Clone)]
enum GitStep {
    Add(String),
    Update(usize, String),
    Remove(usize),
}

fn git_step() -> impl Strategy<Value = GitStep> {
    prop_oneof![
        words().prop_map(GitStep::Add),
        (any::<usize>(), words()).prop_map(|(n, w)| GitStep::Update(n, w)),
        any::<usize>().prop_map(GitStep::Remove),
    ]
}

/// Words in any script, without controls or hidden characters (propose refuses those).
fn words() -> impl Strategy<Value = String> {
    unicode_text(4).prop_map(|t| {
        t.chars()
            .filter(|c| c.is_alphanumeric())
            .take(24)
            .collect::<String>()
    })
}

/// The facts of the work tree as `context --json` shows them: id → text.
fn tree_facts(repo: &crate::common::Repo) -> BTreeMap<String, String> {
    let v = repo.json(&["context", "--json"]);
    v["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["facts"].as_array().unwrap())
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_owned(),
                f["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Runs `steps` through `propose` and `review approve` on the current branch; returns the ids
/// it removed.
fn decide(repo: &crate::common::Repo, steps: &[GitStep], tag: &str) -> Vec<String> {
    let mut removed = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let facts: Vec<String> = tree_facts(repo).into_keys().collect();
        let text = |w: &str| format!("Fact {tag}{i} {w}.");
        let proposal = match step {
            GitStep::Add(w) => repo.propose_add("architecture", &text(w), &["--reason", "r"]),
            GitStep::Update(n, w) if !facts.is_empty() => {
                repo.propose(&["update", &facts[n % facts.len()], &text(w), "--reason", "r"])
            }
            GitStep::Remove(n) if !facts.is_empty() => {
                let id = facts[n % facts.len()].clone();
                removed.push(id.clone());
                repo.propose(&["remove", &id, "--reason", "r"])
            }
            _ => continue,
        };
        repo.approve(&proposal);
    }
    removed
}

/// Finishes a merge, rebase or cherry-pick that stopped on conflicts by keeping main's side of
/// each conflict (the driver's `ours`: in a rebase, the branch being rebased onto).
fn keep_main(repo: &crate::common::Repo, continue_with: &[&str]) {
    loop {
        let conflicted = repo.git(&["diff", "--name-only", "--diff-filter=U"]);
        if conflicted.trim().is_empty() {
            return;
        }
        for file in conflicted.lines() {
            // The driver marked only the facts both sides changed: keep main's part of each.
            let mut kept = String::new();
            let mut part = 0;
            for line in repo.read(file).split_inclusive('\n') {
                match part {
                    _ if line.starts_with("<<<<<<< ") => part = 1,
                    1 if line.starts_with("=======") => part = 2,
                    2 if line.starts_with(">>>>>>> ") => part = 0,
                    0 | 1 => kept.push_str(line),
                    _ => {}
                }
            }
            repo.write(file, &kept);
            repo.git(&["add", "--", file]);
        }
        let out = repo.git_output(&[&["-c", "core.editor=true"][..], continue_with].concat());
        if out.status.success() {
            return;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// Any interleaving of decisions on two branches, landed by a merge commit, a squash, a
    /// rebase or a cherry-pick of each commit, with every true conflict resolved by keeping
    /// main's side: the tree holds the facts a three-way merge by fact id gives, and `verify`
    /// passes. Dropping a fact nobody removed afterwards fails `verify`, naming that fact.
    #[test]
    fn decisions_on_two_branches_land_any_way_and_replay_to_the_merged_facts(
        ours in prop::collection::vec(git_step(), 1..4),
        theirs in prop::collection::vec(git_step(), 1..4),
        way in 0u8..4,
        victim in any::<usize>(),
    ) {
        let repo = crate::common::Repo::committed();
        repo.approve_new("architecture", "Seed one.");
        repo.approve_new("architecture", "Seed two.");
        let base = repo.head();
        let seeded = tree_facts(&repo);
        repo.git(&["checkout", "-q", "-b", "other"]);
        let mut removed = decide(&repo, &theirs, "b");
        let model_b = tree_facts(&repo);
        repo.git(&["checkout", "-q", "main"]);
        removed.extend(decide(&repo, &ours, "a"));
        let model_a = tree_facts(&repo);

        let ok = |out: std::process::Output| out.status.success();
        match way {
            0 => {
                if !ok(repo.git_output(&["merge", "-q", "--no-edit", "other"])) {
                    keep_main(&repo, &["commit", "-q", "--no-edit"]);
                }
            }
            1 => {
                if !ok(repo.git_output(&["merge", "-q", "--squash", "other"])) {
                    keep_main(&repo, &["status"]);
                }
                repo.git(&["commit", "-q", "-m", "Squash (#1)"]);
            }
            2 => {
                repo.git(&["checkout", "-q", "other"]);
                if !ok(repo.git_output(&["rebase", "-q", "main"])) {
                    keep_main(&repo, &["rebase", "--continue"]);
                }
                repo.git(&["checkout", "-q", "main"]);
                repo.git(&["merge", "-q", "--ff-only", "other"]);
            }
            _ => {
                let commits = repo.git(&["rev-list", "--reverse", "main..other"]);
                for c in commits.lines() {
                    if !ok(repo.git_output(&["cherry-pick", c])) {
                        keep_main(&repo, &["cherry-pick", "--continue"]);
                    }
                }
            }
        }

        // The oracle: a three-way merge by id, main's side where both changed a fact.
        let mut expected = BTreeMap::new();
        let ids: std::collections::BTreeSet<&String> =
            seeded.keys().chain(model_a.keys()).chain(model_b.keys()).collect();
        for id in ids {
            let (o, a, b) = (seeded.get(id), model_a.get(id), model_b.get(id));
            let kept = if a == b || b == o { a } else if a == o { b } else { a };
            if let Some(text) = kept {
                expected.insert(id.clone(), text.clone());
            }
        }
        let case = format!("way {way}, ours {ours:?}, theirs {theirs:?}");
        prop_assert_eq!(&tree_facts(&repo), &expected, "{}", case);
        let out = repo.mneme(&["verify", &format!("{base}..HEAD"), "--json"]).output().unwrap();
        prop_assert!(out.status.success(), "{}: {}", case, String::from_utf8_lossy(&out.stdout));

        // A hand edit drops a fact no decision removed.
        let candidates: Vec<&String> = expected.keys().filter(|id| !removed.contains(id)).collect();
        if candidates.is_empty() {
            return Ok(());
        }
        let gone = candidates[victim % candidates.len()].clone();
        let file = ".ledger/facts/architecture.md";
        let kept: String = repo
            .read(file)
            .lines()
            .filter(|l| !l.contains(&format!("**{gone}**")))
            .map(|l| format!("{l}\n"))
            .collect();
        repo.write(file, &kept);
        repo.git(&["commit", "-q", "-am", "resolve by hand"]);
        let out = repo.mneme(&["verify", &format!("{base}..HEAD"), "--json"]).output().unwrap();
        prop_assert!(!out.status.success(), "{}", case);
        let v = crate::common::json(&out);
        let issues = v["state"]["issues"].as_array().unwrap();
        prop_assert_eq!(issues.len(), 1, "{}: {:#}", case, v);
        prop_assert_eq!(&issues[0]["fact"], gone.as_str());
        prop_assert_eq!(&issues[0]["kind"], "missing");
    }
}

//! Every reader of untrusted text, each run on one input with the promises its format makes
//! checked: no panic, a byte-for-byte round trip where the format promises one, and nothing
//! hidden or acting on a terminal in what is shown. The fuzz targets (`fuzz/`) and the property
//! tests (`tests/it/properties.rs`) both drive these, so the two search the same code with the
//! same assertions. Compiled with the `fuzzing` feature only.

use std::collections::{BTreeMap, BTreeSet};

use crate::git::history::decision_in;
use crate::model::agents::runtimes::Runtime;
use crate::model::agents::{briefing, rules, scope};
use crate::model::base::codec::Writer;
use crate::model::base::config::Config;
use crate::model::base::text::{escape_controls, escape_line, first_hidden};
use crate::model::base::time::Timestamp;
use crate::model::evidence::drift::Watched;
use crate::model::evidence::refs::{classify, line_fate};
use crate::model::facts::fields::{check_text, has_control};
use crate::model::facts::file::{conflict_marker_line, mimics_structure, Fact, FactFile};
use crate::model::facts::ledger::{FactFileEntry, Ledger};
use crate::model::facts::standing::Standings;
use crate::model::interchange::import::{found_in, plan, Read, Source};
use crate::model::interchange::item::Item;
use crate::model::interchange::{self, ExportError, Format};
use crate::model::lint::{self, FileInput, Input, ProposalInput};
use crate::model::merge::fact_file::merge;
use crate::model::proposals::apply::apply;
use crate::model::proposals::preview::preview;
use crate::model::proposals::proposal::{Operation, Proposal, SCHEMA};
use crate::model::proposals::queue::Queue;
use crate::model::provenance::record::{check_state, Record};
use crate::model::provenance::signing::AllowedSigners;
use crate::model::tasks::merge::merge_task_files;
use crate::model::tasks::task::Task;
use crate::model::views::{Context, FactView, Proposals, TaskLine, TaskSummary};

/// The fuzz targets, each named after the reader it drives.
pub const TARGETS: [&str; 10] = [
    "fact_file",
    "proposal",
    "apply",
    "merge",
    "import",
    "task",
    "config",
    "decision",
    "allowed_signers",
    "record",
];

/// Runs the fuzz target `target` on `data`, decoded as that target's input: the fuzz targets
/// call this, and so does the test that replays every crash ever found
/// (`tests/fuzz-regressions/<target>/`). Text inputs that are not UTF-8 are skipped, as the
/// store refuses them before any reader sees them.
pub fn run(target: &str, data: &[u8]) {
    if target == "decision" {
        return decision(data);
    }
    if target == "apply" {
        let Some((&selector, rest)) = data.split_first() else {
            return;
        };
        let Ok(text) = std::str::from_utf8(rest) else {
            return;
        };
        let (file, statement) = text.split_once('\0').unwrap_or((text, "New statement."));
        return apply_one(selector, file, statement);
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match target {
        // `name\0text`, or text alone for `architecture.md`.
        "fact_file" => match text.split_once('\0') {
            Some((name, body)) => fact_file(&format!("{name}.md"), body),
            None => fact_file("architecture.md", text),
        },
        // `proposal\0fact file`.
        "proposal" => {
            let (p, ledger) = text
                .split_once('\0')
                .unwrap_or((text, "# A\n\n- **f-aaaa** One fact.\n"));
            proposal(p, ledger);
        }
        // `base\0ours\0theirs`.
        "merge" => {
            let mut parts = text.splitn(3, '\0');
            let mut next = || parts.next().unwrap_or("");
            let (base, ours, theirs) = (next(), next(), next());
            merge3(base, ours, theirs);
        }
        "import" => every_import(text),
        "task" => task(text),
        "config" => config(text),
        "allowed_signers" => allowed_signers(text),
        // `record\0fact file`.
        "record" => {
            let (r, facts) = text
                .split_once('\0')
                .unwrap_or((text, "# A\n\n- **f-aaaa** One fact.\n"));
            record(r, facts);
        }
        other => panic!("no fuzz target named {other}"),
    }
}

/// The day every reader is run on.
const TODAY: &str = "2026-11-23";

fn now() -> Timestamp {
    Timestamp::from_unix(1_795_392_000)
}

/// What mneme prints of `text` on one line, or in a block, shows nothing hidden and nothing a
/// terminal would act on.
pub fn shown(text: &str) {
    let line = escape_line(text);
    assert!(!line.chars().any(char::is_control), "{line:?}");
    assert!(first_hidden(&line).is_none(), "{line:?}");
    let block = escape_controls(text);
    assert!(!has_control(&block), "{block:?}");
    assert!(first_hidden(&block).is_none(), "{block:?}");
}

/// A fact file named `name` as every reader of the ledger takes it: parsed and rendered back
/// byte for byte, linted and fixed, briefed to agents and their hooks, its evidence classified
/// and watched, and exported in every format. The ledger lists `*.md` files whose name does
/// not start with a dot; other names are read as `facts.md`.
pub fn fact_file(name: &str, text: &str) {
    let name = if name.ends_with(".md") && !name.starts_with('.') {
        name
    } else {
        "facts.md"
    };
    let _ = conflict_marker_line(text);
    for line in text.lines() {
        let _ = mimics_structure(line);
    }
    let Ok(entry) = FactFileEntry::parse(name.to_owned(), text.to_owned()) else {
        return;
    };
    assert_eq!(entry.file().render(), text);
    assert_eq!(FactFile::parse(text).as_ref(), Ok(entry.file()));
    for fact in entry.file().facts() {
        let _ = fact.raw_with_meta(&fact.meta);
        let _ = fact.key();
        shown(&fact.text);
        for e in &fact.meta.evidence {
            let _ = classify(e);
        }
        let _ = Watched::of(name, fact);
    }
    let ledger = Ledger::new(vec![entry.clone()], Config::default());
    lint_and_fix(&ledger, &entry);
    brief(&ledger);
    export(&ledger);
}

/// What `check` reads, for one fact file or proposal: every repository file exists.
fn lint_input<'a>(
    files: Vec<FileInput<'a>>,
    proposals: Vec<ProposalInput<'a>>,
    config: &'a Config,
) -> Input<'a> {
    Input {
        files,
        proposals,
        config: Ok(config),
        symlinks: Vec::new(),
        tasks: &[],
        broken_tasks: Vec::new(),
        merge_driver: true,
        claims_remote_missing: None,
        now: now(),
        drift: &[],
        broken_records: Vec::new(),
        state: Vec::new(),
        compiled_stale: Vec::new(),
        compiled_extra: Vec::new(),
    }
}

fn lint_and_fix(ledger: &Ledger, entry: &FactFileEntry) {
    let input = lint_input(vec![FileInput::Parsed(entry)], Vec::new(), &ledger.config);
    for finding in lint::check(&input, |_, _| true, |_| true) {
        shown(&finding.message);
    }
    let mut taken: BTreeSet<String> = ledger.facts().filter_map(|(_, f)| f.id.clone()).collect();
    if let Some((fixed, _)) = lint::fix(entry, &mut taken, now()) {
        let file = FactFile::parse(&fixed).expect("a fixed file parses");
        let texts = |f: &FactFile| f.facts().map(|x| x.text.clone()).collect::<Vec<_>>();
        assert_eq!(
            texts(&file),
            texts(entry.file()),
            "a fix changed what a fact says"
        );
    }
}

/// The agents' context, whole and cut to budgets, in the shape of every runtime's hook.
fn brief(ledger: &Ledger) {
    let standings = Standings::of(ledger, now());
    for (file, fact) in ledger.facts() {
        let _ = FactView::new(file, fact, &standings);
    }
    let context = Context::build(
        ledger.clone(),
        &standings,
        Proposals::default(),
        TaskSummary::default(),
    );
    read_back(&context);
    // A scoped start and a tool hook's delivery: the index line and the facts about the files
    // each fact cites, or a file its scope could match, show nothing hidden either.
    let mut scoped = context.clone();
    scope::leave_scoped_out(&mut scoped);
    let start = briefing::render(&scoped, Some(9000));
    assert!(first_hidden(&start).is_none(), "{start:?}");
    let files: Vec<String> = ledger
        .facts()
        .flat_map(|(_, f)| f.meta.evidence.iter().chain(&f.meta.scope))
        .map(|e| e.replace(['*', '?', '['], "x"))
        .take(64)
        .collect();
    let mut about = context.clone();
    scope::about(&mut about, &files);
    let facts: Vec<&FactView> = about.files.iter().flat_map(|f| &f.facts).collect();
    let text = briefing::about_files(&files, &facts, 3000);
    assert!(
        !has_control(&text) && first_hidden(&text).is_none(),
        "{text:?}"
    );
    // The rule files compiled from the same facts hide nothing either, and their front matter
    // is YAML that says what mneme wrote.
    let facts = rules::rule_facts(&context.files, &BTreeSet::new());
    for target in rules::Target::ALL {
        for file in rules::compile(target, &facts) {
            assert!(
                !has_control(&file.text) && first_hidden(&file.text).is_none(),
                "{:?}",
                file.text
            );
            assert!(rules::is_generated(&file.text), "{:?}", file.text);
            // Cursor and Windsurf read bare globs (`*.rs`), which YAML does not; the others' is
            // YAML.
            let yaml = !matches!(target, rules::Target::Cursor | rules::Target::Windsurf);
            if let Some(front) = file.text.strip_prefix("---\n").filter(|_| yaml) {
                let front = front.split("\n---\n").next().unwrap_or_default();
                let value: serde_json::Value =
                    serde_saphyr::from_str(front).expect("front matter is YAML");
                assert!(value.is_object(), "{front:?}");
            }
        }
    }
    for budget in [None, Some(0), Some(300), Some(9000)] {
        let text = briefing::render(&context, budget);
        assert!(!has_control(&text), "{text:?}");
        assert!(first_hidden(&text).is_none(), "{text:?}");
        for runtime in Runtime::ALL {
            let out = runtime.output("SessionStart", &text);
            if runtime.prints_json() {
                serde_json::from_str::<serde_json::Value>(&out).expect("hook output is JSON");
            }
        }
    }
}

/// The context's structure cannot be forged from inside a statement: an agent taking the whole
/// context apart (a line `- ` starts a fact, marked continuation lines belong to it, headings
/// start sections) finds exactly the facts shown, each id with its own text, and no heading
/// but mneme's.
fn read_back(context: &Context) {
    let text = briefing::render(context, None);
    let mut read: Vec<String> = Vec::new();
    let mut open = false;
    for line in text.lines() {
        if let Some(fact) = line.strip_prefix("- ") {
            read.push(fact.to_owned());
            open = true;
        } else if let (true, Some(more)) = (open, line.strip_prefix(briefing::CONTINUATION)) {
            let fact = read.last_mut().expect("a fact is open");
            fact.push('\n');
            fact.push_str(more.strip_prefix(' ').unwrap_or(more));
        } else {
            open = false;
        }
    }
    for fact in context.files.iter().flat_map(|f| &f.facts) {
        let statement = escape_controls(&fact.text)
            .lines()
            .collect::<Vec<_>>()
            .join("\n");
        let expected = format!("{}{statement}", briefing::fact_label(fact));
        let Some(at) = read.iter().position(|r| *r == expected) else {
            panic!("{expected:?} is not read back from the context:\n{text}");
        };
        read.swap_remove(at);
    }
    assert!(
        read.is_empty(),
        "the context holds facts nobody wrote: {read:?}\n{text}"
    );
    // mneme's own headings are those of the context without facts, and one per file shown.
    let headings = |text: &str| text.lines().filter(|l| l.starts_with('#')).count();
    let mut without_facts = context.clone();
    without_facts.files.iter_mut().for_each(|f| f.facts.clear());
    let files = context.files.iter().filter(|f| !f.facts.is_empty()).count();
    assert_eq!(
        headings(&text),
        headings(&briefing::render(&without_facts, None)) + files,
        "a heading nobody wrote:\n{text}"
    );
}

/// Every export format over the ledger's facts: a ledger whose facts all have distinct ids
/// exports without breaking any format's rules.
fn export(ledger: &Ledger) {
    let mut ids = BTreeSet::new();
    let mut items = Vec::new();
    for (file, fact) in ledger.facts() {
        let Some(id) = fact.id.clone() else { return };
        if !ids.insert(id.clone()) {
            return;
        }
        items.push(Item::of(&file.name, fact, id, Vec::new()));
    }
    let titles: BTreeMap<String, String> = ledger
        .files()
        .iter()
        .map(|f| (f.name.clone(), f.title().to_owned()))
        .collect();
    for format in Format::ALL {
        match interchange::render(format, &items, &titles, "任务 ✓", 30) {
            Ok(rendered) => {
                for (name, text) in &rendered.files {
                    if let Some(source) = format_source(format) {
                        import(source, name, text);
                    }
                }
            }
            Err(ExportError::Invalid { problems, name, .. }) => {
                panic!(
                    "{} export of {name} breaks its rules: {problems:?}",
                    format.name()
                )
            }
            Err(_) => {}
        }
    }
}

/// The import that reads what an export in `format` wrote; a context pack has none.
fn format_source(format: Format) -> Option<Source> {
    match format {
        Format::Mif => Some(Source::Mif),
        Format::Compiled => Some(Source::Compiled),
        Format::Records => Some(Source::Records),
        Format::ContextPack => None,
    }
}

/// A file named `name` read by the importer of `source`, and the statements it finds planned
/// against a small ledger as `mneme import` plans them.
pub fn import(source: Source, name: &str, text: &str) {
    let read = Read {
        shown: format!("notes/{name}"),
        name: name.to_owned(),
        text: text.to_owned(),
    };
    let Ok((found, _skipped)) = found_in(source, &[read]) else {
        return;
    };
    let ledger = Ledger::new(
        vec![FactFileEntry::parse(
            "architecture.md".into(),
            "# Architecture\n\n- **f-aaaa** One fact.\n".into(),
        )
        .expect("the seed parses")],
        Config::default(),
    );
    let mut n = 0;
    let planned = plan(&ledger, &Queue::default(), &found, || {
        n += 1;
        format!("f-m{n}")
    });
    for (_, why) in &planned.refused {
        shown(why);
    }
    for op in &planned.operations {
        if let Some(text) = op.text() {
            // What an import proposes passes the checks `propose` makes.
            assert_eq!(check_text(text, usize::MAX).as_deref(), Ok(text));
        }
    }
}

/// Every importer on one file, named as each source expects its files.
pub fn every_import(text: &str) {
    for (source, name) in [
        (
            Source::Mif,
            "4f0c2a4e-5b1e-4c2a-9f1e-2b3c4d5e6f70-fact.memory.md",
        ),
        (Source::Compiled, "entries.jsonl"),
        (Source::Records, "records.jsonl"),
        (Source::Claude, "CLAUDE.md"),
        (Source::Agents, "AGENTS.md"),
        (Source::Cursor, "rules.mdc"),
        (Source::Copilot, "api.instructions.md"),
        (Source::Windsurf, "rules.md"),
        (Source::Cline, "rules.md"),
        (Source::Kiro, "steering.md"),
        (Source::MemoryBank, "activeContext.md"),
        (Source::Adr, "0001-record.md"),
        (Source::Notes, "notes.md"),
    ] {
        import(source, name, text);
    }
}

/// A proposal file: parsed, validated as review validates it, previewed against a ledger,
/// and written back the same.
pub fn proposal(text: &str, ledger_text: &str) {
    let Ok(p) = Proposal::parse(text) else { return };
    let Ok(entry) = FactFileEntry::parse("architecture.md".into(), ledger_text.to_owned()) else {
        return;
    };
    let ledger = Ledger::new(vec![entry], Config::default());
    let valid = p.validate(&ledger.limits()).is_ok();
    if valid {
        shown(&p.reason);
        for op in &p.operations {
            let _ = op.summary();
            assert!(op.text().is_none_or(|t| !has_control(t)));
        }
        assert_eq!(Proposal::parse(&p.to_json()).as_ref(), Ok(&p));
    }
    let _ = preview(&ledger, &Queue::default(), &p, TODAY);
    // Evidence as review shows it, against any file text: never more than the cap of lines.
    for e in &p.evidence {
        for file in [Some(ledger_text), None] {
            let cited = crate::model::evidence::cited::cite(e, file);
            if let crate::model::evidence::cited::Cited::Lines { lines, .. } = &cited {
                assert!(lines.len() <= crate::model::evidence::cited::MAX_LINES);
            }
            let _ = cited.problem();
        }
    }
    let _ = crate::model::proposals::queue::targets(&p);
    let proposals = vec![ProposalInput {
        path: ".ledger/proposals/p.json".into(),
        raw: Ok(&p),
    }];
    let _ = lint::check(
        &lint_input(Vec::new(), proposals, &ledger.config),
        |_, _| true,
        |_| true,
    );
}

/// Applying one operation, picked by `selector`, to a fact file: a result parses, keeps the
/// front matter, and holds the proposed text.
pub fn apply_one(selector: u8, file_text: &str, statement: &str) {
    let Ok(entry) = FactFileEntry::parse("a.md".into(), file_text.to_owned()) else {
        return;
    };
    let ids: Vec<(String, String)> = entry
        .file()
        .facts()
        .filter_map(|f| f.id.clone().map(|id| (id, f.text.clone())))
        .collect();
    let file = "a.md".to_owned();
    let target = ids.get(usize::from(selector / 4) % ids.len().max(1));
    let scope = if selector & 0x80 == 0 {
        Vec::new()
    } else {
        vec!["src/**".to_owned()]
    };
    let op = match (selector % 4, target) {
        (1, Some((id, before))) => Operation::Update {
            evidence: Vec::new(),
            file,
            fact_id: id.clone(),
            before: before.clone(),
            text: statement.to_owned(),
            relations: Default::default(),
            scope,
        },
        (2, Some((id, before))) => Operation::Remove {
            file,
            fact_id: id.clone(),
            before: before.clone(),
        },
        (3, Some((id, before))) => Operation::Supersede {
            evidence: Vec::new(),
            file,
            fact_id: id.clone(),
            before: before.clone(),
            new_fact_id: "f-new1".into(),
            text: statement.to_owned(),
            relations: Default::default(),
            scope,
        },
        _ => Operation::Add {
            file,
            fact_id: "f-new1".into(),
            text: statement.to_owned(),
            relations: Default::default(),
            evidence: Vec::new(),
            scope,
            state: None,
            by: None,
        },
    };
    let ledger = Ledger::new(vec![entry], Config::default());
    let Ok(applied) = apply(&ledger, &proposal_of(op.clone(), &ledger), TODAY) else {
        return;
    };
    for change in &applied.files {
        let after = FactFile::parse(&change.new).expect("an applied file parses");
        assert_eq!(after.front_matter, ledger.files()[0].file().front_matter);
        if let Some(t) = op.text() {
            let id = op.new_id().unwrap_or(op.fact_id());
            let fact = after.facts().find(|f| f.id.as_deref() == Some(id));
            assert_eq!(fact.map(|f| f.text.as_str()), Some(t));
        }
    }
}

/// A proposal of `op` made against `ledger` as it is.
pub fn proposal_of(op: Operation, ledger: &Ledger) -> Proposal {
    Proposal {
        schema: SCHEMA,
        id: "20261123T000000Z-00000000".into(),
        created_at: "2026-11-23T00:00:00.000000Z".into(),
        agent: None,
        author: None,
        reason: "r".into(),
        evidence: Vec::new(),
        base: ledger
            .files()
            .iter()
            .map(|f| (f.name.clone(), f.sha256().to_owned()))
            .collect(),
        operations: vec![op],
    }
}

/// The merge driver on three versions: a result without conflicts keeps every fact that
/// neither side removed. Task files (JSON, as the driver tells them without a path) go to
/// [`task_merge3`].
pub fn merge3(base: &str, ours: &str, theirs: &str) {
    if ours.trim_start().starts_with('{') {
        return task_merge3(base, ours, theirs);
    }
    // Evidence drift follows cited lines between two versions of a file. Its line diff costs
    // O(N·D) comparisons of whole lines, so only small versions are tried here.
    if base.len() + ours.len() < 4096 {
        for lines in [(1, 1), (2, 5), (usize::MAX, usize::MAX)] {
            let _ = line_fate(base, ours, lines);
        }
    }
    let merged = merge(base, ours, theirs);
    if merged.conflicts > 0 {
        return;
    }
    let keys = |text: &str| -> Vec<String> {
        FactFile::parse(text)
            .map(|f| f.facts().map(Fact::key).collect())
            .unwrap_or_default()
    };
    let (o, a, b, result) = (keys(base), keys(ours), keys(theirs), keys(&merged.text));
    for k in a.iter().chain(&b) {
        let removed = o.contains(k) && (!a.contains(k) || !b.contains(k));
        assert!(result.contains(k) || removed, "{k} was dropped");
    }
}

/// The task merge driver on three versions: a merged task is a valid task file, keeps every note
/// either side added, and does not depend on which side is ours.
pub fn task_merge3(base: &str, ours: &str, theirs: &str) {
    let Some(m) = merge_task_files(base, ours, theirs) else {
        return;
    };
    assert_eq!(Task::parse(&m.task.to_json()).as_ref(), Ok(&m.task));
    let swapped = merge_task_files(base, theirs, ours).expect("both sides parse");
    assert_eq!(swapped.task, m.task, "the merge depends on the side");
    let base_notes = Task::parse(base).map(|t| t.notes).unwrap_or_default();
    for side in [ours, theirs] {
        for note in Task::parse(side).expect("parsed above").notes {
            assert!(
                base_notes.contains(&note) || m.task.notes.contains(&note),
                "a note was dropped: {note:?}"
            );
        }
    }
}

/// A claim object from a remote, and a local claim record: a claim that reads is written back
/// as read, and says who holds it at any time without panicking.
pub fn claim(text: &str) {
    use crate::model::tasks::claims::{Claim, ClaimRecord};
    if let Ok(c) = Claim::parse(text.as_bytes(), "t-a3f8") {
        assert_eq!(Claim::parse(&c.to_bytes(), "t-a3f8").as_ref(), Ok(&c));
        for at in [
            now(),
            Timestamp::from_unix(i64::MIN),
            Timestamp::from_unix(i64::MAX),
        ] {
            shown(&c.describe(at));
            let _ = c.is_stale(at);
        }
    }
    let record = ClaimRecord::parse(text);
    assert_eq!(ClaimRecord::parse(&record.render()).remote, record.remote);
}

/// A task file: a task that parses is written back in the form it is read; claims are tried on
/// the same text.
pub fn task(text: &str) {
    claim(text);
    if let Ok(t) = Task::parse(text) {
        shown(&t.title);
        assert_eq!(Task::parse(&t.to_json()).as_ref(), Ok(&t));
        // What the task index keeps of its head reads back to what `context` shows of it.
        let mut head = Vec::new();
        t.write_head(&mut Writer(&mut head));
        let back = Task::read_head(&head).expect("a task's head reads back");
        assert_eq!(TaskLine::new(&back), TaskLine::new(&t));
        assert_eq!((&back.deps, &back.created_at), (&t.deps, &t.created_at));
        // With the rest, it is the whole task, as `list` takes it from the index.
        let mut rest = Vec::new();
        t.write_rest(&mut Writer(&mut rest));
        assert_eq!(back.read_rest(&rest).as_ref(), Some(&t));
        let summary = TaskSummary::of(std::slice::from_ref(&t));
        let mut kept = Vec::new();
        summary.write(&mut Writer(&mut kept));
        assert_eq!(TaskSummary::read(&kept), Some(summary));
    }
}

/// `.ledger/config.yaml`.
pub fn config(text: &str) {
    let _ = Config::parse(text);
}

/// A commit message, as the history reads decisions from it.
pub fn decision(message: &[u8]) {
    let (subject, decision) = decision_in(message);
    shown(&subject);
    if let Some(d) = decision {
        let _ = d.rejection_reason();
        let _ = d.touches("f-aaaa");
    }
}

/// A decision record file (named by its own id, as a valid one is) replayed against a fact
/// file: a valid record reads back as written, and every issue prints safely.
pub fn record(text: &str, facts: &str) {
    let name = serde_json::from_str::<Record>(text)
        .map(|r| r.id())
        .unwrap_or_default();
    let records: Vec<(String, Record)> = match Record::parse(&name, text) {
        Ok(r) => {
            assert_eq!(Record::parse(&r.id(), &r.render()).as_ref(), Ok(&r));
            vec![(name, r)]
        }
        Err(why) => {
            shown(&why.to_string());
            Vec::new()
        }
    };
    let files = [("architecture.md".to_owned(), facts.to_owned())]
        .into_iter()
        .collect();
    for issue in check_state(&records, &files) {
        shown(&issue.to_string());
    }
}

/// `.ledger/allowed_signers`: every line is a signer or listed as skipped with why.
pub fn allowed_signers(text: &str) {
    let signers = AllowedSigners::parse(text);
    for why in &signers.skipped {
        shown(why);
    }
    let _ = signers.lists("f", "a@b");
}

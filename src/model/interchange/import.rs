//! Planning an import: statements found in outside sources become `add` operations of one
//! proposal, never facts. Exact duplicates (of the ledger or of each other) are skipped and
//! counted, statements that hold secrets or break the statement rules are refused with why,
//! and near-duplicates of existing facts are named.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use crate::model::agents::rules::is_generated;
use crate::model::base::text::normalize;
use crate::model::facts::fields::{
    check_evidence, check_reason, check_scope, check_text, MAX_SCOPES,
};
use crate::model::facts::file::{is_fact_id, Relations, State};
use crate::model::facts::ledger::Ledger;
use crate::model::interchange::found::Found;
use crate::model::interchange::{compiled, mif, notes, records};
use crate::model::proposals::plan::{
    assemble, similar_to, Header, PlanContext, PlanError, Similar,
};
use crate::model::proposals::proposal::{Operation, Proposal};
use crate::model::proposals::queue::Queue;
use crate::model::proposals::secrets;

/// What an import reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// MIF memory files: a `*.memory.md` file or a directory of them.
    Mif,
    /// Compiled memory: a directory with `documents.jsonl` and `entries.jsonl`.
    Compiled,
    /// Memory records: a JSON Lines file, or a directory of them.
    Records,
    /// A CLAUDE.md.
    Claude,
    /// An AGENTS.md, outside mneme's block.
    Agents,
    /// `.cursorrules`, or a directory of `.mdc` rules (`.cursor/rules`).
    Cursor,
    /// Copilot's instructions: `.github/instructions/*.instructions.md` (`applyTo`), or
    /// `.github/copilot-instructions.md`.
    Copilot,
    /// Windsurf's rules: `.windsurf/rules/*.md` (`trigger: glob`), or `.windsurfrules`.
    Windsurf,
    /// Cline's rules: `.clinerules/*.md` (`paths`), or a `.clinerules` file.
    Cline,
    /// Kiro's steering files: `.kiro/steering/*.md` (`inclusion: fileMatch`).
    Kiro,
    /// A Cline memory bank: a directory of Markdown files.
    MemoryBank,
    /// Architecture decision records: a directory of `NNNN-title.md`.
    Adr,
    /// Any Markdown notes file, or a directory of them.
    Notes,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Mif => "mif",
            Source::Compiled => "compiled",
            Source::Records => "records",
            Source::Claude => "claude",
            Source::Agents => "agents",
            Source::Cursor => "cursor",
            Source::Copilot => "copilot",
            Source::Windsurf => "windsurf",
            Source::Cline => "cline",
            Source::Kiro => "kiro",
            Source::MemoryBank => "memory-bank",
            Source::Adr => "adr",
            Source::Notes => "notes",
        }
    }

    /// Whether a directory's file named `name` is one this source reads.
    /// The name of the source's file when copies of it also sit in subdirectories, each about
    /// its own: a nested `AGENTS.md` or `CLAUDE.md` holds the rules for the files under it.
    pub fn nested(self) -> Option<&'static str> {
        match self {
            Source::Claude => Some("CLAUDE.md"),
            Source::Agents => Some("AGENTS.md"),
            _ => None,
        }
    }

    /// The folder of rule files, each with its own paths, that the runtime reads beside its
    /// nested files: Claude Code's `.claude/rules`.
    pub fn rules_dir(self) -> Option<&'static str> {
        match self {
            Source::Claude => Some(".claude/rules"),
            _ => None,
        }
    }

    pub fn wants(self, name: &str) -> bool {
        match self {
            Source::Mif => name.ends_with(".memory.md"),
            Source::Compiled => name == "entries.jsonl" || name == "documents.jsonl",
            Source::Records => name.ends_with(".jsonl"),
            Source::Claude | Source::Agents => self.nested() == Some(name),
            Source::Cursor => name == ".cursorrules" || name.ends_with(".mdc"),
            Source::Copilot => {
                name.ends_with(".instructions.md") || name == "copilot-instructions.md"
            }
            Source::Windsurf => name == ".windsurfrules" || name.ends_with(".md"),
            Source::Cline => name == ".clinerules" || name.ends_with(".md"),
            Source::Kiro => name.ends_with(".md"),
            Source::MemoryBank | Source::Notes => name.ends_with(".md"),
            Source::Adr => name.ends_with(".md") && notes::adr_number(name).is_some(),
        }
    }
}

/// A file an import read: how evidence names it (`docs/adr/0003-x.md`), its file name and text.
#[derive(Debug, Clone)]
pub struct Read {
    pub shown: String,
    pub name: String,
    pub text: String,
}

/// A file of a structured source that breaks its format's rules: the import stops.
#[derive(Debug, thiserror::Error)]
#[error("{file} is not valid {format}: {}", problems.join("; "))]
pub struct ImportError {
    pub file: String,
    pub format: &'static str,
    pub problems: Vec<String>,
}

/// The statements of `files` read as `source`, and the files skipped with why (a proposed
/// decision record). A structured file that breaks its format's rules stops the import.
#[allow(clippy::type_complexity)]
pub fn found_in(
    source: Source,
    files: &[Read],
) -> Result<(Vec<Found>, Vec<(String, String)>), ImportError> {
    let invalid = |file: &str, problems: Vec<String>| ImportError {
        file: file.to_owned(),
        format: source.name(),
        problems,
    };
    let mut found = Vec::new();
    let mut skipped = Vec::new();
    match source {
        Source::Mif => {
            for f in files {
                let m = mif::read(&f.name, &f.text).map_err(|p| invalid(&f.shown, p))?;
                found.push(mif::found(&f.shown, &m));
            }
        }
        Source::Compiled => {
            let file = |n: &str| files.iter().find(|f| f.name == n);
            let (Some(documents), Some(entries)) = (file("documents.jsonl"), file("entries.jsonl"))
            else {
                let at = files.first().map_or(String::new(), |f| f.shown.clone());
                return Err(invalid(
                    &at,
                    vec![
                        "a compiled export is a directory with documents.jsonl and entries.jsonl"
                            .into(),
                    ],
                ));
            };
            found = compiled::found(&entries.shown, &documents.text, &entries.text)
                .map_err(|p| invalid(&entries.shown, p))?;
        }
        Source::Records => {
            for f in files {
                let mut problems = Vec::new();
                for (at, record) in compiled::lines(&f.text, &f.shown, &mut problems) {
                    match records::found(&format!("{}:{at}", f.shown), &record) {
                        Ok(one) => found.push(one),
                        Err(p) => problems.extend(p.into_iter().map(|p| format!("line {at}: {p}"))),
                    }
                }
                if !problems.is_empty() {
                    return Err(invalid(&f.shown, problems));
                }
            }
        }
        Source::Adr => {
            for f in files {
                match notes::adr(&f.shown, &f.name, &f.text) {
                    Ok(one) => found.push(one),
                    Err(why) => skipped.push((f.shown.clone(), why)),
                }
            }
        }
        Source::Cursor | Source::Copilot | Source::Windsurf | Source::Cline | Source::Kiro => {
            for f in files {
                // The ledger's own facts, compiled: importing them would copy the ledger.
                if is_generated(&f.text) {
                    skipped.push((
                        f.shown.clone(),
                        "compiled from this ledger by mneme".to_owned(),
                    ));
                } else {
                    found.extend(notes::statements(&f.shown, &f.text));
                }
            }
        }
        Source::Claude | Source::Agents | Source::MemoryBank | Source::Notes => {
            for f in files {
                let mut statements = notes::statements(&f.shown, &f.text);
                // A nested instruction file is about the files under its directory; a rule file
                // (`.claude/rules/db.md`) about the paths its front matter names, or every file.
                let nested = source.nested() == Some(f.name.as_str());
                if let Some(dir) = nested.then(|| nested_dir(&f.shown)).flatten() {
                    for s in statements.iter_mut().filter(|s| s.scope.is_empty()) {
                        s.scope = vec![format!("{dir}/**")];
                    }
                }
                found.extend(statements);
            }
        }
    }
    Ok((found, skipped))
}

/// The directory of a file named from the repository's root (`crates/db` of
/// `crates/db/AGENTS.md`); `None` at the root, or for a path outside the repository (absolute,
/// or above it).
fn nested_dir(shown: &str) -> Option<&str> {
    let (dir, _) = shown.rsplit_once('/')?;
    let outside =
        dir.is_empty() || shown.starts_with('/') || dir.split('/').any(|p| p == ".." || p == ".");
    (!outside).then_some(dir)
}

/// What an import will propose, and what it will not.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Plan {
    #[serde(skip)]
    pub operations: Vec<Operation>,
    /// Where each operation's statement came from (`CLAUDE.md:12`).
    #[serde(skip)]
    pub sources: Vec<String>,
    /// Statements already in the ledger (or found twice): `(source, fact id or earlier source)`.
    pub duplicates: Vec<(String, String)>,
    /// Statements refused: `(source, why)`.
    pub refused: Vec<(String, String)>,
    /// Existing facts like a proposed statement.
    pub similar: Vec<Similar>,
    /// Relations or replacements that name nothing this import or the ledger holds.
    pub unresolved: Vec<(String, String)>,
}

/// Plans `found` against `ledger` and the `pending` proposals, minting fact ids with `mint`
/// where the source's id cannot be kept.
pub fn plan(
    ledger: &Ledger,
    pending: &Queue,
    found: &[Found],
    mint: impl FnMut() -> String,
) -> Plan {
    let mut out = Plan::default();
    let kept = keep(ledger, pending, found, mint, &mut out);
    // Relations and replacements name statements by the source's keys or mneme ids.
    let mut by_key: HashMap<&str, String> = HashMap::new();
    for k in &kept {
        let f = &found[k.index];
        // A source's fact id the ledger already uses names the ledger's fact, not this one.
        let own = f.fact_id.iter().filter(|id| **id == k.id);
        for key in f.key.iter().chain(own) {
            by_key.insert(key.as_str(), k.id.clone());
        }
    }
    let resolve = |name: &str| -> Option<String> {
        by_key
            .get(name)
            .cloned()
            .or_else(|| ledger.find(name).map(|_| name.to_owned()))
    };
    // What replaced each statement, from either side's word.
    let mut replaced_by: HashMap<&str, &str> = HashMap::new();
    for f in found {
        for old in &f.supersedes {
            if let Some(key) = f.key.as_deref().or(f.fact_id.as_deref()) {
                replaced_by.insert(old.as_str(), key);
            }
        }
    }
    for Kept {
        index,
        text,
        file,
        id,
    } in kept
    {
        let f = &found[index];
        let mut relations = Relations::new();
        for (relation, target) in &f.relations {
            match resolve(target) {
                Some(t) if t != id => {
                    relations.entry(*relation).or_default().insert(t);
                }
                _ => out
                    .unresolved
                    .push((f.source.clone(), format!("{} {target}", relation.key()))),
            }
        }
        let named_by = f
            .key
            .iter()
            .chain(&f.fact_id)
            .find_map(|k| replaced_by.get(k.as_str()).map(|by| (*by).to_owned()));
        let (state, by) = state_of(f, f.superseded_by.clone().or(named_by), &id, resolve);
        if let Err(why) = &by {
            out.unresolved.push((f.source.clone(), why.clone()));
        }
        let (evidence, scope) = evidence_and_scope(f, &mut out);
        let op = Operation::Add {
            file,
            fact_id: id,
            text,
            relations,
            evidence,
            scope,
            state,
            by: by.ok().flatten(),
        };
        let index = out.operations.len();
        out.similar
            .extend(similar_to(ledger, std::iter::empty(), index, &op));
        out.operations.push(op);
        out.sources.push(f.source.clone());
    }
    out
}

/// A statement an import keeps: its index in what was found, its text, fact file and id.
struct Kept {
    index: usize,
    text: String,
    file: String,
    id: String,
}

/// The statements to propose, each with its fact file and id; the others are refused or
/// duplicates, recorded in `out`.
fn keep(
    ledger: &Ledger,
    pending: &Queue,
    found: &[Found],
    mut mint: impl FnMut() -> String,
    out: &mut Plan,
) -> Vec<Kept> {
    let files: Vec<String> = ledger.files().iter().map(|f| f.name.clone()).collect();
    let max = ledger.config.max_fact_chars;
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut kept = Vec::new();
    let mut used: BTreeSet<String> = BTreeSet::new();
    for (index, f) in found.iter().enumerate() {
        let text = match usable(f, max) {
            Ok(t) => t,
            Err(why) => {
                out.refused.push((f.source.clone(), why));
                continue;
            }
        };
        let normalized = normalize(&text);
        let duplicate = if let Some((_, fact)) = ledger.same_statement(&normalized, "") {
            Some(fact.id.clone().unwrap_or_else(|| Ledger::label(fact)))
        } else if let Some(p) = pending.proposing(&normalized) {
            Some(format!("pending proposal {}", p.id()))
        } else {
            seen.get(&normalized).cloned()
        };
        if let Some(of) = duplicate {
            out.duplicates.push((f.source.clone(), of));
            continue;
        }
        seen.insert(normalized, f.source.clone());
        let id = match &f.fact_id {
            Some(id)
                if is_fact_id(id)
                    && ledger.find(id).is_none()
                    && !pending.reserves(id)
                    && !used.contains(id) =>
            {
                id.clone()
            }
            _ => loop {
                let id = mint();
                if ledger.find(&id).is_none() && !used.contains(&id) {
                    break id;
                }
            },
        };
        used.insert(id.clone());
        let file = file_for(&files, f.hint.as_deref(), &text);
        kept.push(Kept {
            index,
            text,
            file,
            id,
        });
    }
    kept
}

/// The statement's text as a fact, or why it cannot be one.
fn usable(f: &Found, max: usize) -> Result<String, String> {
    if let Some(why) = &f.skipped {
        return Err(why.clone());
    }
    let text = check_text(&f.text, max).map_err(|e| e.to_string())?;
    if let Some(s) = secrets::find(&text).first() {
        return Err(format!(
            "it holds what looks like {} ({})",
            s.kind, s.sample
        ));
    }
    Ok(text)
}

/// The fact's state and what superseded it. A replacement this import or the ledger cannot name
/// leaves it archived, with the reason as the error.
fn state_of(
    f: &Found,
    superseded_by: Option<String>,
    id: &str,
    resolve: impl Fn(&str) -> Option<String>,
) -> (Option<State>, Result<Option<String>, String>) {
    let state = match (&f.state, &superseded_by) {
        (None | Some(State::Active), Some(_)) => Some(State::Superseded),
        (s, _) => s.clone(),
    };
    match (&state, superseded_by) {
        (Some(State::Superseded), Some(new)) => match resolve(&new) {
            Some(by) if by != id => (Some(State::Superseded), Ok(Some(by))),
            _ => (Some(State::Archived), Err(format!("superseded by {new}"))),
        },
        // Replaced by something unknown: kept as history.
        (Some(State::Superseded), None) => (Some(State::Archived), Ok(None)),
        (Some(State::Active) | None, _) => (None, Ok(None)),
        (Some(s), _) => (Some(s.clone()), Ok(None)),
    }
}

/// The statement's evidence and scope that a fact can hold (the scope once each); what it cannot
/// is named in `out` as unresolved.
fn evidence_and_scope(f: &Found, out: &mut Plan) -> (Vec<String>, Vec<String>) {
    let mut evidence = Vec::new();
    for e in f.evidence() {
        match check_evidence(&e.replace(' ', "%20")) {
            Ok(e) => evidence.push(e),
            Err(why) => out
                .unresolved
                .push((f.source.clone(), format!("evidence dropped: {why}"))),
        }
    }
    let mut scope = Vec::new();
    for glob in f.scope.iter().take(MAX_SCOPES) {
        match check_scope(glob) {
            Ok(g) if !scope.contains(&g) => scope.push(g),
            Ok(_) => {}
            Err(why) => out
                .unresolved
                .push((f.source.clone(), format!("scope dropped: {why}"))),
        }
    }
    (evidence, scope)
}

/// How an import's statements are spread over proposals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Split {
    /// One proposal for all of them.
    #[default]
    None,
    /// One proposal per source file.
    File,
    /// One proposal per statement, each reviewed on its own.
    Statement,
}

/// The proposals of a plan, spread as `split` says. `reason` says what was imported; each
/// proposal's reason names its file (or its statement's line) when split.
pub fn proposals(
    ledger: &Ledger,
    plan: &Plan,
    ctx: &PlanContext,
    agent: Option<String>,
    reason: &str,
    split: Split,
) -> Result<Vec<Proposal>, PlanError> {
    // (what names the group in its reason, its operations); a statement is a group of its own,
    // even beside sentences of the same paragraph.
    let mut groups: Vec<(String, Vec<Operation>)> = Vec::new();
    for (op, source) in plan.operations.iter().zip(&plan.sources) {
        let label = match split {
            Split::None => String::new(),
            Split::File => source
                .rsplit_once(':')
                .map_or(source.as_str(), |(file, _)| file)
                .to_owned(),
            Split::Statement => source.clone(),
        };
        let joins = split != Split::Statement;
        match groups.iter_mut().find(|(l, _)| joins && *l == label) {
            Some((_, ops)) => ops.push(op.clone()),
            None => groups.push((label, vec![op.clone()])),
        }
    }
    groups
        .into_iter()
        .enumerate()
        .map(|(i, (label, operations))| {
            let reason = if label.is_empty() {
                reason.to_owned()
            } else {
                format!("{reason}: {label}")
            };
            // Statements of one line share their reason: the position tells them apart.
            let seed = format!("{}\0{reason}\0{i}\0{}", ctx.now.rfc3339(), ctx.nonce);
            let header = Header {
                reason: check_reason(&reason)?,
                agent: agent.clone(),
                evidence: Vec::new(),
            };
            assemble(ledger, ctx, &seed, header, operations)
        })
        .collect()
}

/// Words that say which kind of fact a statement is, by the fact file they point to.
const KINDS: [(&str, &[&str]); 4] = [
    (
        "architecture",
        &[
            "architecture",
            "decision",
            "design",
            "adr",
            "stack",
            "we use",
            "structure",
            "layer",
            "module",
        ],
    ),
    (
        "invariants",
        &[
            "invariant",
            "always",
            "never",
            "must",
            "rule",
            "convention",
            "requirement",
            "pattern",
            "security",
            "don't",
            "do not",
            "avoid",
        ],
    ),
    (
        "performance",
        &[
            "performance",
            "latency",
            "fast",
            "slow",
            "memory",
            "benchmark",
            "ms",
            "throughput",
            "cache",
        ],
    ),
    (
        "pitfalls",
        &[
            "pitfall",
            "gotcha",
            "careful",
            "beware",
            "avoid",
            "bug",
            "learn",
            "incident",
            "lesson",
            "workaround",
            "caveat",
            "footgun",
            "trap",
            "silently",
        ],
    ),
];

/// Words that name what a statement is about only beside a measure (`under 20 ms`, `2x
/// faster`): alone, `fast` or `memory` is a manner or another subject (`ship the best
/// solution rather than fast`, `the memory bank`).
const NEEDS_A_MEASURE: [&str; 5] = ["fast", "slow", "memory", "cache", "ms"];

/// Words before a keyword that turn it away: `rather than fast`, `instead of caching`, `not
/// slow`.
const CONTRAST: [&str; 4] = ["than", "not", "over", "of"];

/// The fact file a statement belongs in: the one its hint names (a tag or heading such as
/// `performance-rules`), else the one its hint's or its own words point to, else the first.
pub fn file_for(files: &[String], hint: Option<&str>, text: &str) -> String {
    let simplify = |s: &str| -> String {
        s.to_lowercase()
            .trim_end_matches(".md")
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect()
    };
    if let Some(h) = hint.map(simplify).filter(|h| !h.is_empty()) {
        if let Some(f) = files.iter().find(|f| simplify(f) == h) {
            return f.clone();
        }
    }
    let by_words = |s: &str| -> Option<String> {
        let lower = s.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !(c.is_alphanumeric() || c == '\''))
            .filter(|w| !w.is_empty())
            .collect();
        let spaced = format!(" {} ", words.join(" "));
        let measured = s.chars().any(|c| c.is_ascii_digit());
        // A keyword matches a whole word, or the word with a plural or verb ending, unless a
        // contrast turns it away (`rather than fast`) or it needs a measure the text lacks.
        let has = |kw: &str| {
            if kw.contains(' ') {
                return spaced.contains(&format!(" {kw} "));
            }
            if NEEDS_A_MEASURE.contains(&kw) && !measured {
                return false;
            }
            words.iter().enumerate().any(|(i, w)| {
                let matches = w.strip_prefix(kw).is_some_and(|rest| {
                    ["", "s", "es", "ed", "ing", "ings", "er", "ers"].contains(&rest)
                });
                matches && !(i > 0 && CONTRAST.contains(&words[i - 1]))
            })
        };
        let mut best: Option<(usize, &String)> = None;
        for (stem, keywords) in KINDS {
            let Some(file) = files.iter().find(|f| f.starts_with(stem)) else {
                continue;
            };
            let score = keywords.iter().filter(|w| has(w)).count();
            if score > 0 && best.is_none_or(|(b, _)| score > b) {
                best = Some((score, file));
            }
        }
        best.map(|(_, f)| f.clone())
    };
    hint.and_then(by_words)
        .or_else(|| by_words(text))
        .or_else(|| files.first().cloned())
        .unwrap_or_default()
}

/// How many statements of each fact file a plan proposes, for the summary.
pub fn by_file(plan: &Plan) -> BTreeMap<&str, usize> {
    let mut out = BTreeMap::new();
    for op in &plan.operations {
        *out.entry(op.file()).or_default() += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::facts::file::Relation;
    use crate::model::facts::ledger::tests::ledger;

    fn found(text: &str, source: &str) -> Found {
        Found {
            text: text.into(),
            source: source.into(),
            ..Found::default()
        }
    }

    #[test]
    fn duplicates_are_skipped_secrets_refused_and_relations_resolved() {
        let l = ledger(&[
            (
                "architecture.md",
                "# A\n\n- **f-aaaa** We use PostgreSQL 16.\n",
            ),
            ("pitfalls.md", "# P\n"),
        ]);
        let mut n = 0;
        let mint = || {
            n += 1;
            format!("f-new{n}")
        };
        let mut old = found("The cache is per tenant.", "notes.md:3");
        old.key = Some("k-old".into());
        old.state = Some(State::Superseded);
        old.superseded_by = Some("k-new".into());
        let mut new = found("The cache is global, keyed by tenant.", "notes.md:4");
        new.key = Some("k-new".into());
        new.relations = vec![
            (Relation::DependsOn, "f-aaaa".into()),
            (Relation::RelatesTo, "k-gone".into()),
        ];
        new.fact_id = Some("f-aaaa".into());
        let plan = plan(
            &l,
            &Queue::default(),
            &[
                found("We use postgresql 16", "CLAUDE.md:2"),
                found(
                    "Token: ghp_abcdefghijklmnopqrstuvwxyz0123456789",
                    "CLAUDE.md:3",
                ),
                found("Beware: the importer is slow on NFS.", "CLAUDE.md:4"),
                found("beware — the importer is slow on NFS", "AGENTS.md:9"),
                old,
                new,
            ],
            mint,
        );
        assert_eq!(
            plan.duplicates,
            [
                ("CLAUDE.md:2".into(), "f-aaaa".into()),
                ("AGENTS.md:9".into(), "CLAUDE.md:4".into())
            ]
        );
        assert_eq!(plan.refused.len(), 1);
        assert!(plan.refused[0].1.contains("GitHub"), "{:?}", plan.refused);
        assert_eq!(plan.operations.len(), 3);
        let Operation::Add { file, evidence, .. } = &plan.operations[0] else {
            panic!()
        };
        assert_eq!(file, "pitfalls.md");
        assert_eq!(evidence, &["CLAUDE.md:4".to_owned()]);
        let Operation::Add {
            fact_id: old_id,
            state,
            by,
            ..
        } = &plan.operations[1]
        else {
            panic!()
        };
        let Operation::Add {
            fact_id: new_id,
            relations,
            ..
        } = &plan.operations[2]
        else {
            panic!()
        };
        assert_eq!(new_id, "f-new3", "f-aaaa is taken, so a new id is minted");
        assert_eq!(old_id, "f-new2");
        assert_eq!(
            (state.clone(), by.clone()),
            (Some(State::Superseded), Some(new_id.clone()))
        );
        assert_eq!(
            relations
                .get(&Relation::DependsOn)
                .unwrap()
                .iter()
                .collect::<Vec<_>>(),
            ["f-aaaa"]
        );
        assert_eq!(
            plan.unresolved,
            [("notes.md:4".into(), "relates_to k-gone".into())]
        );
    }

    #[test]
    fn files_are_chosen_by_hint_then_words() {
        let files: Vec<String> = [
            "architecture.md",
            "invariants.md",
            "performance_rules.md",
            "pitfalls.md",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            file_for(&files, Some("performance-rules"), "x"),
            "performance_rules.md"
        );
        assert_eq!(
            file_for(&files, Some("Architecture"), "x"),
            "architecture.md"
        );
        assert_eq!(file_for(&files, Some("Gotchas we hit"), "x"), "pitfalls.md");
        assert_eq!(
            file_for(&files, Some("Miscellany"), "x"),
            "architecture.md",
            "no word: the first file"
        );
        assert_eq!(
            file_for(&files, None, "Never commit secrets."),
            "invariants.md"
        );
        assert_eq!(
            file_for(&files, None, "Queries must stay under 20 ms latency."),
            "performance_rules.md"
        );
        assert_eq!(
            file_for(&files, Some("Performance"), "Never block."),
            "performance_rules.md"
        );
        assert_eq!(file_for(&files, None, "Hello."), "architecture.md");
        // Filed by what a statement is about: a manner, a contrast or a rule is not a subject.
        assert_eq!(
            file_for(&files, None, "Ship the best solution rather than fast."),
            "architecture.md"
        );
        assert_eq!(
            file_for(&files, None, "Keep the memory bank in sync with the code."),
            "architecture.md"
        );
        assert_eq!(
            file_for(
                &files,
                None,
                "Handlers answer within 50 ms, from the cache."
            ),
            "performance_rules.md"
        );
        assert_eq!(
            file_for(&files, None, "Do not commit the release notes file."),
            "invariants.md"
        );
        assert_eq!(
            file_for(
                &files,
                None,
                "An empty catch block silently hides a failed write."
            ),
            "pitfalls.md"
        );
    }
}

//! MIF Level 3 memory files (docs/formats/mif.md): one `{uuid}-{slug}.memory.md` per fact, YAML
//! front matter and a Markdown body.

use serde_json::Value;

use crate::model::base::text::{first_chars, one_line, truncate};
use crate::model::base::time::Timestamp;
use crate::model::evidence::refs::{classify, Evidence};
use crate::model::facts::file::{Relation, State};
use crate::model::interchange::found::Found;
use crate::model::interchange::item::{
    confidence, is_hyphenated, is_uuid_v4, quoted, slug, uuid, Item,
};

/// The namespaces and scopes MIF defines.
const NAMESPACES: [&str; 9] = [
    "apis",
    "blockers",
    "context",
    "decisions",
    "learnings",
    "patterns",
    "security",
    "testing",
    "episodic",
];
const SCOPES: [&str; 2] = ["user", "project"];
const TYPES: [&str; 3] = ["semantic", "episodic", "procedural"];
const CODE_REF_TYPES: [&str; 6] = ["function", "class", "method", "variable", "type", "module"];
const CITATION_TYPES: [&str; 6] = [
    "paper",
    "documentation",
    "blog",
    "github",
    "stackoverflow",
    "article",
];
const RESOLUTIONS: [&str; 3] = ["merged", "invalidated", "skipped"];
/// MIF's relationship types, and `depends-on`, mneme's own (docs/formats/mif.md).
pub const RELATIONSHIPS: [&str; 8] = [
    "relates-to",
    "supersedes",
    "derived-from",
    "contradicts",
    "implements",
    "blocks",
    "blocked-by",
    "depends-on",
];
/// Body sections mneme writes after the statement; a reader stops the statement at the first.
pub const SECTIONS: [&str; 4] = [
    "## Relationships",
    "## Entities",
    "## Evidence",
    "## History",
];
const SLUG_MAX: usize = 50;
const TITLE_MAX: usize = 80;

/// A rendered memory file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryFile {
    pub name: String,
    pub text: String,
}

/// The MIF namespace of a fact file: its kind of knowledge, by the file's name.
pub fn namespace_of(stem: &str) -> &'static str {
    let has = |w: &str| stem.contains(w);
    if has("architecture") || has("decision") {
        "decisions"
    } else if has("pitfall") || has("learning") || has("lesson") {
        "learnings"
    } else if has("security") {
        "security"
    } else if has("test") {
        "testing"
    } else if has("api") {
        "apis"
    } else if has("invariant") || has("performance") || has("pattern") || has("rule") {
        "patterns"
    } else {
        "context"
    }
}

/// The relationship line's type for a mneme relation.
pub fn relationship(r: Relation) -> &'static str {
    match r {
        Relation::RelatesTo => "relates-to",
        Relation::DependsOn => "depends-on",
        Relation::Contradicts => "contradicts",
        Relation::DerivedFrom => "derived-from",
    }
}

/// A tag: lowercase words joined by single hyphens, in any script (`инварианты`, `数据库`); the
/// slug of a file name, which must be URL-safe, is the stricter [`is_hyphenated`].
fn is_tag(s: &str) -> bool {
    s.split('-')
        .all(|w| !w.is_empty() && w.chars().all(tag_char))
}

fn tag_char(c: char) -> bool {
    c.is_alphanumeric() && !c.is_uppercase()
}

/// The tag of a fact file (or a state): its words, lowercased, joined by hyphens. Lowercasing can
/// give a combining mark (`İ` → `i̇`) or leave an uppercase letter that has no lowercase, so
/// the words are cut after it.
fn tag_of(stem: &str) -> String {
    let lower = stem.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !tag_char(c))
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        "facts".to_owned()
    } else {
        words.join("-")
    }
}

/// The memory file of `item`; `supersedes` are the ids of the facts it replaced and `fallback`
/// the time of a fact without dates.
pub fn render(item: &Item, supersedes: &[&str], fallback: &str) -> MemoryFile {
    let id = uuid(&item.id);
    let created = item.created(fallback);
    let modified = item.modified(fallback);
    let mut y = String::from("---\n");
    let mut field = |k: &str, v: &str| y.push_str(&format!("{k}: {v}\n"));
    field("id", &id);
    field("type", "semantic");
    field(
        "namespace",
        &format!("{}/project", namespace_of(item.stem())),
    );
    field("created", &quoted(&created));
    field("modified", &quoted(&modified));
    field(
        "title",
        &quoted(&truncate(&one_line(&item.text), TITLE_MAX)),
    );
    y.push_str("tags:\n");
    for tag in [
        "mneme",
        &tag_of(item.stem()),
        // An unknown state a hand edit wrote (`state: Stale now`) as far as a tag can say it.
        &format!("state-{}", tag_of(item.state.as_str())),
    ] {
        y.push_str(&format!("  - {}\n", quoted(tag)));
    }
    y.push_str("temporal:\n");
    y.push_str(&format!("  valid_from: {}\n", quoted(&created)));
    let until = if item.is_historical() {
        quoted(&modified)
    } else {
        "null".to_owned()
    };
    y.push_str(&format!("  valid_until: {until}\n"));
    y.push_str(&format!("  recorded_at: {}\n", quoted(&created)));
    y.push_str("provenance:\n");
    y.push_str("  source_type: user_explicit\n");
    y.push_str(&format!(
        "  source_ref: {}\n",
        quoted(&format!("mneme:{}", item.id))
    ));
    if let Some(agent) = item.proposer() {
        y.push_str(&format!("  agent: {}\n", quoted(agent)));
    }
    y.push_str(&format!("  confidence: {:.1}\n", confidence(item)));
    y.push_str(&evidence_fields(item));
    y.push_str("---\n\n");
    y.push_str(item.text.trim_end());
    y.push('\n');
    let mut links: Vec<String> = supersedes
        .iter()
        .map(|old| format!("- supersedes [[{}]]", uuid(old)))
        .collect();
    for (relation, targets) in &item.relations {
        for t in targets {
            links.push(format!("- {} [[{}]]", relationship(*relation), uuid(t)));
        }
    }
    section(&mut y, "## Relationships", &links);
    let evidence: Vec<String> = item.evidence.iter().map(|e| format!("- {e}")).collect();
    section(&mut y, "## Evidence", &evidence);
    section(&mut y, "## History", &history_lines(item));
    MemoryFile {
        name: format!("{id}-{}.memory.md", slug(&item.text, SLUG_MAX)),
        text: y,
    }
}

/// `code_refs` and `citations`: the evidence MIF can hold as files inside the project and as web
/// pages.
fn evidence_fields(item: &Item) -> String {
    let mut code_refs = String::new();
    let mut citations = String::new();
    for e in &item.evidence {
        match classify(e) {
            // A hand-written reference MIF cannot hold as a file (`C:\x`, `../x`, `a.rs:.2`)
            // stays in the body's evidence section only.
            Evidence::File { path, lines } if is_relative(path) => {
                code_refs.push_str(&format!("  - file: {}\n", quoted(path)));
                if let Some((first, _)) = lines {
                    code_refs.push_str(&format!("    line: {first}\n"));
                }
            }
            Evidence::Other if e.starts_with("https://") || e.starts_with("http://") => {
                let kind = if e.contains("://github.com/") {
                    "github"
                } else {
                    "documentation"
                };
                citations.push_str(&format!(
                    "  - type: {kind}\n    title: {}\n    url: {}\n",
                    quoted(e),
                    quoted(e)
                ));
            }
            Evidence::File { .. } | Evidence::Other => {}
        }
    }
    let mut fields = String::new();
    if !code_refs.is_empty() {
        fields.push_str("code_refs:\n");
        fields.push_str(&code_refs);
    }
    if !citations.is_empty() {
        fields.push_str("citations:\n");
        fields.push_str(&citations);
    }
    fields
}

/// The body's history: one line per change, with who proposed and approved it.
fn history_lines(item: &Item) -> Vec<String> {
    item.history
        .iter()
        .map(|e| {
            let mut line = format!("- {} {}", e.date, e.op.as_str());
            if let Some(p) = &e.proposer {
                line.push_str(&format!(", proposed by {}", one_line(p)));
            }
            if let Some(r) = &e.reviewer {
                line.push_str(&format!(", approved by {}", one_line(r)));
            }
            line.push_str(&format!(
                " ({}): {}",
                first_chars(&e.commit, 10),
                one_line(&e.reason)
            ));
            line
        })
        .collect()
}

fn section(out: &mut String, heading: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    out.push_str(&format!("\n{heading}\n\n"));
    for l in lines {
        out.push_str(l);
        out.push('\n');
    }
}

/// A memory file read back: what an import needs of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Memory {
    pub id: String,
    pub title: String,
    pub namespace: String,
    pub tags: Vec<String>,
    /// The body up to mneme's sections, trimmed.
    pub statement: String,
    /// The 1-based line the statement starts on.
    pub statement_line: usize,
    /// `(type, target id)` of each `## Relationships` line.
    pub relationships: Vec<(String, String)>,
    /// The `## Evidence` list, else the code references and citations.
    pub evidence: Vec<String>,
    /// `provenance.source_ref`.
    pub source_ref: Option<String>,
    pub valid_until: Option<String>,
}

/// What an import makes of a memory read from `path`: its statement, evidence, state and
/// relationships, the fact file its tags or namespace point to, and for a mneme export the
/// fact id it had (`provenance.source_ref` `mneme:<id>`).
pub fn found(path: &str, m: &Memory) -> Found {
    let fact_id = m
        .source_ref
        .as_deref()
        .and_then(|r| r.strip_prefix("mneme:"))
        .map(str::to_owned);
    let state_tag = m.tags.iter().find_map(|t| t.strip_prefix("state-"));
    // mneme's own tags: `mneme`, the fact file, the state.
    let file_tag = m
        .tags
        .iter()
        .find(|t| *t != "mneme" && !t.starts_with("state-") && m.tags.iter().any(|t| t == "mneme"));
    let state = match state_tag {
        Some(s) => Some(State::parse(s)),
        None if m.valid_until.is_some() => Some(State::Archived),
        None => None,
    };
    let mut found = Found {
        text: m.statement.clone(),
        source: format!("{path}:{}", m.statement_line),
        evidence: m.evidence.clone(),
        hint: file_tag
            .cloned()
            .or_else(|| m.namespace.split('/').next().map(str::to_owned)),
        state,
        key: Some(m.id.clone()),
        fact_id,
        ..Found::default()
    };
    for (kind, target) in &m.relationships {
        found.link(kind, target.clone());
    }
    found
}

/// Splits a memory file into its front matter and body.
fn split(text: &str) -> Result<(&str, &str), String> {
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("the file does not start with `---` front matter")?;
    let mut at = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let (front, closing_and_body) = rest.split_at_checked(at).unwrap_or((rest, ""));
            return Ok((front, closing_and_body.strip_prefix(line).unwrap_or("")));
        }
        at += line.len();
    }
    Err("the front matter has no closing `---`".into())
}

/// A memory file's front matter, as read.
type Map = serde_json::Map<String, Value>;

/// Reads and validates a memory file named `name`: every rule MIF Level 3 states for the fields
/// present (docs/formats/mif.md). Returns each problem found.
pub fn read(name: &str, text: &str) -> Result<Memory, Vec<String>> {
    let (yaml, body) = split(text).map_err(|e| vec![e])?;
    let front: Value = serde_saphyr::from_str(yaml)
        .map_err(|e| vec![format!("the front matter is not valid YAML: {e}")])?;
    let Some(map) = front.as_object() else {
        return Err(vec!["the front matter is not a mapping".into()]);
    };
    let mut problems = Vec::new();
    let (id, title, namespace) = (
        text_of(map, "id"),
        text_of(map, "title"),
        text_of(map, "namespace"),
    );
    check_identity(map, &mut problems);
    let tags = tags(map, &mut problems);
    let temporal = map.get("temporal").and_then(Value::as_object);
    if let Some(t) = temporal {
        check_temporal(t, &mut problems);
    }
    let provenance = map.get("provenance").and_then(Value::as_object);
    if let Some(c) = provenance.and_then(|p| p.get("confidence")) {
        unit(&mut problems, "provenance.confidence", c);
    }
    let mut refs = code_refs(map, &mut problems);
    refs.extend(citations(map, &mut problems));
    check_conflicts(map, &mut problems);
    let (statement, sections) = body_parts(body);
    let (relationships, evidence) = sections_read(&sections, &mut problems);
    if statement.is_empty() {
        problems.push("the body holds no statement".into());
    }
    check_file_name(name, id, &mut problems);
    if !problems.is_empty() {
        return Err(problems);
    }
    let owned = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
    Ok(Memory {
        id: id.to_owned(),
        title: title.to_owned(),
        namespace: namespace.to_owned(),
        tags,
        statement,
        statement_line: text.strip_suffix(body).unwrap_or(text).lines().count()
            + body.lines().take_while(|l| l.trim().is_empty()).count()
            + 1,
        relationships,
        evidence: if evidence.is_empty() { refs } else { evidence },
        source_ref: owned(provenance.and_then(|p| p.get("source_ref"))),
        valid_until: owned(temporal.and_then(|t| t.get("valid_until"))),
    })
}

/// The text of a front matter field; empty when it is missing or not text.
fn text_of<'m>(map: &'m Map, key: &str) -> &'m str {
    map.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The fields every memory has: `id`, `type`, `namespace`, `created` (and `modified`), `title`.
fn check_identity(map: &Map, problems: &mut Vec<String>) {
    let text_of = |k: &str| text_of(map, k);
    if !is_uuid_v4(text_of("id")) {
        problems.push(format!(
            "`id` must be a lowercase UUID v4, not {}",
            shown(map.get("id"))
        ));
    }
    if !TYPES.contains(&text_of("type")) {
        problems.push(format!(
            "`type` must be one of {}, not {}",
            TYPES.join(", "),
            shown(map.get("type"))
        ));
    }
    match text_of("namespace").split_once('/') {
        Some((n, s)) if NAMESPACES.contains(&n) && SCOPES.contains(&s) => {}
        _ => problems.push(format!(
            "`namespace` must be `{{namespace}}/{{scope}}` ({} / {}), not {}",
            NAMESPACES.join("|"),
            SCOPES.join("|"),
            shown(map.get("namespace"))
        )),
    }
    for k in ["created", "modified"] {
        let v = map.get(k);
        if (v.is_some() || k == "created") && !v.and_then(Value::as_str).is_some_and(is_zoned_time)
        {
            problems.push(format!(
                "`{k}` must be an ISO 8601 time with a zone, not {}",
                shown(v)
            ));
        }
    }
    if text_of("title").trim().is_empty() {
        problems.push("`title` must not be empty".into());
    }
}

/// The tags that are lowercase and hyphenated; each other one is a problem.
fn tags(map: &Map, problems: &mut Vec<String>) -> Vec<String> {
    match map.get("tags") {
        None => Vec::new(),
        Some(Value::Array(tags)) => tags
            .iter()
            .filter_map(|t| match t.as_str() {
                Some(s) if is_tag(s) => Some(s.to_owned()),
                _ => {
                    problems.push(format!(
                        "tag {} is not lowercase and hyphenated",
                        shown(Some(t))
                    ));
                    None
                }
            })
            .collect(),
        Some(v) => {
            problems.push(format!("`tags` must be a list, not {}", shown(Some(v))));
            Vec::new()
        }
    }
}

/// `temporal`: zoned times, valid from no later than recorded, a decay strength in [0, 1].
fn check_temporal(t: &Map, problems: &mut Vec<String>) {
    for k in ["valid_from", "valid_until", "recorded_at", "last_accessed"] {
        if let Some(v) = t.get(k).filter(|v| !v.is_null()) {
            if !v.as_str().is_some_and(is_zoned_time) {
                problems.push(format!(
                    "`temporal.{k}` must be an ISO 8601 time with a zone, not {}",
                    shown(Some(v))
                ));
            }
        }
    }
    let at = |k: &str| t.get(k).and_then(Value::as_str).and_then(Timestamp::parse);
    if let (Some(from), Some(recorded)) = (at("valid_from"), at("recorded_at")) {
        if from > recorded {
            problems.push("`temporal.valid_from` is later than `temporal.recorded_at`".into());
        }
    }
    if let Some(s) = t
        .get("decay")
        .and_then(Value::as_object)
        .and_then(|d| d.get("strength"))
    {
        unit(problems, "temporal.decay.strength", s);
    }
}

/// `code_refs` as evidence: `file` or `file:line`, each inside the project.
fn code_refs(map: &Map, problems: &mut Vec<String>) -> Vec<String> {
    let mut refs = Vec::new();
    for r in list(map, "code_refs", problems) {
        let file = r.get("file").and_then(Value::as_str).unwrap_or_default();
        if file.is_empty() || !is_relative(file) {
            problems.push(format!(
                "`code_refs` file {file:?} must be a relative path inside the project"
            ));
            continue;
        }
        if let Some(t) = r.get("type") {
            if !t.as_str().is_some_and(|t| CODE_REF_TYPES.contains(&t)) {
                problems.push(format!(
                    "`code_refs` type {} is not one of {}",
                    shown(Some(t)),
                    CODE_REF_TYPES.join(", ")
                ));
            }
        }
        match r.get("line") {
            None => refs.push(file.to_owned()),
            Some(l) => match l.as_u64().filter(|&n| n >= 1) {
                Some(n) => refs.push(format!("{file}:{n}")),
                None => problems.push(format!(
                    "`code_refs` line {} must be a positive whole number",
                    shown(Some(l))
                )),
            },
        }
    }
    refs
}

/// The `citations`' URLs as evidence, each citation checked whole.
fn citations(map: &Map, problems: &mut Vec<String>) -> Vec<String> {
    let mut urls = Vec::new();
    for c in list(map, "citations", problems) {
        let s = |k: &str| c.get(k).and_then(Value::as_str);
        if !s("type").is_some_and(|t| CITATION_TYPES.contains(&t)) {
            problems.push(format!(
                "citation type {} is not one of {}",
                shown(c.get("type")),
                CITATION_TYPES.join(", ")
            ));
        }
        if s("title").is_none_or(|t| t.trim().is_empty()) {
            problems.push("a citation has no `title`".into());
        }
        match s("url") {
            Some(u) if is_http_url(u) => urls.push(u.to_owned()),
            _ => problems.push(format!(
                "citation url {} must be an http or https URL",
                shown(c.get("url"))
            )),
        }
        if let Some(d) = c.get("date") {
            if !d
                .as_str()
                .is_some_and(|d| d.len() == 10 && Timestamp::parse(d).is_some())
            {
                problems.push(format!(
                    "citation date {} must be YYYY-MM-DD",
                    shown(Some(d))
                ));
            }
        }
        if let Some(r) = c.get("relevance") {
            unit(problems, "citation relevance", r);
        }
    }
    urls
}

fn check_conflicts(map: &Map, problems: &mut Vec<String>) {
    for c in list(map, "conflicts", problems) {
        if c.get("memory_id")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            problems.push("a conflict has no `memory_id`".into());
        }
        if let Some(r) = c.get("resolution") {
            if !r.as_str().is_some_and(|r| RESOLUTIONS.contains(&r)) {
                problems.push(format!(
                    "conflict resolution {} is not one of {}",
                    shown(Some(r)),
                    RESOLUTIONS.join(", ")
                ));
            }
        }
    }
}

/// The relationships and evidence lines of the body's sections.
fn sections_read(
    sections: &[(String, Vec<String>)],
    problems: &mut Vec<String>,
) -> (Vec<(String, String)>, Vec<String>) {
    let mut relationships = Vec::new();
    let mut evidence = Vec::new();
    for (heading, lines) in sections {
        for line in lines {
            let Some(item) = line.strip_prefix("- ") else {
                continue;
            };
            match heading.as_str() {
                "## Relationships" => match parse_link(item) {
                    Some(link) => relationships.push(link),
                    None => problems.push(format!(
                        "relationship line {line:?} is not `- <type> [[id]]` with a known type"
                    )),
                },
                "## Evidence" => evidence.push(item.trim().to_owned()),
                _ => {}
            }
        }
    }
    (relationships, evidence)
}

/// The name is `{id}-{slug}.memory.md`, with a URL-safe slug.
fn check_file_name(name: &str, id: &str, problems: &mut Vec<String>) {
    let expected = format!("{id}-");
    match name.strip_suffix(".memory.md") {
        Some(stem) if stem.starts_with(&expected) => {
            let s = stem.strip_prefix(&expected).unwrap_or(stem);
            if s.is_empty() || s.len() > SLUG_MAX || !is_hyphenated(s) {
                problems.push(format!(
                    "the file name's slug {s:?} must be URL-safe and at most {SLUG_MAX} characters"
                ));
            }
        }
        _ => problems.push(format!(
            "the file name {name:?} must be `{{id}}-{{slug}}.memory.md` for its id"
        )),
    }
}

/// The statement (the body before mneme's sections) and each section's lines.
fn body_parts(body: &str) -> (String, Vec<(String, Vec<String>)>) {
    let mut statement = Vec::new();
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    for line in body.lines() {
        let heading = line.trim_end();
        if SECTIONS.contains(&heading) {
            sections.push((heading.to_owned(), Vec::new()));
        } else if let Some((_, lines)) = sections.last_mut() {
            lines.push(line.trim_end().to_owned());
        } else {
            statement.push(line);
        }
    }
    (statement.join("\n").trim().to_owned(), sections)
}

/// `supersedes [[id]]` as `(type, id)`.
fn parse_link(item: &str) -> Option<(String, String)> {
    let (kind, rest) = item.trim().split_once(' ')?;
    let target = rest.trim().strip_prefix("[[")?.strip_suffix("]]")?;
    (RELATIONSHIPS.contains(&kind) && !target.is_empty())
        .then(|| (kind.to_owned(), target.to_owned()))
}

fn list<'v>(map: &'v Map, key: &str, problems: &mut Vec<String>) -> Vec<&'v Map> {
    match map.get(key) {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|i| {
                let m = i.as_object();
                if m.is_none() {
                    problems.push(format!("each of `{key}` must be a mapping"));
                }
                m
            })
            .collect(),
        Some(_) => {
            problems.push(format!("`{key}` must be a list"));
            Vec::new()
        }
    }
}

fn unit(problems: &mut Vec<String>, what: &str, v: &Value) {
    if !v.as_f64().is_some_and(|x| (0.0..=1.0).contains(&x)) {
        problems.push(format!(
            "`{what}` must be a number from 0 to 1, not {}",
            shown(Some(v))
        ));
    }
}

fn shown(v: Option<&Value>) -> String {
    match v {
        None => "nothing".into(),
        Some(v) => truncate(&v.to_string(), 60),
    }
}

/// An ISO 8601 date and time with `Z` or an offset.
fn is_zoned_time(s: &str) -> bool {
    s.len() > 10 && Timestamp::parse(s).is_some()
}

fn is_http_url(s: &str) -> bool {
    ["https://", "http://"].iter().any(|p| {
        s.strip_prefix(p)
            .is_some_and(|rest| !rest.is_empty() && !rest.contains(char::is_whitespace))
    })
}

/// A path that stays inside the project: not absolute, no `..`, no drive or backslash.
pub fn is_relative(path: &str) -> bool {
    !path.starts_with('/')
        && !path.contains('\\')
        && !path.contains(':')
        && path.split('/').all(|c| !c.is_empty() && c != "..")
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn every_fact_file_gets_a_valid_tag(stem in "\\PC{0,30}") {
            proptest::prop_assert!(is_tag(&tag_of(&stem)), "{:?}", tag_of(&stem));
        }
    }

    #[test]
    fn tags_in_any_script() {
        assert_eq!(tag_of("performance_rules"), "performance-rules");
        assert_eq!(tag_of("Инварианты"), "инварианты");
        assert_eq!(tag_of("数据库"), "数据库");
        assert_eq!(tag_of("__"), "facts");
        assert!(is_tag("инварианты") && is_tag("数据库-2"));
        assert!(!is_tag("Инварианты") && !is_tag("a--b") && !is_tag("a_b"));
    }
    use crate::model::interchange::item::Event;
    use crate::model::proposals::proposal::OpKind;

    fn item() -> Item {
        let mut relations = crate::model::facts::file::Relations::new();
        relations.insert(Relation::DependsOn, ["f-k2a9".to_owned()].into());
        Item {
            id: "f-7f3c".into(),
            file: "performance_rules.md".into(),
            text: "Keep p99 under 20 ms.\nMeasured with the load bench.".into(),
            state: State::Stale,
            superseded_by: None,
            since: Some("2026-11-01".into()),
            verified: None,
            evidence: vec![
                "src/db.rs:12-20".into(),
                "https://github.com/o/r/pull/4".into(),
                "a1b2c3d".into(),
            ],
            relations,
            history: vec![Event {
                op: OpKind::Add,
                commit: "0123456789abcdef".into(),
                date: "2026-11-02T10:00:00Z".into(),
                proposal: "p".into(),
                proposer: Some("claude".into()),
                reviewer: Some("G <g@x>".into()),
                reason: "measured\nagain".into(),
            }],
        }
    }

    #[test]
    fn a_rendered_file_passes_its_own_rules_and_reads_back() {
        let file = render(&item(), &["f-old1"], "1970-01-01T00:00:00Z");
        assert!(file.name.starts_with(&uuid("f-7f3c")));
        assert!(file
            .name
            .ends_with("-keep-p99-under-20-ms-measured-with-the-load-bench.memory.md"));
        let m = read(&file.name, &file.text).unwrap_or_else(|p| panic!("{p:?}\n{}", file.text));
        assert_eq!(
            m.statement,
            "Keep p99 under 20 ms.\nMeasured with the load bench."
        );
        assert_eq!(m.namespace, "patterns/project");
        assert_eq!(m.tags, ["mneme", "performance-rules", "state-stale"]);
        assert_eq!(m.source_ref.as_deref(), Some("mneme:f-7f3c"));
        assert_eq!(m.evidence, item().evidence);
        assert_eq!(
            m.relationships,
            [
                ("supersedes".to_owned(), uuid("f-old1")),
                ("depends-on".to_owned(), uuid("f-k2a9"))
            ]
        );
        assert!(file.text.contains("confidence: 0.6\n"), "{}", file.text);
        assert!(file
            .text
            .contains("  - file: \"src/db.rs\"\n    line: 12\n"));
        assert!(file.text.contains("type: github"));
        assert!(file
            .text
            .contains("proposed by claude, approved by G <g@x> (0123456789): measured again"));
    }

    #[test]
    fn each_rule_is_checked() {
        let good = render(&item(), &[], "1970-01-01T00:00:00Z");
        let broken = |from: &str, to: &str| {
            assert!(good.text.contains(from), "{from}");
            read(&good.name, &good.text.replacen(from, to, 1))
                .unwrap_err()
                .join("\n")
        };
        assert!(broken("type: semantic", "type: opinion").contains("`type`"));
        assert!(
            broken("namespace: patterns/project", "namespace: misc/project")
                .contains("`namespace`")
        );
        assert!(broken("confidence: 0.6", "confidence: 1.5").contains("confidence"));
        assert!(broken("\"src/db.rs\"", "\"../etc/passwd\"").contains("relative path"));
        assert!(broken("\"src/db.rs\"", "\"/etc/passwd\"").contains("relative path"));
        assert!(
            broken("url: \"https://github.com/o/r/pull/4\"", "url: \"ftp://x\"").contains("http")
        );
        assert!(broken("- depends-on [[", "- likes [[").contains("relationship"));
        assert!(broken("  - \"mneme\"", "  - \"Mneme Tag\"").contains("hyphenated"));
        let created = good
            .text
            .lines()
            .find(|l| l.starts_with("created:"))
            .unwrap();
        assert!(broken(created, "created: \"yesterday\"").contains("`created`"));
        let id = uuid("f-7f3c");
        assert!(broken(
            &format!("id: {id}"),
            "id: 2bab55e6-675b-5737-a39c-444b8c2ddd12"
        )
        .contains("UUID v4"));
        assert!(read("other.memory.md", &good.text).unwrap_err()[0].contains("file name"));
        assert!(read(&good.name, "no front matter").is_err());
        let recorded = good
            .text
            .lines()
            .find(|l| l.starts_with("  recorded_at:"))
            .unwrap();
        assert!(broken(recorded, "  recorded_at: \"2000-01-01T00:00:00Z\"").contains("valid_from"));
    }

    #[test]
    fn historical_facts_end_and_hand_written_ones_are_less_sure() {
        let mut old = item();
        old.state = State::Superseded;
        old.history.clear();
        let file = render(&old, &[], "1970-01-01T00:00:00Z");
        assert!(
            file.text.contains("valid_until: \"2026-11-01T00:00:00Z\""),
            "{}",
            file.text
        );
        assert!(file.text.contains("confidence: 0.8"));
        assert!(!file.text.contains("agent:"));
        assert_eq!(namespace_of("architecture"), "decisions");
        assert_eq!(namespace_of("pitfalls"), "learnings");
        assert_eq!(namespace_of("glossary"), "context");
    }
}

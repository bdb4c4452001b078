//! Fact files: lossless parsing and rendering of `.ledger/facts/*.md`.
//!
//! A fact file is Markdown. Every top-level list item is a fact; everything else (front matter,
//! headings, paragraphs, code blocks, comments, blank lines) is kept verbatim as context. Parsing
//! never fails on Markdown structure: a file always splits into text and facts, and rendering the
//! parts back yields the original bytes.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::model::base::text::normalize;
use crate::model::base::time::Timestamp;

/// A parsed fact file. `render()` of an untouched value returns the input byte for byte.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FactFile {
    pub front_matter: FrontMatter,
    pub blocks: Vec<Block>,
}

/// The optional YAML front matter of a fact file.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FrontMatter {
    pub title: Option<String>,
    pub description: Option<String>,
}

// Most blocks are facts, so boxing them would only add an allocation each.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// Lines that are not facts, verbatim.
    Text(String),
    Fact(Fact),
}

/// One top-level list item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    /// The item's exact bytes, line endings included.
    pub raw: String,
    /// 1-based line of the item's first line in the file.
    pub line: usize,
    /// Lines the item spans.
    pub line_count: usize,
    /// The list marker with its indentation, such as `-`, ` *` or `2.`.
    pub marker: Cow<'static, str>,
    pub id: Option<String>,
    /// The statement: the first line after id and metadata, then the continuation lines with the
    /// item's indentation removed. Trailing blank lines are dropped.
    pub text: String,
    pub meta: Meta,
}

/// Compact per-fact metadata, kept in one HTML comment at the end of the item's first line:
/// `<!-- since: 2026-11-22; evidence: src/db.rs:12 a1b2c3d -->`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Meta {
    pub state: Option<State>,
    /// The id of the fact that replaces this one (with `state: superseded`).
    pub by: Option<String>,
    pub since: Option<String>,
    pub verified: Option<String>,
    pub evidence: Vec<String>,
    /// Globs of the files the fact is about besides those its evidence cites (`src/db/**`).
    pub scope: Vec<String>,
    /// Links to other facts, each kind under its own key (`depends_on: f-a f-b`).
    pub relations: Relations,
    /// Keys mneme does not know, kept so that rendering does not drop them.
    pub other: Vec<(String, String)>,
}

/// How one fact bears on another. A supersession is not among them: it is the `by` of the fact
/// replaced.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// Related; read the other fact too.
    RelatesTo,
    /// Holds only while the other fact holds.
    DependsOn,
    /// Says the opposite of the other fact: both are contested until a person resolves it.
    Contradicts,
    /// Follows from the other fact.
    DerivedFrom,
}

impl Relation {
    pub const ALL: [Relation; 4] = [
        Relation::RelatesTo,
        Relation::DependsOn,
        Relation::Contradicts,
        Relation::DerivedFrom,
    ];

    /// The metadata key, also the JSON name: `depends_on`.
    pub fn key(self) -> &'static str {
        match self {
            Relation::RelatesTo => "relates_to",
            Relation::DependsOn => "depends_on",
            Relation::Contradicts => "contradicts",
            Relation::DerivedFrom => "derived_from",
        }
    }

    pub fn parse(key: &str) -> Option<Relation> {
        Relation::ALL.into_iter().find(|r| r.key() == key)
    }

    /// How the relation reads from the other fact: `f-b` is depended on by `f-a`.
    pub fn inverse_phrase(self) -> &'static str {
        match self {
            Relation::RelatesTo => "related to by",
            Relation::DependsOn => "depended on by",
            Relation::Contradicts => "contradicted by",
            Relation::DerivedFrom => "source of",
        }
    }
}

/// A fact's relations: for each kind, the ids of the other facts, sorted.
pub type Relations = BTreeMap<Relation, BTreeSet<String>>;

/// Prefix of the [`Fact::key`] of a fact without an id.
pub const UNIDENTIFIED: &str = "(no id) ";

/// Where a fact stands. A value mneme does not know is kept, so rendering loses nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    Active,
    /// Still the ledger's view, but a person asked for it to be checked again.
    Stale,
    /// Disputed: something says otherwise and a person has not settled it.
    Contested,
    /// Kept for history; no longer current.
    Archived,
    /// Replaced by the fact named in `by`; kept as history.
    Superseded,
    Other(String),
}

impl State {
    /// The states a `state` proposal may set; superseding has its own operation.
    pub const SETTABLE: [State; 4] = [
        State::Active,
        State::Stale,
        State::Contested,
        State::Archived,
    ];

    pub fn parse(s: &str) -> State {
        match s {
            "active" => State::Active,
            "stale" => State::Stale,
            "contested" => State::Contested,
            "archived" => State::Archived,
            "superseded" => State::Superseded,
            other => State::Other(other.to_owned()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            State::Active => "active",
            State::Stale => "stale",
            State::Contested => "contested",
            State::Archived => "archived",
            State::Superseded => "superseded",
            State::Other(s) => s,
        }
    }

    /// Whether a fact in this state is part of what the ledger holds true now (possibly
    /// flagged): not superseded, not archived. Unknown states count as current, so that a
    /// newer mneme's state hides nothing from an older one.
    pub fn is_current(&self) -> bool {
        !matches!(self, State::Superseded | State::Archived)
    }
}

impl serde::Serialize for State {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for State {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<State, D::Error> {
        String::deserialize(d).map(|s| State::parse(&s))
    }
}

impl Meta {
    pub fn is_empty(&self) -> bool {
        *self == Meta::default()
    }

    /// The state, `active` when none is written.
    pub fn state(&self) -> &State {
        self.state.as_ref().unwrap_or(&State::Active)
    }

    pub fn is_active(&self) -> bool {
        *self.state() == State::Active
    }

    pub fn is_superseded(&self) -> bool {
        *self.state() == State::Superseded
    }

    pub fn is_current(&self) -> bool {
        self.state().is_current()
    }

    /// When a person last vouched for the fact: the later of `verified` and `since` (an update
    /// after a verification moves `since` past it), each read when it is a date.
    pub fn checked_at(&self) -> Option<Timestamp> {
        let date = |d: &Option<String>| {
            d.as_deref()
                .filter(|d| d.len() == 10)
                .and_then(Timestamp::parse)
        };
        date(&self.verified).max(date(&self.since))
    }

    /// The ids this fact relates to, with how.
    pub fn related(&self) -> impl Iterator<Item = (Relation, &str)> {
        self.relations
            .iter()
            .flat_map(|(r, ids)| ids.iter().map(move |id| (*r, id.as_str())))
    }

    fn parse(inner: &str) -> Option<Meta> {
        let mut meta = Meta::default();
        for part in inner.split(';') {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            let (key, value) = part.split_once(':')?;
            let (key, value) = (key.trim(), value.trim());
            if key.is_empty() || !key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
                return None;
            }
            match key {
                "state" => meta.state = Some(State::parse(value)),
                "by" => meta.by = Some(value.to_owned()),
                "since" => meta.since = Some(value.to_owned()),
                "verified" => meta.verified = Some(value.to_owned()),
                "evidence" => push_words(&mut meta.evidence, value),
                "scope" => push_words(&mut meta.scope, value),
                _ => match Relation::parse(key) {
                    Some(r) => meta
                        .relations
                        .entry(r)
                        .or_default()
                        .extend(value.split_whitespace().map(str::to_owned)),
                    None => meta.other.push((key.to_owned(), value.to_owned())),
                },
            }
        }
        Some(meta)
    }

    /// The comment body, `key: value` pairs joined by `; `, in a fixed key order.
    pub fn render(&self) -> String {
        let mut parts = Vec::new();
        if let Some(state) = &self.state {
            parts.push(format!("state: {}", state.as_str()));
        }
        let mut push = |k: &str, v: &Option<String>| {
            if let Some(v) = v {
                parts.push(format!("{k}: {v}"));
            }
        };
        push("by", &self.by);
        push("since", &self.since);
        push("verified", &self.verified);
        if !self.evidence.is_empty() {
            parts.push(format!("evidence: {}", self.evidence.join(" ")));
        }
        if !self.scope.is_empty() {
            parts.push(format!("scope: {}", self.scope.join(" ")));
        }
        for (relation, ids) in self.relations.iter().filter(|(_, ids)| !ids.is_empty()) {
            let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
            parts.push(format!("{}: {}", relation.key(), ids.join(" ")));
        }
        for (k, v) in &self.other {
            parts.push(format!("{k}: {v}"));
        }
        parts.join("; ")
    }
}

/// Appends the words of `value` to `list`, sized exactly: most facts cite a file or two, where a
/// list grown one word at a time makes room for four (a ledger's worth of room it never uses).
fn push_words(list: &mut Vec<String>, value: &str) {
    list.reserve_exact(value.split_whitespace().count());
    list.extend(value.split_whitespace().map(str::to_owned));
}

/// Front matter that is not valid YAML of the expected shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

/// Most facts one file may hold: a real one holds dozens, a ledger's budget a few hundred. A
/// hostile file of a million one-character items is refused here, before anything costs per fact.
pub const MAX_FACTS: usize = 5_000;

/// Largest front matter accepted, so a hostile file cannot make the YAML parser work hard.
const MAX_FRONT_MATTER: usize = 16 * 1024;

impl FactFile {
    pub fn parse(src: &str) -> Result<FactFile, ParseError> {
        // A byte order mark (editors on Windows write one) is kept as text before everything,
        // so front matter or a fact can still start the file.
        let body = src.strip_prefix('\u{feff}').unwrap_or(src);
        let lines = lines_of(body);
        // Each block holds a line or more: room for as many as there can be, so the list never
        // copies its facts to grow (room never written costs no memory).
        let mut blocks = Vec::with_capacity((lines.len() + 1).min(2 * MAX_FACTS + 1));
        let mut text = String::from(if body.len() < src.len() {
            "\u{feff}"
        } else {
            ""
        });
        let (front_matter, mut i) = parse_front_matter(&lines)?;
        for line in &lines[..i] {
            text.push_str(line);
        }
        let mut fence: Option<Fence> = None;
        let mut in_comment = false;
        let mut facts = 0;
        while i < lines.len() {
            let line = lines[i];
            let content = strip_eol(line);
            if let Some(open) = fence {
                if open.is_closed_by(content) {
                    fence = None;
                }
            } else if in_comment {
                in_comment = !content.contains("-->");
            } else if let Some(open) = Fence::open(content) {
                fence = Some(open);
            } else if opens_comment(content) {
                in_comment = true;
            } else if let Some(marker) = list_marker(content) {
                let end = item_end(&lines, i, marker.content_indent);
                if !text.is_empty() {
                    blocks.push(Block::Text(std::mem::take(&mut text)));
                }
                facts += 1;
                if facts > MAX_FACTS {
                    return Err(ParseError {
                        line: i + 1,
                        message: format!(
                            "more than {MAX_FACTS} facts in one file; no ledger needs that many (split the file, or remove what is not a fact)"
                        ),
                    });
                }
                blocks.push(Block::Fact(Fact::from_lines(&lines[i..end], i + 1, marker)));
                i = end;
                continue;
            }
            text.push_str(line);
            i += 1;
        }
        if !text.is_empty() {
            blocks.push(Block::Text(text));
        }
        Ok(FactFile {
            front_matter,
            blocks,
        })
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        for block in &self.blocks {
            match block {
                Block::Text(t) => out.push_str(t),
                Block::Fact(f) => out.push_str(&f.raw),
            }
        }
        out
    }

    pub fn facts(&self) -> impl Iterator<Item = &Fact> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Fact(f) => Some(f),
            Block::Text(_) => None,
        })
    }

    /// The facts, taken out of the file.
    pub fn into_facts(self) -> impl Iterator<Item = Fact> {
        self.blocks.into_iter().filter_map(|b| match b {
            Block::Fact(f) => Some(f),
            Block::Text(_) => None,
        })
    }

    pub fn facts_mut(&mut self) -> impl Iterator<Item = &mut Fact> {
        self.blocks.iter_mut().filter_map(|b| match b {
            Block::Fact(f) => Some(f),
            Block::Text(_) => None,
        })
    }

    /// The text between the facts (front matter, headings, paragraphs, comments), in order.
    pub fn text_blocks(&self) -> impl Iterator<Item = &str> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Text(t) => Some(t.as_str()),
            Block::Fact(_) => None,
        })
    }

    /// `"\r\n"` when most lines of the file end that way, else `"\n"`.
    pub fn line_ending(&self) -> &'static str {
        let rendered = self.render();
        let crlf = rendered.matches("\r\n").count();
        let lf = rendered.matches('\n').count();
        if crlf * 2 > lf {
            "\r\n"
        } else {
            "\n"
        }
    }
}

/// Lines a text spans, counting a last line without a newline.
pub fn line_count(s: &str) -> usize {
    memchr::memchr_iter(b'\n', s.as_bytes()).count()
        + usize::from(!s.ends_with('\n') && !s.is_empty())
}

/// `s.split_inclusive('\n')`, collected: the line ends are found with SIMD, a long ledger's
/// lines many at a time, where `split_inclusive` looks a word at a time.
fn lines_of(s: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', s.as_bytes()) {
        // A newline is one byte of ASCII: both sides of it are character boundaries.
        lines.extend(s.get(start..=end));
        start = end + 1;
    }
    lines.extend(s.get(start..).filter(|last| !last.is_empty()));
    lines
}

impl Fact {
    fn from_lines(lines: &[&str], line: usize, marker: Marker) -> Fact {
        let raw: String = lines.concat();
        let first = strip_eol(lines[0]);
        let (marker_text, content) = split_ascii(first, marker.content_start);
        let mut rest = content.trim_start();
        let mut id = None;
        if let Some((candidate, after)) = split_id(rest) {
            id = Some(candidate.to_owned());
            rest = after.trim_start();
        }
        let mut meta = Meta::default();
        let trimmed = rest.trim_end();
        if let Some(before) = trimmed.strip_suffix("-->") {
            if let Some((head, inner)) = split_last_comment(before) {
                if let Some(parsed) = Meta::parse(inner) {
                    meta = parsed;
                    rest = head;
                }
            }
        }
        let mut text = rest.trim().to_owned();
        for l in &lines[1..] {
            text.push('\n');
            text.push_str(dedent(strip_eol(l), marker.content_indent));
        }
        text.truncate(text.trim_end().len());
        Fact {
            raw,
            line,
            line_count: lines.len(),
            marker: match marker_text.trim_end() {
                // Nearly every fact's marker: kept without an allocation each.
                "-" => Cow::Borrowed("-"),
                "*" => Cow::Borrowed("*"),
                other => Cow::Owned(other.to_owned()),
            },
            id,
            text,
            meta,
        }
    }

    /// The item's raw text with `meta` as the metadata comment of its first line; every other
    /// byte stays as it was.
    pub fn raw_with_meta(&self, meta: &Meta) -> String {
        let first = self.raw.split_inclusive('\n').next().unwrap_or("");
        let rest = self.raw.get(first.len()..).unwrap_or("");
        let content = strip_eol(first);
        let eol = first.get(content.len()..).unwrap_or("");
        let mut head = content.trim_end();
        // The comment is found as parsing found it: a line ending `<!--->` holds a `<!--`
        // after the one the metadata starts at.
        if !self.meta.is_empty() {
            if let Some((before, _)) = head.strip_suffix("-->").and_then(split_last_comment) {
                head = before.trim_end();
            }
        }
        let comment = if meta.is_empty() {
            String::new()
        } else {
            format!(" <!-- {} -->", meta.render())
        };
        format!("{head}{comment}{eol}{rest}")
    }

    /// What identifies the fact across versions of a file: its id, or for a fact without one,
    /// [`UNIDENTIFIED`] followed by its normalised text.
    pub fn key(&self) -> String {
        fact_key(self.id.as_deref(), &self.text)
    }

    /// The text on one line, for compact listings.
    pub fn one_line(&self) -> String {
        crate::model::base::text::one_line(&self.text)
    }
}

/// What identifies a fact with `id` (if any) and `text` across versions of a file: see
/// [`Fact::key`].
pub fn fact_key(id: Option<&str>, text: &str) -> String {
    match id {
        Some(id) => id.to_owned(),
        None => format!("{UNIDENTIFIED}{}", normalize(text)),
    }
}

/// Renders a new fact item: `- **id** text <!-- meta -->`, continuation lines indented by two
/// spaces so they stay inside the item.
pub fn render_fact(bullet: &str, id: &str, text: &str, meta: &Meta, eol: &str) -> String {
    let indent = " ".repeat(bullet.len() + 1);
    let mut out = String::new();
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("");
    let _ = write!(out, "{bullet} **{id}** {first}");
    if !meta.is_empty() {
        let _ = write!(out, " <!-- {} -->", meta.render());
    }
    out.push_str(eol);
    for l in lines {
        if !l.trim().is_empty() {
            out.push_str(&indent);
            out.push_str(l);
        }
        out.push_str(eol);
    }
    out
}

/// Prefix of fact ids.
pub const FACT_PREFIX: &str = "f";

/// `f-…`: a well-formed fact id.
pub fn is_fact_id(id: &str) -> bool {
    is_valid_id(id)
        && id
            .strip_prefix(FACT_PREFIX)
            .is_some_and(|r| r.starts_with('-'))
}

/// Whether `s` is a well-formed fact or task id: a lowercase prefix, `-`, base36 characters, and
/// optional `.N` child segments (`f-k3x9q`, `t-a3f8.1`).
pub fn is_valid_id(s: &str) -> bool {
    let Some((prefix, rest)) = s.split_once('-') else {
        return false;
    };
    let mut segments = rest.split('.');
    let head = segments.next().unwrap_or("");
    !prefix.is_empty()
        && prefix.len() <= 12
        && prefix.bytes().all(|b| b.is_ascii_lowercase())
        && !head.is_empty()
        && head.len() <= 16
        && head
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && segments.all(|seg| !seg.is_empty() && seg.bytes().all(|b| b.is_ascii_digit()))
}

/// The 1-based line of the first git conflict marker in `text`, when it has both an opening
/// (`<<<<<<<`) and a closing (`>>>>>>>`) marker: a merge left unresolved.
pub fn conflict_marker_line(text: &str) -> Option<usize> {
    // Nearly every text has none: one SIMD search says so faster than a look at each line.
    memchr::memmem::find(text.as_bytes(), b"<<<<<<<")?;
    // On bytes: the marker is ASCII, the rest of the line may be any text.
    let is_marker = |line: &str, c: u8| {
        let line = strip_eol(line).as_bytes();
        match line.split_at_checked(7) {
            Some((marker, after)) => {
                marker.iter().all(|&x| x == c) && matches!(after.first(), None | Some(b' '))
            }
            None => false,
        }
    };
    let mut lines = text.split_inclusive('\n');
    let open = lines.position(|l| is_marker(l, b'<'))?;
    lines.any(|l| is_marker(l, b'>')).then_some(open + 1)
}

/// Whether `line`, wherever it is indented, reads as mneme's own structure: a list item that
/// starts with a fact or task id, bold as fact files write it (`- **f-k3x9q** …`) or plain as
/// the agents' context does (`- f-k3x9q …`), or a Markdown heading (`## Pending proposals`).
/// Inside a statement such a line would pose as another fact or section.
pub fn mimics_structure(line: &str) -> bool {
    let t = line.trim_start();
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&hashes) {
        let after = split_ascii(t, hashes).1;
        if after.is_empty() || after.starts_with([' ', '\t']) {
            return true;
        }
    }
    let Some(m) = list_marker(t) else {
        return false;
    };
    let content = split_ascii(t, m.content_start).1.trim_start();
    if split_id(content).is_some() {
        return true;
    }
    let token: String = content
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.'))
        .collect();
    let id = token.trim_end_matches('.');
    is_fact_id(id) || (id.starts_with("t-") && is_valid_id(id))
}

/// `**id**` at the start of an item's content, followed by a space or the end of the line.
fn split_id(s: &str) -> Option<(&str, &str)> {
    let inner = s.strip_prefix("**")?;
    // A byte scan: the closing `**` is a few bytes on, where a substring search would spend
    // longer preparing than searching.
    let close = inner.as_bytes().windows(2).position(|w| w == b"**")?;
    let (candidate, after) = (split_ascii(inner, close).0, split_ascii(inner, close + 2).1);
    let boundary = after.is_empty() || after.starts_with([' ', '\t']);
    (is_valid_id(candidate) && boundary).then_some((candidate, after))
}

fn parse_front_matter(lines: &[&str]) -> Result<(FrontMatter, usize), ParseError> {
    if lines.first().map(|l| strip_eol(l).trim_end()) != Some("---") {
        return Ok((FrontMatter::default(), 0));
    }
    let Some(close) = lines[1..]
        .iter()
        .position(|l| matches!(strip_eol(l).trim_end(), "---" | "..."))
    else {
        return Err(ParseError {
            line: 1,
            message: "front matter opened with `---` is never closed".into(),
        });
    };
    let yaml: String = lines[1..=close].concat();
    if yaml.len() > MAX_FRONT_MATTER {
        return Err(ParseError {
            line: 1,
            message: format!("front matter is larger than {MAX_FRONT_MATTER} bytes"),
        });
    }
    let fm = if yaml.trim().is_empty() {
        FrontMatter::default()
    } else if let Some(fm) = plain_front_matter(&lines[1..=close]) {
        fm
    } else {
        serde_saphyr::from_str::<FrontMatter>(&yaml).map_err(|e| ParseError {
            line: 2,
            message: format!(
                "front matter: {}",
                crate::model::base::config::yaml_error(&e)
            ),
        })?
    };
    Ok((fm, close + 2))
}

/// Front matter of `title: …` and `description: …` lines whose values are plain text, read
/// without a YAML parser (which costs more than the rest of a fact file); `None` for anything
/// else, which the parser reads. Each value starts with a letter, holds no YAML syntax and is
/// no word YAML reads as a null or a boolean, so it is the string YAML would read.
fn plain_front_matter(lines: &[&str]) -> Option<FrontMatter> {
    let mut fm = FrontMatter::default();
    for line in lines {
        let (key, value) = strip_eol(line).split_once(':')?;
        let value = value.strip_prefix(' ')?.trim_start_matches(' ');
        let slot = match key {
            "title" => &mut fm.title,
            "description" => &mut fm.description,
            _ => return None,
        };
        if slot.is_some() || !is_plain_text(value) {
            return None;
        }
        *slot = Some(value.to_owned());
    }
    Some(fm)
}

/// Text YAML reads as that very string in a plain scalar: a letter first, no space last, no
/// indicator or comment, no line break YAML may see, nothing YAML reads as null or a boolean.
fn is_plain_text(value: &str) -> bool {
    let first = value.chars().next().is_some_and(char::is_alphabetic);
    let safe = |c: char| match c {
        'a'..='z'
        | 'A'..='Z'
        | '0'..='9'
        | ' '
        | '.'
        | ','
        | ';'
        | '('
        | ')'
        | '\''
        | '-'
        | '/' => true,
        c => {
            c >= '\u{a0}'
                && !matches!(
                    c,
                    '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
                )
        }
    };
    const KEYWORDS: [&str; 9] = ["null", "true", "false", "yes", "no", "on", "off", "y", "n"];
    first
        && !value.ends_with(' ')
        && value.chars().all(safe)
        && !KEYWORDS.iter().any(|k| value.eq_ignore_ascii_case(k))
}

#[derive(Debug, Clone, Copy)]
struct Marker {
    /// Byte offset of the content after the marker and its spaces.
    content_start: usize,
    /// Column that continuation lines must reach to belong to the item.
    content_indent: usize,
}

/// A list item start at the top level (at most three spaces of indentation).
fn list_marker(line: &str) -> Option<Marker> {
    let indent = leading_spaces(line)?;
    if indent > 3 || is_thematic_break(line) {
        return None;
    }
    let rest = split_ascii(line, indent).1;
    let marker_len = match rest.as_bytes().first()? {
        b'-' | b'*' | b'+' => 1,
        b'0'..=b'9' => {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 9 || !matches!(rest.as_bytes().get(digits), Some(b'.' | b')')) {
                return None;
            }
            digits + 1
        }
        _ => return None,
    };
    let after = split_ascii(rest, marker_len).1;
    let marker_end = indent + marker_len;
    if after.is_empty() {
        return Some(Marker {
            content_start: marker_end,
            content_indent: marker_end + 1,
        });
    }
    let gap = after
        .bytes()
        .take_while(|&b| b == b' ' || b == b'\t')
        .count();
    if gap == 0 {
        return None;
    }
    let mut col = marker_end;
    for &b in &after.as_bytes()[..gap] {
        col = if b == b'\t' {
            col + 4 - col % 4
        } else {
            col + 1
        };
    }
    // Five or more columns start an indented code block inside the item: content begins after one.
    let content_indent = if col - marker_end > 4 {
        marker_end + 1
    } else {
        col
    };
    Some(Marker {
        content_start: marker_end + gap,
        content_indent,
    })
}

/// Index one past the item's last line.
fn item_end(lines: &[&str], start: usize, content_indent: usize) -> usize {
    let mut j = start + 1;
    let mut fence: Option<Fence> = None;
    while j < lines.len() {
        let content = strip_eol(lines[j]);
        if content.trim().is_empty() {
            // A blank line belongs to the item only if the item goes on after it.
            let next = (j..lines.len()).find(|&k| !strip_eol(lines[k]).trim().is_empty());
            match next {
                Some(k) if indent_width(strip_eol(lines[k])) >= content_indent => j = k,
                _ if fence.is_some() => j += 1,
                _ => break,
            }
            continue;
        }
        let indent = indent_width(content);
        if indent >= content_indent {
            let inner = dedent(content, content_indent);
            fence = match fence {
                Some(open) if open.is_closed_by(inner) => None,
                Some(open) => Some(open),
                None => Fence::open(inner),
            };
            j += 1;
            continue;
        }
        // Less indented: only a lazy paragraph continuation stays in the item.
        if fence.is_some() || starts_block(content) {
            break;
        }
        j += 1;
    }
    j
}

fn starts_block(line: &str) -> bool {
    let t = line.trim_start();
    list_marker(line).is_some()
        || is_thematic_break(line)
        || Fence::open(line).is_some()
        || t.starts_with('#')
        || t.starts_with('>')
        || t.starts_with('<')
        || t.starts_with('|')
}

fn is_thematic_break(line: &str) -> bool {
    let t = line.trim();
    let Some(c) = t.chars().next() else {
        return false;
    };
    matches!(c, '-' | '*' | '_')
        && t.chars().all(|x| x == c || x == ' ' || x == '\t')
        && t.chars().filter(|&x| x == c).count() >= 3
}

fn opens_comment(line: &str) -> bool {
    let t = line.trim_start();
    leading_spaces(line).is_some_and(|n| n <= 3)
        && t.strip_prefix("<!--").is_some_and(|r| !r.contains("-->"))
}

#[derive(Debug, Clone, Copy)]
struct Fence {
    ch: u8,
    len: usize,
}

impl Fence {
    fn open(line: &str) -> Option<Fence> {
        let indent = leading_spaces(line)?;
        if indent > 3 {
            return None;
        }
        let rest = split_ascii(line, indent).1;
        let ch = *rest.as_bytes().first()?;
        if ch != b'`' && ch != b'~' {
            return None;
        }
        let (fence, info) = split_ascii(rest, rest.bytes().take_while(|&b| b == ch).count());
        let len = fence.len();
        // A backtick fence's info string may not contain backticks.
        (len >= 3 && !(ch == b'`' && info.contains('`'))).then_some(Fence { ch, len })
    }

    fn is_closed_by(self, line: &str) -> bool {
        let Some(indent) = leading_spaces(line) else {
            return false;
        };
        let rest = split_ascii(line, indent).1;
        let (fence, after) = split_ascii(rest, rest.bytes().take_while(|&b| b == self.ch).count());
        indent <= 3 && fence.len() >= self.len && after.trim().is_empty()
    }
}

/// Number of leading spaces, or `None` when the indentation contains a tab (treated by
/// `indent_width`).
fn leading_spaces(line: &str) -> Option<usize> {
    let n = line.bytes().take_while(|&b| b == b' ').count();
    (line.as_bytes().get(n) != Some(&b'\t')).then_some(n)
}

/// Indentation in columns, tabs advancing to the next multiple of four.
fn indent_width(line: &str) -> usize {
    let mut col = 0;
    for b in line.bytes() {
        match b {
            b' ' => col += 1,
            b'\t' => col += 4 - col % 4,
            _ => break,
        }
    }
    col
}

/// Removes up to `width` columns of indentation.
fn dedent(line: &str, width: usize) -> &str {
    let mut col = 0;
    for (i, b) in line.bytes().enumerate() {
        if col >= width {
            return split_ascii(line, i).1;
        }
        match b {
            b' ' => col += 1,
            b'\t' => col += 4 - col % 4,
            _ => return split_ascii(line, i).1,
        }
    }
    ""
}

/// `line` split after `n` bytes that a scan of ASCII syntax counted. Such an offset is a
/// character boundary; any other offset splits at the end rather than panicking.
// Not inlined (the binary is optimised for size), its pair went back through memory and the
// read stalled on the write: a sixth of the parser's time.
#[inline(always)]
fn split_ascii(line: &str, n: usize) -> (&str, &str) {
    line.split_at_checked(n).unwrap_or((line, ""))
}

/// `s` around its last `<!--`, as `rsplit_once` splits it, by a byte scan from the end: the
/// comment closes the line, a few bytes back.
fn split_last_comment(s: &str) -> Option<(&str, &str)> {
    let at = s.as_bytes().windows(4).rposition(|w| w == b"<!--")?;
    Some((split_ascii(s, at).0, split_ascii(s, at + 4).1))
}

fn strip_eol(line: &str) -> &str {
    // On bytes: a `char` pattern costs a call to `memcmp` per line where the binary is
    // optimised for size.
    let mut end = line.len();
    for eol in [b'\n', b'\r'] {
        if end > 0 && line.as_bytes()[end - 1] == eol {
            end -= 1;
        }
    }
    split_ascii(line, end).0
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Front matter read without the YAML parser is what the parser reads: every line of
        /// `title`, `description` or another key, with values from all of Unicode and from
        /// what plain text holds.
        #[test]
        fn plain_front_matter_is_what_yaml_reads(
            lines in proptest::collection::vec(
                (
                    proptest::prop_oneof![4 => "title", 4 => "description", 1 => "Title|other|title |"],
                    proptest::prop_oneof![6 => ": {1,2}", 1 => ":|:\\t|: \\t| :"],
                    proptest::prop_oneof![
                        6 => "[A-Za-z\\u{c0}-\\u{24f}][a-zA-Z0-9 .,;()'/\\u{a0}-\\u{3000}-]{0,12}",
                        2 => "\\PC{0,12}",
                        1 => "(?i)null|true|false|yes|no|on|off|y|n|~",
                        2 => "[A-Za-z0-9 .:#'\"&*!|>%@`{}\\[\\]?-]{0,12}",
                        1 => "[A-Za-z][\\u{80}-\\u{3000}\\u{fe00}-\\u{ffff}]{0,6}",
                    ],
                ),
                1..3,
            ),
            eol in "\n|\r\n",
        ) {
            let text: Vec<String> = lines.iter().map(|(k, sep, v)| format!("{k}{sep}{v}{eol}")).collect();
            let borrowed: Vec<&str> = text.iter().map(String::as_str).collect();
            if let Some(fm) = plain_front_matter(&borrowed) {
                let yaml = serde_saphyr::from_str::<FrontMatter>(&text.concat());
                proptest::prop_assert_eq!(yaml.ok(), Some(fm), "{:?}", text);
            }
        }

        /// Lines found with SIMD are `split_inclusive`'s, for any text: all of Unicode, line
        /// ends of every kind, a last line with or without one, long runs without.
        #[test]
        fn lines_are_split_as_split_inclusive_splits_them(
            text in proptest::prop_oneof![
                "\\PC{0,80}",
                "(\\PC{0,40}(\n|\r\n|\r|\u{2028}|\u{85})){0,6}\\PC{0,3}",
                "[\n\r<]{0,10}",
                "[a\n]{0,200}",
            ],
        ) {
            let expected: Vec<&str> = text.split_inclusive('\n').collect();
            proptest::prop_assert_eq!(lines_of(&text), expected.clone());
            proptest::prop_assert_eq!(line_count(&text), expected.len());
        }
    }

    #[test]
    fn the_starter_files_front_matter_is_read_without_the_yaml_parser() {
        for (name, text) in crate::model::facts::starter::FILES {
            let lines: Vec<&str> = text.split_inclusive('\n').collect();
            let close = lines[1..]
                .iter()
                .position(|l| l.trim_end() == "---")
                .unwrap();
            let fm = plain_front_matter(&lines[1..=close]);
            assert!(fm.is_some_and(|fm| fm.title.is_some()), "{name}");
        }
        let fm = plain_front_matter(&[
            "title: Pitfalls ✓\r\n",
            "description: Ünïcode, and (more) here.\n",
        ]);
        assert_eq!(
            fm.unwrap().description.as_deref(),
            Some("Ünïcode, and (more) here.")
        );
    }

    fn facts(src: &str) -> Vec<Fact> {
        let file = FactFile::parse(src).unwrap();
        assert_eq!(file.render(), src, "round trip");
        file.facts().cloned().collect()
    }

    #[test]
    fn parses_ids_text_and_meta() {
        let src = "# Arch\n\n- **f-7f3c** We use PostgreSQL 16, not SQLite. <!-- since: 2026-11-01; evidence: src/db.rs:12 a1b2c3 -->\n- plain item\n";
        let f = facts(src);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].id.as_deref(), Some("f-7f3c"));
        assert_eq!(f[0].text, "We use PostgreSQL 16, not SQLite.");
        assert_eq!(f[0].meta.since.as_deref(), Some("2026-11-01"));
        assert_eq!(f[0].meta.evidence, ["src/db.rs:12", "a1b2c3"]);
        assert_eq!(f[0].line, 3);
        assert_eq!(f[1].id, None);
        assert_eq!(f[1].text, "plain item");
    }

    #[test]
    fn word_lists_keep_no_spare_room() {
        // Every fact of a ledger keeps its lists for the whole run, so spare room is memory that
        // each run touches for nothing.
        let src = "- **f-aaaa** A. <!-- evidence: src/a.rs; scope: src/** -->\n";
        let file = FactFile::parse(src).unwrap();
        let meta = &file.facts().next().unwrap().meta;
        assert_eq!((meta.evidence.len(), meta.evidence.capacity()), (1, 1));
        assert_eq!((meta.scope.len(), meta.scope.capacity()), (1, 1));
    }

    #[test]
    fn items_span_continuations_nested_lists_and_loose_paragraphs() {
        let src = "1. **f-aaaa** first\n   continued\n   - nested\n\n   more of it\n2. second\nlazy line\n\nParagraph.\n";
        let f = facts(src);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].text, "first\ncontinued\n- nested\n\nmore of it");
        assert_eq!(f[0].line_count, 5);
        assert_eq!(f[1].text, "second\nlazy line");
    }

    #[test]
    fn code_blocks_comments_and_breaks_are_not_facts() {
        let src = "```md\n- not a fact\n```\n<!--\n- not a fact\n-->\n---\n* * *\n    - indented code\n- real\n";
        let f = facts(src);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].text, "real");
    }

    #[test]
    fn fenced_code_inside_an_item_keeps_its_blank_lines() {
        let src = "- **f-code** example:\n  ```\n  a\n\n  b\n  ```\n- next\n";
        let f = facts(src);
        assert_eq!(f.len(), 2);
        assert!(f[0].text.ends_with("```"));
    }

    #[test]
    fn crlf_unicode_and_missing_final_newline_round_trip() {
        let src = "---\r\ntitle: Pitfalls ✓\r\n---\r\n- **f-éé** not an id\r\n- **f-b2** naïve — ünïcode\r\n  more";
        let file = FactFile::parse(src).unwrap();
        assert_eq!(file.render(), src);
        assert_eq!(file.front_matter.title.as_deref(), Some("Pitfalls ✓"));
        assert_eq!(file.line_ending(), "\r\n");
        let f: Vec<_> = file.facts().collect();
        assert_eq!(f[0].id, None);
        assert_eq!(f[1].text, "naïve — ünïcode\nmore");
    }

    #[test]
    fn front_matter_errors_name_a_line() {
        assert_eq!(FactFile::parse("---\ntitle: x\n").unwrap_err().line, 1);
        assert!(FactFile::parse("---\ntitle: [\n---\n").is_err());
        assert!(FactFile::parse("---\nunknown: 1\n---\n").is_err());
    }

    #[test]
    fn comments_that_are_not_meta_stay_in_the_text() {
        let f = facts("- **f-c1** keep <!-- a note --> here <!-- TODO -->\n");
        assert!(f[0].meta.is_empty());
        assert_eq!(f[0].text, "keep <!-- a note --> here <!-- TODO -->");
    }

    #[test]
    fn rendered_facts_parse_back() {
        let meta = Meta {
            since: Some("2026-11-22".into()),
            evidence: vec!["src/a.rs:3".into()],
            ..Meta::default()
        };
        let item = render_fact("-", "f-k3x9q", "Line one\n\nline two", &meta, "\n");
        assert_eq!(
            item,
            "- **f-k3x9q** Line one <!-- since: 2026-11-22; evidence: src/a.rs:3 -->\n\n  line two\n"
        );
        let f = facts(&item);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].text, "Line one\n\nline two");
        assert_eq!(f[0].meta, meta);
    }

    #[test]
    fn rewriting_metadata_finds_the_comment_parsing_found() {
        let f = facts("- **f-a1** Text. <!-- since: 2026-01-01; scope: a/** -<!--->\n");
        assert_eq!(f[0].text, "Text.");
        let again = facts(&f[0].raw_with_meta(&f[0].meta));
        assert_eq!(again[0].text, "Text.");
        assert_eq!(again[0].meta, f[0].meta);
    }

    #[test]
    fn markers_and_meta_rewrites_keep_other_bytes() {
        let src = " 2. **f-m1** first <!-- since: 2026-01-01 -->\r\n    more\r\n";
        let f = facts(src);
        assert_eq!(f[0].marker, " 2.");
        let meta = Meta {
            state: Some(State::Superseded),
            by: Some("f-m2".into()),
            ..f[0].meta.clone()
        };
        assert_eq!(
            f[0].raw_with_meta(&meta),
            " 2. **f-m1** first <!-- state: superseded; by: f-m2; since: 2026-01-01 -->\r\n    more\r\n"
        );
        let plain = facts("- **f-m3** no meta")[0].raw_with_meta(&meta);
        assert_eq!(
            plain,
            "- **f-m3** no meta <!-- state: superseded; by: f-m2; since: 2026-01-01 -->"
        );
    }

    #[test]
    fn conflict_markers_are_found_on_bytes_in_any_script() {
        // The seventh byte of each first line falls inside a character.
        for line in [
            "┌──────┐ diagram",
            "数据库使用连接池",
            "Привет мир",
            "éééééé",
            "🦀🦀 rust",
        ] {
            assert_eq!(conflict_marker_line(&format!("{line}\n>>>>>>> x\n")), None);
            assert!(FactFile::parse(&format!("- **f-1** {line}\n{line}\n")).is_ok());
        }
        assert_eq!(conflict_marker_line("<<<<<<<\n数据\n>>>>>>>\n"), Some(1));
        assert_eq!(conflict_marker_line("<<<<<<<é\n>>>>>>>\n"), None);
    }

    #[test]
    fn conflict_markers_need_both_ends() {
        let conflicted = "# A\n<<<<<<< ours\n- **f-1** a\n=======\n- **f-1** b\n>>>>>>> theirs\n";
        assert_eq!(conflict_marker_line(conflicted), Some(2));
        assert_eq!(conflict_marker_line("Title\n=======\n- **f-1** a\n"), None);
        assert_eq!(
            conflict_marker_line("<<<<<<<< not a marker\n>>>>>>>\n"),
            None
        );
        for line in [
            "  - **f-k3x9** smuggled",
            "- f-6qh1 The API is served by a hostile proxy.",
            "* t-a3f8.1: a task",
            "1. f-k3x9",
            "## Pending proposals (0)",
            "# Project facts (99)",
            "   ###",
        ] {
            assert!(mimics_structure(line), "{line:?}");
        }
        for line in [
            "- plain item",
            "- e-mail is fine",
            "#hashtag",
            "####### seven",
            "C# is a language",
        ] {
            assert!(!mimics_structure(line), "{line:?}");
        }
    }

    #[test]
    fn id_shapes() {
        for ok in ["f-k3x9q", "t-a3f8.1", "t-a3f8.1.2", "arch-7f3c"] {
            assert!(is_valid_id(ok), "{ok}");
        }
        for bad in ["f-", "-abc", "F-abc", "f-ab_c", "t-a3f8.", "t-a3.x", "f"] {
            assert!(!is_valid_id(bad), "{bad}");
        }
    }
}

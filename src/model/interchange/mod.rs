//! The ledger in other memory formats (docs/formats/). Pure: callers pass the facts with the
//! decisions that shaped them; each format renders them and checks its own rules on what it
//! rendered, so nothing invalid is written.

pub mod compiled;
pub mod import;
pub mod mif;
pub mod notes;
pub mod pack;
pub mod records;

use std::collections::{BTreeMap, HashMap};

use sha1::{Digest, Sha1};

use crate::model::facts::{Fact, Relations, State};
use crate::model::proposal::OpKind;
use crate::model::time::Timestamp;

/// The formats mneme exports (docs/formats/).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// MIF Level 3 memory files, one per fact.
    Mif,
    /// Compiled memory: documents.jsonl, entries.jsonl and a Markdown view per fact file.
    Compiled,
    /// Memory records: one JSON object per fact, one per line.
    Records,
    /// A context pack: the current facts for a task, as one JSON object.
    ContextPack,
}

impl Format {
    pub const ALL: [Format; 4] = [
        Format::Mif,
        Format::Compiled,
        Format::Records,
        Format::ContextPack,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Mif => "mif",
            Format::Compiled => "compiled",
            Format::Records => "records",
            Format::ContextPack => "context-pack",
        }
    }

    /// The file a one-stream format is written to with `--out`.
    pub fn stream_file(self) -> &'static str {
        match self {
            Format::Records => "records.jsonl",
            _ => "context-pack.json",
        }
    }

    /// Whether the format is a directory of files rather than one stream.
    pub fn is_directory(self) -> bool {
        matches!(self, Format::Mif | Format::Compiled)
    }
}

/// Why an export cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{file}:{line}: the fact has no id, and an export names every fact by its id")]
    Unstamped { file: String, line: usize },
    #[error("{file}:{line}: the id `{id}` is held by another fact too, and an export names every fact by its id")]
    DuplicateId {
        file: String,
        line: usize,
        id: String,
    },
    #[error("the {format} export's {name} breaks the format's rules: {}", problems.join("; "))]
    Invalid {
        format: &'static str,
        name: String,
        problems: Vec<String>,
    },
}

/// The files of an export: `(file name, text)`, one for the formats that are one stream.
#[derive(Debug)]
pub struct Rendered {
    pub files: Vec<(String, String)>,
    /// Facts the format cannot hold (compiled entries need evidence), by id.
    pub left_out: Vec<String>,
}

/// Renders `items` in `format` (a context pack for `task`, good for `valid_days`) and checks
/// every file against the format's rules: a file that breaks them is an error, never written.
/// A fact with no words (a hand-written `- **f-…**` and nothing else) is left out: no format
/// holds a memory without a statement.
pub fn render(
    format: Format,
    items: &[Item],
    titles: &BTreeMap<String, String>,
    task: &str,
    valid_days: u32,
) -> Result<Rendered, ExportError> {
    let blank = |i: &Item| i.text.split_whitespace().next().is_none();
    let blank_ids: Vec<String> = items
        .iter()
        .filter(|i| blank(i))
        .map(|i| i.id.clone())
        .collect();
    let kept: Vec<Item>;
    let items = if blank_ids.is_empty() {
        items
    } else {
        kept = items.iter().filter(|i| !blank(i)).cloned().collect();
        &kept
    };
    let at = generated_at(items);
    let invalid = |name: &str, problems: Vec<String>| ExportError::Invalid {
        format: format.name(),
        name: name.to_owned(),
        problems,
    };
    let stream = |text: String| vec![(format.stream_file().to_owned(), text)];
    let replaced = Replaced::of(items);
    let mut rendered = match format {
        Format::Mif => Rendered {
            files: items
                .iter()
                .map(|i| {
                    let file = mif::render(i, replaced.by(i), &at);
                    mif::read(&file.name, &file.text)
                        .map_err(|problems| invalid(&file.name, problems))?;
                    Ok((file.name, file.text))
                })
                .collect::<Result<_, ExportError>>()?,
            left_out: Vec::new(),
        },
        Format::Compiled => {
            let c = compiled::render(items, titles, &at);
            let (documents, entries) = (&c.files[0].1, &c.files[1].1);
            let problems = compiled::check(documents, entries);
            if !problems.is_empty() {
                return Err(invalid("entries.jsonl", problems));
            }
            Rendered {
                files: c.files,
                left_out: c.left_out,
            }
        }
        Format::Records => {
            let mut text = String::new();
            for i in items {
                let line = records::render(i, replaced.by(i), &at);
                let value = serde_json::from_str(&line).expect("a rendered record is JSON");
                let problems = records::check(&value);
                if !problems.is_empty() {
                    return Err(invalid(&i.id, problems));
                }
                text.push_str(&line);
                text.push('\n');
            }
            Rendered {
                files: stream(text),
                left_out: Vec::new(),
            }
        }
        Format::ContextPack => {
            let text = pack::render(items, task, &at, valid_days);
            let value = serde_json::from_str(&text).expect("a rendered pack is JSON");
            let problems = pack::check(&value);
            if !problems.is_empty() {
                return Err(invalid(format.stream_file(), problems));
            }
            Rendered {
                files: stream(text),
                left_out: Vec::new(),
            }
        }
    };
    rendered.left_out.extend(blank_ids);
    Ok(rendered)
}

/// A fact as the exports see it: the ledger's values and its approved decisions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub id: String,
    /// The fact file, such as `architecture.md`.
    pub file: String,
    pub text: String,
    /// The state the fact file records.
    pub state: State,
    pub superseded_by: Option<String>,
    pub since: Option<String>,
    pub verified: Option<String>,
    pub evidence: Vec<String>,
    pub relations: Relations,
    /// The approvals that touched the fact, oldest first.
    pub history: Vec<Event>,
}

/// One approval of a change to a fact, read back from its decision commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub op: OpKind,
    pub commit: String,
    /// RFC 3339, UTC.
    pub date: String,
    pub proposal: String,
    pub proposer: Option<String>,
    pub reviewer: Option<String>,
    pub reason: String,
}

impl Item {
    /// The fact `fact` of the fact file `file`, under `id`, with the approvals that touched it.
    pub fn of(file: &str, fact: &Fact, id: String, history: Vec<Event>) -> Item {
        Item {
            id,
            file: file.to_owned(),
            text: fact.text.clone(),
            state: fact.meta.state().clone(),
            superseded_by: fact.meta.by.clone(),
            since: fact.meta.since.clone(),
            verified: fact.meta.verified.clone(),
            evidence: fact.meta.evidence.clone(),
            relations: fact.meta.relations.clone(),
            history,
        }
    }

    /// When the fact entered the ledger: its first approval, else its `since` date (midnight
    /// UTC), else `fallback`.
    pub fn created(&self, fallback: &str) -> String {
        self.history
            .first()
            .map(|e| e.date.clone())
            .or_else(|| self.since.as_deref().and_then(midnight))
            .unwrap_or_else(|| fallback.to_owned())
    }

    /// When the fact last changed or was confirmed: its newest approval, else `verified`, else
    /// when it was created.
    pub fn modified(&self, fallback: &str) -> String {
        let created = self.created(fallback);
        let newest = self
            .history
            .last()
            .map(|e| e.date.clone())
            .or_else(|| self.verified.as_deref().and_then(midnight));
        match newest {
            Some(n) if n > created => n,
            _ => created,
        }
    }

    /// When a person last confirmed the fact as true: its newest approval that added, changed
    /// or verified it (not the one that retired it), else `verified`.
    pub fn confirmed(&self) -> Option<String> {
        let retired = self.is_historical();
        let by_decision = self
            .history
            .iter()
            .rev()
            .find(|e| match e.op {
                OpKind::Add | OpKind::Update | OpKind::Verify => true,
                OpKind::Supersede => !retired,
                _ => false,
            })
            .map(|e| e.date.clone());
        by_decision.max(self.verified.as_deref().and_then(midnight))
    }

    /// Who proposed the fact first: the agent (or, without one, the person) of its first approval.
    pub fn proposer(&self) -> Option<&str> {
        self.history.first().and_then(|e| e.proposer.as_deref())
    }

    /// Whether the fact is history rather than current knowledge.
    pub fn is_historical(&self) -> bool {
        matches!(self.state, State::Superseded | State::Archived)
    }

    /// The fact file's name without `.md`; `facts` for a hand-made file whose name is only
    /// blanks, since the formats name a subject with it.
    pub fn stem(&self) -> &str {
        let stem = self.file.strip_suffix(".md").unwrap_or(&self.file);
        if stem.trim().is_empty() {
            "facts"
        } else {
            stem
        }
    }
}

/// The facts each fact replaced: what `supersedes` links every format writes from.
pub struct Replaced<'a>(HashMap<&'a str, Vec<&'a str>>);

impl<'a> Replaced<'a> {
    pub fn of(items: &'a [Item]) -> Replaced<'a> {
        let mut by_new: HashMap<&str, Vec<&str>> = HashMap::new();
        for i in items {
            if let Some(new) = &i.superseded_by {
                by_new.entry(new).or_default().push(&i.id);
            }
        }
        Replaced(by_new)
    }

    /// The ids of the facts `item` replaced, in file order.
    pub fn by(&self, item: &Item) -> &[&'a str] {
        self.0.get(item.id.as_str()).map_or(&[], Vec::as_slice)
    }
}

/// `YYYY-MM-DD` as RFC 3339 midnight UTC.
fn midnight(date: &str) -> Option<String> {
    Timestamp::parse(date).map(Timestamp::rfc3339_seconds)
}

/// The time an export is stamped with: the newest date any fact carries, so the same ledger
/// and history give the same bytes; the Unix epoch for a ledger without dates.
pub fn generated_at(items: &[Item]) -> String {
    const EPOCH: &str = "1970-01-01T00:00:00Z";
    items
        .iter()
        .map(|i| i.modified(EPOCH))
        .max()
        .unwrap_or_else(|| EPOCH.to_owned())
}

/// The namespace of mneme's UUIDs (docs/formats/README.md).
const NAMESPACE: [u8; 16] = [
    0x2b, 0xab, 0x55, 0xe6, 0x67, 0x5b, 0x47, 0x37, 0xa3, 0x9c, 0x44, 0x4b, 0x8c, 0x2d, 0xdd, 0x12,
];

/// The UUID of `name` (a fact id, or `file:architecture.md`), the same on every run: RFC 9562's
/// name-based construction (SHA-1 of the namespace and the name) with the version-4 bits set,
/// because MIF accepts only version-4 ids.
pub fn uuid(name: &str) -> String {
    let mut hash = Sha1::new();
    hash.update(NAMESPACE);
    hash.update(name.as_bytes());
    let digest = hash.finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex = |bytes: &[u8]| -> String { bytes.iter().map(|x| format!("{x:02x}")).collect() };
    format!(
        "{}-{}-{}-{}-{}",
        hex(&b[..4]),
        hex(&b[4..6]),
        hex(&b[6..8]),
        hex(&b[8..10]),
        hex(&b[10..])
    )
}

/// A UUID of any version: 8-4-4-4-12 hexadecimal digits.
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A JSON string holding a date and time with `Z` or an offset (ISO 8601, RFC 3339).
pub fn time_value(v: &serde_json::Value) -> bool {
    v.as_str()
        .is_some_and(|s| s.len() > 10 && Timestamp::parse(s).is_some())
}

/// Whether `v[key]` is a string with more than white space in it.
pub fn has_text(v: &serde_json::Value, key: &str) -> bool {
    v[key].as_str().is_some_and(|s| !s.trim().is_empty())
}

/// A lowercase version-4 UUID: `xxxxxxxx-xxxx-4xxx-[89ab]xxx-xxxxxxxxxxxx`.
pub fn is_uuid_v4(s: &str) -> bool {
    let b = s.as_bytes();
    is_uuid(s)
        && !s.bytes().any(|c| c.is_ascii_uppercase())
        && b[14] == b'4'
        && matches!(b[19], b'8' | b'9' | b'a' | b'b')
}

/// Lowercase words of `text` joined by `-`, at most `max` bytes, cut at a word; `fact` when
/// nothing is left.
pub fn slug(text: &str, max: usize) -> String {
    let mut out = String::new();
    for word in text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let extra = word.len() + usize::from(!out.is_empty());
        if out.len() + extra > max {
            if out.is_empty() {
                out = word.get(..max).unwrap_or(word).to_ascii_lowercase();
            }
            break;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_ascii_lowercase());
    }
    if out.is_empty() {
        out.push_str("fact");
    }
    out
}

/// Whether `s` is lowercase words of letters and digits joined by single hyphens.
pub fn is_hyphenated(s: &str) -> bool {
    !s.is_empty()
        && s.split('-').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// `s` as a YAML (and JSON) double-quoted scalar: the same bytes whatever the content. JSON
/// escapes only what JSON must; YAML also refuses DEL, C1 controls and U+FFFE/U+FFFF raw, and
/// some readers break lines at NEL, U+2028 and U+2029, so those are escaped too (`\u007f`,
/// valid in both).
fn quoted(s: &str) -> String {
    let json = serde_json::to_string(s).expect("a string serialises");
    let unsafe_in_yaml = |c: char| {
        matches!(
            c,
            '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
    };
    if !json.contains(unsafe_in_yaml) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 12);
    for c in json.chars() {
        if unsafe_in_yaml(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// An active fact `Fact <id>.` of `file`, dated 2026-11-01, citing `evidence`, with no
/// history: what the formats' tests start from.
#[cfg(test)]
pub(crate) fn sample(id: &str, file: &str, evidence: &[&str]) -> Item {
    Item {
        id: id.into(),
        file: file.into(),
        text: format!("Fact {id}."),
        state: State::Active,
        superseded_by: None,
        since: Some("2026-11-01".into()),
        verified: None,
        evidence: evidence.iter().map(|e| (*e).to_owned()).collect(),
        relations: Relations::new(),
        history: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the Unicode property tests: a hand-written fact holding DEL broke the MIF front
    /// matter, and a fact with no words broke every format.
    #[test]
    fn exports_hold_any_text_and_leave_out_facts_without_words() {
        assert_eq!(
            quoted("a\u{7f}b\u{85}\u{2028}"),
            r#""a\u007fb\u0085\u2028""#
        );
        let value: serde_json::Value = serde_json::from_str(&quoted("a\u{7f}\u{feff}")).unwrap();
        assert_eq!(value, "a\u{7f}\u{feff}");
        let mut items = vec![sample("f-0001", "architecture.md", &[])];
        items[0].text = "Del \u{7f} and NEL \u{85} in a hand-written fact.".into();
        let mut blank = sample("f-0002", "architecture.md", &[]);
        blank.text = " \n ".into();
        items.push(blank);
        items.push(sample("f-0003", "\r.md", &[]));
        for format in Format::ALL {
            let rendered = render(format, &items, &BTreeMap::new(), "t", 30)
                .unwrap_or_else(|e| panic!("{}: {e}", format.name()));
            assert!(
                rendered.left_out.contains(&"f-0002".to_owned()),
                "{}",
                format.name()
            );
        }
    }

    #[test]
    fn uuids_are_stable_version_4_and_differ_by_name() {
        let a = uuid("f-0pmr");
        assert_eq!(a, uuid("f-0pmr"));
        assert!(is_uuid_v4(&a), "{a}");
        assert_ne!(a, uuid("f-0pms"));
        assert!(!is_uuid_v4("2BAB55E6-675B-4737-A39C-444B8C2DDD12"));
        assert!(!is_uuid_v4("2bab55e6-675b-5737-a39c-444b8c2ddd12"));
        assert!(is_uuid_v4("2bab55e6-675b-4737-a39c-444b8c2ddd12"));
    }

    #[test]
    fn slugs_are_url_safe_and_short() {
        assert_eq!(
            slug("We use PostgreSQL 16, not SQLite.", 50),
            "we-use-postgresql-16-not-sqlite"
        );
        assert_eq!(slug("ünïcode — only", 50), "n-code-only");
        assert_eq!(slug("!!!", 50), "fact");
        assert_eq!(slug(&"x".repeat(80), 50).len(), 50);
        assert!(
            slug(
                "one two three four five six seven eight nine ten eleven",
                50
            )
            .len()
                <= 50
        );
        assert!(is_hyphenated("performance-rules"));
        assert!(!is_hyphenated("performance_rules"));
        assert!(!is_hyphenated("a--b"));
    }
}

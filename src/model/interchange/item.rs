//! What every format shares: a fact as the exports see it ([`Item`]), its stable UUID, and the
//! small rules of the formats' fields. Below every format module, so they share it without
//! importing each other.

use std::collections::HashMap;

use sha1::{Digest, Sha1};

use crate::model::base::time::Timestamp;
use crate::model::facts::file::{Fact, Relation, Relations, State};
use crate::model::proposals::proposal::OpKind;

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
pub(super) fn quoted(s: &str) -> String {
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

/// How sure a reader can be of the fact: approved facts 1, hand-written ones 0.8, less when a
/// person asked for a re-check or a contradiction stands (docs/formats/mif.md).
pub fn confidence(item: &Item) -> f64 {
    let base = if item.history.is_empty() { 0.8 } else { 1.0 };
    match item.state {
        State::Stale => base * 0.6,
        State::Contested => base * 0.5,
        _ if item.relations.contains_key(&Relation::Contradicts) => base * 0.5,
        _ => base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

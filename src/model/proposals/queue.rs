//! The review queue as `propose`, `context` and `compact` read it: for each pending proposal,
//! only what the duplicate check, the id minter, the similarity search and a listing need. It
//! is built from parsed proposals, or kept between runs in the queue index of the git
//! directory, so these verbs do not re-read thousands of proposal files.
//!
//! A queue is held encoded, as the index stores it, and read in place: a scan of 10,000
//! proposals compares bytes and word hashes and allocates nothing.

use std::ops::Range;

use crate::model::base::codec::{Reader, Writer};
use crate::model::base::text::{normalize, one_line, Words};
use crate::model::base::time::Timestamp;
use crate::model::facts::file::{is_fact_id, Relation};
use crate::model::facts::ledger::Limits;
use crate::model::proposals::proposal::{is_proposal_id, OpKind, Operation, Proposal};

/// The proposal files of `.ledger/proposals/`, oldest first.
#[derive(Debug, Clone, Default)]
pub struct Queue {
    /// The entries, back to back from `start` (what comes before is the caller's, such as the
    /// header of the file the queue was read from, kept to spare a copy).
    bytes: Vec<u8>,
    start: usize,
    /// Where each entry is in `bytes`, in review order.
    entries: Vec<Range<usize>>,
}

/// A proposal file as it is put into a queue.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// The file name, `<id>.json`.
    pub name: String,
    /// What the caller knows the file by (its inode, for the index); opaque here.
    pub stamp: u64,
    /// `None` when the file does not parse (or is not named by its id).
    pub proposal: Option<PendingProposal>,
}

/// What a queue keeps of a proposal that parses.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingProposal {
    pub id: String,
    pub created: Option<Timestamp>,
    pub agent: Option<String>,
    /// Whether it passes [`Proposal::validate`] under the limits the queue was built with.
    pub valid: bool,
    /// The ids its operations reserve for new facts.
    pub new_ids: Vec<String>,
    pub texts: Vec<PendingText>,
    /// The facts it would put in dispute: both sides of each `contradicts` relation it adds.
    pub contests: Vec<String>,
    /// The existing facts its operations act on (all but `add`), sorted, each once: a proposal
    /// that acts on one of them competes with it.
    pub targets: Vec<String>,
}

/// A text the proposal would make a fact.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingText {
    /// The operation's fact file.
    pub file: String,
    /// The fact the text is for ([`crate::model::proposals::proposal::Operation::text_fact_id`]).
    pub fact_id: String,
    pub one_line: String,
    pub normalized: String,
    pub words: Words,
}

impl PendingProposal {
    pub fn of(p: &Proposal, limits: &Limits) -> PendingProposal {
        PendingProposal {
            id: p.id.clone(),
            created: p.created(),
            agent: p.agent.clone(),
            valid: p.validate(limits).is_ok(),
            new_ids: p
                .operations
                .iter()
                .filter_map(|o| o.new_id())
                .map(str::to_owned)
                .collect(),
            texts: p
                .operations
                .iter()
                .filter_map(|o| {
                    let text = o.text()?;
                    let normalized = normalize(text);
                    Some(PendingText {
                        file: o.file().to_owned(),
                        fact_id: o.text_fact_id().to_owned(),
                        one_line: one_line(text),
                        words: Words::of_normalized(&normalized),
                        normalized,
                    })
                })
                .collect(),
            contests: contests(p),
            targets: targets(p),
        }
    }
}

/// The existing facts `p` acts on, sorted, each once.
pub fn targets(p: &Proposal) -> Vec<String> {
    let mut ids: Vec<String> = p
        .operations
        .iter()
        .filter(|o| o.kind() != OpKind::Add)
        .map(|o| o.fact_id().to_owned())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Both sides of each `contradicts` relation `p` adds, sorted, each once.
fn contests(p: &Proposal) -> Vec<String> {
    let mut ids = Vec::new();
    for o in &p.operations {
        if let Some(targets) = o.relations().0.get(&Relation::Contradicts) {
            ids.push(o.text_fact_id().to_owned());
            ids.extend(targets.iter().cloned());
        }
    }
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Queues are equal when they hold the same entries, wherever their buffers start.
impl PartialEq for Queue {
    fn eq(&self, other: &Queue) -> bool {
        self.bytes() == other.bytes() && self.len() == other.len()
    }
}

impl Eq for Queue {}

impl Queue {
    /// The queue of `entries`, put in review order: oldest first, then by id, then by name.
    pub fn new(entries: impl IntoIterator<Item = Pending>) -> Queue {
        let mut b = QueueBuilder::default();
        for e in entries {
            b.push(&e);
        }
        b.finish()
    }

    /// The queue of proposals already parsed, judged under `limits`.
    pub fn of<'p>(proposals: impl IntoIterator<Item = &'p Proposal>, limits: &Limits) -> Queue {
        Queue::new(proposals.into_iter().map(|p| Pending {
            name: p.file_name(),
            stamp: 0,
            proposal: Some(PendingProposal::of(p, limits)),
        }))
    }

    /// The encoded entries, as [`Queue::decode`] reads them.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes[self.start..]
    }

    /// The queue encoded in `bytes` from `start` on; `None` unless that is entries as
    /// [`Queue::bytes`] gives them, in review order.
    pub fn decode(bytes: Vec<u8>, start: usize) -> Option<Queue> {
        let mut entries = Vec::new();
        let mut r = Reader::at(&bytes, start);
        let mut previous: Option<EntryRef> = None;
        while !r.is_empty() {
            let start = r.position();
            let entry = EntryRef::read(&mut r)?;
            if !entry.is_sound() || previous.is_some_and(|p| p.order_key() > entry.order_key()) {
                return None;
            }
            previous = Some(entry);
            entries.push(start..r.position());
        }
        Some(Queue {
            bytes,
            start,
            entries,
        })
    }

    /// Every file, oldest first.
    pub fn entries(&self) -> impl DoubleEndedIterator<Item = EntryRef<'_>> + '_ {
        self.entries.iter().map(|range| {
            EntryRef::read(&mut Reader::new(&self.bytes[range.clone()])).expect("decoded")
        })
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The proposals that parse, valid or not, oldest first.
    pub fn parsed(&self) -> impl DoubleEndedIterator<Item = PendingRef<'_>> + '_ {
        self.entries().filter_map(|e| e.proposal)
    }

    /// The valid proposals, oldest first.
    pub fn valid(&self) -> impl DoubleEndedIterator<Item = PendingRef<'_>> + '_ {
        self.parsed().filter(|p| p.valid)
    }

    /// Proposal files that do not parse or are not valid.
    pub fn invalid(&self) -> usize {
        self.len() - self.valid().count()
    }

    /// Whether a parsed proposal reserves `id` for a new fact.
    pub fn reserves(&self, id: &str) -> bool {
        self.parsed()
            .any(|p| p.new_ids_raw().any(|n| n == id.as_bytes()))
    }

    /// The parsed proposal one of whose texts normalises to `normalized`.
    pub fn proposing(&self, normalized: &str) -> Option<PendingRef<'_>> {
        self.parsed()
            .find(|p| p.texts().any(|t| t.normalized == normalized.as_bytes()))
    }
}

/// What `context` shows of a queue, kept apart in the index so that it is read without the
/// rest: how many proposals are valid and invalid, and the newest valid ones' file names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueueSummary {
    pub valid: usize,
    pub invalid: usize,
    /// Newest first.
    pub newest: Vec<String>,
    /// `(fact id, proposal id)`: the facts valid proposals would put in dispute, sorted.
    pub contested: Vec<(String, String)>,
    /// What `context` shows of each of `newest`, in its order; empty where one was not known
    /// when the summary was made (its files are then read).
    pub lines: Vec<QueuedLine>,
}

/// What `context` shows of a pending proposal besides its id, as the queue index keeps it for
/// the newest: so that a `context` reads no proposal file while the index is current.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueuedLine {
    pub created_at: String,
    pub agent: Option<String>,
    pub reason: String,
    /// Each operation on one line ([`crate::model::proposals::proposal::Operation::summary`]).
    pub operations: Vec<String>,
}

impl QueuedLine {
    pub fn of(p: &Proposal) -> QueuedLine {
        QueuedLine {
            created_at: p.created_at.clone(),
            agent: p.agent.clone(),
            reason: p.reason.clone(),
            operations: p.operations.iter().map(Operation::summary).collect(),
        }
    }

    fn write(&self, w: &mut Writer) {
        w.str(&self.created_at);
        w.opt(self.agent.as_deref(), Writer::str);
        w.str(&self.reason);
        w.u32(self.operations.len());
        for op in &self.operations {
            w.str(op);
        }
    }

    fn read(r: &mut Reader) -> Option<QueuedLine> {
        let created_at = r.str()?.to_owned();
        let agent = r.opt(|r| r.str().map(str::to_owned))?;
        let reason = r.str()?.to_owned();
        let operations = (0..r.u32()?)
            .map(|_| r.str().map(str::to_owned))
            .collect::<Option<_>>()?;
        Some(QueuedLine {
            created_at,
            agent,
            reason,
            operations,
        })
    }
}

impl QueueSummary {
    /// The summary of `queue` with at most `newest` names.
    pub fn of(queue: &Queue, newest: usize) -> QueueSummary {
        let valid = queue.valid().count();
        QueueSummary {
            valid,
            invalid: queue.len() - valid,
            newest: queue
                .valid()
                .rev()
                .take(newest)
                .map(|p| p.file_name())
                .collect(),
            contested: Self::contested(queue),
            lines: Vec::new(),
        }
    }

    /// The summary with the line of each of its newest proposals, as `known` gives them by
    /// file name; without any when `known` lacks one.
    pub fn with_lines<'a>(mut self, known: impl Fn(&str) -> Option<&'a QueuedLine>) -> Self {
        self.lines = self
            .newest
            .iter()
            .map(|name| known(name).cloned())
            .collect::<Option<_>>()
            .unwrap_or_default();
        self
    }

    /// The line of the newest proposal `name`, when the summary holds the lines.
    pub fn line(&self, name: &str) -> Option<&QueuedLine> {
        let at = self.newest.iter().position(|n| n == name)?;
        self.lines.get(at)
    }

    fn contested(queue: &Queue) -> Vec<(String, String)> {
        let mut pairs: Vec<(String, String)> = queue
            .valid()
            .flat_map(|p| p.contests().map(move |f| (f.to_owned(), p.id().to_owned())))
            .collect();
        pairs.sort_unstable();
        pairs
    }

    pub(crate) fn write(&self, w: &mut Writer) {
        w.u64(self.valid as u64);
        w.u64(self.invalid as u64);
        w.u32(self.newest.len());
        for name in &self.newest {
            w.str(name);
        }
        w.u32(self.contested.len());
        for (fact, proposal) in &self.contested {
            w.str(fact);
            w.str(proposal);
        }
        w.u32(self.lines.len());
        for line in &self.lines {
            line.write(w);
        }
    }

    /// `None` unless `bytes` are exactly a summary whose names are proposal file names.
    pub(crate) fn read(bytes: &[u8]) -> Option<QueueSummary> {
        let mut r = Reader::new(bytes);
        let valid = usize::try_from(r.u64()?).ok()?;
        let invalid = usize::try_from(r.u64()?).ok()?;
        let n = r.u32()?;
        let mut newest = Vec::new();
        for _ in 0..n {
            let name = r.str()?;
            let id = name.strip_suffix(".json")?;
            if !is_proposal_id(id) {
                return None;
            }
            newest.push(name.to_owned());
        }
        let n = r.u32()?;
        let mut contested = Vec::new();
        for _ in 0..n {
            let fact = r.str()?;
            let proposal = r.str()?;
            if !is_fact_id(fact) || !is_proposal_id(proposal) {
                return None;
            }
            contested.push((fact.to_owned(), proposal.to_owned()));
        }
        let n = r.u32()? as usize;
        if n != 0 && n != newest.len() {
            return None;
        }
        let lines = (0..n)
            .map(|_| QueuedLine::read(&mut r))
            .collect::<Option<_>>()?;
        r.is_empty().then_some(QueueSummary {
            valid,
            invalid,
            newest,
            contested,
            lines,
        })
    }
}

/// Builds a queue from entries in any order, new or taken from another queue.
#[derive(Default)]
pub struct QueueBuilder {
    bytes: Vec<u8>,
    start: usize,
    entries: Vec<Range<usize>>,
    /// How many of the first entries are known to be in review order.
    ordered: usize,
}

impl QueueBuilder {
    /// Starts with the entries of `queue` that `keep` accepts, in their order. When it keeps
    /// them all (a queue that only grew), the queue's buffer is taken over, not copied.
    pub fn keeping(queue: Queue, mut keep: impl FnMut(EntryRef<'_>) -> bool) -> QueueBuilder {
        let kept: Vec<bool> = queue.entries().map(&mut keep).collect();
        let mut b = if kept.iter().all(|k| *k) {
            QueueBuilder {
                bytes: queue.bytes,
                start: queue.start,
                entries: queue.entries,
                ordered: 0,
            }
        } else {
            let mut b = QueueBuilder::default();
            for (e, _) in queue.entries().zip(&kept).filter(|(_, k)| **k) {
                b.push_entry(e);
            }
            b
        };
        b.ordered = b.entries.len();
        b
    }

    pub fn push(&mut self, e: &Pending) {
        let start = self.bytes.len();
        let mut w = Writer(&mut self.bytes);
        w.str(&e.name);
        w.u64(e.stamp);
        w.opt(e.proposal.as_ref(), |w, p| {
            w.str(&p.id);
            w.opt(p.created, |w, t| w.i128(t.unix_nanos()));
            w.opt(p.agent.as_deref(), Writer::str);
            w.u8(u8::from(p.valid));
            w.section(|w| {
                w.u32(p.new_ids.len());
                for id in &p.new_ids {
                    w.str(id);
                }
            });
            w.section(|w| {
                w.u32(p.texts.len());
                for t in &p.texts {
                    for s in [&t.file, &t.fact_id, &t.one_line, &t.normalized] {
                        w.str(s);
                    }
                    w.u32(t.words.hashes().len());
                    for h in t.words.hashes() {
                        w.u64(*h);
                    }
                }
            });
            for ids in [&p.contests, &p.targets] {
                w.section(|w| {
                    w.u32(ids.len());
                    for id in ids {
                        w.str(id);
                    }
                });
            }
        });
        self.entries.push(start..self.bytes.len());
    }

    /// Takes an entry of another queue as it is.
    pub fn push_entry(&mut self, e: EntryRef<'_>) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(e.raw);
        self.entries.push(start..self.bytes.len());
    }

    pub fn finish(self) -> Queue {
        let QueueBuilder {
            bytes,
            start,
            entries,
            ordered,
        } = self;
        let key = |r: &Range<usize>| {
            EntryRef::read(&mut Reader::new(&bytes[r.clone()]))
                .expect("built")
                .order_key()
        };
        // Usually only the newest files are new: a queue that is still in order is kept as is.
        let unchecked = &entries[ordered.saturating_sub(1)..];
        if unchecked.windows(2).all(|w| key(&w[0]) <= key(&w[1])) {
            return Queue {
                bytes,
                start,
                entries,
            };
        }
        let mut keyed: Vec<_> = entries.iter().map(|r| (key(r), r.clone())).collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        let mut sorted = Vec::with_capacity(bytes.len());
        let mut ranges = Vec::with_capacity(keyed.len());
        for (_, r) in keyed {
            let start = sorted.len();
            sorted.extend_from_slice(&bytes[r]);
            ranges.push(start..sorted.len());
        }
        Queue {
            bytes: sorted,
            start: 0,
            entries: ranges,
        }
    }
}

/// Review order, as `review list` has it: files that do not parse first, then proposals by
/// creation time (nanoseconds) and id; ties by file name.
type OrderKey<'a> = (Option<(Option<i128>, &'a [u8])>, &'a [u8]);

/// One file of a queue, read in place.
#[derive(Debug, Clone, Copy)]
pub struct EntryRef<'a> {
    raw: &'a [u8],
    name: &'a [u8],
    pub stamp: u64,
    pub proposal: Option<PendingRef<'a>>,
}

/// A parsed proposal of a queue, read in place.
#[derive(Debug, Clone, Copy)]
pub struct PendingRef<'a> {
    id: &'a [u8],
    /// Nanoseconds since the epoch, for the order.
    created: Option<i128>,
    agent: Option<&'a [u8]>,
    pub valid: bool,
    new_ids: &'a [u8],
    texts: &'a [u8],
    contests: &'a [u8],
    targets: &'a [u8],
}

/// A text of a queued proposal, read in place.
#[derive(Debug, Clone, Copy)]
pub struct TextRef<'a> {
    file: &'a [u8],
    fact_id: &'a [u8],
    one_line: &'a [u8],
    /// Kept as bytes: comparing it is all a scan does.
    pub normalized: &'a [u8],
    words: &'a [u8],
}

/// A text field of an entry. Entries are built from strings or checked by [`Queue::decode`],
/// so the fallback is never taken; a scan converts only what it shows.
fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).unwrap_or_default()
}

impl<'a> EntryRef<'a> {
    /// Slices the fields of the entry at `r`, checking its layout, not its text.
    fn read(r: &mut Reader<'a>) -> Option<EntryRef<'a>> {
        let start = r.position();
        let name = r.field()?;
        let stamp = r.u64()?;
        let proposal = r.opt(|r| {
            let id = r.field()?;
            let created = r.opt(Reader::i128)?;
            let agent = r.opt(Reader::field)?;
            let valid = match r.u8()? {
                0 => false,
                1 => true,
                _ => return None,
            };
            let new_ids = r.field()?;
            let texts = r.field()?;
            let contests = r.field()?;
            let targets = r.field()?;
            Some(PendingRef {
                id,
                created,
                agent,
                valid,
                new_ids,
                texts,
                contests,
                targets,
            })
        })?;
        Some(EntryRef {
            raw: r.since(start),
            name,
            stamp,
            proposal,
        })
    }

    /// Whether every field is well formed: text is UTF-8, times are in range, each set of words
    /// is sorted, and each section holds exactly its items.
    fn is_sound(&self) -> bool {
        let utf8 = |b: &[u8]| std::str::from_utf8(b).is_ok();
        let Some(p) = self.proposal else {
            return utf8(self.name);
        };
        let exact = |section: &[u8], item: &dyn Fn(&mut Reader) -> Option<()>| {
            let mut r = Reader::new(section);
            r.list(item).is_some() && r.is_empty()
        };
        utf8(self.name)
            && utf8(p.id)
            && p.agent.is_none_or(utf8)
            && p.created
                .is_none_or(|n| Timestamp::from_unix_nanos(n).is_some())
            && exact(p.new_ids, &|r| r.field().map(drop))
            && exact(p.texts, &|r| TextRef::read(r).map(drop))
            && exact(p.contests, &|r| r.field().map(drop))
            && exact(p.targets, &|r| r.field().map(drop))
            && fields(p.targets).all(utf8)
            && p.new_ids_raw().all(utf8)
            && fields(p.contests).all(utf8)
            && p.texts().all(|t| {
                [t.file, t.fact_id, t.one_line, t.normalized]
                    .into_iter()
                    .all(utf8)
                    && t.hashes().zip(t.hashes().skip(1)).all(|(a, b)| a < b)
            })
    }

    pub fn name(&self) -> &'a str {
        text(self.name)
    }

    fn order_key(&self) -> OrderKey<'a> {
        (self.proposal.map(|p| (p.created, p.id)), self.name)
    }
}

impl<'a> PendingRef<'a> {
    pub fn id(&self) -> &'a str {
        text(self.id)
    }

    pub fn agent(&self) -> Option<&'a str> {
        self.agent.map(text)
    }

    /// The file it is in: a proposal file is named after the proposal it holds.
    pub fn file_name(&self) -> String {
        format!("{}.json", self.id())
    }

    /// The ids its operations reserve for new facts.
    pub fn new_ids(&self) -> impl Iterator<Item = &'a str> {
        self.new_ids_raw().map(text)
    }

    fn new_ids_raw(&self) -> impl Iterator<Item = &'a [u8]> {
        fields(self.new_ids)
    }

    /// The facts it would put in dispute.
    pub fn contests(&self) -> impl Iterator<Item = &'a str> {
        fields(self.contests).map(text)
    }

    /// The existing facts it acts on.
    pub fn targets(&self) -> impl Iterator<Item = &'a str> {
        fields(self.targets).map(text)
    }

    pub fn texts(&self) -> impl Iterator<Item = TextRef<'a>> {
        let mut r = Reader::new(self.texts);
        let n = r.u32().unwrap_or(0);
        (0..n).map_while(move |_| TextRef::read(&mut r))
    }
}

/// The fields of a counted list section.
fn fields(section: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut r = Reader::new(section);
    let n = r.u32().unwrap_or(0);
    (0..n).map_while(move |_| r.field())
}

impl<'a> TextRef<'a> {
    fn read(r: &mut Reader<'a>) -> Option<TextRef<'a>> {
        Some(TextRef {
            file: r.field()?,
            fact_id: r.field()?,
            one_line: r.field()?,
            normalized: r.field()?,
            words: &r.list(|r| r.u64().map(drop))?[4..],
        })
    }

    pub fn file(&self) -> &'a str {
        text(self.file)
    }

    pub fn fact_id(&self) -> &'a str {
        text(self.fact_id)
    }

    pub fn one_line(&self) -> &'a str {
        text(self.one_line)
    }

    fn hashes(&self) -> impl Iterator<Item = u64> + 'a {
        self.words
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
    }

    /// The Dice coefficient of this text's words and `words`, as [`Words::dice`] gives it.
    pub fn dice(&self, words: &Words) -> f64 {
        words.dice_sorted(self.hashes(), self.words.len() / 8)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::proposals::proposal::Operation;

    /// A proposal by `claude` adding `text` to pitfalls.md as `f-` and the id's last four
    /// characters.
    pub(crate) fn proposal(id: &str, created_at: &str, text: &str) -> Proposal {
        Proposal {
            schema: crate::model::proposals::proposal::SCHEMA,
            id: id.into(),
            created_at: created_at.into(),
            agent: Some("claude".into()),
            author: None,
            reason: "because".into(),
            evidence: vec![],
            operations: vec![Operation::Add {
                scope: Vec::new(),
                file: "pitfalls.md".into(),
                fact_id: format!("f-{}", id.get(id.len() - 4..).unwrap()),
                text: text.into(),
                relations: Default::default(),
                evidence: Vec::new(),
                state: None,
                by: None,
            }],
            base: Default::default(),
        }
    }

    #[test]
    fn keeps_review_order_ids_texts_and_validity() {
        let limits = Limits {
            max_fact_chars: 40,
            files: vec!["pitfalls.md".into()],
        };
        let newer = proposal(
            "20261122T100001Z-bbbbbbbb",
            "2026-11-22T10:00:01Z",
            "Never  block\nthe **executor**.",
        );
        let older = proposal(
            "20261122T100000Z-aaaaaaaa",
            "2026-11-22T10:00:00Z",
            "A statement far longer than the forty characters allowed.",
        );
        let q = Queue::of([&newer, &older], &limits);
        let ids: Vec<_> = q.parsed().map(|p| p.id()).collect();
        assert_eq!(ids, [older.id.as_str(), newer.id.as_str()]);
        assert_eq!(q.invalid(), 1, "the older one breaks max_fact_chars");
        let first = q.valid().next().unwrap();
        assert_eq!(first.new_ids().collect::<Vec<_>>(), ["f-bbbb"]);
        let text = first.texts().next().unwrap();
        assert_eq!(text.one_line(), "Never block the **executor**.");
        assert_eq!(text.fact_id(), "f-bbbb");
        assert_eq!(text.dice(&Words::of("never block the executor")), 1.0);
        assert_eq!(
            q.proposing("never block the executor").map(|p| p.id()),
            Some(newer.id.as_str())
        );
        assert!(q.proposing("never block").is_none());
        assert!(q.reserves("f-bbbb") && q.reserves("f-aaaa"));
        assert!(!q.reserves("f-bbb") && !q.reserves("f-cccc"));
    }

    #[test]
    fn a_queue_grows_in_place_and_is_reordered_when_it_must_be() {
        let limits = Limits {
            max_fact_chars: 100,
            files: vec!["pitfalls.md".into()],
        };
        let p = |n: u8| {
            proposal(
                &format!("20261122T10000{n}Z-aaaaaaa{n}"),
                &format!("2026-11-22T10:00:0{n}Z"),
                &format!("Statement {n}."),
            )
        };
        let ids = |q: &Queue| q.parsed().map(|p| p.id().to_owned()).collect::<Vec<_>>();
        let header = b"header".to_vec();
        let mut file = header.clone();
        file.extend_from_slice(Queue::of([&p(1), &p(3)], &limits).bytes());
        let decoded = Queue::decode(file, header.len()).unwrap();
        // Kept whole and grown at its end: the buffer is taken over, header and all.
        let mut grown = QueueBuilder::keeping(decoded.clone(), |_| true);
        grown.push(&Pending {
            name: p(5).file_name(),
            stamp: 0,
            proposal: Some(PendingProposal::of(&p(5), &limits)),
        });
        let grown = grown.finish();
        assert_eq!(grown.start, header.len());
        assert_eq!(grown, Queue::of([&p(1), &p(3), &p(5)], &limits));
        // One dropped, and an older one arriving late: copied, then sorted.
        let mut b = QueueBuilder::keeping(decoded, |e| e.name() != p(1).file_name());
        b.push(&Pending {
            name: p(2).file_name(),
            stamp: 0,
            proposal: Some(PendingProposal::of(&p(2), &limits)),
        });
        let q = b.finish();
        assert_eq!(q.start, 0);
        assert_eq!(ids(&q), [p(2).id, p(3).id]);
    }

    #[test]
    fn decodes_what_it_encodes_and_nothing_else() {
        let limits = Limits {
            max_fact_chars: 100,
            files: vec!["pitfalls.md".into()],
        };
        let a = proposal("20261122T100000Z-aaaaaaaa", "2026-11-22T10:00:00Z", "One.");
        let b = proposal("20261122T100001Z-bbbbbbbb", "2026-11-22T10:00:01Z", "Two.");
        let mut q = Queue::of([&a, &b], &limits);
        q = Queue::new(
            q.entries()
                .map(|e| Pending {
                    name: e.name().to_owned(),
                    stamp: 7,
                    proposal: None,
                })
                .chain([Pending {
                    name: "broken.json".into(),
                    stamp: 9,
                    proposal: Some(PendingProposal::of(&a, &limits)),
                }]),
        );
        let back = Queue::decode(q.bytes().to_vec(), 0).unwrap();
        assert_eq!(back, q);
        assert_eq!(back.len(), 3);
        for cut in 1..q.bytes().len() {
            let decoded = Queue::decode(q.bytes()[..cut].to_vec(), 0);
            assert!(decoded.is_none_or(|d| d.len() < 3), "cut at {cut}");
        }
        // Entries out of review order are refused.
        let mut swapped = Vec::new();
        let entries: Vec<_> = q.entries().collect();
        swapped.extend_from_slice(entries[1].raw);
        swapped.extend_from_slice(entries[0].raw);
        assert!(Queue::decode(swapped, 0).is_none());
    }
}

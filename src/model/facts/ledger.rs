//! A loaded ledger: the fact files and the configuration, as values. Queries only; loading lives
//! in `store`.

use std::hash::BuildHasher as _;
use std::sync::OnceLock;

use crate::model::base::codec::{Reader, Writer};
use crate::model::base::config::Config;
use crate::model::base::ids::{is_sha256_hex, sha256_hex};
use crate::model::base::paths;
use crate::model::base::text::{listing, normalize, normalize_words_into};
use crate::model::facts::file::{Fact, FactFile, ParseError};

/// A fact or fact file that a request names and the ledger does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    #[error("unknown fact file `{name}`; known files: {}", known.join(", "))]
    UnknownFile { name: String, known: Vec<String> },
    #[error("invalid fact file name `{name}`: give a name from {} without a path, such as `architecture`", paths::FACTS)]
    InvalidFileName { name: String },
    #[error("unknown fact `{id}`; {}", known_ids(known))]
    UnknownFact { id: String, known: Vec<String> },
}

fn known_ids(known: &[String]) -> String {
    if known.is_empty() {
        return "the ledger has no facts with ids yet".to_owned();
    }
    format!("known ids: {}", listing(known, "mneme facts"))
}

/// `raw`, which parsed when it was indexed, parsed again.
fn parse_known(raw: &str) -> FactFile {
    FactFile::parse(raw).unwrap_or_default()
}

/// One `.ledger/facts/<name>.md`.
#[derive(Debug, Clone)]
pub struct FactFileEntry {
    /// File name with extension, e.g. `architecture.md`.
    pub name: String,
    pub raw: String,
    /// Parsed when read, or on first use where a kept index answered for the file (a
    /// `propose` parses only the files it touches).
    parsed: OnceLock<FactFile>,
    /// Found on first use: most runs never need it.
    sha256: OnceLock<String>,
    /// Counted once: the budget and the views each ask.
    lines: usize,
}

impl FactFileEntry {
    pub fn parse(name: String, raw: String) -> Result<FactFileEntry, ParseError> {
        let file = FactFile::parse(&raw)?;
        let entry = FactFileEntry::unparsed(name, raw);
        let _ = entry.parsed.set(file);
        Ok(entry)
    }

    /// A file known to parse, as an index kept of these very bytes says, parsed on first use.
    pub(crate) fn unparsed(name: String, raw: String) -> FactFileEntry {
        FactFileEntry {
            name,
            lines: crate::model::facts::file::line_count(&raw),
            raw,
            parsed: OnceLock::new(),
            sha256: OnceLock::new(),
        }
    }

    /// The parsed file. One taken as [`FactFileEntry::unparsed`] that does not parse after all
    /// (its bytes changed between the look that matched the index and the read) reads as empty:
    /// its facts are then missing from this run, as if read a moment earlier or later.
    pub fn file(&self) -> &FactFile {
        self.parsed.get_or_init(|| parse_known(&self.raw))
    }

    /// The name and the parsed file, taken out of the entry.
    pub fn into_parsed(self) -> (String, FactFile) {
        let file = self
            .parsed
            .into_inner()
            .unwrap_or_else(|| parse_known(&self.raw));
        (self.name, file)
    }

    /// SHA-256 of the raw bytes, in hex: the base a proposal records.
    pub fn sha256(&self) -> &str {
        self.sha256.get_or_init(|| sha256_hex(self.raw.as_bytes()))
    }

    /// Takes `hex` as [`FactFileEntry::sha256`], as it was found of these very bytes before
    /// (where a file's status says they did not change); ignored unless it reads as one.
    pub fn adopt_sha256(&self, hex: &str) {
        if is_sha256_hex(hex) {
            let _ = self.sha256.set(hex.to_owned());
        }
    }

    /// `architecture` for `architecture.md`.
    pub fn stem(&self) -> &str {
        self.name.strip_suffix(".md").unwrap_or(&self.name)
    }

    pub fn title(&self) -> &str {
        self.file()
            .front_matter
            .title
            .as_deref()
            .unwrap_or(self.stem())
    }

    pub fn lines(&self) -> usize {
        self.lines
    }
}

#[derive(Debug, Clone, Default)]
pub struct Ledger {
    /// Sorted by name.
    files: Vec<FactFileEntry>,
    pub config: Config,
    /// Built on first use: a review of 10,000 proposals looks facts up 10,000 times.
    index: OnceLock<Index>,
    /// Built on first use: each cache kept for the fact files is keyed by it.
    digest: OnceLock<[u8; 32]>,
}

/// Where each fact is, by id and by normalised statement, and the words of each: built with no
/// allocation per fact (a `propose` builds it for every fact of the ledger).
#[derive(Debug, Clone, Default)]
struct Index {
    /// `(hash of the id, file, fact)`, sorted: the first fact with an id is found first.
    by_id: Vec<(u64, usize, usize)>,
    /// `(hash of the normalised statement, file, fact)` of the current facts, sorted.
    by_statement: Vec<(u64, usize, usize)>,
    /// How many facts each file holds, in the ledger's order.
    counts: Vec<u32>,
    /// For each fact in [`Ledger::facts`] order, where its words are in `words`; `None` for one
    /// that is not current.
    spans: Vec<Option<(u32, u32)>>,
    /// The words of the current facts, each fact's sorted ([`normalize_words_into`]).
    words: Vec<u64>,
    /// Of the hasher: drawn at random where the index is built (the keys come from anyone's
    /// branch), and kept with it where it is stored.
    seed: u64,
}

impl Index {
    fn new() -> Index {
        Index {
            seed: foldhash::fast::RandomState::default().hash_one(0u8),
            ..Index::default()
        }
    }

    fn hash(&self, key: &str) -> u64 {
        foldhash::fast::FixedState::with_seed(self.seed).hash_one(key)
    }

    fn encode(&self, w: &mut Writer) {
        w.u64(self.seed);
        w.u32(self.counts.len());
        for &count in &self.counts {
            w.u32(count as usize);
        }
        for list in [&self.by_id, &self.by_statement] {
            w.u32(list.len());
            for &(hash, file, fact) in list {
                w.u64(hash);
                w.u32(file);
                w.u32(fact);
            }
        }
        w.u32(self.spans.len());
        for span in &self.spans {
            let (start, end) = span.unwrap_or((u32::MAX, u32::MAX));
            w.u32(start as usize);
            w.u32(end as usize);
        }
        w.u32(self.words.len());
        for &word in &self.words {
            w.u64(word);
        }
    }

    /// What [`Index::encode`] wrote; `None` unless it is whole and holds together: every
    /// position names a fact of its file, in order, and every span lies in the words.
    fn decode(r: &mut Reader) -> Option<Index> {
        let seed = r.u64()?;
        let n = r.u32()? as usize;
        let mut counts = Vec::with_capacity(n.min(r.remaining() / 4));
        for _ in 0..n {
            counts.push(r.u32()?);
        }
        let mut lists = [Vec::new(), Vec::new()];
        for list in &mut lists {
            let n = r.u32()? as usize;
            *list = Vec::with_capacity(n.min(r.remaining() / 16));
            for _ in 0..n {
                let entry = (r.u64()?, r.u32()? as usize, r.u32()? as usize);
                let fits = counts.get(entry.1).is_some_and(|&c| entry.2 < c as usize);
                let in_order = list.last().is_none_or(|last| *last < entry);
                if !fits || !in_order {
                    return None;
                }
                list.push(entry);
            }
        }
        let [by_id, by_statement] = lists;
        let n = r.u32()? as usize;
        if n != counts.iter().map(|&c| c as usize).sum::<usize>() {
            return None;
        }
        let mut spans = Vec::with_capacity(n);
        for _ in 0..n {
            let (start, end) = (r.u32()?, r.u32()?);
            spans.push((start != u32::MAX).then_some((start, end)));
        }
        let n = r.u32()? as usize;
        let words: Vec<u64> = r
            .take(n.checked_mul(8)?)?
            .chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
            .collect();
        let spans_fit = spans
            .iter()
            .flatten()
            .all(|(start, end)| start <= end && *end as usize <= n);
        (spans_fit && r.is_empty()).then_some(Index {
            by_id,
            by_statement,
            counts,
            spans,
            words,
            seed,
        })
    }

    /// Whether this index describes `files`: as many, and of each file already parsed as many
    /// facts, with words for exactly the current ones. A file not yet parsed is one the index
    /// was made of ([`FactFileEntry::unparsed`]).
    fn fits(&self, files: &[FactFileEntry]) -> bool {
        if self.counts.len() != files.len() {
            return false;
        }
        let mut spans = self.spans.as_slice();
        files.iter().zip(&self.counts).all(|(entry, &count)| {
            let Some((own, rest)) = spans.split_at_checked(count as usize) else {
                return false;
            };
            spans = rest;
            entry.parsed.get().is_none_or(|file| {
                file.facts().count() == own.len()
                    && own
                        .iter()
                        .zip(file.facts())
                        .all(|(span, fact)| span.is_some() == fact.meta.is_current())
            })
        })
    }

    /// Each fact's position with its span, in the ledger's order.
    fn positions(&self) -> impl Iterator<Item = (Position, &Option<(u32, u32)>)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .flat_map(|(file, &count)| (0..count as usize).map(move |fact| (file, fact)))
            .zip(&self.spans)
    }

    /// The positions filed under `key`'s hash in `list`, in order; the caller checks the key.
    fn under<'a>(
        &self,
        list: &'a [(u64, usize, usize)],
        key: &str,
    ) -> impl Iterator<Item = (usize, usize)> + 'a {
        let hash = self.hash(key);
        let from = list.partition_point(|e| e.0 < hash);
        list[from..]
            .iter()
            .take_while(move |e| e.0 == hash)
            .map(|&(_, file, fact)| (file, fact))
    }
}

/// Where a fact is: its file's place in the ledger, and its place among that file's facts.
pub type Position = (usize, usize);

/// What a proposal is checked against besides its own fields.
#[derive(Debug, Clone)]
pub struct Limits {
    pub max_fact_chars: usize,
    /// The fact files of the ledger (`architecture.md`, …): every operation must name one.
    pub files: Vec<String>,
}

impl Ledger {
    /// `files` sorted by name.
    pub fn new(mut files: Vec<FactFileEntry>, config: Config) -> Ledger {
        files.sort_by(|a, b| a.name.cmp(&b.name));
        Ledger {
            files,
            config,
            index: OnceLock::new(),
            digest: OnceLock::new(),
        }
    }

    /// A SHA-256 hash of the fact files' names and hashes: what a cache of anything found from
    /// them is kept for.
    pub fn digest(&self) -> &[u8; 32] {
        self.digest.get_or_init(|| {
            use sha2::Digest as _;
            let mut hasher = sha2::Sha256::new();
            for f in &self.files {
                for part in [f.name.as_bytes(), b"\0", f.sha256().as_bytes(), b"\0"] {
                    hasher.update(part);
                }
            }
            hasher.finalize().into()
        })
    }

    /// The ledger of fact files given as `(name, text)`, those that parse (a commit's, an
    /// index's: anyone's branch; the others are `check`'s to report).
    pub fn from_texts(files: impl IntoIterator<Item = (String, String)>, config: Config) -> Ledger {
        let entries = files
            .into_iter()
            .filter_map(|(name, raw)| FactFileEntry::parse(name, raw).ok())
            .collect();
        Ledger::new(entries, config)
    }

    /// The fact files, sorted by name.
    pub fn files(&self) -> &[FactFileEntry] {
        &self.files
    }

    /// The fact files, sorted by name, taken out of the ledger.
    pub fn into_files(self) -> Vec<FactFileEntry> {
        self.files
    }

    fn index(&self) -> &Index {
        self.index.get_or_init(|| {
            let mut index = Index::new();
            let mut normalized = String::new();
            for (fi, entry) in self.files.iter().enumerate() {
                let before = index.spans.len();
                for (ki, fact) in entry.file().facts().enumerate() {
                    if let Some(id) = &fact.id {
                        index.by_id.push((index.hash(id), fi, ki));
                    }
                    if !fact.meta.is_current() {
                        index.spans.push(None);
                        continue;
                    }
                    let start = index.words.len();
                    normalize_words_into(&fact.text, &mut normalized, &mut index.words);
                    let span = (start as u32, index.words.len() as u32);
                    index.spans.push(Some(span));
                    index.by_statement.push((index.hash(&normalized), fi, ki));
                }
                index.counts.push((index.spans.len() - before) as u32);
            }
            index.by_id.sort_unstable();
            index.by_statement.sort_unstable();
            index
        })
    }

    /// The index of the facts ([`Ledger::find`], similarity), built if it was not, encoded to
    /// be kept beside the fact files it describes.
    pub fn encode_index(&self, out: &mut Vec<u8>) {
        self.index().encode(&mut Writer(out));
    }

    /// Takes the index [`Ledger::encode_index`] encoded of these very fact files rather than
    /// building it; `false` (and nothing taken) unless `bytes` fit them.
    pub fn adopt_index(&self, bytes: &[u8]) -> bool {
        let Some(index) = Index::decode(&mut Reader::new(bytes)).filter(|i| i.fits(&self.files))
        else {
            return false;
        };
        self.index.set(index).is_ok()
    }

    /// How many facts have an id.
    pub fn id_count(&self) -> usize {
        self.index().by_id.len()
    }

    /// The fact at `position`, as the index has it. `None` only where a file changed between
    /// the look that matched its index and the read (see [`FactFileEntry::file`]).
    pub fn fact_at(&self, (file, fact): Position) -> Option<(&FactFileEntry, &Fact)> {
        let entry = self.files.get(file)?;
        Some((entry, entry.file().facts().nth(fact)?))
    }

    pub fn facts(&self) -> impl Iterator<Item = (&FactFileEntry, &Fact)> {
        self.files
            .iter()
            .flat_map(|f| f.file().facts().map(move |fact| (f, fact)))
    }

    /// The current facts with their words (sorted hashes, as
    /// [`crate::model::base::text::Words::hashes`] has them), for
    /// similarity; by position, so that no file is parsed for them.
    pub fn active_words(&self) -> impl Iterator<Item = (Position, &[u64])> {
        let index = self.index();
        index.positions().filter_map(|(at, span)| {
            let (start, end) = (*span)?;
            Some((at, &index.words[start as usize..end as usize]))
        })
    }

    pub fn find(&self, id: &str) -> Option<(&FactFileEntry, &Fact)> {
        self.with_id(id).next().map(|(_, found)| found)
    }

    /// The positions of the facts with this id, in the ledger's order.
    pub fn located<'a>(&'a self, id: &'a str) -> impl Iterator<Item = Position> + 'a {
        self.with_id(id).map(|(at, _)| at)
    }

    /// The facts with this id and their positions, in the ledger's order.
    fn with_id<'a, 'i>(
        &'a self,
        id: &'i str,
    ) -> impl Iterator<Item = (Position, (&'a FactFileEntry, &'a Fact))> + use<'a, 'i> {
        let index = self.index();
        index
            .under(&index.by_id, id)
            .filter_map(|at| Some((at, self.fact_at(at)?)))
            .filter(move |(_, (_, f))| f.id.as_deref() == Some(id))
    }

    /// The facts whose text holds every word of `query`, ignoring case.
    pub fn search<'a>(
        &'a self,
        query: &str,
    ) -> impl Iterator<Item = (&'a FactFileEntry, &'a Fact)> + 'a {
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        self.facts().filter(move |(_, fact)| {
            let text = fact.text.to_lowercase();
            !words.is_empty() && words.iter().all(|w| text.contains(w.as_str()))
        })
    }

    /// The fact with this id, or `UnknownFact` listing the known ids.
    pub fn get(&self, id: &str) -> Result<(&FactFileEntry, &Fact), LookupError> {
        self.find(id).ok_or_else(|| LookupError::UnknownFact {
            id: id.to_owned(),
            known: self.ids().map(str::to_owned).collect(),
        })
    }

    /// A current fact other than `except` whose statement normalises to `normalized`.
    pub fn same_statement(
        &self,
        normalized: &str,
        except: &str,
    ) -> Option<(&FactFileEntry, &Fact)> {
        let index = self.index();
        index
            .under(&index.by_statement, normalized)
            .filter_map(|at| self.fact_at(at))
            .find(|(_, f)| f.id.as_deref() != Some(except) && normalize(&f.text) == normalized)
    }

    /// The id of a fact, or `line N` for one without an id.
    pub fn label(fact: &Fact) -> String {
        fact.id
            .clone()
            .unwrap_or_else(|| format!("line {}", fact.line))
    }

    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.facts().filter_map(|(_, f)| f.id.as_deref())
    }

    pub fn file(&self, name: &str) -> Option<&FactFileEntry> {
        self.files.iter().find(|f| f.name == name)
    }

    /// Resolves what a user typed (`architecture` or `architecture.md`) to a file name.
    pub fn resolve_file(&self, name: &str) -> Result<&FactFileEntry, LookupError> {
        if name.is_empty()
            || name.contains(['/', '\\', '\0'])
            || name.contains("..")
            || name.starts_with('.')
        {
            return Err(LookupError::InvalidFileName {
                name: name.to_owned(),
            });
        }
        let file_name = if name.ends_with(".md") {
            name.to_owned()
        } else {
            format!("{name}.md")
        };
        self.file(&file_name)
            .ok_or_else(|| LookupError::UnknownFile {
                name: name.to_owned(),
                known: self.files.iter().map(|f| f.stem().to_owned()).collect(),
            })
    }

    /// What a proposal against this ledger is checked against.
    pub fn limits(&self) -> Limits {
        Limits {
            max_fact_chars: self.config.max_fact_chars,
            files: self.files.iter().map(|f| f.name.clone()).collect(),
        }
    }

    /// Lines of all fact files together, the measure of the budget.
    pub fn total_lines(&self) -> usize {
        self.files.iter().map(FactFileEntry::lines).sum()
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn ledger(files: &[(&str, &str)]) -> Ledger {
        Ledger::new(
            files
                .iter()
                .map(|(n, raw)| FactFileEntry::parse((*n).into(), (*raw).into()).unwrap())
                .collect(),
            Config::default(),
        )
    }

    #[test]
    fn search_finds_facts_holding_every_word() {
        let l = ledger(&[
            (
                "architecture.md",
                "- **f-aaaa** The Cache keeps 5 minutes.\n- **f-bbbb** The pool is shared.\n",
            ),
            ("pitfalls.md", "- **f-cccc** Never cache errors.\n"),
        ]);
        let ids = |q| {
            l.search(q)
                .map(|(_, f)| f.id.clone().unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids("cache"), ["f-aaaa", "f-cccc"]);
        assert_eq!(ids("CACHE minutes"), ["f-aaaa"]);
        assert!(ids("cache pool").is_empty());
        assert!(ids("  ").is_empty(), "an empty query finds nothing");
    }

    #[test]
    fn resolves_files_and_refuses_paths() {
        let l = ledger(&[("architecture.md", "- **f-aaaa** one\n")]);
        assert_eq!(
            l.resolve_file("architecture").unwrap().name,
            "architecture.md"
        );
        assert_eq!(
            l.resolve_file("architecture.md").unwrap().name,
            "architecture.md"
        );
        for bad in ["../x", "a/b", "a\\b", "..", ".hidden", ""] {
            assert!(
                matches!(
                    l.resolve_file(bad),
                    Err(LookupError::InvalidFileName { .. })
                ),
                "{bad}"
            );
        }
        match l.resolve_file("nope") {
            Err(LookupError::UnknownFile { known, .. }) => assert_eq!(known, ["architecture"]),
            other => panic!("{other:?}"),
        }
        assert_eq!(l.get("f-aaaa").unwrap().1.text, "one");
        assert!(matches!(
            l.get("f-zzzz"),
            Err(LookupError::UnknownFact { .. })
        ));
        assert_eq!(l.total_lines(), 1);
    }

    const FILES: [(&str, &str); 2] = [
        (
            "architecture.md",
            "- **f-aaaa** The cache keeps five minutes.\n- **f-bbbb** Old. <!-- state: archived -->\n",
        ),
        ("pitfalls.md", "Intro.\n\n- **f-cccc** Never cache errors.\n- No id here.\n"),
    ];

    /// The index of `l`, encoded as it is kept.
    fn encoded(l: &Ledger) -> Vec<u8> {
        let mut bytes = Vec::new();
        l.encode_index(&mut bytes);
        bytes
    }

    /// Which ids are found, which statements are the ledger's, and each fact's words.
    type Answers = (Vec<bool>, Vec<bool>, Vec<(String, Vec<u64>)>);

    /// What the ledger answers from its index.
    fn answers(l: &Ledger) -> Answers {
        let found = ["f-aaaa", "f-bbbb", "f-cccc", "f-zzzz"].map(|id| l.find(id).is_some());
        let same = ["the cache keeps five minutes", "old", "no id here"]
            .map(|s| l.same_statement(s, "").is_some());
        let words = l
            .active_words()
            .map(|(at, w)| {
                (
                    l.fact_at(at).expect("indexed fact").1.text.clone(),
                    w.to_vec(),
                )
            })
            .collect();
        (found.to_vec(), same.to_vec(), words)
    }

    #[test]
    fn an_encoded_index_is_taken_by_the_same_files_and_answers_alike() {
        let built = ledger(&FILES);
        let bytes = encoded(&built);
        let taken = ledger(&FILES);
        assert!(taken.adopt_index(&bytes));
        assert_eq!(answers(&taken), answers(&built));
        assert_eq!(answers(&built).0, [true, true, true, false]);
        assert_eq!(answers(&built).1, [true, false, true]);
        assert!(!taken.adopt_index(&bytes), "an index is taken once");
    }

    #[test]
    fn an_index_that_does_not_fit_the_files_is_refused() {
        let bytes = encoded(&ledger(&FILES));
        let others: [&[(&str, &str)]; 3] = [
            &FILES[..1],
            &[
                FILES[0],
                ("pitfalls.md", "- **f-cccc** Never cache errors.\n"),
            ],
            // One fact fewer, one more made current.
            &[
                (
                    "architecture.md",
                    "- **f-aaaa** The cache keeps five minutes.\n- **f-bbbb** Old.\n",
                ),
                FILES[1],
            ],
        ];
        for files in others {
            assert!(!ledger(files).adopt_index(&bytes), "{files:?}");
        }
        for len in 0..bytes.len() {
            assert!(!ledger(&FILES).adopt_index(&bytes[..len]), "cut at {len}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(!ledger(&FILES).adopt_index(&longer));
        // A position past the facts of its file: the first id's fact, after the seed, the two
        // files' counts, the list's length, and the id's hash and file.
        let mut past = bytes.clone();
        past[8 + 4 + 2 * 4 + 4 + 8 + 4] = 9;
        assert!(!ledger(&FILES).adopt_index(&past));
    }

    /// `files` as read but not parsed, as a run whose index describes them takes them.
    fn unparsed(files: &[(&str, &str)]) -> Ledger {
        let entries = files
            .iter()
            .map(|(n, raw)| FactFileEntry::unparsed((*n).into(), (*raw).into()))
            .collect();
        Ledger::new(entries, Config::default())
    }

    fn parsed(l: &Ledger) -> Vec<bool> {
        l.files().iter().map(|f| f.parsed.get().is_some()).collect()
    }

    #[test]
    fn files_an_index_describes_are_parsed_only_where_a_question_reaches_them() {
        let built = ledger(&FILES);
        let bytes = encoded(&built);
        let taken = unparsed(&FILES);
        assert!(taken.adopt_index(&bytes));
        assert_eq!(parsed(&taken), [false, false]);
        // Counting, a new id, a statement no fact has, the words: all from the index.
        assert_eq!(taken.id_count(), 3);
        assert!(taken.find("f-zzzz").is_none());
        assert!(taken.same_statement("nothing like it", "").is_none());
        assert_eq!(similar_in(&taken), similar_in(&built));
        assert_eq!(parsed(&taken), [false, false]);
        // A fact asked for by id parses its own file only.
        assert_eq!(taken.find("f-cccc").unwrap().1.text, "Never cache errors.");
        assert_eq!(parsed(&taken), [false, true]);
        assert_eq!(answers(&taken), answers(&built));
    }

    #[test]
    fn a_parsed_file_must_fit_the_index_beside_unparsed_ones() {
        let bytes = encoded(&ledger(&FILES));
        let other = "- **f-cccc** Never cache errors.\n";
        let mixed = Ledger::new(
            vec![
                FactFileEntry::unparsed(FILES[0].0.into(), FILES[0].1.into()),
                FactFileEntry::parse(FILES[1].0.into(), other.into()).unwrap(),
            ],
            Config::default(),
        );
        assert!(
            !mixed.adopt_index(&bytes),
            "pitfalls.md has one fact, not two"
        );
        assert!(
            !unparsed(&FILES[..1]).adopt_index(&bytes),
            "one file, not two"
        );
    }

    #[test]
    fn an_unparsed_file_that_no_longer_parses_reads_as_empty() {
        let entry = FactFileEntry::unparsed("a.md".into(), "---\ntitle: [\n---\n".into());
        assert_eq!(entry.file(), &FactFile::default());
        let l = Ledger::new(vec![entry], Config::default());
        assert!(l.fact_at((0, 0)).is_none());
    }

    proptest::proptest! {
        /// Whatever a damaged index holds, taking it never panics, and an index that is taken
        /// answers every lookup without panicking.
        #[test]
        fn any_damage_to_an_index_is_refused_or_harmless(
            edits in proptest::collection::vec((proptest::num::usize::ANY, proptest::num::u8::ANY), 1..6),
            cut in proptest::num::usize::ANY,
        ) {
            let mut bytes = encoded(&ledger(&FILES));
            for (at, byte) in edits {
                let at = at % bytes.len();
                bytes[at] = byte;
            }
            bytes.truncate(bytes.len() - cut % 8);
            let taken = ledger(&FILES);
            if taken.adopt_index(&bytes) {
                answers(&taken);
                let _ = similar_in(&taken);
            }
        }
    }

    /// Every fact's words compared with one statement's, as `propose` does.
    fn similar_in(l: &Ledger) -> Vec<f64> {
        let words = crate::model::base::text::Words::of("the cache keeps errors");
        l.active_words()
            .map(|(_, w)| words.dice_sorted(w.iter().copied(), w.len()))
            .collect()
    }

    #[test]
    fn a_hash_is_taken_only_where_it_reads_as_one() {
        let l = ledger(&FILES);
        let entry = &l.files()[0];
        entry.adopt_sha256("not a hash");
        entry.adopt_sha256(&"A".repeat(64));
        assert_eq!(entry.sha256(), sha256_hex(entry.raw.as_bytes()));
        let l = ledger(&FILES);
        l.files()[0].adopt_sha256(&"0f".repeat(32));
        assert_eq!(l.files()[0].sha256(), "0f".repeat(32));
    }
}

//! The ledger indexes in the git directory: what is found of the fact files besides their
//! facts, kept between runs. `context` keys its caches by the SHA-256 of every fact file
//! (`mneme-ledger.idx`), and `propose` compares a statement with the words of every fact
//! (`mneme-facts.idx`, [`Ledger::encode_index`]): for an 800-line ledger each costs about as
//! much as the rest of the run. Two files, so that a run reads only what it uses.
//!
//! As the task index does, each keeps beside each fact file's name a stamp of the file's
//! [`FileKey`] (times, size, inode) taken before the file was read. A file whose key matches its
//! stamp takes its hash from the index; the facts' index is taken only when every file matches,
//! and then the files are parsed only where a question reaches their facts ([`describes`]).
//! A file written so shortly before it was read that a later write could keep its key is
//! stamped as never to be trusted. Anything else (another set of files, another version of
//! mneme, damage) makes the run find what it needs afresh and replace the index.

use crate::model::base::codec::{seal, unsealed, Reader, Writer};
use crate::model::base::paths;
use crate::model::facts::ledger::Ledger;
use crate::store::file::{self, FileKey};
use crate::store::{KeyedText, Store};

/// Raised when a layout changes between releases of one version, or what an index holds is
/// found otherwise (fact parsing, normalisation, word hashes): an index of the same files from
/// the same version is otherwise believed (2: each file's count of facts).
const REVISION: u32 = 2;
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// What an index keeps of the fact files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kept {
    /// Each file's SHA-256.
    Hashes,
    /// The index of the facts: ids, statements, words.
    Facts,
}

impl Kept {
    fn magic(self) -> &'static [u8] {
        match self {
            Kept::Hashes => b"mneme-ledger\n",
            Kept::Facts => b"mneme-facts\n",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kept::Hashes => paths::LEDGER_INDEX,
            Kept::Facts => paths::FACTS_INDEX,
        }
    }
}

impl Store {
    /// The index of `kept` as the git directory holds it, if it does.
    pub(super) fn read_kept(&self, kept: Kept) -> Option<Vec<u8>> {
        file::read_local(&self.git_dir.join(kept.name())).ok()
    }

    /// Gives `ledger` what `bytes`, the index of `kept` as read, keep of its files, each taken
    /// before it was read with `keys` (by file, in the ledger's order) by a run that started at
    /// `started`. Where the index lacks something, it is found and the index replaced.
    pub(super) fn adopt_kept(
        &self,
        kept: Kept,
        ledger: &Ledger,
        keys: &[Option<FileKey>],
        started: i128,
        bytes: Option<&[u8]>,
    ) {
        if bytes.is_some_and(|b| adopt(kept, ledger, keys, b)) {
            return;
        }
        // A cache that cannot be written costs the next run time, nothing else.
        let path = self.git_dir.join(kept.name());
        let _ = file::replace_cache(&path, &encode(kept, ledger, keys, started));
    }
}

/// Whether `bytes`, the facts' index as read, was made of every one of `texts` as they were
/// read: then each parsed when it was indexed, and parses alike until its key changes.
pub(super) fn describes(bytes: &[u8], texts: &[KeyedText]) -> bool {
    let Some(body) = unsealed(bytes) else {
        return false;
    };
    let files = texts.iter().map(|(_, key, text)| {
        let name = text.as_ref().map_or("", |(name, _)| name.as_str());
        (name, key.filter(|_| text.is_ok()))
    });
    stamps(Kept::Facts, &mut Reader::new(body), files, |_, _| {}) == Some(true)
}

/// Reads the head of an index of `kept` and each file's stamp (and, of hashes, each file's
/// hash, given to `hash` with the file's place where its key matches its stamp): whether every
/// one of `files` (names and keys, in the ledger's order) matched. `None` for an index of
/// other files, or damaged.
fn stamps<'a, 'f>(
    kept: Kept,
    r: &mut Reader<'a>,
    files: impl ExactSizeIterator<Item = (&'f str, Option<FileKey>)>,
    mut hash: impl FnMut(usize, &'a str),
) -> Option<bool> {
    let fits = r.take(kept.magic().len())? == kept.magic()
        && r.u32()? == REVISION
        && r.field()? == VERSION.as_bytes()
        && r.u32()? as usize == files.len();
    if !fits {
        return None;
    }
    let mut every = true;
    for (i, (name, key)) in files.enumerate() {
        let (stamped, stamp) = (r.str()?, r.u64()?);
        let matches = stamped == name && key.is_some_and(|k| k.matches(stamp));
        every &= matches;
        if kept == Kept::Hashes {
            let sha256 = r.str()?;
            if matches {
                hash(i, sha256);
            }
        }
    }
    Some(every)
}

/// Gives `ledger` what `bytes` keep of the files whose keys match; whether that was everything.
fn adopt(kept: Kept, ledger: &Ledger, keys: &[Option<FileKey>], bytes: &[u8]) -> bool {
    let Some(body) = unsealed(bytes) else {
        return false;
    };
    let mut r = Reader::new(body);
    let entries = ledger.files();
    let files = entries.iter().zip(keys).map(|(e, k)| (e.name.as_str(), *k));
    let every = stamps(kept, &mut r, files, |i, sha256| {
        entries[i].adopt_sha256(sha256);
    });
    every == Some(true)
        && match kept {
            Kept::Hashes => r.is_empty(),
            Kept::Facts => r.field().is_some_and(|index| ledger.adopt_index(index)),
        }
}

/// The index of `kept` of `ledger`'s files, read with `keys` by a run that started at `started`.
fn encode(kept: Kept, ledger: &Ledger, keys: &[Option<FileKey>], started: i128) -> Vec<u8> {
    let mut bytes = kept.magic().to_vec();
    let mut w = Writer(&mut bytes);
    w.u32(REVISION as usize);
    w.str(VERSION);
    w.u32(ledger.files().len());
    for (entry, key) in ledger.files().iter().zip(keys) {
        w.str(&entry.name);
        w.u64(key.map_or(0, |k| k.stamp(started)));
        if kept == Kept::Hashes {
            w.str(entry.sha256());
        }
    }
    if kept == Kept::Facts {
        let mut index = Vec::new();
        ledger.encode_index(&mut index);
        w.field(&index);
    }
    seal(&mut bytes);
    bytes
}

//! The queue index, `<git dir>/mneme-queue.idx`: the [`Queue`] of `.ledger/proposals/` kept
//! between runs, so `propose` and `context` do not re-read thousands of proposal files.
//!
//! The index records the directory's status (modification and change times, inode) when it was
//! built. While the directory still has that status, nothing was added, removed or renamed in it
//! and the index is used as it is. Otherwise the directory is listed and only files the index
//! does not know by name and inode are read. Proposal files are never rewritten in place by
//! mneme or by git (both write a new file); an editor that saves in place keeps the inode, and
//! such an edit reaches the index at the next `mneme check`, which rebuilds it. `review` and
//! `verify` always read the files themselves. The index is a cache: it is rebuilt when
//! unreadable, when another version wrote it, or when the limits proposals are judged by change.

use std::collections::HashMap;
use std::io::Read as _;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::model::paths;
use crate::model::proposal::{Limits, Proposal};
use crate::model::queue::{
    Pending, PendingProposal, Queue, QueueBuilder, QueueSummary, Reader, Writer,
};
use crate::model::views::CONTEXT_PROPOSALS;
use crate::store::{file, read_proposals, Result, Store};

const MAGIC: &[u8; 12] = b"mneme-queue\n";
/// Raised when the layout or what makes a proposal valid changes between releases of one
/// version (2: a repeated key makes a proposal invalid; 3: the summary).
const REVISION: usize = 3;

/// How long after a change a directory may change again without its times changing: a clock
/// tick (at most 10 ms on Linux) where times have sub-second parts, else two seconds (FAT).
const RACY_FINE: Duration = Duration::from_millis(100);
const RACY_COARSE: Duration = Duration::from_secs(2);

/// How many files an index may lack before a run rewrites it while the directory is busy.
const REWRITE_AFTER: usize = 32;

impl Store {
    /// The review queue, judged under `limits`: from the queue index where it is current, else
    /// from the files, refreshing the index.
    pub fn queue(&self, limits: &Limits) -> Result<Queue> {
        self.read_queue(limits, true)
    }

    /// What `context` shows of the queue: from the index's summary alone (a few hundred bytes
    /// read, not the whole index) where the index is current, else from the whole queue.
    pub fn queue_summary(&self, limits: &Limits) -> Result<QueueSummary> {
        let Some(status) = DirStatus::of(&self.path(paths::PROPOSALS)) else {
            return Ok(QueueSummary::default());
        };
        let header = Header::new(limits);
        let current = read_prefix(&self.git_dir.join(paths::QUEUE_INDEX), &header)
            .filter(|s| s.current(status))
            .and_then(|s| s.summary);
        match current {
            Some(summary) => Ok(summary),
            None => Ok(QueueSummary::of(&self.queue(limits)?, CONTEXT_PROPOSALS)),
        }
    }

    /// Rebuilds the queue index from every proposal file, for a hand edit that kept its file.
    pub fn rebuild_queue_index(&self, limits: &Limits) -> Result<()> {
        self.read_queue(limits, false).map(drop)
    }

    fn read_queue(&self, limits: &Limits, trust_index: bool) -> Result<Queue> {
        let dir = self.path(paths::PROPOSALS);
        let index_path = self.git_dir.join(paths::QUEUE_INDEX);
        let started = SystemTime::now();
        let Some(status) = DirStatus::of(&dir) else {
            return Ok(Queue::default());
        };
        let header = Header::new(limits);
        // An index not to be trusted is not read at all: rebuilding needs none of it.
        let bytes = trust_index
            .then(|| std::fs::read(&index_path).ok())
            .flatten();
        let stamped = bytes.as_deref().and_then(|b| Index::stamp(b, &header));
        if stamped.is_some_and(|s| s.current(status)) {
            if let Some(index) = bytes.and_then(|b| Index::decode(b, &header)) {
                return Ok(index.queue);
            }
            return self.read_queue(limits, false);
        }
        // Listing a directory of thousands of files takes as long as reading the index: both at
        // once. Without an index there is nothing to overlap, and a thread costs more than a
        // short listing.
        let (listed, cached) = match bytes {
            Some(bytes) => std::thread::scope(|scope| {
                let lister = scope.spawn(|| file::list_dir_inodes(&dir, ".json"));
                let cached = Index::decode(bytes, &header);
                (lister.join().expect("directory lister panicked"), cached)
            }),
            None => (file::list_dir_inodes(&dir, ".json"), None),
        };
        let mut listed: HashMap<String, u64> = listed?.into_iter().collect();
        // Known files stay in the index's order, which is review order, so it need not be sorted.
        let mut changes = 0;
        let mut builder = match cached {
            Some(index) => QueueBuilder::keeping(index.queue, |entry| {
                match listed.remove(entry.name()) {
                    Some(ino) if ino == entry.stamp => return true,
                    Some(again) => {
                        listed.insert(entry.name().to_owned(), again);
                    }
                    None => changes += 1,
                }
                false
            }),
            None => QueueBuilder::default(),
        };
        changes += listed.len();
        let (unread, stamps): (Vec<_>, Vec<_>) = listed
            .into_iter()
            .map(|(name, ino)| {
                let path = dir.join(&name);
                ((name, path), ino)
            })
            .unzip();
        for (loaded, stamp) in read_proposals(&dir, &unread)?.into_iter().zip(stamps) {
            let name = loaded
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            builder.push(&Pending {
                name: name.unwrap_or_default(),
                stamp,
                proposal: loaded
                    .proposal
                    .ok()
                    .map(|p| PendingProposal::of(&p, limits)),
            });
        }
        let queue = builder.finish();
        // While the directory is busy the next run lists it anyway: a few files it reads again
        // cost less than rewriting an index of thousands each time.
        if changes <= REWRITE_AFTER && status.racy(started) {
            return Ok(queue);
        }
        let index = Index {
            status,
            built: started,
            queue,
        };
        // A cache that cannot be written costs the next run time, nothing else.
        let _ = file::replace_unsynced(&index_path, &index.encode(&header));
        Ok(index.queue)
    }

    /// The proposals in the files `names` of `.ledger/proposals/` that still parse.
    pub fn read_pending(&self, names: impl IntoIterator<Item = String>) -> Result<Vec<Proposal>> {
        let dir = self.path(paths::PROPOSALS);
        let names: Vec<_> = names
            .into_iter()
            .map(|n| {
                let path = dir.join(&n);
                (n, path)
            })
            .collect();
        Ok(read_proposals(&dir, &names)?
            .into_iter()
            .filter_map(|l| l.proposal.ok())
            .collect())
    }
}

/// What the directory's own metadata says about its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DirStatus {
    modified: i128,
    #[cfg(unix)]
    changed: i128,
    #[cfg(unix)]
    inode: u64,
}

impl DirStatus {
    /// `None` when the directory does not exist.
    fn of(dir: &Path) -> Option<DirStatus> {
        let meta = std::fs::metadata(dir).ok()?;
        #[cfg(unix)]
        use std::os::unix::fs::MetadataExt;
        Some(DirStatus {
            modified: meta.modified().map(nanos).unwrap_or(0),
            #[cfg(unix)]
            changed: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
            #[cfg(unix)]
            inode: meta.ino(),
        })
    }

    /// Whether the directory changed so shortly before `built` that a later change could have
    /// left its times as they are.
    fn racy(&self, built: SystemTime) -> bool {
        let window = if self.modified % 1_000_000_000 == 0 {
            RACY_COARSE
        } else {
            RACY_FINE
        };
        self.modified + window.as_nanos() as i128 >= nanos(built)
    }

    fn fields(&self) -> [i128; 3] {
        #[cfg(unix)]
        return [self.modified, self.changed, i128::from(self.inode)];
        #[cfg(not(unix))]
        return [self.modified, 0, 0];
    }

    fn from_fields([modified, _changed, _inode]: [i128; 3]) -> Option<DirStatus> {
        Some(DirStatus {
            modified,
            #[cfg(unix)]
            changed: _changed,
            #[cfg(unix)]
            inode: u64::try_from(_inode).ok()?,
        })
    }
}

fn nanos(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

/// What an index must have been built with to be used: this version and revision of mneme (the
/// layout and the rules may change between them) and the limits validity was judged under.
struct Header(Vec<u8>);

impl Header {
    fn new(limits: &Limits) -> Header {
        let mut bytes = Vec::new();
        let mut w = Writer(&mut bytes);
        w.bytes(MAGIC);
        w.str(env!("CARGO_PKG_VERSION"));
        w.u32(REVISION);
        w.u64(limits.max_fact_chars as u64);
        w.u32(limits.files.len());
        for f in &limits.files {
            w.str(f);
        }
        Header(bytes)
    }
}

/// The index file: header, directory status, build time, the summary with its own checksum,
/// the queue's entries (each stamped with the inode of its file), then a checksum of all that.
struct Index {
    status: DirStatus,
    built: SystemTime,
    queue: Queue,
}

/// What an index says before its entries.
struct Stamp {
    status: DirStatus,
    built: SystemTime,
    /// `None` when it does not match its checksum.
    summary: Option<QueueSummary>,
    /// Where the entries start.
    entries: usize,
}

impl Stamp {
    /// Whether the index describes the directory as it is now `status`: unchanged since, and
    /// built long enough after its last change that a later change would have moved its times.
    fn current(&self, status: DirStatus) -> bool {
        self.status == status && !status.racy(self.built)
    }
}

/// The fixed-size part of an index after its header: three status fields, the build time and
/// the summary's length.
const STAMP_LEN: usize = 4 * 16 + 4;

/// Summaries are a few hundred bytes: a longer one is not read.
const MAX_SUMMARY: usize = 64 * 1024;

/// The stamp of the index at `path` built with `header`, reading only as far as the summary.
fn read_prefix(path: &Path, header: &Header) -> Option<Stamp> {
    let mut file = std::fs::File::open(path).ok()?;
    let fixed = header.0.len() + STAMP_LEN;
    let mut bytes = vec![0; fixed];
    file.read_exact(&mut bytes).ok()?;
    let len = u32::from_le_bytes(bytes[fixed - 4..].try_into().ok()?) as usize;
    if len > MAX_SUMMARY {
        return None;
    }
    bytes.resize(fixed + len + 8, 0);
    file.read_exact(&mut bytes[fixed..]).ok()?;
    Index::stamp(&bytes, header)
}

impl Index {
    fn encode(&self, header: &Header) -> Vec<u8> {
        let mut summary = Vec::new();
        QueueSummary::of(&self.queue, CONTEXT_PROPOSALS).write(&mut Writer(&mut summary));
        let mut bytes = header.0.clone();
        let mut w = Writer(&mut bytes);
        for f in self.status.fields() {
            w.i128(f);
        }
        w.i128(nanos(self.built));
        w.u32(summary.len());
        w.bytes(&summary);
        w.u64(checksum(&summary));
        w.bytes(self.queue.bytes());
        let sum = checksum(&bytes);
        Writer(&mut bytes).u64(sum);
        bytes
    }

    /// What an index built with `header` says before its entries, read without checking the
    /// rest.
    fn stamp(bytes: &[u8], header: &Header) -> Option<Stamp> {
        let body = bytes.strip_prefix(header.0.as_slice())?;
        let mut r = Reader::new(body);
        let status = DirStatus::from_fields([r.i128()?, r.i128()?, r.i128()?])?;
        let built = UNIX_EPOCH + Duration::from_nanos(u64::try_from(r.i128()?).ok()?);
        let summary = r.field()?;
        let sum = r.u64()?;
        Some(Stamp {
            status,
            built,
            summary: (checksum(summary) == sum)
                .then(|| QueueSummary::read(summary))
                .flatten(),
            entries: header.0.len() + r.position(),
        })
    }

    /// `None` unless `bytes` is a whole index built with `header`.
    fn decode(mut bytes: Vec<u8>, header: &Header) -> Option<Index> {
        let body_len = bytes.len().checked_sub(8)?;
        let sum = u64::from_le_bytes(bytes[body_len..].try_into().ok()?);
        bytes.truncate(body_len);
        if checksum(&bytes) != sum {
            return None;
        }
        let stamp = Index::stamp(&bytes, header)?;
        Some(Index {
            status: stamp.status,
            built: stamp.built,
            queue: Queue::decode(bytes, stamp.entries)?,
        })
    }
}

/// A fast checksum over 8-byte words: it catches a torn or truncated file, not an attacker
/// (the index lives in the git directory, beside what it describes).
fn checksum(bytes: &[u8]) -> u64 {
    let mut h = bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h ^ w).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29);
    }
    for &b in chunks.remainder() {
        h = (h ^ u64::from(b))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::queue::tests::proposal;

    #[test]
    fn an_index_decodes_to_what_was_encoded_and_only_under_its_limits() {
        let limits = Limits {
            max_fact_chars: 100,
            files: vec!["pitfalls.md".into()],
        };
        let p = proposal(
            "20261122T100000Z-aaaaaaaa",
            "2026-11-22T10:00:00.5Z",
            "Never block the executor.",
        );
        let index = Index {
            status: DirStatus::from_fields([5, 6, 7]).unwrap(),
            built: UNIX_EPOCH + Duration::from_secs(9),
            queue: Queue::of([&p], &limits),
        };
        let header = Header::new(&limits);
        let bytes = index.encode(&header);
        let back = Index::decode(bytes.clone(), &header).unwrap();
        assert_eq!(back.status, index.status);
        assert_eq!(back.built, index.built);
        assert_eq!(back.queue, index.queue);
        let other = Header::new(&Limits {
            max_fact_chars: 101,
            ..limits
        });
        assert!(Index::decode(bytes.clone(), &other).is_none());
        for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
            assert!(Index::decode(bytes[..cut].to_vec(), &header).is_none());
        }

        // The summary is read from the file's first bytes alone, and only as it was written.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idx");
        std::fs::write(&path, &bytes).unwrap();
        let stamp = read_prefix(&path, &header).unwrap();
        let summary = QueueSummary::of(&index.queue, CONTEXT_PROPOSALS);
        assert_eq!(summary.newest, [format!("{}.json", p.id)]);
        assert_eq!(stamp.summary, Some(summary));
        let summary_at = header.0.len() + STAMP_LEN;
        let mut flipped = bytes.clone();
        flipped[summary_at] ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        assert_eq!(read_prefix(&path, &header).unwrap().summary, None);
        std::fs::write(&path, &bytes[..summary_at + 3]).unwrap();
        assert!(read_prefix(&path, &header).is_none());
    }

    #[test]
    fn a_summary_names_only_proposal_files() {
        let mut bytes = Vec::new();
        let summary = QueueSummary {
            valid: 1,
            invalid: 0,
            newest: vec!["../../escape.json".into()],
        };
        summary.write(&mut Writer(&mut bytes));
        assert_eq!(QueueSummary::read(&bytes), None);
        let mut bytes = Vec::new();
        let summary = QueueSummary {
            newest: vec!["20261122T100000Z-aaaaaaaa.json".into()],
            ..summary
        };
        summary.write(&mut Writer(&mut bytes));
        assert_eq!(QueueSummary::read(&bytes), Some(summary));
    }
}

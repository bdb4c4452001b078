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
use std::thread::ScopedJoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::model::base::codec::{checksum, seal, unsealed, Reader, Writer};
use crate::model::base::paths;
use crate::model::facts::ledger::{Ledger, Limits};
use crate::model::proposals::proposal::Proposal;
use crate::model::proposals::queue::{
    Pending, PendingProposal, Queue, QueueBuilder, QueueSummary, QueuedLine,
};
use crate::model::views::CONTEXT_PROPOSALS;
use crate::store::{file, read_proposals, Result, Store};

const MAGIC: &[u8; 12] = b"mneme-queue\n";
/// Raised when the layout or what makes a proposal valid changes between releases of one
/// version (2: a repeated key makes a proposal invalid; 3: the summary; 4: the status first;
/// 5: the facts proposals contest; 6: the facts they act on; 7: operations may carry a scope;
/// 8: the summary holds the newest proposals' lines).
const REVISION: u32 = 8;

/// An index may lack one file in this many of the queue's (and at least [`FEW_CHANGES`]) before
/// a run rewrites it even though the next run will list the directory anyway: each file it lacks
/// is read and parsed by every run until it is rewritten (about as long as writing 64 entries),
/// while rewriting it costs in proportion to the whole queue.
const REWRITE_RATIO: usize = 64;
const FEW_CHANGES: usize = 2;

/// Size of an index (about a thousand proposals) from which the directory is listed on a thread
/// of its own while the index decodes.
const OVERLAP_FROM: usize = 256 * 1024;

/// The proposal files of the directory with their inodes, as [`file::list_dir_inodes`] gives
/// them.
type Listed = Result<Vec<(String, u64)>>;

/// What a run that read the queue leaves to do: the index to write when the one it found no
/// longer describes the directory. Writing it after the run's own files keeps their `fsync`
/// from waiting on the index's blocks.
#[must_use = "the index is only written by `Store::refresh_queue_index`"]
pub struct QueueRefresh(Option<Rebuilt>);

/// A queue built from a listing of the directory.
struct Rebuilt {
    scan: DirScan,
    header: Header,
    /// How many files the index lacked or had too many.
    changes: usize,
    /// What `context` shows of the valid proposals this run knows that of, by file name: those
    /// the old index's summary held and those read.
    lines: Lines,
    limits: Limits,
}

type Lines = HashMap<String, QueuedLine>;

impl Store {
    /// The summary of `queue`, which `rebuilt` describes, with the lines of its newest
    /// proposals: those the run knows, and the others read from their files (an index whose
    /// summary lacked them gets them once).
    fn summary_of(&self, rebuilt: &mut Rebuilt, queue: &Queue) -> QueueSummary {
        let summary = QueueSummary::of(queue, CONTEXT_PROPOSALS);
        let lines = &mut rebuilt.lines;
        let missing: Vec<String> = summary
            .newest
            .iter()
            .filter(|name| !lines.contains_key(*name))
            .cloned()
            .collect();
        if !missing.is_empty() {
            // A file that cannot be read leaves the lines out: `context` then reads the files.
            for p in self.read_pending(missing).unwrap_or_default() {
                if p.validate(&rebuilt.limits).is_ok() {
                    lines.insert(p.file_name(), QueuedLine::of(&p));
                }
            }
        }
        summary.with_lines(|name| lines.get(name))
    }
}

/// The directory's status and the time it was taken, before any listing of it began: an index
/// built from that listing describes the directory as of then.
#[derive(Clone, Copy)]
pub(super) struct DirScan {
    pub(super) started: SystemTime,
    pub(super) status: DirStatus,
}

impl DirScan {
    pub(super) fn of(dir: &Path) -> Option<DirScan> {
        let started = SystemTime::now();
        DirStatus::of(dir).map(|status| DirScan { started, status })
    }
}

impl Store {
    /// The review queue, judged under `limits`: from the queue index where it is current, else
    /// from the files, refreshing the index.
    pub fn queue(&self, limits: &Limits) -> Result<Queue> {
        let (queue, refresh) = self.read_queue(limits, true)?;
        self.refresh_queue_index(refresh, &queue, false);
        Ok(queue)
    }

    /// The ledger and its review queue. Where the index does not describe the proposals
    /// directory and the queue is large (or of unknown size), the directory is listed while the
    /// ledger loads: with thousands of proposals the listing takes as long as the rest of a short
    /// run, while starting a thread costs more than listing a few hundred.
    pub fn load_with_queue(&self) -> Result<(Ledger, Queue, QueueRefresh)> {
        let dir = self.path(paths::PROPOSALS);
        let scan = DirScan::of(&dir);
        let index_path = self.git_dir.join(paths::QUEUE_INDEX);
        let index = peek(&index_path);
        let current = scan.is_some_and(|s| index.is_some_and(|(built, _)| built.current(s.status)));
        let large = index.is_none_or(|(_, len)| len >= OVERLAP_FROM as u64);
        std::thread::scope(|scope| {
            let listing = scan
                .filter(|_| !current && large)
                .map(|_| scope.spawn(|| file::list_dir_inodes(&dir, ".json")));
            let ledger = self.load_for_proposing()?;
            let (queue, refresh) = match scan {
                Some(scan) => self.read_queue_at(&ledger.limits(), true, scan, listing)?,
                None => (Queue::default(), QueueRefresh(None)),
            };
            Ok((ledger, queue, refresh))
        })
    }

    /// Writes the queue index `refresh` asks for, describing `queue`, unless the next run would
    /// list the directory anyway (it is busy, or this run `added` a file to it) and the index
    /// lacks only a few files: reading those costs the next run less than rewriting an index of
    /// thousands costs this one.
    pub fn refresh_queue_index(&self, refresh: QueueRefresh, queue: &Queue, added: bool) {
        let Some(mut rebuilt) = refresh.0 else {
            return;
        };
        let listed_anyway = added || rebuilt.scan.status.racy(rebuilt.scan.started);
        if listed_anyway && rebuilt.changes <= (queue.len() / REWRITE_RATIO).max(FEW_CHANGES) {
            return;
        }
        let summary = self.summary_of(&mut rebuilt, queue);
        let bytes = encode(&rebuilt.header, rebuilt.scan, &summary, queue);
        // A cache that cannot be written costs the next run time, nothing else.
        let _ = file::replace_cache(&self.git_dir.join(paths::QUEUE_INDEX), &bytes);
    }

    /// What `context` shows of the queue: from the index's summary alone (a few hundred bytes
    /// read, not the whole index) where the index is current, else from the whole queue.
    pub fn queue_summary(&self, limits: &Limits) -> Result<QueueSummary> {
        let Some(status) = DirStatus::of(&self.path(paths::PROPOSALS)) else {
            return Ok(QueueSummary::default());
        };
        let header = Header::new(limits);
        let current = read_prefix(&self.git_dir.join(paths::QUEUE_INDEX), &header)
            .filter(|s| s.built.current(status))
            .and_then(|s| s.summary);
        if let Some(summary) = current {
            return Ok(summary);
        }
        let (queue, mut refresh) = self.read_queue(limits, true)?;
        let summary = match &mut refresh.0 {
            Some(rebuilt) => self.summary_of(rebuilt, &queue),
            None => QueueSummary::of(&queue, CONTEXT_PROPOSALS),
        };
        self.refresh_queue_index(refresh, &queue, false);
        Ok(summary)
    }

    /// Rebuilds the queue index from every proposal file, for a hand edit that kept its file.
    pub fn rebuild_queue_index(&self, limits: &Limits) -> Result<()> {
        let (queue, refresh) = self.read_queue(limits, false)?;
        self.refresh_queue_index(refresh, &queue, false);
        Ok(())
    }

    fn read_queue(&self, limits: &Limits, trust_index: bool) -> Result<(Queue, QueueRefresh)> {
        match DirScan::of(&self.path(paths::PROPOSALS)) {
            Some(scan) => self.read_queue_at(limits, trust_index, scan, None),
            None => Ok((Queue::default(), QueueRefresh(None))),
        }
    }

    /// The queue of the directory as `scan` found it; `listing`, where given, was started
    /// after the scan.
    fn read_queue_at(
        &self,
        limits: &Limits,
        trust_index: bool,
        scan: DirScan,
        listing: Option<ScopedJoinHandle<'_, Listed>>,
    ) -> Result<(Queue, QueueRefresh)> {
        let dir = self.path(paths::PROPOSALS);
        let index_path = self.git_dir.join(paths::QUEUE_INDEX);
        let header = Header::new(limits);
        // An index not to be trusted is not read at all: rebuilding needs none of it.
        let bytes = trust_index
            .then(|| std::fs::read(&index_path).ok())
            .flatten();
        let mut stamped = bytes.as_deref().and_then(|b| Stamp::read(b, &header));
        if stamped
            .as_ref()
            .is_some_and(|s| s.built.current(scan.status))
        {
            if let Some(queue) = bytes.and_then(|b| decode(b, &header)) {
                return Ok((queue, QueueRefresh(None)));
            }
            return self.read_queue_at(limits, false, scan, listing);
        }
        // Listing a directory of thousands of files takes as long as reading the index: both at
        // once. Without an index there is nothing to overlap, and with an index of a few hundred
        // proposals a thread costs more than the listing.
        let list = || file::list_dir_inodes(&dir, ".json");
        let (listed, cached) = match (listing, bytes) {
            (Some(listing), bytes) => {
                let cached = bytes.and_then(|b| decode(b, &header));
                (listing.join().expect("directory lister panicked"), cached)
            }
            (None, Some(bytes)) if bytes.len() < OVERLAP_FROM => (list(), decode(bytes, &header)),
            (None, Some(bytes)) => std::thread::scope(|scope| {
                let lister = scope.spawn(list);
                let cached = decode(bytes, &header);
                (lister.join().expect("directory lister panicked"), cached)
            }),
            (None, None) => (list(), None),
        };
        // Names come from the directory: a seeded hash, but one much faster than SipHash.
        let mut listed: HashMap<String, u64, foldhash::fast::RandomState> =
            listed?.into_iter().collect();
        // Known files stay in the index's order, which is review order, so it need not be sorted.
        let mut changes = 0;
        let mut builder = match cached {
            Some(queue) => QueueBuilder::keeping(queue, |entry| {
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
        let mut lines: Lines = stamped
            .take()
            .and_then(|s| s.summary)
            .map(|s| s.newest.into_iter().zip(s.lines).collect())
            .unwrap_or_default();
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
            let name = name.unwrap_or_default();
            let proposal = loaded.proposal.ok().map(|p| {
                let pending = PendingProposal::of(&p, limits);
                if pending.valid {
                    lines.insert(name.clone(), QueuedLine::of(&p));
                }
                pending
            });
            builder.push(&Pending {
                name,
                stamp,
                proposal,
            });
        }
        let rebuilt = Rebuilt {
            scan,
            header,
            changes,
            lines,
            limits: limits.clone(),
        };
        Ok((builder.finish(), QueueRefresh(Some(rebuilt))))
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
pub(super) struct DirStatus {
    modified: i128,
    #[cfg(unix)]
    changed: i128,
    #[cfg(unix)]
    inode: u64,
}

impl DirStatus {
    /// `None` when the directory does not exist.
    pub(super) fn of(dir: &Path) -> Option<DirStatus> {
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
    pub(super) fn racy(&self, built: SystemTime) -> bool {
        file::recently_written(self.modified, nanos(built))
    }

    /// Whether entries may have been added, removed or renamed since the directory had status
    /// `then` at `built` (nanoseconds since the epoch).
    pub(super) fn changed_since(&self, then: DirStatus, built: i128) -> bool {
        *self != then || file::recently_written(self.modified, built)
    }

    pub(super) fn fields(&self) -> [i128; 3] {
        #[cfg(unix)]
        return [self.modified, self.changed, i128::from(self.inode)];
        #[cfg(not(unix))]
        return [self.modified, 0, 0];
    }

    pub(super) fn from_fields([modified, _changed, _inode]: [i128; 3]) -> Option<DirStatus> {
        Some(DirStatus {
            modified,
            #[cfg(unix)]
            changed: _changed,
            #[cfg(unix)]
            inode: u64::try_from(_inode).ok()?,
        })
    }
}

pub(super) fn nanos(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

/// What an index must have been built with to be used, after its fixed prefix: this version of
/// mneme (the rules may change between versions) and the limits validity was judged under.
struct Header(Vec<u8>);

impl Header {
    fn new(limits: &Limits) -> Header {
        let mut bytes = Vec::new();
        let mut w = Writer(&mut bytes);
        w.str(env!("CARGO_PKG_VERSION"));
        w.u64(limits.max_fact_chars as u64);
        w.u32(limits.files.len());
        for f in &limits.files {
            w.str(f);
        }
        Header(bytes)
    }
}

/// The bytes of an index before its header: magic, revision, three status fields and the build
/// time. Whether an index is current is read from them alone, before the limits are known.
const PREFIX_LEN: usize = MAGIC.len() + 4 + 4 * 16;

/// When an index was built, and the directory's status then.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Built {
    status: DirStatus,
    at: SystemTime,
}

impl Built {
    /// Whether the index describes the directory as it is now `status`: unchanged since, and
    /// built long enough after its last change that a later change would have moved its times.
    fn current(&self, status: DirStatus) -> bool {
        !status.changed_since(self.status, nanos(self.at))
    }

    /// `None` unless `bytes` start with the prefix of an index of this revision.
    fn read(bytes: &[u8]) -> Option<Built> {
        let mut r = Reader::new(bytes.strip_prefix(MAGIC.as_slice())?);
        if r.u32()? != REVISION {
            return None;
        }
        let status = DirStatus::from_fields([r.i128()?, r.i128()?, r.i128()?])?;
        let at = UNIX_EPOCH + Duration::from_nanos(u64::try_from(r.i128()?).ok()?);
        Some(Built { status, at })
    }
}

/// What an index says before its entries.
struct Stamp {
    built: Built,
    /// `None` when it does not match its checksum.
    summary: Option<QueueSummary>,
    /// Where the entries start.
    entries: usize,
}

impl Stamp {
    /// What `bytes`, an index built with `header`, say before the entries; the rest is not
    /// checked.
    fn read(bytes: &[u8], header: &Header) -> Option<Stamp> {
        let built = Built::read(bytes)?;
        let body = bytes.get(PREFIX_LEN..)?.strip_prefix(header.0.as_slice())?;
        let mut r = Reader::new(body);
        let summary = r.field()?;
        let sum = r.u64()?;
        Some(Stamp {
            built,
            summary: (checksum(summary) == sum)
                .then(|| QueueSummary::read(summary))
                .flatten(),
            entries: PREFIX_LEN + header.0.len() + r.position(),
        })
    }
}

/// How the index at `path` was built, from its first bytes alone, and the index's length.
fn peek(path: &Path) -> Option<(Built, u64)> {
    let mut bytes = [0; PREFIX_LEN];
    let mut file = std::fs::File::open(path).ok()?;
    file.read_exact(&mut bytes).ok()?;
    let len = file.metadata().ok()?.len();
    Some((Built::read(&bytes)?, len))
}

/// Summaries are a few hundred bytes: a longer one is not read.
const MAX_SUMMARY: usize = 64 * 1024;

/// The stamp of the index at `path` built with `header`, reading only as far as the summary.
fn read_prefix(path: &Path, header: &Header) -> Option<Stamp> {
    let mut file = std::fs::File::open(path).ok()?;
    let fixed = PREFIX_LEN + header.0.len() + 4;
    let mut bytes = vec![0; fixed];
    file.read_exact(&mut bytes).ok()?;
    let len = u32::from_le_bytes(bytes[fixed - 4..].try_into().ok()?) as usize;
    if len > MAX_SUMMARY {
        return None;
    }
    bytes.resize(fixed + len + 8, 0);
    file.read_exact(&mut bytes[fixed..]).ok()?;
    Stamp::read(&bytes, header)
}

/// The index of `queue`, listed as `scan` found the directory: the prefix, the header, the
/// summary with its own checksum, the queue's entries (each stamped with the inode of its
/// file), then a checksum of all that.
fn encode(header: &Header, scan: DirScan, summary: &QueueSummary, queue: &Queue) -> Vec<u8> {
    let mut written = Vec::new();
    summary.write(&mut Writer(&mut written));
    // A summary too long to be read back (reasons are long) is kept without its lines.
    if written.len() > MAX_SUMMARY {
        written.clear();
        QueueSummary {
            lines: Vec::new(),
            ..summary.clone()
        }
        .write(&mut Writer(&mut written));
    }
    let summary = written;
    let mut bytes = MAGIC.to_vec();
    let mut w = Writer(&mut bytes);
    w.u32(REVISION as usize);
    for f in scan.status.fields() {
        w.i128(f);
    }
    w.i128(nanos(scan.started));
    w.bytes(&header.0);
    w.field(&summary);
    w.u64(checksum(&summary));
    w.bytes(queue.bytes());
    seal(&mut bytes);
    bytes
}

/// The queue of `bytes`; `None` unless they are a whole index built with `header`.
fn decode(mut bytes: Vec<u8>, header: &Header) -> Option<Queue> {
    let body_len = unsealed(&bytes)?.len();
    bytes.truncate(body_len);
    let entries = Stamp::read(&bytes, header)?.entries;
    Queue::decode(bytes, entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::proposals::queue::tests::proposal;

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
        let scan = DirScan {
            status: DirStatus::from_fields([5, 6, 7]).unwrap(),
            started: UNIX_EPOCH + Duration::from_secs(9),
        };
        let queue = Queue::of([&p], &limits);
        let header = Header::new(&limits);
        let line = QueuedLine::of(&p);
        let summary = QueueSummary::of(&queue, CONTEXT_PROPOSALS)
            .with_lines(|name| (name == p.file_name()).then_some(&line));
        let bytes = encode(&header, scan, &summary, &queue);
        assert_eq!(decode(bytes.clone(), &header), Some(queue.clone()));
        let other = Header::new(&Limits {
            max_fact_chars: 101,
            ..limits
        });
        assert!(decode(bytes.clone(), &other).is_none());
        for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
            assert!(decode(bytes[..cut].to_vec(), &header).is_none());
        }

        // How it was built is read from its first bytes alone, whatever the limits.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("idx");
        std::fs::write(&path, &bytes).unwrap();
        let built = Built {
            status: scan.status,
            at: scan.started,
        };
        assert_eq!(peek(&path).map(|(b, _)| b), Some(built));
        let mut older = bytes.clone();
        older[MAGIC.len()] ^= 1;
        std::fs::write(&path, &older).unwrap();
        assert_eq!(
            peek(&path).map(|(b, _)| b),
            None,
            "another revision's prefix is not read"
        );

        // The summary is read from the file's first bytes alone, and only as it was written.
        std::fs::write(&path, &bytes).unwrap();
        let stamp = read_prefix(&path, &header).unwrap();
        assert_eq!(stamp.built, built);
        assert_eq!(summary.newest, [format!("{}.json", p.id)]);
        assert_eq!(summary.line(&p.file_name()), Some(&line));
        assert_eq!(line.reason, p.reason);
        assert_eq!(stamp.summary, Some(summary));
        let summary_at = PREFIX_LEN + header.0.len() + 4;
        let mut flipped = bytes.clone();
        flipped[summary_at] ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        assert_eq!(read_prefix(&path, &header).unwrap().summary, None);
        std::fs::write(&path, &bytes[..summary_at + 3]).unwrap();
        assert!(read_prefix(&path, &header).is_none());
    }

    #[test]
    fn a_summary_names_only_proposal_files_and_fact_ids() {
        let mut bytes = Vec::new();
        let summary = QueueSummary {
            valid: 1,
            invalid: 0,
            newest: vec!["../../escape.json".into()],
            contested: vec![],
            lines: vec![],
        };
        summary.write(&mut Writer(&mut bytes));
        assert_eq!(QueueSummary::read(&bytes), None);
        bytes.clear();
        let summary = QueueSummary {
            newest: vec![],
            contested: vec![("not a fact".into(), "20261122T100000Z-aaaaaaaa".into())],
            ..summary
        };
        summary.write(&mut Writer(&mut bytes));
        assert_eq!(QueueSummary::read(&bytes), None);
        let mut bytes = Vec::new();
        let summary = QueueSummary {
            newest: vec!["20261122T100000Z-aaaaaaaa.json".into()],
            contested: vec![("f-ab12".into(), "20261122T100000Z-aaaaaaaa".into())],
            ..summary
        };
        summary.write(&mut Writer(&mut bytes));
        assert_eq!(QueueSummary::read(&bytes), Some(summary.clone()));

        // Lines are all the newest proposals' or none.
        let line = QueuedLine {
            created_at: "2026-11-22T10:00:00Z".into(),
            agent: Some("claude".into()),
            reason: "found in review".into(),
            operations: vec!["add f-ab12 to pitfalls.md: Never block.".into()],
        };
        for (lines, readable) in [
            (vec![line.clone()], true),
            (vec![line.clone(), line], false),
        ] {
            let mut bytes = Vec::new();
            let summary = QueueSummary {
                lines,
                ..summary.clone()
            };
            summary.write(&mut Writer(&mut bytes));
            assert_eq!(QueueSummary::read(&bytes).is_some(), readable);
        }
    }
}

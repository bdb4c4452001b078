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
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::model::paths;
use crate::model::proposal::{Limits, Proposal};
use crate::model::queue::{Pending, PendingProposal, PendingText, Queue};
use crate::model::text::Words;
use crate::model::time::Timestamp;
use crate::store::{file, read_proposals, Result, Store};

const MAGIC: &[u8; 12] = b"mneme-queue\n";

/// Coarser than any file system's timestamps (FAT keeps two seconds): a directory changed this
/// recently may change again without its times changing.
const RACY: Duration = Duration::from_secs(2);

impl Store {
    /// The review queue, judged under `limits`: from the queue index where it is current, else
    /// from the files, refreshing the index.
    pub fn queue(&self, limits: &Limits) -> Result<Queue> {
        self.read_queue(limits, true)
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
        let cached = std::fs::read(&index_path)
            .ok()
            .filter(|_| trust_index)
            .and_then(|bytes| Index::decode(&bytes, &header));
        if let Some(index) = &cached {
            if index.status == status && !status.racy(index.built) {
                return Ok(Queue {
                    entries: index.entries.iter().map(|(_, p)| p.clone()).collect(),
                });
            }
        }
        let listed = file::list_dir_inodes(&dir, ".json")?;
        let unchanged_dir = cached.as_ref().is_some_and(|i| i.status == status);
        let mut known: HashMap<String, (u64, Pending)> = cached
            .map(|i| {
                i.entries
                    .into_iter()
                    .map(|(ino, p)| (p.name.clone(), (ino, p)))
                    .collect()
            })
            .unwrap_or_default();
        let mut entries = Vec::with_capacity(listed.len());
        let mut unread = Vec::new();
        for (name, path, ino) in listed {
            match known.remove(&name) {
                Some((known_ino, pending)) if known_ino == ino => entries.push((ino, pending)),
                _ => unread.push(((name, path), ino)),
            }
        }
        let changed = !unread.is_empty() || !known.is_empty() || !unchanged_dir;
        let names: Vec<_> = unread.iter().map(|(n, _)| n.clone()).collect();
        for (loaded, (_, ino)) in read_proposals(&dir, &names)?.into_iter().zip(&unread) {
            let name = loaded
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned());
            entries.push((
                *ino,
                Pending {
                    name: name.unwrap_or_default(),
                    proposal: loaded
                        .proposal
                        .ok()
                        .map(|p| PendingProposal::of(&p, limits)),
                },
            ));
        }
        let inodes: HashMap<String, u64> = entries
            .iter()
            .map(|(ino, p)| (p.name.clone(), *ino))
            .collect();
        let queue = Queue::new(entries.into_iter().map(|(_, p)| p).collect());
        if changed {
            let index = Index {
                status,
                built: started,
                entries: queue
                    .entries
                    .iter()
                    .map(|p| (inodes[&p.name], p.clone()))
                    .collect(),
            };
            // A cache that cannot be written costs the next run time, nothing else.
            let _ = file::replace_unsynced(&index_path, &index.encode(&header));
        }
        Ok(queue)
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
        self.modified + RACY.as_nanos() as i128 >= nanos(built)
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

/// What an index must have been built with to be used: this version of mneme (the layout may
/// change between versions) and the limits validity was judged under.
struct Header(Vec<u8>);

impl Header {
    fn new(limits: &Limits) -> Header {
        let mut w = Writer::default();
        w.bytes(MAGIC);
        w.str(env!("CARGO_PKG_VERSION"));
        w.u64(limits.max_fact_chars as u64);
        w.u32(limits.files.len() as u32);
        for f in &limits.files {
            w.str(f);
        }
        Header(w.0)
    }
}

/// The index file: header, directory status, build time, entries (each with the inode of its
/// file), then a checksum of all that.
struct Index {
    status: DirStatus,
    built: SystemTime,
    entries: Vec<(u64, Pending)>,
}

impl Index {
    fn encode(&self, header: &Header) -> Vec<u8> {
        let mut w = Writer(header.0.clone());
        for f in self.status.fields() {
            w.i128(f);
        }
        w.i128(nanos(self.built));
        w.u32(self.entries.len() as u32);
        for (ino, p) in &self.entries {
            w.u64(*ino);
            w.str(&p.name);
            w.opt(p.proposal.as_ref(), |w, p| {
                w.str(&p.id);
                w.opt(p.created, |w, t| w.i128(t.unix_nanos()));
                w.opt(p.agent.as_deref(), Writer::str);
                w.u8(u8::from(p.valid));
                w.u32(p.new_ids.len() as u32);
                for id in &p.new_ids {
                    w.str(id);
                }
                w.u32(p.texts.len() as u32);
                for t in &p.texts {
                    for s in [&t.file, &t.fact_id, &t.one_line, &t.normalized] {
                        w.str(s);
                    }
                    w.u32(t.words.hashes().len() as u32);
                    for h in t.words.hashes() {
                        w.u64(*h);
                    }
                }
            });
        }
        let sum = checksum(&w.0);
        w.u64(sum);
        w.0
    }

    /// `None` unless `bytes` is a whole index built with `header`.
    fn decode(bytes: &[u8], header: &Header) -> Option<Index> {
        let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
        if checksum(body) != u64::from_le_bytes(sum.try_into().ok()?) {
            return None;
        }
        let mut r = Reader(body.strip_prefix(header.0.as_slice())?);
        let status = DirStatus::from_fields([r.i128()?, r.i128()?, r.i128()?])?;
        let built = UNIX_EPOCH + Duration::from_nanos(u64::try_from(r.i128()?).ok()?);
        let count = r.u32()?;
        let mut entries = Vec::with_capacity(count.min(1 << 20) as usize);
        for _ in 0..count {
            let ino = r.u64()?;
            let name = r.str()?;
            let proposal = r.opt(|r| {
                Some(PendingProposal {
                    id: r.str()?,
                    created: r.opt(|r| Timestamp::from_unix_nanos(r.i128()?))?,
                    agent: r.opt(Reader::str)?,
                    valid: r.u8()? == 1,
                    new_ids: r.list(Reader::str)?,
                    texts: r.list(|r| {
                        Some(PendingText {
                            file: r.str()?,
                            fact_id: r.str()?,
                            one_line: r.str()?,
                            normalized: r.str()?,
                            words: Words::from_hashes(r.list(Reader::u64)?)?,
                        })
                    })?,
                })
            })?;
            entries.push((ino, Pending { name, proposal }));
        }
        r.0.is_empty().then_some(Index {
            status,
            built,
            entries,
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

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    fn i128(&mut self, v: i128) {
        self.bytes(&v.to_le_bytes());
    }
    fn str(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.bytes(s.as_bytes());
    }
    fn opt<T>(&mut self, v: Option<T>, f: impl FnOnce(&mut Writer, T)) {
        match v {
            Some(v) => {
                self.u8(1);
                f(self, v);
            }
            None => self.u8(0),
        }
    }
}

/// Reads what [`Writer`] wrote; `None` at the first thing out of place.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn i128(&mut self) -> Option<i128> {
        Some(i128::from_le_bytes(self.take(16)?.try_into().ok()?))
    }
    fn str(&mut self) -> Option<String> {
        let len = self.u32()? as usize;
        String::from_utf8(self.take(len)?.to_vec()).ok()
    }
    fn opt<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        match self.u8()? {
            0 => Some(None),
            1 => f(self).map(Some),
            _ => None,
        }
    }
    fn list<T>(&mut self, mut f: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let n = self.u32()?;
        // Never trust a count to size an allocation: each item takes at least one byte.
        if n as usize > self.0.len() {
            return None;
        }
        (0..n).map(|_| f(self)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::proposal::{Operation, Proposal, SCHEMA};

    #[test]
    fn an_index_decodes_to_what_was_encoded_and_only_under_its_limits() {
        let limits = Limits {
            max_fact_chars: 100,
            files: vec!["pitfalls.md".into()],
        };
        let p = Proposal {
            schema: SCHEMA,
            id: "20261122T100000Z-aaaaaaaa".into(),
            created_at: "2026-11-22T10:00:00.5Z".into(),
            agent: Some("claude".into()),
            author: None,
            reason: "r".into(),
            evidence: vec![],
            operations: vec![Operation::Add {
                file: "pitfalls.md".into(),
                fact_id: "f-aaaa".into(),
                text: "Never block the executor.".into(),
            }],
            base: Default::default(),
        };
        let mut queue = Queue::of([&p], &limits);
        queue.entries.push(Pending {
            name: "broken.json".into(),
            proposal: None,
        });
        let index = Index {
            status: DirStatus::from_fields([5, 6, 7]).unwrap(),
            built: UNIX_EPOCH + Duration::from_secs(9),
            entries: queue.entries.iter().map(|e| (42, e.clone())).collect(),
        };
        let header = Header::new(&limits);
        let bytes = index.encode(&header);
        let back = Index::decode(&bytes, &header).unwrap();
        assert_eq!(back.status, index.status);
        assert_eq!(back.built, index.built);
        assert_eq!(back.entries, index.entries);
        let other = Header::new(&Limits {
            max_fact_chars: 101,
            ..limits
        });
        assert!(Index::decode(&bytes, &other).is_none());
        for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
            assert!(Index::decode(&bytes[..cut], &header).is_none());
        }
    }
}

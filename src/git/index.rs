//! The index: locking it as git does, reading it, and comparing it with HEAD.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use gix::bstr::ByteSlice;

use crate::git::history::{blob_text, blobs_in};
use crate::git::{Error, Repo, Result};
use crate::model::base::paths;
use crate::model::provenance::factdiff::Files;
use crate::store::Kind;

pub(crate) fn lock_index(repo: &gix::Repository) -> Result<gix::lock::File> {
    gix::lock::File::acquire_to_update_resource(
        repo.index_path(),
        gix::lock::acquire::Fail::Immediately,
        None,
        0,
    )
    .map_err(|_| Error::Locked {
        path: index_lock_path(repo),
    })
}

pub(crate) fn index_lock_path(repo: &gix::Repository) -> PathBuf {
    let mut lock = repo.index_path().into_os_string();
    lock.push(".lock");
    PathBuf::from(lock)
}

/// The index as far as the ledger needs it. Entries are sorted by path and the ledger's
/// (`.ledger/…`) come early, so only the entries up to the ledger's last are decoded; the rest
/// stay the bytes they were and are written back as such. In a repository of 300,000 files that
/// spares decoding and encoding all but a few entries (docs/architecture.md, "Costs").
pub(crate) struct LedgerIndex {
    /// Every entry, or (with `rest`) those that sort before the end of the ledger's.
    head: gix::index::File,
    rest: Option<Rest>,
    /// The index file's modification time when it was read; `None` when there was none.
    read_at: Option<filetime::FileTime>,
}

/// The entries after the ledger's, left in the index file they were read from and copied from
/// it, a window at a time, when the index is written.
struct Rest {
    /// The index file as read, kept open. The index lock is held from reading to writing, and git
    /// writes an index only under it, as a new file renamed over this one, which it leaves as
    /// it was.
    file: std::fs::File,
    entries: std::ops::Range<u64>,
    count: u32,
    /// One of them has extended flags: the file stays at version 3.
    extended: bool,
    /// Where the entries modified in the second the index was read, or later, start: found
    /// while the entries are walked on reading, so that writing need not walk them again.
    racy: Vec<u64>,
    /// The window's size ([`WINDOW`]).
    window: usize,
}

/// The bytes of an index read through a window of this many: the whole of a large index read
/// at once cost an approval more in page faults on its fresh memory (4 MB in a repository of
/// 50,000 files) than in reading.
const WINDOW: usize = 256 * 1024;

/// Bytes of `source` up to `end`, read a window at a time, forward.
struct Window<R> {
    source: R,
    end: u64,
    /// The source offset of `buf[0]`.
    start: u64,
    buf: Vec<u8>,
    size: usize,
}

impl<R: Read + Seek> Window<R> {
    fn new(source: R, end: u64, size: usize) -> Window<R> {
        Window {
            source,
            end,
            start: 0,
            buf: Vec::new(),
            size,
        }
    }

    /// Makes the window hold the `n` bytes from `at` (those before `end`), reading them unless
    /// it does.
    fn ensure(&mut self, at: u64, n: usize) -> std::io::Result<()> {
        let held = self.start + self.buf.len() as u64;
        let wanted = at.saturating_add(n as u64).min(self.end);
        if at >= self.start && wanted <= held {
            return Ok(());
        }
        let len = self.end.saturating_sub(at).min(n.max(self.size) as u64);
        self.buf.resize(usize::try_from(len).unwrap_or(n), 0);
        self.source.seek(SeekFrom::Start(at))?;
        self.source.read_exact(&mut self.buf)?;
        self.start = at;
        Ok(())
    }

    /// Whether the window holds every byte up to `end`: there is nothing more to read.
    fn holds_end(&self) -> bool {
        self.start + self.buf.len() as u64 >= self.end
    }

    /// The window's bytes, and where `at` is among them.
    fn at(&self, at: u64) -> (&[u8], usize) {
        (
            &self.buf,
            usize::try_from(at - self.start).unwrap_or(usize::MAX),
        )
    }
}

/// Reads the index, not verifying its checksum, as git does not (only fsck verifies it).
pub(crate) fn read_index(repo: &gix::Repository) -> Result<LedgerIndex> {
    read_index_through(repo, WINDOW)
}

/// [`read_index`], through a window of `window` bytes.
fn read_index_through(repo: &gix::Repository, window: usize) -> Result<LedgerIndex> {
    let path = repo.index_path();
    // The time first: a change after it is then seen as one by the next run.
    let mtime =
        std::fs::metadata(&path).map(|m| filetime::FileTime::from_last_modification_time(&m));
    let (file, len, mtime) =
        match mtime.and_then(|mtime| Ok((crate::store::file::open_local(&path)?, mtime))) {
            Ok(((file, len), mtime)) => (file, len, mtime),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let empty = gix::index::State::new(repo.object_hash());
                return Ok(LedgerIndex {
                    head: gix::index::File::from_state(empty, path),
                    rest: None,
                    read_at: None,
                });
            }
            Err(e) => return Err(crate::store::Error::io(&path)(e).into()),
        };
    let hash_len = repo.object_hash().len_in_bytes();
    let split = len.checked_sub(hash_len as u64).map(|end| {
        let mut window = Window::new(&file, end, window);
        Split::of(&mut window, hash_len, mtime.unix_seconds())
    });
    let split = split
        .transpose()
        .map_err(crate::store::Error::io(&path))?
        .flatten();
    let Some(split) = split else {
        // Anything the split does not know (version 4, a split or sparse index, damage): gix
        // reads all of it (a split index merged with its shared one), and says what is wrong.
        return Ok(LedgerIndex {
            head: gix::index::File::at(&path, repo.object_hash(), true, Default::default())?,
            rest: None,
            read_at: Some(mtime),
        });
    };
    // The head alone, as a file of its own: header, its entries, and a hash gix does not check.
    let mut head = Vec::with_capacity(HEADER + split.head.len() + hash_len);
    head.extend_from_slice(b"DIRC");
    head.extend_from_slice(&split.version.to_be_bytes());
    head.extend_from_slice(&split.head_count.to_be_bytes());
    head.extend_from_slice(&split.head);
    head.resize(head.len() + hash_len, 0);
    let (state, _) =
        gix::index::State::from_bytes(&head, mtime, repo.object_hash(), Default::default())?;
    let rest = if split.rest_count > 0 {
        Some(Rest {
            entries: split.head_end..split.entries_end,
            count: split.rest_count,
            extended: split.rest_extended,
            racy: split.rest_racy,
            window,
            file,
        })
    } else {
        None
    };
    Ok(LedgerIndex {
        head: gix::index::File::from_state(state, path),
        rest,
        read_at: Some(mtime),
    })
}

impl LedgerIndex {
    /// The decoded entries: every path up to [`paths::DECISION_PATHS_END`], all of the ledger's
    /// and the rule files' among them.
    pub(crate) fn ledger(&self) -> &gix::index::File {
        &self.head
    }

    /// [`Self::ledger`], to change. A path added must sort before [`paths::DECISION_PATHS_END`],
    /// as the ledger's and the rule files' do.
    pub(crate) fn ledger_mut(&mut self) -> &mut gix::index::File {
        &mut self.head
    }

    /// Writes the index file with the changes to `out`: the header and decoded entries as gix
    /// writes them, the entries after the ledger's copied from the file read, and the checksum
    /// as git computes it: plain SHA-1 (mneme opens SHA-1 repositories only), or zeros under
    /// `index.skipHash`. The file read is closed before this returns, so that the lock can be
    /// renamed over it.
    pub(crate) fn write_to(mut self, skip_hash: bool, out: &mut impl Write) -> Result<()> {
        self.smudge_racy();
        // No extensions: a changed entry makes them stale, and a stale cache-tree would make the
        // user's next `git commit` revert the decision.
        let options = gix::index::write::Options {
            extensions: gix::index::write::Extensions::None,
            skip_hash,
        };
        let mut head = Vec::new();
        gix::index::State::write_to(&self.head, &mut head, options)?;
        if let Some(rest) = &self.rest {
            let be32 = |at: usize| {
                u32::from_be_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]])
            };
            let version: u32 = if rest.extended { 3 } else { be32(4) };
            let count = be32(8) + rest.count;
            head[4..8].copy_from_slice(&version.to_be_bytes());
            head[8..12].copy_from_slice(&count.to_be_bytes());
        }
        let mut sha1 = (!skip_hash).then(<sha1::Sha1 as sha1::Digest>::new);
        let mut write = || -> std::io::Result<()> {
            let mut put = |bytes: &[u8]| {
                if let Some(sha1) = &mut sha1 {
                    sha1::Digest::update(sha1, bytes);
                }
                out.write_all(bytes)
            };
            put(&head)?;
            if let Some(rest) = self.rest.take() {
                rest.copy(&mut put)?;
            }
            let sum: [u8; 20] = sha1
                .take()
                .map_or([0; 20], |s| sha1::Digest::finalize(s).into());
            out.write_all(&sum)
        };
        write().map_err(|e| crate::store::Error::io(self.head.path())(e).into())
    }

    /// Marks as changed, as git does when it writes an index, every entry whose file was
    /// modified in the second the index was read, or later: git trusts an entry whose times and
    /// size match its file when the entry is older than the index file, and the new index file
    /// is newer than the one read. Without this, a file rewritten at its old size in the second
    /// of its `git add` would look unchanged to git for good (its "racy" entries). Times are
    /// compared in whole seconds, as git does unless built to count nanoseconds. The size is
    /// set to 0, which makes git compare the file's content the next time it looks.
    fn smudge_racy(&mut self) {
        let Some(read_at) = self.read_at else {
            return;
        };
        let racy = |secs: u32| i64::from(secs) >= read_at.unix_seconds();
        for entry in self.head.entries_mut() {
            if racy(entry.stat.mtime.secs) {
                entry.stat.size = 0;
            }
        }
    }
}

impl Rest {
    /// Gives `put` the entries as the file holds them, a window at a time, with the size of
    /// each racy one zeroed (see [`LedgerIndex::smudge_racy`]).
    fn copy(self, put: &mut impl FnMut(&[u8]) -> std::io::Result<()>) -> std::io::Result<()> {
        let len = self.entries.end - self.entries.start;
        let mut buf = vec![0; usize::try_from(len).map_or(self.window, |len| len.min(self.window))];
        let mut file = &self.file;
        file.seek(SeekFrom::Start(self.entries.start))?;
        // The size fields to zero, in order; each may span two windows.
        let mut fields = self
            .racy
            .iter()
            .map(|&at| at + Entry::SIZE as u64)
            .peekable();
        let mut at = self.entries.start;
        while at < self.entries.end {
            let n = buf
                .len()
                .min(usize::try_from(self.entries.end - at).unwrap_or(buf.len()));
            let window = &mut buf[..n];
            // A file shorter than when read fails here rather than writing a short index.
            file.read_exact(window)?;
            let end = at + n as u64;
            while let Some(&field) = fields.peek() {
                if field >= end {
                    break;
                }
                for byte in field.max(at)..(field + 4).min(end) {
                    window[usize::try_from(byte - at).expect("in the window")] = 0;
                }
                if field + 4 > end {
                    break;
                }
                fields.next();
            }
            put(window)?;
            at = end;
        }
        Ok(())
    }
}

/// The index header's size: signature, version, entry count.
const HEADER: usize = 12;

/// Where an index of version 2 or 3 splits at the end of the ledger's entries.
#[derive(Debug, PartialEq, Eq)]
struct Split {
    version: u32,
    head_count: u32,
    /// The bytes of the entries before the split.
    head: Vec<u8>,
    /// Where the entries after the ledger's start.
    head_end: u64,
    rest_count: u32,
    rest_extended: bool,
    /// Where the entries after the ledger's whose file was modified at `racy_from` (seconds) or
    /// later start.
    rest_racy: Vec<u64>,
    entries_end: u64,
}

/// Room for any entry whose name is shorter than 4,095 bytes (longer ones grow the window).
const ENTRY_ROOM: usize = 8 * 1024;

impl Split {
    /// Walks the entries' sizes (no decoding), then the extensions' headers, through `file`
    /// (which ends before the checksum). `None` for what only a full read handles: another
    /// version, a split (`link`) or sparse (`sdir`) index, or bytes that do not add up.
    fn of<R: Read + Seek>(
        file: &mut Window<R>,
        hash_len: usize,
        racy_from: i64,
    ) -> std::io::Result<Option<Split>> {
        let be32 = |bytes: &[u8], at: usize| -> Option<u32> {
            Some(u32::from_be_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
        };
        file.ensure(0, HEADER)?;
        let (bytes, _) = file.at(0);
        let (Some(b"DIRC"), Some(version), Some(count)) =
            (bytes.get(..4), be32(bytes, 4), be32(bytes, 8))
        else {
            return Ok(None);
        };
        if version != 2 && version != 3 {
            return Ok(None);
        }
        // The first path after every one a decision writes (`.ledger/…`, the rule files).
        let bound = paths::DECISION_PATHS_END.as_bytes();
        let mut at = HEADER as u64;
        let mut split: Option<(u32, u64)> = None;
        let mut head = Vec::new();
        let mut rest_extended = false;
        let mut rest_racy = Vec::new();
        let room = ENTRY_ROOM.min(file.size);
        for i in 0..count {
            file.ensure(at, room)?;
            let (len, extended, past, mtime) = loop {
                let (bytes, rel) = file.at(at);
                let entry = Entry::at(bytes, rel, hash_len).and_then(|e| {
                    let mtime = be32(bytes, rel + Entry::MTIME)?;
                    Some((e.len, e.extended, e.name >= bound, mtime))
                });
                let held = bytes.len().saturating_sub(rel);
                match entry {
                    Some(entry) => break entry,
                    None if file.holds_end() => return Ok(None),
                    // A name longer than the window holds.
                    None => file.ensure(at, 2 * held + room)?,
                }
            };
            if extended && version < 3 {
                return Ok(None);
            }
            if split.is_none() && past {
                split = Some((i, at));
            }
            match split {
                None => {
                    let (bytes, rel) = file.at(at);
                    head.extend_from_slice(&bytes[rel..rel + len]);
                }
                Some(_) => {
                    rest_extended |= extended;
                    if i64::from(mtime) >= racy_from {
                        rest_racy.push(at);
                    }
                }
            }
            at += len as u64;
        }
        let entries_end = at;
        while at < file.end {
            file.ensure(at, 8)?;
            let (bytes, rel) = file.at(at);
            let Some(signature) = bytes.get(rel..rel + 4) else {
                return Ok(None);
            };
            if signature == b"link" || signature == b"sdir" {
                return Ok(None);
            }
            let next = be32(bytes, rel + 4).and_then(|size| at.checked_add(8 + u64::from(size)));
            let Some(next) = next else {
                return Ok(None);
            };
            at = next;
        }
        if at != file.end {
            return Ok(None);
        }
        let (head_count, head_end) = split.unwrap_or((count, entries_end));
        Ok(Some(Split {
            version,
            head_count,
            head,
            head_end,
            rest_count: count - head_count,
            rest_extended,
            rest_racy,
            entries_end,
        }))
    }
}

/// One entry of an index of version 2 or 3, as its bytes lay it out.
struct Entry<'a> {
    name: &'a [u8],
    extended: bool,
    /// Its bytes, padding included: where the next entry starts.
    len: usize,
}

impl Entry<'_> {
    /// The offset of the modification time's seconds, and of the size, in an entry.
    const MTIME: usize = 8;
    const SIZE: usize = 36;

    /// The entry at `at` of `entries` (which end where the entries do); `None` when its bytes do
    /// not add up.
    fn at(entries: &[u8], at: usize, hash_len: usize) -> Option<Entry<'_>> {
        // ctime, mtime, dev, ino, mode, uid, gid, size: 40 bytes; the object id; the flags.
        let flags_at = at + 40 + hash_len;
        let flags = u16::from_be_bytes(entries.get(flags_at..flags_at + 2)?.try_into().ok()?);
        let extended = flags & 0x4000 != 0;
        let name_at = flags_at + 2 + if extended { 2 } else { 0 };
        let name = match usize::from(flags & 0xfff) {
            0xfff => {
                let tail = entries.get(name_at..)?;
                &tail[..tail.iter().position(|&b| b == 0)?]
            }
            len => entries.get(name_at..name_at + len)?,
        };
        // The name, then one to eight NULs to a multiple of eight.
        let len = (name_at - at + name.len() + 8) & !7;
        (at + len <= entries.len()).then_some(Entry {
            name,
            extended,
            len,
        })
    }
}

/// The whole index, every entry; `None` before the first `git add`.
pub(crate) fn whole_index(git: &gix::Repository) -> Result<Option<gix::index::File>> {
    let path = git.index_path();
    if !path.exists() {
        return Ok(None);
    }
    let index = gix::index::File::at(&path, git.object_hash(), true, Default::default())?;
    Ok(Some(index))
}

/// Every path the index tracks, `/`-separated: what a fact's scope globs are matched against.
pub fn tracked_paths(repo: &Repo) -> Result<Vec<String>> {
    let Some(index) = whole_index(repo.gix())? else {
        return Ok(Vec::new());
    };
    Ok(index
        .entries()
        .iter()
        .map(|e| e.path(&index).to_str_lossy().into_owned())
        .collect())
}

/// `file name → contents` of the files directly in `dir/` whose index entry differs from HEAD:
/// HEAD's version (`before`) and the index's (`after`), i.e. what committing the index would
/// change there.
pub fn staged_under(repo: &Repo, dir: &str) -> Result<(Files, Files)> {
    let read = read_index(repo.gix())?;
    let index = read.ledger();
    let head_tree = repo.gix().head_tree_id_or_empty()?.detach();
    let in_head = blobs_in(repo.gix(), head_tree, dir)?;
    let prefix = format!("{dir}/");
    let mut in_index = std::collections::BTreeMap::new();
    for entry in index.entries() {
        let path = entry.path(index).to_str_lossy();
        if let Some(name) = path.strip_prefix(&prefix).filter(|n| !n.contains('/')) {
            in_index.insert(name.to_owned(), entry.id);
        }
    }
    let kind = Kind::of_ledger_dir(dir);
    let (mut before, mut after) = (Files::new(), Files::new());
    for name in in_head.keys().chain(in_index.keys()) {
        let (head, staged) = (in_head.get(name), in_index.get(name));
        if head == staged || before.contains_key(name) || after.contains_key(name) {
            continue;
        }
        if let Some(id) = head {
            before.insert(name.clone(), blob_text(repo.gix(), *id, kind)?);
        }
        if let Some(id) = staged {
            after.insert(name.clone(), blob_text(repo.gix(), *id, kind)?);
        }
    }
    Ok((before, after))
}

/// `file name → contents` of every file directly in `dir/` as the index has it: what committing
/// the index would make the directory.
pub fn staged_dir(repo: &Repo, dir: &str) -> Result<Files> {
    let read = read_index(repo.gix())?;
    let index = read.ledger();
    let prefix = format!("{dir}/");
    let mut files = Files::new();
    for entry in index.entries() {
        let path = entry.path(index).to_str_lossy();
        if let Some(name) = path.strip_prefix(&prefix).filter(|n| !n.contains('/')) {
            files.insert(
                name.to_owned(),
                blob_text(repo.gix(), entry.id, Kind::of_ledger_dir(dir))?,
            );
        }
    }
    Ok(files)
}

/// Files directly in the work-tree directory `dir` that HEAD does not hold as they are: new or
/// changed since the last commit (`/`-separated paths, sorted).
pub fn uncommitted_in(repo: &Repo, dir: &str) -> Result<Vec<String>> {
    let git = repo.gix();
    let head_tree = git.head_tree_id_or_empty()?.detach();
    let in_head = blobs_in(git, head_tree, dir)?;
    let index = read_index(git)?;
    let mut eol = crate::git::eol::Eol::new(git, index.ledger())?;
    let mut out = Vec::new();
    for (name, path) in crate::store::file::list_dir(&repo.root().join(dir), "")? {
        let path_in_repo = format!("{dir}/{name}");
        let bytes = crate::store::file::read_file(repo.root(), &path, Kind::of_ledger_dir(dir))?
            .unwrap_or_default();
        let staged = eol.staged(&path_in_repo, &bytes)?;
        let id = gix::objs::compute_hash(git.object_hash(), gix::objs::Kind::Blob, &staged)?;
        if in_head.get(&name) != Some(&id) {
            out.push(path_in_repo);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::path::Path;
    use std::process::Command;

    use super::*;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .current_dir(dir)
            .args(args)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).expect("utf-8")
    }

    /// The index read whole by gix, as before the split.
    fn whole(repo: &gix::Repository) -> LedgerIndex {
        let bytes = std::fs::read(repo.index_path()).expect("index");
        let (state, _) = gix::index::State::from_bytes(
            &bytes,
            filetime::FileTime::zero(),
            repo.object_hash(),
            Default::default(),
        )
        .expect("decodes");
        let meta = std::fs::metadata(repo.index_path()).expect("index");
        LedgerIndex {
            head: gix::index::File::from_state(state, repo.index_path()),
            rest: None,
            read_at: Some(filetime::FileTime::from_last_modification_time(&meta)),
        }
    }

    fn bytes_of(index: LedgerIndex) -> Vec<u8> {
        let mut out = Vec::new();
        index.write_to(false, &mut out).expect("writes");
        out
    }

    /// The split of the index `bytes` (a SHA-1 one), walked through a window of `window` bytes.
    fn split_of(bytes: &[u8], window: usize) -> Option<Split> {
        let end = bytes.len().checked_sub(20)? as u64;
        Split::of(
            &mut Window::new(std::io::Cursor::new(bytes), end, window),
            20,
            i64::MAX,
        )
        .expect("reads")
    }

    /// Windows of every size from a few bytes, less than an entry, up; those of 37 to 39 bytes
    /// end inside the size field of the first entry after the ledger's.
    const WINDOWS: [usize; 7] = [WINDOW, 37, 38, 39, 61, 100, 4096];

    /// What a decision does to the index: entries updated (an intent-to-add flag cleared), one
    /// added, one removed.
    fn decide(index: &mut LedgerIndex, blob: gix::ObjectId) {
        let file = index.ledger_mut();
        let at = file
            .entry_index_by_path(".ledger/facts/a.md".into())
            .expect("tracked");
        file.entries_mut()[at].id = blob;
        if let Ok(at) = file.entry_index_by_path(".ledger/facts/ita.md".into()) {
            let entry = &mut file.entries_mut()[at];
            entry.id = blob;
            entry.flags.remove(gix::index::entry::Flags::INTENT_TO_ADD);
        }
        if file
            .entry_index_by_path(".ledger/facts/new.md".into())
            .is_err()
        {
            file.dangerously_push_entry(
                Default::default(),
                blob,
                gix::index::entry::Flags::empty(),
                gix::index::entry::Mode::FILE,
                ".ledger/facts/new.md".into(),
            );
            file.sort_entries();
        }
        file.remove_entries(|_, path, _| path == ".ledger/proposals/p.json");
    }

    /// Reads the repository's index both ways (split, through windows of several sizes, and
    /// whole), makes the same change, and compares the bytes.
    fn same_as_whole(dir: &Path) -> Vec<u8> {
        let repo = gix::open(dir).expect("repo");
        let blob = repo.write_blob(b"changed\n").expect("blob").detach();
        let mut full = whole(&repo);
        decide(&mut full, blob);
        let bytes = bytes_of(full);
        for window in WINDOWS {
            let mut split = read_index_through(&repo, window).expect("read");
            decide(&mut split, blob);
            assert_eq!(bytes_of(split), bytes, "through a window of {window}");
        }
        std::fs::write(repo.index_path(), &bytes).expect("write");
        bytes
    }

    #[test]
    fn a_split_index_writes_the_bytes_a_whole_one_does() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        git(dir, &["init", "-q"]);
        for (path, text) in [
            (".gitattributes", "*.md text\n"),
            (".github/ci.yml", "on: push\n"),
            (".ledger-notes", "before the ledger\n"),
            (".ledger/facts/a.md", "a\n"),
            (".ledger/facts/b.md", "b\n"),
            (".ledger/proposals/p.json", "{}\n"),
            (".ledger0", "after the ledger\n"),
            (
                ".windsurf/rules/mneme-facts.md",
                "a rule file a decision writes\n",
            ),
            (".windsurfz", "after every path a decision writes\n"),
            ("src/main.rs", "fn main() {}\n"),
            ("z.txt", "z\n"),
        ] {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
            std::fs::write(file, text).expect("write");
        }
        git(dir, &["add", "-A"]);
        // With the cache-tree a commit writes.
        git(
            dir,
            &[
                "-c",
                "user.name=T",
                "-c",
                "user.email=t@e",
                "commit",
                "-qm",
                "files",
            ],
        );

        let repo = gix::open(dir).expect("repo");
        let bytes = std::fs::read(repo.index_path()).expect("index");
        let split = split_of(&bytes, WINDOW).expect("version 2 splits");
        assert_eq!((split.head_count, split.rest_count), (8, 3));
        for window in WINDOWS {
            assert_eq!(split_of(&bytes, window).as_ref(), Some(&split), "{window}");
        }
        let v2 = same_as_whole(dir);
        assert_eq!(&v2[4..8], &2u32.to_be_bytes());
        assert!(git(dir, &["ls-files"]).contains(".ledger/facts/new.md"));

        // Extended flags after the ledger only: the file stays at version 3.
        git(dir, &["update-index", "--skip-worktree", "z.txt"]);
        let v3 = same_as_whole(dir);
        assert_eq!(&v3[4..8], &3u32.to_be_bytes());
        assert!(git(dir, &["ls-files", "-v", "z.txt"]).starts_with("S "));
        // And at the ledger, where a decision clears intent-to-add.
        std::fs::write(dir.join(".ledger/facts/ita.md"), "ita\n").expect("write");
        git(dir, &["add", "-N", ".ledger/facts/ita.md"]);
        same_as_whole(dir);

        // A split index is read whole, with the entries of its shared index.
        git(dir, &["update-index", "--split-index"]);
        let index = read_index(&repo).expect("read whole");
        assert!(index.rest.is_none());
        assert_eq!(index.ledger().entries().len(), 12);
        git(dir, &["update-index", "--no-split-index"]);

        // Version 4 is read whole.
        git(dir, &["update-index", "--index-version", "4"]);
        let bytes = std::fs::read(repo.index_path()).expect("index");
        assert_eq!(split_of(&bytes, WINDOW), None);
        let index = read_index(&repo).expect("read whole");
        assert_eq!(index.ledger().entries().len(), 12);
        assert!(index.rest.is_none());
    }

    #[test]
    fn entries_after_the_ledger_are_kept_even_where_gix_cannot_read_them() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path();
        git(dir, &["init", "-q"]);
        std::fs::create_dir_all(dir.join(".ledger/facts")).expect("mkdir");
        std::fs::write(dir.join(".ledger/facts/a.md"), "a\n").expect("write");
        git(dir, &["add", "-A"]);
        // A path longer than the flags can count (0xfff): git ends it with a NUL alone.
        let blob = git(dir, &["hash-object", "-w", ".ledger/facts/a.md"]);
        let long = format!("{}/x.rs", vec!["d".repeat(200); 25].join("/"));
        let info = format!("100644,{},{long}", blob.trim());
        git(dir, &["update-index", "--add", "--cacheinfo", &info]);
        let repo = gix::open(dir).expect("repo");
        let new = repo.write_blob(b"changed\n").expect("blob").detach();
        let mut written = Vec::new();
        for window in WINDOWS {
            let mut index = read_index_through(&repo, window).expect("read");
            decide_without_proposal(&mut index, new);
            written.push(bytes_of(index));
        }
        assert!(written.windows(2).all(|w| w[0] == w[1]));
        std::fs::write(repo.index_path(), &written[0]).expect("write");
        let listed = git(dir, &["ls-files", "-s"]);
        assert!(
            listed.contains(&format!("{} 0\t{long}", blob.trim())),
            "{listed}"
        );
        assert!(
            listed.contains(&format!("{new} 0\t.ledger/facts/a.md")),
            "{listed}"
        );
    }

    fn decide_without_proposal(index: &mut LedgerIndex, blob: gix::ObjectId) {
        let file = index.ledger_mut();
        let at = file
            .entry_index_by_path(".ledger/facts/a.md".into())
            .expect("tracked");
        file.entries_mut()[at].id = blob;
    }

    #[test]
    fn bytes_that_do_not_add_up_are_left_to_gix() {
        let mut header = b"DIRC".to_vec();
        header.extend_from_slice(&2u32.to_be_bytes());
        header.extend_from_slice(&1u32.to_be_bytes());
        // One entry announced, none there.
        header.extend_from_slice(&[0; 20]);
        assert_eq!(split_of(&header, WINDOW), None);
        // An extension running past the end.
        let mut empty = b"DIRC".to_vec();
        empty.extend_from_slice(&2u32.to_be_bytes());
        empty.extend_from_slice(&0u32.to_be_bytes());
        empty.extend_from_slice(b"TREE");
        empty.extend_from_slice(&100u32.to_be_bytes());
        empty.extend_from_slice(&[0; 20]);
        assert_eq!(split_of(&empty, WINDOW), None);
    }
}

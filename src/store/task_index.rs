//! The task index, `<git dir>/mneme-tasks.idx`: what `context` shows of `.ledger/tasks/`, kept
//! between runs, so the hook that runs at every session start does not read thousands of task
//! files.
//!
//! As git's index does for a work tree, it keeps a hash of each task file's [`FileKey`] (times,
//! size, inode) beside what was read from it. A run takes the key of every file the index names (one
//! system call each, spread over the cores, nothing read) and lists the directory only when the
//! directory's own status says a file was added, removed or renamed. While every key matches,
//! the summary kept in the index is the answer. Otherwise only the files whose keys changed are
//! read, the summary is computed again from what the index keeps of the others, and the index is
//! replaced. A file written so shortly before the index was built that a later write could have
//! kept its key is never trusted (git's "racy" entries). Damage, another version of mneme, or a
//! file that is not a whole index make the run read every task file and write a new index.

use std::borrow::Cow;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::model::base::codec::{seal, unsealed, Reader, Writer};
use crate::model::base::paths;
use crate::model::tasks::task::{is_task_id, Task};
use crate::model::views::TaskSummary;
use crate::store::file::{self, FileKey};
use crate::store::queue::{nanos, DirScan, DirStatus};
use crate::store::tasks::{decode, named, Loaded};
use crate::store::Kind;
use crate::store::{Error, Result, Store};

const MAGIC: &[u8; 12] = b"mneme-tasks\n";
/// Raised when the layout changes between releases of one version.
const REVISION: u32 = 3;
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The bytes before the stamps: magic, revision, version, the directory's status, when the
/// index was built, and the length of the stamps.
const PREFIX_LEN: usize = MAGIC.len() + 4 + 4 + VERSION.len() + 3 * 16 + 16 + 4;

/// What `context` shows of the tasks, and the task files that do not parse (with why).
#[derive(Debug, Default)]
pub struct TaskBoard {
    pub summary: TaskSummary,
    pub broken: Vec<(PathBuf, String)>,
}

/// The first part of an index, which is all a run reads while nothing changed: the directory's
/// status, the summary, and each file's name and stamp (the hash of its key; 0, which no hash
/// is, for a file written so shortly before the index was built that it is not to be trusted),
/// with why where it could not be read or parsed. Borrowed from the index's bytes.
struct Stamps<'a> {
    status: DirStatus,
    /// When the run that built the index started, in nanoseconds since the epoch.
    built: i128,
    summary: &'a [u8],
    /// Sorted by name.
    entries: Vec<Stamp<'a>>,
}

struct Stamp<'a> {
    name: &'a str,
    stamp: u64,
    broken: Option<&'a str>,
}

impl Store {
    /// The tasks as `context` shows them: from the task index while every task file is as it
    /// was indexed, else from the files that changed, refreshing the index.
    pub fn task_board(&self) -> Result<TaskBoard> {
        Ok(self.through_index(None)?.0)
    }

    /// Every task that parses, and the task files that do not (with why): from the task index
    /// where it still describes the files, else from the files that changed, refreshing the
    /// index. In the order of the files' names.
    pub fn load_tasks(&self) -> Result<Loaded> {
        self.load_tasks_where(&|_| true)
    }

    /// As [`Store::load_tasks`], only the tasks whose head ([`Task::read_head`]) `keep` keeps;
    /// the others are not decoded further.
    pub fn load_tasks_where(&self, keep: &Keep<'_>) -> Result<Loaded> {
        let (board, tasks) = self.through_index(Some(keep))?;
        Ok(Loaded {
            tasks,
            broken: board.broken,
        })
    }

    /// The board, and the tasks `keep` keeps when there is a `keep`.
    fn through_index(&self, keep: Option<&Keep<'_>>) -> Result<(TaskBoard, Vec<Task>)> {
        let all = keep.is_some();
        self.check_ledger()?;
        let dir = self.tasks_dir();
        self.check_inside(&dir)?;
        let Some(scan) = DirScan::of(&dir) else {
            return Ok((TaskBoard::default(), Vec::new()));
        };
        let path = self.git_dir.join(paths::TASK_INDEX);
        // `context` reads the first part alone; the rest holds the tasks.
        let whole = all.then(|| std::fs::read(&path).ok()).flatten();
        let alone = whole.is_none().then(|| read_stamps(&path)).flatten();
        let first = whole.as_deref().map_or(alone.as_deref(), first_part);
        let index = first.and_then(Stamps::decode);
        // Unchanged directory status: no file was added, removed or renamed since the index.
        let listed = match &index {
            Some(index) if !scan.status.changed_since(index.status, index.built) => None,
            _ => Some(file::list_dir_inodes(&dir, ".json")?),
        };
        let broken = |entries: &mut dyn Iterator<Item = (&str, &str)>| {
            entries
                .map(|(name, why)| (dir.join(name), why.to_owned()))
                .collect::<Vec<_>>()
        };
        // Sorted by name, as the index keeps them, with their keys where there is an index.
        let (names, keys): (Vec<&str>, _) = match (&listed, &index) {
            (Some(listed), _) => {
                let mut names: Vec<&str> = listed.iter().map(|(n, _)| n.as_str()).collect();
                names.sort_unstable();
                let keys = match index {
                    Some(_) => file::keys_of(&dir, &names, |n| n).map_err(Error::io(&dir))?,
                    None => Vec::new(),
                };
                (names, keys)
            }
            (None, Some(index)) => {
                let keys =
                    file::keys_of(&dir, &index.entries, |e| e.name).map_err(Error::io(&dir))?;
                if index.entries.iter().zip(&keys).all(|(e, k)| e.trusts(*k)) {
                    let kept = if all {
                        whole
                            .as_deref()
                            .zip(first)
                            .and_then(|(w, f)| records(w, f, index))
                            .and_then(|records| whole_tasks(&records, keep?))
                            .map(|tasks| (TaskSummary::default(), tasks))
                    } else {
                        TaskSummary::read(index.summary).map(|summary| (summary, Vec::new()))
                    };
                    if let Some((summary, tasks)) = kept {
                        let broken = broken(
                            &mut index
                                .entries
                                .iter()
                                .filter_map(|e| Some((e.name, e.broken?))),
                        );
                        return Ok((TaskBoard { summary, broken }, tasks));
                    }
                }
                (index.entries.iter().map(|e| e.name).collect(), keys)
            }
            (None, None) => unreachable!("without an index the directory is listed"),
        };
        // The whole index, for the records of the files it still describes.
        let later = (whole.is_none() && index.is_some())
            .then(|| std::fs::read(&path).ok())
            .flatten();
        let records = whole
            .as_deref()
            .or(later.as_deref())
            .zip(first)
            .and_then(|(w, f)| records(w, f, index.as_ref()?));
        let kept = index.as_ref().zip(records.as_ref());
        let rebuilt = Rebuild::new(&dir, kept, &names, &keys)?;
        let heads: Vec<Task> = rebuilt
            .records()
            .filter_map(|(head, _)| Task::read_head(head))
            .collect();
        let summary = TaskSummary::of(&heads);
        let bytes = encode(&scan, &summary, &rebuilt.entries);
        // A cache that cannot be written costs the next run time, nothing else.
        let _ = file::replace_cache(&path, &bytes);
        let tasks = match keep {
            Some(keep) => rebuilt
                .records()
                .filter_map(|(head, rest)| wanted(head, rest, keep)?)
                .collect(),
            None => Vec::new(),
        };
        let broken = broken(
            &mut rebuilt
                .entries
                .iter()
                .filter_map(|e| Some((e.name, e.content.as_ref().err()?.as_ref()))),
        );
        Ok((TaskBoard { summary, broken }, tasks))
    }
}

/// Which tasks a verb wants, by their heads.
pub type Keep<'a> = dyn Fn(&Task) -> bool + Sync + 'a;

/// The task of `head` and `rest` if `keep` keeps it: `None` if they are not a whole task.
fn wanted(head: &[u8], rest: &[u8], keep: &Keep<'_>) -> Option<Option<Task>> {
    let task = Task::read_head(head)?;
    if !keep(&task) {
        return Some(None);
    }
    task.read_rest(rest).map(Some)
}

/// The tasks of `records` (as [`records`] gives them; empty for a broken file) that `keep`
/// keeps, decoded on all cores; `None` if one is not a whole task.
fn whole_tasks(records: &[&[u8]], keep: &Keep<'_>) -> Option<Vec<Task>> {
    // Collected once per part, then moved once: each copy of many tasks costs page faults.
    let parts = file::in_parts(records, |part| {
        let mut tasks = Vec::with_capacity(part.len());
        for record in part.iter().filter(|r| !r.is_empty()) {
            let (head, rest) = split(record)?;
            tasks.extend(wanted(head, rest, keep)?);
        }
        Some(tasks)
    });
    let mut tasks = Vec::with_capacity(records.len());
    for part in parts {
        tasks.append(&mut part?);
    }
    Some(tasks)
}

/// What the index keeps of a task: its head (what `context` shows and readiness depends on)
/// and the rest, each after its length.
fn record(task: &Task) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut w = Writer(&mut bytes);
    w.section(|w| task.write_head(w));
    w.section(|w| task.write_rest(w));
    bytes
}

/// The head and the rest of a [`record`].
fn split(record: &[u8]) -> Option<(&[u8], &[u8])> {
    let mut r = Reader::new(record);
    let head = r.field()?;
    let rest = r.field()?;
    r.is_empty().then_some((head, rest))
}

/// A task file as a new index keeps it: borrowed from the old index where it still describes
/// the file.
struct Entry<'a> {
    name: &'a str,
    key: FileKey,
    /// Its [`record`], or why the file could not be read or parsed.
    content: std::result::Result<Cow<'a, [u8]>, Cow<'a, str>>,
}

/// The entries of a new index: what the old one kept of the files whose keys did not change,
/// and the files that did, read again.
struct Rebuild<'a> {
    /// Sorted by name.
    entries: Vec<Entry<'a>>,
}

impl<'a> Rebuild<'a> {
    /// From the files `names` (sorted) with their `keys` (none where the old index is not to be
    /// used), and what the old index kept (its stamps and each entry's record).
    fn new(
        dir: &Path,
        kept: Option<(&Stamps<'a>, &Vec<&'a [u8]>)>,
        names: &[&'a str],
        keys: &[Option<FileKey>],
    ) -> Result<Rebuild<'a>> {
        // Both sorted by name: one pass over each.
        let mut known = kept
            .map(|(stamps, records)| stamps.entries.iter().zip(records.iter().copied()))
            .into_iter()
            .flatten()
            .peekable();
        let mut slots: Vec<Option<Entry>> = Vec::with_capacity(names.len());
        let mut unread = Vec::new();
        for (i, &name) in names.iter().enumerate() {
            while known.next_if(|(e, _)| e.name < name).is_some() {}
            let old = known.next_if(|(e, _)| e.name == name);
            let key = keys.get(i).copied().flatten();
            match (old, key) {
                (Some((e, record)), Some(key)) if e.trusts(Some(key)) => {
                    let content = match e.broken {
                        Some(why) => Err(Cow::Borrowed(why)),
                        None => Ok(Cow::Borrowed(record)),
                    };
                    slots.push(Some(Entry { name, key, content }));
                }
                _ => {
                    unread.push((i, key));
                    slots.push(None);
                }
            }
        }
        let files: Vec<&str> = unread.iter().map(|&(i, _)| names[i]).collect();
        let read = file::read_all_keyed(dir, &files, Kind::Task.limit()).map_err(Error::io(dir))?;
        for ((i, stat), result) in unread.into_iter().zip(read) {
            let name = names[i];
            let stem = name.strip_suffix(".json").unwrap_or(name);
            let (key, content) = match result {
                Ok((key, bytes)) => {
                    let task = decode(&bytes).and_then(|task| named(task, stem));
                    (
                        key,
                        task.map(|t| Cow::Owned(record(&t))).map_err(Cow::Owned),
                    )
                }
                // Removed since the directory was listed.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                // Kept with the key it has (a permission change moves it), or with none, so it
                // is read again next time.
                Err(e) => (stat.unwrap_or(UNKNOWN), Err(Cow::Owned(e.to_string()))),
            };
            slots[i] = Some(Entry { name, key, content });
        }
        Ok(Rebuild {
            entries: slots.into_iter().flatten().collect(),
        })
    }

    /// The head and the rest of each task that was read.
    fn records(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.entries
            .iter()
            .filter_map(|e| split(e.content.as_ref().ok()?))
    }
}

/// The key of a file whose key could not be taken: stamped as never to be trusted.
const UNKNOWN: FileKey = FileKey {
    modified: i64::MAX,
    changed: i64::MAX,
    size: 0,
    inode: 0,
};

impl Stamp<'_> {
    /// Whether the entry still describes its file, whose key is now `key`.
    fn trusts(&self, key: Option<FileKey>) -> bool {
        key.is_some_and(|k| k.matches(self.stamp))
    }
}

impl<'a> Stamps<'a> {
    /// `None` unless `bytes` are the first part of an index of this revision and version of
    /// mneme, as [`read_stamps`] gives it, with task file names only.
    fn decode(bytes: &'a [u8]) -> Option<Stamps<'a>> {
        let body = unsealed(bytes)?;
        let mut r = Reader::new(body.strip_prefix(MAGIC.as_slice())?);
        if r.u32()? != REVISION || r.field()? != VERSION.as_bytes() {
            return None;
        }
        let status = DirStatus::from_fields([r.i128()?, r.i128()?, r.i128()?])?;
        let built = r.i128()?;
        let _len = r.u32()?;
        let summary = r.field()?;
        let count = r.u32()? as usize;
        let mut entries: Vec<Stamp> = Vec::with_capacity(count.min(body.len() / 16));
        for _ in 0..count {
            let name = r.str()?;
            let sorted = entries.last().is_none_or(|p| p.name < name);
            if !sorted || !name.strip_suffix(".json").is_some_and(is_task_id) {
                return None;
            }
            let stamp = r.u64()?;
            let broken = r.opt(Reader::str)?;
            entries.push(Stamp {
                name,
                stamp,
                broken,
            });
        }
        r.is_empty().then_some(Stamps {
            status,
            built,
            summary,
            entries,
        })
    }
}

/// The record of each entry of `stamps` (empty for a broken one) from the whole index `bytes`;
/// `None` unless the index is whole, begins with `first` (the first part `stamps` were read
/// from: another run may have replaced the index since) and has one for each.
fn records<'a>(bytes: &'a [u8], first: &[u8], stamps: &Stamps) -> Option<Vec<&'a [u8]>> {
    let rest = unsealed(bytes)?.strip_prefix(first)?;
    let mut r = Reader::new(rest);
    let records = (0..stamps.entries.len())
        .map(|_| r.field())
        .collect::<Option<Vec<_>>>()?;
    r.is_empty().then_some(records)
}

/// The first part (through the stamps' checksum) of the whole index `bytes`.
fn first_part(bytes: &[u8]) -> Option<&[u8]> {
    let len = u32::from_le_bytes(bytes.get(PREFIX_LEN - 4..PREFIX_LEN)?.try_into().ok()?);
    bytes.get(..PREFIX_LEN.checked_add(len as usize)?.checked_add(8)?)
}

/// The first part of the index at `path` (through the stamps' checksum), read alone.
fn read_stamps(path: &Path) -> Option<Vec<u8>> {
    let mut file = std::fs::File::open(path).ok()?;
    let mut bytes = vec![0; PREFIX_LEN];
    file.read_exact(&mut bytes).ok()?;
    let len = u32::from_le_bytes(bytes[PREFIX_LEN - 4..].try_into().ok()?) as usize;
    bytes.resize(PREFIX_LEN + len + 8, 0);
    file.read_exact(&mut bytes[PREFIX_LEN..]).ok()?;
    Some(bytes)
}

/// The index of `entries` (sorted by name) and their `summary`, for the directory as `scan`
/// found it before any of them was read: the prefix, the stamps, their checksum, the records,
/// and a checksum of all of it.
fn encode(scan: &DirScan, summary: &TaskSummary, entries: &[Entry]) -> Vec<u8> {
    let started = nanos(scan.started);
    let mut stamps = Vec::new();
    let mut w = Writer(&mut stamps);
    let mut kept = Vec::new();
    summary.write(&mut Writer(&mut kept));
    w.field(&kept);
    w.u32(entries.len());
    for e in entries {
        w.str(e.name);
        w.u64(e.key.stamp(started));
        w.opt(e.content.as_ref().err(), |w, why| w.str(why));
    }
    let mut bytes = MAGIC.to_vec();
    let mut w = Writer(&mut bytes);
    w.u32(REVISION as usize);
    w.str(VERSION);
    for f in scan.status.fields() {
        w.i128(f);
    }
    w.i128(started);
    w.field(&stamps);
    seal(&mut bytes);
    w = Writer(&mut bytes);
    for e in entries {
        w.field(e.content.as_deref().unwrap_or_default());
    }
    seal(&mut bytes);
    bytes
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, UNIX_EPOCH};

    use super::*;
    use crate::model::tasks::task::{Kind, Status};

    fn task(id: &str, status: Status) -> Task {
        Task {
            id: id.into(),
            title: "Réécrire l'index 索引 🗂".into(),
            description: "left out of the index".into(),
            kind: Kind::Bug,
            priority: 1,
            status,
            assignee: Some("claude".into()),
            labels: vec![],
            deps: vec![],
            notes: vec![],
            facts: vec![],
            created_at: "2026-11-22T10:00:00.000000Z".into(),
            updated_at: String::new(),
            closed_at: None,
            close_reason: None,
        }
    }

    fn entry<'a>(
        name: &'a str,
        modified: i64,
        content: std::result::Result<&Task, &'a str>,
    ) -> Entry<'a> {
        Entry {
            name,
            key: FileKey {
                modified,
                changed: modified,
                size: 100,
                inode: 7,
            },
            content: content
                .map(|t| Cow::Owned(record(t)))
                .map_err(Cow::Borrowed),
        }
    }

    #[test]
    fn an_index_reads_back_and_distrusts_files_written_just_before_it() {
        let started = UNIX_EPOCH + Duration::from_secs(1_000_000);
        let scan = DirScan {
            started,
            status: DirStatus::from_fields([5, 6, 7]).unwrap(),
        };
        let (a, b) = (
            task("t-aaaa", Status::InProgress),
            task("t-bbbb", Status::Open),
        );
        let old = 999_990 * 1_000_000_000 + 5;
        // 50 ms before the run started: within a clock tick's reach of a later write.
        let recent = 999_999 * 1_000_000_000 + 950_000_000;
        let entries = [
            entry("t-aaaa.json", old, Ok(&a)),
            entry("t-bbbb.json", recent, Ok(&b)),
            entry("t-cccc.json", old, Err("not valid UTF-8")),
        ];
        let summary = TaskSummary::of(&[a.clone(), b.clone()]);
        let bytes = encode(&scan, &summary, &entries);

        let first = &bytes[..PREFIX_LEN + stamps_len(&bytes) + 8];
        let stamps = Stamps::decode(first).expect("the first part reads back");
        assert_eq!(stamps.status, scan.status);
        assert_eq!(stamps.built, nanos(started));
        assert_eq!(TaskSummary::read(stamps.summary), Some(summary));
        let names: Vec<_> = stamps.entries.iter().map(|e| e.name).collect();
        assert_eq!(names, ["t-aaaa.json", "t-bbbb.json", "t-cccc.json"]);
        let [ea, eb, ec] = &stamps.entries[..] else {
            panic!("three entries")
        };
        assert!(ea.trusts(Some(entries[0].key)));
        assert!(!ea.trusts(None), "a file that is gone");
        let touched = FileKey {
            changed: old + 1,
            ..entries[0].key
        };
        assert!(!ea.trusts(Some(touched)), "only the change time moved");
        assert!(!eb.trusts(Some(entries[1].key)), "written 50 ms before");
        assert_eq!(ec.broken, Some("not valid UTF-8"));

        let kept = records(&bytes, first, &stamps).expect("the records read back");
        let (head, rest) = split(kept[0]).unwrap();
        let whole = Task::read_head(head).and_then(|t| t.read_rest(rest));
        assert_eq!(whole, Some(a.clone()), "the whole task");
        let back = Task::read_head(head).unwrap();
        assert_eq!(
            (back.title.as_str(), back.status),
            (a.title.as_str(), a.status)
        );
        assert_eq!(
            back.description, "",
            "the index keeps only what context shows"
        );
        assert!(kept[2].is_empty());

        // Any cut or flipped byte: not an index.
        for cut in [0, 1, PREFIX_LEN, first.len() - 1, bytes.len() - 1] {
            let part = &bytes[..cut];
            if cut < first.len() {
                assert!(Stamps::decode(part).is_none(), "cut at {cut}");
            }
            assert!(records(part, first, &stamps).is_none(), "cut at {cut}");
        }
        for at in [MAGIC.len(), PREFIX_LEN + 3, first.len() - 9] {
            let mut flipped = first.to_vec();
            flipped[at] ^= 1;
            assert!(Stamps::decode(&flipped).is_none(), "flipped at {at}");
        }
        let mut other = bytes.clone();
        let at = first.len() + 2;
        other[at] ^= 1;
        assert!(
            records(&other, first, &stamps).is_none(),
            "a damaged record"
        );
    }

    fn stamps_len(bytes: &[u8]) -> usize {
        u32::from_le_bytes(bytes[PREFIX_LEN - 4..PREFIX_LEN].try_into().unwrap()) as usize
    }
}

//! Task files on disk: `.ledger/tasks/<id>.json`, one per task so that branches and agents touch
//! the same file only when they edit the same task. Every change is a read-modify-write under a
//! lock in the git directory, written atomically.

use std::fs;
use std::path::PathBuf;

use crate::model::base::ids::mint;
use crate::model::base::paths;
use crate::model::tasks::claims::ClaimRecord;
use crate::model::tasks::task::{is_task_id, Task, TASK_PREFIX};
use crate::store::file::{
    create_new, list_dir, list_dir_inodes, read_all, read_file, read_file_text, read_optional,
    write_atomic,
};
use crate::store::queue::DirStatus;
use crate::store::{fault, file, Error, Kind, Lock, Result, Store};

/// Tasks that parse, and the files that do not (with why).
#[derive(Debug, Default)]
pub struct Loaded {
    pub tasks: Vec<Task>,
    pub broken: Vec<(PathBuf, String)>,
}

impl Store {
    pub fn tasks_dir(&self) -> PathBuf {
        self.path(paths::TASKS)
    }

    /// Every task file, read and parsed: what `check` vouches for, without the task index.
    pub fn read_task_files(&self) -> Result<Loaded> {
        self.check_ledger()?;
        let dir = self.tasks_dir();
        self.check_inside(&dir)?;
        let names: Vec<(String, PathBuf)> = list_dir(&dir, ".json")?;
        if names.is_empty() {
            return Ok(Loaded::default());
        }
        let parsed = read_all(&dir, &names, Kind::Task.limit(), decode).map_err(Error::io(&dir))?;
        let mut loaded = Loaded::default();
        for (path, result) in parsed {
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            match result.and_then(|task| named(task, stem)) {
                Ok(task) => loaded.tasks.push(task),
                Err(e) => loaded.broken.push((path, e)),
            }
        }
        Ok(loaded)
    }

    /// The ids of the task files, by their names, unread: enough to resolve an id or a prefix.
    pub fn task_ids(&self) -> Result<Vec<String>> {
        self.check_ledger()?;
        let dir = self.tasks_dir();
        self.check_inside(&dir)?;
        // In directory order, unsorted: resolving and minting need no order.
        Ok(list_dir_inodes(&dir, ".json")?
            .into_iter()
            .filter_map(|(mut name, _)| {
                name.truncate(name.strip_suffix(".json")?.len());
                Some(name)
            })
            .collect())
    }

    /// How many task files there are, as a hint for the length of a new task's id (ids.rs):
    /// from the count kept in the git directory while the directory's status (times, inode) is
    /// the one it was kept with, else by listing it. A change racing the directory's clock tick
    /// can leave the count off by a file or two, which at most shifts an id's length; the
    /// file's no-clobber creation is what makes an id unique.
    pub fn task_count(&self) -> Result<usize> {
        let dir = self.tasks_dir();
        let Some(status) = DirStatus::of(&dir) else {
            return Ok(0);
        };
        let cache = self.git_dir.join(paths::TASKS_COUNT);
        if let Some(text) = read_optional(&cache)?.and_then(|b| String::from_utf8(b).ok()) {
            if let Some((head, count)) = text.trim_end().rsplit_once(' ') {
                if head == count_key(&status) {
                    if let Ok(count) = count.parse() {
                        return Ok(count);
                    }
                }
            }
        }
        let count = list_dir_inodes(&dir, ".json")?.len();
        self.keep_task_count(&status, count);
        Ok(count)
    }

    /// Keeps `count` for the tasks directory as `status` describes it. Only a hint: a
    /// read-only git directory costs the next run a listing.
    fn keep_task_count(&self, status: &DirStatus, count: usize) {
        let line = format!("{} {count}\n", count_key(status));
        let _ = file::replace_cache(&self.git_dir.join(paths::TASKS_COUNT), line.as_bytes());
    }

    /// Whether the task `id` has a file (read or not).
    pub fn has_task(&self, id: &str) -> bool {
        is_task_id(id) && self.path(&paths::task_file(id)).is_file()
    }

    /// The task `id` from its own file; `None` when there is no such file.
    pub fn read_task(&self, id: &str) -> Result<Option<Task>> {
        if !is_task_id(id) {
            return Ok(None);
        }
        let path = self.path(&paths::task_file(id));
        let Some(bytes) = read_file(self.root(), &path, Kind::Task)? else {
            return Ok(None);
        };
        let task = decode(&bytes)
            .and_then(|task| named(task, id))
            .map_err(|message| Error::TaskParse {
                path: self.relative(&path),
                message,
            })?;
        Ok(Some(task))
    }

    /// Mints an id for `task`, as long as `count` tasks ask, and writes its file, never
    /// replacing one.
    pub fn create_task(&self, task: &mut Task, count: usize, seed: &str) -> Result<PathBuf> {
        let dir = self.create_dir(paths::TASKS)?;
        let mut salt = 0u32;
        loop {
            task.id = mint(
                TASK_PREFIX,
                format!("{seed}\0{salt}").as_bytes(),
                count,
                |id| dir.join(format!("{id}.json")).exists(),
            );
            let path = dir.join(format!("{}.json", task.id));
            if create_new(&path, task.to_json().as_bytes(), self.durability)? {
                // One more, under the tasks lock: the next `create` need not list the directory.
                if let Some(status) = DirStatus::of(&dir) {
                    self.keep_task_count(&status, count + 1);
                }
                return Ok(path);
            }
            salt += 1;
        }
    }

    /// Applies `change` to the task `id`: read, change, write. The caller holds the tasks lock,
    /// so concurrent changes of one task are serialised and none is lost.
    pub fn modify_task<T, E: From<Error>>(
        &self,
        id: &str,
        change: impl FnOnce(&mut Task) -> std::result::Result<T, E>,
    ) -> std::result::Result<(Task, T), E> {
        let path = self.path(&paths::task_file(id));
        let text = read_file_text(self.root(), &path, Kind::Task)?
            .ok_or_else(|| Error::io(&path)(std::io::Error::from(std::io::ErrorKind::NotFound)))?;
        let mut task = Task::parse(&text).map_err(|message| Error::TaskParse {
            path: self.relative(&path),
            message,
        })?;
        let out = change(&mut task)?;
        fault::fail_at("write-task").map_err(Error::io(&path))?;
        write_atomic(&path, task.to_json().as_bytes(), self.durability)?;
        Ok((task, out))
    }

    /// The tasks lock, in the common git directory so that every work tree of the repository
    /// takes the same one.
    pub fn lock_tasks(&self) -> Result<Lock> {
        Store::lock_in(&self.common_dir, paths::TASKS_LOCK)
    }

    /// Who holds the claim on task `id` in any work tree of this repository, and where. Call
    /// under the tasks lock.
    pub fn claim_record(&self, id: &str) -> Result<Option<ClaimRecord>> {
        let path = self.claim_path(id);
        Ok(read_file(&self.common_dir, &path, Kind::Claim)?
            .map(|b| ClaimRecord::parse(&String::from_utf8_lossy(&b))))
    }

    /// Records who holds task `id`, or with `None` that nobody does. Call under the tasks lock.
    pub fn set_claim_record(&self, id: &str, record: Option<&ClaimRecord>) -> Result<()> {
        let path = self.claim_path(id);
        match record {
            Some(record) => {
                let dir = self.common_dir.join(paths::CLAIMS);
                fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
                write_atomic(&path, record.render().as_bytes(), self.durability)
            }
            None => match fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(&path)(e)),
                _ => Ok(()),
            },
        }
    }

    /// How long ago this clone last fetched `remote`'s claims, if it did.
    pub fn claims_fetched_ago(&self, remote: &str) -> Option<std::time::Duration> {
        let modified = fs::metadata(self.fetched_stamp(remote))
            .ok()?
            .modified()
            .ok()?;
        modified.elapsed().ok()
    }

    /// Notes that `remote`'s claims were fetched just now, or with `false` that what was
    /// fetched is out of date (this clone just changed a claim there).
    pub fn mark_claims_fetched(&self, remote: &str, fresh: bool) -> Result<()> {
        let path = self.fetched_stamp(remote);
        if !fresh {
            return match fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(&path)(e)),
                _ => Ok(()),
            };
        }
        let dir = self.common_dir.join(paths::CLAIMS_FETCHED);
        fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
        write_atomic(&path, b"", self.durability)
    }

    /// A remote's stamp file: its name in hex, as a remote name may hold `/`.
    fn fetched_stamp(&self, remote: &str) -> PathBuf {
        let hex: String = remote.bytes().map(|b| format!("{b:02x}")).collect();
        self.common_dir.join(paths::CLAIMS_FETCHED).join(hex)
    }

    fn claim_path(&self, id: &str) -> PathBuf {
        self.common_dir.join(paths::CLAIMS).join(id)
    }
}

/// A task file's bytes as a task.
pub(super) fn decode(bytes: &[u8]) -> std::result::Result<Task, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "not valid UTF-8".to_owned())?;
    Task::parse(text)
}

/// `task`, if it is the one its file's name (`stem`) says.
pub(super) fn named(task: Task, stem: &str) -> std::result::Result<Task, String> {
    if task.id == stem {
        Ok(task)
    } else {
        Err(format!("holds task {}, not the one its name says", task.id))
    }
}

/// What a kept count is valid for: the tasks directory's status.
fn count_key(status: &DirStatus) -> String {
    let [modified, changed, inode] = status.fields();
    format!("mneme-tasks-count 2 {modified} {changed} {inode}")
}

//! Who is committing a decision, and what of git's it holds. Written before the first lock is
//! taken and removed after the last step, it is left behind only by a run that was killed; the
//! next run then takes back what that run named (git's locks, temporary files) once its process
//! is gone, so that nobody has to remove a lock by hand. git's own locks carry no owner: only
//! those this file names, made within moments of its last update, are ever removed.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::git::{Error, Repo, Result};
use crate::model::base::paths;
use crate::store::file::{read_local, replace_unsynced, temp_owner};
use crate::store::{self, create_new, Durability};

/// How far a lock's time may be from the owner file's last update and still be the one the
/// killed run took (it takes each within milliseconds of saying so).
const WINDOW: Duration = Duration::from_secs(10);

/// How far behind a file's time may be from the clock a run read (the kernel stamps files from
/// a coarser clock).
const CLOCK_SLACK: Duration = Duration::from_secs(1);

#[derive(Debug, Serialize, Deserialize)]
struct Record {
    pid: u32,
    /// Unix time in nanoseconds when the run began: its temporary files are not older.
    started: u128,
    /// The locks it holds or is about to take.
    locks: Vec<PathBuf>,
}

/// The owner file of a decision being committed; removed when dropped (a run that returns,
/// with or without an error), left only by a run that is killed.
pub(super) struct Owner {
    path: PathBuf,
    record: Record,
}

impl Owner {
    /// Says that this process is committing a decision in `repo`; `Locked` while another
    /// process is.
    pub(super) fn claim(repo: &Repo) -> Result<Owner> {
        let started = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let record = Record {
            pid: std::process::id(),
            started,
            locks: Vec::new(),
        };
        let path = repo.git_dir().join(paths::COMMIT_OWNER);
        let bytes = serde_json::to_vec(&record).expect("the owner record serializes");
        // Whole or not at all; a kill before it is in place leaves only a temporary file that
        // names this process, which the next run removes.
        if !create_new(&path, &bytes, Durability::Synced)? {
            return Err(Error::Locked { path });
        }
        Ok(Owner { path, record })
    }

    /// Notes `lock`, which this run is about to take (before, so that a kill between the two
    /// leaves no lock unnamed).
    pub(super) fn holds(&mut self, lock: PathBuf) -> Result<()> {
        self.record.locks.push(lock);
        self.save()
    }

    fn save(&self) -> Result<()> {
        let bytes = serde_json::to_vec(&self.record).expect("the owner record serializes");
        Ok(replace_unsynced(&self.path, &bytes)?)
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// What [`reclaim`] found.
pub(super) enum Reclaimed {
    /// Another process is committing a decision now: leave everything as it is.
    Busy,
    /// What was taken back from a killed run, a note each (none when nothing was left).
    Done(Vec<String>),
}

/// Takes back what a killed decision run left: the locks its owner file names, made within
/// moments of its last update, and the temporary files made since it began.
pub(super) fn reclaim(repo: &Repo) -> Result<Reclaimed> {
    let path = repo.git_dir().join(paths::COMMIT_OWNER);
    let Ok(meta) = fs::metadata(&path) else {
        // A run killed while it wrote its owner file leaves the temporary one.
        let removed = remove_temporaries(&[repo.git_dir().to_owned()], None);
        return Ok(Reclaimed::Done(
            temporaries_note(removed).into_iter().collect(),
        ));
    };
    let record: Option<Record> = read_local(&path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok());
    // A record that does not parse was not written by mneme: nobody's.
    let running = record
        .as_ref()
        .is_some_and(|r| r.pid != std::process::id() && alive(r.pid));
    if running && !(cfg!(not(unix)) && older_than_any_run(&meta)) {
        return Ok(Reclaimed::Busy);
    }
    let mut notes = Vec::new();
    if let Some(record) = &record {
        let updated = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
        for lock in &record.locks {
            if modified_near(lock, updated) && fs::remove_file(lock).is_ok() {
                notes.push(format!(
                    "removed {}, left by a run that was killed",
                    lock.display()
                ));
            }
        }
        // File times come from the kernel's coarse clock, a few milliseconds behind the one
        // `started` was read from: a file made just after it can look older.
        let since = SystemTime::UNIX_EPOCH
            + Duration::from_nanos(u64::try_from(record.started).unwrap_or(u64::MAX))
            - CLOCK_SLACK;
        let mut dirs = vec![
            repo.git_dir().to_owned(),
            repo.gix().common_dir().join("objects"),
            repo.root().join(paths::LEDGER),
        ];
        dirs.extend(
            [
                paths::FACTS,
                paths::DECISIONS,
                paths::PROPOSALS,
                paths::TASKS,
            ]
            .iter()
            .map(|rel| repo.root().join(rel)),
        );
        let removed = remove_temporaries(&dirs, Some((since, updated + WINDOW)));
        notes.extend(temporaries_note(removed));
    }
    fs::remove_file(&path).map_err(store::Error::io(&path))?;
    Ok(Reclaimed::Done(notes))
}

/// Whether process `pid` is running (or cannot be told apart from one that is).
#[cfg(unix)]
fn alive(pid: u32) -> bool {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return false;
    };
    !matches!(
        rustix::process::test_kill_process(pid),
        Err(rustix::io::Errno::SRCH)
    )
}

/// Without a portable way to ask: taken as running, so nothing is taken back from a live run,
/// until its owner file is [`older_than_any_run`].
#[cfg(not(unix))]
fn alive(_pid: u32) -> bool {
    true
}

/// Where a process cannot be asked whether it runs: an owner file an hour old is a killed
/// run's (hooks included, an approval takes seconds).
fn older_than_any_run(meta: &fs::Metadata) -> bool {
    meta.modified()
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age > Duration::from_secs(3600))
}

/// Whether `path` exists and was last changed within [`WINDOW`] of `time`.
fn modified_near(path: &Path, time: SystemTime) -> bool {
    let Ok(modified) = fs::symlink_metadata(path).and_then(|m| m.modified()) else {
        return false;
    };
    let gap = modified
        .duration_since(time)
        .or_else(|_| time.duration_since(modified))
        .unwrap_or_default();
    gap <= WINDOW
}

/// What [`remove_temporaries`] did, said.
fn temporaries_note(removed: usize) -> Option<String> {
    (removed > 0).then(|| format!("removed {removed} temporary file(s) a killed run left"))
}

/// Removes the temporary files killed runs left in `dirs`: mneme's (`.mneme-<pid>-*.tmp`
/// beside the files it writes) whose process is gone, and with `during` gix's (`.tmp*`
/// objects) changed within it, while a killed decision run was under way; how many.
fn remove_temporaries(dirs: &[PathBuf], during: Option<(SystemTime, SystemTime)>) -> usize {
    let mut removed = 0;
    for dir in dirs {
        let Ok(entries) = fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            // mneme's name the process that made them; gix's, only when.
            let left = match (temp_owner(&name), during) {
                (Some(pid), _) => !alive(pid),
                (None, Some((since, until))) => {
                    let made = entry.metadata().and_then(|m| m.modified());
                    name.starts_with(".tmp") && made.is_ok_and(|t| t >= since && t <= until)
                }
                (None, None) => false,
            };
            if left && entry.file_type().is_ok_and(|t| t.is_file()) {
                removed += usize::from(fs::remove_file(entry.path()).is_ok());
            }
        }
    }
    removed
}

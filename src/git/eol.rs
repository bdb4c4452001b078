//! Git's conversions between a ledger file's bytes in the work tree and in a blob: `core.autocrlf`,
//! `core.eol`, the `text`/`eol` attributes and filters. Comparing a work-tree file with HEAD and
//! writing the blob of a new version go through them, as `git add` would.

use std::io::Read;
use std::path::Path;

use gix::bstr::ByteSlice;
use gix::filter::plumbing::driver::apply::MaybeDelayed;
use gix::filter::plumbing::pipeline::convert::{ToGitOutcome, ToWorktreeOutcome};

use crate::git::Result;
use crate::model::base::paths;
use crate::store;

/// The repository's conversion pipeline for ledger paths.
pub(crate) struct Eol<'a> {
    pipeline: gix::filter::Pipeline<'a>,
    index: &'a gix::index::State,
}

impl<'a> Eol<'a> {
    /// With the index the caller read: gix's own pipeline would read (and hash) the whole index
    /// again, a large part of an approval in a repository of many files.
    pub(crate) fn new(git: &'a gix::Repository, index: &'a gix::index::State) -> Result<Eol<'a>> {
        check_attribute_files(git)?;
        let attributes = git.attributes_only(
            index,
            gix::worktree::stack::state::attributes::Source::WorktreeThenIdMapping,
        )?;
        let pipeline = gix::filter::Pipeline::new(git, attributes.detach())?;
        Ok(Eol { pipeline, index })
    }

    /// The blob `git add` would make of `bytes` at work-tree path `path` (`/`-separated).
    pub(crate) fn staged(&mut self, path: &str, bytes: &[u8]) -> Result<Vec<u8>> {
        let outcome = self
            .pipeline
            .convert_to_git(bytes, Path::new(path), self.index)?;
        Ok(match outcome {
            ToGitOutcome::Unchanged(_) => bytes.to_vec(),
            ToGitOutcome::Buffer(converted) => converted.to_vec(),
            ToGitOutcome::Process(mut stream) => {
                let mut out = Vec::new();
                stream
                    .read_to_end(&mut out)
                    .map_err(store::Error::io(path))?;
                out
            }
        })
    }

    /// The work-tree bytes `git checkout` would make of blob `bytes` at `path`.
    pub(crate) fn checked_out(&mut self, path: &str, bytes: &[u8]) -> Result<Vec<u8>> {
        let outcome = self.pipeline.convert_to_worktree(
            bytes,
            path.as_bytes().as_bstr(),
            Default::default(),
        )?;
        Ok(match outcome {
            ToWorktreeOutcome::Unchanged(b) => b.to_vec(),
            ToWorktreeOutcome::Buffer(converted) => converted.to_vec(),
            // Delays were not allowed (the default options), so the output is immediate.
            ToWorktreeOutcome::Process(MaybeDelayed::Immediate(mut stream)) => {
                let mut out = Vec::new();
                stream
                    .read_to_end(&mut out)
                    .map_err(store::Error::io(path))?;
                out
            }
            ToWorktreeOutcome::Process(MaybeDelayed::Delayed(_)) => bytes.to_vec(),
        })
    }
}

/// The attribute files gix opens for ledger paths, each checked by type and size before it
/// does: any of them comes from a branch or a machine, and gix would block on a FIFO there.
fn check_attribute_files(git: &gix::Repository) -> Result<()> {
    let mut files: Vec<std::path::PathBuf> = Vec::new();
    if let Some(root) = git.workdir() {
        let mut dir = root.to_owned();
        files.push(dir.join(".gitattributes"));
        for part in paths::LEDGER.split('/') {
            dir.push(part);
            files.push(dir.join(".gitattributes"));
        }
        for sub in [
            paths::FACTS,
            paths::PROPOSALS,
            paths::DECISIONS,
            paths::TASKS,
        ] {
            files.push(root.join(sub).join(".gitattributes"));
        }
    }
    files.push(git.common_dir().join("info").join("attributes"));
    if let Ok(Some(global)) = git.config_snapshot().trusted_path("core.attributesFile") {
        files.push(global);
    }
    for file in files {
        store::file::check_readable(&file, store::Kind::GitAttributes)?;
    }
    Ok(())
}

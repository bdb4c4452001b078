//! The repository's own hooks, run as git would around a decision commit: `pre-commit` against
//! the commit's tree, then `commit-msg`, which may rewrite the message.

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use gix::bstr::ByteSlice;
use gix::hash::ObjectId;

use crate::git::{Error, Repo, Result};
use crate::model::agents::templates;
use crate::model::base::paths;
use crate::store;

/// The directory git runs hooks from: `core.hooksPath`, or `hooks/` in the common git directory.
pub fn hooks_dir(repo: &Repo) -> PathBuf {
    match repo.gix().config_snapshot().string("core.hooksPath") {
        Some(p) => {
            let p = PathBuf::from(p.to_str_lossy().into_owned());
            if p.is_absolute() {
                p
            } else {
                repo.root().join(p)
            }
        }
        None => repo.gix().common_dir().join("hooks"),
    }
}

/// Runs `pre-commit` against an index holding exactly the commit's tree, then `commit-msg`,
/// which may rewrite the message. Returns the final message.
pub(crate) fn run_hooks(repo: &Repo, tree: ObjectId, message: &str) -> Result<String> {
    let root = repo.root();
    let dir = hooks_dir(repo);
    let pre_commit = dir.join("pre-commit");
    if is_executable(&pre_commit) {
        let index_path = repo.git_dir().join(paths::HOOK_INDEX);
        let index = repo.gix().index_from_tree(&tree)?;
        let mut file = fs::File::create(&index_path).map_err(store::Error::io(&index_path))?;
        index.write_to(&mut file, gix::index::write::Options::default())?;
        file.flush().map_err(store::Error::io(&index_path))?;
        let result = run_hook("pre-commit", &pre_commit, root, &[], Some(&index_path));
        let _ = fs::remove_file(&index_path);
        result?;
    }
    let mut commit_msg = dir.join("commit-msg");
    if is_own_hook(&commit_msg) {
        // mneme's own hook guards a person's `git commit` (the index it would commit), not a
        // decision, which mneme builds from HEAD and its records: of what the hook runs, only
        // the hook it chains could refuse or rewrite one, and it runs here as the hook would
        // run it, without the shell, a second mneme and its reading of the index.
        commit_msg = dir.join(paths::CHAINED_HOOK);
    }
    if !is_executable(&commit_msg) {
        return Ok(message.to_owned());
    }
    let msg_path = repo.git_dir().join("COMMIT_EDITMSG");
    let previous = store::read_optional(&msg_path)?;
    fs::write(&msg_path, message).map_err(store::Error::io(&msg_path))?;
    let edited = run_hook(
        "commit-msg",
        &commit_msg,
        root,
        &[msg_path.as_os_str()],
        None,
    )
    .and_then(|()| {
        Ok(store::file::read_local_text(&msg_path).map_err(store::Error::io(&msg_path))?)
    });
    let mut edited = match edited {
        Ok(m) if !m.trim().is_empty() => m,
        refused => {
            // A refused decision leaves nothing behind, not even its message.
            let _ = match previous {
                Some(bytes) => fs::write(&msg_path, bytes),
                None => fs::remove_file(&msg_path),
            };
            return Err(refused.err().unwrap_or(Error::HookFailed {
                hook: "commit-msg",
                status: "it left an empty message".into(),
                output: String::new(),
            }));
        }
    };
    if !edited.ends_with('\n') {
        edited.push('\n');
    }
    Ok(edited)
}

fn run_hook(
    name: &'static str,
    path: &Path,
    cwd: &Path,
    args: &[&std::ffi::OsStr],
    index: Option<&Path>,
) -> Result<()> {
    let mut cmd = Command::new(path);
    cmd.args(args).current_dir(cwd).stdin(Stdio::null());
    if let Some(index) = index {
        cmd.env("GIT_INDEX_FILE", index);
    }
    let out = cmd.output().map_err(store::Error::io(path))?;
    if out.status.success() {
        return Ok(());
    }
    let mut output = String::from_utf8_lossy(&out.stderr).into_owned();
    output.push_str(&String::from_utf8_lossy(&out.stdout));
    Err(Error::HookFailed {
        hook: name,
        status: out.status.to_string(),
        output: output.trim_end().chars().take(4000).collect(),
    })
}

/// Whether the hook at `path` is mneme's, exactly as `mneme hooks install` writes it.
fn is_own_hook(path: &Path) -> bool {
    store::file::read_local(path).is_ok_and(|bytes| bytes == templates::COMMIT_MSG_HOOK.as_bytes())
}

/// Whether git would run the hook at `path`: an executable file (on Windows, any file, which git
/// runs through its shell).
fn is_executable(path: &Path) -> bool {
    let Ok(meta) = fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    let runnable = {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    };
    #[cfg(not(unix))]
    let runnable = true;
    meta.is_file() && runnable
}

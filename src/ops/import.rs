//! `import`: outside knowledge becomes proposals a person reviews, never facts.

use std::path::{Path, PathBuf};

use crate::git::index::tracked_paths;
use crate::model::interchange::import::{found_in, plan, proposals, Plan, Read, Source, Split};
use crate::model::proposals::plan::{IdMinter, PlanContext};
use crate::ops::{now, Result, Workspace};
use crate::store::import::{read, read_listed};

/// What to import and how.
pub struct Options<'a> {
    pub source: Source,
    pub path: &'a Path,
    /// Plan only: nothing is written.
    pub dry_run: bool,
    /// How the statements are spread over proposals.
    pub split: Split,
    pub agent: Option<String>,
}

/// An import's outcome.
#[derive(Debug)]
pub struct Imported {
    pub plan: Plan,
    /// The proposals written (none for a dry run, or when nothing is new): id and path.
    pub written: Vec<(String, PathBuf)>,
    /// How many statements the sources held.
    pub statements: usize,
    /// Files read.
    pub files: usize,
    /// Files not read, with why: symbolic links, proposed decision records.
    pub skipped: Vec<(String, String)>,
}

/// Reads `opts.path` as `opts.source` and proposes what it holds that the ledger lacks.
pub fn import(ws: &Workspace, opts: &Options) -> Result<Imported> {
    ws.store.check_ledger()?;
    // Canonical once: evidence names files from it.
    let root = ws.store.root().canonicalize().ok();
    let root = root.as_deref();
    let (files, links) = match (nested_in(ws, root, opts)?, root) {
        (Some(paths), Some(root)) => read_listed(root, &paths)?,
        _ => read(opts.path, &|name| opts.source.wants(name))?,
    };
    let reads: Vec<Read> = files
        .into_iter()
        .map(|f| Read {
            shown: shown(root, &f.path),
            name: f
                .path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            text: f.text,
        })
        .collect();
    let (found, mut skipped) = found_in(opts.source, &reads)?;
    skipped.extend(
        links
            .into_iter()
            .map(|l| (l, "a symbolic link: not followed".to_owned())),
    );
    let now = now();
    let ctx = PlanContext {
        now,
        author: ws.repo.author(),
        nonce: u64::from(now.subsec_nanos()) ^ u64::from(std::process::id()) << 32,
    };
    let reason = format!(
        "import of {} ({}): {} statement(s) read",
        shown(root, opts.path),
        opts.source.name(),
        found.len()
    );
    // Planned and written under the ledger lock, as `propose` does: duplicates stay exact.
    let lock = ws.store.lock()?;
    let (ledger, pending, refresh) = ws.store.load_with_queue()?;
    let written = (|| -> Result<_> {
        let seed = format!("{}\0{reason}\0{}", now.rfc3339(), ctx.nonce);
        let mut ids = IdMinter::new(&ledger, &pending, &seed);
        let mut salt = 0;
        let planned = plan(&ledger, &pending, &found, || {
            salt += 1;
            ids.mint(salt)
        });
        let mut written = Vec::new();
        if !opts.dry_run && !planned.operations.is_empty() {
            let made = proposals(
                &ledger,
                &planned,
                &ctx,
                opts.agent.clone(),
                &reason,
                opts.split,
            )?;
            for mut p in made {
                let path = ws.store.write_proposal(&mut p)?;
                written.push((p.id.clone(), path));
            }
        }
        Ok((planned, written))
    })();
    ws.store.refresh_queue_index(
        refresh,
        &pending,
        written.as_ref().is_ok_and(|(_, w)| !w.is_empty()),
    );
    drop(lock);
    let (plan, written) = written?;
    Ok(Imported {
        plan,
        written,
        statements: found.len(),
        files: reads.len(),
        skipped,
    })
}

/// For a source whose files nest (`AGENTS.md`, `CLAUDE.md`) and a directory of this repository:
/// the tracked files of that name under it, at any depth, the tracked rules of the runtime's
/// rules folder (`.claude/rules/**/*.md`), and the directory's own, tracked or not yet, from the
/// root, in path order. `None` otherwise: the directory's own files are read.
fn nested_in(ws: &Workspace, root: Option<&Path>, opts: &Options) -> Result<Option<Vec<String>>> {
    let (Some(name), Some(root), true) = (opts.source.nested(), root, opts.path.is_dir()) else {
        return Ok(None);
    };
    let Some(dir) = opts
        .path
        .canonicalize()
        .ok()
        .and_then(|p| p.strip_prefix(root).ok().map(Path::to_path_buf))
    else {
        return Ok(None);
    };
    let dir = dir.to_string_lossy().replace('\\', "/");
    let own = if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    };
    let under = format!("{dir}/");
    // The runtime's folder of rules (`.claude/rules`), under DIR or DIR itself: every `.md` in it.
    let rules = opts.source.rules_dir().map(|r| {
        if dir.is_empty() {
            format!("{r}/")
        } else if dir.ends_with(r) || dir.contains(&format!("{r}/")) {
            under.clone()
        } else {
            format!("{dir}/{r}/")
        }
    });
    let is_rule = |p: &str| {
        rules
            .as_deref()
            .is_some_and(|r| p.starts_with(r) && p.ends_with(".md"))
    };
    let mut paths: Vec<String> = tracked_paths(&ws.repo)?
        .into_iter()
        .filter(|p| dir.is_empty() || p.starts_with(&under))
        .filter(|p| p.rsplit('/').next() == Some(name) || is_rule(p))
        .collect();
    if !paths.contains(&own) && root.join(&own).exists() {
        paths.push(own);
    }
    paths.sort();
    Ok(Some(paths))
}

/// How evidence names a file: from the work tree's root (canonical) when inside it, else as
/// given.
fn shown(root: Option<&Path>, path: &Path) -> String {
    let inside = match (path.canonicalize(), root) {
        (Ok(p), Some(r)) => p.strip_prefix(r).ok().map(Path::to_path_buf),
        _ => None,
    };
    let Some(inside) = inside else {
        return path.to_string_lossy().replace('\\', "/");
    };
    let parts: Vec<String> = inside
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

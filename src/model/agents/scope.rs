//! Which facts are about which files: a fact is about the repository files its evidence cites
//! (`src/db.rs:40-52` is about `src/db.rs`). What a runtime's tool hook delivers when the agent
//! reads or edits a file, and what a scoped session start leaves out.

use std::collections::BTreeMap;

use crate::model::evidence::refs::{classify, Evidence};
use crate::model::views::{Context, FactView, ScopedDir};

/// The repository files `fact` cites, each once, in its evidence's order.
pub fn cited_files(fact: &FactView) -> Vec<&str> {
    let mut files: Vec<&str> = Vec::new();
    for e in &fact.evidence {
        if let Evidence::File { path, .. } = classify(e) {
            let path = path.trim_start_matches("./");
            if !files.contains(&path) {
                files.push(path);
            }
        }
    }
    files
}

/// Whether `fact` is about one of `files` (paths from the repository's root).
pub fn is_about(fact: &FactView, files: &[String]) -> bool {
    cited_files(fact)
        .iter()
        .any(|c| files.iter().any(|f| f.trim_start_matches("./") == *c))
}

/// `c` with only the facts about `files`; files left without facts are dropped.
pub fn about(c: &mut Context, files: &[String]) {
    for file in &mut c.files {
        file.facts.retain(|f| is_about(f, files));
    }
    c.files.retain(|f| !f.facts.is_empty());
}

/// Leaves out of `c` the facts that cite files and carry no mark (stale, contested,
/// unapproved: those come at the start whatever they cite), counting them by the directory of
/// the first file each cites. What a session starts with when facts about files come as the
/// agent touches them.
pub fn leave_scoped_out(c: &mut Context) {
    let mut dirs: BTreeMap<String, usize> = BTreeMap::new();
    for file in &mut c.files {
        file.facts.retain(|f| {
            let cited = cited_files(f);
            let Some(first) = cited.first() else {
                return true;
            };
            if f.standing_note().is_some() {
                return true;
            }
            let dir = first
                .rsplit_once('/')
                .map_or_else(|| "./".to_owned(), |(d, _)| format!("{d}/"));
            *dirs.entry(dir).or_default() += 1;
            false
        });
    }
    c.scoped = dirs
        .into_iter()
        .map(|(dir, facts)| ScopedDir { dir, facts })
        .collect();
}

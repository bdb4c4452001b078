//! Evidence as the work tree has it: what `propose` warns about and `review` shows.

use crate::model::evidence::cited::{cite, inside, Cited};
use crate::model::evidence::refs::{classify, Evidence};
use crate::ops::Workspace;

/// Largest cited file read for its lines; a larger one is only known to exist.
const MAX_READ: u64 = 16 * 1024 * 1024;

/// Each reference of `evidence`, resolved against the work tree.
pub fn cited(ws: &Workspace, evidence: &[String]) -> Vec<Cited> {
    evidence
        .iter()
        .map(|e| {
            let Evidence::File { path, .. } = classify(e) else {
                return cite(e, None);
            };
            if !inside(path) {
                return cite(e, None);
            }
            let full = ws.store.root().join(path);
            let Some(meta) = std::fs::metadata(&full)
                .ok()
                .filter(std::fs::Metadata::is_file)
            else {
                return cite(e, None);
            };
            if meta.len() > MAX_READ {
                // Too large to count its lines here: known to exist.
                return Cited::File {
                    evidence: e.clone(),
                    path: path.to_owned(),
                };
            }
            match std::fs::read(&full) {
                Ok(bytes) => cite(e, Some(&String::from_utf8_lossy(&bytes))),
                Err(_) => cite(e, None),
            }
        })
        .collect()
}

//! Evidence as the work tree has it: what `propose` warns about and `review` shows.

use crate::model::evidence::cited::{cite, inside, Cited};
use crate::model::evidence::refs::{classify, Evidence};
use crate::ops::Workspace;
use crate::store::{self, Kind};

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
            match ws.store.read(path, Kind::Evidence) {
                Ok(Some(bytes)) => cite(e, Some(&String::from_utf8_lossy(&bytes))),
                // Too large to count its lines here: known to exist.
                Err(store::Error::TooLarge { .. }) => Cited::File {
                    evidence: e.clone(),
                    path: path.to_owned(),
                },
                // Through a link that leads out of the work tree.
                Err(store::Error::UnsafeLedger { .. }) => Cited::Outside {
                    evidence: e.clone(),
                    path: path.to_owned(),
                },
                // Missing, or not a regular file.
                Ok(None) | Err(_) => cite(e, None),
            }
        })
        .collect()
}

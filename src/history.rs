//! Reading review decisions back from git history.

use gix::bstr::ByteSlice;

use crate::decision::{Recorded, DECISION};
use crate::error::{Error, Result};
use crate::repo::Location;
use crate::time::Timestamp;

/// Every decision reachable from HEAD, newest first, optionally only those touching `fact_id`.
/// Only commits whose message mentions a decision trailer are decoded.
pub fn decisions(
    location: &Location,
    fact_id: Option<&str>,
    limit: Option<usize>,
) -> Result<Vec<Recorded>> {
    let repo = crate::git::open(location)?;
    let head = match repo.head_id() {
        Ok(id) => id.detach(),
        Err(_) => return Ok(Vec::new()),
    };
    let needle = format!("\n{DECISION}: ");
    let mut out = Vec::new();
    let walk = repo
        .rev_walk([head])
        .sorting(gix::revision::walk::Sorting::ByCommitTime(
            Default::default(),
        ))
        .all()
        .map_err(Error::git)?;
    for info in walk {
        let info = info.map_err(Error::git)?;
        let commit = repo.find_commit(info.id).map_err(Error::git)?;
        let raw = commit.message_raw().map_err(Error::git)?;
        if raw.find(needle.as_bytes()).is_none() {
            continue;
        }
        let decoded = commit.decode().map_err(Error::git)?;
        let message = decoded.message();
        let body = message
            .body()
            .map(|b| b.without_trailer().to_str_lossy().into_owned())
            .unwrap_or_default();
        let trailers: Vec<(String, String)> = decoded
            .message_trailers()
            .map(|t| {
                (
                    t.token.to_str_lossy().into_owned(),
                    t.value.to_str_lossy().into_owned(),
                )
            })
            .collect();
        let Some(mut r) = Recorded::from_trailers(
            &message.summary().to_str_lossy(),
            &body,
            trailers.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        ) else {
            continue;
        };
        if fact_id.is_some_and(|id| !r.touches(id)) {
            continue;
        }
        r.commit = info.id.to_string();
        let secs = commit.time().map(|t| t.seconds).unwrap_or_default();
        r.date = Timestamp { secs, nanos: 0 }.rfc3339_seconds();
        out.push(r);
        if limit.is_some_and(|n| out.len() >= n) {
            break;
        }
    }
    Ok(out)
}

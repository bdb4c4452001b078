//! Remote claims: who took a task, where and for how long, as the small JSON object a claim ref
//! (`refs/mneme/claims/<task id>`) points at on the remote. The ref is created only if absent,
//! so a git server decides which of several clones' claims wins.

use serde::{Deserialize, Serialize};

use crate::model::base::config::MAX_LEASE_SECONDS;
use crate::model::base::text::first_hidden;
use crate::model::base::time::{human_age, Timestamp};
use crate::model::tasks::task::is_task_id;

/// Where claims live on the remote, one ref per task.
pub const CLAIMS_REF_PREFIX: &str = "refs/mneme/claims/";

/// Largest claim object read: a claim is a few hundred bytes; anything larger is not one.
pub const MAX_CLAIM_BYTES: u64 = 4096;

/// The version of the claim format this mneme writes.
const VERSION: u32 = 1;
/// How far ahead of this clock another machine's may be before its claim counts as dated in
/// the future.
const MAX_SKEW_SECONDS: i64 = 5 * 60;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    /// Always 1; a later format gets a new number.
    pub mneme_claim: u32,
    pub task: String,
    /// Who holds it: the agent name (`--agent`, `$MNEME_AGENT` or the git user name).
    pub agent: String,
    /// The machine it was claimed on.
    pub host: String,
    pub claimed_at: String,
    /// Set by every `update` of the task by its holder; the lease counts from here.
    pub renewed_at: String,
    pub lease_seconds: i64,
}

/// Why a claim object cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClaimError {
    #[error("larger than {MAX_CLAIM_BYTES} bytes")]
    TooLarge,
    #[error("{0}")]
    Json(String),
    #[error("claim format {0} is newer than this mneme knows; upgrade mneme")]
    Version(u32),
    #[error("`{0}` is not a task id")]
    Task(String),
    #[error("it is for task {found}, under the ref of {expected}")]
    WrongTask { expected: String, found: String },
    #[error("{0} must be one line of visible text")]
    Field(&'static str),
    #[error("{0} is not a time")]
    Time(&'static str),
    #[error("lease_seconds {0} is out of range")]
    Lease(i64),
}

impl Claim {
    /// A new claim of `task` by `agent` on `host` at `now`.
    pub fn new(task: &str, agent: &str, host: &str, now: Timestamp, lease_seconds: i64) -> Claim {
        Claim {
            mneme_claim: VERSION,
            task: task.to_owned(),
            agent: agent.to_owned(),
            host: host.to_owned(),
            claimed_at: now.rfc3339(),
            renewed_at: now.rfc3339(),
            lease_seconds,
        }
    }

    /// The same claim, its lease starting again at `now`.
    pub fn renewed(&self, now: Timestamp, lease_seconds: i64) -> Claim {
        Claim {
            renewed_at: now.rfc3339(),
            lease_seconds,
            ..self.clone()
        }
    }

    /// Reads the claim object under the ref of task `task`: untrusted (anyone who can push to
    /// the remote wrote it), so every field is checked.
    pub fn parse(bytes: &[u8], task: &str) -> Result<Claim, ClaimError> {
        if bytes.len() as u64 > MAX_CLAIM_BYTES {
            return Err(ClaimError::TooLarge);
        }
        let claim: Claim =
            serde_json::from_slice(bytes).map_err(|e| ClaimError::Json(e.to_string()))?;
        if claim.mneme_claim != VERSION {
            return Err(ClaimError::Version(claim.mneme_claim));
        }
        if !is_task_id(&claim.task) {
            return Err(ClaimError::Task(claim.task));
        }
        if claim.task != task {
            return Err(ClaimError::WrongTask {
                expected: task.to_owned(),
                found: claim.task,
            });
        }
        for (name, value) in [("agent", &claim.agent), ("host", &claim.host)] {
            let hidden = value.chars().any(char::is_control) || first_hidden(value).is_some();
            if value.trim().is_empty() || value.len() > 200 || hidden {
                return Err(ClaimError::Field(name));
            }
        }
        for (name, value) in [
            ("claimed_at", &claim.claimed_at),
            ("renewed_at", &claim.renewed_at),
        ] {
            if Timestamp::parse(value).is_none() {
                return Err(ClaimError::Time(name));
            }
        }
        if claim.lease_seconds < 1 || claim.lease_seconds > MAX_LEASE_SECONDS {
            return Err(ClaimError::Lease(claim.lease_seconds));
        }
        Ok(claim)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut s = serde_json::to_string_pretty(self).expect("claims serialize");
        s.push('\n');
        s.into_bytes()
    }

    /// When the lease ends unless the holder renews it.
    pub fn expires_at(&self) -> Timestamp {
        let renewed = Timestamp::parse(&self.renewed_at).unwrap_or(Timestamp::from_unix(0));
        renewed.plus_seconds(self.lease_seconds)
    }

    /// A claim whose lease ran out: its holder stopped working, and `mneme claims --steal` may
    /// take it over. So may a claim dated in the future (past the clocks' allowed skew): a wrong
    /// clock or a forged claim would otherwise hold a task for years.
    pub fn is_stale(&self, now: Timestamp) -> bool {
        self.expires_at().unix_nanos() <= now.unix_nanos() || self.is_from_the_future(now)
    }

    /// Whether the claim says it was made or renewed later than [`MAX_SKEW_SECONDS`] from `now`.
    pub fn is_from_the_future(&self, now: Timestamp) -> bool {
        let limit = now.plus_seconds(MAX_SKEW_SECONDS).unix_nanos();
        [&self.claimed_at, &self.renewed_at]
            .into_iter()
            .any(|t| Timestamp::parse(t).is_some_and(|t| t.unix_nanos() > limit))
    }

    /// Whether `agent` on `host` made this claim.
    pub fn is_held_by(&self, agent: &str, host: &str) -> bool {
        self.agent == agent && self.host == host
    }

    /// `ada on laptop, 5m ago, lease ends in 1h` (or `lease ran out 3h ago`).
    pub fn describe(&self, now: Timestamp) -> String {
        let claimed = Timestamp::parse(&self.claimed_at).unwrap_or(now);
        if self.is_from_the_future(now) {
            return format!(
                "{} on {}, dated {} from now (a wrong clock or a forged claim), so it may be taken over",
                self.agent,
                self.host,
                human_age(now, claimed.max(Timestamp::parse(&self.renewed_at).unwrap_or(now)))
            );
        }
        let lease = if self.is_stale(now) {
            format!(
                "its lease ran out {} ago",
                human_age(self.expires_at(), now)
            )
        } else {
            format!("lease ends in {}", human_age(now, self.expires_at()))
        };
        format!(
            "{} on {}, {} ago, {lease}",
            self.agent,
            self.host,
            human_age(claimed, now)
        )
    }
}

/// A claim held on a remote: which remote, and the claim object there (what a push that renews
/// or releases the claim must find in place).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteHold {
    pub remote: String,
    pub oid: String,
}

/// The record of a claim made in this repository (`mneme-claims/<task id>` in the common git
/// directory, shared by its work trees): who holds the task, and the remote claim if there is
/// one. Written by mneme only, but read as untrusted all the same.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimRecord {
    pub who: String,
    pub remote: Option<RemoteHold>,
}

impl ClaimRecord {
    /// `who`, then optionally `remote\t<name>\t<object id>`; a second line that does not read
    /// is ignored (the claim then counts as local only).
    pub fn parse(text: &str) -> ClaimRecord {
        let mut lines = text.lines();
        let who = lines.next().unwrap_or_default().trim().to_owned();
        let remote = lines.next().and_then(|l| {
            let mut parts = l.split('\t');
            let (tag, remote, oid) = (parts.next()?, parts.next()?, parts.next()?);
            let hex = oid.len() >= 40 && oid.bytes().all(|b| b.is_ascii_hexdigit());
            (tag == "remote" && crate::model::base::config::is_remote_name(remote) && hex).then(
                || RemoteHold {
                    remote: remote.to_owned(),
                    oid: oid.to_owned(),
                },
            )
        });
        ClaimRecord { who, remote }
    }

    pub fn render(&self) -> String {
        match &self.remote {
            Some(h) => format!("{}\nremote\t{}\t{}\n", self.who, h.remote, h.oid),
            None => format!("{}\n", self.who),
        }
    }
}

/// The ref that holds the claim on `task`.
pub fn claim_ref(task: &str) -> String {
    format!("{CLAIMS_REF_PREFIX}{task}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        Timestamp::parse(s).unwrap()
    }

    #[test]
    fn a_claim_round_trips_and_its_lease_runs_out() {
        let now = at("2026-11-25T10:00:00Z");
        let c = Claim::new("t-a3f8", "ada", "laptop", now, 3600);
        assert_eq!(Claim::parse(&c.to_bytes(), "t-a3f8"), Ok(c.clone()));
        assert!(!c.is_stale(now.plus_seconds(3599)));
        assert!(c.is_stale(now.plus_seconds(3600)));
        let later = now.plus_seconds(3000);
        let r = c.renewed(later, 3600);
        assert!(!r.is_stale(now.plus_seconds(3600)));
        assert_eq!(r.claimed_at, c.claimed_at);
        assert_eq!(
            c.describe(now.plus_seconds(600)),
            "ada on laptop, 10m ago, lease ends in 50m"
        );
        assert_eq!(
            c.describe(now.plus_seconds(4 * 3600)),
            "ada on laptop, 4h ago, its lease ran out 3h ago"
        );
        assert!(c.is_held_by("ada", "laptop") && !c.is_held_by("ada", "ci"));
    }

    #[test]
    fn a_claim_dated_in_the_future_holds_nothing() {
        let now = at("2026-11-25T10:00:00Z");
        // A clock a few minutes ahead is a clock; 2099 is not.
        let ahead = Claim::new("t-a3f8", "ada", "laptop", now.plus_seconds(120), 3600);
        assert!(!ahead.is_stale(now));
        let forged = Claim::new(
            "t-a3f8",
            "eve",
            "x",
            at("2099-01-01T00:00:00Z"),
            30 * 86_400,
        );
        assert_eq!(
            Claim::parse(&forged.to_bytes(), "t-a3f8"),
            Ok(forged.clone())
        );
        assert!(forged.is_stale(now));
        assert!(
            forged.describe(now).contains("may be taken over"),
            "{}",
            forged.describe(now)
        );
        let long = Claim::new("t-a3f8", "eve", "x", now, 31 * 86_400);
        assert_eq!(
            Claim::parse(&long.to_bytes(), "t-a3f8"),
            Err(ClaimError::Lease(31 * 86_400))
        );
    }

    #[test]
    fn claim_records_round_trip_and_read_old_ones() {
        let local = ClaimRecord {
            who: "ada".into(),
            remote: None,
        };
        assert_eq!(ClaimRecord::parse("ada\n"), local);
        let held = ClaimRecord {
            who: "ada".into(),
            remote: Some(RemoteHold {
                remote: "origin".into(),
                oid: "a".repeat(40),
            }),
        };
        assert_eq!(ClaimRecord::parse(&held.render()), held);
        assert_eq!(ClaimRecord::parse("ada\nremote\t-x\tzz\n"), local);
    }

    #[test]
    fn hostile_claims_are_refused() {
        let now = at("2026-11-25T10:00:00Z");
        let good = Claim::new("t-a3f8", "ada", "laptop", now, 60);
        assert!(matches!(
            Claim::parse(&good.to_bytes(), "t-zzzz"),
            Err(ClaimError::WrongTask { .. })
        ));
        let bad = |c: Claim| Claim::parse(&c.to_bytes(), "t-a3f8");
        assert!(bad(Claim {
            agent: "ada\u{1b}[2J".into(),
            ..good.clone()
        })
        .is_err());
        assert!(bad(Claim {
            agent: "ada\u{202e}".into(),
            ..good.clone()
        })
        .is_err());
        assert!(bad(Claim {
            host: " ".into(),
            ..good.clone()
        })
        .is_err());
        assert!(bad(Claim {
            renewed_at: "soon".into(),
            ..good.clone()
        })
        .is_err());
        assert!(bad(Claim {
            lease_seconds: 0,
            ..good.clone()
        })
        .is_err());
        assert_eq!(
            bad(Claim {
                mneme_claim: 2,
                ..good.clone()
            }),
            Err(ClaimError::Version(2))
        );
        assert_eq!(
            Claim::parse(&vec![b' '; 5000], "t-a3f8"),
            Err(ClaimError::TooLarge)
        );
        assert!(Claim::parse(b"{\"mneme_claim\":1,\"extra\":1}", "t-a3f8").is_err());
    }
}

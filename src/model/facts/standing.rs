//! How each fact stands for a reader: its recorded state, and what mneme derives from the
//! ledger — a contradiction with another current fact, a re-verification that is overdue — and
//! the relations that point at it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::base::time::Timestamp;
use crate::model::facts::file::{Fact, Meta, Relation, State};
use crate::model::facts::ledger::Ledger;

/// Days since a current fact was last vouched for ([`Meta::checked_on`]), when that is more
/// than `stale_fact_days` (`0` turns the check off).
pub fn overdue(meta: &Meta, stale_fact_days: u32, now: Timestamp) -> Option<i64> {
    if stale_fact_days == 0 || !meta.is_current() {
        return None;
    }
    let age = meta.checked_at()?.days_until(now);
    (age > i64::from(stale_fact_days)).then_some(age)
}

/// A relation seen from the fact it points at.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Incoming {
    /// The fact that holds the relation.
    pub fact_id: String,
    pub relation: IncomingKind,
}

/// The relations a fact can be the target of; `supersedes` is the `by` of a replaced fact. In
/// JSON, the relation's key as the other fact holds it (`depends_on`, `supersedes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum IncomingKind {
    Relation(Relation),
    /// The fact replaces `fact_id`.
    Supersedes,
}

impl Serialize for IncomingKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(match self {
            IncomingKind::Relation(r) => r.key(),
            IncomingKind::Supersedes => "supersedes",
        })
    }
}

impl IncomingKind {
    /// How it reads from the target: `depended on by f-a`, `supersedes f-old`.
    pub fn phrase(self) -> &'static str {
        match self {
            IncomingKind::Relation(r) => r.inverse_phrase(),
            IncomingKind::Supersedes => "supersedes",
        }
    }
}

/// For each fact id, the relations other facts hold to it, in ledger order.
pub fn incoming(ledger: &Ledger) -> BTreeMap<String, Vec<Incoming>> {
    let mut map: BTreeMap<String, Vec<Incoming>> = BTreeMap::new();
    for (_, fact) in ledger.facts() {
        let Some(id) = &fact.id else { continue };
        let mut add = |target: &str, relation| {
            map.entry(target.to_owned()).or_default().push(Incoming {
                fact_id: id.clone(),
                relation,
            });
        };
        for (relation, target) in fact.meta.related() {
            add(target, IncomingKind::Relation(relation));
        }
        if let (State::Superseded, Some(by)) = (fact.meta.state(), &fact.meta.by) {
            // Seen from the successor: it supersedes this fact.
            map.entry(by.clone()).or_default().push(Incoming {
                fact_id: id.clone(),
                relation: IncomingKind::Supersedes,
            });
        }
    }
    map
}

/// For each current fact, the other current facts it contradicts or is contradicted by: a
/// contradiction marks both sides contested until a person resolves it.
pub fn contradictions(ledger: &Ledger) -> BTreeMap<String, Vec<String>> {
    let current = |id: &str| ledger.find(id).is_some_and(|(_, f)| f.meta.is_current());
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (_, fact) in ledger.facts() {
        let Some(id) = fact.id.as_deref().filter(|_| fact.meta.is_current()) else {
            continue;
        };
        let others = fact.meta.relations.get(&Relation::Contradicts);
        for other in others.into_iter().flatten() {
            if other != id && current(other) {
                map.entry(id.to_owned()).or_default().push(other.clone());
                map.entry(other.clone()).or_default().push(id.to_owned());
            }
        }
    }
    for others in map.values_mut() {
        others.sort();
        others.dedup();
    }
    map
}

/// What a reader should know about a current fact beyond its text.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Flags {
    /// Current facts it contradicts or is contradicted by.
    pub contested_by: Vec<String>,
    /// Pending proposals that would add a contradiction with it.
    pub disputed_in: Vec<String>,
    /// Days since it was last verified, when more than `stale_fact_days`.
    pub overdue_days: Option<i64>,
    /// Not what the decision records approved: edited outside review (context only).
    pub unapproved: bool,
    /// Its cited code changed in commits after it was last vouched for (context only).
    pub drifted: bool,
}

/// What the whole ledger says about each fact: computed once for a listing.
#[derive(Debug, Clone)]
pub struct Standings {
    contradictions: BTreeMap<String, Vec<String>>,
    /// Fact id → the pending proposals that would contradict it.
    pending: BTreeMap<String, Vec<String>>,
    incoming: BTreeMap<String, Vec<Incoming>>,
    stale_fact_days: u32,
    now: Timestamp,
}

impl Standings {
    pub fn of(ledger: &Ledger, now: Timestamp) -> Standings {
        Standings {
            contradictions: contradictions(ledger),
            pending: BTreeMap::new(),
            incoming: incoming(ledger),
            stale_fact_days: ledger.config.stale_fact_days,
            now,
        }
    }

    /// Adds the disputes of pending proposals: `(fact id, proposal id)` pairs.
    pub fn with_pending(mut self, contested: &[(String, String)]) -> Standings {
        for (fact, proposal) in contested {
            self.pending
                .entry(fact.clone())
                .or_default()
                .push(proposal.clone());
        }
        self
    }

    pub fn flags(&self, fact: &Fact) -> Flags {
        let of = |map: &BTreeMap<String, Vec<String>>| {
            fact.id
                .as_ref()
                .and_then(|id| map.get(id))
                .cloned()
                .unwrap_or_default()
        };
        Flags {
            contested_by: of(&self.contradictions),
            disputed_in: of(&self.pending),
            overdue_days: overdue(&fact.meta, self.stale_fact_days, self.now),
            unapproved: false,
            drifted: false,
        }
    }

    /// The relations other facts hold to the fact `id`.
    pub fn incoming(&self, id: &str) -> &[Incoming] {
        self.incoming.get(id).map_or(&[], Vec::as_slice)
    }
}

/// The state a reader should act on: a recorded `active` fact with a contradiction, approved
/// or pending, reads as `contested`, one overdue for re-verification as `stale`.
pub fn effective_state(state: &State, flags: &Flags) -> State {
    match state {
        State::Active if !flags.contested_by.is_empty() || !flags.disputed_in.is_empty() => {
            State::Contested
        }
        State::Active if flags.overdue_days.is_some() => State::Stale,
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::facts::ledger::tests::ledger;

    #[test]
    fn contradictions_mark_both_sides_while_both_are_current() {
        let l = ledger(&[(
            "a.md",
            "- **f-1** One. <!-- contradicts: f-2 f-3 f-9 -->\n- **f-2** Two.\n- **f-3** Three. <!-- state: archived -->\n",
        )]);
        let c = contradictions(&l);
        assert_eq!(c.get("f-1").unwrap(), &["f-2"]);
        assert_eq!(c.get("f-2").unwrap(), &["f-1"]);
        assert!(!c.contains_key("f-3") && !c.contains_key("f-9"));
    }

    #[test]
    fn incoming_relations_include_supersession() {
        let l = ledger(&[(
            "a.md",
            "- **f-1** One. <!-- depends_on: f-2 -->\n- **f-2** Two.\n- **f-0** Zero. <!-- state: superseded; by: f-2 -->\n",
        )]);
        let i = incoming(&l);
        let kinds: Vec<_> = i["f-2"]
            .iter()
            .map(|x| (x.fact_id.as_str(), x.relation))
            .collect();
        assert_eq!(
            kinds,
            [
                ("f-1", IncomingKind::Relation(Relation::DependsOn)),
                ("f-0", IncomingKind::Supersedes)
            ]
        );
    }

    #[test]
    fn overdue_uses_the_later_of_verified_and_since() {
        let now = Timestamp::parse("2026-06-01").unwrap();
        let meta = |m: &str| {
            crate::model::facts::file::FactFile::parse(&format!("- **f-1** One. <!-- {m} -->\n"))
                .unwrap()
                .facts()
                .next()
                .unwrap()
                .meta
                .clone()
        };
        assert_eq!(overdue(&meta("since: 2026-01-01"), 30, now), Some(151));
        assert_eq!(
            overdue(&meta("since: 2026-05-20; verified: 2025-01-01"), 30, now),
            None
        );
        assert_eq!(overdue(&meta("since: 2026-01-01"), 0, now), None);
        assert_eq!(
            overdue(&meta("state: archived; since: 2020-01-01"), 30, now),
            None
        );
    }
}

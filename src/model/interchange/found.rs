//! A statement a format's reader found, before an import plans it against the ledger. Below the
//! readers and the import, which share it.

use crate::model::facts::file::{Relation, State};

/// A statement found in a source, before it is planned against the ledger.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    pub text: String,
    /// Where it came from, `CLAUDE.md:12`: the first evidence of its operation.
    pub source: String,
    /// The evidence the source gives for it.
    pub evidence: Vec<String>,
    /// The files the source says it applies to, as scope globs (a Cursor rule's `globs`).
    pub scope: Vec<String>,
    /// What the source says about where it belongs: a heading, a tag or a namespace.
    pub hint: Option<String>,
    /// The state it starts in, when the source says it is not current.
    pub state: Option<State>,
    /// The source's own id for it (a UUID, `adr:0003`), which relations name.
    pub key: Option<String>,
    /// The mneme fact id it had, when it comes from a mneme export.
    pub fact_id: Option<String>,
    /// Relations to other statements, by their keys or mneme fact ids.
    pub relations: Vec<(Relation, String)>,
    /// For a superseded statement: the key or fact id of what replaced it.
    pub superseded_by: Option<String>,
    /// The keys of statements this one replaced (they say nothing of it themselves).
    pub supersedes: Vec<String>,
    /// Why the source's reader did not take it as a statement (a label, a lead-in with nothing
    /// after it): listed under `refused`, never proposed.
    pub skipped: Option<String>,
}

impl Found {
    /// Records a link the source gives from this statement to `target`: `supersedes` names a
    /// statement it replaced; a relation mneme knows (`depends_on`, or `depends-on` as MIF
    /// writes it) is kept as that relation; any other relates the two.
    pub fn link(&mut self, kind: &str, target: String) {
        let kind = kind.replace('-', "_");
        if kind == "supersedes" {
            self.supersedes.push(target);
        } else {
            let relation = Relation::parse(&kind).unwrap_or(Relation::RelatesTo);
            self.relations.push((relation, target));
        }
    }

    /// The evidence its operation carries: a statement from a mneme export keeps the fact's own
    /// (citing the export would cite a copy of the ledger); any other cites its source line
    /// first.
    pub(super) fn evidence(&self) -> Vec<String> {
        if self.fact_id.is_some() {
            return self.evidence.clone();
        }
        let mut out = vec![self.source.clone()];
        out.extend(self.evidence.iter().filter(|e| **e != self.source).cloned());
        out
    }
}

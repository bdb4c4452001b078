//! Evidence drift: facts whose cited files changed after a person last vouched for them (an
//! approval that added, updated or verified the fact). History finds the commits; this module
//! says which facts to watch and what the change did to each citation.

use serde::Serialize;
use similar::TextDiff;

use crate::model::base::time::Timestamp;
use crate::model::evidence::cited::inside;
use crate::model::evidence::refs::{classify, line_fate, with_path, Evidence, LineFate};
use crate::model::facts::file::{Fact, FactFile};

/// A fact whose evidence names repository files.
#[derive(Debug, Clone)]
pub struct Watched {
    pub fact: String,
    pub file: String,
    pub text: String,
    /// The evidence references that name a file inside the repository.
    pub refs: Vec<Cited>,
    /// Midnight (UTC) of the day the fact was last vouched for, from its metadata: what is shown
    /// when the history walked holds no commit that vouched for it.
    pub dated: Option<Timestamp>,
}

/// One file reference of a fact's evidence.
#[derive(Debug, Clone)]
pub struct Cited {
    pub evidence: String,
    pub path: String,
    pub lines: Option<(usize, usize)>,
}

/// The references among `evidence` that name a file inside the repository.
pub fn cited_files(evidence: &[String]) -> Vec<Cited> {
    evidence
        .iter()
        .filter_map(|e| match classify(e) {
            Evidence::File { path, lines } if inside(path) => Some(Cited {
                evidence: e.clone(),
                path: path
                    .trim_start_matches("./")
                    .trim_end_matches('/')
                    .to_owned(),
                lines,
            }),
            _ => None,
        })
        .collect()
}

impl Watched {
    /// The current fact `fact` of `file`, when it has an id and cites a repository file.
    pub fn of(file: &str, fact: &Fact) -> Option<Watched> {
        let id = fact.id.as_ref()?;
        if !fact.meta.is_current() {
            return None;
        }
        let refs = cited_files(&fact.meta.evidence);
        (!refs.is_empty()).then(|| Watched {
            fact: id.clone(),
            file: file.to_owned(),
            text: fact.text.clone(),
            refs,
            dated: fact.meta.checked_at(),
        })
    }

    /// Whether `file`, a version of the fact's file, holds the fact as it reads now: its id, its
    /// text and the day it was last vouched for.
    pub fn reads_as_now(&self, file: &FactFile) -> bool {
        file.facts().any(|f| {
            f.id.as_deref() == Some(self.fact.as_str())
                && f.text == self.text
                && f.meta.checked_at() == self.dated
        })
    }

    /// The distinct paths the fact cites.
    pub fn paths(&self) -> Vec<&str> {
        let mut paths: Vec<&str> = self.refs.iter().map(|r| r.path.as_str()).collect();
        paths.sort_unstable();
        paths.dedup();
        paths
    }
}

/// A commit as a drift report lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommitRef {
    pub id: String,
    pub date: String,
    pub subject: String,
}

/// What the commits did to one citation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DriftKind {
    /// The file, or a cited line, changed.
    Changed,
    /// The cited lines are unchanged but now at other numbers.
    Moved,
    /// The file is gone.
    Deleted,
    /// The file is gone and another took its place (same or similar content).
    Renamed,
}

impl DriftKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DriftKind::Changed => "changed",
            DriftKind::Moved => "moved",
            DriftKind::Deleted => "deleted",
            DriftKind::Renamed => "renamed",
        }
    }
}

/// One citation that drifted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvidenceDrift {
    pub evidence: String,
    pub kind: DriftKind,
    /// Where the citation points now: the moved lines (`src/db.rs:14-22`) or the new path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
    /// The commits that changed the file, newest first.
    pub commits: Vec<CommitRef>,
}

/// A fact with the citations that drifted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Drifted {
    pub fact: String,
    pub file: String,
    pub text: String,
    /// What the drift is measured from.
    pub since: Since,
    pub evidence: Vec<EvidenceDrift>,
}

/// The newest approval or verification of the fact in history, or, without one, the date in
/// its metadata (`commit` is then `null`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Since {
    pub commit: Option<String>,
    pub date: String,
}

/// A path's object at one commit: its id, and its text when it is a file (not a directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub id: String,
    pub text: Option<String>,
}

/// What changed for a citation between `before` (its path when last vouched for, `None` if
/// absent) and `now` (`None` if gone; `renamed` is where it went); `None` when nothing the
/// citation covers changed.
pub fn assess(
    cited: &Cited,
    before: Option<&Version>,
    now: Option<&Version>,
    renamed: Option<&str>,
) -> Option<(DriftKind, Option<String>)> {
    let Some(now) = now else {
        return Some(match renamed {
            Some(to) => (
                DriftKind::Renamed,
                Some(with_path(&cited.evidence, &cited.path, to)),
            ),
            None => (DriftKind::Deleted, None),
        });
    };
    let Some(before) = before else {
        return Some((DriftKind::Changed, None));
    };
    if before.id == now.id {
        return None;
    }
    let (Some(lines), Some(old), Some(new)) = (cited.lines, &before.text, &now.text) else {
        return Some((DriftKind::Changed, None));
    };
    match line_fate(old, new, lines) {
        LineFate::Kept => None,
        LineFate::Changed => Some((DriftKind::Changed, None)),
        LineFate::Moved(first, last) => {
            let at = if first == last {
                format!("{}:{first}", cited.path)
            } else {
                format!("{}:{first}-{last}", cited.path)
            };
            Some((DriftKind::Moved, Some(at)))
        }
    }
}

/// Of the files a commit added, the one most like `old` (at least half its lines in common),
/// where a file that vanished in that commit most likely went.
pub fn likely_rename<'a>(old: &str, added: &'a [(String, String)]) -> Option<&'a str> {
    added
        .iter()
        .map(|(path, text)| (TextDiff::from_lines(old, text.as_str()).ratio(), path))
        .filter(|(ratio, _)| *ratio >= 0.5)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, path)| path.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::facts::file::FactFile;

    fn watched(line: &str) -> Option<Watched> {
        let file = FactFile::parse(&format!("# T\n\n{line}\n")).unwrap();
        let fact = file.facts().next().unwrap().clone();
        Watched::of("t.md", &fact)
    }

    #[test]
    fn only_current_facts_citing_repository_files_are_watched() {
        let w = watched("- **f-aaaa** A. <!-- since: 2026-01-02; evidence: src/a.rs:3-4 ./b.md https://x.org ../up.rs src\\..\\..\\up.rs C:/up.rs -->").unwrap();
        let paths: Vec<&str> = w.refs.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(paths, ["src/a.rs", "b.md"]);
        assert_eq!(w.refs[0].lines, Some((3, 4)));
        assert_eq!(w.dated, Timestamp::parse("2026-01-02"));
        assert!(watched("- **f-aaaa** A. <!-- evidence: PR#8 -->").is_none());
        assert!(watched("- A. <!-- evidence: src/a.rs -->").is_none());
        assert!(watched("- **f-aaaa** A. <!-- state: archived; evidence: src/a.rs -->").is_none());
    }

    #[test]
    fn citations_are_assessed_by_what_they_cover() {
        let cited = |e: &str| {
            let Evidence::File { path, lines } = classify(e) else {
                panic!()
            };
            Cited {
                evidence: e.to_owned(),
                path: path.to_owned(),
                lines,
            }
        };
        let v = |text: &str| Version {
            id: format!(
                "{:x}",
                text.len() * 7919 + text.bytes().map(usize::from).sum::<usize>()
            ),
            text: Some(text.to_owned()),
        };
        let (whole, lines) = (cited("src/a.rs"), cited("src/a.rs:2"));
        let a = v("a\n");
        assert_eq!(assess(&whole, Some(&a), Some(&a), None), None);
        assert_eq!(
            assess(&whole, Some(&a), Some(&v("b\n")), None),
            Some((DriftKind::Changed, None))
        );
        let ab = v("a\nb\n");
        assert_eq!(assess(&lines, Some(&ab), Some(&v("a\nb\nc\n")), None), None);
        assert_eq!(
            assess(&lines, Some(&ab), Some(&v("x\na\nb\n")), None),
            Some((DriftKind::Moved, Some("src/a.rs:3".into())))
        );
        assert_eq!(
            assess(&lines, Some(&ab), None, Some("src/b.rs")),
            Some((DriftKind::Renamed, Some("src/b.rs:2".into())))
        );
        assert_eq!(
            assess(&whole, Some(&a), None, None),
            Some((DriftKind::Deleted, None))
        );
        // Added after the fact was vouched for.
        assert_eq!(
            assess(&lines, None, Some(&ab), None),
            Some((DriftKind::Changed, None))
        );
        // A directory changed: no lines to follow.
        let dir = |id: &str| Version {
            id: id.into(),
            text: None,
        };
        assert_eq!(
            assess(
                &cited("src/model/x.rs:2"),
                Some(&dir("1")),
                Some(&dir("2")),
                None
            ),
            Some((DriftKind::Changed, None))
        );
    }

    #[test]
    fn a_vanished_file_is_matched_to_the_most_similar_added_one() {
        let old = "one\ntwo\nthree\nfour\n";
        let added = vec![
            ("src/unrelated.rs".to_owned(), "x\ny\nz\n".to_owned()),
            (
                "src/moved.rs".to_owned(),
                "one\ntwo\nthree\nfive\n".to_owned(),
            ),
        ];
        assert_eq!(likely_rename(old, &added), Some("src/moved.rs"));
        assert_eq!(likely_rename(old, &added[..1]), None);
    }
}

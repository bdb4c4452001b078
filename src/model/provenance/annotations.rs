//! `verify`'s findings as annotations on the lines they are about: an unreviewed or unapproved
//! fact on its line in the fact file, a record that does not count on the record, a drifted
//! citation on the fact and on the cited code. Rendered as GitHub Actions workflow commands,
//! which the forge shows on the pull request's files and in the log, or as GitLab Code
//! Quality issues, which GitLab shows in the merge request.

use std::collections::BTreeMap;

use crate::model::base::code_quality::Issue;
use crate::model::base::paths;
use crate::model::base::text::escape_line;
use crate::model::evidence::drift::{DriftKind, Drifted};
use crate::model::provenance::audit::Violation;
use crate::model::provenance::record::{State, StateIssue};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Fails the verification.
    Error,
    /// Asks for a look: a fact whose cited code changed.
    Warning,
}

/// One finding, where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    pub level: Level,
    /// Repository-relative path.
    pub file: String,
    pub line: Option<usize>,
    pub title: &'static str,
    pub message: String,
}

/// Where each fact of the range's head is: fact id → (fact file path, line).
pub type FactLines = BTreeMap<String, (String, usize)>;

/// The annotations of a verification's parts: `violations` (unreviewed commits), the records'
/// `state`, and the facts to `recheck`, placed by `lines`.
pub fn annotations(
    violations: &[Violation],
    state: Option<&State>,
    recheck: &[Drifted],
    lines: &FactLines,
) -> Vec<Annotation> {
    let mut out = unreviewed(violations, lines);
    if let Some(state) = state {
        out.extend(not_as_approved(state, lines));
    }
    out.extend(to_recheck(recheck, lines));
    out
}

/// Where a fact is at the head, else `fallback` (a file, no line).
fn on_fact(lines: &FactLines, fact: &str, fallback: &str) -> (String, Option<usize>) {
    match lines.get(fact) {
        Some((file, line)) => (file.clone(), Some(*line)),
        None => (fallback.to_owned(), None),
    }
}

/// Each unreviewed commit, on every fact (else file) it changed.
fn unreviewed(violations: &[Violation], lines: &FactLines) -> Vec<Annotation> {
    let mut out = Vec::new();
    for v in violations {
        let what = format!(
            "commit {} ({}) changed the facts without review: {}",
            v.commit.get(..12).unwrap_or(&v.commit),
            v.author,
            v.problems.join("; ")
        );
        let fallback = v.files.first().map_or(paths::FACTS, String::as_str);
        let places: Vec<(String, Option<usize>)> = if v.facts.is_empty() {
            v.files.iter().map(|f| (f.clone(), None)).collect()
        } else {
            v.facts
                .iter()
                .map(|f| on_fact(lines, f, fallback))
                .collect()
        };
        for (file, line) in places {
            out.push(Annotation {
                level: Level::Error,
                file,
                line,
                title: "unreviewed fact change",
                message: what.clone(),
            });
        }
    }
    out
}

/// The facts not as their records approved them, and the records that do not count.
fn not_as_approved(state: &State, lines: &FactLines) -> Vec<Annotation> {
    let mut out = Vec::new();
    for issue in &state.issues {
        let (file, line) = match issue {
            StateIssue::Missing { record, .. } => (paths::decision_file(record), None),
            StateIssue::Unapproved { fact, file } | StateIssue::Differs { fact, file, .. } => {
                on_fact(lines, fact, &paths::fact_file(file))
            }
        };
        out.push(Annotation {
            level: Level::Error,
            file,
            line,
            title: "fact not as approved",
            message: issue.to_string(),
        });
    }
    let records = state
        .removed
        .iter()
        .map(|file| {
            (
                file,
                "a decision record was removed; records are only ever added".to_owned(),
            )
        })
        .chain(state.invalid.iter().map(|i| (&i.file, i.why.clone())))
        .chain(
            state
                .unproven
                .iter()
                .map(|i| (&i.file, format!("the approval does not count: {}", i.why))),
        );
    for (file, why) in records {
        out.push(Annotation {
            level: Level::Error,
            file: file.clone(),
            line: None,
            title: "decision record",
            message: why,
        });
    }
    out
}

/// The facts whose cited code changed: on the fact, and on the lines it cites.
fn to_recheck(recheck: &[Drifted], lines: &FactLines) -> Vec<Annotation> {
    let mut out = Vec::new();
    for d in recheck {
        let (file, line) = on_fact(lines, &d.fact, &paths::fact_file(&d.file));
        for e in &d.evidence {
            let by = e
                .commits
                .first()
                .map(|c| format!(" ({}, {})", c.id.get(..12).unwrap_or(&c.id), c.subject))
                .unwrap_or_default();
            out.push(Annotation {
                level: Level::Warning,
                file: file.clone(),
                line,
                title: "cited code changed",
                message: format!(
                    "{} cites {}, which changed since it was last approved or verified{by}: re-check the fact",
                    d.fact, e.evidence
                ),
            });
            let place = match e.kind {
                DriftKind::Deleted => None,
                _ => cited_place(e.now.as_deref().unwrap_or(&e.evidence)),
            };
            if let Some((path, at)) = place {
                out.push(Annotation {
                    level: Level::Warning,
                    file: path.to_owned(),
                    line: at,
                    title: "a fact cites this code",
                    message: format!(
                        "{} cites these lines and was approved before they changed: {}",
                        d.fact, d.text
                    ),
                });
            }
        }
    }
    out
}

/// `src/db.rs:40-52` → (`src/db.rs`, 40); a commit id or URL is no place in the tree.
fn cited_place(evidence: &str) -> Option<(&str, Option<usize>)> {
    if evidence.contains("://") {
        return None;
    }
    let (path, lines) = match evidence.rsplit_once(':') {
        Some((path, lines)) if lines.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
            (path, lines.split('-').next().and_then(|n| n.parse().ok()))
        }
        _ => (evidence, None),
    };
    path.contains(['/', '.']).then_some((path, lines))
}

/// The annotations as GitHub Actions workflow commands, one line each. Every value is escaped
/// as the runner reads it, so no text from a branch can end the line or start a command.
pub fn github(annotations: &[Annotation]) -> String {
    let mut out = String::new();
    for a in annotations {
        let level = match a.level {
            Level::Error => "error",
            Level::Warning => "warning",
        };
        out.push_str(&format!("::{level} file={}", property(&a.file)));
        if let Some(line) = a.line {
            out.push_str(&format!(",line={line}"));
        }
        out.push_str(&format!(
            ",title={}::{}\n",
            property(&format!("mneme verify: {}", a.title)),
            data(&a.message)
        ));
    }
    out
}

/// The annotations as GitLab Code Quality issues.
pub fn code_quality(annotations: &[Annotation]) -> Vec<Issue> {
    annotations
        .iter()
        .map(|a| Issue {
            check: format!("mneme verify: {}", a.title),
            description: escape_line(&a.message).into_owned(),
            path: a.file.clone(),
            line: a.line,
            fails: a.level == Level::Error,
        })
        .collect()
}

/// A command's message: `%`, CR and LF encoded, as the runner decodes them; other controls and
/// hidden characters escaped so what shows is what is stored.
fn data(s: &str) -> String {
    escape_line(s)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property: as [`data`], and `:` and `,`, which would end it.
fn property(s: &str) -> String {
    data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::evidence::drift::{CommitRef, EvidenceDrift, Since};
    use crate::model::provenance::record::InvalidRecord;

    fn lines() -> FactLines {
        [(
            "f-aaaa".to_owned(),
            (".ledger/facts/pitfalls.md".to_owned(), 9),
        )]
        .into_iter()
        .collect()
    }

    #[test]
    fn an_unreviewed_fact_is_marked_on_its_line() {
        let v = Violation {
            commit: "0123456789abcdef0123".into(),
            author: "Agent <a@x>".into(),
            subject: "edit".into(),
            files: vec![".ledger/facts/pitfalls.md".into()],
            facts: vec!["f-aaaa".into(), "f-gone".into()],
            problems: vec!["f-aaaa changed outside review".into()],
        };
        let a = annotations(&[v], None, &[], &lines());
        assert_eq!(a.len(), 2);
        assert_eq!(
            (a[0].file.as_str(), a[0].line),
            (".ledger/facts/pitfalls.md", Some(9))
        );
        // A fact the head no longer has is marked on the file the commit changed.
        assert_eq!(
            (a[1].file.as_str(), a[1].line),
            (".ledger/facts/pitfalls.md", None)
        );
        let text = github(&a);
        assert!(text.starts_with(
            "::error file=.ledger/facts/pitfalls.md,line=9,title=mneme verify%3A unreviewed fact change::commit 0123456789ab (Agent <a@x>)"
        ), "{text}");
    }

    #[test]
    fn a_drifted_citation_is_marked_on_the_fact_and_on_the_code() {
        let d = Drifted {
            fact: "f-aaaa".into(),
            file: "pitfalls.md".into(),
            text: "The pool holds 10.".into(),
            since: Since {
                commit: None,
                date: "2026-11-01".into(),
            },
            evidence: vec![EvidenceDrift {
                evidence: "src/db.rs:40-52".into(),
                kind: DriftKind::Changed,
                now: None,
                commits: vec![CommitRef {
                    id: "fedcba9876543210".into(),
                    date: "2026-11-02".into(),
                    subject: "resize".into(),
                }],
            }],
        };
        let a = annotations(&[], None, &[d], &lines());
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].level, Level::Warning);
        assert_eq!(a[0].line, Some(9));
        assert_eq!((a[1].file.as_str(), a[1].line), ("src/db.rs", Some(40)));
        assert!(a[1].message.ends_with("The pool holds 10."));
    }

    #[test]
    fn records_that_do_not_count_are_marked_on_the_record() {
        let state = State {
            records: 2,
            issues: vec![
                StateIssue::Unapproved {
                    fact: "f-aaaa".into(),
                    file: "pitfalls.md".into(),
                },
                StateIssue::Missing {
                    fact: "f-gone".into(),
                    record: "20261101T000000Z-0000aaaa".into(),
                },
            ],
            invalid: Vec::new(),
            removed: Vec::new(),
            unproven: vec![InvalidRecord {
                file: ".ledger/decisions/20261102T000000Z-1111bbbb.json".into(),
                why: "signed by a key allowed_signers does not list".into(),
            }],
        };
        let a = annotations(&[], Some(&state), &[], &lines());
        let places: Vec<(&str, Option<usize>)> =
            a.iter().map(|a| (a.file.as_str(), a.line)).collect();
        assert_eq!(
            places,
            [
                (".ledger/facts/pitfalls.md", Some(9)),
                (".ledger/decisions/20261101T000000Z-0000aaaa.json", None),
                (".ledger/decisions/20261102T000000Z-1111bbbb.json", None),
            ]
        );
        assert!(a[2]
            .message
            .starts_with("the approval does not count: signed by a key"));
        assert!(a.iter().all(|a| a.level == Level::Error));
    }

    #[test]
    fn text_from_a_branch_cannot_start_a_command() {
        let a = Annotation {
            level: Level::Error,
            file: "a,b:c.md".into(),
            line: None,
            title: "x",
            message: "100%\n::set-env name=X::y\r".into(),
        };
        let text = github(&[a]);
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(
            text.starts_with("::error file=a%2Cb%3Ac.md,title="),
            "{text}"
        );
        assert!(!text.contains("\n::set-env"), "{text}");
        assert!(text.contains("100%25"), "{text}");
    }
}

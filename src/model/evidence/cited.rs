//! What an evidence reference points at, as a reviewer needs to see it: the cited lines, or that
//! the file is missing or shorter than cited. Pure: the file's text is given.

use serde::Serialize;

use crate::model::evidence::refs::{classify, Evidence};

/// Most lines shown of one citation; the rest are counted.
pub const MAX_LINES: usize = 8;
/// Longest line shown, in characters; longer ones are cut with `…`.
const MAX_LINE_CHARS: usize = 160;

/// One evidence reference, resolved against the work tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Cited {
    /// Lines of a file that has them: `(number, text)`, at most [`MAX_LINES`]; `more` counts
    /// the cited lines left out.
    Lines {
        evidence: String,
        path: String,
        lines: Vec<(usize, String)>,
        more: usize,
    },
    /// A whole file that exists.
    File { evidence: String, path: String },
    /// No such file in the work tree.
    Missing { evidence: String, path: String },
    /// The file has fewer lines than the citation names.
    OutOfRange {
        evidence: String,
        path: String,
        first: usize,
        last: usize,
        file_lines: usize,
    },
    /// A path that leaves the repository (absolute, or through `..`).
    Outside { evidence: String, path: String },
    /// Not a repository file: a URL, a commit, a task, an issue.
    Other { evidence: String },
}

impl Cited {
    /// What is wrong with the citation, for a warning; `None` when it points at something.
    pub fn problem(&self) -> Option<String> {
        match self {
            Cited::Missing { path, .. } => Some(format!("{path} does not exist in the work tree")),
            Cited::OutOfRange {
                path,
                first,
                last,
                file_lines,
                ..
            } => Some(if first == last {
                format!("{path} has {file_lines} line(s); line {first} is past its end")
            } else {
                format!("{path} has {file_lines} line(s); lines {first}-{last} run past its end")
            }),
            Cited::Outside { path, .. } => Some(format!("{path} is outside the repository")),
            _ => None,
        }
    }

    pub fn evidence(&self) -> &str {
        match self {
            Cited::Lines { evidence, .. }
            | Cited::File { evidence, .. }
            | Cited::Missing { evidence, .. }
            | Cited::OutOfRange { evidence, .. }
            | Cited::Outside { evidence, .. }
            | Cited::Other { evidence } => evidence,
        }
    }
}

/// Whether `path` stays inside the repository: relative, with no `..` step.
pub fn inside(path: &str) -> bool {
    !path.starts_with('/')
        && !path.starts_with('\\')
        && !path.get(1..3).is_some_and(|s| s == ":\\" || s == ":/")
        && path.split(['/', '\\']).all(|part| part != "..")
}

/// Resolves `evidence` given the cited file's text (`None`: there is no such file).
pub fn cite(evidence: &str, file: Option<&str>) -> Cited {
    let evidence_owned = evidence.to_owned();
    let Evidence::File { path, lines } = classify(evidence) else {
        return Cited::Other {
            evidence: evidence_owned,
        };
    };
    let path_owned = path.to_owned();
    if !inside(path) {
        return Cited::Outside {
            evidence: evidence_owned,
            path: path_owned,
        };
    }
    let Some(text) = file else {
        return Cited::Missing {
            evidence: evidence_owned,
            path: path_owned,
        };
    };
    let Some((first, last)) = lines else {
        return Cited::File {
            evidence: evidence_owned,
            path: path_owned,
        };
    };
    let file_lines = text.lines().count();
    if last > file_lines {
        return Cited::OutOfRange {
            evidence: evidence_owned,
            path: path_owned,
            first,
            last,
            file_lines,
        };
    }
    let shown: Vec<(usize, String)> = text
        .lines()
        .enumerate()
        .skip(first - 1)
        .take((last - first + 1).min(MAX_LINES))
        .map(|(i, line)| (i + 1, clip(line)))
        .collect();
    Cited::Lines {
        evidence: evidence_owned,
        path: path_owned,
        more: (last - first + 1).saturating_sub(shown.len()),
        lines: shown,
    }
}

fn clip(line: &str) -> String {
    if line.chars().count() <= MAX_LINE_CHARS {
        return line.to_owned();
    }
    let cut: String = line.chars().take(MAX_LINE_CHARS - 1).collect();
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn citations_resolve_to_lines_or_say_what_is_wrong() {
        let file = "one\ntwo\nthree\n";
        assert_eq!(
            cite("src/a.rs:2-3", Some(file)),
            Cited::Lines {
                evidence: "src/a.rs:2-3".into(),
                path: "src/a.rs".into(),
                lines: vec![(2, "two".into()), (3, "three".into())],
                more: 0
            }
        );
        let past = cite("src/a.rs:3-9", Some(file));
        assert_eq!(
            past.problem().unwrap(),
            "src/a.rs has 3 line(s); lines 3-9 run past its end"
        );
        assert_eq!(
            cite("src/nope.rs:1", None).problem().unwrap(),
            "src/nope.rs does not exist in the work tree"
        );
        assert!(cite("../etc/passwd", None)
            .problem()
            .unwrap()
            .contains("outside"));
        assert!(cite("/etc/passwd", None).problem().is_some());
        assert_eq!(cite("https://example.com/x", None).problem(), None);
        assert_eq!(cite("src/a.rs", Some(file)).problem(), None);
        let long = "x\n".repeat(30);
        let Cited::Lines { lines, more, .. } = cite("a.rs:1-30", Some(&long)) else {
            panic!()
        };
        assert_eq!((lines.len(), more), (MAX_LINES, 30 - MAX_LINES));
    }
}

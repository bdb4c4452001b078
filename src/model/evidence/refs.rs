//! Evidence references: which of them name a repository file (and lines in it), where a path
//! given from a subdirectory sits in the repository, and what became of cited lines when their
//! file changed.

use similar::{DiffOp, TextDiff};

/// Where a reference points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Evidence<'e> {
    /// A repository file, optionally lines in it (first and last, 1-based, inclusive).
    File {
        path: &'e str,
        lines: Option<(usize, usize)>,
    },
    /// A URL, commit id, task id (`t-ab12`) or other reference mneme does not resolve to a file.
    Other,
}

/// Classifies an evidence reference: `src/a.rs`, `src/a.rs:12`, `src/a.rs:12-20`,
/// `src/a.rs#L12` and `src/a.rs#L12-L20` are files; URLs, commit ids, task ids and
/// `#412`-style references are not.
pub fn classify(e: &str) -> Evidence<'_> {
    let is_commit = (7..=40).contains(&e.len()) && e.bytes().all(|b| b.is_ascii_hexdigit());
    if e.contains("://") || is_commit || e.starts_with('#') || !(e.contains('/') || e.contains('.'))
    {
        return Evidence::Other;
    }
    let split = e.rsplit_once(':').or_else(|| e.rsplit_once("#L"));
    if let Some((path, lines)) = split.and_then(|(p, l)| Some((p, parse_lines(l)?))) {
        return Evidence::File {
            path,
            lines: Some(lines),
        };
    }
    Evidence::File {
        path: e,
        lines: None,
    }
}

/// `12`, `12-20` or `12-L20`; the last line is never before the first.
fn parse_lines(s: &str) -> Option<(usize, usize)> {
    let (first, last) = match s.split_once('-') {
        Some((a, b)) => (a, b.trim_start_matches('L')),
        None => (s, s),
    };
    let first: usize = first.parse().ok().filter(|&n| n > 0)?;
    let last: usize = last.parse().ok()?;
    Some((first, last.max(first)))
}

/// The reference `e` with its file path `old` replaced by `new`, its line suffix kept.
pub fn with_path(e: &str, old: &str, new: &str) -> String {
    format!("{new}{}", e.strip_prefix(old).unwrap_or(""))
}

/// Rewrites a file reference given from the subdirectory `prefix` of the repository (`src/cli`,
/// `/`-separated, empty at the root) as a path from the root, when `exists` finds the file there;
/// anything else is returned unchanged. `..` steps are resolved; a path that leaves the
/// repository is left as given, for `check` to report.
pub fn from_root(e: &str, prefix: &str, exists: impl Fn(&str) -> bool) -> String {
    let Evidence::File { path, .. } = classify(e) else {
        return e.to_owned();
    };
    if prefix.is_empty() || path.starts_with('/') {
        return e.to_owned();
    }
    let mut parts: Vec<&str> = prefix.split('/').filter(|p| !p.is_empty()).collect();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return e.to_owned();
                }
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    if exists(&joined) {
        with_path(e, path, &joined)
    } else {
        e.to_owned()
    }
}

/// What became of cited lines between two versions of their file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineFate {
    /// The same lines, at the same place.
    Kept,
    /// The same lines, now at these numbers.
    Moved(usize, usize),
    /// A line of the range was edited or removed, or text was inserted inside it, or the range
    /// was not in the old version at all.
    Changed,
}

/// Follows `lines` (1-based, inclusive) of `old` into `new`.
pub fn line_fate(old: &str, new: &str, lines: (usize, usize)) -> LineFate {
    let (first, last) = (lines.0 - 1, lines.1);
    if last > old.lines().count() {
        return LineFate::Changed;
    }
    let diff = TextDiff::from_lines(old, new);
    let mut moved_to = None;
    for op in diff.ops() {
        let old_range = op.old_range();
        match *op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                if (old_index..old_index + len).contains(&first) {
                    moved_to = Some(first - old_index + new_index);
                }
            }
            // An insertion touches the range when it lands between two of its lines.
            DiffOp::Insert { old_index, .. } => {
                if old_index > first && old_index < last {
                    return LineFate::Changed;
                }
            }
            DiffOp::Delete { .. } | DiffOp::Replace { .. } => {
                if old_range.start < last && first < old_range.end {
                    return LineFate::Changed;
                }
            }
        }
    }
    match moved_to {
        Some(at) if at == first => LineFate::Kept,
        Some(at) => LineFate::Moved(at + 1, at + 1 + (last - 1 - first)),
        None => LineFate::Changed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification() {
        let file = |path, lines| Evidence::File { path, lines };
        assert_eq!(classify("src/a.rs:12"), file("src/a.rs", Some((12, 12))));
        assert_eq!(classify("src/a.rs:12-20"), file("src/a.rs", Some((12, 20))));
        assert_eq!(classify("src/a.rs#L7"), file("src/a.rs", Some((7, 7))));
        assert_eq!(classify("src/a.rs#L7-L9"), file("src/a.rs", Some((7, 9))));
        assert_eq!(classify("src/a.rs:20-12"), file("src/a.rs", Some((20, 20))));
        assert_eq!(classify("README.md"), file("README.md", None));
        assert_eq!(classify("src/a.rs:main"), file("src/a.rs:main", None));
        for other in [
            "https://example.com/a.rs",
            "a1b2c3d",
            "#412",
            "PR-12",
            "t-ab12",
        ] {
            assert_eq!(classify(other), Evidence::Other, "{other}");
        }
    }

    #[test]
    fn paths_from_a_subdirectory_are_rebased_when_the_file_is_there() {
        let exists = |p: &str| ["src/db.rs", "docs/a.md"].contains(&p);
        assert_eq!(from_root("db.rs:12-20", "src", exists), "src/db.rs:12-20");
        assert_eq!(from_root("../docs/a.md", "src", exists), "docs/a.md");
        assert_eq!(from_root("./db.rs", "src/", exists), "src/db.rs");
        // Already from the root, or not a file here: unchanged.
        assert_eq!(from_root("src/db.rs", "src", exists), "src/db.rs");
        assert_eq!(from_root("db.rs", "", exists), "db.rs");
        assert_eq!(from_root("../../x.rs", "src", exists), "../../x.rs");
        assert_eq!(
            from_root("https://x.org/a", "src", exists),
            "https://x.org/a"
        );
    }

    #[test]
    fn cited_lines_are_followed() {
        let old = "a\nb\nc\nd\ne\n";
        assert_eq!(line_fate(old, old, (2, 3)), LineFate::Kept);
        // Edits elsewhere leave the lines where they were.
        assert_eq!(line_fate(old, "a\nb\nc\nd\nE\n", (2, 3)), LineFate::Kept);
        assert_eq!(
            line_fate(old, "x\ny\na\nb\nc\nd\ne\n", (2, 3)),
            LineFate::Moved(4, 5)
        );
        assert_eq!(
            line_fate(old, "b\nc\nd\ne\n", (2, 3)),
            LineFate::Moved(1, 2)
        );
        // An insertion right before or after the range moves or keeps it.
        assert_eq!(
            line_fate(old, "a\nx\nb\nc\nd\ne\n", (2, 3)),
            LineFate::Moved(3, 4)
        );
        assert_eq!(line_fate(old, "a\nb\nc\nx\nd\ne\n", (2, 3)), LineFate::Kept);
        // Inside, or an edited or removed line: changed.
        assert_eq!(
            line_fate(old, "a\nb\nx\nc\nd\ne\n", (2, 3)),
            LineFate::Changed
        );
        assert_eq!(line_fate(old, "a\nB\nc\nd\ne\n", (2, 3)), LineFate::Changed);
        assert_eq!(line_fate(old, "a\nc\nd\ne\n", (2, 3)), LineFate::Changed);
        assert_eq!(line_fate(old, "a\nb\n", (2, 3)), LineFate::Changed);
        assert_eq!(line_fate(old, old, (5, 9)), LineFate::Changed);
    }
}

//! Line diffs of fact files with word-level emphasis, as values; the CLI paints them.

use similar::{ChangeTag, TextDiff};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// `@@ -a,b +c,d @@`
    pub header: String,
    pub lines: Vec<Line>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    Context,
    Removed,
    Added,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub tag: Tag,
    /// `(emphasised, text)` pieces; emphasised pieces are the words that changed. Line endings
    /// are not included.
    pub parts: Vec<(bool, String)>,
}

/// Hunks of a line diff from `old` to `new` with `context` lines around each change.
pub fn hunks(old: &str, new: &str, context: usize) -> Vec<Hunk> {
    let diff = TextDiff::from_lines(old, new);
    diff.grouped_ops(context)
        .into_iter()
        .map(|group| {
            let (first, last) = (&group[0], &group[group.len() - 1]);
            let old_range = first.old_range().start..last.old_range().end;
            let new_range = first.new_range().start..last.new_range().end;
            let header = format!(
                "@@ -{} +{} @@",
                range(old_range.start, old_range.len()),
                range(new_range.start, new_range.len())
            );
            let lines = group
                .iter()
                .flat_map(|op| diff.iter_inline_changes(op))
                .map(|change| Line {
                    tag: match change.tag() {
                        ChangeTag::Equal => Tag::Context,
                        ChangeTag::Delete => Tag::Removed,
                        ChangeTag::Insert => Tag::Added,
                    },
                    parts: change
                        .iter_strings_lossy()
                        .map(|(emph, s)| (emph, s.trim_end_matches(['\n', '\r']).to_owned()))
                        .filter(|(_, s)| !s.is_empty())
                        .collect(),
                })
                .collect();
            Hunk { header, lines }
        })
        .collect()
}

fn range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

/// A plain unified diff with `a/` and `b/` headers, for JSON output and patches.
pub fn unified(path: &str, old: &str, new: &str, context: usize) -> String {
    TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(context)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_mark_changed_words() {
        let old = "a\nb\n- **f-1** We use PostgreSQL 16.\nc\n";
        let new = "a\nb\n- **f-1** We use PostgreSQL 17.\nc\n";
        let h = hunks(old, new, 1);
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].header, "@@ -2,3 +2,3 @@");
        let tags: Vec<_> = h[0].lines.iter().map(|l| l.tag).collect();
        assert_eq!(tags, [Tag::Context, Tag::Removed, Tag::Added, Tag::Context]);
        let emphasised: Vec<_> = h[0].lines[2]
            .parts
            .iter()
            .filter(|p| p.0)
            .map(|p| p.1.as_str())
            .collect();
        assert_eq!(emphasised, ["17."]);
    }

    #[test]
    fn unified_has_headers() {
        let u = unified(".ledger/facts/a.md", "x\n", "y\n", 3);
        assert!(
            u.starts_with(
                "--- a/.ledger/facts/a.md\n+++ b/.ledger/facts/a.md\n@@ -1 +1 @@\n-x\n+y\n"
            ),
            "{u}"
        );
        assert_eq!(hunks("same\n", "same\n", 3), []);
    }
}

//! Normalisation and similarity of fact statements, used to refuse exact duplicates and to
//! surface near-duplicates.

use std::collections::BTreeSet;

/// Lowercase words and numbers joined by single spaces: punctuation, Markdown emphasis and
/// spacing do not make two statements different.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars().flat_map(char::to_lowercase));
    }
    out
}

/// Dice coefficient of the two statements' sets of normalised words, in `0.0..=1.0`.
pub fn similarity(a: &str, b: &str) -> f64 {
    let words = |s: &str| -> BTreeSet<String> {
        normalize(s)
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(str::to_owned)
            .collect()
    };
    let (wa, wb) = (words(a), words(b));
    if wa.is_empty() || wb.is_empty() {
        return 0.0;
    }
    let shared = wa.intersection(&wb).count();
    2.0 * shared as f64 / (wa.len() + wb.len()) as f64
}

/// `s` with every control character but line feed and tab written as an escape (`\u{1b}`,
/// `\r`), so text from a file can reach a terminal without acting on it.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    escape(s, |c| c.is_control() && c != '\n' && c != '\t')
}

/// `s` on one line: every control character escaped, line breaks and tabs too.
pub fn escape_line(s: &str) -> std::borrow::Cow<'_, str> {
    escape(s, char::is_control)
}

fn escape(s: &str, escaped: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(&escaped) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if escaped(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Scores below this are not worth showing as "similar".
pub const SIMILAR_THRESHOLD: f64 = 0.5;

/// The `limit` candidates most similar to `text`, best first, at or above the threshold.
/// The text on one line: runs of whitespace, newlines included, become one space.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub fn most_similar<'a, T>(
    text: &str,
    candidates: impl IntoIterator<Item = (&'a str, T)>,
    limit: usize,
) -> Vec<(f64, T)> {
    let mut scored: Vec<(f64, T)> = candidates
        .into_iter()
        .map(|(c, t)| (similarity(text, c), t))
        .filter(|(s, _)| *s >= SIMILAR_THRESHOLD)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.truncate(limit);
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_ignores_case_punctuation_and_spacing() {
        assert_eq!(
            normalize("  We use **PostgreSQL 16**,\n not SQLite! "),
            "we use postgresql 16 not sqlite"
        );
        assert_eq!(normalize("Ünïcode ÉTÉ"), "ünïcode été");
        assert_eq!(normalize("..."), "");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(
            escape_controls("a\u{1b}[2Jb\r\nc\td"),
            "a\\u{1b}[2Jb\\r\nc\td"
        );
        assert_eq!(escape_line("a\nb\tc"), "a\\nb\\tc");
        assert!(matches!(
            escape_controls("plain"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn similarity_ranks_related_statements() {
        let a = "We use PostgreSQL 16, not SQLite.";
        assert_eq!(similarity(a, "we use postgresql 16 not sqlite"), 1.0);
        assert!(similarity(a, "We use PostgreSQL 15, not SQLite.") > 0.8);
        assert!(similarity(a, "Build with cargo") < SIMILAR_THRESHOLD);
        let ranked = most_similar(
            a,
            [("Build with cargo", 1), ("We use PostgreSQL 15", 2), (a, 3)],
            2,
        );
        assert_eq!(ranked.iter().map(|r| r.1).collect::<Vec<_>>(), [3, 2]);
    }
}

//! Normalisation and similarity of fact statements, used to refuse exact duplicates and to
//! surface near-duplicates.

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
    Words::of(a).dice(&Words::of(b))
}

/// The distinct words of a statement, as what [`similarity`] compares: hashes of its normalised
/// words, sorted. Computed once per statement, so comparing one text with thousands is a merge of
/// short integer lists, not thousands of normalisations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Words(Vec<u64>);

impl Words {
    pub fn of(text: &str) -> Words {
        Words::of_normalized(&normalize(text))
    }

    /// The words of a text [`normalize`] already returned.
    pub fn of_normalized(normalized: &str) -> Words {
        let mut hashes: Vec<u64> = normalized
            .split(' ')
            .filter(|w| !w.is_empty())
            .map(word_hash)
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        Words(hashes)
    }

    /// Words kept as [`Words::hashes`] gave them; `None` unless sorted and distinct.
    pub fn from_hashes(hashes: Vec<u64>) -> Option<Words> {
        hashes
            .windows(2)
            .all(|w| w[0] < w[1])
            .then_some(Words(hashes))
    }

    pub fn hashes(&self) -> &[u64] {
        &self.0
    }

    /// Dice coefficient of the two sets, in `0.0..=1.0`.
    pub fn dice(&self, other: &Words) -> f64 {
        let (a, b) = (&self.0, &other.0);
        if a.is_empty() || b.is_empty() {
            return 0.0;
        }
        let (mut i, mut j, mut shared) = (0, 0, 0usize);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    shared += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        2.0 * shared as f64 / (a.len() + b.len()) as f64
    }
}

/// FNV-1a: stable across runs and platforms, which a hash kept in a file must be.
fn word_hash(word: &str) -> u64 {
    word.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
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

/// The text on one line: runs of whitespace, newlines included, become one space.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The `limit` candidates most similar to `words`, best first, at or above the threshold.
pub fn most_similar<'a, T>(
    words: &Words,
    candidates: impl IntoIterator<Item = (&'a Words, T)>,
    limit: usize,
) -> Vec<(f64, T)> {
    let mut scored: Vec<(f64, T)> = candidates
        .into_iter()
        .map(|(c, t)| (words.dice(c), t))
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
        let candidates = ["Build with cargo", "We use PostgreSQL 15", a].map(Words::of);
        let ranked = most_similar(&Words::of(a), candidates.iter().zip([1, 2, 3]), 2);
        assert_eq!(ranked.iter().map(|r| r.1).collect::<Vec<_>>(), [3, 2]);
    }
}

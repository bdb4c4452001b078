//! Normalisation and similarity of fact statements, used to refuse exact duplicates and to
//! surface near-duplicates; escaping what would hide something on a terminal; widths.

use crate::model::base::hidden::{self, with_hidden};

/// Lowercase words and numbers joined by single spaces: punctuation, Markdown emphasis and
/// spacing do not make two statements different.
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    normalize_into(text, &mut out);
    out
}

/// [`normalize`] into `out`, emptied first: a ledger normalises each of its facts into one buffer.
pub fn normalize_into(text: &str, out: &mut String) {
    normalize_with(text, out, |_| {});
}

/// [`normalize_into`], also appending the words of the result to `words` as
/// [`Words::push_normalized`] does, found as they are written rather than by reading it again.
pub fn normalize_words_into(text: &str, out: &mut String, words: &mut Vec<u64>) {
    let start = words.len();
    normalize_with(text, out, |word| words.push(word_hash(word)));
    sort_unique_from(words, start);
}

/// [`normalize_into`], calling `word` with each word of the result as it is finished.
fn normalize_with(text: &str, out: &mut String, mut word: impl FnMut(&[u8])) {
    out.clear();
    if text.is_ascii() {
        return normalize_ascii(text, out, word);
    }
    let mut between = false;
    let mut start = 0;
    // One pass, ASCII without Unicode tables: every fact is normalised when a ledger is indexed.
    for c in text.chars() {
        let is_word = if c.is_ascii() {
            c.is_ascii_alphanumeric()
        } else {
            c.is_alphanumeric()
        };
        if !is_word {
            between = true;
            continue;
        }
        if between && !out.is_empty() {
            word(out.as_bytes().get(start..).unwrap_or_default());
            out.push(' ');
            start = out.len();
        }
        between = false;
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
    if !out.is_empty() {
        word(out.as_bytes().get(start..).unwrap_or_default());
    }
}

/// [`normalize_with`] for ASCII text, nearly every statement: a word at a time, found and
/// lowercased as bytes, with no character decoded and no Unicode table consulted.
fn normalize_ascii(text: &str, out: &mut String, mut word: impl FnMut(&[u8])) {
    let mut bytes = std::mem::take(out).into_bytes();
    bytes.reserve(text.len());
    let words = text.as_bytes().split(|b| !b.is_ascii_alphanumeric());
    for w in words.filter(|w| !w.is_empty()) {
        if !bytes.is_empty() {
            bytes.push(b' ');
        }
        let start = bytes.len();
        bytes.extend(w.iter().map(u8::to_ascii_lowercase));
        word(&bytes[start..]);
    }
    *out = String::from_utf8(bytes).expect("ASCII letters, digits and spaces");
}

/// Sorts `words[start..]` and keeps each hash once.
fn sort_unique_from(words: &mut Vec<u64>, start: usize) {
    let tail = &mut words[start..];
    tail.sort_unstable();
    let mut kept = 0;
    for i in 0..tail.len() {
        if i == 0 || tail[i] != tail[kept - 1] {
            tail[kept] = tail[i];
            kept += 1;
        }
    }
    words.truncate(start + kept);
}

/// The first 20 of `items` joined by commas, then how many more there are and the command that
/// lists them all: an error message stays readable however long the list.
pub fn listing(items: &[String], all_in: &str) -> String {
    const SHOWN: usize = 20;
    match items.get(SHOWN..) {
        Some(rest) if !rest.is_empty() => format!(
            "{} … and {} more (see `{all_in}`)",
            items[..SHOWN].join(", "),
            rest.len()
        ),
        _ => items.join(", "),
    }
}

/// `noun` with its indefinite article, as English writes it before the sound: `an attributes
/// file`, `a fact file`.
pub fn with_article(noun: &str) -> String {
    let vowel = noun.starts_with(|c: char| "aeiouAEIOU".contains(c));
    format!("{} {noun}", if vowel { "an" } else { "a" })
}

/// The distinct words of a statement, as similarity compares them: hashes of its normalised
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
        // Words are separated by exactly one space: the count is known before the first push.
        let mut hashes = Vec::with_capacity(normalized.bytes().filter(|&b| b == b' ').count() + 1);
        Words::push_normalized(normalized, &mut hashes);
        Words(hashes)
    }

    /// Appends the words of a text [`normalize`] returned to `out`, sorted and each once, as
    /// [`Words::hashes`] has them: many texts' words kept in one list.
    pub fn push_normalized(normalized: &str, out: &mut Vec<u64>) {
        let start = out.len();
        out.extend(
            normalized
                .split(' ')
                .filter(|w| !w.is_empty())
                .map(|w| word_hash(w.as_bytes())),
        );
        sort_unique_from(out, start);
    }

    pub fn hashes(&self) -> &[u64] {
        &self.0
    }

    /// Dice coefficient of the two sets, in `0.0..=1.0`.
    pub fn dice(&self, other: &Words) -> f64 {
        self.dice_sorted(other.0.iter().copied(), other.0.len())
    }

    /// [`Words::dice`] with a set of `len` hashes given in increasing order.
    pub fn dice_sorted(&self, other: impl Iterator<Item = u64>, len: usize) -> f64 {
        if self.0.is_empty() || len == 0 {
            return 0.0;
        }
        let mut mine = self.0.iter().copied().peekable();
        let mut shared = 0usize;
        for h in other {
            while mine.next_if(|&m| m < h).is_some() {}
            if mine.next_if_eq(&h).is_some() {
                shared += 1;
            }
        }
        2.0 * shared as f64 / (self.0.len() + len) as f64
    }
}

/// FNV-1a: stable across runs and platforms, which a hash kept in a file must be.
fn word_hash(word: &[u8]) -> u64 {
    word.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `s` with every control character but line feed and tab, and every hidden character
/// ([`hidden`](super::hidden)), written as an escape (`\u{1b}`, `\r`, `\u{202e}`), so text from a file
/// can reach a terminal without acting on it or reading differently from what is stored.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    escape(s, |c| is_line_control(c) && c != '\n' && c != '\t')
}

/// `s` on one line: every control character escaped, line breaks and tabs too, and every
/// hidden character.
pub fn escape_line(s: &str) -> std::borrow::Cow<'_, str> {
    escape(s, is_line_control)
}

/// A control character, or a line or paragraph separator (U+2028, U+2029): those break a line
/// for a reader (or a language model) where `\n`-based structure sees none.
pub fn is_line_control(c: char) -> bool {
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}')
}

fn escape(s: &str, control: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    // Every character escaped is a control (ASCII or C1) or outside ASCII: plain ASCII text,
    // the common case, is passed through without decoding it.
    let plain = |b: u8| b.is_ascii() && !control(char::from(b));
    if all_bytes(s.as_bytes(), false, plain) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    let mut escaped = false;
    for (c, hidden) in with_hidden(s) {
        if hidden || control(c) {
            out.extend(c.escape_default());
            escaped = true;
        } else {
            out.push(c);
        }
    }
    if escaped {
        std::borrow::Cow::Owned(out)
    } else {
        std::borrow::Cow::Borrowed(s)
    }
}

/// Whether `plain` holds for every byte of `bytes`. Eight bytes at a time are taken as plain
/// without asking when none is an ASCII control (and, unless `high_plain`, none is outside
/// ASCII), so `plain` must hold for every printable ASCII byte (and, with `high_plain`, every
/// byte from 0x80): text is scanned a word at a time, a byte at a time only around a control.
pub fn all_bytes(bytes: &[u8], high_plain: bool, plain: impl Fn(u8) -> bool) -> bool {
    const ONES: u64 = u64::from_ne_bytes([1; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    // Whether some byte of `x` is below `n` (at most 0x80), without a borrow between bytes
    // deciding it.
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGH != 0;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let x = u64::from_ne_bytes(chunk.try_into().expect("eight bytes"));
        let control = below(x, 0x20) || below(x ^ (ONES * 0x7f), 1);
        let printable = !control && (high_plain || x & HIGH == 0);
        if !printable && !chunk.iter().all(|&b| plain(b)) {
            return false;
        }
    }
    chunks.remainder().iter().all(|&b| plain(b))
}

/// The first hidden character of `s` ([`hidden`](super::hidden)), as a reader can find it:
/// `U+202E (right-to-left override) at character 12`.
pub fn first_hidden(s: &str) -> Option<String> {
    // Every hidden character is outside ASCII.
    if s.is_ascii() {
        return None;
    }
    let (at, (c, _)) = with_hidden(s)
        .enumerate()
        .find(|(_, (_, hidden))| *hidden)?;
    Some(format!("{} at character {}", hidden::describe(c), at + 1))
}

/// The columns `s` takes on a terminal: two for each wide (CJK, emoji) character, none for a
/// combining mark. Text is escaped before it is measured, so controls never reach here.
pub fn display_width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// `s` followed by spaces up to `width` terminal columns ([`display_width`]); `format!`'s
/// padding counts characters, which misaligns any column holding CJK or emoji.
pub fn pad(s: &str, width: usize) -> String {
    let fill = width.saturating_sub(display_width(s));
    format!("{s}{}", " ".repeat(fill))
}

/// The first `n` characters of `s` (all of it when shorter): a short commit id or date from
/// text that may hold anything.
pub fn first_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((end, _)) => s.split_at_checked(end).map_or(s, |(head, _)| head),
        None => s,
    }
}

/// Scores below this are not worth showing as "similar".
pub const SIMILAR_THRESHOLD: f64 = 0.5;

/// The text on one line: runs of whitespace, newlines included, become one space.
pub fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `s` in at most `max` characters: cut after the last whole word that fits, with `…`; a
/// single word longer than half the line is cut inside.
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_owned();
    }
    let cut: String = s.chars().take(max.saturating_sub(1)).collect();
    let at_word = match cut.rsplit_once(char::is_whitespace) {
        Some((head, _)) if head.chars().count() >= max / 2 => head,
        _ => cut.as_str(),
    };
    format!("{}…", at_word.trim_end_matches([' ', ',', ';', ':']))
}

/// How many of a proposal's operations a one-line listing names, and how long each may be: a
/// proposal is summarised, never printed whole (an import of fifty rules is one proposal).
const BRIEF_OPERATIONS: usize = 3;
const BRIEF_OPERATION_CHARS: usize = 160;

/// A proposal's operations (their summaries) in brief, for a one-line listing: the first few,
/// each cut short, then how many more.
pub fn operations_in_brief(operations: &[String]) -> String {
    let mut shown: Vec<String> = operations
        .iter()
        .take(BRIEF_OPERATIONS)
        .map(|op| truncate(op, BRIEF_OPERATION_CHARS))
        .collect();
    if operations.len() > BRIEF_OPERATIONS {
        shown.push(format!(
            "and {} more operation(s)",
            operations.len() - BRIEF_OPERATIONS
        ));
    }
    shown.join("; ")
}

/// `head`, then as much of `tail` (after a space) as fits in `max` terminal columns, cut with
/// `…`: at the last word break when one leaves at least half the room, else at a character
/// boundary (text in scripts written without spaces keeps its first characters). `head` is
/// itself cut at a character boundary only if it alone is too wide.
pub fn fit_columns(head: &str, tail: &str, max: usize) -> String {
    let whole = if tail.is_empty() {
        head.to_owned()
    } else {
        format!("{head} {tail}")
    };
    if display_width(&whole) <= max {
        return whole;
    }
    let room = max.saturating_sub(display_width(head) + 2);
    if room == 0 || tail.is_empty() {
        return format!("{}…", take_columns(head, max.saturating_sub(1)));
    }
    let cut = take_columns(tail, room);
    let at_word = match cut.rsplit_once(char::is_whitespace) {
        Some((words, _)) if display_width(words) >= room / 2 => words,
        _ => cut,
    };
    let at_word = at_word.trim_end_matches([' ', ',', ';', ':']);
    if at_word.is_empty() {
        return format!("{head}…");
    }
    format!("{head} {at_word}…")
}

/// The longest start of `s` at most `columns` wide; combining marks stay with their character.
fn take_columns(s: &str, columns: usize) -> &str {
    let mut used = 0;
    let mut cut = s;
    for (i, c) in s.char_indices() {
        used += unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used > columns {
            cut = s.get(..i).unwrap_or(s);
            break;
        }
    }
    // A sequence (an emoji with its presentation selector) can be wider than its characters.
    while display_width(cut) > columns {
        let Some((last, _)) = cut.char_indices().next_back() else {
            break;
        };
        cut = cut.get(..last).unwrap_or_default();
    }
    cut
}

/// The `limit` best of `scored` candidates, best first, at or above the threshold.
pub fn most_similar<T>(scored: impl IntoIterator<Item = (f64, T)>, limit: usize) -> Vec<(f64, T)> {
    let mut kept: Vec<(f64, T)> = scored
        .into_iter()
        .filter(|(s, _)| *s >= SIMILAR_THRESHOLD)
        .collect();
    kept.sort_by(|a, b| b.0.total_cmp(&a.0));
    kept.truncate(limit);
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time scan answers as a byte-at-a-time one would: every byte value, alone
    /// and beside every other, at each place in a word and in the remainder.
    #[test]
    fn all_bytes_answers_as_each_byte_does() {
        type Plain = fn(u8) -> bool;
        let predicates: [(bool, Plain); 3] = [
            (false, |b| b.is_ascii() && !b.is_ascii_control()),
            (false, |b| (0x20..0x7f).contains(&b) || b == b'\n'),
            (true, |b| !b.is_ascii_control() || b.is_ascii_whitespace()),
        ];
        for (high_plain, plain) in predicates {
            for a in 0..=255u8 {
                for b in [a, b' ', b'\n', 0, 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0xff] {
                    for at in 0..19 {
                        let mut bytes = vec![b'x'; 19];
                        bytes[at] = a;
                        bytes[(at + 1) % 19] = b;
                        let expected = bytes.iter().all(|&x| plain(x));
                        assert_eq!(all_bytes(&bytes, high_plain, plain), expected, "{bytes:?}");
                    }
                }
            }
        }
    }

    /// Over all of Unicode: what is printed holds no code point that hides something, and every
    /// one that hid something is escaped. Each code point stands between letters; those whose
    /// context decides (joiners, selectors, tags) also in the contexts that keep them.
    #[test]
    fn every_code_point_that_hides_something_is_escaped() {
        let check = |text: &str, c: char| {
            let shown = escape_line(text);
            assert_eq!(first_hidden(&shown), None, "{text:?} printed as {shown:?}");
            let hid = with_hidden(text).any(|(h, hidden)| h == c && hidden);
            assert!(!hid || !shown.contains(c), "{text:?} printed as {shown:?}");
        };
        let mut buf = [0; 4];
        for c in (0x80..=0x10_ffff).filter_map(char::from_u32) {
            check(&format!("a{}b", c.encode_utf8(&mut buf)), c);
        }
        let contextual = ['\u{200c}', '\u{200d}', '\u{fe0f}', '\u{180b}', '\u{e0100}']
            .into_iter()
            .chain('\u{e0000}'..='\u{e007f}');
        for c in contextual {
            for text in [
                format!("{c}"),
                format!("\u{628}{c}\u{628}"),
                format!("\u{915}\u{94d}{c}\u{937}"),
                format!("👨{c}👩"),
                format!("❤{c}"),
                format!("漢{c}"),
                format!("\u{1820}{c}"),
                format!("\u{1f6ed}{c}\u{1f1af}"),
                format!("\u{e000}{c}\u{628}"),
                format!("🏴{c}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}"),
            ] {
                check(&text, c);
            }
        }
    }

    #[test]
    fn truncate_keeps_short_text_and_cuts_long_words_inside() {
        assert_eq!(truncate(&"x".repeat(100), 10), "xxxxxxxxx…");
        assert_eq!(truncate("short enough", 72), "short enough");
        assert_eq!(truncate("one two three four", 12), "one two…");
    }

    #[test]
    fn fitting_counts_columns_and_cuts_at_a_character_boundary() {
        assert_eq!(
            fit_columns("head:", "one two three", 72),
            "head: one two three"
        );
        assert_eq!(
            fit_columns("head:", "one two three four", 20),
            "head: one two…"
        );
        // Two columns a character, no word break: cut between characters.
        let cut = fit_columns("ledger(数据库): add f-7f3c", &"数据库连接池".repeat(10), 72);
        assert!(display_width(&cut) <= 72, "{cut}");
        assert!(cut.starts_with("ledger(数据库): add f-7f3c 数据库连接池") && cut.ends_with('…'));
        // A combining mark stays with its letter.
        let e = "e\u{301}".repeat(40);
        let cut = fit_columns("h", &e, 20);
        assert!(cut.ends_with("e\u{301}…"), "{cut:?}");
        assert_eq!(fit_columns("a long head", "tail", 5), "a lo…");
    }

    proptest::proptest! {
        /// The one-pass form, and its byte-wise form for ASCII, say what the definition says:
        /// words split on anything that is not alphanumeric, lowercased character by character,
        /// joined by one space.
        #[test]
        fn normalisation_is_lowercased_words_joined_by_spaces(text in "\\PC{0,40}|[a-zA-Z0-9 .,*_-]{0,40}|[\\x00-\\x7f]{0,40}") {
            let words: Vec<String> = text
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(|w| w.chars().flat_map(char::to_lowercase).collect())
                .collect();
            proptest::prop_assert_eq!(normalize(&text), words.join(" "));
        }

        /// The words found while normalising are those read back from the result.
        #[test]
        fn words_found_while_normalising_are_those_of_the_result(text in "\\PC{0,40}|[a-zA-Z0-9 .,*_-]{0,40}|[\\x00-\\x7f]{0,40}", before in proptest::collection::vec(proptest::num::u64::ANY, 0..3)) {
            let (mut out, mut found) = (String::new(), before.clone());
            normalize_words_into(&text, &mut out, &mut found);
            let mut read = before;
            Words::push_normalized(&normalize(&text), &mut read);
            proptest::prop_assert_eq!(out, normalize(&text));
            proptest::prop_assert_eq!(found, read);
        }
    }

    #[test]
    fn a_long_listing_names_twenty_and_counts_the_rest() {
        let ids = |n: usize| (0..n).map(|i| format!("p{i}")).collect::<Vec<_>>();
        assert_eq!(listing(&ids(3), "mneme x"), "p0, p1, p2");
        assert_eq!(listing(&ids(20), "mneme x"), ids(20).join(", "));
        let long = listing(&ids(10_000), "mneme x");
        assert!(long.starts_with("p0, p1, "), "{long}");
        assert!(
            long.ends_with("p19 … and 9980 more (see `mneme x`)"),
            "{long}"
        );
    }

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
        let similarity = |a: &str, b: &str| Words::of(a).dice(&Words::of(b));
        let a = "We use PostgreSQL 16, not SQLite.";
        assert_eq!(similarity(a, "we use postgresql 16 not sqlite"), 1.0);
        assert!(similarity(a, "We use PostgreSQL 15, not SQLite.") > 0.8);
        assert!(similarity(a, "Build with cargo") < SIMILAR_THRESHOLD);
        let words = Words::of(a);
        let candidates = ["Build with cargo", "We use PostgreSQL 15", a].map(Words::of);
        let scored = candidates.iter().map(|c| words.dice(c)).zip([1, 2, 3]);
        let ranked = most_similar(scored, 2);
        assert_eq!(ranked.iter().map(|r| r.1).collect::<Vec<_>>(), [3, 2]);
    }
}

//! All output goes through `Ui`: data on stdout, errors on stderr, colors only where the stream
//! is a terminal and `NO_COLOR` is unset (anstream decides), JSON when asked.

use std::borrow::Cow;
use std::io::{self, Write};

use anstyle::{AnsiColor, Style};
use mneme::model::base::text::{display_width, escape_controls, escape_line, first_chars, pad};
use mneme::model::tasks::task::Task;
use mneme::ops::Notes;
use serde::Serialize;
use serde_json::json;

use crate::cli::error::CliError;

pub const ID: Style = AnsiColor::Cyan.on_default().bold();
pub const HEADER: Style = Style::new().bold();
pub const DIM: Style = Style::new().dimmed();
pub const WARN: Style = AnsiColor::Yellow.on_default().bold();
pub const GOOD: Style = AnsiColor::Green.on_default();
pub const PROMPT: Style = AnsiColor::Blue.on_default().bold();
pub const ERROR: Style = AnsiColor::Red.on_default().bold();

pub struct Ui {
    pub json: bool,
}

impl Ui {
    pub fn new(json: bool) -> Ui {
        Ui { json }
    }

    /// Human output on stdout; styles are stripped when stdout is not a color terminal. A
    /// failed write is an error (a closed pipe is told apart by the caller).
    pub fn out(&self, text: &str) -> io::Result<()> {
        let stdout = io::stdout();
        // Strip styles in one go and write once: a stripping stream would write piece by piece.
        let text = match anstream::AutoStream::choice(&stdout) {
            anstream::ColorChoice::Never => without_styles(text),
            _ => Cow::Borrowed(text),
        };
        let mut lock = stdout.lock();
        lock.write_all(text.as_bytes())?;
        lock.flush()
    }

    /// `value` as pretty JSON on stdout, written as it is serialized: a list of ten thousand
    /// tasks is megabytes, which a string built first would copy as it grows.
    pub fn json(&self, value: &impl Serialize) -> io::Result<()> {
        let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
        serde_json::to_writer_pretty(&mut out, value).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
        out.flush()
    }

    /// The one place errors are rendered: text with a hint, or one line of JSON, on stderr.
    pub fn error(&self, e: &CliError) {
        // Nothing more can be done when stderr itself is gone.
        let _ = if self.json {
            writeln!(io::stderr(), "{}", json!({ "error": e.to_json() }))
        } else {
            let hint = e
                .hint
                .as_ref()
                .map(|h| format!("\n{}", paint(DIM, format!("hint: {}", esc(h)))))
                .unwrap_or_default();
            writeln!(
                anstream::stderr(),
                "{} {}{hint}",
                paint(ERROR, "error:"),
                e.message
            )
        };
    }
}

impl Notes for Ui {
    /// A warning or note on stderr (styled only where stderr shows colors). Losing one when
    /// stderr is closed is not worth failing the command for.
    fn warn(&self, text: &str) {
        let _ = writeln!(anstream::stderr(), "{}", paint(WARN, esc(text)));
    }
}

/// Text from a file or from history, for the terminal: control characters escaped, line
/// breaks kept.
pub fn esc(text: &str) -> Cow<'_, str> {
    escape_controls(text)
}

/// Text from a file or from history, on one line: control characters and line breaks escaped.
pub fn esc1(text: &str) -> Cow<'_, str> {
    escape_line(text)
}

/// The first ten characters of a commit id (or of anything read where one should be).
pub fn short(commit: &str) -> &str {
    first_chars(commit, 10)
}

/// `2026-11-23` of an RFC 3339 time (or the first ten characters of anything read where one
/// should be).
pub fn day(rfc3339: &str) -> &str {
    first_chars(rfc3339, 10)
}

/// `text` wrapped in `style` (reset after).
pub fn paint(style: Style, text: impl std::fmt::Display) -> String {
    format!("{style}{text}{style:#}")
}

const REMOVED: Style = AnsiColor::Red.on_default();
const ADDED: Style = AnsiColor::Green.on_default();
const REMOVED_WORD: Style = AnsiColor::Red.on_default().bold().underline();
const ADDED_WORD: Style = AnsiColor::Green.on_default().bold().underline();
const HUNK: Style = AnsiColor::Cyan.on_default();

/// A colored unified diff of one file, changed words emphasised.
pub fn diff(path: &str, old: &str, new: &str) -> String {
    let mut out = format!("{}\n", paint(HEADER, format!("--- a/{path}\n+++ b/{path}")));
    for hunk in mneme::model::base::textdiff::hunks(old, new, 3) {
        out.push_str(&paint(HUNK, &hunk.header));
        out.push('\n');
        for line in hunk.lines {
            let (sign, base, word) = match line.tag {
                mneme::model::base::textdiff::Tag::Context => (" ", Style::new(), Style::new()),
                mneme::model::base::textdiff::Tag::Removed => ("-", REMOVED, REMOVED_WORD),
                mneme::model::base::textdiff::Tag::Added => ("+", ADDED, ADDED_WORD),
            };
            out.push_str(&paint(base, sign));
            for (emphasised, text) in &line.parts {
                out.push_str(&paint(if *emphasised { word } else { base }, esc1(text)));
            }
            out.push('\n');
        }
    }
    out
}

/// A text before and after, as `- old` and `+ new` lines under `indent` (either may be absent);
/// a multi-line text keeps its lines, each indented.
pub fn old_new(indent: &str, old: Option<&str>, new: Option<&str>) -> String {
    let mut out = String::new();
    for (sign, style, text) in [("-", REMOVED, old), ("+", ADDED, new)] {
        let Some(text) = text else { continue };
        for (i, line) in text.lines().enumerate() {
            let lead = if i == 0 { sign } else { " " };
            out.push_str(&format!(
                "{indent}{}\n",
                paint(style, format!("{lead} {}", esc1(line)))
            ));
        }
    }
    out
}

/// `t-a3f8 P1 bug     open        [claude] Title`
pub fn task_line(t: &Task) -> String {
    task_row(t, assignee(t).map_or(0, |a| display_width(&a)))
}

/// One [`task_line`] per task, titles aligned: the assignee column is as wide on the terminal
/// as the widest assignee listed.
pub fn task_table<'a>(tasks: impl IntoIterator<Item = &'a Task> + Clone) -> String {
    let width = tasks
        .clone()
        .into_iter()
        .filter_map(|t| assignee(t).map(|a| display_width(&a)))
        .max()
        .unwrap_or(0);
    tasks.into_iter().map(|t| task_row(t, width)).collect()
}

/// ` [claude]`, as shown.
fn assignee(t: &Task) -> Option<String> {
    t.assignee.as_ref().map(|a| format!(" [{}]", esc1(a)))
}

fn task_row(t: &Task, assignee_width: usize) -> String {
    let assignee = paint(DIM, pad(&assignee(t).unwrap_or_default(), assignee_width));
    format!(
        "{} {} {:<7} {:<11}{assignee} {}\n",
        paint(ID, &t.id),
        paint(
            if t.priority <= 1 { WARN } else { DIM },
            format!("P{}", t.priority)
        ),
        t.kind.as_str(),
        t.status.as_str(),
        esc1(&t.title)
    )
}

/// `f-7f3c (architecture.md, 86%) text`, with `pending <proposal>` for a pending proposal's text.
pub fn similar_line(s: &mneme::model::proposals::plan::Similar) -> String {
    let source = match &s.proposal {
        Some(p) => format!("{}, pending {}", esc1(&s.file), esc1(p)),
        None => esc1(&s.file).into_owned(),
    };
    format!(
        "{} {} {}",
        paint(ID, esc1(&s.fact_id)),
        paint(DIM, format!("({source}, {:.0}%)", s.score * 100.0)),
        esc1(&s.text)
    )
}

/// `proposal <id> (<agent>) also acts on <fact>`: a pending proposal another one competes with.
pub fn competing_line(c: &mneme::model::proposals::plan::Competing) -> String {
    format!(
        "proposal {} ({}) also acts on {}",
        esc1(&c.proposal),
        esc1(c.agent.as_deref().unwrap_or("unknown agent")),
        esc1(&c.fact_id)
    )
}

/// `file:line · state` under a fact's id: where it is and how it stands.
pub fn fact_place(f: &mneme::model::views::FactView) -> String {
    let standing = f
        .standing_note()
        .unwrap_or_else(|| f.state.as_str().to_owned());
    paint(
        DIM,
        format!("{}:{} · {}", esc1(&f.file), f.line, esc1(&standing)),
    )
}

/// The fact's relations, both ways: `depends_on: f-k2a9`, `depended on by: f-9x2b`, one line
/// each, and the tasks that cite it.
pub fn fact_relations(f: &mneme::model::views::FactView) -> String {
    let mut out = String::new();
    for (relation, ids) in &f.relations {
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        out.push_str(&format!(
            "{}\n",
            paint(DIM, format!("{}: {}", relation.key(), esc1(&ids.join(" "))))
        ));
    }
    for incoming in &f.related_from {
        out.push_str(&format!(
            "{}\n",
            paint(
                DIM,
                format!(
                    "{}: {}",
                    incoming.relation.phrase(),
                    esc1(&incoming.fact_id)
                )
            )
        ));
    }
    if !f.cited_by_tasks.is_empty() {
        out.push_str(&format!(
            "{}\n",
            paint(
                DIM,
                format!("cited by tasks: {}", esc1(&f.cited_by_tasks.join(" ")))
            )
        ));
    }
    out
}

/// `text` without its styles. Most text has none: no control character but whitespace, which is
/// all the stripping parser would take out, so it is passed through without running the parser
/// over it (a context of a thousand facts took half a millisecond).
fn without_styles(text: &str) -> Cow<'_, str> {
    let kept = |b: u8| !b.is_ascii_control() || b.is_ascii_whitespace();
    if mneme::model::base::text::all_bytes(text.as_bytes(), true, kept) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(anstream::adapter::strip_str(text).to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path keeps exactly what stripping would: every character that is not a control
    /// (C1 controls, line separators and every other script included), and whitespace.
    #[test]
    fn text_without_controls_is_what_stripping_leaves() {
        let mut all: String = (0x20u8..0x7f).map(char::from).collect();
        all.push_str("\t\n\r\x0c");
        all.extend((0x80..=0x10_ffff).step_by(7).filter_map(char::from_u32));
        for text in [
            all.as_str(),
            "plain",
            "a\r\nb",
            "\u{9b}31m\u{85}\u{2028}🦀 漢字",
        ] {
            assert!(matches!(without_styles(text), Cow::Borrowed(_)));
            assert_eq!(anstream::adapter::strip_str(text).to_string(), text);
        }
        for styled in ["\x1b[1mbold\x1b[0m", "bel\x07", "del\x7f"] {
            assert_eq!(
                without_styles(styled),
                anstream::adapter::strip_str(styled).to_string()
            );
        }
        assert_eq!(without_styles("\x1b[1mbold\x1b[0m"), "bold");
    }
}

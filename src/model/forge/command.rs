//! The commands a pull request's comment gives mneme, one per line:
//!
//! ```text
//! /mneme approve 3f9a1c2b 04f8cb48
//! /mneme approve all
//! /mneme reject 3f9a1c2b duplicates f-7f3c
//! /mneme drop 3f9a1c2b 2,4-6
//! /mneme help
//! ```
//!
//! The comment is read as the forge renders it (CommonMark with GitHub's extensions): a command
//! is a line of a paragraph at the top level, in plain text, as the reader sees it. Lines in a
//! code block, a quote (lazy continuations included), a list, a table, a heading, a footnote,
//! inline code or an image's text are not commands. HTML can hide text from the reader (a
//! comment, `<details>`, `<pre>`), so a comment that holds HTML and `/mneme` is refused.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::model::base::text::first_hidden;
use crate::model::proposals::proposal::parse_operation_numbers;

/// The most commands one comment may give.
const MAX_COMMANDS: usize = 20;
/// The most proposals one command may name.
const MAX_IDS: usize = 100;
/// The longest reason a rejection may give.
const MAX_REASON: usize = 1000;

/// A proposal as a command names it: its id or a unique part of it, and optionally the pin of
/// the text the reviewer read (`04f8cb48@1a2b3c4d`, as the summary writes its commands).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub id: String,
    pub pin: Option<String>,
}

/// What a reviewer asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Approve these proposals, all or none.
    Approve(Vec<Named>),
    /// Approve every pending proposal that applies; those that do not stay pending.
    ApproveAll,
    Reject {
        named: Named,
        reason: Option<String>,
    },
    /// Approve the proposal less these operations (numbered from 1, as shown).
    Drop {
        named: Named,
        operations: Vec<usize>,
    },
    Help,
}

impl Command {
    /// Whether it decides anything.
    pub fn decides(&self) -> bool {
        !matches!(self, Command::Help)
    }
}

/// How the commands are written, for replies and `--help`.
pub const USAGE: &str = "/mneme approve <id>…        approve these proposals (all or none);
                            <id>@<pin>, as the summary writes it, only as it read there
/mneme approve all          approve every pending proposal that applies
/mneme reject <id> [reason] reject a proposal, saying why
/mneme drop <id> <n>[,<n>…] approve a proposal less its operations n, …
/mneme help                 show this";

/// The commands in a comment's `body`, in order; empty when it gives none. A line that starts
/// as a command but cannot be read is an error that says why: nothing of the comment runs.
pub fn parse(body: &str) -> Result<Vec<Command>, String> {
    let read = visible_lines(body);
    let lines: Vec<&str> = read
        .lines
        .iter()
        .filter_map(|line| {
            let rest = line.strip_prefix(COMMAND)?;
            (rest.is_empty() || rest.starts_with(char::is_whitespace)).then_some(rest)
        })
        .collect();
    if read.html && (!lines.is_empty() || body.contains(COMMAND)) {
        return Err(format!(
            "the comment holds HTML, which can hide text from the reader (a comment, <details>, \
             <pre>): write `{COMMAND}` commands in a comment without HTML"
        ));
    }
    if lines.len() > MAX_COMMANDS {
        return Err(format!("one comment gives at most {MAX_COMMANDS} commands"));
    }
    lines
        .into_iter()
        .map(|rest| parse_line(rest.trim()))
        .collect()
}

/// What opens a command's line.
const COMMAND: &str = "/mneme";

/// What a reader sees of a comment, for finding commands.
struct Read {
    /// The lines of the top-level paragraphs as rendered, plain text only: code, images, HTML
    /// and the like inside them stand as U+FFFC, so a line they open is no command.
    lines: Vec<String>,
    /// Whether the comment holds HTML anywhere.
    html: bool,
}

fn visible_lines(body: &str) -> Read {
    const OBJECT: char = '\u{fffc}';
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_GFM;
    let mut read = Read {
        lines: Vec::new(),
        html: false,
    };
    // Open blocks and inline elements: a paragraph counts only when it opens at depth 0.
    let mut depth = 0usize;
    let mut paragraph: Option<String> = None;
    let mut images = 0usize;
    // CommonMark ends a line at LF, CR or CRLF alike; the parser misreads a fence that a lone CR
    // ends, so every line ending is made LF first.
    let body = body.replace("\r\n", "\n").replace('\r', "\n");
    for event in Parser::new_ext(&body, options) {
        match event {
            Event::Start(tag) => {
                match tag {
                    Tag::Paragraph if depth == 0 => paragraph = Some(String::new()),
                    Tag::Image { .. } => images += 1,
                    Tag::HtmlBlock => read.html = true,
                    _ => {}
                }
                depth += 1;
            }
            Event::End(end) => {
                depth -= 1;
                match end {
                    TagEnd::Image => images -= 1,
                    TagEnd::Paragraph if depth == 0 => {
                        if let Some(text) = paragraph.take() {
                            read.lines.extend(text.split('\n').map(str::to_owned));
                        }
                    }
                    _ => {}
                }
            }
            Event::Html(_) | Event::InlineHtml(_) => {
                read.html = true;
                if let Some(p) = &mut paragraph {
                    p.push(OBJECT);
                }
            }
            Event::Text(text) => {
                if let Some(p) = &mut paragraph {
                    match images {
                        0 => p.push_str(&text),
                        _ => p.push(OBJECT),
                    }
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(p) = &mut paragraph {
                    p.push('\n');
                }
            }
            Event::Code(_)
            | Event::InlineMath(_)
            | Event::DisplayMath(_)
            | Event::FootnoteReference(_)
            | Event::TaskListMarker(_) => {
                if let Some(p) = &mut paragraph {
                    p.push(OBJECT);
                }
            }
            Event::Rule => {}
        }
    }
    read
}

fn parse_line(line: &str) -> Result<Command, String> {
    let (verb, rest) = line
        .split_once(char::is_whitespace)
        .map_or((line, ""), |(v, r)| (v, r.trim()));
    match verb {
        "" | "help" => Ok(Command::Help),
        "approve" => {
            let ids: Vec<&str> = rest.split_whitespace().collect();
            match ids.as_slice() {
                [] => Err("`approve` needs the proposals' ids, or `all`".into()),
                ["all"] => Ok(Command::ApproveAll),
                ids if ids.len() > MAX_IDS => {
                    Err(format!("one `approve` names at most {MAX_IDS} proposals"))
                }
                ids => Ok(Command::Approve(
                    ids.iter()
                        .map(|id| proposal_id(id))
                        .collect::<Result<_, _>>()?,
                )),
            }
        }
        "reject" => {
            let (id, reason) = rest
                .split_once(char::is_whitespace)
                .map_or((rest, ""), |(i, r)| (i, r.trim()));
            if id.is_empty() {
                return Err("`reject` needs a proposal's id".into());
            }
            if reason.chars().count() > MAX_REASON {
                return Err(format!("a reason is at most {MAX_REASON} characters"));
            }
            if let Some(hidden) = first_hidden(reason) {
                return Err(format!("the reason holds {hidden}"));
            }
            Ok(Command::Reject {
                named: proposal_id(id)?,
                reason: (!reason.is_empty()).then(|| reason.to_owned()),
            })
        }
        "drop" => {
            let mut words = rest.split_whitespace();
            let id = words.next().ok_or("`drop` needs a proposal's id")?;
            let numbers = words
                .flat_map(|w| w.split(','))
                .filter(|n| !n.is_empty())
                .collect::<Vec<_>>()
                .join(",");
            // The reply does not echo the comment's text back.
            let operations = parse_operation_numbers(&numbers).map_err(|_| {
                "`drop` needs the numbers of the operations to leave out, such as `2` or `1,3-5`"
            })?;
            Ok(Command::Drop {
                named: proposal_id(id)?,
                operations,
            })
        }
        other => Err(format!(
            "`{}` is not a mneme command",
            other
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .take(20)
                .collect::<String>()
        )),
    }
}

/// A proposal's id, or a start of one: letters, digits and `-`, at most 64; then, optionally,
/// `@` and the 8 hex digits of a pin.
fn proposal_id(word: &str) -> Result<Named, String> {
    let (id, pin) = match word.split_once('@') {
        Some((id, pin)) => (id, Some(pin)),
        None => (word, None),
    };
    let id_ok =
        (1..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let pin_ok = pin
        .is_none_or(|p| p.len() == 8 && p.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')));
    if id_ok && pin_ok {
        Ok(Named {
            id: id.to_owned(),
            pin: pin.map(str::to_owned),
        })
    } else {
        Err("a proposal's id is letters, digits and `-`, then optionally `@` and 8 hex digits (as the summary shows it)".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_command_reads_back() {
        let body = "Looks right.\n/mneme approve 3f9a 04f8cb48@1a2b3c4d\n  /mneme approve all\n/mneme reject 3f9a duplicates f-7f3c, see   above\n/mneme drop 3f9a 1, 3-4\n/mneme\n";
        let named = |id: &str, pin: Option<&str>| Named {
            id: id.into(),
            pin: pin.map(Into::into),
        };
        assert_eq!(
            parse(body).unwrap(),
            vec![
                Command::Approve(vec![
                    named("3f9a", None),
                    named("04f8cb48", Some("1a2b3c4d"))
                ]),
                Command::ApproveAll,
                Command::Reject {
                    named: named("3f9a", None),
                    reason: Some("duplicates f-7f3c, see   above".into())
                },
                Command::Drop {
                    named: named("3f9a", None),
                    operations: vec![1, 3, 4]
                },
                Command::Help,
            ]
        );
    }

    #[test]
    fn text_that_only_mentions_a_command_is_not_one() {
        for body in [
            "Run `/mneme approve all` when ready",
            "> /mneme approve all",
            "```\n/mneme approve all\n```",
            "~~~~\n/mneme approve all\n~~~\n/mneme approve x\n",
            "    /mneme approve all",
            "/mnemeapprove all",
            "/mnemonic approve",
            // Lazy continuation: the line belongs to the quote above it.
            "> x\n/mneme approve all",
            // A fenced block nested in a list item.
            "- item\n\n  ```\n  /mneme approve all\n  ```",
            "- /mneme approve all",
            "1. /mneme approve all",
            // A fence opened by a lone CR, and CR line endings throughout.
            "```\r/mneme approve all\r```",
            "# /mneme approve all",
            "| a |\n| - |\n| /mneme approve all |",
            "[^1]\n\n[^1]: /mneme approve all",
            "![/mneme approve all](x.png)",
            "Text\n`/mneme` approve all",
        ] {
            assert_eq!(parse(body).unwrap(), vec![], "{body:?}");
        }
        // What the reader sees as a line of a top-level paragraph is one, however it is written.
        for body in [
            "Looks good.\r\n/mneme approve all\r\n",
            "Looks good.\r/mneme approve all",
            "**Yes**\n/mneme approve all",
        ] {
            assert_eq!(parse(body).unwrap(), vec![Command::ApproveAll], "{body:?}");
        }
        assert_eq!(
            parse("```\n/mneme approve a\n```\n/mneme approve bb\n").unwrap(),
            vec![Command::Approve(vec![Named {
                id: "bb".into(),
                pin: None
            }])]
        );
    }

    /// HTML can hide a line from the reader: a comment that holds HTML and `/mneme` runs
    /// nothing and says why.
    #[test]
    fn a_command_hidden_in_html_refuses_the_comment() {
        for body in [
            "<!-- /mneme approve all -->",
            "LGTM <!--\n/mneme approve all\n-->",
            "<pre>\n/mneme approve all\n</pre>",
            "<details>\n\n/mneme approve all\n\n</details>",
            "/mneme approve abc\n\n<!-- and -->",
        ] {
            let e = parse(body).unwrap_err();
            assert!(e.contains("HTML"), "{body:?}: {e}");
        }
        // HTML in a comment that gives no command is no one's business.
        assert_eq!(parse("Nice <br> work").unwrap(), vec![]);
    }

    #[test]
    fn a_command_that_cannot_be_read_says_why() {
        for (body, why) in [
            ("/mneme approve", "needs the proposals' ids"),
            ("/mneme approve a`b", "letters, digits"),
            ("/mneme approve ab@xyz", "8 hex digits"),
            ("/mneme reject", "needs a proposal's id"),
            ("/mneme reject ab why\u{e0041}", "U+E0041"),
            ("/mneme drop ab", "numbers of the operations"),
            ("/mneme drop ab 0", "numbers of the operations"),
            ("/mneme drop ab 3-1", "numbers of the operations"),
            ("/mneme merge ab", "`merge` is not a mneme command"),
        ] {
            let e = parse(body).unwrap_err();
            assert!(e.contains(why), "{body:?}: {e}");
        }
        let many = "/mneme approve a1\n".repeat(MAX_COMMANDS + 1);
        assert!(parse(&many).unwrap_err().contains("at most"));
    }
}

//! The commands a pull request's comment gives mneme, one per line:
//!
//! ```text
//! /mneme approve 3f9a1c2b 04f8cb48
//! /mneme approve all
//! /mneme reject 3f9a1c2b duplicates f-7f3c
//! /mneme drop 3f9a1c2b 2
//! /mneme help
//! ```
//!
//! A command opens its line (after at most three spaces, as Markdown allows); lines in a code
//! block or a quote are text, not commands.

use crate::model::base::text::first_hidden;

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
    let mut commands = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for line in body.lines() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let trimmed = line.trim_start_matches(' ');
        if let Some((c, n)) = fence_marker(trimmed).filter(|_| indent <= 3) {
            fence = match fence {
                None => Some((c, n)),
                Some((open, len))
                    if open == c && n >= len && trimmed.trim_end().chars().all(|x| x == c) =>
                {
                    None
                }
                still => still,
            };
            continue;
        }
        if fence.is_some() || indent > 3 {
            continue;
        }
        let Some(rest) = trimmed.strip_prefix("/mneme") else {
            continue;
        };
        if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
            continue;
        }
        if commands.len() == MAX_COMMANDS {
            return Err(format!("one comment gives at most {MAX_COMMANDS} commands"));
        }
        commands.push(parse_line(rest.trim())?);
    }
    Ok(commands)
}

/// The opening of a code fence (three or more backticks or tildes), if `line` is one.
fn fence_marker(line: &str) -> Option<(char, usize)> {
    let c = line.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let n = line.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
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
            let numbers: String = words.collect::<Vec<_>>().join(",");
            let operations = numbers
                .split(',')
                .filter(|n| !n.is_empty())
                .map(|n| n.parse::<usize>().ok().filter(|n| *n > 0))
                .collect::<Option<Vec<_>>>()
                .filter(|ops| !ops.is_empty())
                .ok_or(
                    "`drop` needs the numbers of the operations to leave out, such as `2` or `1,3`",
                )?;
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
        let body = "Looks right.\n/mneme approve 3f9a 04f8cb48@1a2b3c4d\n  /mneme approve all\n/mneme reject 3f9a duplicates f-7f3c, see   above\n/mneme drop 3f9a 1, 3\n/mneme\n";
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
                    operations: vec![1, 3]
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
        ] {
            assert_eq!(parse(body).unwrap(), vec![], "{body:?}");
        }
        assert_eq!(
            parse("```\n/mneme approve a\n```\n/mneme approve bb\n").unwrap(),
            vec![Command::Approve(vec![Named {
                id: "bb".into(),
                pin: None
            }])]
        );
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
            ("/mneme merge ab", "`merge` is not a mneme command"),
        ] {
            let e = parse(body).unwrap_err();
            assert!(e.contains(why), "{body:?}: {e}");
        }
        let many = "/mneme approve a1\n".repeat(MAX_COMMANDS + 1);
        assert!(parse(&many).unwrap_err().contains("at most"));
    }
}

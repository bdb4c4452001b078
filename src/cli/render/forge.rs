//! The replies to a pull or merge request's `/mneme` comment, in the forge's Markdown (GitHub's
//! and GitLab's read these alike). Nothing of the branch's text is shown outside a code span or
//! a code block, and no line of a reply opens with a command.

use std::fmt::Write as _;

use mneme::git;
use mneme::model::forge::command::USAGE;
use mneme::model::forge::gate::{Refusal, Target};
use mneme::model::provenance::decision::{Forge, Verdict};
use mneme::ops::audit::Verification;
use mneme::ops::forge::{Failure, Outcome};
use mneme::ops::Error;

use super::diff::{code, fence_for, md};
use crate::cli::ui::{esc1, short};
use crate::cli::CliError;

/// The marker that opens the summary comment mneme keeps on a pull request, one per pull
/// request, updated in place.
pub const SUMMARY_MARKER: &str = "<!-- mneme fact summary -->";

/// A reply and the reaction to the command.
pub struct Reply {
    pub body: String,
    /// Whether the command was done: a 👍 on the command, else a 😕.
    pub done: bool,
}

/// How a forge names the things a reply speaks of.
pub struct Words {
    pub forge: Forge,
    /// The role deciding needs, as the reply names it, and what to ask to be granted.
    pub needs: String,
    pub grant: String,
    request: &'static str,
    repository: &'static str,
    runner: &'static str,
    /// Where the forge's signing key is kept.
    secret: &'static str,
    /// Where a failed verification's findings are shown.
    findings: &'static str,
    /// The reaction to a command done, as the forge's API names it.
    done: &'static str,
}

impl Words {
    pub fn github() -> Words {
        Words {
            forge: Forge::GitHub,
            needs: "write permission".into(),
            grant: "write access".into(),
            request: "pull request",
            repository: "repository",
            runner: "workflow",
            secret: "the repository secret",
            findings: "the workflow's log and annotations",
            done: "+1",
        }
    }

    /// GitLab's, where deciding needs the role `least` or a higher one.
    pub fn gitlab(least: &str) -> Words {
        Words {
            forge: Forge::GitLab,
            needs: format!("the {least} role or a higher one"),
            grant: format!("the {least} role"),
            request: "merge request",
            repository: "project",
            runner: "pipeline",
            secret: "the protected CI/CD variable (of type File)",
            findings: "the pipeline's log and its Code Quality report",
            done: "thumbsup",
        }
    }

    /// The reaction to the command, as the forge's API names it.
    pub fn reaction(&self, done: bool) -> &'static str {
        if done {
            self.done
        } else {
            "confused"
        }
    }
}

/// `text` in a code block no line of it can close.
pub fn block(text: &str) -> String {
    let fence = fence_for(text);
    format!("{fence}text\n{}\n{fence}\n", text.trim_end())
}

/// Why nothing of a comment ran.
pub fn refusal(login: &str, refusal: &Refusal, words: &Words) -> Reply {
    let (request, repository, runner) = (words.request, words.repository, words.runner);
    let why = match refusal {
        Refusal::Edited => "an edited comment is not a command: mneme acts on new comments only, so that what was decided is what was first written. Post the command again as a new comment.".to_owned(),
        // The parser's own words: of the comment they quote only letters and digits.
        Refusal::Usage(why) => format!("the command cannot be read: {why}. The commands:\n\n{}", block(USAGE)),
        Refusal::Permission { level, .. } => format!(
            "deciding needs {} on this {repository}; yours is {}. Ask a maintainer to decide, or to grant you {}.",
            words.needs,
            code(level),
            words.grant
        ),
        Refusal::Fork { head } => format!(
            "this {request}'s branch is in {}, not in this {repository}, and mneme does not decide on a fork's branch with this {repository}'s token. A maintainer can run `mneme review` on a checkout of the branch, or the author can push the branch to this {repository}.",
            head.as_deref().map_or_else(|| "a deleted fork".to_owned(), code)
        ),
        Refusal::Closed => format!("this {request} is closed: reopen it to decide its proposals."),
        Refusal::Stale => format!("the comment was more than an hour old when the {runner} ran, so it is not taken as a command. Post the command again."),
        Refusal::Mismatch(why) => format!("the {runner}'s inputs do not fit the comment ({why}); nothing was decided. This is a fault of the {runner}, not of the command."),
        Refusal::Help => format!("the commands:\n\n{}", block(USAGE)),
    };
    Reply {
        body: format!("@{login}: nothing was decided: {why}\n"),
        done: false,
    }
}

/// What a comment's commands did: the decisions pushed, or why none were.
pub fn outcome(
    target: &Target,
    outcome: Outcome,
    verification: Option<&Verification>,
    commit_url: &dyn Fn(&str) -> String,
    words: &Words,
) -> Reply {
    let login = &target.reviewer.login;
    let mut body = String::new();
    if let Some((i, failure)) = outcome.failed {
        let line = i + 1;
        let why = match failure {
            Failure::HeadMoved { expected, found } => format!(
                "the {}'s branch is at {} here, not at {} as {} said: it moved. Read the summary again and post the command again.\n",
                words.request,
                code(short(&found)),
                code(short(&expected)),
                words.forge.name()
            ),
            Failure::Drop(why) => block(&why),
            Failure::Changed { id, pin, now } => format!(
                "{} changed after the summary you read was written: you named it as {}, and it is now {}. Read it again in the summary, and comment its new command.\n",
                code(&id),
                code(&pin),
                code(&now)
            ),
            Failure::Error(Error::Git(git::Error::Signing(why))) => format!(
                "{}This ledger requires signed decisions (`.ledger/allowed_signers`), and the {} could not sign: add the forge's key as {} `MNEME_FORGE_SIGNING_KEY` and list its public key for `mneme-forge` in `allowed_signers` (docs/ci.md, \"Signed ledgers\").\n",
                block(&why),
                words.runner,
                words.secret
            ),
            Failure::Error(e) => block(&CliError::from(e).message),
        };
        let _ = write!(
            body,
            "@{login}: nothing was decided, and nothing was pushed: command {line} cannot apply.\n\n{why}"
        );
        return Reply { body, done: false };
    }
    let decided = !outcome.done.is_empty();
    if !decided {
        let _ = writeln!(
            body,
            "@{login}: nothing was decided: no pending proposal applies."
        );
    } else {
        let _ = writeln!(
            body,
            "@{login}: decided {} on `{}`, as {}:\n",
            count(outcome.done.len(), "proposal"),
            target.branch.replace('`', ""),
            count(outcome.done.len(), "commit")
        );
        body.push_str("| proposal | decision | commit |\n| --- | --- | --- |\n");
        // The commit's subject says what changed: `ledger(pitfalls): add f-7f3c Never block…`.
        for d in &outcome.done {
            let verdict = match d.verdict {
                Verdict::Approve => "approved",
                Verdict::Reject => "rejected",
            };
            let _ = writeln!(
                body,
                "| {} | {verdict} | [{}]({}) {} |",
                code(&d.proposal),
                short(&d.committed.commit),
                commit_url(&d.committed.commit),
                md(&esc1(&d.committed.summary))
            );
        }
    }
    if !outcome.left.is_empty() {
        let _ = writeln!(body, "\nLeft pending, each with why:\n");
        let why: String = outcome
            .left
            .into_iter()
            .map(|(id, e)| format!("{id}: {}\n", CliError::from(e).message))
            .collect();
        body.push_str(&block(&why));
    }
    if let Some(v) = verification {
        let _ = write!(
            body,
            "\n`mneme verify {}..HEAD`: {}\n",
            short(&target.base),
            if v.passes() {
                "passes.".to_owned()
            } else {
                format!("fails; {} say where.", words.findings)
            }
        );
    }
    Reply {
        body,
        done: decided,
    }
}

/// The reply when mneme stopped with an error before it could decide.
pub fn failed(target: &Target, e: &CliError) -> Reply {
    let mut why = e.message.clone();
    if let Some(hint) = &e.hint {
        why.push_str(&format!("\n{hint}"));
    }
    Reply {
        body: format!(
            "@{}: nothing was decided, and nothing was pushed: mneme stopped with an error. The log has the details.\n\n{}",
            target.reviewer.login,
            block(&why)
        ),
        done: false,
    }
}

/// The reply when the decisions could not be pushed: the branch moved while they were made.
pub fn moved(target: &Target) -> String {
    format!(
        "@{}: nothing was decided, and nothing was pushed: the branch `{}` moved while the decisions were made. Read the summary again and post the command again.\n",
        target.reviewer.login,
        target.branch.replace('`', "")
    )
}

fn count(n: usize, what: &str) -> String {
    match n {
        1 => format!("1 {what}"),
        n => format!("{n} {what}s"),
    }
}

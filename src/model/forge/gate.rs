//! Whether a review comment may decide: one rule for every forge. Each forge's module reads
//! its event and its API's answers into a [`Request`]; [`gate`] decides from that alone, before
//! anything of the branch is fetched.

use crate::model::forge::command::{self, Command};
use crate::model::provenance::decision::{Forge, ForgeReviewer};

/// What the forge says about a comment, read from its API (never from what the event claims
/// where the API can say it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub forge: Forge,
    /// The forge's host.
    pub site: String,
    pub comment: Comment,
    pub review: Review,
    /// The commenter's role on the repository, as the forge names it (`write`, `Reporter`).
    pub role: String,
    /// Whether that role may decide.
    pub may_decide: bool,
    /// Where the API's answers do not fit the event, if they do not.
    pub mismatch: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    pub body: String,
    /// A new comment, as first written: only such a comment is a command.
    pub new: bool,
    pub url: String,
    pub login: String,
    pub user_id: u64,
}

/// The pull or merge request the comment is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Review {
    pub number: u64,
    pub open: bool,
    /// The repository the branch is in when it is not this one (`None` inside: a deleted
    /// fork's is `Some(None)`).
    pub fork: Option<Option<String>>,
    pub branch: String,
    pub base_ref: String,
    pub head: String,
    pub base: String,
}

/// Whether and how a comment's commands run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// Not mneme's: not on a pull request, no command in it, a bot's, answered already.
    Ignore(&'static str),
    /// Commands mneme will not run, and why; the reviewer is answered.
    Refuse(Refusal),
    Decide(Target),
}

/// What a comment may decide, where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub forge: Forge,
    /// The pull or merge request's number (GitLab's `iid`).
    pub pull: u64,
    /// The request's branch, in this repository.
    pub branch: String,
    /// The branch it is to be merged into.
    pub base_ref: String,
    /// Its head when the API answered: the decisions are made on exactly this commit.
    pub head: String,
    pub base: String,
    pub reviewer: ForgeReviewer,
    pub commands: Vec<Command>,
}

/// Why a comment's commands do not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The comment was edited: only a new comment is a command.
    Edited,
    /// Its commands cannot be read.
    Usage(String),
    /// The commenter's role may not decide.
    Permission { login: String, level: String },
    /// The request comes from another repository.
    Fork { head: Option<String> },
    /// The request is closed or merged.
    Closed,
    /// The comment is older than a command may be when its pipeline runs.
    Stale,
    /// The API's answers do not fit the event (a pipeline's error, not the reviewer's).
    Mismatch(&'static str),
    /// `/mneme help`, or a command line with nothing after it.
    Help,
}

/// Decides from the forge's answers whether the comment's commands run: only a new comment's,
/// on an open request whose branch is in this repository, by an account whose role may decide.
/// The caller has already ignored what is not a human's comment on a request.
pub fn gate(request: &Request) -> Gate {
    let comment = &request.comment;
    let commands = match command::parse(&comment.body) {
        Ok(c) if c.is_empty() => return Gate::Ignore("the comment gives no mneme command"),
        Ok(c) => c,
        Err(why) if comment.new => return Gate::Refuse(Refusal::Usage(why)),
        Err(_) => return Gate::Ignore("the comment was not created"),
    };
    if !comment.new {
        return Gate::Refuse(Refusal::Edited);
    }
    if let Some(why) = request.mismatch {
        return Gate::Refuse(Refusal::Mismatch(why));
    }
    let review = &request.review;
    if !request.may_decide {
        return Gate::Refuse(Refusal::Permission {
            login: comment.login.clone(),
            level: request.role.clone(),
        });
    }
    if let Some(head) = &review.fork {
        return Gate::Refuse(Refusal::Fork { head: head.clone() });
    }
    if !review.open {
        return Gate::Refuse(Refusal::Closed);
    }
    if !commands.iter().any(Command::decides) {
        return Gate::Refuse(Refusal::Help);
    }
    let reviewer = ForgeReviewer {
        kind: request.forge,
        site: request.site.clone(),
        login: comment.login.clone(),
        id: comment.user_id,
        comment: comment.url.clone(),
    };
    if reviewer.problem().is_some()
        || !is_sha(&review.head)
        || !is_sha(&review.base)
        || !is_branch(&review.branch)
        || !is_branch(&review.base_ref)
    {
        return Gate::Refuse(Refusal::Mismatch(
            "the event or the forge's answers hold values the forge does not send",
        ));
    }
    Gate::Decide(Target {
        forge: request.forge,
        pull: review.number,
        branch: review.branch.clone(),
        base_ref: review.base_ref.clone(),
        head: review.head.clone(),
        base: review.base.clone(),
        reviewer,
        commands,
    })
}

/// The host of an `https://host/…` address.
pub fn site(url: &str) -> Option<&str> {
    url.strip_prefix("https://")?.split('/').next()
}

/// A branch name as git allows one, which a pipeline may put in a refspec and an output line.
pub(crate) fn is_branch(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 255
        && !s.starts_with(['-', '/', '.'])
        && !s.ends_with(['/', '.'])
        && !s.contains("..")
        && !s.contains("@{")
        && !s.ends_with(".lock")
        && s.chars().all(|c| {
            !c.is_control() && !matches!(c, ' ' | '~' | '^' | ':' | '?' | '*' | '[' | '\\')
        })
}

pub(crate) fn is_sha(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

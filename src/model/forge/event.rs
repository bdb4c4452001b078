//! What GitHub says about a comment: the `issue_comment` event, the pull request it is on
//! (`GET /repos/{owner}/{repo}/pulls/{number}`) and the commenter's permission on the
//! repository (`GET /repos/{owner}/{repo}/collaborators/{login}/permission`). [`gate`] decides
//! from these alone whether the comment's commands may run, before anything of the pull
//! request's branch is fetched.

use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::model::forge::command::{self, Command};
use crate::model::provenance::decision::ForgeReviewer;

/// Largest payload read: GitHub caps webhook payloads at 25 MB.
pub const MAX_BYTES: usize = 25 * 1024 * 1024;

/// The `issue_comment` event, as much of it as mneme reads.
#[derive(Debug, Clone, Deserialize)]
pub struct CommentEvent {
    pub action: String,
    pub comment: Comment,
    pub issue: Issue,
    pub repository: Repository,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Comment {
    pub id: u64,
    pub html_url: String,
    #[serde(default)]
    pub body: Option<String>,
    pub user: Account,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Account {
    pub login: String,
    pub id: u64,
    /// `User`, `Bot` or `Organization`.
    #[serde(rename = "type", default)]
    pub kind: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Issue {
    pub number: u64,
    /// Present only on a pull request's issue.
    #[serde(default)]
    pub pull_request: Option<IgnoredAny>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Repository {
    pub full_name: String,
    pub html_url: String,
}

/// A pull request, from the REST API.
#[derive(Debug, Clone, Deserialize)]
pub struct Pull {
    pub number: u64,
    pub state: String,
    pub head: PullEnd,
    pub base: PullEnd,
}

#[derive(Debug, Clone, Deserialize)]
pub struct PullEnd {
    #[serde(rename = "ref")]
    pub name: String,
    pub sha: String,
    /// `null` when a fork's repository was deleted.
    pub repo: Option<RepoName>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct RepoName {
    pub full_name: String,
}

/// A collaborator's permission, from the REST API.
#[derive(Debug, Clone, Deserialize)]
pub struct Permission {
    /// The base role: `admin`, `write` (also for `maintain`), `read` (also for `triage`) or
    /// `none`.
    pub permission: String,
    pub user: Option<Login>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Login {
    pub login: String,
}

/// Whether and how a comment's commands run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// Not mneme's: not on a pull request, no command in it, or a bot's.
    Ignore(&'static str),
    /// Commands mneme will not run, and why; the reviewer is answered.
    Refuse(Refusal),
    Decide(Target),
}

/// What a comment may decide, where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub pull: u64,
    /// The pull request's branch, in this repository.
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
    /// The commenter's permission is below `write`.
    Permission { login: String, level: String },
    /// The pull request comes from another repository.
    Fork { head: Option<String> },
    /// The pull request is closed or merged.
    Closed,
    /// The API's answers do not fit the event (a workflow error, not the reviewer's).
    Mismatch(&'static str),
    /// `/mneme help`, or a command line with nothing after it.
    Help,
}

/// Decides from the event and the API's answers whether the comment's commands run: only a new
/// comment's, on an open pull request whose branch is in this repository, by an account with
/// `write` or more, never by what the payload's `author_association` says.
pub fn gate(event: &CommentEvent, pull: &Pull, permission: &Permission) -> Gate {
    if event.issue.pull_request.is_none() {
        return Gate::Ignore("the comment is not on a pull request");
    }
    if event.comment.user.kind == "Bot" {
        return Gate::Ignore("the comment is a bot's");
    }
    let body = event.comment.body.as_deref().unwrap_or("");
    let commands = match command::parse(body) {
        Ok(c) if c.is_empty() => return Gate::Ignore("the comment gives no mneme command"),
        Ok(c) => c,
        Err(why) if event.action == "created" => return Gate::Refuse(Refusal::Usage(why)),
        Err(_) => return Gate::Ignore("the comment was not created"),
    };
    match event.action.as_str() {
        "created" => {}
        "edited" => return Gate::Refuse(Refusal::Edited),
        _ => return Gate::Ignore("the comment was not created"),
    }
    let login = &event.comment.user.login;
    let repo = &event.repository.full_name;
    if pull.number != event.issue.number {
        return Gate::Refuse(Refusal::Mismatch("the pull request is not the comment's"));
    }
    if pull.base.repo.as_ref().map(|r| &r.full_name) != Some(repo) {
        return Gate::Refuse(Refusal::Mismatch(
            "the pull request's base is not this repository",
        ));
    }
    if permission
        .user
        .as_ref()
        .is_none_or(|u| !u.login.eq_ignore_ascii_case(login))
    {
        return Gate::Refuse(Refusal::Mismatch("the permission is not the commenter's"));
    }
    if !matches!(permission.permission.as_str(), "admin" | "write") {
        return Gate::Refuse(Refusal::Permission {
            login: login.clone(),
            level: permission.permission.clone(),
        });
    }
    if pull.head.repo.as_ref().map(|r| &r.full_name) != Some(repo) {
        return Gate::Refuse(Refusal::Fork {
            head: pull.head.repo.as_ref().map(|r| r.full_name.clone()),
        });
    }
    if pull.state != "open" {
        return Gate::Refuse(Refusal::Closed);
    }
    if !commands.iter().any(Command::decides) {
        return Gate::Refuse(Refusal::Help);
    }
    let reviewer = ForgeReviewer {
        site: site(&event.repository.html_url)
            .unwrap_or_default()
            .to_owned(),
        login: login.clone(),
        id: event.comment.user.id,
        comment: event.comment.html_url.clone(),
    };
    if reviewer.problem().is_some()
        || !is_sha(&pull.head.sha)
        || !is_sha(&pull.base.sha)
        || !is_branch(&pull.head.name)
        || !is_branch(&pull.base.name)
    {
        return Gate::Refuse(Refusal::Mismatch(
            "the event or the pull request holds values GitHub does not send",
        ));
    }
    Gate::Decide(Target {
        pull: pull.number,
        branch: pull.head.name.clone(),
        base_ref: pull.base.name.clone(),
        head: pull.head.sha.clone(),
        base: pull.base.sha.clone(),
        reviewer,
        commands,
    })
}

/// The host of an `https://host/…` address.
fn site(url: &str) -> Option<&str> {
    url.strip_prefix("https://")?.split('/').next()
}

/// A branch name as git allows one, which the workflow may put in a refspec and an output line.
fn is_branch(s: &str) -> bool {
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

fn is_sha(s: &str) -> bool {
    matches!(s.len(), 40 | 64) && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(action: &str, body: &str) -> CommentEvent {
        serde_json::from_value(json!({
            "action": action,
            "comment": {"id": 7, "html_url": "https://github.com/o/r/pull/3#issuecomment-7",
                        "body": body, "user": {"login": "Grace", "id": 42, "type": "User"},
                        "author_association": "OWNER"},
            "issue": {"number": 3, "pull_request": {"url": "https://api.github.com/repos/o/r/pulls/3"}},
            "repository": {"full_name": "o/r", "html_url": "https://github.com/o/r"}
        }))
        .unwrap()
    }

    fn pull(head_repo: Option<&str>, state: &str) -> Pull {
        serde_json::from_value(json!({
            "number": 3, "state": state,
            "head": {"ref": "agent/facts", "sha": "a".repeat(40), "repo": head_repo.map(|r| json!({"full_name": r}))},
            "base": {"ref": "main", "sha": "b".repeat(40), "repo": {"full_name": "o/r"}}
        }))
        .unwrap()
    }

    fn permission(level: &str) -> Permission {
        serde_json::from_value(
            json!({"permission": level, "role_name": level, "user": {"login": "grace"}}),
        )
        .unwrap()
    }

    #[test]
    fn a_writer_s_new_command_on_the_repository_s_own_branch_runs() {
        let Gate::Decide(t) = gate(
            &event("created", "/mneme approve all"),
            &pull(Some("o/r"), "open"),
            &permission("write"),
        ) else {
            panic!()
        };
        assert_eq!(t.branch, "agent/facts");
        assert_eq!(t.reviewer.identity().1, "42+Grace@users.noreply.github.com");
        assert_eq!(t.reviewer.site, "github.com");
        assert_eq!(t.commands, vec![Command::ApproveAll]);
    }

    #[test]
    fn every_other_comment_is_refused_or_ignored() {
        let ok = pull(Some("o/r"), "open");
        let w = permission("write");
        let cases: Vec<(Gate, Gate)> = vec![
            (
                gate(&event("edited", "/mneme approve all"), &ok, &w),
                Gate::Refuse(Refusal::Edited),
            ),
            (
                gate(&event("deleted", "/mneme approve all"), &ok, &w),
                Gate::Ignore("the comment was not created"),
            ),
            (
                gate(&event("created", "thanks!"), &ok, &w),
                Gate::Ignore("the comment gives no mneme command"),
            ),
            (
                gate(
                    &event("created", "/mneme approve all"),
                    &ok,
                    &permission("read"),
                ),
                Gate::Refuse(Refusal::Permission {
                    login: "Grace".into(),
                    level: "read".into(),
                }),
            ),
            (
                gate(
                    &event("created", "/mneme approve all"),
                    &pull(Some("mallory/r"), "open"),
                    &w,
                ),
                Gate::Refuse(Refusal::Fork {
                    head: Some("mallory/r".into()),
                }),
            ),
            (
                gate(
                    &event("created", "/mneme approve all"),
                    &pull(None, "open"),
                    &w,
                ),
                Gate::Refuse(Refusal::Fork { head: None }),
            ),
            (
                gate(
                    &event("created", "/mneme approve all"),
                    &pull(Some("o/r"), "closed"),
                    &w,
                ),
                Gate::Refuse(Refusal::Closed),
            ),
            (
                gate(&event("created", "/mneme help"), &ok, &w),
                Gate::Refuse(Refusal::Help),
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
        // The permission must be the commenter's own.
        let other: Permission = serde_json::from_value(
            json!({"permission": "admin", "role_name": "admin", "user": {"login": "mallory"}}),
        )
        .unwrap();
        assert!(matches!(
            gate(&event("created", "/mneme approve all"), &ok, &other),
            Gate::Refuse(Refusal::Mismatch(_))
        ));
        let mut issue = event("created", "/mneme approve all");
        issue.issue.pull_request = None;
        assert_eq!(
            gate(&issue, &ok, &w),
            Gate::Ignore("the comment is not on a pull request")
        );
    }
}

//! What GitHub says about a comment: the `issue_comment` event, the pull request it is on
//! (`GET /repos/{owner}/{repo}/pulls/{number}`) and the commenter's permission on the
//! repository (`GET /repos/{owner}/{repo}/collaborators/{login}/permission`), read into what
//! [`gate`] decides on.

use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::model::forge::gate::{self, gate, site, Gate, Request, Review};
use crate::model::provenance::decision::Forge;

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

/// What GitHub says about the comment, for [`gate`]; `Err` when the comment is not mneme's
/// (not on a pull request, a bot's, deleted).
pub fn request(
    event: &CommentEvent,
    pull: &Pull,
    permission: &Permission,
) -> Result<Request, &'static str> {
    if event.issue.pull_request.is_none() {
        return Err("the comment is not on a pull request");
    }
    if event.comment.user.kind == "Bot" {
        return Err("the comment is a bot's");
    }
    if !matches!(event.action.as_str(), "created" | "edited") {
        return Err("the comment was not created");
    }
    let login = &event.comment.user.login;
    let repo = &event.repository.full_name;
    let mismatch = if pull.number != event.issue.number {
        Some("the pull request is not the comment's")
    } else if pull.base.repo.as_ref().map(|r| &r.full_name) != Some(repo) {
        Some("the pull request's base is not this repository")
    } else if permission
        .user
        .as_ref()
        .is_none_or(|u| !u.login.eq_ignore_ascii_case(login))
    {
        Some("the permission is not the commenter's")
    } else {
        None
    };
    let head_repo = pull.head.repo.as_ref().map(|r| r.full_name.clone());
    Ok(Request {
        forge: Forge::GitHub,
        site: site(&event.repository.html_url)
            .unwrap_or_default()
            .to_owned(),
        comment: gate::Comment {
            body: event.comment.body.clone().unwrap_or_default(),
            new: event.action == "created",
            url: event.comment.html_url.clone(),
            login: login.clone(),
            user_id: event.comment.user.id,
        },
        review: Review {
            number: pull.number,
            open: pull.state == "open",
            fork: (head_repo.as_ref() != Some(repo)).then_some(head_repo),
            branch: pull.head.name.clone(),
            base_ref: pull.base.name.clone(),
            head: pull.head.sha.clone(),
            base: pull.base.sha.clone(),
        },
        role: permission.permission.clone(),
        may_decide: matches!(permission.permission.as_str(), "admin" | "write"),
        mismatch,
    })
}

/// [`gate`] on GitHub's answers.
pub fn judge(event: &CommentEvent, pull: &Pull, permission: &Permission) -> Gate {
    match request(event, pull, permission) {
        Ok(r) => gate(&r),
        Err(why) => Gate::Ignore(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::forge::command::Command;
    use crate::model::forge::gate::Refusal;
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
        let Gate::Decide(t) = judge(
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
                judge(&event("edited", "/mneme approve all"), &ok, &w),
                Gate::Refuse(Refusal::Edited),
            ),
            (
                judge(&event("deleted", "/mneme approve all"), &ok, &w),
                Gate::Ignore("the comment was not created"),
            ),
            (
                judge(&event("created", "thanks!"), &ok, &w),
                Gate::Ignore("the comment gives no mneme command"),
            ),
            (
                judge(
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
                judge(
                    &event("created", "/mneme approve all"),
                    &pull(Some("mallory/r"), "open"),
                    &w,
                ),
                Gate::Refuse(Refusal::Fork {
                    head: Some("mallory/r".into()),
                }),
            ),
            (
                judge(
                    &event("created", "/mneme approve all"),
                    &pull(None, "open"),
                    &w,
                ),
                Gate::Refuse(Refusal::Fork { head: None }),
            ),
            (
                judge(
                    &event("created", "/mneme approve all"),
                    &pull(Some("o/r"), "closed"),
                    &w,
                ),
                Gate::Refuse(Refusal::Closed),
            ),
            (
                judge(&event("created", "/mneme help"), &ok, &w),
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
            judge(&event("created", "/mneme approve all"), &ok, &other),
            Gate::Refuse(Refusal::Mismatch(_))
        ));
        let mut issue = event("created", "/mneme approve all");
        issue.issue.pull_request = None;
        assert_eq!(
            judge(&issue, &ok, &w),
            Gate::Ignore("the comment is not on a pull request")
        );
    }
}

//! What GitLab says about a merge request's note. A pipeline trigger starts the job with the
//! webhook's body in `$TRIGGER_PAYLOAD`, and anyone who holds the trigger token can post any
//! body: the payload only names the note ([`asked`]). Everything [`gate`] decides on comes from
//! GitLab's API: the note (`GET /projects/:id/merge_requests/:iid/notes/:note_id`), its author
//! (`GET /users/:id`), their membership (`GET /projects/:id/members/all/:user_id`), the merge
//! request (`GET /projects/:id/merge_requests/:iid`), the note's emoji reactions and the
//! token's own user (`GET /user`).

use serde::Deserialize;

use crate::model::base::time::Timestamp;
use crate::model::forge::gate::{
    gate, is_branch, is_sha, site, Comment, Gate, Refusal, Request, Review,
};
use crate::model::provenance::decision::Forge;

/// How old a note may be when its pipeline runs: a payload that names an older note is a
/// replay, or a pipeline that waited too long to act for the reviewer.
pub const MAX_AGE_SECONDS: i64 = 3600;

/// The webhook's body, as much of it as names what to look at.
#[derive(Debug, Clone, Deserialize)]
pub struct Payload {
    pub object_kind: String,
    pub project: Option<Project>,
    #[serde(default)]
    pub object_attributes: Attributes,
    pub merge_request: Option<MergeRequestRef>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Project {
    pub id: u64,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Attributes {
    pub id: Option<u64>,
    pub iid: Option<u64>,
    pub noteable_type: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MergeRequestRef {
    pub iid: u64,
}

/// What a payload asks the pipeline to look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// A note on a merge request: run its commands, if it may.
    Note { merge_request: u64, note: u64 },
    /// A merge request opened or updated: bring its summary note up to date.
    Summary { merge_request: u64 },
}

/// What the payload names, in the project the pipeline runs in; `Err` says why it names
/// nothing mneme acts on.
pub fn asked(payload: &Payload, project: u64) -> Result<Asked, &'static str> {
    if payload.project.as_ref().map(|p| p.id) != Some(project) {
        return Err("the event is not about this project");
    }
    let a = &payload.object_attributes;
    match payload.object_kind.as_str() {
        "note" => match (a.noteable_type.as_deref(), &payload.merge_request, a.id) {
            (Some("MergeRequest"), Some(mr), Some(note)) => Ok(Asked::Note {
                merge_request: mr.iid,
                note,
            }),
            _ => Err("the note is not on a merge request"),
        },
        "merge_request" => a
            .iid
            .map(|merge_request| Asked::Summary { merge_request })
            .ok_or("the event names no merge request"),
        _ => Err("the event is neither a note nor a merge request's"),
    }
}

/// A note, from the API.
#[derive(Debug, Clone, Deserialize)]
pub struct Note {
    pub id: u64,
    pub body: String,
    pub author: Account,
    pub created_at: String,
    pub updated_at: String,
    #[serde(default)]
    pub system: bool,
    pub noteable_type: String,
    pub noteable_iid: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Account {
    pub id: u64,
    pub username: String,
}

/// A user, from the API (`GET /users/:id`, `GET /user`).
#[derive(Debug, Clone, Deserialize)]
pub struct User {
    pub id: u64,
    pub username: String,
    #[serde(default)]
    pub bot: bool,
    #[serde(default)]
    pub state: Option<String>,
}

/// A member of the project, directly or through its groups, from the API; GitLab answers 404
/// for anyone else, which the pipeline passes on as `null`.
#[derive(Debug, Clone, Deserialize)]
pub struct Member {
    pub id: u64,
    pub access_level: u32,
    /// The account's state (`active`, `blocked`).
    #[serde(default)]
    pub state: Option<String>,
    /// The membership's (`active`, or `awaiting` approval); older GitLab sends none.
    #[serde(default)]
    pub membership_state: Option<String>,
}

/// A merge request, from the API.
#[derive(Debug, Clone, Deserialize)]
pub struct MergeRequest {
    pub iid: u64,
    pub project_id: u64,
    /// `opened`, `closed`, `locked` or `merged`.
    pub state: String,
    pub source_branch: String,
    pub target_branch: String,
    pub source_project_id: u64,
    pub target_project_id: u64,
    pub sha: Option<String>,
    pub diff_refs: Option<DiffRefs>,
    pub web_url: String,
}

impl MergeRequest {
    /// Its head, and the target's tip its diff was made against ("" where GitLab gave none).
    fn ends(&self) -> (&str, &str) {
        let refs = self.diff_refs.as_ref();
        let head = self
            .sha
            .as_deref()
            .or_else(|| refs.and_then(|r| r.head_sha.as_deref()))
            .unwrap_or_default();
        let base = refs
            .and_then(|r| r.start_sha.as_deref().or(r.base_sha.as_deref()))
            .unwrap_or_default();
        (head, base)
    }

    /// Its target branch, head and base, when each is as git and GitLab write them: they go
    /// into a refspec and a range.
    pub fn refs(&self) -> Option<Refs> {
        let (head, base) = self.ends();
        (is_sha(head) && is_sha(base) && is_branch(&self.target_branch)).then(|| Refs {
            base_ref: self.target_branch.clone(),
            head: head.to_owned(),
            base: base.to_owned(),
        })
    }
}

/// What a merge request's summary is made of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refs {
    pub base_ref: String,
    pub head: String,
    pub base: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct DiffRefs {
    pub base_sha: Option<String>,
    pub head_sha: Option<String>,
    /// The target branch's tip the diff was made against.
    pub start_sha: Option<String>,
}

/// An emoji reaction, from the API.
#[derive(Debug, Clone, Deserialize)]
pub struct Award {
    pub name: String,
    pub user: Account,
}

/// The least role that may decide, by GitLab's access levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Access {
    Developer = 30,
    Maintainer = 40,
}

impl Access {
    pub fn parse(s: &str) -> Option<Access> {
        match s.to_ascii_lowercase().as_str() {
            "developer" => Some(Access::Developer),
            "maintainer" => Some(Access::Maintainer),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        role(self as u32)
    }
}

/// GitLab's name for an access level.
pub fn role(level: u32) -> &'static str {
    match level {
        0 => "no access",
        5 => "Minimal Access",
        10 => "Guest",
        15 => "Planner",
        20 => "Reporter",
        30 => "Developer",
        40 => "Maintainer",
        50 => "Owner",
        _ => "an unknown role",
    }
}

/// The API's answers about one note.
pub struct Answers<'a> {
    pub project: u64,
    pub asked_merge_request: u64,
    pub note: &'a Note,
    pub author: &'a User,
    pub member: Option<&'a Member>,
    pub merge_request: &'a MergeRequest,
    pub awards: &'a [Award],
    /// The account the pipeline's token acts as: its reactions mark notes it has answered.
    pub token_user: &'a User,
    pub least: Access,
    pub now: Timestamp,
}

/// [`gate`] on GitLab's answers. A note that is not a human's, that the pipeline's account
/// has already answered, or that does not fit what was asked is ignored: a replayed or forged
/// payload gets no answer.
pub fn judge(a: &Answers) -> Gate {
    match request(a) {
        Ok(r) => gate(&r),
        Err(Ok(why)) => Gate::Ignore(why),
        Err(Err(refusal)) => Gate::Refuse(refusal),
    }
}

type Early = Result<&'static str, Refusal>;

fn request(a: &Answers) -> Result<Request, Early> {
    let note = a.note;
    let mr = a.merge_request;
    if note.system || note.noteable_type != "MergeRequest" {
        return Err(Ok("the note is not a comment on a merge request"));
    }
    if note.noteable_iid != Some(a.asked_merge_request) || mr.iid != a.asked_merge_request {
        return Err(Ok("the note is not on the merge request the event names"));
    }
    if note.author.id != a.author.id || a.author.bot {
        return Err(Ok("the note is not a person's"));
    }
    if note.author.id == a.token_user.id {
        return Err(Ok("the note is the pipeline's own"));
    }
    if a.awards.iter().any(|r| r.user.id == a.token_user.id) {
        return Err(Ok("the note was answered already"));
    }
    let created = Timestamp::parse(&note.created_at);
    if created.is_none_or(|t| a.now.unix_seconds() - t.unix_seconds() > MAX_AGE_SECONDS) {
        return Err(Err(Refusal::Stale));
    }
    let mismatch = if mr.project_id != a.project || mr.target_project_id != a.project {
        Some("the merge request is not this project's")
    } else if a.member.is_some_and(|m| m.id != a.author.id) {
        Some("the membership is not the author's")
    } else {
        None
    };
    let (level, active) = a.member.map_or((0, false), |m| {
        (
            m.access_level,
            [&m.state, &m.membership_state]
                .iter()
                .all(|s| s.as_deref().is_none_or(|s| s == "active")),
        )
    });
    let active = active && a.author.state.as_deref().is_none_or(|s| s == "active");
    let (head, base) = mr.ends();
    Ok(Request {
        forge: Forge::GitLab,
        site: site(&mr.web_url).unwrap_or_default().to_owned(),
        comment: Comment {
            body: note.body.clone(),
            new: note.updated_at == note.created_at,
            url: format!("{}#note_{}", mr.web_url, note.id),
            login: note.author.username.clone(),
            user_id: note.author.id,
        },
        review: Review {
            number: mr.iid,
            open: mr.state == "opened",
            fork: (mr.source_project_id != mr.target_project_id)
                .then(|| Some(format!("project {}", mr.source_project_id))),
            branch: mr.source_branch.clone(),
            base_ref: mr.target_branch.clone(),
            head: head.to_owned(),
            base: base.to_owned(),
        },
        role: if active { role(level) } else { "no access" }.to_owned(),
        may_decide: active && level >= a.least as u32,
        mismatch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::forge::command::Command;
    use serde_json::json;

    struct Case {
        note: Note,
        author: User,
        member: Option<Member>,
        mr: MergeRequest,
        awards: Vec<Award>,
        bot: User,
    }

    fn case() -> Case {
        let note = serde_json::from_value(json!({
            "id": 301, "body": "/mneme approve all", "attachment": null,
            "author": {"id": 42, "username": "grace.h", "name": "Grace", "state": "active"},
            "created_at": "2026-11-28T10:00:00.000Z", "updated_at": "2026-11-28T10:00:00.000Z",
            "system": false, "noteable_id": 2, "noteable_type": "MergeRequest", "project_id": 5,
            "noteable_iid": 7, "resolvable": false, "confidential": false, "internal": false
        }))
        .unwrap();
        let author = serde_json::from_value(
            json!({"id": 42, "username": "grace.h", "bot": false, "state": "active"}),
        )
        .unwrap();
        let member = serde_json::from_value(
            json!({"id": 42, "username": "grace.h", "access_level": 30, "state": "active"}),
        )
        .unwrap();
        let mr = serde_json::from_value(json!({
            "iid": 7, "project_id": 5, "state": "opened", "source_branch": "agent/facts",
            "target_branch": "main", "source_project_id": 5, "target_project_id": 5,
            "sha": "a".repeat(40),
            "diff_refs": {"base_sha": "c".repeat(40), "head_sha": "a".repeat(40), "start_sha": "b".repeat(40)},
            "web_url": "https://gitlab.example.com/acme/app/-/merge_requests/7"
        }))
        .unwrap();
        let bot =
            serde_json::from_value(json!({"id": 900, "username": "project_5_bot_1", "bot": true}))
                .unwrap();
        Case {
            note,
            author,
            member: Some(member),
            mr,
            awards: vec![],
            bot,
        }
    }

    fn judged(c: &Case, least: Access) -> Gate {
        judge(&Answers {
            project: 5,
            asked_merge_request: 7,
            note: &c.note,
            author: &c.author,
            member: c.member.as_ref(),
            merge_request: &c.mr,
            awards: &c.awards,
            token_user: &c.bot,
            least,
            now: Timestamp::parse("2026-11-28T10:05:00Z").unwrap(),
        })
    }

    #[test]
    fn a_developer_s_new_note_on_the_project_s_own_branch_runs() {
        let Gate::Decide(t) = judged(&case(), Access::Developer) else {
            panic!()
        };
        assert_eq!(t.branch, "agent/facts");
        assert_eq!(t.head, "a".repeat(40));
        assert_eq!(t.base, "b".repeat(40));
        assert_eq!(
            t.reviewer.by(),
            "grace.h <42-grace.h@users.noreply.gitlab.example.com>"
        );
        assert_eq!(
            t.reviewer.comment,
            "https://gitlab.example.com/acme/app/-/merge_requests/7#note_301"
        );
        assert_eq!(t.commands, vec![Command::ApproveAll]);
    }

    #[test]
    fn every_other_note_is_refused_or_ignored() {
        let refused = |edit: &dyn Fn(&mut Case), least, want: Gate| {
            let mut c = case();
            edit(&mut c);
            assert_eq!(judged(&c, least), want);
        };
        let permission = |level: &str| {
            Gate::Refuse(Refusal::Permission {
                login: "grace.h".into(),
                level: level.into(),
            })
        };
        refused(
            &|c| c.member.as_mut().unwrap().access_level = 20,
            Access::Developer,
            permission("Reporter"),
        );
        refused(&|_| {}, Access::Maintainer, permission("Developer"));
        refused(
            &|c| c.member = None,
            Access::Developer,
            permission("no access"),
        );
        refused(
            &|c| c.member.as_mut().unwrap().state = Some("blocked".into()),
            Access::Developer,
            permission("no access"),
        );
        refused(
            &|c| c.member.as_mut().unwrap().membership_state = Some("awaiting".into()),
            Access::Developer,
            permission("no access"),
        );
        refused(
            &|c| c.note.updated_at = "2026-11-28T10:01:00.000Z".into(),
            Access::Developer,
            Gate::Refuse(Refusal::Edited),
        );
        refused(
            &|c| c.note.created_at = "2026-11-28T08:00:00.000Z".into(),
            Access::Developer,
            Gate::Refuse(Refusal::Stale),
        );
        refused(
            &|c| c.mr.source_project_id = 6,
            Access::Developer,
            Gate::Refuse(Refusal::Fork {
                head: Some("project 6".into()),
            }),
        );
        refused(
            &|c| c.mr.state = "merged".into(),
            Access::Developer,
            Gate::Refuse(Refusal::Closed),
        );
        refused(
            &|c| c.author.bot = true,
            Access::Developer,
            Gate::Ignore("the note is not a person's"),
        );
        refused(
            &|c| c.note.system = true,
            Access::Developer,
            Gate::Ignore("the note is not a comment on a merge request"),
        );
        refused(
            &|c| c.note.noteable_iid = Some(8),
            Access::Developer,
            Gate::Ignore("the note is not on the merge request the event names"),
        );
        refused(
            &|c| {
                c.awards = vec![serde_json::from_value(
                    json!({"name": "thumbsup", "user": {"id": 900, "username": "project_5_bot_1"}}),
                )
                .unwrap()];
            },
            Access::Developer,
            Gate::Ignore("the note was answered already"),
        );
        refused(
            &|c| c.mr.target_project_id = 6,
            Access::Developer,
            Gate::Refuse(Refusal::Mismatch("the merge request is not this project's")),
        );
    }

    #[test]
    fn a_payload_only_names_a_note_or_a_merge_request_of_this_project() {
        let note: Payload = serde_json::from_value(json!({
            "object_kind": "note", "project": {"id": 5},
            "object_attributes": {"id": 301, "noteable_type": "MergeRequest", "note": "/mneme approve all"},
            "merge_request": {"iid": 7}
        }))
        .unwrap();
        assert_eq!(
            asked(&note, 5),
            Ok(Asked::Note {
                merge_request: 7,
                note: 301
            })
        );
        assert!(asked(&note, 6).is_err());
        let mr: Payload = serde_json::from_value(json!({
            "object_kind": "merge_request", "project": {"id": 5},
            "object_attributes": {"id": 99, "iid": 7, "action": "update"}
        }))
        .unwrap();
        assert_eq!(asked(&mr, 5), Ok(Asked::Summary { merge_request: 7 }));
        let issue: Payload = serde_json::from_value(json!({
            "object_kind": "note", "project": {"id": 5},
            "object_attributes": {"id": 1, "noteable_type": "Issue"}
        }))
        .unwrap();
        assert!(asked(&issue, 5).is_err());
    }
}

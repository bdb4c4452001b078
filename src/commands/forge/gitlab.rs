//! `mneme forge gitlab …`: the steps of the pipeline `mneme init --ci gitlab` writes. The
//! pipeline calls GitLab's API and saves each answer under `--api DIR` by a fixed name; mneme
//! reads them there and never talks to the network.

use std::path::{Path, PathBuf};

use mneme::model::forge::gate::{Gate, Target};
use mneme::model::forge::gitlab::{
    asked, judge, Access, Answers, Asked, Award, Member, MergeRequest, Note, Payload, User,
};
use mneme::model::provenance::decision::Forge;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use super::{answer_gate, decide_and_summarise, gate_outputs, read_json, summarise, Outputs};
use crate::cli::render::forge::{Words, SUMMARY_MARKER};
use crate::cli::{CliError, Cx, Result};

#[derive(Debug, clap::Subcommand)]
pub enum Sub {
    /// What the trigger's payload asks about: prints `merge_request=<iid>` and, for a note,
    /// `note=<id>`, and once `note.json` is in `--api`, `author=<user id>`. Prints nothing for
    /// a payload mneme does not act on.
    #[command(after_help = "Examples:
  mneme forge gitlab asked --event payload.json --project 5
  mneme forge gitlab asked --event payload.json --project 5 --api api")]
    Asked(AskedArgs),
    /// Whether the note's commands may run: a new note on an open merge request whose branch
    /// is in this project, by a person whose role is `--least` or higher. Prints `decide=true`
    /// with the branch, its head and the target, or `decide=false`; a refused command gets a
    /// reply. Reads nothing of the branch.
    #[command(after_help = "Examples:
  mneme forge gitlab gate --event payload.json --project 5 --api api --out answer
  mneme forge gitlab gate --event payload.json --project 5 --api api --out answer --least maintainer")]
    Gate(Inputs),
    /// Runs the note's commands on the checked-out head of the merge request's branch, as the
    /// note's author. Prints `push=true` when there are decisions to push, and the id of the
    /// summary note to update.
    #[command(after_help = "Examples:
  mneme forge gitlab decide --event payload.json --project 5 --api api --out answer
  git push origin \"HEAD:refs/heads/$BRANCH\"   # when it printed push=true")]
    Decide(Inputs),
    /// Writes the merge request's summary note (`diff --format markdown` under mneme's marker)
    /// for RANGE and prints the id of the one to update: the note by the token's own user
    /// (`user.json`) that opens with the marker, never anyone else's.
    #[command(after_help = "Examples:
  mneme forge gitlab summary \"$BASE..$HEAD\" --repo-url \"$CI_PROJECT_URL\" --api api --out answer")]
    Summary(SummaryArgs),
}

#[derive(Debug, clap::Args)]
pub struct AskedArgs {
    /// The trigger's payload (`$TRIGGER_PAYLOAD`, a file variable).
    #[arg(long, value_name = "FILE")]
    event: PathBuf,
    /// The project the pipeline runs in (`$CI_PROJECT_ID`): a payload about another is ignored.
    #[arg(long, value_name = "ID")]
    project: u64,
    /// The directory of GitLab's answers.
    #[arg(long, value_name = "DIR")]
    api: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct Inputs {
    /// The trigger's payload (`$TRIGGER_PAYLOAD`).
    #[arg(long, value_name = "FILE")]
    event: PathBuf,
    /// The project the pipeline runs in (`$CI_PROJECT_ID`).
    #[arg(long, value_name = "ID")]
    project: u64,
    /// The directory of GitLab's answers, as the pipeline saves them: `user.json` (`GET
    /// /user`), `merge_request.json`, `note.json`, `author.json` (`GET /users/:id`),
    /// `member.json` (`GET /projects/:id/members/all/:user_id`; `null` for GitLab's 404), and
    /// page by page `awards-N.json` (the note's emoji reactions) and `notes-N.json` (the merge
    /// request's notes).
    #[arg(long, value_name = "DIR")]
    api: PathBuf,
    /// The directory the request bodies are written to: `reply.json`, `reaction.json`,
    /// `summary.json`, `moved.json`.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The least role that may decide: `developer` or `maintainer`.
    #[arg(long, value_name = "ROLE", default_value = "developer", value_parser = parse_access)]
    least: Access,
}

#[derive(Debug, clap::Args)]
pub struct SummaryArgs {
    /// BASE..HEAD.
    range: String,
    /// The project's web address, for links (`$CI_PROJECT_URL`).
    #[arg(long, value_name = "URL")]
    repo_url: String,
    /// The directory of GitLab's answers: `user.json` and `notes-N.json`.
    #[arg(long, value_name = "DIR")]
    api: PathBuf,
    /// The directory `summary.json` is written to.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

fn parse_access(s: &str) -> std::result::Result<Access, String> {
    Access::parse(s).ok_or_else(|| format!("`{s}` is not `developer` or `maintainer`"))
}

pub fn run(cx: &Cx, sub: &Sub) -> Result<Outputs> {
    match sub {
        Sub::Asked(a) => run_asked(a),
        Sub::Gate(inputs) => run_gate(cx, inputs),
        Sub::Decide(inputs) => run_decide(cx, inputs),
        Sub::Summary(s) => {
            summarise(
                &cx.workspace()?,
                &s.range,
                &s.repo_url,
                Forge::GitLab,
                &s.out,
            )?;
            Ok(summary_note(&s.api)?
                .map(|id| vec![("summary_id", json!(id))])
                .unwrap_or_default())
        }
    }
}

fn run_asked(a: &AskedArgs) -> Result<Outputs> {
    let payload: Payload = read_json(&a.event, "a GitLab webhook's body")?;
    let Ok(what) = asked(&payload, a.project) else {
        return Ok(vec![]);
    };
    let (merge_request, note) = match what {
        Asked::Summary { merge_request } => (merge_request, None),
        Asked::Note {
            merge_request,
            note,
        } => (merge_request, Some(note)),
    };
    let mut out = vec![("merge_request", json!(merge_request))];
    out.extend(note.map(|n| ("note", json!(n))));
    let Some(dir) = &a.api else {
        return Ok(out);
    };
    if note.is_some() {
        let n: Note = api(dir, "note.json")?;
        out.push(("author", json!(n.author.id)));
    } else {
        // What a summary's checkout fetches, checked as the gate checks a decision's.
        let mr: MergeRequest = api(dir, "merge_request.json")?;
        let refs = mr.refs().ok_or_else(|| {
            CliError::invalid_input(
                "the merge request's branches or commits are not as GitLab sends them",
            )
        })?;
        out.extend([
            ("base_ref", json!(refs.base_ref)),
            ("head", json!(refs.head)),
            ("base", json!(refs.base)),
        ]);
    }
    Ok(out)
}

/// The gate's verdict on GitLab's answers; a refusal's reply is written.
fn judged(cx: &Cx, inputs: &Inputs) -> Result<(Gate, Words)> {
    let words = Words::gitlab(inputs.least.name());
    let payload: Payload = read_json(&inputs.event, "a GitLab webhook's body")?;
    let Ok(Asked::Note {
        merge_request,
        note,
    }) = asked(&payload, inputs.project)
    else {
        return Ok((
            Gate::Ignore("the event is not a note on a merge request"),
            words,
        ));
    };
    let dir = &inputs.api;
    let found: Note = api(dir, "note.json")?;
    if found.id != note {
        return Ok((
            Gate::Ignore("the note is not the one the event names"),
            words,
        ));
    }
    let author: User = api(dir, "author.json")?;
    let member: Option<Member> = api(dir, "member.json")?;
    let mr: MergeRequest = api(dir, "merge_request.json")?;
    let awards: Vec<Award> = pages(dir, "awards")?;
    let token_user: User = api(dir, "user.json")?;
    let verdict = judge(&Answers {
        project: inputs.project,
        asked_merge_request: merge_request,
        note: &found,
        author: &author,
        member: member.as_ref(),
        merge_request: &mr,
        awards: &awards,
        token_user: &token_user,
        least: inputs.least,
        now: mneme::ops::now(),
    });
    answer_gate(cx, &inputs.out, &found.author.username, &verdict, &words)?;
    Ok((verdict, words))
}

fn run_gate(cx: &Cx, inputs: &Inputs) -> Result<Outputs> {
    Ok(gate_outputs(judged(cx, inputs)?.0))
}

fn run_decide(cx: &Cx, inputs: &Inputs) -> Result<Outputs> {
    let (verdict, words) = judged(cx, inputs)?;
    let Gate::Decide(target) = verdict else {
        return Ok(vec![("push", json!(false))]);
    };
    let project_url = project_url(&inputs.api, &target)?;
    decide_and_summarise(cx, &inputs.out, &target, &project_url, &words, || {
        summary_note(&inputs.api)
    })
}

/// The project's web address: the merge request's, less `/-/merge_requests/<iid>`.
fn project_url(dir: &Path, target: &Target) -> Result<String> {
    let mr: MergeRequest = api(dir, "merge_request.json")?;
    let suffix = format!("/-/merge_requests/{}", target.pull);
    mr.web_url
        .strip_suffix(&suffix)
        .map(str::to_owned)
        .ok_or_else(|| {
            CliError::invalid_input(format!(
                "the merge request's web_url does not end in {suffix}"
            ))
        })
}

/// The id of the summary note to update: the first by the token's own user that opens with
/// the marker. A note anyone else wrote is never taken for it.
fn summary_note(dir: &Path) -> Result<Option<u64>> {
    let token_user: User = api(dir, "user.json")?;
    let notes: Vec<Value> = pages(dir, "notes")?;
    Ok(notes
        .iter()
        .find(|n| {
            n["author"]["id"].as_u64() == Some(token_user.id)
                && n["body"]
                    .as_str()
                    .is_some_and(|b| b.starts_with(SUMMARY_MARKER))
        })
        .and_then(|n| n["id"].as_u64()))
}

fn api<T: DeserializeOwned>(dir: &Path, name: &str) -> Result<T> {
    read_json(&dir.join(name), "GitLab's answer")
}

/// Every item of `<stem>-1.json`, `<stem>-2.json`, … in order, up to the first page missing.
fn pages<T: DeserializeOwned>(dir: &Path, stem: &str) -> Result<Vec<T>> {
    let mut all = Vec::new();
    for n in 1.. {
        let path = dir.join(format!("{stem}-{n}.json"));
        if !path.exists() {
            break;
        }
        let page: Vec<T> = read_json(&path, "a page of GitLab's answers")?;
        all.extend(page);
    }
    Ok(all)
}

use std::path::{Path, PathBuf};

use mneme::model::forge::gate::{Gate, Target};
use mneme::model::forge::github::{
    judge as github_judge, CommentEvent, Permission, Pull, MAX_BYTES,
};
use mneme::model::provenance::decision::Forge;
use mneme::ops::audit::{diff, verify};
use mneme::ops::forge::decide;
use mneme::ops::{Notes, Workspace};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::cli::render::diff::{markdown, Links};
use crate::cli::render::forge::{failed, moved, outcome, refusal, Reply, Words, SUMMARY_MARKER};
use crate::cli::{CliError, Cx, ExitStatus, Result};

/// Review on the forge: run the `/mneme` commands of a pull request's comment (GitHub) or a
/// merge request's note (`mneme forge gitlab …`).
///
/// For the workflow `mneme init --ci github` writes (docs/ci.md, "Deciding in the pull
/// request") and the pipeline `mneme init --ci gitlab` writes (docs/ci.md, "GitLab"). The
/// workflow asks the forge's API about the comment, and hands the answers over as files; mneme
/// itself never talks to the network.
/// Each subcommand prints its outputs as `key=value` lines for `$GITHUB_OUTPUT` (`--json`: one
/// object), and writes the bodies of the requests the workflow then makes into `--out`:
/// `reply.json` (the answer in the thread), `reaction.json` (on the command's comment) and
/// `summary.json` (the pull request's summary comment).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme forge gate --event e.json --pull pull.json --permission perm.json --out answer
  mneme forge decide --event e.json --pull pull.json --permission perm.json --out answer
  mneme forge summary \"$BASE..$HEAD\" --repo-url \"$URL\" --out answer --comments page1.json
  mneme forge gitlab gate --event payload.json --project 5 --api api --out answer

The commands a reviewer comments, one per line:
  /mneme approve <id>…          approve these proposals (all or none)
  /mneme approve all            approve every pending proposal that applies
  /mneme reject <id> [reason]   reject a proposal, saying why
  /mneme drop <id> <n>[,<n>…]   approve a proposal less its operations n, …
  /mneme help")]
pub struct Args {
    #[command(subcommand)]
    command: Sub,
}

#[derive(Debug, clap::Subcommand)]
enum Sub {
    /// Whether the comment's commands may run: a new comment on an open pull request whose
    /// branch is in this repository, by an account with write permission or more. Prints
    /// `decide=true` with the branch, its head and the base, or `decide=false`; a refused
    /// command gets a reply. Reads nothing of the branch.
    #[command(after_help = "Examples:
  mneme forge gate --event e.json --pull pull.json --permission perm.json --out answer
  mneme forge gate --event e.json --pull pull.json --permission perm.json --out answer --json")]
    Gate(Inputs),
    /// Runs the comment's commands on the checked-out head of the pull request's branch, as the
    /// commenter: each decision a commit and a decision record that names them, signed where
    /// the ledger requires it. Prints `push=true` when there are decisions to push; a command
    /// that cannot apply decides nothing.
    #[command(after_help = "Examples:
  mneme forge decide --event e.json --pull pull.json --permission perm.json --out answer
  git push origin \"HEAD:refs/heads/$BRANCH\"   # when it printed push=true")]
    Decide(Inputs),
    /// Writes the pull request's summary comment (`diff --format markdown` under mneme's
    /// marker) and prints the id of the one to update, if there is one.
    #[command(after_help = "Examples:
  mneme forge summary \"$BASE..$HEAD\" --repo-url \"$URL\" --out answer --comments page1.json
  mneme forge summary origin/main..HEAD --repo-url https://github.com/acme/app --out answer")]
    Summary(SummaryArgs),
    /// The same on GitLab, for the pipeline `mneme init --ci gitlab` writes: what the
    /// trigger's payload names, the gate, the decisions and the summary note.
    #[command(
        subcommand,
        after_help = "Examples:
  mneme forge gitlab asked --event payload.json --project 5
  mneme forge gitlab gate --event payload.json --project 5 --api api --out answer
  mneme forge gitlab decide --event payload.json --project 5 --api api --out answer"
    )]
    Gitlab(gitlab::Sub),
}

#[derive(Debug, clap::Args)]
struct Inputs {
    /// The `issue_comment` event (`$GITHUB_EVENT_PATH`).
    #[arg(long, value_name = "FILE")]
    event: PathBuf,
    /// GitHub's answer to `GET /repos/{owner}/{repo}/pulls/{number}`.
    #[arg(long, value_name = "FILE")]
    pull: PathBuf,
    /// GitHub's answer to `GET /repos/{owner}/{repo}/collaborators/{login}/permission`.
    #[arg(long, value_name = "FILE")]
    permission: PathBuf,
    /// The directory the request bodies are written to.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Pages of `GET /repos/{owner}/{repo}/issues/{number}/comments`, where the summary comment
    /// to update is found.
    #[arg(long, value_name = "FILE")]
    comments: Vec<PathBuf>,
}

#[derive(Debug, clap::Args)]
struct SummaryArgs {
    /// BASE..HEAD.
    range: String,
    /// The repository's web address, for links.
    #[arg(long, value_name = "URL")]
    repo_url: String,
    /// The directory `summary.json` is written to.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Pages of the pull request's comments, as for `decide`.
    #[arg(long, value_name = "FILE")]
    comments: Vec<PathBuf>,
}

mod gitlab;

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let outputs = match &args.command {
        Sub::Gitlab(sub) => gitlab::run(cx, sub)?,
        Sub::Gate(inputs) => run_gate(cx, inputs)?,
        Sub::Decide(inputs) => run_decide(cx, inputs)?,
        Sub::Summary(s) => {
            let ws = cx.workspace()?;
            let mut outputs = vec![];
            summarise(&ws, &s.range, &s.repo_url, Forge::GitHub, &s.out)?;
            if let Some(id) = github_summary_comment(&s.comments)? {
                outputs.push(("summary_id", json!(id)));
            }
            outputs
        }
    };
    if cx.ui.json {
        let object: serde_json::Map<String, Value> = outputs
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        cx.ui.json(&object)?;
    } else {
        let lines: String = outputs
            .into_iter()
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}={s}\n"),
                other => format!("{k}={other}\n"),
            })
            .collect();
        cx.ui.out(&lines)?;
    }
    Ok(ExitStatus::Success)
}

pub(crate) type Outputs = Vec<(&'static str, Value)>;

/// The gate's verdict on GitHub's answers; a refusal's reply is written.
fn judge(cx: &Cx, inputs: &Inputs) -> Result<(CommentEvent, Gate)> {
    let event: CommentEvent = read_json(&inputs.event, "the event")?;
    let pull: Pull = read_json(&inputs.pull, "the pull request")?;
    let permission: Permission = read_json(&inputs.permission, "the permission")?;
    let verdict = github_judge(&event, &pull, &permission);
    answer_gate(
        cx,
        &inputs.out,
        &event.comment.user.login,
        &verdict,
        &Words::github(),
    )?;
    Ok((event, verdict))
}

/// What a verdict asks of the reviewer: a refusal is answered (`reply.json`, `reaction.json`),
/// a comment that is not mneme's only noted in the log.
pub(crate) fn answer_gate(
    cx: &Cx,
    out: &Path,
    login: &str,
    verdict: &Gate,
    words: &Words,
) -> Result<()> {
    match verdict {
        Gate::Refuse(why) => write_reply(out, &refusal(login, why, words), words)?,
        Gate::Ignore(why) => cx.ui.warn(&format!("not acting: {why}")),
        Gate::Decide(_) => {}
    }
    Ok(())
}

fn run_gate(cx: &Cx, inputs: &Inputs) -> Result<Outputs> {
    Ok(gate_outputs(judge(cx, inputs)?.1))
}

/// `decide=true` with the branch, its head and the base; or `decide=false`.
pub(crate) fn gate_outputs(verdict: Gate) -> Outputs {
    match verdict {
        Gate::Decide(t) => vec![
            ("decide", json!(true)),
            ("branch", json!(t.branch)),
            ("base_ref", json!(t.base_ref)),
            ("head", json!(t.head)),
            ("base", json!(t.base)),
        ],
        _ => vec![("decide", json!(false))],
    }
}

fn run_decide(cx: &Cx, inputs: &Inputs) -> Result<Outputs> {
    let (event, verdict) = judge(cx, inputs)?;
    let Gate::Decide(target) = verdict else {
        return Ok(vec![("push", json!(false))]);
    };
    let repo_url = event.repository.html_url.trim_end_matches('/');
    decide_and_summarise(cx, &inputs.out, &target, repo_url, &Words::github(), || {
        github_summary_comment(&inputs.comments)
    })
}

/// Decides, answers, and when there is a push, writes the summary and prints the id of the
/// summary comment `summary_id` finds.
pub(crate) fn decide_and_summarise(
    cx: &Cx,
    out: &Path,
    target: &Target,
    repo_url: &str,
    words: &Words,
    summary_id: impl FnOnce() -> Result<Option<u64>>,
) -> Result<Outputs> {
    let links = Links::on(words.forge, Some(repo_url), "HEAD");
    let commit_url = |id: &str| links.commit_url(id).unwrap_or_default();
    let mut outputs = decide_and_answer(cx, out, target, &commit_url, words)?;
    if outputs.contains(&("push", json!(true))) {
        summarise(
            &cx.workspace()?,
            &decided_range(target),
            repo_url,
            words.forge,
            out,
        )?;
        if let Some(id) = summary_id()? {
            outputs.push(("summary_id", json!(id)));
        }
    }
    Ok(outputs)
}

/// The range a decision's summary and verification cover: the base up to the checkout's
/// head, which holds the decision commits.
fn decided_range(target: &Target) -> String {
    format!("{}..HEAD", target.base)
}

/// Runs the target's commands on the checkout and writes the answers: the reply, the reaction,
/// and the reply for a push the forge refuses. Prints `push`.
fn decide_and_answer(
    cx: &Cx,
    out: &Path,
    target: &Target,
    commit_url: &dyn Fn(&str) -> String,
    words: &Words,
) -> Result<Outputs> {
    let answered = (|| {
        let mut ws = cx.workspace()?;
        let done = decide(&mut ws, target, cx.ui)?;
        let push = done.failed.is_none() && !done.done.is_empty();
        let verification = if push {
            Some(verify(&ws, Some(&decided_range(target)))?)
        } else {
            None
        };
        let reply = outcome(target, done, verification.as_ref(), commit_url, words);
        write_reply(out, &reply, words)?;
        if push {
            // The reply in case the push is refused: the branch moved while deciding.
            write_body(out, "moved.json", &json!({ "body": moved(target) }))?;
        }
        Ok(vec![("push", json!(push))])
    })();
    answered.inspect_err(|e| {
        // The reviewer is answered even when mneme itself cannot go on.
        let _ = write_reply(out, &failed(target, e), words);
    })
}

/// Writes `summary.json` for `range`: `diff --format markdown` under mneme's marker, linked
/// into the forge's project.
pub(crate) fn summarise(
    ws: &Workspace,
    range: &str,
    repo_url: &str,
    forge: Forge,
    out: &Path,
) -> Result<()> {
    let net = diff(ws, Some(range))?;
    let links = Links::on(forge, Some(repo_url), &net.head);
    let body = format!("{SUMMARY_MARKER}\n{}", markdown(&net, &links));
    write_body(out, "summary.json", &json!({ "body": body }))
}

/// The id of the summary comment mneme's workflow posted: the first by GitHub Actions' own
/// account that opens with the marker. A comment anyone else wrote is never taken for it.
fn github_summary_comment(pages: &[PathBuf]) -> Result<Option<u64>> {
    for page in pages {
        let comments: Vec<Value> = read_json(page, "the comments")?;
        let found = comments.iter().find(|c| {
            c["user"]["login"] == "github-actions[bot]"
                && c["user"]["type"] == "Bot"
                && c["body"]
                    .as_str()
                    .is_some_and(|b| b.starts_with(SUMMARY_MARKER))
        });
        if let Some(id) = found.and_then(|c| c["id"].as_u64()) {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

/// Writes the reply and the reaction to the command, as the forge's API takes them.
pub(crate) fn write_reply(out: &Path, reply: &Reply, words: &Words) -> Result<()> {
    write_body(out, "reply.json", &json!({ "body": reply.body }))?;
    let reaction = words.reaction(reply.done);
    let body = match words.forge {
        Forge::GitHub => json!({ "content": reaction }),
        Forge::GitLab => json!({ "name": reaction }),
    };
    write_body(out, "reaction.json", &body)
}

pub(crate) fn write_body(dir: &Path, name: &str, body: &Value) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::input(dir, e))?;
    let path = dir.join(name);
    let text = serde_json::to_vec(body).expect("a JSON value serializes");
    mneme::store::file::write_atomic(&path, &text, mneme::store::Durability::Synced)?;
    Ok(())
}

pub(crate) fn read_json<T: DeserializeOwned>(path: &Path, what: &str) -> Result<T> {
    let bytes = mneme::store::file::read_named(path, MAX_BYTES as u64)
        .map_err(|e| CliError::input(path, e))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        CliError::invalid_input(format!(
            "{}: not {what} as the forge sends it: {e}",
            path.display()
        ))
    })
}

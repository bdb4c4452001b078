use std::path::{Path, PathBuf};

use mneme::model::forge::event::{gate, CommentEvent, Gate, Permission, Pull, Target, MAX_BYTES};
use mneme::ops::audit::{diff, verify};
use mneme::ops::forge::decide;
use mneme::ops::{Notes, Workspace};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

use crate::cli::render::diff::{markdown, Links};
use crate::cli::render::forge::{failed, moved, outcome, refusal, Reply, SUMMARY_MARKER};
use crate::cli::{CliError, Cx, ExitStatus, Result};

/// Review on the forge: run the `/mneme` commands of a pull request's comment.
///
/// For the workflow `mneme init --ci github` writes (docs/ci.md, "Deciding in the pull
/// request"). The workflow asks GitHub's API for the pull request and for the commenter's
/// permission, and hands the answers over as files; mneme itself never talks to the network.
/// Each subcommand prints its outputs as `key=value` lines for `$GITHUB_OUTPUT` (`--json`: one
/// object), and writes the bodies of the requests the workflow then makes into `--out`:
/// `reply.json` (the answer in the thread), `reaction.json` (on the command's comment) and
/// `summary.json` (the pull request's summary comment).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme forge gate --event e.json --pull pull.json --permission perm.json --out answer
  mneme forge decide --event e.json --pull pull.json --permission perm.json --out answer
  mneme forge summary \"$BASE..$HEAD\" --repo-url \"$URL\" --out answer --comments page1.json

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

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let outputs = match &args.command {
        Sub::Gate(inputs) => run_gate(cx, inputs)?,
        Sub::Decide(inputs) => run_decide(cx, inputs)?,
        Sub::Summary(s) => {
            let ws = cx.workspace()?;
            let mut outputs = vec![];
            summarise(
                &ws,
                &s.range,
                &s.repo_url,
                &s.comments,
                &s.out,
                &mut outputs,
            )?;
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

type Outputs = Vec<(&'static str, Value)>;

/// The gate's verdict on the inputs; a refusal's reply is written.
fn judge(cx: &Cx, inputs: &Inputs) -> Result<(CommentEvent, Gate)> {
    let event: CommentEvent = read_json(&inputs.event, "the event")?;
    let pull: Pull = read_json(&inputs.pull, "the pull request")?;
    let permission: Permission = read_json(&inputs.permission, "the permission")?;
    let verdict = gate(&event, &pull, &permission);
    match &verdict {
        Gate::Refuse(why) => write_reply(&inputs.out, &refusal(&event.comment.user.login, why))?,
        Gate::Ignore(why) => cx.ui.warn(&format!("not acting: {why}")),
        Gate::Decide(_) => {}
    }
    Ok((event, verdict))
}

fn run_gate(cx: &Cx, inputs: &Inputs) -> Result<Outputs> {
    let (_, verdict) = judge(cx, inputs)?;
    Ok(match verdict {
        Gate::Decide(t) => vec![
            ("decide", json!(true)),
            ("branch", json!(t.branch)),
            ("base_ref", json!(t.base_ref)),
            ("head", json!(t.head)),
            ("base", json!(t.base)),
        ],
        _ => vec![("decide", json!(false))],
    })
}

fn run_decide(cx: &Cx, inputs: &Inputs) -> Result<Outputs> {
    let (event, verdict) = judge(cx, inputs)?;
    let Gate::Decide(target) = verdict else {
        return Ok(vec![("push", json!(false))]);
    };
    decide_and_answer(cx, inputs, &event, &target).inspect_err(|e| {
        // The reviewer is answered even when mneme itself cannot go on.
        let _ = write_reply(&inputs.out, &failed(&target, e));
    })
}

fn decide_and_answer(
    cx: &Cx,
    inputs: &Inputs,
    event: &CommentEvent,
    target: &Target,
) -> Result<Outputs> {
    let mut ws = cx.workspace()?;
    let done = decide(&mut ws, target, cx.ui)?;
    let push = done.failed.is_none() && !done.done.is_empty();
    let repo_url = event.repository.html_url.trim_end_matches('/').to_owned();
    // The summary names the commits, as the pull request's own workflow does.
    let head = done
        .done
        .last()
        .map_or("HEAD", |d| d.committed.commit.as_str());
    let range = format!("{}..{head}", target.base);
    let verification = if push {
        Some(verify(&ws, Some(&range))?)
    } else {
        None
    };
    let commit_url = |id: &str| format!("{repo_url}/commit/{id}");
    let reply = outcome(target, done, verification.as_ref(), &commit_url);
    write_reply(&inputs.out, &reply)?;
    let mut outputs = vec![("push", json!(push))];
    if push {
        // The reply in case the push is refused: the branch moved while deciding.
        write_body(&inputs.out, "moved.json", &json!({ "body": moved(target) }))?;
        summarise(
            &ws,
            &range,
            &repo_url,
            &inputs.comments,
            &inputs.out,
            &mut outputs,
        )?;
    }
    Ok(outputs)
}

/// Writes `summary.json` for `range`, and adds the id of the summary comment to update.
fn summarise(
    ws: &Workspace,
    range: &str,
    repo_url: &str,
    comments: &[PathBuf],
    out: &Path,
    outputs: &mut Outputs,
) -> Result<()> {
    let net = diff(ws, Some(range))?;
    let links = Links::new(Some(repo_url), &net.head);
    let body = format!("{SUMMARY_MARKER}\n{}", markdown(&net, &links));
    write_body(out, "summary.json", &json!({ "body": body }))?;
    if let Some(id) = summary_comment(comments)? {
        outputs.push(("summary_id", json!(id)));
    }
    Ok(())
}

/// The id of the summary comment mneme's workflow posted: the first by GitHub Actions' own
/// account that opens with the marker. A comment anyone else wrote is never taken for it.
fn summary_comment(pages: &[PathBuf]) -> Result<Option<u64>> {
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

fn write_reply(out: &Path, reply: &Reply) -> Result<()> {
    write_body(out, "reply.json", &json!({ "body": reply.body }))?;
    write_body(out, "reaction.json", &json!({ "content": reply.reaction }))
}

fn write_body(dir: &Path, name: &str, body: &Value) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::input(dir, e))?;
    let path = dir.join(name);
    let text = serde_json::to_vec(body).expect("a JSON value serializes");
    mneme::store::file::write_atomic(&path, &text)?;
    Ok(())
}

fn read_json<T: DeserializeOwned>(path: &Path, what: &str) -> Result<T> {
    let bytes = mneme::store::file::read_named(path, MAX_BYTES as u64)
        .map_err(|e| CliError::input(path, e))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        CliError::invalid_input(format!(
            "{}: not {what} as GitHub sends it: {e}",
            path.display()
        ))
    })
}

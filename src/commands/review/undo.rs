//! `review undo`: the inverse of an approval, proposed for review.

use mneme::git::history::resolve_commit;
use mneme::model::proposals::plan::Request;
use mneme::model::provenance::decision::Recorded;
use mneme::ops::propose::propose;
use mneme::ops::records::{decisions_with_records, with_texts};
use mneme::ops::Workspace;

use crate::cli::ui::{esc1, short};
use crate::cli::{CliError, Cx, ExitStatus, Result};

/// `review undo`: the inverse of an approval, proposed.
pub(super) fn undo(cx: &Cx, ws: &Workspace, wanted: &str) -> Result<ExitStatus> {
    let wanted = wanted.trim();
    let is_commit = wanted.len() >= 4 && wanted.bytes().all(|b| b.is_ascii_hexdigit());
    // History first, then the decisions only their records still show (squashed, rebased).
    let all = decisions_with_records(ws, None, None, false)?;
    let named = |r: &Recorded| {
        r.proposal == wanted
            || r.record.as_deref() == Some(wanted)
            || (is_commit && r.commit.starts_with(&wanted.to_ascii_lowercase()))
    };
    let mut matching: Vec<Recorded> = all.iter().filter(|r| named(r)).cloned().collect();
    // A git revision (`HEAD`, `HEAD~2`, a branch) names the decision commit it resolves to.
    if matching.is_empty() {
        if let Ok(commit) = resolve_commit(&ws.repo, wanted) {
            let commit = commit.to_string();
            matching.extend(all.into_iter().filter(|r| r.commit == commit));
        }
    }
    let decision = match <[Recorded; 1]>::try_from(matching) {
        Ok([one]) => one,
        Err(many) if many.is_empty() => {
            return Err(CliError::invalid_input(format!(
                "no decision in the history of HEAD is `{}`",
                esc1(wanted)
            ))
            .with_hint("`mneme log` lists the decisions, with their commits"))
        }
        Err(many) => {
            let commits: Vec<&str> = many.iter().map(|r| short(&r.commit)).collect();
            return Err(CliError::invalid_input(format!(
                "`{}` names {} decisions ({}); give more of the commit",
                esc1(wanted),
                many.len(),
                commits.join(", ")
            )));
        }
    };
    let label = decision.record.clone().unwrap_or_default();
    let Some(decision) = with_texts(ws, decision)? else {
        return Err(CliError::invalid_input(format!(
            "no commit of this history holds the decision record {}",
            esc1(&label)
        ))
        .with_hint("commit the record first: `git add .ledger/decisions && git commit`"));
    };
    let ledger = ws.store.load()?;
    let operations = mneme::model::provenance::undo::undo(&decision, &ledger)
        .map_err(|e| CliError::invalid_input(e.to_string()))?;
    let request = Request {
        reason: Some(format!(
            "Undo {} ({})",
            short(&decision.commit),
            mneme::model::base::text::one_line(&decision.subject)
        )),
        evidence: vec![decision.commit.clone()],
        agent: Some("mneme review undo".into()),
        operations,
    };
    crate::commands::propose::report(cx, ws, propose(ws, request)?)
}

//! `review undo`: the inverse of an approval, proposed for review.

use mneme::git::history::{decisions, read_texts};
use mneme::model::proposals::plan::Request;
use mneme::model::provenance::decision::Recorded;
use mneme::ops::propose::propose;
use mneme::ops::Workspace;

use crate::cli::ui::{esc1, short};
use crate::cli::{CliError, Cx, ExitStatus, Result};

/// `review undo`: the inverse of an approval, proposed.
pub(super) fn undo(cx: &Cx, ws: &Workspace, wanted: &str) -> Result<ExitStatus> {
    let wanted = wanted.trim();
    let is_commit = wanted.len() >= 4 && wanted.bytes().all(|b| b.is_ascii_hexdigit());
    let matching: Vec<Recorded> = decisions(&ws.repo, None, None, false)?
        .into_iter()
        .filter(|r| {
            r.proposal == wanted
                || (is_commit && r.commit.starts_with(&wanted.to_ascii_lowercase()))
        })
        .collect();
    let mut decision = match <[Recorded; 1]>::try_from(matching) {
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
    read_texts(&ws.repo, &mut decision)?;
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

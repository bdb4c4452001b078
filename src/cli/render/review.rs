//! Review screens: the pending list, one proposal with its diff, cited lines and competitors, and
//! the line each decision commit prints.

use mneme::git::commit::Committed;
use mneme::model::base::paths;
use mneme::model::base::text::{display_width, operations_in_brief, pad};
use mneme::model::base::time::human_age;
use mneme::model::evidence::cited::Cited;
use mneme::model::proposals::apply::Conflict;
use mneme::model::proposals::plan::Competing;
use mneme::model::proposals::preview::{BudgetAfter, Preview, Status};
use mneme::model::proposals::proposal::Proposal;
use mneme::model::views::ReviewRow;
use mneme::ops::now;
use mneme::ops::review::Pending;

use crate::cli::ui::{self, esc, esc1, paint, short, DIM, GOOD, HEADER, ID, WARN};

/// `review list`: one line per pending proposal, its operations in one column.
pub fn review_list(rows: &[ReviewRow]) -> String {
    let who = |row: &ReviewRow| {
        format!(
            "[{}, {}]",
            esc1(row.agent.unwrap_or("unknown agent")),
            row.age.as_deref().unwrap_or("?")
        )
    };
    // Operations start in one column, however wide the agents' names are on the terminal.
    let width = rows
        .iter()
        .filter(|r| r.invalid.is_none())
        .map(|r| display_width(&who(r)))
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for row in rows {
        if let Some(why) = &row.invalid {
            out.push_str(&format!(
                "{} {} {}\n",
                paint(ID, row.id),
                paint(WARN, "invalid:"),
                esc1(why)
            ));
            continue;
        }
        let status = match row.status {
            Status::Conflict => paint(WARN, "conflict"),
            Status::Rebased => paint(DIM, "rebased"),
            Status::Clean | Status::Invalid => String::new(),
        };
        out.push_str(&format!(
            "{} {} {} {status}\n",
            paint(ID, row.id),
            paint(DIM, pad(&who(row), width)),
            esc1(&operations_in_brief(&row.operations)),
        ));
    }
    out
}

pub fn committed_line(c: &Committed) -> String {
    format!(
        "{} {} {}\n",
        paint(GOOD, "committed"),
        paint(ID, short(&c.commit)),
        esc1(&c.summary)
    )
}

/// The cited lines under the evidence, or what is wrong with a citation.
fn render_cited(cited: &[Cited]) -> String {
    let mut out = String::new();
    for c in cited {
        if let Some(problem) = c.problem() {
            out.push_str(&format!(
                "    {} {}\n",
                paint(WARN, format!("{}:", esc1(c.evidence()))),
                paint(WARN, esc1(&problem))
            ));
            continue;
        }
        let Cited::Lines {
            evidence,
            lines,
            more,
            ..
        } = c
        else {
            continue;
        };
        out.push_str(&format!("    {}\n", paint(DIM, esc1(evidence))));
        let width = lines.last().map_or(1, |(n, _)| n.to_string().len());
        for (n, text) in lines {
            out.push_str(&format!(
                "    {} {}\n",
                paint(DIM, format!("{n:>width$} │")),
                esc1(text)
            ));
        }
        if *more > 0 {
            out.push_str(&format!(
                "    {}\n",
                paint(DIM, format!("… {more} more line(s)"))
            ));
        }
    }
    out
}

/// Header and diff of one proposal; for an invalid one, only why. Everything from the proposal
/// and the fact files is shown with control characters escaped.
pub fn proposal_screen(
    item: &Pending,
    preview: Option<&Preview>,
    cited: &[Cited],
    competing: &[Competing],
    position: Option<(usize, usize)>,
) -> String {
    let mut out = paint(HEADER, format!("Proposal {}", item.id));
    if let Some((n, total)) = position {
        out.push_str(&paint(DIM, format!("  ({n} of {total})")));
    }
    out.push('\n');
    let (Ok(p), Some(preview)) = (&item.proposal, preview) else {
        let why = item.proposal.as_ref().err().map(ToString::to_string);
        out.push_str(&format!(
            "\n{} {}\n{}",
            paint(WARN, "INVALID:"),
            esc1(why.as_deref().unwrap_or("")),
            paint(
                DIM,
                "It breaks the rules `mneme propose` enforces; only reject (n) can resolve it.\n"
            )
        ));
        return out;
    };
    let agent = p.agent.as_deref().unwrap_or("unknown agent");
    let by = match &p.author {
        Some(a) => format!("{agent} ({a})"),
        None => agent.to_owned(),
    };
    let age = p
        .created()
        .map_or_else(|| "?".into(), |t| human_age(t, now()));
    out.push_str(&field("agent:   ", &format!("{}, {age} ago", esc1(&by))));
    out.push_str(&field("reason:  ", &esc(&p.reason)));
    let evidence = if p.evidence.is_empty() {
        paint(WARN, "NO EVIDENCE")
    } else {
        esc1(&p.evidence.join(", ")).into_owned()
    };
    out.push_str(&field("evidence:", &evidence));
    out.push_str(&render_cited(cited));
    for s in &preview.similar {
        out.push_str(&field("similar: ", &ui::similar_line(s)));
    }
    for c in competing {
        let also = format!("pending {}", ui::competing_line(c));
        out.push_str(&field("competes:", &paint(WARN, also)));
    }
    if item.original.is_some() {
        out.push_str(&format!("  {}\n", paint(WARN, "edited by you")));
    }
    out.push_str(&changes(p, preview));
    out.push_str(&outcome(preview));
    out
}

/// One labelled line of a proposal's header.
fn field(label: &str, value: &str) -> String {
    format!("  {} {value}\n", paint(DIM, label))
}

/// What the proposal changes: each operation (numbered when there are several) with its scope,
/// and each fact whose cited evidence it changes.
fn changes(p: &Proposal, preview: &Preview) -> String {
    let mut out = String::new();
    let numbered = p.operations.len() > 1;
    for (i, op) in p.operations.iter().enumerate() {
        let n = if numbered {
            format!("{}. ", i + 1)
        } else {
            String::new()
        };
        out.push_str(&field("change:  ", &format!("{n}{}", esc1(&op.summary()))));
        if !op.scope().is_empty() {
            let globs = esc1(&op.scope().join(", ")).into_owned();
            let about = format!("{globs} (agents get the fact when they read or edit a match)");
            out.push_str(&field("scope:   ", &about));
        }
    }
    for change in &preview.evidence {
        let cites = |e: &[String]| match e {
            [] => "nothing".to_owned(),
            e => esc1(&e.join(", ")).into_owned(),
        };
        let line = format!(
            "{}: {} → {}",
            change.fact,
            cites(&change.before),
            cites(&change.after)
        );
        out.push_str(&field("cites:   ", &paint(WARN, line)));
    }
    out
}

/// What approving would do: the diff of each fact file, or the conflict and how to resolve it.
fn outcome(preview: &Preview) -> String {
    let mut out = String::new();
    match &preview.outcome {
        Ok(applied) => {
            if applied.rebased {
                out.push_str(&format!(
                    "  {}\n",
                    paint(WARN, "rebased: the facts changed since this was proposed; it still applies cleanly")
                ));
            }
            if let Some(b) = preview.budget.filter(BudgetAfter::over) {
                out.push_str(&format!(
                    "  {}\n",
                    paint(
                        WARN,
                        format!(
                            "over budget: approving takes the facts to {} lines, over budget_lines ({})",
                            b.lines, b.limit
                        )
                    )
                ));
            }
            out.push('\n');
            for f in &applied.files {
                out.push_str(&ui::diff(&paths::fact_file(&f.name), &f.old, &f.new));
            }
        }
        Err(conflict) => {
            out.push_str(&format!(
                "\n{} {}\n",
                paint(WARN, "CONFLICT:"),
                esc1(&conflict.to_string())
            ));
            if let Conflict::FactChanged { before, now, .. } = conflict {
                out.push_str(&field("when proposed:", &esc1(before)));
                out.push_str(&field("now:          ", &esc1(now)));
            }
            let choices = if editable(conflict) {
                "Only reject (n), edit (e) or re-target at the fact as it is now (r) can resolve it.\n"
            } else {
                "Only reject (n) can resolve it.\n"
            };
            out.push_str(&paint(DIM, choices));
        }
    }
    out
}

/// Whether editing can resolve a conflict: re-targeting at a fact that changed can, a fact that
/// is gone or superseded cannot be rewritten.
pub fn editable(conflict: &Conflict) -> bool {
    matches!(conflict, Conflict::FactChanged { .. })
}

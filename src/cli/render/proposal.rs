//! What `propose` (and `review undo`) report of a written proposal: its operations, then what
//! the reviewer will be warned of too.

use mneme::model::views::ProposedView;

use crate::cli::ui::{self, esc1, paint, ID, WARN};

/// The written proposal, with similar facts, competing proposals, evidence that points at
/// nothing and an exhausted budget.
pub fn proposal_written(view: &ProposedView<'_>) -> String {
    let (p, budget) = (view.proposal, &view.budget);
    let mut out = format!("Proposed {} ({})\n", paint(ID, &p.id), esc1(&view.path));
    for op in &p.operations {
        out.push_str(&format!("  {}\n", esc1(&op.summary())));
    }
    let warning = |text: &str| format!("{}\n", paint(WARN, text));
    if !view.similar.is_empty() {
        out.push_str(&warning(
            "Similar facts and pending proposals (propose an update instead if one of them says this):",
        ));
        for s in view.similar {
            out.push_str(&format!("  {}\n", ui::similar_line(s)));
        }
    }
    for c in view.competing {
        let line = format!(
            "Pending {}: the reviewer decides between them.",
            ui::competing_line(c)
        );
        out.push_str(&warning(&line));
    }
    if !view.evidence_problems.is_empty() {
        out.push_str(&warning(
            "Evidence that points at nothing (the reviewer sees this too):",
        ));
        for e in &view.evidence_problems {
            out.push_str(&format!("  {}: {}\n", esc1(&e.evidence), esc1(&e.problem)));
        }
    }
    if budget.over {
        out.push_str(&warning(&format!(
            "The facts already use {} of {} budget lines.",
            budget.used, budget.limit
        )));
    }
    out.push_str("A human reviews it with `mneme review`.\n");
    out
}

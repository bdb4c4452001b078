//! `mneme context --for <runtime>`: the context in the shape an agent runtime's hook expects.
//! It never fails the agent's session: any problem becomes a short explanation in that shape,
//! and the exit code is 0.

use clap::builder::TypedValueParser;
use mneme::model::briefing::render;
use mneme::model::runtimes::{Runtime, Step};
use mneme::ops::context::{context, mark_compacted, take_compacted};
use mneme::ops::tasks::env_agent;
use mneme::ops::Workspace;

use crate::cli::{names, panic, CliError, Cx, ExitStatus, Result};

/// `--for`: the runtimes mneme knows.
pub fn runtime_parser() -> impl TypedValueParser<Value = Runtime> {
    names(&Runtime::ALL, |r| r.as_str(), &[])
}

pub fn run(cx: &Cx, runtime: Runtime, event: &str, budget: usize) -> Result<ExitStatus> {
    // Never an empty context in silence: any failure, a panic included, is explained.
    let text = match panic::catch(|| briefing(cx, runtime, event, budget)) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(ExitStatus::Success),
        Err(e) => format!(
            "mneme could not load the project facts: {}. Tell the user; `mneme check` shows what is wrong with the ledger's files, `mneme context` in a terminal shows the error, and `mneme doctor` checks the setup.",
            e.message
        ),
    };
    let mut output = runtime.output(event, &text);
    output.push('\n');
    // The agent's session must go on whatever happens to this output.
    let _ = cx.ui.out(&output);
    Ok(ExitStatus::Success)
}

/// The text to inject at `event`, if any.
fn briefing(
    cx: &Cx,
    runtime: Runtime,
    event: &str,
    budget: usize,
) -> Result<Option<String>, CliError> {
    let ws = Workspace::discover(&cx.cwd)?;
    let name = runtime.as_str();
    match runtime.on(event) {
        Step::Mark => {
            mark_compacted(&ws, name)?;
            return Ok(None);
        }
        Step::IfMarked if !take_compacted(&ws, name)? => return Ok(None),
        Step::IfMarked | Step::Inject => {}
    }
    let context = context(&ws, cx.ui)?;
    let hint = if env_agent().is_some() {
        String::new()
    } else {
        runtime.identity_hint()
    };
    let mut text = render(&context, Some(budget.saturating_sub(hint.len())));
    text.push_str(&hint);
    Ok(Some(text))
}

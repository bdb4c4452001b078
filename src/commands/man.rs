use clap::CommandFactory;

use crate::cli::{CliError, Cx, ExitStatus, Result};
use crate::commands::Cli;

/// Print a man page (roff) for mneme or one of its verbs.
///
/// Without a page, prints `mneme(1)`. Pages are named after the verbs they describe:
/// `mneme-review` and `mneme-review-approve` (or `review approve`). `--list` prints every
/// page's name, so a package can install them all.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme man | man -l -
  mneme man review approve > mneme-review-approve.1
  for page in $(mneme man --list); do mneme man \"$page\" > \"$page.1\"; done")]
pub struct Args {
    /// The verb to describe, such as `review approve` or `mneme-review-approve`.
    page: Vec<String>,
    /// List the names of every page instead.
    #[arg(long, conflicts_with = "page")]
    list: bool,
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let root = Cli::command();
    let pages = pages(&root);
    if args.list {
        let names: String = pages.iter().map(|(name, _)| format!("{name}\n")).collect();
        cx.ui.out(&names)?;
        return Ok(ExitStatus::Success);
    }
    let wanted = match args.page.join("-") {
        w if w.is_empty() => "mneme".to_owned(),
        w if w.starts_with("mneme") => w,
        w => format!("mneme-{w}"),
    };
    let Some((_, cmd)) = pages.into_iter().find(|(name, _)| *name == wanted) else {
        return Err(CliError::invalid_input(format!("no man page `{wanted}`"))
            .with_hint("`mneme man --list` names every page"));
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(cmd)
        .source(concat!("mneme ", env!("CARGO_PKG_VERSION")))
        .manual("mneme manual")
        .render(&mut roff)
        .map_err(CliError::from)?;
    cx.ui.out(&String::from_utf8_lossy(&roff))?;
    Ok(ExitStatus::Success)
}

/// `(page name, command)` for mneme and every verb and sub-verb, the command renamed after its
/// page so that the page's NAME and SYNOPSIS say `mneme-review-approve`.
fn pages(root: &clap::Command) -> Vec<(String, clap::Command)> {
    let mut out = vec![("mneme".to_owned(), root.clone())];
    let mut stack: Vec<(String, clap::Command)> = vec![("mneme".to_owned(), root.clone())];
    while let Some((prefix, cmd)) = stack.pop() {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let name = format!("{prefix}-{}", sub.get_name());
            let page = sub
                .clone()
                .display_name(name.clone())
                .bin_name(name.replace('-', " "));
            out.push((name.clone(), page));
            stack.push((name, sub.clone()));
        }
    }
    out[1..].sort_by(|a, b| a.0.cmp(&b.0));
    out
}

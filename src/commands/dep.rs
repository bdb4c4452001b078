use mneme::model::tasks::task::{Board, DepKind, Task};
use mneme::model::views::DepTree;
use mneme::ops::tasks::{self, add_dep, remove_dep};

use super::{dep_kind_parser, print_task};
use crate::cli::ui::{esc1, paint, task_line, DIM};
use crate::cli::{Cx, ExitStatus, Result};

/// Add, remove or show task dependencies.
///
/// `mneme dep add A B` records that A depends on B: with the default type `blocks`, A is not
/// ready until B is closed. Only `blocks` and a blocked parent (`parent-child`) hold work back;
/// `related` and `discovered-from` are links. A dependency that would make a cycle is refused.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  mneme dep add t-a3f8 t-9k2m
  mneme dep add t-a3f8 t-1b2c --type parent-child
  mneme dep rm t-a3f8 t-9k2m
  mneme dep tree t-a3f8")]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// ID depends on DEPENDS_ON.
    #[command(after_help = "Examples:
  mneme dep add t-a3f8 t-9k2m                     # t-a3f8 waits for t-9k2m
  mneme dep add t-a3f8 t-1b2c --type parent-child")]
    Add {
        /// The task that depends (id or unique prefix).
        id: String,
        /// The task it depends on.
        depends_on: String,
        /// blocks (not ready until DEPENDS_ON closes), parent-child, related or discovered-from.
        #[arg(long = "type", value_parser = dep_kind_parser(), default_value = "blocks")]
        kind: DepKind,
    },
    /// Remove the dependency of ID on DEPENDS_ON (of any type).
    #[command(after_help = "Examples:\n  mneme dep rm t-a3f8 t-9k2m")]
    Rm {
        /// The task that depends.
        id: String,
        /// The task it no longer depends on.
        depends_on: String,
    },
    /// The dependencies of ID, as a tree.
    #[command(after_help = "Examples:\n  mneme dep tree t-a3f8\n  mneme dep tree t-a3f8 --json")]
    Tree {
        /// The task at the root.
        id: String,
    },
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let ws = cx.workspace()?;
    match &args.action {
        Action::Add {
            id,
            depends_on,
            kind,
        } => {
            let task = add_dep(&ws, id, depends_on, *kind)?;
            print_task(cx, "dependency added", &task)
        }
        Action::Rm { id, depends_on } => {
            let task = remove_dep(&ws, id, depends_on)?;
            print_task(cx, "dependency removed", &task)
        }
        Action::Tree { id } => {
            let tasks = tasks::load(&ws, cx.ui)?;
            let board = Board::new(tasks.iter());
            let root = board.resolve(id)?;
            if cx.ui.json {
                cx.ui.json(&DepTree::new(&board, root))?;
            } else {
                let mut out = task_line(root);
                tree_text(&board, root, "", &mut vec![root.id.clone()], &mut out);
                cx.ui.out(&out)?;
            }
            Ok(ExitStatus::Success)
        }
    }
}

fn tree_text(board: &Board, task: &Task, indent: &str, path: &mut Vec<String>, out: &mut String) {
    for (i, dep) in task.deps.iter().enumerate() {
        let last = i + 1 == task.deps.len();
        let branch = if last { "└─" } else { "├─" };
        out.push_str(&format!(
            "{indent}{branch} {} ",
            paint(DIM, dep.kind.from_the_task())
        ));
        match board.tasks.get(dep.id.as_str()) {
            Some(t) if path.contains(&t.id) => out.push_str(&format!("{} (cycle)\n", t.id)),
            Some(t) => {
                out.push_str(&task_line(t));
                path.push(t.id.clone());
                tree_text(
                    board,
                    t,
                    &format!("{indent}{}  ", if last { " " } else { "│" }),
                    path,
                    out,
                );
                path.pop();
            }
            None => out.push_str(&format!("{} (missing)\n", esc1(&dep.id))),
        }
    }
}

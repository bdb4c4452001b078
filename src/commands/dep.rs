use mneme::model::tasks::{Board, Dep, DepKind, Task};
use mneme::model::time::Timestamp;
use mneme::store::Workspace;
use mneme::{Error, Result};
use serde_json::json;

use super::{load_tasks, Cx};
use crate::cli::ui::{self, paint, DIM};

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
    Add {
        id: String,
        depends_on: String,
        #[arg(long = "type", value_enum, default_value_t = DepKind::Blocks)]
        kind: DepKind,
    },
    /// Remove the dependency of ID on DEPENDS_ON (of any type).
    Rm { id: String, depends_on: String },
    /// The dependencies of ID, as a tree.
    Tree { id: String },
}

pub fn run(cx: &Cx, args: &Args) -> Result<()> {
    let ws = Workspace::discover(&cx.cwd)?;
    match &args.action {
        Action::Add {
            id,
            depends_on,
            kind,
        } => {
            // Cycle check and write under one lock, so two agents cannot close a cycle together.
            let _lock = ws.lock_tasks()?;
            let tasks = load_tasks(&ws)?;
            let board = Board::new(tasks.iter());
            let (from, to) = (
                board.resolve(id)?.id.clone(),
                board.resolve(depends_on)?.id.clone(),
            );
            if matches!(kind, DepKind::Blocks | DepKind::ParentChild) {
                if let Some(cycle) = board.cycle_with(&from, &to) {
                    return Err(Error::DependencyCycle { cycle });
                }
            }
            let (task, ()) = ws.modify_task_locked(&from, |t| {
                let dep = Dep {
                    kind: *kind,
                    id: to.clone(),
                };
                if *kind == DepKind::ParentChild && t.parent().is_some_and(|p| p != to) {
                    return Err(Error::InvalidInput(format!(
                        "{} already has a parent; remove it first",
                        t.id
                    )));
                }
                if !t.deps.contains(&dep) {
                    t.deps.push(dep);
                }
                t.updated_at = Timestamp::now().rfc3339();
                Ok(())
            })?;
            report(cx, &task, "dependency added")
        }
        Action::Rm { id, depends_on } => {
            let _lock = ws.lock_tasks()?;
            let tasks = load_tasks(&ws)?;
            let board = Board::new(tasks.iter());
            let from = board.resolve(id)?.id.clone();
            let to = board
                .resolve(depends_on)
                .map(|t| t.id.clone())
                .unwrap_or_else(|_| depends_on.clone());
            let (task, ()) = ws.modify_task_locked(&from, |t| {
                let before = t.deps.len();
                t.deps.retain(|d| d.id != to);
                if t.deps.len() == before {
                    return Err(Error::InvalidInput(format!(
                        "{} does not depend on {to}",
                        t.id
                    )));
                }
                t.updated_at = Timestamp::now().rfc3339();
                Ok(())
            })?;
            report(cx, &task, "dependency removed")
        }
        Action::Tree { id } => {
            let tasks = load_tasks(&ws)?;
            let board = Board::new(tasks.iter());
            let root = board.resolve(id)?;
            if cx.ui.json {
                cx.ui.json(&tree_json(&board, root, &mut Vec::new()));
            } else {
                let mut out = ui::task_line(root);
                tree_text(&board, root, "", &mut vec![root.id.clone()], &mut out);
                cx.ui.out(&out);
            }
            Ok(())
        }
    }
}

fn report(cx: &Cx, task: &Task, what: &str) -> Result<()> {
    super::print_task(cx, what, task);
    Ok(())
}

fn tree_text(board: &Board, task: &Task, indent: &str, path: &mut Vec<String>, out: &mut String) {
    for (i, dep) in task.deps.iter().enumerate() {
        let last = i + 1 == task.deps.len();
        let branch = if last { "└─" } else { "├─" };
        out.push_str(&format!(
            "{indent}{branch} {} ",
            paint(DIM, dep.kind.as_str())
        ));
        match board.tasks.get(dep.id.as_str()) {
            Some(t) if path.contains(&t.id) => out.push_str(&format!("{} (cycle)\n", t.id)),
            Some(t) => {
                out.push_str(&ui::task_line(t));
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
            None => out.push_str(&format!("{} (missing)\n", dep.id)),
        }
    }
}

fn tree_json(board: &Board, task: &Task, path: &mut Vec<String>) -> serde_json::Value {
    path.push(task.id.clone());
    let deps: Vec<_> = task
        .deps
        .iter()
        .map(|d| match board.tasks.get(d.id.as_str()) {
            Some(t) if !path.contains(&t.id) => {
                json!({ "type": d.kind, "task": tree_json(board, t, path) })
            }
            _ => json!({ "type": d.kind, "id": d.id }),
        })
        .collect();
    path.pop();
    json!({ "id": task.id, "title": task.title, "status": task.status, "deps": deps })
}

//! History in graph order. Commit dates are anyone's (a scripted history gives every commit one,
//! a wrong clock puts a parent after its child), so no answer may depend on them: a walk yields
//! each commit after all of its children it reaches, and dates only break ties.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use gix::traverse::commit::Info;

use crate::git::Result;

/// The commits `head` reaches and `hidden` does not, newest first in the graph's sense: each
/// after every child of it among them. Among commits the graph leaves unordered, the newer
/// commit date comes first, as `git log` shows them.
pub(super) fn children_first(
    repo: &gix::Repository,
    head: gix::ObjectId,
    hidden: Option<gix::ObjectId>,
) -> Result<Vec<Info>> {
    let walk = repo
        .rev_walk([head])
        .with_hidden(hidden)
        .sorting(gix::revision::walk::Sorting::ByCommitTime(
            Default::default(),
        ))
        .all()?;
    let mut by_date = Vec::new();
    for info in walk {
        by_date.push(info?.detach());
    }
    Ok(in_graph_order(by_date))
}

/// `by_date` reordered so that no commit comes before a child of it; otherwise in its order.
fn in_graph_order(by_date: Vec<Info>) -> Vec<Info> {
    let position: HashMap<gix::ObjectId, usize> =
        by_date.iter().enumerate().map(|(i, c)| (c.id, i)).collect();
    let parents = |i: usize| {
        by_date[i]
            .parent_ids
            .iter()
            .filter_map(|p| position.get(p).copied())
    };
    // Dates that follow the graph, as a real history's do, need no reordering.
    if (0..by_date.len()).all(|i| parents(i).all(|p| p > i)) {
        return by_date;
    }
    let mut children = vec![0usize; by_date.len()];
    for i in 0..by_date.len() {
        for p in parents(i) {
            children[p] += 1;
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..by_date.len())
        .filter(|&i| children[i] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(by_date.len());
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        for p in parents(i) {
            children[p] -= 1;
            if children[p] == 0 {
                ready.push(Reverse(p));
            }
        }
    }
    let mut slots: Vec<Option<Info>> = by_date.into_iter().map(Some).collect();
    order
        .into_iter()
        .map(|i| slots[i].take().expect("each commit is ordered once"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u8) -> gix::ObjectId {
        gix::ObjectId::from_bytes_or_panic(&[n; 20])
    }

    fn info(n: u8, parents: &[u8]) -> Info {
        Info {
            id: id(n),
            parent_ids: parents.iter().map(|&p| id(p)).collect(),
            generation: None,
            commit_time: None,
        }
    }

    fn order(infos: Vec<Info>) -> Vec<u8> {
        in_graph_order(infos)
            .iter()
            .map(|c| c.id.as_bytes()[0])
            .collect()
    }

    #[test]
    fn a_parent_dated_after_its_child_still_comes_after_it() {
        // 5 merges 4 and 2; 3 (the parent of 2) is dated newer than 2.
        let walked = vec![
            info(5, &[4, 2]),
            info(4, &[3]),
            info(3, &[1]),
            info(2, &[3]),
            info(1, &[]),
        ];
        assert_eq!(order(walked), [5, 4, 2, 3, 1]);
    }

    #[test]
    fn an_order_the_graph_allows_is_kept() {
        let walked = vec![info(4, &[2, 3]), info(3, &[1]), info(2, &[1]), info(1, &[])];
        assert_eq!(order(walked), [4, 3, 2, 1]);
    }

    #[test]
    fn parents_outside_the_walk_are_ignored() {
        let walked = vec![info(3, &[2, 9]), info(2, &[8])];
        assert_eq!(order(walked), [3, 2]);
    }
}

//! A three-way merge of line sequences, as diff3 and `git merge-file` do it: the lines all three
//! versions share are kept, a stretch only one side changed takes that side, and a stretch both
//! changed differently is a conflict (its common first and last lines kept outside it, as git
//! trims them). Pure and generic over the line type.

use similar::{capture_diff_slices, Algorithm, DiffOp};

/// One stretch of the merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chunk<T> {
    /// Lines resolved without conflict.
    Clean(Vec<T>),
    /// Both sides changed the base's `base` lines differently.
    Conflict {
        base: Vec<T>,
        ours: Vec<T>,
        theirs: Vec<T>,
    },
}

/// For each line of `base`, the index of the line of `other` it is kept as, if any.
fn matches<T: Ord + std::hash::Hash>(base: &[T], other: &[T]) -> Vec<Option<usize>> {
    let mut out = vec![None; base.len()];
    for op in capture_diff_slices(Algorithm::Myers, base, other) {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = op
        {
            for i in 0..len {
                out[old_index + i] = Some(new_index + i);
            }
        }
    }
    out
}

/// Merges `ours` and `theirs`, two edits of `base`, into chunks in order.
pub fn merge<T>(base: &[T], ours: &[T], theirs: &[T]) -> Vec<Chunk<T>>
where
    T: Clone + Ord + std::hash::Hash,
{
    let (to_a, to_b) = (matches(base, ours), matches(base, theirs));
    let (mut o, mut a, mut b) = (0, 0, 0);
    let mut out: Vec<Chunk<T>> = Vec::new();
    let clean = |out: &mut Vec<Chunk<T>>, lines: &[T]| {
        if lines.is_empty() {
            return;
        }
        match out.last_mut() {
            Some(Chunk::Clean(v)) => v.extend_from_slice(lines),
            _ => out.push(Chunk::Clean(lines.to_vec())),
        }
    };
    loop {
        // Lines all three share, in step.
        let start = o;
        while o < base.len() && to_a[o] == Some(a) && to_b[o] == Some(b) {
            (o, a, b) = (o + 1, a + 1, b + 1);
        }
        clean(&mut out, &base[start..o]);
        if o == base.len() && a == ours.len() && b == theirs.len() {
            return out;
        }
        // The next base line both sides kept ends the changed stretch.
        let next = (o..base.len()).find(|&k| to_a[k].is_some() && to_b[k].is_some());
        let (k, ka, kb) = match next {
            Some(k) => (k, to_a[k].unwrap_or(a), to_b[k].unwrap_or(b)),
            None => (base.len(), ours.len(), theirs.len()),
        };
        let (bo, ba, bb) = (&base[o..k], &ours[a..ka], &theirs[b..kb]);
        if ba == bb || bb == bo {
            clean(&mut out, ba);
        } else if ba == bo {
            clean(&mut out, bb);
        } else {
            let head = ba.iter().zip(bb).take_while(|(x, y)| x == y).count();
            let tail = ba[head..]
                .iter()
                .rev()
                .zip(bb[head..].iter().rev())
                .take_while(|(x, y)| x == y)
                .count();
            clean(&mut out, &ba[..head]);
            out.push(Chunk::Conflict {
                base: bo.to_vec(),
                ours: ba[head..ba.len() - tail].to_vec(),
                theirs: bb[head..bb.len() - tail].to_vec(),
            });
            clean(&mut out, &ba[ba.len() - tail..]);
        }
        (o, a, b) = (k, ka, kb);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<&str> {
        s.split_terminator('\n').collect()
    }

    #[test]
    fn changes_on_separate_lines_merge_and_the_same_line_conflicts() {
        let base = lines("a\nb\nc\nd\ne");
        let ours = lines("A\nb\nc\nd\ne");
        let theirs = lines("a\nb\nc\nd\nE\nf");
        assert_eq!(
            merge(&base, &ours, &theirs),
            vec![Chunk::Clean(lines("A\nb\nc\nd\nE\nf"))]
        );
        let theirs = lines("a2\nb\nc\nd\ne");
        assert_eq!(
            merge(&base, &ours, &theirs),
            vec![
                Chunk::Conflict {
                    base: vec!["a"],
                    ours: vec!["A"],
                    theirs: vec!["a2"]
                },
                Chunk::Clean(lines("b\nc\nd\ne"))
            ]
        );
    }

    #[test]
    fn identical_edits_and_shared_ends_stay_out_of_the_conflict() {
        let base = lines("x\ny");
        let ours = lines("x\n1\n2\n3\ny");
        let theirs = lines("x\n1\nX\n3\ny");
        assert_eq!(
            merge(&base, &ours, &theirs),
            vec![
                Chunk::Clean(lines("x\n1")),
                Chunk::Conflict {
                    base: vec![],
                    ours: vec!["2"],
                    theirs: vec!["X"]
                },
                Chunk::Clean(lines("3\ny"))
            ]
        );
        assert_eq!(merge(&base, &ours, &ours), vec![Chunk::Clean(ours.clone())]);
        assert_eq!(merge::<&str>(&[], &[], &[]), vec![]);
    }
}

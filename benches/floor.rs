//! The verbs an agent runs most, against the floor of any process: `mneme --version`. The three
//! run side by side, one of each per round, so a busy machine slows all of them alike, on an
//! 800-line ledger as a real one is made (each fact proposed and approved, so each has its
//! decision record and commit) with 60 pending proposals. Run with `cargo bench --bench floor`; prints each
//! median and its ratio to the floor. Not a test: nothing here asserts a time.

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use std::time::Duration;

use common::{measure, release_binary, report, seed_approved_ledger};

const ROUNDS: usize = 101;
const PENDING: usize = 60;

fn main() {
    let bin = release_binary();
    let dir = common::repo(&bin);
    let root = dir.path();
    let lines = seed_approved_ledger(&bin, root, 800);
    let records = std::fs::read_dir(root.join(".ledger/decisions")).map_or(0, Iterator::count);
    let propose = |i: usize| -> Vec<String> {
        [
            "propose",
            "add",
            "--file",
            "pitfalls",
            &format!("Floor proposal {i} about the cache layer {}.", i * 7919),
            "--reason",
            "benchmark",
        ]
        .map(String::from)
        .to_vec()
    };
    for i in 0..PENDING {
        measure(&bin, root, &propose(i));
    }
    println!(
        "ledger: {lines} lines of facts, {records} decision records, {PENDING} pending, mneme {}",
        bin.display()
    );

    let verbs: [(&str, Vec<String>); 2] = [
        ("context", vec!["context".into()]),
        ("context --json", vec!["context".into(), "--json".into()]),
    ];
    let mut floor = Vec::new();
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); verbs.len() + 1];
    for round in 0..ROUNDS {
        floor.push(measure(&bin, root, &["--version".to_owned()]).0);
        for (i, (_, args)) in verbs.iter().enumerate() {
            times[i].push(measure(&bin, root, args).0);
        }
        // Each proposal is new, so the queue grows by one per round, as an agent's would.
        times[verbs.len()].push(measure(&bin, root, &propose(PENDING + round)).0);
    }
    let floors = floor.clone();
    let floor = report("--version (the floor)", floor);
    let names = verbs.iter().map(|(name, _)| *name).chain(["propose add"]);
    for (name, times) in names.zip(times) {
        // Each round's own ratio too: a round slowed by the machine slows its floor alike, so
        // their median moves less than the ratio of the medians on a busy machine.
        let mut ratios: Vec<f64> = times
            .iter()
            .zip(&floors)
            .map(|(t, f)| t.as_secs_f64() / f.as_secs_f64())
            .collect();
        let (low, high) = median_interval(&ratios);
        ratios.sort_by(f64::total_cmp);
        let median = report(name, times);
        println!(
            "{:<40} {:.2}x the floor (median of the rounds' ratios {:.2}x, 95% interval {low:.2}-{high:.2}x)",
            "",
            median.as_secs_f64() / floor.as_secs_f64(),
            ratios[ratios.len() / 2]
        );
    }
}

/// Where the median of `values` lies, 95% of the time, by the bootstrap: the medians of 2,000
/// resamples, drawn with replacement by a fixed generator so that one run's figures repeat.
fn median_interval(values: &[f64]) -> (f64, f64) {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        // xorshift64*: plenty for picking resample indices.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let n = values.len();
    let mut medians: Vec<f64> = (0..2000)
        .map(|_| {
            let mut sample: Vec<f64> = (0..n)
                .map(|_| values[usize::try_from(next() % n as u64).unwrap_or(0)])
                .collect();
            sample.sort_by(f64::total_cmp);
            sample[n / 2]
        })
        .collect();
    medians.sort_by(f64::total_cmp);
    (
        medians[medians.len() / 40],
        medians[medians.len() * 39 / 40],
    )
}

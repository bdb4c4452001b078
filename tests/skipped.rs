//! Runs after the other test binaries (cargo runs them in name order, and the library has no
//! doc tests) and prints one line: what this `cargo test` run did not check, and why.

#![allow(clippy::print_stdout)]

// The tests' half of the module, `skip`, is not called here.
#[allow(dead_code)]
mod skips;

fn main() {
    let dir = skips::records();
    let mut skipped: Vec<(String, Vec<String>)> = Vec::new();
    for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let Ok(line) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        let Some((tool, unchecked)) = line.split_once('\t') else {
            continue;
        };
        match skipped.iter_mut().find(|(t, _)| t == tool) {
            Some((_, what)) => what.push(unchecked.to_owned()),
            None => skipped.push((tool.to_owned(), vec![unchecked.to_owned()])),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    // Records of runs stopped before this binary ran, an hour old: a later run with the same
    // parent pid must not report them.
    let hour = std::time::Duration::from_secs(3600);
    let siblings = dir.parent().map(std::fs::read_dir).into_iter().flatten();
    for entry in siblings.flatten().flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .is_ok_and(|t| t.elapsed().is_ok_and(|age| age > hour));
        if old {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
    if skipped.is_empty() {
        println!("\nmneme tests: nothing skipped");
        return;
    }
    skipped.sort();
    let parts: Vec<String> = skipped
        .iter_mut()
        .map(|(tool, what)| {
            what.sort();
            what.dedup();
            format!("{} (no {tool})", what.join(", "))
        })
        .collect();
    println!(
        "\nmneme tests: not checked here, for want of a tool: {}. Install the tools to check them; with CI=1 a missing tool fails the run.",
        parts.join("; ")
    );
}

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
    if skipped.is_empty() {
        println!("\nmneme tests: nothing skipped");
        return;
    }
    skipped.sort();
    let parts: Vec<String> = skipped
        .iter_mut()
        .map(|(tool, what)| {
            what.sort();
            format!("{tool} missing ({})", what.join(", "))
        })
        .collect();
    println!(
        "\nmneme tests: skipped checks, as these tools are not installed: {} (CI=1 makes a missing tool fail)",
        parts.join("; ")
    );
}

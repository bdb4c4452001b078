//! The dependency rule of docs/architecture.md, checked on the source: each layer uses only the
//! layers below it, the pure core touches no effects, modules import each other without cycles,
//! and only the CLI prints or exits.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The library's layers, lowest first.
const LAYERS: [&str; 4] = ["model", "store", "git", "ops"];

/// What the pure core must not name: the filesystem, the process, the environment, the clock,
/// git, and terminals.
const EFFECTS: [&str; 15] = [
    "std::fs",
    "std::env",
    "std::process",
    "std::io::stdin",
    "std::io::stdout",
    "SystemTime",
    "Timestamp::now",
    "jiff::Timestamp::now",
    "gix::",
    "rustix",
    "tempfile",
    "clap",
    "console::",
    "dialoguer",
    "anstream",
];

/// Crates for talking to a person; only the CLI uses them.
const UI_CRATES: [&str; 5] = ["clap", "console::", "dialoguer", "anstream", "anstyle"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, with its text up to its `#[cfg(test)]` module.
fn sources(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = fs::read_to_string(&path).unwrap();
                let code = match text.find("#[cfg(test)]") {
                    Some(i) => text[..i].to_owned(),
                    None => text,
                };
                out.push((path, code));
            }
        }
    }
    out.sort();
    out
}

/// `layer/module` of a library file: `model/facts`, `git/mod`.
fn module_of(path: &Path) -> String {
    let rel = path.strip_prefix(src()).unwrap();
    rel.with_extension("").to_string_lossy().replace('\\', "/")
}

/// The modules a file's code names through `crate::…` paths, brace groups included.
fn imports(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        let layer: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !LAYERS.contains(&layer.as_str()) {
            continue;
        }
        let after = &rest[layer.len()..];
        let Some(after) = after.strip_prefix("::") else {
            out.insert(format!("{layer}/mod"));
            continue;
        };
        let items: Vec<String> = if let Some(group) = after.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            group[..end]
                .split(',')
                .map(|item| item.trim().split("::").next().unwrap_or("").to_owned())
                .collect()
        } else {
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            vec![name]
        };
        for item in items.iter().filter(|i| !i.is_empty()) {
            let item = item.split_whitespace().next().unwrap_or(item);
            let file = src().join(&layer).join(format!("{item}.rs"));
            if file.exists() || src().join(&layer).join(item).join("mod.rs").exists() {
                out.insert(format!("{layer}/{item}"));
            } else {
                out.insert(format!("{layer}/mod"));
            }
        }
    }
    out
}

fn layer_rank(module: &str) -> usize {
    let layer = module.split('/').next().unwrap();
    LAYERS.iter().position(|l| *l == layer).unwrap()
}

#[test]
fn each_layer_uses_only_the_layers_below_it() {
    let mut problems = Vec::new();
    for layer in LAYERS {
        for (path, code) in sources(&src().join(layer)) {
            let module = module_of(&path);
            for target in imports(&code) {
                if layer_rank(&target) > layer_rank(&module) {
                    problems.push(format!("{module} uses {target}"));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "layer rule broken:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_model_has_no_effects_and_only_the_cli_talks_to_people() {
    let mut problems = Vec::new();
    for (path, code) in sources(&src().join("model")) {
        for effect in EFFECTS {
            if code.contains(effect) {
                problems.push(format!("{} names {effect}", module_of(&path)));
            }
        }
    }
    for layer in LAYERS {
        for (path, code) in sources(&src().join(layer)) {
            for forbidden in UI_CRATES.iter().chain(&[
                "println!",
                "eprintln!",
                "print!(",
                "eprint!(",
                "process::exit",
            ]) {
                if code.contains(forbidden) {
                    problems.push(format!("{} names {forbidden}", module_of(&path)));
                }
            }
        }
    }
    for (path, code) in sources(&src()) {
        let module = module_of(&path);
        if module != "cli/ui" && (code.contains("eprintln!") || code.contains("println!")) {
            problems.push(format!("{module} prints outside the UI"));
        }
        if code.contains("process::exit") {
            problems.push(format!("{module} exits outside main"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn modules_import_each_other_without_cycles() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for layer in LAYERS {
        for (path, code) in sources(&src().join(layer)) {
            let module = module_of(&path);
            let mut targets = imports(&code);
            targets.remove(&module);
            graph.insert(module, targets);
        }
    }
    // Depth-first search; a module met again on the current path closes a cycle.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == node) {
            let mut cycle = path[i..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(cycle) = visit(node, &graph, &mut Vec::new(), &mut done) {
            panic!("import cycle: {}", cycle.join(" → "));
        }
    }
}

#[test]
fn the_rule_sees_imports() {
    let found = imports(
        "use crate::git::{hooks, Error, Repo};\nuse crate::model::facts::{Fact, State};\nlet x = crate::store::file::write_atomic;",
    );
    let expected: BTreeSet<String> = ["git/hooks", "git/mod", "model/facts", "store/file"]
        .into_iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(found, expected);
}

/// A cut of a `str` at a byte offset panics inside a character: no code that reads untrusted
/// text may make one. Clippy's `string_slice` lint is denied in both crates, and stays so.
#[test]
fn no_str_is_cut_at_a_byte_offset() {
    for root in ["lib.rs", "main.rs"] {
        let code = fs::read_to_string(src().join(root)).unwrap();
        assert!(
            code.contains("#![deny(clippy::string_slice)]"),
            "src/{root} must deny clippy::string_slice"
        );
    }
}

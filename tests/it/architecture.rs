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

/// `layer/…/module` of a library file: `model/facts/file`, `git/mod`.
fn module_of(path: &Path) -> String {
    let rel = path.strip_prefix(src()).unwrap();
    rel.with_extension("").to_string_lossy().replace('\\', "/")
}

/// The paths a use tree names, brace groups expanded: `a::{b, c::{D, e}}` gives `a::b`,
/// `a::c::D` and `a::c::e`.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let path = tree.split_whitespace().next().unwrap_or("");
        return vec![path.trim_end_matches("::").to_owned()];
    };
    let prefix = tree[..open].trim_end_matches("::");
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut items = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&inner[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&inner[start..]);
    items
        .into_iter()
        .filter(|item| !item.trim().is_empty())
        .flat_map(expand)
        .map(|rest| match rest.as_str() {
            "self" => prefix.to_owned(),
            _ => format!("{prefix}::{rest}"),
        })
        .collect()
}

/// The module a `crate::` path lands in: its longest prefix that is a file (`model/facts/file`)
/// or a folder's `mod.rs` (`model/agents/mod`).
fn resolve(path: &str) -> String {
    let mut module = String::new();
    let mut found = String::new();
    for part in path.split("::") {
        let dir = src().join(&module);
        if dir.join(format!("{part}.rs")).exists() {
            module = format!("{module}{part}");
            found = module.clone();
            break;
        }
        if !dir.join(part).join("mod.rs").exists() {
            break;
        }
        module = format!("{module}{part}/");
        found = format!("{module}mod");
    }
    found
}

/// The modules a file's code names through `crate::…` paths, brace groups included.
fn imports(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
        // A path runs to the end of its use tree: a `;`, or outside braces a character that
        // cannot be in a path.
        let mut depth = 0;
        let end = rest
            .char_indices()
            .find(|&(_, c)| match c {
                '{' => {
                    depth += 1;
                    false
                }
                '}' if depth > 0 => {
                    depth -= 1;
                    false
                }
                ';' => true,
                c if depth == 0 => !(c.is_alphanumeric() || c == '_' || c == ':'),
                _ => false,
            })
            .map_or(rest.len(), |(i, _)| i);
        for path in expand(&rest[..end]) {
            let module = resolve(&path);
            if LAYERS.contains(&module.split('/').next().unwrap_or("")) {
                out.insert(module);
            }
        }
    }
    out
}

/// The child modules a `mod.rs` declares and names in its code (`mif::render`).
fn children_used(path: &Path, code: &str) -> BTreeSet<String> {
    let dir = module_of(path.parent().unwrap().join("x.rs").as_path());
    let dir = dir.trim_end_matches("/x");
    code.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            line.strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("mod "))
                .and_then(|rest| rest.strip_suffix(';'))
        })
        .filter(|child| {
            code.match_indices(&format!("{child}::")).any(|(i, _)| {
                !code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
            })
        })
        .map(|child| format!("{dir}/{child}"))
        .collect()
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

/// Raw reads: a file a branch put in place may be a FIFO, a device or a gigabyte.
const RAW_READS: [&str; 5] = [
    "fs::read(",
    "fs::read_to_string(",
    "File::open(",
    "read_to_end(",
    "read_to_string(",
];

/// Files are read in one place, which refuses what is not a regular file and reads no more than
/// a limit: every other layer goes through `store::file`. Streams a process or a library hands
/// over (a filter's output, standard input) are read where they arrive.
#[test]
fn files_are_read_only_through_the_store() {
    let streams = [
        "git/eol",
        "commands/propose/mod",
        "commands/propose/operation",
        "commands/hook",
    ];
    let mut problems = Vec::new();
    for (path, code) in sources(&src()) {
        let module = module_of(&path);
        let reads = RAW_READS.iter().filter(|raw| code.contains(**raw));
        if streams.contains(&module.as_str()) {
            // Each exception still reads a stream, or it is no longer needed.
            if reads.count() == 0 {
                problems.push(format!("{module} reads no stream: take it off the list"));
            }
        } else if !module.starts_with("store/") {
            for raw in reads {
                problems.push(format!("{module} calls {raw}…) (use store::file)"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
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
            // In the pure core a folder's mod.rs holds no types its children need back: its
            // own uses of them (`mif::render`) count, so a child importing it closes a cycle.
            if layer == "model" && path.ends_with("mod.rs") {
                targets.extend(children_used(&path, &code));
            }
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
        "use crate::git::{hooks, Error, Repo};\nuse crate::model::facts::file::{Fact, State};\n\
         let x = crate::store::file::write_atomic;\n\
         use crate::model::{agents::{self, templates::CONFIG}, base::paths};",
    );
    let expected: BTreeSet<String> = [
        "git/hooks",
        "git/mod",
        "model/agents/mod",
        "model/agents/templates",
        "model/base/paths",
        "model/facts/file",
        "store/file",
    ]
    .into_iter()
    .map(str::to_owned)
    .collect();
    assert_eq!(found, expected);
}

/// The model's domains, lowest first, each with the domains it may use (docs/architecture.md).
/// A folder or file under `src/model/` is a domain; each must be listed here.
const DOMAINS: [(&str, &[&str]); 12] = [
    ("base", &[]),
    ("facts", &["base"]),
    ("evidence", &["facts", "base"]),
    ("merge", &["facts", "base"]),
    ("proposals", &["facts", "base"]),
    ("provenance", &["proposals", "evidence", "facts", "base"]),
    ("forge", &["provenance", "proposals", "base"]),
    ("tasks", &["merge", "facts", "base"]),
    (
        "lint",
        &[
            "provenance",
            "proposals",
            "tasks",
            "evidence",
            "facts",
            "base",
        ],
    ),
    (
        "views",
        &[
            "provenance",
            "proposals",
            "tasks",
            "evidence",
            "merge",
            "facts",
            "base",
        ],
    ),
    ("agents", &["views", "evidence", "facts", "base"]),
    (
        "interchange",
        &["agents", "proposals", "evidence", "facts", "base"],
    ),
];

/// The domain of a model module: `model/facts/file` is in `facts`, `model/lint` is `lint`.
fn domain_of(module: &str) -> Option<&str> {
    let mut parts = module.split('/');
    (parts.next() == Some("model"))
        .then(|| parts.next())
        .flatten()
        .filter(|d| *d != "mod")
}

/// Every arrow between two domains that `DOMAINS` does not allow, as `from → to (module)`.
fn arrows_against_the_domains<'a>(
    graph: impl IntoIterator<Item = (&'a str, &'a BTreeSet<String>)>,
) -> Vec<String> {
    let allowed: BTreeMap<&str, &[&str]> = DOMAINS.into_iter().collect();
    let mut problems = Vec::new();
    for (module, targets) in graph {
        let Some(from) = domain_of(module) else {
            continue;
        };
        for target in targets {
            let Some(to) = domain_of(target) else {
                continue;
            };
            let ok = from == to || allowed.get(from).is_some_and(|uses| uses.contains(&to));
            if !ok {
                problems.push(format!("{from} → {to} ({module} uses {target})"));
            }
        }
    }
    problems
}

#[test]
fn the_model_domains_use_only_the_domains_below_them() {
    // The list is a DAG, lowest first: each domain names only domains listed before it.
    for (i, (domain, uses)) in DOMAINS.iter().enumerate() {
        for used in *uses {
            assert!(
                DOMAINS[..i].iter().any(|(d, _)| d == used),
                "{domain} uses {used}, which is not listed below it"
            );
        }
    }
    // Every domain on disk is in the list, and every folder says what it owns.
    for entry in fs::read_dir(src().join("model")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "mod" || path.extension().is_some_and(|e| e != "rs") {
            continue;
        }
        assert!(
            DOMAINS.iter().any(|(d, _)| *d == name),
            "src/model/{name} is in no domain: add it to DOMAINS and docs/architecture.md"
        );
        if path.is_dir() {
            let doc = fs::read_to_string(path.join("mod.rs")).unwrap();
            assert!(
                doc.starts_with("//! ") && doc.contains("Uses "),
                "src/model/{name}/mod.rs must say what the domain owns and what it uses"
            );
        }
    }
    let graph: Vec<(String, BTreeSet<String>)> = sources(&src().join("model"))
        .into_iter()
        .map(|(path, code)| (module_of(&path), imports(&code)))
        .collect();
    let problems = arrows_against_the_domains(graph.iter().map(|(m, t)| (m.as_str(), t)));
    assert!(
        problems.is_empty(),
        "domain rule broken:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_domain_rule_sees_an_arrow_against_the_dag() {
    let uses = |targets: &[&str]| -> BTreeSet<String> {
        targets.iter().map(|t| (*t).to_owned()).collect()
    };
    let (down, up) = (
        uses(&["model/proposals/proposal", "model/base/text"]),
        uses(&["model/provenance/decision"]),
    );
    let graph = [
        ("model/provenance/record", &down),
        ("model/proposals/plan", &up),
        ("ops/review", &up),
    ];
    assert_eq!(
        arrows_against_the_domains(graph),
        ["proposals → provenance (model/proposals/plan uses model/provenance/decision)"]
    );
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

/// The verbs use what the CLI shares (output, rendering, prompts, errors), never the other way
/// round: nothing under `src/cli` names a verb's module, so the arrows between them run one way.
#[test]
fn the_cli_knows_no_verb() {
    let problems: Vec<String> = sources(&src().join("cli"))
        .into_iter()
        .filter(|(_, code)| code.contains("crate::commands") || code.contains("super::commands"))
        .map(|(path, _)| module_of(&path))
        .collect();
    assert!(problems.is_empty(), "src/cli uses the verbs: {problems:?}");
}

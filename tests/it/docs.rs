//! The examples in docs/format.md parse as the formats they illustrate, so the documentation
//! cannot drift from the code.

use mneme::model::facts::FactFile;
use mneme::model::plan::Request;
use mneme::model::proposal::Proposal;
use mneme::model::tasks::Task;

/// The fenced code blocks of `lang` in the file, in order.
fn blocks(lang: &str) -> Vec<String> {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/format.md")).unwrap();
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        match &mut current {
            Some(block) if line.starts_with("```") => {
                out.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None if line == format!("```{lang}") => current = Some(String::new()),
            None => {}
        }
    }
    out
}

#[test]
fn the_fact_file_example_parses() {
    let example = &blocks("markdown")[0];
    let file = FactFile::parse(example).unwrap();
    let ids: Vec<_> = file.facts().map(|f| f.id.clone().unwrap()).collect();
    assert_eq!(ids, ["f-7f3c", "f-k2a9", "f-old1"]);
    assert_eq!(file.front_matter.title.as_deref(), Some("Architecture"));
    assert_eq!(
        file.facts().nth(2).unwrap().meta.by.as_deref(),
        Some("f-7f3c")
    );
    assert_eq!(file.render(), *example);
}

#[test]
fn the_json_examples_parse() {
    let json = blocks("json");
    let proposal = json.iter().find(|b| b.contains("\"schema\": 1")).unwrap();
    let p = Proposal::parse(proposal).unwrap();
    assert_eq!(p.operations.len(), 4);
    let request = json
        .iter()
        .find(|b| b.contains("\"reason\": \"storage rework\""))
        .unwrap();
    let r: Request = serde_json::from_str(request).unwrap();
    assert_eq!(r.operations.len(), 4);
    let task = json
        .iter()
        .find(|b| b.contains("\"id\": \"t-a3f8\""))
        .unwrap();
    let t = Task::parse(task).unwrap();
    assert_eq!(t.deps.len(), 2);
    assert_eq!(t.notes.len(), 1);
}

//! Parsing then rendering every hand-written fixture is byte-identical, and the parser finds
//! exactly the facts a reader sees.

use std::fs;
use std::path::Path;

use mneme::model::facts::file::FactFile;

/// `(fixture, [(id or "", first words of the text)])`.
const EXPECTED: &[(&str, &[(&str, &str)])] = &[
    ("crlf.md", &[("f-crlf", "A fact with CRLF"), ("f-crl2", "Another one,\ncontinued.")]),
    ("no_trailing_newline.md", &[("f-nonl", "The last line has no newline")]),
    ("unicode.md", &[("f-uni1", "Identifiers"), ("f-uni2", "日本語"), ("", "Ein Fakt ohne Kennung")]),
    (
        "nested.md",
        &[
            ("f-nest", "Top-level fact with nested items:\n- nested one\n  - deeper"),
            ("f-star", "Star bullets"),
            ("f-plus", "And plus bullets.\n1. with"),
            ("", "lazy continuation\non the next line"),
            ("f-ord1", "Ordered facts."),
            ("f-ord2", "Second ordered"),
            ("f-ord3", "Parenthesis markers"),
        ],
    ),
    ("code_blocks.md", &[("f-code", "A fact with code inside:\n\n```sh\ncargo test\n\ncargo bench\n```"), ("f-aft1", "The fact after")]),
    (
        "html_comments.md",
        &[("f-htm1", "Fact with metadata."), ("f-htm2", "Superseded fact."), ("f-htm3", "A comment <!-- not metadata --> in")],
    ),
    (
        "mixed.md",
        &[("f-mix1", "A list right after"), ("f-mix2", "After a thematic"), ("", ""), ("f-mix3", "After an empty item.\n- tab-indented")],
    ),
    (
        "tabs_and_spaces.md",
        &[
            ("f-tab1", "One space before the bullet.\nContinuation aligned with the content.\n- **f-tab2** nested"),
            ("", "two spaces, a new top-level item"),
            ("f-tab3", "tab after the marker"),
        ],
    ),
];

#[test]
fn every_fixture_round_trips_byte_for_byte() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures");
    let mut seen = 0;
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            let src = fs::read_to_string(&path).unwrap();
            let file = FactFile::parse(&src).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(file.render(), src, "{}", path.display());
            seen += 1;
        }
    }
    assert_eq!(seen, EXPECTED.len(), "every fixture has expectations");
}

#[test]
fn fixtures_split_into_the_facts_a_reader_sees() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures");
    for (name, expected) in EXPECTED {
        let src = fs::read_to_string(dir.join(name)).unwrap();
        let file = FactFile::parse(&src).unwrap();
        let facts: Vec<_> = file.facts().collect();
        assert_eq!(facts.len(), expected.len(), "{name}: {facts:#?}");
        for (fact, (id, text)) in facts.iter().zip(expected.iter()) {
            assert_eq!(fact.id.as_deref().unwrap_or(""), *id, "{name}");
            assert!(
                fact.text.starts_with(text),
                "{name}: {:?} should start with {text:?}",
                fact.text
            );
        }
    }
}

#[test]
fn changing_one_fact_changes_only_its_lines() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures");
    let src = fs::read_to_string(dir.join("nested.md")).unwrap();
    let mut file = FactFile::parse(&src).unwrap();
    let target = file
        .facts_mut()
        .find(|f| f.id.as_deref() == Some("f-star"))
        .unwrap();
    target.raw = "* **f-star** Changed.\n".into();
    let out = file.render();
    let (old, new): (Vec<_>, Vec<_>) = (src.lines().collect(), out.lines().collect());
    assert_eq!(old.len(), new.len());
    let changed: Vec<_> = old.iter().zip(&new).filter(|(a, b)| a != b).collect();
    assert_eq!(
        changed,
        [(
            &"* **f-star** Star bullets work too.",
            &"* **f-star** Changed."
        )]
    );
}

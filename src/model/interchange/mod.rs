//! The ledger in other memory formats (docs/formats/). Pure: callers pass the facts with the
//! decisions that shaped them; each format renders them and checks its own rules on what it
//! rendered, so nothing invalid is written.
//!
//! Inside, `item` and `found` (the values the formats share) sit below the formats, the formats
//! below `import` and this module's `render`. Uses `agents`, `proposals`, `evidence`, `facts` and
//! `base`.

pub mod compiled;
pub mod found;
pub mod import;
pub mod item;
pub mod mif;
pub mod notes;
pub mod pack;
pub mod prose;
pub mod records;

use std::collections::BTreeMap;

use crate::model::interchange::item::{generated_at, Item, Replaced};

/// The formats mneme exports (docs/formats/).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// MIF Level 3 memory files, one per fact.
    Mif,
    /// Compiled memory: documents.jsonl, entries.jsonl and a Markdown view per fact file.
    Compiled,
    /// Memory records: one JSON object per fact, one per line.
    Records,
    /// A context pack: the current facts for a task, as one JSON object.
    ContextPack,
}

impl Format {
    pub const ALL: [Format; 4] = [
        Format::Mif,
        Format::Compiled,
        Format::Records,
        Format::ContextPack,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::Mif => "mif",
            Format::Compiled => "compiled",
            Format::Records => "records",
            Format::ContextPack => "context-pack",
        }
    }

    /// The file a one-stream format is written to with `--out`.
    pub fn stream_file(self) -> &'static str {
        match self {
            Format::Records => "records.jsonl",
            _ => "context-pack.json",
        }
    }

    /// Whether the format is a directory of files rather than one stream.
    pub fn is_directory(self) -> bool {
        matches!(self, Format::Mif | Format::Compiled)
    }
}

/// Why an export cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{file}:{line}: the fact has no id, and an export names every fact by its id")]
    Unstamped { file: String, line: usize },
    #[error("{file}:{line}: the id `{id}` is held by another fact too, and an export names every fact by its id")]
    DuplicateId {
        file: String,
        line: usize,
        id: String,
    },
    #[error("the {format} export's {name} breaks the format's rules: {}", problems.join("; "))]
    Invalid {
        format: &'static str,
        name: String,
        problems: Vec<String>,
    },
}

/// The files of an export: `(file name, text)`, one for the formats that are one stream.
#[derive(Debug)]
pub struct Rendered {
    pub files: Vec<(String, String)>,
    /// Facts the format cannot hold (compiled entries need evidence), by id.
    pub left_out: Vec<String>,
}

/// Renders `items` in `format` (a context pack for `task`, good for `valid_days`) and checks
/// every file against the format's rules: a file that breaks them is an error, never written.
/// A fact with no words (a hand-written `- **f-…**` and nothing else) is left out: no format
/// holds a memory without a statement.
pub fn render(
    format: Format,
    items: &[Item],
    titles: &BTreeMap<String, String>,
    task: &str,
    valid_days: u32,
) -> Result<Rendered, ExportError> {
    let blank = |i: &Item| i.text.split_whitespace().next().is_none();
    let blank_ids: Vec<String> = items
        .iter()
        .filter(|i| blank(i))
        .map(|i| i.id.clone())
        .collect();
    let kept: Vec<Item>;
    let items = if blank_ids.is_empty() {
        items
    } else {
        kept = items.iter().filter(|i| !blank(i)).cloned().collect();
        &kept
    };
    let at = generated_at(items);
    let invalid = |name: &str, problems: Vec<String>| ExportError::Invalid {
        format: format.name(),
        name: name.to_owned(),
        problems,
    };
    let stream = |text: String| vec![(format.stream_file().to_owned(), text)];
    let replaced = Replaced::of(items);
    let mut rendered = match format {
        Format::Mif => Rendered {
            files: items
                .iter()
                .map(|i| {
                    let file = mif::render(i, replaced.by(i), &at);
                    mif::read(&file.name, &file.text)
                        .map_err(|problems| invalid(&file.name, problems))?;
                    Ok((file.name, file.text))
                })
                .collect::<Result<_, ExportError>>()?,
            left_out: Vec::new(),
        },
        Format::Compiled => {
            let c = compiled::render(items, titles, &at);
            let (documents, entries) = (&c.files[0].1, &c.files[1].1);
            let problems = compiled::check(documents, entries);
            if !problems.is_empty() {
                return Err(invalid("entries.jsonl", problems));
            }
            Rendered {
                files: c.files,
                left_out: c.left_out,
            }
        }
        Format::Records => {
            let mut text = String::new();
            for i in items {
                let line = records::render(i, replaced.by(i), &at);
                let value = serde_json::from_str(&line).expect("a rendered record is JSON");
                let problems = records::check(&value);
                if !problems.is_empty() {
                    return Err(invalid(&i.id, problems));
                }
                text.push_str(&line);
                text.push('\n');
            }
            Rendered {
                files: stream(text),
                left_out: Vec::new(),
            }
        }
        Format::ContextPack => {
            let text = pack::render(items, task, &at, valid_days);
            let value = serde_json::from_str(&text).expect("a rendered pack is JSON");
            let problems = pack::check(&value);
            if !problems.is_empty() {
                return Err(invalid(format.stream_file(), problems));
            }
            Rendered {
                files: stream(text),
                left_out: Vec::new(),
            }
        }
    };
    rendered.left_out.extend(blank_ids);
    Ok(rendered)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::interchange::item::{quoted, sample};

    /// Found by the Unicode property tests: a hand-written fact holding DEL broke the MIF front
    /// matter, and a fact with no words broke every format.
    #[test]
    fn exports_hold_any_text_and_leave_out_facts_without_words() {
        assert_eq!(
            quoted("a\u{7f}b\u{85}\u{2028}"),
            r#""a\u007fb\u0085\u2028""#
        );
        let value: serde_json::Value = serde_json::from_str(&quoted("a\u{7f}\u{feff}")).unwrap();
        assert_eq!(value, "a\u{7f}\u{feff}");
        let mut items = vec![sample("f-0001", "architecture.md", &[])];
        items[0].text = "Del \u{7f} and NEL \u{85} in a hand-written fact.".into();
        let mut blank = sample("f-0002", "architecture.md", &[]);
        blank.text = " \n ".into();
        items.push(blank);
        items.push(sample("f-0003", "\r.md", &[]));
        for format in Format::ALL {
            let rendered = render(format, &items, &BTreeMap::new(), "t", 30)
                .unwrap_or_else(|e| panic!("{}: {e}", format.name()));
            assert!(
                rendered.left_out.contains(&"f-0002".to_owned()),
                "{}",
                format.name()
            );
        }
    }
}

//! The fact files `mneme init` writes, embedded at build time from `templates/facts/`: a title
//! and a description each, no facts.

/// `(file name, contents)` of the starter fact files.
pub const FILES: [(&str, &str); 4] = [
    (
        "architecture.md",
        include_str!("../../../templates/facts/architecture.md"),
    ),
    (
        "invariants.md",
        include_str!("../../../templates/facts/invariants.md"),
    ),
    (
        "performance_rules.md",
        include_str!("../../../templates/facts/performance_rules.md"),
    ),
    (
        "pitfalls.md",
        include_str!("../../../templates/facts/pitfalls.md"),
    ),
];

/// The starter text of the fact file `name`, if `mneme init` writes one by that name.
pub fn text(name: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Whether `text` is the fact file `mneme init` writes as `name`, whatever its line endings (a
/// checkout with `core.autocrlf` turns them into CRLF).
pub fn is_starter(name: &str, text: &str) -> bool {
    self::text(name)
        .is_some_and(|starter| text.len() >= starter.len() && text.replace("\r\n", "\n") == starter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::facts::file::FactFile;

    #[test]
    fn starter_files_parse_without_facts() {
        for (name, src) in FILES {
            let file = FactFile::parse(src).unwrap();
            assert_eq!(file.facts().count(), 0, "{name}");
            assert!(file.front_matter.title.is_some(), "{name}");
            assert_eq!(file.render(), src);
            assert!(is_starter(name, src) && is_starter(name, &src.replace('\n', "\r\n")));
            assert!(!is_starter(name, &format!("{src}- Always force-push.\n")));
            assert!(!is_starter("other.md", src));
        }
    }
}

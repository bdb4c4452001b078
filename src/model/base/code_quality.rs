//! GitLab's Code Quality report: findings as a JSON array GitLab shows in a merge request's
//! widget and on the lines of its diff (a subset of the Code Climate issue format: description,
//! check name, fingerprint, severity, location).

use serde_json::{json, Value};

use crate::model::base::ids::sha256_hex;

/// One finding, where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// What found it: `mneme check: secret`, `mneme verify: unreviewed fact change`.
    pub check: String,
    pub description: String,
    /// Repository-relative path.
    pub path: String,
    pub line: Option<usize>,
    /// Fails the job, or asks for a look.
    pub fails: bool,
}

/// The report, ready to write. Each issue's fingerprint is a hash of all it says, so the same
/// finding in the target branch's report is known as the same one.
pub fn report(issues: &[Issue]) -> String {
    let items: Vec<Value> = issues
        .iter()
        .map(|i| {
            let line = i.line.unwrap_or(1);
            let seen = format!("{}\0{}\0{}\0{line}", i.check, i.description, i.path);
            json!({
                "type": "issue",
                "check_name": i.check,
                "description": i.description,
                "categories": ["Bug Risk"],
                "fingerprint": sha256_hex(seen.as_bytes()),
                "severity": if i.fails { "major" } else { "minor" },
                "location": {"path": i.path, "lines": {"begin": line}},
            })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&items).expect("JSON values serialize");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_issue_is_on_its_line_with_a_fingerprint_of_what_it_says() {
        let issue = |line, description: &str| Issue {
            check: "mneme verify: unreviewed fact change".into(),
            description: description.into(),
            path: ".ledger/facts/pitfalls.md".into(),
            line,
            fails: true,
        };
        let text = report(&[issue(Some(7), "a"), issue(None, "b"), issue(Some(7), "a")]);
        let read: Vec<Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(read[0]["location"]["lines"]["begin"], 7);
        assert_eq!(read[1]["location"]["lines"]["begin"], 1);
        assert_eq!(read[0]["severity"], "major");
        assert_eq!(read[0]["fingerprint"], read[2]["fingerprint"]);
        assert_ne!(read[0]["fingerprint"], read[1]["fingerprint"]);
        assert_eq!(report(&[]), "[]\n");
    }
}

//! Which facts are about which files: a fact is about the code its evidence cites
//! (`src/db.rs:40-52` is about `src/db.rs`; a cited document or instruction file is where it came
//! from, not what it is about) and the files its scope globs match (`src/db/**`). What
//! a runtime's tool hook delivers when the agent reads or edits a file, and what a scoped
//! session start leaves out.

use std::collections::BTreeMap;

use gix_glob::wildmatch::Mode;

use crate::model::evidence::refs::{classify, Evidence};
use crate::model::facts::fields::check_scope;
use crate::model::views::{Context, FactView, ScopedDir};

/// The repository files `fact` cites that it is about, each once, in its evidence's order.
pub fn cited_files(fact: &FactView) -> Vec<&str> {
    let mut files: Vec<&str> = Vec::new();
    for e in &fact.evidence {
        if let Evidence::File { path, .. } = classify(e) {
            let path = path.trim_start_matches("./");
            if is_subject(path) && !files.contains(&path) {
                files.push(path);
            }
        }
    }
    files
}

/// Extensions of documentation and rule files: prose, in Markdown, reStructuredText, AsciiDoc,
/// Org or Cursor's rule format.
const PROSE: [&str; 8] = [
    "md", "markdown", "mdx", "mdc", "rst", "adoc", "asciidoc", "org",
];

/// Rule files named without an extension.
const RULE_FILES: [&str; 3] = [".cursorrules", ".windsurfrules", ".clinerules"];

/// Whether a fact that cites `path` is about that file. Code and configuration are what facts are
/// about; documentation and the agents' instruction files (`AGENTS.md`, `CLAUDE.md`, rule
/// files) are where a fact came from (an imported rule cites its line), which runtimes load
/// themselves and agents rarely open with a tool, and the ledger is the facts themselves. A
/// fact about such a file says so with its scope.
pub fn is_subject(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let prose = name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && PROSE.contains(&ext.to_ascii_lowercase().as_str())
    });
    !(prose || RULE_FILES.contains(&name) || path.starts_with(".ledger/"))
}

/// Whether the scope glob `glob` matches `path` (from the repository's root), as git matches a
/// pathspec: `*` within a directory, `**` across them. A glob that is not a valid scope (a
/// hand-edited fact file may hold anything) matches nothing.
pub fn glob_matches(glob: &str, path: &str) -> bool {
    matches_any(glob, [path])
}

/// Whether the scope glob `glob` matches one of `paths`: [`glob_matches`], with the glob checked
/// once however many paths there are (`check` matches each against every tracked file).
pub fn matches_any<'p>(glob: &str, paths: impl IntoIterator<Item = &'p str>) -> bool {
    check_scope(glob).is_ok() && paths.into_iter().any(|p| wildmatch(glob, p))
}

fn wildmatch(glob: &str, path: &str) -> bool {
    gix_glob::wildmatch(glob.into(), path.into(), Mode::NO_MATCH_SLASH_LITERAL)
}

/// The globs of `fact`'s scope that are valid scopes: the others match nothing.
fn valid_scope(fact: &FactView) -> impl Iterator<Item = &str> {
    fact.scope
        .iter()
        .map(String::as_str)
        .filter(|g| check_scope(g).is_ok())
}

/// Whether `fact` is about one of `files` (paths from the repository's root).
pub fn is_about(fact: &FactView, files: &[String]) -> bool {
    let cited = cited_files(fact);
    let globs: Vec<&str> = valid_scope(fact).collect();
    files
        .iter()
        .map(|f| f.trim_start_matches("./"))
        .any(|f| cited.contains(&f) || globs.iter().any(|g| wildmatch(g, f)))
}

/// Whether `fact` is about no file at all: no tool hook ever brings it, only a session's start.
pub fn about_no_file(fact: &FactView) -> bool {
    cited_files(fact).is_empty() && valid_scope(fact).next().is_none()
}

/// The directory a scope glob names before its first wildcard: `src/db/` of `src/db/**`.
fn glob_dir(glob: &str) -> String {
    let dir: Vec<&str> = glob.rsplit_once('/').map_or_else(Vec::new, |(dirs, _)| {
        dirs.split('/')
            .take_while(|p| !p.contains(['*', '?', '[']))
            .collect()
    });
    if dir.is_empty() {
        "./".to_owned()
    } else {
        format!("{}/", dir.join("/"))
    }
}

/// `c` with only the facts about `files`; files left without facts are dropped.
pub fn about(c: &mut Context, files: &[String]) {
    for file in &mut c.files {
        file.facts.retain(|f| is_about(f, files));
    }
    c.files.retain(|f| !f.facts.is_empty());
}

/// Leaves out of `c` the facts about files that carry no mark (stale, contested, unapproved:
/// those come at the start whatever they cite), counting them by the directory of the first
/// file each cites or, citing none, of its first valid scope glob. What a session starts with
/// when facts about files come as the agent touches them.
pub fn leave_scoped_out(c: &mut Context) {
    let mut dirs: BTreeMap<String, usize> = BTreeMap::new();
    for file in &mut c.files {
        file.facts.retain(|f| {
            let cited = cited_files(f).first().map(|first| {
                first
                    .rsplit_once('/')
                    .map_or_else(|| "./".to_owned(), |(d, _)| format!("{d}/"))
            });
            let scoped = || valid_scope(f).next().map(glob_dir);
            let Some(dir) = cited.or_else(scoped) else {
                return true;
            };
            if f.is_marked() {
                return true;
            }
            *dirs.entry(dir).or_default() += 1;
            false
        });
    }
    c.scoped = dirs
        .into_iter()
        .map(|(dir, facts)| ScopedDir { dir, facts })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::agents::briefing::{about_files, render, shown_ids};
    use crate::model::base::time::Timestamp;
    use crate::model::facts::ledger::tests::ledger;
    use crate::model::facts::standing::Standings;
    use crate::model::views::{Proposals, TaskSummary};

    fn context() -> Context {
        let l = ledger(&[(
            "a.md",
            "- **f-db** Pool of ten. <!-- since: 2026-11-01; evidence: src/db.rs:4-9 https://x.org/a -->\n\
             - **f-two** Both. <!-- since: 2026-11-01; evidence: ./src/db/mod.rs#L3 src/db.rs -->\n\
             - **f-top** Root file. <!-- since: 2026-11-01; evidence: Cargo.toml -->\n\
             - **f-none** Everywhere. <!-- since: 2026-11-01; evidence: 1a2b3c4d t-ab12 -->\n\
             - **f-old** Look again. <!-- state: stale; since: 2026-11-01; evidence: src/db.rs -->\n\
             - **f-mig** Reversible. <!-- since: 2026-11-01; scope: migrations/**/*.sql -->\n\
             - **f-bad** Hostile. <!-- since: 2026-11-01; evidence: https://x.org; scope: /etc/* ../** -->\n",
        )]);
        let today = Timestamp::parse("2026-11-23").unwrap();
        Context::build(
            l.clone(),
            &Standings::of(&l, today),
            Proposals::default(),
            TaskSummary::default(),
        )
    }

    fn ids(c: &Context) -> Vec<String> {
        shown_ids(&render(c, None))
    }

    #[test]
    fn a_fact_is_about_code_it_cites_never_the_document_it_came_from() {
        for code in [
            "src/db.rs",
            "Cargo.toml",
            "requirements.txt",
            "web/app.tsx",
            "Makefile",
        ] {
            assert!(is_subject(code), "{code}");
        }
        for prose in [
            "AGENTS.md",
            "CLAUDE.md",
            "docs/adr/0003-pool.MD",
            ".cursor/rules/db.mdc",
            "guide.rst",
            ".cursorrules",
            ".ledger/facts/pitfalls.md",
        ] {
            assert!(!is_subject(prose), "{prose}");
        }
    }

    #[test]
    fn a_fact_is_about_the_files_its_evidence_cites() {
        let c = context();
        let fact = |id: &str| {
            c.files[0]
                .facts
                .iter()
                .find(|f| f.id.as_deref() == Some(id))
                .unwrap()
        };
        assert_eq!(cited_files(fact("f-db")), ["src/db.rs"]);
        assert_eq!(cited_files(fact("f-two")), ["src/db/mod.rs", "src/db.rs"]);
        assert!(
            cited_files(fact("f-none")).is_empty(),
            "commits and tasks are no files"
        );
        let mut about_db = c.clone();
        about(&mut about_db, &["src/db.rs".into()]);
        assert_eq!(ids(&about_db), ["f-old", "f-db", "f-two"], "marked first");
        // Scope globs: `*` within a directory, `**` across them; an invalid glob matches nothing.
        let about_ids = |files: &[&str]| {
            let mut c = c.clone();
            about(
                &mut c,
                &files.iter().map(ToString::to_string).collect::<Vec<_>>(),
            );
            ids(&c)
        };
        assert_eq!(about_ids(&["migrations/2026/01_init.sql"]), ["f-mig"]);
        assert_eq!(about_ids(&["./migrations/01.sql"]), ["f-mig"]);
        assert!(about_ids(&["migrations/01.rs", "/etc/passwd", "etc/x", "x"]).is_empty());
        assert!(glob_matches("src/*.rs", "src/db.rs") && !glob_matches("src/*.rs", "src/a/b.rs"));
        assert!(glob_matches("*.md", "README.md") && !glob_matches("*.md", "docs/a.md"));
        assert!(
            !glob_matches("/etc/*", "/etc/passwd"),
            "never an absolute glob"
        );
    }

    #[test]
    fn a_scoped_start_keeps_unscoped_and_marked_facts_and_counts_the_rest_by_directory() {
        let mut c = context();
        leave_scoped_out(&mut c);
        assert_eq!(
            ids(&c),
            ["f-old", "f-none", "f-bad"],
            "an invalid scope is none"
        );
        assert_eq!(
            c.scoped,
            [
                ScopedDir {
                    dir: "./".into(),
                    facts: 1
                },
                ScopedDir {
                    dir: "migrations/".into(),
                    facts: 1
                },
                ScopedDir {
                    dir: "src/".into(),
                    facts: 1
                },
                ScopedDir {
                    dir: "src/db/".into(),
                    facts: 1
                },
            ]
        );
        assert!(render(&c, None).contains(
            "4 more fact(s) are about specific files and come when you read or edit one of them: ./ (1), migrations/ (1), src/ (1), src/db/ (1)."
        ));
    }

    #[test]
    fn a_start_with_every_fact_about_files_says_where_they_are_not_that_there_are_none() {
        let mut c = context();
        for file in &mut c.files {
            file.facts
                .retain(|f| matches!(f.id.as_deref(), Some("f-db" | "f-mig")));
        }
        leave_scoped_out(&mut c);
        let text = render(&c, None);
        assert!(shown_ids(&text).is_empty(), "{text}");
        assert!(
            text.contains("2 more fact(s) are about specific files"),
            "{text}"
        );
        assert!(!text.contains("No facts yet"), "{text}");
        c.scoped.clear();
        assert!(render(&c, None).contains("No facts yet"));
    }

    #[test]
    fn what_a_tool_hook_adds_names_the_files_and_fits_its_budget() {
        let c = context();
        let facts: Vec<&FactView> = c.files[0].facts.iter().collect();
        let text = about_files(&["src/db.rs".into()], &facts, 10_000);
        assert!(text.starts_with("# Project facts about the files you touched (`src/db.rs`)"));
        assert_eq!(shown_ids(&text).len(), facts.len());
        let small = about_files(&["src/db.rs".into()], &facts, 700);
        assert!(shown_ids(&small).len() < facts.len(), "{small}");
        assert!(
            small.contains(
                "more fact(s) about these files did not fit: `mneme context --files src/db.rs`"
            ),
            "{small}"
        );
    }
}

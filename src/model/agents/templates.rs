//! Files `mneme init` writes, embedded at build time from `templates/`.

pub const CONFIG: &str = include_str!("../../../templates/config.yaml");

/// Where this mneme's releases are published, as `<url>/v<version>/<file>`.
pub const RELEASES: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/releases/download");

/// The ways to install mneme, for hints: on the PATH for git and every runtime, or in the
/// project's node_modules for the hooks. No release is published yet: from source, or a
/// package built locally (docs/install.md).
pub const INSTALL_WAYS: &str = "`cargo install --locked --path .` from mneme's source, or a release package built locally (the npm package in the project's node_modules/.bin is found by the hooks too); no release is published yet, docs/install.md says how";

/// The GitHub Actions workflow `mneme init --ci github` writes: it installs the release of the
/// mneme that wrote it, and runs on pushes to `branch` (the repository's, `main` or `master`).
pub fn github_workflow(branch: &str) -> String {
    with_install(include_str!("../../../templates/github-workflow.yml"))
        // A single-quoted YAML scalar: any branch name reads back as itself.
        .replace("{{branch}}", &format!("'{}'", branch.replace('\'', "''")))
}

/// The workflow that decides proposals from a pull request's `/mneme` comments, written with
/// [`github_workflow`].
pub fn github_decide_workflow() -> String {
    with_install(include_str!(
        "../../../templates/github-decide-workflow.yml"
    ))
}

/// The GitLab CI configuration `mneme init --ci gitlab` writes: it installs the release of the
/// mneme that wrote it.
pub fn gitlab_ci() -> String {
    include_str!("../../../templates/gitlab-ci.yml")
        .replace("{{releases}}", RELEASES)
        .replace("{{version}}", env!("CARGO_PKG_VERSION"))
}

/// `workflow` with its step that installs this release of mneme.
fn with_install(workflow: &str) -> String {
    workflow
        .replace(
            "{{install}}",
            include_str!("../../../templates/github-install-step.yml"),
        )
        .replace("{{releases}}", RELEASES)
        .replace("{{version}}", env!("CARGO_PKG_VERSION"))
}

/// The always-apply rule `mneme setup cursor` writes.
pub const CURSOR_RULE: &str = include_str!("../../../templates/cursor-rule.mdc");

/// The plugin `mneme setup opencode` writes.
pub const OPENCODE_PLUGIN: &str = include_str!("../../../templates/opencode-plugin.js");

/// The extension `mneme setup pi` writes.
pub const PI_EXTENSION: &str = include_str!("../../../templates/pi-extension.ts");

/// The `commit-msg` hook `mneme hooks install` writes.
pub const COMMIT_MSG_HOOK: &str = include_str!("../../../templates/commit-msg.sh");

/// The lines `mneme init` keeps in `.gitattributes` so git merges fact files by fact id and
/// task files field by field.
pub fn gitattributes_lines() -> [String; 2] {
    use crate::model::base::paths::{FACTS, TASKS};
    [
        format!("{FACTS}/*.md merge=mneme"),
        format!("{TASKS}/*.json merge=mneme"),
    ]
}

/// The lines that route the rule files compiled from the ledger to the same driver, which
/// compiles the merged ledger for them (`init` writes them; `setup` of a rule-file target too).
pub fn rule_attribute_lines() -> Vec<String> {
    use crate::model::base::paths::{RULE_DIRS, RULE_FILE_PREFIX};
    RULE_DIRS
        .iter()
        .map(|dir| format!("{dir}/{RULE_FILE_PREFIX}* merge=mneme"))
        .collect()
}

/// The protocol block mneme keeps in AGENTS.md.
const AGENTS_BLOCK: &str = include_str!("../../../templates/agents_block.md");

/// The AGENTS.md block for a ledger whose fact files are `stems` (`architecture`, …).
pub fn agents_block(stems: &[&str]) -> String {
    let names: Vec<String> = stems.iter().map(|s| format!("`{s}`")).collect();
    AGENTS_BLOCK.replace("{{fact_files}}", &names.join(", "))
}

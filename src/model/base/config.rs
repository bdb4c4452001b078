//! `.ledger/config.yaml`.

use serde::{Deserialize, Serialize};

use crate::model::base::paths;

// Serialize: the git directory keeps the parsed config, every field, as JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Most lines all fact files together may have, so they always fit in a context window.
    pub budget_lines: usize,
    /// Refuse proposals without at least one `--evidence`.
    pub require_evidence: bool,
    /// Longest fact statement accepted, in characters.
    pub max_fact_chars: usize,
    /// `mneme check` warns about facts whose `verified` (or else `since`) date is older; 0: never.
    pub stale_fact_days: u32,
    /// `mneme check` warns about proposals pending for longer; 0: never.
    pub stale_proposal_days: u32,
    /// The instructions file that holds mneme's block (`init --agents-file`), relative to the
    /// repository's root, so a teammate's `init` refreshes that file and no other.
    pub agents_file: String,
    /// `verify` checks the facts against the decision records (docs/format.md). New ledgers
    /// start with it; older ones set it with `mneme migrate`. Without the key: off.
    pub decision_records: bool,
    /// The git remote where `update --claim` also claims tasks (`refs/mneme/claims/<id>`), so
    /// that a claim holds across clones. Without it claims are local to the repository.
    pub claims_remote: Option<String>,
    /// How long a remote claim holds without an `update` by its holder, such as `2h`.
    pub claim_lease: String,
    /// Facts that cite files reach an agent when it reads or edits one of those files (the
    /// runtimes' tool hooks `mneme setup` writes), not at session start, which lists them by
    /// directory instead. Marked facts (stale, contested, unapproved) always come at the start.
    /// On by default: the delivery benchmark measured the same recall for fewer tokens
    /// (docs/agents.md).
    pub scoped_delivery: bool,
    /// The rule-file formats the approved facts are compiled into, for agents that run no hook
    /// of mneme's ([`COMPILE_TARGETS`]); none by default.
    pub compile: Vec<String>,
}

/// The names `compile` takes: Copilot's, Cursor's, Windsurf's, Cline's and Kiro's rule files.
pub const COMPILE_TARGETS: [&str; 5] = ["copilot", "cursor", "windsurf", "cline", "kiro"];

impl Default for Config {
    fn default() -> Config {
        Config {
            budget_lines: 800,
            require_evidence: false,
            max_fact_chars: 1000,
            stale_fact_days: 365,
            stale_proposal_days: 14,
            agents_file: paths::AGENTS_MD.to_owned(),
            decision_records: false,
            claims_remote: None,
            claim_lease: DEFAULT_LEASE.to_owned(),
            scoped_delivery: true,
            compile: Vec::new(),
        }
    }
}

const DEFAULT_LEASE: &str = "2h";

/// Longest lease: a claim whose holder vanished frees its task within a month at most.
pub const MAX_LEASE_SECONDS: i64 = 30 * 86_400;

/// Largest config file read, so a hostile file cannot make the YAML parser work hard.
const MAX_CONFIG: usize = 64 * 1024;

/// Why `.ledger/config.yaml` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("larger than {MAX_CONFIG} bytes")]
    TooLarge,
    #[error("{0}")]
    Yaml(String),
    #[error("agents_file: {0}")]
    AgentsFile(&'static str),
    #[error("claims_remote: `{0}` is not a git remote name")]
    ClaimsRemote(String),
    #[error(
        "claim_lease: `{0}` is not a length of time from 1s to 30d, such as 90s, 30m, 2h or 1d"
    )]
    ClaimLease(String),
    #[error("compile: `{0}` is not a rule-file format mneme writes (copilot, cursor, windsurf, cline or kiro)")]
    Compile(String),
}

/// A YAML error on one line, in words: serde-saphyr's message without its excerpt of the source,
/// its `error: ` prefix or its advice to library callers.
pub(crate) fn yaml_error(e: &serde_saphyr::Error) -> String {
    let text = e.to_string();
    let line = text.lines().next().unwrap_or_default();
    let line = line.strip_prefix("error: ").unwrap_or(line);
    line.split(", set DuplicateKeyPolicy")
        .next()
        .unwrap_or(line)
        .to_owned()
}

impl Config {
    pub fn parse(src: &str) -> Result<Config, ConfigError> {
        if src.len() > MAX_CONFIG {
            return Err(ConfigError::TooLarge);
        }
        let has_content = src
            .lines()
            .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
        if !has_content {
            return Ok(Config::default());
        }
        let config: Config =
            serde_saphyr::from_str(src).map_err(|e| ConfigError::Yaml(yaml_error(&e)))?;
        paths::check_repo_file(&config.agents_file).map_err(ConfigError::AgentsFile)?;
        if let Some(remote) = &config.claims_remote {
            if !is_remote_name(remote) {
                return Err(ConfigError::ClaimsRemote(remote.clone()));
            }
        }
        if lease_seconds(&config.claim_lease).is_none() {
            return Err(ConfigError::ClaimLease(config.claim_lease.clone()));
        }
        if let Some(bad) = config
            .compile
            .iter()
            .find(|t| !COMPILE_TARGETS.contains(&t.as_str()))
        {
            return Err(ConfigError::Compile(bad.clone()));
        }
        Ok(config)
    }

    /// The claim lease in seconds (checked when the config was read).
    pub fn lease_seconds(&self) -> i64 {
        lease_seconds(&self.claim_lease)
            .or_else(|| lease_seconds(DEFAULT_LEASE))
            .expect("the default lease is a valid one")
    }
}

fn lease_seconds(s: &str) -> Option<i64> {
    crate::model::base::time::parse_duration(s).filter(|s| (1..=MAX_LEASE_SECONDS).contains(s))
}

/// A name git takes as a remote's: one word that is not an option, without the characters git
/// refuses in ref names. A URL is not a remote name here: claims go where a configured remote
/// points, with its settings.
pub fn is_remote_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && !name.starts_with(['-', '.', '/'])
        && !name.ends_with(['/', '.'])
        && !name.contains("..")
        && !name.contains("//")
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/'))
}

/// `config.yaml`'s text with `agents_file` set to `file`, comments and other keys kept.
pub fn with_agents_file(src: &str, file: &str) -> String {
    // A JSON string is a YAML double-quoted scalar.
    let value = serde_json::Value::from(file).to_string();
    with_key(
        src,
        "agents_file",
        &value,
        "The instructions file with mneme's block (`mneme init --agents-file`).",
    )
}

/// `config.yaml`'s text with `compile` listing `targets`, comments and other keys kept.
pub fn with_compile(src: &str, targets: &[String]) -> String {
    with_key(
        src,
        "compile",
        &format!("[{}]", targets.join(", ")),
        "The rule files the approved facts are compiled into (`mneme setup <target>`).",
    )
}

/// `config.yaml`'s text with `decision_records: true`, comments and other keys kept.
pub fn with_decision_records(src: &str) -> String {
    with_key(src, "decision_records", "true", DECISION_RECORDS_COMMENT)
}

const DECISION_RECORDS_COMMENT: &str =
    "`mneme verify` checks the facts against the decision records in .ledger/decisions/.";

/// `src` with the top-level `key` set to `value` (YAML), or added at the end under `comment`.
/// A value written over several lines (a block list under the key) is replaced whole.
fn with_key(src: &str, key: &str, value: &str, comment: &str) -> String {
    let line = format!("{key}: {value}");
    let mut out = String::with_capacity(src.len() + line.len() + comment.len() + 8);
    let mut replaced = false;
    let mut in_value = false;
    for l in src.split_inclusive('\n') {
        let is_key = l
            .strip_prefix(key)
            .is_some_and(|rest| rest.starts_with(':'));
        let continues = l.starts_with([' ', '\t', '-']);
        if in_value && continues {
            continue;
        }
        in_value = false;
        if !replaced && is_key {
            out.push_str(&line);
            out.push('\n');
            replaced = true;
            in_value = true;
        } else {
            out.push_str(l);
        }
    }
    if !replaced {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&format!("\n# {comment}\n{line}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        assert_eq!(Config::parse("# nothing\n").unwrap(), Config::default());
        let c = Config::parse("budget_lines: 100\nrequire_evidence: true\n").unwrap();
        assert_eq!(c.budget_lines, 100);
        assert!(c.require_evidence);
        assert_eq!(c.max_fact_chars, 1000);
    }

    #[test]
    fn typos_and_bad_values_are_errors() {
        assert!(Config::parse("budget_line: 100\n").is_err());
        assert!(Config::parse("budget_lines: lots\n").is_err());
        assert!(Config::parse("require_evidence: maybe\n").is_err());
    }

    #[test]
    fn claims_take_a_remote_name_and_a_bounded_lease() {
        let c = Config::parse("claims_remote: origin\nclaim_lease: 90s\n").unwrap();
        assert_eq!(c.claims_remote.as_deref(), Some("origin"));
        assert_eq!(c.lease_seconds(), 90);
        assert_eq!(Config::default().lease_seconds(), 7200);
        for bad in [
            "-x",
            "a b",
            "../up",
            "https://example.com/r.git",
            "a..b",
            "",
        ] {
            let src = format!("claims_remote: {}\n", serde_json::Value::from(bad));
            assert!(Config::parse(&src).is_err(), "{bad}");
        }
        for good in ["origin", "team/upstream", "fork_2", "オリジン"] {
            assert!(is_remote_name(good), "{good}");
        }
        for bad in ["0s", "31d", "2 hours", "-1h", "h"] {
            let src = format!("claim_lease: {}\n", serde_json::Value::from(bad));
            assert!(Config::parse(&src).is_err(), "{bad}");
        }
    }

    #[test]
    fn compile_names_known_targets_and_setup_can_set_it() {
        assert!(Config::default().compile.is_empty());
        let c = Config::parse("compile: [copilot, kiro]\n").unwrap();
        assert_eq!(c.compile, ["copilot", "kiro"]);
        assert!(matches!(
            Config::parse("compile: [copilot, vim]\n"),
            Err(ConfigError::Compile(t)) if t == "vim"
        ));
        let block =
            "budget_lines: 100\ncompile:\n  - cursor\n  - cline\n# after\nscoped_delivery: true\n";
        let set = with_compile(block, &["copilot".to_owned(), "cursor".to_owned()]);
        assert_eq!(
            set,
            "budget_lines: 100\ncompile: [copilot, cursor]\n# after\nscoped_delivery: true\n"
        );
        let c = Config::parse(&set).unwrap();
        assert_eq!(c.compile, ["copilot", "cursor"]);
        assert!(c.scoped_delivery);
        let added = with_compile("budget_lines: 100", &["kiro".to_owned()]);
        assert_eq!(Config::parse(&added).unwrap().compile, ["kiro"]);
        assert_eq!(
            Config::parse(&with_compile(&added, &[])).unwrap().compile,
            Vec::<String>::new()
        );
    }

    #[test]
    fn agents_file_is_a_file_inside_the_repository_and_init_can_set_it() {
        for bad in [
            "",
            "/etc/passwd",
            "../AGENTS.md",
            "docs/../../x",
            ".git/config",
            ".ledger/facts/x.md",
        ] {
            let src = format!("agents_file: {}\n", serde_json::Value::from(bad));
            assert!(Config::parse(&src).is_err(), "{bad}");
        }
        let set = with_agents_file(crate::model::agents::templates::CONFIG, "CLAUDE.md");
        assert_eq!(Config::parse(&set).unwrap().agents_file, "CLAUDE.md");
        assert_eq!(set.matches("agents_file:").count(), 1, "{set}");
        let added = with_agents_file("budget_lines: 100", "docs/AI \"rules\".md");
        let c = Config::parse(&added).unwrap();
        assert_eq!(c.agents_file, "docs/AI \"rules\".md");
        assert_eq!(c.budget_lines, 100);
    }

    #[test]
    fn template_parses_to_defaults_with_decision_records_on() {
        let template = Config::parse(crate::model::agents::templates::CONFIG).unwrap();
        assert!(template.decision_records);
        assert_eq!(
            template,
            Config {
                decision_records: true,
                ..Config::default()
            }
        );
        let old = "budget_lines: 100\n";
        let on = Config::parse(&with_decision_records(old)).unwrap();
        assert!(on.decision_records && on.budget_lines == 100);
        assert_eq!(
            with_decision_records(&with_decision_records(old)),
            with_decision_records(old)
        );
    }
}

//! `.ledger/config.yaml`.

use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
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
}

impl Default for Config {
    fn default() -> Config {
        Config {
            budget_lines: 800,
            require_evidence: false,
            max_fact_chars: 1000,
            stale_fact_days: 365,
            stale_proposal_days: 14,
        }
    }
}

/// Largest config file read, so a hostile file cannot make the YAML parser work hard.
const MAX_CONFIG: usize = 64 * 1024;

/// Why `.ledger/config.yaml` cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("larger than {MAX_CONFIG} bytes")]
    TooLarge,
    #[error("{0}")]
    Yaml(#[from] serde_saphyr::Error),
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
        Ok(serde_saphyr::from_str(src)?)
    }
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
    fn template_parses_to_defaults() {
        assert_eq!(
            Config::parse(crate::model::templates::CONFIG).unwrap(),
            Config::default()
        );
    }
}

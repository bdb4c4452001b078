//! Credentials must not become memory: facts are committed and shown to every agent. This finds
//! what looks like one in a text: known token formats, private key blocks, JWTs, connection
//! strings with a password, and long random-looking strings.

use std::collections::BTreeMap;

/// A credential-like piece of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Secret {
    /// What it looks like: `a GitHub token`, `a private key`, …
    pub kind: &'static str,
    /// Its first characters and its length, never the whole value.
    pub sample: String,
}

impl std::fmt::Display for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.kind, self.sample)
    }
}

/// What stands for `text` where it would be shown to more people than its branch reaches (a pull
/// request's comment, a CI log), when it holds what looks like a credential.
pub fn withheld(text: &str) -> Option<String> {
    find(text)
        .into_iter()
        .next()
        .map(|s| format!("(text withheld: it holds what looks like {s})"))
}

/// Prefixes of well-known token formats, the characters that follow and how many at least.
const PREFIXED: &[(&str, &str, usize)] = &[
    ("AKIA", "an AWS access key id", 16),
    ("ASIA", "an AWS access key id", 16),
    ("ghp_", "a GitHub token", 30),
    ("gho_", "a GitHub token", 30),
    ("ghu_", "a GitHub token", 30),
    ("ghs_", "a GitHub token", 30),
    ("ghr_", "a GitHub token", 30),
    ("github_pat_", "a GitHub token", 30),
    ("glpat-", "a GitLab token", 20),
    ("xoxb-", "a Slack token", 10),
    ("xoxp-", "a Slack token", 10),
    ("xoxa-", "a Slack token", 10),
    ("xoxr-", "a Slack token", 10),
    ("xoxs-", "a Slack token", 10),
    ("xapp-", "a Slack token", 10),
    ("sk_live_", "a Stripe key", 16),
    ("rk_live_", "a Stripe key", 16),
    ("AIza", "a Google API key", 35),
    ("sk-", "an API secret key", 32),
    ("npm_", "an npm token", 36),
];

/// Every credential-like piece of `text`, in order.
pub fn find(text: &str) -> Vec<Secret> {
    let mut found = Vec::new();
    if let Some(block) = text.find("-----BEGIN ").and_then(|at| text.get(at..)) {
        if block
            .lines()
            .next()
            .is_some_and(|l| l.contains("PRIVATE KEY"))
        {
            found.push(secret("a private key", block));
        }
    }
    if text.contains("hooks.slack.com/services/") {
        found.push(secret("a Slack webhook", "hooks.slack.com/services/"));
    }
    for value in assigned_passwords(text) {
        found.push(secret("a password", value));
    }
    for token in tokens(text) {
        if let Some(kind) = known_format(token) {
            found.push(secret(kind, token));
        } else if is_jwt(token) {
            found.push(secret("a JSON web token", token));
        } else if has_password(token) {
            found.push(secret("a connection string with a password", token));
        } else if looks_random(token) {
            found.push(secret("a long random-looking string", token));
        }
    }
    found
}

/// The pieces of `text` a credential could be: runs of characters tokens, keys and URLs use.
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| {
        c.is_whitespace() || matches!(c, '"' | '\'' | '`' | ',' | ';' | '(' | ')' | '<' | '>')
    })
    .map(|t| t.trim_end_matches(['.', ':']))
    .filter(|t| t.len() >= 16)
}

fn known_format(token: &str) -> Option<&'static str> {
    PREFIXED.iter().find_map(|(prefix, kind, min)| {
        let (before, rest) = token.split_once(prefix)?;
        let body = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
            .count();
        let starts_word = before
            .as_bytes()
            .last()
            .is_none_or(|b| !b.is_ascii_alphanumeric());
        (body >= *min && starts_word).then_some(*kind)
    })
}

/// Three base64url segments, the first a JSON header (`eyJ…`).
fn is_jwt(token: &str) -> bool {
    let parts: Vec<&str> = token.split('.').collect();
    parts.len() == 3
        && parts[0].starts_with("eyJ")
        && parts.iter().all(|p| {
            p.len() >= 8
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'='))
        })
}

/// Names of a password-like value, after the keyword group of gitleaks' generic rule
/// (`passw(or)?d`, `secret`, `credential`); token and key formats have rules of their own.
const PASSWORD_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "credential",
];

/// Values assigned to a password-like name, shaped as gitleaks' generic rule reads them: the
/// name (within a longer identifier, `DB_PASSWORD`, `secret_key`), at most 20 more identifier
/// characters, an assignment (`=`, `:`, `:=`, `=>`, `?=`), then the value. A value that stands
/// written as a literal (quoted, or `NAME=value`) counts from 6 characters; one in prose
/// (`password: …`) from 8, and only when it is not a plain word or a reference (letters and
/// also digits or symbols, no path, call or template). Placeholders never count.
fn assigned_passwords(text: &str) -> Vec<&str> {
    let lower = text.to_ascii_lowercase();
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    // The next place of each word at or after `from`: each is searched for again only once
    // passed, so the text is read once per word however many names it holds.
    let mut next: Vec<Option<usize>> = PASSWORD_WORDS.iter().map(|w| lower.find(w)).collect();
    let mut from = 0;
    loop {
        for (k, w) in PASSWORD_WORDS.iter().enumerate() {
            if next[k].is_some_and(|at| at < from) {
                next[k] = lower
                    .get(from..)
                    .and_then(|rest| rest.find(w))
                    .map(|i| from + i);
            }
        }
        let Some((at, k)) = next
            .iter()
            .enumerate()
            .filter_map(|(k, at)| at.map(|at| (at, k)))
            .min()
        else {
            break;
        };
        let end = at + PASSWORD_WORDS[k].len();
        from = end;
        if let Some(value) = assigned_at(text, bytes, PASSWORD_WORDS[k], end) {
            found.push(value);
        }
    }
    found
}

/// The value assigned after the password-like name `word` that ends at `i`, if it looks like a
/// password.
fn assigned_at<'t>(text: &'t str, bytes: &[u8], word: &str, mut i: usize) -> Option<&'t str> {
    let ident = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
    let quote = |b: u8| matches!(b, b'"' | b'\'' | b'`');
    let skip = |i: &mut usize, max: usize, what: &dyn Fn(u8) -> bool| {
        let start = *i;
        while *i < bytes.len() && *i - start < max && what(bytes[*i]) {
            *i += 1;
        }
    };
    let name_end = i;
    skip(&mut i, 20, &ident);
    // The name is the secret itself (`password`, `secret_key`), not something about it
    // (`secret_type`, `credential_accessed_at`, `passwords`).
    let suffix = text
        .get(name_end..i)?
        .trim_start_matches(['_', '-', '.'])
        .to_ascii_lowercase();
    if !matches!(suffix.as_str(), "" | "key" | "value") {
        return None;
    }
    let password_word = suffix.is_empty() && !matches!(word, "secret" | "credential");
    skip(&mut i, 3, &|b| matches!(b, b' ' | b'\t') || quote(b));
    let rest = &bytes[i..];
    let op = [&b":="[..], b"=>", b"?=", b"="]
        .into_iter()
        .find(|op| rest.starts_with(op))
        .or_else(|| {
            (rest.first() == Some(&b':') && rest.get(1) != Some(&b':')).then_some(&b":"[..])
        })?;
    i += op.len();
    if bytes.get(i) == Some(&b'=') {
        return None; // `==`: a comparison
    }
    let after_op = i;
    skip(&mut i, 5, &|b| matches!(b, b' ' | b'\t' | b'=') || quote(b));
    let opened = bytes[after_op..i]
        .iter()
        .rev()
        .find(|b| quote(**b))
        .copied();
    let start = i;
    let ends = |b: u8| match opened {
        // A quoted value runs to its quote, spaces and all.
        Some(q) => b == q || b == b'\n',
        None => b.is_ascii_whitespace() || quote(b) || b == b';',
    };
    while i < bytes.len() && !ends(bytes[i]) {
        i += 1;
    }
    let literal = match opened {
        Some(q) => bytes.get(i) == Some(&q),
        None => op == b"=" && start == after_op,
    };
    let mut value = text.get(start..i)?;
    if !literal {
        value = value.trim_end_matches(['.', ',', ')', ':', '!', '?']);
    }
    looks_like_password(value, literal, password_word).then_some(value)
}

/// Whether `value`, assigned to a password-like name, looks like a password: not a placeholder,
/// a URL (connection strings have their own rule) or an identifier, and at least 6 characters
/// written as a literal, 8 in prose. Letters with digits or symbols count; letters alone only
/// as a literal given to a password's own name (`PASSWORD=sunshine`, `passphrase: "correct
/// horse"`), never a snake- or kebab-case name. In prose the value
/// is one run of letters, digits and symbols: no path, call or template.
fn looks_like_password(value: &str, literal: bool, password_word: bool) -> bool {
    let len = value.chars().count();
    if len < if literal { 6 } else { 8 }
        || len > 150
        || is_placeholder(value)
        || value.contains("://")
    {
        return false;
    }
    let symbol = |c: char| "=!@#%^&*+~".contains(c);
    let letters = value.chars().any(char::is_alphabetic);
    let complex = letters && value.chars().any(|c| c.is_ascii_digit() || symbol(c));
    if !literal {
        return complex
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || symbol(c) || matches!(c, '_' | '.' | '-'));
    }
    complex || (password_word && letters && !value.contains(['_', '-', '.']))
}

/// `scheme://user:password@host`, or `scheme://:password@host` (a password and no user).
fn has_password(token: &str) -> bool {
    let Some((_, rest)) = token.split_once("://") else {
        return false;
    };
    let authority = rest.split('/').next().unwrap_or("");
    let Some((credentials, host)) = authority.rsplit_once('@') else {
        return false;
    };
    matches!(credentials.split_once(':'), Some((_, password)) if !password.is_empty() && !is_placeholder(password))
        && !host.is_empty()
}

/// A stand-in for a password, not one: `${DB_PASSWORD}`, `$DB_PASSWORD`, `%DB_PASSWORD%`,
/// `%(password)s`, `{{password}}`, `{password}`, `<password>` (or the start of one that goes on
/// past a space, `<your`), an environment variable's name (`DB_PASSWORD`), `***`, `xxxx`, or a
/// word that names what goes there (`password`, `changeme`, …).
fn is_placeholder(password: &str) -> bool {
    let template = password.starts_with(['<', '{', '$', '%', '[']);
    // What describes the value rather than being it: `provide-password-here`, `your secret`.
    let lower = password.to_ascii_lowercase();
    let described = ["password", "passwd", "secret"]
        .iter()
        .any(|w| lower.contains(w))
        && password.contains(['-', '_', ' ']);
    let env_name = password.len() >= 3
        && password.starts_with(|c: char| c.is_ascii_uppercase())
        && password
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if template || env_name || described {
        return true;
    }
    let name = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '.')
    };
    let wrapped = |open: &str, close: &str| {
        password
            .strip_prefix(open)
            .and_then(|rest| rest.strip_suffix(close))
            .is_some_and(name)
    };
    let masked = (password.len() >= 3
        && password
            .chars()
            .all(|c| c == '*' || c == 'x' || c == 'X' || c == '.'))
        || ["xxxxxxxx", "XXXXXXXX", "********"]
            .iter()
            .any(|run| password.contains(run));
    let word = [
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "changeme",
        "changeit",
        "yourpassword",
        "example",
        "dummy",
        "redacted",
        "placeholder",
        "none",
        "null",
    ]
    .iter()
    .any(|w| password.eq_ignore_ascii_case(w));
    wrapped("${", "}")
        || wrapped("$", "")
        || wrapped("%", "%")
        || wrapped("%(", ")s")
        || wrapped("{{", "}}")
        || wrapped("{", "}")
        || wrapped("<", ">")
        || wrapped("$(", ")")
        || masked
        || word
}

/// At least 24 characters of base64 with upper case, lower case and digits, spread as evenly as
/// random bytes are: identifiers and words are far more repetitive.
fn looks_random(token: &str) -> bool {
    let chars: Vec<char> = token.chars().collect();
    let base64 = chars
        .iter()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '_' | '-'));
    base64
        && chars.len() >= 24
        && chars.iter().any(char::is_ascii_uppercase)
        && chars.iter().any(char::is_ascii_lowercase)
        && chars.iter().any(char::is_ascii_digit)
        && entropy(&chars) >= 4.4
}

/// Shannon entropy in bits per character.
fn entropy(chars: &[char]) -> f64 {
    let mut counts: BTreeMap<char, usize> = BTreeMap::new();
    for c in chars {
        *counts.entry(*c).or_default() += 1;
    }
    let n = chars.len() as f64;
    counts
        .values()
        .map(|&k| {
            let p = k as f64 / n;
            -p * p.log2()
        })
        .sum()
}

fn secret(kind: &'static str, value: &str) -> Secret {
    let shown: String = value.chars().take(6).collect();
    Secret {
        kind,
        sample: format!("`{shown}…`, {} characters", value.chars().count()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<&'static str> {
        find(text).into_iter().map(|s| s.kind).collect()
    }

    #[test]
    fn known_formats_are_found() {
        assert_eq!(
            kinds("key AKIAIOSFODNN7EXAMPLE in config"),
            ["an AWS access key id"]
        );
        assert_eq!(
            kinds("token=ghp_abcdEFGH1234ijklMNOP5678qrstUVWX90yz"),
            ["a GitHub token"]
        );
        assert_eq!(kinds("xoxb-123456789012-abcdefghij"), ["a Slack token"]);
        assert_eq!(
            kinds("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA==\n-----END OPENSSH PRIVATE KEY-----"),
            ["a private key"]
        );
        assert_eq!(
            kinds("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            ["a JSON web token"]
        );
        assert_eq!(
            kinds("DATABASE_URL=postgres://app:s3cr3t-Pa55@db.internal:5432/main"),
            ["a connection string with a password"]
        );
        assert_eq!(
            kinds("aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            ["a long random-looking string"]
        );
    }

    /// Password-style assignments, as gitleaks' generic rule finds them, whatever the syntax.
    #[test]
    fn assigned_passwords_are_found() {
        for text in [
            "password: hunter2hunter2",
            "PASSWORD=letmein99",
            "PASSWORD=sunshine",
            "export DB_PASSWORD='correct horse'",
            "passwd: s3cr3t!pass",
            "secret_key = 'k3y-for-sessions'",
            "\"client_secret\": \"kj123131132\"",
            "SECRET_KEY=\"k9#mX2!qL\"",
            "the admin pwd := Adm1n-2024",
            "{\"password\": \"p@ssword1\"}",
            "mysqlPassword => 'qwerty12'",
        ] {
            assert_eq!(kinds(text), ["a password"], "{text}");
        }
        assert_eq!(
            kinds("redis://:p4ssw0rdXYZ@cache:6379/0"),
            ["a connection string with a password"]
        );
    }

    #[test]
    fn engineering_prose_is_not_a_secret() {
        for text in [
            "We use PostgreSQL 16, not SQLite; PostgreSQLConnectionPoolSize16 is tuned.",
            "See https://github.com/org/repo/commit/f3c9a1b2d4e5f60718293a4b5c6d7e8f90a1b2c3",
            "src/model/facts.rs:12 d41d8cd98f00b204e9800998ecf8427e",
            "postgres://db.internal:5432/main has no password in it",
            "HTTPServerRequestHandlerV2Impl and SessionStartCompactSource2026Nov",
            "-----BEGIN PUBLIC KEY----- is fine",
            "The task-runner uses sk-learn models.",
            "postgres://app:${DB_PASSWORD}@db/app reads the password from the environment",
            "DATABASE_URL=postgres://app:$DB_PASSWORD@db.internal:5432/main",
            "mysql://root:%(password)s@localhost/app in the Python settings",
            "amqp://guest:{{ rabbit_password }}@mq/ is templated",
            "redis://default:{{rabbit_password}}@cache:6379 and redis://u:****@cache",
            "set DSN=postgres://app:%PGPASSWORD%@db/app on Windows",
            "postgres://user:password@localhost/db is the example in the README",
            "password: <your password>",
            "PASSWORD=changeme",
            "password: ${DB_PASSWORD}",
            "password = os.getenv(\"DB_PASSWORD\")",
            "password: `DB_PASSWORD` comes from the environment",
            "The secret: rotated every 90 days by the vault.",
            "secrets.yaml: holds the keys, never committed.",
            "if password == expected { return Ok(()) }",
            "Passwords: at least 12 characters, checked by zxcvbn.",
            "pwd: /home/app is the working directory",
            "credential helpers: osxkeychain, manager-core",
            "PASSWORD_MIN_LENGTH=12 in settings",
            "A secret = one the vault holds.",
            "redis://:@cache:6379/0 has no password",
            "secret_key: {{ vault_secret }} is templated",
            "\"secret_scanning_generic_secrets\": \"disabled\"",
            "\"credential_accessed_at\": \"2023-05-16T19:06:43Z\"",
            "\"password\": \"provide-password-here!\"",
            "\"secret_type\": \"adafruit_io_key\"",
        ] {
            assert_eq!(kinds(text), Vec::<&str>::new(), "{text}");
        }
    }

    /// Every text file under `dirs` (relative to the crate), recursively.
    fn texts(dirs: &[&str]) -> Vec<(std::path::PathBuf, String)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut stack: Vec<std::path::PathBuf> = dirs.iter().map(|d| root.join(d)).collect();
        let mut out = Vec::new();
        while let Some(path) = stack.pop() {
            if path.is_dir() {
                for entry in std::fs::read_dir(&path).unwrap() {
                    stack.push(entry.unwrap().path());
                }
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                out.push((path, text));
            }
        }
        out
    }

    /// The false positives on real engineering text: this repository's documentation, its own
    /// ledger and templates, and the test suite's corpora of facts and agent files.
    #[test]
    fn this_repository_s_own_text_holds_no_secret() {
        let mut found = Vec::new();
        let dirs = [
            "README.md",
            "AGENTS.md",
            "docs",
            "templates",
            ".ledger/facts",
            "tests/corpus",
            "tests/it/fixtures",
        ];
        let files = texts(&dirs);
        assert!(files.len() > 20, "{} files", files.len());
        for (path, text) in files {
            for line in text.lines() {
                for s in find(line) {
                    found.push(format!("{}: {s}: {line}", path.display()));
                }
            }
        }
        assert!(found.is_empty(), "{}", found.join("\n"));
    }

    #[test]
    fn the_value_is_never_repeated_whole() {
        let found = find("ghp_abcdEFGH1234ijklMNOP5678qrstUVWX90yz");
        let shown = found[0].to_string();
        assert!(!shown.contains("UVWX90yz"), "{shown}");
        assert!(shown.contains("40 characters"), "{shown}");
    }
}

//! Signed decisions: splitting a commit object into what was signed and its signature, the
//! `allowed_signers` file (git's `gpg.ssh.allowedSignersFile` format) and verifying an SSH
//! signature against it. Pure: inputs are bytes and text.

use ssh_key::{PublicKey, SshSig};

use crate::model::base::time::Timestamp;

/// The namespace git signs commits in.
const NAMESPACE: &str = "git";

/// The bytes git signed and the signature of a commit object, or `None` when it has no `gpgsig`
/// header. As git does: the signature is the `gpgsig` header (continuation lines without their
/// leading space); the payload is the object without it and without any other header whose name
/// starts with `gpgsig` (such as `gpgsig-sha256`), so that adding one cannot change what is
/// verified.
pub fn split_signed(raw: &[u8]) -> Option<(Vec<u8>, String)> {
    let mut payload = Vec::with_capacity(raw.len());
    let mut signature = Vec::new();
    let (mut in_signature, mut other, mut saw) = (false, false, false);
    let mut rest = raw;
    while !rest.is_empty() {
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |i| i + 1);
        let line = &rest[..end];
        rest = &rest[end..];
        let sig = if in_signature && line.first() == Some(&b' ') {
            Some(&line[1..])
        } else if let Some(value) = line.strip_prefix(b"gpgsig ") {
            other = false;
            Some(value)
        } else {
            if line.starts_with(b"gpgsig") {
                other = true;
            } else if other && line.first() != Some(&b' ') {
                other = false;
            }
            None
        };
        if let Some(sig) = sig {
            signature.extend_from_slice(sig);
            saw = true;
            in_signature = true;
            continue;
        }
        in_signature = false;
        if line == b"\n" {
            // The message: everything after the headers is signed as is.
            payload.extend_from_slice(line);
            payload.extend_from_slice(rest);
            break;
        }
        if !other {
            payload.extend_from_slice(line);
        }
    }
    saw.then(|| (payload, String::from_utf8_lossy(&signature).into_owned()))
}

/// One line of `allowed_signers`: who may sign with a key, in which namespaces, when.
#[derive(Debug, Clone)]
pub struct AllowedSigner {
    /// Patterns for the signer's email (`*` and `?` wildcards, `!` negates).
    pub principals: Vec<String>,
    pub namespaces: Option<Vec<String>>,
    pub valid_after: Option<Timestamp>,
    pub valid_before: Option<Timestamp>,
    pub key: PublicKey,
    /// Line number in the file, for messages.
    pub line: usize,
}

/// The keys allowed to sign decisions, from `.ledger/allowed_signers`.
#[derive(Debug, Clone, Default)]
pub struct AllowedSigners {
    pub signers: Vec<AllowedSigner>,
    /// Lines mneme could not use, with why: they allow nobody.
    pub skipped: Vec<String>,
}

impl AllowedSigners {
    /// Reads the file; blank lines and `#` comments are ignored, unusable lines are listed in
    /// `skipped` and allow nobody.
    pub fn parse(text: &str) -> AllowedSigners {
        let mut out = AllowedSigners::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            match parse_line(line, i + 1) {
                Ok(signer) => out.signers.push(signer),
                Err(why) => out.skipped.push(format!("line {}: {why}", i + 1)),
            }
        }
        out
    }

    /// Whether the public key `line` (`ssh-ed25519 AAAA… comment`) is listed for `email`.
    pub fn lists(&self, line: &str, email: &str) -> bool {
        let Ok(key) = PublicKey::from_openssh(line.trim()) else {
            return false;
        };
        self.signers
            .iter()
            .any(|s| s.key.key_data() == key.key_data() && principal_matches(&s.principals, email))
    }

    /// Whether a line lists `key` for `principal` by name, not by a pattern.
    pub fn lists_exactly(&self, key: &PublicKey, principal: &str) -> bool {
        self.signers.iter().any(|s| {
            s.key.key_data() == key.key_data() && s.principals.iter().any(|p| p == principal)
        })
    }

    /// Checks that `signature` is a good SSH signature of `payload` by a key listed for
    /// `email`, valid at `time`.
    pub fn verify(
        &self,
        signature: &str,
        payload: &[u8],
        email: &str,
        time: Timestamp,
    ) -> Result<&AllowedSigner, SignatureProblem> {
        self.verify_by(signature, payload, email, time, |s| {
            principal_matches(&s.principals, email)
        })
    }

    /// As [`AllowedSigners::verify`], for a key listed for `principal` by name: a pattern such
    /// as `*` does not list it.
    pub fn verify_exact(
        &self,
        signature: &str,
        payload: &[u8],
        principal: &str,
        time: Timestamp,
    ) -> Result<&AllowedSigner, SignatureProblem> {
        self.verify_by(signature, payload, principal, time, |s| {
            s.principals.iter().any(|p| p == principal)
        })
    }

    fn verify_by(
        &self,
        signature: &str,
        payload: &[u8],
        email: &str,
        time: Timestamp,
        listed_for: impl Fn(&AllowedSigner) -> bool,
    ) -> Result<&AllowedSigner, SignatureProblem> {
        let signature = signature.trim();
        if signature.starts_with("-----BEGIN PGP SIGNATURE-----") {
            return Err(SignatureProblem::Unsupported("OpenPGP"));
        }
        if !signature.starts_with("-----BEGIN SSH SIGNATURE-----") {
            return Err(SignatureProblem::Unsupported("X.509 or unknown"));
        }
        let sig = SshSig::from_pem(signature).map_err(|_| SignatureProblem::Malformed)?;
        if sig.namespace() != NAMESPACE {
            return Err(SignatureProblem::Namespace(sig.namespace().to_owned()));
        }
        let listed: Vec<&AllowedSigner> = self
            .signers
            .iter()
            .filter(|s| s.key.key_data() == sig.public_key())
            .collect();
        if listed.is_empty() {
            return Err(SignatureProblem::UnknownKey(
                PublicKey::from(sig.public_key().clone())
                    .fingerprint(Default::default())
                    .to_string(),
            ));
        }
        listed[0]
            .key
            .verify(NAMESPACE, payload, &sig)
            .map_err(|_| SignatureProblem::Bad)?;
        let for_email: Vec<&AllowedSigner> = listed.into_iter().filter(|s| listed_for(s)).collect();
        let Some(first) = for_email.first() else {
            return Err(SignatureProblem::NotListedFor(email.to_owned()));
        };
        for_email
            .iter()
            .find(|s| s.allows(time))
            .copied()
            .ok_or(SignatureProblem::Expired(first.line))
    }
}

impl AllowedSigner {
    /// Whether the key may sign git objects at `time`.
    fn allows(&self, time: Timestamp) -> bool {
        let namespace = self
            .namespaces
            .as_ref()
            .is_none_or(|n| n.iter().any(|n| n == NAMESPACE));
        namespace
            && self.valid_after.is_none_or(|t| time >= t)
            && self.valid_before.is_none_or(|t| time < t)
    }
}

/// Why a decision's signature does not count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureProblem {
    #[error("it is not signed")]
    Unsigned,
    #[error("its signature is {0}, which mneme does not verify; sign with SSH (gpg.format=ssh)")]
    Unsupported(&'static str),
    #[error("its SSH signature cannot be read")]
    Malformed,
    #[error("it is signed for the namespace `{0}`, not `git`")]
    Namespace(String),
    #[error("it is signed by {0}, a key not in allowed_signers")]
    UnknownKey(String),
    #[error("its signature does not match its content")]
    Bad,
    #[error("its key is in allowed_signers, but not for the committer {0}")]
    NotListedFor(String),
    #[error(
        "its key is not valid for git signatures at the commit's date (allowed_signers line {0})"
    )]
    Expired(usize),
    #[error("it is signed by the forge's key (allowed_signers `mneme-forge`), which signs only decisions made on the forge")]
    ForgeOnly,
}

fn parse_line(line: &str, number: usize) -> Result<AllowedSigner, String> {
    let (principals, rest) = take_field(line);
    let rest = rest.trim_start();
    let (options, key) = if looks_like_key_type(rest) {
        ("", rest)
    } else {
        let (options, key) = take_field(rest);
        (options, key.trim_start())
    };
    let key = PublicKey::from_openssh(key).map_err(|e| format!("not a public key ({e})"))?;
    let mut signer = AllowedSigner {
        principals: principals.split(',').map(str::to_owned).collect(),
        namespaces: None,
        valid_after: None,
        valid_before: None,
        key,
        line: number,
    };
    for option in split_options(options) {
        let (name, value) = option.split_once('=').unwrap_or((option, ""));
        let value = value.trim_matches('"');
        match name.to_ascii_lowercase().as_str() {
            "namespaces" => {
                signer.namespaces = Some(value.split(',').map(str::to_owned).collect());
            }
            "valid-after" => signer.valid_after = Some(signer_time(value)?),
            "valid-before" => signer.valid_before = Some(signer_time(value)?),
            "cert-authority" => {
                return Err("certificate authorities are not supported; list the keys".into())
            }
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    Ok(signer)
}

/// The first field of `s` (double quotes group spaces) and the rest.
fn take_field(s: &str) -> (&str, &str) {
    let mut quoted = false;
    for (i, c) in s.char_indices() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                let (field, rest) = s.split_at_checked(i).unwrap_or((s, ""));
                return (field.trim_matches('"'), rest);
            }
            _ => {}
        }
    }
    (s.trim_matches('"'), "")
}

fn split_options(options: &str) -> Vec<&str> {
    let mut quoted = false;
    let mut out: Vec<&str> = options
        .split(|c: char| {
            quoted ^= c == '"';
            c == ',' && !quoted
        })
        .collect();
    // A trailing comma ends the list rather than adding an empty option.
    if out.last() == Some(&"") {
        out.pop();
    }
    out
}

fn looks_like_key_type(s: &str) -> bool {
    let word = s.split_whitespace().next().unwrap_or("");
    word.starts_with("ssh-") || word.starts_with("ecdsa-") || word.starts_with("sk-")
}

/// `YYYYMMDD[HHMM[SS]][Z]`, read as UTC.
fn signer_time(value: &str) -> Result<Timestamp, String> {
    let digits = value.trim_end_matches(['Z', 'z']);
    let bad = || format!("`{value}` is not a time (YYYYMMDD[HHMM[SS]][Z])");
    if !digits.chars().all(|c| c.is_ascii_digit()) || ![8, 12, 14].contains(&digits.len()) {
        return Err(bad());
    }
    let part = |a: usize, b: usize| digits.get(a..b).unwrap_or("00");
    let text = format!(
        "{}-{}-{}T{}:{}:{}Z",
        part(0, 4),
        part(4, 6),
        part(6, 8),
        part(8, 10),
        part(10, 12),
        part(12, 14)
    );
    Timestamp::parse(&text).ok_or_else(bad)
}

/// Whether `email` matches the comma-separated patterns: at least one positive pattern matches
/// and no negated one (`!pattern`) does.
fn principal_matches(patterns: &[String], email: &str) -> bool {
    let mut matched = false;
    for p in patterns {
        match p.strip_prefix('!') {
            Some(negated) if wildcard(negated, email) => return false,
            Some(_) => {}
            None => matched |= wildcard(p, email),
        }
    }
    matched
}

/// `*` matches any run of characters, `?` one character; case-insensitive as OpenSSH's.
fn wildcard(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let t: Vec<char> = text.to_lowercase().chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_and_every_gpgsig_header_leave_the_payload() {
        let raw = b"tree 1\nparent 2\nauthor A <a@x> 1 +0000\ncommitter A <a@x> 1 +0000\ngpgsig -----BEGIN SSH SIGNATURE-----\n abc\n -----END SSH SIGNATURE-----\ngpgsig-sha256 other\n more\nencoding x\n\nmessage\n gpgsig kept\n";
        let (payload, sig) = split_signed(raw).unwrap();
        assert_eq!(
            String::from_utf8(payload).unwrap(),
            "tree 1\nparent 2\nauthor A <a@x> 1 +0000\ncommitter A <a@x> 1 +0000\nencoding x\n\nmessage\n gpgsig kept\n"
        );
        assert_eq!(
            sig,
            "-----BEGIN SSH SIGNATURE-----\nabc\n-----END SSH SIGNATURE-----\n"
        );
        assert!(split_signed(b"tree 1\n\nmsg gpgsig x\n").is_none());
    }

    const KEY: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIF8ILQhGT5GtvM+x0Hq0CdWVPYlCrTFIoTjapjA9UH8E";

    #[test]
    fn allowed_signers_lines() {
        let text = format!(
            "# team\n\ngrace@example.com {KEY} laptop\n\"*@example.com,!bot@example.com\" namespaces=\"git,file\",valid-after=\"20260101\" {KEY}\n@ca cert-authority {KEY}\nbroken line\n"
        );
        let s = AllowedSigners::parse(&text);
        assert_eq!(s.signers.len(), 2, "{:?}", s.skipped);
        assert_eq!(s.skipped.len(), 2);
        assert!(s.skipped[0].starts_with("line 5: certificate"));
        let second = &s.signers[1];
        assert_eq!(second.principals, ["*@example.com", "!bot@example.com"]);
        assert_eq!(second.namespaces.as_deref().unwrap(), ["git", "file"]);
        assert_eq!(second.line, 4);
        let t = |s: &str| Timestamp::parse(s).unwrap();
        assert!(second.allows(t("2026-02-01T00:00:00Z")));
        assert!(!second.allows(t("2025-12-31T23:59:59Z")));
        assert!(principal_matches(&second.principals, "Ada@Example.com"));
        assert!(!principal_matches(&second.principals, "bot@example.com"));
        assert!(!principal_matches(&second.principals, "ada@example.org"));
        assert!(wildcard("a?c*", "abcdef") && !wildcard("a?c", "ac"));
    }

    #[test]
    fn only_ssh_signatures_are_verified() {
        let s = AllowedSigners::parse(&format!("a@x {KEY}\n"));
        let t = Timestamp::parse("2026-01-01T00:00:00Z").unwrap();
        let pgp = "-----BEGIN PGP SIGNATURE-----\nx\n-----END PGP SIGNATURE-----\n";
        assert_eq!(
            s.verify(pgp, b"x", "a@x", t).unwrap_err(),
            SignatureProblem::Unsupported("OpenPGP")
        );
        let garbage = "-----BEGIN SSH SIGNATURE-----\nnope\n-----END SSH SIGNATURE-----\n";
        assert_eq!(
            s.verify(garbage, b"x", "a@x", t).unwrap_err(),
            SignatureProblem::Malformed
        );
    }
}

//! Signing a decision record with the SSH key git signs commits with, as git does it: the
//! configured program (`gpg.ssh.program`, `ssh-keygen` by default) run as
//! `-Y sign -n git -f <key>`, with `-U` for a literal key held by an agent.

use std::ffi::OsString;
use std::io::Write;
use std::process::{Command, Stdio};

use gix::objs::signature::{sign::is_literal_ssh_key, Format};

use crate::git::{Error, Repo, Result};

/// The namespace git signs in; `allowed_signers` lines often allow only it.
const NAMESPACE: &str = "git";

impl Repo {
    /// An armored SSH signature of `payload` by the reviewer's signing key (`user.signingKey`
    /// with `gpg.format = ssh`).
    pub fn ssh_sign(&self, payload: &[u8]) -> Result<String> {
        let options = self
            .gix()
            .commit_signing_options()
            .map_err(|e| Error::Signing(crate::error_chain(&e)))?;
        if options.format != Format::Ssh {
            return Err(Error::Signing(
                "git is not set up to sign with SSH (gpg.format is not `ssh`)".into(),
            ));
        }
        let dir = tempfile::tempdir().map_err(|e| Error::Signing(e.to_string()))?;
        let io = |e: std::io::Error| Error::Signing(e.to_string());
        let mut command = Command::new(&options.program);
        command.args(&options.program_arguments);
        command.envs(options.environment.iter().map(|(k, v)| (k, v)));
        command.args(["-Y", "sign", "-n", NAMESPACE, "-f"]);
        let literal = options
            .signing_key
            .to_str()
            .and_then(|k| is_literal_ssh_key(k.as_bytes()));
        match literal {
            Some(key) => {
                // A public key: the agent holds the private half.
                let file = dir.path().join("key.pub");
                std::fs::write(&file, key).map_err(io)?;
                command.arg(file).arg("-U");
            }
            None => {
                command.arg(&options.signing_key);
            }
        }
        let payload_file = dir.path().join("record");
        std::fs::File::create(&payload_file)
            .and_then(|mut f| f.write_all(payload))
            .map_err(io)?;
        let output = command
            .arg(&payload_file)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| {
                Error::Signing(format!(
                    "cannot run {}: {e}",
                    OsString::from(&options.program).to_string_lossy()
                ))
            })?;
        if !output.status.success() {
            let said = String::from_utf8_lossy(&output.stderr).trim().to_owned();
            return Err(Error::Signing(format!(
                "{} failed ({}){}",
                options.program.to_string_lossy(),
                output.status,
                if said.is_empty() {
                    String::new()
                } else {
                    format!(": {said}")
                }
            )));
        }
        let mut signature_file = payload_file.into_os_string();
        signature_file.push(".sig");
        let signature = crate::store::file::read_local_text(std::path::Path::new(&signature_file))
            .map_err(io)?;
        Ok(signature.replace("\r\n", "\n"))
    }
}

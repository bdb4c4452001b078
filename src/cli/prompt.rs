//! Questions to the person at the terminal: a line of text, a yes or no, one key.

use console::{Key, Term};
use mneme::ops::review::Pending;

use crate::cli::{CliError, Result};

pub fn ask(term: &Term, prompt: &str) -> Result<String> {
    dialoguer::Input::new()
        .with_prompt(prompt)
        .allow_empty(true)
        .interact_text_on(term)
        .map_err(|dialoguer::Error::IO(e)| CliError::terminal(e))
}

pub fn confirm(term: &Term, question: &str) -> Result<bool> {
    dialoguer::Confirm::new()
        .with_prompt(question)
        .default(false)
        .interact_on(term)
        .map_err(|dialoguer::Error::IO(e)| CliError::terminal(e))
}

/// For a proposal that holds what looks like a credential, asks the reviewer whether it is safe
/// to commit; `false` (the default) leaves the approval to be refused.
pub fn confirm_secrets(term: &Term, item: &Pending) -> Result<bool> {
    let Some(proposal) = item.valid() else {
        return Ok(false);
    };
    let Some((field, secret)) = proposal.secrets().into_iter().next() else {
        return Ok(false);
    };
    confirm(
        term,
        &format!("The {field} holds what looks like {secret}. Commit it to the ledger anyway?"),
    )
}

pub fn read_choice(term: &Term, prompt: &str) -> Result<char> {
    term.write_str(prompt).map_err(CliError::terminal)?;
    let key = term.read_key().map_err(CliError::terminal)?;
    let c = match key {
        Key::Char(c) => c.to_ascii_lowercase(),
        Key::Escape => 'q',
        _ => '?',
    };
    term.write_line(&c.to_string())
        .map_err(CliError::terminal)?;
    Ok(c)
}

//! The reviewer's editor, chosen and run as git runs it, on a temporary file.

use std::io::Write;
use std::process::Command;

use crate::cli::{CliError, Result};

/// The editor command for a review session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Editor(String);

impl Editor {
    /// The editor git would run: `$GIT_EDITOR`, `core.editor` (`core`), `$VISUAL` (unless the
    /// terminal is dumb), `$EDITOR`, then `vi`. An empty value counts as unset.
    pub fn choose(env: impl Fn(&str) -> Option<String>, core: Option<String>) -> Editor {
        let set = |v: Option<String>| v.filter(|v| !v.trim().is_empty());
        let dumb = env("TERM").as_deref() == Some("dumb");
        let editor = set(env("GIT_EDITOR"))
            .or_else(|| set(core))
            .or_else(|| set(env("VISUAL")).filter(|_| !dumb))
            .or_else(|| set(env("EDITOR")))
            .unwrap_or_else(|| if cfg!(windows) { "notepad" } else { "vi" }.to_owned());
        Editor(editor)
    }

    /// Opens the editor on `text`. `None` when the text comes back as it was; an editor that
    /// cannot be started or exits with a failure is an error, not an edit.
    pub fn edit(&self, text: &str) -> Result<Option<String>> {
        let editor = &self.0;
        let mut file = tempfile::Builder::new()
            .prefix("mneme-edit-")
            .suffix(".md")
            .tempfile()
            .map_err(CliError::editor)?;
        file.write_all(text.as_bytes())
            .and_then(|()| file.flush())
            .map_err(CliError::editor)?;
        let status = command(editor).arg(file.path()).status().map_err(|e| {
            CliError::editor(std::io::Error::new(e.kind(), format!("{editor}: {e}")))
        })?;
        if !status.success() {
            return Err(CliError::editor(std::io::Error::other(format!(
                "{editor} exited with {status}; the proposal is as it was"
            ))));
        }
        let edited = mneme::store::file::read_local_text(file.path()).map_err(CliError::editor)?;
        let edited = edited.trim_end_matches(['\n', '\r']);
        Ok((edited != text.trim_end_matches(['\n', '\r'])).then(|| edited.to_owned()))
    }
}

/// `editor` with the file to come as its last argument: through the shell as git runs it
/// (`sh -c '<editor> "$@"'`), so that quoting and arguments (`code --wait`) work.
#[cfg(unix)]
fn command(editor: &str) -> Command {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!("{editor} \"$@\"")).arg(editor);
    cmd
}

#[cfg(not(unix))]
fn command(editor: &str) -> Command {
    let mut words = editor.split_whitespace();
    let mut cmd = Command::new(words.next().unwrap_or("notepad"));
    cmd.args(words);
    cmd
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choose(vars: &[(&str, &str)], core: Option<&str>) -> String {
        let env = |k: &str| {
            vars.iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| (*v).to_owned())
        };
        Editor::choose(env, core.map(str::to_owned)).0
    }

    #[test]
    fn the_editor_is_chosen_in_gits_order() {
        let all = [("GIT_EDITOR", "g"), ("VISUAL", "v"), ("EDITOR", "e")];
        assert_eq!(choose(&all, Some("c")), "g");
        assert_eq!(choose(&all[1..], Some("c")), "c");
        assert_eq!(choose(&all[1..], None), "v");
        assert_eq!(choose(&all[2..], None), "e");
        assert_eq!(
            choose(&[], None),
            if cfg!(windows) { "notepad" } else { "vi" }
        );
    }

    #[test]
    fn an_empty_variable_is_unset_and_a_dumb_terminal_skips_visual() {
        assert_eq!(choose(&[("VISUAL", ""), ("EDITOR", "nano")], None), "nano");
        assert_eq!(
            choose(&[("GIT_EDITOR", " ")], Some("")),
            if cfg!(windows) { "notepad" } else { "vi" }
        );
        let dumb = [("TERM", "dumb"), ("VISUAL", "v"), ("EDITOR", "e")];
        assert_eq!(choose(&dumb, None), "e");
    }
}

//! Writing the repository's own git configuration (not the global one).

use gix::bstr::ByteSlice;

/// What git runs to merge a fact or task file, or a compiled rule file (`merge.mneme.driver`):
/// the labels `%S` and `%Y` name the commits of the base and their side.
pub const DRIVER_COMMAND: &str = "mneme merge-file %O %A %B %P %S %Y";

/// The git config keys `mneme init` sets so that git merges fact files by fact id and task
/// files by field.
pub const MERGE_DRIVER: [(&str, &str, &str, &str); 2] = [
    (
        "merge",
        "mneme",
        "name",
        "mneme: merge fact files by fact id, task files by field",
    ),
    ("merge", "mneme", "driver", DRIVER_COMMAND),
];

/// Whether git's configuration (any level) defines mneme's merge driver.
pub fn merge_driver_configured(repo: &Repo) -> bool {
    merge_driver(repo).is_some()
}

/// The command git runs to merge fact files (`merge.mneme.driver`), if any.
pub fn merge_driver(repo: &Repo) -> Option<String> {
    repo.gix()
        .config_snapshot()
        .string("merge.mneme.driver")
        .map(|v| v.to_string())
}

/// The editor git's configuration names (`core.editor`), if any.
pub fn core_editor(repo: &Repo) -> Option<String> {
    repo.gix()
        .config_snapshot()
        .string("core.editor")
        .map(|v| v.to_string())
}

/// How mneme writes what agents add to the ledger (proposals, tasks): as git writes its loose
/// objects. git syncs those only when `core.fsync` names them (`loose-object`, or a set holding
/// it: `objects`, `committed`, `added`, `all`) or the older `core.fsyncObjectFiles` is true.
pub fn ledger_durability(repo: &gix::Repository) -> Durability {
    let config = repo.config_snapshot();
    let asked = config
        .string("core.fsync")
        .is_some_and(|v| fsync_names_loose_objects(&v.to_str_lossy()))
        || config.boolean("core.fsyncObjectFiles").unwrap_or(false);
    if asked {
        Durability::Synced
    } else {
        Durability::Atomic
    }
}

/// Whether a `core.fsync` value adds loose objects to what git syncs. git starts from a default
/// without them, adds every component named and removes those named with `-`, the added
/// winning; `none` only clears the default.
fn fsync_names_loose_objects(value: &str) -> bool {
    value.split([',', ' ', '\t', '\n', '\r']).any(|token| {
        matches!(
            token,
            "loose-object" | "objects" | "committed" | "added" | "all"
        )
    })
}

/// How this clone signs commits: what `commit.gpgSign`, `gpg.format`, `user.signingKey` and
/// `user.email` say.
#[derive(Debug, Clone, Default)]
pub struct SigningSetup {
    pub sign: bool,
    pub format: Option<String>,
    pub key: Option<String>,
    pub email: Option<String>,
}

pub fn signing_setup(repo: &Repo) -> SigningSetup {
    let config = repo.gix().config_snapshot();
    let string = |key: &str| config.string(key).map(|v| v.to_str_lossy().into_owned());
    SigningSetup {
        sign: config.boolean("commit.gpgSign").unwrap_or(false),
        format: string("gpg.format"),
        key: string("user.signingKey"),
        email: string("user.email"),
    }
}

use crate::git::{Error, Repo, Result};
use crate::store::{self, Durability};

/// Sets `section.subsection.key = value` for each entry in the repository's own config file
/// (not global), under git's `config.lock`. Returns whether anything changed.
pub fn set_local_config(repo: &Repo, entries: &[(&str, &str, &str, &str)]) -> Result<bool> {
    let path = repo.gix().common_dir().join("config");
    let mut config =
        gix::config::File::from_path_no_includes(path.clone(), gix::config::Source::Local)?;
    let mut changed = false;
    for (section, subsection, key, value) in entries {
        let current = config
            .raw_value(format!("{section}.{subsection}.{key}").as_str())
            .ok();
        if current.as_deref().map(|v| v.as_bytes()) != Some(value.as_bytes()) {
            config.set_raw_value_by(
                *section,
                Some(subsection.as_bytes().as_bstr()),
                *key,
                *value,
            )?;
            changed = true;
        }
    }
    if changed {
        let mut lock = gix::lock::File::acquire_to_update_resource(
            &path,
            gix::lock::acquire::Fail::Immediately,
            None,
            0,
        )
        .map_err(|_| Error::Locked {
            path: path.with_extension("lock"),
        })?;
        config
            .write_to(&mut lock)
            .map_err(store::Error::io(&path))?;
        lock.commit()
            .map_err(|e| store::Error::io(&path)(e.error))?;
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use super::fsync_names_loose_objects;

    #[test]
    fn core_fsync_syncs_loose_objects_only_when_a_component_holding_them_is_added() {
        for value in [
            "loose-object",
            "objects",
            "committed",
            "added",
            "all",
            "none,committed",
            "index, loose-object",
            "-all,loose-object",
            "loose-object,-loose-object",
        ] {
            assert!(fsync_names_loose_objects(value), "{value}");
        }
        for value in [
            "",
            "none",
            "pack",
            "pack-metadata,commit-graph",
            "derived-metadata",
            "index,reference",
            "-loose-object",
            "Loose-Object",
            "loose-objects",
        ] {
            assert!(!fsync_names_loose_objects(value), "{value}");
        }
    }
}

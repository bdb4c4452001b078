//! Checks skipped for want of a tool. Outside CI a test whose tool is missing skips what it
//! cannot check and records it here; `cargo test` then ends with one line naming every skip
//! (tests/skipped.rs). In CI a missing tool fails the test instead.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::PathBuf;

/// Where this `cargo test` run's skips are recorded: every test binary of one run is a child
/// of the same cargo process.
pub fn records() -> PathBuf {
    #[cfg(unix)]
    let run = std::os::unix::process::parent_id();
    #[cfg(not(unix))]
    let run = 0;
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("skipped")
        .join(run.to_string())
}

/// `tool` is missing, so `unchecked` was not checked: fails in CI, else records the skip.
pub fn skip(tool: &str, unchecked: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI needs {tool}: {unchecked} must be checked"
    );
    let line = format!("{tool}\t{unchecked}");
    let mut hash = DefaultHasher::new();
    line.hash(&mut hash);
    let dir = records();
    // A record that cannot be written costs only the closing line's mention.
    let _ = std::fs::create_dir_all(&dir);
    let _ = std::fs::write(dir.join(format!("{:016x}", hash.finish())), line);
}

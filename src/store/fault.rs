//! Crash-testing aid, compiled into test builds only (feature `fault-injection`): with
//! `MNEME_FAULT=<step>`, the process aborts right after that step, as a `kill -9` would, panics
//! there, or fails it as a full disk would, so tests can check that every interrupted state is
//! recoverable, that a bug is reported as one, and that a failed write undoes what went before.

/// Aborts the process after `step` when `MNEME_FAULT` names it.
#[cfg(feature = "fault-injection")]
pub fn abort_after(step: &str) {
    if injected(step) {
        std::process::abort();
    }
}

/// Panics at `step` when `MNEME_FAULT` names it.
#[cfg(feature = "fault-injection")]
pub fn panic_at(step: &str) {
    if injected(step) {
        panic!("injected fault at {step}");
    }
}

/// Fails `step` as a full disk would when `MNEME_FAULT` names it.
#[cfg(feature = "fault-injection")]
pub fn fail_at(step: &str) -> std::io::Result<()> {
    if injected(step) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            format!("injected fault at {step}"),
        ));
    }
    Ok(())
}

#[cfg(feature = "fault-injection")]
fn injected(step: &str) -> bool {
    std::env::var_os("MNEME_FAULT").is_some_and(|v| v == step)
}

#[cfg(not(feature = "fault-injection"))]
pub fn abort_after(_step: &str) {}

#[cfg(not(feature = "fault-injection"))]
pub fn panic_at(_step: &str) {}

#[cfg(not(feature = "fault-injection"))]
pub fn fail_at(_step: &str) -> std::io::Result<()> {
    Ok(())
}

//! Whether the agent runtimes set up in this repository will run mneme's hooks on this machine:
//! the `mneme` their hooks find, the trust each runtime records in its own files, and whether
//! its version is one the real-runtime suite ran. Part of `mneme doctor`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::model::agents::runtimes::{hooks, Runtime, PROJECT_MNEME};
use crate::model::agents::trust::{
    codex_trust, copilot_folder_trusted, gemini_folder_trusted, in_tested_range,
    qwen_folder_trusted, tested,
};
use crate::model::base::paths;
use crate::ops::setup::UserDirs;
use crate::ops::{Result, Workspace};
use crate::store::file::find_program;
use crate::store::read_optional_text;

/// One finding of `mneme doctor`, with the command that fixes it.
#[derive(Debug, serde::Serialize)]
pub struct Problem {
    pub what: String,
    pub fix: String,
}

/// What `doctor` found about the runtimes: problems keep hooks from running; warnings do not
/// (a runtime version the suite did not run); notes are for information.
#[derive(Debug, Default)]
pub struct Findings {
    pub problems: Vec<Problem>,
    pub warnings: Vec<Problem>,
    pub notes: Vec<String>,
}

impl Findings {
    fn problem(&mut self, what: String, fix: String) {
        self.problems.push(Problem { what, fix });
    }
}

/// Checks the `runtimes` set up in this repository (whose hooks or plugin it holds). `dirs`
/// are the user's directories, where runtimes record trust (none without a HOME).
pub fn check(ws: &Workspace, runtimes: &[Runtime], dirs: Option<&UserDirs>) -> Result<Findings> {
    let mut found = Findings::default();
    if runtimes.is_empty() {
        return Ok(found);
    }
    // Runtimes key their trust by the real path.
    let root = std::fs::canonicalize(ws.store.root()).unwrap_or_else(|_| ws.store.root().into());
    check_mneme(&root, &mut found);
    for &runtime in runtimes {
        check_version(runtime, &mut found);
        let Some(dirs) = dirs else { continue };
        match runtime {
            Runtime::Codex => check_codex(&root, dirs, &mut found)?,
            Runtime::Gemini => check_gemini(&root, dirs, &mut found)?,
            Runtime::Qwen => check_qwen(&root, dirs, &mut found)?,
            Runtime::Copilot => check_copilot(&root, dirs, &mut found)?,
            _ => {}
        }
    }
    Ok(found)
}

/// The `mneme` the hooks run, found as they find it (the first on the PATH, else the project's
/// `node_modules/.bin/mneme`), and its version: an older one than this answers them.
fn check_mneme(root: &Path, found: &mut Findings) {
    let in_project = root.join(PROJECT_MNEME);
    let Some(hooks_run) =
        find_program("mneme").or_else(|| in_project.is_file().then_some(in_project))
    else {
        return; // doctor reports a missing `mneme` on its own
    };
    let this = std::env::current_exe().and_then(std::fs::canonicalize).ok();
    let ours = env!("CARGO_PKG_VERSION");
    let version = if this.is_some_and(|this| Some(this) == std::fs::canonicalize(&hooks_run).ok()) {
        Some(format!("mneme {ours}, this one"))
    } else {
        program_version(&hooks_run, None)
    };
    let runs = format!(
        "the hooks run {} ({})",
        hooks_run.display(),
        version.as_deref().unwrap_or("its version unknown")
    );
    if !version.as_deref().is_some_and(|v| v.contains(ours)) {
        found.problem(
            format!("{runs}, not this mneme ({ours})"),
            format!("install mneme {ours} there, or put this one first on the PATH"),
        );
    }
    found.notes.push(runs);
}

/// A runtime version the suite did not run is a warning: its hooks may behave differently.
fn check_version(runtime: Runtime, found: &mut Findings) {
    let Some((package, version)) = tested(runtime) else {
        return;
    };
    let name = runtime.as_str();
    let Some(program) = find_program(name) else {
        found.notes.push(format!(
            "{name} is set up here but not on this PATH, so its version was not checked"
        ));
        return;
    };
    match program_version(&program, Some(package)) {
        Some(v) if in_tested_range(version, &v) => {}
        v => found.warnings.push(Problem {
            what: format!(
                "{name} {} is not a version mneme's hooks were tested with ({version}; docs/agents.md has the table)",
                v.as_deref().unwrap_or("of unknown version")
            ),
            fix: format!("npm install -g {package}@{version}, or check that the facts reach the agent"),
        }),
    }
}

fn check_codex(root: &Path, dirs: &UserDirs, found: &mut Findings) -> Result<()> {
    let file = dirs.path(paths::CODEX_CONFIG);
    let label = file.display().to_string();
    let config = read_optional_text(&file, &label)?.unwrap_or_default();
    let events: Vec<&str> = hooks(Runtime::Codex).iter().map(|h| h.event).collect();
    let trust = codex_trust(
        &config,
        root,
        &root.join(".codex").join("hooks.json"),
        &events,
    );
    if !trust.project {
        found.problem(
            format!("Codex does not trust this project, so it ignores its .codex/ files and mneme's hook ({label})"),
            format!(
                "trust the project when `codex` asks, or add [projects.\"{}\"] trust_level = \"trusted\" to {label}",
                root.display()
            ),
        );
    }
    if !trust.untrusted.is_empty() {
        let names = trust.untrusted.join(" and ");
        found.problem(
            format!("Codex has not trusted mneme's {names} hook(s), and skips them without a word"),
            format!(
                "start `codex` in this repository, run `/hooks` and trust mneme's {names} hook(s)"
            ),
        );
    }
    Ok(())
}

fn check_gemini(root: &Path, dirs: &UserDirs, found: &mut Findings) -> Result<()> {
    let read = |rel: &str| {
        let file = dirs.path(rel);
        read_optional_text(&file, &file.display().to_string())
    };
    let settings = read(".gemini/settings.json")?;
    let folders_file = std::env::var_os("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
        .map(PathBuf::from)
        .unwrap_or_else(|| dirs.path(".gemini/trustedFolders.json"));
    let label = folders_file.display().to_string();
    let folders = read_optional_text(&folders_file, &label)?;
    if gemini_folder_trusted(settings.as_deref(), folders.as_deref(), root) != Some(true) {
        found.problem(
            "Gemini CLI does not trust this folder, so it runs none of its hooks".into(),
            format!(
                "trust the folder when `gemini` asks, or add \"{}\": \"TRUST_FOLDER\" to {label}; headless runs: --skip-trust",
                root.display()
            ),
        );
    }
    Ok(())
}

fn check_qwen(root: &Path, dirs: &UserDirs, found: &mut Findings) -> Result<()> {
    let read = |file: PathBuf| {
        let label = file.display().to_string();
        read_optional_text(&file, &label)
    };
    let settings = read(dirs.path(".qwen/settings.json"))?;
    let folders_file = dirs.path(".qwen/trustedFolders.json");
    let folders = read(folders_file.clone())?;
    if qwen_folder_trusted(settings.as_deref(), folders.as_deref(), root) != Some(true) {
        found.problem(
            "Qwen Code has folder trust on and does not trust this folder, so it runs none of its hooks".into(),
            format!(
                "trust the folder when `qwen` asks, or add \"{}\": \"TRUST_FOLDER\" to {}",
                root.display(),
                folders_file.display()
            ),
        );
    }
    Ok(())
}

fn check_copilot(root: &Path, dirs: &UserDirs, found: &mut Findings) -> Result<()> {
    let file = dirs.path(".copilot/config.json");
    let config = read_optional_text(&file, &file.display().to_string())?;
    if !copilot_folder_trusted(config.as_deref(), root) {
        found.problem(
            "Copilot CLI does not trust this folder, so it runs none of the repository's hooks".into(),
            format!(
                "trust the folder when `copilot` asks (headless: `copilot -p … --trust-folder`), or add \"{}\" to \"trustedFolders\" in {}",
                root.display(),
                file.display()
            ),
        );
    }
    Ok(())
}

/// The version of the program at `path`: from the package.json of the npm `package` it belongs
/// to (no process to start), or else what `--version` prints within a few seconds.
fn program_version(path: &Path, package: Option<&str>) -> Option<String> {
    if let Some(package) = package {
        let real = std::fs::canonicalize(path).ok()?;
        for dir in real.ancestors().skip(1).take(6) {
            let Ok(text) = crate::store::file::read_local_text(&dir.join("package.json")) else {
                continue;
            };
            let Ok(json) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue;
            };
            if json["name"] == package {
                return json["version"].as_str().map(str::to_owned);
            }
        }
    }
    let mut child = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(5);
    while child.try_wait().ok()?.is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    Some(text.lines().next()?.trim().to_owned()).filter(|v| !v.is_empty())
}

//! Installing mneme: what a build says about itself, the release archives, the installer and
//! the npm packages, all tested locally without network.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use assert_cmd::cargo::cargo_bin;

use crate::common::{succeeded, Repo};

#[test]
fn version_names_the_commit_and_the_target() {
    let repo = Repo::bare_init();
    let out = repo.mneme(&["--version"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    let rest = text
        .trim()
        .strip_prefix(&format!("mneme {version} ("))
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("{text}"));
    let (commit, target) = rest.split_once(' ').unwrap();
    // Built from this checkout: its commit (or `unknown` from a source archive).
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_owned());
    match head {
        Some(head) => assert_eq!(commit, head),
        None => assert_eq!(commit, "unknown"),
    }
    assert!(target.starts_with(std::env::consts::ARCH), "{target}");
}

/// The build script names only files that exist: cargo takes a missing one as changed and
/// reruns the build script, and recompiles mneme, on every `cargo` command (a clone without
/// `.git/packed-refs`, or whose branch is packed, rebuilt for two minutes each time).
#[test]
fn the_build_script_watches_only_files_that_exist() {
    // This test binary is in <target>/<profile>/deps; the build scripts' outputs beside it.
    let exe = std::env::current_exe().unwrap();
    let build = exe.parent().unwrap().parent().unwrap().join("build");
    let newest = std::fs::read_dir(&build)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("mneme-ledger-"))
        .map(|e| e.path().join("output"))
        .filter(|p| p.exists())
        .max_by_key(|p| p.metadata().and_then(|m| m.modified()).ok())
        .expect("the build script ran");
    let output = std::fs::read_to_string(&newest).unwrap();
    let watched: Vec<&str> = output
        .lines()
        .filter_map(|l| l.strip_prefix("cargo:rerun-if-changed="))
        .collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    if root.join(".git").exists() {
        assert!(!watched.is_empty(), "{output}");
    }
    for path in watched {
        assert!(
            root.join(path).exists(),
            "{path} is watched but missing:\n{output}"
        );
    }
}

/// Serves the files under `root` over HTTP on 127.0.0.1 (GET only) until the test ends; the
/// base URL.
fn serve(root: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            // The headers, up to the blank line.
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                line.clear();
            }
            let path = request
                .split(' ')
                .nth(1)
                .unwrap_or("/")
                .trim_start_matches('/');
            let file = root.join(path);
            let response = match std::fs::read(&file) {
                Ok(body) if !path.contains("..") => {
                    let mut r = format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    )
                    .into_bytes();
                    r.extend(body);
                    r
                }
                _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_vec(),
            };
            let _ = stream.write_all(&response);
        }
    });
    url
}

const TARGET: &str = "x86_64-unknown-linux-gnu";

/// `scripts/package` of the binary under test as VERSION for [`TARGET`], into `out`.
fn package(version: &str, out: &Path) -> PathBuf {
    package_as(TARGET, version, out)
}

/// `scripts/package` of the binary under test as VERSION for `target`, into `out`.
fn package_as(target: &str, version: &str, out: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new(root.join("scripts/package"))
        .args([target, cargo_bin("mneme").to_str().unwrap(), version])
        .arg(out)
        .env("SOURCE_DATE_EPOCH", "1764000000")
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    out.join(format!("mneme-{version}-{target}.tar.gz"))
}

/// Whether curl or wget is here for the installer; in CI one must be.
fn downloader() -> bool {
    let found = ["curl", "wget"]
        .iter()
        .any(|p| Command::new(p).arg("--version").output().is_ok());
    if !found {
        crate::skips::skip("curl", "the installer script");
    }
    found
}

/// The installer a release publishes, version and address filled in.
fn filled_installer(version: &str, url: &str) -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    succeeded(
        Command::new(root.join("scripts/installer"))
            .args([version, url])
            .output()
            .unwrap(),
    )
    .stdout
}

#[test]
fn release_archives_are_reproducible_and_carry_their_checksum() {
    let scratch = tempfile::tempdir().unwrap();
    let first = std::fs::read(package("1.2.3", &scratch.path().join("a"))).unwrap();
    let again = std::fs::read(package("1.2.3", &scratch.path().join("b"))).unwrap();
    assert_eq!(first, again, "the same inputs give the same archive");
    let sums = std::fs::read_to_string(
        scratch
            .path()
            .join(format!("a/mneme-1.2.3-{TARGET}.tar.gz.sha256")),
    )
    .unwrap();
    assert!(
        sums.ends_with(&format!("  mneme-1.2.3-{TARGET}.tar.gz\n")),
        "{sums}"
    );
    let list = Command::new("tar")
        .arg("-tzf")
        .arg(
            scratch
                .path()
                .join(format!("a/mneme-1.2.3-{TARGET}.tar.gz")),
        )
        .output()
        .unwrap();
    let names = String::from_utf8(list.stdout).unwrap();
    for file in ["mneme", "README.md", "LICENSE-MIT", "LICENSE-APACHE"] {
        assert!(
            names.contains(&format!("mneme-1.2.3-{TARGET}/{file}\n")),
            "{names}"
        );
    }
}

/// A directory of links to every program on the PATH but `left_out`, to run a script as on a
/// machine without it.
#[cfg(unix)]
fn path_without(left_out: &str, dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    for entry in std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flatten()
        .flatten()
    {
        let name = entry.file_name();
        if name != left_out {
            // The first on the PATH wins, as for the shell.
            let _ = std::os::unix::fs::symlink(entry.path(), dir.join(name));
        }
    }
    dir.to_owned()
}

/// The Windows archive, packed with zip and, as on Windows runners, with 7-Zip where there is no
/// zip: the same layout either way, and the same bytes from the same inputs.
#[cfg(unix)]
#[test]
fn windows_archives_are_packed_with_zip_or_7zip_reproducibly() {
    let scratch = tempfile::tempdir().unwrap();
    let no_zip = path_without("zip", &scratch.path().join("no-zip"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target = "x86_64-pc-windows-msvc";
    let name = format!("mneme-1.2.3-{target}");
    // Never run, only packed: a megabyte stands in for the binary, which a debug build makes a
    // hundred times larger, for zip and 7-Zip to compress four times.
    let binary = scratch.path().join("mneme.exe");
    let bytes: Vec<u8> = (0..1u32 << 20).map(|i| (i * 31 % 251) as u8).collect();
    std::fs::write(&binary, bytes).unwrap();
    let pack = |out: &str, path: Option<&Path>| {
        let dir = scratch.path().join(out);
        let mut cmd = Command::new(root.join("scripts/package"));
        cmd.args([target, binary.to_str().unwrap(), "1.2.3"])
            .arg(&dir)
            .env("SOURCE_DATE_EPOCH", "1764000000");
        if let Some(path) = path {
            cmd.env("PATH", path);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        dir.join(format!("{name}.zip"))
    };
    for (packer, path) in [("zip", None), ("7z", Some(no_zip.as_path()))] {
        if crate::ci::tool(packer, &["-h"], "Windows packaging").is_none() {
            continue;
        }
        let first = pack(&format!("{packer}-a"), path);
        // Later than zip's two-second time steps: file times must not leak into the archive.
        std::thread::sleep(std::time::Duration::from_millis(2100));
        let again = pack(&format!("{packer}-b"), path);
        assert_eq!(
            std::fs::read(&first).unwrap(),
            std::fs::read(&again).unwrap(),
            "{packer}: the same inputs give the same archive"
        );
        let Some(list) =
            crate::ci::tool("unzip", &["-Z1", first.to_str().unwrap()], "zip contents")
        else {
            continue;
        };
        let names = String::from_utf8(list.stdout).unwrap();
        for file in ["mneme.exe", "README.md", "LICENSE-MIT", "LICENSE-APACHE"] {
            assert!(
                names.contains(&format!("{name}/{file}\n")),
                "{packer}: {names}"
            );
        }
        let sums = std::fs::read_to_string(first.with_extension("zip.sha256")).unwrap();
        assert!(sums.ends_with(&format!("  {name}.zip\n")), "{sums}");
    }
}

#[test]
fn the_installer_checks_the_archive_and_refuses_a_mismatch_leaving_nothing() {
    if !downloader() {
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let releases = scratch.path().join("releases");
    let archive = package("1.2.3", &releases.join("v1.2.3"));
    let url = serve(releases.clone());
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let installer = scratch.path().join("install.sh");
    std::fs::write(&installer, filled_installer("1.2.3", &url)).unwrap();
    let tmp = scratch.path().join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let install = |dir: &Path| {
        Command::new("sh")
            .arg(&installer)
            .env("MNEME_INSTALL_DIR", dir)
            .env("MNEME_TARGET", TARGET)
            .env("TMPDIR", &tmp)
            .env("HOME", scratch.path())
            .output()
            .unwrap()
    };
    let bin = scratch.path().join("bin");
    let out = succeeded(install(&bin));
    let said = String::from_utf8_lossy(&out.stdout);
    // The archive holds the binary under test, whatever version it calls itself.
    assert!(said.contains("installed mneme "), "{said}");
    let version = Command::new(bin.join("mneme"))
        .arg("--version")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("mneme "));
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "temporary files left"
    );

    // A checksum that does not match: refused, nothing installed, nothing left behind.
    spoil_checksum(&archive);
    let other = scratch.path().join("other-bin");
    let out = install(&other);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("checksum mismatch") && said.contains("nothing was installed"),
        "{said}"
    );
    assert!(!other.join("mneme").exists());
    assert_eq!(
        std::fs::read_dir(&tmp).unwrap().count(),
        0,
        "temporary files left"
    );
    if other.exists() {
        assert_eq!(std::fs::read_dir(&other).unwrap().count(), 0);
    }
    // The repository's own copy has no release in it and says so.
    let out = Command::new("sh")
        .arg(root.join("scripts/install.sh"))
        .env_remove("MNEME_VERSION")
        .env_remove("MNEME_DOWNLOAD_URL")
        .env("MNEME_INSTALL_DIR", &other)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no release filled in"));
}

/// Writes a checksum that does not match `archive` beside it.
fn spoil_checksum(archive: &Path) {
    let name = archive.file_name().unwrap().to_str().unwrap();
    std::fs::write(
        archive.with_extension("gz.sha256"),
        format!("{}  {name}\n", "0".repeat(64)),
    )
    .unwrap();
}

/// The install step of the workflow `mneme init --ci github` writes, run as GitHub runs it
/// against a release served on 127.0.0.1: the release's install.sh checks the archive and puts
/// mneme on the job's PATH; with a wrong checksum the step fails and adds nothing.
#[cfg(target_os = "linux")]
#[test]
fn the_generated_workflow_installs_the_release_archive_checking_it() {
    if !downloader() {
        return;
    }
    let (_, _, parsed) = crate::ci::workflow();
    let step = crate::ci::step(&parsed, "Install mneme");
    let script = step["run"].as_str().unwrap();
    let version = step["env"]["MNEME_VERSION"].as_str().unwrap();
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    assert_eq!(step["env"]["MNEME_INSTALL_DIR"], "${{ runner.temp }}/mneme");

    let scratch = tempfile::tempdir().unwrap();
    let releases = scratch.path().join("releases");
    let tag = releases.join(format!("v{version}"));
    // What the runner's uname gives: a static musl build, as the installer picks on Linux.
    let target = format!("{}-unknown-linux-musl", std::env::consts::ARCH);
    let archive = package_as(&target, version, &tag);
    let url = serve(releases.clone());
    std::fs::write(tag.join("install.sh"), filled_installer(version, &url)).unwrap();

    let run = |runner: &Path| {
        std::fs::create_dir_all(runner).unwrap();
        let github_path = runner.join("github_path");
        let out = Command::new("bash")
            .args(["-e", "-c", script])
            .env("MNEME_VERSION", version)
            // As a mirror would be: the published address is not reachable from a test.
            .env("MNEME_DOWNLOAD_URL", &url)
            .env("MNEME_INSTALL_DIR", runner.join("mneme"))
            .env("RUNNER_TEMP", runner)
            .env("GITHUB_PATH", &github_path)
            .env("HOME", scratch.path())
            .env("TMPDIR", runner)
            .env_remove("MNEME_TARGET")
            .output()
            .unwrap();
        (
            out,
            std::fs::read_to_string(github_path).unwrap_or_default(),
        )
    };
    let runner = scratch.path().join("runner");
    let (out, path) = run(&runner);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(path, format!("{}\n", runner.join("mneme").display()));
    let installed = Command::new(runner.join("mneme/mneme"))
        .arg("--version")
        .output()
        .unwrap();
    let said = String::from_utf8(installed.stdout).unwrap();
    assert!(said.starts_with(&format!("mneme {version} (")), "{said}");

    spoil_checksum(&archive);
    let runner = scratch.path().join("spoiled");
    let (out, path) = run(&runner);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("checksum mismatch"),
        "{out:?}"
    );
    assert_eq!(path, "", "nothing is added to the job's PATH");
    assert!(!runner.join("mneme/mneme").exists());
}

#[test]
fn the_npm_packages_install_offline_and_run_mneme() {
    if Command::new("npm").arg("--version").output().is_err() {
        crate::skips::skip("npm", "the npm packages");
        return;
    }
    let scratch = tempfile::tempdir().unwrap();
    let out = scratch.path().join("npm");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    succeeded(
        Command::new(root.join("scripts/npm"))
            .args(["1.2.3", out.to_str().unwrap()])
            .arg(format!("{TARGET}={}", cargo_bin("mneme").display()))
            .output()
            .unwrap(),
    );
    let main = out.join("mneme-ledger-1.2.3.tgz");
    let native = out.join("mneme-ledger-linux-x64-1.2.3.tgz");
    assert!(main.exists() && native.exists());
    // Installed from the tarballs alone: no registry, an empty cache, no postinstall script.
    let prefix = scratch.path().join("prefix");
    let npm = |program: &str, args: &[&str], dir: &Path| {
        succeeded(
            Command::new(program)
                .args(args)
                .current_dir(dir)
                .env("npm_config_cache", scratch.path().join("cache"))
                .env("npm_config_ignore_scripts", "true")
                .env("npm_config_update_notifier", "false")
                .output()
                .unwrap(),
        )
    };
    npm(
        "npm",
        &[
            "install",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--prefix",
            prefix.to_str().unwrap(),
            native.to_str().unwrap(),
            main.to_str().unwrap(),
        ],
        scratch.path(),
    );
    // npm's provenance check refuses a package whose repository is not the one publishing it:
    // the one Cargo.toml names, which the release build checks.
    let repository = env!("CARGO_PKG_REPOSITORY");
    for package in ["mneme-ledger", "mneme-ledger-linux-x64"] {
        let manifest: serde_json::Value = serde_json::from_slice(
            &std::fs::read(
                prefix
                    .join("node_modules")
                    .join(package)
                    .join("package.json"),
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(
            manifest["repository"]["url"],
            format!("git+{repository}.git"),
            "{package}"
        );
    }
    let npx = npm(
        "npx",
        &["--offline", "--no-install", "mneme-ledger", "--version"],
        &prefix,
    );
    assert!(String::from_utf8_lossy(&npx.stdout).starts_with("mneme "));

    // `mneme init` and a Claude Code hook from that install, with mneme on the hook's PATH
    // through node_modules/.bin.
    let repo = Repo::bare_init();
    let bin_dir = prefix.join("node_modules/.bin");
    let mneme = bin_dir.join("mneme");
    let run = |args: &[&str]| {
        Command::new(&mneme)
            .args(args)
            .current_dir(repo.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap()
    };
    assert!(run(&["init"]).status.success());
    repo.seed_facts(
        "architecture",
        &[("f-abcd", "Hooks run the npm-installed mneme.")],
    );
    assert!(run(&["setup", "claude"]).status.success());
    let settings: serde_json::Value =
        serde_json::from_str(&repo.read(".claude/settings.json")).unwrap();
    let command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap());
    let hook = Command::new("sh")
        .args(["-c", command])
        .current_dir(repo.path())
        .env("PATH", path)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(hook.status.success());
    let said = String::from_utf8_lossy(&hook.stdout);
    assert!(
        said.contains("Hooks run the npm-installed mneme."),
        "{said}"
    );
}

#[test]
fn the_homebrew_formula_is_filled_from_the_release_checksums() {
    let scratch = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fake = scratch.path().join("mneme");
    std::fs::write(&fake, "#!/bin/sh\necho mneme 1.2.3\n").unwrap();
    let dist = scratch.path().join("dist");
    let formula = |dist: &Path| {
        Command::new(root.join("scripts/homebrew"))
            .args([
                "1.2.3",
                "https://example.com/o/mneme/releases/download/",
                "https://example.com/o/mneme",
            ])
            .arg(dist)
            .output()
            .unwrap()
    };
    let targets = [
        "aarch64-apple-darwin",
        "x86_64-apple-darwin",
        "aarch64-unknown-linux-musl",
        "x86_64-unknown-linux-musl",
    ];
    for (i, target) in targets.iter().enumerate() {
        // One checksum missing: refused.
        let refused = formula(&dist);
        assert!(!refused.status.success(), "after {i} archives");
        let status = Command::new(root.join("scripts/package"))
            .args([
                target,
                fake.to_str().unwrap(),
                "1.2.3",
                dist.to_str().unwrap(),
            ])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
    }
    let out = succeeded(formula(&dist));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("__"), "{text}");
    for target in targets {
        let archive = format!("mneme-1.2.3-{target}.tar.gz");
        let sums = std::fs::read_to_string(dist.join(format!("{archive}.sha256"))).unwrap();
        let sum = sums.split(' ').next().unwrap();
        let url = format!("url \"https://example.com/o/mneme/releases/download/v1.2.3/{archive}\"\n      sha256 \"{sum}\"");
        assert!(text.contains(&url), "{target}: {text}");
    }
    if let Ok(out) = Command::new("ruby").arg("-c").arg("-e").arg(&text).output() {
        succeeded(out);
    }
}

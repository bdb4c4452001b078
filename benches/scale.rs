//! Scale: a long review queue, a long history and many agents at once. Whole-process runs of
//! the release binary on generated data; prints medians and peak memory. Not a test.
//!
//! `cargo bench --bench scale` runs every part; `cargo bench --bench scale -- queue history`
//! only those named (queue, agents, history, size). `review approve` in a 300,000-file
//! repository is `cargo bench --bench approve`.

// A benchmark reports its figures on stdout.
#![allow(clippy::print_stdout)]

mod common;

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{args, bench, git, git_text, mneme, mneme_with, release_binary, seed_ledger};

const RUNS: usize = 21;
const QUEUE: usize = 10_000;

fn main() {
    let wanted = common::wanted_parts();
    let bin = release_binary();
    if wanted("queue") {
        queue(&bin);
    }
    if wanted("agents") {
        agents(&bin);
    }
    if wanted("history") {
        history(&bin);
    }
    if wanted("size") {
        size(&bin);
    }
}

/// `propose`, `context` and `review list` with an empty queue and with 10,000 pending proposals.
fn queue(bin: &Path) {
    let dir = common::repo(bin);
    let root = dir.path();
    let lines = seed_ledger(root, 800);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "ledger"]);
    println!("\n== queue: {lines}-line ledger");
    let proposals = root.join(".ledger/proposals");
    let clear = || {
        for e in std::fs::read_dir(&proposals).expect("dir") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "json") {
                std::fs::remove_file(p).expect("rm");
            }
        }
    };
    let version = bench("mneme --version", RUNS, bin, root, || args(&["--version"]));
    let mut i = 0;
    let propose = |i: &mut usize| {
        *i += 1;
        args(&[
            "propose",
            "add",
            "--file",
            "pitfalls",
            &format!("Scale proposal {i} about subsystem {}.", *i * 7919),
            "--reason",
            "bench",
        ])
    };
    let empty = bench("propose (empty queue)", RUNS, bin, root, || {
        clear();
        propose(&mut i)
    });
    clear();
    let context_empty = bench("context (empty queue)", RUNS, bin, root, || {
        args(&["context"])
    });
    // The floor a proposal stands on: starting the binary, and one small file written beside
    // the queue as `propose` writes it (atomically; not synced, as git's default `core.fsync`
    // leaves loose objects).
    let write = atomic_write(&proposals);
    let floor = version + write;
    seed_proposals(bin, root, 130);
    let list_small = bench("review list (130 pending)", RUNS, bin, root, || {
        args(&["review", "list"])
    });
    seed_proposals(bin, root, 1_000);
    let thousand = bench("propose (1,000 pending)", RUNS, bin, root, || {
        propose(&mut i)
    });
    seed_proposals(bin, root, QUEUE);
    let full = bench("propose (10,000 pending)", RUNS, bin, root, || {
        propose(&mut i)
    });
    let context_full = bench("context (10,000 pending)", RUNS, bin, root, || {
        args(&["context"])
    });
    let list_full = bench("review list (10,000 pending)", 5, bin, root, || {
        args(&["review", "list"])
    });
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    let per_pending = |d: Duration, n: f64| (d.as_secs_f64() - empty.as_secs_f64()) * 1e6 / n;
    println!(
        "propose empty / floor (--version {:.2} ms + atomic write {:.2} ms): {:.2}",
        version.as_secs_f64() * 1e3,
        write.as_secs_f64() * 1e3,
        ratio(empty, floor)
    );
    println!(
        "propose 1k / empty: {:.2}; 10k / empty: {:.2}; cost per pending proposal: {:.2} µs at 1k, {:.2} µs at 10k",
        ratio(thousand, empty),
        ratio(full, empty),
        per_pending(thousand, 1_000.0),
        per_pending(full, QUEUE as f64)
    );
    println!(
        "context 10k / empty: {:.2}; list 10k / 130: {:.1}",
        ratio(context_full, context_empty),
        ratio(list_full, list_small)
    );
}

/// The median time to write a proposal-sized file into `dir` as mneme writes one: a temporary
/// file renamed into place.
fn atomic_write(dir: &Path) -> Duration {
    let times = (0..RUNS)
        .map(|n| {
            let start = Instant::now();
            let mut tmp = tempfile::Builder::new()
                .prefix(".bench-")
                .tempfile_in(dir)
                .expect("temp file");
            tmp.write_all(&[b'x'; 700]).expect("write");
            let path = dir.join(format!("floor-{n}.tmp"));
            tmp.persist(&path).expect("rename");
            let elapsed = start.elapsed();
            std::fs::remove_file(path).expect("rm");
            elapsed
        })
        .collect();
    common::report("an atomic 700-byte write", times)
}

/// Fills the queue up to `count` pending proposals: copies of one real proposal with their own
/// ids, texts and new fact ids.
fn seed_proposals(bin: &Path, root: &Path, count: usize) {
    let dir = root.join(".ledger/proposals");
    let existing = std::fs::read_dir(&dir)
        .expect("dir")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json"))
        })
        .count();
    let out = mneme(
        bin,
        root,
        &[
            "propose", "--json", "add", "-f", "pitfalls", "Template", "--reason", "seed",
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&out).expect("json");
    let template = v["proposal"].clone();
    std::fs::remove_file(root.join(v["path"].as_str().expect("path"))).expect("rm");
    for n in existing..count {
        let mut p = template.clone();
        let id = format!(
            "2026{:02}{:02}T{:06}Z-{n:08x}",
            1 + n % 12,
            1 + n % 28,
            n % 235959
        );
        p["id"] = id.clone().into();
        p["created_at"] = format!("2026-01-01T00:00:00.{n:06}Z").into();
        p["operations"][0]["fact_id"] = format!("f-q{n:05}").into();
        p["operations"][0]["text"] = format!(
            "Seeded proposal {n}: module {} must keep its cache warm under load {}.",
            n % 97,
            n % 89
        )
        .into();
        let mut text = serde_json::to_string_pretty(&p).expect("json");
        text.push('\n');
        std::fs::write(dir.join(format!("{id}.json")), text).expect("write");
    }
}

/// 64 processes, each proposing 50 times, at once: every proposal lands, none is lost.
fn agents(bin: &Path) {
    const AGENTS: usize = 64;
    const EACH: usize = 50;
    let dir = common::repo(bin);
    let root = dir.path();
    seed_ledger(root, 800);
    println!("\n== agents: {AGENTS} processes x {EACH} proposals");
    let start = Instant::now();
    let children: Vec<_> = (0..AGENTS)
        .map(|a| {
            let script = format!(
                "for i in $(seq 1 {EACH}); do \"$0\" propose add -f pitfalls \"Agent {a} proposal $i about part $((i * 31)).\" --reason r --agent a{a} >/dev/null || exit 1; done"
            );
            Command::new("sh")
                .current_dir(root)
                .arg("-c")
                .arg(script)
                .arg(bin)
                .spawn()
                .expect("sh")
        })
        .collect();
    for mut c in children {
        assert!(c.wait().expect("wait").success(), "a proposer failed");
    }
    let elapsed = start.elapsed();
    let out = mneme(bin, root, &["review", "list", "--json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out).expect("json");
    let valid = rows.iter().filter(|r| r["status"] != "invalid").count();
    println!(
        "{} proposals in {:.1} s ({} valid, {} expected)",
        rows.len(),
        elapsed.as_secs_f64(),
        valid,
        AGENTS * EACH
    );
    assert_eq!(valid, AGENTS * EACH, "lost or broken proposals");
}

/// 20,000 commits, 500 of them decisions: verify, diff, log and why against plain git.
fn history(bin: &Path) {
    const COMMITS: usize = 20_000;
    const DECISIONS: usize = 500;
    let dir = common::repo(bin);
    let root = dir.path();
    seed_ledger(root, 200);
    // The seeded facts were written by hand, as a ledger from before decision records was: with
    // records on, verify would (rightly) fail on every one of them.
    let config = root.join(".ledger/config.yaml");
    let text = std::fs::read_to_string(&config).expect("config");
    std::fs::write(
        &config,
        text.replace("decision_records: true", "decision_records: false"),
    )
    .expect("config");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "ledger"]);
    // The range starts after the hand-written facts.
    let base = git_text(root, &["rev-parse", "HEAD"]);
    let range = format!("{base}..HEAD");
    let start = Instant::now();
    let between = COMMITS / DECISIONS - 1;
    // A commit a minute, ending about now, decisions among them: commit times follow the
    // history as a real one's do (what `stale` relies on to stop early).
    let first = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs()
        - 60 * COMMITS as u64;
    let minute = |n: usize| first + 60 * n as u64;
    let mut mark = 0;
    let mut last_fact = String::new();
    for d in 0..DECISIONS {
        let head = git_text(root, &["rev-parse", "HEAD"]);
        let mut stream = String::new();
        for c in 0..between {
            mark += 1;
            let n = d * between + c;
            let body = format!("// file {} revision {n}\n", n % 100);
            stream.push_str(&format!(
                "commit refs/heads/main\nmark :{mark}\ncommitter Dev <dev@example.com> {} +0000\ndata <<EOT\nwork {n}\nEOT\n",
                minute(n + d)
            ));
            if c == 0 {
                stream.push_str(&format!("from {head}\n"));
            }
            stream.push_str(&format!(
                "M 100644 inline src/f{}.rs\ndata {}\n{body}\n",
                n % 100,
                body.len()
            ));
        }
        let mut child = Command::new("git")
            .current_dir(root)
            .args(["fast-import", "--quiet", "--force"])
            .stdin(Stdio::piped())
            .spawn()
            .expect("fast-import");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(stream.as_bytes())
            .expect("write");
        assert!(child.wait().expect("wait").success());
        let out = mneme(
            bin,
            root,
            &[
                "propose",
                "--json",
                "add",
                "-f",
                "architecture",
                &format!("Decision {d} keeps layer {} honest.", d * 13),
                "--reason",
                "history bench",
                // Each cites a file the next commits keep changing: `stale` follows them all.
                "--evidence",
                &format!("src/f{}.rs:1", d % 100),
            ],
        );
        let v: serde_json::Value = serde_json::from_slice(&out).expect("json");
        last_fact = v["proposal"]["operations"][0]["fact_id"]
            .as_str()
            .expect("id")
            .to_owned();
        let at = format!("{} +0000", minute((d + 1) * between + d));
        mneme_with(
            bin,
            root,
            &["review", "approve", v["id"].as_str().expect("id")],
            &[("GIT_COMMITTER_DATE", &at), ("GIT_AUTHOR_DATE", &at)],
        );
    }
    // fast-import left one pack per batch, its deltas chained forward (each version of a tree
    // on the one before), and no commit-graph: the worst layout for a walk from the head, since
    // gix keeps only the objects it was asked for, not the steps of a chain. Measured first.
    git(root, &["repack", "-adq"]);
    let count = git_text(root, &["rev-list", "--count", "HEAD"]);
    println!(
        "\n== history: {} commits, {DECISIONS} decisions (built in {:.0} s)",
        count,
        start.elapsed().as_secs_f64()
    );
    println!("-- as fast-import packed it (forward deltas, no commit-graph)");
    bench("verify (whole range)", 5, bin, root, || {
        args(&["verify", &range])
    });
    bench("diff (whole range)", 5, bin, root, || {
        args(&["diff", &range])
    });
    bench("stale (500 facts citing code)", 5, bin, root, || {
        args(&["stale"])
    });
    // What `git gc` leaves of a history committed as usual: loose objects deltified afresh
    // (newer versions as bases) and a commit-graph (gc.writeCommitGraph is on by default).
    git(root, &["repack", "-adfq"]);
    git(root, &["commit-graph", "write", "--reachable"]);
    println!("-- as git gc packs a history of ordinary commits");
    let verify = bench("verify (whole range)", 5, bin, root, || {
        args(&["verify", &range])
    });
    let diff = bench("diff (whole range)", 5, bin, root, || {
        args(&["diff", &range])
    });
    let git_bin = Path::new("git");
    let git_log = bench("git log -p -- .ledger", 5, git_bin, root, || {
        args(&["log", "-p", "--", ".ledger"])
    });
    let log = bench("log", 5, bin, root, || args(&["log"]));
    let stale = bench("stale (500 facts citing code)", 5, bin, root, || {
        args(&["stale"])
    });
    bench("check (with evidence drift)", 5, bin, root, || {
        args(&["check"])
    });
    let git_log_files = bench("git log -- src", 5, git_bin, root, || {
        args(&["log", "--format=%H", "--", "src"])
    });
    let why = bench("why <last fact>", 5, bin, root, || {
        args(&["why", &last_fact])
    });
    let grep = bench("git log --grep=Mneme-Decision", 5, git_bin, root, || {
        args(&["log", "--grep=Mneme-Decision"])
    });
    let ratio = |a: Duration, b: Duration| a.as_secs_f64() / b.as_secs_f64();
    println!(
        "verify / git log -p: {:.1}; diff / git log -p: {:.1}; log / git log --grep: {:.1}; why / git log --grep: {:.1}; stale / git log -- src: {:.1}",
        ratio(verify, git_log),
        ratio(diff, git_log),
        ratio(log, grep),
        ratio(why, grep),
        ratio(stale, git_log_files)
    );
}

/// The release binary's size, and whether it still has line tables for backtraces.
fn size(bin: &Path) {
    let bytes = std::fs::metadata(bin).expect("binary").len();
    let sections = Command::new("readelf")
        .args(["-S", "-W"])
        .arg(bin)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    println!(
        "\n== size: {:.1} MB ({} bytes); .debug_line {}",
        bytes as f64 / 1e6,
        bytes,
        if sections.contains(".debug_line") {
            "present"
        } else {
            "absent"
        }
    );
}

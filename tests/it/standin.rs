//! A forge API's stand-in (a node script of tests/it/harness), run for one test: it serves a
//! state file, read again on each request so a test can change it between steps, and records
//! each request with what was wrong with it.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};
use tempfile::TempDir;

pub struct StandIn {
    child: Child,
    port: u16,
    dir: TempDir,
}

impl StandIn {
    /// Starts `script` (`node script STATE LOG`, which prints its port) serving `state`.
    pub fn start(script: &Path, state: &Value) -> StandIn {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("state.json"), state.to_string()).unwrap();
        let mut child = Command::new("node")
            .arg(script)
            .arg(dir.path().join("state.json"))
            .arg(dir.path().join("requests.jsonl"))
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().unwrap_or_else(|_| panic!("{line:?}"));
        StandIn { child, port, dir }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The state as the stand-in left it.
    pub fn state(&self) -> Value {
        let text = std::fs::read_to_string(self.dir.path().join("state.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    pub fn set_state(&self, state: &Value) {
        std::fs::write(self.dir.path().join("state.json"), state.to_string()).unwrap();
    }

    /// The requests made since the last call, each checked: none may break the forge's API.
    pub fn requests(&self) -> Vec<Value> {
        let log = self.dir.path().join("requests.jsonl");
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        let requests: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for r in &requests {
            assert_eq!(r["problems"], json!([]), "{r}");
        }
        requests
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

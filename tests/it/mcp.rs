//! `mneme mcp` driven by a real MCP client (rmcp's, over a child process) in both protocol eras.

use rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{json, Value};

use crate::common::{path_with_mneme, Repo};

type Client = RunningService<RoleClient, ()>;

pub async fn connect(repo: &Repo, lifecycle: ClientLifecycleMode) -> Client {
    connect_with(repo, lifecycle, &[]).await
}

/// [`connect`] with more environment variables for the server.
pub async fn connect_with(
    repo: &Repo,
    lifecycle: ClientLifecycleMode,
    env: &[(&str, &str)],
) -> Client {
    let mut cmd = tokio::process::Command::new(assert_cmd::cargo::cargo_bin("mneme"));
    cmd.envs(env.iter().copied());
    cmd.arg("mcp")
        .current_dir(repo.path())
        .env("PATH", path_with_mneme())
        .env_remove("MNEME_AGENT")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    let transport = TokioChildProcess::new(cmd).expect("spawn mneme mcp");
    ().serve_with_lifecycle(transport, lifecycle)
        .await
        .expect("MCP session")
}

/// Calls `tool`; a result that is not an error is checked against the tool's output schema.
pub async fn call(client: &Client, tool: &'static str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    let result = client
        .call_tool(CallToolRequestParams::new(tool).with_arguments(args))
        .await
        .expect("tools/call answered");
    if result.is_error != Some(true) {
        let tools = client.list_all_tools().await.expect("tools/list");
        let schema = tools.iter().find(|t| t.name == tool).unwrap();
        let schema = schema.output_schema.as_ref().expect("output schema");
        let value = structured(&result);
        for key in schema["required"].as_array().unwrap() {
            let key = key.as_str().unwrap();
            let expected = schema["properties"][key]["type"].as_str().unwrap();
            let actual = match &value[key] {
                Value::String(_) => "string",
                Value::Array(_) => "array",
                Value::Object(_) => "object",
                Value::Bool(_) => "boolean",
                Value::Number(n) if n.is_u64() || n.is_i64() => "integer",
                other => panic!("{tool}: `{key}` is {other}"),
            };
            assert_eq!(actual, expected, "{tool}: `{key}`");
        }
    }
    result
}

/// The structured result, checked to be the same JSON as the text content.
pub fn structured(result: &CallToolResult) -> Value {
    let value = result
        .structured_content
        .clone()
        .expect("structuredContent");
    let text = result.content[0]
        .as_text()
        .expect("text content")
        .text
        .clone();
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), value);
    value
}

async fn exercise(lifecycle: ClientLifecycleMode) {
    let repo = Repo::committed();
    repo.seed_facts(
        "architecture",
        &[
            ("f-aaaa", "The cache keeps entries 5 minutes."),
            ("f-bbbb", "One pool per process."),
        ],
    );
    let client = connect(&repo, lifecycle).await;

    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "context",
            "facts",
            "search",
            "show",
            "stale",
            "task_ready",
            "propose",
            "task_create",
            "task_update",
            "task_close"
        ]
    );
    for tool in &tools {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
    }
    let read_only: Vec<&str> = tools
        .iter()
        .filter(|t| t.annotations.as_ref().unwrap().read_only_hint == Some(true))
        .map(|t| t.name.as_ref())
        .collect();
    assert_eq!(
        read_only,
        ["context", "facts", "search", "show", "stale", "task_ready"]
    );
    for tool in &tools {
        assert!(
            tool.output_schema.is_some(),
            "{} has an output schema",
            tool.name
        );
    }
    let propose = tools.iter().find(|t| t.name == "propose").unwrap();
    let annotations = propose.annotations.as_ref().unwrap();
    assert_eq!(annotations.destructive_hint, Some(false));

    let result = call(&client, "context", json!({"max_chars": 2000})).await;
    assert_ne!(result.is_error, Some(true));
    let text = structured(&result)["text"].as_str().unwrap().to_owned();
    assert!(text.starts_with("# Project facts"), "{text}");
    assert!(text.len() <= 2000);

    let result = call(
        &client,
        "propose",
        json!({
            "reason": "seen in review",
            "evidence": ["src/db.rs:1"],
            "operations": [{"op": "add", "file": "pitfalls", "text": "Never hold a lock across an await."}]
        }),
    )
    .await;
    assert_ne!(result.is_error, Some(true), "{result:?}");
    let proposed = structured(&result);
    let path = proposed["path"].as_str().unwrap();
    let file: Value = serde_json::from_str(&repo.read(path)).unwrap();
    assert_eq!(
        file["operations"][0]["text"],
        "Never hold a lock across an await."
    );
    assert_eq!(file["reason"], "seen in review");
    // No MNEME_AGENT: the proposal names the MCP client.
    assert!(
        file["agent"].as_str().is_some_and(|a| !a.is_empty()),
        "{file}"
    );

    let found = structured(&call(&client, "search", json!({"query": "CACHE minutes"})).await);
    assert_eq!(found["facts"].as_array().unwrap().len(), 1);
    assert_eq!(found["facts"][0]["id"], "f-aaaa");
    let fact = structured(&call(&client, "show", json!({"id": "f-bbbb"})).await);
    assert_eq!(fact["text"], "One pool per process.");
    assert_eq!(fact["file"], "architecture.md");

    // Bad arguments and refused operations are tool errors with mneme's code, never a crash.
    let result = call(&client, "propose", json!({"operations": "add"})).await;
    assert_eq!(result.is_error, Some(true));
    assert_eq!(structured(&result)["code"], "invalid_input");
    let result = call(&client, "facts", json!({"file": "nope"})).await;
    assert_eq!(result.is_error, Some(true));
    assert_eq!(structured(&result)["code"], "unknown_file");
    let result = call(
        &client,
        "propose",
        json!({"operations": [{"op": "remove", "fact_id": "f-zzzz"}], "reason": "r"}),
    )
    .await;
    assert_eq!(result.is_error, Some(true));
    assert_eq!(structured(&result)["code"], "unknown_fact");

    // A task's life: create, ready, claim with a note, show, close.
    let task = structured(
        &call(
            &client,
            "task_create",
            json!({"title": "Fix the cache", "type": "bug", "priority": 1}),
        )
        .await,
    );
    let id = task["id"].as_str().unwrap().to_owned();
    assert_eq!(task["type"], "bug");
    let ready = structured(&call(&client, "task_ready", json!({})).await);
    assert_eq!(ready["tasks"][0]["id"], id.as_str());
    let claimed = structured(
        &call(
            &client,
            "task_update",
            json!({"id": id, "claim": true, "note": "Started.", "agent": "agent-a"}),
        )
        .await,
    );
    assert_eq!(claimed["status"], "in_progress");
    assert_eq!(claimed["assignee"], "agent-a");
    let on_disk: Value =
        serde_json::from_str(&repo.read(&format!(".ledger/tasks/{id}.json"))).unwrap();
    assert_eq!(on_disk["notes"][0]["text"], "Started.");
    let taken = call(
        &client,
        "task_update",
        json!({"id": id, "claim": true, "agent": "agent-b"}),
    )
    .await;
    assert_eq!(taken.is_error, Some(true));
    assert_eq!(structured(&taken)["code"], "already_claimed");
    let shown = structured(&call(&client, "show", json!({"id": id})).await);
    assert_eq!(shown["assignee"], "agent-a");
    let closed = structured(
        &call(
            &client,
            "task_close",
            json!({"ids": [id], "reason": "fixed"}),
        )
        .await,
    );
    assert_eq!(closed["tasks"][0]["status"], "closed");
    let bad = call(&client, "task_create", json!({"title": "x", "priority": 9})).await;
    assert_eq!(bad.is_error, Some(true));

    // Still serving after the errors.
    let result = call(&client, "facts", json!({})).await;
    assert_eq!(structured(&result)["files"].as_array().unwrap().len(), 4);
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "current_thread")]
async fn a_client_of_the_initialize_era_lists_calls_and_proposes() {
    exercise(ClientLifecycleMode::Initialize).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_client_of_the_discover_era_lists_calls_and_proposes() {
    exercise(ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    })
    .await;
}

/// Raw bytes, as a broken or hostile client sends them: every request is answered, with a
/// JSON-RPC error where it cannot be read, and the server goes on serving. A line past the
/// limit is skipped without being held whole.
#[test]
fn every_line_gets_an_answer_and_the_server_goes_on() {
    use std::io::{BufRead, BufReader, Write};
    let repo = Repo::new();
    let mut child = crate::common::mneme_std(repo.path())
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
        let mut lines: Vec<Vec<u8>> = vec![
            initialize.into(),
            br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec(),
            b"{not json".to_vec(),
            b"\xff\xfe\xfd".to_vec(),
            "[".repeat(100_000).into_bytes(),
            [b"\"".as_slice(), &vec![b'a'; 9 << 20], b"\""].concat(),
            br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}"#.to_vec(),
            br#"{"jsonrpc":"2.0","method":"$/unknown"}"#.to_vec(),
            // Ids of the wrong type: invalid requests, answered with the id `null`.
            br#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":8,"method":"tools/list"}"#.to_vec(),
        ];
        for line in &mut lines {
            line.push(b'\n');
            input.write_all(line).unwrap();
        }
        // Closing stdin ends the session once everything is answered.
    });
    let answers: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
        .collect();
    writer.join().unwrap();
    assert!(child.wait().unwrap().success());
    let codes: Vec<(Value, Value)> = answers
        .iter()
        .map(|a| (a["id"].clone(), a["error"]["code"].clone()))
        .collect();
    assert_eq!(
        codes,
        [
            (json!(1), Value::Null),
            (Value::Null, json!(-32700)),
            (Value::Null, json!(-32700)),
            (Value::Null, json!(-32700)),
            (Value::Null, json!(-32600)),
            (json!(7), json!(-32600)),
            (Value::Null, json!(-32600)),
            (Value::Null, json!(-32600)),
            (Value::Null, json!(-32600)),
            (json!(8), Value::Null),
        ],
        "{answers:#?}"
    );
    for a in &answers {
        assert!(a.as_object().unwrap().contains_key("id"), "{a}");
    }
    assert!(answers[9]["result"]["tools"].is_array());
}

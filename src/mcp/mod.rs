//! `mneme mcp`: mneme's verbs as MCP tools over stdio, for clients of protocol 2025-11-25 (the
//! `initialize` handshake) and of 2026-07-28 (`server/discover`, per-request `_meta`). Each tool
//! gives the JSON of the matching `--json` verb, as `structuredContent` and as text; a failure is
//! a tool result with `isError` and mneme's error object. There is no review tool: approving
//! stays a human act in a terminal.
//!
//! The server answers one request at a time, in order, on the thread that reads them: every tool
//! is a short synchronous call, so there is nothing to run concurrently.

mod wire;

use std::io::{Read, Write};
use std::path::PathBuf;

use mneme::model::agents::briefing::{render, HOOK_BUDGET};
use mneme::model::proposals::plan::Request;
use mneme::model::tasks::task::{parse_priority, Board, Changes, Kind, Status};
use mneme::model::views::{FactView, FileView, ProposedView};
use mneme::ops::show::{show, Shown};
use mneme::ops::stale;
use mneme::ops::tasks::{self, NewTask};
use mneme::ops::{claims, context, evidence, now, propose, standings, Quiet, Workspace};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::cli::{panic, CliError, Result};
use wire::{answer, Line, RpcError, Splitter, MAX_LINE};

/// The protocol versions served, oldest first; all but the last have the `initialize` handshake.
const VERSIONS: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    MODERN,
];
/// The first version without `initialize`: each request carries its own context in `_meta`.
const MODERN: &str = "2026-07-28";
/// The newest version an `initialize` handshake can agree on.
const NEWEST_WITH_INITIALIZE: &str = "2025-11-25";
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_CLIENT: &str = "io.modelcontextprotocol/clientInfo";

const INSTRUCTIONS: &str = "Project facts verified by humans; they outrank conversation history. \
    Read them with `context` at the start and after the conversation is summarised; propose \
    changes with `propose` (a human reviews them); track work with the task tools.";

/// The tools, each with its description, input and output schema and annotations. The input
/// schemas are those of the argument types below; a test holds them equal.
const TOOLS: &str = include_str!("tools.json");

/// Serves MCP on stdin/stdout until the client closes it.
pub fn serve(cwd: PathBuf) -> Result<()> {
    let mut server = Server::new(cwd);
    let mut input = std::io::stdin().lock();
    let mut output = std::io::stdout().lock();
    let mut splitter = Splitter::new(MAX_LINE);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match input.read(&mut chunk) {
            Ok(0) => return Ok(()),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CliError::mcp("cannot read the MCP client's messages", e)),
        };
        for line in splitter.feed(&chunk[..n]) {
            let reply = match line {
                Line::TooLong => Some(answer(&Value::Null, Err(RpcError::too_long()))),
                Line::Whole(bytes) => match wire::read(&bytes) {
                    Ok(Some(request)) => Some(answer(&request.id, server.handle(&request))),
                    Ok(None) => None,
                    Err(refused) => Some(refused),
                },
            };
            let Some(reply) = reply else { continue };
            match output.write_all(&reply).and_then(|()| output.flush()) {
                Ok(()) => {}
                // The client is gone: nothing is left to answer.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
                Err(e) => return Err(CliError::mcp("cannot answer the MCP client", e)),
            }
        }
    }
}

struct Server {
    cwd: PathBuf,
    /// After an `initialize` handshake: the client's name, if it gave one.
    initialized: Option<Option<String>>,
    /// [`TOOLS`], read once.
    tools: Value,
}

impl Server {
    fn new(cwd: PathBuf) -> Server {
        Server {
            cwd,
            initialized: None,
            tools: serde_json::from_str(TOOLS).expect("tools.json is JSON"),
        }
    }

    fn handle(&mut self, request: &wire::Request) -> std::result::Result<Value, RpcError> {
        let method = request.method.as_str();
        let meta = request.params.get("_meta").and_then(Value::as_object);
        let meta_field = |key: &str| meta.and_then(|m| m.get(key));
        let requested = meta_field(META_VERSION).and_then(Value::as_str);
        if method == "initialize" {
            return Ok(self.initialize(&request.params));
        }
        if let Some(v) = requested.filter(|v| !VERSIONS.contains(v)) {
            let mut e = RpcError::new(
                RpcError::UNSUPPORTED_VERSION,
                "Unsupported protocol version",
            );
            e.data = Some(json!({"requested": v, "supported": VERSIONS}));
            return Err(e);
        }
        // A request of the 2026-07-28 lifecycle carries who asks and what it can do.
        let modern = method == "server/discover"
            || self.initialized.is_none()
            || requested.is_some_and(|v| v >= MODERN);
        if modern {
            let missing: Vec<&str> = [
                (META_VERSION, requested.is_some()),
                (
                    META_CAPABILITIES,
                    meta_field(META_CAPABILITIES).is_some_and(Value::is_object),
                ),
            ]
            .into_iter()
            .filter_map(|(key, present)| (!present).then_some(key))
            .collect();
            if !missing.is_empty() {
                return Err(RpcError::new(
                    RpcError::INVALID_PARAMS,
                    format!(
                        "request _meta is missing or has malformed required fields: {}",
                        missing.join(", ")
                    ),
                ));
            }
        }
        let client = if modern {
            meta_field(META_CLIENT)
                .and_then(|c| c.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        } else {
            self.initialized.clone().flatten()
        };
        let mut result = match method {
            "server/discover" => json!({
                "supportedVersions": VERSIONS,
                "capabilities": {"tools": {}},
                "instructions": INSTRUCTIONS,
                "ttlMs": 0,
                "cacheScope": "private",
                "_meta": {"io.modelcontextprotocol/serverInfo": server_info()},
            }),
            "ping" if !modern => json!({}),
            "tools/list" => {
                let mut list = json!({ "tools": self.tools });
                if modern {
                    list["ttlMs"] = json!(0);
                    list["cacheScope"] = json!("private");
                }
                list
            }
            "tools/call" => self.call(&request.params, client)?,
            other => return Err(RpcError::new(RpcError::METHOD_NOT_FOUND, other)),
        };
        if modern {
            result["resultType"] = json!("complete");
        }
        Ok(result)
    }

    /// The `initialize` handshake: the client's version where it has the handshake, else the
    /// newest that does.
    fn initialize(&mut self, params: &Map<String, Value>) -> Value {
        let asked = params["protocolVersion"].as_str().unwrap_or_default();
        let version = if VERSIONS.contains(&asked) && asked < MODERN {
            asked
        } else {
            NEWEST_WITH_INITIALIZE
        };
        let client = params["clientInfo"]["name"].as_str().map(str::to_owned);
        self.initialized = Some(client);
        json!({
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": server_info(),
            "instructions": INSTRUCTIONS,
        })
    }

    /// `tools/call`: the tool's JSON as a result, or its failure as a result with `isError`.
    fn call(
        &self,
        params: &Map<String, Value>,
        client: Option<String>,
    ) -> std::result::Result<Value, RpcError> {
        let name = params["name"].as_str().unwrap_or_default();
        let args = match params.get("arguments") {
            Some(Value::Object(args)) => Value::Object(args.clone()),
            _ => Value::Object(Map::new()),
        };
        let mut unknown = false;
        // A bug in one call is that call's error; the session goes on serving.
        let outcome = panic::catch(|| match name {
            "context" => parse(args).and_then(|a| self.context(a)),
            "facts" => parse(args).and_then(|a| self.facts(a)),
            "search" => parse(args).and_then(|a| self.search(a)),
            "show" => parse(args).and_then(|a| self.show(a)),
            "stale" => parse(args).and_then(|a| self.stale(a)),
            "propose" => parse(args).and_then(|a| self.propose(a, client)),
            "task_ready" => parse(args).and_then(|a| self.task_ready(a)),
            "task_create" => parse(args).and_then(|a| self.task_create(a)),
            "task_update" => parse(args).and_then(|a| self.task_update(a, client)),
            "task_close" => parse(args).and_then(|a| self.task_close(a)),
            _ => {
                unknown = true;
                Ok(Value::Null)
            }
        });
        if unknown {
            return Err(RpcError::new(
                RpcError::INVALID_PARAMS,
                format!("no tool named `{name}`; tools/list names them"),
            ));
        }
        let (value, is_error) = match outcome {
            Ok(value) => (value, false),
            Err(e) => (e.to_json(), true),
        };
        Ok(json!({
            "content": [{"type": "text", "text": value.to_string()}],
            "structuredContent": value,
            "isError": is_error,
        }))
    }
}

fn server_info() -> Value {
    json!({"name": "mneme", "version": env!("CARGO_PKG_VERSION")})
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct ContextArgs {
    /// At most this many characters (default 9000); what does not fit is named, never cut.
    #[cfg_attr(feature = "schemas", schemars(range(min = 1)))]
    max_chars: Option<usize>,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct FactsArgs {
    /// Only this fact file, such as `architecture`.
    file: Option<String>,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    /// Words the fact must hold, such as `cache ttl`.
    query: String,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct StaleArgs {
    /// Only commits after this revision (commits in REV..HEAD).
    since: Option<String>,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct ShowArgs {
    /// A fact id (`f-…`), or a task id or unique prefix (`t-…`).
    id: String,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct ReadyArgs {
    /// At most this many tasks.
    limit: Option<usize>,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct CreateArgs {
    title: String,
    #[serde(default)]
    description: String,
    #[serde(default = "default_kind", rename = "type")]
    kind: Kind,
    /// 0 (most urgent) to 4; default 2.
    #[serde(default = "default_priority")]
    #[cfg_attr(feature = "schemas", schemars(range(max = 4)))]
    priority: u8,
    /// The parent task (a parent-child dependency).
    parent: Option<String>,
    /// Tasks that must be closed before this one is ready.
    #[serde(default)]
    depends_on: Vec<String>,
    /// The task whose work surfaced this one.
    discovered_from: Option<String>,
    #[serde(default)]
    labels: Vec<String>,
    assignee: Option<String>,
    /// Fact ids (`f-…`) the task relies on or must respect.
    #[serde(default)]
    cites: Vec<String>,
}

fn default_kind() -> Kind {
    Kind::Task
}

fn default_priority() -> u8 {
    2
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct UpdateArgs {
    /// Task id or unique prefix.
    id: String,
    /// New status (close with `task_close`).
    status: Option<Status>,
    /// Take the task: in progress, assigned to you.
    #[serde(default)]
    claim: bool,
    /// Give back a task you hold: open again, assigned to nobody.
    #[serde(default)]
    unclaim: bool,
    /// Claim in this repository alone, even when the ledger's config names a claims remote.
    #[serde(default)]
    local_only: bool,
    /// A note to append (never replaces earlier ones).
    note: Option<String>,
    title: Option<String>,
    description: Option<String>,
    /// 0 (most urgent) to 4.
    #[cfg_attr(feature = "schemas", schemars(range(max = 4)))]
    priority: Option<u8>,
    assignee: Option<String>,
    /// Labels to add.
    #[serde(default)]
    labels: Vec<String>,
    /// Fact ids to cite.
    #[serde(default)]
    cites: Vec<String>,
    /// Fact ids to stop citing.
    #[serde(default)]
    uncite: Vec<String>,
    /// Who you are (default: MNEME_AGENT, else the MCP client's name).
    agent: Option<String>,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "schemas", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
struct CloseArgs {
    /// Task ids or unique prefixes.
    ids: Vec<String>,
    /// Why they are done.
    reason: String,
}

impl Server {
    fn workspace(&self) -> Result<Workspace> {
        Ok(Workspace::discover(&self.cwd)?)
    }

    fn context(&self, args: ContextArgs) -> Result<Value> {
        let ws = self.workspace()?;
        let budget = args.max_chars.unwrap_or(HOOK_BUDGET).max(1);
        let context = context::context(&ws, &Quiet, Some(budget))?;
        Ok(json!({ "text": render(&context, Some(budget)) }))
    }

    fn facts(&self, args: FactsArgs) -> Result<Value> {
        let ws = self.workspace()?;
        let ledger = ws.store.load()?;
        let files = FileView::select(
            &ledger,
            args.file.as_deref(),
            &standings(&ws, &ledger, now())?,
        )?;
        Ok(json!({ "files": files }))
    }

    fn search(&self, args: SearchArgs) -> Result<Value> {
        let ws = self.workspace()?;
        let ledger = ws.store.load()?;
        let by_fact = standings(&ws, &ledger, now())?;
        let facts: Vec<FactView> = ledger
            .search(&args.query)
            .map(|(file, fact)| FactView::new(file, fact, &by_fact))
            .collect();
        Ok(json!({ "facts": facts }))
    }

    fn show(&self, args: ShowArgs) -> Result<Value> {
        let ws = self.workspace()?;
        Ok(match show(&ws, &Quiet, &args.id)? {
            Shown::Fact(view) => to_value(&view),
            Shown::Task(task) => to_value(&task),
        })
    }

    fn stale(&self, args: StaleArgs) -> Result<Value> {
        Ok(to_value(&stale::stale(
            &self.workspace()?,
            args.since.as_deref(),
        )?))
    }

    fn task_ready(&self, args: ReadyArgs) -> Result<Value> {
        let tasks = tasks::load(&self.workspace()?, &Quiet)?;
        let mut ready = Board::new(tasks.iter()).ready();
        if let Some(n) = args.limit {
            ready.truncate(n);
        }
        Ok(json!({ "tasks": ready }))
    }

    fn task_create(&self, args: CreateArgs) -> Result<Value> {
        let priority =
            parse_priority(&args.priority.to_string()).map_err(CliError::invalid_input)?;
        let task = tasks::create(
            &self.workspace()?,
            NewTask {
                title: args.title,
                description: args.description,
                kind: args.kind,
                priority,
                assignee: args.assignee,
                labels: args.labels,
                parent: args.parent,
                depends_on: args.depends_on,
                discovered_from: args.discovered_from,
                cites: args.cites,
            },
        )?;
        Ok(to_value(&task))
    }

    fn task_update(&self, args: UpdateArgs, client: Option<String>) -> Result<Value> {
        let priority = args
            .priority
            .map(|p| parse_priority(&p.to_string()).map_err(CliError::invalid_input))
            .transpose()?;
        let ws = self.workspace()?;
        let changes = Changes {
            status: args.status,
            claim: args.claim,
            unclaim: args.unclaim,
            title: args.title,
            description: args.description,
            priority,
            assignee: args.assignee,
            labels: args.labels,
            note: args.note,
            cite: args.cites,
            uncite: args.uncite,
        };
        let me = tasks::actor(&ws, agent(args.agent, client).as_deref());
        let reach = if args.claim {
            claims::reach(&ws, None, args.local_only)?
        } else {
            claims::Reach::Local
        };
        Ok(to_value(&tasks::update(
            &ws, &args.id, &changes, &me, &reach, &Quiet,
        )?))
    }

    fn task_close(&self, args: CloseArgs) -> Result<Value> {
        let done = tasks::close(&self.workspace()?, &args.ids, &args.reason, &Quiet)?;
        Ok(json!({ "tasks": done }))
    }

    fn propose(&self, mut request: Request, client: Option<String>) -> Result<Value> {
        request.agent = agent(request.agent, client);
        let ws = self.workspace()?;
        let proposed = propose::propose(&ws, request)?;
        let path = ws.store.relative(&proposed.path).display().to_string();
        let cited = evidence::cited(&ws, &proposed.planned.proposal.evidence);
        Ok(to_value(&ProposedView::new(
            &proposed.planned,
            path,
            &proposed.ledger,
            &cited,
        )))
    }
}

/// Who acts: as named in the call, else `MNEME_AGENT`, else the MCP client's name.
fn agent(named: Option<String>, client: Option<String>) -> Option<String> {
    named.or_else(tasks::env_agent).or(client)
}

fn to_value(value: &impl serde::Serialize) -> Value {
    serde_json::to_value(value).expect("views serialize")
}

fn parse<T: serde::de::DeserializeOwned>(args: Value) -> Result<T> {
    serde_json::from_value(args).map_err(|e| {
        CliError::invalid_input(format!(
            "invalid arguments: {e}; the tool's input schema lists them"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> Server {
        Server::new(PathBuf::from("/nonexistent"))
    }

    fn request(method: &str, params: Value) -> wire::Request {
        let Value::Object(params) = params else {
            panic!("params are an object")
        };
        wire::Request {
            id: json!(1),
            method: method.to_owned(),
            params,
        }
    }

    fn modern_meta() -> Value {
        json!({META_VERSION: MODERN, META_CAPABILITIES: {}, META_CLIENT: {"name": "c", "version": "1"}})
    }

    #[test]
    fn initialize_agrees_on_the_clients_version_where_it_has_the_handshake() {
        for (asked, agreed) in [
            ("2025-06-18", "2025-06-18"),
            ("2024-11-05", "2024-11-05"),
            (MODERN, NEWEST_WITH_INITIALIZE),
            ("1999-01-01", NEWEST_WITH_INITIALIZE),
        ] {
            let params = json!({"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}});
            let result = server().handle(&request("initialize", params)).unwrap();
            assert_eq!(result["protocolVersion"], agreed, "{asked}");
            assert!(result.get("resultType").is_none());
        }
    }

    #[test]
    fn a_request_of_the_discover_era_carries_its_context() {
        let mut s = server();
        let bare = s.handle(&request("tools/list", json!({}))).unwrap_err();
        assert_eq!(bare.code, RpcError::INVALID_PARAMS);
        assert!(bare.message.contains(META_VERSION) && bare.message.contains(META_CAPABILITIES));
        let listed = s
            .handle(&request("tools/list", json!({"_meta": modern_meta()})))
            .unwrap();
        assert_eq!(
            (&listed["resultType"], &listed["cacheScope"]),
            (&json!("complete"), &json!("private"))
        );
        assert_eq!(listed["tools"].as_array().map(Vec::len), Some(10));
        let discovered = s
            .handle(&request("server/discover", json!({"_meta": modern_meta()})))
            .unwrap();
        assert_eq!(discovered["supportedVersions"], json!(VERSIONS));
        assert_eq!(
            discovered["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "mneme"
        );
    }

    #[test]
    fn an_unknown_version_method_or_tool_is_an_error_that_says_so() {
        let mut s = server();
        let mut meta = modern_meta();
        meta[META_VERSION] = json!("2030-01-01");
        let e = s
            .handle(&request("tools/list", json!({"_meta": meta})))
            .unwrap_err();
        assert_eq!(e.code, RpcError::UNSUPPORTED_VERSION);
        assert_eq!(e.data.unwrap()["supported"], json!(VERSIONS));
        let e = s
            .handle(&request("resources/list", json!({"_meta": modern_meta()})))
            .unwrap_err();
        assert_eq!(
            (e.code, e.message.as_str()),
            (RpcError::METHOD_NOT_FOUND, "resources/list")
        );
        let call = json!({"_meta": modern_meta(), "name": "approve", "arguments": {}});
        let e = s.handle(&request("tools/call", call)).unwrap_err();
        assert_eq!(e.code, RpcError::INVALID_PARAMS);
        assert!(e.message.contains("`approve`"), "{}", e.message);
    }

    #[test]
    fn ping_is_of_the_initialize_era() {
        let mut s = server();
        let params = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}});
        s.handle(&request("initialize", params)).unwrap();
        assert_eq!(s.handle(&request("ping", json!({}))).unwrap(), json!({}));
        let modern = s
            .handle(&request("ping", json!({"_meta": modern_meta()})))
            .unwrap_err();
        assert_eq!(modern.code, RpcError::METHOD_NOT_FOUND);
    }

    #[test]
    fn a_failing_tool_is_a_result_with_is_error() {
        let call = json!({"_meta": modern_meta(), "name": "context", "arguments": {"nope": 1}});
        let result = server().handle(&request("tools/call", call)).unwrap();
        assert_eq!(result["isError"], true);
        assert_eq!(result["structuredContent"]["code"], "invalid_input");
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, result["structuredContent"]);
    }

    #[cfg(feature = "schemas")]
    fn schema<T: schemars::JsonSchema>() -> Value {
        serde_json::to_value(schemars::schema_for!(T)).expect("schemas serialize")
    }

    /// `MNEME_WRITE_SCHEMAS=1 cargo test` writes the derived schemas into tools.json.
    #[cfg(feature = "schemas")]
    #[test]
    fn the_written_input_schemas_are_those_of_the_argument_types() {
        let derived = [
            ("context", schema::<ContextArgs>()),
            ("facts", schema::<FactsArgs>()),
            ("search", schema::<SearchArgs>()),
            ("show", schema::<ShowArgs>()),
            ("stale", schema::<StaleArgs>()),
            ("task_ready", schema::<ReadyArgs>()),
            ("propose", schema::<Request>()),
            ("task_create", schema::<CreateArgs>()),
            ("task_update", schema::<UpdateArgs>()),
            ("task_close", schema::<CloseArgs>()),
        ];
        let mut tools: Vec<Value> = serde_json::from_str(TOOLS).expect("tools.json is JSON");
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        let expected: Vec<&str> = derived.iter().map(|(name, _)| *name).collect();
        assert_eq!(
            names, expected,
            "tools.json names each tool once, in this order"
        );
        let differ: Vec<&str> = tools
            .iter()
            .zip(&derived)
            .filter(|(tool, (_, schema))| tool["inputSchema"] != *schema)
            .map(|(_, (name, _))| *name)
            .collect();
        if differ.is_empty() {
            return;
        }
        if std::env::var_os("MNEME_WRITE_SCHEMAS").is_some() {
            for (tool, (_, schema)) in tools.iter_mut().zip(derived) {
                tool["inputSchema"] = schema;
            }
            let text = serde_json::to_string_pretty(&tools).expect("JSON") + "\n";
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/mcp/tools.json");
            std::fs::write(path, text).expect("write tools.json");
        } else {
            panic!(
                "the input schemas of {differ:?} in src/mcp/tools.json are not those of their \
                 argument types; run `MNEME_WRITE_SCHEMAS=1 cargo test --bin mneme schemas`"
            );
        }
    }

    #[test]
    fn every_tool_has_a_description_an_output_schema_and_annotations() {
        let tools: Vec<Value> = serde_json::from_str(TOOLS).expect("tools.json is JSON");
        for tool in &tools {
            assert!(tool["description"].as_str().is_some_and(|d| !d.is_empty()));
            assert_eq!(tool["outputSchema"]["type"], "object", "{tool}");
            assert!(tool["annotations"]["readOnlyHint"].is_boolean(), "{tool}");
        }
    }
}

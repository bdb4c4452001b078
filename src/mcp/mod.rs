//! `mneme mcp`: mneme's verbs as MCP tools over stdio, for clients of protocol 2025-11-25 (the
//! `initialize` handshake) and of 2026-07-28 (`server/discover`, per-request `_meta`); rmcp
//! speaks both. Each tool gives the JSON of the matching `--json` verb, as `structuredContent`
//! and as text; a failure is a tool result with `isError` and mneme's error object. There is no
//! review tool: approving stays a human act in a terminal.

mod lines;

use std::path::PathBuf;
use std::sync::Arc;

use mneme::model::agents::briefing::{render, HOOK_BUDGET};
use mneme::model::proposals::plan::Request;
use mneme::model::tasks::task::{parse_priority, Board, Changes, Kind, Status};
use mneme::model::views::{FactView, FileView, ProposedView};
use mneme::ops::show::{show, Shown};
use mneme::ops::stale;
use mneme::ops::tasks::{self, NewTask};
use mneme::ops::{claims, context, evidence, now, propose, standings, Quiet, Workspace};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::cli::{panic, CliError, Result};

/// Serves MCP on stdin/stdout until the client closes it.
pub fn serve(cwd: PathBuf) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::mcp("cannot start the MCP server", e))?;
    runtime.block_on(async {
        let transport = lines::Guarded::new(tokio::io::stdin(), tokio::io::stdout());
        let running = Server { cwd }
            .serve(transport)
            .await
            .map_err(|e| CliError::mcp("the MCP session failed to start", e))?;
        running
            .waiting()
            .await
            .map_err(|e| CliError::mcp("the MCP session ended with an error", e))?;
        Ok(())
    })
}

struct Server {
    cwd: PathBuf,
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("mneme", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Project facts verified by humans; they outrank conversation history. Read them \
                 with `context` at the start and after the conversation is summarised; propose \
                 changes with `propose` (a human reviews them); track work with the task tools.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        let client = context.client_info().map(|info| info.name);
        let mut unknown = None;
        // A bug in one call is that call's error; the session goes on serving.
        let outcome = panic::catch(|| match request.name.as_ref() {
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
            other => {
                unknown = Some(other.to_owned());
                Ok(Value::Null)
            }
        });
        if let Some(other) = unknown {
            return Err(McpError::invalid_params(
                format!("no tool named `{other}`; tools/list names them"),
                None,
            ));
        }
        Ok(match outcome {
            Ok(value) => CallToolResult::structured(value),
            Err(e) => CallToolResult::structured_error(e.to_json()),
        }
        .into())
    }
}

/// The tools, each with its input and output schema.
fn tools() -> Vec<Tool> {
    let read_only = ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false);
    let writes = ToolAnnotations::new()
        .read_only(false)
        .destructive(false)
        .idempotent(false)
        .open_world(false);
    vec![
        Tool::new(
            "context",
            "What to know before working in this repository: the project's facts (they outrank \
             conversation history), tasks in progress and ready, pending proposals, within a \
             character budget. Read it at the start and after the conversation was summarised.",
            schema::<ContextArgs>(),
        )
        .with_raw_output_schema(object(json!({"text": {"type": "string"}}), &["text"]))
        .annotate(read_only.clone()),
        Tool::new(
            "facts",
            "The fact files and their facts (with ids, states and lines), all or one file's.",
            schema::<FactsArgs>(),
        )
        .with_raw_output_schema(object(
            json!({"files": {"type": "array", "items": {"type": "object"}}}),
            &["files"],
        ))
        .annotate(read_only.clone()),
        Tool::new(
            "search",
            "Facts whose text holds every word of the query, ignoring case.",
            schema::<SearchArgs>(),
        )
        .with_raw_output_schema(object(
            json!({"facts": {"type": "array", "items": {"type": "object"}}}),
            &["facts"],
        ))
        .annotate(read_only.clone()),
        Tool::new(
            "show",
            "One fact (`f-…`) or one task (`t-…`, or a unique prefix) with everything recorded \
             about it: a fact's file, state and evidence; a task's dependencies and notes.",
            schema::<ShowArgs>(),
        )
        .with_raw_output_schema(object(json!({"id": {"type": "string"}}), &["id"]))
        .annotate(read_only.clone()),
        Tool::new(
            "stale",
            "Facts whose cited code changed since a person last approved or verified them, with \
             the commits: re-check each before relying on it, then propose `verify` (or an \
             update).",
            schema::<StaleArgs>(),
        )
        .with_raw_output_schema(object(
            json!({"watched": {"type": "integer"}, "facts": {"type": "array", "items": {"type": "object"}}}),
            &["watched", "facts"],
        ))
        .annotate(read_only.clone()),
        Tool::new(
            "task_ready",
            "Open tasks nothing blocks, most urgent first: what to work on next.",
            schema::<ReadyArgs>(),
        )
        .with_raw_output_schema(tasks_schema())
        .annotate(read_only),
        Tool::new(
            "propose",
            "Propose adding, updating, removing or superseding facts. It writes a proposal file \
             for a human to review with `mneme review`; facts change only when they approve.",
            schema::<Request>(),
        )
        .with_raw_output_schema(object(
            json!({
                "id": {"type": "string"},
                "path": {"type": "string"},
                "proposal": {"type": "object"},
                "similar": {"type": "array", "items": {"type": "object"}},
                "budget": {"type": "object"},
            }),
            &["id", "path", "proposal", "similar", "budget"],
        ))
        // Not destructive: the human gate is mneme's review, not the client's prompt.
        .annotate(writes.clone()),
        Tool::new(
            "task_create",
            "Create a task (a JSON file under .ledger/tasks/, committed with the work).",
            schema::<CreateArgs>(),
        )
        .with_raw_output_schema(task_schema())
        .annotate(writes.clone()),
        Tool::new(
            "task_update",
            "Update a task: `claim` takes it (in progress, assigned to you; refused if someone \
             else has it), `unclaim` gives back a task you hold, `note` appends a note, and status, title, priority and the rest.",
            schema::<UpdateArgs>(),
        )
        .with_raw_output_schema(task_schema())
        .annotate(writes.clone()),
        Tool::new(
            "task_close",
            "Close tasks, with the reason.",
            schema::<CloseArgs>(),
        )
        .with_raw_output_schema(tasks_schema())
        .annotate(writes),
    ]
}

fn task_schema() -> Arc<JsonObject> {
    object(
        json!({"id": {"type": "string"}, "title": {"type": "string"}, "status": {"type": "string"}}),
        &["id", "title", "status"],
    )
}

fn tasks_schema() -> Arc<JsonObject> {
    object(
        json!({"tasks": {"type": "array", "items": {"type": "object"}}}),
        &["tasks"],
    )
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ContextArgs {
    /// At most this many characters (default 9000); what does not fit is named, never cut.
    #[schemars(range(min = 1))]
    max_chars: Option<usize>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct FactsArgs {
    /// Only this fact file, such as `architecture`.
    file: Option<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    /// Words the fact must hold, such as `cache ttl`.
    query: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct StaleArgs {
    /// Only commits after this revision (commits in REV..HEAD).
    since: Option<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ShowArgs {
    /// A fact id (`f-…`), or a task id or unique prefix (`t-…`).
    id: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadyArgs {
    /// At most this many tasks.
    limit: Option<usize>,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateArgs {
    title: String,
    #[serde(default)]
    description: String,
    #[serde(default = "default_kind", rename = "type")]
    kind: Kind,
    /// 0 (most urgent) to 4; default 2.
    #[serde(default = "default_priority")]
    #[schemars(range(max = 4))]
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

#[derive(Deserialize, schemars::JsonSchema)]
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
    #[schemars(range(max = 4))]
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

#[derive(Deserialize, schemars::JsonSchema)]
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

fn schema<T: schemars::JsonSchema>() -> Arc<JsonObject> {
    match serde_json::to_value(schemars::schema_for!(T)).expect("schemas serialize") {
        Value::Object(object) => Arc::new(object),
        _ => unreachable!("a schema of a struct is an object"),
    }
}

fn object(properties: Value, required: &[&str]) -> Arc<JsonObject> {
    match json!({"type": "object", "properties": properties, "required": required}) {
        Value::Object(object) => Arc::new(object),
        _ => unreachable!(),
    }
}

//! `mneme mcp`: mneme's verbs as MCP tools over stdio, for clients of protocol 2025-11-25 (the
//! `initialize` handshake) and of 2026-07-28 (`server/discover`, per-request `_meta`); rmcp
//! speaks both. Each tool gives the JSON of the matching `--json` verb, as `structuredContent`
//! and as text; a failure is a tool result with `isError` and mneme's error object. There is no
//! review tool: approving stays a human act in a terminal.

use std::path::PathBuf;
use std::sync::Arc;

use mneme::model::briefing::{render, HOOK_BUDGET};
use mneme::model::plan::Request;
use mneme::model::views::{Budget, FileView, ProposedView};
use mneme::ops::{context, propose, Notes, Workspace};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::cli::{CliError, Result};

/// Serves MCP on stdin/stdout until the client closes it.
pub fn serve(cwd: PathBuf) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::mcp("cannot start the MCP server", e))?;
    runtime.block_on(async {
        let running = Server { cwd }
            .serve(rmcp::transport::stdio())
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
                 with `context`; propose changes with `propose` (a human reviews them).",
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
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        let outcome = match request.name.as_ref() {
            "context" => parse(args).and_then(|a| self.context(a)),
            "facts" => parse(args).and_then(|a| self.facts(a)),
            "propose" => parse(args).and_then(|a| self.propose(a)),
            other => {
                return Err(McpError::invalid_params(
                    format!("no tool named `{other}`; tools/list names them"),
                    None,
                ))
            }
        };
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
        .annotate(
            ToolAnnotations::new()
                .read_only(false)
                .destructive(false)
                .idempotent(false)
                .open_world(false),
        ),
    ]
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

impl Server {
    fn workspace(&self) -> Result<Workspace> {
        Ok(Workspace::discover(&self.cwd)?)
    }

    fn context(&self, args: ContextArgs) -> Result<Value> {
        let ws = self.workspace()?;
        let context = context::context(&ws, &Ignored)?;
        let budget = args.max_chars.unwrap_or(HOOK_BUDGET).max(1);
        Ok(json!({ "text": render(&context, Some(budget)) }))
    }

    fn facts(&self, args: FactsArgs) -> Result<Value> {
        let ledger = self.workspace()?.store.load()?;
        let files: Vec<FileView> = match &args.file {
            Some(name) => vec![FileView::new(ledger.resolve_file(name)?)],
            None => ledger.files.iter().map(FileView::new).collect(),
        };
        Ok(json!({ "files": files }))
    }

    fn propose(&self, mut request: Request) -> Result<Value> {
        if request.agent.is_none() {
            request.agent = std::env::var("MNEME_AGENT").ok();
        }
        let ws = self.workspace()?;
        let proposed = propose::propose(&ws, request)?;
        let p = &proposed.planned.proposal;
        Ok(serde_json::to_value(ProposedView {
            id: &p.id,
            path: ws.store.relative(&proposed.path).display().to_string(),
            proposal: p,
            similar: &proposed.planned.similar,
            budget: Budget::of(&proposed.ledger),
        })
        .expect("views serialize"))
    }
}

/// Warnings a tool has no channel for: its JSON result carries what matters.
struct Ignored;

impl Notes for Ignored {
    fn warn(&self, _message: &str) {}
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

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};

use mneme::model::facts::file::{Relation, Relations};
use mneme::model::proposals::plan::{Request, RequestOp};
use mneme::model::views::ProposedView;
use mneme::ops::evidence;
use mneme::ops::propose::{evidence_from, propose, Proposed};
use mneme::ops::Workspace;

use crate::cli::ui::{self, esc1, paint, ID, WARN};
use crate::cli::{utf8, CliError, Cx, ExitStatus, Result};

/// Propose a change to the facts, for a human to review (never interactive).
///
/// Writes exactly one file, `.ledger/proposals/<UTC time>-<hash>.json`, and never edits the
/// facts. Refuses (exit 1, nothing written) unknown files or fact ids, empty or oversized text,
/// and exact duplicates of a fact or of a pending proposal. Near-duplicates are allowed but
/// listed, so you can propose an update instead.
#[derive(Debug, clap::Args)]
#[command(
    arg_required_else_help = true,
    after_help = "Examples:
  mneme propose add --file architecture \"We use PostgreSQL 16, not SQLite.\" \\
      --reason \"decided in the storage review\" --evidence docs/adr/0003.md
  mneme propose update f-7f3cq \"We use PostgreSQL 17.\" --reason \"upgraded in #412\"
  mneme propose remove f-7f3cq --reason \"the service was retired\"
  echo \"Use the pool.\" | mneme propose supersede f-k2a9 --stdin --reason \"new driver\"
  mneme propose verify f-7f3cq --reason \"re-checked after the upgrade\" --evidence src/db.rs:12
  mneme propose state f-7f3cq archived --reason \"the service was retired\"
  mneme propose relate f-7f3cq --contradicts f-k2a9 --reason \"they disagree on pooling\"
  mneme propose --from-json ops.json --json"
)]
pub struct Args {
    #[command(subcommand)]
    op: Option<Op>,

    /// Read a proposal of several operations from FILE (`-` for stdin); see docs/format.md.
    #[arg(long, value_name = "FILE")]
    from_json: Option<PathBuf>,

    #[command(flatten)]
    meta: Meta,
}

#[derive(Debug, clap::Args)]
struct Meta {
    /// Why the ledger should change (required, here or in --from-json).
    #[arg(long, global = true, value_name = "TEXT")]
    reason: Option<OsString>,

    /// Evidence: file:line, commit id or URL; repeat for several.
    #[arg(long, global = true, value_name = "REF")]
    evidence: Vec<OsString>,

    /// Name of the proposing agent [default: $MNEME_AGENT].
    #[arg(long, global = true, value_name = "NAME")]
    agent: Option<OsString>,
}

#[derive(Debug, clap::Subcommand)]
enum Op {
    /// Propose a new fact in a fact file.
    #[command(after_help = "Examples:
  mneme propose add --file architecture \"We use PostgreSQL 16, not SQLite.\" --reason \"ADR 3\"
  mneme propose add -f pitfalls --stdin --reason \"incident 42\" < statement.txt")]
    Add {
        /// Fact file, such as `architecture` (see `mneme facts`).
        #[arg(long, short)]
        file: OsString,
        #[command(flatten)]
        text: Text,
        #[command(flatten)]
        links: Links,
    },
    /// Propose new text for an existing fact.
    #[command(after_help = "Examples:
  mneme propose update f-7f3cq \"We use PostgreSQL 17.\" --reason \"upgraded in #412\"
  mneme propose update f-7f3cq --stdin --reason \"reworded\" --evidence src/db.rs:12 < text.md")]
    Update {
        /// Id of the fact, such as `f-7f3cq`.
        fact_id: OsString,
        #[command(flatten)]
        text: Text,
        #[command(flatten)]
        links: Links,
    },
    /// Propose removing a fact.
    #[command(after_help = "Examples:
  mneme propose remove f-7f3cq --reason \"the service was retired\" --evidence PR#88")]
    Remove {
        /// Id of the fact.
        fact_id: OsString,
    },
    /// Propose replacing a fact with a new one (the old one is kept, marked superseded).
    #[command(after_help = "Examples:
  mneme propose supersede f-7f3cq \"We use CockroachDB.\" --reason \"multi-region\"
  echo \"Use the pool.\" | mneme propose supersede f-k2a9 --stdin --reason \"new driver\"")]
    Supersede {
        /// Id of the fact to replace.
        fact_id: OsString,
        #[command(flatten)]
        text: Text,
        #[command(flatten)]
        links: Links,
    },
    /// Propose confirming a fact as still true (its approval sets `verified` and the evidence).
    ///
    /// `mneme stale` lists the facts whose cited code changed since they were approved or
    /// verified; an approved verify clears a fact from that list.
    #[command(after_help = "Examples:
  mneme stale
  mneme propose verify f-7f3cq --reason \"re-read the pool code\" --evidence src/db.rs:12-40")]
    Verify {
        /// Id of the fact.
        fact_id: OsString,
    },
    /// Propose moving a fact to another state: active, stale, contested or archived.
    #[command(after_help = "States:
  active     current (the default)
  stale      still the ledger's view, but needs checking; `propose verify` clears it
  contested  disputed; agents are told not to rely on it until a person settles it
  archived   kept for history, no longer current; `state <id> active` restores it

Examples:
  mneme propose state f-7f3cq archived --reason \"the service was retired\"
  mneme propose state f-7f3cq stale --reason \"the driver changed; re-check\"")]
    State {
        /// Id of the fact.
        fact_id: OsString,
        /// The new state.
        #[arg(value_parser = ["active", "stale", "contested", "archived"])]
        state: String,
    },
    /// Propose relating a fact to others (a `contradicts` relation marks both contested).
    #[command(after_help = "Examples:
  mneme propose relate f-7f3cq --depends-on f-k2a9 --reason \"the pool needs the driver\"
  mneme propose relate f-7f3cq --contradicts f-9x2b --reason \"they disagree on timeouts\"")]
    Relate {
        /// Id of the fact that holds the relations.
        fact_id: OsString,
        #[command(flatten)]
        links: Links,
    },
    /// Propose removing relations from a fact (resolving a contradiction, say).
    #[command(after_help = "Examples:
  mneme propose unrelate f-7f3cq --contradicts f-9x2b --reason \"settled: both hold\"")]
    Unrelate {
        /// Id of the fact that holds the relations.
        fact_id: OsString,
        #[command(flatten)]
        links: Links,
    },
}

/// Relations to other facts, by id; each flag can be repeated.
#[derive(Debug, clap::Args)]
struct Links {
    /// A related fact, worth reading with this one.
    #[arg(long, value_name = "FACT_ID")]
    relates_to: Vec<OsString>,
    /// A fact this one holds only while that one holds.
    #[arg(long, value_name = "FACT_ID")]
    depends_on: Vec<OsString>,
    /// A fact this one says the opposite of: both are contested until a person resolves it.
    #[arg(long, value_name = "FACT_ID")]
    contradicts: Vec<OsString>,
    /// A fact this one follows from.
    #[arg(long, value_name = "FACT_ID")]
    derived_from: Vec<OsString>,
}

impl Links {
    fn relations(&self) -> Result<Relations> {
        let mut out = Relations::new();
        for (relation, ids) in [
            (Relation::RelatesTo, &self.relates_to),
            (Relation::DependsOn, &self.depends_on),
            (Relation::Contradicts, &self.contradicts),
            (Relation::DerivedFrom, &self.derived_from),
        ] {
            for id in ids {
                let flag = format!("--{}", relation.key().replace('_', "-"));
                out.entry(relation).or_default().insert(utf8(&flag, id)?);
            }
        }
        Ok(out)
    }

    /// The relations, at least one.
    fn required(&self, verb: &str) -> Result<Relations> {
        let relations = self.relations()?;
        if relations.is_empty() {
            return Err(CliError::invalid_input(format!(
                "name at least one relation to {verb}: --relates-to, --depends-on, --contradicts or --derived-from FACT_ID"
            )));
        }
        Ok(relations)
    }
}

#[derive(Debug, clap::Args)]
struct Text {
    /// The statement (one fact).
    #[arg(required_unless_present = "stdin")]
    text: Option<OsString>,
    /// Read the statement from standard input.
    #[arg(long, conflicts_with = "text")]
    stdin: bool,
}

impl Text {
    fn read(&self) -> Result<String> {
        match &self.text {
            Some(t) => utf8("the fact text", t),
            None => {
                let mut bytes = Vec::new();
                std::io::stdin()
                    .read_to_end(&mut bytes)
                    .map_err(|e| CliError::input(Path::new("<stdin>"), e))?;
                String::from_utf8(bytes).map_err(|_| CliError::invalid_utf8("standard input"))
            }
        }
    }
}

pub fn run(cx: &Cx, args: &Args) -> Result<ExitStatus> {
    let mut request = request(args)?;
    let ws = cx.workspace()?;
    evidence_from(&ws, &cx.cwd, &mut request);
    report(cx, &ws, propose(&ws, request)?)
}

/// What a written proposal is, as `propose` reports it (`review undo` too).
pub fn report(cx: &Cx, ws: &Workspace, proposed: Proposed) -> Result<ExitStatus> {
    let Proposed {
        planned,
        path,
        ledger,
    } = proposed;
    let cited = evidence::cited(ws, &planned.proposal.evidence);
    let view = ProposedView::new(
        &planned,
        ws.store.relative(&path).display().to_string(),
        &ledger,
        &cited,
    );
    if cx.ui.json {
        cx.ui.json(&view)?;
        return Ok(ExitStatus::Success);
    }
    let (p, budget) = (view.proposal, &view.budget);
    let mut out = format!("Proposed {} ({})\n", paint(ID, &p.id), esc1(&view.path));
    for op in &p.operations {
        out.push_str(&format!("  {}\n", esc1(&op.summary())));
    }
    if !planned.similar.is_empty() {
        out.push_str(&format!(
            "{}\n",
            paint(
                WARN,
                "Similar facts and pending proposals (propose an update instead if one of them says this):"
            )
        ));
        for s in &planned.similar {
            out.push_str(&format!("  {}\n", ui::similar_line(s)));
        }
    }
    for c in view.competing {
        let line = format!(
            "Pending {}: the reviewer decides between them.",
            ui::competing_line(c)
        );
        out.push_str(&format!("{}\n", paint(WARN, line)));
    }
    if !view.evidence_problems.is_empty() {
        out.push_str(&format!(
            "{}\n",
            paint(
                WARN,
                "Evidence that points at nothing (the reviewer sees this too):"
            )
        ));
        for e in &view.evidence_problems {
            out.push_str(&format!("  {}: {}\n", esc1(&e.evidence), esc1(&e.problem)));
        }
    }
    if budget.over {
        out.push_str(&format!(
            "{}\n",
            paint(
                WARN,
                format!(
                    "The facts already use {} of {} budget lines.",
                    budget.used, budget.limit
                )
            )
        ));
    }
    out.push_str("A human reviews it with `mneme review`.\n");
    cx.ui.out(&out)?;
    Ok(ExitStatus::Success)
}

fn request(args: &Args) -> Result<Request> {
    let mut request = match (&args.op, &args.from_json) {
        (Some(_), Some(_)) => return Err(CliError::invalid_input(
            "give either an operation (add, update, remove, supersede, verify, state, relate, unrelate) or --from-json, not both",
        )),
        (Some(op), None) => Request {
            operations: vec![operation(op)?],
            ..Request::default()
        },
        (None, Some(file)) => read_request(file)?,
        (None, None) => {
            return Err(CliError::invalid_input(
                "name an operation (add, update, remove, supersede, verify, state, relate, unrelate) or --from-json FILE",
            ))
        }
    };
    let m = &args.meta;
    if let Some(reason) = &m.reason {
        request.reason = Some(utf8("--reason", reason)?);
    }
    for e in &m.evidence {
        request.evidence.push(utf8("--evidence", e)?);
    }
    let agent = match &m.agent {
        Some(a) => Some(a.clone()),
        None => std::env::var_os("MNEME_AGENT"),
    };
    if let Some(agent) = agent {
        if request.agent.is_none() || m.agent.is_some() {
            request.agent = Some(utf8("the agent name", &agent)?);
        }
    }
    Ok(request)
}

fn operation(op: &Op) -> Result<RequestOp> {
    let id = |s: &OsString| utf8("the fact id", s);
    Ok(match op {
        Op::Add { file, text, links } => RequestOp::Add {
            file: utf8("--file", file)?,
            text: text.read()?,
            relations: links.relations()?,
        },
        Op::Update {
            fact_id,
            text,
            links,
        } => RequestOp::Update {
            fact_id: id(fact_id)?,
            text: text.read()?,
            relations: links.relations()?,
        },
        Op::Remove { fact_id } => RequestOp::Remove {
            fact_id: id(fact_id)?,
        },
        Op::Supersede {
            fact_id,
            text,
            links,
        } => RequestOp::Supersede {
            fact_id: id(fact_id)?,
            text: text.read()?,
            relations: links.relations()?,
        },
        Op::Verify { fact_id } => RequestOp::Verify {
            fact_id: id(fact_id)?,
        },
        Op::State { fact_id, state } => RequestOp::State {
            fact_id: id(fact_id)?,
            state: state.clone(),
        },
        Op::Relate { fact_id, links } => RequestOp::Relate {
            fact_id: id(fact_id)?,
            add: links.required("add")?,
            remove: Relations::new(),
        },
        Op::Unrelate { fact_id, links } => RequestOp::Relate {
            fact_id: id(fact_id)?,
            add: Relations::new(),
            remove: links.required("remove")?,
        },
    })
}

/// Largest `--from-json` input accepted.
const MAX_REQUEST: u64 = 1024 * 1024;

fn read_request(file: &Path) -> Result<Request> {
    let mut bytes = Vec::new();
    let shown = file.display().to_string();
    if file.as_os_str() == "-" {
        std::io::stdin()
            .take(MAX_REQUEST + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::input(Path::new("<stdin>"), e))?;
    } else {
        std::fs::File::open(file)
            .and_then(|f| f.take(MAX_REQUEST + 1).read_to_end(&mut bytes))
            .map_err(|e| CliError::input(file, e))?;
    }
    if bytes.len() as u64 > MAX_REQUEST {
        return Err(CliError::invalid_input(format!(
            "{shown}: larger than {MAX_REQUEST} bytes"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| CliError::invalid_utf8(&shown))?;
    serde_json::from_str(&text).map_err(|e| {
        CliError::invalid_input(format!(
            "{shown}: not a valid proposal request: {e} (see docs/format.md)"
        ))
    })
}

//! The operations `propose` takes on the command line (add, update, … relate), each with its
//! `--help`, and the request operation each becomes.

use std::ffi::OsString;
use std::io::Read;
use std::path::Path;

use mneme::model::facts::file::{Relation, Relations};
use mneme::model::proposals::plan::RequestOp;

use crate::cli::{utf8, CliError, Result};

#[derive(Debug, clap::Subcommand)]
pub(super) enum Op {
    /// Propose a new fact in a fact file.
    #[command(after_help = "Examples:
  mneme propose add --file architecture \"We use PostgreSQL 16, not SQLite.\" --reason \"ADR 3\"
  mneme propose add -f pitfalls --stdin --reason \"incident 42\" < statement.txt
  mneme propose add -f pitfalls \"Migrations never drop a column.\" --scope 'migrations/**' \\
      --reason \"incident 42\"")]
    Add {
        /// Fact file, such as `architecture` (see `mneme facts`).
        #[arg(long, short)]
        file: OsString,
        #[command(flatten)]
        text: Text,
        #[command(flatten)]
        links: Links,
        #[command(flatten)]
        scope: Scope,
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
        #[command(flatten)]
        scope: Scope,
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
        #[command(flatten)]
        scope: Scope,
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
pub(super) struct Links {
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

/// The files a fact is about besides those its evidence cites.
#[derive(Debug, clap::Args)]
pub(super) struct Scope {
    /// A glob of files the fact is about, from the repository's root (`src/db/**`,
    /// `migrations/*.sql`; `*` stays within a directory). Agents get the fact when they read or
    /// edit a matching file. Repeat for more; on update and supersede, replaces the fact's own.
    #[arg(long, value_name = "GLOB")]
    scope: Vec<OsString>,
}

impl Scope {
    fn globs(&self) -> Result<Vec<String>> {
        self.scope.iter().map(|g| utf8("--scope", g)).collect()
    }
}

#[derive(Debug, clap::Args)]
pub(super) struct Text {
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

/// The request operation the command line names.
pub(super) fn operation(op: &Op) -> Result<RequestOp> {
    let id = |s: &OsString| utf8("the fact id", s);
    Ok(match op {
        Op::Add {
            file,
            text,
            links,
            scope,
        } => RequestOp::Add {
            file: utf8("--file", file)?,
            text: text.read()?,
            relations: links.relations()?,
            evidence: Vec::new(),
            scope: scope.globs()?,
        },
        Op::Update {
            fact_id,
            text,
            links,
            scope,
        } => RequestOp::Update {
            fact_id: id(fact_id)?,
            text: text.read()?,
            relations: links.relations()?,
            evidence: Vec::new(),
            scope: scope.globs()?,
        },
        Op::Remove { fact_id } => RequestOp::Remove {
            fact_id: id(fact_id)?,
        },
        Op::Supersede {
            fact_id,
            text,
            links,
            scope,
        } => RequestOp::Supersede {
            fact_id: id(fact_id)?,
            text: text.read()?,
            relations: links.relations()?,
            evidence: Vec::new(),
            scope: scope.globs()?,
        },
        Op::Verify { fact_id } => RequestOp::Verify {
            fact_id: id(fact_id)?,
            evidence: Vec::new(),
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

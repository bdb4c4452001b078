//! `diff`'s two views of a range, for a terminal and for a pull request: the net change by fact
//! (`text`, `markdown`) and one entry per approval (`by_commit_text`, `by_commit_markdown`).

use std::fmt::Write as _;

use mneme::model::base::paths;
use mneme::model::base::text::operations_in_brief;
use mneme::model::proposals::preview::Status;
use mneme::model::provenance::decision::Forge;
use mneme::model::provenance::net::{FactNet, How, NetKind, NetSummary, Step};
use mneme::model::provenance::summary::{Entry, EntryKind, PendingReview, Summary};

use crate::cli::ui::{esc, esc1, old_new, paint, short, DIM, HEADER, ID, WARN};

/// Fact changes in a terminal: unreviewed commits first, then each fact, rejections, pending.
pub fn text(s: &NetSummary) -> String {
    let mut out = format!(
        "{}\n",
        paint(HEADER, format!("Fact changes in {}", esc1(&s.range)))
    );
    if !s.unreviewed.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            paint(
                WARN,
                format!(
                    "{} commit(s) changed facts without review (`mneme verify` fails):",
                    s.unreviewed.len()
                )
            )
        );
        for u in &s.unreviewed {
            let _ = writeln!(
                out,
                "  {} {} {}",
                paint(ID, short(&u.commit)),
                esc1(&u.subject),
                paint(DIM, format!("({})", esc1(&u.author)))
            );
            for c in &u.changes {
                let _ = writeln!(
                    out,
                    "    {} {}",
                    paint(ID, esc1(&c.fact)),
                    paint(DIM, format!("{} in {}", c.kind.as_str(), esc1(&c.file)))
                );
                out.push_str(&old_new("      ", c.old.as_deref(), c.new.as_deref()));
            }
        }
    }
    out.push_str(&record_problems_text(&s.record_problems));
    for (kind, count) in s.counts() {
        let _ = writeln!(
            out,
            "\n{}",
            paint(HEADER, format!("{} ({count})", kind.title()))
        );
        for f in s.facts.iter().filter(|f| f.change == kind) {
            let replaced = f
                .replaced_by
                .as_ref()
                .map(|r| format!(", replaced by {}", esc1(r)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {} {}",
                paint(ID, esc1(&f.fact)),
                paint(DIM, format!("({}{replaced})", esc1(&f.file)))
            );
            if f.change == NetKind::Reexamined {
                let _ = writeln!(
                    out,
                    "    {}",
                    esc1(&one_line(f.after.as_deref().unwrap_or("")))
                );
                for m in &f.metadata {
                    let _ = writeln!(out, "    {}", paint(DIM, esc1(m)));
                }
            } else {
                out.push_str(&old_new("    ", f.before.as_deref(), f.after.as_deref()));
            }
            for step in &f.steps {
                let line = step_line(step, Form::Plain);
                let style = match step.how {
                    How::Approved | How::Recorded => DIM,
                    How::Unreviewed | How::Merge => WARN,
                };
                let _ = writeln!(out, "    {}", paint(style, esc1(&line)));
            }
        }
    }
    if !s.rejected.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            paint(HEADER, format!("Rejected ({})", s.rejected.len()))
        );
        for r in &s.rejected {
            let _ = writeln!(
                out,
                "  {} {} {}",
                paint(ID, esc1(&r.proposal)),
                esc1(&r.operations.join(", ")),
                paint(DIM, format!("({})", rejected_by(r)))
            );
            for t in &r.proposed_texts {
                let _ = writeln!(
                    out,
                    "    {} {}",
                    paint(DIM, format!("{}:", esc1(&t.fact_id))),
                    esc1(&one_line(&t.text))
                );
            }
            if let Some(why) = &r.why {
                let _ = writeln!(out, "    {}", paint(DIM, format!("why: {}", esc1(why))));
            }
        }
    }
    pending_text(&mut out, &s.pending);
    if s.facts.is_empty() && s.rejected.is_empty() && s.pending.is_empty() {
        out.push_str("\nNo fact changes.\n");
    }
    out
}

/// `add proposed by claude, approved by Grace (edited) · why · evidence: … · 1a2b3c4d5e`, or the
/// unreviewed commit or merge that wrote the text.
/// How a step is written: plain for a terminal (the caller escapes the whole line), or
/// Markdown with links for a pull request.
#[derive(Clone, Copy)]
enum Form<'a> {
    Plain,
    Markdown(&'a Links<'a>),
}

impl Form<'_> {
    /// Text from history.
    fn text(self, s: &str) -> String {
        match self {
            Form::Plain => s.to_owned(),
            Form::Markdown(_) => md(&esc1(s)),
        }
    }

    fn emphasis(self, s: &str) -> String {
        match self {
            Form::Plain => s.to_owned(),
            Form::Markdown(_) => format!("_{}_", self.text(s)),
        }
    }

    fn strong(self, s: &str) -> String {
        match self {
            Form::Plain => s.to_owned(),
            Form::Markdown(_) => format!("**{s}**"),
        }
    }

    /// What a reader must not miss, ahead of the line.
    fn warning(self, s: &str) -> String {
        match self {
            Form::Plain => format!("{}:", s.to_uppercase()),
            Form::Markdown(_) => format!("**{s}**"),
        }
    }

    fn quote(self, s: &str) -> String {
        match self {
            Form::Plain => format!("\"{s}\""),
            Form::Markdown(_) => self.emphasis(s),
        }
    }

    fn commit(self, id: &str) -> String {
        match self {
            Form::Plain => short(id).to_owned(),
            Form::Markdown(links) => links.commit(id),
        }
    }

    fn evidence(self, e: &str) -> String {
        match self {
            Form::Plain => e.to_owned(),
            Form::Markdown(links) => links.evidence(e),
        }
    }

    /// A remark after the line: on it in a terminal, a nested item in Markdown.
    fn aside(self, s: &str) -> String {
        match self {
            Form::Plain => format!(" · {s}"),
            Form::Markdown(_) => format!("\n    - {s}"),
        }
    }
}

/// One step of a fact's history: who proposed and approved it and why, or the commit that
/// changed it without review.
fn step_line(step: &Step, form: Form<'_>) -> String {
    let commit = form.commit(&step.commit);
    let author = || form.text(step.author.as_deref().unwrap_or("unknown"));
    match step.how {
        How::Approved => {
            let mut line = format!(
                "{} proposed by {}, approved by {}",
                step.op.unwrap_or("change"),
                form.text(step.proposed_by.as_deref().unwrap_or("unknown")),
                form.text(step.approved_by.as_deref().unwrap_or("unknown"))
            );
            if step.edited {
                let _ = write!(line, " {}", form.strong("(edited by the reviewer)"));
            }
            if let Some(reason) = &step.reason {
                let _ = write!(line, " · {}", form.emphasis(&first_line(reason)));
            }
            if !step.evidence.is_empty() {
                let evidence: Vec<String> =
                    step.evidence.iter().map(|e| form.evidence(e)).collect();
                let _ = write!(line, " · evidence: {}", evidence.join(", "));
            }
            let _ = write!(line, " · {commit}");
            if let Some(agent) = &step.agent_text {
                let proposed = format!("the agent proposed: {}", form.text(&one_line(agent)));
                line.push_str(&form.aside(&proposed));
            }
            line
        }
        How::Unreviewed => format!(
            "{} {commit} {} by {}",
            form.warning("unreviewed"),
            form.quote(&step.subject),
            author()
        ),
        How::Merge => format!(
            "{} {commit} {} by {} (in neither parent)",
            form.warning("written while resolving a merge"),
            form.quote(&step.subject),
            author()
        ),
        How::Recorded => format!(
            "landed by {commit} {} by {}: its decision records approve it",
            form.quote(&step.subject),
            author()
        ),
    }
}

fn rejected_by(r: &mneme::model::provenance::net::Rejected) -> String {
    format!(
        "proposed by {}, rejected by {}",
        esc1(r.proposed_by.as_deref().unwrap_or("unknown")),
        esc1(r.rejected_by.as_deref().unwrap_or("unknown"))
    )
}

/// Where markdown links commits and evidence files, if anywhere.
pub struct Links<'a> {
    url: Option<&'a str>,
    head: &'a str,
    /// What comes between the project's address and `commit/…`, `blob/…`: GitLab's `/-`.
    routes: &'static str,
}

impl<'a> Links<'a> {
    pub fn new(url: Option<&'a str>, head: &'a str) -> Links<'a> {
        Links {
            url: url.map(|u| u.trim_end_matches('/')),
            head,
            routes: "",
        }
    }

    /// Links into a project on `forge`: GitLab's are `URL/-/commit/<id>`,
    /// `URL/-/blob/<head>/<path>`.
    pub fn on(forge: Forge, url: Option<&'a str>, head: &'a str) -> Links<'a> {
        Links {
            routes: match forge {
                Forge::GitHub => "",
                Forge::GitLab => "/-",
            },
            ..Links::new(url, head)
        }
    }

    /// The commit's web address, where there is a project to link into.
    pub fn commit_url(&self, id: &str) -> Option<String> {
        self.url
            .map(|url| format!("{url}{}/commit/{id}", self.routes))
    }

    fn commit(&self, id: &str) -> String {
        match self.commit_url(id) {
            Some(url) => format!("[`{}`]({url})", short(id)),
            None => format!("`{}`", short(id)),
        }
    }

    /// An evidence reference: a web address as is, a repository path (`src/x.rs:12`) linked to
    /// the file at the head, anything else as code.
    fn evidence(&self, e: &str) -> String {
        if e.starts_with("https://") || e.starts_with("http://") {
            return format!("<{}>", e.replace(['<', '>', ' '], ""));
        }
        let (path, line) = match e.rsplit_once(':') {
            Some((p, l)) if !l.is_empty() && l.chars().all(|c| c.is_ascii_digit()) => (p, Some(l)),
            _ => (e, None),
        };
        let plain = !path.is_empty()
            && !path.starts_with('/')
            && path
                .split('/')
                .all(|part| !part.is_empty() && part != ".." && part != ".")
            && path
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c));
        match self.url {
            Some(url) if plain => {
                let anchor = line.map(|l| format!("#L{l}")).unwrap_or_default();
                format!(
                    "[`{}`]({url}{}/blob/{}/{path}{anchor})",
                    esc1(e),
                    self.routes,
                    self.head
                )
            }
            _ => code(e),
        }
    }
}

/// Longest markdown `diff` prints: a pull-request comment holds 65,536 characters.
const MARKDOWN_MAX: usize = 60_000;

/// Markdown for a pull-request comment or a CI job summary: what a reviewer must see first
/// (unreviewed changes), then one entry per fact.
pub fn markdown(s: &NetSummary, links: &Links<'_>) -> String {
    let mut out = format!("## Fact changes in {}\n\n", code(&s.range));
    let mut tally: Vec<String> = Vec::new();
    if !s.unreviewed.is_empty() {
        tally.push(format!("**{} unreviewed commit(s)**", s.unreviewed.len()));
    }
    if !s.record_problems.is_empty() {
        tally.push(format!(
            "**{} fact(s) not as approved**",
            s.record_problems.len()
        ));
    }
    tally.extend(
        s.counts()
            .into_iter()
            .map(|(kind, n)| format!("{n} {}", kind.title().to_lowercase())),
    );
    tally.push(format!("{} rejected", s.rejected.len()));
    tally.push(format!("{} pending", s.pending.len()));
    let _ = writeln!(out, "{}\n", tally.join(" · "));

    // Entries in the order a reviewer reads them; cut, with a note, before a comment overflows.
    let mut entries: Vec<String> = Vec::new();
    if !s.unreviewed.is_empty() {
        let mut block = String::from(
            "> [!CAUTION]\n> **Facts changed without review.** `mneme verify` fails on these commits: revert them and propose the change with `mneme propose`.\n>\n",
        );
        for u in &s.unreviewed {
            let _ = writeln!(
                block,
                "> - {} _{}_ by {}",
                links.commit(&u.commit),
                md(&esc1(&u.subject)),
                md(&esc1(&u.author))
            );
            for c in &u.changes {
                let _ = writeln!(
                    block,
                    ">   - {} in {} {}",
                    code(&c.fact),
                    code(&c.file),
                    c.kind.as_str()
                );
                if let Some(old) = &c.old {
                    let _ = writeln!(block, ">     - before: {}", md(&one_line(old)));
                }
                if let Some(new) = &c.new {
                    let _ = writeln!(block, ">     - after: {}", md(&one_line(new)));
                }
            }
        }
        entries.push(block);
    }
    entries.extend(record_problems_markdown(&s.record_problems));
    for (kind, count) in s.counts() {
        entries.push(format!("\n### {} ({count})\n\n", kind.title()));
        for f in s.facts.iter().filter(|f| f.change == kind) {
            entries.push(fact_markdown(f, links));
        }
    }
    if !s.rejected.is_empty() {
        entries.push(format!("\n### Rejected ({})\n\n", s.rejected.len()));
        for r in &s.rejected {
            let why = r
                .why
                .as_ref()
                .map(|w| format!(": _{}_", md(&esc1(w))))
                .unwrap_or_default();
            let mut block = format!(
                "- {} {} — {}{why}\n",
                code(&r.proposal),
                md(&esc1(&r.operations.join(", "))),
                md(&rejected_by(r))
            );
            for t in &r.proposed_texts {
                let _ = writeln!(
                    block,
                    "  - {}: {}",
                    code(&t.fact_id),
                    md(&one_line(&t.text))
                );
            }
            entries.push(block);
        }
    }
    if !s.pending.is_empty() {
        entries.push(format!("\n### Pending proposals ({})\n\n", s.pending.len()));
        for p in &s.pending {
            let opened = if p.opened_in_range {
                " _(opened in this range)_"
            } else {
                ""
            };
            let mut block = format!(
                "- {} {}{opened}\n",
                code(&p.id),
                md(&esc1(&operations_in_brief(&p.operations)))
            );
            if let Some(r) = &p.review {
                pending_review_markdown(&mut block, &p.id, p.agent.as_deref(), r, links);
            }
            entries.push(block);
        }
    }
    if s.facts.is_empty() && s.rejected.is_empty() && s.pending.is_empty() {
        entries.push("No fact changes.\n".into());
    }
    let total = entries.len();
    for (n, entry) in entries.into_iter().enumerate() {
        if out.len() + entry.len() > MARKDOWN_MAX {
            let _ = writeln!(
                out,
                "\n_… {} more entries left out to fit a comment; run `mneme diff {}` for all of them._",
                total - n,
                md(&esc1(&s.range))
            );
            break;
        }
        out.push_str(&entry);
    }
    out
}

/// One fact: its text before and after, and a line per commit that changed it.
fn fact_markdown(f: &FactNet, links: &Links<'_>) -> String {
    let flag = if f.unreviewed { " ⚠️" } else { "" };
    let mut out = format!("- {} · {}", code(&f.fact), code(&f.file));
    if f.change == NetKind::Reexamined {
        let _ = writeln!(
            out,
            "{flag}: {}",
            md(&one_line(f.after.as_deref().unwrap_or("")))
        );
        for m in &f.metadata {
            let _ = writeln!(out, "  - {}", md(&esc1(m)));
        }
    } else {
        out.push_str(&change_markdown(
            f.replaced_by.as_deref(),
            flag,
            f.before.as_deref(),
            f.after.as_deref(),
        ));
    }
    for step in &f.steps {
        let line = step_line(step, Form::Markdown(links));
        let _ = writeln!(out, "  - {line}");
    }
    out
}

/// The rest of a Markdown item after a fact's name: what replaced it, `tail`, then the text
/// added (`: new`), removed (`: ~~old~~`), or both as nested before and after items.
fn change_markdown(
    replaced_by: Option<&str>,
    tail: &str,
    old: Option<&str>,
    new: Option<&str>,
) -> String {
    let replaced = replaced_by
        .map(|r| format!(" → {}", code(r)))
        .unwrap_or_default();
    let mut out = format!("{replaced}{tail}");
    match (old, new) {
        (None, Some(new)) => {
            let _ = writeln!(out, ": {}", md(&one_line(new)));
        }
        (Some(old), None) => {
            let _ = writeln!(out, ": ~~{}~~", md(&one_line(old)));
        }
        (old, new) => {
            out.push('\n');
            if let Some(old) = old {
                let _ = writeln!(out, "  - before: {}", md(&one_line(old)));
            }
            if let Some(new) = new {
                let _ = writeln!(out, "  - after: {}", md(&one_line(new)));
            }
        }
    }
    out
}

/// What approving a pending proposal would do, for the pull request's reviewer: who proposed it
/// and why, its evidence linked at the head, why it cannot be approved as it is, what reads
/// alike or competes, the command that decides it, and the fact diff folded.
fn pending_review_markdown(
    out: &mut String,
    id: &str,
    agent: Option<&str>,
    r: &PendingReview,
    links: &Links<'_>,
) {
    let _ = writeln!(
        out,
        "  - proposed by {}: _{}_",
        md(&esc1(agent.unwrap_or("an unnamed agent"))),
        md(&one_line(&r.reason))
    );
    if !r.evidence.is_empty() {
        let cited: Vec<String> = r.evidence.iter().map(|e| links.evidence(e)).collect();
        let _ = writeln!(out, "  - evidence: {}", cited.join(", "));
    }
    if let Some(problem) = &r.problem {
        let status = match r.status {
            Status::Conflict => " (conflict)",
            Status::Invalid => " (invalid)",
            Status::Clean | Status::Rebased => "",
        };
        let _ = writeln!(
            out,
            "  - **cannot be approved as it is**{status}: {}",
            md(&one_line(problem))
        );
    }
    for s in &r.similar {
        let source = match &s.proposal {
            Some(p) => format!("pending {}", code(p)),
            None => format!("fact {}", code(&s.fact_id)),
        };
        let _ = writeln!(out, "  - reads like {source}: {}", md(&one_line(&s.text)));
    }
    for c in &r.competing {
        let _ = writeln!(
            out,
            "  - competes with {} on {}",
            code(&c.proposal),
            code(&c.fact_id)
        );
    }
    // A comment names a proposal by the random end of its id, which review finds as well.
    let short = id.rsplit_once('-').map_or(id, |(_, random)| random);
    // The pin: an approval by this comment is of the text shown here, or refused.
    let (comment, terminal) = if r.problem.is_none() {
        (
            format!("`/mneme approve {short}@{}` or ", r.pin),
            format!("`mneme review approve {id}` or "),
        )
    } else {
        (String::new(), String::new())
    };
    let _ = writeln!(
        out,
        "  - decide: comment {comment}`/mneme reject {short} <reason>` (in a terminal: {terminal}`mneme review reject {id} --reason \"…\"`)"
    );
    if !r.diff.is_empty() {
        let diff = esc(&r.diff);
        let fence = fence_for(&diff);
        let _ = write!(
            out,
            "\n  <details><summary>Fact diff</summary>\n\n  {fence}diff\n{}  {fence}\n\n  </details>\n\n",
            diff.lines().map(|l| format!("  {l}\n")).collect::<String>()
        );
    }
}

/// A code fence that `s` cannot close: longer than any run of backticks in it.
pub(crate) fn fence_for(s: &str) -> String {
    "`".repeat(longest_run(s, '`').max(2) + 1)
}

/// The longest run of `c` in `s`: a code fence must be longer to hold `s`.
fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for ch in s.chars() {
        run = if ch == c { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// `s` as inline code, control characters escaped; backticks inside are dropped.
pub(crate) fn code(s: &str) -> String {
    format!("`{}`", esc1(s).replace('`', ""))
}

fn pending_text(out: &mut String, pending: &[mneme::model::provenance::summary::PendingLine]) {
    if pending.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n{}",
        paint(HEADER, format!("Pending proposals ({})", pending.len()))
    );
    for p in pending {
        let _ = writeln!(
            out,
            "  {} {}{}",
            paint(ID, esc1(&p.id)),
            esc1(&operations_in_brief(&p.operations)),
            if p.opened_in_range {
                paint(DIM, " (opened here)")
            } else {
                String::new()
            }
        );
    }
}

/// A statement from history on one line, control characters escaped.
fn one_line(s: &str) -> String {
    esc1(&mneme::model::base::text::one_line(s)).into_owned()
}

fn opt_line(s: &Option<String>) -> String {
    one_line(s.as_deref().unwrap_or(""))
}

fn who(e: &Entry) -> String {
    format!(
        "proposed by {}, approved by {}",
        esc1(e.proposed_by.as_deref().unwrap_or("unknown")),
        esc1(e.approved_by.as_deref().unwrap_or("unknown"))
    )
}

pub fn by_commit_text(s: &Summary) -> String {
    let mut out = format!(
        "{}\n",
        paint(HEADER, format!("Fact changes in {}", esc1(&s.range)))
    );
    for (title, entries) in s.sections() {
        if entries.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{}", paint(HEADER, title));
        for e in entries {
            let _ = writeln!(
                out,
                "  {} {}",
                paint(ID, esc1(&e.fact)),
                paint(DIM, format!("({}; {})", esc1(&e.file), who(e)))
            );
            match e.kind {
                EntryKind::Added => {
                    let _ = writeln!(out, "    + {}", opt_line(&e.new));
                }
                EntryKind::Removed => {
                    let _ = writeln!(out, "    - {}", opt_line(&e.old));
                }
                _ => {
                    let _ = writeln!(
                        out,
                        "    - {}\n    + {}{}",
                        opt_line(&e.old),
                        opt_line(&e.new),
                        e.replaced_by
                            .as_ref()
                            .map(|r| format!(" ({})", esc1(r)))
                            .unwrap_or_default()
                    );
                }
            }
            let _ = writeln!(
                out,
                "    {}",
                paint(DIM, format!("why: {}", first_line(&e.reason)))
            );
        }
    }
    if !s.rejected.is_empty() {
        let _ = writeln!(out, "\n{}", paint(HEADER, "Rejected"));
        for r in &s.rejected {
            let _ = writeln!(
                out,
                "  {} {}",
                paint(ID, esc1(&r.proposal)),
                paint(DIM, first_line(&r.reason))
            );
        }
    }
    pending_text(&mut out, &s.pending);
    if s.added.len()
        + s.updated.len()
        + s.superseded.len()
        + s.removed.len()
        + s.reexamined.len()
        + s.rejected.len()
        + s.pending.len()
        == 0
    {
        out.push_str("\nNo fact changes.\n");
    }
    if s.unreviewed_commits > 0 {
        let _ = writeln!(
            out,
            "\n{}",
            paint(
                WARN,
                format!(
                    "{} commit(s) changed facts without review; run `mneme verify`",
                    s.unreviewed_commits
                )
            )
        );
    }
    out.push_str(&record_problems_text(&s.record_problems));
    out
}

/// What the decision records say is wrong with the facts, for a terminal (empty when nothing).
fn record_problems_text(problems: &[String]) -> String {
    let mut out = String::new();
    if problems.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "\n{}",
        paint(
            WARN,
            "The facts are not what their decision records approved (`mneme verify` fails):"
        )
    );
    for p in problems {
        let _ = writeln!(out, "  {}", esc1(p));
    }
    out
}

/// The same as a markdown alert, if there is anything to say.
fn record_problems_markdown(problems: &[String]) -> Option<String> {
    if problems.is_empty() {
        return None;
    }
    let mut block = String::from(
        "\n> [!CAUTION]\n> **The facts are not what their decision records approved.** `mneme verify` fails: restore the approved facts, or propose the change with `mneme propose`.\n>\n",
    );
    for p in problems {
        let _ = writeln!(block, "> - {}", md(&esc1(p)));
    }
    Some(block)
}

/// The first line of a reason from history, control characters escaped.
fn first_line(s: &str) -> String {
    esc1(s.lines().next().unwrap_or("")).into_owned()
}

/// Markdown for a pull-request comment or a CI job summary.
pub fn by_commit_markdown(s: &Summary) -> String {
    let mut out = format!(
        "## Ledger changes ({})\n\n",
        esc1(&s.range).replace('`', "")
    );
    let _ = writeln!(
        out,
        "**{} added · {} updated · {} superseded · {} removed · {} re-examined · {} rejected · {} pending**\n",
        s.added.len(),
        s.updated.len(),
        s.superseded.len(),
        s.removed.len(),
        s.reexamined.len(),
        s.rejected.len(),
        s.pending.len()
    );
    if s.unreviewed_commits > 0 {
        let _ = writeln!(
            out,
            "> [!WARNING]\n> {} commit(s) changed `{}/` without review. Run `mneme verify`.\n",
            s.unreviewed_commits,
            paths::FACTS
        );
    }
    if let Some(block) = record_problems_markdown(&s.record_problems) {
        let _ = writeln!(out, "{block}");
    }
    for (title, entries) in s.sections() {
        if entries.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### {title}\n");
        for e in entries {
            let _ = write!(out, "- `{}` in `{}`", esc1(&e.fact), esc1(&e.file));
            out.push_str(&change_markdown(
                e.replaced_by.as_deref(),
                "",
                e.old.as_deref(),
                e.new.as_deref(),
            ));
            let _ = writeln!(
                out,
                "  - _{}_ — {}",
                md(&first_line(&e.reason)),
                md(&who(e))
            );
        }
        out.push('\n');
    }
    if !s.rejected.is_empty() {
        out.push_str("### Rejected\n\n");
        for r in &s.rejected {
            let _ = writeln!(
                out,
                "- `{}`: {}",
                esc1(&r.proposal),
                md(&first_line(&r.reason))
            );
        }
        out.push('\n');
    }
    if !s.pending.is_empty() {
        out.push_str("### Pending proposals\n\n");
        for p in &s.pending {
            let opened = if p.opened_in_range {
                " _(opened in this range)_"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "- `{}` {}{opened}",
                esc1(&p.id),
                md(&esc1(&operations_in_brief(&p.operations)))
            );
        }
        out.push('\n');
    }
    out
}

/// Escapes the characters that would change Markdown rendering of a fact. Text from a branch
/// mentions no one: an `@` that could open a mention (not inside a word, as in an email
/// address) is followed by a zero-width space, written as an entity as bots' release notes do,
/// which GitHub and GitLab neither link nor notify; `&` is written as `&amp;` so that no entity
/// in the text becomes an `@`.
pub(crate) fn md(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut previous = ' ';
    for c in s.chars() {
        let in_word = previous.is_alphanumeric() || previous == '_';
        previous = c;
        match c {
            '@' if !in_word => {
                out.push_str("@&#8203;");
                continue;
            }
            '&' => {
                out.push_str("&amp;");
                continue;
            }
            _ => {}
        }
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(n: usize) -> FactNet {
        FactNet {
            fact: format!("f-{n:04}"),
            file: "architecture.md".into(),
            change: NetKind::Added,
            before: None,
            after: Some(format!(
                "Fact number {n} says something long enough to matter."
            )),
            replaced_by: None,
            metadata: Vec::new(),
            unreviewed: false,
            steps: Vec::new(),
        }
    }

    #[test]
    fn markdown_is_cut_to_fit_a_comment_and_says_so() {
        let summary = NetSummary {
            range: "main..HEAD".into(),
            base: None,
            head: "0".repeat(40),
            unreviewed: Vec::new(),
            record_problems: Vec::new(),
            facts: (0..5000).map(fact).collect(),
            rejected: Vec::new(),
            pending: Vec::new(),
        };
        let md = markdown(&summary, &Links::new(None, &summary.head));
        assert!(md.len() <= MARKDOWN_MAX + 200, "{}", md.len());
        assert!(md.contains("`f-0000`"));
        assert!(!md.contains("`f-4999`"));
        assert!(md.contains("more entries left out to fit a comment"));
        let small = NetSummary {
            facts: vec![fact(1)],
            ..summary
        };
        assert!(!markdown(&small, &Links::new(None, "h")).contains("left out"));
    }

    #[test]
    fn evidence_links_only_plain_repository_paths() {
        let links = Links::new(Some("https://example.com/o/r/"), "abc");
        assert_eq!(
            links.evidence("src/x.rs:12"),
            "[`src/x.rs:12`](https://example.com/o/r/blob/abc/src/x.rs#L12)"
        );
        assert_eq!(links.evidence("../etc/passwd"), "`../etc/passwd`");
        assert_eq!(links.evidence("PR #12 discussion"), "`PR #12 discussion`");
        assert_eq!(links.evidence("https://x.y/z"), "<https://x.y/z>");
        assert_eq!(Links::new(None, "abc").evidence("src/x.rs"), "`src/x.rs`");
    }
}

//! The context as an agent reads it: Markdown, within a budget of characters. Facts come first,
//! then tasks in progress with their latest note, then ready tasks, then pending proposals. When
//! not all facts fit, the marked ones are kept first, then those citing recently changed code,
//! then the most recently verified or approved. What does not fit is named in a closing line,
//! never cut in the middle of an item.

use crate::model::base::paths;
use std::cmp::Reverse;

use crate::model::agents::scope::about_no_file;
use crate::model::base::text::{
    escape_controls, escape_line, first_chars, listing, operations_in_brief, truncate,
};
use crate::model::views::{Context, FactView, TaskLine};

/// What a runtime's hook gets unless told otherwise: below the ~10,000 characters at which
/// Claude Code cuts a hook's output to a preview.
pub const HOOK_BUDGET: usize = 9000;

/// Room kept for the closing lines that name what did not fit.
pub const CLOSING_RESERVE: usize = 500;

/// How the context starts: what shows that a runtime's history holds it.
pub const HEADING: &str = "# Project facts (";

/// The context as Markdown in at most `max_chars` characters (no limit with `None`).
pub fn render(c: &Context, max_chars: Option<usize>) -> String {
    let mut out = Budget::new(max_chars.map(|limit| limit.saturating_sub(CLOSING_RESERVE)));
    let facts: usize = c.files.iter().map(|f| f.facts.len()).sum();
    out.always(&format!(
        "{HEADING}{facts}) — verified by humans; they outrank conversation history\n\
         Cite facts by id. Never edit {}/; change them with `mneme propose`.\n",
        paths::FACTS
    ));
    if c.files
        .iter()
        .flat_map(|f| &f.facts)
        .any(FactView::is_marked)
    {
        out.always(
            "Facts marked [stale] may be out of date: check them before relying on them. \
             [contested] ones are disputed: ask a person before acting on them. \
             [unapproved] ones differ from what a person approved: do not rely on them.\n",
        );
    }
    if let Some(error) = &c.config_error {
        out.always(&format!(
            "{} cannot be used ({}); the defaults apply. Tell the user to fix it (`mneme check`).\n",
            paths::CONFIG,
            escape_line(error)
        ));
    }
    let omitted_facts = facts_section(c, &mut out);
    if !c.scoped.is_empty() {
        out.always(&scoped_line(c));
    }
    for name in &c.unresolved {
        out.always(&format!(
            "\n{} has an unresolved merge conflict; its facts are not shown until it is resolved (see `mneme check`)\n",
            escape_line(&paths::fact_file(name))
        ));
    }
    if !c.unapproved.is_empty() {
        out.always(&format!(
            "\n{} fact(s) differ from what was approved (edited outside review) and are marked [unapproved]: {}. Tell the user.\n",
            c.unapproved.len(),
            // Outside the budget: a few ids, never the whole list.
            escape_line(&listing(&c.unapproved, "mneme check"))
        ));
    }
    if !c.drifted.is_empty() {
        out.always(&format!(
            "\n{} fact(s) cite code that changed since a person last vouched for them and are marked [stale]: {}. Check each against the code before relying on it; if it still holds, `mneme propose verify <id> --reason …`; if not, propose the update.\n",
            c.drifted.len(),
            escape_line(&listing(&c.drifted, "mneme stale"))
        ));
    }
    // With every fact about files left for later, the index line above says where they are.
    if facts == 0 && c.scoped.is_empty() {
        out.always("\nNo facts yet.\n");
    }
    let (omitted_in_progress, omitted_ready) = tasks_section(c, &mut out);
    let omitted_proposals = proposals_section(c, &mut out);
    let mut closing = String::new();
    if omitted_facts.total > 0 {
        closing.push_str(&omitted_facts_line(c, &omitted_facts));
    }
    for (n, what, command) in [
        (
            omitted_in_progress,
            "task(s) in progress",
            "mneme list --status in_progress",
        ),
        (omitted_ready, "ready task(s)", "mneme ready"),
        (
            omitted_proposals,
            "pending proposal(s)",
            "mneme review list",
        ),
    ] {
        if n > 0 {
            closing.push_str(&format!("{n} more {what}: `{command}`\n"));
        }
    }
    let b = &c.budget;
    let mut tail = format!("\nBudget: {}/{} lines", b.used, b.limit);
    if c.superseded > 0 {
        tail.push_str(&format!(" · {} superseded fact(s) not shown", c.superseded));
    }
    if c.archived > 0 {
        tail.push_str(&format!(" · {} archived fact(s) not shown", c.archived));
    }
    tail.push('\n');
    if c.facts_without_id > 0 {
        tail.push_str(&format!(
            "{} fact(s) have no id yet; `mneme check --fix` gives them one\n",
            c.facts_without_id
        ));
    }
    if !closing.is_empty() {
        out.always(&format!("\n{closing}"));
    }
    out.always(&tail);
    out.text
}

/// The line that says which facts about files a scoped session start left out, and how they
/// come.
fn scoped_line(c: &Context) -> String {
    let total: usize = c.scoped.iter().map(|d| d.facts).sum();
    let dirs: Vec<String> = c
        .scoped
        .iter()
        .map(|d| format!("{} ({})", escape_line(&d.dir), d.facts))
        .collect();
    format!(
        "\n{total} more fact(s) are about specific files and come when you read or edit one of them: {}. `mneme context --files PATH…` gives them now.\n",
        dirs.join(", ")
    )
}

/// The facts about the files an agent just read or edited, as a runtime's tool hook adds them:
/// a heading naming the files, then each fact's line, within `max_chars` (what does not fit is
/// counted). `facts` are those not yet given to the session.
pub fn about_files(files: &[String], facts: &[&FactView], max_chars: usize) -> String {
    // The heading names a few files: the facts, not the list, are what must fit.
    let mut names: Vec<String> = files
        .iter()
        .take(NAMED_FILES)
        .map(|f| format!("`{}`", escape_line(&truncate(f, 200))))
        .collect();
    if files.len() > NAMED_FILES {
        names.push(format!("and {} more", files.len() - NAMED_FILES));
    }
    let heading = format!(
        "{ABOUT_HEADING}{}) — verified by humans; they outrank conversation history\n",
        names.join(", ")
    );
    facts_block(&heading, facts, max_chars, |left| {
        format!(
            "{left} more fact(s) about these files did not fit: `mneme context --files {}`\n",
            files
                .iter()
                .take(NAMED_FILES)
                .map(|f| escape_line(&truncate(f, 200)).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        )
    })
}

/// The facts a session had been given about the files it worked on, which its compaction
/// dropped, for the compaction's hook to give back: the agent goes on with those files, and a
/// tool hook's facts come only after the tool. Empty when there are none.
pub fn carried_over(facts: &[&FactView], max_chars: usize) -> String {
    if facts.is_empty() {
        return String::new();
    }
    facts_block(CARRIED_HEADING, facts, max_chars, |left| {
        format!("{left} more fact(s) about them did not fit; they come again when you read or edit their files.\n")
    })
}

/// How the facts a compaction's hook gives back start.
pub const CARRIED_HEADING: &str = "# Project facts about the files you worked on before the compaction — verified by humans; they outrank conversation history\n";

/// `heading`, then `facts` while they fit `max_chars`, then `more(n)` for the `n` that did not.
fn facts_block(
    heading: &str,
    facts: &[&FactView],
    max_chars: usize,
    more: impl FnOnce(usize) -> String,
) -> String {
    let mut out = Budget::new(Some(max_chars.saturating_sub(CLOSING_RESERVE)));
    out.always(heading);
    let left = facts.iter().filter(|f| !out.fits(&fact_line(f))).count();
    if left > 0 {
        out.always(&more(left));
    }
    out.text
}

/// How many of the files a tool touched the facts about them name.
const NAMED_FILES: usize = 5;

/// How the facts a tool hook adds start.
pub const ABOUT_HEADING: &str = "# Project facts about the files you touched (";

/// The ids of the facts a rendered context or [`about_files`] text shows: its fact lines are
/// `- <id> …` and nothing else starts so ([`fact_line`]).
pub fn shown_ids(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split(' ').next())
        .filter(|id| crate::model::facts::file::is_fact_id(id))
        .map(str::to_owned)
        .collect()
}

/// Text under construction: `fits` adds a piece only while the budget allows it.
struct Budget {
    text: String,
    /// Characters used, counted only under a limit.
    used: usize,
    /// `None`: no limit, and nothing to count.
    limit: Option<usize>,
}

impl Budget {
    fn new(limit: Option<usize>) -> Budget {
        Budget {
            text: String::new(),
            used: 0,
            limit,
        }
    }

    /// Adds `piece` whatever its size: headings and the closing lines.
    fn always(&mut self, piece: &str) {
        self.write(|text| text.push_str(piece));
    }

    /// Adds what `write` appends, whatever its size.
    fn write(&mut self, write: impl FnOnce(&mut String)) {
        let start = self.text.len();
        write(&mut self.text);
        if self.limit.is_some() {
            self.used += self
                .text
                .get(start..)
                .map_or(0, |added| added.chars().count());
        }
    }

    /// Adds `piece` if it fits; says whether it did.
    fn fits(&mut self, piece: &str) -> bool {
        let fits = self.room_for(|| piece.chars().count());
        if fits {
            self.text.push_str(piece);
        }
        fits
    }

    /// Counts the characters `n` gives as used if they fit (without a limit, never asking),
    /// keeping no text; says whether they did.
    fn room_for(&mut self, n: impl FnOnce() -> usize) -> bool {
        let Some(limit) = self.limit else {
            return true;
        };
        let n = n();
        let fits = self.used + n <= limit;
        if fits {
            self.used += n;
        }
        fits
    }
}

/// What of the facts did not fit, for the closing line.
#[derive(Default)]
struct Omitted {
    total: usize,
    marked: usize,
    code_changed: usize,
    no_file: usize,
    /// Fact files in the context's order, with how many of each were left out.
    by_file: Vec<usize>,
}

/// The facts in [`ranked`] order while they fit, grouped under their file's heading in the
/// order their files come.
fn facts_section(c: &Context, out: &mut Budget) -> Omitted {
    // The facts that fit, under their files; without a limit each line is only written once,
    // in place.
    let mut chosen: Vec<Vec<&FactView>> = vec![Vec::new(); c.files.len()];
    let mut room = Budget::new(out.limit.map(|limit| limit.saturating_sub(out.used)));
    let mut omitted = Omitted {
        by_file: vec![0; c.files.len()],
        ..Omitted::default()
    };
    for (file, fact) in ranked(c) {
        let fits = room.room_for(|| {
            let heading = match chosen[file].is_empty() {
                true => file_heading(c, file).chars().count(),
                false => 0,
            };
            heading + fact_line(fact).chars().count()
        });
        if fits {
            chosen[file].push(fact);
            continue;
        }
        omitted.total += 1;
        omitted.by_file[file] += 1;
        match rank_group(c, fact) {
            Group::Marked => omitted.marked += 1,
            Group::NoFile => omitted.no_file += 1,
            Group::CodeChanged(_) => omitted.code_changed += 1,
            Group::Rest => {}
        }
    }
    for (file, facts) in chosen.iter().enumerate() {
        if facts.is_empty() {
            continue;
        }
        out.always(&file_heading(c, file));
        for fact in facts {
            out.write(|text| push_fact_line(text, fact));
        }
    }
    omitted
}

/// Where a fact ranks when not all fit, most needed first: what only the start can bring, then
/// what the tool hooks would bring anyway when the agent touches its files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Group {
    /// Unapproved, stale or contested: acting on one unwarned costs the most.
    Marked,
    /// About no file, where the tool hooks bring the facts about files: left out here, no hook
    /// brings it later. (Without such hooks every fact has only the start.)
    NoFile,
    /// Cites code changed this many commits back from HEAD: what the work is likely about.
    CodeChanged(usize),
    Rest,
}

fn rank_group(c: &Context, fact: &FactView) -> Group {
    if fact.is_marked() {
        return Group::Marked;
    }
    if c.file_hooks && about_no_file(fact) {
        return Group::NoFile;
    }
    match fact.id.as_ref().and_then(|id| c.code_changed.get(id)) {
        Some(&n) => Group::CodeChanged(n),
        None => Group::Rest,
    }
}

/// Every current fact with its file's index, in the order an agent most needs them: by
/// [`Group`], then the most recently approved or verified. Ties go round the files, each file's
/// facts in their written order, so that neither ids nor the files' order decide what is left
/// out.
fn ranked(c: &Context) -> Vec<(usize, &FactView)> {
    let mut ranked: Vec<(usize, usize, &FactView)> = c
        .files
        .iter()
        .enumerate()
        .flat_map(|(i, f)| {
            f.facts
                .iter()
                .enumerate()
                .map(move |(at, fact)| (i, at, fact))
        })
        .collect();
    // Dates are YYYY-MM-DD, so they sort as text; a fact without one sorts last.
    ranked.sort_by_cached_key(|&(file, at, fact)| {
        (rank_group(c, fact), Reverse(recency(fact)), at, file)
    });
    ranked
        .into_iter()
        .map(|(file, _, fact)| (file, fact))
        .collect()
}

/// The closing line for the facts that did not fit: how many, which kinds, from which files,
/// and how to read them. Bounded whatever the file names (they count against the reserve).
fn omitted_facts_line(c: &Context, o: &Omitted) -> String {
    let mut kinds = Vec::new();
    if o.marked > 0 {
        kinds.push(format!("{} marked", o.marked));
    }
    if o.no_file > 0 {
        kinds.push(format!("{} about no file", o.no_file));
    }
    if o.code_changed > 0 {
        kinds.push(format!("{} citing recently changed code", o.code_changed));
    }
    let rest = o.total - o.marked - o.no_file - o.code_changed;
    if rest > 0 {
        kinds.push(format!("{rest} less recently approved or verified"));
    }
    let mut files: Vec<(usize, &str)> = o
        .by_file
        .iter()
        .zip(&c.files)
        .filter(|(n, _)| **n > 0)
        .map(|(n, f)| (*n, f.name.as_str()))
        .collect();
    files.sort_by_key(|&(n, _)| Reverse(n));
    let mut by_file: Vec<String> = files
        .iter()
        .take(3)
        .map(|(n, name)| format!("{} {n}", escape_line(first_chars(name, 40))))
        .collect();
    if files.len() > 3 {
        by_file.push(format!("{} more files", files.len() - 3));
    }
    format!(
        "{} more facts did not fit ({}; by file: {}): `mneme facts [FILE]`\n",
        o.total,
        kinds.join(", "),
        by_file.join(", ")
    )
}

/// The later of the fact's dates (a fact without one sorts last).
fn recency(f: &FactView) -> Option<&str> {
    f.verified.as_deref().max(f.since.as_deref())
}

fn file_heading(c: &Context, file: usize) -> String {
    let f = &c.files[file];
    format!(
        "\n## {} ({})\n",
        escape_line(&f.title),
        escape_line(&f.name)
    )
}

/// What starts each continuation line of a statement in the context: no line of a statement can
/// then read as a fact line or a heading of the context itself.
pub const CONTINUATION: &str = "  │";

/// What a fact's line says before its statement: `f-7f3cq ` and its standing, `[stale] `.
pub fn fact_label(fact: &FactView) -> String {
    let mut label = String::new();
    push_label(&mut label, fact);
    label
}

fn push_label(out: &mut String, fact: &FactView) {
    match &fact.id {
        Some(id) => out.push_str(id),
        None => out.push_str(&format!("(no id, line {})", fact.line)),
    }
    out.push(' ');
    if let Some(note) = fact.standing_note() {
        out.push('[');
        out.push_str(&escape_line(&note));
        out.push_str("] ");
    }
}

/// `- f-7f3cq Statement`, each continuation line under it marked ([`CONTINUATION`]).
pub fn fact_line(fact: &FactView) -> String {
    // Most statements are one line: the line is built in one allocation.
    let mut out = String::with_capacity(fact.text.len() + 24);
    push_fact_line(&mut out, fact);
    out
}

fn push_fact_line(out: &mut String, fact: &FactView) {
    out.push_str("- ");
    push_label(out, fact);
    push_statement(out, &fact.text);
}

/// `- <label><statement>`, each further line of the statement marked ([`CONTINUATION`]), its
/// control characters escaped.
pub fn statement_lines(label: &str, statement: &str) -> String {
    let mut out = String::with_capacity(label.len() + statement.len() + 8);
    out.push_str("- ");
    out.push_str(label);
    push_statement(&mut out, statement);
    out
}

fn push_statement(out: &mut String, statement: &str) {
    let text = escape_controls(statement);
    let mut lines = text.lines();
    out.push_str(lines.next().unwrap_or(""));
    out.push('\n');
    for l in lines {
        out.push_str(CONTINUATION);
        if !l.is_empty() {
            out.push(' ');
            out.push_str(l);
        }
        out.push('\n');
    }
}

/// Tasks in progress (with their latest note), then ready ones. Returns how many of each were
/// not listed.
fn tasks_section(c: &Context, out: &mut Budget) -> (usize, usize) {
    let t = &c.tasks;
    if t.open == 0 {
        return (0, 0);
    }
    out.always(&format!(
        "\n## Tasks ({} open, {} in progress, {} ready)\n",
        t.open, t.in_progress_total, t.ready_total
    ));
    let mut listed = |label: &str, lines: &[TaskLine]| {
        lines
            .iter()
            .filter(|task| out.fits(&task_line(label, task)))
            .count()
    };
    let in_progress = listed("in progress", &t.in_progress);
    let ready = listed("ready", &t.ready);
    (
        t.in_progress_total.saturating_sub(in_progress),
        t.ready_total.saturating_sub(ready),
    )
}

fn task_line(label: &str, t: &TaskLine) -> String {
    let who = t
        .assignee
        .as_deref()
        .map(|a| format!(", {}", escape_line(a)))
        .unwrap_or_default();
    let mut line = format!(
        "- {} {} [{label}, P{}{who}]\n",
        t.id,
        escape_line(&t.title),
        t.priority
    );
    if let Some(note) = &t.latest_note {
        line.push_str(&format!("  latest note: {}\n", escape_line(note)));
    }
    line
}

/// The newest pending proposals, newest first. Returns how many were not listed.
fn proposals_section(c: &Context, out: &mut Budget) -> usize {
    let p = &c.proposals;
    out.always(&format!(
        "\n## Pending proposals ({}) — not facts until a human approves them\n",
        p.count
    ));
    let mut omitted = p.count.saturating_sub(p.items.len());
    for item in &p.items {
        let agent = item.agent.as_deref().unwrap_or("unknown agent");
        let line = format!(
            "- {} [{}, {}] {}\n",
            item.id,
            escape_line(agent),
            item.age,
            escape_line(&operations_in_brief(&item.operations))
        );
        if !out.fits(&line) {
            omitted += 1;
        }
    }
    if p.invalid > 0 {
        out.always(&format!(
            "{} proposal file(s) do not parse or are invalid; run `mneme check`\n",
            p.invalid
        ));
    }
    omitted
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::base::time::Timestamp;
    use crate::model::facts::ledger::tests::ledger;
    use crate::model::facts::standing::Standings;
    use crate::model::views::{Proposals, TaskSummary};

    fn today() -> Timestamp {
        Timestamp::parse("2026-11-23").unwrap()
    }

    #[test]
    fn facts_that_are_not_plainly_active_are_marked_or_left_out() {
        let l = ledger(&[(
            "a.md",
            "- **f-a** Pool size is 10. <!-- since: 2026-11-01; contradicts: f-b -->\n\
             - **f-b** Pool size is 20. <!-- since: 2026-11-01 -->\n\
             - **f-c** Old rule. <!-- since: 2020-01-01 -->\n\
             - **f-d** Needs a look. <!-- state: stale; since: 2026-11-01 -->\n\
             - **f-e** Retired. <!-- state: archived; since: 2026-11-01 -->\n",
        )]);
        let c = Context::build(
            l.clone(),
            &Standings::of(&l, today()),
            Proposals::default(),
            TaskSummary::default(),
        );
        assert_eq!((c.archived, c.superseded), (1, 0));
        let text = render(&c, None);
        assert!(
            text.contains("- f-a [contested by f-b] Pool size is 10."),
            "{text}"
        );
        assert!(
            text.contains("- f-b [contested by f-a] Pool size is 20."),
            "{text}"
        );
        assert!(
            text.contains("- f-c [stale: not verified for 2518 days] Old rule."),
            "{text}"
        );
        assert!(text.contains("- f-d [stale] Needs a look."), "{text}");
        assert!(!text.contains("Retired"), "{text}");
        assert!(text.contains("1 archived fact(s) not shown"), "{text}");
        assert!(text.contains("[contested] ones are disputed"), "{text}");
    }

    #[test]
    fn the_most_recently_verified_facts_come_first_and_the_rest_is_named() {
        let mut src = String::from("# A\n");
        for i in 0..40 {
            src.push_str(&format!(
                "- **f-{i:04}** Statement number {i} of the architecture. <!-- since: 2026-01-{:02} -->\n",
                i % 28 + 1
            ));
        }
        src.push_str(
            "- **f-newest** Verified yesterday. <!-- since: 2020-01-01; verified: 2026-11-22 -->\n",
        );
        let l = ledger(&[("a.md", &src)]);
        let mut c = Context::build(
            l.clone(),
            &Standings::of(&l, today()),
            Proposals::default(),
            TaskSummary::default(),
        );
        c.file_hooks = true;
        let text = render(&c, Some(1200));
        assert!(text.chars().count() <= 1200, "{}", text.chars().count());
        assert!(text.contains("- f-newest Verified yesterday."), "{text}");
        let shown = text.lines().filter(|l| l.starts_with("- f-")).count();
        assert!(
            text.contains(&format!(
                "{n} more facts did not fit ({n} about no file; by file: a.md {n}): `mneme facts [FILE]`",
                n = 41 - shown
            )),
            "{text}"
        );
        // Old facts (since 2026-01-01) are the ones left out.
        assert!(!text.contains("- f-0000 "), "{text}");
        assert_eq!(
            render(&c, None)
                .lines()
                .filter(|l| l.starts_with("- f-"))
                .count(),
            41
        );
    }

    /// Facts of one day, in two files, whose ids sort against what an agent needs.
    fn same_day() -> Context {
        let mut a = String::from("# A\n");
        let mut b = String::from("# B\n");
        for i in 0..30 {
            a.push_str(&format!(
                "- **f-a{i:03}** Statement {i} of file a, long enough to count. <!-- since: 2026-11-01; evidence: src/a.rs:{i} -->\n"
            ));
            b.push_str(&format!(
                "- **f-b{i:03}** Statement {i} of file b, long enough to count. <!-- since: 2026-11-01; evidence: src/b.rs:{i} -->\n"
            ));
        }
        b.push_str("- **f-b900** Disputed. <!-- since: 2026-11-01; contradicts: f-b901 -->\n");
        b.push_str("- **f-b901** Disputing. <!-- since: 2026-11-01 -->\n");
        let l = ledger(&[("a.md", &a), ("b.md", &b)]);
        Context::build(
            l.clone(),
            &Standings::of(&l, today()),
            Proposals::default(),
            TaskSummary::default(),
        )
    }

    fn shown(text: &str) -> Vec<&str> {
        text.lines()
            .filter_map(|l| l.strip_prefix("- "))
            .filter_map(|l| l.split(' ').next())
            .collect()
    }

    #[test]
    fn under_a_budget_marked_facts_then_changed_code_then_each_file_in_turn() {
        let mut c = same_day();
        c.code_changed = [("f-b029".to_owned(), 3), ("f-a020".to_owned(), 0)]
            .into_iter()
            .collect();
        let text = render(&c, Some(1500));
        assert!(text.chars().count() <= 1500, "{}", text.chars().count());
        let ids = shown(&text);
        // Marked, then changed code (newest change first), then the files in turn.
        let mut ranked: Vec<&str> = ranked(&c)
            .iter()
            .map(|(_, f)| f.id.as_deref().unwrap())
            .collect();
        ranked.truncate(8);
        assert_eq!(
            ranked,
            ["f-b900", "f-b901", "f-a020", "f-b029", "f-a000", "f-b000", "f-a001", "f-b001"]
        );
        for id in &ranked[..6] {
            assert!(ids.contains(id), "{id} missing: {text}");
        }
        // Neither the ids nor the order of the files decide: b's first facts are shown, a's
        // last are not.
        assert!(!ids.contains(&"f-a029"), "{text}");
        let left = 62 - ids.len();
        assert!(
            text.contains(&format!(
                "{left} more facts did not fit ({left} less recently approved or verified; by file: "
            )),
            "{text}"
        );
        assert!(text.contains("`mneme facts [FILE]`"), "{text}");
    }

    /// A fact about no file that does not fit the start never reaches the agent (no tool hook
    /// brings it), while one citing code comes when the agent touches that code: where the
    /// runtime's hooks do that, the first ranks ahead, however many facts cite recently changed
    /// code.
    #[test]
    fn facts_only_the_start_can_bring_rank_ahead_of_those_the_hooks_bring() {
        let mut a = String::from("# A\n");
        for i in 0..300 {
            a.push_str(&format!(
                "- **f-a{i:03}** Statement {i} about the code, long enough to count. <!-- since: 2026-11-20; evidence: src/a{i}.rs:1 -->\n"
            ));
        }
        a.push_str("- **f-n000** Every change ships behind a flag. <!-- since: 2026-01-01 -->\n");
        a.push_str("- **f-n001** Decisions are written down. <!-- since: 2026-01-01; evidence: docs/adr/1.md -->\n");
        a.push_str("- **f-s000** Handlers never block. <!-- since: 2026-01-01; scope: src/handlers/** -->\n");
        let l = ledger(&[("a.md", &a)]);
        let mut c = Context::build(
            l.clone(),
            &Standings::of(&l, today()),
            Proposals::default(),
            TaskSummary::default(),
        );
        c.code_changed = (0..300).map(|i| (format!("f-a{i:03}"), i)).collect();
        // Where no hook brings the facts about files (Cursor's start), recency alone ranks.
        let text = render(&c, Some(2000));
        let ids = shown(&text);
        assert!(
            !ids.contains(&"f-n000") && ids.contains(&"f-a000"),
            "{text}"
        );
        c.file_hooks = true;
        let text = render(&c, Some(2000));
        let ids = shown(&text);
        // A cited document is where a fact came from, not a file it is about.
        assert!(ids.contains(&"f-n000") && ids.contains(&"f-n001"), "{text}");
        // A scoped fact comes with the files its scope matches.
        assert!(!ids.contains(&"f-s000"), "{text}");
        assert!(
            ids.contains(&"f-a000") && !ids.contains(&"f-a299"),
            "{text}"
        );
        let line = text
            .lines()
            .find(|l| l.contains("more facts did not fit"))
            .expect(&text);
        assert!(!line.contains("about no file"), "{line}");
        // Room for one fact only: it is one about no file, and the closing line counts the
        // other apart.
        let text = (300..2000)
            .step_by(10)
            .map(|budget| render(&c, Some(budget)))
            .find(|text| shown(text).len() == 1)
            .unwrap();
        assert!(shown(&text)[0].starts_with("f-n"), "{text}");
        let line = text
            .lines()
            .find(|l| l.contains("more facts did not fit"))
            .expect(&text);
        assert!(line.contains("(1 about no file, 300 citing"), "{line}");
    }

    #[test]
    fn what_did_not_fit_is_told_by_kind_and_file() {
        let mut c = same_day();
        c.code_changed = (0..30).map(|i| (format!("f-a{i:03}"), i)).collect();
        let text = render(&c, Some(1400));
        assert!(text.chars().count() <= 1400, "{}", text.chars().count());
        let line = text
            .lines()
            .find(|l| l.contains("more facts did not fit"))
            .expect(&text);
        assert!(line.contains("citing recently changed code"), "{line}");
        assert!(line.contains("by file: b.md 30, a.md "), "{line}");
    }
}

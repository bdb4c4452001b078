//! Statements in a team's existing notes: CLAUDE.md, AGENTS.md outside mneme's block,
//! `.cursorrules`, `.cursor/rules/*.mdc`, Cline memory-bank files and architecture decision
//! records (docs/formats/import.md says how each is read).

use crate::model::agents::agents_md::{BEGIN, END};
use crate::model::facts::fields::MAX_SCOPE;
use crate::model::facts::file::State;
use crate::model::interchange::found::Found;
use crate::model::interchange::prose::{
    introduces, not_a_statement, procedure, sentence_lead, stands_alone, Piece,
};

/// A paragraph wider than this many columns is split into its sentences.
const PARAGRAPH_MAX: usize = 300;

/// The most words a title written as a line of its own has.
const SUB_HEADING_WORDS: usize = 5;

/// One statement per list item and per short paragraph (long paragraphs by sentence) of a
/// Markdown notes file at `path`. Headings are hints of where a statement belongs; code blocks,
/// tables, HTML comments, front matter and mneme's own AGENTS.md block are skipped. What
/// introduces a list is read with each of its items: a nested item under an item that ends with
/// `:` (`Never: use unwrap in handlers.`), an item under a paragraph that ends with `:`, and an
/// item under a heading that is a condition (`Before Making Any Code Change`). A list whose
/// items are mostly not sentences on their own (`New worker job added`) is one statement, with
/// its heading: `What Triggers an Update: New endpoint added; New worker job added`.
pub fn statements(path: &str, text: &str) -> Vec<Found> {
    let lines: Vec<&str> = text.lines().collect();
    let mut start = 0;
    let mut scope = Vec::new();
    if lines.first().is_some_and(|l| l.trim_end() == "---") {
        if let Some(end) = lines.iter().skip(1).position(|l| l.trim_end() == "---") {
            start = end + 2;
            scope = front_matter_scope(&lines[1..=end]);
        }
    }
    let mut reader = Reader {
        path,
        lines: &lines,
        out: Vec::new(),
        heading: None,
        lead: None,
        run: None,
        runs: Vec::new(),
        items: Vec::new(),
        paragraph: None,
        hidden: Hidden::default(),
    };
    for n in start..lines.len() {
        reader.line(n);
    }
    if let Some((text, at)) = reader.paragraph.take() {
        paragraph_statements(&mut reader.out, path, at, &text, &reader.heading, false);
    }
    reader.close_list(0);
    reader.runs.extend(reader.run.take());
    let mut out = reader.out;
    out.sort_by_key(|f| line_of(&f.source));
    let mut out = join_entries(out, path, &reader.runs);
    for f in out.iter_mut().filter(|f| f.skipped.is_none()) {
        f.scope.clone_from(&scope);
    }
    out
}

/// An open list item: its indent, text, first line, whether it introduces the items under it,
/// and whether it is an item or a step.
type OpenItem = (usize, String, usize, bool, Piece);

/// Where the reader is in what a notes file hides from it.
#[derive(Default)]
struct Hidden<'t> {
    /// Inside a code block, until this marker.
    fence: Option<&'t str>,
    /// Inside mneme's own AGENTS.md block.
    block: bool,
    /// Inside an HTML comment.
    comment: bool,
}

impl<'t> Hidden<'t> {
    /// Whether the line (trimmed) is hidden, or hides what follows it.
    fn hides(&mut self, trimmed: &'t str) -> bool {
        if let Some(marker) = self.fence {
            if trimmed.starts_with(marker) {
                self.fence = None;
            }
            return true;
        }
        if trimmed == BEGIN {
            self.block = true;
        }
        if self.block {
            if trimmed == END {
                self.block = false;
            }
            return true;
        }
        if self.comment || trimmed.starts_with("<!--") {
            self.comment = !trimmed.contains("-->");
            return true;
        }
        false
    }
}

/// A notes file read line by line.
struct Reader<'t> {
    path: &'t str,
    lines: &'t [&'t str],
    out: Vec<Found>,
    heading: Option<String>,
    /// The last sentence of the paragraph right above the list, which introduces its items.
    lead: Option<String>,
    /// The list under a heading being read, and those read.
    run: Option<Run>,
    runs: Vec<Run>,
    items: Vec<OpenItem>,
    paragraph: Option<(String, usize)>,
    hidden: Hidden<'t>,
}

impl<'t> Reader<'t> {
    fn line(&mut self, n: usize) {
        let line = self.lines[n].trim_end();
        let trimmed = line.trim_start();
        if self.hidden.hides(trimmed) {
            return;
        }
        let opens_fence = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        let is_blank = trimmed.is_empty();
        let is_heading = trimmed.starts_with('#');
        let is_table = trimmed.starts_with('|');
        let item = list_item(line);
        if opens_fence.is_some() || is_blank || is_heading || is_table || item.is_some() {
            if let Some((text, at)) = self.paragraph.take() {
                let list_next = item.is_some() || (is_blank && list_follows(self.lines, n));
                self.lead = paragraph_statements(
                    &mut self.out,
                    self.path,
                    at,
                    &text,
                    &self.heading,
                    list_next,
                );
            }
        }
        if opens_fence.is_some() || is_heading || is_table {
            self.lead = None;
            self.runs.extend(self.run.take());
        }
        if let Some(marker) = opens_fence {
            self.hidden.fence = Some(marker);
        } else if is_heading {
            self.close_list(0);
            let title = trimmed.trim_start_matches('#').trim();
            self.heading = (!title.is_empty()).then(|| title.to_owned());
        } else if is_table {
            self.close_list(0);
        } else if is_blank {
        } else if let Some((indent, body, numbered)) = item {
            self.item(n + 1, indent, body, numbered);
        } else if self.paragraph.is_none() && sub_heading(self.lines, n, trimmed) {
            self.close_list(0);
            self.runs.extend(self.run.take());
            self.lead = None;
            self.heading = Some(trimmed.to_owned());
        } else {
            self.text(n + 1, line.len() - trimmed.len(), trimmed);
        }
    }

    /// A list item at line `line_no`.
    fn item(&mut self, line_no: usize, indent: usize, body: &str, numbered: bool) {
        let step = numbered && self.heading.as_deref().is_some_and(procedure);
        let piece = if step { Piece::Step } else { Piece::Item };
        // A sibling (and what is nested under it) is done.
        self.close_list(indent);
        let condition = self
            .heading
            .as_deref()
            .filter(|h| is_condition(h))
            .map(|h| format!("{h}:"));
        let text = match (self.items.last(), self.lead.as_ref().or(condition.as_ref())) {
            (Some((_, parent, _, true, _)), _) => read_with(parent, body),
            (None, Some(lead)) => read_with(lead, body),
            _ => body.to_owned(),
        };
        let top = self.items.is_empty();
        if self.lead.is_none() && condition.is_none() {
            let heading = &self.heading;
            let run = self.run.get_or_insert_with(|| Run {
                heading: heading.clone(),
                ..Run::default()
            });
            if top {
                run.lines.push(line_no);
            }
            run.mixed |= !top || step;
        }
        self.items
            .push((indent, text, line_no, introduces(body), piece));
    }

    /// A line of text at line `line_no`: it goes on the open item it is indented under, or on
    /// a paragraph.
    fn text(&mut self, line_no: usize, indent: usize, trimmed: &str) {
        match self.items.last_mut() {
            // A continuation line of the open item; `**Label:**` then its text on the next line
            // is one statement, not a lead-in.
            Some((i, text, _, lead_in, _)) if indent > *i => {
                text.push(' ');
                text.push_str(trimmed);
                *lead_in = introduces(text);
            }
            _ => {
                self.close_list(0);
                self.runs.extend(self.run.take());
                self.lead = None;
                match &mut self.paragraph {
                    Some((text, _)) => {
                        text.push(' ');
                        text.push_str(trimmed);
                    }
                    None => self.paragraph = Some((trimmed.to_owned(), line_no)),
                }
            }
        }
    }

    /// Ends the open items indented at least `down_to`, innermost first.
    fn close_list(&mut self, down_to: usize) {
        while self
            .items
            .last()
            .is_some_and(|(indent, ..)| *indent >= down_to)
        {
            let (_, text, line, lead_in, piece) = self.items.pop().expect("checked");
            // A lead-in is read with the items under it; alone it says nothing.
            let nested = self
                .out
                .last()
                .is_some_and(|f: &Found| line_of(&f.source) > line);
            match (lead_in, nested) {
                (false, _) => push(&mut self.out, self.path, line, &text, &self.heading, piece),
                (true, false) => skip(
                    &mut self.out,
                    self.path,
                    line,
                    &text,
                    "it introduces a list that is not there",
                ),
                (true, true) => {}
            }
        }
    }
}

/// Whether line `n` (its text `trimmed`) is a heading written as a line of its own: a short
/// title (`Naming Conventions`) after a blank line, with a list right under it. Read as a
/// heading, it no longer runs on from the item above it or stands as a fragment.
fn sub_heading(lines: &[&str], n: usize, trimmed: &str) -> bool {
    let after_blank = n == 0 || lines[n - 1].trim().is_empty();
    let title = trimmed.split_whitespace().count() <= SUB_HEADING_WORDS
        && trimmed.chars().next().is_some_and(char::is_uppercase)
        && !trimmed.contains(['`', ':', '.', ';', '!', '?', ',']);
    after_blank && title && list_follows(lines, n)
}

fn line_of(source: &str) -> usize {
    source
        .rsplit_once(':')
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or(0)
}

/// `(indent, text, numbered)` of a list item line: `- x`, `* x`, `+ x`, `1. x`, `1) x`; task
/// boxes dropped.
fn list_item(line: &str) -> Option<(usize, &str, bool)> {
    let trimmed = line.trim_start();
    let indent = line.len() - trimmed.len();
    let (rest, numbered) = if let Some(r) = ["- ", "* ", "+ "]
        .iter()
        .find_map(|m| trimmed.strip_prefix(m))
    {
        (r, false)
    } else {
        let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
        let after = trimmed.get(digits..)?;
        if digits == 0 || digits > 3 {
            return None;
        }
        let rest = after
            .strip_prefix(". ")
            .or_else(|| after.strip_prefix(") "))?;
        (rest, true)
    };
    let rest = ["[ ] ", "[x] ", "[X] "]
        .iter()
        .find_map(|b| rest.strip_prefix(b))
        .unwrap_or(rest);
    Some((indent, rest.trim(), numbered))
}

/// The statements of a paragraph; when it ends by introducing the list that follows
/// (`list_next`), its last sentence, to read with each item.
fn paragraph_statements(
    out: &mut Vec<Found>,
    path: &str,
    line: usize,
    text: &str,
    heading: &Option<String>,
    list_next: bool,
) -> Option<String> {
    if introduces(text) {
        // Only its last sentence introduces what follows; those before it still say something.
        let all = sentences(text);
        let (lead_in, said) = all.split_last().unwrap_or((&text, &[]));
        for sentence in said {
            push(out, path, line, sentence, heading, Piece::Prose);
        }
        if list_next && sentence_lead(lead_in) {
            return Some(lead_in.split_whitespace().collect::<Vec<_>>().join(" "));
        }
        skip(
            out,
            path,
            line,
            lead_in,
            "it introduces what follows, and says nothing itself",
        );
        return None;
    }
    // Measured in columns: a CJK character says about as much as two Latin letters.
    if crate::model::base::text::display_width(text) <= PARAGRAPH_MAX {
        push(out, path, line, text, heading, Piece::Prose);
        return None;
    }
    for sentence in sentences(text) {
        push(out, path, line, sentence, heading, Piece::Prose);
    }
    None
}

/// A list under a heading, with no lead-in of its own: the lines of its top-level items, and
/// whether it is mixed (an item nested under another, or a step of a procedure).
#[derive(Debug, Default)]
struct Run {
    heading: Option<String>,
    lines: Vec<usize>,
    mixed: bool,
}

/// The longest statement a list joined with its heading may make; past it, its items stay apart.
const JOINED_MAX: usize = 1000;

/// `out` (in line order) with each of `runs` (in line order) read as one statement with its
/// heading where [`joined`] says so. One pass, whatever the number of runs: a file is untrusted.
fn join_entries(out: Vec<Found>, path: &str, runs: &[Run]) -> Vec<Found> {
    let mut merged = Vec::with_capacity(out.len());
    let mut rest = out.into_iter().peekable();
    for run in runs {
        let (Some(&first), Some(&last)) = (run.lines.first(), run.lines.last()) else {
            continue;
        };
        while let Some(before) = rest.next_if(|f| line_of(&f.source) < first) {
            merged.push(before);
        }
        let mut items = Vec::new();
        while let Some(item) = rest.next_if(|f| line_of(&f.source) <= last) {
            items.push(item);
        }
        match joined(&items, path, run) {
            Some(one) => merged.push(one),
            None => merged.extend(items),
        }
    }
    merged.extend(rest);
    merged
}

/// The statements of `run` as one, with its heading, when most of its items are entries, not
/// sentences on their own (`New worker job added`). Not when any item was refused for what it
/// is (a link, a quote, a lead-in): a list of links stays refused.
fn joined(items: &[Found], path: &str, run: &Run) -> Option<Found> {
    let heading = run.heading.as_deref()?;
    if run.mixed || run.lines.len() < 2 || items.len() != run.lines.len() {
        return None;
    }
    let entry = |f: &Found| match &f.skipped {
        Some(why) => ["a label", "no verb", "a fragment"]
            .iter()
            .any(|w| why.contains(w))
            .then_some(true),
        None => Some(!stands_alone(&f.text)),
    };
    let kinds = items.iter().map(entry).collect::<Option<Vec<bool>>>()?;
    if kinds.iter().filter(|&&e| e).count() * 2 <= kinds.len() {
        return None;
    }
    let texts: Vec<&str> = items
        .iter()
        .map(|f| f.text.trim_end_matches(['.', ';']))
        .collect();
    let text = format!("{heading}: {}", texts.join("; "));
    if text.chars().count() > JOINED_MAX {
        return None;
    }
    let mut one = Vec::new();
    push(
        &mut one,
        path,
        run.lines[0],
        &text,
        &Some(heading.to_owned()),
        Piece::Item,
    );
    // Refused whole (a list of links), its items stay refused one by one.
    one.pop().filter(|f| f.skipped.is_none())
}

/// Whether a heading says when what is under it applies, or is a sentence its items finish:
/// `Before Making Any Code Change`, `When Updating`, `Stop and Ask If`.
fn is_condition(heading: &str) -> bool {
    let words: Vec<String> = heading.split_whitespace().map(str::to_lowercase).collect();
    let opens = [
        "before", "after", "when", "whenever", "while", "if", "once", "during", "until", "unless",
    ];
    let open_ended = [
        "if", "when", "unless", "until", "before", "after", "for", "to", "with", "about", "on",
    ];
    // `When to use`, `How to release`: a topic, not a condition.
    let topic = words.get(1).is_some_and(|w| w == "to");
    (!topic && words.first().is_some_and(|w| opens.contains(&w.as_str())))
        || (words.len() > 1
            && words
                .last()
                .is_some_and(|w| open_ended.contains(&w.as_str())))
}

/// An item read with what introduces it; after CJK text's full-width colon, with no space.
fn read_with(lead: &str, body: &str) -> String {
    let lead = lead.trim_end();
    if lead.ends_with('\u{ff1a}') {
        format!("{lead}{body}")
    } else {
        format!("{lead} {body}")
    }
}

/// Whether the next line with text after line `n` is a list item.
fn list_follows(lines: &[&str], n: usize) -> bool {
    lines[n + 1..]
        .iter()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| list_item(l).is_some())
}

/// The sentences of a paragraph: cut after `.`, `!` or `?` followed by a space and a capital,
/// and after the full stops of scripts that put no space after them (`。`, `！`, `？`, `।`,
/// `॥`, `؟`, `۔`, `።`, `။`), with any closing quote or bracket that follows.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let latin = matches!(c, '.' | '!' | '?')
            && next == Some(' ')
            && text
                .get(i + 2..)
                .and_then(|rest| rest.chars().next())
                .is_some_and(char::is_uppercase);
        let unspaced = matches!(
            c,
            '\u{3002}'
                | '\u{ff01}'
                | '\u{ff1f}'
                | '\u{0964}'
                | '\u{0965}'
                | '\u{061f}'
                | '\u{06d4}'
                | '\u{1362}'
                | '\u{104b}'
        );
        if !(latin || unspaced) {
            continue;
        }
        let mut end = i + c.len_utf8();
        while let Some(&(j, closing)) = chars.peek() {
            if !matches!(closing, '」' | '』' | '）' | ')' | '"' | '”' | '’' | '»') {
                break;
            }
            end = j + closing.len_utf8();
            chars.next();
        }
        let sentence = text.get(start..end).unwrap_or_default().trim();
        if !sentence.is_empty() {
            out.push(sentence);
        }
        start = end;
    }
    let rest = text.get(start..).unwrap_or_default().trim();
    if !rest.is_empty() || out.is_empty() {
        out.push(rest);
    }
    out
}

/// `text` as a statement, or as a skip with why it is none; `item` when it is a list item.
fn push(
    out: &mut Vec<Found>,
    path: &str,
    line: usize,
    text: &str,
    heading: &Option<String>,
    piece: Piece,
) {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(why) = not_a_statement(&text, piece) {
        return skip(out, path, line, &text, &why);
    }
    out.push(Found {
        text,
        source: format!("{path}:{line}"),
        hint: heading.clone(),
        ..Found::default()
    });
}

/// The files a rule file's front matter applies it to, as scope globs; none for a rule that
/// applies to every request (or only when asked for). Each format says it its own way: Cursor's
/// `globs` (unless `alwaysApply: true`), Windsurf's `globs` under `trigger: glob`, Copilot's
/// `applyTo` (`**` is every file), Cline's `paths`, Kiro's `fileMatchPattern` under
/// `inclusion: fileMatch`. Read line by line: Cursor writes globs YAML cannot parse (`*.ts`).
fn front_matter_scope(front: &[&str]) -> Vec<String> {
    let value = |key: &str| {
        front.iter().enumerate().find_map(|(i, l)| {
            let rest = l.strip_prefix(key)?.strip_prefix(':')?;
            Some((i, unquote(rest.trim())))
        })
    };
    let is = |key: &str, want: &str| value(key).is_some_and(|(_, v)| v == want);
    let differs = |key: &str, want: &str| value(key).is_some_and(|(_, v)| v != want);
    if is("alwaysApply", "true") || differs("trigger", "glob") || differs("inclusion", "fileMatch")
    {
        return Vec::new();
    }
    // A list inline (`a, b` or `[a, b]`) or as the lines under the key (`  - a`).
    let list = |key: &str| -> Vec<String> {
        let Some((i, inline)) = value(key) else {
            return Vec::new();
        };
        if !inline.is_empty() {
            return split_globs(inline.trim_start_matches('[').trim_end_matches(']'));
        }
        front[i + 1..]
            .iter()
            .map_while(|l| {
                l.trim_start()
                    .strip_prefix('-')
                    .filter(|_| l.starts_with([' ', '\t', '-']))
            })
            .map(|item| unquote(item.trim()).to_owned())
            .filter(|g| !g.is_empty())
            .collect()
    };
    // Cursor and Windsurf match a glob without a `/` at any depth, as `**/` does.
    let anywhere = |g: String| {
        if g.contains('/') {
            g
        } else {
            format!("**/{g}")
        }
    };
    let globs: Vec<String> = if value("globs").is_some() {
        list("globs").into_iter().map(anywhere).collect()
    } else if value("applyTo").is_some() {
        list("applyTo")
    } else if value("paths").is_some() {
        list("paths")
    } else {
        list("fileMatchPattern")
    };
    let mut out: Vec<String> = Vec::new();
    // A glob longer than a scope may be is refused whole, before its braces are expanded.
    let globs = globs.iter().filter(|g| g.chars().count() <= MAX_SCOPE);
    for glob in globs.flat_map(|g| expand_braces(g)) {
        let glob = glob
            .trim_start_matches("./")
            .trim_start_matches('/')
            .to_owned();
        // Every file: the rule applies to every request.
        if matches!(glob.as_str(), "**" | "**/*" | "*") {
            return Vec::new();
        }
        if !glob.is_empty() && !out.contains(&glob) {
            out.push(glob);
        }
    }
    out
}

/// `s` without the quotes around it.
fn unquote(s: &str) -> &str {
    s.trim_matches(|c| c == '"' || c == '\'')
}

/// Globs separated by commas, a comma inside braces (`*.{ts,tsx}`) not separating them.
fn split_globs(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut current = String::new();
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    out.push(current);
    out.iter()
        .map(|g| unquote(g.trim()).to_owned())
        .filter(|g| !g.is_empty())
        .collect()
}

/// `glob` with its first `{a,b}` group expanded (and the groups after it, in turn): git's
/// globs, which scopes are, have no braces. At most 16 globs come of one.
fn expand_braces(glob: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (glob.find('{'), glob.find('}')) else {
        return vec![glob.to_owned()];
    };
    if close < open {
        return vec![glob.to_owned()];
    }
    let (head, rest) = glob.split_at(open);
    let (group, tail) = rest.split_at(close - open);
    let tail = tail.strip_prefix('}').unwrap_or(tail);
    group
        .trim_start_matches('{')
        .split(',')
        .flat_map(|alt| expand_braces(&format!("{head}{alt}{tail}")))
        .take(16)
        .collect()
}

/// A piece of the file the reader does not take as a statement, listed with why.
fn skip(out: &mut Vec<Found>, path: &str, line: usize, text: &str, why: &str) {
    if text.trim().is_empty() {
        return;
    }
    out.push(Found {
        text: text.to_owned(),
        source: format!("{path}:{line}"),
        skipped: Some(why.to_owned()),
        ..Found::default()
    });
}

/// An architecture decision record, `NNNN-title.md`: one statement, the title and the first
/// paragraph of its decision. Accepted records are current; superseded ones name their
/// replacement (`Superseded by ADR-0005`); deprecated ones are archived. Proposed, draft and
/// rejected records are no decision: `Err` says why.
pub fn adr(path: &str, name: &str, text: &str) -> Result<Found, String> {
    let number = adr_number(name).ok_or("the file name does not start with a record number")?;
    let mut title = None;
    let mut title_line = 1;
    let mut status = None;
    let mut decision = String::new();
    let mut section = String::new();
    let mut superseded_by = None;
    let mut supersedes = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix("# ").filter(|_| title.is_none()) {
            title = Some(strip_adr_prefix(h).to_owned());
            title_line = n + 1;
            continue;
        }
        if let Some(h) = t.strip_prefix("## ") {
            section = h.trim().to_lowercase();
            continue;
        }
        let lower = t.to_lowercase();
        if let Some(v) = lower.strip_prefix("status:") {
            status.get_or_insert_with(|| v.trim().to_owned());
        } else if section == "status" && !t.is_empty() && status.is_none() {
            status = Some(lower.clone());
        }
        const BY: &str = "superseded by";
        const OVER: &str = "supersedes";
        if let Some((_, after)) = lower.split_once(BY) {
            superseded_by = adr_reference(after);
        } else if let Some((_, after)) = lower.split_once(OVER) {
            supersedes.extend(adr_reference(after));
        }
        if section == "decision" {
            if t.is_empty() {
                if !decision.is_empty() {
                    section.clear();
                }
            } else {
                if !decision.is_empty() {
                    decision.push(' ');
                }
                decision.push_str(t);
            }
        }
    }
    let title = title.ok_or("it has no `# title`")?;
    let status = status.unwrap_or_else(|| "accepted".to_owned());
    let state = if status.starts_with("superseded") {
        Some(State::Superseded)
    } else if status.starts_with("deprecated") || status.starts_with("obsolete") {
        Some(State::Archived)
    } else if ["proposed", "draft", "rejected"]
        .iter()
        .any(|s| status.starts_with(s))
    {
        return Err(format!("its status is `{status}`, not a decision"));
    } else {
        None
    };
    let text = if decision.is_empty() {
        title
    } else {
        format!("{}: {decision}", title.trim_end_matches('.'))
    };
    let mut found = Found {
        text,
        source: format!("{path}:{title_line}"),
        hint: Some("architecture".to_owned()),
        key: Some(format!("adr:{number}")),
        state,
        superseded_by: superseded_by.map(|n| format!("adr:{n}")),
        ..Found::default()
    };
    found.supersedes = supersedes.into_iter().map(|n| format!("adr:{n}")).collect();
    Ok(found)
}

/// The record number a file name starts with: `0003-use-postgres.md` → 3.
pub fn adr_number(name: &str) -> Option<u32> {
    let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
    (!digits.is_empty()).then(|| digits.parse().ok()).flatten()
}

/// The first record number in `text`: `ADR-0005`, `[5](0005-x.md)`, `0005`.
fn adr_reference(text: &str) -> Option<u32> {
    adr_number(text.trim_start_matches(|c: char| !c.is_ascii_digit()))
}

/// `ADR-0003: Use PostgreSQL` or `3. Use PostgreSQL` → `Use PostgreSQL`.
fn strip_adr_prefix(title: &str) -> &str {
    let t = title.trim();
    let t = t
        .strip_prefix("ADR")
        .or_else(|| t.strip_prefix("adr"))
        .map_or(t, |r| r.trim_start_matches(['-', ' ']));
    let rest = t.trim_start_matches(|c: char| c.is_ascii_digit());
    if rest.len() < t.len() {
        rest.trim_start_matches(['.', ':', ' ', '-']).trim()
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(found: &[Found]) -> Vec<(&str, &str, Option<&str>)> {
        found
            .iter()
            .filter(|f| f.skipped.is_none())
            .map(|f| (f.text.as_str(), f.source.as_str(), f.hint.as_deref()))
            .collect()
    }

    fn skipped(found: &[Found]) -> Vec<(&str, &str)> {
        found
            .iter()
            .filter_map(|f| Some((f.text.as_str(), f.skipped.as_deref()?)))
            .collect()
    }

    /// Each format's way of saying where a rule applies, as its documentation gives it
    /// (Copilot's `applyTo`, Cursor's `globs`/`alwaysApply`, Windsurf's `trigger`/`globs`,
    /// Cline's `paths`, Kiro's `inclusion`/`fileMatchPattern`), read as scope globs.
    #[test]
    fn every_rule_format_says_where_it_applies_and_that_becomes_scope() {
        let scope = |front: &str| {
            let text = format!("---\n{front}\n---\n- Pools are shared.\n");
            statements("rules.md", &text).remove(0).scope
        };
        assert_eq!(
            scope("applyTo: \"src/**/*.ts,tests/**\""),
            ["src/**/*.ts", "tests/**"]
        );
        assert_eq!(scope("applyTo: '**'"), Vec::<String>::new());
        assert_eq!(scope("applyTo: \"**/*.{ts,tsx}\""), ["**/*.ts", "**/*.tsx"]);
        assert_eq!(
            scope("globs: *.rs, src/db/**\nalwaysApply: false"),
            ["**/*.rs", "src/db/**"]
        );
        assert_eq!(
            scope("globs: *.rs\nalwaysApply: true"),
            Vec::<String>::new()
        );
        assert_eq!(
            scope("trigger: glob\nglobs: *.js, src/**/*.ts"),
            ["**/*.js", "src/**/*.ts"]
        );
        assert_eq!(
            scope("trigger: always_on\nglobs: *.js"),
            Vec::<String>::new()
        );
        assert_eq!(
            scope("trigger: model_decision\ndescription: when asked"),
            Vec::<String>::new()
        );
        assert_eq!(
            scope("paths:\n  - \"src/components/**\"\n  - 'src/hooks/**'\ndescription: x"),
            ["src/components/**", "src/hooks/**"]
        );
        assert_eq!(
            scope("inclusion: fileMatch\nfileMatchPattern: [\"**/*.ts\", \"./app/*.tsx\"]"),
            ["**/*.ts", "app/*.tsx"]
        );
        assert_eq!(
            scope("inclusion: fileMatch\nfileMatchPattern: \"components/**/*.tsx\""),
            ["components/**/*.tsx"]
        );
        assert_eq!(scope("inclusion: always"), Vec::<String>::new());
        assert_eq!(
            scope("inclusion: manual\nfileMatchPattern: \"x/**\""),
            Vec::<String>::new()
        );
        // A rule without front matter applies to every request.
        assert!(statements("rules.md", "- Pools are shared.\n")[0]
            .scope
            .is_empty());
        // However many braces a hostile glob holds, it costs little and never recurses deep.
        let braces = "{a,b}".repeat(100_000);
        assert!(scope(&format!("paths:\n  - \"{braces}\"")).is_empty());
        assert_eq!(scope("paths: [\"{a,b}{c,d}{e,f}{g,h}{i,j}\"]").len(), 16);
    }

    /// Two shapes from a public repository's Cursor rules the import was not tuned on: a bold
    /// label with its text on the next line, and titles on lines of their own above their
    /// lists, indented with no-break spaces.
    #[test]
    fn a_label_on_its_own_line_and_titles_over_lists_read_as_a_reader_reads_them() {
        let nbsp = "\u{a0} \u{a0} ";
        let text = format!(
            "- **API Controllers:**  \n  Implement API controllers in the `api/` directory.\n\n\
             - bun run typecheck\n{nbsp}\n{nbsp}Naming Conventions\n{nbsp}- Favor named exports for functions.\n\
             {nbsp}\n{nbsp}UI and Styling\n{nbsp}- Use UnoCSS for styling.\n\n\
             Closing Remarks\n"
        );
        let found = statements("frontend.mdc", &text);
        assert_eq!(
            texts(&found),
            [
                (
                    "**API Controllers:** Implement API controllers in the `api/` directory.",
                    "frontend.mdc:1",
                    None
                ),
                ("bun run typecheck", "frontend.mdc:4", None),
                (
                    "Favor named exports for functions.",
                    "frontend.mdc:7",
                    Some("Naming Conventions")
                ),
                (
                    "Use UnoCSS for styling.",
                    "frontend.mdc:10",
                    Some("UI and Styling")
                ),
            ]
        );
        // A title with no list under it is what it was: a fragment, listed with its reason.
        assert_eq!(skipped(&found).len(), 1, "{:?}", skipped(&found));
    }

    /// A paragraph that ends by introducing a list or a code block (`:`, or `：` in CJK text)
    /// still says what its sentences before the last one say; its last is read with each item
    /// of a list under it.
    #[test]
    fn a_paragraph_that_introduces_keeps_its_sentences_before_the_lead_in() {
        let text = "The service uses Postgres 16. Run these before pushing:\n\n\
                    ```sh\nmake check\n```\n\n\
                    后端使用 `uv`，前端使用 `pnpm`。push 前执行对应校验：\n\n\
                    代码遵循以下约定：\n\n- 临时目录一律用 `tempfile.gettempdir()`。\n";
        let found = statements("AGENTS.md", text);
        let kept: Vec<&str> = texts(&found).iter().map(|k| k.0).collect();
        assert_eq!(
            kept,
            [
                "The service uses Postgres 16.",
                "后端使用 `uv`，前端使用 `pnpm`。",
                "代码遵循以下约定：临时目录一律用 `tempfile.gettempdir()`。"
            ]
        );
        // A lead-in before a code block says nothing; one before a list is read with its items.
        let refused: Vec<&str> = skipped(&found).iter().map(|s| s.0).collect();
        assert_eq!(
            refused,
            ["Run these before pushing:", "push 前执行对应校验："]
        );
    }

    /// Lists whose items need what introduces them, in the shapes of a public repository's
    /// `.claude/rules` the import was not tuned on: entries under a heading become one statement
    /// with it; steps under a heading that is a condition, and items under a paragraph's
    /// lead-in, are each read with it. A list of sentences, or of links, stays as it was.
    #[test]
    fn items_that_need_their_lead_in_are_read_with_it() {
        let text = "\
# Feature Map

## What Triggers a Feature Map Update

- New API endpoint added or removed
- New worker job added
- Module renamed or reorganised
- Permission changes

## Before Making Any Code Change

1. **Check blast radius**: open `docs/architecture/module-blast-radius.md`.

You MUST update the architecture files if your change:

- **Adds a new NestJS module**: add it to `docs/architecture/module-blast-radius.md`.

## Stop and Ask If

- A blocker forces a different approach

## Rules

- Imports within a group are alphabetical.
- Test additions

## Docs

- [Guide](docs/guide.md)
- [API](docs/api.md)
";
        let found = statements("rules.md", text);
        let kept: Vec<&str> = texts(&found).iter().map(|k| k.0).collect();
        assert_eq!(
            kept,
            [
                "What Triggers a Feature Map Update: New API endpoint added or removed; New worker \
                 job added; Module renamed or reorganised; Permission changes",
                "Before Making Any Code Change: **Check blast radius**: open \
                 `docs/architecture/module-blast-radius.md`.",
                "You MUST update the architecture files if your change: **Adds a new NestJS \
                 module**: add it to `docs/architecture/module-blast-radius.md`.",
                "Stop and Ask If: A blocker forces a different approach",
                "Imports within a group are alphabetical.",
            ]
        );
        let refused: Vec<&str> = skipped(&found).iter().map(|s| s.0).collect();
        assert_eq!(
            refused,
            [
                "Test additions",
                "[Guide](docs/guide.md)",
                "[API](docs/api.md)"
            ]
        );
        assert_eq!(found[0].source, "rules.md:5");
    }

    #[test]
    fn scripts_without_spaces_are_cut_into_sentences_and_labels_are_listed() {
        let long = "すべてのAPIはJSONを返す。エラーは必ず「コード」を含む。".repeat(8);
        let found = statements(
            "CLAUDE.md",
            &format!("# 规则\n\n- 所有数据库迁移必须可以回滚。\n- ビルド\n\n{long}\n\nSetup:\n\n- Lead-in:\n"),
        );
        let kept = texts(&found);
        assert_eq!(kept[0].0, "所有数据库迁移必须可以回滚。");
        assert_eq!(kept.len(), 1 + 16, "{kept:?}");
        assert_eq!(kept[2].0, "エラーは必ず「コード」を含む。");
        let skipped = skipped(&found);
        assert_eq!(skipped.len(), 3, "{skipped:?}");
        assert!(skipped[0].0 == "ビルド" && skipped[0].1.contains("a label"));
        // A label introduces nothing its items need.
        assert!(skipped[1].0 == "Setup:" && skipped[1].1.contains("introduces"));
        assert!(skipped[2].0 == "Lead-in:" && skipped[2].1.contains("not there"));
        // Hindi, Arabic, and a Latin sentence that ends a quote.
        assert_eq!(
            sentences("यह पहला वाक्य है। यह दूसरा है।"),
            ["यह पहला वाक्य है।", "यह दूसरा है।"]
        );
        assert_eq!(sentences("هل هذا سؤال؟ نعم."), ["هل هذا سؤال؟", "نعم."]);
        assert_eq!(sentences("One. Two"), ["One.", "Two"]);
        assert_eq!(sentences(""), [""]);
    }

    #[test]
    fn a_claude_md_gives_one_statement_per_item_and_short_paragraph() {
        let text = "\
# Project notes

This service stores orders in PostgreSQL 16.

## Testing

- Run `cargo test` before every push.
- Never:
  - call unwrap in request handlers,
  - log tokens.
- A long item that wraps
  onto a second line.
- Short one

```sh
- not a statement inside code
```

| a | b |
| - | - |

<!-- a comment
- not a statement -->

1. Numbered items count too.
";
        let found = statements("CLAUDE.md", text);
        assert_eq!(
            texts(&found),
            [
                (
                    "This service stores orders in PostgreSQL 16.",
                    "CLAUDE.md:3",
                    Some("Project notes")
                ),
                (
                    "Run `cargo test` before every push.",
                    "CLAUDE.md:7",
                    Some("Testing")
                ),
                (
                    "Never: call unwrap in request handlers,",
                    "CLAUDE.md:9",
                    Some("Testing")
                ),
                ("Never: log tokens.", "CLAUDE.md:10", Some("Testing")),
                (
                    "A long item that wraps onto a second line.",
                    "CLAUDE.md:11",
                    Some("Testing")
                ),
                ("Numbered items count too.", "CLAUDE.md:25", Some("Testing")),
            ]
        );
    }

    #[test]
    fn mnemes_block_and_front_matter_are_skipped_and_long_paragraphs_split() {
        let long = "The importer reads every file once. ".repeat(10);
        let text = format!(
            "---\ndescription: Rules\nglobs: \"*.rs\"\n---\n\n{BEGIN}\n- Facts are here.\n{END}\n\n{long}\n"
        );
        let found = statements(".cursor/rules/x.mdc", &text);
        assert_eq!(found.len(), 10);
        assert!(found
            .iter()
            .all(|f| f.text == "The importer reads every file once."));
        assert_eq!(found[0].source, ".cursor/rules/x.mdc:10");
        assert_eq!(found[0].scope, ["**/*.rs"], "a Cursor glob is a scope");
        let list = "---\nglobs: [src/db/**, 'migrations/*.sql']\n---\n- Pools are shared.\n";
        let found = statements(".cursor/rules/db.mdc", list);
        assert_eq!(found[0].scope, ["src/db/**", "migrations/*.sql"]);
    }

    #[test]
    fn decision_records_give_their_decision_and_status() {
        let text = "# 3. Use PostgreSQL\n\nDate: 2024-01-01\n\n## Status\n\nSuperseded by [ADR-0005](0005-use-postgres-17.md)\n\n## Context\n\nWe need SQL.\n\n## Decision\n\nWe use PostgreSQL 16\nfor every service.\n\nMore detail.\n";
        let f = adr(
            "docs/adr/0003-use-postgresql.md",
            "0003-use-postgresql.md",
            text,
        )
        .unwrap();
        assert_eq!(
            f.text,
            "Use PostgreSQL: We use PostgreSQL 16 for every service."
        );
        assert_eq!(f.source, "docs/adr/0003-use-postgresql.md:1");
        assert_eq!(f.key.as_deref(), Some("adr:3"));
        assert_eq!(f.state, Some(State::Superseded));
        assert_eq!(f.superseded_by.as_deref(), Some("adr:5"));
        let accepted = adr(
            "a/0005-x.md",
            "0005-x.md",
            "# ADR-0005: Use PostgreSQL 17\n\nStatus: Accepted\n\nSupersedes ADR-0003\n",
        )
        .unwrap();
        assert_eq!(accepted.text, "Use PostgreSQL 17");
        assert_eq!(accepted.state, None);
        assert!(adr(
            "a/0006-x.md",
            "0006-x.md",
            "# Try Redis\n\n## Status\n\nProposed\n"
        )
        .unwrap_err()
        .contains("proposed"));
        assert!(adr("a/x.md", "x.md", "# T\n").is_err());
    }
}

//! Whether a piece of a team's notes states something or only shapes the document: a bold
//! label, a pointer to other documentation, an entry of a link list, a quoted example, or a
//! fragment with no verb. Notes are read line by line with no grammar, so each test is narrow:
//! a statement that a test would wrongly drop shows as a skip with its reason, for a person to
//! propose by hand.

/// Fewer words than this is a label, not a statement.
pub const MIN_WORDS: usize = 3;

/// A list item shorter than this, with no sentence end, no rule word and no subject before its
/// verb, is a fragment: `Shows diff preview`, `Push to GitHub`.
const FRAGMENT_WORDS: usize = 5;

/// A bold line shorter than this (or a question) reads as a heading; a longer one is a rule put
/// in bold: `**Best practice: use a dedicated directory for plans**`.
const HEADING_WORDS: usize = 6;

/// Where a piece of notes stands in its document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    /// A paragraph, or one sentence of a long one.
    Prose,
    /// A list item: a short imperative there is a rule (`Implement RBAC policies`), numbered
    /// lists being used for rules as often as for steps.
    Item,
    /// An item of a numbered list under a heading that names a procedure ([`procedure`]): a
    /// short imperative there is a step, which says little without the others.
    Step,
}

/// Whether a heading names a procedure: `Adding a New Command`, `Release Process`; not a topic
/// such as `Testing` or `Logging and Tracing`.
pub fn procedure(heading: &str) -> bool {
    let lower = heading.to_lowercase();
    let mut words = lower.split_whitespace();
    let first = words.next().unwrap_or_default();
    let gerund = first.len() > 5
        && first.ends_with("ing")
        && !["string", "during", "nothing", "something", "everything"].contains(&first)
        && words
            .next()
            .is_some_and(|w| !["and", "&", "/", "+"].contains(&w));
    gerund
        || [
            "process",
            "workflow",
            "steps",
            "how to",
            "procedure",
            "checklist",
        ]
        .iter()
        .any(|p| lower.contains(p))
}

/// Whether a list item reads as a sentence of its own, not as an entry of a list that needs what
/// introduces it: neither refused as a statement nor a short clause whose verb is only a
/// participle after its noun (`New worker job added`, `Module renamed or reorganised`).
pub fn stands_alone(text: &str) -> bool {
    if not_a_statement(text, Piece::Item).is_some() {
        return false;
    }
    let plain = plain(text);
    let reduced = matches!(first_verb(&plain), Some((at, Form::Other)) if at > 0
        && plain_words(&plain).nth(at).is_some_and(|w| w.ends_with("ed") && !AUXILIARIES.contains(&w.as_str())));
    !reduced || words(&plain) >= ENTRY_WORDS || ends_sentence(&plain) || has_rule_word(&plain)
}

/// Whether a lead-in (`You MUST update the docs if your change:`) is a sentence that its items
/// finish, to be read with each of them; not a label (`Setup:`) or a heading drawn in bold
/// (`**When to use:**`) or a topic (`How to release:`), which say nothing of their items.
pub fn sentence_lead(lead: &str) -> bool {
    let bare = before_colon(lead).unwrap_or(lead);
    let words: Vec<String> = plain_words(&plain(bare)).take(2).collect();
    // `When to use:`, `How to release:`: a topic.
    let topic = words.len() == 2
        && words[1] == "to"
        && ["when", "how", "what", "where", "which", "why"].contains(&words[0].as_str());
    !wholly_emphasised(lead) && !topic && not_a_statement(bare, Piece::Prose).is_none()
}

/// An item of fewer words than this, with only a participle for a verb, is an entry of a list.
const ENTRY_WORDS: usize = 8;

/// Why `text` (a `piece` of a notes file) is not a statement, when it is not.
pub fn not_a_statement(text: &str, piece: Piece) -> Option<String> {
    let plain = plain(text);
    let n = words(&plain);
    if n < MIN_WORDS {
        return Some(format!(
            "{n} word(s): a label, not a statement (at least {MIN_WORDS})"
        ));
    }
    if introduces(text) {
        return Some("it introduces what follows, and says nothing itself".into());
    }
    if wholly_emphasised(text) && (n < HEADING_WORDS || plain.trim_end().ends_with('?')) {
        return Some("a bold line is a heading in disguise, not a statement".into());
    }
    if quoted(&plain) {
        return Some("a quoted example of wording, not a statement".into());
    }
    if pointer(&plain) {
        return Some("it points to other documentation and says nothing itself".into());
    }
    if link_entry(text) {
        return Some("an entry of a list of links or files, not a statement".into());
    }
    if about_the_instructions(text) {
        return Some("it is about the instruction file itself, not about the project".into());
    }
    if points_elsewhere(&plain) {
        return Some(
            "it points to a place in the file it came from (`this step`, `as above`)".into(),
        );
    }
    if role_prompt(&plain) {
        return Some(
            "it casts the agent in a role (`You are an expert in …`), not a fact about the project"
                .into(),
        );
    }
    if demonstrative_object(&plain) {
        return Some("it refers to what it does not name (`Use this when …`)".into());
    }
    let rule = has_rule_word(&plain);
    let verb = first_verb(&plain);
    let short = n < FRAGMENT_WORDS && !ends_sentence(&plain) && !rule;
    if short && piece != Piece::Prose {
        let why = match verb {
            None => Some("no verb"),
            Some((0, Form::ThirdPerson)) => Some("it describes something it does not name"),
            Some((0, _)) if refers_back(&plain) => Some("it refers to what it does not name"),
            Some((0, _)) if piece == Piece::Step => Some("a step of a procedure"),
            _ => None,
        };
        if let Some(why) = why {
            return Some(format!(
                "{n} words without a sentence's end, {why}: a fragment"
            ));
        }
    }
    if english(&plain) && !rule && verb.is_none() {
        return Some("no verb: a fragment, not a statement".into());
    }
    None
}

/// `Read and follow this AGENTS.md`, `Applies when editing files under …`, `Treat SHOULD as
/// defaults`: how to read the instruction file, which means nothing once it is a fact.
fn about_the_instructions(text: &str) -> bool {
    let lower = text.to_lowercase().replace('`', "");
    let opens = [
        "applies when ",
        "applies to ",
        "these files ",
        "this file ",
        "this document ",
        "treat must ",
        "treat should ",
        "treat may ",
    ];
    let names = [
        "this agents.md",
        "this claude.md",
        "nearest agents.md",
        "nearest claude.md",
        "own agents.md",
        "own claude.md",
        "deeper rules",
        "this directory uses",
    ];
    // `Apply root AGENTS.md first.`: an order to read another instruction file.
    let files = [
        "agents.md",
        "claude.md",
        "gemini.md",
        ".cursorrules",
        "copilot-instructions",
    ];
    let reads_another = ["apply ", "follow ", "read "]
        .iter()
        .any(|o| lower.starts_with(o))
        && files.iter().any(|f| lower.contains(f));
    reads_another
        || opens.iter().any(|o| lower.starts_with(o))
        || names.iter().any(|n| lower.contains(n))
}

/// `You are an expert in Go …`, `Act as a senior engineer …`: a prompt's opening, common at the
/// top of Cursor rules, that says who the agent is and nothing about the project.
fn role_prompt(plain: &str) -> bool {
    let lower = plain.trim_start().to_lowercase();
    // `You are not allowed to …` is a rule; only `You are a/an …` casts a role.
    [
        "you are a ",
        "you are an ",
        "you're a ",
        "you're an ",
        "act as ",
        "as an expert ",
    ]
    .iter()
    .any(|o| lower.starts_with(o))
}

/// `Use this before any workflow …`, `Run it when …`: a verb whose object is only a pronoun,
/// followed by when or why, stands for something the file named before.
fn demonstrative_object(plain: &str) -> bool {
    let words: Vec<String> = plain_words(plain).take(3).collect();
    let [_, object, then] = words.as_slice() else {
        return false;
    };
    ["this", "these", "it", "them", "that", "those"].contains(&object.as_str())
        && [
            "when", "before", "after", "if", "unless", "once", "while", "for", "to", "with",
            "instead",
        ]
        .contains(&then.as_str())
}

/// `Do not skip this step.`, `As above, …`: a place in the source file, which a fact on its own
/// no longer has. (`here` is not one: in a nested AGENTS.md it names the directory, which the
/// fact's scope keeps.)
fn points_elsewhere(plain: &str) -> bool {
    let words: Vec<String> = plain_words(plain).collect();
    let places = [
        ["this", "step"],
        ["these", "steps"],
        ["this", "section"],
        ["the", "above"],
        ["as", "above"],
        ["see", "below"],
    ];
    words
        .windows(2)
        .any(|pair| places.iter().any(|p| pair[0] == p[0] && pair[1] == p[1]))
}

/// `Update it to main`: a pronoun standing for something said elsewhere.
fn refers_back(plain: &str) -> bool {
    plain_words(plain)
        .any(|w| ["it", "them", "this", "that", "these", "those"].contains(&w.as_str()))
}

/// Whether `text` ends with a colon (or the full-width one of CJK text), emphasis around it
/// aside: `**When to use:**`, `遵循以下约定：`.
pub fn introduces(text: &str) -> bool {
    before_colon(text).is_some()
}

/// `text` without the emphasis and the colon it ends with (`**When to use:**` gives `**When to
/// use`), when it ends with one.
fn before_colon(text: &str) -> Option<&str> {
    let t = text.trim_end().trim_end_matches(['*', '_']).trim_end();
    t.ends_with([':', '\u{ff1a}'])
        .then(|| t.trim_end_matches([':', '\u{ff1a}']))
}

/// The text a reader sees: emphasis markers dropped, a link as its text, code spans as one
/// word each (`code`), so that `` `bd ready` `` counts as a name, never as a verb.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let after = rest.get(c.len_utf8()..).unwrap_or_default();
        if c == '`' {
            if let Some((_, tail)) = after.split_once('`') {
                out.push_str("code");
                rest = tail;
                continue;
            }
        }
        if c == '[' {
            if let Some((label, tail)) = link(rest) {
                out.push_str(label);
                rest = tail;
                continue;
            }
        }
        if !(c == '*' || (c == '_' && !out.ends_with(char::is_alphanumeric))) {
            out.push(c);
        }
        rest = after;
    }
    out
}

/// `[label](target)` at the start of `s`: the label and what follows the link.
fn link(s: &str) -> Option<(&str, &str)> {
    let (label, tail) = s.strip_prefix('[')?.split_once("](")?;
    let (_, after) = tail.split_once(')')?;
    (!label.contains(']')).then_some((label, after))
}

/// About how many words `text` has. Chinese, Japanese, Thai and other scripts put no spaces
/// between words: there, every two letters count as a word, so `所有数据库迁移必须可以回滚。`
/// is a statement, not a fragment.
pub fn words(text: &str) -> usize {
    text.split(' ')
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .map(|w| {
            w.chars()
                .filter(|&c| unspaced(c))
                .count()
                .div_ceil(2)
                .max(1)
        })
        .sum()
}

/// A letter of a script written without spaces between words.
fn unspaced(c: char) -> bool {
    matches!(
        c,
        '\u{0e00}'..='\u{0eff}'     // Thai, Lao
            | '\u{1000}'..='\u{109f}' // Myanmar
            | '\u{1780}'..='\u{17ff}' // Khmer
            | '\u{3040}'..='\u{30ff}' // Hiragana, Katakana
            | '\u{3400}'..='\u{4dbf}' // CJK extension A
            | '\u{4e00}'..='\u{9fff}' // CJK unified ideographs
            | '\u{f900}'..='\u{faff}' // CJK compatibility ideographs
            | '\u{ff66}'..='\u{ff9f}' // halfwidth Katakana
            | '\u{20000}'..='\u{3134f}' // CJK extensions B to G
    ) && c.is_alphanumeric()
}

/// `**Why per-project daemons?**`: the whole line in one emphasis, as a heading is drawn.
fn wholly_emphasised(text: &str) -> bool {
    let t = text.trim().trim_end_matches(['.', ':', '?', '!']);
    ["**", "__"].iter().any(|m| {
        t.strip_prefix(m)
            .and_then(|inner| inner.strip_suffix(m))
            .is_some_and(|inner| !inner.is_empty() && !inner.contains(m))
    })
}

/// `"Bump to 0.9.3"`: the whole text in quotes.
fn quoted(plain: &str) -> bool {
    let t = plain.trim();
    [('"', '"'), ('“', '”'), ('\'', '\'')]
        .iter()
        .any(|&(open, close)| {
            t.strip_prefix(open)
                .and_then(|inner| inner.strip_suffix(close))
                .is_some_and(|inner| !inner.is_empty() && !inner.contains(close))
        })
}

/// `See docs/X.md for details.`, `For more details, see README.md.`
fn pointer(plain: &str) -> bool {
    let lower = plain.trim_start().to_lowercase();
    // `…见 \`CONTRIBUTING.md\`。` (see …), `Triage 标签状态机：\`docs/triage.md\`。` (a label, then a file).
    let t = plain.trim().trim_end_matches(['。', '.']).trim_end();
    let cjk = t.ends_with("见 code")
        || t.ends_with("见code")
        || t.split_once('\u{ff1a}').is_some_and(|(label, rest)| {
            rest.trim() == "code" && label.chars().count() <= CJK_LABEL_CHARS
        });
    cjk || [
        "see ",
        "refer to ",
        "for more ",
        "for details",
        "more details",
        "read more",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
}

/// The most characters a CJK label before a file name has (`领域文档的使用方式：…`).
const CJK_LABEL_CHARS: usize = 30;

/// `[Guide](docs/guide.md) - how to start`, `**README.md** - Main documentation`: a link or a
/// file name, then at most a short description.
fn link_entry(text: &str) -> bool {
    let t = text.trim();
    let (head, tail) = match t.split_once(" - ").or_else(|| t.split_once(" — ")) {
        Some((h, tail)) => (h.trim(), tail),
        None => (t, ""),
    };
    let bare = head.trim_matches(['*', '_', '`']);
    let is_link = head.starts_with('[') && link(head).is_some_and(|(_, after)| after.is_empty());
    let is_file = !bare.contains(' ')
        && (bare.contains('/')
            || bare
                .rsplit_once('.')
                .is_some_and(|(_, ext)| FILE_EXTENSIONS.contains(&ext)));
    (is_link || is_file) && words(&plain(tail)) < 8
}

/// Extensions that mark a name as a file in a list of documents.
const FILE_EXTENSIONS: &[&str] = &["md", "mdc", "txt", "json", "toml", "yaml", "yml", "html"];

fn ends_sentence(plain: &str) -> bool {
    plain
        .trim_end()
        .trim_end_matches([')', '"', '”', '’', '»'])
        .ends_with(['.', '!', '?', '。', '！', '？', '।', '؟', '۔', '።', '။'])
}

/// Words that make a rule of whatever follows: `Never …`, `… must …`, `Do NOT …`.
fn has_rule_word(plain: &str) -> bool {
    plain_words(plain)
        .any(|w| RULE_WORDS.contains(&w.as_str()) || w.ends_with("n't") || w.ends_with("n’t"))
}

const RULE_WORDS: &[&str] = &[
    "always",
    "never",
    "must",
    "should",
    "shall",
    "not",
    "only",
    "avoid",
    "prefer",
    "required",
    "forbidden",
    "cannot",
];

/// Whether the text reads as English: nearly all its letters ASCII, some of its words English
/// function words, and none a word other languages written in Latin letters use often. The verb
/// test knows English only: `Abfragen über 100 ms werden protokolliert.` is not judged by it.
fn english(plain: &str) -> bool {
    let letters = plain.chars().filter(|c| c.is_alphabetic());
    let (mut ascii, mut all) = (0usize, 0usize);
    for c in letters {
        all += 1;
        ascii += usize::from(c.is_ascii_alphabetic());
    }
    let mut english_word = false;
    for w in plain_words(plain) {
        if FOREIGN.contains(&w.as_str()) {
            return false;
        }
        english_word |= ENGLISH.contains(&w.as_str());
    }
    all > 0 && ascii * 10 >= all * 9 && english_word
}

/// English function words: a fragment of English holds one (`Better error handling and
/// validation`).
const ENGLISH: &[&str] = &[
    "the", "a", "an", "of", "to", "in", "for", "on", "with", "and", "or", "by", "from", "at", "as",
    "no", "than", "into", "instead", "without", "between", "across", "per", "each", "every", "all",
    "any", "its", "their", "your", "our", "this", "these", "those",
];

/// Frequent words of German, French, Spanish, Italian, Portuguese, Dutch and the Nordic
/// languages that English does not use.
const FOREIGN: &[&str] = &[
    "der", "die", "das", "und", "ist", "nicht", "mit", "ein", "eine", "le", "la", "les", "et",
    "est", "des", "une", "pas", "el", "los", "las", "y", "es", "que", "con", "para", "il", "di",
    "che", "non", "sono", "não", "het", "een", "niet", "och", "är", "og", "ikke",
];

/// Lower-case words, punctuation around them dropped.
fn plain_words(plain: &str) -> impl Iterator<Item = String> + '_ {
    plain
        .split(|c: char| c.is_whitespace() || c == '/' || c == '-')
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
}

/// The first word that reads as a verb: a form of be, have or do, a modal, a subject pronoun
/// (a verb follows it), or one of the verbs engineering notes use in any of its regular forms;
/// a word ending as verbs are made (`-ize`, `-ify`, `-ate`) counts too. Wrong either way only
/// in the few cases a person then sees among the skipped.
/// How a word reads as a verb.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// `run`, `use`: an imperative at the start.
    Base,
    /// `runs`, `uses`: at the start, a description whose subject is left out.
    ThirdPerson,
    /// A form of be, have or do, a modal, a pronoun, a past tense.
    Other,
}

/// The first word that reads as a verb, counting from 0, and its form.
fn first_verb(plain: &str) -> Option<(usize, Form)> {
    plain_words(plain).enumerate().find_map(|(at, w)| {
        let verb = |s: &str| {
            VERBS.binary_search(&s).is_ok()
                || ["ize", "ise", "ify", "ate"].iter().any(|e| s.ends_with(e))
        };
        let form = if AUXILIARIES.contains(&w.as_str()) {
            Form::Other
        } else if verb(&w) {
            Form::Base
        } else {
            stems(&w).skip(1).find(|s| verb(s))?;
            if w.ends_with('s') {
                Form::ThirdPerson
            } else {
                Form::Other
            }
        };
        Some((at, form))
    })
}

/// `uses` → `use`, `used` → `use`, `stopped` → `stop`, `applies` → `apply`. Not `-ing`: a
/// participle alone makes no clause (`Better error handling`).
fn stems(w: &str) -> impl Iterator<Item = String> + '_ {
    let mut out = vec![w.to_owned()];
    for (suffix, add) in [
        ("ies", "y"),
        ("ied", "y"),
        ("es", ""),
        ("s", ""),
        ("ed", ""),
        ("ed", "e"),
        ("d", ""),
    ] {
        if let Some(stem) = w.strip_suffix(suffix).filter(|s| s.len() >= 2) {
            out.push(format!("{stem}{add}"));
            // A doubled consonant: stopped.
            let mut last = stem.chars().rev();
            if add.is_empty() && stem.len() >= 3 && last.next() == last.next() {
                if let Some(single) = stem.get(..stem.len() - 1) {
                    out.push(single.to_owned());
                }
            }
        }
    }
    out.into_iter()
}

const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "being", "am", "isn't", "aren't", "has", "have",
    "had", "do", "does", "did", "can", "could", "may", "might", "will", "would", "won't", "can't",
    "it's", "that's", "there's", "ran", "went", "made", "took", "gave", "kept", "left", "lost",
    "built", "wrote", "written", "broke", "broken", "chosen", "known", "shown", "held", "led",
    "means", "meant", "sent", "spent", "got", "gets", "let", "lets", "set", "sets", "put", "puts",
    "cut", "cuts", "hit", "read", "reads", "says", "said", "found", "stays", "won", "we", "you",
    "they", "i", "he", "she",
];

/// Verbs engineering notes use, sorted (for the binary search).
const VERBS: &[&str] = &[
    "accept",
    "access",
    "act",
    "add",
    "adjust",
    "allocate",
    "allow",
    "annotate",
    "apply",
    "approve",
    "ask",
    "assert",
    "assign",
    "assume",
    "attach",
    "audit",
    "avoid",
    "balance",
    "become",
    "begin",
    "belong",
    "bind",
    "block",
    "break",
    "bring",
    "build",
    "bump",
    "bypass",
    "cache",
    "call",
    "cancel",
    "catch",
    "cause",
    "change",
    "check",
    "choose",
    "claim",
    "clarify",
    "clean",
    "clear",
    "clone",
    "close",
    "collect",
    "combine",
    "come",
    "commit",
    "compare",
    "compile",
    "complete",
    "compute",
    "configure",
    "confirm",
    "conflict",
    "conform",
    "connect",
    "consider",
    "consist",
    "consult",
    "consume",
    "contain",
    "continue",
    "control",
    "convert",
    "copy",
    "cost",
    "count",
    "cover",
    "crash",
    "create",
    "debounce",
    "decide",
    "decode",
    "define",
    "delete",
    "depend",
    "deploy",
    "describe",
    "detect",
    "disable",
    "distinguish",
    "document",
    "drop",
    "duplicate",
    "eliminate",
    "embed",
    "emit",
    "enable",
    "encode",
    "encourage",
    "end",
    "enforce",
    "enhance",
    "ensure",
    "escape",
    "establish",
    "exceed",
    "exclude",
    "execute",
    "exist",
    "exit",
    "expect",
    "expire",
    "explain",
    "export",
    "expose",
    "fail",
    "fall",
    "favor",
    "favour",
    "fetch",
    "fill",
    "filter",
    "find",
    "finish",
    "fit",
    "fix",
    "flush",
    "follow",
    "force",
    "forget",
    "format",
    "generate",
    "get",
    "give",
    "go",
    "ground",
    "grow",
    "guarantee",
    "guess",
    "handle",
    "happen",
    "hash",
    "help",
    "hide",
    "hold",
    "ignore",
    "implement",
    "import",
    "include",
    "increase",
    "indicate",
    "install",
    "integrate",
    "introduce",
    "invoke",
    "isolate",
    "join",
    "keep",
    "kill",
    "know",
    "land",
    "last",
    "lead",
    "leak",
    "learn",
    "leave",
    "leverage",
    "limit",
    "link",
    "list",
    "live",
    "load",
    "lock",
    "log",
    "look",
    "lose",
    "maintain",
    "make",
    "manage",
    "mandate",
    "mark",
    "match",
    "matter",
    "mean",
    "measure",
    "mention",
    "merge",
    "migrate",
    "miss",
    "mock",
    "modify",
    "monitor",
    "move",
    "need",
    "note",
    "obtain",
    "offer",
    "omit",
    "open",
    "operate",
    "organize",
    "own",
    "parse",
    "pass",
    "pay",
    "persist",
    "pick",
    "pin",
    "place",
    "plan",
    "point",
    "poll",
    "prefer",
    "prefix",
    "prepare",
    "present",
    "preserve",
    "prevent",
    "print",
    "process",
    "produce",
    "propose",
    "protect",
    "provide",
    "publish",
    "pull",
    "push",
    "query",
    "raise",
    "reach",
    "rebase",
    "rebuild",
    "receive",
    "reconcile",
    "record",
    "reduce",
    "refer",
    "reference",
    "refine",
    "refuse",
    "register",
    "reject",
    "release",
    "rely",
    "remain",
    "remember",
    "remove",
    "rename",
    "render",
    "reopen",
    "replace",
    "report",
    "repro",
    "require",
    "reset",
    "resolve",
    "respond",
    "restart",
    "restore",
    "retrieve",
    "retry",
    "return",
    "reuse",
    "review",
    "rewrite",
    "rotate",
    "route",
    "run",
    "save",
    "scaffold",
    "scan",
    "scope",
    "search",
    "see",
    "seek",
    "seem",
    "select",
    "send",
    "serve",
    "share",
    "ship",
    "show",
    "shrink",
    "sign",
    "skip",
    "sort",
    "spawn",
    "split",
    "start",
    "state",
    "stay",
    "stop",
    "store",
    "stream",
    "succeed",
    "suggest",
    "support",
    "surface",
    "swap",
    "switch",
    "sync",
    "tag",
    "take",
    "talk",
    "tell",
    "test",
    "think",
    "throw",
    "time",
    "track",
    "treat",
    "trigger",
    "trust",
    "try",
    "tune",
    "turn",
    "understand",
    "unlock",
    "update",
    "upgrade",
    "use",
    "validate",
    "verify",
    "wait",
    "want",
    "warn",
    "watch",
    "win",
    "work",
    "wrap",
    "write",
    "yield",
];

#[cfg(test)]
mod tests {
    use super::*;
    use Piece::{Item, Prose, Step};

    #[test]
    fn the_verb_list_is_sorted_for_its_search() {
        assert!(VERBS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn shapes_of_a_document_are_not_statements() {
        for (text, piece, why) in [
            ("**When to use:**", Prose, "introduces"),
            ("**Why per-project daemons?**", Prose, "heading in disguise"),
            ("\"Bump to 0.9.3\"", Item, "quoted"),
            (
                "See [commands/daemons.md](commands/daemons.md) for detailed documentation.",
                Prose,
                "points to",
            ),
            (
                "For more details, see README.md and QUICKSTART.md.",
                Prose,
                "points to",
            ),
            (
                "**README.md** - Main documentation (keep this updated!)",
                Item,
                "list of links",
            ),
            (
                "[The install guide for every platform](docs/install.md)",
                Item,
                "list of links",
            ),
            ("Shows diff preview", Item, "fragment"),
            ("Update it to `main`", Item, "refers to"),
            (
                "Use this before any workflow that wants to load existing auth.",
                Item,
                "refers to",
            ),
            (
                "Run it with `--release` when measuring anything.",
                Prose,
                "refers to",
            ),
            (
                "Read and follow this `AGENTS.md` before editing files in this directory.",
                Item,
                "instruction file itself",
            ),
            (
                "If a deeper subdirectory has its own `AGENTS.md`, the deeper rules win.",
                Item,
                "instruction file itself",
            ),
            (
                "Applies when editing files under: `scripts/playwright/`",
                Prose,
                "instruction file itself",
            ),
            (
                "Apply `packages/database/AGENTS.md` and backend scoped rules.",
                Item,
                "instruction file itself",
            ),
            (
                "You are an expert in Go, Gin and Gorm, with a deep understanding of best practices.",
                Prose,
                "casts the agent in a role",
            ),
            ("Act as a senior Rust engineer.", Prose, "casts the agent in a role"),
            ("Do not skip this step.", Prose, "points to a place"),
            (
                "启动开发服务器、测试规范、注释规范见 `CONTRIBUTING.md`。",
                Prose,
                "points to other documentation",
            ),
            (
                "Triage 标签状态机：`docs/agents/triage-labels.md`。",
                Item,
                "points to other documentation",
            ),
            ("Retry as above when the push fails.", Item, "points to a place"),
            (
                "Treat `SHOULD` as defaults unless task requirements conflict.",
                Item,
                "instruction file itself",
            ),
            (
                "These files inline operational rules so Codex can proceed with minimal indirection.",
                Prose,
                "instruction file itself",
            ),
            ("Push to GitHub", Step, "step of a procedure"),
            ("Commits to git", Item, "does not name"),
            ("Automatic workspace detection", Item, "fragment"),
            (
                "Native code generation for a faster startup.",
                Prose,
                "no verb",
            ),
            ("Better error handling and validation", Item, "no verb"),
            (
                "Rebasing onto main before merging the branch",
                Item,
                "no verb",
            ),
        ] {
            let got = not_a_statement(text, piece);
            assert!(
                got.as_deref().is_some_and(|g| g.contains(why)),
                "{text}: {got:?}"
            );
        }
    }

    #[test]
    fn rules_and_facts_are_statements() {
        for (text, piece) in [
            ("Always run tests", Item),
            (
                "Never edit `AGENTS.md` by hand: `make docs` writes it.",
                Item,
            ),
            ("Use this pattern for every new endpoint.", Item),
            ("Keep it simple: one handler per route.", Prose),
            ("Implement RBAC policies", Item),
            ("Push to GitHub", Item),
            ("Never use unwrap in handlers", Item),
            ("❌ Do NOT create markdown TODO lists", Item),
            (
                "Only `blocks` dependencies affect the ready work queue.",
                Item,
            ),
            ("The daemon commits every 5 seconds.", Prose),
            ("Auto-sync batches changes in 30-second window", Item),
            ("Hash IDs eliminate collisions between workers", Item),
            ("We dogfood our own tool!", Prose),
            ("Die Datenbank muss im Container laufen.", Item),
            ("Abfragen über 100 ms werden protokolliert.", Item),
            ("Migrations must be reversible", Item),
            ("`bd import` rejects files with conflict markers", Item),
            ("Pool size is 10.", Item),
            ("所有数据库迁移必须可以回滚。", Item),
            ("Die Datenbank läuft nur im Container.", Item),
            ("Cannot merge in daemon mode yet; use `--no-daemon`", Item),
            (
                "Priority 0-1 issues are usually more important than 2-4",
                Item,
            ),
            ("`bd sync` forces a flush", Item),
            ("You are not allowed to push to `main` directly.", Item),
            (
                "**Best Practice: Use a dedicated directory for these ephemeral files**",
                Item,
            ),
        ] {
            assert_eq!(not_a_statement(text, piece), None, "{text}");
        }
    }

    #[test]
    fn headings_of_procedures_are_told_from_others() {
        for h in [
            "Adding a New Command",
            "Release Process (Maintainers)",
            "How to deploy",
        ] {
            assert!(procedure(h), "{h}");
        }
        for h in [
            "Best Practices",
            "Security Considerations",
            "String handling",
            "Testing",
            "Testing & Validation",
            "Logging and Tracing",
        ] {
            assert!(!procedure(h), "{h}");
        }
    }

    #[test]
    fn verbs_are_found_in_their_forms() {
        for w in ["uses", "used", "stopped", "applies", "creates", "optimizes"] {
            assert!(first_verb(w).is_some(), "{w}");
        }
        assert!(first_verb("structured json responses").is_none());
        assert!(first_verb("better error handling").is_none());
    }
}

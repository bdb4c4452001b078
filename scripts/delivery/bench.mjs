// The delivery benchmark's driver (scripts/bench-delivery runs it; docs/agents.md says what it
// measures). It replays a repository's last commits as agent sessions: each commit is a session
// that reads, then edits, the files the commit touched, in order, with a compaction every K tool
// calls. For each runtime shape and mode it runs mneme's own hooks (the real binary, with the
// input each runtime sends) or, for the anchor, the one instruction file a team would write, and
// counts what reaches the agent in o200k_base tokens.
//
//   node bench.mjs --repo DIR [--mneme BIN] [--commits 200] [--every 10]
//                  [--runtimes claude,codex,copilot,cursor] [--modes anchor,unscoped,scoped,native]
//                  [--json OUT] [--min-recall 1]
//
// Recall: at each touch, of the facts about the touched file, the share in context: after a
// read's hook (what the agent has when it acts on what it read), and before an edit's hook (what
// it has when it edits). Noise: the share of delivered fact tokens that are about files, none of
// which the session touched. A compaction clears the context; what the runtime then puts back
// (its instruction file, mneme's compaction hook) is all the context holds. About no file, at
// start: of the facts about no file (which only a start brings), the share the start carried.
//
// native: the same facts as the runtime's own path rules, for the runtimes that have them
// (Claude Code's `.claude/rules` `paths:`, Cursor's `globs`, Copilot CLI's `applyTo`): one rule
// file per set of paths (a fact's scope globs and the code it cites), loaded whole after
// the first read of a matching file in a context; the facts about no file in the instruction
// file, read at the start and after each compaction.
import { spawnSync, execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, existsSync, statSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((pairs, a, i, all) => (a.startsWith("--") ? [...pairs, [a.slice(2), all[i + 1]]] : pairs), []),
);
const repo = args.repo ?? process.cwd();
const mneme = args.mneme ?? "mneme";
const commits = Number(args.commits ?? 200);
const every = Number(args.every ?? 10);
const runtimes = (args.runtimes ?? "claude,codex,copilot,cursor").split(",");
const modes = (args.modes ?? "anchor,unscoped,scoped,native").split(",");
const NATIVE = new Set(["claude", "cursor", "copilot"]);

const git = (dir, ...a) => execFileSync("git", a, { cwd: dir, encoding: "utf8", maxBuffer: 1 << 28 });

// A clone of the repository at HEAD: the sessions' records and the mode's config are its own.
const work = mkdtempSync(join(tmpdir(), "mneme-bench-delivery-"));
git(work, "clone", "-q", "--no-hardlinks", repo, "checkout");
const dir = join(work, "checkout");
const config = join(dir, ".ledger/config.yaml");
const baseConfig = git(dir, "show", "HEAD:.ledger/config.yaml");

function run(argv, input, env = {}) {
  const started = process.hrtime.bigint();
  const out = spawnSync(mneme, argv, { cwd: dir, input, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env }, maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (out.status !== 0) throw new Error(`mneme ${argv.join(" ")}: ${out.stderr}`);
  return { stdout: out.stdout, ms };
}

// The facts, each with the files it is about, the way scope.rs reads them: the code its evidence
// cites (documents and instruction files are sources, not subjects) and its scope globs.
const PROSE = /\.(md|markdown|mdx|mdc|rst|adoc|asciidoc|org)$/i;
const RULES = new Set([".cursorrules", ".windsurfrules", ".clinerules"]);
const context = JSON.parse(run(["context", "--json"]).stdout);
const facts = new Map();
for (const file of context.files) {
  for (const f of file.facts) {
    if (!f.id) continue;
    const cited = (f.evidence ?? [])
      .map((e) => e.replace(/^\.\//, "").replace(/:[\d,-]+$/, ""))
      .filter((p) => !/^[a-z]+:\/\//.test(p) && !/\s/.test(p) && (p.includes("/") || p.includes(".")))
      .filter((p) => !PROSE.test(p) && !RULES.has(p.split("/").pop()) && !p.startsWith(".ledger/"));
    const globs = (f.scope ?? []).map(globRegex);
    const line = `- ${f.id} ${f.text}\n`;
    // What a team would write as the rule's paths: its scope and the files it cites.
    const paths = [...new Set([...(f.scope ?? []), ...cited])].sort();
    facts.set(f.id, { cited: new Set(cited), globs, paths, tokens: countTokens(line), line, file: file.name });
  }
}
function globRegex(glob) {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      re += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += glob[i + 2] === "/" ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}
const aboutCache = new Map();
function about(path) {
  if (!aboutCache.has(path)) {
    const ids = [];
    for (const [id, f] of facts) if (f.cited.has(path) || f.globs.some((g) => g.test(path))) ids.push(id);
    aboutCache.set(path, ids);
  }
  return aboutCache.get(path);
}
const isAboutFiles = (id) => facts.get(id).cited.size > 0 || facts.get(id).globs.length > 0;
// The facts about no file: only a session's start (or the instruction file) brings them.
const noFile = [...facts.keys()].filter((id) => !isAboutFiles(id));

// The sessions: the newest commits (merges left out), each the files it touched that are still
// files at HEAD, the ledger's own left out (agents never edit it).
const sessions = git(repo, "log", "--no-merges", "--format=%H", "-n", String(commits))
  .split("\n")
  .filter(Boolean)
  .map((sha) => ({
    sha,
    files: git(repo, "diff-tree", "--no-commit-id", "--name-only", "-r", "--root", sha)
      .split("\n")
      .filter((p) => p && !p.startsWith(".ledger/") && existsSync(join(dir, p)) && statSync(join(dir, p)).isFile()),
  }))
  .filter((s) => s.files.length > 0);

// A path as an agent writes it in a shell command: quoted, since paths hold `[locale]`, `(auth)`.
const shellQuoted = (p) => (/^[\w./-]+$/.test(p) ? p : `'${p.replaceAll("'", `'\\''`)}'`);

// What each runtime sends its hooks, and what it does at a compaction.
const SHAPES = {
  claude: {
    agent: "claude",
    start: (sid) => [["SessionStart", { session_id: sid, source: "startup" }]],
    read: (sid, p) => [["PostToolUse", { session_id: sid, tool_name: "Read", tool_input: { file_path: join(dir, p) } }]],
    edit: (sid, p) => [["PostToolUse", { session_id: sid, tool_name: "Edit", tool_input: { file_path: join(dir, p) } }]],
    compact: (sid) => [["SessionStart", { session_id: sid, source: "compact" }]],
  },
  codex: {
    agent: "codex",
    start: (sid) => [["SessionStart", { session_id: sid, source: "startup" }]],
    read: (sid, p) => [["PostToolUse", { session_id: sid, tool_name: "Bash", tool_input: { command: `sed -n 1,200p ${shellQuoted(p)}` } }]],
    edit: (sid, p) => [["PostToolUse", { session_id: sid, tool_name: "apply_patch", tool_input: { command: `*** Begin Patch\n*** Update File: ${p}\n@@\n-a\n+b\n*** End Patch\n` } }]],
    compact: (sid) => [["SessionStart", { session_id: sid, source: "compact" }]],
  },
  copilot: {
    agent: null,
    start: (sid) => [["SessionStart", { session_id: sid, source: "new" }]],
    read: (sid, p) => [["PostToolUse", { session_id: sid, tool_name: "view", tool_input: { path: join(dir, p) } }]],
    edit: (sid, p) => [["PostToolUse", { session_id: sid, tool_name: "edit", tool_input: { path: join(dir, p) } }]],
    // PreCompact drops the record; the next tool's hook puts the start back.
    compact: (sid) => [["PreCompact", { session_id: sid }]],
  },
  cursor: {
    agent: null,
    start: () => [["sessionStart", {}]],
    read: () => [],
    edit: () => [],
    compact: () => [],
  },
};

const ids = (text) => [...text.matchAll(/^- (f-[a-z0-9]+)\b/gm)].map((m) => m[1]);
function injected(runtime, stdout) {
  const text = stdout.trim();
  if (!text) return "";
  try {
    const v = JSON.parse(text);
    return v.hookSpecificOutput?.additionalContext ?? v.additionalContext ?? "";
  } catch {
    return text;
  }
}

// The anchor: every fact in one instruction file, read at the start and again after each
// compaction, as a team's CLAUDE.md or AGENTS.md is.
const anchor = ["# Project facts\n", ...context.files.flatMap((f) => [`\n## ${f.name}\n`, ...f.facts.filter((x) => x.id).map((x) => facts.get(x.id).line)])].join("");

// native: the rule files, each its paths (as patterns) and its text, and the instruction file
// with the facts about no file.
const ruleFiles = new Map();
for (const [id, f] of facts) {
  if (!f.paths.length) continue;
  const key = f.paths.join("\n");
  if (!ruleFiles.has(key)) ruleFiles.set(key, { test: f.paths.map(globRegex), lines: [] });
  ruleFiles.get(key).lines.push(f.line);
}
const rules = [...ruleFiles.values()].map((r) => ({ test: r.test, text: `# Project facts\n\n${r.lines.join("")}` }));
const alwaysLoaded = ["# Project facts\n\n", ...[...facts.values()].filter((f) => !f.paths.length).map((f) => f.line)].join("");

const percentile = (xs, p) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

function measure(runtime, mode) {
  // The ledger's own config, with `scoped_delivery` as the mode says (mneme's hooks run in both).
  const scoped = { scoped: "true", unscoped: "false" }[mode];
  writeFileSync(config, baseConfig.replace(/^scoped_delivery:.*\n?/m, "") + (scoped ? `\nscoped_delivery: ${scoped}\n` : ""));
  rmSync(join(dir, ".git/mneme-sessions"), { recursive: true, force: true });
  const shape = SHAPES[runtime] ?? SHAPES.cursor;
  const env = shape.agent ? { MNEME_AGENT: shape.agent } : { MNEME_AGENT: "" };
  const r = { runtime, mode, sessions: 0, start: [], compaction: [], perCall: [], perSession: [], hookMs: [], touches: 0, found: 0, wanted: 0, afterCompaction: { found: 0, wanted: 0 }, factTokens: 0, noiseTokens: 0, noFile: { found: 0, missed: 0 } };
  sessions.forEach((s, n) => {
    const sid = `bench-${runtime}-${mode}-${n}`;
    const inContext = new Set();
    const delivered = new Set();
    let total = 0;
    let compacted = false;
    const deliver = (text) => {
      const t = countTokens(text);
      total += t;
      for (const id of ids(text)) {
        inContext.add(id);
        if (facts.has(id)) delivered.add(id);
      }
      return t;
    };
    // native: the rule files in this context, and those a read loads.
    const loaded = new Set();
    const loadRules = (path) => {
      let t = 0;
      for (const rule of rules) {
        if (loaded.has(rule) || !rule.test.some((g) => g.test(path))) continue;
        loaded.add(rule);
        t += deliver(rule.text);
      }
      return t;
    };
    const hooks = (steps) => {
      let t = 0;
      for (const [event, input] of steps) {
        if (mode === "anchor" || mode === "native") continue;
        const { stdout, ms } = run(["context", "--for", runtime, "--event", event], JSON.stringify(input), env);
        r.hookMs.push(ms);
        t += deliver(injected(runtime, stdout));
      }
      return t;
    };
    const instructions = { anchor, native: alwaysLoaded }[mode];
    r.start.push(instructions !== undefined ? deliver(instructions) : hooks(shape.start(sid)));
    for (const id of noFile) r.noFile[inContext.has(id) ? "found" : "missed"] += 1;
    const check = (path) => {
      const want = about(path);
      const have = want.filter((id) => inContext.has(id)).length;
      if (process.env.DEBUG && compacted && have < want.length) console.error(path, want.filter((id) => !inContext.has(id)), inContext.size);
      r.wanted += want.length;
      r.found += have;
      if (compacted) {
        r.afterCompaction.wanted += want.length;
        r.afterCompaction.found += have;
      }
    };
    let calls = 0;
    const call = (kind, path) => {
      if (calls > 0 && calls % every === 0) {
        inContext.clear();
        loaded.clear();
        compacted = true;
        r.compaction.push(instructions !== undefined ? deliver(instructions) : hooks(shape.compact(sid)));
      }
      calls += 1;
      if (kind === "edit") check(path);
      r.perCall.push(mode === "native" ? (kind === "read" ? loadRules(path) : 0) : hooks(shape[kind](sid, path)));
      if (kind === "read") check(path);
      r.touches += 1;
    };
    for (const p of s.files) {
      call("read", p);
      call("edit", p);
    }
    const touched = new Set(s.files);
    for (const id of delivered) {
      const f = facts.get(id);
      r.factTokens += f.tokens;
      if (isAboutFiles(id) && ![...f.cited].some((p) => touched.has(p)) && ![...touched].some((p) => f.globs.some((g) => g.test(p)))) {
        r.noiseTokens += f.tokens;
      }
    }
    r.perSession.push(total);
    r.sessions += 1;
  });
  return {
    runtime,
    mode,
    sessions: r.sessions,
    tool_calls: r.perCall.length,
    tokens: {
      start: Math.round(mean(r.start)),
      after_compaction: Math.round(mean(r.compaction)),
      per_tool_call: Math.round(mean(r.perCall) * 10) / 10,
      per_session: Math.round(mean(r.perSession)),
    },
    // (touch, fact about the touched file) pairs, and those in context at the touch.
    pairs: r.wanted,
    recall: r.wanted ? r.found / r.wanted : 1,
    pairs_after_compaction: r.afterCompaction.wanted,
    recall_after_compaction: r.afterCompaction.wanted ? r.afterCompaction.found / r.afterCompaction.wanted : 1,
    noise: r.factTokens ? r.noiseTokens / r.factTokens : 0,
    // Of the facts about no file, the share the start carried.
    no_file_at_start: r.noFile.found + r.noFile.missed ? r.noFile.found / (r.noFile.found + r.noFile.missed) : 1,
    hook_ms: { p50: percentile(r.hookMs, 50), p95: percentile(r.hookMs, 95) },
  };
}

const results = [];
for (const runtime of runtimes) {
  for (const mode of modes) {
    // The anchor does not depend on the runtime: once is enough. Native rules are measured for
    // the runtimes that have them, once (they load the same way in each).
    if (mode === "anchor" && runtime !== runtimes[0]) continue;
    if (mode === "native" && runtime !== runtimes.find((x) => NATIVE.has(x))) continue;
    results.push(measure({ anchor: "any", native: runtimes.filter((x) => NATIVE.has(x)).join("/") }[mode] ?? runtime, mode));
  }
}
writeFileSync(config, baseConfig);

const head = git(repo, "rev-parse", "--short=10", "HEAD").trim();
const pct = (x) => `${(x * 100).toFixed(1)}%`;
const ms = (x) => (x == null ? "–" : x.toFixed(1));
console.log(`${repo} at ${head}: ${facts.size} facts, ${sessions.length} sessions (of the last ${commits} commits), a compaction every ${every} tool calls\n`);
console.log("| runtime | mode | start | after compaction | per tool call | per session | recall | recall after compaction | about no file, at start | noise | hook p50 / p95 ms |");
// Recall is of (touch, fact about the touched file) pairs; their count follows each share.
console.log("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
for (const x of results) {
  console.log(`| ${x.runtime} | ${x.mode} | ${x.tokens.start} | ${x.tokens.after_compaction} | ${x.tokens.per_tool_call} | ${x.tokens.per_session} | ${pct(x.recall)} (${x.pairs}) | ${pct(x.recall_after_compaction)} (${x.pairs_after_compaction}) | ${pct(x.no_file_at_start)} (${noFile.length}) | ${pct(x.noise)} | ${ms(x.hook_ms.p50)} / ${ms(x.hook_ms.p95)} |`);
}
if (args.json) writeFileSync(args.json, JSON.stringify({ repo, head, facts: facts.size, sessions: sessions.length, every, results }, null, 1) + "\n");
rmSync(work, { recursive: true, force: true });
// --min-recall R: fail when a mode's recall (or recall after a compaction) is below R.
if (args["min-recall"] !== undefined) {
  const min = Number(args["min-recall"]);
  const low = results.filter((x) => x.recall < min || x.recall_after_compaction < min);
  for (const x of low) console.error(`recall below ${min}: ${x.runtime} ${x.mode}: ${pct(x.recall)}, after compaction ${pct(x.recall_after_compaction)}`);
  if (low.length) process.exit(1);
}

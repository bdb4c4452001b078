// GitHub Copilot CLI, installed from npm, run headless and offline (its own BYOK mode) against the
// Chat Completions stand-in: the facts reach the model at session start, the facts about a file
// once after the agent first views it, and both again once after a compaction, which in Copilot
// CLI drops the session's start too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { READ_PROMPT, readsWhenAsked, startChat } from './standins/chat.mjs';
import {
  count,
  DB_MARK,
  deliveredOnFirstRead,
  doctor,
  OTHER_MARK,
  repoWithFacts,
  repoWithScopedFacts,
  runAsync,
  runtimeBin,
  noticeWithoutMneme,
  sendsNothingWithoutSetup,
  sh,
  terminal,
} from './lib.mjs';

const FACT = 'The cache keeps entries for 5 minutes (marker QX7-CACHE).';
const MARK = 'QX7-CACHE';
/** The prompt tokens past which Copilot CLI compacts a session's history (a share of them). */
const MAX_PROMPT_TOKENS = 100_000;
/** What the first request of a compacted history starts with. */
const SUMMARIZED = 'Some of the conversation history has been summarized';
/** What Copilot CLI asks the model when it compacts. */
const SUMMARY_REQUEST = 'The history is being compacted';

/**
 * The environment of Copilot CLI against the stand-in: offline, with a scratch COPILOT_HOME whose
 * config trusts the repository (unless `trust` is false).
 */
function copilotEnv(ctx, api, trust = true) {
  const home = path.join(ctx.home, '.copilot');
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, 'config.json'), JSON.stringify({ trustedFolders: trust ? [ctx.repo] : [] }));
  return {
    HOME: ctx.home,
    COPILOT_HOME: home,
    COPILOT_OFFLINE: 'true',
    COPILOT_PROVIDER_BASE_URL: api.url,
    COPILOT_PROVIDER_TYPE: 'openai',
    COPILOT_PROVIDER_API_KEY: 'stand-in',
    COPILOT_MODEL: 'stand-in',
    COPILOT_PROVIDER_MAX_PROMPT_TOKENS: String(MAX_PROMPT_TOKENS),
    COPILOT_AUTO_UPDATE: 'false',
    MNEME_AGENT: '',
  };
}

const bin = () => path.join(runtimeBin('copilot'), 'copilot');

/** Runs `copilot -p PROMPT ARGS` in the repository against the stand-in. */
function copilot(ctx, api, prompt, args = [], { env = {}, trust = true } = {}) {
  return runAsync(bin(), ['-p', prompt, '--allow-all-tools', ...args], {
    cwd: ctx.repo,
    env: { ...copilotEnv(ctx, api, trust), ...env },
  });
}

/**
 * How the repository of `ctx` (set up with `mneme setup copilot`: hooks, and the ledger compiled
 * into `.github/instructions/`) reaches Copilot CLI: `hooks` alone, the `rules` alone, or `both`.
 */
function deliverBy(ctx, mode) {
  const git = (...args) => sh('git', args, { cwd: ctx.repo });
  if (mode === 'hooks') {
    const config = path.join(ctx.repo, '.ledger/config.yaml');
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('compile: [copilot]', 'compile: []'));
    sh('mneme', ['check', '--fix'], { cwd: ctx.repo });
  } else if (mode === 'rules') {
    fs.rmSync(path.join(ctx.repo, '.github/hooks'), { recursive: true });
  }
  git('add', '-A');
  git('commit', '-qm', `deliver by ${mode}`, '--allow-empty');
  return ctx;
}

/** The id of the one session Copilot CLI keeps for the repository of `ctx`. */
function sessionId(ctx) {
  const dir = path.join(ctx.home, '.copilot/session-state');
  const ids = fs.readdirSync(dir).filter((n) => !n.startsWith('.'));
  assert.equal(ids.length, 1, `one session: ${ids}`);
  return ids[0];
}

/** The requests of the conversation, without the ones that ask for a compaction's summary. */
function turns(api) {
  return api.requests.filter((r) => count(r, SUMMARY_REQUEST) === 0);
}

test('the facts reach the model at session start once, in every request, and once after a compaction', async () => {
  const ctx = deliverBy(repoWithFacts([FACT], { setup: 'copilot' }), 'hooks');
  const api = await startChat((body) => (count(body, SUMMARY_REQUEST) ? 'Summary of the conversation so far.' : 'An answer.'));
  try {
    await copilot(ctx, api, 'first question about the build');
    assert.equal(count(api.requests.at(-1), MARK), 1, 'session start carries the fact once');
    const id = sessionId(ctx);

    await copilot(ctx, api, 'second question', [`--resume=${id}`]);
    assert.equal(count(api.requests.at(-1), MARK), 1, 'a resumed session carries it once, not twice');

    const before = api.requests.length;
    await copilot(ctx, api, '/compact', [`--resume=${id}`]);
    assert.ok(api.requests.slice(before).some((r) => count(r, SUMMARY_REQUEST) > 0), 'the history was compacted');

    const afterCompaction = api.requests.length;
    await copilot(ctx, api, 'third question', [`--resume=${id}`]);
    const next = api.requests[afterCompaction];
    assert.equal(count(next, SUMMARIZED), 1, 'the history is the summary');
    assert.equal(count(next, 'Summary of the conversation so far.'), 1, 'in place of the old conversation');
    assert.equal(count(next, 'An answer.'), 0, 'the old answers are gone');
    assert.equal(count(next, MARK), 1, 'the first request after the compaction carries the fact once');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

// One process, several prompts: the interactive UI in a real terminal.
test('in the terminal UI, /compact drops the facts and the next prompt puts them back once', async () => {
  const ctx = deliverBy(repoWithFacts([FACT], { setup: 'copilot' }), 'hooks');
  const api = await startChat((body) => (count(body, SUMMARY_REQUEST) ? 'Summary of the conversation so far.' : 'An answer.'));
  const ui = terminal(`mneme-copilot-${process.pid}`, bin(), ['--allow-all-tools'], {
    cwd: ctx.repo,
    env: { ...copilotEnv(ctx, api), TERM: 'xterm-256color' },
  });
  const answers = (n) => new RegExp(`(● An answer\\.[\\s\\S]*){${n}}`);
  try {
    await ui.waitFor(/❯/);
    await ui.type('first question');
    await ui.waitFor(answers(1));
    assert.equal(count(api.requests.at(-1), MARK), 1, 'session start carries the fact once');
    await ui.type('second question');
    await ui.waitFor(answers(2));
    assert.equal(count(api.requests.at(-1), MARK), 1, 'a later prompt adds no copy');
    await ui.type('/compact');
    await ui.waitFor(/Compaction completed/);
    const afterCompaction = api.requests.length;
    await ui.type('third question');
    await ui.waitFor(answers(3));
    const next = api.requests[afterCompaction];
    assert.equal(count(next, 'summarized'), 1, 'the history is the summary');
    assert.equal(count(next, 'An answer.'), 0, 'the old answers are gone');
    assert.equal(count(next, MARK), 1, 'the first request after the compaction carries the fact once');
    await ui.type('fourth question');
    await ui.waitFor(answers(4));
    assert.equal(count(api.requests.at(-1), MARK), 1, 'and later ones too, once');
    // Ended as a user ends it, so that it is done writing its session files.
    await ui.type('/exit');
    await ui.exited();
  } finally {
    ui.close();
    await api.close();
    ctx.cleanup();
  }
});

// By the hooks alone, and (`mneme setup copilot`) with the rule files too, which carry the
// approved facts while the hooks leave those out and give back what a compaction dropped.
for (const mode of ['hooks', 'both']) test(`a fact about a file reaches the model when the agent first views it, once, and once more after a compaction (${mode})`, async () => {
  const { ctx, db } = repoWithScopedFacts([FACT], { setup: 'copilot' });
  deliverBy(ctx, mode);
  const api = await startChat(readsWhenAsked({ tool: 'view', args: { path: db } }, 'Done.'));
  try {
    await copilot(ctx, api, READ_PROMPT);
    // The hook appends to the tool's result; Copilot adds a rule file as a message after it.
    deliveredOnFirstRead(...api.requests.slice(-2), MARK, mode === 'hooks' ? 'tool' : 'user');
    const id = sessionId(ctx);

    await copilot(ctx, api, READ_PROMPT, [`--resume=${id}`]);
    assert.equal(count(api.requests.at(-1), DB_MARK), 1, 'a second view adds no copy');

    await copilot(ctx, api, '/compact', [`--resume=${id}`]);
    const afterCompaction = api.requests.length;
    await copilot(ctx, api, READ_PROMPT, [`--resume=${id}`]);
    const [resumed, reviewed] = api.requests.slice(afterCompaction);
    assert.equal(count(resumed, DB_MARK), 0, 'the compaction dropped it');
    assert.equal(count(resumed, MARK), 1);
    assert.equal(count(reviewed, DB_MARK), 1, 'the next view brings it back once');
    assert.equal(count(reviewed, MARK), 1);
    for (const request of api.requests) {
      assert.equal(count(request, OTHER_MARK), 0, 'a fact about another file never comes');
    }
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

for (const mode of ['hooks', 'both']) test(`a compaction in the middle of a turn (${mode}): every request carries each fact it should once`, async () => {
  const { ctx, db } = repoWithScopedFacts([FACT], { setup: 'copilot' });
  deliverBy(ctx, mode);
  const plain = ['a.rs', 'b.rs', 'c.rs'].map((f) => path.join(ctx.repo, 'src', f));
  for (const file of plain) fs.writeFileSync(file, '// no fact cites this file\n');
  // Last, a file first viewed after the compaction.
  const other = path.join(ctx.repo, 'src/other.rs');
  const views = [db, ...plain, db, other];
  let viewed = 0;
  const reply = (body) => {
    if (count(body, SUMMARY_REQUEST) > 0) return 'Summary of the conversation so far.';
    return viewed < views.length ? { tool: 'view', args: { path: views[viewed++] } } : 'Done.';
  };
  // Usage near the limit until the history is compacted, then far below it: one compaction.
  const tokens = (body) => (count(body, SUMMARIZED) > 0 ? 10 : MAX_PROMPT_TOKENS - 1_000);
  const api = await startChat(reply, tokens);
  try {
    await copilot(ctx, api, READ_PROMPT);
    const all = turns(api);
    const compacted = all.findIndex((r) => count(r, SUMMARIZED) > 0);
    assert.ok(compacted > 0, 'the history was compacted within the turn');
    assert.equal(api.requests.length - all.length, 1, 'once');
    for (const [i, request] of all.entries()) {
      assert.equal(count(request, MARK), 1, `request ${i} of ${all.length} carries the fact once`);
    }
    const views_of = (r, name) =>
      r.messages.filter((m) => m.role === 'assistant' && JSON.stringify(m).includes(`src/${name}`)).length;
    // db.rs's fact rides on its first view; the compaction summarises that away, and the first
    // tool after it brings the start back with the facts about the files the session worked on,
    // db.rs's among them, before db.rs is viewed again: never twice, and whenever a view of
    // db.rs is in the history. other.rs's comes with its first view, after the compaction.
    for (const [i, request] of all.entries()) {
      assert.ok(count(request, DB_MARK) <= 1, `request ${i}: at most once`);
      if (views_of(request, 'db.rs') > 0) assert.equal(count(request, DB_MARK), 1, `request ${i}`);
      if (i < compacted) assert.equal(count(request, DB_MARK), Math.min(1, views_of(request, 'db.rs')), `request ${i}`);
      assert.equal(count(request, OTHER_MARK), Math.min(1, views_of(request, 'other.rs')), `request ${i}`);
    }
    assert.ok(
      all.slice(compacted).some((r) => count(r, DB_MARK) === 1 && views_of(r, 'db.rs') === 0),
      'after the compaction it came back before db.rs was viewed again',
    );
    assert.equal(count(all.at(-1), DB_MARK), 1, 'it stays, once');
    assert.equal(count(all.at(-1), OTHER_MARK), 1, 'a file first viewed after it brings its fact once');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('an untrusted folder runs no hooks, doctor says how to trust it, and --trust-folder does', async () => {
  const ctx = deliverBy(repoWithFacts([FACT], { setup: 'copilot' }), 'hooks');
  const api = await startChat(() => 'Done.');
  try {
    await copilot(ctx, api, 'hello', [], { trust: false });
    assert.equal(count(api.requests.at(-1), MARK), 0, 'no hooks in an untrusted folder');
    const found = JSON.stringify(doctor(ctx, { COPILOT_HOME: path.join(ctx.home, '.copilot') }).problems);
    assert.match(found, /Copilot CLI does not trust this folder/);
    await copilot(ctx, api, 'hello', ['--trust-folder'], { trust: false });
    assert.equal(count(api.requests.at(-1), MARK), 1, 'trusted for this run');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

// Copilot CLI's documentation says it also reads a repository's `.claude/settings.json` hooks.
test('a repository set up for Claude Code too gives each request the facts once', async () => {
  const { ctx, db } = repoWithScopedFacts([FACT], { setup: 'copilot' });
  sh('mneme', ['setup', 'claude'], { cwd: ctx.repo });
  const api = await startChat(readsWhenAsked({ tool: 'view', args: { path: db } }, 'Done.'));
  try {
    await copilot(ctx, api, READ_PROMPT);
    assert.equal(api.requests.length, 2);
    for (const request of api.requests) assert.equal(count(request, MARK), 1);
    assert.equal(count(api.requests.at(-1), DB_MARK), 1);
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('without mneme installed, the session gets a notice instead of the facts', () =>
  noticeWithoutMneme('copilot', FACT, MARK, startChat, (ctx, api, env) => copilot(ctx, api, 'first question', [], { env }), (ctx) => deliverBy(ctx, 'hooks')));

// The ledger compiled into Copilot's own rule files, which Copilot CLI reads with no hook, in any
// folder, trusted or not: a fact about no file in its system prompt, a fact about a file added
// once after the agent first views that file.
test('compiled rule files alone: the facts arrive with no hook and no trust', async () => {
  const { ctx, db } = repoWithScopedFacts([FACT], { setup: 'copilot' });
  deliverBy(ctx, 'rules');
  assert.ok(!fs.existsSync(path.join(ctx.repo, '.github/hooks')));
  const api = await startChat(readsWhenAsked({ tool: 'view', args: { path: db } }, 'Done.'));
  try {
    await copilot(ctx, api, READ_PROMPT, [], { trust: false });
    const [first, ...later] = api.requests;
    assert.equal(count(first, MARK), 1, 'the fact about no file is in the first request');
    assert.equal(count(first, DB_MARK), 0, 'the fact about src/db.rs is not');
    assert.match(JSON.stringify(first.messages[0]), new RegExp(MARK), 'in the system prompt');
    const afterView = later.at(-1);
    assert.equal(count(afterView, DB_MARK), 1, 'once after the agent views src/db.rs');
    assert.equal(count(afterView, MARK), 1);
    for (const request of api.requests) assert.equal(count(request, OTHER_MARK), 0);
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('a repository without setup sends nothing of the ledger', () =>
  sendsNothingWithoutSetup(FACT, MARK, startChat, (ctx, api) => copilot(ctx, api, 'hello')));

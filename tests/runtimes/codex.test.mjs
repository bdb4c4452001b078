// Codex CLI, installed from npm, run headless (`codex exec`) against the Responses API stand-in.
// Hook trust is bypassed for the run (`--dangerously-bypass-hook-trust`): Codex skips untrusted
// project hooks without a word in `codex exec`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { startResponses } from './standins/responses.mjs';
import {
  carriesWhole,
  count,
  DB_MARK,
  doctor,
  fillToBudget,
  hookContext,
  OTHER_MARK,
  pathWithoutMneme,
  repoWithFacts,
  repoWithScopedFacts,
  runAsync,
  runtimeBin,
  sendsNothingWithoutSetup,
} from './lib.mjs';

const FACT = 'The cache keeps entries for 5 minutes (marker QX7-CACHE).';
const MARK = 'QX7-CACHE';
const SUMMARY = 'Summary of the conversation so far.';

/**
 * Writes `$CODEX_HOME/config.toml`: the stand-in as the model provider, the repository trusted.
 * The model is one Codex ships metadata for, which gives it the `apply_patch` tool.
 */
function configure(ctx, api) {
  const home = path.join(ctx.home, '.codex');
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(
    path.join(home, 'config.toml'),
    [
      'model = "gpt-5.5"',
      'model_provider = "standin"',
      '[model_providers.standin]',
      'name = "stand-in"',
      `base_url = "${api.url}"`,
      'wire_api = "responses"',
      'env_key = "STANDIN_KEY"',
      'supports_websockets = false',
      `[projects."${ctx.repo}"]`,
      'trust_level = "trusted"',
      '',
    ].join('\n'),
  );
  return home;
}

function codex(ctx, home, args, env = {}, bypass = ['--dangerously-bypass-hook-trust']) {
  return runAsync(path.join(runtimeBin('codex'), 'codex'), ['exec', ...bypass, ...args], {
    cwd: ctx.repo,
    env: { HOME: ctx.home, CODEX_HOME: home, STANDIN_KEY: 'stand-in', MNEME_AGENT: '', ...env },
  });
}

test('the facts reach the model at session start', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'codex' });
  const api = await startResponses();
  try {
    const { stderr } = await codex(ctx, configure(ctx, api), ['first question']);
    assert.equal(count(api.requests[0], MARK), 1);
    assert.doesNotMatch(stderr, /deprecat/i, 'the project config setup wrote draws no warning');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('an untrusted hook is skipped without a word, and doctor says so', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'codex' });
  const api = await startResponses();
  try {
    const home = configure(ctx, api);
    await codex(ctx, home, ['first question'], {}, []);
    assert.equal(count(api.requests[0], MARK), 0, 'Codex skipped the untrusted hook');
    const problems = JSON.stringify(doctor(ctx, { CODEX_HOME: home }).problems);
    assert.match(problems, /Codex has not trusted mneme's SessionStart and PostToolUse hook/);
    assert.doesNotMatch(problems, /Codex does not trust this project/, 'the project trust is read');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('without mneme installed, the session gets a notice instead of the facts', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'codex' });
  const api = await startResponses();
  try {
    await codex(ctx, configure(ctx, api), ['first question'], { PATH: pathWithoutMneme() });
    assert.equal(count(api.requests[0], 'mneme is not installed'), 1, 'one notice');
    assert.equal(count(api.requests[0], MARK), 0);
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

// Codex fires SessionStart `compact` after a compaction, and SessionStart `resume` when a session
// goes on; before the hook kept track of sessions, each injected (with the PostCompact marker
// taken by UserPromptSubmit): 3 copies in the first request after a compaction, 4 in the next.
test('after an automatic compaction the facts are in the next request exactly once', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'codex' });
  // The compaction request gets the summary; every other request a numbered answer.
  let answers = 0;
  const compaction = (r) => JSON.stringify(r).includes('CONTEXT CHECKPOINT COMPACTION');
  const api = await startResponses((r) => (compaction(r) ? SUMMARY : `Answer ${++answers}.`));
  try {
    const home = configure(ctx, api);
    await codex(ctx, home, ['first question']);
    await codex(ctx, home, ['-c', 'model_auto_compact_token_limit=5', 'resume', '--last', 'second question']);
    const at = api.requests.findIndex(compaction);
    assert.ok(at > 0, 'the resumed session was compacted');
    assert.equal(api.requests.filter(compaction).length, 1, 'once');
    const next = api.requests[at + 1];
    assert.equal(count(next, SUMMARY), 1, 'the summary replaced the conversation');
    assert.equal(count(next, 'Answer 1.'), 0, 'the old conversation is gone');
    assert.equal(count(next, MARK), 1, 'the first request after the compaction carries the fact once');
    await codex(ctx, home, ['resume', '--last', 'third question']);
    assert.equal(count(api.requests.at(-1), MARK), 1, 'a later turn carries it once, not more');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('a ledger at its 800-line budget reaches the model whole', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'codex' });
  assert.ok(fillToBudget(ctx) >= 750);
  const api = await startResponses();
  try {
    await codex(ctx, configure(ctx, api), ['hello']);
    const context = hookContext(ctx, 'codex', 'SessionStart');
    assert.match(context, /not shown|left out|more fact/, 'what did not fit is named');
    assert.ok(carriesWhole(api.requests[0], context), 'the model got the whole context');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('a repository without setup sends nothing of the ledger', () =>
  sendsNothingWithoutSetup(FACT, MARK, startResponses, (ctx, api) => codex(ctx, configure(ctx, api), ['hello'])));

// Codex's model reads with its shell and edits with apply_patch: the PostToolUse hook finds the
// file in the tool's command. `codex exec` is asked to let the shell run (no approvals here).
test('a fact about a file reaches the model when the agent first reads it, once, and once more after a compaction, with the start', async () => {
  const { ctx } = repoWithScopedFacts([FACT], { setup: 'codex' });
  const compaction = (r) => JSON.stringify(r).includes('CONTEXT CHECKPOINT COMPACTION');
  const patch = '*** Begin Patch\n*** Update File: src/db.rs\n@@\n-fn pool() {}\n+fn pool() { }\n*** End Patch\n';
  const asked = (body) => JSON.stringify(body.input?.findLast((i) => i.role === 'user') ?? '');
  const toolResult = (body) => /_call_output$/.test(body.input?.at(-1)?.type ?? '');
  // The model reads the file, later edits it, and reads it again after a compaction; a tool's
  // result gets a one-word answer, and a compaction's request a summary free of the facts.
  const api = await startResponses(
    (body) => {
      if (compaction(body)) return SUMMARY;
      if (toolResult(body)) return 'Done.';
      if (asked(body).includes('read the pool')) return { tool: 'exec_command', args: { cmd: 'cat src/db.rs' } };
      if (asked(body).includes('widen the pool')) return { tool: 'apply_patch', input: patch };
      return 'OK.';
    },
    // Past the compaction limit only at the end of the edit's turn: one compaction, before
    // the next turn.
    (body) => (toolResult(body) && asked(body).includes('widen the pool') ? 100_000 : 10),
  );
  try {
    const home = configure(ctx, api);
    const run = (...args) => codex(ctx, home, ['--sandbox', 'workspace-write', ...args]);
    await run('Please read the pool code.');
    const first = api.requests[0];
    assert.equal(count(first, MARK), 1, 'the fact about no file is in the session start');
    assert.equal(count(first, DB_MARK), 0, 'the fact about src/db.rs waits for the file');
    assert.match(JSON.stringify(first), /more fact\(s\) are about specific files/, 'the start says they exist');
    assert.equal(api.requests.length, 2, 'the read, then its result');
    assert.equal(count(api.requests[1], DB_MARK), 1, 'after the first read, the fact is there once');

    await run('resume', '--last', 'Now widen the pool.');
    assert.equal(fs.readFileSync(path.join(ctx.repo, 'src/db.rs'), 'utf8'), 'fn pool() { }\n', 'the edit ran');
    assert.equal(count(api.requests.at(-1), DB_MARK), 1, 'the edit does not repeat it');

    await run('-c', 'model_auto_compact_token_limit=50000', 'resume', '--last', 'Please read the pool code again.');
    const at = api.requests.findIndex(compaction);
    assert.ok(at > 0, 'the resumed session was compacted');
    assert.equal(api.requests.filter(compaction).length, 1, 'once');
    assert.equal(count(api.requests[at + 1], SUMMARY), 1, 'the summary replaced the conversation');
    assert.equal(count(api.requests[at + 1], DB_MARK), 1, 'the compaction hook gives it back with the start');
    assert.equal(count(api.requests.at(-1), DB_MARK), 1, 'reading the file again does not repeat it');
    for (const r of api.requests) assert.equal(count(r, OTHER_MARK), 0, 'a fact about another file never comes');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

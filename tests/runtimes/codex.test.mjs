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
  doctor,
  fillToBudget,
  hookContext,
  pathWithoutMneme,
  repoWithFacts,
  runAsync,
  runtimeBin,
  sendsNothingWithoutSetup,
} from './lib.mjs';

const FACT = 'The cache keeps entries for 5 minutes (marker QX7-CACHE).';
const MARK = 'QX7-CACHE';
const SUMMARY = 'Summary of the conversation so far.';

/** Writes `$CODEX_HOME/config.toml`: the stand-in as the model provider, the repository trusted. */
function configure(ctx, api) {
  const home = path.join(ctx.home, '.codex');
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(
    path.join(home, 'config.toml'),
    [
      'model = "gpt-5"',
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
    assert.match(problems, /Codex has not trusted mneme's SessionStart hook/);
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

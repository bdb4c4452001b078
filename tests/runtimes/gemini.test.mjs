// Gemini CLI, installed from npm, run headless against the Gemini API stand-in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { startGemini } from './standins/gemini.mjs';
import {
  count,
  pathWithoutMneme,
  repoWithFacts,
  runAsync,
  runtimeBin,
  sendsNothingWithoutSetup,
} from './lib.mjs';

const FACT = 'The cache keeps entries for 5 minutes (marker QX7-CACHE).';
const MARK = 'QX7-CACHE';

/** A scratch HOME whose settings pick API-key auth; the folder is trusted for the run. */
function gemini(ctx, api, args, env = {}) {
  const dir = path.join(ctx.home, '.gemini');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, general: { enableAutoUpdate: false } }),
  );
  return runAsync(path.join(runtimeBin('gemini'), 'gemini'), args, {
    cwd: ctx.repo,
    env: {
      HOME: ctx.home,
      GEMINI_CLI_HOME: ctx.home,
      GOOGLE_GEMINI_BASE_URL: api.url,
      GEMINI_API_KEY: 'stand-in',
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
      MNEME_AGENT: '',
      ...env,
    },
  });
}

test('the facts reach the model at session start and once in later turns, with no hook timing out', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'gemini' });
  const api = await startGemini();
  try {
    const first = await gemini(ctx, api, ['-p', 'first question']);
    assert.equal(count(api.requests.at(-1), MARK), 1, 'session start carries the fact once');
    assert.doesNotMatch(first.stderr, /timed out|failed for event/i, first.stderr);
    for (const prompt of ['second question', 'third question']) {
      const { stderr } = await gemini(ctx, api, ['--resume', 'latest', '-p', prompt]);
      assert.doesNotMatch(stderr, /timed out|failed for event/i, stderr);
      assert.equal(count(api.requests.at(-1), MARK), 1, `${prompt}: once, not more`);
    }
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('AGENTS.md, with the protocol, reaches the model besides GEMINI.md', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'gemini' });
  const api = await startGemini();
  try {
    await gemini(ctx, api, ['-p', 'hello']);
    assert.equal(count(api.requests.at(-1), 'mneme:begin'), 1, 'the block of AGENTS.md, once');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('without mneme installed, the prompt goes through with a notice instead of the facts', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'gemini' });
  const api = await startGemini();
  try {
    const { stdout, stderr } = await gemini(ctx, api, ['-p', 'first question'], { PATH: pathWithoutMneme() });
    assert.doesNotMatch(`${stdout}${stderr}`, /blocked|command not found/i, stderr);
    const last = api.requests.at(-1);
    assert.equal(count(last, 'first question'), 1, 'the prompt reached the model');
    assert.equal(count(last, 'mneme is not installed'), 1, 'one notice');
    assert.equal(count(last, MARK), 0);
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('a repository without setup sends nothing of the ledger', () =>
  sendsNothingWithoutSetup(FACT, MARK, startGemini, (ctx, api) => gemini(ctx, api, ['-p', 'hello'])));

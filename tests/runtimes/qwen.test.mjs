// Qwen Code, installed from npm, run headless against the Chat Completions stand-in: the facts
// reach the model at session start (in the system prompt, where a compaction leaves them), the
// facts about a file once after the agent first reads it, and once more after a compaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { READ_PROMPT, readsWhenAsked, startChat } from './standins/chat.mjs';
import {
  count,
  DB_MARK,
  deliveredOnFirstRead,
  OTHER_MARK,
  repoWithFacts,
  repoWithScopedFacts,
  runAsync,
  runtimeBin,
  noticeWithoutMneme,
  sendsNothingWithoutSetup,
} from './lib.mjs';

const FACT = 'The cache keeps entries for 5 minutes (marker QX7-CACHE).';
const MARK = 'QX7-CACHE';
/** Prompt tokens the stand-in reports: enough that Qwen Code finds a compression worth it. */
const TOKENS = 100_000;

/** Runs `qwen --yolo ARGS` in the repository against the stand-in, with a scratch HOME. */
function qwen(ctx, api, args, env = {}) {
  const settings = path.join(ctx.home, '.qwen/settings.json');
  if (!fs.existsSync(settings)) {
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    // The stand-in as the model; no background memory or skill agents, whose requests are Qwen
    // Code's own and carry no session context.
    fs.writeFileSync(
      settings,
      JSON.stringify({
        security: { auth: { selectedType: 'openai' } },
        memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false, enableAutoSkill: false },
      }),
    );
  }
  return runAsync(path.join(runtimeBin('qwen'), 'qwen'), ['--yolo', ...args], {
    cwd: ctx.repo,
    env: {
      HOME: ctx.home,
      OPENAI_BASE_URL: api.url,
      OPENAI_API_KEY: 'stand-in',
      OPENAI_MODEL: 'stand-in',
      QWEN_CODE_SUPPRESS_YOLO_WARNING: '1',
      MNEME_AGENT: '',
      ...env,
    },
  });
}

/** The stand-in: `read_file` of `file` when the turn's prompt asks for it, else a short answer. */
function reader(file) {
  return startChat(readsWhenAsked({ tool: 'read_file', args: { file_path: file } }, 'Done.'), () => TOKENS);
}

test('the facts reach the model at session start, in every request once, after a compression too', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'qwen' });
  const api = await startChat(() => 'Summary of the conversation so far.', () => TOKENS);
  try {
    await qwen(ctx, api, ['first question about the build']);
    assert.equal(count(api.requests.at(-1), MARK), 1, 'session start carries the fact once');
    assert.match(JSON.stringify(api.requests.at(-1).messages[0]), new RegExp(MARK), 'in the system prompt');

    const { stdout } = await qwen(ctx, api, ['--continue', '/compress']);
    assert.match(stdout, /compressed/i, 'the history was compressed');
    const afterCompression = api.requests.length;

    await qwen(ctx, api, ['--continue', 'second question']);
    const next = api.requests[afterCompression];
    assert.equal(count(next, MARK), 1, 'the first request after the compression carries the fact once');
    assert.equal(count(next, 'first question about the build'), 0, 'the old conversation is gone');

    await qwen(ctx, api, ['--continue', 'third question']);
    assert.equal(count(api.requests.at(-1), MARK), 1, 'a later turn carries it once, not more');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('a fact about a file reaches the model when the agent first reads it, once, and once more after a compression', async () => {
  const { ctx, db } = repoWithScopedFacts([FACT], { setup: 'qwen' });
  const api = await reader(db);
  try {
    await qwen(ctx, api, [READ_PROMPT]);
    deliveredOnFirstRead(...api.requests.slice(-2), MARK);

    await qwen(ctx, api, ['--continue', READ_PROMPT]);
    assert.equal(count(api.requests.at(-1), DB_MARK), 1, 'a second read adds no copy');

    await qwen(ctx, api, ['--continue', '/compress']);
    const afterCompression = api.requests.length;
    await qwen(ctx, api, ['--continue', READ_PROMPT]);
    const [resumed, reread] = api.requests.slice(afterCompression);
    assert.equal(count(resumed, DB_MARK), 0, 'the compression dropped it');
    assert.equal(count(reread, DB_MARK), 1, 'the next read brings it back once');
    for (const request of api.requests) {
      assert.equal(count(request, OTHER_MARK), 0, 'a fact about another file never comes');
    }
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('without mneme installed, the session gets a notice instead of the facts', () =>
  noticeWithoutMneme('qwen', FACT, MARK, startChat, (ctx, api, env) => qwen(ctx, api, ['first question'], env)));

test('a repository without setup sends nothing of the ledger', () =>
  sendsNothingWithoutSetup(FACT, MARK, startChat, (ctx, api) => qwen(ctx, api, ['hello'])));

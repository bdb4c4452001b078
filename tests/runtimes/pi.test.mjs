// pi, installed from npm, run headless against the Chat Completions stand-in (`pi -p`, and `pi
// --mode rpc` for a compaction): mneme's project extension puts the facts in the system prompt,
// which pi builds for every prompt, and the facts about a file after the tool that read it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { READ_PROMPT, readsWhenAsked, startChat } from './standins/chat.mjs';
import {
  count,
  DB_MARK,
  deliveredOnFirstRead,
  OTHER_MARK,
  pathWithMneme,
  repoWithFacts,
  repoWithScopedFacts,
  runAsync,
  runtimeBin,
  noticeWithoutMneme,
  sendsNothingWithoutSetup,
} from './lib.mjs';

const FACT = 'The cache keeps entries for 5 minutes (marker QX7-CACHE).';
const MARK = 'QX7-CACHE';
const MODEL = ['--provider', 'standin', '--model', 'stand-in'];

/** pi's environment for `ctx`: its agent directory in the scratch HOME, the stand-in as a provider. */
function piEnv(ctx, api, env = {}) {
  const agent = path.join(ctx.home, '.pi/agent');
  fs.mkdirSync(agent, { recursive: true });
  const provider = {
    baseUrl: api.url,
    api: 'openai-completions',
    apiKey: 'stand-in',
    compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
    models: [{ id: 'stand-in', contextWindow: 128000 }],
  };
  fs.writeFileSync(path.join(agent, 'models.json'), JSON.stringify({ providers: { standin: provider } }));
  return { HOME: ctx.home, PI_CODING_AGENT_DIR: agent, PI_OFFLINE: '1', MNEME_AGENT: '', ...env };
}

/** `pi -p ARGS` in the repository against the stand-in. */
function piPrint(ctx, api, args, env = {}) {
  return runAsync(path.join(runtimeBin('pi'), 'pi'), ['-p', ...MODEL, ...args], { cwd: ctx.repo, env: piEnv(ctx, api, env) });
}

/**
 * `pi --mode rpc` in the repository: `prompt(text)` resolves when the agent's turn ends,
 * `compact()` when the compaction is done; `close()` ends it.
 */
function piRpc(ctx, api) {
  const child = spawn(path.join(runtimeBin('pi'), 'pi'), ['--mode', 'rpc', ...MODEL], {
    cwd: ctx.repo,
    env: { ...process.env, PATH: pathWithMneme(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...piEnv(ctx, api) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let buffer = '';
  const waiting = [];
  child.stdout.on('data', (data) => {
    buffer += data;
    for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      let event;
      try {
        event = JSON.parse(line);
      } catch {
        continue;
      }
      for (const w of [...waiting]) if (w.matches(event)) w.resolve(event);
    }
  });
  const until = (matches) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('pi did not answer in 60 s')), 60_000);
      waiting.push({ matches, resolve: (e) => (clearTimeout(timer), resolve(e)) });
    });
  const send = (command) => child.stdin.write(`${JSON.stringify(command)}\n`);
  return {
    prompt: (message) => {
      const done = until((e) => e.type === 'agent_end');
      send({ type: 'prompt', message });
      return done;
    },
    compact: () => {
      const done = until((e) => e.type === 'response' && e.command === 'compact');
      send({ type: 'compact' });
      return done;
    },
    close: () => child.kill(),
  };
}

/** The stand-in: `read` of `file` when the prompt asks for it, else a summary-like answer. */
function reader(file) {
  return startChat(readsWhenAsked({ tool: 'read', args: { path: file } }, 'Summary of the conversation so far.'));
}

test('the facts reach the model in each request once, after a compaction too', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'pi' });
  // Only the newest turn is kept by a compaction: the first question is summarised away.
  fs.writeFileSync(path.join(ctx.repo, '.pi/settings.json'), JSON.stringify({ compaction: { keepRecentTokens: 1 } }));
  const api = await startChat(() => 'Summary of the conversation so far.');
  const pi = piRpc(ctx, api);
  try {
    await pi.prompt('first question about the build');
    assert.equal(count(api.requests.at(-1), MARK), 1, 'session start carries the fact once');
    assert.equal(api.requests.at(-1).messages[0].role, 'system');
    assert.equal(count(api.requests.at(-1).messages[0], MARK), 1, 'in the system prompt');
    await pi.prompt('second question');
    await pi.compact();
    const summaries = api.requests.at(-1);
    assert.equal(count(summaries, MARK), 0, 'the summary request carries no copy');
    const afterCompaction = api.requests.length;
    await pi.prompt('third question');
    const next = api.requests[afterCompaction];
    assert.equal(count(next, MARK), 1, 'the first request after the compaction carries the fact once');
    assert.equal(count(next, 'first question about the build'), 0, 'the old turns are gone');
    await pi.prompt('fourth question');
    assert.equal(count(api.requests.at(-1), MARK), 1, 'a later turn carries it once, not more');
  } finally {
    pi.close();
    await api.close();
    ctx.cleanup();
  }
});

test('a fact about a file reaches the model when the agent first reads it, once, and not again in a continued session', async () => {
  const { ctx, db } = repoWithScopedFacts([FACT], { setup: 'pi' });
  const api = await reader(db);
  try {
    await piPrint(ctx, api, [READ_PROMPT]);
    deliveredOnFirstRead(...api.requests.slice(-2), MARK);

    // `pi -c` continues the session in a new process: its history holds the fact already.
    await piPrint(ctx, api, ['-c', READ_PROMPT]);
    assert.equal(count(api.requests.at(-1), DB_MARK), 1, 'a second read adds no copy');
    for (const request of api.requests) {
      assert.equal(count(request, OTHER_MARK), 0, 'a fact about another file never comes');
    }
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('after a compaction the facts about a file come once more with the next read, and not while the turn that had them is kept', async () => {
  for (const keepRecentTokens of [1, 20000]) {
    const { ctx, db } = repoWithScopedFacts([FACT], { setup: 'pi' });
    fs.writeFileSync(path.join(ctx.repo, '.pi/settings.json'), JSON.stringify({ compaction: { keepRecentTokens } }));
    const api = await reader(db);
    const pi = piRpc(ctx, api);
    try {
      await pi.prompt(READ_PROMPT);
      assert.equal(count(api.requests.at(-1), DB_MARK), 1, 'once after the read');
      await pi.compact();
      const afterCompaction = api.requests.length;
      await pi.prompt(READ_PROMPT);
      const [resumed, reread] = api.requests.slice(afterCompaction);
      const dropped = keepRecentTokens === 1;
      assert.equal(count(resumed, DB_MARK), dropped ? 0 : 1, dropped ? 'the compaction dropped it' : 'the kept turn holds it');
      assert.equal(count(reread, DB_MARK), 1, 'exactly once after the next read');
      for (const request of api.requests) {
        assert.equal(count(request, OTHER_MARK), 0, 'a fact about another file never comes');
      }
    } finally {
      pi.close();
      await api.close();
      ctx.cleanup();
    }
  }
});

test('without mneme installed, the session gets a notice instead of the facts', () =>
  noticeWithoutMneme('pi', FACT, MARK, startChat, (ctx, api, env) => piPrint(ctx, api, ['first question'], env)));

test('a repository without setup sends nothing of the ledger', () =>
  sendsNothingWithoutSetup(FACT, MARK, startChat, (ctx, api) => piPrint(ctx, api, ['hello'])));

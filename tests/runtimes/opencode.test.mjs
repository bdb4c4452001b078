// OpenCode, installed from npm, served headless (`opencode serve`) against the Messages API
// stand-in: mneme's plugin puts the facts in each request once, after a compaction too, and
// nowhere a summary could copy them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

import { startMessages } from './standins/messages.mjs';
import {
  carriesWhole,
  count,
  DB_MARK,
  fillToBudget,
  hookContext,
  pathWithMneme,
  OTHER_MARK,
  pathWithoutMneme,
  repoWithFacts,
  repoWithScopedFacts,
  runtimeBin,
  sendsNothingWithoutSetup,
  sh,
  strings,
} from './lib.mjs';

const FACT = 'The cache keeps entries for 5 minutes (marker QX7-CACHE).';
const MARK = 'QX7-CACHE';
const MODEL = { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' };

/** A free port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Puts in `dir` the install of OpenCode's plugin package (`@opencode-ai/plugin`) that `run`
 * made, as a user who has run OpenCode before has it. OpenCode installs that package into each
 * config directory it loads (`~/.config/opencode`, the project's `.opencode`) and, where it finds
 * none, waits for npm first: 10 to 25 s a directory, most of a test. Hard links where the file
 * system allows, else a copy.
 */
function withPluginPackage(dir) {
  const deps = process.env.MNEME_OPENCODE_PLUGIN_DEPS;
  if (!deps) return;
  fs.mkdirSync(dir, { recursive: true });
  try {
    execFileSync('cp', ['-al', `${deps}/.`, dir], { stdio: 'pipe' });
  } catch {
    execFileSync('cp', ['-a', `${deps}/.`, dir], { stdio: 'pipe' });
  }
}

/**
 * `opencode serve` in the repository, configured for the stand-in `api`, with a scratch HOME.
 * Resolves to `{ call(method, path, body), log(), close() }` once it answers.
 */
async function serve(ctx, api, env = {}) {
  fs.writeFileSync(
    path.join(ctx.repo, 'opencode.json'),
    JSON.stringify({
      $schema: 'https://opencode.ai/config.json',
      model: `${MODEL.providerID}/${MODEL.modelID}`,
      provider: { anthropic: { options: { baseURL: `${api.url}/v1`, apiKey: 'stand-in' } } },
      autoupdate: false,
      share: 'disabled',
    }),
  );
  withPluginPackage(path.join(ctx.home, '.config/opencode'));
  if (fs.existsSync(path.join(ctx.repo, '.opencode'))) withPluginPackage(path.join(ctx.repo, '.opencode'));
  const port = await freePort();
  const xdg = (dir) => path.join(ctx.home, dir);
  const child = spawn(path.join(runtimeBin('opencode'), 'opencode'), ['serve', '--port', String(port), '--hostname', '127.0.0.1', '--print-logs'], {
    cwd: ctx.repo,
    env: {
      ...process.env,
      PATH: pathWithMneme(),
      HOME: ctx.home,
      XDG_CONFIG_HOME: xdg('.config'),
      XDG_DATA_HOME: xdg('.local/share'),
      XDG_CACHE_HOME: xdg('.cache'),
      XDG_STATE_HOME: xdg('.local/state'),
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_SHARE: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      MNEME_AGENT: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, route, body) => {
    const res = await fetch(`${base}${route}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(180_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${text}\n${output}`);
    return text ? JSON.parse(text) : null;
  };
  const deadline = Date.now() + 60_000;
  while (!output.includes('server listening')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`opencode serve did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    call,
    log: () => output,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  };
}

/** A turn in `session`; resolves once OpenCode answered it. */
const say = (oc, session, text) => oc.call('POST', `/session/${session.id}/message`, { parts: [{ type: 'text', text }] });

/** The model's requests an agent works from: not OpenCode's title and compaction requests. */
const working = (api) =>
  api.requests.filter((r) => {
    const text = JSON.stringify(r);
    return !text.includes('<conversation>') && !text.includes('title generator');
  });

test('the facts reach each working request once, after a compaction too, and never a summary or title', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'opencode' });
  const summary = 'Summary of the conversation so far.';
  const api = await startMessages((body) => (JSON.stringify(body.messages).includes('<conversation>') ? summary : 'OK.'));
  const oc = await serve(ctx, api);
  try {
    const session = await oc.call('POST', '/session', {});
    await say(oc, session, 'first question about the build');
    assert.equal(count(working(api).at(-1), MARK), 1, 'the first turn carries the fact once');
    await say(oc, session, 'second question');
    assert.equal(count(working(api).at(-1), MARK), 1, 'a later turn: once, not more');

    const before = api.requests.length;
    await oc.call('POST', `/session/${session.id}/summarize`, MODEL);
    const compaction = api.requests.slice(before);
    assert.ok(compaction.length > 0, 'the compaction asked the model for a summary');
    for (const request of compaction) assert.equal(count(request, MARK), 0, 'nothing for a summary to copy');

    const after = api.requests.length;
    await say(oc, session, 'question after compaction');
    const next = working({ requests: api.requests.slice(after) })[0];
    assert.equal(count(next, MARK), 1, 'the first request after the compaction carries the fact once');
    assert.equal(count(next, 'first question about the build'), 0, 'the old conversation is gone');
    assert.equal(count(next, summary), 1, 'the summary replaced it');
    await say(oc, session, 'one more question');
    assert.equal(count(working(api).at(-1), MARK), 1, 'and once in the turn after');

    for (const request of api.requests.filter((r) => JSON.stringify(r).includes('title generator'))) {
      assert.equal(count(request, MARK), 0, 'the title request carries nothing of the ledger');
    }
  } finally {
    await oc.close();
    await api.close();
    ctx.cleanup();
  }
});

test('without mneme installed, the session goes on and OpenCode logs why', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'opencode' });
  const api = await startMessages(() => 'OK.');
  const oc = await serve(ctx, api, { PATH: pathWithoutMneme() });
  try {
    const session = await oc.call('POST', '/session', {});
    await say(oc, session, 'first question');
    assert.equal(count(working(api).at(-1), 'first question'), 1, 'the turn reached the model');
    assert.equal(count(working(api).at(-1), MARK), 0);
    assert.match(oc.log(), /level=WARN.*the project facts were not loaded: .*mneme/);
  } finally {
    await oc.close();
    await api.close();
    ctx.cleanup();
  }
});

test('with mneme installed only in the project (npm install -D), the facts reach the model', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'opencode' });
  const bin = path.join(ctx.repo, 'node_modules', '.bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.symlinkSync(path.join(process.env.MNEME_BIN_DIR, 'mneme'), path.join(bin, 'mneme'));
  const api = await startMessages(() => 'OK.');
  const oc = await serve(ctx, api, { PATH: pathWithoutMneme() });
  try {
    const session = await oc.call('POST', '/session', {});
    await say(oc, session, 'first question');
    assert.equal(count(working(api).at(-1), MARK), 1, 'the fact reached the model once');
  } finally {
    await oc.close();
    await api.close();
    ctx.cleanup();
  }
});

test('set up for every repository, the plugin adds nothing where there is no ledger', async () => {
  const ctx = repoWithFacts([]);
  fs.rmSync(path.join(ctx.repo, '.ledger'), { recursive: true });
  sh('mneme', ['setup', 'opencode', '--user'], { cwd: ctx.repo, env: { HOME: ctx.home, XDG_CONFIG_HOME: path.join(ctx.home, '.config') } });
  assert.ok(fs.existsSync(path.join(ctx.home, '.config/opencode/plugins/mneme.js')));
  const api = await startMessages(() => 'OK.');
  const oc = await serve(ctx, api);
  try {
    const session = await oc.call('POST', '/session', {});
    await say(oc, session, 'first question');
    assert.ok(working(api).length > 0);
    for (const request of api.requests) {
      assert.equal(count(request, 'mneme could not'), 0, 'no error about a missing ledger');
      assert.equal(count(request, '# Project facts'), 0);
    }
  } finally {
    await oc.close();
    await api.close();
    ctx.cleanup();
  }
});

test('a ledger at its 800-line budget reaches the model whole', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'opencode' });
  assert.ok(fillToBudget(ctx) >= 750);
  const api = await startMessages(() => 'OK.');
  try {
    const oc = await serve(ctx, api);
    try {
      await say(oc, await oc.call('POST', '/session', {}), 'hello');
    } finally {
      await oc.close();
    }
    const context = hookContext(ctx, 'opencode', 'session');
    assert.match(context, /not shown|left out|more fact/, 'what did not fit is named');
    assert.ok(carriesWhole(working(api).at(-1), context), 'the model got the whole context');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('a repository without setup sends nothing of the ledger', () =>
  sendsNothingWithoutSetup(FACT, MARK, startMessages, async (ctx, api) => {
    const oc = await serve(ctx, api);
    try {
      await say(oc, await oc.call('POST', '/session', {}), 'hello');
    } finally {
      await oc.close();
    }
  }));

test('a fact about a file follows the tool that first reads it, once, and once more after a compaction', async () => {
  const { ctx, db } = repoWithScopedFacts([FACT], { setup: 'opencode' });
  // The last user turn decides: read, edit, or a plain answer (and a summary for a compaction).
  const api = await startMessages((body) => {
    if (JSON.stringify(body.messages).includes('<conversation>')) return 'Summary of the conversation so far.';
    const last = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
    if (Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result')) return 'Done.';
    const text = strings(last?.content ?? []).join('\n');
    if (text.includes('read the pool')) return { tool: 'read', input: { filePath: db } };
    if (text.includes('widen the pool')) {
      return { tool: 'edit', input: { filePath: db, oldString: 'fn pool() {}', newString: 'fn pool() { }' } };
    }
    return 'OK.';
  });
  const oc = await serve(ctx, api);
  try {
    const session = await oc.call('POST', '/session', {});
    const start = api.requests.length;
    await say(oc, session, 'Please read the pool code.');
    const turn = working({ requests: api.requests.slice(start) });
    assert.equal(count(turn[0], MARK), 1, 'the fact about no file is in the system prompt');
    assert.equal(count(turn[0], DB_MARK), 0, 'the fact about src/db.rs waits for the file');
    assert.equal(count(turn.at(-1), DB_MARK), 1, 'after the read, it follows the tool output once');

    await say(oc, session, 'Now widen the pool.');
    assert.equal(fs.readFileSync(db, 'utf8'), 'fn pool() { }\n', 'the edit ran');
    assert.equal(count(working(api).at(-1), DB_MARK), 1, 'the edit does not repeat it');

    await oc.call('POST', `/session/${session.id}/summarize`, MODEL);
    const after = api.requests.length;
    await say(oc, session, 'Please read the pool code again.');
    const again = working({ requests: api.requests.slice(after) });
    assert.equal(count(again[0], DB_MARK), 0, 'the compaction dropped it');
    assert.equal(count(again.at(-1), DB_MARK), 1, 'reading the file again brings it back, once');
    for (const r of api.requests) assert.equal(count(r, OTHER_MARK), 0, 'a fact about another file never comes');
  } finally {
    await oc.close();
    await api.close();
    ctx.cleanup();
  }
});

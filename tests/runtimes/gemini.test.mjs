// Gemini CLI, installed from npm, run headless against the Gemini API stand-in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { startGemini } from './standins/gemini.mjs';
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
  strings,
  terminal,
} from './lib.mjs';

const FACT = 'The cache keeps entries for 5 minutes (marker QX7-CACHE).';
const MARK = 'QX7-CACHE';

/**
 * The environment of a run against `api`: a scratch HOME whose settings pick API-key auth, and
 * the folder trusted.
 */
function geminiEnv(ctx, api) {
  const dir = path.join(ctx.home, '.gemini');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'settings.json'),
    JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } }, general: { enableAutoUpdate: false } }),
  );
  return {
    HOME: ctx.home,
    GEMINI_CLI_HOME: ctx.home,
    GOOGLE_GEMINI_BASE_URL: api.url,
    GEMINI_API_KEY: 'stand-in',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    MNEME_AGENT: '',
  };
}

/** Runs `gemini ARGS` headless. */
function gemini(ctx, api, args, env = {}) {
  return runAsync(path.join(runtimeBin('gemini'), 'gemini'), args, {
    cwd: ctx.repo,
    env: { ...geminiEnv(ctx, api), ...env },
  });
}

// Long answers give a compression something to shrink; its summary never has the facts.
const LONG = Array.from({ length: 3000 }, (_, i) => `word${i % 97}`).join(' ');
const SUMMARY = '<state_snapshot>Summary of the conversation so far.</state_snapshot>';

/**
 * Gemini CLI's interactive UI in tmux (session `name`), against `api`. `turn(prompt)` types a
 * prompt, waits for the model's answer and the prompt to come back, and returns how many
 * requests there were before it.
 */
function interactive(ctx, api, name, args = []) {
  const ui = terminal(`${name}-${process.pid}`, path.join(runtimeBin('gemini'), 'gemini'), args, {
    cwd: ctx.repo,
    env: { ...geminiEnv(ctx, api), TERM: 'xterm-256color' },
  });
  const turn = async (prompt) => {
    const before = api.requests.length;
    await ui.type(prompt);
    const deadline = Date.now() + 60_000;
    while (api.requests.length === before) {
      if (Date.now() > deadline) throw new Error(`no request for ${prompt}:\n${ui.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await ui.settle(/Type your message/);
    return before;
  };
  return { ui, turn };
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

// Headless `/compress` is sent as a prompt: the compression is driven in the interactive UI.
test('after /compress in the terminal UI, the facts are in the next request once, the old turns gone', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'gemini' });
  const api = await startGemini((body) => (JSON.stringify(body).includes('state_snapshot') ? SUMMARY : LONG));
  const { ui, turn } = interactive(ctx, api, 'mneme-gemini');
  try {
    await ui.settle(/Type your message/);
    await turn('first question about the build');
    assert.equal(count(api.requests.at(-1), MARK), 1, 'session start carries the fact once');
    await turn('second question');
    assert.equal(count(api.requests.at(-1), MARK), 1, 'a later turn: once');
    await ui.type('/compress');
    await ui.waitFor(/Chat history compressed/);
    const compressed = api.requests.length;
    await turn('question after compression');
    const next = api.requests.slice(compressed).find((r) => count(r, 'question after compression') > 0);
    assert.ok(next, 'the turn after the compression reached the model');
    assert.equal(count(next, MARK), 1, 'the first request after the compression carries the fact once');
    assert.equal(count(next, 'first question about the build'), 0, 'the old conversation is gone');
    assert.equal(count(next, 'Summary of the conversation so far.'), 1, 'the summary replaced it');
    await turn('one more question');
    assert.equal(count(api.requests.at(-1), MARK), 1, 'and once in the turn after');
  } finally {
    ui.close();
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

test('a ledger at its 800-line budget reaches the model whole', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'gemini' });
  assert.ok(fillToBudget(ctx) >= 750);
  const api = await startGemini();
  try {
    await gemini(ctx, api, ['-p', 'hello']);
    const context = hookContext(ctx, 'gemini', 'SessionStart');
    assert.match(context, /not shown|left out|more fact/, 'what did not fit is named');
    assert.ok(carriesWhole(api.requests.at(-1), context), 'the model got the whole context');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('a folder trusted in trustedFolders.json runs the hooks, and doctor reads that trust', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'gemini' });
  const api = await startGemini();
  try {
    assert.match(JSON.stringify(doctor(ctx).problems), /Gemini CLI does not trust this folder/);
    fs.mkdirSync(path.join(ctx.home, '.gemini'), { recursive: true });
    fs.writeFileSync(
      path.join(ctx.home, '.gemini', 'trustedFolders.json'),
      JSON.stringify({ [fs.realpathSync(ctx.repo)]: 'TRUST_FOLDER' }),
    );
    assert.doesNotMatch(JSON.stringify(doctor(ctx).problems), /Gemini/);
    await gemini(ctx, api, ['-p', 'hello'], { GEMINI_CLI_TRUST_WORKSPACE: '' });
    assert.equal(count(api.requests.at(-1), MARK), 1, 'the hooks ran in the trusted folder');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('a repository without setup sends nothing of the ledger', () =>
  sendsNothingWithoutSetup(FACT, MARK, startGemini, (ctx, api) => gemini(ctx, api, ['-p', 'hello'])));

test('a fact about a file reaches the model after the agent first reads it, once, and never for another file', async () => {
  const { ctx, db } = repoWithScopedFacts([FACT], { setup: 'gemini' });
  // The model reads the file, and in a later turn writes it; a function's result gets a short
  // answer.
  const api = await startGemini((body) => {
    const last = body.contents?.at(-1);
    if (last?.parts?.some((p) => p.functionResponse)) return 'Done.';
    const text = strings(last?.parts ?? []).join('\n');
    if (text.includes('read the pool')) return { tool: 'read_file', args: { file_path: db } };
    if (text.includes('widen the pool')) {
      return { tool: 'replace', args: { file_path: db, old_string: 'fn pool() {}', new_string: 'fn pool() { }', instruction: 'widen' } };
    }
    return 'OK.';
  });
  try {
    const first = await gemini(ctx, api, ['-p', 'Please read the pool code.', '--approval-mode', 'yolo']);
    assert.doesNotMatch(first.stderr, /timed out|failed for event/i, first.stderr);
    const start = api.requests[0];
    assert.equal(count(start, MARK), 1, 'the fact about no file is in the first request');
    assert.equal(count(start, DB_MARK), 0, 'the fact about src/db.rs waits for the file');
    assert.equal(count(api.requests.at(-1), DB_MARK), 1, 'after the read, the fact is there once');

    const resumed = api.requests.length;
    await gemini(ctx, api, ['--resume', 'latest', '-p', 'Now widen the pool.', '--approval-mode', 'yolo']);
    assert.equal(fs.readFileSync(db, 'utf8'), 'fn pool() { }\n', 'the edit ran');
    // Gemini CLI's resume repeats the earlier tool result in the history it rebuilds (its own
    // doing: two copies before the edit); the edit adds none.
    const beforeEdit = count(api.requests[resumed], DB_MARK);
    assert.ok(beforeEdit >= 1, 'the resumed history still holds it');
    assert.equal(count(api.requests.at(-1), DB_MARK), beforeEdit, 'the edit does not repeat it');
    assert.equal(count(api.requests.at(-1).contents.at(-1), DB_MARK), 0, "the edit's result carries no copy");
    for (const r of api.requests) assert.equal(count(r, OTHER_MARK), 0, 'a fact about another file never comes');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

// The compression is driven in the interactive UI, as above.
test('after /compress, the next turn brings the fact about the file read before back once', async () => {
  const { ctx, db } = repoWithScopedFacts([FACT], { setup: 'gemini' });
  // After the compression every request holds the summary: the turn's own message decides first.
  const api = await startGemini((body) => {
    const last = body.contents?.at(-1);
    if (last?.parts?.some((p) => p.functionResponse)) return LONG;
    if (strings(last?.parts ?? []).join('\n').includes('read the pool')) return { tool: 'read_file', args: { file_path: db } };
    return JSON.stringify(body).includes('state_snapshot') ? SUMMARY : LONG;
  });
  const { ui, turn } = interactive(ctx, api, 'mneme-gemini-jit', ['--approval-mode', 'yolo']);
  try {
    await ui.settle(/Type your message/);
    const first = await turn('Please read the pool code.');
    assert.equal(count(api.requests[first], DB_MARK), 0, 'not before the read');
    assert.equal(count(api.requests.at(-1), DB_MARK), 1, 'once after the read');
    await ui.type('/compress');
    await ui.waitFor(/Chat history compressed/);
    const again = await turn('Please read the pool code again.');
    assert.equal(count(api.requests[again], DB_MARK), 1, 'the next turn gives it back with the start, once');
    assert.equal(count(api.requests.at(-1), DB_MARK), 1, 'reading the file again does not repeat it');
    for (const r of api.requests) assert.equal(count(r, OTHER_MARK), 0, 'a fact about another file never comes');
  } finally {
    ui.close();
    await api.close();
    ctx.cleanup();
  }
});

// Claude Code, installed from npm, run headless against the Messages API stand-in: the facts
// reach the model at session start and exactly once after a compaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { startMessages } from './standins/messages.mjs';
import {
  carriesWhole,
  count,
  DB_MARK,
  OTHER_MARK,
  fillToBudget,
  hookContext,
  repoWithFacts,
  repoWithScopedFacts,
  runAsync,
  runtimeBin,
  noticeWithoutMneme,
  sendsNothingWithoutSetup,
  strings,
} from './lib.mjs';

const FACT = 'The cache keeps entries for 5 minutes (marker QX7-CACHE).';
const MARK = 'QX7-CACHE';

/** Runs `claude -p ARGS` in the repository against the stand-in. */
function claude(ctx, api, args, env = {}) {
  return runAsync(path.join(runtimeBin('claude'), 'claude'), ['-p', ...args], {
    cwd: ctx.repo,
    env: {
      HOME: ctx.home,
      CLAUDE_CONFIG_DIR: path.join(ctx.home, '.claude'),
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'stand-in',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      MNEME_AGENT: '',
      ...env,
    },
  });
}

test('the facts reach the model at session start, once after /compact, and once later', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'claude' });
  // The summary a compaction asks for never repeats the facts: any copy after it is mneme's.
  const api = await startMessages(() => 'Summary of the conversation so far.');
  try {
    await claude(ctx, api, ['first question about the build']);
    const start = api.requests.at(-1);
    assert.equal(count(start, MARK), 1, 'session start carries the fact once');

    const before = api.requests.length;
    await claude(ctx, api, ['--continue', '/compact']);
    assert.ok(api.requests.length > before, 'the compaction asked the model for a summary');
    const afterCompaction = api.requests.length;

    await claude(ctx, api, ['--continue', 'second question']);
    const next = api.requests[afterCompaction];
    assert.equal(count(next, MARK), 1, 'the first request after the compaction carries the fact once');
    assert.equal(count(next, 'first question about the build'), 0, 'the old conversation is gone');
    assert.ok(JSON.stringify(next).includes('Summary of the conversation so far.'), 'the summary replaced it');

    await claude(ctx, api, ['--continue', 'third question']);
    assert.equal(count(api.requests.at(-1), MARK), 1, 'a later turn carries it once, not more');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('without mneme installed, the session gets a notice instead of the facts', () =>
  noticeWithoutMneme('claude', FACT, MARK, () => startMessages(() => 'OK.'), (ctx, api, env) => claude(ctx, api, ['first question'], env)));

test('a repository without setup sends nothing of the ledger', () =>
  sendsNothingWithoutSetup(FACT, MARK, startMessages, (ctx, api) => claude(ctx, api, ['hello'])));

test('a ledger at its 800-line budget stays within the hook output Claude Code keeps', async () => {
  const ctx = repoWithFacts([FACT], { setup: 'claude' });
  const used = fillToBudget(ctx);
  assert.ok(used >= 750 && used <= 800, `${used} lines`);
  const api = await startMessages();
  try {
    await claude(ctx, api, ['hello']);
    const context = hookContext(ctx, 'claude', 'SessionStart', 'claude-code');
    // Claude Code cuts hook output past about 10,000 characters to a preview.
    assert.ok(context.length <= 10_000, `${context.length} characters from the hook`);
    assert.match(context, /not shown|left out|more fact/, 'what did not fit is named');
    assert.ok(carriesWhole(api.requests.at(-1), context), 'the model got the whole context, not a preview');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('Claude Code calls the MCP server: context, then a proposal that lands as a file', async () => {
  const ctx = repoWithFacts([FACT]);
  fs.writeFileSync(
    path.join(ctx.repo, '.mcp.json'),
    JSON.stringify({ mcpServers: { mneme: { command: 'mneme', args: ['mcp'] } } }),
  );
  const statement = 'Retries back off exponentially, at most 5 attempts (marker QX8-RETRY).';
  // The model asks for the context, then proposes a fact, then answers in text.
  const api = await startMessages((body) => {
    const results = strings(body.messages?.at(-1)?.content ?? []).join('\n');
    if (results.includes('QX8-RETRY') || results.includes('.ledger/proposals/')) return 'Proposed.';
    if (results.includes(MARK)) {
      return {
        tool: 'mcp__mneme__propose',
        input: { reason: 'seen in the retry code', operations: [{ op: 'add', file: 'pitfalls', text: statement }] },
      };
    }
    return { tool: 'mcp__mneme__context', input: {} };
  });
  try {
    await claude(ctx, api, [
      'Check the project facts, then record the retry rule.',
      '--mcp-config', path.join(ctx.repo, '.mcp.json'), '--strict-mcp-config',
      '--allowedTools', 'mcp__mneme__context,mcp__mneme__propose',
    ]);
    const proposals = fs.readdirSync(path.join(ctx.repo, '.ledger/proposals')).filter((f) => f.endsWith('.json'));
    assert.equal(proposals.length, 1, `proposals: ${proposals}`);
    const proposal = JSON.parse(fs.readFileSync(path.join(ctx.repo, '.ledger/proposals', proposals[0]), 'utf8'));
    assert.equal(proposal.operations[0].text, statement);
    assert.ok(api.requests.some((r) => count(r, MARK) > 0), 'the context tool answered with the facts');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

test('a fact about a file reaches the model when the agent first reads it, once, and once more after a compaction, with the start', async () => {
  const { ctx, db } = repoWithScopedFacts([FACT], { setup: 'claude' });
  // The model reads the file, later edits it, and reads it again after a compaction; a tool's
  // result gets a one-word answer, and a compaction's request a summary free of the facts.
  const api = await startMessages((body) => {
    // Claude Code ends its messages with a system one: the turn is the last user message.
    const last = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user');
    const text = strings(last?.content ?? []).join('\n');
    if (Array.isArray(last?.content) && last.content.some((b) => b.type === 'tool_result')) return 'Done.';
    if (text.includes('read the pool')) return { tool: 'Read', input: { file_path: db } };
    if (text.includes('widen the pool')) {
      return { tool: 'Edit', input: { file_path: db, old_string: 'fn pool() {}', new_string: 'fn pool() { }' } };
    }
    return 'Summary of the conversation so far.';
  });
  const tools = ['--allowedTools', 'Read,Edit'];
  try {
    await claude(ctx, api, ['Please read the pool code.', ...tools]);
    const first = api.requests[0];
    assert.equal(count(first, MARK), 1, 'the fact about no file is in the session start');
    assert.equal(count(first, DB_MARK), 0, 'the fact about src/db.rs waits for the file');
    assert.match(JSON.stringify(first), /more fact\(s\) are about specific files/, 'the start says they exist');
    const afterRead = api.requests.at(-1);
    assert.equal(count(afterRead, DB_MARK), 1, 'after the first read, the fact is there once');

    await claude(ctx, api, ['--continue', 'Now widen the pool.', ...tools]);
    assert.equal(fs.readFileSync(db, 'utf8'), 'fn pool() { }\n', 'the edit ran');
    assert.equal(count(api.requests.at(-1), DB_MARK), 1, 'the edit does not repeat it');

    await claude(ctx, api, ['--continue', '/compact']);
    const compacted = api.requests.length;
    await claude(ctx, api, ['--continue', 'Please read the pool code again.', ...tools]);
    assert.equal(count(api.requests[compacted], DB_MARK), 1, 'the compaction hook gives it back with the start');
    assert.equal(count(api.requests.at(-1), DB_MARK), 1, 'reading the file again does not repeat it');
    for (const r of api.requests) assert.equal(count(r, OTHER_MARK), 0, 'a fact about another file never comes');
  } finally {
    await api.close();
    ctx.cleanup();
  }
});

// `mneme doctor` against the runtimes as npm installs them: each is found on the PATH, its
// version read, and a tested one draws no warning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';

import { doctor, pathWithMneme, repoWithFacts, sh } from './lib.mjs';

const runtimes = ['claude', 'codex', 'gemini', 'opencode', 'qwen', 'pi', 'copilot'];
const installed = runtimes.filter((r) => process.env[`MNEME_RUNTIME_${r.toUpperCase()}`]);

test('the installed runtimes are the tested versions', { skip: installed.length === 0 }, () => {
  const ctx = repoWithFacts([]);
  try {
    for (const runtime of installed) sh('mneme', ['setup', runtime], { cwd: ctx.repo });
    const bins = installed.map((r) => process.env[`MNEME_RUNTIME_${r.toUpperCase()}`]);
    const d = doctor(ctx, { PATH: [...bins, pathWithMneme()].join(path.delimiter) });
    assert.deepEqual(d.warnings, [], JSON.stringify(d));
    assert.doesNotMatch(JSON.stringify(d.notes), /not on this PATH/);
  } finally {
    ctx.cleanup();
  }
});

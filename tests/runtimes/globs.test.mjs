// The rule files mneme compiles, read as each format's documentation says its files are read, and
// their globs matched by the glob libraries editors and agents use (minimatch, picomatch): each
// fact's files match, files it is not about do not. For the formats no runtime here can run:
// - Copilot: `applyTo`, comma-separated globs
//   (docs.github.com/en/copilot/how-tos/configure-custom-instructions/add-repository-instructions);
// - Cursor: `globs`, comma-separated, and `alwaysApply` (docs.cursor.com/context/rules);
// - Windsurf: `trigger: glob` and `globs` (docs.windsurf.com/windsurf/cascade/memories);
// - Cline: `paths`, a YAML list (docs.cline.bot/features/cline-rules/conditional-rules);
// - Kiro: `inclusion: fileMatch` and `fileMatchPattern`, a pattern or a list (kiro.dev/docs/steering).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

import { repoWithFacts, sh } from './lib.mjs';

const PACKAGES = ['minimatch@10.0.3', 'picomatch@4.0.3', 'yaml@2.8.1'];

/** The glob and YAML libraries, installed once into the runtimes' cache. */
function libraries() {
  const cache = process.env.MNEME_RUNTIMES_CACHE ?? path.join(process.env.HOME, '.cache/mneme-runtimes');
  const dir = path.join(cache, `globs-${PACKAGES.join('-').replaceAll('@', '')}`);
  if (!fs.existsSync(path.join(dir, 'node_modules/yaml'))) {
    fs.mkdirSync(dir, { recursive: true });
    execFileSync('npm', ['install', '--prefix', dir, '--no-audit', '--no-fund', '--silent', ...PACKAGES]);
  }
  const require = createRequire(path.join(dir, 'index.js'));
  return { minimatch: require('minimatch').minimatch, picomatch: require('picomatch'), YAML: require('yaml') };
}

/** A file's front matter and body. */
function split(text) {
  const m = text.match(/^---\n([\s\S]*?)\n---\n([\s\S]*)$/);
  return m ? { front: m[1], body: m[2] } : { front: '', body: text };
}

/** Where a compiled file applies, as its format's documentation reads it: `null` for always. */
const READERS = {
  '.github/instructions': (front) => {
    const apply = front.match(/^applyTo: "(.*)"$/m)[1];
    return apply === '**' ? null : apply.split(',');
  },
  '.cursor/rules': (front) =>
    /^alwaysApply: true$/m.test(front) ? null : front.match(/^globs: (.*)$/m)[1].split(','),
  '.windsurf/rules': (front, YAML) =>
    YAML.parse(front).trigger === 'always_on' ? null : front.match(/^globs: (.*)$/m)[1].split(','),
  '.clinerules': (front, YAML) => (front === '' ? null : YAML.parse(front).paths),
  '.kiro/steering': (front, YAML) => {
    const v = YAML.parse(front);
    if (v.inclusion === 'always') return null;
    assert.equal(v.inclusion, 'fileMatch');
    return [].concat(v.fileMatchPattern);
  },
};

test('every target applies each fact to the files it is about, as its own matchers read it', () => {
  const { minimatch, picomatch, YAML } = libraries();
  const ctx = repoWithFacts([]);
  const mneme = (...args) => sh('mneme', args, { cwd: ctx.repo });
  const cited = ['app/[id]/page.tsx', 'src/a,b.rs', 'src/{x}.rs', 'src/!x/ü.rs', 'src/db.rs'];
  const others = ['app/[id]/other.tsx', 'src/other.rs', 'src/a.rs', 'migrations/001.txt', 'db.rs'];
  const scoped = ['migrations/001.sql', 'migrations/sub/002.sql'];
  try {
    for (const file of [...cited, ...others, ...scoped]) {
      fs.mkdirSync(path.dirname(path.join(ctx.repo, file)), { recursive: true });
      fs.writeFileSync(path.join(ctx.repo, file), 'x\n');
    }
    sh('git', ['add', '-A'], { cwd: ctx.repo });
    sh('git', ['commit', '-qm', 'code'], { cwd: ctx.repo });
    const about = new Map();
    for (const [i, file] of cited.entries()) {
      const out = mneme('propose', 'add', '-f', 'pitfalls', `Fact ${i} is about one file.`, '--reason', 'r', '--evidence', file, '--agent', 't', '--json');
      about.set(JSON.parse(out).id, [file]);
    }
    mneme('propose', 'add', '-f', 'pitfalls', 'Migrations never drop a column.', '--reason', 'r', '--scope', 'migrations/**/*.sql', '--agent', 't');
    mneme('propose', 'add', '-f', 'architecture', 'Every change is reviewed.', '--reason', 'r', '--agent', 't');
    mneme('review', 'approve', '--all');
    const facts = JSON.parse(mneme('facts', '--json')).flatMap((f) => f.facts);
    const idOf = (text) => facts.find((f) => f.text.startsWith(text)).id;
    for (const target of ['copilot', 'cursor', 'windsurf', 'cline', 'kiro']) mneme('setup', target);

    for (const [dir, read] of Object.entries(READERS)) {
      const files = fs.readdirSync(path.join(ctx.repo, dir)).filter((n) => n.startsWith('mneme-facts'));
      const where = new Map();
      for (const name of files) {
        const { front, body } = split(fs.readFileSync(path.join(ctx.repo, dir, name), 'utf8'));
        const globs = read(front, YAML);
        for (const id of body.match(/^- (f-[a-z0-9]+) /gm).map((l) => l.slice(2, -1))) where.set(id, globs);
      }
      const matches = (globs, file) =>
        globs.some((g) => minimatch(file, g, { dot: true })) && globs.some((g) => picomatch(g, { dot: true })(file));
      for (const [i, file] of cited.entries()) {
        const globs = where.get(idOf(`Fact ${i} is`));
        assert.ok(globs, `${dir}: fact ${i} compiled`);
        assert.ok(matches(globs, file), `${dir}: ${globs} matches ${file}`);
        for (const other of others) assert.ok(!matches(globs, other), `${dir}: ${globs} does not match ${other}`);
      }
      const migrations = where.get(idOf('Migrations never'));
      for (const file of scoped) assert.ok(matches(migrations, file), `${dir}: ${migrations} matches ${file}`);
      assert.ok(!matches(migrations, 'migrations/001.txt'), dir);
      assert.equal(where.get(idOf('Every change')), null, `${dir}: applied to every request`);
    }
  } finally {
    ctx.cleanup();
  }
});

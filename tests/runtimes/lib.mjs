// Helpers for the real-runtime tests: scratch repositories with a ledger, the pinned runtimes
// installed by `tests/runtimes/run`, and what reached the model.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The directory `run` installed the runtime `name` into (`bin` under its node_modules). */
export function runtimeBin(name) {
  const dir = process.env[`MNEME_RUNTIME_${name.toUpperCase()}`];
  if (!dir) throw new Error(`MNEME_RUNTIME_${name.toUpperCase()} is unset: run tests/runtimes/run`);
  return dir;
}

/** PATH with the mneme under test first: the hooks run `mneme`. */
export function pathWithMneme() {
  return `${process.env.MNEME_BIN_DIR}${path.delimiter}${process.env.PATH}`;
}

/** PATH without any `mneme`: what a teammate who never installed it has. */
export function pathWithoutMneme() {
  return process.env.PATH.split(path.delimiter)
    .filter((dir) => dir && !fs.existsSync(path.join(dir, 'mneme')))
    .join(path.delimiter);
}

/** Runs `cmd args` in `cwd`; throws with its output when it fails. */
export function sh(cmd, args, { cwd, env = {}, timeout = 120_000, input } = {}) {
  return execFileSync(cmd, args, {
    cwd,
    env: { ...process.env, PATH: pathWithMneme(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...env },
    encoding: 'utf8',
    timeout,
    input,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * Runs `cmd args` without blocking this process, which serves the stand-ins the command talks
 * to; resolves to `{ stdout, stderr }`, rejects with its output when it fails or outlives
 * `timeout`.
 */
export function runAsync(cmd, args, { cwd, env = {}, timeout = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      {
        cwd,
        env: { ...process.env, PATH: pathWithMneme(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...env },
        encoding: 'utf8',
        timeout,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${cmd} ${args.join(' ')}: ${error.message}\n${stdout}\n${stderr}`));
        else resolve({ stdout, stderr });
      },
    );
    // No input: a runtime waiting on stdin would wait for it.
    child.stdin.end();
  });
}

/**
 * A git repository with a ledger whose facts are `facts` (statements), approved; `setup` runs
 * `mneme setup <setup>` when given. Returns its path and a scratch HOME beside it.
 */
export function repoWithFacts(facts, { setup } = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'mneme-runtime-'));
  const repo = path.join(root, 'repo');
  const home = path.join(root, 'home');
  fs.mkdirSync(repo);
  fs.mkdirSync(home);
  const git = (...args) => sh('git', args, { cwd: repo });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Test Human');
  git('config', 'user.email', 'human@example.com');
  sh('mneme', ['init'], { cwd: repo });
  git('add', '-A');
  git('commit', '-qm', 'init');
  for (const text of facts) {
    sh('mneme', ['propose', 'add', '--file', 'architecture', text, '--reason', 'test', '--agent', 'test'], { cwd: repo });
  }
  if (facts.length) sh('mneme', ['review', 'approve', '--all'], { cwd: repo });
  if (setup) {
    sh('mneme', ['setup', setup], { cwd: repo });
    git('add', '-A');
    git('commit', '-qm', `setup ${setup}`);
  }
  return { root, repo, home, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** The fact about `src/db.rs` and the fact about `src/other.rs` of [`repoWithScopedFacts`]. */
export const DB_MARK = 'QX9-DB';
export const OTHER_MARK = 'QX9-OTHER';

/**
 * A repository as `repoWithFacts(facts, { setup })` makes it (`scoped_delivery` on, the default), code in
 * `src/db.rs` and `src/other.rs`, and a fact citing each (marked `DB_MARK`, `OTHER_MARK`; long
 * enough that a decision commit's subject, which runtimes show among recent commits, never
 * carries the marker). Returns the context and the absolute path of `src/db.rs`.
 */
export function repoWithScopedFacts(facts, { setup }) {
  const ctx = repoWithFacts(facts, { setup });
  const git = (...args) => sh('git', args, { cwd: ctx.repo });
  const mneme = (...args) => sh('mneme', args, { cwd: ctx.repo });
  fs.mkdirSync(path.join(ctx.repo, 'src'));
  fs.writeFileSync(path.join(ctx.repo, 'src/db.rs'), 'fn pool() {}\n');
  fs.writeFileSync(path.join(ctx.repo, 'src/other.rs'), 'fn other() {}\n');
  git('add', '-A');
  git('commit', '-qm', 'code');
  for (const [text, cites] of [
    [`The pool holds ten connections and every query borrows one of them (marker ${DB_MARK}).`, 'src/db.rs:1'],
    [`The other module is left alone by every change to the pool code (marker ${OTHER_MARK}).`, 'src/other.rs'],
  ]) {
    mneme('propose', 'add', '-f', 'pitfalls', text, '--reason', 'r', '--evidence', cites, '--agent', 'test');
  }
  mneme('review', 'approve', '--all');
  // Scoped delivery is the default `init` writes.
  if (!/^scoped_delivery: true$/m.test(fs.readFileSync(path.join(ctx.repo, '.ledger/config.yaml'), 'utf8'))) {
    throw new Error('the ledger does not deliver facts about files on touch');
  }
  return { ctx, db: path.join(ctx.repo, 'src/db.rs') };
}

/**
 * The first read of `src/db.rs` in a repository of [`repoWithScopedFacts`]: the session's start
 * (`start`, a recorded request) carries the fact about no file (`mark`) once and not the file's
 * fact; the request after the read (`afterRead`) carries the file's fact once, with its last
 * message of `role` (the tool's result, or a message a runtime adds after it).
 */
export function deliveredOnFirstRead(start, afterRead, mark, role = 'tool') {
  if (count(start, DB_MARK) !== 0) throw new Error(`${DB_MARK} at session start`);
  if (count(start, mark) !== 1) throw new Error(`not one ${mark} at session start`);
  if (count(afterRead, DB_MARK) !== 1) throw new Error(`not one ${DB_MARK} after the read`);
  if (count(afterRead, mark) !== 1) throw new Error(`not one ${mark} after the read`);
  const last = afterRead.messages.at(-1).role;
  if (last !== role) throw new Error(`the request after the read ends with a ${last} message, not ${role}`);
}

/** How many times `needle` occurs in the JSON of a recorded request. */
export function count(request, needle) {
  return JSON.stringify(request).split(needle).length - 1;
}

/** Every string in a recorded request (messages, system prompt, tool results), depth first. */
export function strings(value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) value.forEach((v) => strings(v, out));
  else if (value && typeof value === 'object') Object.values(value).forEach((v) => strings(v, out));
  return out;
}

/**
 * The control run: a repository whose ledger holds `fact` but that never ran `setup` sends
 * nothing of it. `start` starts the runtime's stand-in; `run(ctx, api)` runs one turn.
 */
export async function sendsNothingWithoutSetup(fact, mark, start, run) {
  const ctx = repoWithFacts([fact]);
  const api = await start();
  try {
    await run(ctx, api);
    if (api.requests.length === 0) throw new Error('no request reached the stand-in');
    for (const request of api.requests) {
      if (count(request, mark) > 0) throw new Error(`a request carries ${mark}`);
    }
  } finally {
    await api.close();
    ctx.cleanup();
  }
}

/**
 * Without `mneme` on the PATH, a repository set up for `runtime` gives the session one notice
 * instead of the facts. `start` starts the runtime's stand-in; `run(ctx, api, env)` runs one turn
 * with `env` (the PATH without mneme); `prepare(ctx)` changes the repository first.
 */
export async function noticeWithoutMneme(runtime, fact, mark, start, run, prepare = () => {}) {
  const ctx = repoWithFacts([fact], { setup: runtime });
  prepare(ctx);
  const api = await start();
  try {
    await run(ctx, api, { PATH: pathWithoutMneme() });
    const last = api.requests.at(-1);
    if (count(last, 'mneme is not installed') !== 1) throw new Error('not one notice in the last request');
    if (count(last, mark) !== 0) throw new Error(`the last request carries ${mark}`);
  } finally {
    await api.close();
    ctx.cleanup();
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A program in a real terminal: its own tmux server (socket `name`), whose environment is
 * `env`, running `cmd args` in `cwd` on a 200x50 screen. `type(text)` types a line and presses
 * Enter; `waitFor(regex)` polls the screen until it matches (or throws with the screen after
 * `timeout`), `settle(regex)` until it also stays still; `screen()` is what it shows;
 * `exited()` waits for the program to end; `close()` ends it.
 */
export function terminal(name, cmd, args, { cwd, env = {} }) {
  const tmuxEnv = { ...process.env, PATH: pathWithMneme(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', ...env };
  const tmux = (...a) => execFileSync('tmux', ['-L', name, ...a], { cwd, env: tmuxEnv, encoding: 'utf8' });
  tmux('-f', '/dev/null', 'new-session', '-d', '-x', '200', '-y', '50', '-c', cwd, '--', cmd, ...args);
  const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-200');
  return {
    screen,
    type: async (text) => {
      tmux('send-keys', '-l', text);
      await sleep(300);
      tmux('send-keys', 'Enter');
    },
    waitFor: async (regex, timeout = 60_000) => {
      const end = Date.now() + timeout;
      for (;;) {
        const shown = screen();
        if (regex.test(shown)) return shown;
        if (Date.now() > end) throw new Error(`no ${regex} on the screen after ${timeout} ms:\n${shown}`);
        await sleep(250);
      }
    },
    /** Waits until the screen shows `regex` and has not changed for a second. */
    settle: async (regex, timeout = 60_000) => {
      const end = Date.now() + timeout;
      let last = '';
      let since = Date.now();
      for (;;) {
        const shown = screen();
        if (shown !== last) {
          last = shown;
          since = Date.now();
        } else if (regex.test(shown) && Date.now() - since >= 1000) {
          return shown;
        }
        if (Date.now() > end) throw new Error(`the screen did not settle on ${regex} in ${timeout} ms:\n${shown}`);
        await sleep(250);
      }
    },
    /** Waits until the program has ended (its terminal closes with it). */
    exited: async (timeout = 30_000) => {
      const end = Date.now() + timeout;
      for (;;) {
        try {
          tmux('has-session');
        } catch {
          return;
        }
        if (Date.now() > end) throw new Error(`still running after ${timeout} ms:\n${screen()}`);
        await sleep(250);
      }
    },
    close: () => {
      try {
        tmux('kill-server');
      } catch {
        // Already gone with its program.
      }
    },
  };
}

/**
 * Fills the ledger of `ctx` to its 800-line budget with hand-written facts, committed; returns
 * the lines `mneme status` counts.
 */
export function fillToBudget(ctx) {
  const file = path.join(ctx.repo, '.ledger/facts/architecture.md');
  const lines = fs.readFileSync(file, 'utf8').split('\n').length;
  let more = '';
  for (let i = 0; i < 800 - lines - 40; i++) {
    more += `- **f-r${i.toString(36).padStart(3, '0')}** Rule ${i}: the service ${i} keeps its own pool of ${(i % 32) + 1} connections.\n`;
  }
  fs.appendFileSync(file, more);
  // Written by hand, past review: the commit-msg hook `init` installed would stop it.
  sh('git', ['commit', '--no-verify', '-qam', 'a full ledger'], { cwd: ctx.repo });
  return JSON.parse(sh('mneme', ['status', '--json'], { cwd: ctx.repo })).budget_used;
}

/**
 * What `mneme context --for RUNTIME --event EVENT` gives the runtime: the text it injects. `agent`
 * is the MNEME_AGENT the runtime sets for its hooks, if any.
 */
export function hookContext(ctx, runtime, event, agent = '') {
  const out = sh('mneme', ['context', '--for', runtime, '--event', event], {
    cwd: ctx.repo,
    env: { MNEME_AGENT: agent },
    input: '',
  });
  return runtime === 'opencode' ? out.trim() : JSON.parse(out).hookSpecificOutput.additionalContext;
}

/** Whether a recorded request carries `text` whole, in one of its strings. */
export function carriesWhole(request, text) {
  return strings(request).some((s) => s.includes(text.trim()));
}

/** `mneme doctor --json` in the repository of `ctx` (it exits 1 on a problem). */
export function doctor(ctx, env = {}) {
  const out = spawnSync('mneme', ['--json', 'doctor'], {
    cwd: ctx.repo,
    env: { ...process.env, PATH: pathWithMneme(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', HOME: ctx.home, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(out.stdout);
}

#!/usr/bin/env node
// Runs the mneme binary of this platform, which npm installed as an optional dependency
// (mneme-ledger-<platform>-<arch>): no download at install time, no postinstall script.
"use strict";

const { spawnSync } = require("node:child_process");

const platforms = {
  "linux-x64": "mneme-ledger-linux-x64",
  "linux-arm64": "mneme-ledger-linux-arm64",
  "darwin-x64": "mneme-ledger-darwin-x64",
  "darwin-arm64": "mneme-ledger-darwin-arm64",
  "win32-x64": "mneme-ledger-win32-x64",
};

const key = `${process.platform}-${process.arch}`;
const pkg = platforms[key];
const exe = process.platform === "win32" ? "mneme.exe" : "mneme";
let binary;
try {
  binary = pkg && require.resolve(`${pkg}/bin/${exe}`);
} catch {
  binary = undefined;
}
if (!binary) {
  const why = pkg
    ? `its package ${pkg} is not installed (was it installed with --no-optional or --omit=optional?)`
    : `there is no prebuilt mneme for ${key}`;
  process.stderr.write(
    `mneme-ledger: cannot run mneme: ${why}. Reinstall mneme-ledger, or build it with \`cargo install --path .\` from its source.\n`,
  );
  process.exit(1);
}

const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  process.stderr.write(`mneme-ledger: cannot run ${binary}: ${result.error.message}\n`);
  process.exit(1);
}
if (result.signal) {
  process.kill(process.pid, result.signal);
}
process.exit(result.status ?? 1);

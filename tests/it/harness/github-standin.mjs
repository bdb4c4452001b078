// A local stand-in of GitHub's REST API for the forge tests. Every request is checked against
// GitHub's own OpenAPI description (@octokit/openapi): its path and method, its path and query
// parameters, its JSON body. Every answer is built from that description's own examples and
// checked against its response schema. Each request is recorded, one JSON line per request, with
// what was wrong with it, if anything.
//
//   node github-standin.mjs STATE LOG   (prints the port it listens on)
//
// STATE (JSON): {"token": "...", "repo": "owner/name", "permissions": {"login": "write"},
//   "pulls": {"7": {"head": {...}, "base": {...}, "state": "open"}}, "comments": {"7": [...]}}
// It is read again for each request, so a test can change it between steps.
import { createServer } from "node:http";
import { appendFileSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import Ajv from "ajv";
import addFormats from "ajv-formats";

const require = createRequire(import.meta.url);
const api = require("@octokit/openapi/generated/api.github.com.json");
const [stateFile, logFile] = process.argv.slice(2);

// OpenAPI 3.0's `nullable` as JSON Schema says it.
function jsonSchema(node) {
  if (Array.isArray(node)) return node.map(jsonSchema);
  if (node === null || typeof node !== "object") return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) if (k !== "nullable") out[k] = jsonSchema(v);
  if (node.nullable === true) {
    if (typeof out.type === "string" && !out.enum) return { ...out, type: [out.type, "null"] };
    return { anyOf: [out, { type: "null" }] };
  }
  return out;
}

const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: "api", components: jsonSchema(api.components), paths: jsonSchema(api.paths) });
const validators = new Map();
function validator(pointer) {
  if (!validators.has(pointer)) validators.set(pointer, ajv.compile({ $ref: `api#${pointer}` }));
  return validators.get(pointer);
}
const esc = (s) => s.replaceAll("~", "~0").replaceAll("/", "~1");
const deref = (node) => {
  while (node && node.$ref) {
    node = node.$ref.slice(2).split("/").reduce((n, k) => n[k.replaceAll("~1", "/").replaceAll("~0", "~")], api);
  }
  return node;
};
const example = (name) => structuredClone(api.components.examples[name].value);

// The OpenAPI path template a request path matches, with its parameters.
const templates = Object.keys(api.paths).map((t) => ({
  t,
  re: new RegExp("^" + t.replace(/\{[^}]+\}/g, "([^/]+)") + "$"),
  names: [...t.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
}));
function match(path) {
  for (const { t, re, names } of templates) {
    const m = path.match(re);
    if (m) return { template: t, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])])) };
  }
  return null;
}

function checkParams(operation, template, params, query) {
  const problems = [];
  const declared = [...(api.paths[template].parameters || []), ...(operation.parameters || [])].map(deref);
  for (const p of declared) {
    const value = p.in === "path" ? params[p.name] : p.in === "query" ? query.get(p.name) : undefined;
    if (p.in !== "path" && p.in !== "query") continue;
    if (value === null || value === undefined) {
      if (p.required) problems.push(`missing ${p.in} parameter ${p.name}`);
      continue;
    }
    const schema = jsonSchema(deref(p.schema));
    const typed = schema.type === "integer" ? (/^-?\d+$/.test(value) ? Number(value) : value) : value;
    const v = ajv.compile(schema);
    if (!v(typed)) problems.push(`${p.in} parameter ${p.name}=${value}: ${ajv.errorsText(v.errors)}`);
  }
  for (const name of query.keys()) {
    if (!declared.some((p) => p.in === "query" && p.name === name)) problems.push(`unknown query parameter ${name}`);
  }
  return problems;
}

let nextComment = 9000;
// The comments the workflow posted, by issue number: they are listed after the state's own.
const posted = {};
function answer(state, method, template, params, query, body) {
  const [owner, repo] = state.repo.split("/");
  if (params.owner !== owner || params.repo !== repo) return [404, { message: "Not Found" }];
  switch (`${method} ${template}`) {
    case "GET /repos/{owner}/{repo}/collaborators/{username}/permission": {
      const level = state.permissions[params.username] || "none";
      const out = example("repository-collaborator-permission-response-if-user-has-admin-permissions");
      out.permission = level;
      out.role_name = level;
      out.user.login = params.username;
      // GitHub's example lags its schema, which now requires the user's role too.
      out.user.role_name = level;
      return [200, out];
    }
    case "GET /repos/{owner}/{repo}/pulls/{pull_number}": {
      const pull = state.pulls[params.pull_number];
      if (!pull) return [404, { message: "Not Found" }];
      const out = example("pull-request");
      out.number = Number(params.pull_number);
      // GitHub's example lags its schema (a team's `type`); no team is asked to review here.
      out.requested_teams = [];
      out.state = pull.state || "open";
      for (const end of ["head", "base"]) {
        out[end].ref = pull[end].ref;
        out[end].sha = pull[end].sha;
        out[end].label = `${pull[end].repo || state.repo}:${pull[end].ref}`;
        if (pull[end].repo === null) out[end].repo = null;
        else out[end].repo.full_name = pull[end].repo || state.repo;
      }
      return [200, out];
    }
    case "GET /repos/{owner}/{repo}/issues/{issue_number}/comments": {
      const all = [...(state.comments[params.issue_number] || []), ...(posted[params.issue_number] || [])].map(comment);
      const per = Number(query.get("per_page") || 30);
      const page = Number(query.get("page") || 1);
      return [200, all.slice((page - 1) * per, page * per)];
    }
    case "POST /repos/{owner}/{repo}/issues/{issue_number}/comments": {
      const c = { id: nextComment++, body: body.body, login: "github-actions[bot]", type: "Bot" };
      (posted[params.issue_number] ||= []).push(c);
      return [201, comment(c)];
    }
    case "PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}": {
      const id = Number(params.comment_id);
      const mine = Object.values(posted).flat().find((c) => c.id === id);
      const theirs = Object.values(state.comments).flat().find((c) => c.id === id);
      if (!mine && !theirs) return [404, { message: "Not Found" }];
      if (mine) mine.body = body.body;
      return [200, comment({ id: Number(params.comment_id), body: body.body, login: "github-actions[bot]", type: "Bot" })];
    }
    case "POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions": {
      const out = example("reaction");
      out.content = body.content;
      return [201, out];
    }
    default:
      return [501, { message: `the stand-in does not answer ${method} ${template}` }];
  }
}

function comment(c) {
  const out = example("issue-comment");
  out.id = c.id;
  out.body = c.body;
  out.user.login = c.login;
  out.user.type = c.type;
  return out;
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const state = JSON.parse(readFileSync(stateFile, "utf8"));
    const url = new URL(req.url, "http://stand-in");
    const method = req.method;
    const raw = Buffer.concat(chunks).toString("utf8");
    const record = { method, path: url.pathname, query: Object.fromEntries(url.searchParams), problems: [] };
    let status = 200;
    let out;
    const found = match(url.pathname);
    const operation = found && api.paths[found.template][method.toLowerCase()];
    if (req.headers.authorization !== `Bearer ${state.token}`) {
      record.problems.push("no valid Authorization header");
      [status, out] = [401, { message: "Bad credentials" }];
    } else if (!operation) {
      record.problems.push(`GitHub's API has no ${method} ${url.pathname}`);
      [status, out] = [404, { message: "Not Found" }];
    } else {
      record.template = found.template;
      record.problems.push(...checkParams(operation, found.template, found.params, url.searchParams));
      let body;
      if (operation.requestBody) {
        const pointer = `/paths/${esc(found.template)}/${method.toLowerCase()}/requestBody/content/application~1json/schema`;
        try {
          body = JSON.parse(raw);
          record.body = body;
          const v = validator(pointer);
          if (!v(body)) record.problems.push(`request body: ${ajv.errorsText(v.errors)}`);
        } catch (e) {
          record.problems.push(`request body is not JSON: ${e.message}`);
        }
      } else if (raw.length > 0) {
        record.problems.push("a body where the operation takes none");
      }
      [status, out] = answer(state, method, found.template, found.params, url.searchParams, body || {});
      const response = operation.responses[String(status)];
      if (!response) {
        record.problems.push(`GitHub never answers ${status} here`);
      } else if (deref(response).content) {
        const pointer = `/paths/${esc(found.template)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`;
        const v = validator(pointer);
        if (!v(out)) record.problems.push(`the stand-in's own answer: ${ajv.errorsText(v.errors)}`);
      }
    }
    record.status = status;
    appendFileSync(logFile, JSON.stringify(record) + "\n");
    res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
    res.end(JSON.stringify(out));
  });
});
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${server.address().port}\n`);
});

// A local stand-in of the parts of GitLab's REST API (v4) the pipeline `mneme init --ci gitlab`
// writes calls. It accepts only the requests GitLab documents (api.json: each endpoint's
// parameters and an example answer, with where each shape came from), answers with GitLab's
// examples set to the test's values, and records each request, one JSON line per request, with
// what was wrong with it, if anything.
//
//   node standin.mjs STATE LOG   (prints the port it listens on)
//
// STATE (JSON), read again for each request so a test can change it between runs:
//   {"token": "...", "project": 5, "web_url": "https://gitlab.example.com/acme/app",
//    "bot": {"id": 900, "username": "..."}, "users": {"42": {"username": "grace", "bot": false}},
//    "members": {"42": 30}, "membership_states": {"42": "awaiting"}, "merge_requests": {"7": {...}}, "notes": {"7": [...]},
//    "awards": {"301": [...]}}
import { createServer } from "node:http";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";

const api = JSON.parse(readFileSync(new URL("./api.json", import.meta.url)));
const [stateFile, logFile] = process.argv.slice(2);
const PREFIX = "/api/v4";

const routes = api.endpoints.map((e) => ({
  ...e,
  re: new RegExp("^" + e.path.replace(/:[a-z_]+/g, "([^/]+)") + "$"),
  names: [...e.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]),
}));

const example = (method, path) => structuredClone(routes.find((r) => r.method === method && r.path === path).example);
const now = () => new Date().toISOString();

function user(state, id) {
  if (Number(id) === state.bot.id) return { ...example("GET", "/user"), ...state.bot };
  const u = state.users[id];
  if (!u) return null;
  return { ...example("GET", "/users/:user_id"), id: Number(id), name: u.username, web_url: `https://gitlab.example.com/${u.username}`, ...u };
}

function basic(u) {
  return { id: u.id, username: u.username, name: u.name, state: u.state || "active", avatar_url: null, web_url: u.web_url };
}

function note(state, mr, n) {
  const base = example("GET", "/projects/:id/merge_requests/:merge_request_iid/notes/:note_id");
  const author = user(state, n.author) || { id: n.author, username: `user${n.author}` };
  return { ...base, id: n.id, body: n.body, author: basic(author), created_at: n.created_at, updated_at: n.updated_at || n.created_at, system: !!n.system, noteable_id: 1000 + Number(mr), noteable_type: "MergeRequest", project_id: state.project, noteable_iid: Number(mr) };
}

function page(items, query) {
  const per = Number(query.get("per_page") || 20);
  const at = Number(query.get("page") || 1);
  return items.slice((at - 1) * per, at * per);
}

function answer(state, save, method, route, params, query, body) {
  if (route.path.startsWith("/projects/") && Number(params.id) !== state.project) return [404, { message: "404 Project Not Found" }];
  const mr = params.merge_request_iid;
  const notes = () => (state.notes[mr] ||= []);
  switch (`${method} ${route.path}`) {
    case "GET /user":
      return [200, user(state, state.bot.id)];
    case "GET /users/:user_id": {
      const u = user(state, params.user_id);
      return u ? [200, u] : [404, { message: "404 User Not Found" }];
    }
    case "GET /projects/:id/members/all/:user_id": {
      const level = state.members[params.user_id];
      const u = user(state, params.user_id);
      if (!level || !u) return [404, { message: "404 Not found" }];
      const extra = state.membership_states?.[params.user_id];
      return [200, { ...example(method, route.path), ...basic(u), access_level: level, ...(extra ? { membership_state: extra } : {}) }];
    }
    case "GET /projects/:id/merge_requests/:merge_request_iid": {
      const m = state.merge_requests[mr];
      if (!m) return [404, { message: "404 Not found" }];
      const out = example(method, route.path);
      Object.assign(out, {
        iid: Number(mr), project_id: state.project, state: m.state || "opened",
        source_branch: m.source_branch, target_branch: m.target_branch,
        source_project_id: m.source_project_id || state.project, target_project_id: state.project,
        sha: m.head, diff_refs: { base_sha: m.base, head_sha: m.head, start_sha: m.base },
        web_url: `${state.web_url}/-/merge_requests/${mr}`, reference: `!${mr}`,
      });
      return [200, out];
    }
    case "GET /projects/:id/merge_requests/:merge_request_iid/notes":
      return [200, page(notes().map((n) => note(state, mr, n)), query)];
    case "GET /projects/:id/merge_requests/:merge_request_iid/notes/:note_id": {
      const n = notes().find((n) => n.id === Number(params.note_id));
      return n ? [200, note(state, mr, n)] : [404, { message: "404 Note Not Found" }];
    }
    case "POST /projects/:id/merge_requests/:merge_request_iid/notes": {
      const n = { id: (state.next_note ||= 9000), body: body.body, author: state.bot.id, created_at: now() };
      state.next_note += 1;
      notes().push(n);
      save();
      return [201, note(state, mr, n)];
    }
    case "PUT /projects/:id/merge_requests/:merge_request_iid/notes/:note_id": {
      const n = notes().find((n) => n.id === Number(params.note_id));
      if (!n) return [404, { message: "404 Note Not Found" }];
      // GitLab lets only a note's author edit it.
      if (n.author !== state.bot.id) return [403, { message: "403 Forbidden" }];
      n.body = body.body;
      n.updated_at = now();
      save();
      return [200, note(state, mr, n)];
    }
    case "GET /projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji": {
      const list = (state.awards[params.note_id] || []).map((a, i) => ({ ...example(method, route.path)[0], id: i + 1, name: a.name, user: basic(user(state, a.user)), awardable_id: Number(params.note_id) }));
      return [200, page(list, query)];
    }
    case "POST /projects/:id/merge_requests/:merge_request_iid/notes/:note_id/award_emoji": {
      (state.awards[params.note_id] ||= []).push({ name: body.name, user: state.bot.id });
      save();
      return [201, { ...example(method, route.path), name: body.name, user: basic(user(state, state.bot.id)), awardable_id: Number(params.note_id) }];
    }
  }
  return [404, { message: "404 Not Found" }];
}

const server = createServer((req, res) => {
  let raw = "";
  req.on("data", (c) => (raw += c));
  req.on("end", () => {
    const state = JSON.parse(readFileSync(stateFile, "utf8"));
    const save = () => writeFileSync(stateFile, JSON.stringify(state));
    const url = new URL(req.url, "http://localhost");
    const problems = [];
    const record = { method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams) };
    let status = 404;
    let out = { message: "404 Not Found" };
    const path = url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) : null;
    const route = path && routes.find((r) => r.method === req.method && r.re.test(path));
    if (!route) {
      problems.push(`GitLab documents no ${req.method} ${url.pathname}`);
    } else if (req.headers["private-token"] !== state.token) {
      status = 401;
      out = { message: "401 Unauthorized" };
      problems.push("no PRIVATE-TOKEN, or not the project's token");
    } else {
      record.template = route.path;
      const m = path.match(route.re);
      const params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
      for (const [k, v] of Object.entries(params)) if (k !== "id" && !/^\d+$/.test(v)) problems.push(`path parameter ${k}=${v} is not an integer`);
      for (const k of url.searchParams.keys()) if (!route.query.includes(k)) problems.push(`unknown query parameter ${k}`);
      let body = {};
      if (route.body) {
        if (!/^application\/json/.test(req.headers["content-type"] || "")) problems.push("the body is not sent as JSON");
        try {
          body = JSON.parse(raw || "{}");
        } catch {
          problems.push("the body does not parse as JSON");
        }
        for (const k of route.body.required) if (typeof body[k] !== "string" || body[k] === "") problems.push(`missing body parameter ${k}`);
        for (const k of Object.keys(body)) if (![...route.body.required, ...route.body.optional].includes(k)) problems.push(`unknown body parameter ${k}`);
        record.body = body;
      } else if (raw) {
        problems.push(`${req.method} ${route.path} takes no body`);
      }
      [status, out] = answer(state, save, req.method, route, params, url.searchParams, body);
    }
    record.status = status;
    record.problems = problems;
    appendFileSync(logFile, JSON.stringify(record) + "\n");
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(out));
  });
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
